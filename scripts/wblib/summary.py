"""summary: the workbook's results, in two stages so that the second needs no GPU.

  run [N]        every chapter with --csv at N (default 2^30) into OUT/<gpu>.csv
  render CSV...  the results page, the charts and the marked blocks of README.md and the
                 chapter pages, from CSVs that run wrote (no program, no GPU)
  all [N]        run, then render what it wrote (`make summary`)

The combined CSV is each chapter's --csv rows (the twelve columns every chapter prints)
followed by run ("main", or "sweep" for a sweep variant's rows), device and peak_gbps, so that
render needs nothing but the file and docs/results/chapters.json (each chapter's part, chapter
00's ceiling kernels). scripts/summary.sh is this command under its old name.

A chapter that offers `--variant all` runs that; else each of its variants; one that offers
`sweep` runs it once more (it chooses its own sizes). render writes, beside each CSV <gpu>.csv:
  <gpu>.md                      the results page: every table, links to the CSV, charts, pages
  <gpu>.svg                     best GB/s per chapter against the ceilings and the peak
  <gpu>-chapterNN.svg           the same chart with chapter NN marked, for its page
  <gpu>-chapterNN-across-n.svg  CUB's time over ours against N, for a chapter with an across-N
                                sweep (below)
and rewrites only what lies between these marker lines, and only when it changes:
  README.md                     <!-- summary:begin --> ... <!-- summary:end -->
  chapters/NN-*/README.md       <!-- results:begin --> ... <!-- results:end -->
  a chapter with an across-N    <!-- across-n:begin --> ... <!-- across-n:end -->, or where the
  sweep                         page has none, <!-- sweep:begin --> ... <!-- sweep:end -->
Several CSVs (several GPUs) give one block per GPU, in the order given: the first open, each
further one folded in <details> ("The same on the <device>"); the README's block is short, the
first GPU's one table, a link to each GPU's results page and the first GPU's chart. The date shown is --date,
else the CSV's modification date. Paths in the blocks are relative to the page that holds them.
A chapter added after a GPU's published run is measured in a run of its own, with chapter 00
(`run` then keeps both in <gpu>.csv: rename it <gpu>-run-chapterNN.csv) and rendered with
--chapter NN: its page is written as above, its chart is <gpu>-run-chapterNN-chapterNN.svg, one
bar per verified kernel of chapter NN against the peak and the ceilings of that run (a chart of
the best kernel per chapter would hold two bars), and only chapter NN's page blocks.

Definitions used throughout render:
  main N      the N of most main rows (every chapter runs at the N given to run)
  ceilings    the ceiling chapter's rows at main N: copy = the fastest of its "copy" kernels,
              read = the fastest of its "read" kernels (chapters.json); a scan is compared with
              copy, any other chapter with read
  best        a chapter's line in the tables: the kernel scripts/steps.txt names as its step,
              else its fastest verified kernel at main N that is not a CUB call
  alone       steps.txt's "alone" lines found at main N: one change each against its baseline
  vs previous best time of the previous chapter of the same part / this chapter's best time
  vs first    the same against the part's first chapter in the CSV
  vs CUB      the chapter's fastest CUB time / its best time (above 1: faster than CUB)
  across N    a chapter's verified rows outside its main run (none: its main rows), where at
              two or more N they hold both a CUB call and a workbook kernel
  which CUB   a CUB row's config ends with cub=VERSION, the CUB its program was built with
              (common/wb_report.h); the blocks and pages name it beside "vs CUB". Rows written
              before the programs recorded it name none: they ran UNRECORDED_CUB"""

import collections
import csv
import datetime
import glob
import math
import os
import re
import sys

from . import common
from . import svg as S
from .common import ROOT, number, pow2, xml

SCRIPT = "summary.sh"

USAGE = """\
usage: scripts/summary.sh run [N] [--chapters "NN ..."] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/summary.sh render [--chapter NN] [--date YYYY-MM-DD] CSV...
       scripts/summary.sh all [N] [--bin-dir DIR] [--out DIR] [--logs DIR] [--date YYYY-MM-DD]

  run      every chapter with --csv at N elements (default 2^30; forms 1073741824, 2^30, 1<<30),
           plus --variant sweep where a chapter offers it; writes OUT/<gpu>.csv (OUT default
           docs/results) and keeps each chapter's notes in LOGS (default build/summary).
           Needs the GPU: exits 77 without one (1 when REQUIRE_GPU=1).
           --chapters "NN ...": only those chapters (for a run of its own: "00 NN").
  render   from CSVs written by run: <gpu>.md, <gpu>.svg, <gpu>-chapterNN.svg and, for a
           chapter with a sweep across N, <gpu>-chapterNN-across-n.svg beside each CSV, and the
           marked blocks of README.md and chapters/NN-*/README.md. No GPU needed.
           --chapter NN: only chapter NN's page blocks, for a chapter measured in a run of its
           own with chapter 00 (<gpu>-run-chapterNN.csv); its chart shows each of its kernels.
  all      run, then render.
  --bin-dir DIR   where the chapterNN programs are (default: repository root, then build/)
  -h, --help      this text
Exit: 0 done, every chapter verified; 1 a chapter failed (reported, its rows kept); 2 bad usage.
"""

# The columns of a chapter's --csv output (common/wb_report.h), and the three run adds.
CHAPTER_COLUMNS = ["chapter", "kernel", "n", "block", "batch", "median_ms", "min_ms", "gbps",
                   "pct_theoretical", "verified", "blocks_per_sm", "config"]
RUN_COLUMNS = ["run", "device", "peak_gbps"]
# What render needs of a CSV: a chapter's first ten columns (older CSVs lack the last two).
REQUIRED = CHAPTER_COLUMNS[:10]
# The CUB of a CUB row that does not name one: the results CSVs written before the programs
# recorded it were all built with CUDA 13.0, whose CUB_VERSION is 300001.
UNRECORDED_CUB = "CUB 3.0.1 (CUDA 13.0's)"


def say(message):
    common.say(SCRIPT, message)


# ---- run -----------------------------------------------------------------------------------

