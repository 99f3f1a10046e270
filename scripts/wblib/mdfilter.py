"""mdfilter: Doxygen's input filter for the Markdown pages (docs/md_filter.sh calls it; the
Doxyfile's FILTER_PATTERNS names that script).

  python3 scripts/wb.py mdfilter PAGE

The pages are written for GitHub: plain Markdown whose links are paths relative to the page.
This prints PAGE as Doxygen needs it, changing only
  - the title: a label is added, {#chapterNN} for chapters/NN-slug/README.md and {#NAME} for
    docs/pages/NAME.md or docs/results/NAME.md ('-' becomes '_'), so that pages link by name;
  - links, outside fenced code: to a page (.md) -> [text](@ref label) (README.md is the main page,
    `index`); to a program or header under chapters/ or common/ -> its source page in the site;
    to an image under docs/results/ -> its file name (IMAGE_PATH); to any other file in the
    repository -> repo/PATH, a copy that docs/build.sh places beside the site's pages.
Links to addresses (http:, https:, mailto:) and to anchors in the same page stay as they are.
With WB_DOCS_SOLUTIONS=0 (a student build, docs/build.sh) a link to the solutions page becomes
its plain text, since that page is left out of the site. PAGE is read relative to the current
directory, the repository's root when Doxygen runs it."""

import os
import re
import sys

SCRIPT = "mdfilter"
USAGE = "usage: python3 scripts/wb.py mdfilter PAGE"

LINK = re.compile(r"!?\[[^\]]*\]\([^) \t]+\)")
FENCE = re.compile(r"[ \t]*(```|~~~)")


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
    if name:
        return "@ref " + name
    if re.fullmatch(r"(chapters|common)/.*\.(cu|cuh|h)", path):
        return source_page(path) + anchor
    return "repo/" + path + anchor


def rewrite_links(page, line, solutions):
    """A line of text with every [text](target) and ![alt](target) mapped for the site."""
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
        out.append(before + link[:split_at + 2] + rewrite(page, target, is_image) + ")")
    return "".join(out) + line


def filtered(page, lines, solutions=True):
    """The lines of PAGE (a path relative to the root) as Doxygen reads them."""
    out = []
    fenced = False
    for number, line in enumerate(lines):
        if number == 0 and line.startswith("# ") and not re.search(r"\{#[A-Za-z0-9_]+\}[ \t]*\Z", line):
            name = label(page)
            if name and name != "index":
                line = f"{line} {{#{name}}}"
        if FENCE.match(line):
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            out.append(rewrite_links(page, line, solutions))
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
    solutions = os.environ.get("WB_DOCS_SOLUTIONS", "") != "0"
    out = sys.stdout
    out.reconfigure(encoding="utf-8", errors="surrogateescape")
    out.write("".join(line + "\n" for line in filtered(page, lines, solutions)))
    return 0
