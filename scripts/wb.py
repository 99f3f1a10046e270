#!/usr/bin/env python3
"""The workbook's tooling, one command per module of scripts/wblib/:

  python3 scripts/wb.py COMMAND [ARGS...]

COMMAND is one of the names in COMMANDS; `python3 scripts/wb.py COMMAND -h` shows its usage.
Python 3 standard library only."""

import importlib
import os
import sys

# The commands, each a module scripts/wblib/<name>.py with main(argv) -> exit status.
COMMANDS = ("summary", "profile", "sweep", "scaling", "sanitize", "pages", "info", "mdfilter", "variants",
            "figures", "study", "files", "numbers")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python3 scripts/wb.py COMMAND [ARGS...]\n  COMMAND: {' | '.join(COMMANDS)}",
              file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"wb.py: unknown command '{argv[0]}' (one of: {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    # Imported by name so that a command's module loads only when it runs.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    module = importlib.import_module(f"wblib.{argv[0]}")
    return module.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
