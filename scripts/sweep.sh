#!/bin/sh
# scripts/sweep.sh: run one chapter over a --block x --batch grid and show where it is fastest;
# `sweep.sh render CSV` writes the tables into a chapter page. See scripts/wblib/sweep.py or -h.
exec python3 "$(dirname "$0")/wb.py" sweep "$@"