def do_run(argv):
    """summary run: every chapter with --csv at N into OUT/<gpu>.csv. (status, CSV or None)."""
    n, out, logs, bin_dir = "2^30", os.path.join(ROOT, "docs", "results"), os.path.join(ROOT, "build", "summary"), None
    only = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--bin-dir", "--out", "--logs", "--chapters"):
            value = common.option_value(argv, i)
            i += 1
            if a == "--bin-dir":
                bin_dir = value
            elif a == "--out":
                out = value
            elif a == "--chapters":
                only = value.split()
            else:
                logs = value
        elif a.startswith("-"):
            raise common.Usage(f"unknown option '{a}' (see -h)")
        else:
            n = a
        i += 1
    started = datetime.datetime.now()
    ids = common.summary_ids()
    if not ids:
        say(f"no chapters/NN-*/ directories under {ROOT}")
        return 1, None
    if only is not None:
        unknown = [c for c in only if c not in ids]
        if unknown or not only:
            raise common.Usage(f"--chapters: no chapter {' '.join(unknown) or '(none given)'} (chapters: {' '.join(ids)})")
        ids = [c for c in ids if c in only]
    common.say_elsewhere()
    built = [b for b in (common.find_binary(c, bin_dir) for c in ids) if b]
    if not built:
        say("no chapter program found: build them first (make all)")
        return 1, None
    status = common.require_gpu(SCRIPT, built[0])
    if status is not None:
        return status, None
    info = common.program_info(built[0]) or {}
    device = info.get("device") or {}
    if not device.get("name") or device.get("peak_gbps") is None:
        say(f"{os.path.basename(built[0])} --info names no device")
        return 1, None
    # A comma would split the CSV column; the peak as the chapters' device line prints it.
    name, peak = device["name"].replace(",", " "), "%.0f" % float(device["peak_gbps"])
    os.makedirs(out, exist_ok=True)
    os.makedirs(logs, exist_ok=True)
    print(f"summary: {len(ids)} chapter(s) on the {name} at N = {n}; notes in {logs}", flush=True)

    rows, failures = [], []
    for cid in ids:
        chapter_started = datetime.datetime.now()
        binary = common.find_binary(cid, bin_dir)
        if not binary:
            failures.append(f"chapter{cid}: not built (make chapter{cid})")
            print(f"chapter{cid}: not built", flush=True)
            continue
        variants = common.list_variants(binary)
        runs = []  # (run tag, log stem, arguments)
        for v in common.runs_covering_every_kernel(variants):
            if v is None:
                runs.append(("main", f"chapter{cid}", ["--n", n]))
            elif v == "all":
                runs.append(("main", f"chapter{cid}", ["--n", n, "--variant", "all"]))
            else:
                runs.append(("main", f"chapter{cid}.{v}", ["--n", n, "--variant", v]))
        if "sweep" in variants:  # a sweep variant chooses its own sizes
            runs.append(("sweep", f"chapter{cid}.sweep", ["--variant", "sweep"]))
        got, failed = 0, []
        for tag, stem, args in runs:
            log = os.path.join(logs, stem + ".log")
            kept, rc = run_chapter(cid, binary, args, log, [tag, name, peak])
            rows += kept
            got += len(kept)
            if rc != 0:
                what = common.failed_run(cid, log, rc)
                failures.append(f"chapter{cid} {what} (notes: {log})")
                failed.append(what)
        took = seconds_since(chapter_started)
        if failed:
            print(f"chapter{cid}: FAILED ({'; '.join(failed)}), {got} row(s) [{took} s]", flush=True)
        else:
            print(f"chapter{cid}: {got} row(s), all verified [{took} s]", flush=True)

    csv_path = os.path.join(out, common.gpu_slug(name) + ".csv")
    with open(csv_path + ".tmp", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(CHAPTER_COLUMNS + RUN_COLUMNS)
        writer.writerows(rows)
    os.replace(csv_path + ".tmp", csv_path)
    print(f"summary: wrote {csv_path} ({len(rows)} rows) in {seconds_since(started)} s", flush=True)
    if failures:
        print(f"summary: FAILED ({len(failures)}):")
        for f in failures:
            print(f"  {f}")
        return 1, [csv_path]
    return 0, [csv_path]


def seconds_since(start):
    """Whole seconds since start, as the progress lines show them."""
    return int((datetime.datetime.now() - start).total_seconds())


def run_chapter(cid, binary, args, log, extra):
    """One chapter run with --csv: (its result rows with the run's columns added, exit status).
    The command line opens its log; the chapter's notes (stderr) follow."""
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"+ {binary} --csv {' '.join(args)}\n")
    rc, text = common.run_logged([binary, "--csv"] + args, log, 1800)
    kept = []
    for line in text.splitlines():
        fields = next(csv.reader([line]), [])
        if fields[:1] == ["chapter"]:
            continue  # the header
        if len(fields) == len(CHAPTER_COLUMNS) and fields[0] == cid:
            kept.append(fields + extra)
        elif line:
            print(f"{SCRIPT}: ignored a line of chapter{cid}'s output: {line}", file=sys.stderr)
    return kept, rc


# ---- render: reading -----------------------------------------------------------------------

# cub: for a CUB call, the CUB it ran (cub_of); "" for a workbook kernel.
Row = collections.namedtuple("Row", "ch kn n blk bat med mn gb pc ok run cub")
Standing = collections.namedtuple("Standing", "row prev vs_prev first vs_first cub vs_cub ceiling")


class Facts:
    """What render knows about the chapters: docs/results/chapters.json, and for a chapter it
    lacks, what the built program says (--info). part(c) is ceiling, reduction, scan or
    multi-gpu; the ceiling chapter's "ceilings" name its copy and read kernels."""

    def __init__(self, ids, bin_dir=None):
        self.info = common.chapter_facts()
        for c in ids:
            if c not in self.info:
                binary = common.find_binary(c, bin_dir)
                got = common.program_info(binary) if binary else None
                if got:
                    self.info[c] = got
        self.missing = [c for c in ids if c not in self.info]

    def part(self, c):
        return self.info.get(c, {}).get("part", "")

    def first(self, part):
        """The first chapter of a part, or "" when none is known."""
        return next((c for c in sorted(self.info) if self.part(c) == part), "")


def read_rows(path):
    """The result rows of a CSV written by run (or a chapter's own --csv: every row "main")."""
    rows = []
    for r in common.read_csv(path, REQUIRED):
        if not re.fullmatch(r"\d\d", r["chapter"] or "") or r["verified"] is None:
            continue
        rows.append(Row(r["chapter"], r["kernel"], number(r["n"]), r["block"], r["batch"],
                        float(number(r["median_ms"])), float(number(r["min_ms"])), float(number(r["gbps"])),
                        float(number(r["pct_theoretical"])), r["verified"] == "PASS", r.get("run") or "main",
                        cub_of(r.get("config")) if is_cub(r["kernel"]) else ""))
    return rows


def cub_of(config):
    """The CUB a CUB row ran, from its config ("tile=... cub=3.5.0" -> "CUB 3.5.0"); for a row
    that names none (an older CSV, or no config column), UNRECORDED_CUB."""
    m = re.search(r"(?:^| )cub=([0-9][0-9.]*)(?: |$)", config or "")
    return f"CUB {m.group(1)}" if m else UNRECORDED_CUB


def cub_label(rows):
    """Which CUB some rows compare against: every CUB their CUB calls ran, oldest first, joined
    with " and " ("CUB 3.5.0"); "" when none of them is a CUB call."""
    def version(label):
        return [int(x) for x in re.findall(r"\d+", label.split(" (")[0])]
    return " and ".join(sorted({r.cub for r in rows if r.cub}, key=version))


def first_value(records, column):
    """The first non-empty value of a column ("" when there is none or no such column)."""
    return next((r[column] for r in records if r.get(column)), "")


# ---- render: formats -----------------------------------------------------------------------

def fmt_ms(x):
    """Milliseconds with four significant digits, never in exponent form."""
    for limit, digits in ((1000, 0), (100, 1), (10, 2), (1, 3), (0.1, 4), (0.01, 5)):
        if x >= limit:
            return "%.*f" % (digits, x)
    return "%.6f" % x


def dash0(v):
    """Block and batch: 0 means "does not apply" (a library call, a copy), shown as "-"."""
    return "-" if number(v) == 0 else v


def f0(x):
    return "%.0f" % x


def f1(x):
    return "%.1f" % x


def pct_of(g, c):
    return f"{f1(100 * g / c)}%" if c > 0 else "-"


def times(a, b):
    return "%.2fx" % (a / b) if a > 0 and b > 0 else "-"


def is_cub(kernel):
    return kernel.startswith("cub_") or kernel.startswith("cub::")


def log2(n):
    """log2 of n, exact for powers of two."""
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return n.bit_length() - 1
    return math.log(n) / math.log(2)


# ---- render: analysis ----------------------------------------------------------------------

class Sweep:
    """A chapter's across-N rows: per N the fastest CUB call (cub) and the fastest workbook
    kernel (ours); per (kernel, N) its fastest row (krow); the Ns sorted (ns); the workbook
    kernels in first-seen order (kernels); both, the number of Ns with a CUB call and ours;
    cub_label, the CUB those calls ran. `pairs` (chapters.json's cub_pairs: workbook kernel ->
    CUB call of the same computation, for a chapter that calls CUB for several) makes each kernel
    compared with its own CUB call (cub_at) and leaves out the kernels that have none."""

    def __init__(self, rows, pairs=None):
        self.cub, self.ours, self.krow, ns, self.kernels = {}, {}, {}, [], []
        self.pairs, self.cub_rows = pairs or {}, {}
        for r in rows:
            if r.n not in ns:
                ns.append(r.n)
            if is_cub(r.kn):
                if r.n not in self.cub or r.med < self.cub[r.n].med:
                    self.cub[r.n] = r
                if (r.kn, r.n) not in self.cub_rows or r.med < self.cub_rows[r.kn, r.n].med:
                    self.cub_rows[r.kn, r.n] = r
                continue
            if self.pairs and r.kn not in self.pairs:
                continue
            if r.n not in self.ours or r.med < self.ours[r.n].med:
                self.ours[r.n] = r
            if (r.kn, r.n) not in self.krow or r.med < self.krow[r.kn, r.n].med:
                self.krow[r.kn, r.n] = r
            if r.kn not in self.kernels:
                self.kernels.append(r.kn)
        self.ns = sorted(ns)
        self.both = sum(1 for x in self.ns if any(self.cub_at(k, x) and (k, x) in self.krow for k in self.kernels))
        self.names = ", ".join(f"`{k}`" for k in self.kernels)
        self.cub_label = cub_label(self.cub.values())  # the CUB of the calls the table shows

    def cub_at(self, k, x):
        """The CUB row kernel k is compared with at N = x: its own pair's, else the fastest call."""
        return self.cub_rows.get((self.pairs[k], x)) if self.pairs else self.cub.get(x)


