"""Chapter 19's study chart: how far each float sum lands from the exactly rounded sum, and how
many different results its runs give, as N grows.

  python3 scripts/wb.py study render CSV [CSV...]

CSV is what `./chapter19 --study --csv` prints (chapter,kernel,n,input,spread,runs,patterns,
bits,exact_bits,ulps_max,rel_err_max,verified), kept as docs/results/<gpu>-chapter19-study.csv.
For each CSV it writes <CSV without .csv>.svg beside it: two panels over log2 N for one input
(the positive one, the chapter's default), the largest error in ulps of the exactly rounded sum
(log scale) and the distinct bit patterns over the runs, the legend under them, the chart as tall
as the legend needs. When the CSV lies in docs/results/ of a tree whose chapter 19 page has the
marker lines `<!-- study:begin <CSV's file name> -->` and `<!-- study:end -->`, it also writes
between them the table of every sum and input at the largest N each sum was run at, the numbers
as the CSV gives them. No GPU needed.
Exit: 0 written; 2 bad usage or a CSV that is not a study."""

import csv
import glob
import math
import os
import sys

from . import common
from .svg import el, f1, titled, whole

COLUMNS = ("chapter", "kernel", "n", "input", "spread", "runs", "patterns", "bits", "exact_bits",
           "ulps_max", "rel_err_max", "verified")

# The lines drawn, in legend order: (kernel, label, colour, dashed). A study without a kernel
# (CUB's determinism levels need CUB 3.1) draws the others.
LINES = (
    ("float_atomic", "atomics", "#d62728", False),
    ("float_tree", "tree", "#1f77b4", False),
    ("float_reproducible", "reproducible", "#2ca02c", False),
    ("float_pairwise", "pairwise", "#17becf", True),
    ("float_kahan", "Kahan-Babuska", "#9467bd", False),
    ("float_exact", "exact", "#000000", True),
    ("cub_sum_not_guaranteed", "CUB not_guaranteed", "#ff7f0e", False),
    ("cub_sum_gpu_to_gpu", "CUB gpu_to_gpu", "#8c564b", True),
    ("float_scan_single_pass", "scan, chapter 17's order", "#e377c2", False),
)
INPUT = "positive"
# The inputs of the page's table, in its column order.
INPUTS = ("positive", "mixed", "cancel")
# The reference line of the error panel: (legend label, colour, dash pattern).
HALF_ULP = ("0.5 ulp: correctly rounded", "#999999", "2 3")
ULPS_FLOOR = 0.1  # errors below this are drawn on it: every result within 0.5 ulp is as close as a float gets
# The legend: rows of LEGEND_COLUMNS keys, LEGEND_ROW pixels apart, the first baseline LEGEND_TOP
# under the panels; the chart ends LEGEND_BOTTOM pixels under the last baseline, room for the
# descenders of its text (12 px Helvetica reaches about 3 px below the baseline).
LEGEND_COLUMNS, LEGEND_ROW, LEGEND_TOP, LEGEND_BOTTOM = 3, 18, 56, 14


