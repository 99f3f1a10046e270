#!/usr/bin/env bash
# scripts/scaling.sh: chapter 18's scaling over several GPUs, in two stages like summary.sh.
#
#   scaling.sh run [--past-memory N]   run chapter 18 on every visible GPU with --csv: once as one
#                            process, once under mpirun (one process per GPU) when the program
#                            was built with MPI and mpirun is on the PATH; with --past-memory N,
#                            also its in-place scan and its sum at N elements (choose N larger
#                            than one GPU's memory). Writes docs/results/<gpu>-x<G>-chapter18.csv:
#                            the chapter's CSV rows after three columns, run, device and gpus.
#                            Needs the GPUs.
#   scaling.sh render CSV    the scaling table (each operation on one GPU, over its shard, beside
#                            all G GPUs: time, aggregate and per-GPU GB/s, efficiency against G
#                            times one GPU) and its chart, <CSV stem>.svg, into chapter 18's page
#                            between <!-- scaling:begin --> and <!-- scaling:end -->. No GPU needed.
#   scaling.sh all           run, then render.
#
# A machine with one GPU runs it too (G = 1, efficiency 1 by definition, the collectives with one
# member); a build without chapter 18 (no NCCL) is skipped with the reason.

# Started as `sh scripts/...`: go on in bash, which the rest of the script needs.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
WB_SCRIPT=scaling.sh
. "$(dirname "$0")/lib.sh"

usage() {
  cat <<EOF
usage: scripts/scaling.sh run [--past-memory N] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/scaling.sh render [--date YYYY-MM-DD] CSV
       scripts/scaling.sh all [--past-memory N] [--bin-dir DIR] [--out DIR] [--logs DIR] [--date YYYY-MM-DD]

  run      chapter 18 on every visible GPU (2^30 elements per GPU), as one process and, when
           built with MPI, under mpirun; --past-memory N adds the in-place scan and the sum at
           N elements. Writes OUT/<gpu>-x<G>-chapter18.csv (OUT default docs/results).
  render   the scaling table and chart of a CSV written by run, into chapter 18's page.
  all      run, then render.
Exit: 0 done and verified; 1 a run failed; 2 bad usage; 77 no GPU or no chapter 18 here.
EOF
}

do_run() {
  local out=$WB_ROOT/docs/results logs=$WB_ROOT/build/scaling past=""
  while [ $# -gt 0 ]; do
    case $1 in
      --past-memory) past=${2:?--past-memory needs a value}; shift ;;
      --bin-dir) WB_BIN_DIR=${2:?--bin-dir needs a value}; shift ;;
      --out) out=${2:?--out needs a value}; shift ;;
      --logs) logs=${2:?--logs needs a value}; shift ;;
      *) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
    esac
    shift
  done
  local bin
  if ! bin=$(wb_binary 18); then
    wb_skip "chapter 18 is not built here (it needs NCCL: see chapters/18-multi-gpu/README.md)"
  fi
  wb_require_gpu "$bin"
  # "2 GPU(s), one process drives all (...); GPU 0: NVIDIA H200, 132 SMs, ..."
  local device gpus
  device=$(sed -n 's/^[0-9][0-9]* GPU(s), .*; GPU 0: \(.*\), [0-9][0-9]* SMs, .*/\1/p' "$WB_PROBE_LOG" | head -n 1)
  gpus=$(sed -n 's/^\([0-9][0-9]*\) GPU(s), .*/\1/p' "$WB_PROBE_LOG" | head -n 1)
  rm -f "$WB_PROBE_LOG"
  [ -n "$device" ] && [ -n "$gpus" ] || { wb_say "chapter18 printed no GPU line"; exit 1; }
  mkdir -p "$out" "$logs" || exit 1
  csv_path=$out/$(wb_gpu_slug "$device")-x$gpus-chapter18.csv
  echo "run,device,gpus,chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config" >"$csv_path"
  local failed=0
  # $1 run label, $2 log name, the rest: the command.
  one() {
    local label=$1 log=$logs/$2.log got rc
    shift 2
    got=$(mktemp "${TMPDIR:-/tmp}/wb-scaling.XXXXXX")
    echo "+ $*" >"$log"
    wb_timeout 3600 "$@" >"$got" 2>>"$log"
    rc=$?
    awk -F, -v run="$label" -v device="$device" -v gpus="$gpus" \
      'NF == 12 && $1 == "18" { print run "," device "," gpus "," $0 }' "$got" >>"$csv_path"
    rm -f "$got"
    echo "$label: exit $rc (notes: $log)"
    [ "$rc" = 0 ] || failed=1
  }
  one "one process" chapter18 "$bin" --csv
  if ldd "$bin" 2>/dev/null | grep -q 'libmpi' && command -v mpirun >/dev/null 2>&1; then
    # Open MPI binds each of two or fewer processes to one core; the checks want every core.
    one "mpirun -np $gpus" chapter18.mpi mpirun --bind-to none -np "$gpus" "$bin" --csv
  else
    echo "mpirun: skipped (chapter18 was built without MPI, or mpirun is missing)"
  fi
  if [ -n "$past" ]; then
    one "one process at N = $past" chapter18.past_scan "$bin" --csv --variant scan_in_place --n "$past" --reps 2 --warmup 0
    one "one process at N = $past" chapter18.past_sum "$bin" --csv --variant sum --n "$past" --reps 3 --warmup 1
  fi
  echo "scaling: wrote $csv_path"
  return $failed
}

