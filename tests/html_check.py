#!/usr/bin/env python3
"""html_check.py HTML_DIR -- check the built site as a reader meets it, not as Doxygen reports it.

Fails (exit 1, one line per problem) when
  - a local href, src or data, or an entry of the navigation tree, does not resolve: a missing file, or an
    anchor (#id) the page lacks;
  - raw markup shows in the rendered text, outside code: a Doxygen command (@section, \\snippet,
    \\include, \\ref, @ref), a Markdown marker (**, {#label}) or a tag shown as text (<tt>, </p>...);
  - a chapter page lacks a code excerpt, its results block (a results table and a chart), or the
    links to its previous and next chapters at its top and at its bottom;
  - an external link is malformed (no host, a space, or punctuation glued to its end, as when a
    colon after a bare address is taken into it).
Prints a count of what it checked. Standard library only.
"""
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
        if tag == "div" and "fragment" in cls.split():
            self.fragments += 1
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

    def handle_data(self, data):
        if data.strip():
            self.text.append((data, self._code()))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: html_check.py HTML_DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
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
    for line in problems:
        print("html_check: FAIL: " + line)
    print(f"html_check: {len(pages)} pages, {checked_links} links, {len(chapters)} chapter pages checked; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
