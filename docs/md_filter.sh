#!/bin/sh
# md_filter.sh PAGE -- Doxygen's input filter for the Markdown pages (FILTER_PATTERNS in
# docs/Doxyfile). The pages are written for GitHub: plain Markdown whose links are paths relative
# to the page. This prints PAGE as Doxygen needs it, changing only
#   - the title: a label is added, {#chapterNN} for chapters/NN-slug/README.md and {#NAME} for
#     docs/pages/NAME.md or docs/results/NAME.md ('-' becomes '_'), so that pages link by name;
#   - links, outside fenced code: to a page (.md) -> [text](@ref label) (README.md is the main page,
#     `index`); to a program or header under chapters/ or common/ -> its source page in the site;
#     to an image under docs/results/ -> its file name (IMAGE_PATH); to any other file in the
#     repository -> repo/PATH, a copy that docs/build.sh places beside the site's pages.
# Links to addresses (http:, https:, mailto:) and to anchors in the same page stay as they are.
# With WB_DOCS_SOLUTIONS=0 (a student build, docs/build.sh) a link to the solutions page becomes
# its plain text, since that page is left out of the site.
page=${1#"$(pwd)/"}
page=${page#./}
exec awk -v page="$page" -v no_solutions="${WB_DOCS_SOLUTIONS:-1}" '
  function label(path,   name) {
    if (path == "README.md") return "index"
    if (path ~ /^chapters\/[0-9][0-9]-[^\/]*\/README\.md$/) return "chapter" substr(path, 10, 2)
    if (path ~ /^docs\/(pages|results)\/[^\/]*\.md$/) {
      name = path; sub(/^.*\//, "", name); sub(/\.md$/, "", name); gsub(/[^A-Za-z0-9_]/, "_", name)
      return name
    }
    return ""
  }
  # The repository path of TARGET, relative to the page`s directory ("" if it leaves the repository).
  function resolve(target,   dir, n, parts, out, m, i) {
    dir = page; if (dir ~ /\//) sub(/\/[^\/]*$/, "", dir); else dir = ""
    n = split((dir == "" ? "" : dir "/") target, parts, "/")
    m = 0
    for (i = 1; i <= n; i++) {
      if (parts[i] == "" || parts[i] == ".") continue
      if (parts[i] == "..") { if (m == 0) return ""; m--; continue }
      out[++m] = parts[i]
    }
    path = ""
    for (i = 1; i <= m; i++) path = path (i > 1 ? "/" : "") out[i]
    return path
  }
  # Doxygen`s name for the source page of a file: _ -> __, . -> _8, then _source.html.
  function source_page(path,   name) {
    name = path; sub(/^.*\//, "", name); gsub(/_/, "__", name); gsub(/\./, "_8", name)
    return name "_source.html"
  }
  function rewrite(target, is_image,   anchor, path, l) {
    if (target ~ /^(https?:|mailto:|#|@ref )/) return target
    anchor = ""
    if (match(target, /#.*/)) { anchor = substr(target, RSTART); target = substr(target, 1, RSTART - 1) }
    path = resolve(target)
    if (path == "") return target anchor
    if (is_image) { sub(/^.*\//, "", path); return path }
    if (path ~ /\/$/ || path !~ /\./ && system("test -d \"" path "\"") == 0) { sub(/\/$/, "", path); path = path "/README.md" }
    l = label(path)
    if (l != "") return "@ref " l
    if (path ~ /^(chapters|common)\/.*\.(cu|cuh|h)$/) return source_page(path) anchor
    return "repo/" path anchor
  }
  NR == 1 && /^# / && !/\{#[A-Za-z0-9_]+\}[ \t]*$/ { l = label(page); if (l != "" && l != "index") $0 = $0 " {#" l "}" }
  /^[ \t]*(```|~~~)/ { fenced = !fenced; print; next }
  fenced { print; next }
  {
    line = $0; out = ""
    # [text](target) and ![alt](target); the text itself may hold code spans but not "](".
    while (match(line, /!?\[[^\]]*\]\([^) \t]+\)/)) {
      link = substr(line, RSTART, RLENGTH); before = substr(line, 1, RSTART - 1)
      line = substr(line, RSTART + RLENGTH)
      is_image = substr(link, 1, 1) == "!"
      split_at = index(link, "](")
      target = substr(link, split_at + 2, length(link) - split_at - 2)
      if (no_solutions == "0" && !is_image && resolve(target) ~ /^docs\/pages\/solutions\.md(#.*)?$/) {
        out = out before substr(link, 2, split_at - 2)
        continue
      }
      out = out before substr(link, 1, split_at + 1) rewrite(target, is_image) ")"
    }
    print out line
  }
' "$page"
