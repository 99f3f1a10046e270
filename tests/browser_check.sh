#!/bin/sh
# browser_check.sh HTML_DIR -- open the site in a real browser (headless Chromium) and check what a
# reader sees: the main page shows every section ("How to cite" among them) and no raw @section, and
# a chapter page shows its figure (captioned with the SVG's short title, not its 60-100-word alt
# text), its code, its results, its neighbours, and the
# evidence folded: the diff from the previous chapter, its lines marked for colour, in a closed
# <details> block. Asserts on the DOM after the page's scripts ran. Exit 0 pass,
# 1 fail, 77 when no Chromium is installed (apt-get install chromium).
html=${1:-build/docs-check/html}
browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -z "$browser" ]; then
  echo "browser_check: no Chromium found (apt-get install chromium); skipped"
  exit 77
fi
[ -f "$html/index.html" ] || { echo "browser_check: FAIL: no site at $html (build it with make docs)"; exit 1; }
dir=$(cd "$html" && pwd)
fail=0
# dump PAGE: the page's DOM after loading, as text without tags.
dump() {
  # --no-sandbox: CI and the lab machines run as root, where Chromium's sandbox refuses to start.
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
    --dump-dom "file://$dir/$1" 2>/dev/null
}
expect() {  # expect PAGE DESCRIPTION PATTERN (grep -E on the DOM; must be there)
  if printf '%s' "$dom" | grep -qE -- "$3"; then echo "browser_check: $1: $2"; else echo "browser_check: FAIL: $1: $2 is missing"; fail=1; fi
}
refuse() {  # refuse PAGE DESCRIPTION PATTERN (must not be there)
  if printf '%s' "$dom" | grep -qE -- "$3"; then echo "browser_check: FAIL: $1: $2"; fail=1; else echo "browser_check: $1: no $2"; fi
}
dom=$(dump index.html)
[ -n "$dom" ] || { echo "browser_check: FAIL: $browser rendered nothing for index.html"; exit 1; }
expect index.html '"How to cite"' '>[[:space:]]*How to cite[[:space:]]*<'
expect index.html '"Credits and license"' 'Credits and license'
expect index.html 'the chapter table' 'href="chapter17.html'
expect index.html 'the link to the contributing page' 'href="contributing.html'
refuse index.html '@section' '@section'
refuse index.html 'escaped tags' '&lt;(tt|blockquote|em)&gt;'
dom=$(dump chapter05.html)
expect chapter05.html 'a code excerpt' 'class="fragment"'
expect chapter05.html 'the diff from chapter 04' '__syncthreads'
expect chapter05.html 'its added lines marked for colour' 'class="line diff-add"'
expect chapter05.html 'its removed lines marked for colour' 'class="line diff-del"'
expect chapter05.html 'the results table' 'median ms'
expect chapter05.html 'links to chapters 04 and 06' 'href="chapter04.html.*href="chapter06.html'
expect chapter05.html 'its figure' '<object type="image/svg\+xml" data="chapter05-[a-z0-9-]*\.svg"'
expect chapter05.html "its figure's caption, the SVG's title" '^Chapter 05: sequential halving, the upper half onto the lower</div>'
refuse chapter05.html "caption that repeats the figure's alt text" '^Sixteen values summed by folding'
expect chapter05.html 'the evidence in folded blocks' '<details> ?<summary>'
expect chapter05.html 'the diff inside a fold' '<details> ?<summary>The whole change from chapter 04</summary>'
refuse chapter05.html 'a fold left open' '<details open'
refuse chapter05.html 'raw Doxygen commands' '\\(snippet|include|ref) '
[ $fail = 0 ] && echo "browser_check: $browser shows the main page and a chapter page as written"
exit $fail
