# scripts/lib.sh: helpers of the shell scripts that source it (profile.sh). Sourced, not run.
#
# Chapters are found from the directories chapters/NN-slug/, so the scripts cover whatever
# chapters exist. Chapter NN's program is chapterNN: in --bin-dir when one is given, else at
# the repository root (where `make all` copies it), else in the CMake build directory
# ($BUILD, default build/).

# The repository root: the parent of the directory holding this file.
WB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Where chapter binaries are looked for first (set by a script's --bin-dir).
WB_BIN_DIR=${WB_BIN_DIR:-}

# Print a message on stderr, prefixed with the script's name.
wb_say() {
  echo "${WB_SCRIPT:-scripts}: $*" >&2
}

# Print the two-digit id of every chapter directory, sorted, one per line.
wb_chapter_ids() {
  local d
  for d in "$WB_ROOT"/chapters/[0-9][0-9]-*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    d=${d##*/}
    echo "${d:0:2}"
  done
}

# The chapters whose results another script makes (scripts/steps.txt "elsewhere NN SCRIPT"),
# one "NN SCRIPT" per line: chapter 18 runs on several GPUs (scripts/scaling.sh).
wb_elsewhere() {
  [ -f "$WB_ROOT/scripts/steps.txt" ] || return 0
  awk '$1 == "elsewhere" && NF >= 3 { print $2, $3 }' "$WB_ROOT/scripts/steps.txt"
}

# wb_chapter_ids without those: what the summary, profile and sanitizer runs cover by default.
wb_summary_ids() {
  local skip
  skip=" $(wb_elsewhere | awk '{ printf "%s ", $1 }')"
  wb_chapter_ids | while read -r id; do
    case $skip in *" $id "*) ;; *) echo "$id" ;; esac
  done
}

# Say which chapters those runs leave to another script.
wb_say_elsewhere() {
  local id script
  while read -r id script; do
    [ -n "$id" ] && [ -d "$(ls -d "$WB_ROOT"/chapters/"$id"-*/ 2>/dev/null | head -n 1)" ] &&
      echo "chapter$id: not run here; its results come from $script"
  done < <(wb_elsewhere)
}

# Print the slug of chapter NN (the directory name after "NN-"), or nothing.
wb_chapter_slug() {
  local d
  for d in "$WB_ROOT"/chapters/"$1"-*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    echo "${d##*/"$1"-}"
    return 0
  done
  return 1
}

# Turn "5", "05", "chapter05" or "chapters/05-x" into "05"; print nothing for anything else.
wb_normalise_id() {
  local id=${1##*/}
  id=${id#chapter}
  id=${id%%-*}
  case $id in
    [0-9]) echo "0$id" ;;
    [0-9][0-9]) echo "$id" ;;
  esac
}

# Print the path of chapter NN's program, or fail (status 1) when it has not been built.
wb_binary() {
  local dir
  for dir in "$WB_BIN_DIR" "$WB_ROOT" "$WB_ROOT/${BUILD:-build}"; do
    if [ -n "$dir" ] && [ -x "$dir/chapter$1" ] && [ ! -d "$dir/chapter$1" ]; then
      echo "$dir/chapter$1"
      return 0
    fi
  done
  return 1
}

# Print, space separated, the runs that cover every kernel of a chapter (scripts/variants.sh:
# "all", else each variant but "sweep", else "-" for a chapter without --variant).
wb_runs() {
  sh "$WB_ROOT/scripts/variants.sh" "$1" | tr '\n' ' '
}

# Whether a word is in a space-separated list.
wb_in_list() {
  case " $2 " in
    *" $1 "*) return 0 ;;
  esac
  return 1
}

# End the script as "skipped" (77), or as a failure (1) when REQUIRE_GPU=1 asks for a GPU run.
wb_skip() {
  wb_say "$*"
  if [ "${REQUIRE_GPU:-0}" = 1 ]; then
    wb_say "REQUIRE_GPU=1: a skip counts as a failure"
    exit 1
  fi
  wb_say "skipped (exit 77)"
  exit 77
}

