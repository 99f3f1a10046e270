"""`wb.py sweep` (scripts/sweep.sh): run one chapter over a grid of --block and --batch values
and show where it is fastest: a GB/s matrix (rows: block size, columns: K), the best cell, and
per block size the occupancy the chapter reports (its blocks_per_sm column). The grid is kept as
a CSV, and `sweep.sh render` writes it as Markdown into a chapter page between the lines
<!-- sweep:begin --> and <!-- sweep:end -->.

Each cell is one run of the chapter with --csv and few repetitions, so a grid costs
(blocks x batches) x (start-up, input generation and checks, about a second at the default
N = 2^28, + a few ms of kernels): the default grid of chapter 09 (6 x 7 cells) should take
about a minute on an H200 (an estimate; --n 2^30 costs about four times as much per cell).

--grid-study repeats the experiments of comeradealexi's "CUDA Parallel Sum Benchmarks"
(github.com/comeradealexi/CUDAParallelAddBenchmarks): block sizes 32 to 1024 and 1 to 32768
values per thread, on a 512 MiB input read once (N = 2^27, L2 flushed) and on a 4 MiB input
read many times (N = 2^20, --no-flush, 64 runs), where the input stays in L2 and the atomics,
not memory, set the pace. docs/pages/block-batch-grid.md shows its tables on the H200."""

import csv
import io
import os
import re
import sys
import time

from . import common
from .common import Usage

SCRIPT = "sweep.sh"

DEFAULT_BLOCKS = "32 64 128 256 512 1024"
DEFAULT_BATCHES = "1 2 4 8 16 32 64"
STUDY_BATCHES = "1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768"

# The columns of a sweep CSV, in the order run writes them.
COLUMNS = ("chapter", "kernel", "n", "flush", "reps", "block", "batch", "median_ms", "gbps",
           "blk_per_sm", "check", "device")

USAGE = f"""usage: scripts/sweep.sh CHAPTER [options]
       scripts/sweep.sh render CSV [PAGE] [--date YYYY-MM-DD]

Run CHAPTER (09, 9 or chapter09) once per cell of a --block x --batch grid and print a GB/s
matrix per kernel, the best cell and the occupancy per block size; keep the grid as a CSV.

  --blocks "LIST"    block sizes (default "{DEFAULT_BLOCKS}")
  --batches "LIST"   values of K, --batch (default "{DEFAULT_BATCHES}")
  --n "LIST"         input sizes, one grid each (default 2^28; 2^30 is the chapters' default)
  --no-flush         keep L2 warm between timed runs (an input smaller than L2 then stays there)
  --reps R           timed runs per cell (default 5); --warmup W untimed ones first (default 1)
  --variant V        passed to the chapter (e.g. all: one matrix per kernel)
  --grid-study       the full grid of "CUDA Parallel Sum Benchmarks": blocks 32..1024,
                     K = 1..32768, at N = 2^27 (512 MiB, L2 flushed, 5 runs) and at
                     N = 2^20 (4 MiB, --no-flush, 64 runs)
  --out FILE         the CSV (default build/sweep/chapterNN.csv)
  --render           then write the tables into the chapter's page (as sweep.sh render does)
  --bin-dir DIR      where chapterNN is (default: repository root, then build/)
  -h, --help         this text

render writes the tables of CSV between <!-- sweep:begin --> and <!-- sweep:end --> in PAGE
(default: chapters/NN-*/README.md of the CSV's chapter); the date is --date, else the CSV's
modification time. A chapter without --block or --batch gets one row or one column.
Cells: GB/s; "-" the chapter refused the value; FAIL wrong result; ERR another failure.
Exit: 0 every cell verified or refused; 1 a cell failed; 2 bad usage; 77 no GPU (1 when REQUIRE_GPU=1).
"""


# ---- reading a sweep CSV -------------------------------------------------------------------

