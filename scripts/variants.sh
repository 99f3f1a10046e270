#!/bin/sh
# variants.sh CHAPTER -- print the runs that cover every kernel of a chapter program, one per line:
# "all" where its --help offers `--variant all`, else each of its variants, else "-" (the chapter
# has no --variant). A "sweep" variant is a benchmark across sizes, not a kernel: never listed.
# The one rule for which variants a chapter runs: tests/gpu.sh, sanitize.sh, summary.sh and
# profile.sh all ask this script.
variants=$("${1:?usage: variants.sh CHAPTER}" --help 2>/dev/null |
  sed -n 's/^ *--variant V *one of: *\(.*\) (default.*/\1/p' | sed 's/\(^\| \)sweep\( \|$\)/ /g')
case " $variants " in
  *" all "*) echo all ;;
  *[a-z]*) printf '%s\n' $variants ;;
  *) echo - ;;
esac