class Results:
    """One CSV's rows and everything the tables and charts say about them."""

    def __init__(self, rows, records, base, facts, steps, only=None):
        self.rows, self.base, self.facts = rows, base, facts
        self.only = only  # the chapter of a run of its own (render --chapter), else None
        self.chs = sorted({r.ch for r in rows}, key=int)
        self.cub_label = cub_label(rows)  # the CUB of every CUB call in the CSV
        count = collections.Counter(r.n for r in rows if r.run == "main")
        # The most common N of the main rows, the larger on a tie.
        self.main_n = max(count, key=lambda x: (count[x], x)) if count else 0
        peak = number(first_value(records, "peak_gbps"))
        guess = next((r.gb * 100 / r.pc for r in rows if r.pc > 0), 0)
        self.peak = peak if peak > 0 else guess
        self.device = first_value(records, "device") or f"unnamed GPU of {base}.csv"
        self.ceiling_ch = facts.first("ceiling")
        self.copy_ceil = self.read_ceil = 0
        self.copy_row = self.read_row = None  # the rows that set them
        ceilings = facts.info.get(self.ceiling_ch, {}).get("ceilings") or {}
        self.read_kernels = ceilings.get("read", [])
        for r in self.at_main(self.ceiling_ch):
            if r.kn in ceilings.get("copy", []) and r.gb > self.copy_ceil:
                self.copy_ceil, self.copy_row = r.gb, r
            if r.kn in self.read_kernels and r.gb > self.read_ceil:
                self.read_ceil, self.read_row = r.gb, r
        # Each chapter's best kernel and fastest CUB call at main N.
        self.best, self.cub, at_main = {}, {}, {}
        for r in rows:
            if r.run != "main" or r.n != self.main_n or not r.ok or self.is_ceiling(r.ch):
                continue
            pick = self.cub if is_cub(r.kn) else self.best
            if r.ch not in pick or r.med < pick[r.ch].med:
                pick[r.ch] = r
            at_main[r.kn] = r
        # steps.txt: the step a chapter teaches, and the one-change comparisons.
        self.alone, self.stepped = [], set()
        for rule in steps:
            if rule[0] == "step" and len(rule) == 3 and rule[2] in at_main and at_main[rule[2]].ch == rule[1]:
                self.best[rule[1]] = at_main[rule[2]]
                self.stepped.add(rule[1])
            if rule[0] == "alone" and len(rule) >= 4 and rule[1] in at_main and rule[2] in at_main:
                self.alone.append((at_main[rule[1]], at_main[rule[2]], " ".join(rule[3:])))
        # The previous and the first chapter of the same part, among those with a best kernel.
        self.prev, self.first, last = {}, {}, {}
        for c in self.chs:
            if c not in self.best:
                continue
            p = self.part(c)
            if p in last:
                self.prev[c] = last[p]
            self.first.setdefault(p, c)
            last[p] = c
        # Across N: chapters whose sweep holds CUB and a workbook kernel at two or more N.
        self.has_extra = {r.ch for r in rows if r.run != "main"}
        self.sweeps = {}
        for c in self.chs:
            sweep = Sweep((r for r in rows if self.in_across(r, c)), self.pairs(c))
            if sweep.both >= 2:
                self.sweeps[c] = sweep

    def part(self, c):
        return self.facts.part(c)

    def pairs(self, c):
        """chapters.json's cub_pairs of chapter c: each workbook kernel and the CUB call of the
        same computation, where the chapter calls CUB for several ({} elsewhere)."""
        return self.facts.info.get(c, {}).get("cub_pairs") or {}

    def cub_for(self, r):
        """The verified CUB row that row r is compared with: in a chapter with cub_pairs, its
        pair's at the same N and run (None without one); elsewhere the chapter's fastest CUB
        call at main N."""
        pairs = self.pairs(r.ch)
        if not pairs:
            return self.cub.get(r.ch)
        name = pairs.get(r.kn)
        return next((x for x in self.rows if x.ch == r.ch and x.kn == name and x.n == r.n and x.run == r.run and x.ok), None)

    def is_ceiling(self, c):
        return self.part(c) == "ceiling"

    def at_main(self, c):
        """Chapter c's verified main rows at main N."""
        return [r for r in self.rows if r.ch == c and r.run == "main" and r.n == self.main_n and r.ok]

    def ceiling_of(self, r):
        """The ceiling a row is judged against."""
        if self.is_ceiling(r.ch):
            return self.read_ceil if r.kn in self.read_kernels else self.copy_ceil
        if self.part(r.ch) == "scan" or self.writes_too(r):
            return self.copy_ceil
        return self.read_ceil

    def writes_too(self, r):
        """Whether a row of a chapter of sums also writes each element (chapters.json's
        copy_kernels: chapter 19 times scans beside its sums), so the copy ceiling judges it."""
        return r.kn in self.facts.info.get(r.ch, {}).get("copy_kernels", [])

    def in_across(self, r, c):
        if r.ch != c or not r.ok:
            return False
        return r.run != "main" if c in self.has_extra else r.run == "main"

    def standing(self, c):
        """Chapter c's line in the tables, the one place its comparisons are made: its best row
        (None for the ceiling chapter and one without a verified kernel at main N), the previous
        chapter's, the part's first chapter's and the fastest CUB call's rows (None when there is
        none) and the speedups over them (their time over this one's, "" when none), and the
        ceiling it is judged against."""
        if self.is_ceiling(c) or c not in self.best:
            return None
        r = self.best[c]
        prev = self.best[self.prev[c]] if c in self.prev else None
        first = self.best[self.first[self.part(c)]]
        cub = self.cub_for(r)
        return Standing(r, prev, times(prev.med, r.med) if prev else "", first, times(first.med, r.med),
                        cub, times(cub.med, r.med) if cub else "", self.ceiling_of(r))

    def has_mark(self, c):
        """Whether chapter c has something to mark on the bar chart: its bars, or for the
        ceiling chapter the ceilings it measures."""
        if self.is_ceiling(c):
            return self.read_ceil > 0 or self.copy_ceil > 0
        return c in self.best or c in self.cub


# ---- render: tables ------------------------------------------------------------------------

def chapter_link(c, up, slugs):
    """A chapter's name as a link to its page, from a file whose way to the root is `up`."""
    return f"[{c} {slugs[c]}]({up}chapters/{c}-{slugs[c]}/README.md)" if c in slugs else c


def vs_first_label(facts):
    """The header of the "against the part's first chapter" column: "vs 01 / 12"."""
    return f"vs {facts.first('reduction')} / {facts.first('scan')}"


def alone_table(res, up, slugs):
    """"Each change alone": one row per steps.txt "alone" line found in the CSV."""
    out = ["| chapter | kernel | the one change | against | median ms | against ms | speedup |",
           "| --- | --- | --- | --- | ---: | ---: | ---: |"]
    for r, b, text in res.alone:
        out.append(f"| {chapter_link(r.ch, up, slugs)} | {r.kn} | {text} | {b.ch} {b.kn} | {fmt_ms(r.med)} | "
                   f"{fmt_ms(b.med)} | {times(b.med, r.med)} |")
    return out