class Grid:
    """The cells of one sweep grid: one input size N with one flush setting. Blocks, batches
    and kernels keep the order in which the CSV first names them."""

    def __init__(self, n, flush, reps):
        self.n, self.flush, self.reps = n, flush, reps
        self.blocks, self.batches, self.kernels = [], [], []
        self.cells = {}     # (block, batch, kernel) -> (gbps, median_ms, verified, blocks per SM)
        self.no_row = {}    # (block, batch) -> the check column of a run that printed no row

    def cell(self, block, batch, kernel):
        """What a cell shows: GB/s, FAIL (wrong result), "-" (refused or never run), ERR."""
        got = self.cells.get((block, batch, kernel))
        if got:
            return "%.1f" % got[0] if got[2] else "FAIL"
        why = self.no_row.get((block, batch))
        return "ERR" if why is not None and why != "refused" else "-"

    def best(self, kernel):
        """The fastest verified cell of a kernel, (block, batch, gbps, ms), or None; the first
        one in row order wins a tie."""
        found = None
        for b in self.blocks:
            for k in self.batches:
                got = self.cells.get((b, k, kernel))
                if got and got[2] and (found is None or got[0] > found[2]):
                    found = (b, k, got[0], got[1])
        return found

    def occupancy(self, block, kernel):
        """Resident blocks per SM over a row: "a", or "a-b" when K changes it; "-" when the
        kernel never ran at that block size."""
        seen = [self.cells[(block, k, kernel)][3] for k in self.batches if (block, k, kernel) in self.cells]
        if not seen:
            return "-"
        lo, hi = min(seen), max(seen)
        return awk_number(lo) if lo == hi else f"{awk_number(lo)}-{awk_number(hi)}"

    def where(self, md):
        """The conditions of the grid; on a page the flag sits in a code span, where Doxygen
        would otherwise turn "--" into a dash."""
        q = "`" if md else ""
        flushed = "L2 flushed before each run" if self.flush == "flush" else f"L2 not flushed ({q}--no-flush{q})"
        return f"N = {common.pow2(self.n)}, {flushed}, median of {self.reps} runs"


class Sweep:
    """A sweep CSV read: its grids in the order of the file, the device and the chapter."""

    def __init__(self):
        self.grids = []
        self.device = ""
        self.chapter = ""


def awk_number(v):
    """A number as awk prints it in a string: whole numbers without a point, others in %.6g."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v) if isinstance(v, int) else "%.6g" % v


def parse_sweep(text):
    """A sweep CSV (its text) as a Sweep. A row with a column missing is left out, as is a run
    that printed no row (kernel "-"), which only marks its cell refused or failed. The header
    must name every column (common.CsvError otherwise)."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise common.CsvError(f"no column {', '.join(missing)} in its header")
    sweep, grids = Sweep(), {}
    for row in reader:
        if any(row.get(c) is None for c in COLUMNS):
            continue
        key = (row["n"], row["flush"])
        grid = grids.get(key)
        if grid is None:
            grid = grids[key] = Grid(row["n"], row["flush"], row["reps"])
            sweep.grids.append(grid)
        b, k, kernel = row["block"], row["batch"], row["kernel"]
        if b not in grid.blocks:
            grid.blocks.append(b)
        if k not in grid.batches:
            grid.batches.append(k)
        if not sweep.device and row["device"]:
            sweep.device = row["device"]
        sweep.chapter = row["chapter"]
        if kernel == "-":
            grid.no_row[(b, k)] = row["check"]
            continue
        if kernel not in grid.kernels:
            grid.kernels.append(kernel)
        grid.cells[(b, k, kernel)] = (float(common.number(row["gbps"])), float(common.number(row["median_ms"])),
                                      row["check"] == "PASS", common.number(row["blk_per_sm"]))
    return sweep


def read_sweep(path):
    """parse_sweep of a file."""
    with open(path, newline="", encoding="utf-8") as f:
        return parse_sweep(f.read())


# ---- the tables ----------------------------------------------------------------------------

