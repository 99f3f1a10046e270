#!/usr/bin/env bash
# tests/scripts_test.sh: host test of scripts/ (summary.sh, sanitize.sh, sweep.sh), no GPU needed.
#
# Each script runs in a temporary copy of the repository's layout:
#   - summary.sh render turns tests/fixtures/scripts/h200.csv, with the facts of its chapters in
#     fixtures/scripts/chapters.json (each chapter's part, chapter 00's ceiling kernels, as
#     `wb.py info` writes them), into tables, charts and README blocks, compared exactly with
#     tests/fixtures/scripts/expected/ (worked out by hand from the CSV; see the comments at
#     the end of this file); the charts (the plain one, one per
#     chapter with its bars marked, one across N per chapter whose sweep holds CUB and a
#     workbook kernel) are checked by their parts; a second render changes nothing;
#   - summary.sh run, sanitize.sh and sweep.sh run fake chapters (fixtures/scripts/fake_chapter.sh)
#     and a fake compute-sanitizer (fake_sanitizer.sh) that print what the real ones print, so
#     that parsing, tables and exit statuses are checked without a GPU.
# Usage: bash tests/scripts_test.sh [-v]   (-v: show every difference in full; WB_KEEP=1 keeps
# the temporary directory for inspection)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
fix=$here/fixtures/scripts
verbose=0
[ "${1:-}" = -v ] && verbose=1
unset REQUIRE_GPU COMPUTE_SANITIZER WB_SANITIZE_DIR FAKE_NOGPU FAKE_FAIL FAKE_RACE FAKE_MEMCHECK FAKE_RACY_SILENT FAKE_NO_SUMMARY
work=$(mktemp -d "${TMPDIR:-/tmp}/wb-scripts-test.XXXXXX")
if [ "${WB_KEEP:-0}" = 1 ]; then echo "scripts_test: working in $work"; else trap 'rm -rf "$work"' EXIT; fi
expected_dir=$fix/expected
. "$here/test_lib.sh"

# Output with what varies from run to run (the temporary root, durations) made fixed.
normalise() {
  sed -e "s|$1|ROOT|g" -e 's/\[[0-9][0-9]* s\]/[T s]/g' -e 's/ in [0-9][0-9]* s/ in T s/g'
}

# A repository layout: the scripts, and chapter directories (README pages where asked).
make_root() {
  local root=$1 dir
  shift
  mkdir -p "$root/scripts" "$root/docs/results"
  cp "$src"/scripts/*.sh "$src"/scripts/*.txt "$src"/scripts/wb.py "$root/scripts/"
  cp -R "$src"/scripts/wblib "$root/scripts/"
  ! ls "$src"/scripts/*.awk >/dev/null 2>&1 || cp "$src"/scripts/*.awk "$root/scripts/"
  cp "$fix/chapters.json" "$root/docs/results/"
  for dir in "$@"; do mkdir -p "$root/chapters/$dir"; done
}

# A chapter page with the marker lines, some text around them and stale content inside;
# a third argument (sweep or across-n) adds an empty block with those markers.
make_page() {
  {
    echo "# Chapter $2: a page {#chapter$2}"
    echo
    echo "## Result on the H200"
    echo
    echo "<!-- results:begin -->"
    echo "stale results"
    echo "<!-- results:end -->"
    echo
    echo "What to look for: text outside the markers stays."
    if [ -n "${3:-}" ]; then
      echo
      echo "## Across N"
      echo
      echo "<!-- $3:begin -->"
      echo "<!-- $3:end -->"
    fi
  } >"$1"
}

# Fake chapter programs chapterNN at the root of a layout.
make_fakes() {
  local root=$1 id
  shift
  for id in "$@"; do
    printf '#!/bin/sh\nexec bash "%s" %s "$@"\n' "$fix/fake_chapter.sh" "$id" >"$root/chapter$id"
    chmod +x "$root/chapter$id"
  done
}

# ---- summary.sh render ---------------------------------------------------------------------

R=$work/render
make_root "$R" 00-speed-of-light 01-atomic-naive 05-tree-sequential 11-cub-and-beyond 12-scan-naive-global \
  13-scan-shared 17-scan-device-wide 18-multi-gpu
for page in 00-speed-of-light 01-atomic-naive 05-tree-sequential 12-scan-naive-global; do
  make_page "$R/chapters/$page/README.md" "${page:0:2}"
done
make_page "$R/chapters/11-cub-and-beyond/README.md" 11 sweep
make_page "$R/chapters/17-scan-device-wide/README.md" 17 across-n
printf '# Chapter 13: no markers {#chapter13}\n\nThis page has no results block.\n' >"$R/chapters/13-scan-shared/README.md"
printf '# The workbook\n\nIntro.\n\n## Results\n\n<!-- summary:begin -->\nold table\n<!-- summary:end -->\n\nAfter.\n' >"$R/README.md"
cp "$fix/h200.csv" "$R/docs/results/h200.csv"
cp "$R/chapters/13-scan-shared/README.md" "$work/13-before.md"

(cd "$R" && bash scripts/summary.sh render --date 2026-11-22 docs/results/h200.csv) >"$work/render.out" 2>&1
expect_status 0 $? "summary.sh render"
expect_file h200.md "$R/docs/results/h200.md" "render: docs/results/h200.md"
expect_file README.md "$R/README.md" "render: README.md summary block"
for id in 00 01 05 11 12 17; do
  page=$(ls -d "$R"/chapters/"$id"-*/)README.md
  expect_file "chapter$id.md" "$page" "render: chapter $id page"
