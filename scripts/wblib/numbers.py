"""numbers: the headline numbers that the pages' prose quotes, written from the committed CSVs.

  python3 scripts/wb.py numbers [--check] [PAGE...]

A number that a page's own sentences quote from a results CSV (a rate, a time, a share of a
ceiling, a speedup) is tagged where it stands, with an HTML comment that neither GitHub nor the
site shows (docs/md_filter.sh takes it out of the site's pages):

  <!-- num CSV KERNEL N QUANTITY -->4185.2 GB/s

  CSV       a results CSV of docs/results/ without .csv: h200, h100-80gb-hbm3, h200-run-chapter22,
            or chapter 18's scaling CSV (h200-x2-chapter18: a row per launch mode; KERNEL is
            its one-process row, mpi:KERNEL its row under mpirun; gbps, ms and x_OTHER only)
  KERNEL    a kernel of that CSV, as its kernel column names it; NN:KERNEL (22:memcpy_d2d) where
            the name is a kernel of several chapters of the CSV
  N         its N, 2^30 or the number
  QUANTITY  gbps      its GB/s                                           4185.2
            ms        its median time in milliseconds                     2.052
            pct_copy  its GB/s as a % of the copy ceiling                 97.7
            pct_read  its GB/s as a % of the read-only ceiling            93.6
            x_cub     CUB's time over its time (its chapter's CUB call)   1.36
            x_OTHER   OTHER's time over its time (OTHER: a kernel of the
                      same CSV at the same N, NN:OTHER as KERNEL)         1.22
The row is the kernel's fastest verified row at N, from the main run where it has one. Each
number is computed and formatted as scripts/summary.sh render computes and formats it for the
tables (scripts/wblib/summary.py: the ceilings are chapter 00's rows of the same CSV at its main
N, a kernel's CUB call is the one its table compares it with, a ratio is "%.2f"), so a tagged
number reads as the table beside it. Only the number after the tag is the CSV's; its unit (GB/s,
%, x, "times") is the page's.

Without --check the number after every tag is written from its CSV, and only pages whose numbers
changed are written. With --check nothing is written: every number that differs from its CSV is
named with what the CSV gives (exit 1). Either way a tag that cannot be read (an unknown CSV,
kernel or quantity, a name of several chapters without NN:, no number after it) is an error
(exit 1). Tags in code (fenced blocks and `code spans`) are examples, not tags. PAGE defaults to
every page: README.md, chapters/NN-*/README.md and docs/pages/*.md."""

import os
import re
import sys

from . import common
from . import summary
from .common import ROOT

SCRIPT = "numbers"
USAGE = "usage: python3 scripts/wb.py numbers [--check] [PAGE...]"

# A tag and the number right after it (the number may be missing: an error).
TAG = re.compile(r"<!-- num (?P<csv>[A-Za-z0-9_.-]+) (?P<kernel>\S+) (?P<n>\S+) (?P<what>\S+) -->"
                 r"(?P<number>-?\d+(?:\.\d+)?)?")
FENCE = re.compile(r"[ \t]*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")


class TagError(Exception):
    """A tag that names no number of its CSV."""


def tags(line):
    """The tags of a line of prose (outside code spans), as re.Match objects of TAG."""
    spans = [m.span() for m in CODE_SPAN.finditer(line)]
    return [m for m in TAG.finditer(line) if not any(a <= m.start() < b for a, b in spans)]


def strip(line):
    """A line of prose without its tags (the site shows the numbers alone); tags in code spans
    stay, since they are examples."""
    out, at = [], 0
    for m in tags(line):
        out.append(line[at:m.start()])
        at = m.start() + len(m.group(0)) - len(m.group("number") or "")
    return "".join(out) + line[at:]


def prose_lines(lines):
    """(index, line) of each line outside fenced code."""
    fenced = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield i, line


