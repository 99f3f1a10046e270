#!/usr/bin/env bash
# tests/profile_test.sh: host test of scripts/profile.sh (Nsight Compute counters), no GPU needed.
#
# Everything runs in a temporary copy of the repository's layout (the scripts, and the chapters
# that the recording covers, with a page each), with fake chapters
# (tests/fixtures/profile/fake_chapter.sh) and a fake ncu (fake_ncu.sh) that replay what the real
# ones printed (tests/fixtures/profile/, see its README.md). Checked:
#   - profile.sh run on the hand-made NVTX recording of chapter 11 (handmade-nvtx.ncu.csv): the
#     counters CSV and the progress lines, compared exactly with expected/handmade.*, and the
#     launches each row's run got (so the attribution by NVTX range: CUB's kernels in a row's
#     range kept, its own nested range passed over, the check kernel outside every range dropped,
#     quoted fields, thousands separators, the units row, demangled template names); a launch
#     whose range name ncu could not print unambiguously refused with a message, the chapter
#     failed (exit 1) and its other rows kept; a recording with the check kernel inside a row's
#     range noticed (negative control);
#   - profile.sh run on the recorded chapters: once the recording has ncu's NVTX column
#     (tests/fixtures/profile/record.sh), the CSV and progress lines against expected/, and
#     --chapters; before that, that run refuses the recording;
#   - --chapters into an existing CSV (the other chapters' rows kept with their dates and CUBs,
#     or with an empty one from a CSV without the date or cub column), the date column (today in
#     UTC, or $WB_PROFILE_DATE), the cub column (the chapter's --info "cub" in the rows of a
#     chapter that calls CUB, empty in the others'; negative control: a chapter that calls none
#     gets none whatever CUB its --info names), bad usage, and the exits 77 without ncu, without
#     permission to read the counters (ERR_NVGPUCTRPERM) and without a GPU (1 under REQUIRE_GPU=1);
#   - profile.sh render: the all-chapters page and the chapter pages (a page with counters
#     markers, one with only the results block, after which the markers are made, one with
#     neither, left alone), compared exactly; a second render changes nothing; two CSVs give
#     two blocks; each chapter's block and the all-chapters page show the date of that chapter's
#     rows (negative control: one date on every chapter is told apart), rows without a date take
#     --date, else the CSV's modification date; the blocks of the chapters whose rows name a CUB,
#     and the all-chapters page, say which (negative control: a CSV without the column names none);
#   - the parser on ncu's auto-scaled units (Mbyte, usecond), from a small hand-made input.
# Usage: bash tests/profile_test.sh [-v] [--update]
#   -v        show every difference in full
#   --update  write the outputs of this run over tests/fixtures/profile/expected/ (after a new
#             recording; check the differences with git diff before committing them)
# WB_KEEP=1 keeps the temporary directory for inspection.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
fix=$here/fixtures/profile
rec=$fix/recorded
expected_dir=$fix/expected
verbose=0 update=0
for a in "$@"; do
  case $a in
    -v) verbose=1 ;;
    --update) update=1 ;;
    *) echo "usage: bash tests/profile_test.sh [-v] [--update]" >&2; exit 2 ;;
  esac
done
. "$here/test_lib.sh"
unset REQUIRE_GPU NCU FAKE_NOGPU FAKE_NCU_PERM FAKE_NCU_LOG BUILD
export PYTHONDONTWRITEBYTECODE=1
# The day profile.sh run writes in each row's date column, fixed so that its CSVs compare exactly
# (a run without it, which writes today's date, is checked below).
export WB_PROFILE_DATE=2026-11-22
work=$(mktemp -d "${TMPDIR:-/tmp}/wb-profile-test.XXXXXX")
if [ "${WB_KEEP:-0}" = 1 ]; then echo "profile_test: working in $work"; else trap 'rm -rf "$work"' EXIT; fi

# Output with what varies from run to run (the temporary root, durations) made fixed.
normalise() {
  sed -e "s|$1|ROOT|g" -e "s|$work|WORK|g" -e 's/\[[0-9][0-9]* s\]/[T s]/g' -e 's/ in [0-9][0-9]* s/ in T s/g'
}

# The launches of each row's run in a counters CSV, one "variant run count" a line (a launch-0
# row, which says that the row launched no kernel ncu profiles, counts none).
launch_counts() {
  awk -F, 'NR > 1 && $4 != 0 { n[$2 " " $3]++ } END { for (k in n) print k, n[k] }' "$1" | sort
}