done
expect_same "$work/13-before.md" "$R/chapters/13-scan-shared/README.md" "render: a page without markers is left alone"
expect_grep 'chapters/13-scan-shared/README.md: no <!-- results:begin -->' "$work/render.out" "render: says the page lacks markers"
[ ! -e "$R/chapters/18-multi-gpu/README.md" ] && ok || bad "render: created a page that did not exist"

# The charts: well-formed, titled, one bar per chapter with a best kernel plus CUB's, the three
# reference lines labelled; in a chapter's chart its bars outlined and the others faded; the
# across-N charts of 11 (one workbook kernel) and 17 (two), and none for 05 (no CUB in its sweep).
res=$R/docs/results
svg=$res/h200.svg
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout "$res"/*.svg && ok || bad "render: the SVG files are not well-formed XML"
fi
expect_grep '<title>Best GB/s per chapter: NVIDIA H200, N = 2\^30</title>' "$svg" "bar chart title"
expect_count 8 '<rect x="[0-9.]+" y="[0-9.]+" width="26"' "$svg" "bar chart: 6 chapters + 2 CUB bars"
expect_count 4 'fill="#4e79a7"/>' "$svg" "bar chart: reduction colour (01, 05, 11 and the legend)"
expect_count 4 'fill="#f28e2b"/>' "$svg" "bar chart: scan colour (12, 13, 17 and the legend)"
expect_count 3 'fill="#9d9d9d"/>' "$svg" "bar chart: CUB colour (11, 17 and the legend)"
expect_grep '>theoretical peak 4814 GB/s<' "$svg" "bar chart: peak line label"
expect_grep '>read ceiling 4521 GB/s<' "$svg" "bar chart: read ceiling label"
expect_grep '>copy ceiling 4295 GB/s<' "$svg" "bar chart: copy ceiling label"
expect_grep '>4474<' "$svg" "bar chart: chapter 11's value label"
expect_count 0 'fill-opacity|this chapter|stroke="#000000"' "$svg" "bar chart: nothing marked"
expect_grep "; bar: the chapter's step \(steps\.txt\), else its fastest verified kernel;" "$svg" "bar chart: the subtitle says what a bar is"
expect_no_grep 'fastest verified kernel of each chapter' "$svg" "bar chart: no subtitle that calls every bar the fastest"
# Value labels stay legible where a reference line crosses them: each in a white halo, written
# after the reference lines so that the halo covers them (the charts before this drew them first).
expect_count 8 'stroke="#ffffff" stroke-width="3" paint-order="stroke">[0-9]+</text>' "$svg" "bar chart: every value label in a halo"
order=$(awk '/<line .*stroke-dasharray="6 4"/ { line = NR } /paint-order="stroke">[0-9]+</ && !first { first = NR }
  END { print (line && first > line) ? "after" : "before" }' "$svg")
[ "$order" = after ] && ok || bad "bar chart: a value label is drawn before a reference line that may cross it"
for id in 00 01 05 11 12 13 17; do
  [ -f "$res/h200-chapter$id.svg" ] && ok || bad "render: no marked chart for chapter $id"
done
expect_grep '<title>Best GB/s per chapter: NVIDIA H200, N = 2\^30, chapter 11 marked</title>' "$res/h200-chapter11.svg" "chapter 11's chart: title"
expect_count 2 'width="26" height="[0-9.]+" fill="#[0-9a-f]+" stroke="#000000"' "$res/h200-chapter11.svg" "chapter 11's chart: its 2 bars outlined"
expect_count 6 'width="26" height="[0-9.]+" fill="#[0-9a-f]+" fill-opacity="0.35"' "$res/h200-chapter11.svg" "chapter 11's chart: 6 bars faded"
expect_grep 'fill="#333333" font-weight="bold">CUB</text>' "$res/h200-chapter11.svg" "chapter 11's chart: its CUB tick in bold"
expect_count 1 '>this chapter</text>' "$res/h200-chapter11.svg" "chapter 11's chart: labelled under its bars"
expect_count 1 'width="26" height="[0-9.]+" fill="#4e79a7" stroke="#000000"' "$res/h200-chapter05.svg" "chapter 05's chart: its bar outlined"
expect_count 7 'fill-opacity="0.35"' "$res/h200-chapter05.svg" "chapter 05's chart: 7 bars faded"
expect_count 8 'fill-opacity="0.35"' "$res/h200-chapter00.svg" "chapter 00's chart: every bar faded"
expect_count 2 'font-weight="bold">(read|copy) ceiling [0-9]+ GB/s: this chapter<' "$res/h200-chapter00.svg" "chapter 00's chart: its ceilings labelled"
expect_count 3 'stroke-width="3.5"' "$res/h200-chapter00.svg" "chapter 00's chart: two thick ceiling lines and the legend's"
a11=$res/h200-chapter11-across-n.svg
a17=$res/h200-chapter17-across-n.svg
expect_grep "<title>Chapter 11: CUB's time over ours against N, NVIDIA H200</title>" "$a11" "across-N chart 11: title"
expect_count 1 '<polyline' "$a11" "across-N chart 11: one workbook kernel"
expect_count 4 '<circle' "$a11" "across-N chart 11: 3 sizes and the legend"
expect_count 23 '<tspan dy="-6" font-size="9">' "$a11" "across-N chart 11: ticks 2^8 .. 2^30"
expect_grep '>tie \(1\.0\)</text>' "$a11" "across-N chart 11: the tie line labelled"
expect_grep '<title>2\^8: 0\.80x</title>' "$a11" "across-N chart 11: the ratio at 2^8"
expect_grep '>0\.80</text>' "$a11" "across-N chart 11: ratio axis from 0.80"
expect_grep '>1\.20</text>' "$a11" "across-N chart 11: ratio axis to 1.20"
expect_count 2 '<polyline' "$a17" "across-N chart 17: two workbook kernels"
expect_count 1 'stroke-dasharray="7 3" points=' "$a17" "across-N chart 17: the second line dashed"
expect_count 21 '<tspan dy="-6" font-size="9">' "$a17" "across-N chart 17: ticks 2^10 .. 2^30"
expect_grep '<title>2\^20: 1\.25x</title></rect>' "$a17" "across-N chart 17: scan_reduce_then_scan at 2^20"
expect_grep '>fastest CUB call.s time / time of scan_reduce_then_scan</text>' "$a17" "across-N chart 17: legend"
[ ! -e "$res/h200-chapter05-across-n.svg" ] && ok || bad "render: an across-N chart for chapter 05, whose sweep has no CUB call"
[ ! -e "$res/h200-chapter12-across-n.svg" ] && ok || bad "render: an across-N chart for chapter 12, which has no sweep"
expect_grep 'h200-chapter11-across-n.svg h200-chapter17-across-n.svg' "$work/render.out" "render: names the across-N charts"

# Idempotent: a second render rewrites nothing (same bytes, same modification times).
touch -d '2001-01-01' "$R/README.md" "$R"/chapters/*/README.md
(cd "$R" && bash scripts/summary.sh render --date 2026-11-22 docs/results/h200.csv) >/dev/null 2>&1
expect_status 0 $? "summary.sh render, second time"
expect_file README.md "$R/README.md" "render twice: README.md"
expect_file chapter11.md "$R/chapters/11-cub-and-beyond/README.md" "render twice: chapter 11"
changed=$(find "$R" -name README.md -newermt '2001-01-02' | wc -l)
[ "$changed" -eq 0 ] && ok || bad "render twice: $changed README(s) rewritten"

