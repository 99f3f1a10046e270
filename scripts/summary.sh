#!/usr/bin/env bash
# scripts/summary.sh: the workbook's results, in two stages so that the second needs no GPU.
#
#   summary.sh run [N]       run every chapter with --csv at N (default 2^30) and write the
#                            combined CSV docs/results/<gpu>.csv (<gpu> from the device name,
#                            "NVIDIA H200" -> h200). A chapter that offers `--variant all` runs
#                            that; else each of its variants; one that offers `sweep` (e.g.
#                            chapter 11: N = 2^8 .. 2^31) runs it once more. Needs the GPU.
#   summary.sh render CSV... turn CSVs into docs/results/<gpu>.md (the results page),
#                            <gpu>.svg (best GB/s per chapter against the ceilings),
#                            <gpu>-chapterNN.svg (the same chart with chapter NN marked, for its
#                            page) and, for each chapter whose sweep holds CUB and a workbook
#                            kernel at several N, <gpu>-chapterNN-across-n.svg (CUB's time over
#                            ours against N); then rewrite the marked blocks of README.md and of
#                            the chapter pages. No GPU needed.
#   summary.sh all [N]       run, then render what it wrote (what `make summary` does).
#
# The combined CSV is each chapter's --csv rows (the ten columns every chapter prints) followed
# by three columns: run ("main", or "sweep" for the rows of a sweep variant), device and
# peak_gbps (from the chapter's device line), so that render needs nothing but the file.
#
# render rewrites only what lies between these marker lines, and only when it changes:
#   README.md                     <!-- summary:begin --> ... <!-- summary:end -->
#   chapters/NN-*/README.md       <!-- results:begin --> ... <!-- results:end -->
#   a chapter with an across-N    <!-- across-n:begin --> ... <!-- across-n:end -->, or where
#   sweep                         the page has no such lines <!-- sweep:begin --> ... <!-- sweep:end -->
# Several CSVs (several GPUs) give one block per GPU, in the order given. The date shown is
# --date, else the CSV's modification time. Paths in the blocks are relative to the page that
# holds them (README.md: docs/results/h200.svg; a chapter page: ../../docs/results/h200.svg), so
# that they work on GitHub; the site's input filter maps them for Doxygen.

# Started as `sh scripts/...`: go on in bash, which the rest of the script needs.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
WB_SCRIPT=summary.sh
. "$(dirname "$0")/lib.sh"

usage() {
  cat <<EOF
usage: scripts/summary.sh run [N] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/summary.sh render [--date YYYY-MM-DD] CSV...
       scripts/summary.sh all [N] [--bin-dir DIR] [--out DIR] [--logs DIR] [--date YYYY-MM-DD]

  run      every chapter with --csv at N elements (default 2^30; forms 1073741824, 2^30, 1<<30),
           plus --variant sweep where a chapter offers it; writes OUT/<gpu>.csv (OUT default
           docs/results) and keeps each chapter's notes in LOGS (default build/summary).
           Needs the GPU: exits 77 without one (1 when REQUIRE_GPU=1).
  render   from CSVs written by run: <gpu>.md, <gpu>.svg, <gpu>-chapterNN.svg and, for a
           chapter with a sweep across N, <gpu>-chapterNN-across-n.svg beside each CSV, and the
           marked blocks of README.md and chapters/NN-*/README.md. No GPU needed.
  all      run, then render.
  --bin-dir DIR   where the chapterNN programs are (default: repository root, then build/)
  -h, --help      this text
Exit: 0 done, every chapter verified; 1 a chapter failed (reported, its rows kept); 2 bad usage.
EOF
}

# ---- run -----------------------------------------------------------------------------------