# The chapters of the recording: one per recorded --help.
ids=()
for f in "$rec"/chapter[0-9][0-9].help; do
  f=${f##*/chapter}
  ids+=("${f%.help}")
done
[ ${#ids[@]} -gt 0 ] || { echo "profile_test: no recording in $rec"; exit 1; }
# The hand-made recording is chapter 11's (--variant single); the recording must have chapter 11.
hm=11
case " ${ids[*]} " in *" $hm "*) ;; *) echo "profile_test: no chapter $hm in $rec"; exit 1 ;; esac

# A layout: the scripts, the recorded chapters (a directory and a page each), fake programs at
# the root.
R=$work/root
mkdir -p "$R/docs/results" "$R/chapters"
cp -R "$src/scripts" "$R/scripts"
rm -rf "$R/scripts/wblib/__pycache__"
for id in "${ids[@]}"; do
  d=$(cd "$src/chapters" && ls -d "$id"-*/ | head -n 1)
  mkdir -p "$R/chapters/${d%/}"
  printf '#!/bin/sh\nexec bash "%s" %s "$@"\n' "$fix/fake_chapter.sh" "$id" >"$R/chapter$id"
  chmod +x "$R/chapter$id"
done
fake_ncu=$work/ncu
printf '#!/bin/sh\nexec bash "%s" "$@"\n' "$fix/fake_ncu.sh" >"$fake_ncu"
chmod +x "$fake_ncu"

# The pages: the first chapter's has counters markers with stale content, the one before the
# last (the last, with fewer than three chapters) has no marker at all, the others only their
# results block.
page_of() { echo "$R/chapters/$(cd "$R/chapters" && ls -d "$1"-*/ | head -n 1)README.md"; }
for id in "${ids[@]}"; do
  {
    echo "# Chapter $id: a page"
    echo
    echo "## Result"
    echo
    echo "<!-- results:begin -->"
    echo "results"
    echo "<!-- results:end -->"
    echo
    if [ "$id" = "${ids[0]}" ]; then
      echo "<!-- counters:begin -->"
      echo "stale counters"
      echo "<!-- counters:end -->"
      echo
    fi
    echo "Text after the results stays."
  } >"$(page_of "$id")"
done
last=${ids[${#ids[@]} - 1]}
[ ${#ids[@]} -lt 3 ] || last=${ids[${#ids[@]} - 2]}
printf '# Chapter %s: no markers\n\nNothing to splice into.\n' "$last" >"$(page_of "$last")"
cp "$(page_of "$last")" "$work/last-before.md"
for id in "${ids[@]}"; do cp "$(page_of "$id")" "$work/page$id.0"; done

name=$(sed -n 's/^device [0-9]*: \([^,]*\),.*/\1/p' "$rec/device.txt" | sed 's/^NVIDIA //' | tr 'A-Z' 'a-z' |
  sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')-counters.csv

# ---- run: the recorded chapters ---------------------------------------------------------------

# Whether every recorded ncu output has the NVTX column (recorded with --nvtx by record.sh).
nvtx_recorded=1
for f in "$rec"/chapter*.ncu.csv; do
  grep -q '"thread Domain:Push/Pop_Range' "$f" || nvtx_recorded=0
done
csv=$R/docs/results/$name
if [ "$nvtx_recorded" = 1 ]; then
  (cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --bin-dir "$R" --logs "$work/logs") >"$work/run.out" 2>&1
  expect_status 0 $? "profile.sh run"
  expect_file "$name" "$csv" "run: the counters CSV"
  normalise "$R" <"$work/run.out" >"$work/run.norm"
  expect_file run.out "$work/run.norm" "run: progress lines"
  expect_count 1 '^chapter,variant,run,launch,kernel,grid,block,n,duration_ns,' "$csv" "run: one header"
  expect_count 0 'count_mismatches' "$csv" "run: the harness's check kernel left out"
  # The cub column: the CUB of the recorded programs (fake_chapter.sh: 3.0.1) in the rows of the
  # chapters that call CUB (11, 17), empty in the others'.
  for id in "${ids[@]}"; do
    case $id in 11|17) echo "$id 3.0.1" ;; *) echo "$id " ;; esac
  done >"$work/cubs.want"
  awk -F, 'NR > 1 { print $1, $NF }' "$csv" | sort -u >"$work/cubs.got"
  expect_same "$work/cubs.want" "$work/cubs.got" "run: the cub column names the CUB of the chapters that call it"
  expect_count 1 ',device,date,cub$' "$csv" "run: the header ends with date and cub"
  for id in "${ids[@]}"; do
    expect_grep "^chapter$id: [0-9]+ launch\\(es\\) profiled" "$work/run.out" "run: a progress line for chapter $id"
    [ -s "$work/logs/chapter$id.ncu.csv" ] || ls "$work/logs/chapter$id".*.ncu.csv >/dev/null 2>&1 && ok ||
      bad "run: chapter $id's raw ncu output not kept in the logs"
  done
  # One chapter, as `--chapters "NN"`: the same rows as in the full run.
  (cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters "${ids[0]}" --bin-dir "$R" --out "$work/one" \
    --logs "$work/logs1") >/dev/null 2>&1
  expect_status 0 $? "run --chapters ${ids[0]}"
  { head -n 1 "$csv"; awk -F, -v id="${ids[0]}" 'NR > 1 && $1 == id' "$csv"; } >"$work/one-want.csv"
  expect_same "$work/one-want.csv" "$work/one/$name" "run --chapters ${ids[0]}: the same rows as in the full run"
else
  echo "profile_test: recorded/ was made without --nvtx (before the harness's NVTX ranges): its run tests" \
    "wait for a new recording (tests/fixtures/profile/record.sh); the render tests use expected/$name"
  (cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters "${ids[0]}" --bin-dir "$R" --out "$work/old" \
    --logs "$work/logs-old") >"$work/old.out" 2>&1
  expect_status 1 $? "run on a recording without NVTX ranges: refused"
  expect_grep "ncu's output has no NVTX column" "$work/old.out" "run on a recording without NVTX ranges: says why"
  cp "$expected_dir/$name" "$csv"
fi
# The full CSV, which the render tests read (and --chapters below merges into).
cp "$csv" "$work/full.csv"

# ---- run: the hand-made NVTX recording ------------------------------------------------------

handmade=$fix/handmade-nvtx.ncu.csv
(cd "$R" && FAKE_NCU_LOG=$handmade NCU=$fake_ncu bash scripts/profile.sh run --chapters $hm --bin-dir "$R" \
  --out "$work/hm" --logs "$work/hm-logs") >"$work/hm.out" 2>&1
expect_status 1 $? "run on the hand-made recording (a launch whose range is refused fails the chapter)"
expect_file handmade.csv "$work/hm/$name" "run on the hand-made recording: the counters CSV"
normalise "$R" <"$work/hm.out" >"$work/hm.norm"
expect_file handmade.out "$work/hm.norm" "run on the hand-made recording: progress lines"
expect_grep '^profile.sh: chapter 11: launch 10 \(reduce_best\) left out: its NVTX ranges cannot be read' "$work/hm.out" \
  "run: the launch whose range name holds a double quote is refused, with a message"
expect_grep "^chapter11: FAILED \(--variant single: ncu's launches could not be attributed to rows\)" "$work/hm.out" \
  "run: the chapter with a refused launch counts as failed"
expect_grep 'launch 10 \(reduce_best\) left out' "$work/hm-logs/chapter11.single.log" "run: the refusal is in the chapter's notes"
printf '%s\n' "cub_device_reduce_sum first 2" "cub_device_reduce_sum timed 2" "reduce_best first 1" \
  "reduce_best timed 1" >"$work/counts.want"
launch_counts "$work/hm/$name" >"$work/counts.got"
expect_same "$work/counts.want" "$work/counts.got" "run: launches per row and run (the check kernel's not among them)"
expect_count 1 '^chapter,variant,run,launch,kernel,grid,block,n,duration_ns,' "$work/hm/$name" "run: one header"
expect_count 0 'count_mismatches' "$work/hm/$name" "run: the harness's check kernel, outside every range, left out"
expect_grep '^11,cub_device_reduce_sum,timed,2,DeviceReduceSingleTileKernel,1,256,16777216,' "$work/hm/$name" \
  "run: CUB's kernel inside the row's range kept (CUB's own nested range passed over)"
expect_grep '^11,reduce_best,timed,1,reduce_best,1056,256,16777216,19808,73.05,67118080,2362368,' "$work/hm/$name" \
  "run: thousands separators dropped, the template's name stripped"
[ -s "$work/hm-logs/chapter11.single.ncu.csv" ] && ok || bad "run: chapter 11's raw ncu output not kept in the logs"

# The same recording without the refused launch: the chapter passes, with the same rows.
grep -v '^"10",' "$handmade" >"$work/clean.ncu.csv"
(cd "$R" && FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run --chapters $hm --bin-dir "$R" \
  --out "$work/clean" --logs "$work/clean-logs") >"$work/clean.out" 2>&1
expect_status 0 $? "run on the hand-made recording without its refused launch"
expect_same "$work/hm/$name" "$work/clean/$name" "run without the refused launch: the same rows"
expect_no_grep 'left out|FAILED' "$work/clean.out" "run without the refused launch: nothing refused"
expect_grep '^chapter11: 3 launch\(es\) profiled \[' "$work/clean.out" "run: the progress line counts the timed launches"

# Negative control: a recording whose check kernel (launch 2) ran inside the first run's range of
# cub_device_reduce_sum would give that run a third launch; the launch counts above notice.
sed '/^"2",/s|"127.0.0.1","",""|"127.0.0.1","1357  ""<default domain>:wb/cub_device_reduce_sum/first:none:none:none:none:none:none"" ",""|' \
  "$work/clean.ncu.csv" >"$work/inside.ncu.csv"
(cd "$R" && FAKE_NCU_LOG=$work/inside.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run --chapters $hm --bin-dir "$R" \
  --out "$work/inside" --logs "$work/inside-logs") >/dev/null 2>&1
launch_counts "$work/inside/$name" >"$work/counts.inside"
if cmp -s "$work/counts.want" "$work/counts.inside"; then
  bad "negative control: the check kernel inside a row's range went unnoticed by the launch counts"
else
  ok
fi
expect_grep '^11,cub_device_reduce_sum,first,3,count_mismatches,' "$work/inside/$name" \
  "negative control: the check kernel inside a range is attributed to that row"

# --chapters into an existing CSV, on a later day: the other chapters' rows stay, in order and
# with their own date; chapter 11's are new, dated with the day of this run.
(cd "$R" && FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu WB_PROFILE_DATE=2026-11-25 bash scripts/profile.sh run \
  --chapters "chapter$hm,11" --bin-dir "$R" --logs "$work/merge-logs") >"$work/merge.out" 2>&1
expect_status 0 $? "run --chapters chapter$hm,11 into the existing CSV"
{ head -n 1 "$work/full.csv"; awk -F, -v id=$hm 'NR > 1 && $1 < id' "$work/full.csv"
  awk -F, 'NR > 1' "$work/clean/$name" | sed 's/,2026-11-22\(,[^,]*\)$/,2026-11-25\1/'
  awk -F, -v id=$hm 'NR > 1 && $1 > id' "$work/full.csv"; } >"$work/merge.want"
expect_same "$work/merge.want" "$R/docs/results/$name" \
  "run --chapters into the existing CSV: the others' rows kept, in order, with their dates and CUBs; chapter $hm's of this day"
others=$(awk -F, -v id=$hm 'NR > 1 && $1 != id { print $1 }' "$work/full.csv" | sort -u | wc -l)
expect_grep "kept the rows of $others other chapter\\(s\\) from the existing $name" "$work/merge.out" \
  "run --chapters into the existing CSV: says so"
# The CSV of two dates, which the render tests below read.
cp "$R/docs/results/$name" "$work/two-dates.csv"
# Into a CSV written before the cub column, and before the date column too: the kept rows keep
# what their CSV had and get the missing columns empty; the chapter run gets its date and CUB.
# merge_into_older NAME DROP FILL WHAT: DROP is the sed pattern that cuts the missing columns
# off full.csv, FILL what the kept rows end in instead.
merge_into_older() {
  sed "s/$2\$//" "$work/full.csv" >"$csv"
  (cd "$R" && FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu WB_PROFILE_DATE=2026-11-25 bash scripts/profile.sh run \
    --chapters $hm --bin-dir "$R" --logs "$work/merge-logs") >"$work/$1.out" 2>&1
  expect_status 0 $? "run --chapters $hm into $4"
  awk -F, -v id=$hm '$1 != id' "$work/full.csv" | sed "2,\$s/$2\$/$3/" >"$work/$1.others"
  awk -F, -v id=$hm '$1 != id' "$csv" >"$work/$1.got"
  expect_same "$work/$1.others" "$work/$1.got" "run --chapters into $4: the others' rows kept, the missing columns empty"
  expect_count "$(awk -F, -v id=$hm 'NR > 1 && $1 == id' "$work/merge.want" | wc -l)" "^$hm,.*,2026-11-25,3\.0\.1\$" "$csv" \
    "run --chapters into $4: chapter $hm's rows dated, with their CUB"
}
merge_into_older uncub ',[^,]*' ',' "a CSV without the cub column"
merge_into_older undated ',[^,]*,[^,]*' ',,' "an undated CSV"
expect_grep "kept the rows of $others other chapter\\(s\\)" "$work/undated.out" "run --chapters into an undated CSV: says so"
cp "$work/full.csv" "$csv"
# Without WB_PROFILE_DATE: today's date in UTC, in every row.
before=$(date -u +%Y-%m-%d)
(cd "$R" && unset WB_PROFILE_DATE && FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run \
  --chapters $hm --bin-dir "$R" --out "$work/today" --logs "$work/today-logs") >/dev/null 2>&1
after=$(date -u +%Y-%m-%d)
expect_status 0 $? "run without WB_PROFILE_DATE"
dates=$(awk -F, 'NR > 1 { print $(NF - 1) }' "$work/today/$name" | sort -u)
[ "$dates" = "$before" ] || [ "$dates" = "$after" ] && ok ||
  bad "run without WB_PROFILE_DATE: rows dated '$dates', not today ($before, UTC)"
(cd "$R" && WB_PROFILE_DATE=25.11.2026 FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run \
  --chapters $hm --bin-dir "$R" --out "$work/baddate" --logs "$work/baddate-logs") >"$work/baddate.out" 2>&1
expect_status 2 $? "run with a WB_PROFILE_DATE that is not YYYY-MM-DD"
expect_grep "WB_PROFILE_DATE='25.11.2026' is not a date YYYY-MM-DD" "$work/baddate.out" \
  "run with a bad WB_PROFILE_DATE: says so"
# The cub column is the chapter's --info "cub": another CUB there, another in every row; none
# (null), an empty column.
cub_column() {  # the cub values of a CSV's rows, once each
  awk -F, 'NR > 1 { print ($NF == "" ? "(empty)" : $NF) }' "$1" | sort -u | tr '\n' ' '
}
(cd "$R" && FAKE_CUB=3.5.0 FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run \
  --chapters $hm --bin-dir "$R" --out "$work/cub35" --logs "$work/cub35-logs") >/dev/null 2>&1
expect_status 0 $? "run of a chapter whose --info names CUB 3.5.0"
[ "$(cub_column "$work/cub35/$name")" = "3.5.0 " ] && ok ||
  bad "run: chapter $hm's --info names CUB 3.5.0, its rows say '$(cub_column "$work/cub35/$name")'"
(cd "$R" && FAKE_CUB= FAKE_NCU_LOG=$work/clean.ncu.csv NCU=$fake_ncu bash scripts/profile.sh run \
  --chapters $hm --bin-dir "$R" --out "$work/cubnull" --logs "$work/cubnull-logs") >/dev/null 2>&1
expect_status 0 $? "run of a chapter whose --info names no CUB"
[ "$(cub_column "$work/cubnull/$name")" = "(empty) " ] && ok ||
  bad "run: chapter $hm's --info names no CUB, its rows say '$(cub_column "$work/cubnull/$name")'"
# Negative control: a chapter that calls no CUB (chapter 03; every program built with CUDA names
# the CUB on its include path) gets none, whatever its --info names.
if [ -f "$rec/chapter03.help" ]; then
  (cd "$R" && FAKE_CUB=3.5.0 NCU=$fake_ncu bash scripts/profile.sh run --chapters 03 --bin-dir "$R" \
    --out "$work/cub03" --logs "$work/cub03-logs") >/dev/null 2>&1
  expect_status 0 $? "run of chapter 03, which calls no CUB"
  [ "$(cub_column "$work/cub03/$name")" = "(empty) " ] && ok ||
    bad "run: chapter 03 calls no CUB, its rows say '$(cub_column "$work/cub03/$name")'"
fi

(cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters 99 --bin-dir "$R" --out "$work/none") >"$work/bad.out" 2>&1
expect_status 2 $? "run --chapters 99 (no such chapter)"
expect_grep "'99' is not a chapter of chapters/" "$work/bad.out" "run --chapters 99: says so"
(cd "$R" && bash scripts/profile.sh frobnicate) >/dev/null 2>&1
expect_status 2 $? "an unknown command"
(cd "$R" && bash scripts/profile.sh run --frobnicate) >/dev/null 2>&1
expect_status 2 $? "an unknown option"

# Without ncu, without permission, without a GPU.
# (Where the CUDA Toolkit's ncu is installed, the script would find it: not checked there.)
if [ ! -x /usr/local/cuda/bin/ncu ] && ! PATH=/usr/bin:/bin command -v ncu >/dev/null 2>&1; then
  (cd "$R" && PATH=/usr/bin:/bin NCU=$work/no-ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >"$work/noncu.out" 2>&1
  expect_status 77 $? "run without ncu"
  expect_grep 'ncu\) not found' "$work/noncu.out" "run without ncu: says so"
  (cd "$R" && PATH=/usr/bin:/bin REQUIRE_GPU=1 NCU=$work/no-ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >/dev/null 2>&1
  expect_status 1 $? "run without ncu, REQUIRE_GPU=1"
fi
(cd "$R" && FAKE_NCU_PERM=1 NCU=$fake_ncu bash scripts/profile.sh run --chapters $hm --bin-dir "$R" --out "$work/x" \
  --logs "$work/logsp") >"$work/perm.out" 2>&1
expect_status 77 $? "run without permission to read the counters"
expect_grep 'ERR_NVGPUCTRPERM' "$work/perm.out" "run without permission: names the error"
expect_grep 'NVreg_RestrictProfilingToAdminUsers=0' "$work/perm.out" "run without permission: names the driver option"
expect_grep 'run as root' "$work/perm.out" "run without permission: names root"
expect_grep 'https://developer.nvidia.com/[^ ]*ERR_NVGPUCTRPERM' "$work/perm.out" "run without permission: links NVIDIA's page"
[ ! -e "$work/x/$name" ] && ok || bad "run without permission: wrote a CSV"
(cd "$R" && FAKE_NOGPU=1 NCU=$fake_ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >"$work/nogpu.out" 2>&1
expect_status 77 $? "run without a GPU"
(cd "$R" && FAKE_NOGPU=1 REQUIRE_GPU=1 NCU=$fake_ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >/dev/null 2>&1
expect_status 1 $? "run without a GPU, REQUIRE_GPU=1"

# ---- render --------------------------------------------------------------------------------

(cd "$R" && bash scripts/profile.sh render --date 2026-11-22 "docs/results/$name") >"$work/render.out" 2>&1
expect_status 0 $? "profile.sh render"
expect_file "${name%.csv}.md" "$R/docs/results/${name%.csv}.md" "render: the all-chapters page"
for id in "${ids[@]}"; do
  [ "$id" = "$last" ] && continue
  expect_file "chapter$id.md" "$(page_of "$id")" "render: chapter $id's page"
done
expect_same "$work/last-before.md" "$(page_of "$last")" "render: a page without markers is left alone"
expect_grep "README.md: no <!-- counters:begin -->" "$work/render.out" "render: says which page lacks markers"
expect_grep "^# .* hardware counters$" "$R/docs/results/${name%.csv}.md" "render: the page's title"
expect_count 1 '<!-- counters:begin -->' "$(page_of "${ids[1]}")" "render: markers made after the results block"
awk '/<!-- results:end -->/ { getline a; getline b; print (a == "" && b == "<!-- counters:begin -->") ? "yes" : "no"; exit }' \
  "$(page_of "${ids[1]}")" | grep -q yes && ok || bad "render: the counters block does not follow the results block"
expect_grep "\\]\\(\\.\\./\\.\\./docs/results/${name}\\)" "$(page_of "${ids[1]}")" "render: a chapter page links the CSV"
expect_grep '^\| \[[0-9][0-9] [a-z0-9-]+\]\(\.\./\.\./chapters/[0-9][0-9]-[^/]*/README\.md\) \|' "$R/docs/results/${name%.csv}.md" \
  "render: the all-chapters page links the chapter pages"
for id in "${ids[@]}"; do cp "$(page_of "$id")" "$work/page$id.1"; done
cp "$R/docs/results/${name%.csv}.md" "$work/md.1"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-22 "docs/results/$name") >/dev/null 2>&1
expect_status 0 $? "profile.sh render, again"
for id in "${ids[@]}"; do expect_same "$work/page$id.1" "$(page_of "$id")" "render again: chapter $id's page changed"; done
expect_same "$work/md.1" "$R/docs/results/${name%.csv}.md" "render again: the all-chapters page changed"
# Two GPUs: one block each, in the order given.
sed 's/,NVIDIA [^,]*\(,[^,]*,[^,]*\)$/,NVIDIA Other GPU\1/' "$csv" >"$R/docs/results/other-gpu-counters.csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-22 "docs/results/$name" docs/results/other-gpu-counters.csv) >/dev/null 2>&1
expect_status 0 $? "profile.sh render with two CSVs"
expect_count 2 "^Hardware counters of this chapter's kernels on the " "$(page_of "${ids[0]}")" "render with two CSVs: two blocks"
# The first GPU's block open, the second folded under "The same on the <device>".
expect_count 1 '^<details>$' "$(page_of "${ids[0]}")" "render with two CSVs: one fold"
expect_grep '^<summary>The same on the NVIDIA Other GPU</summary>$' "$(page_of "${ids[0]}")" "render with two CSVs: the fold names the second GPU"
folds=$(awk '/^<details>$/ { inside = 1 } /^<\/details>$/ { inside = 0 }
  /^Hardware counters of this chapter.s kernels on the / { printf "%s ", (inside ? "folded" : "open") }' "$(page_of "${ids[0]}")")
[ "$folds" = "open folded " ] && ok || bad "render with two CSVs: the blocks are '$folds', not 'open folded'"
expect_grep '^# Other GPU hardware counters$' "$R/docs/results/other-gpu-counters.md" "render with two CSVs: the second page"

# Each chapter's counters carry their own date: in two-dates.csv (from the --chapters run above)
# chapter 11 was measured on 2026-11-25 and the others on 2026-11-22; --date, which only rows
# without a date take, is neither.
block_dates() {  # "id date" of each page's (first) counters block
  for id in "${ids[@]}"; do
    [ "$id" = "$last" ] && continue
    sed -n "s/^Hardware counters of this chapter's kernels on .*, by \`scripts\/profile.sh\` on \([0-9-]*\)\(, CUB's kernels from CUB [0-9.]*\)\{0,1\}\.\$/$id \1/p" \
      "$(page_of "$id")" | head -n 1
  done
}
want_dates() {  # "id date" of each page with a block: $1 for all, $2 for chapter $hm
  for id in "${ids[@]}"; do [ "$id" = "$last" ] || echo "$id $([ "$id" = $hm ] && echo "$2" || echo "$1")"; done
}
block_cubs() {  # "id CUB" of each page's (first) counters block that names a CUB
  for id in "${ids[@]}"; do
    [ "$id" = "$last" ] && continue
    sed -n "s/^Hardware counters of this chapter's kernels on .*, by \`scripts\/profile.sh\` on [0-9-]*, CUB's kernels from \(CUB [0-9.]*\)\.\$/$id \1/p" \
      "$(page_of "$id")" | head -n 1
  done
}
want_cubs() {  # "id CUB" of each page with a block whose chapter calls CUB (11, 17): $1, $2 for chapter 17
  for id in "${ids[@]}"; do
    [ "$id" = "$last" ] && continue
    case $id in 11) echo "$id CUB $1" ;; 17) echo "$id CUB $2" ;; esac
  done
}
md=$R/docs/results/${name%.csv}.md
cp "$work/two-dates.csv" "$csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-20 "docs/results/$name") >"$work/dated.out" 2>&1
expect_status 0 $? "render of a CSV whose chapters were measured on two days"
want_dates 2026-11-22 2026-11-25 >"$work/dates.want"
block_dates >"$work/dates.got"
expect_same "$work/dates.want" "$work/dates.got" "render: each chapter's block shows the date of its own rows"
expect_grep "by \`scripts/profile.sh run\` on 2026-11-22 \\(chapter $hm: 2026-11-25\\)\\.\$" "$md" \
  "render: the all-chapters page gives each chapter's date"
expect_count 0 '2026-11-20' "$md" "render: --date is not shown where every row has a date"
expect_no_grep 'more than one date' "$work/dated.out" "render: one date per chapter, nothing said"
# The chapters whose rows name a CUB say so on their block, and the page says it chapter by chapter.
want_cubs 3.0.1 3.0.1 >"$work/cubs.want"
block_cubs >"$work/cubs.got"
expect_same "$work/cubs.want" "$work/cubs.got" "render: the blocks of the chapters that call CUB name it, no other block does"
expect_grep "^CUB's kernels came from CUB 3\.0\.1 \(chapters 11 and 17\)\.\$" "$md" "render: the page names the CUB of chapters 11 and 17"
# Negative control: the same CSV without its date column is what a renderer that stamped one date
# on every chapter would show; the same comparison tells it apart. Those rows take --date.
sed 's/,[^,]*,[^,]*$//' "$work/two-dates.csv" >"$csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-20 "docs/results/$name") >/dev/null 2>&1
expect_status 0 $? "render of a CSV without the date column"
block_dates >"$work/dates.one"
if cmp -s "$work/dates.want" "$work/dates.one"; then
  bad "negative control: one date on every chapter went unnoticed by the per-chapter comparison"
else
  ok
fi
want_dates 2026-11-20 2026-11-20 >"$work/dates.undated"
expect_same "$work/dates.undated" "$work/dates.one" "render without the date column: every block shows --date"
expect_grep "by \`scripts/profile.sh run\` on 2026-11-20\\.\$" "$md" "render without the date column: the page shows --date"
# Negative control: without the cub column no block, and not the page, names a CUB.
block_cubs >"$work/cubs.none"
expect_same /dev/null "$work/cubs.none" "render without the cub column: no block names a CUB"
expect_count 0 "CUB's kernels" "$md" "render without the cub column: the page names no CUB"
# Without --date either: the CSV's modification date (local time), as before the column.
touch -d '2026-01-02 12:00' "$csv"
(cd "$R" && bash scripts/profile.sh render "docs/results/$name") >/dev/null 2>&1
want_dates 2026-01-02 2026-01-02 >"$work/dates.file"
block_dates >"$work/dates.got"
expect_same "$work/dates.file" "$work/dates.got" "render without dates or --date: the CSV's modification date"
# A chapter whose rows disagree (put together by hand): the latest date, and render says so.
awk -F, -v id=$hm 'BEGIN { OFS = "," } NR > 1 && $1 == id && !done { $(NF - 1) = "2026-11-27"; done = 1 } { print }' \
  "$work/two-dates.csv" >"$csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-20 "docs/results/$name") >"$work/mixed.out" 2>&1
expect_status 0 $? "render of a chapter whose rows carry two dates"
want_dates 2026-11-22 2026-11-27 >"$work/dates.want"
block_dates >"$work/dates.got"
expect_same "$work/dates.want" "$work/dates.got" "render: a chapter of two dates shows the latest"
expect_grep "chapter $hm's rows carry more than one date; its counters show the latest, 2026-11-27" "$work/mixed.out" \
  "render: a chapter of two dates is named"
# Chapter 17's rows of another CUB: each block its own, the page both, oldest first.
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == "17" { $NF = "3.5.0" } { print }' "$work/two-dates.csv" >"$csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-20 "docs/results/$name") >/dev/null 2>&1
expect_status 0 $? "render of a CSV whose chapters name two CUBs"
want_cubs 3.0.1 3.5.0 >"$work/cubs.want"
block_cubs >"$work/cubs.got"
expect_same "$work/cubs.want" "$work/cubs.got" "render: each block names the CUB of its own rows"
expect_grep "^CUB's kernels came from CUB 3\.0\.1 \(chapter 11\) and CUB 3\.5\.0 \(chapter 17\)\.\$" "$md" \
  "render: the page names each chapter's CUB, oldest first"
cp "$work/full.csv" "$csv"

(cd "$R" && bash scripts/profile.sh render) >/dev/null 2>&1
expect_status 2 $? "render without a CSV"
(cd "$R" && bash scripts/profile.sh render docs/results/no-such.csv) >"$work/nofile.out" 2>&1
expect_status 2 $? "render of a missing CSV"
printf 'chapter,kernel\n05,x\n' >"$work/not-counters.csv"
(cd "$R" && bash scripts/profile.sh render "$work/not-counters.csv") >"$work/notcsv.out" 2>&1
expect_status 1 $? "render of a CSV that is not a counters CSV"
expect_grep 'is not a counters CSV \(no column variant\)' "$work/notcsv.out" "render of another CSV: names the missing column"

# ---- ncu's auto-scaled units (a hand-made input: ncu without --print-units base) ----------------

{
  echo '"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","gpu__time_duration.sum","smsp__inst_executed.sum"'
  echo '"","","","","","","","","","","","","Mbyte","usecond","inst"'
  echo '"0","1","chapter99","host","1  ""<default domain>:wb/k_mode1/timed:none:none:none:none:none:none"" ","void k<(Mode)1>(const int *, long)","1","7","(128, 2, 1)","(4, 1, 1)","0","9.0","1,234.50","2.50","1,000,000"'
  echo '"1","1","chapter99","host","","wb::count_mismatches(const int *, const int *, long, unsigned long long *)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","0.01","1.00","10"'
} >"$work/units.csv"
python3 - "$R/scripts" "$work/units.csv" >"$work/units.got" 2>&1 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from wblib import profile
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
rows, _notes, ok = profile.parse_ncu(lines, "99", [("k_mode1", "1024")], "1024", "GPU")
fields = rows[0].split(",")
# The columns this input has: duration_ns, dram_read_bytes and warp_insts.
print(",".join(fields[:8] + [fields[8], fields[10], fields[21], fields[-2], fields[-1]]), len(rows), ok)
EOF
echo "99,k_mode1,timed,1,k,4,128x2x1,1024,2500,1234500000,1000000,0,GPU 1 True" >"$work/units.want"
expect_same "$work/units.want" "$work/units.got" "parse: Mbyte and usecond scaled, separators dropped, template and namespace stripped"

if [ "$update" = 1 ]; then
  echo "profile_test: --update: $updated expected file(s) rewritten in $expected_dir"
fi
test_summary profile_test