# Two GPUs: one block each on a chapter page, in the order given (the README: the first GPU's
# table, a link to each GPU's page); the date from --date or the file's time.
sed 's/NVIDIA H200/NVIDIA L4/' "$fix/h200.csv" >"$R/docs/results/l4.csv"
touch -d '2026-10-01 12:00' "$R/docs/results/l4.csv"
(cd "$R" && bash scripts/summary.sh render docs/results/h200.csv docs/results/l4.csv) >/dev/null 2>&1
expect_status 0 $? "summary.sh render of two CSVs"
expect_count 2 '^Measured on the NVIDIA' "$R/chapters/05-tree-sequential/README.md" "two GPUs: two blocks"
expect_grep '^Measured on the NVIDIA L4 on 2026-10-01 ' "$R/chapters/05-tree-sequential/README.md" "two GPUs: date from the file"
expect_grep '\[Results on the NVIDIA H200\]\(docs/results/h200.md\), \[Results on the NVIDIA L4\]\(docs/results/l4.md\)\.$' "$R/README.md" "two GPUs: the README links both results pages"
expect_count 1 '^\| \[05 tree-sequential\]' "$R/README.md" "two GPUs: the README has the first GPU's table only"
expect_no_grep 'docs/results/l4.svg' "$R/README.md" "two GPUs: the README shows the first GPU's chart only"
[ -f "$R/docs/results/l4.md" ] && ok || bad "two GPUs: docs/results/l4.md missing"

