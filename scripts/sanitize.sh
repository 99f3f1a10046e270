#!/bin/sh
# scripts/sanitize.sh: every chapter under compute-sanitizer's four tools, clean in its normal
# mode, its --racy run reported. See scripts/wblib/sanitize.py or -h.
exec python3 "$(dirname "$0")/wb.py" sanitize "$@"