class Table:
    """One results CSV as summary.sh render reads it (summary.Results)."""

    def __init__(self, path):
        records = common.read_csv(path, summary.REQUIRED)
        rows = summary.read_rows(path)
        facts = summary.Facts(sorted({r.ch for r in rows}))
        if facts.missing:
            raise TagError(f"chapter(s) {' '.join(facts.missing)} of {os.path.basename(path)} unknown to "
                           "docs/results/chapters.json")
        self.res = summary.Results(rows, records, os.path.basename(path)[:-4], facts, common.steps_rules())

    def row(self, kernel, n):
        """The fastest verified row of a kernel (NN:KERNEL names its chapter) at N, from the main
        run where it has one there."""
        chapter = None
        m = re.fullmatch(r"(\d\d):(.+)", kernel)
        if m:
            chapter, kernel = m.group(1), m.group(2)
        rows = [r for r in self.res.rows if r.kn == kernel and r.n == n and r.ok and chapter in (None, r.ch)]
        if not rows:
            raise TagError(f"no verified row of {kernel} at N = {common.pow2(n)}"
                           + (f" in chapter {chapter}" if chapter else ""))
        chapters = sorted({r.ch for r in rows})
        if len(chapters) > 1:
            raise TagError(f"{kernel} is a kernel of chapters {' and '.join(chapters)}: name one "
                           f"({chapters[0]}:{kernel})")
        main = [r for r in rows if r.run == "main"] or rows
        return min(main, key=lambda r: r.med)

    def cub_of(self, r):
        """The CUB row that the tables compare row r with: summary.Results.cub_for at main N; at
        another N, the same choice among the rows of that N and run."""
        if self.res.pairs(r.ch) or (r.n == self.res.main_n and r.run == "main"):
            return self.res.cub_for(r)
        calls = [x for x in self.res.rows if x.ch == r.ch and summary.is_cub(x.kn) and x.n == r.n
                 and x.run == r.run and x.ok]
        return min(calls, key=lambda x: x.med) if calls else None

    def value(self, kernel, n, what):
        """The number a tag stands for, as text."""
        r = self.row(kernel, n)
        if what == "gbps":
            return summary.f1(r.gb)
        if what == "ms":
            return summary.fmt_ms(r.med)
        if what in ("pct_copy", "pct_read"):
            ceiling = self.res.copy_ceil if what == "pct_copy" else self.res.read_ceil
            if ceiling <= 0:
                raise TagError(f"no {what[4:]} ceiling: the CSV lacks chapter {self.res.ceiling_ch}'s rows")
            return summary.pct_of(r.gb, ceiling).rstrip("%")
        if what.startswith("x_"):
            other = self.cub_of(r) if what == "x_cub" else self.row(what[2:], n)
            if other is None:
                raise TagError(f"no CUB call to compare {r.kn} with")
            return summary.times(other.med, r.med).rstrip("x")
        raise TagError(f"unknown quantity {what!r} (gbps, ms, pct_copy, pct_read, x_cub or x_KERNEL)")


class ScalingTable:
    """Chapter 18's scaling CSV (scripts/scaling.sh run): a row per kernel and launch mode, with
    no ceilings and no CUB call, so only a row's own numbers and ratios of two rows."""

    def __init__(self, path):
        self.rows = common.read_csv(path, ["run", "kernel", "n", "median_ms", "gbps", "verified"])

    def row(self, kernel, n):
        """The row of KERNEL (one process) or mpi:KERNEL (mpirun) at N."""
        mpi = kernel.startswith("mpi:")
        name = kernel[4:] if mpi else kernel
        rows = [r for r in self.rows if r["kernel"] == name and int(r["n"]) == n and r["verified"] == "PASS"
                and r["run"].startswith("mpirun") == mpi and (mpi or r["run"] == "one process")]
        if len(rows) != 1:
            raise TagError(f"{len(rows)} verified rows of {kernel} at N = {common.pow2(n)}, not one")
        return rows[0]

    def value(self, kernel, n, what):
        r = self.row(kernel, n)
        if what == "gbps":
            return summary.f1(float(r["gbps"]))
        if what == "ms":
            return summary.fmt_ms(float(r["median_ms"]))
        if what.startswith("x_"):
            other = self.row(what[2:], n)
            return summary.times(float(other["median_ms"]), float(r["median_ms"])).rstrip("x")
        raise TagError(f"unknown quantity {what!r} for a scaling CSV (gbps, ms or x_KERNEL)")