# Refusals.
(cd "$R" && bash scripts/summary.sh render docs/results/missing.csv) >/dev/null 2>&1
expect_status 2 $? "render of a missing CSV"
printf 'not,a,results,file\n' >"$R/docs/results/junk.csv"
(cd "$R" && bash scripts/summary.sh render docs/results/junk.csv) >/dev/null 2>&1
expect_status 1 $? "render of a CSV without the header"
(cd "$R" && bash scripts/summary.sh bogus) >/dev/null 2>&1
expect_status 2 $? "summary.sh with an unknown command"

# ---- summary.sh run ------------------------------------------------------------------------

G=$work/gpu
make_root "$G" 00-speed-of-light 01-atomic-naive 02-atomic-privatized 06-warp-unroll 09-batching 11-cub-and-beyond
make_fakes "$G" 00 01 02 06 09 11
(cd "$G" && bash scripts/summary.sh run 2^20) >"$work/run.out" 2>&1
expect_status 0 $? "summary.sh run"
expect_file run.csv "$G/docs/results/h200.csv" "run: the combined CSV"
normalise "$G" <"$work/run.out" >"$work/run.norm"
expect_file run.out "$work/run.norm" "run: progress lines"

(cd "$G" && FAKE_FAIL=02 bash scripts/summary.sh run 2^20) >"$work/run-fail.out" 2>&1
expect_status 1 $? "summary.sh run with a failing chapter"
expect_grep '^chapter02: FAILED \(a result was wrong\), 3 row\(s\)' "$work/run-fail.out" "run: a failed chapter is reported"
expect_grep 'chapter02 a result was wrong \(notes: .*/build/summary/chapter02.log\)' "$work/run-fail.out" "run: the failure list names the log"
expect_count 3 ',FAIL,[0-9]*,[^,]*,main,' "$G/docs/results/h200.csv" "run: the failed chapter's rows are kept"

