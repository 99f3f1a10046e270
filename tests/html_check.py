#!/usr/bin/env python3
"""html_check.py HTML_DIR [--student SOLUTIONS_MD] -- check the built site as a reader meets it, not
as Doxygen reports it.

Fails (exit 1, one line per problem) when
  - a local href, src or data, or an entry of the navigation tree, does not resolve: a missing file, or an
    anchor (#id) the page lacks;
  - raw markup shows in the rendered text, outside code: a Doxygen command (@section, \\snippet,
    \\include, \\ref, @ref), a Markdown marker (**, {#label}) or a tag shown as text (<tt>, </p>...);
  - a chapter page lacks a code excerpt, its results block (a results table and a chart), or the
    links to its previous and next chapters at its top and at its bottom;
  - a chapter page shows the diff from the previous chapter in one colour: a line not marked as its
    first character says (diff-add for +, diff-del for -, diff-hunk for @@), or stylesheets that
    give added and removed lines no distinct backgrounds; or a chapter after the first has no diff
    and no note that its program is new;
  - a figure's caption repeats an image's alt text from the Markdown pages (the site's caption is
    a short title, the SVG's <title>; the alt text, 60-100 words, is for a reader who cannot see
    the figure);
  - two pages of the navigation tree (the sidebar, navtreedata.js) have the same title, so that a
    reader cannot tell them apart;
  - an external link is malformed (no host, a space, or punctuation glued to its end, as when a
    colon after a bare address is taken into it);
  - with --student (the student's site, make docs): a page other than a chapter page shows an
    exercise's outcome, written "Expected: ..." as the answer key writes them (a chapter page's
    Markdown is held to that by tests/page_check.py, and its prediction may say what it expects),
    or any page shows a sentence of SOLUTIONS_MD (the answer key, for the instructor's site only).
python3 html_check.py --self-test shows that the student checks, the caption check and the
sidebar check fail on pages that break them.
Prints a count of what it checked. Standard library only.
"""
import glob
import os
import re
import sys
from html.parser import HTMLParser
from urllib.parse import urlsplit, unquote

RAW = re.compile(r"(@section|@subsection|@ref\b|\\snippet|\\include|\\ref\b|\*\*|\{#[A-Za-z0-9_]+\}"
                 r"|</?(tt|b|p|em|blockquote|code|div|table|img|a)\b[^>]*>)")
SKIP_TEXT = {"pre", "code", "script", "style", "textarea"}
CODE_CLASSES = {"fragment", "line", "memproto", "memname", "memberdecls", "memItemLeft", "memItemRight",
                "memTemplParams", "paramtype", "paramname", "params"}
