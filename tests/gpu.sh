#!/bin/sh
# gpu.sh CHAPTER [ARGS...]
# Run a chapter on the GPU with ARGS, once per --variant it offers (read from its --help),
# with few repetitions: exit 0 means every kernel's result matched the CPU reference.
# Without a GPU the chapter exits 77, which ctest reports as skipped; with REQUIRE_GPU=1
# a missing GPU is a failure instead.
bin=$1
shift
variants=""
case " $* " in
  *" --variant "*) ;;
  *) variants=$("$bin" --help | sed -n 's/^ *--variant V *one of:\(.*\)(default.*/\1/p' | sed 's/\<all\>//g') ;;
esac
[ -n "$variants" ] || variants="-"
status=0
for v in $variants; do
  if [ "$v" = "-" ]; then set_v=""; else set_v="--variant $v"; fi
  echo "+ $bin $* $set_v --reps 2 --warmup 1"
  # shellcheck disable=SC2086
  "$bin" "$@" $set_v --reps 2 --warmup 1
  rc=$?
  if [ "$rc" = 77 ]; then
    if [ "${REQUIRE_GPU:-0}" = 1 ]; then
      echo "gpu.sh: REQUIRE_GPU=1 but the chapter found no usable GPU" >&2
      exit 1
    fi
    exit 77
  fi
  [ "$rc" = 0 ] || { echo "gpu.sh: exit $rc" >&2; status=1; }
done
exit $status
