#!/usr/bin/env bash
# run.sh -- measure the exercises whose outcomes the solutions quote, on a machine with a GPU.
#
#   bash docs/solutions/exercises/run.sh [--part P | --only ID,...] [--log FILE] [--work DIR] [--jobs N]
#                                        [--arch LIST] [--timeout S] [--deadline S] [--build-only] [--keep]
#   bash docs/solutions/exercises/run.sh --list | --check
#
# For each exercise of the table below (or those --only names: whole ids such as ch09-ex2, or
# a chapter, ch09; or those of --part 1 to 7, each of which takes under 9 minutes on one H200
# with 16 cores, where the whole table of parts 1 to 4 takes about 25: chapters 00-05, 06-10,
# 11-14, 15-17, 18, which needs two GPUs, 19, and 20-21): the repository is copied to a work folder, the exercise's patch (ID.patch
# beside this script), if it has one, is applied to its own copy, and the chapters the
# command needs are built with CMake (-DCMAKE_CUDA_ARCHITECTURES=90 unless --arch says
# otherwise). Every copy is built first, in parallel (--jobs, default: the machine's cores),
# then the commands run one at a time, in the table's order, from the copy's root, where
# the programs lie: ./chapterNN is the exercise's build, ./chapterNN.orig the unchanged one.
# Each command's output goes into one log (--log, default exercises.log) under a header
# "== ID", followed by its exit status and seconds. A command that runs past --timeout
# seconds (default 240) is stopped, and the log says so; none starts once --deadline seconds
# (default: none) have passed since the script began, so that a lease of fixed length returns a log.
#
# --list prints the table. --check needs no GPU: it checks that every patch applies to the
# repository as it is (git apply --check, or patch --dry-run where git is missing or GIT names
# none) and that patches and table name the same exercises. A checkout is not needed: the work
# folder gets the files the tree holds (python3 scripts/wb.py files), as in a source archive.
# --build-only stops after the builds. --keep leaves the work folder (default: removed).
# Exit status: 0 when every build succeeded and every command ran (a command's own failure,
# such as a FAIL the exercise expects, is recorded, not fatal); 1 when a build failed; 2 on
# bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)