# Run a chapter once on a tiny input to learn whether there is a usable GPU. Skips the
# script (wb_skip) when the chapter exits 77; otherwise leaves the chapter's stderr, which
# holds the device line, in WB_PROBE_LOG.
wb_require_gpu() {
  local bin=$1 rc
  WB_PROBE_LOG=$(mktemp "${TMPDIR:-/tmp}/wb-probe.XXXXXX")
  "$bin" --n 1 --reps 1 --warmup 0 --csv >/dev/null 2>"$WB_PROBE_LOG"
  rc=$?
  if [ "$rc" = 77 ]; then
    local why
    why=$(grep -m1 -i 'no usable CUDA device' "$WB_PROBE_LOG")
    rm -f "$WB_PROBE_LOG"
    wb_skip "no usable CUDA GPU on this machine (${bin##*/} exited 77: ${why:-no message})"
  fi
}

# From a chapter's notes, print the device name of the line
# "device 0: NVIDIA H200, sm_90, 132 SMs, ...; theoretical peak 4814 GB/s (...)".
wb_device_name() {
  sed -n 's/^device [0-9][0-9]*: \(.*\), sm_[0-9][0-9]*, .*/\1/p' "$1" | head -n 1
}

# A file-name slug for a GPU: "NVIDIA H200" -> h200, "NVIDIA GeForce RTX 5060" -> geforce-rtx-5060.
wb_gpu_slug() {
  echo "$1" | sed 's/^NVIDIA //' | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//'
}

# Run a command with a time limit when coreutils' timeout is available (exit 124 on expiry).
wb_timeout() {
  local seconds=$1
  shift
  if command -v timeout >/dev/null 2>&1; then
    timeout "$seconds" "$@"
  else
    "$@"
  fi
}

# Replace the lines between the marker lines BEGIN and END of FILE with the content of
# FRAGMENT; everything else in FILE is kept byte for byte, and FILE is rewritten only when
# its content changes. Status: 0 done, 3 FILE lacks the markers (left untouched).
wb_splice() {
  local file=$1 begin=$2 end=$3 fragment=$4 tmp
  tmp=$(mktemp "${TMPDIR:-/tmp}/wb-splice.XXXXXX")
  awk -v begin="$begin" -v end="$end" -v fragment="$fragment" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    state == 0 && trim($0) == begin {
      print
      while ((getline line < fragment) > 0) print line
      state = 1
      next
    }
    state == 1 && trim($0) == end { print; state = 2; next }
    state == 1 { next }
    { print }
    END { exit state == 2 ? 0 : 3 }
  ' "$file" >"$tmp"
  local rc=$?
  if [ "$rc" = 0 ] && ! cmp -s "$tmp" "$file"; then
    cat "$tmp" >"$file"
  fi
  rm -f "$tmp"
  return "$rc"
}

# What a chapter's exit status means (the command-line contract in docs/pages/measuring.md).
wb_exit_meaning() {
  case $1 in
    1) echo "a result was wrong${2:+$2}" ;;
    2) echo "bad command line" ;;
    3) echo "CUDA error" ;;
    77) echo "no usable GPU" ;;
    124) echo "timed out" ;;
    *) echo "exit $1" ;;
  esac
}

# Record a failed run of chapter ID with status RC in the caller's failures array and
# chapter_failed text. STEM is the run's log name, chapterNN[.variant][.log], so that the message
# names the variant; NOTES is the file to read; WHY1 is added to the meaning of exit 1.
wb_run_failed() {
  local id=$1 stem=$2 rc=$3 notes=$4 why1=${5:-} what
  what=${stem##*/chapter"$id"}
  what=${what%.log}
  what=${what#.}
  what="${what:+--variant $what: }$(wb_exit_meaning "$rc" "$why1")"
  failures+=("chapter$id $what (notes: $notes)")
  chapter_failed="${chapter_failed:+$chapter_failed; }$what"
}

# For results written into DIR, set rel (DIR as seen from the repository root, for README.md),
# pagerel (DIR as seen from a chapter page, chapters/NN-slug/, ending in "/") and uprel (the root
# as seen from DIR, ending in "/"); absolute paths when DIR is outside the repository.
wb_result_paths() {
  case $1/ in
    "$WB_ROOT"/*)
      rel=${1#"$WB_ROOT"/}
      pagerel=../../${rel:+$rel/}
      uprel=$(echo "${rel:+$rel/}" | sed 's|[^/][^/]*/|../|g')
      ;;
    *) rel=$1 pagerel=$1/ uprel=$WB_ROOT/ ;;
  esac
}

# The command line of a script with a run stage (needs the GPU) and a render stage (reads the CSV
# that run wrote): `run ARGS`, `render ARGS`, or `all ARGS` (run, then render what it wrote;
# --date goes to render, everything else to run). The script defines usage, do_run (which sets
# csv_path to the CSV it wrote) and do_render. Exits with the script's status.
wb_run_render_main() {
  local cmd=${1:-} run_status
  [ $# -gt 0 ] && shift
  case $cmd in
    -h|--help) usage; exit 0 ;;
    run) do_run "$@"; exit $? ;;
    render) do_render "$@"; exit $? ;;
    all)
      local run_args=() render_args=()
      while [ $# -gt 0 ]; do
        case $1 in
          --date) render_args+=(--date "${2:?--date needs a value}"); shift ;;
          *) run_args+=("$1") ;;
        esac
        shift
      done
      csv_path=""
      do_run "${run_args[@]}"
      run_status=$?
      [ -n "$csv_path" ] && [ -f "$csv_path" ] || exit 1
      do_render "${render_args[@]}" "$csv_path" || exit 1
      exit "$run_status"
      ;;
    *) usage >&2; exit 2 ;;
  esac
}

