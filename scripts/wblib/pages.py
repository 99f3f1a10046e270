"""pages: write the generated parts of the pages, so that every page reads fully on GitHub (plain
Markdown) and in the Doxygen site from one source.

  python3 scripts/wb.py pages            rewrite every page whose generated parts changed
  python3 scripts/wb.py pages --check    change nothing; exit 1 and name every page whose
                                         generated parts are out of date (a host test runs this)

The generated parts lie between marker lines; text outside them is never touched:
  <!-- nav:begin --> ... <!-- nav:end -->          in a chapter page, at its top and its bottom:
      links to the previous and next chapters, the chapter's program and the list of chapters;
  <!-- code:begin FILE REGION --> ... <!-- code:end -->   in any page: the lines of FILE (a .cu,
      .cuh or .h under chapters/ or common/) between its two `// [REGION]` markers, as fenced code;
  <!-- diff:begin --> ... <!-- diff:end -->        in a chapter page: what changed in the code
      since the previous chapter (see diff_block); `<!-- diff:begin new-program -->` marks a
      chapter whose program is not built from the previous one (a note replaces the diff).
The pages are README.md, chapters/NN-slug/README.md and docs/pages/*.md."""

import fnmatch
import os
import re
import sys

from . import linediff
from .common import ROOT

SCRIPT = "pages"
USAGE = "usage: python3 scripts/wb.py pages [--check]"

NAV_BEGIN = re.compile(r"<!-- nav:begin -->\Z")
DIFF_BEGIN = re.compile(r"<!-- diff:begin( new-program)? -->\Z")
CODE_BEGIN = re.compile(r"<!-- code:begin [^ ]+ [A-Za-z0-9_]+ -->\Z")
# What the list of a page's regions reads; looser than CODE_BEGIN (empty names pass), as before.
CODE_SPEC = re.compile(r"<!-- code:begin ([^ ]*) ([A-Za-z0-9_]*) -->\Z")


# ---- files as lines ------------------------------------------------------------------------

def read_lines(path):
    """A text file's lines without their newlines ([] for an empty file); bytes that are not
    UTF-8 survive the round trip."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def joined(lines):
    """Lines as file text, each ending in a newline."""
    return "".join(line + "\n" for line in lines)


# ---- chapters ------------------------------------------------------------------------------

def chapter_dirs(root):
    """The chapter directories, "chapters/NN-slug/", sorted (relative to the root)."""
    base = os.path.join(root, "chapters")
    names = sorted(os.listdir(base)) if os.path.isdir(base) else []
    return [f"chapters/{n}/" for n in names
            if re.fullmatch(r"[0-9][0-9]-.*", n) and os.path.isdir(os.path.join(base, n))]


def program(root, directory):
    """The chapter's program: the first .cu file of its directory ("" if none)."""
    full = os.path.join(root, directory)
    names = sorted(n for n in os.listdir(full) if n.endswith(".cu") and not n.startswith(".")) \
        if os.path.isdir(full) else []
    return directory + names[0] if names else ""


def title(root, page):
    """A page's title: its first line without the leading "# "."""
    path = os.path.join(root, page)
    lines = read_lines(path) if os.path.isfile(path) else []
    if not lines or not lines[0].startswith("#"):
        return ""
    return re.sub(r"^# *", "", lines[0], count=1)


def parent_name(path):
    """The name of the directory a path lies in ("." when it has none), as `basename $(dirname)`."""
    head = os.path.dirname(path.rstrip("/")) if path else ""
    return os.path.basename(head) if head else "."


# ---- the code shown ------------------------------------------------------------------------

def strip_comments(lines):
    """A program's code without what a reader skips when comparing two chapters: comment lines,
    trailing // comments (on lines without a string literal), trailing blanks, and runs of blank
    lines (and blank lines before the first code)."""
    out = []
    blank = started = False
    for line in lines:
        if re.match(r"[ \t]*//", line):
            continue
        if '"' not in line:
            line = re.sub(r"[ \t]+//.*\Z", "", line, count=1)
        line = line.rstrip(" \t")
        if line == "":
            if blank or not started:
                continue
            blank = True
        else:
            blank = False
            started = True
        out.append(line)
    return out


def kernels(lines):
    """The names of a program's __global__ functions (a template or __launch_bounds__ may put
    __global__ and the name on two lines)."""
    text = re.sub(r"__launch_bounds__\([^)]*\)", "", " ".join(lines) + " ")
    names = set()
    for found in re.findall(r"__global__[^(;{]*\(", text):
        names.add(found[:-1].rsplit(" ", 1)[-1])
    return names


def rename_stem(lines, old_stem, new_stem):
    """Rename `_<old_stem>` to `_<new_stem>` wherever it ends an identifier (the kernel,
    launch_<stem>), never inside a longer one such as the slug."""
    inner = re.compile("_" + re.escape(old_stem) + r"([^A-Za-z0-9_])")
    at_end = re.compile("_" + re.escape(old_stem) + r"\Z")
    out = []
    for line in lines:
        line = inner.sub(lambda m: "_" + new_stem + m.group(1), line)
        out.append(at_end.sub(lambda m: "_" + new_stem, line, count=1))
    return out