def table_for(path):
    """The Table or ScalingTable of a CSV, by its columns."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    return ScalingTable(path) if "gpus" in header and "peak_gbps" not in header else Table(path)


def parse_n(text):
    m = re.fullmatch(r"2\^(\d+)", text)
    if m:
        return 2 ** int(m.group(1))
    if re.fullmatch(r"\d+", text):
        return int(text)
    raise TagError(f"N {text!r} is neither 2^K nor a number")


def default_pages(root):
    pages = ["README.md"] + [f"chapters/{c}-{s}/README.md" for c, s in common.chapter_dirs(root).items()]
    extra = os.path.join(root, "docs", "pages")
    if os.path.isdir(extra):
        pages += ["docs/pages/" + n for n in sorted(os.listdir(extra)) if n.endswith(".md")]
    return [p for p in pages if os.path.isfile(os.path.join(root, p))]


def render_page(root, page, tables):
    """(the page's text with every tagged number written from its CSV, [problems], [changes]):
    a problem is a tag that names no number, a change "LINE: tag: was -> CSV"."""
    with open(os.path.join(root, page), encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    problems, changes = [], []
    for i, line in prose_lines(lines):
        out, at = [], 0
        for m in tags(line):
            where = f"{page}:{i + 1}: <!-- num {m.group('csv')} {m.group('kernel')} {m.group('n')} {m.group('what')} -->"
            try:
                name = m.group("csv")
                if name not in tables:
                    path = os.path.join(root, "docs", "results", name + ".csv")
                    if not os.path.isfile(path):
                        raise TagError(f"no docs/results/{name}.csv")
                    tables[name] = table_for(path)
                want = tables[name].value(m.group("kernel"), parse_n(m.group("n")), m.group("what"))
                if m.group("number") is None:
                    raise TagError(f"no number after the tag (the CSV gives {want})")
            except (TagError, common.CsvError) as e:
                problems.append(f"{where}: {e}")
                continue
            if m.group("number") != want:
                changes.append(f"{where}: the page says {m.group('number')}, the CSV gives {want}")
                out.append(line[at:m.start("number")] + want)
                at = m.end("number")
        lines[i] = "".join(out) + line[at:]
    return "\n".join(lines), problems, changes


def count_tags(root, page):
    with open(os.path.join(root, page), encoding="utf-8") as f:
        return sum(len(tags(line)) for _, line in prose_lines(f.read().split("\n")))


def main(argv, root=ROOT):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    check = "--check" in argv
    pages = [a for a in argv if a != "--check"]
    if any(p.startswith("-") for p in pages):
        print(USAGE, file=sys.stderr)
        return 2
    pages = [os.path.relpath(os.path.abspath(p), root) for p in pages] or default_pages(root)
    tables, status, count = {}, 0, 0
    for page in pages:
        if not os.path.isfile(os.path.join(root, page)):
            common.say(SCRIPT, f"{page}: no such page")
            return 2
        text, problems, changes = render_page(root, page, tables)
        count += count_tags(root, page)
        for p in problems:
            print(f"numbers: {p}")
        if problems:
            status = 1
        for c in changes:
            print(f"numbers: {c}")
        if changes and check:
            status = 1
        elif changes and not problems:
            with open(os.path.join(root, page), "w", encoding="utf-8", newline="") as f:
                f.write(text)
            print(f"numbers: wrote {page}")
    if status == 0:
        print(f"numbers: {count} tagged number(s) in {len(pages)} page(s) "
              + ("match their CSVs" if check else "written from their CSVs"))
    elif check:
        print("numbers: FAILED: write the numbers from the CSVs with `python3 scripts/wb.py numbers`"
              " (a tag that names no number must be mended by hand)")
    return status
