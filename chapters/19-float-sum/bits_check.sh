#!/bin/sh
# bits_check.sh MODE FIXTURE_LINE CHAPTER: run CHAPTER --emulate (MODE emulate, the CPU) or
# --gpu-bits (MODE gpu) on the input the fixture line names (n, seed, input, spread), and pass
# when its first line is the fixture line itself. MODE tree: pass when the tree's bits at the
# program's grid equal those at the other grid (the negative control: expected to fail).
# Exit 77 when the chapter finds no GPU.
mode=$1 line=$2 bin=$3
field() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
args="--n $(field n) --seed $(field seed) --input $(field input) --spread $(field spread)"
case $mode in
  emulate) flag=--emulate ;;
  gpu | tree) flag=--gpu-bits ;;
  *) echo "bits_check.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
out=$("$bin" $flag $args 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "bits_check.sh: exit $rc" >&2; exit 1; }
if [ "$mode" = tree ]; then
  tree=$(printf '%s\n' "$out" | sed -n 's/^tree=\([^ ]*\) .*/\1/p')
  other=$(printf '%s\n' "$out" | sed -n 's/.* tree_other_grid=\([^ ]*\)$/\1/p')
  echo "tree $tree, other grid $other"
  [ -n "$tree" ] && [ "$tree" = "$other" ] && exit 0
  exit 1
fi
first=$(printf '%s\n' "$out" | head -n 1)
if [ "$first" != "$line" ]; then
  echo "bits_check.sh: expected '$line'" >&2
  exit 1
fi
echo "bits_check.sh: the bits are the committed ones"
