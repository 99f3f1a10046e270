#!/usr/bin/env python3
"""needs_cub_check.py: rows that need a newer CUB run exactly where the build's CUB has them.

    python3 tests/needs_cub_check.py [--n N] PROGRAM...   on the GPU (exit 77 without one)
    python3 tests/needs_cub_check.py --self-test          on the host, against canned outputs

A chapter's --info lists every row whatever CUB it was built with; "needs_cub" names the rows that
need a newer CUB than some builds have, with the version each needs, and "cub" is the build's.
For every PROGRAM whose --info has needs_cub (at least one must), this runs the variant with the
fewest rows among those that hold such a row (chapter 19: `--variant cub`) with --csv at a small
N, and checks that its CSV reports exactly the variant's rows, in order, less those whose version
is newer than the build's CUB; and that standard error holds exactly one note naming the rows
left out and how to get their CUB (pip install nvidia-cuda-cccl) where some are left out, and
none where none is.

--self-test runs the same judgement on tests/fixtures/needs_cub/ (chapter 19's --info, the CSV of
`--variant cub` with CUB 3.5.0 and with CUB 3.0.1, and the note of the latter): the right pairs
must pass, and each wrong one (rows missing with the newer CUB, rows present with the older, the
note missing, twice, or where nothing is left out, an --info without needs_cub) must fail.
Exit 0 all good, 1 a problem (each printed), 2 bad usage, 77 no GPU (1 then under REQUIRE_GPU=1).
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "needs_cub")
HOW = "pip install nvidia-cuda-cccl"


def version(text):
    """"3.1.0" -> (3, 1, 0); None for anything else."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text or "")
    return tuple(int(g) for g in m.groups()) if m else None


def variant_to_run(info):
    """The variant with the fewest rows among those holding a row of needs_cub (None: no such)."""
    needs = info.get("needs_cub") or {}
    holding = [v for v in info.get("variants") or [] if set(v["kernels"]) & set(needs)]
    return min(holding, key=lambda v: len(v["kernels"])) if holding else None


def csv_rows(text):
    """The "kernel" column of a chapter's --csv output, in order."""
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines or not lines[0].startswith("chapter,kernel,"):
        return None
    return [l.split(",")[1] for l in lines[1:]]


def judge(info, csv_text, err_text):
    """The problems (a list of messages) in one run of variant_to_run(info): its CSV and its
    standard error, against the build's CUB and needs_cub."""
    needs = info.get("needs_cub")
    if not needs:
        return ["--info has no needs_cub: nothing to check"]
    cub = version(info.get("cub"))
    if cub is None:
        return [f"--info's cub is {info.get('cub')!r}, no version"]
    variant = variant_to_run(info)
    if variant is None:
        return ["no variant reports a row of needs_cub"]
    left_out = [k for k in variant["kernels"] if k in needs and version(needs[k]) > cub]
    want = [k for k in variant["kernels"] if k not in left_out]
    got = csv_rows(csv_text)
    problems = []
    if got is None:
        problems.append("the output is no CSV with the chapter's header")
    elif got != want:
        problems.append(f"rows {got}, expected {want} with CUB {info['cub']} (needs_cub: {needs})")
    notes = [l for l in err_text.splitlines() if HOW in l]
    if left_out:
        if len(notes) != 1:
            problems.append(f"{len(notes)} notes saying how to get a newer CUB on standard error, expected 1")
        elif not all(k in notes[0] for k in left_out) or not all(needs[k] in notes[0] for k in left_out):
            problems.append(f"the note does not name every row left out and the CUB it needs: {notes[0]}")
    elif notes:
        problems.append(f"a note about a newer CUB, but no row is left out: {notes[0]}")
    return problems


