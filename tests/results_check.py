#!/usr/bin/env python3
"""tests/results_check.py: every generated results block is what the scripts render from the
committed CSVs. In a temporary copy of the workbook's files (as the tree holds them, without
its builds: wblib.common.tree_files, so that a source archive is checked as a checkout is), this
re-renders
  docs/results/<gpu>.csv            (scripts/summary.sh render: results pages, charts, README,
                                     chapter results and across-N blocks)
  docs/results/<gpu>-run-chapterNN.csv  (summary.sh render --chapter NN: a chapter measured in
                                     a run of its own, its page's blocks)
  docs/results/<gpu>-counters.csv   (scripts/profile.sh render: counters pages and blocks)
  docs/results/*-sweepNN.csv        (scripts/sweep.sh render: the chapter's sweep block)
  docs/results/*-gridNN.csv         (scripts/sweep.sh render: the grid study's page)
  docs/results/*-x*-chapter18.csv   (scripts/scaling.sh render: chapter 18's scaling block)
  docs/results/*-chapter19-study.csv (scripts/wb.py study render: chapter 19's study chart)
  (docs/results/*-chapter21-selectivity.csv, chapter 21 at each --keep, and *-chapter2[23]-stages,
  -clocks and -offset1.csv, chapters 22 and 23 at each --stages, in the clock build and at --offset
  1, *-chapter24-inputs, -atomics and -changes.csv, chapter 24 on each input, its shared-atomic
  counters and a change measured alone, and *-chapter25-inputs, -kernels, -stalls and -changes.csv, chapter 25 on each input,
  its kernels' counters and stall samples and each change measured alone, are data their pages
  quote: nothing renders them)
with the date each committed output shows, and fails naming every file that changed: a page
edited by hand inside its markers, or a renderer changed without re-rendering, is caught.
Usage: python3 tests/results_check.py [--self-test]   (exit 0 up to date, 1 otherwise)
--self-test: the same after altering one generated table cell in the copy: it must fail."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from wblib import common  # noqa: E402  (found through the path above)


def tree_copy(dest):
    """The workbook's files as they are in the tree (common.tree_files), copied to dest."""
    for rel in common.tree_files(ROOT):
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))