def best_table(res, up, slugs):
    """The best kernel per chapter (README.md and <gpu>.md); chapter pages linked with `up`."""
    out = [f"| chapter | kernel | median ms | GB/s | % of peak | % of ceiling | vs previous | {vs_first_label(res.facts)} | vs CUB |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def plain(link, r):
        return f"| {link} | {r.kn} | {fmt_ms(r.med)} | {f1(r.gb)} | {f1(r.pc)}% | {pct_of(r.gb, res.ceiling_of(r))} |  |  |  |"

    for c in res.chs:
        link = chapter_link(c, up, slugs)
        if res.is_ceiling(c):
            out += [plain(link, r) for r in res.at_main(c)]
            continue
        st = res.standing(c)
        if st is None:
            out.append(f"| {link} | no verified kernel at N = {pow2(res.main_n)} |  |  |  |  |  |  |  |")
            continue
        r = st.row
        out.append(f"| {link} | {r.kn} | {fmt_ms(r.med)} | {f1(r.gb)} | {f1(r.pc)}% | {pct_of(r.gb, st.ceiling)} | "
                   f"{st.vs_prev} | {st.vs_first} | {st.vs_cub} |")
        if st.cub:
            out.append(plain(link, st.cub))
    return out


def all_table(res):
    """Every main row, in the order of the CSV."""
    out = ["| chapter | kernel | n | block | batch | median ms | min ms | GB/s | % of peak | % of ceiling | check |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in res.rows:
        if r.run == "main":
            out.append(f"| {r.ch} | {r.kn} | {pow2(r.n)} | {dash0(r.blk)} | {dash0(r.bat)} | {fmt_ms(r.med)} | "
                       f"{fmt_ms(r.mn)} | {f1(r.gb)} | {f1(r.pc)}% | {pct_of(r.gb, res.ceiling_of(r))} | "
                       f"{'PASS' if r.ok else 'FAIL'} |")
    return out


def sweep_what(sweep):
    """What a chapter's across-N table and chart compare, in one sentence."""
    if sweep.pairs:
        return (f"each workbook kernel against the call of {sweep.cub_label} that computes the same, at each N "
                "(CUB's time over ours).")
    return f"the fastest verified call of {sweep.cub_label} and the fastest verified workbook kernel ({sweep.names}) at each N."


def sweep_table(sweep):
    if sweep.pairs:  # one column per workbook kernel, each against its own CUB call
        out = ["| N | " + " | ".join(sweep.kernels) + " |",
               "| ---: |" + " ---: |" * len(sweep.kernels)]
        for x in sweep.ns:
            cells = [times(sweep.cub_at(k, x).med, sweep.krow[k, x].med) if sweep.cub_at(k, x) and (k, x) in sweep.krow
                     else "-" for k in sweep.kernels]
            out.append(f"| {pow2(x)} | " + " | ".join(cells) + " |")
        return out
    out = ["| N | CUB ms | ours ms | CUB ms / ours ms |", "| ---: | ---: | ---: | ---: |"]
    for x in sweep.ns:
        a = sweep.cub[x].med if x in sweep.cub else 0
        b = sweep.ours[x].med if x in sweep.ours else 0
        out.append(f"| {pow2(x)} | {fmt_ms(a) if a > 0 else '-'} | {fmt_ms(b) if b > 0 else '-'} | {times(a, b)} |")
    return out


def standing_line(res, c):
    """One sentence on chapter c's line of the best table (Results.standing): its kernel, the
    % of the ceiling it is judged against, and how fast it runs against the previous chapter's
    line and against CUB's fastest call in the same run. None for a chapter without such a line."""
    st = res.standing(c)
    if st is None:
        return None
    r = st.row
    what = "The step this chapter teaches" if c in res.stepped else "This chapter's fastest verified kernel"
    kind = "copy" if res.part(c) == "scan" else "read-only"  # as Results.ceiling_of chooses
    said = [f"reaches {pct_of(r.gb, st.ceiling)} of the {kind} ceiling"] if st.ceiling > 0 else []
    against = []
    if st.prev:
        against.append(f"{st.vs_prev} as fast as chapter {st.prev.ch}'s {st.prev.kn} ({fmt_ms(st.prev.med)} ms)")
    if st.cub:
        against.append(f"{st.vs_cub} as fast as CUB's {st.cub.kn} ({fmt_ms(st.cub.med)} ms)")
    if against:
        said.append("runs " + " and ".join(against))
    return f"{what}, {r.kn} ({fmt_ms(r.med)} ms)" + (", " + " and ".join(said) if said else "") + "."


def chapter_block(res, c, date, pagerel, open_block=True):
    """Chapter c's rows for its page, with the bar chart that marks it; the block left open on
    the page (the first GPU's) adds the sentence of standing_line under the table."""
    dev, cc = xml(res.device), res.ceiling_ch
    with_cub = c in res.cub
    if res.is_ceiling(c):
        what = (f"The ceilings are this chapter's fastest copy ({f1(res.copy_ceil)} GB/s) and its read-only sum "
                f"({f1(res.read_ceil)} GB/s); % of ceiling compares each row with the ceiling of its kind.")
    elif (res.copy_ceil if res.part(c) == "scan" else res.read_ceil) <= 0:
        what = f"% of ceiling needs chapter {cc}'s rows, which this run lacks."
    elif res.part(c) == "scan":
        what = f"% of ceiling is against chapter {cc}'s copy ceiling, {f1(res.copy_ceil)} GB/s, measured in the same run."
    else:
        what = f"% of ceiling is against chapter {cc}'s read-only ceiling, {f1(res.read_ceil)} GB/s, measured in the same run."
    if res.part(c) != "scan" and not res.is_ceiling(c) and any(
            res.writes_too(r) for r in res.rows if r.ch == c and r.run == "main") and res.copy_ceil > 0:
        what += f" Rows that also write each element are against its copy ceiling, {f1(res.copy_ceil)} GB/s."
    if with_cub:
        what += f" vs CUB compares with {cub_label(r for r in res.rows if r.ch == c and r.run == 'main')}."
    out = [f"Measured on the {dev} on {date} at N = {pow2(res.main_n)} by `scripts/summary.sh`. {what}", "",
           "| kernel | n | block | batch | median ms | GB/s | % of peak | % of ceiling |" + (" vs CUB |" if with_cub else ""),
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if with_cub else "")]
    for r in res.rows:
        if r.ch != c or r.run != "main":
            continue
        line = (f"| {r.kn if r.ok else r.kn + ' (FAIL)'} | {pow2(r.n)} | {dash0(r.blk)} | {dash0(r.bat)} | "
                f"{fmt_ms(r.med)} | {f1(r.gb)} | {f1(r.pc)}% | {pct_of(r.gb, res.ceiling_of(r))} |")
        if with_cub:
            cub = res.cub_for(r)
            vs = ("" if is_cub(r.kn) or not r.ok or r.n != res.main_n or cub is None
                  or res.ceiling_of(r) != res.ceiling_of(cub) else times(cub.med, r.med))
            line += f" {vs} |"
        out.append(line)
    out.append("")
    said = standing_line(res, c) if open_block else None
    if said:
        out += [said, ""]
    if res.only == c:
        out.append(f"![GB/s of each kernel of chapter {c} on the {dev}]({pagerel}{res.base}-chapter{c}.svg)")
    elif res.has_mark(c):
        out.append(f"![Best GB/s per chapter on the {dev}, chapter {c} marked]({pagerel}{res.base}-chapter{c}.svg)")
    else:
        out.append(f"![Best GB/s per chapter on the {dev}]({pagerel}{res.base}.svg)")
    out += ["", f"Every chapter's kernels, the charts and the CSV: [Results on the {dev}]({pagerel}{res.base}.md)."]
    return out


def page_title(res, only=None):
    """The title of a CSV's results page, which the site's sidebar lists beside the other GPUs'
    and runs' pages, so that each says what it is, the part that tells them apart early enough to
    show in its narrow column: "H200 results: chapters 00 to 19", or, for a chapter measured in a
    run of its own, "H200 results: chapter 20's own run"."""
    what = f"chapter {only}'s own run" if only else f"chapters {res.chs[0]} to {res.chs[-1]}"
    return f"{xml(common.gpu_short(res.device))} results: {what}"


def results_page(res, date, uprel, slugs, only=None):
    """<gpu>.md: everything, for people browsing docs/results/ (links relative to it); `only`:
    the chapter of a run of its own (render --chapter)."""
    dev, base, facts = xml(res.device), res.base, res.facts
    red, scan = facts.first("reduction"), facts.first("scan")
    with_ceiling = f" in a run with chapter {res.ceiling_ch}, whose ceilings it is measured against" if only else ""
    out = [f"# {page_title(res, only)}", "",
           f"Measured on the {dev} on {date} at N = {pow2(res.main_n)} ({f0(res.main_n)} elements) by "
           f"`scripts/summary.sh run`{with_ceiling}; "
           f"every number below comes from [{base}.csv]({base}.csv)."]
    if res.read_ceil > 0 and res.copy_ceil > 0:
        out.append(f"Theoretical peak {f0(res.peak)} GB/s; ceilings measured by chapter {res.ceiling_ch} in the same run: "
                   f"read-only {f1(res.read_ceil)} GB/s, copy {f1(res.copy_ceil)} GB/s.")
    else:
        out.append(f"Theoretical peak {f0(res.peak)} GB/s; no ceilings: this CSV lacks chapter {res.ceiling_ch}'s rows.")
    out += ["Reductions (4N bytes) are compared with the read-only ceiling, scans (8N bytes) with the copy ceiling.",
            "Each chapter's line is the step it teaches where scripts/steps.txt names one, else its fastest verified kernel (CUB",
            f"not counted); \"vs previous\" and \"{vs_first_label(facts)}\" are",
            f"speedups over the previous chapter of the same part and over its first chapter ({red} for reductions,",
            f"{scan} for scans); \"vs CUB\" is CUB's time over ours, so above 1 means faster than CUB."]
    if res.cub_label:
        out.append(f"The CUB calls ran {res.cub_label}, the CUB these programs were built with.")
    if res.only:
        out += ["", f"![GB/s of each kernel of chapter {res.only} on the {dev}]({base}-chapter{res.only}.svg)"]
    else:
        out += ["", f"![Best GB/s per chapter on the {dev}]({base}.svg)"]
    out += ["", "## Best kernel per chapter", ""]
    out += best_table(res, uprel, slugs)
    if res.alone:
        out += ["", "## Each change alone", ""] + alone_table(res, uprel, slugs)
    out += ["", "## Every kernel", ""] + all_table(res)
    for c, sweep in res.sweeps.items():
        out += ["", f"## Chapter {c}: CUB against the workbook across N", "",
                f"From the sweep of {chapter_link(c, uprel, slugs)}: {sweep_what(sweep)}", "",
                f"![CUB's time over ours against N, chapter {c}]({base}-chapter{c}-across-n.svg)", ""]
        out += sweep_table(sweep)
    marked = ", ".join(f"[{c}]({base}-chapter{c}.svg)" for c in res.chs if res.has_mark(c))
    if marked and not res.only:
        out += ["", "## Charts of each chapter", "",
                f"Each chapter's page shows the chart above with its own bars outlined and the others faded (chapter {res.ceiling_ch}'s:",
                f"its two ceiling lines drawn thick): {marked}."]
    return out


def readme_table(res, date, slugs, own=()):
    """The README's block for one GPU, short (the README is read first, and kept under 10 KB):
    one row per chapter, its line of the tables (Results.standing) with CUB folded into its
    "vs CUB" column, and for the ceiling chapter the two kernels that set the ceilings; then a
    row per chapter measured in a run of its own (`own`, from own_runs), against that run's
    ceilings and CUB, its "vs previous" empty (the previous chapter ran in another run).
    Links relative to the repository root; the results pages and the chart are linked by
    readme_text."""
    dev, cc = xml(res.device), res.ceiling_ch
    out = [f"Each chapter's step (else its fastest verified kernel) on the {dev}, measured on {date} at N = {pow2(res.main_n)}. "
           f"% of ceiling is against chapter {cc}'s read-only ceiling for a reduction, its copy ceiling for a scan; "
           "vs previous and vs CUB are the previous chapter's and CUB's time over this one's (above 1: faster)"
           + (f"; vs CUB compares with {res.cub_label}." if res.cub_label else "."), "",
           "| chapter | kernel | median ms | GB/s | % of ceiling | vs previous | vs CUB |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for c in res.chs:
        link = chapter_link(c, "", slugs)
        if res.is_ceiling(c):
            for kind, r in (("copy", res.copy_row), ("read-only", res.read_row)):
                if r:
                    out.append(f"| {link} | {r.kn} ({kind} ceiling) | {fmt_ms(r.med)} | {f1(r.gb)} | 100.0% |  |  |")
            continue
        st = res.standing(c)
        if st is None:
            out.append(f"| {link} | no verified kernel at N = {pow2(res.main_n)} |  |  |  |  |  |")
            continue
        r = st.row
        out.append(f"| {link} | {r.kn} | {fmt_ms(r.med)} | {f1(r.gb)} | {pct_of(r.gb, st.ceiling)} | {st.vs_prev} | {st.vs_cub} |")
    own = [(c, other, day) for c, other, day in own if c not in res.chs and other.standing(c) is not None]
    for c, other, day in own:
        st = other.standing(c)
        r = st.row
        out.append(f"| {chapter_link(c, '', slugs)} | {r.kn} | {fmt_ms(r.med)} | {f1(r.gb)} | {pct_of(r.gb, st.ceiling)} |  | "
                   f"{st.vs_cub} |")
    if own:
        runs = ", ".join(f"{c} on {day}" for c, _, day in own)
        out += ["", f"Measured in runs of their own with chapter {res.ceiling_ch} ({runs}), against those runs' "
                    "ceilings and CUB; vs previous is left empty there."]
    return out


def own_runs(csv_path, facts_for):
    """The chapters measured in runs of their own beside a CSV <base>.csv: its folder's
    <base>-run-chapterNN.csv, each as (NN, Results of that run, the date its page shows), in
    chapter order. Nothing is written."""
    outdir = os.path.dirname(os.path.abspath(csv_path))
    base = os.path.basename(csv_path)[:-len(".csv")] if csv_path.endswith(".csv") else os.path.basename(csv_path)
    out = []
    for path in sorted(glob.glob(os.path.join(outdir, f"{glob.escape(base)}-run-chapter[0-9][0-9].csv"))):
        c = path[-6:-4]
        records, rows = common.read_csv(path, REQUIRED), read_rows(path)
        facts = facts_for(sorted({r.ch for r in rows}))
        if not rows or facts.missing:
            continue
        page = path[:-len(".csv")] + ".md"
        shown = re.search(r"\b(20\d\d-\d\d-\d\d)\b", open(page, encoding="utf-8").read()) if os.path.isfile(page) else None
        out.append((c, Results(rows, records, base, facts, common.steps_rules(), c),
                    shown.group(1) if shown else common.file_date(path)))
    return out


def readme_text(blocks):
    """The README's summary block from the blocks of every CSV: the first GPU's table, a line
    linking each GPU's results page (which keeps the full tables), and the first GPU's chart."""
    first = blocks[0]
    pages = ", ".join(f"[Results on the {xml(b['device'])}]({b['page']})" for b in blocks)
    return (first["summary.md"] + "\n" + f"Every kernel, each change alone and CUB's own rows: {pages}.\n\n"
            f"![Best GB/s per chapter on the {xml(first['device'])}]({first['chart']})\n")


def sweep_block(res, c, date, pagerel):
    """The across-N block of chapter c's page."""
    dev, sweep = xml(res.device), res.sweeps[c]
    out = [f"CUB against the workbook across N on the {dev}, measured on {date} with L2 flushed before each timed run:",
           sweep_what(sweep), "",
           f"![CUB's time over ours against N on the {dev}]({pagerel}{res.base}-chapter{c}-across-n.svg)", ""]
    out += sweep_table(sweep)
    where = "in a column" if sweep.pairs else "in the last column"
    out += ["", f"Above 1 {where}, and above the line marked \"tie\" in the chart, the workbook's kernel is faster."]
    return out


# ---- render: charts ------------------------------------------------------------------------

BLUE, ORANGE, GREY = "#4e79a7", "#f28e2b", "#9d9d9d"


def ref_line(s, labels, color, dashed, label, x1, x2, y, strong):
    """A horizontal reference line across the plot, its label placed later (RefLabels);
    `strong` draws it thicker with a bold label (the lines a marked chapter measured)."""
    s.add(S.el("line", (("x1", S.whole(x1)), ("y1", S.f1(y)), ("x2", S.whole(x2)), ("y2", S.f1(y)), ("stroke", color),
                        ("stroke-width", "3.5" if strong else "1.5"), ("stroke-dasharray", "6 4" if dashed else None))))
    labels.add(y + 4, label, color, strong)


def y_axis(s, left, right, top, ph, ymax, step):
    """Gridlines and labels of a GB/s axis from 0 to ymax."""
    for v in S.ticks(0, ymax, step):
        y = top + ph - v / ymax * ph
        s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.f1(y)), ("x2", S.whole(right)), ("y2", S.f1(y)), ("stroke", "#dddddd"))))
        s.add(S.el("text", (("x", S.whole(left - 6)), ("y", S.f1(y + 4)), ("text-anchor", "end"), ("fill", "#555555")), "%g" % v))
    s.add(S.el("text", (("transform", "rotate(-90)"), ("x", S.whole(-(top + ph / 2))), ("y", "18"), ("text-anchor", "middle"),
                        ("fill", "#333333")), "GB/s"))