def read(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def self_test():
    """Each canned case judged: the right ones pass, the wrong ones fail."""
    info_new = json.loads(read("chapter19.info"))
    info_new["cub"] = "3.5.0"
    info_old = dict(info_new, cub="3.0.1")
    info_none = {k: v for k, v in info_new.items() if k != "needs_cub"}
    new_csv, old_csv, note = read("cub-3.5.0.csv"), read("cub-3.0.1.csv"), read("cub-3.0.1.stderr")
    lines = new_csv.splitlines(True)  # the header and four rows
    cases = [  # (what, info, CSV, standard error, whether it must pass)
        ("CUB 3.5.0, every row", info_new, new_csv, "", True),
        ("CUB 3.0.1, the rows left out and the note", info_old, old_csv, note, True),
        ("CUB 3.5.0 but the rows missing", info_new, old_csv, "", False),
        ("CUB 3.0.1 but the rows present", info_old, new_csv, note, False),
        ("CUB 3.0.1 without the note", info_old, old_csv, "", False),
        ("CUB 3.0.1 with the note twice", info_old, old_csv, note + note, False),
        ("CUB 3.0.1 with a note naming one row less", info_old, old_csv, note.replace("cub_sum_run_to_run", "x"), False),
        ("CUB 3.5.0 with the note", info_new, new_csv, note, False),
        ("rows out of order", info_new, "".join(lines[:3] + lines[4:] + lines[3:4]), "", False),
        ("an --info without needs_cub", info_none, new_csv, "", False),
    ]
    bad = 0
    for what, info, csv_text, err_text, passes in cases:
        problems = judge(info, csv_text, err_text)
        if (not problems) != passes:
            bad += 1
            print(f"FAIL self-test: {what}: {'refused: ' + '; '.join(problems) if passes else 'not caught'}")
        else:
            print(f"ok   {what}: {'passes' if passes else 'caught: ' + problems[0]}")
    print(f"needs_cub_check self-test: {len(cases)} cases, {bad} wrong")
    return 1 if bad else 0


def check_program(program, n):
    """(exit status, problems) of one program: 0 checked, 77 no GPU, 1 problems, None no needs_cub."""
    name = os.path.basename(program)
    try:
        out = subprocess.run([program, "--info"], capture_output=True, text=True, timeout=120)
        info = json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        return 1, [f"{name} --info: {e}"]
    if not isinstance(info, dict):
        return 1, [f"{name} --info printed no JSON object"]
    if not info.get("needs_cub"):
        return None, []
    variant = variant_to_run(info)
    if variant is None:
        return 1, [f"{name}: no variant reports a row of needs_cub"]
    argv = [program, "--variant", variant["name"], "--csv", "--n", str(n), "--reps", "2", "--warmup", "1"]
    print("+ " + " ".join(argv))
    run = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    sys.stdout.write(run.stdout)
    sys.stdout.write(run.stderr)
    if run.returncode == 77:
        if os.environ.get("REQUIRE_GPU") == "1":
            return 1, [f"{name}: REQUIRE_GPU=1 but the chapter found no usable GPU"]
        return 77, []
    if run.returncode != 0:
        return 1, [f"{name}: exit {run.returncode}"]
    problems = [f"{name}: {p}" for p in judge(info, run.stdout, run.stderr)]
    left_out = [k for k in variant["kernels"] if k in info["needs_cub"] and
                version(info["needs_cub"][k]) > version(info["cub"])]
    if not problems:
        print(f"{name}: CUB {info['cub']}: {'left out, with the note: ' + ', '.join(left_out) if left_out else 'every row of needs_cub reported'}")
    return (1 if problems else 0), problems


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    n = 65539
    if len(argv) >= 2 and argv[0] == "--n":
        if not argv[1].isdigit() or int(argv[1]) < 1:
            print(f"needs_cub_check: --n '{argv[1]}' is not allowed: give a whole number from 1", file=sys.stderr)
            return 2
        n, argv = int(argv[1]), argv[2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    statuses, problems = [], []
    for program in argv:
        status, found = check_program(program, n)
        if status is not None:
            statuses.append(status)
        problems += found
    if not statuses:
        problems.append("no program's --info has needs_cub: nothing was checked")
    for p in problems:
        print(f"FAIL {p}")
    if problems:
        return 1
    if 77 in statuses:
        print("needs_cub_check: no usable GPU; skipped (exit 77)")
        return 77
    print(f"needs_cub_check: {len(statuses)} program(s) with needs_cub, rows as their CUB has them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
