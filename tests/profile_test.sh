#!/usr/bin/env bash
# tests/profile_test.sh: host test of scripts/profile.sh (Nsight Compute counters), no GPU needed.
#
# Everything runs in a temporary copy of the repository's layout (the scripts, and the chapters
# that the recording covers, with their real .cu files and a page each), with fake chapters
# (tests/fixtures/profile/fake_chapter.sh) and a fake ncu (fake_ncu.sh) that replay what the
# real ones printed: tests/fixtures/profile/recorded/ (see its README.md). Checked:
#   - profile.sh run: the counters CSV and the progress lines, compared exactly with
#     tests/fixtures/profile/expected/ (so the parsing of ncu's raw CSV: quoted fields,
#     thousands separators, the units row, demangled template names, the harness's check
#     kernel splitting the runs, CUB's kernels kept);
#   - profile.sh render: the all-chapters page and the chapter pages (a page with counters
#     markers, one with only the results block, after which the markers are made, one with
#     neither, left alone), compared exactly; a second render changes nothing; two CSVs give
#     two blocks;
#   - --chapters, bad usage, and the exits 77 without ncu, without permission to read the
#     counters (ERR_NVGPUCTRPERM) and without a GPU (1 under REQUIRE_GPU=1);
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
exp=$fix/expected
verbose=0 update=0
for a in "$@"; do
  case $a in
    -v) verbose=1 ;;
    --update) update=1 ;;
    *) echo "usage: bash tests/profile_test.sh [-v] [--update]" >&2; exit 2 ;;
  esac
done
unset REQUIRE_GPU NCU FAKE_NOGPU FAKE_NCU_PERM BUILD
work=$(mktemp -d "${TMPDIR:-/tmp}/wb-profile-test.XXXXXX")
if [ "${WB_KEEP:-0}" = 1 ]; then echo "profile_test: working in $work"; else trap 'rm -rf "$work"' EXIT; fi
passed=0 failed=0 updated=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

expect_status() {
  if [ "$1" = "$2" ]; then ok; else bad "$3: exit $2, expected $1"; fi
}

# expect_file NAME ACTUAL WHAT: ACTUAL equals expected/NAME (or, with --update, replaces it).
expect_file() {
  if [ "$update" = 1 ] && [ -f "$2" ]; then
    mkdir -p "$exp"
    if ! cmp -s "$2" "$exp/$1"; then cp "$2" "$exp/$1"; updated=$((updated + 1)); fi
    ok
    return
  fi
  if [ -f "$2" ] && cmp -s "$exp/$1" "$2"; then ok; return; fi
  bad "$3: $2 differs from expected/$1"
  if [ "$verbose" = 1 ]; then diff "$exp/$1" "$2"; else diff "$exp/$1" "$2" | head -20; fi
}

# expect_same A B WHAT: two files are identical.
expect_same() {
  if cmp -s "$1" "$2"; then ok; else bad "$3"; diff "$1" "$2" | head -20; fi
}

expect_grep() {
  if grep -Eq -- "$1" "$2"; then ok; else bad "$3: no line of $2 matches /$1/"; fi
}

expect_count() {
  local got
  got=$(grep -Eo -- "$2" "$3" | wc -l)
  if [ "$got" -eq "$1" ]; then ok; else bad "$4: $got matches of /$2/ in $3, expected $1"; fi
}

# Output with what varies from run to run (the temporary root, durations) made fixed.
normalise() {
  sed -e "s|$1|ROOT|g" -e "s|$work|WORK|g" -e 's/\[[0-9][0-9]* s\]/[T s]/g' -e 's/ in [0-9][0-9]* s/ in T s/g'
}

