"""files: the workbook's files, as the tree holds them (wblib.common.tree_files: everything but
.git and what .gitignore ignores), for a shell script that copies the workbook; no git needed.

  python3 scripts/wb.py files [-0]   one relative path a line (-0: each ended by a NUL byte)"""

import sys

from . import common

SCRIPT = "files"


def main(argv):
    if argv in (["-h"], ["--help"]):
        print(__doc__.split("\n\n")[1])
        return 0
    if argv not in ([], ["-0"]):
        common.say(SCRIPT, f"unknown arguments {' '.join(argv)} (see -h)")
        return 2
    try:
        paths = common.tree_files()
    except ValueError as e:
        common.say(SCRIPT, str(e))
        return 1
    end = "\0" if argv == ["-0"] else "\n"
    sys.stdout.write("".join(p + end for p in paths))
    return 0