def shown_date(path):
    """The first date (YYYY-MM-DD) an output shows."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r"\b(20\d\d-\d\d-\d\d)\b", f.read())
    if not m:
        raise SystemExit(f"results_check: {path} shows no date")
    return m.group(1)


def renders(root):
    """The render commands that produce the committed outputs: (argv, output that shows the date)."""
    res = os.path.join(root, "docs", "results")
    out = []
    main = sorted(p for p in glob.glob(os.path.join(res, "*.csv")) if re.fullmatch(r"[a-z0-9-]+\.csv", os.path.basename(p))
                  and not re.search(r"-(counters|sweep\d\d|grid\d\d|x\d+-chapter\d\d|run-chapter\d\d|chapter\d\d-study|chapter\d\d-(selectivity|stages|clocks|offset1|inputs|atomics|kernels|stalls|changes))\.csv$", p))
    # The H200 first: the pages show the first CSV open and fold the others.
    main.sort(key=lambda p: (os.path.basename(p) != "h200.csv", p))
    if main:
        out.append((["bash", "scripts/summary.sh", "render", "--date", shown_date(main[0][:-4] + ".md")] + main, None))
    # A chapter measured in a run of its own (with chapter 00) on one GPU or several: only its
    # page's blocks, from all its CSVs together, the H200's first (open, the others folded).
    own = {}
    for csv in sorted(glob.glob(os.path.join(res, "*-run-chapter[0-9][0-9].csv"))):
        own.setdefault(csv[-6:-4], []).append(csv)
    for cid, csvs in sorted(own.items()):
        csvs.sort(key=lambda p: (not os.path.basename(p).startswith("h200-run-"), p))
        out.append((["bash", "scripts/summary.sh", "render", "--chapter", cid, "--date",
                     shown_date(csvs[0][:-4] + ".md")] + csvs, None))
    # Chapter 19's study: its chart beside it (no date shown).
    for csv in sorted(glob.glob(os.path.join(res, "*-chapter19-study.csv"))):
        out.append((["python3", "scripts/wb.py", "study", "render", csv], None))
    counters = sorted(glob.glob(os.path.join(res, "*-counters.csv")), key=lambda p: (not p.endswith("/h200-counters.csv"), p))
    if counters:
        out.append((["bash", "scripts/profile.sh", "render", "--date", shown_date(counters[0][:-4] + ".md")] + counters, None))
    for csv in sorted(glob.glob(os.path.join(res, "*-sweep[0-9][0-9].csv"))):
        cid = csv[-6:-4]
        page = glob.glob(os.path.join(root, "chapters", cid + "-*", "README.md"))[0]
        text = open(page, encoding="utf-8").read()
        block = text[text.index("<!-- sweep:begin -->"):]
        date = re.search(r"\((20\d\d-\d\d-\d\d), `scripts/sweep.sh", block).group(1)
        out.append((["bash", "scripts/sweep.sh", "render", csv, "--date", date], None))
    for csv in sorted(glob.glob(os.path.join(res, "*-grid[0-9][0-9].csv"))):
        page = os.path.join(root, "docs", "pages", "block-batch-grid.md")
        date = re.search(r"\((20\d\d-\d\d-\d\d), `scripts/sweep.sh", open(page, encoding="utf-8").read()).group(1)
        out.append((["bash", "scripts/sweep.sh", "render", csv, page, "--date", date], None))
    for csv in sorted(glob.glob(os.path.join(res, "*-x[0-9]*-chapter18.csv"))):
        page = glob.glob(os.path.join(root, "chapters", "18-*", "README.md"))[0]
        text = open(page, encoding="utf-8").read()
        gpus = re.search(r"-x(\d+)-chapter18\.csv$", csv).group(1)
        date = re.search(r"Measured on %s x .* on (20\d\d-\d\d-\d\d) by `scripts/scaling.sh`" % gpus, text).group(1)
        out.append((["bash", "scripts/scaling.sh", "render", "--date", date, csv], None))
    return out


def snapshot(root):
    return {p: open(p, "rb").read() for p in glob.glob(os.path.join(root, "**", "*"), recursive=True)
            if os.path.isfile(p) and (p.endswith(".md") or p.endswith(".svg"))}


def alter_one_cell(root):
    """Change the last digit of the first number in a table cell of chapter 05's results block,
    as a hand edit would. Found, not named: a fixed value stops matching after a new run, and the
    control would then alter nothing and test nothing (SystemExit when no cell is found)."""
    page = glob.glob(os.path.join(root, "chapters", "05-*", "README.md"))[0]
    text = open(page, encoding="utf-8").read()
    begin = text.index("<!-- results:begin -->")
    m = re.compile(r"\| (\d+\.\d*)(\d) \|").search(text, begin, text.index("<!-- results:end -->", begin))
    if not m:
        raise SystemExit(f"results_check --self-test: no number in a table cell of {page}'s results block")
    cell = f"| {m.group(1)}{(int(m.group(2)) + 1) % 10} |"
    open(page, "w", encoding="utf-8").write(text[:m.start()] + cell + text[m.end():])


def check(alter=False):
    with tempfile.TemporaryDirectory() as root:
        tree_copy(root)
        if alter:
            alter_one_cell(root)
        before = snapshot(root)
        for argv, _ in renders(root):
            r = subprocess.run(argv, cwd=root, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"results_check: {' '.join(argv[:3])} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
                return 1
        after = snapshot(root)
        changed = sorted(os.path.relpath(p, root) for p in after if before.get(p) != after[p])
        for p in changed:
            print(f"results_check: {p} differs from what the scripts render from the committed CSVs")
        print(f"results_check: {len(renders(root))} renders, {len(changed)} file(s) changed")
        return 1 if changed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        status = check(alter=True)
        print("results_check self-test: an altered cell " + ("is caught" if status == 1 else "was NOT caught"))
        sys.exit(0 if status == 1 else 1)
    sys.exit(check())
