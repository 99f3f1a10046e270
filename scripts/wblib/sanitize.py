"""`wb.py sanitize` (scripts/sanitize.sh): run every chapter under compute-sanitizer's four
tools and check what the workbook promises (docs/pages/sanitizers.md):
  - in its normal mode every chapter is clean under racecheck, memcheck, synccheck and
    initcheck, and still verifies its result (exit 0);
  - the --racy run of a chapter that offers one (06, 13) IS reported by racecheck.
Each run is tiny (N = 2^16 by default, one timed repetition, no warm-up), because the tools slow
kernels down by orders of magnitude. Every tool also sees each chapter at the edges: an odd N
that leaves a partial block or tile (65539), an input off 16-byte alignment (--offset 1, so
heads and tails run), and, where the chapter has --block and --batch, small tiles (--block 64
--batch 2: 513 tiles, so chapter 17 looks back across many windows). A chapter with --variant
runs every kernel, in the runs common.runs_covering_every_kernel names.

Chapter 18 runs with the settings of CHAPTER_SETTINGS (several shards on one GPU, without the gate;
memcheck's and initcheck's records saved as XML, so that the errors NCCL makes inside itself are
told from the rest and left uncounted); where it is not built (no NCCL) it is left out with a note. It prints a progress line per chapter, then a table chapter x tool whose cells read `clean` or
`E err / W warn` (from the tools' summary lines), and keeps every log.
Exit: 0 all expectations met, 1 one failed, 2 bad usage, 77 no GPU or no compute-sanitizer
(1 instead of 77 when REQUIRE_GPU=1, so that a GPU machine cannot skip silently)."""

import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from . import common
from .common import Usage

SCRIPT = "sanitize.sh"
TOOLS = ("racecheck", "memcheck", "synccheck", "initcheck")
EDGE_N = "65539"   # a partial block and tile at every block size

# Chapter 18 under the tools, as its page's lab notes explain:
#  - every run has 3 shards on its GPU, so that the carries and the collectives run too;
#  - every tool runs it without the gate (--no-gate): under each of the four a launch waits for
#    its kernel, so the host never reaches the store that opens the gate (seen on an H200: the
#    gate opened by itself, exit 3, under all four);
#  - on two GPUs or more, memcheck and initcheck report errors inside NCCL that are NCCL's own
#    (nccl_own): each of their runs also saves its records as XML (--xml --save), and those
#    records are not counted; the progress line says how many there were. Every other record
#    counts: an error of the workbook's own code, a memory error anywhere, an API error of the
#    program's own calls.
CHAPTER_SETTINGS = {
    "18": {"args": ["--shards", "3", "--no-gate"], "nccl": True},
}

# The CUDA API errors NCCL provokes and handles itself, with where each comes from:
NCCL_HANDLED_ERRORS = {
    # asked for the attributes of its kernels for every GPU architecture, CUDA answers this for
    # those not built for the running GPU (NCCL's initialisation, one GPU or several);
    "cudaErrorNoKernelImageForDevice",
    # NCCL enables peer access between two GPUs for each connection it makes, and clears this
    # answer when an earlier connection already did (two GPUs or more).
    "cudaErrorPeerAccessAlreadyEnabled",
}

# The tools whose records are split into NCCL's own and the rest (chapter 18).
NCCL_TOOLS = ("memcheck", "initcheck")


def nccl_own(record):
    """Whether one record of memcheck's or initcheck's XML is NCCL's own, not the program's:
      - a CUDA API error of NCCL_HANDLED_ERRORS whose host call stack runs through libnccl;
      - initcheck's uninitialized read by NCCL's kernels (every device frame an ncclDev
        function) that NCCL launched (a host frame in libnccl). NCCL's LL protocol reads a line
        of its buffer before the other GPU writes it, by design (a flag in the line says when
        the data is there); with LL switched off (NCCL_PROTO=Simple) reads inside NCCL's
        kernels are still reported, fewer (6 against 10 on two H200s).
    An initcheck record in NCCL's kernels would also come from a buffer of the program's handed
    to NCCL uninitialised; chapter 18 zeroes or fills every buffer before it hands it over."""
    if record.tag != "record":
        return False
    in_nccl = any("libnccl" in os.path.basename(m.text or "") for m in record.iter("module"))
    kind = record.findtext("kind")
    if kind == "Api":
        return in_nccl and record.findtext("what/error") in NCCL_HANDLED_ERRORS
    if kind == "Initcheck":
        functions = [record.findtext("where/func") or ""]
        functions += [frame.findtext("func") or "" for stack in record.iter("deviceStack")
                      for frame in stack.iter("frame")]
        return (in_nccl and all(f.startswith("ncclDev") for f in functions)
                and (record.findtext("what/text") or "").startswith("Uninitialized __global__ memory read"))
    return False


