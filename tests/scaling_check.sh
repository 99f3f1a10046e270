#!/bin/sh
# scaling_check.sh -- chapter 18's scaling block is what scripts/scaling.sh renders from the
# committed CSVs: in a copy of the scripts, the page and the results, render each
# docs/results/*-chapter18.csv and compare the page and the chart with the committed ones. Then a
# negative control: a CSV with one timing changed must change the page.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 1
. "$here/test_lib.sh"
page=$(ls chapters/18-*/README.md 2>/dev/null | head -n 1)
[ -n "$page" ] || { echo "scaling_check: no chapter 18 page"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-scaling-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/chapters/$(basename "$(dirname "$page")")" "$tmp/docs/results"
cp -R scripts "$tmp/"
cp "$page" "$tmp/$page"
for csv in docs/results/*-chapter18.csv; do
  [ -f "$csv" ] || continue
  cp "$csv" "$tmp/$csv"
  # The date shown is the one in the committed block.
  date=$(sed -n 's/^Measured on .* on \([0-9-]*\) by `scripts\/scaling.sh`.*/\1/p' "$page" | head -n 1)
  bash "$tmp/scripts/scaling.sh" render --date "$date" "$tmp/$csv" >/dev/null
  expect_status 0 $? "scaling.sh render $csv"
  expect_same "$page" "$tmp/$page" "the scaling block rendered from $csv"
  expect_same "${csv%.csv}.svg" "$tmp/${csv%.csv}.svg" "the chart rendered from $csv"
  # Negative control: one changed median must show in the page.
  awk -F, 'BEGIN { OFS = "," } NR == 2 { $9 = $9 * 2 } { print }' "$csv" >"$tmp/$csv"
  bash "$tmp/scripts/scaling.sh" render --date "$date" "$tmp/$csv" >/dev/null
  if cmp -s "$tmp/$page" "$page"; then
    bad "the check cannot fail (a CSV with a changed median rendered the same page)"
  else
    ok
  fi
done
test_summary scaling_check