# --chapters: a run of its own, chapter 00 and one other; its negative control names a chapter
# the layout does not have.
(cd "$G" && bash scripts/summary.sh run 2^20 --chapters "00 09" --out "$work/only") >"$work/run-only.out" 2>&1
expect_status 0 $? "summary.sh run --chapters"
expect_count 2 '^chapter[0-9]*: ' "$work/run-only.out" "run --chapters: two chapters run"
expect_count 0 '^(0[1-8]|11),' "$work/only/h200.csv" "run --chapters: no row of another chapter"
expect_grep '^09,' "$work/only/h200.csv" "run --chapters: chapter 09's rows"
(cd "$G" && bash scripts/summary.sh run --chapters "00 12") >"$work/run-only-bad.out" 2>&1
expect_status 2 $? "summary.sh run --chapters naming a missing chapter"
expect_grep 'no chapter 12' "$work/run-only-bad.out" "run --chapters: names the missing chapter"

(cd "$G" && FAKE_NOGPU=1 bash scripts/summary.sh run) >"$work/run-nogpu.out" 2>&1
expect_status 77 $? "summary.sh run without a GPU"
expect_grep 'no usable CUDA GPU on this machine' "$work/run-nogpu.out" "run: says there is no GPU"
(cd "$G" && FAKE_NOGPU=1 REQUIRE_GPU=1 bash scripts/summary.sh all) >/dev/null 2>&1
expect_status 1 $? "summary.sh all without a GPU under REQUIRE_GPU=1"

# all = run + render, into a layout with pages.
make_page "$G/chapters/09-batching/README.md" 09
(cd "$G" && bash scripts/summary.sh all 2^20 --date 2026-11-22) >/dev/null 2>&1
expect_status 0 $? "summary.sh all"
expect_grep '^\| reduce_batched \| 2\^20 \| 256 \| 1 \| 1.000 \| 266.0 \| 20.0% \| 5.9% \|$' "$G/chapters/09-batching/README.md" "all: chapter 09's row"

# ---- sanitize.sh ---------------------------------------------------------------------------

export COMPUTE_SANITIZER=$fix/fake_sanitizer.sh
(cd "$G" && bash scripts/sanitize.sh) >"$work/san.out" 2>&1
expect_status 0 $? "sanitize.sh, all clean"
normalise "$G" <"$work/san.out" >"$work/san.norm"
expect_file sanitize-clean.out "$work/san.norm" "sanitize: clean run"
[ -f "$G/build/sanitize/chapter02.memcheck.all.log" ] && [ -f "$G/build/sanitize/chapter06.racecheck.racy.log" ] &&
  [ -f "$G/build/sanitize/chapter11.initcheck.best.log" ] && ok || bad "sanitize: logs missing"
expect_grep '--tool racecheck --error-exitcode 99 --racecheck-report all .*/chapter06 --n 2\^12 --reps 1 --warmup 0 --racy$' \
  "$G/build/sanitize/chapter06.racecheck.racy.log" "sanitize: the racy run's command line"

(cd "$G" && FAKE_RACE=01 FAKE_MEMCHECK=09 FAKE_RACY_SILENT=1 FAKE_NO_SUMMARY=00 FAKE_FAIL=02 \
  bash scripts/sanitize.sh --logs "$work/san-logs") >"$work/san-bad.out" 2>&1
expect_status 1 $? "sanitize.sh with findings"
normalise "$G" <"$work/san-bad.out" | sed "s|$work|WORK|g" >"$work/san-bad.norm"
expect_file sanitize-bad.out "$work/san-bad.norm" "sanitize: findings"

(cd "$G" && bash scripts/sanitize.sh 6 --tools memcheck --n 1000 --offset 3) >"$work/san-one.out" 2>&1
expect_status 0 $? "sanitize.sh one chapter, one tool"
expect_grep '--tool memcheck .*/chapter06 --n 1000 --reps 1 --warmup 0 --offset 3$' "$G/build/sanitize/chapter06.memcheck.log" "sanitize: --n and --offset reach the chapter"
expect_grep '^06 +- +clean +reported: 0 err / 24 warn$' "$work/san-one.out" "sanitize: one-tool table"

