#!/bin/sh
# docs/md_filter.sh PAGE: Doxygen's input filter for the Markdown pages (FILTER_PATTERNS in docs/Doxyfile), which labels them, maps their links and marks their diffs for the site (scripts/wblib/mdfilter.py; -h for usage).
exec python3 "$(dirname "$0")/../scripts/wb.py" mdfilter "$@"
