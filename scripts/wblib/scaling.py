"""`wb.py scaling` (scripts/scaling.sh): chapter 18's scaling over several GPUs, in two stages
like the summary.

  run [--gpus LIST] [--past-memory N]
                         chapter 18 with --csv on G GPUs for each G of LIST ("2 4"; default:
                         every visible GPU): once as one process, once under mpirun (one process
                         per GPU) when the program was built with MPI and mpirun is on the PATH;
                         with --past-memory N, also its in-place scan and its sum at N elements
                         (choose N larger than one GPU's memory). Writes, for each G,
                         docs/results/<gpu>-x<G>-chapter18.csv: the chapter's CSV rows after
                         three columns, run, device and gpus. Needs the GPUs.
  render CSV...          for each CSV, the scaling table (each operation on one GPU, over its
                         shard, beside all G GPUs: time, aggregate and per-GPU GB/s, efficiency
                         against G times one GPU) and its chart, <CSV stem>.svg, into chapter 18's
                         page between <!-- scaling xG:begin --> and <!-- scaling xG:end -->; a
                         page without that block for G gets one, in order of G, beside the
                         others. No GPU needed.
  all                    run, then render.

A machine with one GPU runs it too (G = 1, efficiency 1 by definition, the collectives with one
member); a build without chapter 18 (no NCCL) is skipped with the reason."""

import csv
import glob
import io
import os
import re
import shutil
import subprocess

from . import common, svg
from .common import Usage

SCRIPT = "scaling.sh"

USAGE = """usage: scripts/scaling.sh run [--gpus LIST] [--past-memory N] [--bin-dir DIR] [--out DIR] [--logs DIR]
       scripts/scaling.sh render [--date YYYY-MM-DD] CSV...
       scripts/scaling.sh all [--gpus LIST] [--past-memory N] [--bin-dir DIR] [--out DIR] [--logs DIR] [--date YYYY-MM-DD]

  run      chapter 18 on G GPUs (2^30 elements per GPU) for each G of --gpus ("2 4"; default:
           every visible GPU), as one process and, when built with MPI, under mpirun;
           --past-memory N adds the in-place scan and the sum at N elements. Writes
           OUT/<gpu>-x<G>-chapter18.csv for each G (OUT default docs/results).
  render   the scaling table and chart of each CSV written by run, into chapter 18's page, one
           block for each G.
  all      run, then render.
Exit: 0 done and verified; 1 a run failed; 2 bad usage; 77 no GPU or no chapter 18 here.
"""

# The run's CSV: three columns of its own, then the chapter's.
HEADER = ("run,device,gpus,chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,"
          "verified,blocks_per_sm,config")



def gpus_and_device(info):
    """(how many GPUs chapter 18 spreads over by default, the name of GPU 0) from its --info
    (a dict): every visible device and device 0's name; None where --info names no device."""
    device = (info or {}).get("device") or {}
    if not device.get("name") or not isinstance(device.get("visible"), int) or device["visible"] < 1:
        return None
    return str(device["visible"]), device["name"].replace(",", " ")


# ---- run -----------------------------------------------------------------------------------

def built_with_mpi(binary):
    """Whether the program links an MPI library (then mpirun can start one process per GPU)."""
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True)
    except OSError:
        return False
    return "libmpi" in out.stdout


def mpirun_env():
    """The environment for mpirun: Open MPI refuses to start as root unless told twice, as the
    chapter's MPI tests and the exercise kit tell it (a GPU machine's shell is often root's)."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def chapter_rows(text):
    """The lines of chapter 18's --csv output that are its rows (12 fields, chapter 18)."""
    return [line for line in text.splitlines()
            if (fields := next(csv.reader([line]), [])) and len(fields) == 12 and fields[0] == "18"]


def gpu_counts(text, visible):
    """The G values of --gpus LIST ("2 4" or "2,4"), each from 1 to `visible`, in increasing
    order; every visible GPU when LIST is None. Usage on a bad list."""
    if text is None:
        return [visible]
    words = text.replace(",", " ").split()
    if not words or not all(w.isdigit() for w in words):
        raise Usage(f"--gpus '{text}' is not a list of GPU counts (for example \"2 4\")")
    counts = sorted(set(int(w) for w in words))
    if counts[0] < 1 or counts[-1] > visible:
        raise Usage(f"--gpus '{text}': this machine has {visible} GPU(s); each count must be 1 to {visible}")
    return counts