do_render() {
  wb_render_args "$@"
  local csv=${wb_render_csvs[0]} page svg fragment rel pagerel uprel date
  page=$(ls "$WB_ROOT"/chapters/18-*/README.md 2>/dev/null | head -n 1)
  [ -n "$page" ] || { wb_say "no chapter 18 page"; exit 1; }
  [ -f "$csv" ] || { wb_say "no such CSV: $csv"; exit 2; }
  svg=${csv%.csv}.svg
  date=${wb_render_date:-$(date -r "$csv" +%Y-%m-%d)}
  wb_result_paths "$(cd "$(dirname "$csv")" && pwd)"
  fragment=$(mktemp "${TMPDIR:-/tmp}/wb-scaling-md.XXXXXX")
  # Rows pair up within a run: an operation on shard 0 alone (..._one_gpu...) and on all G GPUs.
  awk -F, -v svg="$svg" -v md="$fragment" -v date="$date" -v name="$(basename "$csv")" -v link="$pagerel$(basename "$csv")" \
      -v chart="$pagerel$(basename "$svg")" '
    function op(k) { return k ~ /^sum/ ? "sum" : (k ~ /in_place/ ? "scan in place" : "scan") }
    NR == 1 { next }
    {
      run = $1; device = $2; gpus = $3; kernel = $5
      key = run SUBSEP op(kernel)
      if (!(key in seen)) { seen[key] = 1; order[++rows] = key; runs[rows] = run; ops[rows] = op(kernel) }
      if (kernel ~ /one_gpu/) { one_ms[key] = $9; one_gbps[key] = $11 }
      else { all_ms[key] = $9; all_gbps[key] = $11; all_n[key] = $6 }
      if ($13 != "PASS") bad = 1
    }
    END {
      printf "Measured on %s x %s on %s by `scripts/scaling.sh`: each operation on GPU 0 alone over shard 0 (\"one GPU\"), then on all %s GPUs, in the same run; median of the timed runs, L2 flushed on every GPU. GB/s counts 4 bytes per element for the sum, 8 for the scan. Efficiency: the aggregate over %s times one GPU.\n\n", gpus, device, date, gpus, gpus > md
      printf "| run | operation | N (all GPUs) | one GPU: ms (GB/s) | %s GPUs: ms | aggregate GB/s | per GPU GB/s | efficiency |\n", gpus > md
      print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |" > md
      for (i = 1; i <= rows; i++) {
        k = order[i]
        if (!(k in one_ms) || !(k in all_ms)) continue
        eff[i] = one_gbps[k] > 0 ? all_gbps[k] / (gpus * one_gbps[k]) : 0
        printf "| %s | %s | %s | %.3f (%.1f) | %.3f | %.1f | %.1f | **%.3f** |\n", runs[i], ops[i], all_n[k], one_ms[k],
          one_gbps[k], all_ms[k], all_gbps[k], all_gbps[k] / gpus, eff[i] > md
      }
      printf "\n![Scaling of chapter 18 on %s x %s](%s)\n\n", gpus, device, chart > md
      printf "Every row with its configuration: [%s](%s).%s\n", name, link, bad ? " **Some rows FAILED verification.**" : "" > md
      # The chart: one bar per row, its efficiency on a 0 to 1 scale.
      w = 760; left = 330; bar = 22; gap = 10; top = 46; h = top + rows * (bar + gap) + 40; scale = w - left - 60
      printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">\n", w, h > svg
      printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n" > svg
      printf "<text x=\"10\" y=\"22\" font-size=\"15\">Chapter 18 on %s x %s: aggregate over %s x one GPU</text>\n", gpus, device, gpus > svg
      for (i = 1; i <= rows; i++) {
        y = top + (i - 1) * (bar + gap)
        printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s, %s</text>\n", left - 8, y + bar - 6, runs[i], ops[i] > svg
        printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y, eff[i] * scale, bar,
          ops[i] == "sum" ? "#4e79a7" : "#f28e2b" > svg
        printf "<text x=\"%.1f\" y=\"%d\">%.3f</text>\n", left + eff[i] * scale + 6, y + bar - 6, eff[i] > svg
      }
      yb = top + rows * (bar + gap)
      printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n", left + scale, top - 6, left + scale, yb > svg
      printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1.0 = %s x one GPU</text>\n", left + scale, yb + 18, gpus > svg
      printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, top - 6, left, yb > svg
      print "</svg>" > svg
    }' "$csv"
  if ! wb_splice "$page" "<!-- scaling:begin -->" "<!-- scaling:end -->" "$fragment"; then
    rm -f "$fragment"
    wb_say "$page has no <!-- scaling:begin --> / <!-- scaling:end --> lines"
    exit 1
  fi
  rm -f "$fragment"
  echo "scaling: wrote $svg and the scaling block of ${page#"$WB_ROOT"/}"
}

wb_run_render_main "$@"