def cell_flags(block, batch):
    """The flags of a cell, e.g. "--block 256 --batch 8", for the line naming the best one."""
    flags = " ".join(f for f in ("" if block == "-" else f"--block {block}",
                                 "" if batch == "-" else f"--batch {batch}") if f)
    return flags or "the only cell"


def render_md(sweep, date):
    """The tables as Markdown for a page: per grid and kernel, a caption, then the matrix with
    the best cell in bold and the occupancy in the last column."""
    out = []
    for grid in sweep.grids:
        for kernel in grid.kernels:
            if out:
                out.append("")
            best = grid.best(kernel)
            out.append(f"GB/s of `{kernel}` on the {sweep.device} at {grid.where(True)}; rows `--block`, columns "
                       f"`--batch` (K), the best cell in bold ({date}, `scripts/sweep.sh {sweep.chapter}`).")
            out.append("")
            out.append("| block / K |" + "".join(f" {k} |" for k in grid.batches) + " blk/SM |")
            out.append("| ---: |" + " ---: |" * len(grid.batches) + " ---: |")
            for b in grid.blocks:
                line = f"| {b} |"
                for k in grid.batches:
                    v = grid.cell(b, k, kernel)
                    if best and (b, k) == best[:2]:
                        v = f"**{v}**"
                    line += f" {v} |"
                out.append(f"{line} {grid.occupancy(b, kernel)} |")
    return "".join(line + "\n" for line in out)


def render_text(sweep):
    """The tables for the terminal: per grid and kernel the matrix with the best cell starred,
    the best cell's flags and figures, and the occupancy per block size."""
    out = []
    for grid in sweep.grids:
        for kernel in grid.kernels:
            if out:
                out.append("")
            best = grid.best(kernel)
            out.append(f"{kernel} on the {sweep.device}: GB/s at {grid.where(False)}")
            out.append("%10s" % "block\\K" + "".join(" %8s" % k for k in grid.batches))
            for b in grid.blocks:
                line = "%10s" % b
                for k in grid.batches:
                    v = grid.cell(b, k, kernel)
                    line += " %8s" % (v + "*" if best and (b, k) == best[:2] else v)
                out.append(line)
            if best:
                out.append("best (*): %s: %.1f GB/s, %.4f ms" % (cell_flags(best[0], best[1]), best[2], best[3]))
            else:
                out.append("best: no verified cell")
            out.append("occupancy (resident blocks per SM from the occupancy API, x block = threads per SM):")
            for b in grid.blocks:
                v = grid.occupancy(b, kernel)
                if v == "-":
                    out.append("  block %5s: - (no run of this kernel)" % b)
                elif b == "-":
                    out.append("  block %5s: %s blocks per SM" % (b, v))
                elif "-" in v:
                    out.append("  block %5s: %s blocks per SM (varies with K)" % (b, v))
                else:
                    out.append("  block %5s: %s blocks per SM = %d threads per SM" % (b, v, float(v) * float(b)))
    return "".join(line + "\n" for line in out)


# ---- render --------------------------------------------------------------------------------

def do_render(argv):
    """`sweep.sh render CSV [PAGE] [--date D]`: the tables into the page. Returns the status."""
    csv_path = page = date = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--date":
            date = common.option_value(argv, i)
            i += 1
        elif a.startswith("-"):
            raise Usage(f"unknown option '{a}' (see -h)")
        elif csv_path is None:
            csv_path = a
        elif page is None:
            page = a
        else:
            raise Usage("too many arguments")
        i += 1
    if not csv_path or not os.path.isfile(csv_path):
        raise Usage("render needs the CSV a sweep wrote (see -h)")
    if page is None:
        cid = first_chapter(csv_path)
        page = common.chapter_page(common.ROOT, cid) if cid else None
        if page is None:
            common.say(SCRIPT, f"no chapters/{cid}-*/ directory for the CSV's chapter '{cid}'")
            return 2
    if not os.path.isfile(page):
        common.say(SCRIPT, f"{page}: no such file")
        return 2
    try:
        sweep = read_sweep(csv_path)
    except common.CsvError as e:
        common.say(SCRIPT, f"{csv_path}: {e}")
        return 1
    if not sweep.grids:
        common.say(SCRIPT, f"no sweep rows in {csv_path}")
        return 1
    text = render_md(sweep, date or common.file_date(csv_path))
    if common.splice(page, "<!-- sweep:begin -->", "<!-- sweep:end -->", text) == 3:
        common.say(SCRIPT, f"{page} has no <!-- sweep:begin --> / <!-- sweep:end --> lines; left as it was")
        return 1
    print(f"sweep: wrote the tables of {csv_path} into {page}", flush=True)
    return 0


