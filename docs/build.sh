#!/bin/sh
# Build the Doxygen site: sh docs/build.sh [OUTDIR]   (default: build/docs, or $WB_DOCS_OUT)
# Fails on any Doxygen warning; exits 77 (skipped) when doxygen is not installed.
set -e
cd "$(dirname "$0")/.."
out=${1:-${WB_DOCS_OUT:-build/docs}}
if ! command -v doxygen >/dev/null 2>&1; then
  echo "doxygen is not installed (apt-get install doxygen graphviz); skipping the docs" >&2
  exit 77
fi
mkdir -p "$out"
rm -f "$out/warnings.log"
# The Doxyfile is fixed; only where the output goes is added here.
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $out/warnings.log"; } | doxygen - >"$out/doxygen.log" 2>&1 || {
  cat "$out/doxygen.log" "$out/warnings.log" 2>/dev/null | tail -40 >&2
  echo "docs: doxygen failed" >&2
  exit 1
}
if [ -s "$out/warnings.log" ]; then
  cat "$out/warnings.log" >&2
  echo "docs: $(wc -l <"$out/warnings.log") warning line(s)" >&2
  exit 1
fi
echo "docs: zero warnings; open $out/html/index.html"