# The exercises: id | chapters the command runs | GPUs it needs | the command.
# The commands are the chapter pages' own, without `make` (the builds are done above them) and
# with --csv; before/after comparisons run ./chapterNN.orig beside ./chapterNN.
read -r -d '' TABLE <<'EOF'
ch00-ex1|00|1|for k in 18 19 20 21 22 23 24 25 26; do ./chapter00 --n 2^$k --no-flush --csv; done
ch00-ex2a|00|1|for r in 1 2; do ./chapter00.orig --csv; ./chapter00 --csv; done
ch00-ex2b|00|1|for r in 1 2; do ./chapter00 --csv; done
ch01-ex1|01|1|for b in 32 128 256 1024; do ./chapter01 --block $b --csv; done
ch01-ex2a|01|1|./chapter01 --csv
ch01-ex2b|01|1|for r in 1 2 3; do ./chapter01 --csv; done
ch02-ex1|02|1|./chapter02 --variant all --block 32 --csv && ./chapter02 --variant all --block 256 --csv
ch02-ex2|02|1|./chapter02 --variant all --csv
ch02-ex3|02|1|cmake -S . -B build75 -DCMAKE_CUDA_ARCHITECTURES=75 >/dev/null && cmake --build build75 --target chapter02 >/dev/null && cuobjdump --dump-sass build75/chapter02 | grep -e Function -e SHFL -e VOTE -e REDUX -e 'RED\.' -e ATOM
ch03-ex1|03 04|1|./chapter03.orig --csv; ./chapter03 --csv && ./chapter04 --csv
ch03-ex2|03|1|for b in 32 64 128 256 512 1024; do ./chapter03 --block $b --csv; done
ch03-ex3|03|1|compute-sanitizer --tool racecheck --error-exitcode 1 ./chapter03 --n 2^16 --reps 1 --warmup 0 --csv; echo "exit status $?"; ./chapter03 --csv
ch04-ex1|03 04|1|for c in 04 03; do ncu --clock-control none --kernel-name regex:reduce_tree --launch-count 1 --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum ./chapter$c --n 2^20 --block 1024 --reps 1 --warmup 0 --csv; done
ch04-ex2|03 04|1|for b in 32 256 1024; do ./chapter03 --block $b --csv; ./chapter04 --block $b --csv; done
ch04-ex3|04|1|ncu --clock-control none --kernel-name regex:reduce_tree --launch-count 1 --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum ./chapter04 --n 2^20 --block 512 --reps 1 --warmup 0 --csv
ch05-ex1|05|1|./chapter05.orig --csv; ./chapter05 --csv
ch05-ex2|05|1|for b in 32 64 128 256 512 1024; do ./chapter05 --block $b --csv; done; for b in 32 256; do ncu --clock-control none --cache-control none -k regex:reduce_tree_sequential -c 2 --metrics gpu__time_duration.sum ./chapter05 --block $b --reps 1 --warmup 0 --csv; done
ch05-ex3|05|1|ncu --clock-control none --kernel-name regex:reduce_tree --launch-count 1 --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum ./chapter05 --n 2^20 --block 1024 --reps 1 --warmup 0 --csv
ch05-ex4|05|1|./chapter05.orig --variant all --csv; ./chapter05 --variant all --csv; for p in ./chapter05.orig ./chapter05; do ncu --clock-control none --cache-control none -k regex:reduce_tree_sequential -c 2 --metrics gpu__time_duration.sum $p --variant two_pass --reps 1 --warmup 0 --csv; done
ch06-ex2|06|1|./chapter06 --racy --n 1000 --csv; ./chapter06 --racy --csv; ./chapter06 --n 1000 --csv; ./chapter06 --csv
ch06-ex3|05 06|1|for c in 05 06 05 06; do ./chapter$c --n 2^16 --no-flush --reps 200 --csv; done
ch06-ex4|06|1|for b in 64 256 1024; do ./chapter06 --block $b --csv; ./chapter06 --block $b --racy --csv; done
ch06-ex5|06|1|./chapter06 --csv && ./chapter06.orig --csv
ch07-ex1|07|1|for b in 32 64 96 256 1024; do ./chapter07 --block $b --csv; done; for b in 32 256; do ncu --clock-control none --cache-control none -k regex:reduce_warp_shuffle -c 2 --metrics gpu__time_duration.sum ./chapter07 --block $b --reps 1 --warmup 0 --csv; done
ch07-ex2|07|1|./chapter07 --variant shuffle --csv
ch07-ex3a|07|1|for b in 1 100 1000; do ./chapter07 --variant all --block $b --n 1000003 --csv; done; for b in 1 100 1000; do compute-sanitizer --tool synccheck --error-exitcode 1 ./chapter07 --variant all --block $b --n 65537 --reps 1 --warmup 0 --csv; echo "exit status $?"; done
ch07-ex3b|07|1|for b in 1 100 1000; do ./chapter07 --variant all --block $b --n 1000003 --csv; done; for b in 1 100 1000; do compute-sanitizer --tool synccheck --error-exitcode 1 ./chapter07 --variant all --block $b --n 65537 --reps 1 --warmup 0 --csv; echo "exit status $?"; done
ch07-ex4|07|1|for v in shuffle reduce_add; do ncu --clock-control none -k regex:reduce_warp_shuffle -c 1 --metrics smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum ./chapter07 --variant $v --n 2^24 --reps 1 --warmup 0 --csv; done
ch08-ex1|08|1|for r in 1 2 3; do ./chapter08 --variant atomic --reps 1000 --csv; ./chapter08 --variant atomic --n 2^16 --reps 1000 --csv; done; compute-sanitizer --tool racecheck ./chapter08 --variant atomic --n 2^16 --reps 1 --warmup 0 --csv
ch08-ex2|08|1|./chapter08 --variant last_block --csv
ch08-ex3|07 08|1|for n in 2^16 2^18 2^20 2^22 2^24 2^26 2^28 2^30; do ./chapter07 --variant reduce_add --n $n --no-flush --reps 200 --csv; ./chapter08 --variant all --n $n --no-flush --reps 200 --csv; done
ch08-ex4|08|1|./chapter08 --variant all --block 32 --csv && ./chapter08 --variant all --block 1024 --csv
ch08-ex5|08|1|./chapter08.orig --variant all --csv; ./chapter08 --variant all --csv
ch09-ex1|08 09|1|./chapter09 --block 256 --csv && ./chapter08 --variant atomic --csv
ch09-ex2|09|1|for k in 1 4 16 64; do ./chapter09.orig --batch $k --csv; ./chapter09 --batch $k --csv; done
ch09-ex3|09|1|for k in 1 4 16 64 256 1024; do ./chapter09 --n 2^22 --block 256 --batch $k --csv; done; for k in 1 4 16 64 256 1024; do ./chapter09 --n 2^22 --batch $k --csv; done
ch09-ex4|09|1|./chapter09 --variant all --block 256 --csv
ch10-ex1|10|1|./chapter10 --offset 1 --csv; echo "exit status $?"; compute-sanitizer --tool memcheck ./chapter10 --offset 1 --n 2^16 --reps 1 --warmup 0 --csv
ch10-ex2|10|1|./chapter10 --n 1001 --csv; ./chapter10 --n 1000 --csv; compute-sanitizer --tool memcheck ./chapter10 --n 1001 --reps 1 --warmup 0 --csv
ch10-ex3|10|1|for k in 1 2 4 8 16; do ./chapter10 --batch $k --csv; done
ch11-ex1|11|1|./chapter11 --csv && ./chapter11 --offset 1 --csv; ./chapter11 --variant sweep --n 2^22 --csv; ./chapter11 --variant sweep --n 2^22 --offset 1 --csv
ch11-ex2|11|1|./chapter11.orig --variant sweep --n 2^22 --csv; ./chapter11 --variant sweep --n 2^22 --csv
ch11-ex3|11|1|for r in 1 2; do ./chapter11.orig --reps 100 --csv; ./chapter11 --reps 100 --csv; done
ch12-ex1|12|1|for b in 32 64 128 256 512 1024; do ./chapter12 --block $b --csv; done
ch12-ex2|12|1|./chapter12 --n 2^20 --csv; compute-sanitizer --tool racecheck ./chapter12 --n 2^16 --reps 1 --warmup 0 --csv
ch12-ex3|12|1|for b in 32 256 1024; do ncu --clock-control none -k scan_naive_global -c 1 --metrics dram__bytes.sum,lts__t_bytes.sum ./chapter12 --n 2^24 --block $b --reps 1 --warmup 0 --csv; done
ch13-ex2|13|1|compute-sanitizer --tool racecheck --racecheck-report analysis ./chapter13 --n 2^12 --reps 1 --warmup 0 --csv
ch13-ex3|13|1|for b in 32 64 128 256 512 1024; do ./chapter13 --block $b --csv; done
ch13-ex4|13|1|for b in 64 256 1024; do ./chapter13 --variant all --block $b --csv; done
ch14-ex1|14|1|for p in ./chapter14 ./chapter14.orig; do compute-sanitizer --tool racecheck --racecheck-report analysis $p --n 2^12 --reps 1 --warmup 0 --csv; done
ch14-ex2|13 14|1|ncu --clock-control none -k regex:scan_double_buffer -c 1 --section WarpStateStats ./chapter14 --n 2^24 --reps 1 --warmup 0 --csv; ncu --clock-control none -k regex:scan_shared -c 1 --section WarpStateStats ./chapter13 --n 2^24 --reps 1 --warmup 0 --csv
ch14-ex3|14|1|for b in 64 256 1024; do ./chapter14 --block $b --csv; done
ch15-ex1|15|1|for b in 32 64 128 256 512 1024; do ./chapter15 --block $b --csv; done
ch15-ex2|15|1|./chapter15 --csv && ./chapter15 --n 2^22 --no-flush --csv
ch15-ex3|15|1|for b in 256 1024; do ./chapter15.orig --block $b --csv; ./chapter15 --block $b --csv; done
ch16-ex1|16|1|for p in ./chapter16.orig ./chapter16; do $p --csv; for o in 0 1; do ncu --clock-control none -k regex:scan_coarsened -c 1 --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum $p --n 2^24 --offset $o --reps 1 --warmup 0 --csv; done; done
ch16-ex2|16|1|for p in ./chapter16.orig ./chapter16; do for k in 4 8 16 32; do $p --batch $k --csv; done; ncu --clock-control none -k regex:scan_coarsened -c 1 --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum $p --n 2^24 --batch 16 --reps 1 --warmup 0 --csv; done
ch16-ex3|16|1|for b in 128 256 512 1024; do for k in 1 2 4 8; do ./chapter16 --block $b --batch $k --n 2^28 --reps 5 --csv; done; done
ch17-ex1|17|1|for p in ./chapter17.orig ./chapter17; do $p --variant single_pass --reps 100 --csv && $p --variant single_pass --n 30000001 --offset 1 --reps 100 --csv; done
ch17-ex2|17|1|for k in 4 16 32; do ./chapter17 --variant single_pass --batch $k --csv; done
ch17-ex3|17|1|./chapter17.orig --variant sweep --batch 32 --n 2^26 --csv; ./chapter17 --variant sweep --batch 32 --n 2^26 --csv
ch18-ex1|18|2|for k in 20 21 22 23 24 25 26 27 28 29 30 31; do ./chapter18 --n 2^$k --csv; done
ch18-ex2|18|2|./chapter18 --variant sum --gpus 1 --device 0 --csv && ./chapter18 --variant sum --gpus 1 --device 1 --csv && mpirun --bind-to none -np 2 ./chapter18 --variant sum --csv
ch18-ex3|18|2|./chapter18.orig --variant scan --csv; ./chapter18 --variant scan --csv
ch18-ex5|18|2|for p in LL LL128 Simple; do echo "NCCL_ALGO=Ring NCCL_PROTO=$p"; NCCL_ALGO=Ring NCCL_PROTO=$p ./chapter18 --variant sum --n 2^20 --csv; done && NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING ./chapter18 --variant sum --n 2^20 --csv | grep -E "Algorithm|Protocol|AllReduce|AllGather|sum_" && { NCCL_DEBUG=WARN NCCL_ALGO=Tree ./chapter18 --variant sum --n 2^20 --csv; echo "NCCL_ALGO=Tree: exit status $?"; }
ch19-ex1|19|1|./chapter19 --n 2^26 --csv; ./chapter19 --n 2^26 --input mixed --spread 40 --csv; ./chapter19 --n 2^26 --input cancel --spread 40 --csv
ch19-ex2|19|1|./chapter19 --emulate --n 2^24 --input mixed --spread 20; ./chapter19 --gpu-bits --n 2^24 --input mixed --spread 20
ch19-ex3|19|1|./chapter19 --study --n 2^26
ch19-ex4|19|1|for b in 256 128; do ./chapter19 --n 2^26 --variant tree --block $b --csv; ./chapter19 --n 2^26 --variant reproducible --block $b --csv; done
ch20-ex1|20|1|./chapter20 --emulate
ch20-ex2|20|1|for b in 256 128; do ./chapter20 --variant not_commutative --n 2^20 --block $b --csv; ./chapter20 --variant not_associative --n 2^20 --block $b --csv; done
ch20-ex3|20|1|./chapter20.orig --variant argmax --csv; ./chapter20 --variant argmax --csv
ch20-ex4|20|1|./chapter20 --variant max --n 2^30 --csv; ./chapter20 --variant sum_int32_to_int64 --n 2^30 --csv
ch20-ex5|20|1|./chapter20 --variant sweep --csv
ch21-ex1|21|1|for p in 0 1 10 50 90 100; do ./chapter21 --n 2^28 --keep $p --csv; done
ch21-ex2|21|1|./chapter21 --variant sweep --n 2^26 --csv
ch21-ex3|21|1|for p in 0 50 100; do ./chapter21 --variant three_kernels --n 2^28 --keep $p --csv; ./chapter21 --variant two_kernels --n 2^28 --keep $p --csv; done
ch21-ex4|21|1|./chapter21.orig --variant one_pass --n 2^26 --csv; ./chapter21 --variant split --n 2^26 --csv
EOF

