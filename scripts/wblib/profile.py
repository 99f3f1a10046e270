"""`wb.py profile` (scripts/profile.sh): hardware counters of every chapter's kernels, read with
Nsight Compute (ncu), in two stages so that the second needs no GPU (like the summary).

  profile.sh run [--chapters "03 04"]  run each chapter once under ncu at N = 2^24 (--reps 1
                           --warmup 0; `--variant all` where a chapter offers it, else each of
                           its variants but `sweep`) with one fixed set of metrics, and write
                           docs/results/<gpu>-counters.csv (<gpu> from the device name, "NVIDIA
                           H200" -> h200): one row per launch of a chapter's kernel (or of
                           CUB's), the harness's own kernels left out, each row with the day
                           of the run (UTC). Needs the GPU. With --chapters, the other
                           chapters' rows of an existing CSV stay, with their own dates.
  profile.sh render CSV... turn counters CSVs into docs/results/<gpu>-counters.md (every
                           chapter's table) and the block of each chapter page between
                           <!-- counters:begin --> and <!-- counters:end --> (made right after
                           the page's <!-- results:end --> line where missing), each chapter
                           dated by its own rows, with the CUB its rows name. No GPU needed.
  profile.sh all           run, then render what it wrote (what `make profile` does).

How launches are told apart. The harness (common/wb_cuda.cuh, wb::Bench) calls each row's
launch inside an NVTX range named `wb/<row>/first` (the untimed first run), `wb/<row>/warmup` or
`wb/<row>/timed`, where <row> is the row's name (the "kernel" column of the chapter's --csv
output, called the variant here). Only the chapter's own launch is inside: the output's
poisoning, the L2 flush and the harness's check kernel (count_mismatches) are outside every
range. ncu runs with --nvtx, which adds to each launch the stack of ranges open on its thread;
a launch belongs to the row and run of its innermost `wb/` range (CUB opens ranges of its own
inside ours, which are passed over), and a launch in no `wb/` range is not the chapter's and is
dropped. With --reps 1 --warmup 0 each row has two runs, first and timed; rows of both go to the
CSV, and the pages show the timed run. A row whose runs launched no kernel that ncu profiles (a
cudaMemcpy) gets one row with launch 0 and kernel "-". A range that starts with `wb/` but is not
`wb/<name>/(first|warmup|timed)` with a name of letters, digits and _ : . is refused: its launch
is left out and the chapter counts as failed, because its rows could not be trusted.

The columns of the CSV (units in the names; per-element values are left to the reader):
  chapter, variant, run (first|timed), launch (1.. within the row's run), kernel, grid and block
  (blocks and threads per block; "XxYxZ" when not one-dimensional), n, then one column per
  metric (see METRICS), then ncu_id (ncu's own launch number in that process, the harness's
  kernels counted), device, date (the day of the run that measured the row, YYYY-MM-DD in
  UTC) and cub (the CUB the chapter was built with, its --info "cub", in the rows of a chapter
  that calls CUB; empty in the others'). Rows kept from a CSV written before the date or cub
  column have it empty. A chapter's rows all come from one run, so a chapter has one date and
  one CUB, which its counters block shows: after `run --chapters "19"`, chapter 19's block
  shows that day and the others keep theirs.

ncu runs with --clock-control none (the GPU's own clocks, as when the chapters time themselves)
and its default cache control (caches flushed before each profiled kernel, so that a second pass
does not find the first pass's output in L2). Each chapter's raw ncu output
(chapterNN[.variant].ncu.csv), its own --csv output (.out) and notes (.log) stay in --logs."""

import csv
import os
import re
import shutil
import subprocess
import sys
import time

from . import common
from . import summary
from .common import Usage

SCRIPT = "profile.sh"

