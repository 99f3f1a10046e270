#!/bin/sh
# expect.sh CODE PATTERN COMMAND [ARGS...]
# Run COMMAND; pass when it exits with CODE and its output (stdout and stderr) matches the
# extended regular expression PATTERN. Used for --help, refused arguments and the no-GPU exit.
code=$1 pattern=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" != "$code" ]; then
  echo "expect.sh: '$*' exited $rc, expected $code" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
  echo "expect.sh: output of '$*' does not match /$pattern/" >&2
  exit 1
fi
echo "expect.sh: exit $rc and /$pattern/ as expected"