# summary.sh run: every chapter with --csv at N into <gpu>.csv (see the top of this file).
do_run() {
  local n=2^30 out=$WB_ROOT/docs/results logs=$WB_ROOT/build/summary
  while [ $# -gt 0 ]; do
    case $1 in
      --bin-dir) WB_BIN_DIR=${2:?--bin-dir needs a value}; shift ;;
      --out) out=${2:?--out needs a value}; shift ;;
      --logs) logs=${2:?--logs needs a value}; shift ;;
      -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
      *) n=$1 ;;
    esac
    shift
  done
  local ids=() id bin first="" failures=() total_start=$SECONDS
  mapfile -t ids < <(wb_summary_ids)
  [ ${#ids[@]} -gt 0 ] || { wb_say "no chapters/NN-*/ directories under $WB_ROOT"; exit 1; }
  wb_say_elsewhere
  for id in "${ids[@]}"; do
    if bin=$(wb_binary "$id"); then first=${first:-$bin}; fi
  done
  [ -n "$first" ] || { wb_say "no chapter program found: build them first (make all)"; exit 1; }
  wb_require_gpu "$first"
  local device peak
  device=$(wb_device_name "$WB_PROBE_LOG" | tr ',' ' ')
  peak=$(wb_device_peak "$WB_PROBE_LOG")
  if [ -z "$device" ] || [ -z "$peak" ]; then
    wb_say "${first##*/} printed no device line; its notes:"
    cat "$WB_PROBE_LOG" >&2
    rm -f "$WB_PROBE_LOG"
    exit 1
  fi
  rm -f "$WB_PROBE_LOG"
  local slug
  slug=$(wb_gpu_slug "$device")
  mkdir -p "$out" "$logs" || exit 1
  local rows
  rows=$(mktemp "${TMPDIR:-/tmp}/wb-summary.XXXXXX")
  echo "summary: ${#ids[@]} chapter(s) on the $device at N = $n; notes in $logs"

  # One chapter run: its CSV rows (header dropped) get the run, device and peak columns.
  # $1 chapter id, $2 run tag, $3 log name, the rest: the chapter's arguments.
  run_chapter() {
    local id=$1 tag=$2 log=$logs/$3.log rc got
    shift 3
    got=$(mktemp "${TMPDIR:-/tmp}/wb-summary-rows.XXXXXX")
    echo "+ $bin --csv $*" >"$log"
    wb_timeout 1800 "$bin" --csv "$@" >"$got" 2>>"$log"
    rc=$?
    awk -F, -v tag="$tag" -v device="$device" -v peak="$peak" -v id="$id" '
      $1 == "chapter" { next }
      NF == 12 && $1 == id { print $0 "," tag "," device "," peak; next }
      NF > 0 { print "summary.sh: ignored a line of chapter" id "'\''s output: " $0 > "/dev/stderr" }
    ' "$got" >>"$rows"
    chapter_rows=$((chapter_rows + $(awk -F, -v id="$id" 'NF == 12 && $1 == id' "$got" | wc -l)))
    rm -f "$got"
    [ "$rc" = 0 ] || wb_run_failed "$id" "$log" "$rc" "$log"
  }

  local start v chapter_rows chapter_failed
  local -a variants
  for id in "${ids[@]}"; do
    start=$SECONDS
    chapter_rows=0 chapter_failed=""
    if ! bin=$(wb_binary "$id"); then
      failures+=("chapter$id: not built (make chapter$id)")
      echo "chapter$id: not built"
      continue
    fi
    # Every kernel, in the runs scripts/variants.sh names; a sweep variant runs below.
    for v in $(wb_runs "$bin"); do
      case $v in
        -) run_chapter "$id" main "chapter$id" --n "$n" ;;
        all) run_chapter "$id" main "chapter$id" --n "$n" --variant all ;;
        *) run_chapter "$id" main "chapter$id.$v" --n "$n" --variant "$v" ;;
      esac
    done
    # A sweep variant chooses its own sizes.
    if wb_in_list sweep "$(wb_variants "$bin")"; then
      run_chapter "$id" sweep "chapter$id.sweep" --variant sweep
    fi
    if [ -n "$chapter_failed" ]; then
      echo "chapter$id: FAILED ($chapter_failed), $chapter_rows row(s) [$((SECONDS - start)) s]"
    else
      echo "chapter$id: $chapter_rows row(s), all verified [$((SECONDS - start)) s]"
    fi
  done

  csv_path=$out/$slug.csv
  {
    echo "chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config,run,device,peak_gbps"
    cat "$rows"
  } >"$csv_path.tmp" && mv "$csv_path.tmp" "$csv_path"
  rm -f "$rows"
  echo "summary: wrote $csv_path ($(($(wc -l <"$csv_path") - 1)) rows) in $((SECONDS - total_start)) s"
  if [ ${#failures[@]} -gt 0 ]; then
    echo "summary: FAILED (${#failures[@]}):"
    printf '  %s\n' "${failures[@]}"
    return 1
  fi
  return 0
}

# ---- render --------------------------------------------------------------------------------

do_render() {
  wb_render_args "$@"
  local frag id slug status=0
  wb_rendered() {
    local across
    across=$(cd "$1" && ls "$2"-chapter[0-9][0-9]-across-n.svg 2>/dev/null | tr '\n' ' ')
    echo "summary: wrote $1/$2.md, $2.svg, a chart per chapter${across:+; across N: ${across% }}"
  }
  wb_render_each "$WB_ROOT/scripts/summary_render.awk" -v steps="$WB_ROOT/scripts/steps.txt"
  frag=$wb_render_frag

  # Splice one fragment into a file, between the lines of the first marker it has; say what
  # happened.
  splice() {
    local file=$1 name=$2 rc marker tried=""
    shift 2
    wb_join_blocks "$name" >"$frag/joined"
    [ -s "$frag/joined" ] || return 0
    if [ ! -f "$file" ]; then
      wb_say "${file#"$WB_ROOT"/}: no such file; its $1 block was not written"
      return 0
    fi
    for marker in "$@"; do
      wb_splice "$file" "<!-- $marker:begin -->" "<!-- $marker:end -->" "$frag/joined"
      rc=$?
      [ "$rc" = 3 ] || break
      tried="${tried:+$tried or }<!-- $marker:begin --> / <!-- $marker:end -->"
    done
    if [ "$rc" = 3 ]; then
      wb_say "${file#"$WB_ROOT"/}: no $tried lines; left as it was"
    elif [ "$rc" != 0 ]; then
      status=1
    fi
  }
  splice "$WB_ROOT/README.md" summary.md summary
  for id in $(wb_chapter_ids); do
    slug=$(wb_chapter_slug "$id")
    splice "$WB_ROOT/chapters/$id-$slug/README.md" "chapter$id.md" results
    splice "$WB_ROOT/chapters/$id-$slug/README.md" "sweep$id.md" across-n sweep
  done
  rm -rf "$frag"
  [ "$status" = 0 ] && echo "summary: README.md and the chapter pages are up to date"
  return "$status"
}

# ---- main ----------------------------------------------------------------------------------

wb_run_render_main "$@"