# The render stage of summary.sh and profile.sh: after wb_render_args, render every CSV with the
# awk program AWKFILE into a fresh folder of fragments, wb_render_frag (the caller removes it):
# CSV k (from 1; wb_render_count in all) writes its blocks into wb_render_frag/k. Each awk run
# gets date (--date, else the CSV's modification date), base (the CSV's name without .csv),
# outdir (its folder), relpath, pagerel and uprel (wb_result_paths), frag (its fragment folder)
# and slugs (a file of "NN slug" lines), plus the -v options given after AWKFILE. After each CSV,
# the caller's wb_rendered DIR BASE says what was written. Exits 2 for a missing CSV, 1 when awk
# fails.
wb_render_each() {
  local awkfile=$1 csv d dir base rel pagerel uprel id
  shift
  wb_render_frag=$(mktemp -d "${TMPDIR:-/tmp}/wb-render.XXXXXX")
  wb_render_count=0
  for id in $(wb_chapter_ids); do echo "$id $(wb_chapter_slug "$id")"; done >"$wb_render_frag/slugs"
  for csv in "${wb_render_csvs[@]}"; do
    [ -f "$csv" ] || { wb_say "$csv: no such file"; rm -rf "$wb_render_frag"; exit 2; }
    wb_render_count=$((wb_render_count + 1))
    mkdir -p "$wb_render_frag/$wb_render_count"
    d=${wb_render_date:-$(date -r "$csv" +%Y-%m-%d)}
    dir=$(cd "$(dirname "$csv")" && pwd)
    base=$(basename "$csv" .csv)
    wb_result_paths "$dir"
    awk -v date="$d" -v base="$base" -v outdir="$dir" -v relpath="$rel" -v pagerel="$pagerel" -v uprel="$uprel" \
        -v frag="$wb_render_frag/$wb_render_count" -v slugs="$wb_render_frag/slugs" "$@" -f "$awkfile" "$csv" ||
      { rm -rf "$wb_render_frag"; exit 1; }
    wb_rendered "$dir" "$base"
  done
}

# Print the fragment NAME of every CSV that wb_render_each rendered, in their order, separated by
# blank lines (one block per GPU).
wb_join_blocks() {
  local k first=1
  for k in $(seq 1 "$wb_render_count"); do
    [ -f "$wb_render_frag/$k/$1" ] || continue
    [ $first = 1 ] || echo
    cat "$wb_render_frag/$k/$1"
    first=0
  done
}

# Parse the command line of `summary.sh render` and `profile.sh render`: --date YYYY-MM-DD and
# one or more CSVs, into wb_render_date and the array wb_render_csvs. A bad option or no CSV
# exits 2 with a message.
wb_render_args() {
  wb_render_date="" wb_render_csvs=()
  while [ $# -gt 0 ]; do
    case $1 in
      --date) wb_render_date=${2:?--date needs a value}; shift ;;
      -*) wb_say "unknown option '$1' (see -h)"; exit 2 ;;
      *) wb_render_csvs+=("$1") ;;
    esac
    shift
  done
  [ ${#wb_render_csvs[@]} -gt 0 ] || { wb_say "render needs a CSV (see -h)"; exit 2; }
}
