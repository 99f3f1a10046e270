#!/bin/sh
# scripts/profile.sh run|render|all ...: hardware counters under Nsight Compute (scripts/wblib/profile.py; -h for usage).
exec python3 "$(dirname "$0")/wb.py" profile "$@"