def do_run(argv):
    """Run chapter 18 as one process, under mpirun and past one GPU's memory, on G GPUs for each
    G asked. Returns (status, the CSVs written, or None when it stopped before writing one)."""
    o = common.parse_options(argv, {"out": os.path.join(common.ROOT, "docs", "results"),
                                    "logs": os.path.join(common.ROOT, "build", "scaling"), "past_memory": None,
                                    "bin_dir": None, "gpus": None},
                             valued=("--past-memory", "--bin-dir", "--out", "--logs", "--gpus"), help=False)
    out_dir, logs, past, bin_dir = o["out"], o["logs"], o["past_memory"], o["bin_dir"]
    binary = common.find_binary("18", bin_dir)
    if binary is None:
        return common.skip(SCRIPT, "chapter 18 is not built here (it needs NCCL: see chapters/18-multi-gpu/README.md)"), None
    notes = []
    status = common.require_gpu(SCRIPT, binary, notes)
    if status is not None:
        return status, None
    found = gpus_and_device(common.program_info(binary))
    if found is None:
        common.say(SCRIPT, "chapter18 --info names no device and no count of visible GPUs")
        return 1, None
    visible, device = found
    counts = gpu_counts(o["gpus"], int(visible))
    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(logs, exist_ok=True)
    failed = 0
    mpi = built_with_mpi(binary) and shutil.which("mpirun")
    written = []
    for g in counts:
        gpus = str(g)
        csv_path = os.path.join(out_dir, f"{common.gpu_slug(device)}-x{gpus}-chapter18.csv")
        with open(csv_path, "w", encoding="utf-8") as f:
            f.write(HEADER + "\n")

        def one(label, name, argv, env=None):
            """One run: its rows into the CSV, labelled; its notes into logs/name.log."""
            nonlocal failed
            log = os.path.join(logs, f"{name}.x{gpus}.log")
            with open(log, "w", encoding="utf-8") as f:
                f.write(f"+ {' '.join(argv)}\n")
            rc, text = common.run_logged(argv, log, 3600, env=env)
            with open(csv_path, "a", encoding="utf-8") as f:
                f.write("".join(f"{label},{device},{gpus},{row}\n" for row in chapter_rows(text)))
            print(f"G = {gpus}, {label}: exit {rc} (notes: {log})", flush=True)
            if rc != 0:
                failed = 1

        one("one process", "chapter18", [binary, "--csv", "--gpus", gpus])
        if mpi:
            # Open MPI binds each of two or fewer processes to one core; the checks want every core.
            one(f"mpirun -np {gpus}", "chapter18.mpi",
                ["mpirun", "--bind-to", "none", "-np", gpus, binary, "--csv", "--gpus", gpus], env=mpirun_env())
        else:
            print("mpirun: skipped (chapter18 was built without MPI, or mpirun is missing)", flush=True)
        if past:
            one(f"one process at N = {past}", "chapter18.past_scan",
                [binary, "--csv", "--gpus", gpus, "--variant", "scan_in_place", "--n", past, "--reps", "2", "--warmup", "0"])
            one(f"one process at N = {past}", "chapter18.past_sum",
                [binary, "--csv", "--gpus", gpus, "--variant", "sum", "--n", past, "--reps", "3", "--warmup", "1"])
        print(f"scaling: wrote {csv_path}", flush=True)
        written.append(csv_path)
    return failed, written


# ---- render --------------------------------------------------------------------------------

def operation(kernel):
    """What a row measures, from its kernel name: sum, scan, or scan in place."""
    if kernel.startswith("sum"):
        return "sum"
    return "scan in place" if "in_place" in kernel else "scan"


