#!/usr/bin/env bash
# scripts/profile.sh: hardware counters of every chapter's kernels, read with Nsight Compute
# (ncu), in two stages so that the second needs no GPU (like summary.sh).
#
#   profile.sh run [--chapters "03 04"]  run each chapter once under ncu at N = 2^24 (--reps 1
#                            --warmup 0; `--variant all` where a chapter offers it, else each
#                            of its variants but `sweep`) with one fixed set of metrics, and
#                            write docs/results/<gpu>-counters.csv (<gpu> from the device name,
#                            "NVIDIA H200" -> h200): one row per launch of a chapter's kernel
#                            (or of CUB's), the harness's own kernels left out. Needs the GPU.
#                            With --chapters, the other chapters' rows of an existing CSV stay.
#   profile.sh render CSV... turn counters CSVs into docs/results/<gpu>-counters.md (every
#                            chapter's table) and the block of each chapter page between
#                            <!-- counters:begin --> and <!-- counters:end --> (made right after
#                            the page's <!-- results:end --> line where missing). No GPU needed.
#   profile.sh all           run, then render what it wrote (what `make profile` does).
#
# How launches are told apart. The harness (common/wb_cuda.cuh) checks every run of a kernel
# on the device with its own kernel, count_mismatches, right after the run. ncu profiles that
# kernel too, so its rows split the chapter's launches into runs: with --reps 1 --warmup 0 each
# of the chapter's rows (its --csv "kernel" column, called the variant here) has two runs, the
# first (untimed) and the timed one, in the order the chapter prints its rows. Rows of both
# runs go to the CSV; the pages show the timed run. A launch is kept when its function is one
# of the __global__ functions of the chapter's .cu file, or a CUB kernel (Device...Kernel);
# count_mismatches and anything else the harness might launch are dropped. cudaMemcpy and
# cudaMemset (the L2 flush, the output poisoning) launch no kernel that ncu profiles.
#
# The columns of the CSV (units in the names; per-element values are left to the reader):
#   chapter, variant, run (first|timed), launch (1.. within the run), kernel, grid and block
#   (blocks and threads per block; "XxYxZ" when not one-dimensional), n, then one column per
#   metric (see METRICS below), then ncu_id (ncu's own launch number in that process, the
#   harness's kernels counted) and device.
#
# ncu runs with --clock-control none (the GPU's own clocks, as when the chapters time
# themselves) and its default cache control (caches flushed before each profiled kernel, so
# a second pass does not find the first pass's output in L2). Each chapter's raw ncu output
# (chapterNN[.variant].ncu.csv), its own --csv output (.out) and notes (.log) stay in --logs.

# Started as `sh scripts/...`: go on in bash, which the rest of the script needs.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
WB_SCRIPT=profile.sh
. "$(dirname "$0")/lib.sh"

# The metrics, in the CSV's column order: "column ncu-metric", one a line. The names follow the
# Nsight Compute Kernel Profiling Guide (Metrics Structure, Metrics Reference) and were checked
# with `ncu --query-metrics --chip gh100` (Nsight Compute 2025.3.1), which marks the older
# smsp__thread_inst_executed_per_inst_executed deprecated in favour of the _average_ form used here.
METRICS="duration_ns gpu__time_duration.sum
dram_pct_of_peak dram__throughput.avg.pct_of_peak_sustained_elapsed
dram_read_bytes dram__bytes_read.sum
dram_write_bytes dram__bytes_write.sum
l2_hit_pct lts__t_sector_hit_rate.pct
achieved_occupancy_pct sm__warps_active.avg.pct_of_peak_sustained_active
shared_ld_bank_conflicts l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
shared_st_bank_conflicts l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
shared_ld_wavefronts l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
shared_st_wavefronts l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
threads_per_warp_inst smsp__average_thread_inst_executed_per_inst_executed.ratio
pred_on_threads_per_warp_inst smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio
divergent_branch_targets smsp__sass_branch_targets_threads_divergent.sum
warp_insts smsp__inst_executed.sum
stall_long_scoreboard_per_inst smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
stall_barrier_per_inst smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
stall_membar_per_inst smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"

# NVIDIA's page on the permission error.
PERM_URL=https://developer.nvidia.com/nvidia-development-tools-solutions-ERR_NVGPUCTRPERM-permission-issue-performance-counters