usage() {
  sed -n '3,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# apply_patch DIR PATCH [--check]: apply PATCH in DIR (--check: only say whether it applies)
# with git where it is installed (GIT names it, default git), else with patch, as strictly (no
# fuzz). git looks for no repository above DIR, so that a tree unpacked inside another
# repository is patched as itself.
git_cmd=${GIT:-git}
apply_patch() {
  if command -v "$git_cmd" >/dev/null 2>&1; then
    (cd "$1" && GIT_CEILING_DIRECTORIES=$(dirname "$1") "$git_cmd" apply ${3:+--check} "$2")
  elif command -v patch >/dev/null 2>&1; then
    (cd "$1" && patch -p1 --forward --batch --fuzz=0 --quiet ${3:+--dry-run} <"$2")
  else
    echo "run.sh: neither git nor patch is installed: cannot apply $2" >&2
    return 1
  fi
}

only="" log="exercises.log" work="" jobs="" arch=90 limit=240 deadline=0 build_only=0 keep=0 mode=run
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=${2:-}; shift 2 || usage ;;
    --part)
      case ${2:-} in
        1) only=ch00,ch01,ch02,ch03,ch04,ch05 ;;
        2) only=ch06,ch07,ch08,ch09,ch10 ;;
        3) only=ch11,ch12,ch13,ch14 ;;
        4) only=ch15,ch16,ch17 ;;
        5) only=ch18 ;;
        6) only=ch19 ;;
        7) only=ch20,ch21 ;;
        *) echo "run.sh: --part takes 1 to 7" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --log) log=${2:-}; shift 2 || usage ;;
    --work) work=${2:-}; shift 2 || usage ;;
    --jobs) jobs=${2:-}; shift 2 || usage ;;
    --arch) arch=${2:-}; shift 2 || usage ;;
    --timeout) limit=${2:-}; shift 2 || usage ;;
    --deadline) deadline=${2:-}; shift 2 || usage ;;
    --build-only) build_only=1; shift ;;
    --keep) keep=1; shift ;;
    --list) mode=list; shift ;;
    --check) mode=check; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage ;;
  esac