# The chapters of the recording: one per recorded --help.
ids=()
for f in "$rec"/chapter[0-9][0-9].help; do
  f=${f##*/chapter}
  ids+=("${f%.help}")
done
[ ${#ids[@]} -gt 0 ] || { echo "profile_test: no recording in $rec"; exit 1; }

# A layout: scripts, the recorded chapters (real .cu files: the kept kernels come from them),
# fake programs at the root.
R=$work/root
mkdir -p "$R/scripts" "$R/docs/results"
cp "$src"/scripts/*.sh "$src"/scripts/*.awk "$R/scripts/"
for id in "${ids[@]}"; do
  d=$(cd "$src/chapters" && ls -d "$id"-*/ | head -n 1)
  d=${d%/}
  mkdir -p "$R/chapters/$d"
  cp "$src/chapters/$d"/*.cu "$R/chapters/$d/"
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

# ---- run -----------------------------------------------------------------------------------

(cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --bin-dir "$R" --logs "$work/logs") >"$work/run.out" 2>&1
expect_status 0 $? "profile.sh run"
csv=$R/docs/results/$(sed -n 's/^device [0-9]*: \([^,]*\),.*/\1/p' "$rec/device.txt" | sed 's/^NVIDIA //' | tr 'A-Z' 'a-z' |
  sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')-counters.csv
[ -f "$csv" ] && ok || bad "run: wrote no $csv"
name=${csv##*/}
expect_file "$name" "$csv" "run: the counters CSV"
normalise "$R" <"$work/run.out" >"$work/run.norm"
expect_file run.out "$work/run.norm" "run: progress lines"
expect_count 1 '^chapter,variant,run,launch,kernel,grid,block,n,duration_ns,' "$csv" "run: one header"
expect_count 0 'count_mismatches' "$csv" "run: the harness's check kernel left out"
for id in "${ids[@]}"; do
  expect_grep "^chapter$id: [0-9]+ launch\\(es\\) profiled" "$work/run.out" "run: a progress line for chapter $id"
  [ -s "$work/logs/chapter$id.ncu.csv" ] || ls "$work/logs/chapter$id".*.ncu.csv >/dev/null 2>&1 && ok ||
    bad "run: chapter $id's raw ncu output not kept in the logs"
done

# One chapter, as `--chapters "NN"`.
(cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters "${ids[0]}" --bin-dir "$R" --out "$work/one" --logs "$work/logs1") >"$work/one.out" 2>&1
expect_status 0 $? "run --chapters ${ids[0]}"
if [ -f "$work/one/$name" ]; then
  got=$(awk -F, 'NR > 1 { print $1 }' "$work/one/$name" | sort -u | tr '\n' ' ')
  [ "$got" = "${ids[0]} " ] && ok || bad "run --chapters ${ids[0]}: rows of chapters '$got'"
  { head -n 1 "$csv"; awk -F, -v id="${ids[0]}" 'NR > 1 && $1 == id' "$csv"; } >"$work/one-want.csv"
  expect_same "$work/one-want.csv" "$work/one/$name" "run --chapters ${ids[0]}: the same rows as in the full run"
else
  bad "run --chapters ${ids[0]}: no CSV"
fi
# Into an existing CSV: the other chapters' rows are kept, so that the file is as before.
cp "$csv" "$work/full.csv"
(cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters "${ids[1]},${ids[0]}" --bin-dir "$R" --logs "$work/logs2") >"$work/two.out" 2>&1
expect_status 0 $? "run --chapters ${ids[1]},${ids[0]} into the existing CSV"
expect_same "$work/full.csv" "$csv" "run --chapters into the existing CSV: the other chapters' rows kept, in order"
expect_grep "kept the rows of $((${#ids[@]} - 2)) other chapter" "$work/two.out" "run --chapters into the existing CSV: says so"
(cd "$R" && NCU=$fake_ncu bash scripts/profile.sh run --chapters 99 --bin-dir "$R" --out "$work/none") >"$work/bad.out" 2>&1
expect_status 2 $? "run --chapters 99 (no such chapter)"
(cd "$R" && bash scripts/profile.sh frobnicate) >/dev/null 2>&1
expect_status 2 $? "an unknown command"

# Without ncu, without permission, without a GPU.
# (Where the CUDA Toolkit's ncu is installed, the script would find it: not checked there.)
if [ ! -x /usr/local/cuda/bin/ncu ] && ! PATH=/usr/bin:/bin command -v ncu >/dev/null 2>&1; then
  (cd "$R" && PATH=/usr/bin:/bin NCU=$work/no-ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >"$work/noncu.out" 2>&1
  expect_status 77 $? "run without ncu"
  expect_grep 'ncu\) not found' "$work/noncu.out" "run without ncu: says so"
  (cd "$R" && PATH=/usr/bin:/bin REQUIRE_GPU=1 NCU=$work/no-ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x") >/dev/null 2>&1
  expect_status 1 $? "run without ncu, REQUIRE_GPU=1"
fi
(cd "$R" && FAKE_NCU_PERM=1 NCU=$fake_ncu bash scripts/profile.sh run --bin-dir "$R" --out "$work/x" --logs "$work/logsp") >"$work/perm.out" 2>&1
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
expect_grep "^# Hardware counters on the NVIDIA " "$R/docs/results/${name%.csv}.md" "render: the page's title"
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
sed 's/,NVIDIA [^,]*$/,NVIDIA Other GPU/' "$csv" >"$R/docs/results/other-gpu-counters.csv"
(cd "$R" && bash scripts/profile.sh render --date 2026-11-22 "docs/results/$name" docs/results/other-gpu-counters.csv) >/dev/null 2>&1
expect_status 0 $? "profile.sh render with two CSVs"
expect_count 2 "^Hardware counters of this chapter's kernels on the " "$(page_of "${ids[0]}")" "render with two CSVs: two blocks"
expect_grep '^# Hardware counters on the NVIDIA Other GPU$' "$R/docs/results/other-gpu-counters.md" "render with two CSVs: the second page"
(cd "$R" && bash scripts/profile.sh render) >/dev/null 2>&1
expect_status 2 $? "render without a CSV"

# ---- ncu's auto-scaled units (a hand-made input: ncu without --print-units base) ----------------

{
  echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","gpu__time_duration.sum","smsp__inst_executed.sum"'
  echo '"","","","","","","","","","","","Mbyte","usecond","inst"'
  echo '"0","1","chapter99","host","void k<(Mode)1>(const int *, long)","1","7","(128, 2, 1)","(4, 1, 1)","0","9.0","1,234.50","2.50","1,000,000"'
  echo '"1","1","chapter99","host","wb::count_mismatches(const int *, const int *, long, unsigned long long *)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","0.01","1.00","10"'
} >"$work/units.csv"
printf '99,k_mode1,1024,128,0,1.0,1.0,1.0,1.0,PASS\n' >"$work/units.out"
awk -v chapter=99 -v kernels="k" -v runs=1 -v n=1024 -v device="GPU" -v cases="$work/units.out" \
  -v columns="read_bytes,duration_ns,warp_insts" -v metrics="dram__bytes_read.sum,gpu__time_duration.sum,smsp__inst_executed.sum" \
  -f "$R/scripts/profile_parse.awk" "$work/units.csv" >"$work/units.got" 2>"$work/units.err"
echo "99,k_mode1,timed,1,k,4,128x2x1,1024,1234500000,2500,1000000,0,GPU" >"$work/units.want"
expect_same "$work/units.want" "$work/units.got" "parse: Mbyte and usecond scaled, separators dropped, template and namespace stripped"

if [ "$update" = 1 ]; then
  echo "profile_test: --update: $updated expected file(s) rewritten in $exp"
fi
echo "profile_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
