#!/bin/sh
# scripts/pages.sh [--check]: the generated parts of the pages, navigation, code excerpts and the diff from the previous chapter (scripts/wblib/pages.py; -h for usage).
exec python3 "$(dirname "$0")/wb.py" pages "$@"
