"""`wb.py variants PROGRAM` (scripts/variants.sh): the runs that cover every kernel of a chapter
program, one a line, by the one rule in common.runs_covering_every_kernel: "all" where the
program offers `--variant all`, else each of its variants but "sweep", else "-" (it has no
--variant). tests/gpu.sh runs a chapter once per line."""

import sys

from . import common


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: scripts/variants.sh CHAPTER_PROGRAM", file=sys.stderr)
        return 2
    try:
        names = common.list_variants(argv[0])
    except OSError:
        names = []   # not a program: "-", so that running it fails where the caller can see it
    for run in common.runs_covering_every_kernel(names):
        print(run or "-")
    return 0