def hunk_heading(new, plus_range):
    """A hunk's heading: the last line of the new program before the hunk that starts a
    declaration with a parenthesis (as diff -F does, without its 40-character cut)."""
    at = int(re.match(r"\+?(-?\d*)", plus_range).group(1) or 0)
    for i in range(min(at - 1, len(new)), 0, -1):
        if re.match(r"[A-Za-z_].*\(", new[i - 1]):
            ctx = re.sub(r"[ \t]*\{\Z", "", new[i - 1], count=1)
            return "@@ " + ctx if ctx else "@@"
    return "@@"


INCLUDE = re.compile(r'[ \t]*#include "([^"/]+)"')


def included(root, cu):
    """The names of the files a program includes with `#include "NAME"`, in its order."""
    path = os.path.join(root, cu)
    lines = read_lines(path) if cu and os.path.isfile(path) else []
    return [m.group(1) for m in map(INCLUDE.match, lines) if m]


def with_own_headers(root, cu, shared=()):
    """A program's lines with each `#include "NAME"` of a header beside it (in its chapter's
    directory) replaced by that header's lines, its `#pragma once` left out, so that a chapter
    whose code moved into a header still reads as one program; headers named in `shared`, which
    the other program of the diff includes too, stay include lines: their code is the same on
    both sides."""
    out = []
    for line in read_lines(os.path.join(root, cu)) if cu else []:
        m = INCLUDE.match(line)
        header = os.path.join(root, os.path.dirname(cu), m.group(1)) if m else ""
        if m and m.group(1) not in shared and os.path.isfile(header):
            out += [h for h in read_lines(header) if h.strip() != "#pragma once"]
        else:
            out.append(line)
    return out


def diff_block(root, prev, cur):
    """The lines between a chapter's diff markers: the unified diff of the two programs' code
    (comments left out), each with the headers beside it in its place (with_own_headers) but
    those that both include. Where exactly one kernel disappears and one appears, sharing their
    first word (reduce, scan), the old kernel's name is renamed to the new one in the old
    program first, so that a renamed kernel and its launcher do not ripple through the diff;
    a note says so."""
    shared = set(included(root, prev)) & set(included(root, cur))
    prev_lines = with_own_headers(root, prev, shared)
    cur_lines = with_own_headers(root, cur, shared)
    old, new = strip_comments(prev_lines), strip_comments(cur_lines)
    old_k, new_k = kernels(prev_lines), kernels(cur_lines)
    gone, came = sorted(old_k - new_k), sorted(new_k - old_k)
    note = ""
    if len(gone) == 1 and len(came) == 1 and gone[0].split("_")[0] == came[0].split("_")[0]:
        # The first word is shared; the rest is the stem.
        old_stem = gone[0].split("_", 1)[-1]
        new_stem = came[0].split("_", 1)[-1]
        old = rename_stem(old, old_stem, new_stem)
        note = (f"The kernel `{gone[0]}` is now `{came[0]}`. To keep the rename from rippling "
                f"through the diff, the old program is shown with the new name (`{old_stem}` "
                f"becomes `{new_stem}`, in the launcher's name too).")
    prev_name, cur_name = os.path.basename(prev), os.path.basename(cur)
    out = [f"Comments are left out, so that only code shows; the full programs are "
           f"[{prev_name}](../{parent_name(prev)}/{prev_name}) and [{cur_name}]({cur_name})."]
    if note:
        out += ["", note]
    out += ["", "```diff", f"--- {prev}", f"+++ {cur}"]
    for line in linediff.unified_diff(old, new):
        out.append(hunk_heading(new, line.split(" ")[2]) if line.startswith("@@ ") else line)
    out.append("```")
    return out


def find_source(root, name):
    """The first file named `name` under chapters/ then common/ (a relative path), or None."""
    for top in ("chapters", "common"):
        for d, dirs, files in sorted(os.walk(os.path.join(root, top))):
            dirs.sort()
            for f in sorted(files):
                if fnmatch.fnmatchcase(f, name):
                    return os.path.relpath(os.path.join(d, f), root)
    return None


def code_region(root, name, region):
    """The fenced code of REGION in the file `name`, its indentation kept relative; None (after
    saying why) when the file or the region is missing."""
    src = find_source(root, name)
    if src is None:
        print(f"pages: no file {name} under chapters/ or common/", file=sys.stderr)
        return None
    marker = re.compile(r"[ \t]*// \[[A-Za-z0-9_]+\][ \t]*\Z")
    this = re.compile(r"[ \t]*// \[" + re.escape(region) + r"\][ \t]*\Z")
    marks, body = 0, []
    for line in read_lines(os.path.join(root, src)):
        if this.match(line):
            marks += 1
            if marks == 2:
                break
            continue
        if marks == 1 and not marker.match(line):
            body.append(line)
    if marks < 2:
        print(f"pages: {src}: the region // [{region}] is not opened and closed", file=sys.stderr)
        return None
    indents = [len(line) - len(line.lstrip(" ")) for line in body if line.strip(" \t")]
    indent = min(indents) if indents else 1000
    return ["```cpp"] + [line[indent:] for line in body] + ["```"]


