#!/bin/sh
# variants.sh PROGRAM -- the runs that cover every kernel of a chapter program, one per line: "all",
# else each --variant but "sweep", else "-" (see scripts/wblib/variants.py). tests/gpu.sh reads it.
exec python3 "$(dirname "$0")/wb.py" variants "$@"
