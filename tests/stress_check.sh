#!/bin/sh
# stress_check.sh SOURCE_DIR BUILD_DIR [CHAPTER] -- a look-back with every path taken.
# CHAPTER is the chapter whose look-back is stressed (17 by default):
#   17: chapter 17's single passes;
#   20: chapter 20's wide single pass, the scan of the affine maps (--variant affine), which calls
#       chapter 17's stress hooks;
#   21: chapter 21's one pass, whose look-back carries counts, and the scan of its three kernels
#       (chapter 17's single pass on the flags);
#   23: chapter 23's look-ahead scan (--variant lookahead), whose look-ahead warp sums published
#       tile sums: its "window walks" are moves on to the next 32 tiles, its waits rounds that
#       found a tile sum not yet published;
#   25: chapter 25's one-sweep radix sort (--variant onesweep), whose digit threads each look
#       back over one digit's counts, 8 tiles a look: its walks are whole windows of counts
#       without an inclusive prefix, its waits looks that found a count not yet published.
# Builds the chapter with -DWB_STRESS=ON into BUILD_DIR for this machine's GPU: each tile's
# publications are delayed by a seeded pseudo-random time and the program counts how often the
# look-back waits, walks its window and chains aggregates (its "stress: ..." note). Then:
#   1. each variant above at several N (one tile, odd sizes, small tiles, thousands of tiles, an
#      offset) must verify (exit 0) and count every path above zero (one tile: no wait, walk or
#      chain at all, since tile 0 never looks back);
#   2. the same runs without the delays (WB_STRESS_MAX_DELAY_NS=0) must verify; their counts are
#      printed beside, to show that the delays are what make the paths run;
#   3. racecheck and synccheck on the stress build at a small N in small tiles must be clean.
# The count check is first shown to refuse lines that lack a path (its negative control).
# Exit 0 when all pass, 1 otherwise, 2 for a chapter without a look-back to stress, 77 without a
# GPU or without compute-sanitizer.
src=$(cd "${1:?source dir}" && pwd) || exit 1
build=${2:?build dir}
chapter=${3:-17}
# Per chapter: the variants that look back; its smallest tiles (chapter 20 has no --batch: blocks
# of 32 make its tiles 512 maps; chapter 23's tile is fixed at 8064 ints) and the N of the case
# that runs them; the sanitizers' N, windows of 32 such tiles several times over (17 and 21: 157
# tiles of 64 x 2; 20: 129 tiles of 32 x 16; 23: 38 tiles, more than one window).
small_n=65539
case $chapter in
  17)
    variants="single_pass single_pass_no_memset single_pass_tuned"
    small_tiles="--block 64 --batch 2" sanitized_n=20011 ;;
  20) variants="affine" small_tiles="--block 32" sanitized_n=65539 ;;
  21) variants="one_pass three_kernels" small_tiles="--block 64 --batch 2" sanitized_n=20011 ;;
  23) variants="lookahead" small_tiles="" small_n=300007 sanitized_n=300007 ;;
  25) variants="onesweep" small_tiles="--block 64 --batch 2" sanitized_n=20011 ;;
  *) echo "stress_check: chapter '$chapter' has no look-back to stress (17, 20, 21, 23 or 25)"; exit 2 ;;
esac

# The value of the count `name` in a "stress: ..." line, or nothing when the line lacks it.
count_of() {
  printf '%s\n' "$1" | grep -oE "(^stress:|,) [0-9]+ $2(,|\$)" | grep -oE '[0-9]+' | head -1
}

# Whether a "stress: ..." line counts every path above zero. (sh has no local variables: the
# helpers' names start with an underscore, apart from the callers'.)
every_path_taken() {
  for _path in tiles waits "window walks" "aggregates chained"; do
    _count=$(count_of "$1" "$_path")
    [ -n "$_count" ] && [ "$_count" -gt 0 ] || return 1
  done
}

# Whether a "stress: ..." line counts tiles but no wait, walk or chain.
no_look_back() {
  _count=$(count_of "$1" tiles)
  [ -n "$_count" ] && [ "$_count" -gt 0 ] || return 1
  for _path in waits "window walks" "aggregates chained"; do
    [ "$(count_of "$1" "$_path")" = 0 ] || return 1
  done
}