VOID = {"br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed", "source", "wbr"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []      # (attribute, value)
        self.ids = set()
        self.text = []       # (text, inside code?)
        self.stack = []      # open elements: (tag, is_code)
        self.fragments = 0   # code blocks (div.fragment)
        self.in_contents = 0
        self.contents_links = []  # hrefs inside div.contents, in order
        self.tables = 0
        self.images = []
        self.stylesheets = []     # hrefs of <link rel="stylesheet">
        self.code_lines = []      # per code block (div.fragment): [(classes, text)] per div.line
        self.captions = []        # the text of each figure's caption (div.caption)
        self._caption = None      # the div.caption being read: its text pieces
        self._caption_depth = 0
        self._fragment_depth = 0
        self._line = None         # the div.line being read: (classes, text pieces)
        self._line_depth = 0

    def _code(self):
        return any(code for _, code in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class") or ""
        for key in ("href", "src", "data"):
            if a.get(key) is not None:
                self.links.append((key, a[key]))
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "link" and "stylesheet" in (a.get("rel") or "").split() and a.get("href"):
            self.stylesheets.append(a["href"])
        if tag == "div" and "fragment" in cls.split():
            self.fragments += 1
            self.code_lines.append([])
            self._fragment_depth = len(self.stack) + 1
        if tag == "div" and "line" in cls.split() and self._fragment_depth and self._line is None:
            self._line = (set(cls.split()), [])
            self._line_depth = len(self.stack) + 1
        if tag == "div" and "caption" in cls.split() and self._caption is None:
            self._caption = []
            self._caption_depth = len(self.stack) + 1
        if tag == "div" and "contents" in cls.split():
            self.in_contents = len(self.stack) + 1
        if self.in_contents and tag == "a" and a.get("href"):
            self.contents_links.append(a["href"])
        if self.in_contents and tag == "table":
            self.tables += 1
        # Doxygen shows a PNG as <img src>, an SVG as <object data>.
        if self.in_contents and tag in ("img", "object") and (a.get("src") or a.get("data")):
            self.images.append(a.get("src") or a.get("data"))
        if tag in VOID:
            return
        # Code, and the API reference's declarations (which quote C++ such as `char **argv`).
        is_code = tag in SKIP_TEXT or bool(CODE_CLASSES & set(cls.split()))
        self.stack.append((tag, is_code))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        if self.in_contents and len(self.stack) < self.in_contents:
            self.in_contents = 0
        if self._line is not None and len(self.stack) < self._line_depth:
            classes, pieces = self._line
            self.code_lines[-1].append((classes, "".join(pieces)))
            self._line = None
        if self._fragment_depth and len(self.stack) < self._fragment_depth:
            self._fragment_depth = 0
        if self._caption is not None and len(self.stack) < self._caption_depth:
            self.captions.append("".join(self._caption))
            self._caption = None

    def handle_data(self, data):
        if self._caption is not None:
            self._caption.append(data)
        if self._line is not None:
            self._line[1].append(data)
        if data.strip():
            self.text.append((data, self._code()))


# A page rendered from Markdown, as opposed to the API reference and the source listings.
NOT_A_PAGE = re.compile(r"(_8|_source\.html$|^(dir_|struct|class|namespace|union|globals|functions|files|annotated"
                        r"|classes|pages|modules|examples|search))")
# An exercise's outcome, as the answer key writes them ("Expected: ..."); Doxygen joins a
# paragraph's lines, so where it stood in its line is lost.
OUTCOME = re.compile(r"\bExpected:")
CHAPTER_PAGE = re.compile(r"chapter\d\d\.html")


def letters(text):
    """Text reduced to lower-case letters and digits: Markdown and its HTML then compare equal."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def answer_key_sentences(markdown):
    """The sentences of the answer key that are long enough to be its own words (60 letters and
    digits or more), each as letters() of its first 80 characters' worth."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)      # code blocks
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)          # comments (a headline number's tag)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)    # links: their text
    text = "\n".join(line for line in text.splitlines() if not line.startswith("#"))  # headings
    text = text.replace("**", "")                                   # bold, which ends a label
    found = set()
    for sentence in re.split(r"(?<=[.!?:;])\s+", text):
        key = letters(sentence)
        if len(key) >= 60:
            found.add(key[:80])
    return found


def student_problems(pages, solutions_text):
    """What a student's site must not show: outcomes, and the answer key's sentences."""
    problems = []
    sentences = answer_key_sentences(solutions_text)
    for name, p in pages.items():
        if NOT_A_PAGE.search(name):
            continue
        for text, in_code in p.text:
            if not in_code and not CHAPTER_PAGE.fullmatch(name) and OUTCOME.search(text):
                problems.append(f"{name}: an exercise's outcome in the student build: {text.strip()[:80]!r}")
        flat = letters("".join(text for text, _ in p.text))
        for key in sorted(sentences):
            if key in flat:
                problems.append(f"{name}: the student build shows the answer key's words {key[:50]!r}...")
                break
    return problems


def alt_texts(root):
    """letters() of the alt text of every image in the repository's Markdown pages (README.md, the
    chapter pages, docs/pages and docs/results), the words a caption must not repeat."""
    pages = [os.path.join(root, "README.md")]
    for pattern in (("chapters", "*", "README.md"), ("docs", "pages", "*.md"), ("docs", "results", "*.md")):
        pages += glob.glob(os.path.join(root, *pattern))
    found = set()
    for page in pages:
        with open(page, encoding="utf-8") as f:
            found |= {letters(alt) for alt in re.findall(r"!\[([^\]]+)\]\(", f.read())}
    return found


def caption_problems(pages, alts):
    """A caption under a figure that repeats an image's alt text, instead of a short title."""
    problems = []
    for name, p in pages.items():
        for caption in p.captions:
            if letters(caption) in alts:
                problems.append(f"{name}: a figure's caption repeats its alt text instead of a short title: "
                                f"{caption.strip()[:60]!r}...")
    return problems


def sidebar_pages(navtree_js):
    """(title, file) of each page that the navigation tree lists at its top level, under the main
    page (the main page's own sections, which point into index.html with an anchor, left out)."""
    return [(title.replace('\\"', '"'), target) for title, target in
            re.findall(r'^    \[ "((?:[^"\\]|\\.)*)", "([^"#]*)"', navtree_js, flags=re.M)]


def sidebar_problems(entries):
    """Titles that name more than one page of the sidebar."""
    pages = {}
    for title, target in entries:
        pages.setdefault(title, []).append(target)
    return [f"navtreedata.js: the sidebar names {len(t)} pages {title!r} ({', '.join(t)}): give each a title of its own"
            for title, t in pages.items() if len(t) > 1]


def self_test():
    """The student checks fail on a page that shows an outcome or the answer key, pass on a clean
    one; the caption check fails on a caption that is an image's alt text, passes a short title."""
    key = ("**Exercise 1 (block sizes).** The rate stays near 160 GB/s at every block size, because one "
           "L2 slice applies the atomics one after another.")
    cases = {
        "clean": ("<p>Run the command and hand in the table.</p>", 0),
        "outcome": ("<p>Run it. Hand in the table. Expected: about 160 GB/s at every block size.</p>", 1),
        "answer key": ("<p>Note: the rate stays near <code>160</code> GB/s at every block size, because one L2 "
                       "slice applies the atomics one after another.</p>", 1),
    }
    failures = 0
    for label, (body, want) in cases.items():
        page = Page()
        page.feed(f"<html><body><div class='contents'>{body}</div></body></html>")
        got = len(student_problems({"course.html": page}, key))
        if (got > 0) != (want > 0):
            print(f"html_check: self-test FAILED: {label}: {got} problem(s), expected {want}")
            failures += 1
    alt = ("Sixteen values summed by folding: at each step threads 0 to stride - 1 add the value stride "
           "slots above their own into it.")
    figure = "<div class='image'><object data='f.svg'></object><div class='caption'>\n{}</div></div>"
    for label, caption, want in (("caption is the title", "Chapter 05: sequential halving", 0),
                                 ("caption is the alt text", alt, 1)):
        page = Page()
        page.feed(f"<html><body><div class='contents'>{figure.format(caption)}</div></body></html>")
        got = len(caption_problems({"chapter05.html": page}, {letters(alt)}))
        if got != want:
            print(f"html_check: self-test FAILED: {label}: {got} problem(s), expected {want}")
            failures += 1
    tree = '[\n  [ "Workbook", "index.html", [\n    [ "Start here", "index.html#autotoc_md2", null ],\n' \
           '    [ "H200 results: chapters 00 to 19", "h200.html", [\n' \
           '      [ "Best kernel per chapter", "h200.html#autotoc_md9", null ]\n    ] ],\n' \
           '    [ "{}", "h200_run_chapter20.html", null ]\n  ] ]\n];\n'
    for label, title, want in (("sidebar titles unique", "H200 results: chapter 20's own run", 0),
                               ("sidebar title repeated", "H200 results: chapters 00 to 19", 1)):
        got = len(sidebar_problems(sidebar_pages(tree.format(title))))
        if got != want:
            print(f"html_check: self-test FAILED: {label}: {got} problem(s), expected {want}")
            failures += 1
    print(f"html_check: self-test: {len(cases) + 4} cases, {failures} failure(s)")
    return 1 if failures else 0


# The mark each line of a unified diff needs, by its first character (after the first hunk).
DIFF_MARKS = {"+": "diff-add", "-": "diff-del"}


def diffs(page):
    """The code blocks of a page that hold a unified diff: its first lines are --- and +++."""
    return [lines for lines in page.code_lines
            if len(lines) >= 2 and lines[0][1].startswith("--- ") and lines[1][1].startswith("+++ ")]


def unmarked_diff_lines(lines):
    """[(line number, text, mark wanted)] for each line of a diff whose diff-* class is not the one
    its first character calls for: diff-file for ---/+++ before the first hunk, diff-hunk for @@,
    diff-add for +, diff-del for -, none for an unchanged line."""
    wrong = []
    in_hunks = False
    for number, (classes, text) in enumerate(lines, 1):
        in_hunks = in_hunks or text.startswith("@@")
        if text.startswith("@@"):
            want = "diff-hunk"
        elif not in_hunks and text.startswith(("--- ", "+++ ")):
            want = "diff-file"
        else:
            want = DIFF_MARKS.get(text[:1])
        if {c for c in classes if c.startswith("diff-")} != ({want} if want else set()):
            wrong.append((number, text, want))
    return wrong


def diff_backgrounds(root, hrefs):
    """{"diff-add": colour, ...}: the background each diff-* class gets from the stylesheets."""
    found = {}
    for href in hrefs:
        path = os.path.join(root, href)
        if urlsplit(href).scheme or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            css = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
            colour = re.search(r"background(?:-color)?\s*:\s*([^;]+)", body)
            for cls in re.findall(r"\.(diff-[a-z]+)\b", selector):
                if colour:
                    found[cls] = colour.group(1).strip().lower()
    return found


def diff_problems(root, name, page, first):
    """Why a chapter page's diff from the previous chapter does not read as one: missing, or in
    one colour (its lines unmarked, or no distinct backgrounds for added and removed lines)."""
    found = diffs(page)
    if not found and not first and "no diff to show" not in " ".join(t for t, _ in page.text):
        return [f"{name}: no diff from the previous chapter, and no note that its program is new"]
    problems = []
    colours = diff_backgrounds(root, page.stylesheets)
    add, removed = colours.get("diff-add"), colours.get("diff-del")
    for lines in found:
        wrong = unmarked_diff_lines(lines)
        if wrong:
            number, text, want = wrong[0]
            problems.append(f"{name}: the diff from the previous chapter is one colour: {len(wrong)} of its "
                            f"{len(lines)} lines lack their mark (line {number}, {text[:40]!r}, wants "
                            f"{want or 'none'})")
        elif not add or not removed or add == removed:
            problems.append(f"{name}: the diff from the previous chapter is one colour: its stylesheets give "
                            f"added and removed lines no distinct backgrounds ({add}, {removed})")
    return problems


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    solutions = None
    if len(args) == 3 and args[1] == "--student":
        solutions = args[2]
        args = args[:1]
    if len(args) != 1 or not os.path.isdir(args[0]) or (solutions and not os.path.isfile(solutions)):
        print("usage: html_check.py HTML_DIR [--student SOLUTIONS_MD] | --self-test", file=sys.stderr)
        return 2
    root = args[0]
    pages = {}
    for name in sorted(os.listdir(root)):
        if name.endswith(".html"):
            p = Page()
            with open(os.path.join(root, name), encoding="utf-8") as f:
                p.feed(f.read())
            pages[name] = p
    problems = []
    checked_links = 0
    for name, p in pages.items():
        for key, value in p.links:
            parts = urlsplit(value)
            if parts.scheme in ("http", "https"):
                checked_links += 1
                if not parts.netloc or "." not in parts.netloc or " " in value or re.search(r"[:.,;)\]]$", value):
                    problems.append(f"{name}: malformed external link {value!r}")
                continue
            if parts.scheme in ("mailto", "javascript", "data") or value.startswith("javascript:"):
                continue
            checked_links += 1
            target = unquote(parts.path) if parts.path else name
            path = os.path.normpath(os.path.join(root, target))
            if not os.path.exists(path):
                problems.append(f"{name}: {key}={value!r} does not resolve")
                continue
            if parts.fragment and target.endswith(".html"):
                other = pages.get(os.path.relpath(path, root))
                if other is not None and parts.fragment not in other.ids:
                    problems.append(f"{name}: {key}={value!r}: no anchor #{parts.fragment} in {target}")
        for text, in_code in p.text:
            if in_code:
                continue
            m = RAW.search(text)
            if m:
                problems.append(f"{name}: raw markup {m.group(0)!r} in the text: {text.strip()[:80]!r}")
    navtree = os.path.join(root, "navtreedata.js")
    if os.path.isfile(navtree):
        with open(navtree, encoding="utf-8", errors="replace") as f:
            problems += sidebar_problems(sidebar_pages(f.read()))
    # The navigation tree (navtreedata.js, navtreeindex*.js) names pages and anchors too.
    for name in sorted(os.listdir(root)):
        if not name.endswith(".js"):
            continue
        with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
            for target, anchor in re.findall(r'"([A-Za-z0-9_.-]+\.html)(?:#([A-Za-z0-9_.-]+))?"', f.read()):
                checked_links += 1
                other = pages.get(target)
                if other is None:
                    problems.append(f"{name}: navigation entry {target} does not resolve")
                elif anchor and anchor not in other.ids:
                    problems.append(f"{name}: navigation entry {target}#{anchor}: no such anchor")
    chapters = sorted(n for n in pages if re.fullmatch(r"chapter\d\d\.html", n))
    for i, name in enumerate(chapters):
        p = pages[name]
        if p.fragments == 0:
            problems.append(f"{name}: no code excerpt")
        if p.tables == 0 or not any(name[:-5] in img for img in p.images):
            problems.append(f"{name}: no results block (a table and this chapter's chart)")
        links = p.contents_links
        for j, label in ((i - 1, "previous"), (i + 1, "next")):
            if 0 <= j < len(chapters):
                want = chapters[j]
                head, tail = links[:6], links[-6:]
                if want not in head or want not in tail:
                    problems.append(f"{name}: no link to the {label} chapter ({want}) at the top and at the bottom")
        problems += diff_problems(root, name, p, i == 0)
    problems += caption_problems(pages, alt_texts(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    if solutions:
        if "solutions.html" in pages:
            problems.append("solutions.html: the student build has the solutions page")
        with open(solutions, encoding="utf-8") as f:
            problems += student_problems(pages, f.read())
    for line in problems:
        print("html_check: FAIL: " + line)
    print(f"html_check: {len(pages)} pages, {checked_links} links, {len(chapters)} chapter pages checked; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
