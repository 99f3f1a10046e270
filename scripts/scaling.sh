#!/bin/sh
# scripts/scaling.sh: chapter 18's scaling over several GPUs: `run` (needs the GPUs), `render CSV`
# (its table and chart into chapter 18's page), `all`. See scripts/wblib/scaling.py or -h.
exec python3 "$(dirname "$0")/wb.py" scaling "$@"