# ---- pages ---------------------------------------------------------------------------------

def render(lines, nav, diff, codes):
    """The page with its generated parts replaced: nav, diff and the code regions (in order)."""
    out, skip, n = [], "", 0
    for line in lines:
        if NAV_BEGIN.match(line):
            out += [line] + nav
            skip = "nav"
            continue
        if DIFF_BEGIN.match(line):
            out += [line] + diff
            skip = "diff"
            continue
        if CODE_BEGIN.match(line):
            n += 1
            out += [line] + (codes[n - 1] if n <= len(codes) else [])
            skip = "code"
            continue
        if skip and line == f"<!-- {skip}:end -->":
            skip = ""
        if not skip:
            out.append(line)
    return out


def nav_line(root, dirs, index, cu):
    """The navigation line of the chapter at dirs[index]."""
    line = ""
    if index > 0:
        pd = dirs[index - 1]
        line = f"Previous: [{title(root, pd + 'README.md')}](../{pd.split('/')[1]}/README.md)"
    if index + 1 < len(dirs):
        nd = dirs[index + 1]
        nxt = f"Next: [{title(root, nd + 'README.md')}](../{nd.split('/')[1]}/README.md)"
        line = f"{line} · {nxt}" if line else nxt
    name = os.path.basename(cu)
    return f"{line} · Code: [{name}]({name}) · [All chapters](../../README.md)"


def page_list(root):
    """The pages with generated parts, in the order they are written."""
    pages = ["README.md"]
    pages += [d + "README.md" for d in chapter_dirs(root) if os.path.isfile(os.path.join(root, d, "README.md"))]
    extra = os.path.join(root, "docs", "pages")
    if os.path.isdir(extra):
        pages += ["docs/pages/" + n for n in sorted(os.listdir(extra))
                  if n.endswith(".md") and not n.startswith(".")]
    return pages


def generate(root, page, dirs, prev_dir):
    """(lines, ok): the page as it should read, and False when a part could not be made."""
    ok = True
    lines = read_lines(os.path.join(root, page))
    codes = []
    for line in lines:
        m = CODE_SPEC.match(line)
        if m:
            spec = f"{m.group(1)}:{m.group(2)}"
            name, region = spec.split(":", 1)
            code = code_region(root, name, region)
            ok = ok and code is not None
            codes.append(code or [])
    nav, diff = [], []
    if page.startswith("chapters/"):
        directory = os.path.dirname(page) + "/"
        index = dirs.index(directory)
        cu = program(root, directory)
        nav = [nav_line(root, dirs, index, cu)]
        name = os.path.basename(cu)
        if "<!-- diff:begin new-program -->" in lines:
            pcu = program(root, dirs[index - 1]) if index > 0 else ""
            pname = os.path.basename(pcu)
            diff = [f"This chapter starts a new program rather than changing "
                    f"[{pname}](../{parent_name(pcu)}/{pname}), so there is no diff to show: "
                    f"read [{name}]({name}) from the top."]
        elif "<!-- diff:begin -->" in lines:
            if not prev_dir:
                print(f"pages: {page}: a diff block in the first chapter", file=sys.stderr)
                ok = False
            diff = diff_block(root, program(root, prev_dir) if prev_dir else "", cu)
    return render(lines, nav, diff, codes), ok


def main(argv, root=ROOT):
    if argv not in ([], ["--check"]):
        if argv and argv[0] in ("-h", "--help"):
            print(USAGE)
            return 0
        print(USAGE, file=sys.stderr)
        return 2
    check = argv == ["--check"]
    status = 0
    dirs = chapter_dirs(root)
    pages = page_list(root)
    prev_dir = ""
    for page in pages:
        new, ok = generate(root, page, dirs, prev_dir)
        if not ok:
            status = 1
        if page.startswith("chapters/"):
            prev_dir = os.path.dirname(page) + "/"
        path = os.path.join(root, page)
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            before = f.read()
        after = joined(new)
        if after == before:
            continue
        if check:
            print(f"pages: {page} is out of date (run sh scripts/pages.sh)")
            shown = [f"--- {page}", f"+++ {page} (as generated)"]
            shown += linediff.unified_diff(read_lines(path), new)
            for line in shown[:20]:
                print(line)
            status = 1
        else:
            with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(after)
            print(f"pages: wrote {page}")
    if check and status == 0:
        print(f"pages: every generated block is up to date ({len(pages)} pages)")
    return status
