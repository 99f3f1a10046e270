#!/bin/sh
# stress_check.sh SOURCE_DIR BUILD_DIR -- chapter 20's wide look-back with every path taken.
# Builds chapter 20 with -DWB_STRESS=ON into BUILD_DIR for this machine's GPU: its scan calls
# chapter 17's stress hooks, so each tile's publications are delayed by a seeded pseudo-random
# time and the program counts how often the look-back waits, walks its window and chains
# aggregates (its "stress: ..." note). Then the affine scan (--variant affine) at several N must
# verify (exit 0) and count every path above zero, but at one tile, which never looks back; and
# racecheck and synccheck on it at a small N must be clean. The count check is first shown to
# refuse a line that lacks a path (its negative control).
# Exit 0 when all pass, 1 otherwise, 77 without a GPU or without compute-sanitizer.
src=$(cd "${1:?source dir}" && pwd) || exit 1
build=${2:?build dir}

# The value of the count `name` in a "stress: ..." line, or nothing when the line lacks it.
count_of() {
  printf '%s\n' "$1" | grep -oE "(^stress:|,) [0-9]+ $2(,|\$)" | grep -oE '[0-9]+' | head -1
}

# Whether a "stress: ..." line counts every path above zero.
every_path_taken() {
  for _path in tiles waits "window walks" "aggregates chained"; do
    _count=$(count_of "$1" "$_path")
    [ -n "$_count" ] && [ "$_count" -gt 0 ] || return 1
  done
}

every_path_taken "stress: 12 tiles, 3 waits, 2 window walks, 70 aggregates chained" &&
  ! every_path_taken "stress: 12 tiles, 3 waits, 0 window walks, 70 aggregates chained" &&
  ! every_path_taken "stress: 12 tiles, 3 waits, 70 aggregates chained" && ! every_path_taken "" || {
  echo "stress_check: FAIL: the count check accepts a line it must refuse, or refuses a good one"
  exit 1
}

command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || {
  echo "stress_check: no GPU; skipped"
  exit 77
}
echo "stress_check: building chapter20 with WB_STRESS=ON"
cmake -S "$src" -B "$build" -DWB_STRESS=ON -DCMAKE_CUDA_ARCHITECTURES=native >"$build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" --target chapter20 >>"$build.log" 2>&1 || {
  tail -30 "$build.log"
  echo "stress_check: FAIL: the stress build failed"
  exit 1
}
bin=$build/chapter20
limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 300"

# name|arguments: odd sizes, small tiles (blocks of 32), an offset, thousands of tiles.
cases="odd|--n 1000003 --offset 1
small_tiles|--n 65539 --block 32
offset|--n 3333333 --offset 3
thousands_of_tiles|--n 33554467"
status=0
run_case() {
  # shellcheck disable=SC2086 # $2: the case's arguments, split into words
  out=$($limit sh "$src/tests/gpu.sh" "$bin" $2 --variant affine 2>&1 </dev/null)
  rc=$?
  line=$(printf '%s\n' "$out" | grep '^stress:' | tail -1)
  if [ $rc = 77 ]; then echo "stress_check: $1 skipped (exit 77)"; exit 77; fi
  if [ $rc != 0 ]; then
    printf '%s\n' "$out" | tail -20
    echo "stress_check: FAIL: $1 exited $rc"
    status=1
  elif ! every_path_taken "$line"; then
    echo "stress_check: FAIL: $1 did not take every path: $line"
    status=1
  else
    echo "stress_check: $1 verified; $line"
  fi
}
saved_ifs=$IFS
IFS='
'
for entry in $cases; do
  IFS=$saved_ifs
  run_case "${entry%%|*}" "${entry#*|}"
done
IFS=$saved_ifs
# The one-tile case takes no look-back path at all, but must verify.
out=$($limit sh "$src/tests/gpu.sh" "$bin" --n 777 --variant affine 2>&1 </dev/null) || {
  printf '%s\n' "$out" | tail -20
  echo "stress_check: FAIL: one_tile"
  status=1
}

command -v compute-sanitizer >/dev/null 2>&1 || {
  echo "stress_check: no compute-sanitizer; the sanitizer runs skipped"
  [ $status = 0 ] && exit 77
  exit $status
}
for tool in racecheck synccheck; do
  if compute-sanitizer --tool $tool --error-exitcode 9 "$bin" --variant affine --n 65539 --block 32 --reps 1 \
    --warmup 0 >"$build.$tool.log" 2>&1; then
    echo "stress_check: $tool clean"
  else
    tail -20 "$build.$tool.log"
    echo "stress_check: FAIL: $tool"
    status=1
  fi
done
exit $status