def read(path):
    """The study's rows, each a dict; SystemExit(2) naming the file if it is not a study."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if line.strip()))
    if not rows or tuple(rows[0].keys()) != COLUMNS:
        raise SystemExit(f"study: {path} is not chapter 19's --study CSV (its header must be {','.join(COLUMNS)})")
    return rows


def chart(rows, title):
    """The two-panel chart as SVG text."""
    runs = rows[0]["runs"]
    spread = rows[0]["spread"]
    series = {}
    for r in rows:
        if r["input"] != INPUT:
            continue
        series.setdefault(r["kernel"], []).append((int(math.log2(int(r["n"]))), float(r["ulps_max"]), int(r["patterns"])))
    lines = [ln for ln in LINES if ln[0] in series]
    xs = sorted({p[0] for pts in series.values() for p in pts})
    x_lo, x_hi = xs[0], xs[-1]
    # The legend's keys decide the chart's height: every row of them fits above its bottom edge.
    keys = [(label, colour, "2", "6 4" if dashed else None) for _, label, colour, dashed in lines]
    keys.append((HALF_ULP[0], HALF_ULP[1], "1", HALF_ULP[2]))
    top, bottom = 70, 336
    legend_rows = (len(keys) + LEGEND_COLUMNS - 1) // LEGEND_COLUMNS
    width, height = 920, bottom + LEGEND_TOP + (legend_rows - 1) * LEGEND_ROW + LEGEND_BOTTOM
    s = titled(width, height, common.xml(title),
               common.xml(f"{INPUT} inputs, spread {spread}, {runs} runs per point (the scan up to 2^22); left: the largest "
                          f"error in ulps of the exact sum (below 0.1 drawn at 0.1), right: distinct results"))
    panels = ((70, 420), (500, 850))

    def px(panel, x):
        a, b = panels[panel]
        return a + (b - a) * (x - x_lo) / max(1, x_hi - x_lo)

    # Left: log10 of the error, from 10^-3 to the next power of ten above the largest.
    worst = max(p[1] for pts in series.values() for p in pts)
    e_hi = max(1, math.ceil(math.log10(max(worst, 1.0)) + 1e-9))
    e_lo = int(math.log10(ULPS_FLOOR))

    def py_err(v):
        e = math.log10(max(v, ULPS_FLOOR))
        return bottom - (bottom - top) * (e - e_lo) / (e_hi - e_lo)

    # Right: patterns on a log axis from 1 to the next 1-2-5 step above the most seen.
    most = max(p[2] for pts in series.values() for p in pts)
    pat_ticks = [1]
    while pat_ticks[-1] < most:
        pat_ticks.append(pat_ticks[-1] * (2.5 if str(pat_ticks[-1])[0] == "2" else 2))
    pat_ticks = [int(t) for t in pat_ticks]
    p_hi = math.log10(pat_ticks[-1]) if pat_ticks[-1] > 1 else 1.0

    def py_pat(v):
        return bottom - (bottom - top) * math.log10(max(v, 1)) / p_hi

    grey = (("stroke", "#dddddd"), ("stroke-width", "1"))
    for e in range(e_lo, e_hi + 1):
        y = py_err(10.0 ** e)
        s.add(el("line", (("x1", f1(panels[0][0])), ("y1", f1(y)), ("x2", f1(panels[0][1])), ("y2", f1(y))) + grey),
              el("text", (("x", f1(panels[0][0] - 6)), ("y", f1(y + 4)), ("text-anchor", "end"), ("fill", "#555555")),
                 common.xml(f"{10.0 ** e:g}")))
    for v in pat_ticks:
        y = py_pat(v)
        s.add(el("line", (("x1", f1(panels[1][0])), ("y1", f1(y)), ("x2", f1(panels[1][1])), ("y2", f1(y))) + grey),
              el("text", (("x", f1(panels[1][0] - 6)), ("y", f1(y + 4)), ("text-anchor", "end"), ("fill", "#555555")),
                 whole(v)))
    half = py_err(0.5)
    s.add(el("line", (("x1", f1(panels[0][0])), ("y1", f1(half)), ("x2", f1(panels[0][1])), ("y2", f1(half)),
                      ("stroke", HALF_ULP[1]), ("stroke-width", "1"), ("stroke-dasharray", HALF_ULP[2]))))
    for panel, label in ((0, "largest error, ulps (log scale)"), (1, "distinct results (log scale)")):
        a, b = panels[panel]
        for x in xs:
            s.add(el("text", (("x", f1(px(panel, x))), ("y", f1(bottom + 16)), ("text-anchor", "middle"),
                              ("fill", "#555555")), f"2^{x}"))
        s.add(el("text", (("x", f1((a + b) / 2)), ("y", f1(bottom + 34)), ("text-anchor", "middle"), ("fill", "#222222")),
                 common.xml(f"N; {label}")))
    for kernel, label, colour, dashed in lines:
        pts = sorted(series[kernel])
        style = (("fill", "none"), ("stroke", colour), ("stroke-width", "2"),
                 ("stroke-dasharray", "6 4" if dashed else None))
        err = " ".join(f"{f1(px(0, x))},{f1(py_err(u))}" for x, u, _ in pts)
        pat = " ".join(f"{f1(px(1, x))},{f1(py_pat(p))}" for x, _, p in pts)
        s.add(el("polyline", (("points", err),) + style))
        s.add(el("polyline", (("points", pat),) + style))
    # The legend, in rows of three under the panels.
    for i, (label, colour, stroke, dash) in enumerate(keys):
        x = 70 + (i % LEGEND_COLUMNS) * 260
        y = bottom + LEGEND_TOP + (i // LEGEND_COLUMNS) * LEGEND_ROW
        s.add(el("line", (("x1", whole(x)), ("y1", whole(y - 4)), ("x2", whole(x + 24)), ("y2", whole(y - 4)),
                          ("stroke", colour), ("stroke-width", stroke), ("stroke-dasharray", dash))),
              el("text", (("x", whole(x + 30)), ("y", whole(y)), ("fill", "#222222")), common.xml(label)))
    return s.text()


def page_table(rows, name):
    """The page's table as Markdown (ending in a newline): a row per sum, in the CSV's order, at
    the largest N it was run at; for each input its largest error in ulps of the exactly rounded
    sum and its distinct results, as the CSV gives them ("FAIL" beside a result outside its
    bound). `name`: the CSV's file name, which the lead line names."""
    kernels, largest = [], {}
    for r in rows:
        if r["kernel"] not in largest:
            kernels.append(r["kernel"])
        largest[r["kernel"]] = max(largest.get(r["kernel"], 0), int(r["n"]))
    cell = {(r["kernel"], r["input"]): r for r in rows if int(r["n"]) == largest[r["kernel"]]}
    inputs = [i for i in INPUTS if any(k[1] == i for k in cell)]
    out = [f"Each sum at the largest N it was run at: {rows[0]['runs']} runs per input, spread {rows[0]['spread']}; "
           f"the largest error in ulps of the correctly rounded sum and the number of distinct results "
           f"([{name}](../../docs/results/{name})).", ""]
    out.append("| kernel | N | " + " | ".join(f"{i}: ulps | results" for i in inputs) + " |")
    out.append("| --- | ---: |" + " ---: | ---: |" * len(inputs))
    for k in kernels:
        cells = []
        for i in inputs:
            r = cell.get((k, i))
            if r is None:
                cells += ["", ""]
            else:
                cells += [r["ulps_max"] + ("" if r["verified"] == "PASS" else f" {r['verified']}"), r["patterns"]]
        out.append(f"| {k} | {common.pow2(largest[k])} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def chapter19_page(csv_path):
    """Chapter 19's page in the tree whose docs/results/ holds csv_path, or None."""
    results = os.path.dirname(os.path.abspath(csv_path))
    if os.path.basename(results) != "results" or os.path.basename(os.path.dirname(results)) != "docs":
        return None
    pages = glob.glob(os.path.join(os.path.dirname(os.path.dirname(results)), "chapters", "19-*", "README.md"))
    return pages[0] if len(pages) == 1 else None


def main(argv):
    if len(argv) < 2 or argv[0] != "render" or any(a.startswith("-") for a in argv[1:]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for path in argv[1:]:
        try:
            rows = read(path)
        except SystemExit as e:
            print(e, file=sys.stderr)
            return 2
        title = "Chapter 19: the error and the bits of each float sum as N grows"
        out = path[:-4] + ".svg"
        with open(out, "w", encoding="utf-8", newline="\n") as f:
            f.write(chart(rows, title))
        print(f"study: wrote {out}")
        page = chapter19_page(path)
        name = os.path.basename(path)
        if page and common.splice(page, f"<!-- study:begin {name} -->", "<!-- study:end -->",
                                  page_table(rows, name)) == 0:
            print(f"study: wrote the table of {name} in {page}")
    return 0