def nccl_records(xml_text):
    """(NCCL's own, all): how many of the records in a tool's XML (compute-sanitizer --xml
    --save) are NCCL's own (nccl_own), of how many. Unreadable XML (a run cut off): (0, 0), so
    that every error of the run's summary counts."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError:
        return 0, 0
    records = [r for r in root if r.tag == "record"]
    return sum(1 for r in records if nccl_own(r)), len(records)


USAGE = """usage: scripts/sanitize.sh [options] [CHAPTER...]

Run chapters under compute-sanitizer (racecheck, memcheck, synccheck, initcheck) and check
that each is clean in its normal mode and that every --racy run is reported by racecheck.

  CHAPTER          05, 5 or chapter05 (default: every chapters/NN-*/ directory)
  --n N            elements per run (default 2^16; the chapter's forms: 65536, 2^16, 1<<16)
  --racy-n N       elements for the --racy runs (default 2^12: a racy kernel makes racecheck
                   report hazards by the ten thousand, and reporting them is what is slow)
  --offset E       also pass --offset E, to put the input off 16-byte alignment (default: none)
  --tools LIST     which tools, space separated (default "racecheck memcheck synccheck initcheck")
  --logs DIR       where the logs go (default $WB_SANITIZE_DIR, else build/sanitize)
  --bin-dir DIR    where the chapterNN programs are (default: repository root, then build/)
  --timeout S      seconds allowed per sanitizer run (default 900)
  -h, --help       this text

compute-sanitizer is $COMPUTE_SANITIZER, else the one on PATH, else /usr/local/cuda/bin's.
Exit: 0 all clean and every --racy run reported; 1 otherwise; 2 bad usage;
77 no GPU or no compute-sanitizer (1 instead when REQUIRE_GPU=1).
"""


def summary_counts(log_text, tool):
    """(hazards, errors, warnings) from a sanitizer log, or None when it holds no summary line.
    racecheck's line is "RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)"; the
    other tools end with "ERROR SUMMARY: 2 errors". Several processes: their counts add up."""
    race = err = None
    for line in log_text.splitlines():
        if re.search(r"RACECHECK SUMMARY: \d+ hazards? displayed", line):
            w = [int(x) for x in re.findall(r"\d+", line.rsplit("RACECHECK SUMMARY: ", 1)[1])[:3]]
            w += [0] * (3 - len(w))
            race = [a + b for a, b in zip(race or (0, 0, 0), w)]
        if re.search(r"ERROR SUMMARY: \d+ errors?", line):
            count = re.match(r"\d+", line.rsplit("ERROR SUMMARY: ", 1)[1])
            err = (err or 0) + (int(count.group()) if count else 0)
    # racecheck reads its own line; should a version print only the generic one, use that.
    if tool == "racecheck" and race is not None:
        return tuple(race)
    if err is not None:
        return err, err, 0
    return None


class Cell:
    """One chapter under one tool: the counts of its runs added up, and their problems (each
    named once: a cell's runs often fail the same way)."""

    def __init__(self):
        self.hazards = self.errors = self.warnings = 0
        self.nccl = 0   # NCCL's own records, not counted (nccl_own)
        self.problems = []
        self.no_summary = False

    def problem(self, what):
        if what not in self.problems:
            self.problems.append(what)

    def text(self):
        """"clean" or "E err / W warn", then any problem ("clean, exit 1: wrong result"); a run
        without a summary line has no counts to show ("no summary, exit 134")."""
        counts = "clean" if self.hazards == self.errors == self.warnings == 0 else \
            f"{self.errors} err / {self.warnings} warn"
        bad = ", ".join(self.problems)
        if self.no_summary and counts == "clean":
            return bad
        return f"{counts}, {bad}" if bad else counts


class Sanitizer:
    """compute-sanitizer with the settings of this run."""

    def __init__(self, path, limit):
        self.path, self.limit = path, limit   # limit: seconds per run, as given (text)

    def run(self, cell, tool, log, argv, nccl=False):
        """One sanitizer run of a chapter (argv: the program and its arguments) into its log; its
        counts and problems go to the cell. nccl: for NCCL_TOOLS, also save the records as XML
        beside the log, and leave NCCL's own uncounted."""
        extra = ["--racecheck-report", "all"] if tool == "racecheck" else []
        xml = log[:-len(".log")] + ".xml" if nccl and tool in NCCL_TOOLS else None
        if xml:
            # Every record saved, not the first 100 only, so that each can be told apart.
            extra += ["--xml", "--save", xml, "--print-limit", "1000000"]
            if os.path.exists(xml):
                os.remove(xml)
        with open(log, "w", encoding="utf-8") as f:
            f.write(f"+ {self.path} --tool {tool} --error-exitcode 99 {' '.join(extra)} {' '.join(argv)}\n")
            f.flush()
            try:
                rc = subprocess.run([self.path, "--tool", tool, "--error-exitcode", "99"] + extra + argv,
                                    stdout=f, stderr=subprocess.STDOUT, timeout=float(self.limit)).returncode
            except subprocess.TimeoutExpired:
                rc = 124
        rc = 128 - rc if rc < 0 else rc   # killed by a signal: the status a shell reports
        with open(log, encoding="utf-8", errors="replace") as f:
            counts = summary_counts(f.read(), tool)
        if counts is None:
            cell.problem("no summary")
            cell.no_summary = True
        else:
            own = 0
            if xml and os.path.isfile(xml):
                with open(xml, encoding="utf-8", errors="replace") as f:
                    own = min(nccl_records(f.read())[0], counts[1])
            cell.nccl += own
            cell.hazards += counts[0] - own
            cell.errors += counts[1] - own
            cell.warnings += counts[2]
        # 99 is the tools' own status for "found errors"; anything else but 0 is the chapter's.
        if rc not in (0, 99):
            cell.problem({1: "exit 1: wrong result", 3: "exit 3: CUDA error",
                          124: f"timed out after {self.limit}s"}.get(rc, f"exit {rc}"))


def find_sanitizer():
    """compute-sanitizer: named by $COMPUTE_SANITIZER, on PATH, or where the CUDA Toolkit
    installs it; None when there is none to run."""
    path = os.environ.get("COMPUTE_SANITIZER") or shutil.which("compute-sanitizer")
    if not path and os.access("/usr/local/cuda/bin/compute-sanitizer", os.X_OK):
        path = "/usr/local/cuda/bin/compute-sanitizer"
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def parse_args(argv):
    """The command line as a dict (Usage on a bad one); "help" set for -h."""
    o = {"n": "2^16", "racy_n": "2^12", "offset": None, "tools": " ".join(TOOLS),
         "logs": os.environ.get("WB_SANITIZE_DIR") or os.path.join(common.ROOT, "build", "sanitize"),
         "bin_dir": None, "timeout": "900", "chapters": [], "help": False}

    def chapter(o, word):
        cid = common.normalise_id(word)
        if cid is None:
            raise Usage(f"'{word}' is not a chapter (give 05, 5 or chapter05)")
        o["chapters"].append(cid)

    common.parse_options(argv, o, valued=("--n", "--racy-n", "--offset", "--tools", "--logs", "--bin-dir",
                                          "--timeout"), words=chapter)
    if o["help"]:
        return o
    for tool in o["tools"].split():
        if tool not in TOOLS:
            raise Usage(f"unknown tool '{tool}': use {' '.join(TOOLS)}")
    if not re.fullmatch(r"\d+(\.\d+)?", o["timeout"]):
        raise Usage(f"--timeout '{o['timeout']}' is not a number of seconds")
    return o


def table(rows):
    """Rows of cells as columns as wide as their longest cell, two spaces apart."""
    width = {}
    for row in rows:
        for i, c in enumerate(row):
            width[i] = max(width.get(i, 0), len(c))
    last = max(len(row) for row in rows) - 1
    lines = []
    for row in rows:
        row = row + [""] * (last + 1 - len(row))
        lines.append("".join(c if i == last else c.ljust(width[i] + 2) for i, c in enumerate(row)).rstrip(" "))
    return "".join(line + "\n" for line in lines)


def sanitize(o):
    """The whole run. Returns the exit status."""
    chapters, tools, logs = o["chapters"], o["tools"].split(), o["logs"]
    optional = set()
    if not chapters:
        # Every chapter, those whose results another script makes too (chapter 18 runs on one
        # GPU here); those are left out, with a note, where they were not built.
        chapters = list(common.chapter_dirs())
        optional = set(common.elsewhere()) & set(chapters)
    if not chapters:
        common.say(SCRIPT, f"no chapters/NN-*/ directories under {common.ROOT}")
        return 1
    sanitizer = find_sanitizer()
    if sanitizer is None:
        return common.skip(SCRIPT, "compute-sanitizer not found (not on PATH, not in /usr/local/cuda/bin; "
                                   "set COMPUTE_SANITIZER)")
    san = Sanitizer(sanitizer, o["timeout"])
    # Every chapter must have been built; a GPU must be there (probed with the first chapter).
    binaries = {cid: common.find_binary(cid, o["bin_dir"]) for cid in chapters}
    first = next((b for b in binaries.values() if b), None)
    if first is None:
        common.say(SCRIPT, "no chapter program found: build them first (make all)")
        return 1
    status = common.require_gpu(SCRIPT, first)
    if status is not None:
        return status
    os.makedirs(logs, exist_ok=True)

    failures, rows = [], []
    racy_total = racy_reported = 0
    run_args = ["--n", o["n"], "--reps", "1", "--warmup", "0"] + (["--offset", o["offset"]] if o["offset"] else [])
    print(f"sanitize: {len(chapters)} chapter(s), N = {o['n']}, tools: {o['tools']}; logs in {logs}", flush=True)
    for cid in chapters:
        start = time.monotonic()
        binary = binaries[cid]
        if binary is None and cid in optional:
            rows.append([cid, "not built"])
            print(f"chapter{cid}: not built (it needs what its chapter.cmake names); left out", flush=True)
            continue
        if binary is None:
            failures.append(f"chapter{cid}: no program (build it: make chapter{cid})")
            rows.append([cid, "not built"])
            print(f"chapter{cid}: not built", flush=True)
            continue
        flags = (common.program_info(binary) or {}).get("flags") or []
        runs = common.runs_covering_every_kernel(common.list_variants(binary))
        edge_args = ["--n", EDGE_N, "--offset", "1", "--reps", "1", "--warmup", "0"]
        edge_args += ["--block", "64"] if "--block" in flags else []
        edge_args += ["--batch", "2"] if "--batch" in flags else []
        settings = CHAPTER_SETTINGS.get(cid, {})
        own_args = settings.get("args", [])
        nccl = bool(settings.get("nccl"))
        cells = []
        print(f"chapter{cid}:", end="", flush=True)
        for tool in tools:
            cell = Cell()
            for v in runs:
                set_v = ["--variant", v] if v else []
                log = os.path.join(logs, f"chapter{cid}.{tool}" + (f".{v}" if v else ""))
                tail = own_args + set_v
                san.run(cell, tool, f"{log}.log", [binary] + run_args + tail, nccl=nccl)
                san.run(cell, tool, f"{log}.edge.log", [binary] + edge_args + tail, nccl=nccl)
            text = cell.text()
            cells.append(text)
            print(f"  {tool} {text}" + (f" ({cell.nccl} of NCCL's own not counted)" if cell.nccl else ""),
                  end="", flush=True)
            if text != "clean":
                failures.append(f"chapter{cid} {tool}: {text} (logs: {logs}/chapter{cid}.{tool}.*)")
        # The racecheck exercise: the deliberately broken kernel must be caught.
        racy = "-"
        if "--racy" in flags:
            racy_total += 1
            cell = Cell()
            log = os.path.join(logs, f"chapter{cid}.racecheck.racy.log")
            san.run(cell, "racecheck", log, [binary, "--n", o["racy_n"], "--reps", "1", "--warmup", "0", "--racy"])
            if cell.hazards > 0:
                racy = f"reported: {cell.errors} err / {cell.warnings} warn"
                racy_reported += 1
            else:
                racy = "NOT reported" + (f" ({', '.join(cell.problems)})" if cell.no_summary else "")
                failures.append(f"chapter{cid} --racy: racecheck reported no hazard (log: {log})")
            print(f"  racy: {racy}", end="", flush=True)
        rows.append([cid, " ".join(v or "-" for v in runs)] + cells + [racy])
        print(f"  [{int(time.monotonic() - start)} s]", flush=True)

    print()
    print(table([["chapter", "variants"] + tools + ["racy (racecheck)"]] + rows), end="")
    print()
    if not failures:
        print(f"sanitize: every chapter clean in its normal mode; {racy_reported} of {racy_total} --racy run(s) "
              "reported by racecheck")
        return 0
    print(f"sanitize: FAILED ({len(failures)}):")
    print("".join(f"  {f}\n" for f in failures), end="")
    return 1


def main(argv):
    try:
        o = parse_args(argv)
    except Usage as e:
        common.say(SCRIPT, str(e))
        return 2
    if o["help"]:
        print(USAGE, end="")
        return 0
    return sanitize(o)