def n_axis(s, left, pw, top, ph, kmin, kmax):
    """Ticks 2^kmin .. 2^kmax of a log2 N axis under a plot, and its title."""
    k = int(kmin)
    while k <= kmax:
        x = left + (k - kmin) / (kmax - kmin) * pw if kmax > kmin else left + pw / 2
        s.add(S.el("line", (("x1", S.f1(x)), ("y1", S.whole(top + ph)), ("x2", S.f1(x)), ("y2", S.whole(top + ph + 4)),
                            ("stroke", "#333333"))))
        s.add(S.el("text", (("x", S.f1(x)), ("y", S.whole(top + ph + 20)), ("text-anchor", "middle"), ("fill", "#333333")),
                   "2" + S.el("tspan", (("dy", "-6"), ("font-size", "9")), "%d" % k)))
        k += 1
    s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.whole(top + ph)), ("x2", S.whole(left + pw)), ("y2", S.whole(top + ph)),
                        ("stroke", "#333333"))))
    s.add(S.el("text", (("x", S.f1(left + pw / 2)), ("y", S.whole(top + ph + 40)), ("text-anchor", "middle"), ("fill", "#333333")),
               "N (elements, log2 axis)"))


def bar_chart(res, date, mark=""):
    """Each chapter's best GB/s (and CUB's, in grey) against the ceilings and the peak. With
    `mark` (a chapter) its bars are outlined in black and labelled "this chapter" under the
    axis, the others faded (lighter in grey-scale too); for the ceiling chapter, which has no
    bar, its two ceiling lines are drawn thick and labelled."""
    bars = []  # (colour, GB/s, label under the axis, marked)
    for c in res.chs:
        if c in res.best:
            bars.append((ORANGE if res.part(c) == "scan" else BLUE, res.best[c].gb, c, c == mark))
        if c in res.cub:
            bars.append((GREY, res.cub[c].gb, "CUB", c == mark))
    mark_ceiling = mark != "" and res.is_ceiling(mark)
    left, top, ph, slot, bw = 70, 64, 300, 40, 26
    right = left + 10 + len(bars) * slot
    w, h = right + (250 if mark_ceiling else 200), top + ph + 78
    w = max(w, 580)
    if mark != "":
        w = max(w, left + 690)  # the legend's "this chapter" entry
    vmax = max([res.peak, res.read_ceil, res.copy_ceil] + [b[1] for b in bars])
    if vmax <= 0:
        vmax = 1
    step = S.nice_step(vmax * 1.05)
    ymax = step / 2 * int((vmax * 1.05) / (step / 2) + 0.999999)
    title = f"Best GB/s per chapter: {xml(res.device)}, N = {pow2(res.main_n)}"
    # What a bar is: the chapter's line of the tables (Results: its step, else its fastest).
    subtitle = f"measured {date}; bar: the chapter's step (steps.txt), else its fastest verified kernel; reductions move 4N bytes, scans 8N"
    if mark_ceiling:
        title += f", chapter {mark} marked"
        subtitle += f"; chapter {mark} measured the two thick ceiling lines"
    elif mark != "":
        title += f", chapter {mark} marked"
        subtitle += f"; chapter {mark}'s bars outlined, the others faded"
    w = max(w, 40 + S.text_width(subtitle))  # wide enough for the subtitle on few bars
    s = S.titled(w, h, title, subtitle)
    y_axis(s, left, right, top, ph, ymax, step)
    marked_x, values = [], []
    for i, (col, value, label, marked) in enumerate(bars):
        x = left + 10 + i * slot + (slot - bw) / 2
        y = top + ph - value / ymax * ph
        bold = "bold" if marked else None
        s.add(S.el("rect", (("x", S.f1(x)), ("y", S.f1(y)), ("width", S.whole(bw)), ("height", S.f1(top + ph - y)), ("fill", col),
                            ("stroke", "#000000" if marked else None), ("stroke-width", "2.5" if marked else None),
                            ("fill-opacity", "0.35" if mark != "" and not marked else None))))
        values.append(S.el("text", (("x", S.f1(x + bw / 2)), ("y", S.f1(y - 4)), ("text-anchor", "middle"), ("font-size", "10"),
                                    ("fill", "#333333"), ("font-weight", bold)) + S.HALO, "%.0f" % value))
        s.add(S.el("text", (("x", S.f1(x + bw / 2)), ("y", S.whole(top + ph + 16)), ("text-anchor", "middle"),
                            ("fill", "#333333"), ("font-weight", bold)), label))
        if marked:
            marked_x += [x, x + bw]
    s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.whole(top + ph)), ("x2", S.whole(right)), ("y2", S.whole(top + ph)),
                        ("stroke", "#333333"))))
    s.add(S.el("text", (("x", S.whole(left - 6)), ("y", S.whole(top + ph + 16)), ("text-anchor", "end"), ("fill", "#333333")),
               "chapter"))
    if marked_x:  # "this chapter" under the marked bars: a bracket and the words
        x1, x2 = marked_x[0], marked_x[-1]
        s.add(S.el("path", (("d", f"M{S.f1(x1)} {S.whole(top + ph + 21)} V{S.whole(top + ph + 25)} H{S.f1(x2)} "
                                  f"V{S.whole(top + ph + 21)}"), ("fill", "none"), ("stroke", "#000000"), ("stroke-width", "1.5"))))
        s.add(S.el("text", (("x", S.f1((x1 + x2) / 2)), ("y", S.whole(top + ph + 39)), ("text-anchor", "middle"),
                            ("font-weight", "bold"), ("fill", "#000000")), "this chapter"))
    labels = S.RefLabels()
    own = ": this chapter" if mark_ceiling else ""
    if res.peak > 0:
        ref_line(s, labels, "#d62728", False, "theoretical peak %.0f GB/s" % res.peak, left, right,
                 top + ph - res.peak / ymax * ph, False)
    if res.read_ceil > 0:
        ref_line(s, labels, "#2ca02c", True, "read ceiling %.0f GB/s%s" % (res.read_ceil, own), left, right,
                 top + ph - res.read_ceil / ymax * ph, mark_ceiling)
    if res.copy_ceil > 0:
        ref_line(s, labels, "#9467bd", True, "copy ceiling %.0f GB/s%s" % (res.copy_ceil, own), left, right,
                 top + ph - res.copy_ceil / ymax * ph, mark_ceiling)
    labels.place(s, right + 8)
    for value in values:  # over the reference lines, each in its halo
        s.add(value)
    y = top + ph + 64
    for dx, col, text in ((0, BLUE, "reduction (vs read ceiling)"), (200, ORANGE, "scan (vs copy ceiling)"), (370, GREY, "CUB")):
        s.add(legend_box(left + dx, y, col), legend_text(left + dx + 18, y, text))
    if mark_ceiling:
        s.add(S.el("line", (("x1", S.whole(left + 440)), ("y1", S.whole(y - 4)), ("x2", S.whole(left + 470)), ("y2", S.whole(y - 4)),
                            ("stroke", "#333333"), ("stroke-width", "3.5"), ("stroke-dasharray", "6 4"))),
              legend_text(left + 476, y, "this chapter: the two ceilings (the bars faded)"))
    elif mark != "":
        s.add(legend_box(left + 440, y, "#ffffff", (("stroke", "#000000"), ("stroke-width", "2.5"))),
              legend_text(left + 458, y, "this chapter (the others faded)"))
    return s