def first_chapter(path):
    """The chapter column of a CSV's first row ("" when it has none)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[1][0] if len(rows) > 1 and rows[1] else ""


# ---- run -----------------------------------------------------------------------------------

def plain_n(text):
    """N as a plain number (the CSV's n column), from the chapters' forms 1000, 2^20 and 1<<20;
    Usage for anything else."""
    m = re.fullmatch(r"(?:2\^|1<<)(\d+)", text)
    if m:
        return str(1 << int(m.group(1)))
    if re.fullmatch(r"\d+", text):
        return text
    raise Usage(f"--n '{text}' is not allowed: give a whole number, 2^k or 1<<k")


def rows_of(stdout, cid):
    """The verified or failed rows of a chapter's --csv output (the command-line contract in
    docs/pages/measuring.md: chapter,kernel,n,block,batch,median_ms,min_ms,gbps,
    pct_theoretical,verified,blocks_per_sm,config), each as its list of fields."""
    return [r for r in csv.reader(io.StringIO(stdout))
            if len(r) >= 11 and r[0] == cid and r[9] in ("PASS", "FAIL")]


def parse_run_args(argv):
    """The run's command line as a dict (Usage on a bad one); "help" set for -h."""
    o = {"id": None, "blocks": DEFAULT_BLOCKS, "batches": DEFAULT_BATCHES, "n": "2^28", "flush": "flush",
         "reps": "5", "warmup": "1", "variant": None, "out": None, "render": False, "configs": [],
         "bin_dir": None, "help": False}

    def grid_study(o):
        o["blocks"], o["batches"] = DEFAULT_BLOCKS, STUDY_BATCHES
        o["configs"] = [("2^27", "flush", "5"), ("2^20", "no-flush", "64")]

    def chapter(o, word):
        if o["id"] is not None:
            raise Usage(f"one chapter at a time (got '{o['id']}' and '{word}')")
        o["id"] = common.normalise_id(word)
        if o["id"] is None:
            raise Usage(f"'{word}' is not a chapter (give 09, 9 or chapter09)")

    common.parse_options(argv, o, valued=("--blocks", "--batches", "--n", "--reps", "--warmup", "--variant", "--out",
                                          "--bin-dir"),
                         switches={"--no-flush": lambda o: o.update(flush="no-flush"), "--grid-study": grid_study,
                                   "--render": lambda o: o.update(render=True)},
                         words=chapter)
    return o