(cd "$G" && FAKE_NOGPU=1 bash scripts/sanitize.sh) >"$work/san-nogpu.out" 2>&1
expect_status 77 $? "sanitize.sh without a GPU"
(cd "$G" && FAKE_NOGPU=1 REQUIRE_GPU=1 bash scripts/sanitize.sh) >/dev/null 2>&1
expect_status 1 $? "sanitize.sh without a GPU under REQUIRE_GPU=1"
(cd "$G" && COMPUTE_SANITIZER=$work/none bash scripts/sanitize.sh) >"$work/san-none.out" 2>&1
expect_status 77 $? "sanitize.sh without compute-sanitizer"
expect_grep 'compute-sanitizer not found' "$work/san-none.out" "sanitize: says compute-sanitizer is missing"
(cd "$G" && COMPUTE_SANITIZER=$work/none REQUIRE_GPU=1 bash scripts/sanitize.sh) >/dev/null 2>&1
expect_status 1 $? "sanitize.sh without compute-sanitizer under REQUIRE_GPU=1"
(cd "$G" && bash scripts/sanitize.sh --tools helgrind) >/dev/null 2>&1
expect_status 2 $? "sanitize.sh with an unknown tool"
unset COMPUTE_SANITIZER

# ---- scaling.sh ----------------------------------------------------------------------------

# A fake chapter 18 on a machine of four GPUs: runs on 2 and on 4, one CSV and one page block
# each, the block of 4 added after the block of 2. The fake's sum on G GPUs moves 3920 G GB/s
# against 4000 on one GPU (0.980), its scan 2100 G against 3000 (0.700).
S=$work/scaling
make_root "$S" 18-multi-gpu
make_fakes "$S" 18
printf '# Chapter 18\n\n<!-- scaling x2:begin -->\nstale\n<!-- scaling x2:end -->\n\nText after.\n' \
  >"$S/chapters/18-multi-gpu/README.md"
(cd "$S" && FAKE_GPUS=4 bash scripts/scaling.sh all --gpus "4 2" --logs "$work/scaling-logs" --date 2026-01-02) \
  >"$work/scaling.out" 2>&1
expect_status 0 $? "scaling.sh all --gpus \"4 2\""
expect_count 4 '^one process,NVIDIA H200,2,18,' "$S/docs/results/h200-x2-chapter18.csv" "scaling: G = 2's rows"
expect_count 4 '^one process,NVIDIA H200,4,18,' "$S/docs/results/h200-x4-chapter18.csv" "scaling: G = 4's rows"
expect_grep '^\| one process \| sum \| 4294967296 \| 1.000 \(4000.0\) \| 1.020 \| 15680.0 \| 3920.0 \| \*\*0.980\*\* \|$' \
  "$S/chapters/18-multi-gpu/README.md" "scaling: G = 4's sum row"
expect_grep '^\| one process \| scan \| 2147483648 \| 2.000 \(3000.0\) \| 2.857 \| 4200.0 \| 2100.0 \| \*\*0.700\*\* \|$' \
  "$S/chapters/18-multi-gpu/README.md" "scaling: G = 2's scan row"
order=$(grep -n -e '^<!-- scaling x[0-9]:' -e '^Text after' "$S/chapters/18-multi-gpu/README.md" | cut -d: -f2- | tr '\n' ' ')
[ "$order" = "<!-- scaling x2:begin --> <!-- scaling x2:end --> <!-- scaling x4:begin --> <!-- scaling x4:end --> Text after. " ] &&
  ok || bad "scaling: the blocks in order of G, the page's text after them ($order)"
[ -f "$S/docs/results/h200-x2-chapter18.svg" ] && [ -f "$S/docs/results/h200-x4-chapter18.svg" ] && ok ||
  bad "scaling: a chart for each G"