STEP_LEGEND = "the step this chapter teaches (bold)"


def kernels_chart(res, date, c):
    """The chart of a chapter measured in a run of its own, with chapter 00 only: one bar per
    verified kernel of chapter c at main N, in the CSV's order, each labelled with its GB/s and
    its share of the ceiling it is judged against (Results.ceiling_of), against the theoretical
    peak and the two ceilings of the same run. CUB's calls are grey; the step the chapter teaches
    (scripts/steps.txt), where it names one, is outlined, its name bold."""
    rows = [r for r in res.at_main(c) if not res.is_ceiling(r.ch)]
    step = res.best.get(c) if c in res.stepped else None
    dev = xml(res.device)
    names = [xml(r.kn) for r in rows]
    left = 30 + max([S.text_width(n) for n in names] + [60])
    top, row, bw, pw = 96, 24, 16, 460
    right = left + pw
    bottom = top + max(len(rows), 1) * row
    vmax = max([res.peak, res.read_ceil, res.copy_ceil] + [r.gb for r in rows] + [1])
    step_x = S.nice_step(vmax)
    xmax = S.ceil_to(vmax * 1.02, step_x)
    title = f"Chapter {c}'s kernels: {dev}, N = {pow2(res.main_n)}"
    subtitle = (f"measured {date} in a run of chapters {res.ceiling_ch} and {c} alone; "
                "each verified kernel's GB/s and % of its ceiling")
    x_col = left + vmax / xmax * pw + 10  # the values, in a column right of every line
    entries = [(BLUE, "judged against the read ceiling"), (ORANGE, "against the copy ceiling"), (GREY, "CUB")]
    legend_end = left + sum(44 + S.text_width(text) for _, text in entries) + (
        18 + S.text_width(STEP_LEGEND) if step is not None else 0)
    w = max(int(x_col) + 170, 40 + S.text_width(subtitle), legend_end + 20, 700)
    s = S.titled(w, bottom + 80, title, subtitle)

    def x_of(v):
        return left + v / xmax * pw

    for v in S.ticks(0, xmax, step_x):  # the GB/s axis, at the bottom
        s.add(S.el("line", (("x1", S.f1(x_of(v))), ("y1", S.whole(top - 6)), ("x2", S.f1(x_of(v))), ("y2", S.whole(bottom)),
                            ("stroke", "#dddddd"))),
              S.el("text", (("x", S.f1(x_of(v))), ("y", S.whole(bottom + 16)), ("text-anchor", "middle"), ("fill", "#555555")),
                   "%g" % v))
    s.add(S.el("text", (("x", S.f1(left + pw / 2)), ("y", S.whole(bottom + 34)), ("text-anchor", "middle"), ("fill", "#333333")),
               "GB/s"))
    # The peak and the ceilings: vertical lines, named in a row above the plot.
    refs = [(res.peak, "#d62728", None, "theoretical peak %.0f GB/s"), (res.read_ceil, "#2ca02c", "6 4", "read ceiling %.0f GB/s"),
            (res.copy_ceil, "#9467bd", "6 4", "copy ceiling %.0f GB/s")]
    x = 20
    for value, color, dash, label in refs:
        if value <= 0:
            continue
        s.add(S.el("line", (("x1", S.f1(x_of(value))), ("y1", S.whole(top - 6)), ("x2", S.f1(x_of(value))),
                            ("y2", S.whole(bottom)), ("stroke", color), ("stroke-width", "1.5"), ("stroke-dasharray", dash))))
        s.add(S.el("line", (("x1", S.whole(x)), ("y1", "72"), ("x2", S.whole(x + 24)), ("y2", "72"), ("stroke", color),
                            ("stroke-width", "1.5"), ("stroke-dasharray", dash))),
              S.el("text", (("x", S.whole(x + 30)), ("y", "76"), ("fill", color)), label % value))
        x += 54 + S.text_width(label % value)
    labels = []
    for i, (r, name) in enumerate(zip(rows, names)):
        y = top + i * row + (row - bw) / 2
        ceiling = res.ceiling_of(r)
        color = GREY if is_cub(r.kn) else ORANGE if ceiling == res.copy_ceil and ceiling != res.read_ceil else BLUE
        marked = step is not None and r == step
        s.add(S.el("text", (("x", S.whole(left - 8)), ("y", S.f1(y + bw - 4)), ("text-anchor", "end"), ("fill", "#333333"),
                            ("font-weight", "bold" if marked else None)), name))
        s.add(S.el("rect", (("x", S.whole(left)), ("y", S.f1(y)), ("width", S.f1(x_of(r.gb) - left)), ("height", S.whole(bw)),
                            ("fill", color), ("stroke", "#000000" if marked else None), ("stroke-width", "2.5" if marked else None))))
        kind = "copy" if ceiling == res.copy_ceil else "read"
        said = f"{f1(r.gb)} ({pct_of(r.gb, ceiling)} of {kind})" if ceiling > 0 else f1(r.gb)
        labels.append(S.el("text", (("x", S.f1(x_col)), ("y", S.f1(y + bw - 4)), ("font-size", "11"), ("fill", "#333333"),
                                    ("font-weight", "bold" if marked else None)), said))
    for label in labels:
        s.add(label)
    y = bottom + 62
    x = left
    for col, text in entries:
        s.add(legend_box(x, y, col), legend_text(x + 18, y, text))
        x += 44 + S.text_width(text)
    if step is not None:
        s.add(legend_box(x, y, "#ffffff", (("stroke", "#000000"), ("stroke-width", "2.5"))),
              legend_text(x + 18, y, STEP_LEGEND))
    return s