def do_run(argv):
    """`sweep.sh CHAPTER [options]`: one run per cell, the CSV, the tables. Returns the status."""
    o = parse_run_args(argv)
    if o["help"]:
        print(USAGE, end="")
        return 0
    cid = o["id"]
    if cid is None:
        print(USAGE, end="", file=sys.stderr)
        return 2
    # Without --grid-study, one grid per size, all with the same flush setting and repetitions.
    configs = o["configs"] or [(n, o["flush"], o["reps"]) for n in o["n"].split()]
    sizes = [plain_n(size) for size, _, _ in configs]   # every --n checked before the first run
    binary = common.find_binary(cid, o["bin_dir"])
    if binary is None:
        common.say(SCRIPT, f"chapter{cid} is not built (make chapter{cid})")
        return 1
    info = common.program_info(binary)
    if info is None:
        common.say(SCRIPT, f"chapter{cid} does not describe itself (--info failed): rebuild it (make chapter{cid})")
        return 1
    flags = info.get("flags") or []
    # A chapter without --block or --batch gets a single row or column ("-").
    blocks, batches = o["blocks"], o["batches"]
    if "--block" not in flags:
        if blocks != DEFAULT_BLOCKS:
            common.say(SCRIPT, f"chapter{cid} has no --block: --blocks ignored")
        blocks = "-"
    if "--batch" not in flags:
        if batches != DEFAULT_BATCHES:
            common.say(SCRIPT, f"chapter{cid} has no --batch: --batches ignored")
        batches = "-"
    status = common.require_gpu(SCRIPT, binary)
    if status is not None:
        return status
    # The CSV's last column: the GPU's name, its commas (if any) made spaces.
    device = ((info.get("device") or {}).get("name") or "").replace(",", " ")
    out = o["out"] or os.path.join(common.ROOT, "build", "sweep", f"chapter{cid}.csv")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    log = (out[:-len(".csv")] if out.endswith(".csv") else out) + ".log"
    open(log, "w").close()

    print(f"sweep: chapter{cid} on the {device}; blocks: {blocks}; K: {batches}; notes in {log}", flush=True)
    lines = [",".join(COLUMNS)]
    failures = 0
    start = time.monotonic()
    for (size, flush, reps), n in zip(configs, sizes):
        what = "L2 flushed" if flush == "flush" else "L2 not flushed (--no-flush)"
        print(f"N = {size}, {what}, median of {reps} runs; GB/s for K = {batches}:", flush=True)
        for b in blocks.split():
            print("  block %5s:" % b, end="", flush=True)
            for k in batches.split():
                args = ["--csv", "--n", n, "--reps", reps, "--warmup", o["warmup"]]
                args += ["--no-flush"] if flush == "no-flush" else []
                args += [] if b == "-" else ["--block", b]
                args += [] if k == "-" else ["--batch", k]
                args += ["--variant", o["variant"]] if o["variant"] else []
                with open(log, "a", encoding="utf-8") as f:
                    f.write(f"+ {binary} {' '.join(args)}\n")
                rc, table = common.run_logged([binary] + args, log, 600)
                with open(log, "a", encoding="utf-8") as f:
                    f.write(table.rstrip("\n") + "\n")
                rows = rows_of(table, cid)
                if rows:
                    lines += [",".join([cid, r[1], r[2], flush, reps, b, k, r[5], r[7], r[10], r[9], device]) for r in rows]
                    shown = "/".join("%.0f" % float(common.number(r[7])) if r[9] == "PASS" else "FAIL" for r in rows)
                else:
                    why = {2: "refused", 124: "ERR (timed out)"}.get(rc, f"ERR (exit {rc})")
                    lines.append(",".join([cid, "-", n, flush, reps, b, k, "0", "0", "0", why, device]))
                    shown = "-" if why == "refused" else why.split()[0]
                if rc not in (0, 2):
                    failures += 1
                print(f" {shown}", end="", flush=True)
            print(flush=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    print(f"sweep: {len(lines) - 1} row(s) in {int(time.monotonic() - start)} s, written to {out}")
    print()
    print(render_text(read_sweep(out)), end="", flush=True)
    status = 0
    if o["render"]:
        print(flush=True)
        try:
            if do_render([out]) != 0:
                status = 1
        except Usage as e:
            common.say(SCRIPT, str(e))
            status = 1
    if failures:
        print(f"sweep: {failures} cell(s) failed (wrong result or error); see {log}")
        status = 1
    return status


def main(argv):
    try:
        if argv and argv[0] == "render":
            return do_render(argv[1:])
        return do_run(argv)
    except Usage as e:
        common.say(SCRIPT, str(e))
        return 2
