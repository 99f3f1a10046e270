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
  # The date shown is the one in the committed block of its G.
  g=$(echo "$csv" | sed -n 's/.*-x\([0-9]*\)-chapter18\.csv$/\1/p')
  date=$(sed -n "s/^Measured on $g x .* on \([0-9-]*\) by \`scripts\/scaling.sh\`.*/\1/p" "$page" | head -n 1)
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
# A run of four GPUs gets a block of its own after the block of two, which stays as it was.
csv2=$(ls docs/results/*-x2-chapter18.csv 2>/dev/null | head -n 1)
if [ -n "$csv2" ]; then
  cp "$page" "$tmp/$page"
  csv4=$(echo "$csv2" | sed 's/-x2-/-x4-/')
  awk -F, 'BEGIN { OFS = "," } NR > 1 { $3 = 4 } { print }' "$csv2" >"$tmp/$csv4"
  bash "$tmp/scripts/scaling.sh" render --date 2026-01-02 "$tmp/$csv4" >/dev/null
  expect_status 0 $? "scaling.sh render of a run on four GPUs"
  expect_grep '^Measured on 4 x .* on 2026-01-02 by' "$tmp/$page" "the block of four GPUs"
  two=$(grep -n '^<!-- scaling x2:end -->$' "$tmp/$page" | cut -d: -f1)
  four=$(grep -n '^<!-- scaling x4:begin -->$' "$tmp/$page" | cut -d: -f1)
  [ -n "$two" ] && [ -n "$four" ] && [ "$four" -gt "$two" ] && ok || bad "the block of four GPUs follows the block of two"
  sed '/^<!-- scaling x4:begin -->$/,/^<!-- scaling x4:end -->$/d' "$tmp/$page" | cat -s >"$tmp/without4.md"
  cat -s "$page" >"$tmp/page.md"
  expect_same "$tmp/page.md" "$tmp/without4.md" "the page but for the new block"
fi
test_summary scaling_check
