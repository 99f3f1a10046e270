#!/bin/sh
# scripts/summary.sh run|render|all ...: the workbook's results (scripts/wblib/summary.py; -h for usage).
exec python3 "$(dirname "$0")/wb.py" summary "$@"
