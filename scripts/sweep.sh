#!/usr/bin/env bash
# scripts/sweep.sh: run one chapter over a grid of --block and --batch values and show where
# it is fastest: a GB/s matrix (rows: block size, columns: K), the best cell, and per block
# size the occupancy the chapter reports (its blk/SM column). The grid is kept as a CSV, and
# `sweep.sh render` writes it as Markdown into a chapter page between the lines
# <!-- sweep:begin --> and <!-- sweep:end -->.
#
# Each cell is one run of the chapter in its human mode with few repetitions, so a grid costs
# (blocks x batches) x (start-up, input generation and checks, about a second at the default
# N = 2^28, + a few ms of kernels): the default grid of chapter 09 (6 x 7 cells) should take
# about a minute on an H200 (an estimate; --n 2^30 costs about four times as much per cell).
#
# --grid-study repeats the experiments of comeradealexi's "CUDA Parallel Sum Benchmarks"
# (github.com/comeradealexi/CUDAParallelAddBenchmarks): block sizes 32 to 1024 and 1 to 32768
# values per thread, on a 512 MiB input read once (N = 2^27, L2 flushed) and on a 4 MiB input
# read many times (N = 2^20, --no-flush, 64 runs), where the input stays in L2 and the atomics,
# not memory, set the pace. docs/pages/block-batch-grid.md shows its tables on the H200.

# Started as `sh scripts/...`: go on in bash, which the rest of the script needs.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
WB_SCRIPT=sweep.sh
. "$(dirname "$0")/lib.sh"

usage() {
  cat <<EOF
usage: scripts/sweep.sh CHAPTER [options]
       scripts/sweep.sh render CSV [PAGE] [--date YYYY-MM-DD]

Run CHAPTER (09, 9 or chapter09) once per cell of a --block x --batch grid and print a GB/s
matrix per kernel, the best cell and the occupancy per block size; keep the grid as a CSV.

  --blocks "LIST"    block sizes (default "32 64 128 256 512 1024")
  --batches "LIST"   values of K, --batch (default "1 2 4 8 16 32 64")
  --n "LIST"         input sizes, one grid each (default 2^28; 2^30 is the chapters' default)
  --no-flush         keep L2 warm between timed runs (an input smaller than L2 then stays there)
  --reps R           timed runs per cell (default 5); --warmup W untimed ones first (default 1)
  --variant V        passed to the chapter (e.g. all: one matrix per kernel)
  --grid-study       the full grid of "CUDA Parallel Sum Benchmarks": blocks 32..1024,
                     K = 1..32768, at N = 2^27 (512 MiB, L2 flushed, 5 runs) and at
                     N = 2^20 (4 MiB, --no-flush, 64 runs)
  --out FILE         the CSV (default build/sweep/chapterNN.csv)
  --render           then write the tables into the chapter's page (as sweep.sh render does)
  --bin-dir DIR      where chapterNN is (default: repository root, then build/)
  -h, --help         this text

render writes the tables of CSV between <!-- sweep:begin --> and <!-- sweep:end --> in PAGE
(default: chapters/NN-*/README.md of the CSV's chapter); the date is --date, else the CSV's
modification time. A chapter without --block or --batch gets one row or one column.
Cells: GB/s; "-" the chapter refused the value; FAIL wrong result; ERR another failure.
Exit: 0 every cell verified or refused; 1 a cell failed; 2 bad usage; 77 no GPU (1 when REQUIRE_GPU=1).
EOF
}

# ---- render --------------------------------------------------------------------------------

do_render() {
  local csv="" page="" date="" id slug frag rc
  while [ $# -gt 0 ]; do
    case $1 in
      --date) date=${2:?--date needs a value}; shift ;;
      -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
      *) if [ -z "$csv" ]; then csv=$1; elif [ -z "$page" ]; then page=$1; else wb_say "too many arguments"; exit 2; fi ;;
    esac
    shift
  done
  [ -n "$csv" ] && [ -f "$csv" ] || { wb_say "render needs the CSV a sweep wrote (see -h)"; exit 2; }
  if [ -z "$page" ]; then
    id=$(awk -F, 'NR == 2 { print $1 }' "$csv")
    slug=$(wb_chapter_slug "$id") || { wb_say "no chapters/$id-*/ directory for the CSV's chapter '$id'"; exit 2; }
    page=$WB_ROOT/chapters/$id-$slug/README.md
  fi
  [ -f "$page" ] || { wb_say "$page: no such file"; exit 2; }
  frag=$(mktemp "${TMPDIR:-/tmp}/wb-sweep.XXXXXX")
  awk -v mode=md -v date="${date:-$(date -r "$csv" +%Y-%m-%d)}" -f "$WB_ROOT/scripts/sweep_render.awk" "$csv" >"$frag" ||
    { rm -f "$frag"; exit 1; }
  wb_splice "$page" "<!-- sweep:begin -->" "<!-- sweep:end -->" "$frag"
  rc=$?
  rm -f "$frag"
  case $rc in
    0) echo "sweep: wrote the tables of $csv into $page" ;;
    3) wb_say "$page has no <!-- sweep:begin --> / <!-- sweep:end --> lines; left as it was"; exit 1 ;;
    *) exit 1 ;;
  esac
}

if [ "${1:-}" = render ]; then
  shift
  do_render "$@"
  exit 0
fi

# ---- run -----------------------------------------------------------------------------------

