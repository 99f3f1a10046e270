#!/bin/sh
# gpu.sh CHAPTER [ARGS...]
# Run a chapter on the GPU with ARGS and few repetitions, covering every --variant it offers
# (its --list-variants, by the rule scripts/variants.sh applies): once with `--variant all`
# where the chapter has it, otherwise once per variant. Exit 0 means every kernel's result
# matched the CPU reference.
# Without a GPU the chapter exits 77, which ctest reports as skipped; with REQUIRE_GPU=1
# a missing GPU is a failure instead. WB_SKIP_IF_NO_MEMORY=1 makes a run whose N does not
# fit in this GPU's memory exit 77 too ("skipped: N = ... needs ..."), a skip even under
# REQUIRE_GPU=1; run by hand, the same chapter exits 3.
WB_SKIP_IF_NO_MEMORY=1
export WB_SKIP_IF_NO_MEMORY
bin=$1
shift
log=$(mktemp "${TMPDIR:-/tmp}/wb-gpu.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
# The runs that cover every kernel (scripts/variants.sh), unless the case names its variant.
case " $* " in
  *" --variant "*) variants="-" ;;
  *) variants=$(sh "$(dirname "$0")/../scripts/variants.sh" "$bin") ;;
esac
status=0
for v in $variants; do
  if [ "$v" = "-" ]; then set_v=""; else set_v="--variant $v"; fi
  # The case's own --reps or --warmup, coming later on the line, override these defaults.
  echo "+ $bin --reps 2 --warmup 1 $* $set_v"
  # shellcheck disable=SC2086
  "$bin" --reps 2 --warmup 1 "$@" $set_v >"$log" 2>&1
  rc=$?
  cat "$log"
  if [ "$rc" = 77 ]; then
    if [ "${REQUIRE_GPU:-0}" = 1 ] && ! grep -q '^skipped: ' "$log"; then
      echo "gpu.sh: REQUIRE_GPU=1 but the chapter found no usable GPU" >&2
      exit 1
    fi
    exit 77
  fi
  [ "$rc" = 0 ] || { echo "gpu.sh: exit $rc" >&2; status=1; }
done
exit $status
