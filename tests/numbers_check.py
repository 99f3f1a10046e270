#!/usr/bin/env python3
"""tests/numbers_check.py: the headline numbers that the pages' prose quotes are their CSVs'.

  python3 tests/numbers_check.py              `scripts/wb.py numbers --check` on the repository:
                                              every tagged number (<!-- num CSV KERNEL N QUANTITY -->)
                                              equals what its CSV gives (scripts/wblib/numbers.py)
  python3 tests/numbers_check.py --self-test  the negative controls, in a temporary copy of the
                                              repository's tracked files:
    - a tagged number changed by one digit, as a hand edit or a new CSV would leave it, fails the
      check, which names the page, the line and what the CSV gives; `numbers` writes it back and
      the check passes again;
    - a tag that names a kernel the CSV lacks, a kernel of two chapters without NN:, an unknown
      quantity, or no number after the tag, fails;
    - the site's filter (docs/md_filter.sh) shows the number without its tag.
Exit 0 when all hold, 1 otherwise."""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from results_check import tree_copy  # noqa: E402

TAG = re.compile(r"<!-- num \S+ \S+ \S+ \S+ -->(\d+(?:\.\d+)?)")


def numbers(root, *args):
    r = subprocess.run([sys.executable, "scripts/wb.py", "numbers"] + list(args), cwd=root,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def first_tag(root):
    """(page, line index, match) of the first tagged number on a chapter page, outside code:
    found, not named, so that the control keeps working as pages and CSVs change."""
    for page in sorted(glob.glob(os.path.join(root, "chapters", "*", "README.md"))):
        lines = open(page, encoding="utf-8").read().split("\n")
        fenced = False
        for i, line in enumerate(lines):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            m = None if fenced else TAG.search(re.sub(r"`[^`]*`", lambda c: " " * len(c.group(0)), line))
            if m:
                return page, i, m
    raise SystemExit("numbers_check --self-test: no tagged number on any chapter page")


def self_test():
    failures = []

    def expect(what, ok, output=""):
        print(f"numbers_check self-test: {what}: {'ok' if ok else 'WRONG'}")
        if not ok:
            failures.append(what)
            print(output)

    with tempfile.TemporaryDirectory() as root:
        tree_copy(root)
        rc, out = numbers(root, "--check")
        expect("the committed pages pass", rc == 0 and re.search(r"numbers: [1-9]\d* tagged", out) is not None, out)

        page, i, m = first_tag(root)
        rel = os.path.relpath(page, root)
        original = open(page, encoding="utf-8").read()
        lines = original.split("\n")
        good = m.group(1)
        bad = good[:-1] + str((int(good[-1]) + 1) % 10)
        lines[i] = lines[i][:m.start(1)] + bad + lines[i][m.end(1):]
        open(page, "w", encoding="utf-8").write("\n".join(lines))
        rc, out = numbers(root, "--check")
        expect(f"{rel}:{i + 1}: {good} changed to {bad} fails the check",
               rc == 1 and f"{rel}:{i + 1}:" in out and f"the page says {bad}, the CSV gives {good}" in out, out)
        rc, out = numbers(root)
        expect("`numbers` writes it back from the CSV",
               rc == 0 and open(page, encoding="utf-8").read() == original, out)
        rc, out = numbers(root, "--check")
        expect("and the check passes again", rc == 0, out)

        tag = m.group(0)[:-len(good)]
        broken = {
            "a kernel the CSV lacks": (re.sub(r"<!-- num (\S+) \S+ ", r"<!-- num \1 no_such_kernel ", tag) + good,
                                       "no verified row of no_such_kernel"),
            "a kernel of two chapters without NN:": ("<!-- num h200-run-chapter22 memcpy_d2d 2^30 gbps -->4283.1",
                                                     "name one (00:memcpy_d2d)"),
            "an unknown quantity": (re.sub(r" \S+ -->$", " speed -->", tag) + good, "unknown quantity 'speed'"),
            "no number after the tag": (tag + " GB/s", "no number after the tag"),
            "a CSV that does not exist": (re.sub(r"<!-- num \S+ ", "<!-- num h999 ", tag) + good,
                                          "no docs/results/h999.csv"),
        }
        for what, (text, message) in broken.items():
            lines = original.split("\n")
            lines[i] = lines[i][:m.start()] + text + lines[i][m.end():]
            open(page, "w", encoding="utf-8").write("\n".join(lines))
            rc, out = numbers(root, "--check")
            expect(f"{what} fails ({message})", rc == 1 and message in out, out)
        open(page, "w", encoding="utf-8").write(original)

        r = subprocess.run(["sh", "docs/md_filter.sh", rel], cwd=root, capture_output=True, text=True)
        shown = r.stdout.split("\n")
        expect("the site's filter shows the number without its tag",
               r.returncode == 0 and "<!-- num" not in shown[i] and good in shown[i], shown[i] if len(shown) > i else r.stderr)
    print(f"numbers_check self-test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    status, output = numbers(ROOT, "--check")
    print(output, end="")
    sys.exit(status)