class Pair:
    """One operation of one run: on GPU 0 alone over its shard (one_*), and on all GPUs (all_*)."""

    def __init__(self, run, op):
        self.run, self.op = run, op
        self.one = self.all = None   # (median ms, GB/s[, N]) of each side, when the CSV has it

    def efficiency(self, gpus):
        """The aggregate GB/s over gpus times one GPU's; 0 when a side is missing."""
        if not (self.one and self.all) or self.one[1] <= 0:
            return 0.0
        return self.all[1] / (gpus * self.one[1])


def read_scaling(path):
    """A scaling CSV as (pairs in the order the CSV first names them, device, gpus, whether a
    row failed verification); device and gpus come from its last row."""
    rows = common.read_csv(path, ("run", "device", "gpus", "kernel", "n", "median_ms", "gbps", "verified"))
    pairs, order, device, gpus, bad = {}, [], "", 0, False
    for r in rows:
        device, gpus = r["device"], common.number(r["gpus"])
        key = (r["run"], operation(r["kernel"]))
        if key not in pairs:
            pairs[key] = Pair(*key)
            order.append(pairs[key])
        timing = (float(common.number(r["median_ms"])), float(common.number(r["gbps"])))
        if "one_gpu" in r["kernel"]:
            pairs[key].one = timing
        else:
            pairs[key].all = timing + (r["n"],)
        bad = bad or r["verified"] != "PASS"
    return order, device, gpus, bad


