#!/bin/sh
# pages.sh [--check] -- write the generated parts of the pages, so that every page reads fully on
# GitHub (plain Markdown) and in the Doxygen site from one source:
#   <!-- nav:begin --> ... <!-- nav:end -->          in a chapter page, at its top and its bottom:
#       links to the previous and next chapters, the chapter's program and the list of chapters;
#   <!-- code:begin FILE REGION --> ... <!-- code:end -->   in any page: the lines of FILE (a .cu,
#       .cuh or .h under chapters/ or common/) between its two `// [REGION]` markers, as fenced code;
#   <!-- diff:begin --> ... <!-- diff:end -->        in a chapter page: what changed in the code
#       since the previous chapter (see diff_code below); `<!-- diff:begin new-program -->` marks a
#       chapter whose program is not built from the previous one (a note replaces the diff).
# Text outside the markers is never touched. --check: change nothing; exit 1 and name every page
# whose generated parts are out of date (a ctest test runs this).
cd "$(dirname "$0")/.." || exit 1
check=0
[ "${1:-}" = "--check" ] && check=1
tmp=${TMPDIR:-/tmp}/wb-pages.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# The program of a chapter directory.
program() { ls "$1"*.cu 2>/dev/null | head -1; }

# A page's title without the leading "# ".
title() { sed -n '1s/^# *//p' "$1"; }

# The code of a program, without what a reader skips when comparing two chapters: comment lines,
# trailing // comments (on lines without a string literal), and runs of blank lines.
strip_comments() {
  awk '
    /^[ \t]*\/\// { next }
    {
      line = $0
      if (index(line, "\"") == 0) sub(/[ \t]+\/\/.*$/, "", line)
      sub(/[ \t]+$/, "", line)
      if (line == "") { if (blank || !started) next; blank = 1 } else { blank = 0; started = 1 }
      print line
    }' "$1"
}

# The names of a program's __global__ functions, one per line (a template or __launch_bounds__
# may put __global__ and the name on two lines).
kernels() { tr '\n' ' ' <"$1" | sed 's/__launch_bounds__([^)]*)//g' | grep -o '__global__[^(;{]*(' | sed 's/($//; s/.* //' | sort -u; }