usage() {
  cat <<EOF
usage: scripts/profile.sh run [--chapters "NN ..."] [--n N] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/profile.sh render [--date YYYY-MM-DD] CSV...
       scripts/profile.sh all [run's options] [--date YYYY-MM-DD]

  run      every chapter (or those of --chapters: "03 04", "3,4" or "chapter03") once under
           Nsight Compute at N elements (default 2^24), --reps 1 --warmup 0, every variant;
           writes OUT/<gpu>-counters.csv (OUT default docs/results; with --chapters, the
           other chapters' rows of an existing one are kept) and keeps ncu's raw output and
           each chapter's notes in LOGS (default build/profile).
           Needs a GPU, ncu (\$NCU, else on PATH, else /usr/local/cuda/bin) and permission to
           read its counters: exits 77 without them (1 when REQUIRE_GPU=1).
  render   from CSVs written by run: <gpu>-counters.md beside each CSV, and the block
           <!-- counters:begin --> ... <!-- counters:end --> of each chapters/NN-*/README.md
           (one block per CSV, in the order given). No GPU needed.
  all      run, then render.
  --bin-dir DIR   where the chapterNN programs are (default: repository root, then build/)
  -h, --help      this text
Exit: 0 done; 1 a chapter failed under ncu (reported, its rows kept); 2 bad usage; 77 no GPU,
no ncu or no permission to read the counters.
EOF
}

# ---- run -----------------------------------------------------------------------------------

# The metric names, comma separated, for ncu --metrics; the column names, comma separated.
metric_names() { echo "$METRICS" | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }'; }
metric_columns() { echo "$METRICS" | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }'; }

# The header of the counters CSV.
csv_header() {
  echo "chapter,variant,run,launch,kernel,grid,block,n,$(metric_columns),ncu_id,device"
}

# The names of the __global__ functions of a chapter's .cu file, space separated: the word
# before the first "(" that follows __global__ (past void and __launch_bounds__(...)).
chapter_kernels() {
  local src
  for src in "$WB_ROOT"/chapters/"$1"-*/*.cu; do
    [ -f "$src" ] || continue
    tr '\n' ' ' <"$src" | grep -o '__global__[^;{]*' |
      sed -e 's/__launch_bounds__ *([^)]*)//g' -e 's/^__global__//' |
      sed -n 's/^[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\) *(.*/\1/p'
  done | sort -u | tr '\n' ' '
}

# ncu: $NCU, else the one on PATH, else the CUDA Toolkit's.
find_ncu() {
  local n=${NCU:-}
  if [ -z "$n" ]; then
    n=$(command -v ncu 2>/dev/null) || n=""
    [ -n "$n" ] || [ ! -x /usr/local/cuda/bin/ncu ] || n=/usr/local/cuda/bin/ncu
  fi
  [ -n "$n" ] && [ -x "$n" ] || n=""
  echo "$n"
}

# End with 77 (wb_skip) when ncu's output says the counters may not be read.
check_permission() {
  if grep -q 'ERR_NVGPUCTRPERM' "$1" 2>/dev/null; then
    wb_say "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)."
    wb_say "Fix: run as root (sudo), or let every user read them: load the driver with"
    wb_say "NVreg_RestrictProfilingToAdminUsers=0 (e.g. 'options nvidia NVreg_RestrictProfilingToAdminUsers=0'"
    wb_say "in /etc/modprobe.d/, then reboot). NVIDIA's page: $PERM_URL"
    wb_skip "no permission to read the GPU's performance counters"
  fi
}

# profile.sh run: every chapter (or those of --chapters) once under ncu into <gpu>-counters.csv.
do_run() {
  local n=2^24 out=$WB_ROOT/docs/results logs=$WB_ROOT/build/profile chosen="" arg id
  while [ $# -gt 0 ]; do
    case $1 in
      --chapters) chosen="$chosen ${2:?--chapters needs a value}"; shift ;;
      --n) n=${2:?--n needs a value}; shift ;;
      --bin-dir) WB_BIN_DIR=${2:?--bin-dir needs a value}; shift ;;
      --out) out=${2:?--out needs a value}; shift ;;
      --logs) logs=${2:?--logs needs a value}; shift ;;
      -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
      *) chosen="$chosen $1" ;;
    esac
    shift
  done
  local ids=()
  if [ -n "${chosen// /}" ]; then
    for arg in ${chosen//,/ }; do
      id=$(wb_normalise_id "$arg")
      [ -n "$id" ] && wb_chapter_slug "$id" >/dev/null ||
        { wb_say "'$arg' is not a chapter of chapters/ (give 05, 5 or chapter05)"; exit 2; }
      wb_in_list "$id" "${ids[*]:-}" || ids+=("$id")
    done
  else
    mapfile -t ids < <(wb_summary_ids)
    wb_say_elsewhere
  fi
  [ ${#ids[@]} -gt 0 ] || { wb_say "no chapters/NN-*/ directories under $WB_ROOT"; exit 1; }

  local ncu
  ncu=$(find_ncu)
  [ -n "$ncu" ] || wb_skip "Nsight Compute (ncu) not found: not on PATH, not in /usr/local/cuda/bin; set NCU"

  local bin first=""
  for id in "${ids[@]}"; do
    if bin=$(wb_binary "$id"); then first=${first:-$bin}; fi
  done
  [ -n "$first" ] || { wb_say "no chapter program found: build them first (make all)"; exit 1; }
  wb_require_gpu "$first"
  local device
  device=$(wb_device_name "$WB_PROBE_LOG" | tr ',' ' ')
  if [ -z "$device" ]; then
    wb_say "${first##*/} printed no device line; its notes:"
    cat "$WB_PROBE_LOG" >&2
    rm -f "$WB_PROBE_LOG"
    exit 1
  fi
  rm -f "$WB_PROBE_LOG"
  mkdir -p "$out" "$logs" || exit 1

  # Whether ncu may read the counters: one metric of the first chapter's first launch.
  "$ncu" --version >"$logs/ncu-version.txt" 2>&1
  "$ncu" --clock-control none --metrics gpu__time_duration.sum --launch-count 1 \
    "$first" --n 1024 --reps 1 --warmup 0 --csv >"$logs/permission.log" 2>&1
  check_permission "$logs/permission.log"

  local slug rows
  slug=$(wb_gpu_slug "$device")
  rows=$(mktemp "${TMPDIR:-/tmp}/wb-profile.XXXXXX")
  wb_say "${#ids[@]} chapter(s) on the $device at N = $n under $ncu; raw output in $logs"

  local metrics failures=() total_start=$SECONDS
  metrics=$(metric_names)

  # One chapter run under ncu. $1 chapter id, $2 log stem, the rest: the chapter's arguments.
  profile_chapter() {
    local id=$1 stem=$logs/$2 rc got kernels
    shift 2
    echo "+ $ncu --clock-control none --csv --page raw --print-units base --metrics ... --log-file $stem.ncu.csv $bin --n $n --reps 1 --warmup 0 --csv $*" >"$stem.log"
    rm -f "$stem.ncu.csv"
    wb_timeout 3600 "$ncu" --clock-control none --csv --page raw --print-units base --metrics "$metrics" \
      --log-file "$stem.ncu.csv" "$bin" --n "$n" --reps 1 --warmup 0 --csv "$@" >"$stem.out" 2>>"$stem.log"
    rc=$?
    check_permission "$stem.ncu.csv"
    check_permission "$stem.log"
    check_permission "$stem.out"
    kernels=$(chapter_kernels "$id")
    got=$(mktemp "${TMPDIR:-/tmp}/wb-profile-rows.XXXXXX")
    # A run whose ncu output cannot be read counts as failed.
    if ! awk -v chapter="$id" -v kernels="$kernels" -v runs=2 -v n="$n" -v device="$device" -v cases="$stem.out" \
      -v columns="$(metric_columns)" -v metrics="$metrics" -f "$WB_ROOT/scripts/profile_parse.awk" \
      "$stem.ncu.csv" >"$got" 2>"$got.err"; then
      [ "$rc" != 0 ] || rc=1
    fi
    # The parser's notes (a metric ncu did not report, launches dropped): in the log and here.
    cat "$got.err" >>"$stem.log"
    cat "$got.err" >&2
    rm -f "$got.err"
    cat "$got" >>"$rows"
    chapter_rows=$((chapter_rows + $(awk -F, '$3 == "timed"' "$got" | wc -l)))
    rm -f "$got"
    [ "$rc" = 0 ] || wb_run_failed "$id" "$stem" "$rc" "$stem.log" ", or ncu failed"
  }

  local start v chapter_rows chapter_failed
  local -a variants
  for id in "${ids[@]}"; do
    start=$SECONDS
    chapter_rows=0 chapter_failed=""
    if ! bin=$(wb_binary "$id"); then
      failures+=("chapter$id: not built (make chapter$id)")
      echo "chapter$id: not built" >&2
      continue
    fi
    # Every kernel, in the runs scripts/variants.sh names.
    for v in $(wb_runs "$bin"); do
      case $v in
        -) profile_chapter "$id" "chapter$id" ;;
        all) profile_chapter "$id" "chapter$id" --variant all ;;
        *) profile_chapter "$id" "chapter$id.$v" --variant "$v" ;;
      esac
    done
    if [ -n "$chapter_failed" ]; then
      echo "chapter$id: FAILED ($chapter_failed), $chapter_rows launch(es) [$((SECONDS - start)) s]" >&2
    else
      echo "chapter$id: $chapter_rows launch(es) profiled [$((SECONDS - start)) s]" >&2
    fi
  done

  csv_path=$out/$slug-counters.csv
  # With --chapters, an existing CSV of the same columns keeps its other chapters' rows.
  local kept=""
  if [ -n "${chosen// /}" ] && [ -f "$csv_path" ] && [ "$(head -n 1 "$csv_path")" = "$(csv_header)" ]; then
    kept=$(mktemp "${TMPDIR:-/tmp}/wb-profile-kept.XXXXXX")
    awk -F, -v ids=" ${ids[*]} " 'NR > 1 && index(ids, " " $1 " ") == 0' "$csv_path" >"$kept"
    wb_say "kept the rows of $(cut -d, -f1 "$kept" | sort -u | wc -l) other chapter(s) from the existing ${csv_path##*/}"
  fi
  {
    csv_header
    cat ${kept:+"$kept"} "$rows" | sort -t, -k1,1 -s
  } >"$csv_path.tmp" && mv "$csv_path.tmp" "$csv_path"
  [ -z "$kept" ] || rm -f "$kept"
  rm -f "$rows"
  wb_say "wrote $csv_path ($(($(wc -l <"$csv_path") - 1)) rows) in $((SECONDS - total_start)) s"
  if [ ${#failures[@]} -gt 0 ]; then
    wb_say "FAILED (${#failures[@]}):"
    printf '  %s\n' "${failures[@]}" >&2
    return 1
  fi
  return 0
}

# ---- render --------------------------------------------------------------------------------

# Put empty counters markers right after the <!-- results:end --> line of a page that has
# none. Status: 0 the page has counters markers now, 3 it has neither kind.
add_markers() {
  local file=$1 tmp
  grep -q '^[[:space:]]*<!-- counters:begin -->[[:space:]]*$' "$file" && return 0
  grep -q '^[[:space:]]*<!-- results:end -->[[:space:]]*$' "$file" || return 3
  tmp=$(mktemp "${TMPDIR:-/tmp}/wb-markers.XXXXXX")
  awk '
    { print }
    !done && $0 ~ /^[ \t]*<!-- results:end -->[ \t\r]*$/ {
      print ""; print "<!-- counters:begin -->"; print "<!-- counters:end -->"; done = 1
    }
  ' "$file" >"$tmp" && cat "$tmp" >"$file"
  rm -f "$tmp"
  return 0
}

do_render() {
  wb_render_args "$@"
  local frag id slug status=0 file
  wb_rendered() { wb_say "wrote $1/$2.md"; }
  wb_render_each "$WB_ROOT/scripts/profile_render.awk"
  frag=$wb_render_frag

  # Each chapter's blocks, one per CSV, joined with a blank line; spliced into its page.
  for id in $(wb_chapter_ids); do
    slug=$(wb_chapter_slug "$id")
    file=$WB_ROOT/chapters/$id-$slug/README.md
    wb_join_blocks "chapter$id.md" >"$frag/joined"
    [ -s "$frag/joined" ] || continue
    if [ ! -f "$file" ]; then
      wb_say "chapters/$id-$slug/README.md: no such file; its counters block was not written"
      continue
    fi
    if ! add_markers "$file"; then
      wb_say "chapters/$id-$slug/README.md: no <!-- counters:begin --> / <!-- counters:end --> and no <!-- results:end --> line; left as it was"
      continue
    fi
    wb_splice "$file" "<!-- counters:begin -->" "<!-- counters:end -->" "$frag/joined" || status=1
  done
  rm -rf "$frag"
  [ "$status" = 0 ] && wb_say "the chapter pages' counters blocks are up to date"
  return "$status"
}

# ---- main ----------------------------------------------------------------------------------

wb_run_render_main "$@"
