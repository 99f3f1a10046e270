#!/bin/sh
# diffs.sh [--check] -- write docs/diffs/chapterNN.diff: the unified diff of each chapter's
# program against the previous chapter's, which the chapter's page shows with \include.
# The diff of two neighbours is the lesson, so it is generated, never pasted.
# --check: change nothing; exit 1 if any file is missing or out of date (a ctest test runs this).
cd "$(dirname "$0")/.." || exit 1
check=0
[ "${1:-}" = "--check" ] && check=1
mkdir -p docs/diffs
tmp=${TMPDIR:-/tmp}/wb-diff.$$
status=0
prev=""
for dir in chapters/[0-9][0-9]-*/; do
  id=$(basename "$dir" | cut -c1-2)
  cu=$(ls "$dir"*.cu)
  if [ -n "$prev" ]; then
    # Labels without timestamps, so the file changes only when the code does.
    diff -u --label "$prev" --label "$cu" "$prev" "$cu" >"$tmp"
    target=docs/diffs/chapter$id.diff
    if [ $check = 1 ]; then
      if ! cmp -s "$tmp" "$target"; then
        echo "diffs: $target is out of date (run sh scripts/diffs.sh)"
        status=1
      fi
    elif ! cmp -s "$tmp" "$target"; then
      cp "$tmp" "$target"
      echo "diffs: wrote $target ($(grep -c '^[-+][^-+]' "$target") changed lines)"
    fi
  fi
  prev=$cu
done
rm -f "$tmp"
[ $check = 1 ] && [ $status = 0 ] && echo "diffs: docs/diffs is up to date"
exit $status
