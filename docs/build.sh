#!/bin/sh
# Build the Doxygen site: sh docs/build.sh [OUTDIR]   (default: build/docs, or $WB_DOCS_OUT)
# The student's site by default, without the solutions page; WB_DOCS_SOLUTIONS=1 (make docs
# SOLUTIONS=1) builds the instructor's, with it.
# Fails on any Doxygen warning; exits 77 (skipped) when doxygen is not installed.
set -e
cd "$(dirname "$0")/.."
out=${1:-${WB_DOCS_OUT:-build/docs}}
if ! command -v doxygen >/dev/null 2>&1; then
  echo "doxygen is not installed (apt-get install doxygen graphviz); skipping the docs" >&2
  exit 77
fi
mkdir -p "$out"
rm -rf "$out/warnings.log" "$out/html"
exclude=""
WB_DOCS_SOLUTIONS=${WB_DOCS_SOLUTIONS:-0}
[ "$WB_DOCS_SOLUTIONS" = 1 ] || exclude="EXCLUDE = docs/pages/solutions.md"
export WB_DOCS_SOLUTIONS  # read by docs/md_filter.sh
# The Doxyfile is fixed; only where the output goes (and what is left out) is added here.
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $out/warnings.log"; echo "$exclude"; } |
  doxygen - >"$out/doxygen.log" 2>&1 || {
  cat "$out/doxygen.log" "$out/warnings.log" 2>/dev/null | tail -40 >&2
  echo "docs: doxygen failed" >&2
  exit 1
}
if [ -s "$out/warnings.log" ]; then
  cat "$out/warnings.log" >&2
  echo "docs: $(wc -l <"$out/warnings.log") warning line(s)" >&2
  exit 1
fi
# Pages link to repository files that are not pages (the CSVs, LICENSE, scripts) as repo/PATH
# (docs/md_filter.sh): copy each one the site links to beside its pages.
grep -oh 'href="repo/[^"#]*' "$out"/html/*.html 2>/dev/null | sed 's|^href="repo/||' | sort -u |
  while IFS= read -r path; do
    if [ -f "$path" ]; then
      mkdir -p "$out/html/repo/$(dirname "$path")"
      cp "$path" "$out/html/repo/$path"
    fi
  done
echo "docs: zero warnings; open $out/html/index.html"