# Negative controls of the two checks: a line with a zero count, one without a count, an empty one.
good="stress: 12 tiles, 3 waits, 2 window walks, 70 aggregates chained"
quiet="stress: 12 tiles, 0 waits, 0 window walks, 0 aggregates chained"
every_path_taken "$good" && ! every_path_taken "$quiet" &&
  ! every_path_taken "stress: 12 tiles, 3 waits, 0 window walks, 70 aggregates chained" &&
  ! every_path_taken "stress: 12 tiles, 3 waits, 70 aggregates chained" && ! every_path_taken "" &&
  no_look_back "$quiet" && ! no_look_back "$good" && ! no_look_back "stress: 0 tiles, 0 waits" || {
  echo "stress_check: FAIL: the count checks accept a line they must refuse, or refuse a good one"
  exit 1
}

command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || {
  echo "stress_check: no GPU; skipped"
  exit 77
}
echo "stress_check: building chapter$chapter with WB_STRESS=ON"
cmake -S "$src" -B "$build" -DWB_STRESS=ON -DCMAKE_CUDA_ARCHITECTURES=native >"$build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" --target "chapter$chapter" >>"$build.log" 2>&1 || {
  tail -30 "$build.log"
  echo "stress_check: FAIL: the stress build failed"
  exit 1
}
bin=$build/chapter$chapter
# A hung look-back is a failure, not a stuck test.
limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 300"

# name|arguments; one_tile must take no look-back path, every other case each of them.
cases="one_tile|--n 777
odd|--n 1000003 --offset 1
small_tiles|--n $small_n $small_tiles
offset|--n 3333333 --offset 3
thousands_of_tiles|--n 33554467"

status=0
# run DELAY_NS NAME ARGS VARIANT: one run through tests/gpu.sh; prints its count line and leaves
# it in $line. Returns the run's exit status.
run() {
  # shellcheck disable=SC2086 # $3: the case's arguments, split into words
  out=$(WB_STRESS_MAX_DELAY_NS=$1 $limit sh "$src/tests/gpu.sh" "$bin" $3 --variant "$4" 2>&1 </dev/null)
  rc=$?
  line=$(printf '%s\n' "$out" | grep '^stress: ' | tail -1)
  if [ $rc = 77 ]; then printf '%s\n' "$out" | tail -3; echo "stress_check: skipped"; exit 77; fi
  [ $rc = 0 ] || printf '%s\n' "$out" | tail -20
  return $rc
}

echo "stress_check: each run with delays, then the same without (delays 0), the control"
while IFS='|' read -r name args; do
  for v in $variants; do
    if ! run 20000 "$name" "$args" "$v"; then
      echo "stress_check: FAIL: $name $v ($args) exit $rc"; status=1; continue
    fi
    stressed=$line
    if [ "$name" = one_tile ]; then
      no_look_back "$stressed" || { echo "stress_check: FAIL: $name $v: one tile took a look-back path: '$stressed'"; status=1; }
    else
      every_path_taken "$stressed" || { echo "stress_check: FAIL: $name $v: a path was not taken: '$stressed'"; status=1; }
    fi
    if ! run 0 "$name" "$args" "$v"; then
      echo "stress_check: FAIL: $name $v ($args) without delays, exit $rc"; status=1; continue
    fi
    echo "  $name $v ($args)"
    echo "    delayed: $stressed"
    echo "    control: $line"
  done
done <<EOF
$cases
EOF

sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
if [ ! -x "$sanitizer" ]; then
  echo "stress_check: no compute-sanitizer (set COMPUTE_SANITIZER); the sanitizer runs skipped"
  [ $status = 0 ] && exit 77
  exit $status
fi
for tool in racecheck synccheck; do
  for v in $variants; do
    log=$build/$tool-$v.log
    # shellcheck disable=SC2086
    WB_STRESS_MAX_DELAY_NS=20000 $limit "$sanitizer" --tool $tool --error-exitcode 1 "$bin" --reps 1 --warmup 0 \
      --n $sanitized_n --offset 1 $small_tiles --variant "$v" >"$log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
      tail -20 "$log"
      echo "stress_check: FAIL: $tool $v exit $rc (log $log)"
      status=1
      continue
    fi
    echo "  $tool $v: clean; $(grep '^stress: ' "$log" | tail -1)"
  done
done
[ $status = 0 ] && echo "stress_check: every path taken, every run verified, racecheck and synccheck clean"
exit $status
