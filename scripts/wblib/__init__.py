"""The workbook's tooling: running the chapter programs, reading their CSV and Nsight Compute's,
and rendering every generated table, chart and page block. Python 3 standard library only.

Entry point: scripts/wb.py (summary, profile, sweep, scaling, info). The modules:
  common   the repository layout, chapter facts (--info), CSV reading, splicing page blocks
  svg      SVG written as text, byte for byte reproducible
  summary, profile, sweep, scaling   one command each
  pages     the pages' generated parts (navigation, code regions, diffs between chapters)
  mdfilter  Doxygen's filter for the Markdown pages (labels, links, coloured diffs)
  linediff  unified diffs exactly as GNU diff writes them, for the pages' diffs
  figures   one figure per kernel pattern (docs/figures), drawn as SVG text
  files     the workbook's files as the tree holds them (what a copy of it takes; no git)
  numbers   the headline numbers tagged in the pages' prose, written and checked from the CSVs
"""