expect_grep 'chapter18 --csv --gpus 4$' "$work/scaling-logs/chapter18.x4.log" "scaling: --gpus reaches the chapter"
# Negative controls: more GPUs than the machine has; a wrong result.
(cd "$S" && FAKE_GPUS=2 bash scripts/scaling.sh run --gpus "2 4" --logs "$work/scaling-logs") >"$work/scaling-bad.out" 2>&1
expect_status 2 $? "scaling.sh run --gpus beyond the machine"
expect_grep 'this machine has 2 GPU' "$work/scaling-bad.out" "scaling: says how many GPUs there are"
(cd "$S" && FAKE_FAIL=18 bash scripts/scaling.sh all --logs "$work/scaling-logs" --date 2026-01-02) >/dev/null 2>&1
expect_status 1 $? "scaling.sh all with a wrong result"
expect_grep 'Some rows FAILED verification' "$S/chapters/18-multi-gpu/README.md" "scaling: the page says a row failed"

# ---- sweep.sh ------------------------------------------------------------------------------

# The fake chapter 09 takes blocks up to 512 (1024 is refused: "-"), K up to 64, and gets K = 3
# wrong (FAIL); its GB/s is block + 10 K, its blocks per SM 2048 / block (at most 32).
(cd "$G" && bash scripts/sweep.sh 9 --blocks "64 256 1024" --batches "1 3 8" --n "2^20" --out "$work/sweep.csv") \
  >"$work/sweep.out" 2>&1
expect_status 1 $? "sweep.sh with failing cells"
normalise "$G" <"$work/sweep.out" | sed "s|$work|WORK|g" >"$work/sweep.norm"
expect_file sweep.out "$work/sweep.norm" "sweep: the matrix, the best cell, the occupancy"
expect_file sweep.csv "$work/sweep.csv" "sweep: the CSV"
make_page "$G/chapters/09-batching/README.md" 09 sweep
(cd "$G" && bash scripts/sweep.sh render "$work/sweep.csv" --date 2026-11-22) >/dev/null 2>&1
expect_status 0 $? "sweep.sh render"
expect_file sweep-page.md "$G/chapters/09-batching/README.md" "sweep render: the page"
(cd "$G" && bash scripts/sweep.sh render "$work/sweep.csv" --date 2026-11-22) >/dev/null 2>&1
expect_file sweep-page.md "$G/chapters/09-batching/README.md" "sweep render twice: the page"
(cd "$G" && bash scripts/sweep.sh 09 --blocks 256 --batches 8 --n 2^20 --no-flush --reps 64 --out "$work/s2.csv") >/dev/null 2>&1
expect_status 0 $? "sweep.sh, one verified cell"
expect_grep '^09,reduce_batched,1048576,no-flush,64,256,8,1.000000,336.0,8,PASS,NVIDIA H200$' "$work/s2.csv" "sweep: --no-flush and --reps reach the CSV"
expect_grep '--n 1048576 --reps 64 --warmup 1 --no-flush --block 256 --batch 8$' "$work/s2.log" "sweep: the chapter's command line"
# --grid-study: 6 blocks x 16 values of K, at 2^27 flushed (5 runs) and 2^20 not flushed (64 runs).
(cd "$G" && bash scripts/sweep.sh 09 --grid-study --out "$work/grid.csv") >/dev/null 2>&1
expect_status 0 $? "sweep.sh --grid-study"
expect_count 96 '^09,[^,]+,134217728,flush,5,' "$work/grid.csv" "sweep --grid-study: 96 cells at 2^27, L2 flushed, 5 runs"
expect_count 96 '^09,[^,]+,1048576,no-flush,64,' "$work/grid.csv" "sweep --grid-study: 96 cells at 2^20, --no-flush, 64 runs"
expect_grep '^09,-,1048576,no-flush,64,1024,32768,0,0,0,refused,' "$work/grid.csv" "sweep --grid-study: the last cell (refused by the fake)"
(cd "$G" && FAKE_NOGPU=1 bash scripts/sweep.sh 09) >/dev/null 2>&1
expect_status 77 $? "sweep.sh without a GPU"
(cd "$G" && bash scripts/sweep.sh) >/dev/null 2>&1
expect_status 2 $? "sweep.sh without a chapter"

# ---- usage ---------------------------------------------------------------------------------

# Started with sh (as the README shows), each script goes on in bash.
for s in sanitize.sh summary.sh sweep.sh; do
  (cd "$G" && sh "scripts/$s" -h) >"$work/usage.out" 2>&1
  expect_status 0 $? "$s -h"
  expect_grep '^usage: scripts/' "$work/usage.out" "$s -h prints the usage"
