#!/usr/bin/env bash
# scripts/sanitize.sh: run every chapter under compute-sanitizer's four tools and check
# what the workbook promises (docs/pages/sanitizers.md):
#   - in its normal mode every chapter is clean under racecheck, memcheck, synccheck and
#     initcheck, and still verifies its result (exit 0);
#   - the --racy run of a chapter that offers one (06, 13) IS reported by racecheck.
# Each run is tiny (N = 2^16 by default, one timed repetition, no warm-up), because the
# tools slow kernels down by orders of magnitude. Every tool also sees each chapter at the
# edges: an odd N that leaves a partial block or tile (65539), an input off 16-byte alignment
# (--offset 1, so heads and tails run), and, where the chapter has --block and --batch, small
# tiles (--block 64 --batch 2: 513 tiles, so chapter 17 looks back across many windows). A chapter with --variant runs every
# variant: once with `--variant all` where it offers that, else once per variant.
#
# It prints a progress line per chapter, then a table chapter x tool whose cells read
# `clean` or `E err / W warn` (from the tools' summary lines), and keeps every log.
# Exit: 0 all expectations met, 1 one failed, 2 bad usage, 77 no GPU or no compute-sanitizer
# (1 instead of 77 when REQUIRE_GPU=1, so that a GPU machine cannot skip silently).

# Started as `sh scripts/...`: go on in bash, which the rest of the script needs.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
WB_SCRIPT=sanitize.sh
. "$(dirname "$0")/lib.sh"

usage() {
  cat <<EOF
usage: scripts/sanitize.sh [options] [CHAPTER...]

Run chapters under compute-sanitizer (racecheck, memcheck, synccheck, initcheck) and check
that each is clean in its normal mode and that every --racy run is reported by racecheck.

  CHAPTER          05, 5 or chapter05 (default: every chapters/NN-*/ directory)
  --n N            elements per run (default 2^16; the chapter's forms: 65536, 2^16, 1<<16)
  --racy-n N       elements for the --racy runs (default 2^12: a racy kernel makes racecheck
                   report hazards by the ten thousand, and reporting them is what is slow)
  --offset E       also pass --offset E, to put the input off 16-byte alignment (default: none)
  --tools LIST     which tools, space separated (default "racecheck memcheck synccheck initcheck")
  --logs DIR       where the logs go (default \$WB_SANITIZE_DIR, else build/sanitize)
  --bin-dir DIR    where the chapterNN programs are (default: repository root, then build/)
  --timeout S      seconds allowed per sanitizer run (default 900)
  -h, --help       this text

compute-sanitizer is \$COMPUTE_SANITIZER, else the one on PATH, else /usr/local/cuda/bin's.
Exit: 0 all clean and every --racy run reported; 1 otherwise; 2 bad usage;
77 no GPU or no compute-sanitizer (1 instead when REQUIRE_GPU=1).
EOF
}

n=2^16
racy_n=2^12
offset=""
tools="racecheck memcheck synccheck initcheck"
logs=${WB_SANITIZE_DIR:-$WB_ROOT/build/sanitize}
limit=900
chapters=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --n) n=${2:?--n needs a value}; shift ;;
    --racy-n) racy_n=${2:?--racy-n needs a value}; shift ;;
    --offset) offset=${2:?--offset needs a value}; shift ;;
    --tools) tools=${2:?--tools needs a value}; shift ;;
    --logs) logs=${2:?--logs needs a value}; shift ;;
    --bin-dir) WB_BIN_DIR=${2:?--bin-dir needs a value}; shift ;;
    --timeout) limit=${2:?--timeout needs a value}; shift ;;
    -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
    *)
      id=$(wb_normalise_id "$1")
      [ -n "$id" ] || { wb_say "'$1' is not a chapter (give 05, 5 or chapter05)"; exit 2; }
      chapters+=("$id")
      ;;
  esac
  shift
done
for tool in $tools; do
  wb_in_list "$tool" "racecheck memcheck synccheck initcheck" ||
    { wb_say "unknown tool '$tool': use racecheck memcheck synccheck initcheck"; exit 2; }
