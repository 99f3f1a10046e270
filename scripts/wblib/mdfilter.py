"""mdfilter: Doxygen's input filter for the Markdown pages (docs/md_filter.sh calls it; the
Doxyfile's FILTER_PATTERNS names that script).

  python3 scripts/wb.py mdfilter PAGE

The pages are written for GitHub: plain Markdown whose links are paths relative to the page.
This prints PAGE as Doxygen needs it, changing only
  - the title: a label is added, {#chapterNN} for chapters/NN-slug/README.md and {#NAME} for
    docs/pages/NAME.md or docs/results/NAME.md ('-' becomes '_'), so that pages link by name;
  - the "## " headings of the pages in ANCHORED (the glossary): a label, the anchor GitHub gives
    the heading ({#look-back}), so that the site has the same anchors;
  - links, outside fenced code: to a page (.md) -> [text](@ref label) (README.md is the main
    page, `index`), to an anchor of a page in ANCHORED -> [text](@ref anchor); to a program or
    header under chapters/ or common/ -> its source page in the site; to an image under
    docs/results/ or docs/figures/ -> its file name (IMAGE_PATH), with the SVG's <title> as its
    text, which the site shows as the caption under it (svg_title); to any other file in the
    repository -> repo/PATH, a copy that docs/build.sh places beside the site's pages.
Links to addresses (http:, https:, mailto:) and to anchors in the same page stay as they are.
  - a folded block's <details>, <summary>...</summary> and </details> lines: Doxygen 1.9 closes a
    <details> right after its summary, so each becomes raw HTML (\\htmlonly[block]) and the
    Markdown between them is rendered as usual, inside the fold (fold_html);
  - a ```diff block (the diff from the previous chapter): Doxygen shows fenced code in one colour,
    so the block becomes the HTML of a code fragment whose lines are marked added, removed, hunk
    header or file header, which docs/diff.css colours as GitHub does (diff_html).
  - a headline number's tag (<!-- num CSV KERNEL N QUANTITY -->, scripts/wblib/numbers.py) is
    taken out, outside code, so that the site shows the number alone, as GitHub does;
Unless WB_DOCS_SOLUTIONS=1 (the instructor's build, make docs SOLUTIONS=1; docs/build.sh), a link
to the solutions page becomes its plain text, since the student's site leaves that page out. PAGE is read relative to the current
directory, the repository's root when Doxygen runs it."""

import html
import os
import re
import sys

from . import numbers

SCRIPT = "mdfilter"
USAGE = "usage: python3 scripts/wb.py mdfilter PAGE"

LINK = re.compile(r"!?\[[^\]]*\]\([^) \t]+\)")
FENCE = re.compile(r"[ \t]*(```|~~~)")
DIFF_FENCE = re.compile(r"```diff[ \t]*\Z")
# A folded block's own lines: <details>, <summary>TEXT</summary>, </details>, each alone on a line.
FOLD = re.compile(r"[ \t]*(<details( open)?>|<summary>.*</summary>|</details>)[ \t]*\Z")

# What Doxygen must not read as markup inside the HTML block: HTML's own characters, and \ and @,
# which start its commands (\endhtmlonly would end the block).
ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "\\": "&#92;",
           "@": "&#64;"}


# Pages whose "## " headings are labelled with the anchor GitHub gives them ({#look-back} for
# "## Look-back"), so that a link to PAGE.md#anchor reaches the same heading in the site.
ANCHORED = ("docs/pages/glossary.md",)


def github_anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation other than - and _ dropped,
    spaces as hyphens ("Bulk copy (TMA)" -> "bulk-copy-tma")."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def label(path):
    """The Doxygen label of a page ("index" for README.md), "" for a file that is no page."""
    if path == "README.md":
        return "index"
    if re.fullmatch(r"chapters/[0-9][0-9]-[^/]*/README\.md", path):
        return "chapter" + path[9:11]
    if re.fullmatch(r"docs/(pages|results)/[^/]*\.md", path):
        name = re.sub(r"\.md\Z", "", path.rsplit("/", 1)[-1])
        return re.sub(r"[^A-Za-z0-9_]", "_", name)
    return ""


def resolve(page, target):
    """The repository path of a link target, read relative to the page's directory ("" when
    it leaves the repository)."""
    directory = page.rsplit("/", 1)[0] if "/" in page else ""
    parts = []
    for part in ((directory + "/" if directory else "") + target).split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return ""
            parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


def source_page(path):
    """Doxygen's name for the source page of a file: _ -> __, . -> _8, then _source.html."""
    name = path.rsplit("/", 1)[-1].replace("_", "__").replace(".", "_8")
    return name + "_source.html"


def rewrite(page, target, is_image):
    """A link target as the site needs it."""
    if re.match(r"(https?:|mailto:|#|@ref )", target):
        return target
    anchor = ""
    if "#" in target:
        target, anchor = target[:target.index("#")], target[target.index("#"):]
    path = resolve(page, target)
    if path == "":
        return target + anchor
    if is_image:
        return path.rsplit("/", 1)[-1]
    if path.endswith("/") or "." not in path and os.path.isdir(path):
        path = path.rstrip("/") + "/README.md"
    name = label(path)
    if anchor and path in ANCHORED:
        return "@ref " + anchor[1:]
    if name:
        return "@ref " + name
    if re.fullmatch(r"(chapters|common)/.*\.(cu|cuh|h)", path):
        return source_page(path) + anchor
    return "repo/" + path + anchor