def legend_box(x, y, color, extra=()):
    """A legend's 12-pixel swatch whose bottom sits 2 pixels above the text baseline y."""
    return S.el("rect", (("x", S.whole(x)), ("y", S.whole(y - 10)), ("width", "12"), ("height", "12"), ("fill", color)) + tuple(extra))


def legend_text(x, y, text):
    return S.el("text", (("x", S.whole(x)), ("y", S.whole(y))), text)


PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1")
DASHES = ("none", "7 3", "2 3", "9 3 2 3")  # the first series is solid; a fifth: "none"


def marker(i, x, y, col, tip):
    """A point marker for series i (circle, square, diamond, triangle), different in grey-scale too."""
    shape = i % 4
    title = S.el("title", (), tip)
    if shape == 0:
        return S.el("circle", (("cx", S.f1(x)), ("cy", S.f1(y)), ("r", "3.5"), ("fill", col)), title)
    if shape == 1:
        return S.el("rect", (("x", S.f1(x - 3.5)), ("y", S.f1(y - 3.5)), ("width", "7"), ("height", "7"), ("fill", col)), title)
    if shape == 2:
        return S.el("path", (("d", f"M{S.f1(x)} {S.f1(y - 4.5)}l4.5 4.5l-4.5 4.5l-4.5 -4.5z"), ("fill", col)), title)
    return S.el("path", (("d", f"M{S.f1(x)} {S.f1(y - 4.5)}l4.5 8l-9 0z"), ("fill", col)), title)


def across_chart(res, c, date):
    """CUB's time over each workbook kernel's time against N (log2 axis) for chapter c's sweep,
    with a dashed line at 1.0, the tie: above it the workbook's kernel is faster. None when no N
    has both."""
    sweep = res.sweeps[c]

    def points(k):
        """(N, ratio) of kernel k at each N that has a CUB call too."""
        return [(x, sweep.cub_at(k, x).med / sweep.krow[k, x].med) for x in sweep.ns
                if (k, x) in sweep.krow and sweep.cub_at(k, x)]

    every = [p for k in sweep.kernels for p in points(k)]
    if not every:
        return None
    kmin, kmax = min(log2(x) for x, _ in every), max(log2(x) for x, _ in every)
    lo, hi = min([1] + [v for _, v in every]), max([1] + [v for _, v in every])
    span = hi - lo
    if span < 0.2:
        lo -= (0.2 - span) / 2
        hi += (0.2 - span) / 2
        span = 0.2
    step = S.nice_step(span)
    ylo, yhi = max(S.floor_to(lo, step), 0), S.ceil_to(hi, step)
    left, top, ph = 70, 64, 300
    pw = max((kmax - kmin) * 30, 360)
    right = left + pw
    w, h = max(right + 130, 580), top + ph + 66 + 18 * len(sweep.kernels)
    dev = xml(res.device)
    s = S.titled(w, h, f"Chapter {c}: CUB's time over ours against N, {dev}",
                 f"measured {date}; L2 flushed before each timed run; above the tie line the workbook's kernel is faster")
    for v in S.ticks(ylo, yhi, step):  # the ratio axis
        y = top + ph - (v - ylo) / (yhi - ylo) * ph
        s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.f1(y)), ("x2", S.whole(right)), ("y2", S.f1(y)), ("stroke", "#dddddd"))))
        s.add(S.el("text", (("x", S.whole(left - 6)), ("y", S.f1(y + 4)), ("text-anchor", "end"), ("fill", "#555555")), "%.2f" % v))
    s.add(S.el("text", (("transform", "rotate(-90)"), ("x", S.whole(-(top + ph / 2))), ("y", "18"), ("text-anchor", "middle"),
                        ("fill", "#333333")), "CUB time / our time"))
    n_axis(s, left, pw, top, ph, kmin, kmax)
    ty = top + ph - (1 - ylo) / (yhi - ylo) * ph  # the tie, and which side is whose
    s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.f1(ty)), ("x2", S.whole(right)), ("y2", S.f1(ty)), ("stroke", "#222222"),
                        ("stroke-width", "1.5"), ("stroke-dasharray", "6 4"))))
    s.add(S.el("text", (("x", S.whole(right + 8)), ("y", S.f1(ty + 4)), ("font-weight", "bold"), ("fill", "#222222")), "tie (1.0)"))
    s.add(S.el("text", (("x", S.whole(right + 8)), ("y", S.f1(ty - 12)), ("fill", "#555555")), "ours faster"))
    s.add(S.el("text", (("x", S.whole(right + 8)), ("y", S.f1(ty + 22)), ("fill", "#555555")), "CUB faster"))
    for i, k in enumerate(sweep.kernels):
        col, dash = PALETTE[i % 4], DASHES[i % 4] if i > 0 else None
        pts = [(x, v, left + (log2(x) - kmin) / (kmax - kmin) * pw if kmax > kmin else left + pw / 2,
                top + ph - (v - ylo) / (yhi - ylo) * ph) for x, v in points(k)]
        s.add(S.el("polyline", (("fill", "none"), ("stroke", col), ("stroke-width", "2"), ("stroke-dasharray", dash),
                                ("points", " ".join(f"{S.f1(px)},{S.f1(py)}" for _, _, px, py in pts)))))
        for x, v, px, py in pts:
            s.add(marker(i, px, py, col, f"{pow2(x)}: %.2fx" % v))
        y = top + ph + 66 + 18 * i
        s.add(S.el("line", (("x1", S.whole(left)), ("y1", S.whole(y - 4)), ("x2", S.whole(left + 28)), ("y2", S.whole(y - 4)),
                            ("stroke", col), ("stroke-width", "2"), ("stroke-dasharray", dash))))
        s.add(marker(i, left + 14, y - 4, col, xml(k)))
        against = f"time of {xml(sweep.pairs[k])}" if sweep.pairs else "fastest CUB call's time"
        s.add(legend_text(left + 36, y, f"{against} / time of {xml(k)}"))
    return s