done
if [ ${#chapters[@]} -eq 0 ]; then
  mapfile -t chapters < <(wb_summary_ids)
  wb_say_elsewhere
fi
[ ${#chapters[@]} -gt 0 ] || { wb_say "no chapters/NN-*/ directories under $WB_ROOT"; exit 1; }

# The sanitizer: named explicitly, on PATH, or where the CUDA Toolkit installs it.
sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
  sanitizer=$(command -v compute-sanitizer 2>/dev/null) || sanitizer=""
  [ -n "$sanitizer" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
[ -n "$sanitizer" ] && [ -x "$sanitizer" ] ||
  wb_skip "compute-sanitizer not found (not on PATH, not in /usr/local/cuda/bin; set COMPUTE_SANITIZER)"

# Every chapter must have been built; a GPU must be there (probed with the first chapter).
first=""
for id in "${chapters[@]}"; do
  if bin=$(wb_binary "$id"); then first=${first:-$bin}; fi
done
[ -n "$first" ] || { wb_say "no chapter program found: build them first (make all)"; exit 1; }
wb_require_gpu "$first"
rm -f "$WB_PROBE_LOG"
mkdir -p "$logs" || exit 1

# Print "HAZARDS ERRORS WARNINGS" from a sanitizer log, or "none" when it holds no summary.
# racecheck's line is "RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)"; the
# other tools end with "ERROR SUMMARY: 2 errors". Several processes: their counts add up.
summary_counts() {
  awk -v tool="$2" '
    /RACECHECK SUMMARY: [0-9]+ hazards? displayed/ {
      line = $0
      sub(/.*RACECHECK SUMMARY: /, "", line)
      split(line, w, /[^0-9]+/)        # w[1] hazards, w[2] errors, w[3] warnings
      rh += w[1]; re += w[2]; rw += w[3]; race = 1
    }
    /ERROR SUMMARY: [0-9]+ errors?/ {
      line = $0
      sub(/.*ERROR SUMMARY: /, "", line)
      es += line + 0; err = 1
    }
    END {
      # racecheck reads its own line; should a version print only the generic one, use that.
      if (tool == "racecheck" && race) print rh + 0, re + 0, rw + 0
      else if (err) print es + 0, es + 0, 0
      else print "none"
    }
  ' "$1"
}

# Add a problem to the cell, once (a cell's runs often fail the same way).
cell_problem() {
  case ", $cell_bad, " in *", $1, "*) ;; *) cell_bad="${cell_bad:+$cell_bad, }$1" ;; esac
}

# One sanitizer run: adds its counts to cell_h/cell_e/cell_w (a cell adds up a chapter's
# runs) and its problems to cell_bad. $1 tool, $2 log, the rest: the chapter and its arguments.
sanitize_once() {
  local tool=$1 log=$2 rc counts extra=()
  shift 2
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  {
    echo "+ $sanitizer --tool $tool --error-exitcode 99 ${extra[*]} $*"
    wb_timeout "$limit" "$sanitizer" --tool "$tool" --error-exitcode 99 "${extra[@]}" "$@"
  } >"$log" 2>&1
  rc=$?
  counts=$(summary_counts "$log" "$tool")
  if [ "$counts" = none ]; then
    cell_problem "no summary"
    cell_nosummary=1
  else
    # shellcheck disable=SC2086  # three numbers, split on purpose
    set -- $counts
    cell_h=$((cell_h + $1)); cell_e=$((cell_e + $2)); cell_w=$((cell_w + $3))
  fi
  # 99 is the tools' own status for "found errors"; anything else but 0 is the chapter's.
  case $rc in
    0|99) ;;
    1) cell_problem "exit 1: wrong result" ;;
    3) cell_problem "exit 3: CUDA error" ;;
    124) cell_problem "timed out after ${limit}s" ;;
    *) cell_problem "exit $rc" ;;
  esac
}

# Start a new cell.
cell_reset() {
  cell_h=0 cell_e=0 cell_w=0 cell_bad="" cell_nosummary=0
}