id="" blocks="32 64 128 256 512 1024" batches="1 2 4 8 16 32 64" sizes="2^28" flush=flush
reps=5 warmup=1 variant="" out="" render=0 configs=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --blocks) blocks=${2:?--blocks needs a list}; shift ;;
    --batches) batches=${2:?--batches needs a list}; shift ;;
    --n) sizes=${2:?--n needs a list}; shift ;;
    --no-flush) flush=no-flush ;;
    --reps) reps=${2:?--reps needs a value}; shift ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift ;;
    --variant) variant=${2:?--variant needs a value}; shift ;;
    --grid-study)
      blocks="32 64 128 256 512 1024"
      batches="1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768"
      configs=("2^27 flush 5" "2^20 no-flush 64")
      ;;
    --out) out=${2:?--out needs a value}; shift ;;
    --render) render=1 ;;
    --bin-dir) WB_BIN_DIR=${2:?--bin-dir needs a value}; shift ;;
    -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
    *)
      [ -z "$id" ] || { wb_say "one chapter at a time (got '$id' and '$1')"; exit 2; }
      id=$(wb_normalise_id "$1")
      [ -n "$id" ] || { wb_say "'$1' is not a chapter (give 09, 9 or chapter09)"; exit 2; }
      ;;
  esac
  shift
done
[ -n "$id" ] || { usage >&2; exit 2; }
# Without --grid-study, one grid per size, all with the same flush setting and repetitions.
if [ ${#configs[@]} -eq 0 ]; then
  for n in $sizes; do configs+=("$n $flush $reps"); done
fi
bin=$(wb_binary "$id") || { wb_say "chapter$id is not built (make chapter$id)"; exit 1; }
# A chapter without --block or --batch gets a single row or column ("-").
if ! wb_has_flag "$bin" --block; then
  [ "$blocks" = "32 64 128 256 512 1024" ] || wb_say "chapter$id has no --block: --blocks ignored"
  blocks=-
fi
if ! wb_has_flag "$bin" --batch; then
  [ "$batches" = "1 2 4 8 16 32 64" ] || wb_say "chapter$id has no --batch: --batches ignored"
  batches=-
fi
wb_require_gpu "$bin"
device=$(wb_device_name "$WB_PROBE_LOG" | tr ',' ' ')
rm -f "$WB_PROBE_LOG"
out=${out:-$WB_ROOT/build/sweep/chapter$id.csv}
mkdir -p "$(dirname "$out")" || exit 1
log=${out%.csv}.log
: >"$log"

echo "sweep: chapter$id on the $device; blocks: $blocks; K: $batches; notes in $log"
echo "chapter,kernel,n,flush,reps,block,batch,median_ms,gbps,blk_per_sm,check,device" >"$out.tmp"
failures=0
start=$SECONDS
for config in "${configs[@]}"; do
  read -r n fl rp <<<"$config"
  shown_n=$n
  # N as a plain number (the CSV's n column), from the chapters' forms 1000, 2^20 and 1<<20.
  case $n in
    2^*) n=$((1 << ${n#2^})) ;;
    "1<<"*) n=$((1 << ${n#1<<})) ;;
  esac
  case $n in
    ''|*[!0-9]*) wb_say "--n '$n' is not allowed: give a whole number, 2^k or 1<<k"; exit 2 ;;
  esac
  if [ "$fl" = flush ]; then what="L2 flushed"; else what="L2 not flushed (--no-flush)"; fi
  echo "N = $shown_n, $what, median of $rp runs; GB/s for K = $batches:"
  for b in $blocks; do
    printf '  block %5s:' "$b"
    for k in $batches; do
      args=(--csv --n "$n" --reps "$rp" --warmup "$warmup")
      [ "$fl" = no-flush ] && args+=(--no-flush)
      [ "$b" = - ] || args+=(--block "$b")
      [ "$k" = - ] || args+=(--batch "$k")
      [ -z "$variant" ] || args+=(--variant "$variant")
      echo "+ $bin ${args[*]}" >>"$log"
      table=$(wb_timeout 600 "$bin" "${args[@]}" 2>>"$log")
      rc=$?
      printf '%s\n' "$table" >>"$log"
      # The chapter's CSV rows (the command-line contract in docs/pages/measuring.md):
      # chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config.
      rows=$(printf '%s\n' "$table" | awk -F, -v id="$id" -v fl="$fl" -v rp="$rp" -v b="$b" -v k="$k" -v dev="$device" '
        $1 == id && NF >= 11 && ($10 == "PASS" || $10 == "FAIL") {
          printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", id, $2, $3, fl, rp, b, k, $6, $8, $11, $10, dev
        }')
      if [ -n "$rows" ]; then
        printf '%s\n' "$rows" >>"$out.tmp"
        shown=$(printf '%s\n' "$rows" | awk -F, '{ printf "%s%s", (NR > 1 ? "/" : ""), ($11 == "PASS" ? sprintf("%.0f", $9) : "FAIL") }')
      else
        case $rc in
          2) why=refused ;;
          124) why="ERR (timed out)" ;;
          *) why="ERR (exit $rc)" ;;
        esac
        echo "$id,-,$n,$fl,$rp,$b,$k,0,0,0,$why,$device" >>"$out.tmp"
        shown=${why%% *}
        [ "$why" = refused ] && shown=-
      fi
      case $rc in
        0|2) ;;
        *) failures=$((failures + 1)) ;;
      esac
      printf ' %s' "$shown"
    done
    printf '\n'
  done
done
mv "$out.tmp" "$out"
echo "sweep: $(($(wc -l <"$out") - 1)) row(s) in $((SECONDS - start)) s, written to $out"
echo
awk -v mode=text -f "$WB_ROOT/scripts/sweep_render.awk" "$out"
status=0
if [ "$render" = 1 ]; then
  echo
  (do_render "$out") || status=1
fi
if [ "$failures" -gt 0 ]; then
  echo "sweep: $failures cell(s) failed (wrong result or error); see $log"
  status=1
fi
exit "$status"
