#!/bin/sh
# hang.sh SECONDS COMMAND [ARGS...]
# Run COMMAND; if it is still running after SECONDS, stop it and every process it started, print
# "hang.sh: stopped after SECONDS s: the run hung" and exit 1. Otherwise exit with its status.
# For mutations whose failure is a hang (a look-back that waits for a status word that can never
# be current): the test then catches the hang in seconds instead of at ctest's timeout.
limit=$1
shift
# A process group of its own, so that the chapter program gpu.sh starts is stopped with it.
setsid "$@" &
pid=$!
elapsed=0
while kill -0 "$pid" 2>/dev/null; do
  if [ "$elapsed" -ge "$limit" ]; then
    kill -s TERM -- "-$pid" 2>/dev/null
    sleep 2
    kill -s KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "hang.sh: stopped after $limit s: the run hung"
    exit 1
  fi
  sleep 1
  elapsed=$((elapsed + 1))
done
wait "$pid"