def svg_title(path):
    """The <title> of an SVG in the repository (a path from the root), as plain text fit for a
    Markdown image's text; "" when the file is no SVG, is missing or has no title."""
    if not path.endswith(".svg") or not os.path.isfile(path):
        return ""
    with open(path, encoding="utf-8", errors="replace") as f:
        m = re.search(r"<title>(.*?)</title>", f.read(), flags=re.S)
    if not m:
        return ""
    text = html.unescape(" ".join(m.group(1).split()))
    # Brackets would end the image's text; \ and @ start Doxygen's commands.
    return text.replace("[", "(").replace("]", ")").replace("\\", "/").replace("@", " at ")


def rewrite_links(page, line, solutions):
    """A line of text with every [text](target) and ![alt](target) mapped for the site. The site
    prints an image's text as the caption under it, so an SVG's alt text (60-100 words, written
    for a reader who cannot see the figure, and which GitHub does not show) gives way there to
    the SVG's <title>, a short title; the alt text stays in the SVG as its <desc>."""
    out = []
    while True:
        m = LINK.search(line)
        if not m:
            break
        link, before, line = m.group(0), line[:m.start()], line[m.end():]
        is_image = link.startswith("!")
        split_at = link.index("](")
        target = link[split_at + 2:-1]
        if not solutions and not is_image and \
                re.fullmatch(r"docs/pages/solutions\.md(#.*)?", resolve(page, target)):
            out.append(before + link[1:split_at])
            continue
        text = link[:split_at + 2]
        if is_image:
            title = svg_title(resolve(page, target.split("#")[0]))
            if title:
                text = f"![{title}]("
        out.append(before + text + rewrite(page, target, is_image) + ")")
    return "".join(out) + line


def escape(text):
    """Text for the HTML block: what HTML or Doxygen would read as markup, as entities."""
    return "".join(ESCAPES.get(ch, ch) for ch in text)


def diff_line_class(line, in_hunks):
    """The class of one line of a unified diff: a file header (--- or +++ before the first
    hunk), a hunk header, an added, a removed or (None) an unchanged line."""
    if line.startswith("@@"):
        return "diff-hunk"
    if not in_hunks and line.startswith(("--- ", "+++ ")):
        return "diff-file"
    return {"+": "diff-add", "-": "diff-del"}.get(line[:1])


def diff_html(lines):
    """A ```diff block's lines (without its fences) as the HTML of a Doxygen code fragment,
    one line of output per line of input, and one each for the two fences, so that Doxygen's
    line numbers still point into the page: the opening fence becomes
    `\\htmlonly[block]<div class="fragment diff">`, the closing one `</div>...\\endhtmlonly`."""
    out = ['\\htmlonly[block]<div class="fragment diff">']
    in_hunks = False
    for line in lines:
        in_hunks = in_hunks or line.startswith("@@")
        cls = diff_line_class(line, in_hunks)
        out.append(f'<div class="line{" " + cls if cls else ""}">{escape(line)}</div>')
    out.append("</div><!-- fragment -->\\endhtmlonly")
    return out


def fold_html(line):
    """A <details>, <summary>TEXT</summary> or </details> line as raw HTML that Doxygen passes
    through unchanged; TEXT keeps its HTML, with Doxygen's command characters escaped and its
    code spans made <code>."""
    text = line.strip().replace("\\", "&#92;").replace("@", "&#64;")
    text = re.sub(r"`([^`]*)`", r"<code>\1</code>", text)  # a code span, as GitHub shows it
    return "\\htmlonly[block]" + text + "\\endhtmlonly"


def filtered(page, lines, solutions=True):
    """The lines of PAGE (a path relative to the root) as Doxygen reads them."""
    out = []
    fenced = False
    diff = None          # the lines of a ```diff block being read
    for number, line in enumerate(lines):
        if number == 0 and line.startswith("# ") and not re.search(r"\{#[A-Za-z0-9_]+\}[ \t]*\Z", line):
            name = label(page)
            if name and name != "index":
                line = f"{line} {{#{name}}}"
        if diff is not None:
            if FENCE.match(line):
                out += diff_html(diff)
                diff = None
                fenced = False
            else:
                diff.append(line)
            continue
        if not fenced and DIFF_FENCE.match(line):
            diff = []
            fenced = True
            continue
        if FENCE.match(line):
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        elif FOLD.match(line):
            out.append(fold_html(line))
        elif page in ANCHORED and line.startswith("## ") and not re.search(r"\{#[\w-]+\}[ \t]*\Z", line):
            out.append(f"{line} {{#{github_anchor(line[3:])}}}")
        else:
            out.append(rewrite_links(page, numbers.strip(line), solutions))
    if diff is not None:
        # A block never closed stays as it was: Doxygen shows the rest of the page as code.
        out += ["```diff"] + diff
    return out


def page_argument(arg):
    """The page as a path relative to the current directory, as Doxygen may name it absolute."""
    for cwd in (os.environ.get("PWD"), os.getcwd()):
        if cwd and arg.startswith(cwd.rstrip("/") + "/"):
            arg = arg[len(cwd.rstrip("/")) + 1:]
            break
    return arg[2:] if arg.startswith("./") else arg


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    page = page_argument(argv[0])
    try:
        with open(page, encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
    except OSError as e:
        print(f"mdfilter: {page}: {e.strerror}", file=sys.stderr)
        return 2
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    solutions = os.environ.get("WB_DOCS_SOLUTIONS", "0") == "1"
    out = sys.stdout
    out.reconfigure(encoding="utf-8", errors="surrogateescape")
    out.write("".join(line + "\n" for line in filtered(page, lines, solutions)))
    return 0
