#!/bin/sh
# docs_check.sh [OUTDIR] -- the pages and the site, checked as a reader meets them:
#   - every chapters/NN-slug/ has a README.md page;
#   - no page holds a Doxygen command (\ref, \snippet, \include, @ref, {#label}): on GitHub it would
#     show as raw text (the site's labels and links come from docs/md_filter.sh);
#   - no page, header or script points at a file outside the repository;
#   - every line of a diff excerpt pasted into a page is still in the code it quotes
#     (lines with "..." are schematic and skipped; a trailing // comment is not compared);
#   - README.md, the front page on GitHub and in the site, is at most 10,240 bytes (reported with
#     the other static checks, but failed only at the end, so that the site is still checked);
#   - the instructor's site (WB_DOCS_SOLUTIONS=1, make docs SOLUTIONS=1) builds with zero warnings
#     (docs/build.sh), and tests/html_check.py finds every link, anchor, code excerpt, results block
#     and navigation link in place and no raw markup;
#   - so does the student's site (make docs), which moreover has no solutions page, no exercise
#     outcome ("Expected: ...") and no sentence of docs/pages/solutions.md (html_check.py --student).
# Exit 0 when all hold, 1 otherwise, 77 when doxygen or python3 is missing (after the static checks).
cd "$(dirname "$0")/.." || exit 1
out=${1:-build/docs-check}
fail=0
say() { echo "docs_check: $*"; }
bad() { say "FAIL: $*"; fail=1; }

pages="README.md $(ls chapters/[0-9][0-9]-*/README.md docs/pages/*.md docs/results/*.md 2>/dev/null)"
for dir in chapters/[0-9][0-9]-*/; do
  [ -f "${dir}README.md" ] || bad "$dir has no README.md page"
done

# Doxygen commands outside fenced code.
for page in $pages; do
  awk -v page="$page" '
    /^[ \t]*```/ { fenced = !fenced; next }
    !fenced && /(\\(ref|snippet|include|image|section|page)[ \t]|@ref[ \t]|\{#[A-Za-z0-9_]+\})/ {
      printf "docs_check: FAIL: %s:%d: a Doxygen command shows as raw text on GitHub: %s\n", page, NR, $0
    }' "$page"
done >"${TMPDIR:-/tmp}/wb-docs-raw.$$"
if [ -s "${TMPDIR:-/tmp}/wb-docs-raw.$$" ]; then cat "${TMPDIR:-/tmp}/wb-docs-raw.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/wb-docs-raw.$$"

# Files the reader does not have.
outside=$(grep -n -E 'CONTRACT\.md|SYLLABUS\.md|STYLE\.md|TOOLCHAIN\.md|\.\./shared|seeds/' $pages common/* scripts/* 2>/dev/null)
[ -z "$outside" ] || bad "pages or code name files outside the repository:
$outside"
# Names the reader never learns: the source write-ups go by author and title.
private=$(grep -n -i -E 'seed 00[0-9]|seed00[0-9]' $pages common/* scripts/* chapters/*/*.cu 2>/dev/null)
[ -z "$private" ] || bad "pages or code name a source by a private number instead of author and title:
$private"

# Excerpts of a diff pasted into a page (lines starting + or - inside a fenced block other than the
# generated diff) must still be true: a + line is in this chapter's program, a - line in the
# previous chapter's.
prev_cu=""
for dir in chapters/[0-9][0-9]-*/; do
  cu=$(ls "$dir"*.cu)
  page=${dir}README.md
  if [ -f "$page" ] && [ -n "$prev_cu" ]; then
    awk '/^<!-- diff:begin/ { gen = 1 } /^<!-- diff:end -->/ { gen = 0 }
         gen { next }
         /^```/ { inb = !inb; next } inb && /^[-+]/ && !/^(\+\+\+|---)/ { print }' "$page" |
    while IFS= read -r line; do
      sign=$(printf '%s' "$line" | cut -c1)
      # Schematic lines (with "...") are prose; a trailing // comment may be the page's own.
      case $line in *...*) continue ;; esac
      text=$(printf '%s' "$line" | cut -c2- | sed 's|  *//.*$||; s/^ *//; s/ *$//')
      [ -n "$text" ] || continue
      if [ "$sign" = "+" ]; then src=$cu; else src=$prev_cu; fi
      grep -qF -- "$text" "$src" || echo "docs_check: FAIL: $page: pasted line '$line' is not in $src"
    done
  fi
  prev_cu=$cu
done >"${TMPDIR:-/tmp}/wb-docs-drift.$$"
if [ -s "${TMPDIR:-/tmp}/wb-docs-drift.$$" ]; then cat "${TMPDIR:-/tmp}/wb-docs-drift.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/wb-docs-drift.$$"
say "$(echo "$pages" | wc -w) pages checked as Markdown"

# The README says what the workbook is and where things are; what a maintainer needs lives in
# docs/pages/contributing.md. Its size includes the generated results block, named when too big.
readme_limit=10240
readme_bytes=$(wc -c <README.md)
readme_fail=0
if [ "$readme_bytes" -gt "$readme_limit" ]; then
  block_bytes=$(sed -n '/^<!-- summary:begin -->$/,/^<!-- summary:end -->$/p' README.md | wc -c)
  say "FAIL: README.md is $readme_bytes bytes, over $readme_limit ($block_bytes of them in its generated summary block, the rest written by hand)"
  readme_fail=1
else
  say "README.md is $readme_bytes bytes (at most $readme_limit)"
fi
[ $fail = 0 ] || exit 1
# Without Doxygen or python3 the site checks below are skipped (77): an oversized README fails here.
{ command -v doxygen && command -v python3; } >/dev/null 2>&1 || [ $readme_fail = 0 ] || exit 1

WB_DOCS_SOLUTIONS=1 sh docs/build.sh "$out"
rc=$?
[ $rc = 0 ] || exit $rc
if ! command -v python3 >/dev/null 2>&1; then
  say "python3 is not installed: the HTML check is skipped"
  exit 77
fi
python3 tests/html_check.py "$out/html" || exit 1
# Negative controls: the same site with one chapter's diff in one colour, by its lines' marks
# removed or by a stylesheet without the colours, must fail the HTML check.
neg=$out-one-colour
page=$(grep -l 'class="fragment diff"' "$out"/html/chapter*.html | head -1)
for how in marks colours; do
  rm -rf "$neg" && cp -R "$out/html" "$neg" || exit 1
  if [ $how = marks ]; then
    sed 's/ class="line diff-[a-z]*"/ class="line"/g' "$page" >"$neg/$(basename "$page")" || exit 1
  else
    : >"$neg/diff.css"
  fi
  if python3 tests/html_check.py "$neg" | grep -q "^html_check: FAIL: $(basename "$page"): the diff .* is one colour"; then
    say "negative control: $(basename "$page") with its diff's $how removed fails the HTML check"
  else
    say "FAIL: the HTML check passes $(basename "$page") with its diff's $how removed"; rm -rf "$neg"; exit 1
  fi
done
rm -rf "$neg"
# The student build (make docs) leaves the answer key out: nothing may link to it or quote it.
WB_DOCS_SOLUTIONS=0 sh docs/build.sh "$out-student" >/dev/null || exit 1
[ ! -f "$out-student/html/solutions.html" ] || { say "FAIL: the student build has the solutions page"; exit 1; }
student=$(python3 tests/html_check.py "$out-student/html" --student docs/pages/solutions.md)
rc=$?
printf '%s\n' "$student" | sed 's/^/student build: /'
[ $readme_fail = 0 ] || rc=1
exit $rc