done
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 4)
case $jobs$limit$deadline in *[!0-9]*) echo "run.sh: --jobs, --timeout and --deadline take whole numbers" >&2; exit 2 ;; esac

ids=() chapters=() gpus=() commands=()
while IFS='|' read -r id chs need cmd; do
  [ -n "$id" ] || continue
  ids+=("$id") chapters+=("$chs") gpus+=("$need") commands+=("$cmd")
done <<<"$TABLE"

if [ $mode = list ]; then
  for i in "${!ids[@]}"; do
    patch=""
    [ -f "$here/${ids[$i]}.patch" ] && patch=" (patched)"
    printf '%s%s\n    %s\n' "${ids[$i]}" "$patch" "${commands[$i]}"
  done
  exit 0
fi

if [ $mode = check ]; then
  bad=0
  for p in "$here"/*.patch; do
    [ -e "$p" ] || continue
    id=$(basename "$p" .patch)
    case " ${ids[*]} " in *" $id "*) ;; *) echo "run.sh: $id.patch is not in the table"; bad=1 ;; esac
    if ! apply_patch "$root" "$p" --check 2>&1; then
      echo "run.sh: $id.patch does not apply to $root"
      bad=1
    fi
  done
  # The negative control: a patch whose removed line is not in the file must be refused.
  first=$(ls "$here"/*.patch 2>/dev/null | head -1)
  if [ -n "$first" ]; then
    broken=$(mktemp "${TMPDIR:-/tmp}/wb-broken.XXXXXX")
    awk '!done && /^-[^-]/ { print "-this line is in no chapter"; done = 1; next } { print }' "$first" >"$broken"
    if apply_patch "$root" "$broken" --check >/dev/null 2>&1; then
      echo "run.sh: the check accepted a broken copy of $(basename "$first"): it cannot be trusted"
      bad=1
    fi
    rm -f "$broken"
  fi
  n=$(ls "$here"/*.patch 2>/dev/null | wc -l)
  [ $bad = 0 ] && echo "run.sh: $n patches apply (and a broken one is refused); ${#ids[@]} exercises in the table"
  exit $bad
fi

# The selection, in the table's order.
selected=()
for i in "${!ids[@]}"; do
  if [ -z "$only" ]; then
    selected+=("$i")
    continue
  fi
  IFS=',' read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    if [ "$w" = "${ids[$i]}" ] || [ "$w" = "${ids[$i]%%-*}" ]; then
      selected+=("$i")
      break
    fi
  done
done
if [ ${#selected[@]} = 0 ]; then
  echo "run.sh: --only '$only' names no exercise of the table (--list shows them)" >&2
  exit 2
fi

# GPUs on this machine: exercises that need more are left out, and said so in the log.
have_gpus=0
if [ $build_only = 0 ] && command -v nvidia-smi >/dev/null 2>&1; then
  have_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
runnable() { [ $build_only = 1 ] || [ "$have_gpus" -ge "${gpus[$1]}" ]; }

[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/wb-exercises.XXXXXX")
mkdir -p "$work/logs"
work=$(cd "$work" && pwd)
case $log in /*) ;; *) log="$PWD/$log" ;; esac
echo "run.sh: work folder $work; log $log"

# The workbook's files as the tree holds them, without its builds, programs and git data
# (scripts/wb.py files: what .gitignore leaves, in a checkout or a source archive alike).
copy_repo() {
  mkdir -p "$1"
  python3 "$root/scripts/wb.py" files -0 >"$work/files" || { echo "run.sh: cannot list the workbook's files" >&2; exit 1; }
  (cd "$root" && tar --null -T "$work/files" -cf -) | tar -C "$1" -xf -
}

# The chapter a patch changes: chapters/NN-slug/... -> NN.
patched_chapter() { sed -n 's|^+++ b/chapters/\([0-9][0-9]\)-.*|\1|p' "$1" | head -1; }

# configure_and_build DIR LOG JOBS NN...: CMake in DIR/build, the targets chapterNN; the
# programs are copied to DIR.
configure_and_build() {
  local dir=$1 out=$2 j=$3
  shift 3
  local targets=() nn
  for nn in "$@"; do targets+=("chapter$nn"); done
  {
    cmake -S "$dir" -B "$dir/build" -DCMAKE_CUDA_ARCHITECTURES="$arch" &&
      cmake --build "$dir/build" --target "${targets[@]}" -j "$j"
  } >"$out" 2>&1
  local rc=$?
  for nn in "$@"; do
    [ -f "$dir/build/chapter$nn" ] && cp -f "$dir/build/chapter$nn" "$dir/chapter$nn"
  done
  return $rc
}

start=$(date +%s)
copy_repo "$work/src"

# What the unchanged tree must build: every chapter a selected command runs.
base_chapters=()
for i in "${selected[@]}"; do
  runnable "$i" || continue
  for nn in ${chapters[$i]}; do
    case " ${base_chapters[*]} " in *" $nn "*) ;; *) base_chapters+=("$nn") ;; esac
  done
done

# Every build runs in the background; a patched tree builds only the chapter its patch changes.
pids=() what=()
if [ ${#base_chapters[@]} -gt 0 ]; then
  cp -a "$work/src" "$work/base"
  configure_and_build "$work/base" "$work/logs/base.build.log" "$jobs" "${base_chapters[@]}" &
  pids+=($!) what+=("base")
fi
for i in "${selected[@]}"; do
  id=${ids[$i]}
  p="$here/$id.patch"
  [ -f "$p" ] && runnable "$i" || continue
  while [ "$(jobs -rp | wc -l)" -gt "$jobs" ]; do wait -n; done
  cp -a "$work/src" "$work/$id"
  if ! apply_patch "$work/$id" "$p" >"$work/logs/$id.build.log" 2>&1; then
    echo "run.sh: $id.patch does not apply" >>"$work/logs/$id.build.log"
    what+=("$id") pids+=("")
    continue
  fi
  configure_and_build "$work/$id" "$work/logs/$id.build.log" 2 "$(patched_chapter "$p")" &
  pids+=($!) what+=("$id")
done
failed=()
for k in "${!what[@]}"; do
  if [ -z "${pids[$k]}" ] || ! wait "${pids[$k]}"; then failed+=("${what[$k]}"); fi
done
built=$(($(date +%s) - start))
echo "run.sh: builds done in ${built} s; failed: ${failed[*]:-none}"
for f in "${failed[@]}"; do
  echo "---- $f: the end of $work/logs/$f.build.log" >&2
  tail -25 "$work/logs/$f.build.log" >&2
done
if [ $build_only = 1 ]; then
  [ $keep = 1 ] || rm -rf "$work"
  [ ${#failed[@]} = 0 ]
  exit $?
fi

# The log: the machine, then one section per exercise.
{
  echo "exercises.log: docs/solutions/exercises/run.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -1 | sed 's/^/nvcc: /'
  echo "builds: ${built} s, failed: ${failed[*]:-none}"
} >"$log"

# run_one INDEX: the command in its tree, its output (long outputs shortened) into the log.
run_one() {
  local i=$1 id=${ids[$1]} tree="$work/base" nn
  if [ -f "$here/$id.patch" ]; then
    tree="$work/$id"
    # The unchanged programs beside the exercise's: ./chapterNN.orig, and the other chapters.
    for nn in ${chapters[$i]}; do
      [ -f "$work/base/chapter$nn" ] && cp -f "$work/base/chapter$nn" "$tree/chapter$nn.orig"
      [ -f "$tree/chapter$nn" ] || { [ -f "$work/base/chapter$nn" ] && cp -f "$work/base/chapter$nn" "$tree/chapter$nn"; }
    done
  fi
  echo "== $id"
  echo "\$ ${commands[$i]}"
  case " ${failed[*]} " in
    *" $id "* | *" base "*)
      echo "-- not run: its build failed (see the builds line above)"
      return
      ;;
  esac
  local t0 rc
  t0=$(date +%s)
  (cd "$tree" && timeout --kill-after=10 "$limit" bash -c "${commands[$i]}") >"$work/logs/$id.out" 2>&1
  rc=$?
  local lines
  lines=$(wc -l <"$work/logs/$id.out")
  if [ "$lines" -gt 300 ]; then
    head -150 "$work/logs/$id.out"
    echo "... ($((lines - 250)) lines left out)"
    tail -100 "$work/logs/$id.out"
  else
    cat "$work/logs/$id.out"
  fi
  [ $rc = 124 ] || [ $rc = 137 ] && echo "-- stopped after $limit s"
  echo "-- exit status $rc, $(($(date +%s) - t0)) s"
  echo
}

# Processes started as root: mpirun refuses root unless told.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for i in "${selected[@]}"; do
  if ! runnable "$i"; then
    printf '== %s\n-- not run: needs %s GPUs, this machine has %s\n\n' "${ids[$i]}" "${gpus[$i]}" "$have_gpus" >>"$log"
    continue
  fi
  if [ "$deadline" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$deadline" ]; then
    printf '== %s\n-- not run: the deadline of %s s had passed\n\n' "${ids[$i]}" "$deadline" >>"$log"
    continue
  fi
  echo "run.sh: ${ids[$i]}"
  run_one "$i" >>"$log"
done
echo "run.sh: done in $(($(date +%s) - start)) s; log $log"
[ $keep = 1 ] || rm -rf "$work"
[ ${#failed[@]} = 0 ]
