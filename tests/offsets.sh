#!/bin/sh
# offsets.sh FIRST LAST CHAPTER [ARGS...]
# Run a chapter through gpu.sh once for every --offset from FIRST to LAST, with ARGS: each start
# of the input modulo 128 bytes (offsets 0 to 31 of int32) cuts a different head, and so a
# different first tile, from the array. Exit 0 when every run verified; 77 (skipped) when the
# first run finds no usable GPU, as gpu.sh says; 1 naming each offset that failed.
first=$1 last=$2
shift 2
bin=$1
shift
failed=""
e=$first
while [ "$e" -le "$last" ]; do
  sh "$(dirname "$0")/gpu.sh" "$bin" "$@" --offset "$e"
  rc=$?
  if [ "$rc" = 77 ] && [ "$e" = "$first" ]; then exit 77; fi
  [ "$rc" = 0 ] || failed="$failed $e"
  e=$((e + 1))
done
if [ -n "$failed" ]; then
  echo "offsets.sh: failed at --offset$failed" >&2
  exit 1
fi
echo "offsets.sh: every --offset from $first to $last verified"