# The metrics, in the CSV's column order: (column, ncu metric). The names follow the Nsight
# Compute Kernel Profiling Guide (Metrics Structure, Metrics Reference) and were checked with
# `ncu --query-metrics --chip gh100` (Nsight Compute 2025.3.1), which marks the older
# smsp__thread_inst_executed_per_inst_executed deprecated in favour of the _average_ form used here.
METRICS = (
    ("duration_ns", "gpu__time_duration.sum"),
    ("dram_pct_of_peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("dram_read_bytes", "dram__bytes_read.sum"),
    ("dram_write_bytes", "dram__bytes_write.sum"),
    ("l2_hit_pct", "lts__t_sector_hit_rate.pct"),
    ("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("shared_ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared_st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("shared_ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared_st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("threads_per_warp_inst", "smsp__average_thread_inst_executed_per_inst_executed.ratio"),
    ("pred_on_threads_per_warp_inst", "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio"),
    ("divergent_branch_targets", "smsp__sass_branch_targets_threads_divergent.sum"),
    ("warp_insts", "smsp__inst_executed.sum"),
    ("stall_long_scoreboard_per_inst", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
    ("stall_barrier_per_inst", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"),
    ("stall_membar_per_inst", "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"),
)

# The columns added after the CSV's first version, last and oldest first: a CSV written before
# one of them has the header less a tail of these (see kept_rows).
ADDED_COLUMNS = ("date", "cub")

COLUMNS = (["chapter", "variant", "run", "launch", "kernel", "grid", "block", "n"]
           + [c for c, _ in METRICS] + ["ncu_id", "device"] + list(ADDED_COLUMNS))
HEADER = ",".join(COLUMNS)

# Each header a counters CSV may have -> how many of ADDED_COLUMNS its rows lack: the one rule by
# which --chapters keeps an older CSV's rows, with those columns empty (no date, no CUB known).
LACKING = {",".join(COLUMNS[:len(COLUMNS) - k]): k for k in range(len(ADDED_COLUMNS) + 1)}

# The header before the date column (and the cub column after it).
UNDATED_HEADER = ",".join(COLUMNS[:-len(ADDED_COLUMNS)])

# Set to YYYY-MM-DD, the day `run` writes in place of today's (the host tests fix it with it).
DATE_ENV = "WB_PROFILE_DATE"

# The runs a row can have, in the order the harness makes them.
RUNS = ("first", "warmup", "timed")

# NVIDIA's page on the permission error.
PERM_URL = ("https://developer.nvidia.com/"
            "nvidia-development-tools-solutions-ERR_NVGPUCTRPERM-permission-issue-performance-counters")

USAGE = """usage: scripts/profile.sh run [--chapters "NN ..."] [--n N] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/profile.sh render [--date YYYY-MM-DD] CSV...
       scripts/profile.sh all [run's options] [--date YYYY-MM-DD]

  run      every chapter (or those of --chapters: "03 04", "3,4" or "chapter03") once under
           Nsight Compute at N elements (default 2^24), --reps 1 --warmup 0, every variant;
           writes OUT/<gpu>-counters.csv (OUT default docs/results; with --chapters, the
           other chapters' rows of an existing one are kept), each row dated with the day of
           the run (UTC; $WB_PROFILE_DATE=YYYY-MM-DD sets another) and, in a chapter that
           calls CUB, the CUB it was built with (its --info "cub"), and keeps ncu's raw
           output and each chapter's notes in LOGS (default build/profile).
           Needs a GPU, ncu ($NCU, else on PATH, else /usr/local/cuda/bin) and permission to
           read its counters: exits 77 without them (1 when REQUIRE_GPU=1).
  render   from CSVs written by run: <gpu>-counters.md beside each CSV, and the block
           <!-- counters:begin --> ... <!-- counters:end --> of each chapters/NN-*/README.md
           (one block per CSV, in the order given: the first open, each further one folded
           in <details>, "The same on the <device>"). Each chapter's counters carry their
           date: its block shows the date of its rows, and the page the date of each
           chapter's; a row without one (a CSV from before the column) takes --date, else
           the CSV's modification date. A chapter whose rows name a CUB says which, on its
           block and on the page. No GPU needed.
  all      run, then render.
  --bin-dir DIR   where the chapterNN programs are (default: repository root, then build/)
  -h, --help      this text
Exit: 0 done; 1 a chapter failed under ncu (reported, its rows kept); 2 bad usage; 77 no GPU,
no ncu or no permission to read the counters.
"""


def say(message):
    common.say(SCRIPT, message)


# ---- ncu's output ----------------------------------------------------------------------------

class NvtxError(Exception):
    """A launch's NVTX ranges that cannot be read, or a wb/ range whose name is malformed."""


# One range as `ncu --nvtx` prints it: "DOMAIN:NAME:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg".
# A wb/ range's name ends before the first ':' that follows the run, since a row's name has no '/'.
WB_RANGE = re.compile(r"wb/([A-Za-z0-9_:.]+)/(first|warmup|timed)(?::|$)")

# The whole value: the process id, then each open range quoted, after two spaces, outermost
# first (ncu writes a quote inside a name as it is, which breaks this shape: then it is refused).
NVTX_VALUE = re.compile(r'\d+((?:  "[^"]*")+) ?')


def nvtx_ranges(value):
    """The ranges open when a launch was made, outermost first, from the value of ncu's column
    "thread Domain:Push/Pop_Range:..." (e.g. '506  "<default domain>:wb/x/first:none:..." '):
    each as (domain, the rest of its entry). [] for an empty value (no range open)."""
    value = value.strip("\r\n")
    if value.strip() == "":
        return []
    m = NVTX_VALUE.fullmatch(value)
    if not m:
        raise NvtxError(f"its NVTX ranges cannot be read ({value!r}; a double quote in a range name?)")
    return [tuple(entry.split(":", 1)) if ":" in entry else (entry, "")
            for entry in re.findall(r'  "([^"]*)"', m.group(1))]


def wb_range(value):
    """(row, run) of the innermost wb/ range in a launch's NVTX value, None when no wb/ range is
    open (the launch is not a chapter's). NvtxError for a value that cannot be read or a wb/
    range that is not wb/<name>/(first|warmup|timed) with a name of letters, digits and _ : ."""
    for _domain, entry in reversed(nvtx_ranges(value)):
        if not entry.startswith("wb/"):
            continue  # a range of someone else's (CUB opens its own inside ours)
        m = WB_RANGE.match(entry)
        if not m:
            name = entry.split(":none:", 1)[0]
            raise NvtxError(f"its NVTX range '{name}' is not wb/<row>/first, /warmup or /timed "
                            "with a row name of letters, digits and _ : .")
        return m.group(1), m.group(2)
    return None


def base_name(kernel):
    """A kernel's own name from ncu's demangled one: no "void ", template arguments, parameter
    list or namespaces ("void cub::DeviceReduceKernel<...>(T1, ...)" -> DeviceReduceKernel)."""
    k = re.sub(r"^[ \t]*void[ \t]+", "", kernel).replace("(anonymous namespace)::", "")
    prev = None
    while prev != k:
        prev, k = k, re.sub(r"<[^<>]*>", "", k)
    k = re.sub(r"\(.*$", "", k)
    k = re.sub(r".*::", "", k)
    return re.sub(r"[ \t]", "", k)


def dims(text):
    """"(65536, 1, 1)" -> "65536"; "(32, 4, 1)" -> "32x4x1"."""
    s = re.sub(r"[() \t]", "", text)
    d = s.split(",")
    if len(d) == 3 and common.number(d[1], None) == 1 and common.number(d[2], None) == 1:
        return d[0]
    return s.replace(",", "x")


_NUMBER = re.compile(r"[-+]?[0-9.]+([eE][-+]?[0-9]+)?")


def base_value(text, unit):
    """A value in base units, without thousands separators: bytes, seconds and hertz given with
    an SI prefix (ncu without --print-units base) scaled; "" where ncu printed none."""
    v = text.replace(",", "").replace(" ", "").replace("\t", "")
    if v == "" or v == "n/a" or not _NUMBER.fullmatch(v):
        return ""
    scale = 1
    if re.fullmatch(r"[KMGT]?(byte|hz)", unit):
        scale = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}.get(unit[0], 1)
    elif re.fullmatch(r"(n|u|m)?(second|s)", unit):
        scale = {"u": 1e3, "m": 1e6}.get(unit[0], 1e9 if unit in ("second", "s") else 1)
    if scale == 1:
        return v
    x = float(v) * scale
    return "%.0f" % x if x == int(x) else "%.10g" % x


def chapter_rows(out_text, cid):
    """The rows a chapter printed with --csv, in order: [(name, n)] (its header and notes left out)."""
    rows = []
    for f in csv.reader(out_text.splitlines()):
        if len(f) >= 10 and f[0] == cid and re.fullmatch(r"[0-9]+", f[2]):
            rows.append((f[1], f[2]))
    return rows


def parse_n(text):
    """N as the command line gives it ("2^24", "1<<24", "16777216") as digits; the text itself
    when it is none of those."""
    t = str(text).strip()
    m = re.fullmatch(r"(\d+)\s*(\^|<<)\s*(\d+)", t)
    if m:
        base, op, e = int(m.group(1)), m.group(2), int(m.group(3))
        return str(base ** e if op == "^" else base << e)
    return t


def parse_ncu(lines, cid, rows, n, device):
    """One chapter run's `ncu --nvtx --csv --page raw` output (its lines) -> (CSV lines, notes,
    ok). rows: the chapter's --csv rows [(name, n)], which give each row's N and the order; n:
    the N of the command line, for a row that printed none. ok is False when the output cannot be
    read or a launch's ranges are refused (the chapter then counts as failed); notes say why, and
    what else is odd."""
    notes, ok = [], True
    body = [l for l in lines if not l.startswith("==")]
    start = next((i for i, l in enumerate(body) if re.match(r'"?ID"?,', l)), None)
    if start is None:
        return [], [f"chapter {cid}: no ncu CSV header in its output (did ncu run?)"], False
    records = list(csv.reader(body[start:]))
    header = records[0]
    at = {}
    for i, name in enumerate(header):
        at[name] = i
    if not all(k in at for k in ("Kernel Name", "Grid Size", "Block Size")):
        return [], [f"chapter {cid}: ncu's header lacks Kernel Name, Grid Size or Block Size"], False
    nvtx = next((i for i, name in enumerate(header) if name.startswith("thread Domain:Push/Pop_Range")), None)
    if nvtx is None:
        return [], [f"chapter {cid}: ncu's output has no NVTX column (thread Domain:Push/Pop_Range): "
                    "was ncu run without --nvtx?"], False
    for column, metric in METRICS:
        if metric not in at:
            notes.append(f"chapter {cid}: ncu reported no {metric} (column {column} left empty)")
    units = records[1] if len(records) > 1 and not re.fullmatch(r"[0-9]+", records[1][0] if records[1] else "") else []

    launches = {}       # (row, run) -> [CSV fields without chapter, variant, run, launch]
    order = []          # rows in the order their first launch came
    segments = []       # (row, run) each time it starts, to see a run that comes back
    seen, refused = 0, 0
    for f in records[1:]:
        if not f or not re.fullmatch(r"[0-9]+", f[0]):
            continue
        seen += 1
        kernel = f[at["Kernel Name"]] if len(f) > at["Kernel Name"] else ""
        try:
            if len(f) != len(header):
                raise NvtxError(f"it has {len(f)} fields for {len(header)} columns (a double quote in a range name?)")
            where = wb_range(f[nvtx])
        except NvtxError as e:
            notes.append(f"chapter {cid}: launch {f[0]} ({base_name(kernel)}) left out: {e}")
            refused += 1
            continue
        if where is None:
            continue  # not the chapter's: the harness's check kernel, or anything else outside a row
        row, run = where
        if row not in order:
            order.append(row)
        if not segments or segments[-1] != where:
            if where in segments:
                notes.append(f"chapter {cid}: row {row}'s {run} run comes back after other rows' launches "
                             "(was it run with --reps or --warmup above 1?); its launches are numbered on")
            segments.append(where)
        values = [base_value(f[at[m]], units[at[m]] if at[m] < len(units) else "") if m in at else ""
                  for _, m in METRICS]
        launches.setdefault(where, []).append(
            [base_name(kernel), dims(f[at["Grid Size"]]), dims(f[at["Block Size"]])] + values + [f[0]])

    n_of = dict(reversed(rows))  # the first row of each name wins
    names = [name for name, _ in rows]
    names = list(dict.fromkeys(names))
    for row in order:
        if row not in n_of:
            notes.append(f"chapter {cid}: launches in ranges of row {row}, which its --csv output lacks "
                         f"(N taken from --n)")
            names.append(row)
    out = []
    for row in names:
        row_n = n_of.get(row, parse_n(n))
        had = False
        for run in RUNS:
            for i, l in enumerate(launches.get((row, run), []), 1):
                out.append(",".join([cid, row, run, str(i), l[0], l[1], l[2], row_n] + l[3:] + [device]))
                had = True
        if not had:
            # A row that launched no kernel ncu profiles (a cudaMemcpy): one row says so.
            out.append(",".join([cid, row, "timed", "0", "-", "", "", row_n] + [""] * len(METRICS) + ["", device]))
        elif (row, "first") in launches and (row, "timed") not in launches:
            notes.append(f"chapter {cid}: row {row} has launches in its first run but none in a timed one")
    kept = sum(len(v) for v in launches.values())
    if seen > 0 and kept == 0 and refused == 0:
        notes.append(f"chapter {cid}: none of its {seen} launch(es) is inside a wb/ NVTX range: was it built "
                     "before the harness marked its runs (rebuild it)?")
        ok = False
    elif kept == 0:
        notes.append(f"chapter {cid}: no launch kept")
    if refused:
        ok = False
    return out, notes, ok


# ---- run ---------------------------------------------------------------------------------------

def find_ncu():
    """ncu: $NCU, else the one on PATH, else the CUDA Toolkit's; None when there is none."""
    n = os.environ.get("NCU", "")
    if not n:
        n = shutil.which("ncu") or ""
        if not n and os.access("/usr/local/cuda/bin/ncu", os.X_OK):
            n = "/usr/local/cuda/bin/ncu"
    return n if n and os.path.isfile(n) and os.access(n, os.X_OK) else None


def permission_denied(*paths):
    """Whether ncu's output in any of the files says that the counters may not be read."""
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                if "ERR_NVGPUCTRPERM" in f.read():
                    return True
        except OSError:
            pass
    return False


def no_permission():
    """Say how to let ncu read the counters, and return the status to exit with (77 or 1)."""
    say("ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM).")
    say("Fix: run as root (sudo), or let every user read them: load the driver with")
    say("NVreg_RestrictProfilingToAdminUsers=0 (e.g. 'options nvidia NVreg_RestrictProfilingToAdminUsers=0'")
    say(f"in /etc/modprobe.d/, then reboot). NVIDIA's page: {PERM_URL}")
    return common.skip(SCRIPT, "no permission to read the GPU's performance counters")


class NoPermission(Exception):
    """ncu said ERR_NVGPUCTRPERM: the run ends with no_permission()'s status."""


def ncu_command(ncu, log_file, binary, n, args):
    """The command line of one chapter run under ncu."""
    return ([ncu, "--nvtx", "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
             "--metrics", ",".join(m for _, m in METRICS), "--log-file", log_file,
             binary, "--n", n, "--reps", "1", "--warmup", "0", "--csv"] + list(args))


def profile_chapter(ncu, cid, binary, stem, n, device, args):
    """One chapter run under ncu: (CSV lines, what failed or None). stem: the logs' path
    without extension. NoPermission when ncu may not read the counters."""
    log = stem + ".log"
    command = ncu_command(ncu, stem + ".ncu.csv", binary, n, args)
    metrics = command.index("--metrics") + 1
    with open(log, "w", encoding="utf-8") as f:
        f.write("+ " + " ".join(command[:metrics] + ["..."] + command[metrics + 1:]) + "\n")
    if os.path.exists(stem + ".ncu.csv"):
        os.remove(stem + ".ncu.csv")
    with open(stem + ".out", "w", encoding="utf-8") as out:
        rc, _ = common.run_logged(command, log, 3600, stdout=out)
    if permission_denied(stem + ".ncu.csv", log, stem + ".out"):
        raise NoPermission()
    try:
        with open(stem + ".ncu.csv", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    with open(stem + ".out", encoding="utf-8", errors="replace") as f:
        rows = chapter_rows(f.read(), cid)
    lines_out, notes, ok = parse_ncu(lines, cid, rows, n, device)
    # The parser's notes (a metric ncu did not report, a refused range): in the log and here.
    if notes:
        with open(log, "a", encoding="utf-8") as f:
            f.write("".join(f"{SCRIPT}: {m}\n" for m in notes))
        for m in notes:
            say(m)
    failed = None
    if rc != 0:
        failed = common.failed_run(cid, log, rc, ", or ncu failed")
    elif not ok:
        failed = common.failed_run(cid, log, 1).replace(common.exit_meaning(1), "ncu's launches could not be "
                                                         "attributed to rows")
    return lines_out, failed


def chosen_ids(chosen):
    """The chapters of --chapters and the arguments, in order, once each (Usage for one that
    is not a chapter)."""
    ids, dirs = [], common.chapter_dirs()
    for arg in " ".join(chosen).replace(",", " ").split():
        cid = common.normalise_id(arg)
        if cid is None or cid not in dirs:
            raise Usage(f"'{arg}' is not a chapter of chapters/ (give 05, 5 or chapter05)")
        if cid not in ids:
            ids.append(cid)
    return ids


DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def run_date():
    """The day this run started, for the CSV's date column: YYYY-MM-DD in UTC (one day wherever
    the GPU is), or $WB_PROFILE_DATE where set. Usage for a $WB_PROFILE_DATE of another form."""
    fixed = os.environ.get(DATE_ENV, "")
    if fixed:
        if not DATE.fullmatch(fixed):
            raise Usage(f"{DATE_ENV}='{fixed}' is not a date YYYY-MM-DD")
        return fixed
    return time.strftime("%Y-%m-%d", time.gmtime())


def kept_rows(csv_path, ids):
    """The rows of an existing counters CSV that are not of chapters `ids`, each with its date
    and CUB (empty where the CSV predates the column, LACKING). None for a CSV of other columns."""
    with open(csv_path, encoding="utf-8") as f:
        old = f.read().splitlines()
    lacking = LACKING.get(old[0]) if old else None
    if lacking is None:
        return None
    return [l + "," * lacking for l in old[1:] if l.split(",")[0] not in ids]


def chapter_cub(info):
    """The CUB whose kernels a chapter's rows profile, from its --info: its "cub" where a kernel
    it names is a CUB call (summary.is_cub, the names wb::Bench records a CUB with), "" for a
    chapter that calls no CUB (a program built with CUDA names the CUB on its include path
    whether it calls it or not) or whose --info names no CUB."""
    if not info or not info.get("cub"):
        return ""
    kernels = list(info.get("default_kernels") or [])
    for v in info.get("variants") or []:
        kernels += v.get("kernels") or []
    return str(info["cub"]).replace(",", " ") if any(summary.is_cub(k) for k in kernels) else ""


def do_run(argv):
    """profile.sh run: every chapter (or those of --chapters) once under ncu into
    <gpu>-counters.csv. Returns (status, the CSV written or None)."""
    def setter(key):
        return lambda o, v: o.update({key: v})

    o = common.parse_options(argv, {"n": "2^24", "out": os.path.join(common.ROOT, "docs", "results"),
                                    "logs": os.path.join(common.ROOT, "build", "profile"), "bin_dir": None,
                                    "chapters": []},
                             valued={"--chapters": lambda o, v: o["chapters"].append(v), "--n": setter("n"),
                                     "--bin-dir": setter("bin_dir"), "--out": setter("out"), "--logs": setter("logs")},
                             words=lambda o, w: o["chapters"].append(w), help=False)
    n, out_dir, logs, bin_dir, chosen = o["n"], o["out"], o["logs"], o["bin_dir"], o["chapters"]
    day = run_date()
    chose = " ".join(chosen).strip() != ""
    if chose:
        ids = chosen_ids(chosen)
    else:
        ids = common.summary_ids()
        common.say_elsewhere()
    if not ids:
        say(f"no chapters/NN-*/ directories under {common.ROOT}")
        return 1, None

    ncu = find_ncu()
    if not ncu:
        return common.skip(SCRIPT, "Nsight Compute (ncu) not found: not on PATH, not in /usr/local/cuda/bin; "
                                   "set NCU"), None
    binaries = {cid: common.find_binary(cid, bin_dir) for cid in ids}
    first = next((b for b in binaries.values() if b), None)
    if not first:
        say("no chapter program found: build them first (make all)")
        return 1, None
    status = common.require_gpu(SCRIPT, first)
    if status is not None:
        return status, None
    info = common.program_info(first) or {}
    device = ((info.get("device") or {}).get("name") or "").replace(",", " ")
    if not device:
        say(f"{os.path.basename(first)} --info named no device")
        return 1, None
    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(logs, exist_ok=True)

    # Whether ncu may read the counters: one metric of the first chapter's first launch.
    with open(os.path.join(logs, "ncu-version.txt"), "w", encoding="utf-8") as f:
        subprocess.run([ncu, "--version"], stdout=f, stderr=subprocess.STDOUT)
    perm_log = os.path.join(logs, "permission.log")
    with open(perm_log, "w", encoding="utf-8") as f:
        subprocess.run([ncu, "--nvtx", "--clock-control", "none", "--metrics", "gpu__time_duration.sum",
                        "--launch-count", "1", first, "--n", "1024", "--reps", "1", "--warmup", "0", "--csv"],
                       stdout=f, stderr=subprocess.STDOUT)
    if permission_denied(perm_log):
        return no_permission(), None

    slug = common.gpu_slug(device)
    say(f"{len(ids)} chapter(s) on the {device} at N = {n} under {ncu}; raw output in {logs}")
    rows, failures, total_start = [], [], time.time()
    for cid in ids:
        start = time.time()
        binary = binaries[cid]
        if not binary:
            failures.append(f"chapter{cid}: not built (make chapter{cid})")
            print(f"chapter{cid}: not built", file=sys.stderr, flush=True)
            continue
        timed, failed = 0, []
        cub = chapter_cub(common.program_info(binary))
        # Every kernel, in the runs that cover them all.
        for v in common.runs_covering_every_kernel(common.list_variants(binary)):
            stem = f"chapter{cid}" if v in (None, "all") else f"chapter{cid}.{v}"
            args = [] if v is None else ["--variant", v]
            try:
                got, why = profile_chapter(ncu, cid, binary, os.path.join(logs, stem), n, device, args)
            except NoPermission:
                return no_permission(), None
            rows += [l + "," + day + "," + cub for l in got]
            timed += sum(1 for l in got if l.split(",")[2] == "timed")
            if why:
                failed.append(why)
                failures.append(f"chapter{cid} {why} (notes: {os.path.join(logs, stem)}.log)")
        took = int(time.time() - start)
        if failed:
            print(f"chapter{cid}: FAILED ({'; '.join(failed)}), {timed} launch(es) [{took} s]",
                  file=sys.stderr, flush=True)
        else:
            print(f"chapter{cid}: {timed} launch(es) profiled [{took} s]", file=sys.stderr, flush=True)

    csv_path = os.path.join(out_dir, f"{slug}-counters.csv")
    # With --chapters, an existing CSV of the same columns keeps its other chapters' rows, with
    # the dates they were measured on.
    kept = kept_rows(csv_path, ids) if chose and os.path.isfile(csv_path) else None
    if kept is not None:
        others = len({l.split(",")[0] for l in kept})
        say(f"kept the rows of {others} other chapter(s) from the existing {os.path.basename(csv_path)}")
    lines = sorted((kept or []) + rows, key=lambda l: l.split(",")[0])  # stable: each chapter's order stays
    with open(csv_path + ".tmp", "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in [HEADER] + lines))
    os.replace(csv_path + ".tmp", csv_path)
    say(f"wrote {csv_path} ({len(lines)} rows) in {int(time.time() - total_start)} s")
    if failures:
        say(f"FAILED ({len(failures)}):")
        for f in failures:
            print(f"  {f}", file=sys.stderr)
        return 1, [csv_path]
    return 0, [csv_path]


# ---- render: formats ---------------------------------------------------------------------------
# The numbers are floats, as the pages were first written by awk: the same digits come out.

def sig(x):
    """About three significant digits, never in exponent form; "-" for an empty value."""
    if x == "":
        return "-"
    x = float(x)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + sig(-x)
    for floor, fmt in ((100, "%.0f"), (10, "%.1f"), (1, "%.2f"), (0.1, "%.3f"), (0.01, "%.4f"), (0.001, "%.5f")):
        if x >= floor:
            return fmt % x
    return "<0.001"


def mb(x):
    """Bytes as MB (10^6 bytes)."""
    if x == "":
        return "-"
    if 0 < float(x) < 1e4:
        return "<0.01"
    return sig(float(x) / 1e6)


def count(x):
    """A count: exact below 10000, else with k, M or G and three significant digits."""
    if x == "":
        return "-"
    x = float(x)
    a = abs(x)
    if a < 10000:
        return "%.0f" % x
    if a < 1e6:
        return sig(x / 1e3) + "k"
    if a < 1e9:
        return sig(x / 1e6) + "M"
    return sig(x / 1e9) + "G"


def pct(x):
    return "-" if x == "" else "%.1f" % float(x)


def ratio(x):
    return "-" if x == "" else "%.2f" % float(x)


def counts(a, b):
    """"ld / st" of two counts."""
    return f"{count(a)} / {count(b)}"


def micro(ns):
    return sig("" if ns == "" else float(ns) / 1000)


# ---- render: one CSV ---------------------------------------------------------------------------

def version_key(version):
    """A version's numbers, to order versions as numbers ("3.5.0" before "3.10.0")."""
    return [int(x) for x in re.findall(r"[0-9]+", version)]


class Counters:
    """One counters CSV: its rows, chapters (in numeric order), variants (in order of their first
    row), device and the N most rows have."""

    NEED = ("chapter", "variant", "run", "launch", "kernel", "grid", "block", "n") + tuple(c for c, _ in METRICS) + ("device",)

    def __init__(self, path):
        recs = common.read_csv(path, self.NEED)
        self.rows = [{k: (v or "") for k, v in r.items() if k is not None}
                     for r in recs if re.fullmatch(r"[0-9][0-9]", r.get("chapter") or "")]
        self.device = next((r["device"] for r in self.rows if r["device"] != ""), "")
        chapters, self.variants, self.has_timed, n_count = [], {}, set(), {}
        for r in self.rows:
            ch = r["chapter"]
            if ch not in chapters:
                chapters.append(ch)
            vs = self.variants.setdefault(ch, [])
            if r["variant"] not in vs:
                vs.append(r["variant"])
            if r["run"] == "timed":
                self.has_timed.add((ch, r["variant"]))
            key = common.number(r["n"], 0)
            n_count[key] = n_count.get(key, 0) + 1
        self.chapters = sorted(chapters, key=int)
        # The most common N; of two as common, the larger.
        self.main_n = max(n_count.items(), key=lambda kv: (kv[1], kv[0]))[0] if n_count else 0

    def shown(self, ch, vn):
        """(the rows shown for a variant: its timed run's launches, else its first run's; the row
        saying it launched no profiled kernel, or None)."""
        want = "timed" if (ch, vn) in self.has_timed else "first"
        sel, none_row = [], None
        for r in self.rows:
            if r["chapter"] != ch or r["variant"] != vn or r["run"] != want:
                continue
            if common.number(r["launch"], 0) == 0:
                none_row = r
            else:
                sel.append(r)
        return sel, none_row

    def chapter_dates(self, fallback):
        """({chapter: the date its counters were measured}, [chapters whose rows carry more than
        one date]): the date of the chapter's rows, `fallback` for a row with none (a CSV from
        before the date column). A chapter is measured in one run, so its rows agree; where they
        do not (a CSV put together by hand), the latest date is the chapter's."""
        dates, mixed = {}, []
        for ch in self.chapters:
            seen = sorted({r.get("date") or fallback for r in self.rows if r["chapter"] == ch})
            dates[ch] = seen[-1]
            if len(seen) > 1:
                mixed.append(ch)
        return dates, mixed

    def chapter_cubs(self):
        """{chapter: the CUB its CUB kernels came from, "CUB 3.0.1"} for each chapter whose rows
        name one (a chapter built against two, put together by hand: both, oldest first)."""
        cubs = {}
        for ch in self.chapters:
            seen = {r.get("cub") or "" for r in self.rows if r["chapter"] == ch} - {""}
            if seen:
                cubs[ch] = " and ".join(f"CUB {v}" for v in sorted(seen, key=version_key))
        return cubs

    def not_profiled(self, ch):
        """The variants that launched no profiled kernel, as "`a`, `b`"."""
        return ", ".join(f"`{vn}`" for vn in self.variants[ch]
                         if self.shown(ch, vn)[0] == [] and self.shown(ch, vn)[1] is not None)

    def own_n(self, ch):
        """The variants run at another N than the page's, as "`a` (N = 2^17), `b` (N = 2^17)"."""
        out = []
        for vn in self.variants[ch]:
            sel, none_row = self.shown(ch, vn)
            r = sel[0] if sel else none_row
            if r is not None and common.number(r["n"], 0) != self.main_n:
                out.append(f"`{vn}` (N = {common.pow2(common.number(r['n'], 0))})")
        return ", ".join(out)


def label(r, m, k):
    """The kernel cell: the function, after the variant's name where that differs, and which launch."""
    vn, kn = r["variant"], r["kernel"]
    s = f"`{kn}`" if vn == kn else f"{vn}: `{kn}`"
    return s + (f" ({k} of {m})" if m > 1 else "")


def total_label(r, m):
    vn = r["variant"]
    return (f"`{vn}`" if vn == r["kernel"] else vn) + ": " + ("both launches" if m == 2 else f"all {m} launches")


def total(sel, column):
    """The sum of a column over the rows ("" when every value is empty)."""
    vals = [float(r[column]) for r in sel if r[column] != ""]
    return sum(vals) if vals else ""


def per_element(x, r):
    return "" if x == "" or common.number(r["n"], 0) <= 0 else float(x) / float(r["n"])


def memory_header(link):
    pre, rule = ("chapter | ", "--- | ") if link else ("", "")
    return (f"| {pre}kernel | grid x block | time µs | DRAM % of peak | DRAM read MB | DRAM write MB | L2 hit % | "
            f"achieved occupancy % |\n| {rule}--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")


def memory_table(c, ch, link=""):
    """The memory table's rows of chapter ch (a leading chapter cell when `link` is given)."""
    pre, out = (link + " | " if link else ""), []
    for vn in c.variants[ch]:
        sel, _ = c.shown(ch, vn)
        m = len(sel)
        for k, r in enumerate(sel, 1):
            out.append(f"| {pre}{label(r, m, k)} | {r['grid']} x {r['block']} | {micro(r['duration_ns'])} | "
                       f"{pct(r['dram_pct_of_peak'])} | {mb(r['dram_read_bytes'])} | {mb(r['dram_write_bytes'])} | "
                       f"{pct(r['l2_hit_pct'])} | {pct(r['achieved_occupancy_pct'])} |\n")
        if m > 1:
            out.append(f"| {pre}{total_label(sel[0], m)} |  | {micro(total(sel, 'duration_ns'))} |  | "
                       f"{mb(total(sel, 'dram_read_bytes'))} | {mb(total(sel, 'dram_write_bytes'))} |  |  |\n")
    return "".join(out)


def inst_header(link):
    pre, rule = ("chapter | ", "--- | ") if link else ("", "")
    return (f"| {pre}kernel | warp inst / element | active threads / warp inst | predicated-on threads / warp inst | "
            "divergent branch targets | shared bank conflicts ld / st | shared wavefronts ld / st | "
            f"stall long scoreboard | stall barrier | stall membar |\n"
            f"| {rule}--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")


def inst_table(c, ch, link=""):
    """The instructions table's rows of chapter ch."""
    pre, out = (link + " | " if link else ""), []
    for vn in c.variants[ch]:
        sel, _ = c.shown(ch, vn)
        m = len(sel)
        for k, r in enumerate(sel, 1):
            out.append(f"| {pre}{label(r, m, k)} | {sig(per_element(r['warp_insts'], r))} | "
                       f"{ratio(r['threads_per_warp_inst'])} | {ratio(r['pred_on_threads_per_warp_inst'])} | "
                       f"{count(r['divergent_branch_targets'])} | "
                       f"{counts(r['shared_ld_bank_conflicts'], r['shared_st_bank_conflicts'])} | "
                       f"{counts(r['shared_ld_wavefronts'], r['shared_st_wavefronts'])} | "
                       f"{ratio(r['stall_long_scoreboard_per_inst'])} | {ratio(r['stall_barrier_per_inst'])} | "
                       f"{ratio(r['stall_membar_per_inst'])} |\n")
        if m > 1:
            out.append(f"| {pre}{total_label(sel[0], m)} | {sig(per_element(total(sel, 'warp_insts'), sel[0]))} |  |  | "
                       f"{count(total(sel, 'divergent_branch_targets'))} | "
                       f"{counts(total(sel, 'shared_ld_bank_conflicts'), total(sel, 'shared_st_bank_conflicts'))} | "
                       f"{counts(total(sel, 'shared_ld_wavefronts'), total(sel, 'shared_st_wavefronts'))} |  |  |  |\n")
    return "".join(out)


def chapter_link(ch, up, slugs):
    return f"[{ch} {slugs[ch]}]({up}chapters/{ch}-{slugs[ch]}/README.md)" if ch in slugs else ch


HOW = ("one run of each kernel under Nsight Compute (`ncu --clock-control none`, which also flushes the caches "
       "before each kernel)")

COLUMNS_TEXT = """
## What the columns are

Each column is one Nsight Compute metric (the names are those of its Kernel Profiling Guide), for one launch:

- **time µs**: `gpu__time_duration.sum`, how long the kernel ran while it was profiled.
- **DRAM % of peak**: `dram__throughput.avg.pct_of_peak_sustained_elapsed`, how busy device memory was over
  the kernel's run, against the most it can sustain.
- **DRAM read MB** and **DRAM write MB**: `dram__bytes_read.sum` and `dram__bytes_write.sum`, in 10^6 bytes.
  Reading N ints once is {read_mb} MB at this N. Data still in the L2 cache when a kernel ends has not reached
  DRAM yet, so a kernel that writes N ints can show fewer bytes written.
- **L2 hit %**: `lts__t_sector_hit_rate.pct`, the share of the L2 cache's sector lookups that hit.
- **achieved occupancy %**: `sm__warps_active.avg.pct_of_peak_sustained_active`, the warps resident on an SM
  on average while it was active, against the most it can hold.
- **warp inst / element**: `smsp__inst_executed.sum` (warp instructions executed) divided by N.
- **active threads / warp inst**: `smsp__average_thread_inst_executed_per_inst_executed.ratio`, how many of a
  warp's 32 threads took part in an instruction, on average; below 32 when warps diverge or run part-empty.
- **predicated-on threads / warp inst**: `smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio`,
  the same count of those threads whose guard predicate was true, the ones that did the work. The compiler
  often turns a short `if` into predicated instructions rather than a branch: its divergence shows here, not
  in the column before or in the divergent branches.
- **divergent branch targets**: `smsp__sass_branch_targets_threads_divergent.sum`, branches at which the active
  threads of a warp went more than one way.
- **shared bank conflicts ld / st**: `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` and `..._op_st.sum`,
  bank conflicts of shared-memory loads and stores.
- **shared wavefronts ld / st**: `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum` and `..._op_st.sum`, the
  passes shared-memory loads and stores took; a conflict-free warp access takes one, a k-way conflict k.
- **stall long scoreboard**, **stall barrier**, **stall membar**:
  `smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio` and its `_barrier_` and `_membar_`
  siblings: how many warps were waiting for that reason, on average over the cycles in which an instruction
  was issued (roughly, cycles of waiting per instruction). Long scoreboard: for data from global memory
  (through L1TEX); barrier: at a `__syncthreads()` for the block's other warps; membar: at a memory fence.
"""


def chapter_list(chapters):
    """"chapter 19", "chapters 16 and 17", "chapters 03, 16 and 17"."""
    if len(chapters) == 1:
        return f"chapter {chapters[0]}"
    return "chapters " + ", ".join(chapters[:-1]) + " and " + chapters[-1]


def measured_on(dates):
    """When the chapters of a page were measured, from {chapter: date}: the one date where all
    agree, else the date of most chapters (of two as common, the later) and after it each other
    date with its chapters, "2026-11-22 (chapter 19: 2026-11-25)"."""
    by_date = {}
    for ch in sorted(dates, key=int):
        by_date.setdefault(dates[ch], []).append(ch)
    main = max(by_date, key=lambda d: (len(by_date[d]), d))
    others = [f"{chapter_list(by_date[d])}: {d}" for d in sorted(by_date) if d != main]
    return main + (f" ({'; '.join(others)})" if others else "")


def cubs_of(cubs):
    """Which CUB the CUB kernels of a page came from, from {chapter: "CUB 3.0.1"}: "CUB 3.0.1
    (chapters 11 and 17) and CUB 3.5.0 (chapter 19)"; "" for none."""
    by_cub = {}
    for ch in sorted(cubs, key=int):
        by_cub.setdefault(cubs[ch], []).append(ch)
    parts = [f"{cub} ({chapter_list(chs)})" for cub, chs in sorted(by_cub.items(), key=lambda kv: version_key(kv[0]))]
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def counters_page(c, base, dates, uprel, slugs):
    """The all-chapters page, <base>.md; dates: {chapter: the date it was measured}."""
    # The title the site's sidebar lists beside the results pages: "H200 hardware counters".
    title = f"{common.xml(common.gpu_short(c.device))} hardware counters"
    link = {ch: chapter_link(ch, uprel, slugs) for ch in c.chapters}
    cubs = cubs_of(c.chapter_cubs())
    s = [f"# {title}\n\n",
         f"Every chapter's kernels on the {common.xml(c.device)} at N = {common.pow2(c.main_n)} "
         f"({'%.0f' % c.main_n} elements), {HOW}, "
         f"by `scripts/profile.sh run` on {measured_on(dates)}.\n",
         f"CUB's kernels came from {cubs}.\n" if cubs else "",
         f"Every number below comes from [{base}.csv]({base}.csv), which also holds the untimed first run of each kernel;\n",
         "the tables show the timed run. A kernel launched several times per run (a multi-pass reduction, a scan's\n",
         "three passes) has a row per launch and a row of totals. Each chapter's page shows its own rows under its\n",
         "measured results. The times here are one profiled run each: the chapters' own medians are the timings to quote.\n",
         "\n## Memory\n\n", memory_header(True)]
    s += [memory_table(c, ch, link[ch]) for ch in c.chapters]
    s += ["\n## Instructions, shared memory and stalls\n\n", inst_header(True)]
    s += [inst_table(c, ch, link[ch]) for ch in c.chapters]
    none = "; ".join(f"chapter {ch}: {t}" for ch in c.chapters for t in [c.not_profiled(ch)] if t)
    if none:
        s.append(f"\nNot in the tables, because they launch no kernel that ncu profiles (a `cudaMemcpy`, say): {none}.\n")
    own = "; ".join(f"chapter {ch}: {t}" for ch in c.chapters for t in [c.own_n(ch)] if t)
    if own:
        s.append(f"\nRun at their own N, which their warp inst / element uses: {own}.\n")
    s.append(COLUMNS_TEXT.format(read_mb="%.1f" % (c.main_n * 4 / 1e6)))
    return "".join(s)


def chapter_block(c, ch, base, date, pagerel):
    """Chapter ch's block for its page; date: the day its counters were measured. Where its rows
    name a CUB, the block says which CUB's kernels it profiled."""
    title = f"Hardware counters on the {common.xml(c.device)}"
    cub = c.chapter_cubs().get(ch)
    from_cub = f", CUB's kernels from {cub}" if cub else ""
    s = [f"Hardware counters of this chapter's kernels on the {common.xml(c.device)} at N = {common.pow2(c.main_n)}: "
         f"{HOW}, by `scripts/profile.sh` on {date}{from_cub}.\n",
         "Each variant's timed run; a kernel launched more than once per run has a row per launch and a row of totals.\n",
         f"Every launch and metric: [{base}.csv]({pagerel}{base}.csv); every chapter, and what each column measures: "
         f"[{title}]({pagerel}{base}.md).\n\n",
         memory_header(False), memory_table(c, ch), "\n", inst_header(False), inst_table(c, ch)]
    t = c.not_profiled(ch)
    if t:
        s.append(f"\nNot in the tables, because they launch no kernel that ncu profiles: {t}.\n")
    t = c.own_n(ch)
    if t:
        s.append(f"\nRun at their own N, which their warp inst / element uses: {t}.\n")
    return "".join(s)


def add_markers(path):
    """Put empty counters markers right after the <!-- results:end --> line of a page that has
    none. True when the page has counters markers now, False when it has neither kind."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    lines = text.split("\n")
    if any(re.fullmatch(r"\s*<!-- counters:begin -->\s*", l) for l in lines):
        return True
    at = next((i for i, l in enumerate(lines) if re.fullmatch(r"[ \t]*<!-- results:end -->[ \t\r]*", l)), None)
    if at is None:
        return False
    lines[at + 1:at + 1] = ["", "<!-- counters:begin -->", "<!-- counters:end -->"]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines))
    return True


def do_render(argv):
    """profile.sh render: each CSV's page, then each chapter page's block (one per CSV, in order)."""
    date, csvs = common.render_args(argv)
    slugs = common.chapter_dirs()
    blocks = {}  # chapter -> its (device, block) pairs, one per CSV that has it
    for path in csvs:
        if not os.path.isfile(path):
            say(f"{path}: no such file")
            return 2
        d = date or common.file_date(path)  # for rows without a date of their own
        directory = os.path.abspath(os.path.dirname(path) or ".")
        base = os.path.basename(path)[:-len(".csv")] if path.endswith(".csv") else os.path.basename(path)
        _, pagerel, uprel = common.result_paths(directory)
        with open(path, newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
        missing = next((k for k in Counters.NEED if k not in header), None)
        if missing:
            say(f"{path} is not a counters CSV (no column {missing})")
            return 1
        c = Counters(path)
        if not c.rows:
            say(f"{path} holds no rows")
            return 1
        if c.device == "":
            c.device = f"unnamed GPU of {base}.csv"
        dates, mixed = c.chapter_dates(d)
        for ch in mixed:
            say(f"{path}: chapter {ch}'s rows carry more than one date; its counters show the latest, {dates[ch]}")
        with open(os.path.join(directory, base + ".md"), "w", encoding="utf-8") as f:
            f.write(counters_page(c, base, dates, uprel, slugs))
        for ch in c.chapters:
            blocks.setdefault(ch, []).append((c.device, chapter_block(c, ch, base, dates[ch], pagerel)))
        say(f"wrote {directory}/{base}.md")

    status = 0
    for ch, slug in slugs.items():
        if ch not in blocks:
            continue
        page = f"chapters/{ch}-{slug}/README.md"
        path = os.path.join(common.ROOT, page)
        if not os.path.isfile(path):
            say(f"{page}: no such file; its counters block was not written")
            continue
        if not add_markers(path):
            say(f"{page}: no <!-- counters:begin --> / <!-- counters:end --> and no <!-- results:end --> line; "
                "left as it was")
            continue
        # The first GPU's block open, the others folded (the page folds the whole block too).
        if common.splice(path, "<!-- counters:begin -->", "<!-- counters:end -->", common.fold_gpus(blocks[ch])) != 0:
            status = 1
    if status == 0:
        say("the chapter pages' counters blocks are up to date")
    return status


def main(argv):
    return common.run_render_main(SCRIPT, argv, USAGE, do_run, do_render)