def render_block(pairs, device, gpus, bad, date, name, link, chart):
    """The page block: what was measured, the table, the chart, a link to the CSV."""
    lines = [f"Measured on {gpus} x {device} on {date} by `scripts/scaling.sh`: each operation on GPU 0 alone "
             f"over shard 0 (\"one GPU\"), then on all {gpus} GPUs, in the same run; median of the timed runs, "
             f"L2 flushed on every GPU. GB/s counts 4 bytes per element for the sum, 8 for the scan. "
             f"Efficiency: the aggregate over {gpus} times one GPU.", "",
             f"| run | operation | N (all GPUs) | one GPU: ms (GB/s) | {gpus} GPUs: ms | aggregate GB/s "
             f"| per GPU GB/s | efficiency |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for p in pairs:
        if p.one and p.all:
            lines.append("| %s | %s | %s | %.3f (%.1f) | %.3f | %.1f | %.1f | **%.3f** |"
                         % (p.run, p.op, p.all[2], p.one[0], p.one[1], p.all[0], p.all[1], p.all[1] / gpus,
                            p.efficiency(gpus)))
    lines += ["", f"![Scaling of chapter 18 on {gpus} x {device}]({chart})", "",
              f"Every row with its configuration: [{name}]({link})."
              + (" **Some rows FAILED verification.**" if bad else "")]
    return "".join(line + "\n" for line in lines)


def render_chart(pairs, device, gpus):
    """The chart: one bar per operation and run, its efficiency on a 0 to 1 scale."""
    w, left, bar, gap, top = 760, 330, 22, 10, 46
    scale = w - left - 60
    bottom = top + len(pairs) * (bar + gap)
    s = svg.Svg(w, bottom + 40, (("font-family", "sans-serif"), ("font-size", "13")), indent="")
    title = common.xml(f"Chapter 18 on {gpus} x {device}: aggregate over {gpus} x one GPU")
    s.add(svg.el("title", (), title))  # the site's caption under the chart (docs/md_filter.sh)
    s.add(svg.el("rect", (("width", "100%"), ("height", "100%"), ("fill", "white"))))
    s.add(svg.el("text", (("x", "10"), ("y", "22"), ("font-size", "15")), title))
    # The 1.0 line first: a bar's value near 1.0 is written over it, in a halo.
    one_x = svg.whole(left + scale)
    s.add(svg.el("line", (("x1", one_x), ("y1", svg.whole(top - 6)), ("x2", one_x), ("y2", svg.whole(bottom)),
                          ("stroke", "black"), ("stroke-dasharray", "4 3"))))
    for i, p in enumerate(pairs):
        y, eff = top + i * (bar + gap), p.efficiency(gpus)
        s.add(svg.el("text", (("x", svg.whole(left - 8)), ("y", svg.whole(y + bar - 6)), ("text-anchor", "end")),
                     common.xml(f"{p.run}, {p.op}")))
        s.add(svg.el("rect", (("x", svg.whole(left)), ("y", svg.whole(y)), ("width", svg.f1(eff * scale)),
                              ("height", svg.whole(bar)), ("fill", "#4e79a7" if p.op == "sum" else "#f28e2b"))))
        s.add(svg.el("text", (("x", svg.f1(left + eff * scale + 6)), ("y", svg.whole(y + bar - 6))) + svg.HALO, "%.3f" % eff))
    s.add(svg.el("text", (("x", one_x), ("y", svg.whole(bottom + 18)), ("text-anchor", "middle")),
                 f"1.0 = {gpus} x one GPU"))
    s.add(svg.el("line", (("x1", svg.whole(left)), ("y1", svg.whole(top - 6)), ("x2", svg.whole(left)),
                          ("y2", svg.whole(bottom)), ("stroke", "black"))))
    return s


def markers(gpus):
    """The lines around the scaling block of G GPUs on chapter 18's page."""
    return f"<!-- scaling x{gpus}:begin -->", f"<!-- scaling x{gpus}:end -->"


def with_block(text, gpus):
    """The page's text with an empty scaling block for G GPUs where it has none: after the block
    of the largest G below it, else before the first block, so that the blocks stay in order of
    G. None when the page has no scaling block at all, so no place to put one."""
    begin, end = markers(gpus)
    if begin in text:
        return text
    found = [(int(m.group(1)), m) for m in re.finditer(r"^<!-- scaling x(\d+):(begin|end) -->\n", text, re.M)]
    if not found:
        return None
    below = [(g, m) for g, m in found if g < gpus and m.group(2) == "end"]
    if below:
        at = max(below, key=lambda gm: gm[0])[1].end()
        return text[:at] + "\n" + begin + "\n" + end + "\n" + text[at:]
    at = min((m for _, m in found if m.group(2) == "begin"), key=lambda m: m.start()).start()
    return text[:at] + begin + "\n" + end + "\n\n" + text[at:]


def do_render(argv):
    """The table and chart of each scaling CSV into chapter 18's page, in the block of its G.
    Returns the status."""
    date, csvs = common.render_args(argv)
    pages = sorted(glob.glob(os.path.join(common.ROOT, "chapters", "18-*", "README.md")))
    if not pages:
        common.say(SCRIPT, "no chapter 18 page")
        return 1
    page = pages[0]
    for csv_path in csvs:
        if not os.path.isfile(csv_path):
            common.say(SCRIPT, f"no such CSV: {csv_path}")
            return 2
        try:
            pairs, device, gpus, bad = read_scaling(csv_path)
        except common.CsvError as e:
            common.say(SCRIPT, str(e))
            return 1
        stem = csv_path[:-len(".csv")] if csv_path.endswith(".csv") else csv_path
        svg_path = stem + ".svg"
        _, pagerel, _ = common.result_paths(os.path.dirname(os.path.abspath(csv_path)))
        name = os.path.basename(csv_path)
        block = render_block(pairs, device, gpus, bad, date or common.file_date(csv_path), name, pagerel + name,
                             pagerel + os.path.basename(svg_path))
        with open(page, encoding="utf-8", newline="") as f:
            text = f.read()
        placed = with_block(text, gpus)
        if placed is None:
            common.say(SCRIPT, f"{page} has no scaling block (<!-- scaling xG:begin --> / <!-- scaling xG:end --> lines)")
            return 1
        if placed != text:
            with open(page, "w", encoding="utf-8", newline="") as f:
                f.write(placed)
        render_chart(pairs, device, gpus).write(svg_path)
        if common.splice(page, *markers(gpus), block) != 0:
            common.say(SCRIPT, f"{page}: the scaling block of {gpus} GPUs lost its end line")
            return 1
        print(f"scaling: wrote {svg_path} and the block of {gpus} GPUs on {os.path.relpath(page, common.ROOT)}")
    return 0


def main(argv):
    return common.run_render_main(SCRIPT, argv, USAGE, do_run, do_render)