# diff_code PREV CUR: the unified diff of the two programs' code (comments left out). Where exactly
# one kernel disappears and one appears, the old kernel's name (without the part they share, e.g.
# reduce_) is renamed to the new one in the old program first, so that a renamed kernel and its
# launcher do not ripple through the diff; a note says so.
diff_code() {
  prev=$1 cur=$2
  strip_comments "$prev" >"$tmp/old"
  strip_comments "$cur" >"$tmp/new"
  kernels "$prev" >"$tmp/old_k"
  kernels "$cur" >"$tmp/new_k"
  gone=$(comm -23 "$tmp/old_k" "$tmp/new_k")
  came=$(comm -13 "$tmp/old_k" "$tmp/new_k")
  note=""
  if [ -n "$gone" ] && [ -n "$came" ] && [ "$(echo "$gone" | wc -l)" = 1 ] && [ "$(echo "$came" | wc -l)" = 1 ] &&
     [ "${gone%%_*}" = "${came%%_*}" ]; then
    # The first word (reduce, scan) is shared; the rest is the stem, renamed wherever it ends an
    # identifier (the kernel, launch_<stem>), never inside a string such as the slug.
    old_stem=${gone#*_} new_stem=${came#*_}
    sed "s/_${old_stem}\([^A-Za-z0-9_]\)/_${new_stem}\1/g; s/_${old_stem}\$/_${new_stem}/" "$tmp/old" >"$tmp/old2"
    mv "$tmp/old2" "$tmp/old"
    note="The kernel \`$gone\` is now \`$came\`. To keep the rename from rippling through the diff, the old program is shown with the new name (\`$old_stem\` becomes \`$new_stem\`, in the launcher's name too)."
  fi
  echo "Comments are left out, so that only code shows; the full programs are [$(basename "$prev")](../$(basename "$(dirname "$prev")")/$(basename "$prev")) and [$(basename "$cur")]($(basename "$cur"))."
  [ -n "$note" ] && { echo; echo "$note"; }
  echo
  echo '```diff'
  echo "--- $prev"
  echo "+++ $cur"
  # Each hunk is headed by the function it is in: the last line of the new program before
  # the hunk, that starts a declaration with a parenthesis (as diff -F does, without its 40-character cut).
  diff -U3 "$tmp/old" "$tmp/new" | tail -n +3 | awk -v file="$tmp/new" '
    BEGIN { while ((getline l < file) > 0) src[++n] = l }
    /^@@ / {
      split($3, plus, ","); at = substr(plus[1], 2) + 0; ctx = ""
      for (i = at - 1; i >= 1 && ctx == ""; i--) if (i <= n && src[i] ~ /^[A-Za-z_].*\(/) ctx = src[i]
      sub(/[ \t]*\{$/, "", ctx)
      print (ctx == "" ? "@@" : "@@ " ctx); next
    }
    { print }'
  echo '```'
}

# The fenced code of REGION in FILE (found under chapters/ or common/), indentation kept relative.
code_region() {
  src=$(find chapters common -name "$1" -type f | head -1)
  if [ -z "$src" ]; then echo "pages: no file $1 under chapters/ or common/" >&2; return 1; fi
  awk -v name="$2" -v src="$src" '
    function marker(l) { return l ~ /^[ \t]*\/\/ \[[A-Za-z0-9_]+\][ \t]*$/ }
    $0 ~ "^[ \t]*// \\[" name "\\][ \t]*$" { marks++; if (marks == 2) exit; next }
    marks == 1 && !marker($0) { line[++n] = $0 }
    END {
      if (marks < 2) { print "pages: " src ": the region // [" name "] is not opened and closed" > "/dev/stderr"; exit 1 }
      indent = 1000
      for (i = 1; i <= n; i++) if (line[i] ~ /[^ \t]/) { match(line[i], /^ */); if (RLENGTH < indent) indent = RLENGTH }
      print "```cpp"
      for (i = 1; i <= n; i++) print substr(line[i], indent + 1)
      print "```"
    }' "$src"
}

# Write the generated parts of one page to stdout.
render_page() {
  page=$1 nav=$2 diff_file=$3
  awk -v nav="$nav" -v difffile="$diff_file" -v tmp="$tmp" '
    function emit_file(f,   l) { while ((getline l < f) > 0) print l; close(f) }
    /^<!-- nav:begin -->$/ { print; emit_file(nav); skip = "nav"; next }
    /^<!-- diff:begin( new-program)? -->$/ { print; emit_file(difffile); skip = "diff"; next }
    /^<!-- code:begin [^ ]+ [A-Za-z0-9_]+ -->$/ {
      print; n++
      emit_file(tmp "/code." n); skip = "code"; next
    }
    skip != "" && $0 == "<!-- " skip ":end -->" { skip = "" }
    skip == "" { print }
  ' "$page"
}

status=0
ids=$(ls -d chapters/[0-9][0-9]-*/ | sed 's|chapters/\([0-9][0-9]\).*|\1|')
pages="README.md $(ls chapters/[0-9][0-9]-*/README.md docs/pages/*.md 2>/dev/null)"
prev_dir=""
for page in $pages; do
  dir=$(dirname "$page")/
  # Code regions, in the order they appear.
  rm -f "$tmp"/code.*
  n=0
  for spec in $(sed -n 's/^<!-- code:begin \([^ ]*\) \([A-Za-z0-9_]*\) -->$/\1:\2/p' "$page"); do
    n=$((n + 1))
    code_region "${spec%%:*}" "${spec#*:}" >"$tmp/code.$n" || status=1
  done
  : >"$tmp/nav"
  : >"$tmp/diff"
  case $page in
    chapters/*)
      id=$(basename "$dir" | cut -c1-2)
      cu=$(program "$dir")
      prev=$(echo "$ids" | awk -v id="$id" '$0 == id { print p; exit } { p = $0 }')
      next=$(echo "$ids" | awk -v id="$id" 'found { print; exit } $0 == id { found = 1 }')
      {
        line=""
        if [ -n "$prev" ]; then
          pd=$(ls -d chapters/"$prev"-*/)
          line="Previous: [$(title "${pd}README.md")](../$(basename "$pd")/README.md)"
        fi
        if [ -n "$next" ]; then
          nd=$(ls -d chapters/"$next"-*/)
          line="${line:+$line · }Next: [$(title "${nd}README.md")](../$(basename "$nd")/README.md)"
        fi
        line="$line · Code: [$(basename "$cu")]($(basename "$cu")) · [All chapters](../../README.md)"
        echo "$line"
      } >"$tmp/nav"
      if grep -q '^<!-- diff:begin new-program -->$' "$page"; then
        pcu=$(program "$(ls -d chapters/"$prev"-*/ 2>/dev/null | head -1)")
        echo "This chapter starts a new program rather than changing [$(basename "$pcu")](../$(basename "$(dirname "$pcu")")/$(basename "$pcu")), so there is no diff to show: read [$(basename "$cu")]($(basename "$cu")) from the top." >"$tmp/diff"
      elif grep -q '^<!-- diff:begin -->$' "$page"; then
        [ -n "$prev_dir" ] || { echo "pages: $page: a diff block in the first chapter" >&2; status=1; }
        diff_code "$(program "$prev_dir")" "$cu" >"$tmp/diff"
      fi
      prev_dir=$dir
      ;;
  esac
  render_page "$page" "$tmp/nav" "$tmp/diff" >"$tmp/page"
  if ! cmp -s "$tmp/page" "$page"; then
    if [ $check = 1 ]; then
      echo "pages: $page is out of date (run sh scripts/pages.sh)"
      diff -u "$page" "$tmp/page" | head -20
      status=1
    else
      cp "$tmp/page" "$page"
      echo "pages: wrote $page"
    fi
  fi
done
[ $check = 1 ] && [ $status = 0 ] && echo "pages: every generated block is up to date ($(echo "$pages" | wc -w) pages)"
exit $status
