#!/bin/sh
# fallback_check.sh SOURCE_DIR BUILD_DIR -- build the chapters that have a pre-sm_80 fallback
# (those whose program tests WB_HAS_REDUCE_ADD) with -DWB_FORCE_FALLBACK=ON into BUILD_DIR for
# this machine's GPU, and run each on an odd, unaligned N through tests/gpu.sh, checking that the
# fallback really was compiled in. Exit 0 when all verify, 1 otherwise, 77 without a GPU.
src=$(cd "${1:?source dir}" && pwd) || exit 1
build=${2:?build dir}
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || {
  echo "fallback_check: no GPU; skipped"
  exit 77
}
targets=""
for cu in "$src"/chapters/[0-9][0-9]-*/*.cu; do
  grep -q 'WB_HAS_REDUCE_ADD' "$cu" || continue
  id=$(basename "$(dirname "$cu")" | cut -c1-2)
  targets="$targets chapter$id"
done
[ -n "$targets" ] || { echo "fallback_check: FAIL: no chapter uses WB_HAS_REDUCE_ADD"; exit 1; }
echo "fallback_check: building$targets with WB_FORCE_FALLBACK=ON"
cmake -S "$src" -B "$build" -DWB_FORCE_FALLBACK=ON -DCMAKE_CUDA_ARCHITECTURES=native >"$build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" --target $targets >>"$build.log" 2>&1 || {
  tail -30 "$build.log"
  echo "fallback_check: FAIL: the fallback build failed"
  exit 1
}
status=0
for t in $targets; do
  out=$(sh "$src/tests/gpu.sh" "$build/$t" --n 1000003 --offset 1 2>&1)
  rc=$?
  if [ $rc = 77 ]; then echo "$out" | tail -3; echo "fallback_check: $t skipped"; exit 77; fi
  if [ $rc != 0 ]; then echo "$out" | tail -20; echo "fallback_check: FAIL: $t"; status=1; continue; fi
  if ! echo "$out" | grep -q 'built with WB_FORCE_FALLBACK'; then
    echo "fallback_check: FAIL: $t does not say it was built with the fallback"
    status=1
    continue
  fi
  echo "fallback_check: $t verified on its fallback path"
done
exit $status