done

# ---- the stand-in chapter against the programs' --info and --list-variants ------------------

# tests/info_check.py checks the stand-in's answers as it checks the real programs' (the rows
# against a source aside: a stand-in has none), its negative controls included.
if command -v python3 >/dev/null 2>&1; then
  python3 "$here/info_check.py" --root "$G" "$G"/chapter[0-9][0-9] >"$work/info.out" 2>&1
  expect_status 0 $? "info_check.py on the stand-in chapters (see $work/info.out)"
  expect_grep '^info_check: 6 program\(s\), 0 problem\(s\)$' "$work/info.out" "info_check.py: the six stand-ins"
fi

# ---- the stand-in chapter against the real formatter --------------------------------------

# Every CSV line fake_chapter.sh prints must be what common/wb_report.h prints for the same
# values (test_common --csv-row), so that the scripts are tested on the output they will read.
if [ -n "${WB_TEST_COMMON:-}" ] && [ -x "$WB_TEST_COMMON" ]; then
  for args in "00" "02 --variant all" "09 --block 64 --batch 4" "11" "11 --variant sweep"; do
    # shellcheck disable=SC2086
    bash "$fix/fake_chapter.sh" $args --csv 2>/dev/null >"$work/fake.csv"
    header=$(head -1 "$work/fake.csv")
    same=1
    while IFS=, read -r c k nn b bt med mn g p v o cfg; do
      real=$("$WB_TEST_COMMON" --csv-row "$c" "$k" "$nn" "$b" "$bt" "$med" "$mn" "$g" "$p" "$v" "$o" "$cfg")
      [ "$(echo "$real" | head -1)" = "$header" ] || same=0
      [ "$(echo "$real" | tail -1)" = "$c,$k,$nn,$b,$bt,$med,$mn,$g,$p,$v,$o,$cfg" ] || same=0
    done < <(tail -n +2 "$work/fake.csv")
    if [ $same = 1 ]; then ok; else bad "fake_chapter.sh $args --csv differs from the harness's formatter"; fi
  done
else
  echo "scripts_test: WB_TEST_COMMON not set (ctest sets it): the stand-in's CSV is not compared with the formatter"
fi

test_summary scripts_test

# How the expected render outputs follow from fixtures/scripts/h200.csv (checked by hand):
#   main N = 2^30 (every main row). Ceilings: copy = max(memcpy_d2d 4295.0, copy_int4 4090.4)
#   = 4295.0; read = read_sum_int4 4521.0. copy_int4: 4090.4 / 4295.0 = 95.2% of ceiling.
#   Reductions, % of the read ceiling: 01 7.2 / 4521.0 = 0.16% -> 0.2%; 05 2863.3 -> 63.3%;
#   05's racy demo row is FAIL, so 05's best is reduce_tree_sequential (1.5 ms), not the 1.0 ms
#   row; 11 4473.9 -> 99.0%, CUB 4382.6 -> 96.9%.
#   Speedups (time ratios): 05 vs 01: 600 / 1.5 = 400.00x; 11 vs 05: 1.5 / 0.96 = 1.5625 ->
#   1.56x; 11 vs 01: 600 / 0.96 = 625.00x; 11 vs CUB: 0.98 / 0.96 = 1.0208 -> 1.02x.
#   Scans, % of the copy ceiling: 12 214.7 / 4295.0 = 5.0%; 13 1073.7 -> 25.0%; 17 3181.5 ->
#   74.1%, CUB 3067.8 -> 71.4%. 13 vs 12: 40 / 8 = 5.00x; 17 vs 13: 8 / 2.7 = 2.963 -> 2.96x;
#   17 vs 12: 40 / 2.7 = 14.81x; 17 vs CUB: 2.8 / 2.7 = 1.037 -> 1.04x. Chapter 13's page has
#   no markers: its row is in the README table and h200.md, its page is left alone.
#   Sweep: 2^8 0.004 / 0.005 = 0.80x; 2^16 0.006 / 0.005 = 1.20x; 2^30 0.98 / 0.95 = 1.03x.