# ---- render --------------------------------------------------------------------------------

def text_of(lines):
    return "\n".join(lines) + "\n"


def render_one(csv_path, date, facts_for, slugs, first=True, only=None):
    """Render one CSV (`first`: the first given, whose blocks stay open on the pages; `only`: the
    chapter of a run of its own): write its page and charts beside it; return its device's name
    and page blocks
    {"device": name, "summary.md": text, "chapterNN.md": text, "sweepNN.md": text}."""
    try:
        records = common.read_csv(csv_path, REQUIRED)
        rows = read_rows(csv_path)
    except common.CsvError as e:
        say(f"{e}: not the workbook's results CSV")
        return None
    if not rows:
        say(f"{csv_path} holds no result rows")
        return None
    facts = facts_for(sorted({r.ch for r in rows}))
    if facts.missing:
        say(f"{csv_path}: chapter(s) {' '.join(facts.missing)} unknown: not in docs/results/chapters.json "
            "(write it with `python3 scripts/wb.py info --write`) and not built")
        return None
    outdir = os.path.abspath(os.path.dirname(csv_path))
    base = os.path.basename(csv_path)[:-len(".csv")] if csv_path.endswith(".csv") else os.path.basename(csv_path)
    rel, pagerel, uprel = common.result_paths(outdir)
    res = Results(rows, records, base, facts, common.steps_rules(), only)
    with open(os.path.join(outdir, base + ".md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(text_of(results_page(res, date, uprel, slugs, only)))
    if only is None:
        bar_chart(res, date).write(os.path.join(outdir, base + ".svg"))
    elif only in res.chs:
        # A run of chapter 00 and one chapter: a chart of that chapter's kernels, not of two bars
        # (its step and its CUB call) among no other chapters.
        kernels_chart(res, date, only).write(os.path.join(outdir, f"{base}-chapter{only}.svg"))
    img = rel + "/" if rel else ""
    own = own_runs(csv_path, facts_for) if only is None else []
    blocks = {"device": res.device, "page": f"{img}{base}.md", "chart": f"{img}{base}.svg",
              "summary.md": text_of(readme_table(res, date, slugs, own))}
    for c in res.chs:
        if res.has_mark(c) and only is None:
            bar_chart(res, date, c).write(os.path.join(outdir, f"{base}-chapter{c}.svg"))
        blocks[f"chapter{c}.md"] = text_of(chapter_block(res, c, date, pagerel, first))
        if c in res.sweeps:
            chart = across_chart(res, c, date)
            if chart:
                chart.write(os.path.join(outdir, f"{base}-chapter{c}-across-n.svg"))
            blocks[f"sweep{c}.md"] = text_of(sweep_block(res, c, date, pagerel))
    across = " ".join(os.path.basename(p) for p in sorted(glob.glob(os.path.join(outdir, f"{base}-chapter[0-9][0-9]-across-n.svg"))))
    print(f"summary: wrote {outdir}/{base}.md, {base}.svg, a chart per chapter" + (f"; across N: {across}" if across else ""),
          flush=True)
    return blocks


def splice_page(path, blocks, name, markers):
    """Splice the block `name` of every CSV into a page, between the lines of the first marker
    it has: the first CSV's open, the others folded (common.fold_gpus); say what happened.
    Returns 0, or 1 when the page could not be written."""
    joined = common.fold_gpus([(b["device"], b[name]) for b in blocks if name in b])
    if not joined:
        return 0
    shown = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
    if not os.path.isfile(path):
        say(f"{shown}: no such file; its {markers[0]} block was not written")
        return 0
    for marker in markers:
        try:
            rc = common.splice(path, f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->", joined)
        except OSError as e:
            say(f"{shown}: {e.strerror}")
            return 1
        if rc != 3:
            return 0
    tried = " or ".join(f"<!-- {m}:begin --> / <!-- {m}:end -->" for m in markers)
    say(f"{shown}: no {tried} lines; left as it was")
    return 0


def do_render(argv, bin_dir=None):
    """summary render [--chapter NN] [--date D] CSV...: pages, charts and page blocks (see the
    top). With --chapter, only chapter NN's page blocks are written (not README.md's): for a
    chapter measured in a run of its own, <gpu>-run-chapterNN.csv, which holds chapter 00's rows
    of that run beside its own, so that its ceilings come from the same run."""
    only = None
    if "--chapter" in argv:
        at = argv.index("--chapter")
        only = argv[at + 1] if at + 1 < len(argv) else ""
        if not re.fullmatch(r"\d\d", only):
            raise common.Usage("--chapter needs a two-digit chapter number, e.g. --chapter 19")
        argv = argv[:at] + argv[at + 2:]
    date, csvs = common.render_args(argv)
    slugs = common.chapter_dirs()
    known = {}

    def facts_for(ids):
        key = tuple(ids)
        if key not in known:
            known[key] = Facts(ids, bin_dir)
        return known[key]

    blocks = []
    for path in csvs:
        if not os.path.isfile(path):
            say(f"{path}: no such file")
            return 2
        day = date or common.file_date(path)
        got = render_one(path, day, facts_for, slugs, not blocks, only)
        if got is None:
            return 1
        blocks.append(got)
    status = 0
    if only is None:
        status = splice_page(os.path.join(ROOT, "README.md"), [{"device": "", "readme": readme_text(blocks)}], "readme",
                             ["summary"])
    for c, slug in slugs.items():
        if only is not None and c != only:
            continue
        page = os.path.join(ROOT, "chapters", f"{c}-{slug}", "README.md")
        status |= splice_page(page, blocks, f"chapter{c}.md", ["results"])
        status |= splice_page(page, blocks, f"sweep{c}.md", ["across-n", "sweep"])
    if status == 0:
        print(f"summary: chapter {only}'s page is up to date" if only else "summary: README.md and the chapter pages are up to date")
    return status


def main(argv):
    # `all` renders with the programs it ran at hand: a chapter that chapters.json lacks is
    # asked with --info (Facts).
    bin_dir = None
    if argv[:1] == ["all"] and "--bin-dir" in argv:
        at = argv.index("--bin-dir")
        bin_dir = argv[at + 1] if at + 1 < len(argv) else None
    return common.run_render_main(SCRIPT, argv, USAGE, do_run, lambda a: do_render(a, bin_dir))
