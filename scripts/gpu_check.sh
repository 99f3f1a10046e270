#!/usr/bin/env bash
# gpu_check.sh PHASE [OUTDIR] -- the whole GPU check of the workbook, for a maintainer with a GPU.
#   build    configure (sm_90 unless ARCH is set) and build every chapter into build/ and the root
#   test     REQUIRE_GPU=1 ctest: every host, GPU and docs test; a skipped GPU test is a failure
#            (CTEST_ARGS narrows it, e.g. "-LE big" or "-L big", to split the run across calls)
#   measure  the sanitizer suite, then the summary run (docs/results/<gpu>.csv), then the
#            chapter 09 and 16 sweeps
# Logs go to OUTDIR (default build/gpu-check); a short table is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
phase=${1:-}
out=${2:-build/gpu-check}
mkdir -p "$out"
case "$phase" in
  build)
    gen=""; command -v ninja >/dev/null 2>&1 && gen="-G Ninja"
    # shellcheck disable=SC2086
    cmake -S . -B build $gen -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90}" >"$out/build.log" 2>&1 &&
      cmake --build build -j "$(nproc)" >>"$out/build.log" 2>&1
    rc=$?
    [ $rc = 0 ] || { tail -60 "$out/build.log"; exit $rc; }
    for t in build/chapter[0-9][0-9]; do cp -f "$t" .; done
    echo "build: OK ($(ls build/chapter[0-9][0-9] | wc -l) chapters)"
    ;;
  test)
    # shellcheck disable=SC2086
    (cd build && REQUIRE_GPU=1 ctest -j "${JOBS:-6}" ${CTEST_ARGS:-} --output-on-failure --timeout 900) >"$out/ctest.log" 2>&1
    rc=$?
    grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test time" "$out/ctest.log" | tail -30
    exit $rc
    ;;
  measure)
    status=0
    sh scripts/sanitize.sh >"$out/sanitize.log" 2>&1 || status=1
    sh scripts/summary.sh run >"$out/summary.log" 2>&1 || status=1
    for ch in 09 16; do
      [ -x "./chapter$ch" ] && { sh scripts/sweep.sh "$ch" >"$out/sweep$ch.log" 2>&1 || status=1; }
    done
    cp -f docs/results/*.csv "$out/" 2>/dev/null
    for f in "$out"/sweep*.log; do [ -f "$f" ] && tail -25 "$f"; done
    tail -40 "$out/sanitize.log"
    tail -40 "$out/summary.log"
    exit $status
    ;;
  *)
    sed -n '2,8p' "$0"
    exit 2
    ;;
esac