# The text of a cell: "clean" or "E err / W warn", then any problem ("clean, exit 1: wrong
# result"); a run without a summary line has no counts to show ("no summary, exit 134").
cell_text() {
  local text
  if [ "$cell_h" -eq 0 ] && [ "$cell_e" -eq 0 ] && [ "$cell_w" -eq 0 ]; then
    text=clean
  else
    text="$cell_e err / $cell_w warn"
  fi
  if [ "$cell_nosummary" = 1 ] && [ "$text" = clean ]; then
    text=$cell_bad
  elif [ -n "$cell_bad" ]; then
    text="$text, $cell_bad"
  fi
  echo "$text"
}

failures=()
racy_reported=0
racy_total=0
rows=()
run_args=(--n "$n" --reps 1 --warmup 0)
[ -z "$offset" ] || run_args+=(--offset "$offset")
edge_n=65539
echo "sanitize: ${#chapters[@]} chapter(s), N = $n, tools: $tools; logs in $logs"
for id in "${chapters[@]}"; do
  start=$SECONDS
  if ! bin=$(wb_binary "$id"); then
    failures+=("chapter$id: no program (build it: make chapter$id)")
    rows+=("$id|not built")
    echo "chapter$id: not built"
    continue
  fi
  # Which runs cover the chapter's kernels (scripts/variants.sh).
  read -r -a runs <<<"$(wb_runs "$bin")"
  edge_args=(--n "$edge_n" --offset 1 --reps 1 --warmup 0)
  wb_has_flag "$bin" --block && edge_args+=(--block 64)
  wb_has_flag "$bin" --batch && edge_args+=(--batch 2)
  cells=""
  printf 'chapter%s:' "$id"
  for tool in $tools; do
    cell_reset
    for v in "${runs[@]}"; do
      if [ "$v" = - ]; then set_v=(); log=$logs/chapter$id.$tool; else set_v=(--variant "$v"); log=$logs/chapter$id.$tool.$v; fi
      sanitize_once "$tool" "$log.log" "$bin" "${run_args[@]}" "${set_v[@]}"
      sanitize_once "$tool" "$log.edge.log" "$bin" "${edge_args[@]}" "${set_v[@]}"
    done
    text=$(cell_text)
    cells="$cells|$text"
    printf '  %s %s' "$tool" "$text"
    [ "$text" = clean ] || failures+=("chapter$id $tool: $text (logs: $logs/chapter$id.$tool.*)")
  done
  # The racecheck exercise: the deliberately broken kernel must be caught.
  racy=-
  if wb_has_flag "$bin" --racy; then
    racy_total=$((racy_total + 1))
    cell_reset
    sanitize_once racecheck "$logs/chapter$id.racecheck.racy.log" "$bin" --n "$racy_n" --reps 1 --warmup 0 --racy
    if [ "$cell_h" -gt 0 ]; then
      racy="reported: $cell_e err / $cell_w warn"
      racy_reported=$((racy_reported + 1))
    else
      racy="NOT reported"
      [ "$cell_nosummary" = 0 ] || racy="NOT reported ($cell_bad)"
      failures+=("chapter$id --racy: racecheck reported no hazard (log: $logs/chapter$id.racecheck.racy.log)")
    fi
    printf '  racy: %s' "$racy"
  fi
  rows+=("$id|${runs[*]}$cells|$racy")
  printf '  [%d s]\n' $((SECONDS - start))
done

# The table: one row per chapter, one column per tool, then the racy run; columns as wide
# as their longest cell.
echo
{
  header="chapter|variants"
  for tool in $tools; do header="$header|$tool"; done
  echo "$header|racy (racecheck)"
  printf '%s\n' "${rows[@]}"
} | awk -F'|' '
  { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
    if (NF > nf) nf = NF }
  END {
    for (r = 1; r <= NR; r++) {
      line = ""
      for (i = 1; i <= nf; i++) line = line sprintf("%-" (i < nf ? w[i] + 2 : 1) "s", cell[r, i])
      sub(/ +$/, "", line)
      print line
    }
  }'
echo
if [ ${#failures[@]} -eq 0 ]; then
  echo "sanitize: every chapter clean in its normal mode; $racy_reported of $racy_total --racy run(s) reported by racecheck"
  exit 0
fi
echo "sanitize: FAILED (${#failures[@]}):"
printf '  %s\n' "${failures[@]}"
exit 1
