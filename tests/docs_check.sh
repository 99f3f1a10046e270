#!/bin/sh
# docs_check.sh [OUTDIR] -- the site's structure, checked without trusting Doxygen alone:
#   - every chapters/NN-slug/ has a README.md page labelled {#chapterNN};
#   - every page links to its neighbours (\ref chapterMM for the previous and the next);
#   - every \snippet FILE NAME names a file under chapters/ or common/ holding the region
#     `// [NAME]` (opened and closed);
#   - every line of a diff excerpt pasted into a page is still in the code it quotes
#     (lines with "..." are schematic and skipped; a trailing // comment is not compared);
#   - then the site builds with zero warnings (docs/build.sh) and has an HTML page per chapter.
# Exit 0 when all hold, 1 otherwise, 77 when doxygen is missing (after the static checks pass).
cd "$(dirname "$0")/.." || exit 1
out=${1:-build/docs-check}
fail=0
say() { echo "docs_check: $*"; }
bad() { say "FAIL: $*"; fail=1; }

ids=$(ls -d chapters/[0-9][0-9]-*/ | sed 's|chapters/\([0-9][0-9]\).*|\1|')
first=$(echo "$ids" | head -1)
last=$(echo "$ids" | tail -1)
prev=""
for id in $ids; do
  page=$(ls chapters/$id-*/README.md 2>/dev/null)
  if [ -z "$page" ]; then bad "chapter $id has no README.md page"; prev=$id; continue; fi
  grep -q "^# .*{#chapter$id}" "$page" || bad "$page: the title lacks the label {#chapter$id}"
  if [ -n "$prev" ] && ! grep -q "\\\\ref chapter$prev" "$page"; then bad "$page: no \\ref chapter$prev (previous)"; fi
  if [ "$id" != "$last" ]; then
    next=$(echo "$ids" | awk -v id="$id" 'found { print; exit } $0 == id { found = 1 }')
    grep -q "\\\\ref chapter$next" "$page" || bad "$page: no \\ref chapter$next (next)"
  fi
  prev=$id
done
[ -n "$first" ] || bad "no chapters found"

snippets=0
for page in README.md chapters/*/README.md docs/pages/*.md; do
  grep -o '\\snippet [^ ]* [A-Za-z0-9_]*' "$page" 2>/dev/null | while read -r _ file name; do
    src=$(find chapters common -name "$file" | head -1)
    if [ -z "$src" ]; then echo "docs_check: FAIL: $page: \\snippet $file $name: no such file"; continue; fi
    marks=$(grep -c "// \[$name\]" "$src")
    [ "$marks" -ge 2 ] || echo "docs_check: FAIL: $page: \\snippet $file $name: the region // [$name] is not opened and closed in $src"
  done
done >"${TMPDIR:-/tmp}/wb-docs-check.$$"
if [ -s "${TMPDIR:-/tmp}/wb-docs-check.$$" ]; then cat "${TMPDIR:-/tmp}/wb-docs-check.$$"; fail=1; fi
snippets=$(cat README.md chapters/*/README.md docs/pages/*.md | grep -c '\\snippet ')

# Excerpts of a diff pasted into a page (lines starting + or - inside a fenced block) must
# still be true: a + line is in this chapter's program, a - line in the previous chapter's.
prev_cu=""
for dir in chapters/[0-9][0-9]-*/; do
  cu=$(ls "$dir"*.cu)
  page=${dir}README.md
  if [ -f "$page" ] && [ -n "$prev_cu" ]; then
    awk '/^```/ { inb = !inb; next } inb && /^[-+]/ && !/^(\+\+\+|---)/ { print }' "$page" | while IFS= read -r line; do
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
rm -f "${TMPDIR:-/tmp}/wb-docs-check.$$"
say "$(echo "$ids" | wc -l) chapter pages, $snippets snippet(s) checked"
[ $fail = 0 ] || exit 1

sh docs/build.sh "$out"
rc=$?
[ $rc = 0 ] || exit $rc
for id in $ids; do
  [ -f "$out/html/chapter$id.html" ] || bad "the site has no page chapter$id.html"
done
[ $fail = 0 ] && say "every chapter has a page in the site"
exit $fail
