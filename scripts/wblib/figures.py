"""The workbook's figures: one SVG per kernel pattern, drawn from what each chapter's program does.

  python3 scripts/wb.py figures [--check] [--dir DIR]

Without --check it writes docs/figures/chapterNN-<what>.svg and docs/figures/README.md (the
Markdown that embeds each figure, with its alt text). With --check it draws them into a
temporary folder and compares: it names every file that differs from, or is missing in, the
committed folder, and exits 1 if there is one. --dir DIR writes or checks DIR instead. Either
way each drawn SVG must first pass problems(): well-formed, 800 px wide, a title, a desc that is
safe as Markdown alt text, and no font under 12 px.

Each figure is drawn on a fixed 800-pixel-wide canvas, text 12 px or larger, in the palette of
the results charts (reduction blue, scan orange, CUB grey). Every SVG carries a <title> and a
<desc>, and the desc is also the Markdown image's alt text. Coordinates are written with at
most one decimal, attributes in a fixed order, with no timestamps: the same code draws the same
bytes. The small examples (16 elements, 8 lanes, 4 tiles) are stated in each figure where the
program's real sizes differ."""

import argparse
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

from .common import ROOT, xml
from .svg import el

# ---- palette and type ------------------------------------------------------------------------

WIDTH = 800
REDUCE = "#4e79a7"        # reductions, as in the results charts
REDUCE_TINT = "#d4e0ec"   # a reduction cell that holds a result of this step
SCAN = "#f28e2b"          # scans
SCAN_TINT = "#fbdfc2"
CUB = "#9d9d9d"           # CUB
CUB_TINT = "#e6e6e6"
ALERT = "#e15759"         # a bank conflict, a tile not ready, a load to avoid
INK = "#222222"
MUTED = "#666666"
FAINT = "#b8b8b8"         # strokes of cells whose value no longer matters
PAPER = "#ffffff"
SHADE = "#f3f3f3"         # backgrounds of bands (a memory, a buffer)
MONO = "Consolas, Menlo, monospace"

# Arrowheads, one marker per colour that arrows are drawn in (the marker's id names it).
ARROW_COLOURS = {"ink": INK, "reduce": REDUCE, "scan": SCAN, "cub": CUB, "alert": ALERT, "muted": MUTED}

SMALLEST_FONT = 12  # what the check accepts; 12 px is still legible at page width
# What a desc must not hold, since it is pasted into Markdown as an image's alt text.
MARKDOWN_UNSAFE = ("[", "]", "*", "`", "|", "__")


def num(x):
    """A coordinate as text: a whole number without a decimal point, else one decimal."""
    r = round(float(x), 1)
    return "%d" % r if r == int(r) else "%.1f" % r


# ---- the canvas --------------------------------------------------------------------------------

class Figure:
    """One SVG, built element by element: an 800-pixel-wide white canvas with a <title>, a
    <desc> (the alt text), the arrowhead markers, and the title drawn at the top. `height` may
    grow while drawing (grow_to); the size is written when the text is taken."""

    def __init__(self, name, title, desc, height, subtitle=None):
        self.name = name
        self.title = title
        self.desc = desc
        self.height = height
        self.body = []
        self.text(20, 28, title, size=17, weight="bold")
        if subtitle:
            self.text(20, 48, subtitle, fill=MUTED)

    def grow_to(self, height):
        """Make the canvas at least `height` tall."""
        self.height = max(self.height, height)

    def add(self, element):
        self.body.append(element)

    def rect(self, x, y, w, h, fill=PAPER, stroke=INK, width=1, rx=0, dash=None, opacity=None):
        """A rectangle; stroke None draws none."""
        self.add(el("rect", (("x", num(x)), ("y", num(y)), ("width", num(w)), ("height", num(h)),
                             ("rx", num(rx) if rx else None), ("fill", fill),
                             ("fill-opacity", opacity), ("stroke", stroke or "none"),
                             ("stroke-width", num(width) if stroke and width != 1 else None),
                             ("stroke-dasharray", dash))))

    def text(self, x, y, s, size=13, anchor=None, weight=None, fill=INK, mono=False, italic=False):
        """Text whose baseline starts (or is centred, anchor "middle", or ends) at (x, y). Code
        (mono) keeps its spaces: SVG would collapse runs of ordinary ones."""
        if mono:
            # An indent becomes an offset (monospace glyphs are 0.6 em wide): some renderers drop
            # leading spaces of any kind.
            indent = len(s) - len(s.lstrip(" "))
            x += 0.6 * size * indent if anchor in (None, "start") else 0
            s = s.lstrip(" ").replace(" ", "\u00a0")
        self.add(el("text", (("x", num(x)), ("y", num(y)),
                             ("font-size", str(size) if size != 13 else None),
                             ("text-anchor", anchor), ("font-weight", weight),
                             ("font-style", "italic" if italic else None),
                             ("font-family", MONO if mono else None),
                             ("fill", fill)), xml(s)))

    def lines(self, x, y, rows, size=13, step=None, **style):
        """Several lines of text, `step` pixels apart (1.35 x size by default); returns the
        baseline after the last one."""
        step = step or round(size * 1.35)
        for row in rows:
            self.text(x, y, row, size=size, **style)
            y += step
        return y

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None, arrow=None):
        """A straight line; `arrow` names an ARROW_COLOURS key to end it in an arrowhead."""
        self.add(el("line", (("x1", num(x1)), ("y1", num(y1)), ("x2", num(x2)), ("y2", num(y2)),
                             ("stroke", stroke), ("stroke-width", num(width) if width != 1 else None),
                             ("stroke-dasharray", dash),
                             ("marker-end", f"url(#arrow-{arrow})" if arrow else None))))

    def path(self, d, stroke=INK, width=1, fill="none", dash=None, arrow=None):
        """A path (d already built with num()); `arrow` as for line()."""
        self.add(el("path", (("d", d), ("fill", fill), ("stroke", stroke),
                             ("stroke-width", num(width) if width != 1 else None),
                             ("stroke-dasharray", dash),
                             ("marker-end", f"url(#arrow-{arrow})" if arrow else None))))

    def arrow(self, x1, y1, x2, y2, colour="ink", width=1.3, dash=None):
        """A straight arrow from (x1, y1) to (x2, y2) in one of ARROW_COLOURS."""
        self.line(x1, y1, x2, y2, ARROW_COLOURS[colour], width, dash, colour)

    def curve(self, x1, y1, x2, y2, bend, colour="ink", width=1.3, dash=None):
        """A curved arrow: a quadratic Bezier whose control point sits `bend` pixels off the
        middle of the chord (to its left going from start to end, for a positive bend)."""
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        dx, dy = x2 - x1, y2 - y1
        length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
        cx, cy = mx + bend * dy / length, my - bend * dx / length
        self.path(f"M{num(x1)},{num(y1)} Q{num(cx)},{num(cy)} {num(x2)},{num(y2)}",
                  ARROW_COLOURS[colour], width, dash=dash, arrow=colour)

    def cell(self, x, y, w, h, label="", fill=PAPER, stroke=INK, ink=INK, size=13, mono=False,
             weight=None, dash=None, rx=0, width=1):
        """A box with its label centred in it."""
        self.rect(x, y, w, h, fill, stroke, width=width, rx=rx, dash=dash)
        if label != "":
            self.text(x + w / 2, y + h / 2 + size * 0.36, label, size=size, anchor="middle", fill=ink,
                      mono=mono, weight=weight)

    def svg(self):
        """The document as text: header, title, desc, markers, white ground, then the body."""
        h = num(self.height)
        out = [el("svg", (("xmlns", "http://www.w3.org/2000/svg"), ("width", str(WIDTH)), ("height", h),
                          ("viewBox", f"0 0 {WIDTH} {h}"), ("font-family", "Helvetica, Arial, sans-serif"),
                          ("font-size", "13")))[:-2] + ">",
               "  " + el("title", (), xml(self.title)),
               "  " + el("desc", (), xml(self.desc)),
               "  <defs>"]
        for key, colour in ARROW_COLOURS.items():
            out.append("    " + el("marker", (("id", f"arrow-{key}"), ("viewBox", "0 0 10 10"), ("refX", "9"),
                                              ("refY", "5"), ("markerWidth", "8"), ("markerHeight", "8"),
                                              ("markerUnits", "userSpaceOnUse"), ("orient", "auto")),
                                       el("path", (("d", "M0,0 L10,5 L0,10 z"), ("fill", colour)))))
        out.append("  </defs>")
        out.append("  " + el("rect", (("width", str(WIDTH)), ("height", h), ("fill", PAPER))))
        out += ["  " + e for e in self.body]
        out.append("</svg>")
        return "\n".join(out) + "\n"


# ---- shared drawing: rows of cells, labels at the left --------------------------------------

def row_label(f, y, main, sub=None, x=20):
    """A step's name at the left of its row (bold), with an optional second line."""
    f.text(x, y, main, weight="bold")
    if sub:
        f.text(x, y + 16, sub, size=12, fill=MUTED)


def legend(f, x, y, items):
    """Swatches with their meaning, left to right; each item is (fill, stroke, text).
    Returns the x after the last one."""
    for fill, stroke, label in items:
        f.rect(x, y - 11, 14, 14, fill, stroke)
        f.text(x + 20, y, label, size=12, fill=INK)
        x += 20 + 6.6 * len(label) + 22
    return x


# ---- chapter 00: the two ceilings ---------------------------------------------------------

def memory_cells(f, x, y, n, group=4, w=26, pitch=28, fill=PAPER, stroke=INK, label_groups=None):
    """n int cells in a row, with a bracket under each group of `group` (a 16-byte int4)."""
    for i in range(n):
        f.cell(x + i * pitch, y, w, 24, "", fill, stroke)
    for g in range(n // group):
        gx = x + g * group * pitch
        gw = (group - 1) * pitch + w
        f.path(f"M{num(gx)},{num(y + 30)} L{num(gx)},{num(y + 34)} L{num(gx + gw)},{num(y + 34)} "
               f"L{num(gx + gw)},{num(y + 30)}", MUTED)
        if label_groups:
            f.text(gx + gw / 2, y + 48, label_groups, size=12, anchor="middle", fill=MUTED)


def stream_arrows(f, x1, x2, top, colour):
    """Three parallel arrows between two boxes of a panel: a stream of 16-byte transfers."""
    for dy in (38, 52, 66):
        f.arrow(x1, top + dy, x2, top + dy, colour, 1.6)


def ceiling_panel(f, y, heading, colour, tint, right, counted, meaning):
    """One stream of chapter 00: DRAM in[] -> the SMs -> DRAM out[] (the copy) or -> one int
    (the read-only sum), with what its bytes count."""
    f.text(20, y, heading, size=14, weight="bold", fill=colour)
    top = y + 14
    f.rect(20, top, 260, 100, SHADE, FAINT, rx=6)
    f.text(32, top + 20, "DRAM: in[]", weight="bold")
    memory_cells(f, 36, top + 34, 8, fill=tint, stroke=colour, label_groups="16 bytes")
    f.rect(340, top, 130, 100, PAPER, colour, rx=6, width=1.5)
    f.text(405, top + 38, "the SMs", anchor="middle", weight="bold")
    f.text(405, top + 58, "int4 loads", size=12, anchor="middle", fill=MUTED)
    f.text(405, top + 74, "into registers", size=12, anchor="middle", fill=MUTED)
    stream_arrows(f, 284, 336, top, "reduce" if colour == REDUCE else "scan")
    f.text(310, top + 22, "read", size=12, anchor="middle", fill=colour)
    right(f, top)
    f.text(20, top + 126, counted, weight="bold")
    f.text(20, top + 145, meaning, fill=MUTED)
    return top + 175


def copy_out(f, top):
    f.rect(530, top, 250, 100, SHADE, FAINT, rx=6)
    f.text(542, top + 20, "DRAM: out[]", weight="bold")
    memory_cells(f, 546, top + 34, 8, fill=SCAN_TINT, stroke=SCAN, label_groups="16 bytes")
    stream_arrows(f, 474, 526, top, "scan")
    f.text(500, top + 22, "written", size=12, anchor="middle", fill=SCAN)


def sum_out(f, top):
    f.rect(530, top, 250, 100, SHADE, FAINT, rx=6)
    f.text(542, top + 20, "DRAM: *sum", weight="bold")
    f.cell(546, top + 34, 48, 24, "sum", REDUCE_TINT, REDUCE, size=12)
    f.arrow(472, top + 46, 544, top + 46, "reduce", 1)
    f.lines(604, top + 44, ["one atomicAdd", "per block"], size=12, fill=MUTED)


def chapter00():
    f = Figure("chapter00-ceilings.svg", "Chapter 00: the two ceilings, a copy and a read-only stream",
               "A copy streams every element from DRAM through the SMs and back, and counts 8 bytes per "
               "int (4 read, 4 written); the read-only sum streams every element in once and writes a "
               "single int, and counts 4 bytes per int. Scans are measured against the first ceiling, "
               "reductions against the second.", 0,
               "8 ints drawn, read and written 16 bytes (one int4) at a time")
    y = ceiling_panel(f, 84, "The copy: cudaMemcpyAsync and copy_int4", SCAN, SCAN_TINT, copy_out,
                      "Counted: 4 bytes read + 4 bytes written = 8 bytes per element (8N).",
                      "The ceiling of the scans, chapters 12 to 18, which read and write every element.")
    y = ceiling_panel(f, y + 10, "The read-only stream: read_sum_int4", REDUCE, REDUCE_TINT, sum_out,
                      "Counted: 4 bytes read per element (4N); the sum's one int is not counted.",
                      "The ceiling of the reductions, chapters 01 to 11, which only read.")
    y = f.lines(20, y + 6, ["Reading alone runs faster than copying: no write traffic, and the memory never turns",
                            "around between reads and writes. Both ceilings are measured on the GPU in front of you."],
                fill=INK)
    f.grow_to(y)
    return f


# ---- chapters 01, 02: atomics ----------------------------------------------------------------

ATOMIC_VALUES = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]
# An order in which the 16 atomics might reach *sum: any order gives the same sum.
ARRIVAL = [5, 12, 0, 9, 3, 14, 7, 1, 10, 6, 15, 2, 11, 4, 13, 8]


def chapter01():
    f = Figure("chapter01-atomic-contention.svg", "Chapter 01: every thread's atomicAdd meets at one address",
               "Sixteen threads each add their element to the same global int with atomicAdd; the adds "
               "cannot overlap, so the memory slice that owns the address applies them one after "
               "another, and the kernel runs at the pace of one address, not of the memory.", 0,
               "16 threads drawn in two blocks of 8; the program runs one thread per element, 2^30 of them")
    x0, pitch, w = 60, 44, 38
    y = 90
    for b in range(2):
        bx = x0 + b * 8 * pitch
        f.text(bx + (8 * pitch - 6) / 2, y, f"block {b}", size=12, anchor="middle", fill=MUTED)
        f.path(f"M{num(bx)},{num(y + 10)} L{num(bx)},{num(y + 5)} L{num(bx + 8 * pitch - 6)},{num(y + 5)} "
               f"L{num(bx + 8 * pitch - 6)},{num(y + 10)}", MUTED)
    y += 18
    f.text(x0 - 8, y + 17, "in[i]", size=12, anchor="end", fill=MUTED)
    for i, v in enumerate(ATOMIC_VALUES):
        f.cell(x0 + i * pitch, y, w, 24, str(v), REDUCE_TINT, REDUCE)
        f.text(x0 + i * pitch + w / 2, y + 40, f"t{i}", size=12, anchor="middle", fill=REDUCE, weight="bold")
    target_x, target_y = 400, 250
    # Sixteen requests funnel into one queue in front of the address.
    for i in range(16):
        f.line(x0 + i * pitch + w / 2, y + 46, target_x, target_y - 40, REDUCE, 1.1)
    f.arrow(target_x, target_y - 40, target_x, target_y - 2, "reduce", 3)
    f.text(target_x + 10, target_y - 16, "one at a time", size=12, fill=REDUCE)
    f.cell(target_x - 45, target_y, 90, 30, "*sum", PAPER, REDUCE, weight="bold", width=2)
    f.text(target_x + 60, target_y + 20, "one int in global memory: every atomicAdd targets it", size=12,
           fill=MUTED)
    y = target_y + 70
    f.text(20, y, "The slice of L2 that owns *sum applies the adds one at a time, in whatever order they arrive:",
           fill=INK)
    y += 16
    total = 0
    for k, i in enumerate(ARRIVAL):
        x = 20 + k * 47
        total += ATOMIC_VALUES[i]
        f.cell(x, y, 43, 24, f"+{ATOMIC_VALUES[i]}", REDUCE_TINT, REDUCE)
        f.text(x + 21.5, y + 40, f"t{i}", size=12, anchor="middle", fill=MUTED)
    f.arrow(20, y + 58, 770, y + 58, "muted", 1.2)
    f.text(770, y + 76, "time", size=12, anchor="end", fill=MUTED)
    f.text(20, y + 76, f"sum = {total} after 16 adds in a row", size=12, fill=MUTED)
    y = f.lines(20, y + 108, [
        "Each add is a read-modify-write that must finish before the next one to the same address starts.",
        "At 2^30 elements that is 2^30 adds in a row: the kernel waits on one address while the memory",
        "could stream far more. Chapter 02 combines values first, so few adds reach *sum."])
    f.grow_to(y)
    return f


def chapter02():
    f = Figure("chapter02-privatized-atomics.svg", "Chapter 02: combine first, then one atomicAdd per thread, warp or block",
               "Each thread sums its share of the input in a register; the variants then send one global "
               "atomicAdd per thread, per warp after a warp sum, or per block after the warp totals are "
               "combined in shared memory, cutting 2^30 atomics to 270,336, 8,448 or 1,056.", 0,
               "one block drawn with 4 warps of 8 lanes (the program's blocks: 8 warps of 32 lanes)")
    top = 84
    f.text(20, top, "1. each thread's total", size=14, weight="bold")
    f.text(20, top + 17, "grid-stride loop, in a register", size=12, fill=MUTED)
    f.text(312, top, "2. warp sum", size=14, weight="bold")
    f.text(312, top + 17, "__reduce_add_sync", size=12, fill=MUTED, mono=True)
    f.text(450, top, "3. block sum", size=14, weight="bold")
    f.text(450, top + 17, "shared memory, warp 0", size=12, fill=MUTED)
    f.text(660, top, "4. global", size=14, weight="bold")
    y0, rowh = top + 40, 48
    f.rect(14, y0 - 12, 610, 4 * rowh + 24, PAPER, FAINT, rx=8, dash="4 3")
    f.text(20, y0 + 4 * rowh + 28, "block b", size=12, fill=MUTED)
    sums = []
    for w in range(4):
        y = y0 + w * rowh
        f.text(24, y + 17, f"warp {w}", size=12, weight="bold")
        for l in range(8):
            f.cell(80 + l * 28, y, 24, 24, "", REDUCE_TINT, REDUCE)
        cx, cy = 352, y + 12
        f.arrow(80 + 7 * 28 + 28, cy, cx - 15, cy, "reduce", 1.4)
        f.add(el("circle", (("cx", num(cx)), ("cy", num(cy)), ("r", "14"), ("fill", REDUCE), ("stroke", REDUCE))))
        f.text(cx, cy + 5, "Σ", anchor="middle", fill=PAPER, weight="bold")
        sums.append((cx, cy))
    sx = 450
    bar_x = sx + 54
    f.text(bar_x - 6, y0 + 3 * rowh + 42, "warp_totals[ ]", size=12, mono=True, fill=MUTED, anchor="end")
    for w, (cx, cy) in enumerate(sums):
        f.cell(sx, cy - 12, 40, 24, f"[{w}]", PAPER, REDUCE, size=12)
        f.arrow(cx + 15, cy, sx - 2, cy, "reduce", 1.4)
    f.line(bar_x, y0 - 6, bar_x, y0 + 4 * rowh + 16, ALERT, 1.5, "5 3")
    f.text(bar_x - 10, y0 + 4 * rowh + 30, "__syncthreads()", size=12, mono=True, fill=ALERT)
    bx, by = 570, y0 + 1.5 * rowh + 12
    for w, (cx, cy) in enumerate(sums):
        f.arrow(sx + 41, cy, bx - 15, by + (w - 1.5) * 4, "reduce", 1.1)
    f.add(el("circle", (("cx", num(bx)), ("cy", num(by)), ("r", "15"), ("fill", REDUCE), ("stroke", REDUCE))))
    f.text(bx, by + 5, "Σ", anchor="middle", fill=PAPER, weight="bold")
    f.text(bx, by + 32, "warp 0", size=12, anchor="middle", fill=MUTED)
    gx, gy = 680, by - 15
    f.cell(gx, gy, 90, 30, "*sum", PAPER, REDUCE, weight="bold", width=2)
    f.arrow(bx + 16, by, gx - 2, by, "reduce", 2)
    f.text(gx + 45, gy - 52, "other blocks", size=12, anchor="middle", fill=MUTED)
    for k in range(3):
        f.arrow(gx + 15 + k * 30, gy - 44, gx + 30 + k * 15, gy - 2, "muted", 1)

    y = y0 + 4 * rowh + 64
    f.text(20, y, "Where the atomicAdd is sent, and how many reach *sum (N = 2^30, 256-thread blocks, 8 per SM, 132 SMs):",
           size=13, weight="bold")
    y += 14
    cols = [(20, "per_thread", "after step 1", "270,336"),
            (215, "per_warp", "after step 2", "8,448"),
            (410, "block_shared_*", "after step 3 (three ways)", "1,056"),
            (605, "chapter 01", "one per element", "1,073,741,824")]
    for x, name, where, count in cols:
        colour = CUB if name == "chapter 01" else REDUCE
        f.rect(x, y, 180, 64, PAPER, colour, rx=6, width=1.5)
        f.text(x + 10, y + 20, name, mono=name != "chapter 01", weight="bold", fill=colour)
        f.text(x + 10, y + 37, where, size=12, fill=MUTED)
        f.text(x + 10, y + 55, f"{count} atomics", weight="bold")
    y = f.lines(20, y + 92, [
        "The three block variants differ only in step 3: every thread adds into one shared int with a shared",
        "atomic (block_shared_atomic), thread 0 adds 256 shared slots alone (block_shared_serial), or, as",
        "drawn, lane 0 of each warp stores its warp's total and warp 0 sums the slots (block_shared_warp)."])
    f.grow_to(y)
    return f


# ---- chapters 03, 04, 05: the three trees ------------------------------------------------

TREE_VALUES = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]  # 16 values drawn, sum 80


def tree_steps(kind, size):
    """The steps of a block's tree over `size` values, as (stride, [(thread, dst, src), ...]),
    exactly as each chapter's kernel picks its pairs:
      interleaved (03): thread tid works when tid % (2 stride) == 0, s[tid] += s[tid + stride]
      strided (04):     index = 2 stride tid; if index < size, s[index] += s[index + stride]
      sequential (05):  if tid < stride, s[tid] += s[tid + stride], stride halving from size/2"""
    steps = []
    if kind == "sequential":
        stride = size // 2
        while stride > 0:
            steps.append((stride, [(t, t, t + stride) for t in range(stride)]))
            stride //= 2
        return steps
    stride = 1
    while stride < size:
        pairs = []
        for tid in range(size):
            if kind == "interleaved" and tid % (2 * stride) == 0:
                pairs.append((tid, tid, tid + stride))
            if kind == "strided" and 2 * stride * tid < size:
                pairs.append((tid, 2 * stride * tid, 2 * stride * tid + stride))
        steps.append((stride, pairs))
        stride *= 2
    return steps


def live_after(kind, stride, size):
    """The slots whose values a later step (or the result) still reads after the step with
    `stride`: multiples of 2 stride for the interleaved and strided trees, the first `stride`
    slots for the sequential one."""
    if kind == "sequential":
        return set(range(stride))
    return set(range(0, size, 2 * stride))


def bank_hits(pairs, warp=0):
    """How many lanes of `warp` touch each of the 32 shared-memory banks with a step's first
    read, s[dst], given the step's (thread, dst, src) pairs (word w lives in bank w % 32)."""
    hits = [0] * 32
    for thread, dst, _src in pairs:
        if thread // 32 == warp:
            hits[dst % 32] += 1
    return hits


def tree_figure(name, kind, title, desc, code, notes, target="s[dst]"):
    """One of the three trees: the 16-value tree step by step (who adds which pair, the
    working threads labelled), then, for the program's 256-thread block, how many lanes of
    each warp add at each step and how warp 0's reads fall into the 32 banks. `target` names
    the word a working thread adds into, as the banks' heading shows it (chapter 05: s[tid],
    as its code line above writes it)."""
    size, block = 16, 256
    f = Figure(name, title, desc, 0,
               "16 values drawn (one block of 16 threads); the program's blocks have 256: the table below counts those")
    f.text(20, 72, code, mono=True, fill=REDUCE, weight="bold")
    x0, pitch, w, h = 130, 40, 36, 28
    y = 118
    f.text(x0 - 8, y - 8, "s[i]:", size=12, anchor="end", fill=MUTED)
    for i in range(size):
        f.text(x0 + i * pitch + w / 2, y - 8, str(i), size=12, anchor="middle", fill=MUTED)
    values = list(TREE_VALUES)
    row_label(f, y + 19, "load", "s[tid] = in[i]")
    for i, v in enumerate(values):
        f.cell(x0 + i * pitch, y, w, h, str(v))
    live = set(range(size))
    for stride, pairs in tree_steps(kind, size):
        prev_y, y = y, y + 84
        new = list(values)
        for _thread, dst, src in pairs:
            new[dst] = values[dst] + values[src]
        written = {dst for _t, dst, _s in pairs}
        # Arrows leave a row below its thread labels; the loaded row has none.
        top = prev_y + h + (4 if stride == tree_steps(kind, size)[0][0] else 20)
        for thread, dst, src in pairs:
            f.arrow(x0 + dst * pitch + w / 2, top, x0 + dst * pitch + w / 2, y - 2, "muted", 1)
            f.arrow(x0 + src * pitch + w / 2, top, x0 + dst * pitch + w / 2 + (4 if src > dst else -4), y - 2,
                    "reduce", 1.6)
        live = live_after(kind, stride, size)
        for i, v in enumerate(new):
            x = x0 + i * pitch
            if i in written:
                f.cell(x, y, w, h, str(v), REDUCE, REDUCE, PAPER, weight="bold")
            elif i in live:
                f.cell(x, y, w, h, str(v))
            else:
                f.cell(x, y, w, h, str(v), SHADE, FAINT, FAINT)
        for thread, dst, _src in pairs:
            f.text(x0 + dst * pitch + w / 2, y + h + 14, f"t{thread}", size=12, anchor="middle", fill=REDUCE,
                   weight="bold")
        threads = [t for t, _d, _s in pairs]
        row_label(f, y + 19, f"stride {stride}", f"{len(threads)} threads add" if len(threads) > 1 else "1 thread adds")
        values = new
    y += h + 34
    f.text(x0, y, f"The sum, {values[0]}, is left in s[0]. Blue: written at this step, by the thread named "
                  "under it; grey: no longer read.", size=12, fill=MUTED)

    # The 256-thread block: lanes at work per warp, and warp 0's banks.
    y += 38
    f.text(20, y, f"In the program's block of {block} threads (8 warps of 32 lanes)", size=14, weight="bold")
    y += 24
    wx, wp = 110, 36
    bx, bp = 420, 9
    f.text(wx, y, "lanes that add, in warps 0 to 7", size=12, fill=MUTED)
    f.text(bx, y, f"banks hit by warp 0's read of {target}", size=12, fill=MUTED)
    f.text(790, y, "conflict", size=12, fill=MUTED, anchor="end")
    y += 8
    for stride, pairs in tree_steps(kind, block):
        f.text(20, y + 15, f"stride {stride}", size=12, weight="bold")
        per_warp = [0] * (block // 32)
        for thread, _d, _s in pairs:
            per_warp[thread // 32] += 1
        for wi, lanes in enumerate(per_warp):
            fill, ink = (REDUCE, PAPER) if lanes == 32 else (REDUCE_TINT, INK) if lanes else (PAPER, FAINT)
            f.cell(wx + wi * wp, y, wp - 3, 20, str(lanes), fill, FAINT if not lanes else REDUCE, ink, size=12)
        hits = bank_hits(pairs)
        for b, n in enumerate(hits):
            fill = PAPER if n == 0 else REDUCE_TINT if n == 1 else ALERT
            f.rect(bx + b * bp, y, bp - 1, 20, fill, FAINT if n == 0 else None)
        ways = max(hits)
        f.text(790, y + 15, f"{ways}-way" if ways > 1 else "none", size=12, anchor="end",
               fill=ALERT if ways > 1 else MUTED, weight="bold" if ways > 1 else None)
        y += 24
    for b in (0, 8, 16, 24, 31):
        f.text(bx + b * bp + bp / 2, y + 10, str(b), size=12, anchor="middle", fill=MUTED)
    f.text(bx - 6, y + 10, "bank", size=12, anchor="end", fill=MUTED)
    y += 36
    legend(f, bx, y, [(REDUCE_TINT, None, "one lane"), (ALERT, None, "two or more lanes: replayed")])
    y += 28
    y = f.lines(20, y, notes, size=13)
    f.grow_to(y)
    return f


def chapter03():
    return tree_figure(
        "chapter03-interleaved-tree.svg", "interleaved",
        "Chapter 03: the interleaved tree, every warp busy with a few lanes",
        "Sixteen values summed in shared memory in four steps; at the step with stride s the "
        "threads whose index is a multiple of 2s add the value s places to their right, so in a "
        "256-thread block the working lanes are spread over all 8 warps for five steps.",
        "if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];",
        ["The working threads (0, 2s, 4s, ...) are spread over every warp, so for five steps every warp",
         "issues the add with most of its lanes off, and computes the modulo that picks them. (The",
         "compiler predicates the add: warps do not branch apart, they carry idle lanes.)",
         "Each working lane reads its own word, so the reads hit distinct banks."])


def chapter04():
    return tree_figure(
        "chapter04-strided-index-tree.svg", "strided",
        "Chapter 04: the same pairs, handed to consecutive threads",
        "The same four steps over sixteen values, but thread t adds the t-th pair, at index "
        "2 x stride x t, so the working lanes fill the first warps; a warp's pairs lie 2 x stride "
        "words apart and share shared-memory banks, a 2-way conflict at stride 1 growing to 8-way "
        "in a 256-thread block.",
        "index = 2 * stride * tid;  if (index < blockDim.x) s[index] += s[index + stride];",
        ["Thread t adds the t-th pair, so the working lanes fill whole warps from warp 0 on, and the",
         "modulo is gone. But lane t reads word 2 x stride x t: the lanes of a warp land in the same",
         "few banks, and each extra lane in a bank replays the access (the second read and the write",
         "conflict the same way). 8-way here; with 1024 threads it reaches 32-way."])


def chapter05():
    return tree_figure(
        "chapter05-sequential-tree.svg", "sequential",
        "Chapter 05: sequential halving, the upper half onto the lower",
        "Sixteen values summed by folding: at each step threads 0 to stride - 1 add the value stride "
        "slots above their own into it, stride halving from 8 to 1; the working lanes fill whole warps and each warp "
        "reads 32 consecutive words, one per bank, so there are no bank conflicts.",
        "if (tid < stride) s[tid] += s[tid + stride];     // stride = blockDim.x / 2, ..., 1",
        ["Threads 0 to stride - 1 fold the upper half onto the lower. The working lanes fill whole",
         "warps, as in chapter 04, and a warp reads 32 consecutive words, one in each bank: no",
         "conflicts. The steps run in the opposite order; the pairs differ, the sum does not."],
        target="s[tid]")


# ---- chapter 06: the last warp ---------------------------------------------------------------

def fold_row(f, x0, y, total, stride, scale, cell_w=None):
    """One step of a halving tree drawn as a bar of `total` slots `scale` pixels wide: the
    slots [0, stride) written (blue), [stride, 2 stride) read (tinted), the rest no longer
    used (grey), and a curved arrow folding the read half onto the written one."""
    for lo, hi, fill, stroke in ((0, stride, REDUCE, REDUCE), (stride, 2 * stride, REDUCE_TINT, REDUCE),
                                 (2 * stride, total, SHADE, FAINT)):
        if hi <= lo:
            continue
        if cell_w:
            for i in range(lo, hi):
                f.rect(x0 + i * scale, y, cell_w, 22, fill, stroke)
        else:
            f.rect(x0 + lo * scale, y, (hi - lo) * scale, 22, fill, stroke)
    # Right to left, so a negative bend arches the arrow above the bar.
    f.curve(x0 + 1.5 * stride * scale, y - 2, x0 + 0.5 * stride * scale, y - 2, -(14 + min(stride * scale, 200) / 8),
            "reduce", 1.4)


def chapter06():
    f = Figure("chapter06-last-warp.svg", "Chapter 06: the last six steps in warp 0, without __syncthreads()",
               "A 256-thread block halves its values with a block-wide barrier after each step until 64 "
               "remain; then warp 0 alone adds them down to one in six steps, strides 32 to 1, through a "
               "volatile pointer with only a warp barrier between steps.", 0,
               "the program's default block of 256 threads; each bar is the block's shared array s[ ]")
    f.lines(20, 72, ["for (stride = 128; stride >= 64; stride /= 2) {        // the whole block",
                     "  if (tid < stride) s[tid] += s[tid + stride];  __syncthreads(); }",
                     "if (tid < 32) for (stride = 32; stride > 0; stride /= 2) {  // warp 0; volatile int* v = s",
                     "  if (tid < stride) v[tid] += v[tid + stride];  __syncwarp(); }"],
            size=12, mono=True, fill=REDUCE, step=16)
    x0 = 130
    y = 160
    f.text(20, y, "Block-wide steps: 8 warps, a __syncthreads() after each (256 slots, 2.5 px each)", size=14,
           weight="bold")
    y += 34
    for stride in (128, 64):
        fold_row(f, x0, y, 256, stride, 2.5)
        row_label(f, y + 16, f"stride {stride}", f"threads 0-{stride - 1} add")
        f.line(x0, y + 34, x0 + 640, y + 34, ALERT, 1.2, "5 3")
        f.text(x0 + 640, y + 48, "__syncthreads()", size=12, mono=True, anchor="end", fill=ALERT)
        y += 70
    f.text(20, y, "64 values left: warp 0 alone (64 slots, 10 px each)", size=14, weight="bold")
    f.text(20, y + 18, "All 32 lanes run every step, so each __syncwarp() has the whole warp; only lanes < stride add.",
           size=12, fill=MUTED)
    y += 56
    for stride in (32, 16, 8, 4, 2, 1):
        fold_row(f, x0, y, 64, stride, 10, cell_w=9)
        sub = f"lanes 0-{stride - 1} add" if stride > 1 else "lane 0 adds"
        row_label(f, y + 16, f"stride {stride}", sub)
        if stride > 1:
            f.line(x0, y + 32, x0 + 640, y + 32, ALERT, 1, "2 3")
            f.text(x0 + 640, y + 46, "__syncwarp()", size=12, mono=True, anchor="end", fill=ALERT)
        y += 62
    for k in (0, 16, 32, 48, 63):
        f.text(x0 + k * 10 + 4.5, y - 24, str(k), size=12, anchor="middle", fill=MUTED)
    f.text(x0 - 8, y - 24, "slot", size=12, anchor="end", fill=MUTED)
    f.text(x0, y - 4, "lane 0 writes v[0], the block's sum, to partials[blockIdx.x]", size=12, fill=MUTED)
    legend(f, x0, y + 24, [(REDUCE, REDUCE, "written this step"), (REDUCE_TINT, REDUCE, "read this step"),
                          (SHADE, FAINT, "no longer used")])
    y = f.lines(20, y + 60, [
        "Within one warp no block-wide barrier is needed: __syncwarp() orders one lane's shared-memory",
        "write before another lane's read in the next step, and volatile keeps every v[ ] access in shared",
        "memory, not in a register. Left out (--racy), racecheck reports the hazards between the lanes."])
    f.grow_to(y)
    return f


# ---- chapter 07: the shuffle tree ---------------------------------------------------------------

WARP_TOTALS = [80, 62, 75, 58, 91, 66, 70, 84]  # 8 warps of a 256-thread block, drawn


def chapter07():
    f = Figure("chapter07-shuffle-tree.svg", "Chapter 07: a warp sums in registers with __shfl_down_sync",
               "Lanes of a warp add the value held by the lane offset places above them, offsets halving, "
               "so lane 0 ends with the warp's sum without shared memory; then lane 0 of each of the 8 "
               "warps stores its total in a 32-int shared array, and after one barrier warp 0 sums those "
               "totals the same way.", 0,
               "16 lanes drawn, offsets 8, 4, 2, 1; a warp has 32 lanes and starts at offset 16")
    f.text(20, 72, "for (offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);",
           size=12, mono=True, fill=REDUCE, weight="bold")
    x0, pitch, w, h = 130, 40, 36, 28
    y = 118
    f.text(x0 - 8, y - 8, "lane:", size=12, anchor="end", fill=MUTED)
    for i in range(16):
        f.text(x0 + i * pitch + w / 2, y - 8, str(i), size=12, anchor="middle", fill=MUTED)
    values = list(TREE_VALUES)
    row_label(f, y + 19, "v", "one per lane")
    for i, v in enumerate(values):
        f.cell(x0 + i * pitch, y, w, h, str(v))
    for offset in (8, 4, 2, 1):
        prev_y, y = y, y + 72
        new = [values[i] + values[i + offset] if i < offset else None for i in range(16)]
        for i in range(offset):
            f.arrow(x0 + (i + offset) * pitch + w / 2, prev_y + h + 3, x0 + i * pitch + w / 2 + 4, y - 2, "reduce", 1.6)
            f.arrow(x0 + i * pitch + w / 2, prev_y + h + 3, x0 + i * pitch + w / 2, y - 2, "muted", 1)
        for i, v in enumerate(new):
            if v is None:
                f.cell(x0 + i * pitch, y, w, h, "", SHADE, FAINT)
            else:
                f.cell(x0 + i * pitch, y, w, h, str(v), REDUCE, REDUCE, PAPER, weight="bold")
        row_label(f, y + 19, f"offset {offset}", f"lanes 0-{offset - 1} matter" if offset > 1 else "lane 0: the sum")
        values = [v if v is not None else 0 for v in new]
    y += h + 24
    f.text(x0, y, "Grey lanes add too (a lane whose source is past the warp gets its own value back); their sums "
                  "feed nothing.", size=12, fill=MUTED)

    y += 44
    f.text(20, y, "The block: 8 warps of 32 lanes (256 threads)", size=14, weight="bold")
    y += 22
    for wi, t in enumerate(WARP_TOTALS):
        f.cell(x0 + wi * 80, y, 72, 36, "", REDUCE_TINT, REDUCE, rx=4)
        f.text(x0 + wi * 80 + 36, y + 15, f"warp {wi}", size=12, anchor="middle")
        f.text(x0 + wi * 80 + 36, y + 30, f"Σ = {t}", size=12, anchor="middle", weight="bold")
    row_label(f, y + 16, "warp sums", "in lane 0")
    slot_pitch, slot_w = 20, 18
    sy = y + 90
    for wi in range(8):
        f.arrow(x0 + wi * 80 + 36, y + 38, x0 + wi * slot_pitch + slot_w / 2, sy - 2, "reduce", 1.1)
    for k in range(32):
        if k < 8:
            f.cell(x0 + k * slot_pitch, sy, slot_w, 24, str(WARP_TOTALS[k]), PAPER, REDUCE, size=12)
        else:
            f.cell(x0 + k * slot_pitch, sy, slot_w, 24, "", PAPER, FAINT, dash="2 2")
    row_label(f, sy + 16, "warp_totals", "32 ints, shared")
    f.text(x0 + 8 * slot_pitch + 6, sy + 40, "slots 8-31: never written in this block", size=12, fill=MUTED)
    by = sy + 52
    f.line(x0, by, x0 + 640, by, ALERT, 1.5, "5 3")
    f.text(x0 - 8, by + 4, "__syncthreads()", size=12, mono=True, anchor="end", fill=ALERT)
    wy = by + 20
    for k in range(8):
        f.arrow(x0 + k * slot_pitch + slot_w / 2, sy + 26, x0 + k * slot_pitch + slot_w / 2, wy - 2, "reduce", 1)
    for k in range(32):
        if k < 8:
            f.cell(x0 + k * slot_pitch, wy, slot_w, 24, str(WARP_TOTALS[k]), REDUCE_TINT, REDUCE, size=12)
        else:
            f.cell(x0 + k * slot_pitch, wy, slot_w, 24, "0", PAPER, FAINT, FAINT, size=12)
    row_label(f, wy + 16, "warp 0", "lane k reads slot k")
    f.text(x0 + 8 * slot_pitch + 6, wy + 40, "lanes 8-31 read nothing and add 0", size=12, fill=MUTED)
    ry = wy + 60
    f.arrow(x0 + 80, wy + 26, x0 + 80, ry - 2, "reduce", 2)
    total = sum(WARP_TOTALS)
    f.cell(x0 + 10, ry, 140, 28, f"Σ = {total}", REDUCE, REDUCE, PAPER, weight="bold")
    f.text(x0 + 160, ry + 19, "the same warp sum; lane 0 writes partials[blockIdx.x]", size=12, fill=MUTED)
    f.grow_to(ry + 56)
    return f


# ---- chapter 08: the last block -------------------------------------------------------------

PARTIALS = [12, 7, 9, 15, 4, 11]          # the six blocks' sums, drawn
FINISH = {2: 300, 0: 330, 5: 352, 1: 376, 4: 400, 3: 426}  # when each block takes its ticket (px)


def chapter08():
    f = Figure("chapter08-last-block.svg", "Chapter 08: one launch, and the last block to finish adds the partials",
               "Each block writes its sum to its slot of a partials array, makes it visible with a memory fence, "
               "and takes a ticket with atomicAdd on a counter; the block that draws the last ticket knows "
               "every partial is written, sums them in a fixed order into the result and resets the counter.", 0,
               "a grid of 6 blocks drawn, in the order they finish (any order is possible; here 2, 0, 5, 1, 4, 3)")
    x0, px, tx = 110, 430, 560
    y = 84
    f.text(20, y, "Thread 0 of each block, after the block's sum:", size=12, fill=MUTED)
    f.text(20, y + 17, "partials[blockIdx.x] = total;  __threadfence();  ticket = atomicAdd(blocks_done, 1);",
           size=12, mono=True, fill=REDUCE)
    y += 56
    f.text(x0, y - 10, "sum the block's share", size=12, fill=MUTED)
    f.text(px, y - 10, "partials[ ]", size=12, mono=True, fill=MUTED)
    f.text(tx, y - 10, "ticket", size=12, anchor="middle", fill=MUTED)
    order = sorted(FINISH, key=FINISH.get)
    for ticket, b in enumerate(order):
        ry = y + ticket * 40
        end = x0 + FINISH[b] - 150
        last = ticket == len(order) - 1
        f.text(20, ry + 17, f"block {b}", weight="bold")
        f.rect(x0, ry, end - x0, 24, REDUCE_TINT, REDUCE)
        f.arrow(end + 2, ry + 12, px - 2, ry + 12, "reduce", 1)
        f.cell(px, ry, 40, 24, str(PARTIALS[b]), PAPER, REDUCE)
        f.text(px + 46, ry + 17, f"[{b}]", size=12, fill=MUTED)
        f.arrow(px + 70, ry + 12, tx - 15, ry + 12, "reduce", 1)
        f.add(el("circle", (("cx", num(tx)), ("cy", num(ry + 12)), ("r", "13"),
                            ("fill", REDUCE if last else PAPER), ("stroke", REDUCE))))
        f.text(tx, ry + 16.5, str(ticket), size=12, anchor="middle", fill=PAPER if last else REDUCE, weight="bold")
        note = "= gridDim.x - 1: the last block" if last else f"blocks_done becomes {ticket + 1}"
        f.text(tx + 20, ry + 17, note, size=12, fill=REDUCE if last else MUTED, weight="bold" if last else None)
    f.text((end + px) / 2, y + 5 * 40 + 6, "write", size=12, anchor="middle", fill=REDUCE)
    f.text((px + 70 + tx - 15) / 2, y + 5 * 40 + 6, "fence", size=12, anchor="middle", fill=REDUCE)
    ty = y + 6 * 40 + 8
    f.arrow(x0, ty, 400, ty, "muted", 1.2)
    f.text(400, ty + 16, "time", size=12, anchor="end", fill=MUTED)
    ly = ty + 40
    f.arrow(tx, y + 5 * 40 + 26, tx, ly - 2, "reduce", 1.6)
    f.arrow(px + 20, y + 5 * 40 + 26, px + 20, ly - 2, "reduce", 1.6)
    f.text(px + 26, ly - 12, "reads all six", size=12, fill=REDUCE)
    f.rect(px, ly, 350, 28, REDUCE, REDUCE)
    f.text(px + 10, ly + 19, f"block {order[-1]}: block_sum over partials[0..5]", fill=PAPER, weight="bold")
    sy = ly + 60
    f.arrow(px + 60, ly + 30, px + 60, sy - 2, "reduce", 1.6)
    f.cell(px, sy, 120, 28, f"*sum = {sum(PARTIALS)}", PAPER, REDUCE, weight="bold", width=2)
    f.text(px + 132, sy + 12, "written once, in the same order", size=12, fill=MUTED)
    f.text(px + 132, sy + 27, "every run; then blocks_done = 0", size=12, fill=MUTED)
    y = f.lines(20, sy + 64, [
        "Blocks never wait for each other. Each fences its partial before it draws a ticket, so the block that",
        "draws ticket 5 of a 6-block grid knows the five before it have written theirs, and its own fence after",
        "the ticket keeps it from reading them early. The last block then does the second pass's work alone."])
    f.grow_to(y)
    return f


# ---- chapter 09: batching --------------------------------------------------------------------

# One fill per thread of a drawn block of four, dark to light, and the text colour on each.
THREAD_FILLS = [(REDUCE, PAPER), ("#7f9fc4", PAPER), ("#b3c7dd", INK), ("#e3eaf3", INK)]


def bracket_under(f, x1, x2, y, label, colour=MUTED, size=12):
    """A square bracket under [x1, x2] at y, its label centred below it."""
    f.path(f"M{num(x1)},{num(y)} L{num(x1)},{num(y + 5)} L{num(x2)},{num(y + 5)} L{num(x2)},{num(y)}", colour)
    if label:
        f.text((x1 + x2) / 2, y + 19, label, size=size, anchor="middle", fill=colour)


def chapter09():
    block, k = 4, 4
    f = Figure("chapter09-batched-tiles.svg", "Chapter 09: K loads per thread, still coalesced, on a one-wave grid",
               "Each block takes a tile of block x K elements; thread t adds elements t, t + block, t + 2 block "
               "and so on of the tile, so each of its K loads has the warp reading neighbouring ints; the grid "
               "is one wave of resident blocks, each taking tiles b, b + grid, and so on.", 0,
               "drawn with blocks of 4 threads and K = 4; the program's default is 32 threads and K = 16")
    x0, pitch, w = 130, 40, 36
    y = 88
    f.text(20, y, "A tile of block x K elements: thread t reads t, t + block, t + 2 block, ...", size=14,
           weight="bold")
    f.text(20, y + 18, "const int* p = in + start + tid;  x[u] = p[(k + u) * stride];   // stride = blockDim.x",
           size=12, mono=True, fill=REDUCE)
    y += 44
    for tile in range(2):
        row_label(f, y + 17, f"tile {tile}", f"block {tile}")
        for j in range(block * k):
            fill, ink = THREAD_FILLS[j % block]
            f.cell(x0 + j * pitch, y, w, 26, str(tile * block * k + j), fill, REDUCE, ink, size=12)
        if tile == 0:
            for load in range(k):
                bracket_under(f, x0 + load * block * pitch, x0 + (load + 1) * block * pitch - 4, y + 30,
                              f"load {load}: one request", REDUCE)
            y += 30
        y += 40
    legend(f, x0, y + 10, [(THREAD_FILLS[t][0], REDUCE, f"thread {t}") for t in range(block)])
    f.text(x0, y + 32, "Every load of a warp reads neighbouring ints, as in chapter 08; a thread has K of them in flight.",
           size=12, fill=MUTED)
    y += 64
    row_label(f, y + 17, "not this", "in[t * K + j]")
    for j in range(block * k):
        t = j // k
        fill, ink = THREAD_FILLS[t]
        alert = j % k == 0
        f.cell(x0 + j * pitch, y, w, 26, str(j), fill, ALERT if alert else REDUCE, ink, size=12,
               width=2.5 if alert else 1)
    f.text(x0, y + 44, "K neighbours per thread: load 0 of the block (red) touches places K x 4 bytes apart,",
           size=12, fill=ALERT)
    f.text(x0, y + 60, "a separate cache line per lane once K x 4 bytes reaches 128.", size=12, fill=ALERT)

    y += 104
    f.text(20, y, "The grid: one wave, as many blocks as the SMs hold at once", size=14, weight="bold")
    f.text(20, y + 18, "blocks = SMs x resident blocks per SM (occupancy API): on the H200 132 x 32 = 4224 blocks of 32",
           size=12, fill=MUTED)
    y += 36
    sms, per_sm = 4, 2
    for sm in range(sms):
        sx = x0 + sm * 160
        f.rect(sx, y, 150, 54, SHADE, FAINT, rx=6)
        f.text(sx + 8, y + 16, f"SM {sm}", size=12, weight="bold")
        for slot in range(per_sm):
            b = sm * per_sm + slot
            f.cell(sx + 8 + slot * 70, y + 22, 64, 24, f"block {b}", REDUCE_TINT, REDUCE, size=12)
    row_label(f, y + 30, "one wave", "4 SMs x 2, drawn")
    y += 80
    grid = sms * per_sm
    for t in range(16):
        trip = t // grid
        fill, ink = (REDUCE, PAPER) if trip == 0 else (REDUCE_TINT, INK)
        f.cell(x0 + t * pitch, y, w, 26, f"b{t % grid}", fill, REDUCE, ink, size=12)
        f.text(x0 + t * pitch + w / 2, y - 6, str(t), size=12, anchor="middle", fill=MUTED)
    row_label(f, y + 17, "tiles", "and their block")
    bracket_under(f, x0, x0 + grid * pitch - 4, y + 30, "trip 1: tiles 0-7", REDUCE)
    bracket_under(f, x0 + grid * pitch, x0 + 2 * grid * pitch - 4, y + 30, "trip 2: tiles 8-15", REDUCE)
    y = f.lines(20, y + 82, [
        "Block b takes tiles b, b + grid, b + 2 grid, ...; the last tile alone checks its bounds. A larger grid",
        "would only queue blocks behind the first wave (the full_grid variant: one block per tile)."])
    f.grow_to(y)
    return f


# ---- chapter 10: int4 loads ---------------------------------------------------------------------

def chapter10():
    n, offset = 21, 1
    head = ((16 - (offset * 4) % 16) % 16) // 4
    head = min(head, n)
    vectors = (n - head) // 4
    tail = n - head - 4 * vectors
    f = Figure("chapter10-int4-head-body-tail.svg", "Chapter 10: a scalar head, an aligned int4 body, a scalar tail",
               f"An input of {n} ints that starts one int past a 16-byte boundary is read as a head of {head} "
               f"scalar loads up to the boundary, a body of {vectors} aligned 16-byte int4 loads, and a tail of "
               f"{tail} scalar loads, so no load is misaligned and none reaches past the last element.", 0,
               f"n = {n}, --offset {offset}: the input starts 4 bytes into a 16-byte-aligned allocation")
    x0, pitch, w = 40, 30, 28
    slots = 24
    y = 110
    f.text(x0, y - 30, "memory, one int per cell; the thick lines are 16-byte boundaries (bytes from the allocation)",
           size=12, fill=MUTED)
    kinds = []
    for sidx in range(slots):
        i = sidx - offset
        if i < 0 or i >= n:
            kinds.append(("outside", i))
        elif i < head:
            kinds.append(("head", i))
        elif i < head + 4 * vectors:
            kinds.append(("body", i))
        else:
            kinds.append(("tail", i))
    for sidx, (kind, i) in enumerate(kinds):
        x = x0 + sidx * pitch
        if kind == "outside":
            f.cell(x, y, w, 28, "", SHADE, FAINT)
        elif kind == "body":
            f.cell(x, y, w, 28, str(i), REDUCE_TINT, REDUCE, size=12)
        else:
            f.cell(x, y, w, 28, str(i), PAPER, REDUCE, REDUCE, size=12, weight="bold", dash="3 2")
    for g in range(slots // 4 + 1):
        bx = x0 + g * 4 * pitch - 1
        f.line(bx, y - 10, bx, y + 38, INK, 2.5)
        f.text(bx, y - 14, f"{16 * g}", size=12, anchor="middle", fill=INK)
    for v in range(vectors):
        first = offset + head + 4 * v
        f.rect(x0 + first * pitch - 3, y - 4, 4 * pitch + 4, 36, "none", REDUCE, width=2, rx=5)
    f.text(x0 - 6, y + 19, "in", size=12, anchor="end", fill=MUTED)
    under = y + 48
    hx1, hx2 = x0 + offset * pitch, x0 + (offset + head) * pitch - 4
    bracket_under(f, hx1, hx2, under, "head", REDUCE)
    bx1, bx2 = hx2 + 4, x0 + (offset + head + 4 * vectors) * pitch - 4
    bracket_under(f, bx1, bx2, under, f"body: {vectors} int4s, body[0] to body[{vectors - 1}]", REDUCE)
    tx1, tx2 = bx2 + 4, x0 + (offset + n) * pitch - 4
    bracket_under(f, tx1, tx2, under, "tail", REDUCE)
    y = under + 52
    f.text(20, y, "How split_aligned() finds the parts:", size=14, weight="bold")
    y = f.lines(20, y + 22, [
        f"head    = ((16 - address % 16) % 16) / 4 = ((16 - 4) % 16) / 4 = {head}   (capped at n)",
        f"vectors = (n - head) / 4 = ({n} - {head}) / 4 = {vectors}",
        f"tail    = n - head - 4 * vectors = {n} - {head} - {4 * vectors} = {tail}"],
        size=13, mono=True, fill=INK, step=20)
    y += 10
    f.text(20, y, "Who loads what:", size=14, weight="bold")
    y += 22
    f.cell(20, y - 14, 18, 18, "", PAPER, REDUCE, dash="3 2")
    f.text(46, y, f"block 0 alone: threads 0-{head - 1} load the head, threads 0-{tail - 1} the tail, one int each",
           fill=INK)
    y += 26
    f.cell(20, y - 14, 18, 18, "", REDUCE_TINT, REDUCE)
    f.text(46, y, "every block: tiles of blockDim.x x K int4s of the body, thread t loading int4s t, t + blockDim.x, ...",
           fill=INK)
    y += 20
    f.text(46, y, "of its tile, all K issued before the first add (K = --batch, 4 by default: 64 bytes per thread)",
           fill=INK)
    y = f.lines(20, y + 34, [
        "An int4 load must start on a 16-byte boundary; the input is only 4-byte aligned. The body starts at",
        "in + head, which is aligned, and stops before the last partial int4, so no load reaches past in[n - 1]."])
    f.grow_to(y)
    return f


# ---- chapter 11: CUB beside the workbook's best ---------------------------------------------------

def schedule(sizes, slots):
    """When each block runs if blocks start in order, each on the first slot to come free:
    [(slot, start, end)] in block order."""
    free = [0] * slots
    out = []
    for size in sizes:
        slot = min(range(slots), key=lambda s: (free[s], s))
        out.append((slot, free[slot], free[slot] + size))
        free[slot] += size
    return out


def chapter11():
    tiles, slots = 40, 3
    cub_blocks = slots * 5  # five waves of blocks
    f = Figure("chapter11-cub-vs-best.svg", "Chapter 11: CUB's two kernels beside the workbook's one launch",
               "cub::DeviceReduce::Sum runs a first kernel of about five waves of blocks, each summing a contiguous "
               "run of whole 4096-element tiles into a partial, then a second kernel of one block that adds the "
               "partials; the workbook's best kernel runs one launch of one wave, each block summing one equal "
               "contiguous share, and the last block to finish takes the total, with no memset.", 0,
               f"drawn: a GPU that holds {slots} blocks at once and an input of {tiles} tiles; the H200 at 2^30 runs 3960 "
               "CUB blocks, 1056 of ours")
    x0, unit = 130, 32  # unit: pixels per tile of time
    y = 90
    # CUB: even shares of whole tiles, the first blocks one tile more.
    base, extra = divmod(tiles, cub_blocks)
    sizes = [base + 1 if b < extra else base for b in range(cub_blocks)]
    f.text(20, y, "cub::DeviceReduce::Sum (above one tile): two launches", size=14, weight="bold", fill=INK)
    y += 16
    row_label(f, y + 17, "the input", "runs of whole tiles")
    x = x0
    span = 640 / tiles
    for b, size in enumerate(sizes):
        f.rect(x, y, size * span, 26, CUB_TINT if b % 2 == 0 else PAPER, CUB)
        for t in range(1, size):
            f.line(x + t * span, y + 18, x + t * span, y + 26, CUB)
        if size * span > 30:
            f.text(x + size * span / 2, y + 14, f"b{b}", size=12, anchor="middle", fill=MUTED)
        x += size * span
    y += 44
    sched = schedule(sizes, slots)
    end1 = max(e for _s, _b, e in sched)
    for slot in range(slots):
        f.text(x0 - 8, y + slot * 24 + 16, f"slot {slot}", size=12, anchor="end", fill=MUTED)
    for b, (slot, start, stop) in enumerate(sched):
        f.cell(x0 + start * unit, y + slot * 24, (stop - start) * unit - 2, 20, f"b{b}", CUB_TINT, CUB, size=12)
    k1_end = x0 + end1 * unit
    gap = 36
    k2_x = k1_end + gap
    f.text((k1_end + k2_x) / 2, y + 14, "gap", size=12, anchor="middle", fill=MUTED)
    f.cell(k2_x, y, 60, 20, "1 block", CUB, CUB, PAPER, size=12)
    f.lines(k2_x, y + 38, ["kernel 2 adds", "the partials"], size=12, fill=MUTED)
    f.text(x0, y + 90, "kernel 1: each block writes one partial; the last blocks to start finish up to a tile late",
           size=12, fill=MUTED)
    y += 120

    share = tiles / slots
    f.text(20, y, "reduce_best: one launch, nothing before it", size=14, weight="bold", fill=REDUCE)
    y += 16
    row_label(f, y + 17, "the input", "equal shares")
    f.rect(x0, y, 6, 26, PAPER, REDUCE, dash="2 2")
    for b in range(slots):
        f.cell(x0 + 6 + b * (628 / slots), y, 628 / slots, 26, f"block {b}: one contiguous share",
               REDUCE_TINT if b % 2 == 0 else PAPER, REDUCE, size=12)
    f.rect(x0 + 634, y, 6, 26, PAPER, REDUCE, dash="2 2")
    y += 44
    for slot in range(slots):
        f.text(x0 - 8, y + slot * 24 + 16, f"slot {slot}", size=12, anchor="end", fill=MUTED)
        f.cell(x0, y + slot * 24, share * unit - 2, 20, f"block {slot}", REDUCE_TINT, REDUCE, size=12)
    done = x0 + share * unit
    f.cell(done + 2, y + 48, 12, 20, "", REDUCE, REDUCE)
    f.lines(done + 22, y + 14, ["the last block", "to finish moves", "the sum to *sum"], size=12, fill=REDUCE)
    f.text(x0, y + 90, "shares differ by at most one 512-byte chunk, so every block ends together; block 0 also",
           size=12, fill=MUTED)
    f.text(x0, y + 106, "reads the scalar head and tail (dashed); each block adds its total with one atomicAdd",
           size=12, fill=MUTED)
    y += 130
    f.arrow(x0, y, 770, y, "muted", 1.2)
    f.text(770, y + 16, "time", size=12, anchor="end", fill=MUTED)
    y = f.lines(20, y + 44, [
        "At large N both stream the same bytes at the same bandwidth; what differs is the fixed cost around",
        "the stream: CUB's second launch and its last wave, against three dependent atomics at the very end.",
        "At small N the fixed cost is all there is."])
    f.grow_to(y)
    return f


# ---- chapters 12, 13, 14: Kogge-Stone and Brent-Kung --------------------------------------------

SCAN_VALUES = [3, 1, 4, 1, 5, 9, 2, 6]  # 8 values drawn; inclusive scan 3 4 8 9 14 23 25 31
SX0, SPITCH, SW, SH = 150, 60, 52, 28  # the scan rows: first x, pitch, cell width and height


def scan_row(f, y, values, written=(), faded=(), label=None, sub=None):
    """A row of 8 scan cells: `written` ones (this step's results) in orange, `faded` grey."""
    for i, v in enumerate(values):
        x = SX0 + i * SPITCH
        if i in written:
            f.cell(x, y, SW, SH, str(v), SCAN, SCAN, PAPER, weight="bold")
        elif i in faded:
            f.cell(x, y, SW, SH, str(v), SHADE, FAINT, MUTED)
        else:
            f.cell(x, y, SW, SH, str(v), PAPER, SCAN)
    if label:
        row_label(f, y + 19, label, sub)


def scan_index_header(f, y, name):
    f.text(SX0 - 8, y, name, size=12, anchor="end", fill=MUTED)
    for i in range(8):
        f.text(SX0 + i * SPITCH + SW / 2, y, str(i), size=12, anchor="middle", fill=MUTED)


def barrier(f, y, text="__syncthreads()"):
    """A block-wide barrier: a dashed red line across the rows, named at the right."""
    f.line(SX0 - 10, y, SX0 + 8 * SPITCH, y, ALERT, 1.4, "5 3")
    f.text(SX0 + 8 * SPITCH + 6, y + 4, text, size=12, mono=text.startswith("__"), fill=ALERT)


def copy_arrows(f, top, bottom, colour="muted"):
    for i in range(8):
        x = SX0 + i * SPITCH + SW / 2
        f.arrow(x, top, x, bottom, colour, 1)


def kogge_stone_figure(name, where, title, desc, code):
    """Kogge-Stone (Hillis-Steele) over 8 values in `where` ("global", "shared" or "double"):
    per step, element i adds element i - d; the barriers each version needs are drawn."""
    f = Figure(name, title, desc, 0, "8 values drawn (a block of 8 threads); the program's segments are 256")
    f.lines(20, 72, code, size=12, mono=True, fill=SCAN, step=16)
    y = 72 + 16 * len(code) + 36
    scan_index_header(f, y - 8, "i:")
    scan_row(f, y, SCAN_VALUES, label="in[ ]", sub="global memory")
    values = list(SCAN_VALUES)
    buffers = ["A", "B"]
    prev_y, y = y, y + 76
    copy_arrows(f, prev_y + SH + 3, y - 2)
    if where == "global":
        scan_row(f, y, values, label="out[ ]", sub="copy of in[ ]")
    elif where == "shared":
        scan_row(f, y, values, label="sums[ ]", sub="load, shared")
    else:
        scan_row(f, y, values, label="buffer A", sub="load: from")
    barrier(f, y + SH + 12, "barrier: copy done" if where == "global" else "barrier: load done")
    adds_total = 0
    d, step = 1, 0
    while d < 8:
        prev_y, y = y, y + (104 if where != "double" else 86)
        new = [values[i] + (values[i - d] if i >= d else 0) for i in range(8)]
        for i in range(8):
            x = SX0 + i * SPITCH + SW / 2
            if i >= d:
                f.arrow(SX0 + (i - d) * SPITCH + SW / 2, prev_y + SH + 22, x - 4, y - 2, "scan", 1.6)
                f.arrow(x, prev_y + SH + 22, x, y - 2, "muted", 1)
            elif where == "double":
                f.arrow(x, prev_y + SH + 22, x, y - 2, "muted", 1, "3 2")
        if where != "double":
            barrier(f, (prev_y + SH + 22 + y) / 2 - 4, "barrier: reads done")
        step += 1
        adds = 8 - d
        adds_total += adds
        if where == "double":
            buf = buffers[step % 2]
            label, sub = f"d = {d}: {adds} adds", f"to = buffer {buf}"
        else:
            label, sub = f"d = {d}", f"{adds} adds"
        scan_row(f, y, new, written=set(range(d, 8)), label=label, sub=sub)
        barrier(f, y + SH + 12, "barrier: writes done" if where != "double" else "barrier: step done")
        values = new
        d *= 2
    if where != "global":
        prev_y, y = y, y + 76
        copy_arrows(f, prev_y + SH + 20, y - 2, "scan")
        scan_row(f, y, values, label="out[ ]", sub="store, global")
        y += SH + 30
    else:
        y += SH + 44
    barriers = 2 * step + 1 if where != "double" else step + 1
    facts = [f"{step} steps, {adds_total} adds for 8 values, {barriers} barriers. Step d makes B - d adds: "
             f"B log2 B - (B - 1) in all, 1793 for B = 256,"]
    if where == "global":
        facts += ["7.0 per element. Every step reads and writes out[ ] through the caches: log2 B round trips per "
                  "element,",
                  "on top of one read of in[ ] and one write of out[ ] in DRAM. Two barriers per step: thread t reads "
                  "out[i - d],",
                  "which thread t - d overwrites in the same step."]
    elif where == "shared":
        facts += ["7.0 per element. Global memory sees one read and one write per element; the steps run on chip,",
                  "still with two barriers each (the read of sums[t - d] must finish before thread t - d writes it)."]
    else:
        facts += ["as in chapter 13. A step reads one buffer and writes the other, copying the values it does not add",
                  "(dashed), so it never writes what it reads: one barrier per step, log2 B + 1 = 9 for B = 256 "
                  "instead of 17."]
    y = f.lines(20, y, facts, size=12, fill=INK, step=17)
    f.grow_to(y + 4)
    return f


def chapter12():
    return kogge_stone_figure(
        "chapter12-kogge-stone-global.svg", "global",
        "Chapter 12: the Kogge-Stone scan in global memory, two barriers per step",
        "A block copies its segment to the output and scans it in place: at the step with offset d every "
        "element adds the element d places to its left, for d = 1, 2, 4, with one barrier between a step's "
        "reads and its writes and another after the writes.",
        ["if (t >= offset) left = out[i - offset];   __syncthreads();",
         "if (t >= offset) out[i] += left;           __syncthreads();   // offset = 1, 2, 4, ..."])


def chapter13_kogge_stone():
    return kogge_stone_figure(
        "chapter13-kogge-stone-shared.svg", "shared",
        "Chapter 13: Kogge-Stone in shared memory",
        "The same doubling scan with the segment held in shared memory: one load and one store per element "
        "in global memory, and between them three steps, d = 1, 2, 4, each adding the element d places to "
        "the left, with two barriers per step.",
        ["sums[t] = in[i];  __syncthreads();",
         "if (t >= offset) left = sums[t - offset];  __syncthreads();",
         "if (t >= offset) sums[t] += left;          __syncthreads();   // offset = 1, 2, 4, ..."])


def brent_kung_steps(p):
    """Brent-Kung's steps over p slots, as chapter 13's scan_brent_kung takes them:
    [(phase, d, [(thread, dst, src), ...])]; up-sweep k = (t + 1) 2d - 1 adds sums[k - d],
    down-sweep adds sums[k] into sums[k + d]."""
    steps = []
    d = 1
    while d < p:
        steps.append(("up", d, [(t, (t + 1) * 2 * d - 1, (t + 1) * 2 * d - 1 - d)
                                for t in range(p) if (t + 1) * 2 * d - 1 < p]))
        d *= 2
    d = p // 4
    while d > 0:
        steps.append(("down", d, [(t, (t + 1) * 2 * d - 1 + d, (t + 1) * 2 * d - 1)
                                  for t in range(p) if (t + 1) * 2 * d - 1 + d < p]))
        d //= 2
    return steps


def chapter13_brent_kung():
    f = Figure("chapter13-brent-kung.svg", "Chapter 13: Brent-Kung, an up-sweep and a down-sweep",
               "The work-efficient scan over 8 values: an up-sweep of 3 steps builds partial sums in a tree (4, 2 "
               "and 1 adds), then a down-sweep of 2 steps hands them back down (1 and 3 adds): 11 adds in 5 steps, "
               "against Kogge-Stone's 17 adds in 3 steps.", 0,
               "8 values drawn (a block of 8 threads; the up-sweep needs 4); the program's segments are 256")
    f.lines(20, 72, ["for (d = 1; d < p; d *= 2) {          // the up-sweep",
                     "  __syncthreads();  k = (t + 1) * 2 * d - 1;  if (k < p) sums[k] += sums[k - d]; }",
                     "for (d = p / 4; d > 0; d /= 2) {      // the down-sweep",
                     "  __syncthreads();  k = (t + 1) * 2 * d - 1;  if (k + d < p) sums[k + d] += sums[k]; }"],
            size=12, mono=True, fill=SCAN, step=16)
    y = 168
    scan_index_header(f, y - 8, "slot:")
    values = list(SCAN_VALUES)
    scan_row(f, y, values, label="sums[ ]", sub="after the load")
    adds_total = 0
    steps = brent_kung_steps(8)
    for n, (phase, d, pairs) in enumerate(steps):
        prev_y, y = y, y + 82
        new = list(values)
        for _t, dst, src in pairs:
            new[dst] = values[dst] + values[src]
        top = prev_y + SH + (4 if n == 0 else 20)
        for _t, dst, src in pairs:
            x = SX0 + dst * SPITCH + SW / 2
            f.arrow(SX0 + src * SPITCH + SW / 2, top, x - 4, y - 2, "scan", 1.6)
            f.arrow(x, top, x, y - 2, "muted", 1)
        barrier(f, (top + y) / 2 - 6)
        adds_total += len(pairs)
        name = "up-sweep" if phase == "up" else "down-sweep"
        scan_row(f, y, new, written={dst for _t, dst, _s in pairs},
                 label=f"{name}", sub=f"d = {d}: {len(pairs)} add{'s' if len(pairs) > 1 else ''}")
        for t, dst, _s in pairs:
            f.text(SX0 + dst * SPITCH + SW / 2, y + SH + 14, f"t{t}", size=12, anchor="middle", fill=SCAN,
                   weight="bold")
        values = new
    y += SH + 40
    y = f.lines(20, y, [
        f"{len(steps)} steps and {adds_total} adds for 8 values, one barrier each. For B = 256: 15 steps and 502 "
        "adds, 2.0 per element,",
        "against Kogge-Stone's 8 steps and 1793 adds (7.0 per element). Fewer adds, but twice the steps, few "
        "threads",
        "at work in the late ones, and, at stride d, a warp's slots 2d words apart share shared-memory banks."],
        size=12, fill=INK, step=17)
    f.grow_to(y + 4)
    return f


def chapter14():
    return kogge_stone_figure(
        "chapter14-double-buffer.svg", "double",
        "Chapter 14: two buffers, one barrier per step",
        "Kogge-Stone over 8 values with two shared buffers: each step reads one buffer and writes every "
        "element of the other, adding where it must and copying the rest, then the buffers swap, so a single "
        "barrier per step is enough.",
        ["to[t] = t >= offset ? from[t - offset] + from[t] : from[t];",
         "__syncthreads();   swap(from, to);                  // offset = 1, 2, 4, ..."])


# ---- chapter 15: the warp scan ------------------------------------------------------------------

WARP_INPUTS = [[2, 1, 3, 1, 2, 2, 1, 3], [1, 2, 2, 1, 3, 1, 2, 1], [3, 1, 1, 2, 2, 3, 1, 1], [1, 3, 2, 2, 1, 1, 3, 2]]


def inclusive(values):
    out, run = [], 0
    for v in values:
        run += v
        out.append(run)
    return out


def chapter15():
    f = Figure("chapter15-warp-scan.svg", "Chapter 15: scan each warp with __shfl_up_sync, then the warp totals",
               "Each warp scans its values in registers, every lane adding the value of the lane offset places "
               "below it for offsets 1, 2, 4 and so on; the last lane of each warp stores the warp's total, the "
               "first warp scans those totals into exclusive offsets, and every thread adds its warp's offset.",
               0, "8 lanes per warp drawn (offsets 1, 2, 4); a warp has 32 lanes (offsets 1 to 16)")
    f.lines(20, 72, ["left = __shfl_up_sync(0xffffffff, value, offset);  if (lane >= offset) value += left;"],
            size=12, mono=True, fill=SCAN)
    y = 124
    f.text(20, y - 18, "One warp, in registers: no shared memory, no barrier", size=14, weight="bold")
    y += 24
    scan_index_header(f, y - 8, "lane:")
    values = list(SCAN_VALUES)
    scan_row(f, y, values, label="value")
    d = 1
    while d < 8:
        prev_y, y = y, y + 66
        new = [values[i] + (values[i - d] if i >= d else 0) for i in range(8)]
        for i in range(d, 8):
            x = SX0 + i * SPITCH + SW / 2
            f.arrow(SX0 + (i - d) * SPITCH + SW / 2, prev_y + SH + 3, x - 4, y - 2, "scan", 1.6)
        scan_row(f, y, new, written=set(range(d, 8)), label=f"offset {d}", sub=f"lanes {d}-7 add")
        values = new
        d *= 2

    y += SH + 50
    f.text(20, y, "The block: 4 warps drawn (the program's 256 threads are 8 warps)", size=14, weight="bold")
    y += 30
    gx0, gpitch, cp, cw = 130, 166, 20, 18
    scans = [inclusive(w) for w in WARP_INPUTS]
    totals = [s[-1] for s in scans]
    offsets = [sum(totals[:w]) for w in range(4)]
    for w in range(4):
        f.text(gx0 + w * gpitch + 80, y - 6, f"warp {w}", size=12, anchor="middle", fill=MUTED)
        for l, v in enumerate(scans[w]):
            last = l == 7
            f.cell(gx0 + w * gpitch + l * cp, y, cw, 24, str(v), SCAN if last else SCAN_TINT, SCAN,
                   PAPER if last else INK, size=12, weight="bold" if last else None)
    row_label(f, y + 16, "warp scans", "last lane: total")
    sy = y + 70
    for w in range(4):
        lx = gx0 + w * gpitch + 7 * cp + cw / 2
        f.arrow(lx, y + 26, gx0 + w * gpitch + 80, sy - 2, "scan", 1.3)
        f.cell(gx0 + w * gpitch + 60, sy, 40, 24, str(totals[w]), PAPER, SCAN, size=12)
    row_label(f, sy + 16, "warp_offsets", "shared, slot w")
    barrier_y = sy + 50
    f.line(gx0 - 4, barrier_y, 790, barrier_y, ALERT, 1.4, "5 3")
    f.text(gx0 - 12, barrier_y + 4, "__syncthreads()", size=12, mono=True, anchor="end", fill=ALERT)
    oy = barrier_y + 26
    for w in range(4):
        f.arrow(gx0 + w * gpitch + 80, sy + 26, gx0 + w * gpitch + 80, oy - 2, "scan", 1.3)
        f.cell(gx0 + w * gpitch + 60, oy, 40, 24, str(offsets[w]), SCAN, SCAN, PAPER, size=12, weight="bold")
    row_label(f, oy + 16, "warp 0 scans", "exclusive: before warp w")
    b2 = oy + 50
    f.line(gx0 - 4, b2, 790, b2, ALERT, 1.4, "5 3")
    f.text(gx0 - 12, b2 + 4, "__syncthreads()", size=12, mono=True, anchor="end", fill=ALERT)
    fy = b2 + 26
    for w in range(4):
        for l, v in enumerate(scans[w]):
            f.cell(gx0 + w * gpitch + l * cp, fy, cw, 24, str(v + offsets[w]), PAPER, SCAN, size=12)
        f.text(gx0 + w * gpitch + 80, fy + 42, f"+ {offsets[w]} each", size=12, anchor="middle", fill=SCAN)
    row_label(f, fy + 16, "value += offset", "the block's scan")
    y = f.lines(20, fy + 78, [
        "Two barriers per block, whatever its size: one before warp 0 reads the totals, one before the",
        "threads read the offsets. Inside a warp the shuffle's mask orders the exchange."], size=13)
    f.grow_to(y)
    return f


# ---- chapter 16: the coarsened scan -------------------------------------------------------------

COARSE_INPUT = [2, 1, 3, 1, 2, 2, 1, 3, 1, 1, 2, 2, 3, 1, 1, 2]
LOAD_FILLS = ["#f7c08c", "#fbdfc2", "#f9cfa6", "#fdeedf"]  # one tint per warp load j, drawn


def chapter16():
    lanes, k = 4, 4
    f = Figure("chapter16-coarsened-scan.svg", "Chapter 16: each thread scans K elements, the block scans the totals",
               "Each warp loads its tile a row of consecutive ints at a time into shared memory, so every load is "
               "coalesced; each thread then takes K consecutive elements, scans them serially in registers, the "
               "block scans the thread totals, and each thread adds the total of the threads before it.", 0,
               "drawn: a warp of 4 lanes and K = 4 (16 elements); the program's default is 128 threads, K = 8")
    x0, pitch, w = 130, 40, 36
    y = 90
    f.text(20, y, "1. load through shared memory (load_tile)", size=14, weight="bold")
    y += 30
    for i in range(16):
        f.text(x0 + i * pitch + w / 2, y - 6, str(i), size=12, anchor="middle", fill=MUTED)
    for i, v in enumerate(COARSE_INPUT):
        f.cell(x0 + i * pitch, y, w, 26, str(v), LOAD_FILLS[i // lanes], SCAN)
    row_label(f, y + 17, "in[ ]", "global memory")
    for j in range(k):
        bracket_under(f, x0 + j * lanes * pitch, x0 + (j + 1) * lanes * pitch - 4, y + 30,
                      f"load {j}: lanes 0-3", SCAN)
    sy = y + 84
    for l in range(lanes):
        f.text(x0 + l * pitch + w / 2, sy - 8, f"lane {l}", size=12, anchor="middle", fill=MUTED)
    for j in range(k):
        for l in range(lanes):
            i = j * lanes + l
            f.cell(x0 + l * pitch, sy + j * 28, w, 24, str(COARSE_INPUT[i]), LOAD_FILLS[j], SCAN, size=12)
        f.text(x0 + lanes * pitch + 8, sy + j * 28 + 17,
               f"row {j}: written by load {j}, lane l into column l; read whole by thread {j}", size=12, fill=INK)
    row_label(f, sy + 17, "stage", "shared memory")
    f.text(x0, sy + k * 28 + 14, "in the program each row has 33 ints: the spare one keeps reads and writes free of "
                                 "bank conflicts", size=12, fill=MUTED)
    y = sy + k * 28 + 52
    f.text(20, y, "2. serial scan of K elements per thread, in registers", size=14, weight="bold")
    y += 16
    scans = [inclusive(COARSE_INPUT[t * k:(t + 1) * k]) for t in range(lanes)]
    for t in range(lanes):
        for e, v in enumerate(scans[t]):
            last = e == k - 1
            f.cell(x0 + (t * k + e) * pitch, y, w, 26, str(v), SCAN if last else LOAD_FILLS[t], SCAN,
                   PAPER if last else INK, weight="bold" if last else None)
        bracket_under(f, x0 + t * k * pitch, x0 + (t + 1) * k * pitch - 4, y + 30, f"thread {t}", SCAN)
    row_label(f, y + 17, "items[ ]", "K - 1 adds each")
    y += 76
    f.text(20, y, "3. the block scans the thread totals (chapter 15's warp and block scan)", size=14, weight="bold")
    y += 16
    totals = [s[-1] for s in scans]
    before = [sum(totals[:t]) for t in range(lanes)]
    for t in range(lanes):
        cx = x0 + t * k * pitch + (k * pitch - 4) / 2
        f.cell(cx - 20, y, 40, 26, str(totals[t]), PAPER, SCAN)
        f.arrow(cx, y + 28, cx, y + 48, "scan", 1.3)
        f.cell(cx - 20, y + 50, 40, 26, str(before[t]), SCAN, SCAN, PAPER, weight="bold")
    row_label(f, y + 17, "totals", "one per thread")
    row_label(f, y + 67, "before", "exclusive scan")
    y += 112
    f.text(20, y, "4. each thread adds its prefix, then stores through shared memory (store_tile)", size=14,
           weight="bold")
    y += 16
    for t in range(lanes):
        for e, v in enumerate(scans[t]):
            f.cell(x0 + (t * k + e) * pitch, y, w, 26, str(v + before[t]), SCAN, SCAN, PAPER, weight="bold")
        f.text(x0 + t * k * pitch + (k * pitch - 4) / 2, y + 44, f"+ {before[t]}", size=12, anchor="middle",
               fill=SCAN)
    row_label(f, y + 17, "out[ ]", "coalesced again")
    y = f.lines(20, y + 84, [
        "Loading K consecutive elements per thread straight from global memory would make each warp load touch",
        "32 places K x 4 bytes apart; through the staging rows every warp load reads 32 neighbouring ints. The block",
        "scan now runs once per K elements, so the kernel becomes a stream."], size=13)
    f.grow_to(y)
    return f


# ---- chapter 17: the decoupled look-back --------------------------------------------------------

TILE_SUMS = [5, 3, 4, 6, 2, 7, 3, 4, 5, 6]  # ten tiles' aggregates, drawn


def status_strip(f, y, states, x0=130, pitch=64, w=58, focus=None, dim=()):
    """Tiles 0-9 with their published status: None (not ready), ("A", v) or ("P", v)."""
    for t, st in enumerate(states):
        x = x0 + t * pitch
        if st is None:
            f.cell(x, y, w, 30, "not ready", PAPER, ALERT if t == focus else FAINT, ALERT if t == focus else MUTED,
                   size=12, dash="4 3")
        elif t in dim:
            f.cell(x, y, w, 30, f"{st[0]} {st[1]}", SHADE, FAINT, MUTED, size=13)
        elif st[0] == "P":
            f.cell(x, y, w, 30, f"P {st[1]}", SCAN, SCAN, PAPER, weight="bold")
        else:
            f.cell(x, y, w, 30, f"A {st[1]}", SCAN_TINT, SCAN, INK, weight="bold")


def window(f, y, first, last, x0=130, pitch=64, w=58, colour=SCAN, label=None):
    """A bracket over tiles first..last: the predecessors one look inspects."""
    x1, x2 = x0 + first * pitch - 4, x0 + last * pitch + w + 4
    f.rect(x1, y - 4, x2 - x1, 38, "none", colour, width=2, rx=6)
    if label:
        f.text(x1, y - 10, label, size=12, fill=colour, weight="bold")


def chapter17():
    me = 9
    prefix = inclusive(TILE_SUMS)
    f = Figure("chapter17-decoupled-look-back.svg", "Chapter 17: the decoupled look-back",
               "Tile 9 publishes its own sum (aggregate A), then its warp looks back over a window of "
               "predecessors: it waits while one of them has published nothing, adds aggregates while the window "
               "holds no inclusive prefix P, and stops at the nearest P; the total is tile 9's carry, and it "
               "publishes carry plus aggregate as its own P.", 0,
               "drawn: a window of 4 tiles; the program's window is the 32 lanes of warp 0, lane 31 the nearest tile")
    x0, pitch, w = 130, 64, 58
    y = 84
    f.text(20, y, "Each status is one 64-bit word, flag and value together, written and read atomically:", size=12,
           fill=MUTED)
    legend(f, 20, y + 22, [(PAPER, FAINT, "not ready (nothing yet)"), (SCAN_TINT, SCAN, "A: the tile's own sum"),
                                (SCAN, SCAN, "P: the sum of it and all tiles before")])
    y += 62
    for t in range(10):
        f.text(x0 + t * pitch + w / 2, y, f"tile {t}", size=12, anchor="middle", fill=INK if t == me else MUTED,
               weight="bold" if t == me else None)
    y += 10
    rows = []
    base = [("P", prefix[0]), ("P", prefix[1]), ("P", prefix[2]), ("P", prefix[3]), ("A", TILE_SUMS[4]),
            ("A", TILE_SUMS[5]), None, ("A", TILE_SUMS[7]), ("A", TILE_SUMS[8]), ("A", TILE_SUMS[9])]
    ready = list(base)
    ready[6] = ("A", TILE_SUMS[6])
    look1 = sum(TILE_SUMS[5:9])
    look2 = prefix[3] + TILE_SUMS[4]
    carry = look1 + look2
    rows.append((base, "publish A", f"tile 9 knows its sum, {TILE_SUMS[9]}: it publishes A {TILE_SUMS[9]} at once",
                 None, None, ()))
    rows.append((base, "look 1", "window tiles 5-8: tile 6 has published nothing: wait (sleep, look again)",
                 (5, 8, ALERT), 6, ()))
    rows.append((ready, "look 1 again", f"all four show A, none P: add 7 + 3 + 4 + 5 = {look1}, move the window back",
                 (5, 8, SCAN), None, ()))
    rows.append((ready, "look 2", f"window tiles 1-4: the nearest P is tile 3: add P {prefix[3]} + A {TILE_SUMS[4]} = "
                                  f"{look2}, stop", (1, 4, SCAN), None, (1, 2)))
    done = list(ready)
    done[9] = ("P", carry + TILE_SUMS[9])
    rows.append((done, "publish P", f"carry = {look1} + {look2} = {carry}; tile 9 publishes P {carry} + {TILE_SUMS[9]} "
                                    f"= {carry + TILE_SUMS[9]}", None, None, ()))
    for states, name, text, win, focus, dim in rows:
        status_strip(f, y, states, focus=focus, dim=dim)
        f.rect(x0 + me * pitch - 3, y - 3, w + 6, 36, "none", INK, width=2, rx=3)
        if win:
            window(f, y, win[0], win[1], colour=win[2])
        row_label(f, y + 20, name)
        f.text(x0, y + 50, text, size=12, fill=INK)
        if name == "look 2":
            f.text(x0 + 1 * pitch + (pitch + w) / 2, y - 12, "ignored: before the nearest P", size=12,
                   anchor="middle", fill=MUTED)
        y += 84
    f.text(x0, y - 14, f"Then every element of tile 9 adds the carry, {carry}, to its prefix within the tile.", size=12,
           fill=SCAN, weight="bold")
    y = f.lines(20, y + 22, [
        "Tiles are numbered in the order their blocks start (a global counter), so a tile waits only for tiles",
        "whose blocks are already running, and tile 0 publishes P at once: the walk always ends. A tile",
        "publishes A before it scans inside its tile, so the tiles after it can use it early. Every element is",
        "read once and written once, like a copy."])
    f.grow_to(y)
    return f


# ---- chapter 18: several GPUs ------------------------------------------------------------------------

SHARD_SUMS = [21, 17, 25, 19]


def chapter18():
    g = len(SHARD_SUMS)
    total = sum(SHARD_SUMS)
    carries = [sum(SHARD_SUMS[:k]) for k in range(g)]
    f = Figure("chapter18-shards.svg", "Chapter 18: shards across GPUs, and the few numbers they exchange",
               "The array is cut into one contiguous shard per GPU; each GPU sums its shard. For the sum, an "
               "all-reduce leaves the total on every GPU; for the scan, an all-gather gives every GPU all shard "
               "totals, GPU g adds those before its own into its carry and scans its shard from it.", 0,
               "drawn with 4 GPUs; the page measures 2 H200s, one process or one per GPU under mpirun")
    x0, col = 40, 186
    y = 84
    f.text(20, y, "The array, cut into contiguous shards (whole scan tiles, sizes differ by at most one tile)",
           size=12, fill=MUTED)
    y += 12
    for k in range(g):
        x = x0 + k * col
        f.rect(x, y, col - 12, 28, SHADE if k % 2 == 0 else PAPER, INK)
        f.text(x + (col - 12) / 2, y + 19, f"shard {k}", anchor="middle")
    y += 50
    for k in range(g):
        x = x0 + k * col
        f.rect(x, y, col - 12, 80, PAPER, INK, rx=8, width=1.5)
        f.text(x + 10, y + 20, f"GPU {k}", weight="bold")
        f.text(x + 10, y + 40, "chapter 11's sum", size=12, fill=MUTED)
        f.cell(x + 10, y + 48, col - 32, 24, f"shard sum {SHARD_SUMS[k]}", REDUCE_TINT, REDUCE, size=12)
        f.arrow(x + (col - 12) / 2, y - 20, x + (col - 12) / 2, y - 2, "ink", 1)
    y += 80
    for k in range(g):
        cx = x0 + k * col + (col - 12) / 2
        f.arrow(cx, y + 2, cx, y + 22, "reduce", 1.2)
    y += 24
    f.rect(x0, y, g * col - 12, 30, REDUCE_TINT, REDUCE, rx=6)
    f.text(x0 + (g * col - 12) / 2, y + 20,
           f"The sum: ncclAllReduce of one int, {' + '.join(map(str, SHARD_SUMS))} = {total}",
           anchor="middle", weight="bold", fill=INK)
    y += 44
    for k in range(g):
        x = x0 + k * col
        f.arrow(x + (col - 12) / 2, y - 12, x + (col - 12) / 2, y + 6, "reduce", 1.2)
        f.cell(x + 10, y + 8, col - 32, 26, f"total {total}", REDUCE, REDUCE, PAPER, weight="bold", size=12)
    y += 70
    f.text(20, y, "The scan: one ncclAllGather of the same shard sums, then chapter 17's single pass from the carry",
           size=14, weight="bold", fill=SCAN)
    y += 14
    f.rect(x0, y, g * col - 12, 30, SCAN_TINT, SCAN, rx=6)
    f.text(x0 + (g * col - 12) / 2, y + 20, "ncclAllGather: every GPU receives all four shard sums, in shard order",
           anchor="middle", weight="bold")
    y += 44
    for k in range(g):
        x = x0 + k * col
        f.arrow(x + (col - 12) / 2, y - 12, x + (col - 12) / 2, y + 6, "scan", 1.2)
        for j, v in enumerate(SHARD_SUMS):
            before = j < k
            f.cell(x + 10 + j * 38, y + 8, 34, 24, str(v), SCAN if before else PAPER, SCAN if before else FAINT,
                   PAPER if before else MUTED, size=12, weight="bold" if before else None)
        f.text(x + 10, y + 52, f"carry = {carries[k]}", weight="bold", fill=SCAN)
        f.text(x + 10, y + 70, "sum of the shards before", size=12, fill=MUTED)
        f.cell(x + 10, y + 80, col - 32, 26, f"scan shard {k} from {carries[k]}", SCAN, SCAN, PAPER, size=12,
               weight="bold")
    y = f.lines(20, y + 140, [
        "Each element is read twice (the sum, then the scan) and written once: 12 bytes. Only G ints cross",
        "between GPUs, so the collectives cost latency (microseconds), not bandwidth, against milliseconds of",
        "streaming. The same (seed, i) inputs make any number of GPUs give the same answer."])
    f.grow_to(y)
    return f


# ---- chapter 19: the order of a float sum -------------------------------------------------

def chapter19():
    f = Figure("chapter19-fixed-order.svg", "Chapter 19: an order of additions fixed by N alone",
               "The input is cut into chunks of 8192 floats; one warp sums a chunk, lane l taking float4s l, l + 32, "
               "l + 64 and so on into four running sums that it adds in pairs, then the 32 lanes meet in a "
               "butterfly. The chunk sums are summed the same way, level after level, until one is left. Which "
               "warp or block takes a chunk changes nothing, so every grid and GPU gives the same bits, and the "
               "CPU can compute them too.", 0,
               "drawn with chunks of 4 lanes x 4 float4s; the program's are 32 lanes x 64 float4s (8192 floats)")
    lanes, vectors = 4, 4
    x0, y = 40, 84
    f.text(20, y, "One chunk in memory: float4 j of lane l is float4 number lanes x j + l of the chunk", size=12,
           fill=MUTED)
    y += 12
    cw = 44
    fills = THREAD_FILLS
    for j in range(vectors):
        for lane in range(lanes):
            k = j * lanes + lane
            fill, ink = fills[lane]
            f.cell(x0 + k * cw, y, cw - 4, 26, f"l{lane}", fill, REDUCE, ink, size=12)
    for j in range(vectors):
        bracket_under(f, x0 + j * lanes * cw, x0 + (j + 1) * lanes * cw - 4, y + 32, f"j = {j}")
    y += 80
    f.text(20, y, "Each lane, in order j = 0, 1, 2, ...: four running sums, one per component of its float4s",
           size=12, fill=MUTED)
    y += 12
    for lane in range(lanes):
        fill, ink = fills[lane]
        x = x0 + lane * 176
        f.cell(x, y, 160, 26, f"lane {lane}: s.x s.y s.z s.w", fill, REDUCE, ink, size=12)
        f.cell(x + 5, y + 40, 150, 24, "(x + y) + (z + w)", PAPER, REDUCE, size=12, mono=True)
        f.arrow(x + 80, y + 28, x + 80, y + 38, "reduce", 1)
    y += 84
    f.text(20, y, "The warp's butterfly: __shfl_xor_sync at offsets 16, 8, 4, 2, 1 (2 and 1 drawn)", size=12,
           fill=MUTED)
    y += 12
    for stage, offset in enumerate((2, 1)):
        top = y + 6 + stage * 34
        for lane in range(lanes):
            x = x0 + lane * 176 + 80
            f.line(x, top, x, top + 30, FAINT)  # its own value
            f.line(x0 + (lane ^ offset) * 176 + 80, top, x, top + 30, REDUCE)  # the partner's
            f.add(el("circle", (("cx", num(x)), ("cy", num(top + 30)), ("r", "4"), ("fill", REDUCE))))
        f.text(x0 + 4 * 176 - 20, top + 22, f"+ lane ^ {offset}", size=12, fill=MUTED)
    f.cell(x0 + 250, y + 82, 200, 26, "the chunk's sum, in every lane", REDUCE_TINT, REDUCE, size=12)
    y += 10
    y += 130
    f.text(20, y, "Level after level: the chunk sums are an input of their own, summed in chunks the same way",
           size=12, fill=MUTED)
    y += 12
    widths = [680, 340, 170, 40]
    names = ["N floats", "N / 8192 chunk sums", "N / 8192^2", "1"]
    for k, (w, name) in enumerate(zip(widths, names)):
        f.cell(x0, y, w, 24, name, SHADE if k < 3 else REDUCE, REDUCE, PAPER if k == 3 else INK, size=12,
               weight="bold" if k == 3 else None)
        if k < 3:
            f.arrow(x0 + widths[k + 1] / 2, y + 26, x0 + widths[k + 1] / 2, y + 38, "reduce", 1)
        y += 40
    y = f.lines(20, y + 16, [
        "Warps take chunks in a grid-stride loop, but a chunk's order depends on its index alone: the grid, the",
        "block size and the GPU change which warp adds it, never how. __fadd_rn keeps every addition as written,",
        "so the CPU, adding in the same order, gets the same bits (the tests compare them with committed ones)."])
    f.grow_to(y)
    return f



# ---- chapter 20: any operator, two orders --------------------------------------------------

def order_row(f, x0, y, owners, fills, cw=44):
    """16 elements in memory, element i drawn in the colour of its owner (a thread or a lane)."""
    for i, owner in enumerate(owners):
        fill, ink = fills[owner]
        f.cell(x0 + i * cw, y, cw - 4, 26, f"m{i}", fill, REDUCE, ink, size=12)


def chapter20():
    f = Figure("chapter20-two-orders.svg", "Chapter 20: the same reduction in two orders",
               "Sixteen maps m0 to m15 in memory. In chapter 11's order thread t takes vectors t and t + 4, so "
               "thread 0 combines m0, m1, m8, m9: m8 before m2. In the input's order each lane takes four "
               "consecutive maps and the lanes meet in order. A sum, maximum or argmax gives one result both "
               "ways; maps do not commute, so only the second order is right. The scan writes an 8-byte value "
               "into a slot, then releases its flag; a reader acquires the flag, then reads the slot.", 0,
               "drawn with 16 elements, 4 threads or lanes, vectors of 2; the program's are 256 threads, "
               "16-byte vectors, lanes of 64 bytes")
    x0, cw = 40, 44
    y = 84
    f.text(20, y, "Chapter 11's order (reduce_best_any): thread t takes vectors t, t + 4, ... of 2 elements",
           size=13, weight="bold", fill=REDUCE)
    y += 12
    owners = [(i // 2) % 4 for i in range(16)]
    order_row(f, x0, y, owners, THREAD_FILLS, cw)
    for v in range(8):
        bracket_under(f, x0 + 2 * v * cw, x0 + (2 * v + 2) * cw - 4, y + 32, f"vector {v}")
    y += 76
    legend(f, x0, y, [(THREAD_FILLS[t][0], REDUCE, f"thread {t}") for t in range(4)])
    y += 26
    f.text(x0, y, "combined: (m0 m1 m8 m9) (m2 m3 m10 m11) (m4 m5 m12 m13) (m6 m7 m14 m15)", size=12, mono=True)
    y += 18
    f.text(x0, y, "m8 before m2: right if the operator commutes (sum, max, min, argmax), wrong for maps",
           size=12, fill=ALERT)
    y += 40
    f.text(20, y, "The input's order (reduce_in_order, the scan): each lane takes K consecutive elements",
           size=13, weight="bold", fill=REDUCE)
    y += 12
    owners = [i // 4 for i in range(16)]
    order_row(f, x0, y, owners, THREAD_FILLS, cw)
    for lane in range(4):
        bracket_under(f, x0 + 4 * lane * cw, x0 + (4 * lane + 4) * cw - 4, y + 32, f"lane {lane}")
    y += 76
    f.text(x0, y, "loaded 4 at a time across the lanes (coalesced), handed out through shared memory;",
           size=12, fill=MUTED)
    y += 18
    f.text(x0, y, "combined: (m0 m1 m2 m3) (m4 m5 m6 m7) (m8 m9 m10 m11) (m12 m13 m14 m15)", size=12, mono=True)
    y += 18
    f.text(x0, y, "lane l's run before lane l + 1's, warps and blocks likewise: right for any associative operator",
           size=12, fill=REDUCE)
    y += 40
    f.text(20, y, "The scan's tile status for an 8-byte value: the value in a slot, then the flag", size=13,
           weight="bold", fill=SCAN)
    y += 14
    # The writer's tile, its status word and two slots, and a reader.
    f.rect(40, y, 300, 96, SHADE, FAINT, rx=6)
    f.text(52, y + 20, "tile t publishes", weight="bold")
    f.lines(52, y + 42, ["1. its value into slot A (or P)", "2. flag A (or P) and epoch,", "released after the value"],
            size=12)
    f.rect(440, y, 340, 96, SHADE, FAINT, rx=6)
    f.text(452, y + 20, "a later tile looks back", weight="bold")
    f.lines(452, y + 42, ["1. polls the flag word with", "acquire loads", "2. reads the slot the flag names"], size=12)
    f.arrow(342, y + 48, 438, y + 48, "scan", 1.4)
    f.text(390, y + 40, "synchronizes", size=12, anchor="middle", fill=SCAN)
    y += 110
    cells = [("flag + epoch", CUB_TINT, CUB), ("slot A: 8 bytes", SCAN_TINT, SCAN), ("slot P: 8 bytes", SCAN_TINT, SCAN)]
    for i, (label, fill, stroke) in enumerate(cells):
        f.cell(40 + i * 180, y, 170, 26, label, fill, stroke, size=12)
    f.text(600, y + 18, "each written once per launch", size=12, fill=MUTED)
    y = f.lines(20, y + 54, [
        "Chapter 17 packs a flag and a 4-byte value in one 64-bit word, written and read in one access. An",
        "8-byte value and its flag take more than 64 bits, and in the PTX memory model a 16-byte access is",
        "two accesses to its halves in no set order; so the value goes first, then the flag with release, and",
        "a reader reads the flag with acquire before it reads the value. No slot is rewritten in a launch."])
    f.grow_to(y)
    return f


# ---- chapter 21: stream compaction -----------------------------------------------------------

COMPACT_VALUES = [7, 2, 9, 4, 4, 8, 1, 6, 3, 5, 8, 2, 7, 9, 0, 6]  # drawn; kept: 5 or more


def chapter21():
    values = COMPACT_VALUES
    kept = [v >= 5 for v in values]
    tiles, per = 4, 4
    counts = [sum(kept[t * per:(t + 1) * per]) for t in range(tiles)]
    before = [sum(counts[:t]) for t in range(tiles)]
    out = [v for v in values if v >= 5]
    me = 3
    f = Figure("chapter21-one-pass-compaction.svg", "Chapter 21: stream compaction in one pass",
               "A kept element goes to the output position given by the number of kept elements before it. In one "
               "pass each tile counts what it keeps and publishes that count as chapter 17's tiles publish sums; "
               "while its look-back adds the counts of the tiles before it, the tile gathers its kept elements in "
               "shared memory, then writes them after that carry in one coalesced run, and the last tile writes "
               "the total. Each element is read once and each kept one written once.", 0,
               f"drawn: 4 tiles of 4 elements, keeping those of 5 or more; the program keeps a hash of the value "
               f"below --keep P%")
    x0, pitch, w = 130, 36, 30
    y = 84
    legend(f, 20, y, [(SCAN_TINT, SCAN, "kept"), (SHADE, FAINT, "dropped"), (SCAN, SCAN, "P: kept up to here"),
                      (PAPER, SCAN, "A: the tile's own count")])
    y += 34

    def tx(t):  # left edge of tile t's first element
        return x0 + t * (per * pitch + 12)

    for t in range(tiles):
        f.text(tx(t) + (per * pitch - 6) / 2, y, f"tile {t}", size=12, anchor="middle",
               fill=INK if t == me else MUTED, weight="bold" if t == me else None)
    y += 8
    for i, v in enumerate(values):
        x = tx(i // per) + (i % per) * pitch
        if kept[i]:
            f.cell(x, y, w, 26, str(v), SCAN_TINT, SCAN, INK, weight="bold")
        else:
            f.cell(x, y, w, 26, str(v), SHADE, FAINT, MUTED)
    row_label(f, y + 18, "input")
    y += 58
    sw = per * pitch - 6  # a status spans its tile
    for t in range(tiles):
        if t < 2:
            f.cell(tx(t), y, sw, 26, f"P {before[t] + counts[t]}", SCAN, SCAN, PAPER, weight="bold", size=12)
        else:
            f.cell(tx(t), y, sw, 26, f"A {counts[t]}", PAPER, SCAN, INK, weight="bold", size=12)
    f.rect(tx(me) - 3, y - 3, sw + 6, 32, "none", INK, width=2, rx=3)
    f.rect(tx(1) - 5, y - 5, tx(2) + sw - tx(1) + 10, 36, "none", SCAN, width=2, rx=6)
    f.text(tx(1) - 5, y - 10, "tile 3's look-back", size=12, fill=SCAN, weight="bold")
    row_label(f, y + 18, "statuses", "64-bit words")
    y += 52
    carry = before[me]
    f.text(x0, y, f"1. Tile 3 counts {counts[me]} kept and publishes A {counts[me]} at once.", size=12)
    f.text(x0, y + 18, f"2. Its look-back adds back to the nearest P: P {before[2]} + A {counts[2]} = {carry}, "
                       f"the kept elements before it.", size=12)
    f.text(x0, y + 36, f"3. Meanwhile it gathers its kept elements in shared memory, in order: "
                       f"{', '.join(str(v) for v, k in zip(values[me * per:], kept[me * per:]) if k)}.", size=12)
    f.text(x0, y + 54, f"4. It writes them to out[{carry}], out[{carry + 1}], out[{carry + 2}] in one run, "
                       f"publishes P {carry + counts[me]} and, being last, the count {len(out)}.", size=12)
    y += 76
    stage_x = tx(me)
    mine = [v for v, k in zip(values[me * per:], kept[me * per:]) if k]
    for j, v in enumerate(mine):
        f.cell(stage_x + j * pitch, y, w, 26, str(v), SCAN_TINT, SCAN, INK, weight="bold")
    f.text(stage_x - 8, y + 18, "in shared memory:", size=12, anchor="end", fill=MUTED)
    row_label(f, y + 18, "tile 3 gathers")
    y += 62
    out_x = x0
    owner = [t for t in range(tiles) for _ in range(counts[t])]
    for j, v in enumerate(out):
        if owner[j] == me:
            f.cell(out_x + j * pitch, y, w, 26, str(v), SCAN, SCAN, PAPER, weight="bold")
        else:
            f.cell(out_x + j * pitch, y, w, 26, str(v), SCAN_TINT, SCAN, INK)
    for j in range(len(out), 16):
        f.cell(out_x + j * pitch, y, w, 26, "", PAPER, FAINT, dash="3 3")
    for j in range(len(mine)):
        f.arrow(stage_x + j * pitch + w / 2, y - 34, out_x + (carry + j) * pitch + w / 2, y - 2, "scan", 1.2)
    for t in range(tiles):
        if counts[t]:
            bracket_under(f, out_x + before[t] * pitch, out_x + (before[t] + counts[t] - 1) * pitch + w, y + 32,
                          f"tile {t}")
    row_label(f, y + 18, "output", f"count {len(out)}")
    y = f.lines(20, y + 80, [
        "Three kernels do the same with a flag per element in memory: write the flags, scan them (chapter 17),",
        "then read the input and a kept element's scanned flag again to scatter: 20 bytes per element, 24 if kept,",
        "besides the output, against 4 in one pass. The look-back's counts are 32-bit, so one launch covers at",
        "most 2^31 elements; a longer input takes several launches, each starting from the 64-bit total the one",
        "before it left."])
    f.grow_to(y)
    return f


# ---- chapters 22 and 23: a ring of bulk copies, and the look-ahead scan on it ------------------

RING_STAGES = 4
# Use k of the ring in the snapshot drawn: stored (k < 4), being stored (4), landed (5), landing (6, 7).
RING_STATE = {4: "storing", 5: "full", 6: "landing", 7: "landing"}


def ring_tile_cells(f, y, written):
    """The block's tiles k = 0..7 in global memory: in[] (written False) or out[] (True), each
    in the state of the snapshot."""
    x0, pitch, w = 130, 82, 76
    for k in range(8):
        state = "done" if k < RING_STAGES else RING_STATE[k]
        if written:
            fill, stroke, ink = {"done": (SCAN, SCAN, PAPER), "storing": (SCAN_TINT, SCAN, INK)}.get(
                state, (PAPER, FAINT, MUTED))
        else:
            fill, stroke, ink = (SHADE, FAINT, MUTED) if state == "done" else (PAPER, SCAN, INK)
        f.cell(x0 + k * pitch, y, w, 26, f"k = {k}", fill, stroke, ink, size=12)
    return [x0 + k * pitch + w / 2 for k in range(8)]


def phase_row(f, y, name, cuts, x1, x2, last):
    """One barrier's phases along the time line: segments between `cuts` (where a phase
    completes), shaded by parity, each named by its phase number."""
    row_label(f, y + 17, name)
    edges = [x1] + cuts + [x2]
    for p in range(len(edges) - 1):
        fill = SCAN_TINT if p % 2 == 0 else SHADE
        f.cell(edges[p], y, edges[p + 1] - edges[p], 24, f"phase {p} (parity {p % 2})" if p < last else "...",
               fill, FAINT, INK, size=12)


def chapter22():
    f = Figure("chapter22-ring.svg", "Chapter 22: a ring of bulk copies between two lanes",
               "One block per SM copies its tiles through a ring of 4 shared-memory stages. The loader lane waits "
               "until a stage is empty, announces the bytes on the stage's full barrier and starts a bulk copy "
               "from global memory; the copy engine counts the bytes down as they land. The store lane waits "
               "until the stage is full, bulk-stores it to global memory, waits until the store has read it and "
               "arrives on the stage's empty barrier, which lets the loader refill it. Use k of the ring takes "
               "stage k mod 4 and waits for the phase of parity (k / 4) mod 2 on the full barrier; the loader "
               "waits for the other parity on the empty barrier, so its first round passes at once.", 0,
               "drawn with 4 stages and 8 tiles; the ring copy's default is 2 stages of 32,256 bytes on every SM")
    y = 84
    f.text(20, y, "This block's tiles (each number taken from a counter), in the order it uses the ring: "
                  "k = 0, 1, 2, ...", size=12, fill=MUTED)
    y += 12
    row_label(f, y + 18, "in[]")
    tops = ring_tile_cells(f, y, False)
    y += 56
    # The block: the loader lane, the four stages with their barriers, the store lane.
    block_top = y
    f.rect(20, block_top, 760, 136, PAPER, INK, rx=8, width=1.5)
    f.text(32, block_top + 18, "one block (64 threads): lane 0 of warp 0 loads, lane 0 of warp 1 stores", size=12,
           fill=MUTED)
    f.cell(32, block_top + 40, 120, 56, "", PAPER, SCAN, rx=6, width=1.5)
    f.text(92, block_top + 62, "loader", anchor="middle", weight="bold")
    f.text(92, block_top + 80, "waits for k = 8", size=12, anchor="middle", fill=MUTED)
    f.cell(648, block_top + 40, 120, 56, "", PAPER, SCAN, rx=6, width=1.5)
    f.text(708, block_top + 62, "store lane", anchor="middle", weight="bold")
    f.text(708, block_top + 80, "storing k = 4", size=12, anchor="middle", fill=MUTED)
    sx0, spitch, sw = 190, 110, 98
    centres = []
    for s in range(RING_STAGES):
        k = RING_STAGES + s
        state = RING_STATE[k]
        fill = {"storing": SCAN_TINT, "full": SCAN, "landing": PAPER}[state]
        ink = PAPER if state == "full" else INK
        x = sx0 + s * spitch
        centres.append(x + sw / 2)
        f.cell(x, block_top + 30, sw, 40, "", fill, SCAN, width=1.5, dash="5 3" if state == "landing" else None)
        f.text(x + sw / 2, block_top + 46, f"stage {s}", size=12, anchor="middle", fill=ink, weight="bold")
        f.text(x + sw / 2, block_top + 63, f"k = {k}: {state}", size=12, anchor="middle", fill=ink)
        done_full = state in ("full", "storing")
        f.cell(x, block_top + 78, sw, 20, f"full[{s}]", SCAN if done_full else PAPER, SCAN,
               PAPER if done_full else MUTED, size=12)
        f.cell(x, block_top + 102, sw, 20, f"empty[{s}]", PAPER, FAINT, MUTED, size=12)
    # Bulk loads into the landing stages, the bulk store out of stage 0.
    for s in (2, 3):
        f.arrow(tops[RING_STAGES + s], y - 30, centres[s], block_top + 28, "scan", 1.3, dash="5 3")
    f.text(tops[6] - 150, y - 12, "cp.async.bulk", size=12, anchor="end", fill=SCAN, mono=True)
    f.arrow(152, block_top + 60, sx0 - 4, block_top + 50, "ink", 1.2)
    f.arrow(sx0 + 3 * spitch + sw + 4, block_top + 50, 646, block_top + 60, "ink", 1.2)
    y = block_top + 136 + 40
    row_label(f, y + 18, "out[]")
    bottoms = ring_tile_cells(f, y, True)
    f.arrow(centres[0], block_top + 124, bottoms[4], y - 2, "scan", 1.3)
    f.text(bottoms[4] + 10, y - 14, "bulk store of stage 0", size=12, fill=SCAN)
    y = f.lines(20, y + 50, [
        "Filled: the phase has completed. full[s]: the loader arrived expecting the stage's bytes and all have "
        "landed.",
        "empty[s]: the store lane has read the stage. The loader now waits on empty[0] for the store of k = 4."],
        size=12, fill=MUTED)
    y += 16
    # One stage's barriers over time.
    f.text(20, y, "Stage 0 over uses k = 0, 4, 8: each barrier's phases, and the parity each wait asks for",
           size=14, weight="bold", fill=SCAN)
    y += 16
    x1, x2 = 140, 780
    land = [250, 430, 610]   # full[0] completes: the bytes of k = 0, 4, 8 have landed
    read = [320, 500, 680]   # empty[0] completes: the store lane has read the stage
    issue = [150, 320, 500]  # the loader passes its wait and starts the copy
    y_loader = y + 20
    row_label(f, y_loader + 4, "loader")
    for k, x in zip((0, 4, 8), issue):
        f.add(el("circle", (("cx", num(x)), ("cy", num(y_loader)), ("r", "4"), ("fill", SCAN))))
        parity = ((k // RING_STAGES) & 1) ^ 1
        f.text(x + 8, y_loader - 4, f"k = {k}: empty[0] parity {parity}", size=12)
        f.text(x + 8, y_loader + 12, "fresh: passes" if k == 0 else "expect 32 KB, copy", size=12, fill=MUTED)
    y_full = y_loader + 28
    phase_row(f, y_full, "full[0]", land, x1, x2, 3)
    y_empty = y_full + 34
    phase_row(f, y_empty, "empty[0]", read, x1, x2, 3)
    y_store = y_empty + 48
    row_label(f, y_store + 4, "store lane")
    for i, (k, x) in enumerate(zip((0, 4, 8), land)):
        f.add(el("circle", (("cx", num(x)), ("cy", num(y_store)), ("r", "4"), ("fill", SCAN))))
        f.text(x + 8, y_store + 4, f"parity {(k // RING_STAGES) & 1}", size=12)
        # Guide lines only in the gaps between the rows, so that none crosses a phase's label.
        f.line(x, y_full + 24, x, y_empty, SCAN, 1, "3 3")
        f.line(x, y_empty + 24, x, y_store - 4, SCAN, 1, "3 3")
        f.line(read[i], y_empty + 24, read[i], y_store + 14, MUTED, 1, "3 3")
        f.text(read[i] - 4, y_store + 26, "read, arrive", size=12, anchor="middle", fill=MUTED)
    y = f.lines(20, y_store + 58, [
        "A wait for parity p passes once the barrier's phase of parity p has completed, that is while its current",
        "phase has the other parity. A fresh barrier is in phase 0, so a wait for parity 1 passes at once: every",
        "stage starts empty. One arrival completes a phase here (the loader's, which also expects the bytes, or",
        "the store lane's); a missing one hangs the ring, and -DWB_RING_TRAP=ON turns that hang into an error.",
        "The ints before the first 128-byte boundary and the last 0 to 3 are copied by plain loads and stores.",
        "Each empty[0] phase completes where the loader's next copy into stage 0 starts (the dots above)."],
        size=12)
    f.grow_to(y)
    return f

# Roles of the look-ahead scan: (name, warps, what it does), drawn left to right.
LOOKAHEAD_ROLES = [("loader warp", "warp 0", ["takes tile numbers,", "bulk-copies tiles in"]),
                   ("look-ahead warp", "warp 1", ["adds published tile", "sums into carries"]),
                   ("reduce squad", "warps 2-5", ["sums a landed tile,", "publishes the sum"]),
                   ("scan squad", "warps 6-9", ["scans, adds the carry,", "bulk-stores the tile"])]
# A stage's barriers: (name, who arrives, the role that waits for it), as two paths that meet at the
# scan squad: the look-ahead's (numbered, then carried) and the tile's own (full, then reduced).
LOOKAHEAD_PATHS = [[("numbered", "loader: the tile's number"), ("carried", "look-ahead: the carry")],
                   [("full", "loader and copy engine: bytes"), ("reduced", "reduce squad: the sum")]]
# The snapshot of the statuses drawn: tile -> owner ("mine" for this block) and whether its sum is out.
LOOKAHEAD_TILES = {3: ("mine", True), 4: ("other", True), 5: ("other", True), 6: ("other", False),
                   7: ("other", True), 8: ("other", True), 9: ("mine", None)}


def chapter23():
    f = Figure("chapter23-lookahead.svg", "Chapter 23: the look-ahead scan, one block per SM in four roles",
               "One persistent block per SM runs four roles on chapter 22's ring of shared-memory stages. The loader "
               "warp takes each tile's number from a counter, notes it in the stage and bulk-copies the tile in. "
               "Two paths then run side by side: the look-ahead warp, as soon as the tile has a number, adds the "
               "published sums of the tiles since the block's previous tile to that tile's carry; the reduce squad, "
               "once the tile has landed, sums it and publishes that sum alone. They meet at the scan squad, which "
               "waits for both, scans the tile, adds the carry and bulk-stores it, and the stage is empty again. No "
               "tile publishes a prefix, so a carry waits only for tile sums, each of which needs only its own tile "
               "to have landed: there is no chain of carries, and the loader keeps the ring full meanwhile.", 0,
               "the scan's default: 6 stages of one 8064-int tile each; 320 threads per block")
    y = 70
    # The roles.
    x0, w, gap = 20, 182, 10
    for i, (name, warps, what) in enumerate(LOOKAHEAD_ROLES):
        x = x0 + i * (w + gap)
        f.cell(x, y, w, 74, "", SCAN_TINT if i else PAPER, SCAN, rx=6, width=1.5)
        f.text(x + w / 2, y + 19, name, anchor="middle", weight="bold")
        f.text(x + w / 2, y + 35, warps, size=12, anchor="middle", fill=MUTED)
        f.lines(x + w / 2, y + 53, what, size=12, step=15, anchor="middle")
    y += 112
    # One use of a stage: two paths of barriers that meet at the scan squad.
    f.text(20, y, "One tile in stage s: five barriers on two paths, which meet at the scan squad", size=14,
           weight="bold", fill=SCAN)
    y += 40
    bw, xs = 150, (20, 250)
    for row, path in enumerate(LOOKAHEAD_PATHS):
        yy = y + row * 74
        for i, (name, arrives) in enumerate(path):
            x = xs[i]
            f.text(x + bw / 2, yy - 8, arrives, size=12, anchor="middle", fill=MUTED)
            f.cell(x, yy, bw, 30, f"{name}[s]", SCAN, SCAN, PAPER, weight="bold", mono=True)
        f.arrow(xs[0] + bw + 2, yy + 15, xs[1] - 3, yy + 15, "scan", 1.3)
        f.arrow(xs[1] + bw + 2, yy + 15, 478, y + 52, "scan", 1.3)
    f.cell(480, y + 30, 130, 44, "", SCAN_TINT, SCAN, rx=6, width=1.5)
    f.text(545, y + 49, "scan squad", anchor="middle", weight="bold")
    f.text(545, y + 65, "waits for both", size=12, anchor="middle", fill=MUTED)
    f.arrow(612, y + 52, 640, y + 52, "scan", 1.3)
    f.cell(642, y + 37, 138, 30, "empty[s]", PAPER, SCAN, INK, weight="bold", mono=True)
    f.text(711, y + 88, "then: the loader refills", size=12, anchor="middle", fill=MUTED)
    f.text(20, y + 122, "The look-ahead's path needs only the tile's number: carried[s] may complete before full[s].",
           size=12, fill=INK)
    y += 162
    # The look-ahead over the published sums.
    f.text(20, y, "The carry of this block's tile 9, while tile 9 is still landing", size=14, weight="bold",
           fill=SCAN)
    y += 36
    tx0, tpitch, tw = 130, 64, 58
    row_label(f, y + 19, "tiles", "statuses")
    for t in range(10):
        x = tx0 + t * tpitch
        owner, out = LOOKAHEAD_TILES.get(t, ("done", True))
        if owner == "done":
            f.cell(x, y, tw, 30, f"sum {t}", SHADE, FAINT, MUTED, size=12)
        elif owner == "mine" and out is None:
            f.cell(x, y, tw, 30, "landing", PAPER, SCAN, SCAN, size=12, dash="5 3", weight="bold")
        elif not out:
            f.cell(x, y, tw, 30, "not yet", PAPER, ALERT, ALERT, size=12, dash="4 3")
        else:
            f.cell(x, y, tw, 30, f"sum {t}", SCAN if owner == "mine" else SCAN_TINT, SCAN,
                   PAPER if owner == "mine" else INK, size=12, weight="bold")
    # Brackets: carry(3) kept in a register; the sums 3..8 it adds.
    left, right = tx0 - 4, tx0 + 3 * tpitch - 6
    f.rect(left, y - 6, right - left, 42, "none", MUTED, width=1.5, rx=6, dash="4 3")
    f.text(left, y - 12, "carry of tile 3: kept from the last tile", size=12, fill=MUTED)
    l2, r2 = tx0 + 3 * tpitch - 4, tx0 + 8 * tpitch + tw + 4
    f.line(l2, y + 42, l2, y + 50, SCAN, 2)
    f.line(l2, y + 50, r2, y + 50, SCAN, 2)
    f.line(r2, y + 42, r2, y + 50, SCAN, 2)
    f.text((l2 + r2) / 2, y + 68, "+ the sums of tiles 3 to 8, published alone: waits only for tile 6 to land",
           size=12, anchor="middle", fill=SCAN, weight="bold")
    f.text(tx0 + 3 * tpitch + tw / 2, y + 84, "this block", size=12, anchor="middle", fill=SCAN)
    f.text(tx0 + 9 * tpitch + tw / 2, y + 84, "this block", size=12, anchor="middle", fill=SCAN)
    y = f.lines(20, y + 116, [
        "carry(9) = carry(3) + sum(3) + sum(4) + ... + sum(8). Tiles 4 to 8 went to other blocks' loaders, which took",
        "their numbers from the same counter before tile 9's. Chapter 17's tiles publish a prefix, and a tile whose",
        "neighbours have only sums out waits for one that has a prefix: a chain through every tile. Here no tile",
        "publishes a prefix, so tile 6's sum is the last thing tile 9 can wait for, and the ring keeps loading."],
        size=12)
    f.grow_to(y)
    return f


# ---- chapter 24: a histogram with private counters --------------------------------------------

HIST_BINS = 4  # B drawn; the program's default is 256
# One round of a warp: lane l's sample (drawn in hex), its bin the top bits: x B / 2^32.
HIST_SAMPLES = [0x2C41A97E, 0x5E0913B2, 0x9A3F6C05, 0x8D17E2A4, 0xB2C8054F, 0xE7716A3D, 0xA40B9D18, 0x93E52C71]
# The block's private counters after that round, one copy per warp (made up); warp 1 ran it.
HIST_COPIES = [[3, 1, 4, 2], [3, 5, 12, 2], [5, 2, 6, 3]]
HIST_WARP = 1
# One fill per bin (fill, ink): a shade of THREAD_FILLS, the darkest for the bin that is summed below.
BIN_FILLS = [THREAD_FILLS[3], THREAD_FILLS[2], THREAD_FILLS[0], THREAD_FILLS[1]]


def chapter24():
    bins = [(x * HIST_BINS) >> 32 for x in HIST_SAMPLES]
    lanes = len(bins)
    groups = {b: [l for l in range(lanes) if bins[l] == b] for b in sorted(set(bins))}
    adder = {g[0]: b for b, g in groups.items()}  # the lowest lane of each bin adds for all of them
    summed = 2  # the bin whose merge is drawn
    f = Figure("chapter24-histogram.svg", "Chapter 24: a histogram with private counters",
               "Each lane of a warp loads one sample and computes its bin. Lanes whose samples fall in the same "
               "bin find each other with a warp-wide match, and only the lowest of them adds their number, with "
               "one shared-memory atomicAdd into its warp's copy of the bin counters. At the block's end the "
               "copies of each bin are summed, and each sum goes into the bin's 64-bit global counter with one "
               "atomicAdd per bin per block.", 0,
               "drawn: 8 lanes of a warp, 4 bins and 3 warps; the program has 32 lanes, 256 bins by default and "
               "up to 32 copies per block")
    x0, pitch, w = 130, 80, 72

    def lx(l):  # centre of lane l
        return x0 + l * pitch + w / 2

    y = 84
    f.text(20, y, f"One round of warp {HIST_WARP}: a sample per lane, and the lanes of one bin add once",
           size=14, weight="bold")
    code = "__match_any_sync(bins):"
    f.text(20, y + 18, code, size=12, mono=True, fill=REDUCE)
    f.text(20 + 0.6 * 12 * len(code) + 6, y + 18, f"lanes of one bin find each other; the lowest adds their "
           f"number: {len(groups)} atomics instead of {lanes}", size=12)
    y += 46
    for l in range(lanes):
        f.text(lx(l), y, f"lane {l}", size=12, anchor="middle", fill=MUTED)
    y += 8
    for l, x in enumerate(HIST_SAMPLES):
        f.cell(x0 + l * pitch, y, w, 26, "%08X" % x, PAPER, REDUCE, size=12, mono=True)
    row_label(f, y + 18, "samples", "32-bit, in hex")
    y += 40
    for l, b in enumerate(bins):
        fill, ink = BIN_FILLS[b]
        f.cell(x0 + l * pitch, y, w, 26, str(b), fill, REDUCE, ink, weight="bold")
    row_label(f, y + 18, "bins", f"x B / 2^32, B = {HIST_BINS}")
    # A bin of several lanes: a bus under them, into the lowest one's add.
    bus = y + 40
    for b, group in groups.items():
        if len(group) > 1:
            for l in group:
                f.line(lx(l), y + 27, lx(l), bus, REDUCE, 1.5)
            f.line(lx(group[0]), bus, lx(group[-1]), bus, REDUCE, 1.5)
            f.arrow(lx(group[0]), bus, lx(group[0]), bus + 16, "reduce", 1.5)
    y = bus + 18
    for l in range(lanes):
        if l in adder:
            b = adder[l]
            fill, ink = BIN_FILLS[b]
            f.cell(x0 + l * pitch, y, w, 26, f"+{len(groups[b])} to bin {b}", fill, REDUCE, ink, size=12,
                   weight="bold")
        else:
            f.cell(x0 + l * pitch, y, w, 26, "", PAPER, FAINT, dash="3 3")
    row_label(f, y + 18, "adds", "the lowest lane")
    adds_bottom = y + 26

    # One block's private counters: copy c at words [c B, (c + 1) B) of shared memory.
    band = adds_bottom + 54
    cells = band + 30
    cw, cpitch, gap, s0 = 40, 44, 20, 200

    def cx(c, b):  # left edge of copy c's counter of bin b
        return s0 + c * (HIST_BINS * cpitch + gap) + b * cpitch

    f.rect(20, band, 760, 82, SHADE, FAINT, rx=6)
    f.text(32, band + 18, "private counters (shared memory, 32-bit)", weight="bold")
    f.lines(32, cells + 11, ["one block:", "a copy per warp"], size=12, step=15, fill=MUTED)
    for c, copy in enumerate(HIST_COPIES):
        for b, v in enumerate(copy):
            mine = c == HIST_WARP
            f.cell(cx(c, b), cells, cw, 26, str(v), REDUCE_TINT if mine else PAPER, REDUCE,
                   weight="bold" if mine else None)
        f.text(cx(c, 0), cells + 42, f"warp {c}", size=12, fill=INK if c == HIST_WARP else MUTED,
               weight="bold" if c == HIST_WARP else None)
    for l, b in adder.items():
        f.arrow(lx(l), adds_bottom + 2, cx(HIST_WARP, b) + cw / 2, cells - 2, "reduce", 1.3)
    f.lines(618, adds_bottom + 22, [f"{len(adder)} shared atomicAdds", f"into warp {HIST_WARP}'s copy"], size=12,
            step=15, fill=REDUCE)

    # The merge: each bin's copies summed, one 64-bit atomicAdd per bin into the global counters.
    bar = band + 94
    column = [copy[summed] for copy in HIST_COPIES]
    ticks = [cx(c, summed) + cw / 2 for c in range(len(HIST_COPIES))]
    for x in ticks:
        f.line(x, cells + 27, x, bar, REDUCE, 1.5)
    f.line(ticks[0], bar, ticks[-1], bar, REDUCE, 1.5)
    y = bar + 34
    gw, gpitch = 80, 88
    gx0 = ticks[HIST_WARP] - summed * gpitch - gw / 2  # bin 2's sum right under warp 1's counter of bin 2

    def gx(b):  # left edge of bin b's sum and of its global counter
        return gx0 + b * gpitch

    f.arrow(ticks[HIST_WARP], bar, ticks[HIST_WARP], y - 2, "reduce", 1.5)
    f.text(ticks[HIST_WARP] + 8, bar + 18, f"bin {summed}: {' + '.join(str(v) for v in column)} = {sum(column)}",
           size=12, fill=REDUCE, weight="bold")
    for b in range(HIST_BINS):
        total = sum(copy[b] for copy in HIST_COPIES)
        f.cell(gx(b), y, gw, 26, str(total), REDUCE_TINT if b == summed else PAPER, REDUCE,
               weight="bold" if b == summed else None)
    row_label(f, y + 18, "the block's sums", "at its end, per bin")
    top = y + 26
    y = top + 40
    for b in range(HIST_BINS):
        f.arrow(gx(b) + gw / 2, top + 2, gx(b) + gw / 2, y - 2, "reduce", 1.3)
        f.cell(gx(b), y, gw, 26, f"counts[{b}]", PAPER, REDUCE, size=12, mono=True, width=2)
    f.lines(gx(HIST_BINS - 1) + gw + 16, top + 16, ["one 64-bit atomicAdd", "per bin per block"], size=12, step=15,
            fill=REDUCE)
    row_label(f, y + 18, "global counters", "64-bit")
    y = f.lines(20, y + 66, [
        "Step 1 adds every sample into the global counters: contention on B addresses in L2. Steps 2 and 3 count",
        "in shared memory, one copy per block, then one per warp, and add each bin once per block. Step 4 adds the",
        "lanes of one bin once. Past what shared memory holds (about 56,000 32-bit counters per block), the first",
        "bins are counted in shared memory and the rest straight in global memory."])
    f.grow_to(y)
    return f


# ---- chapter 25: one pass of a one-sweep radix sort -------------------------------------------

RADIX_BITS = 2  # a digit drawn; the program's are 8-bit (256 values)
RADIX_TILE = 8  # keys per tile drawn; the program's tile is 512 threads x 16 keys = 8,192
# The input, three tiles of 8 keys; the pass drawn sorts by the lowest digit, key & 3.
RADIX_KEYS = [13, 47, 20, 6, 29, 53, 35, 61,
              42, 8, 27, 59, 17, 34, 52, 10,
              39, 25, 44, 18, 7, 57, 12, 63]
# One fill per digit value (fill, ink): shades of the scan's orange, the lightest for digit 0.
DIGIT_FILLS = [("#fdf0e2", INK), ("#f9cf9f", INK), ("#f4a85c", INK), ("#b8641c", PAPER)]


def chapter25():
    radix = 1 << RADIX_BITS
    keys, per = RADIX_KEYS, RADIX_TILE
    tiles = len(keys) // per
    me = tiles - 1  # the tile whose pass is drawn: the last one
    digit = [k & (radix - 1) for k in keys]
    hist = [digit.count(d) for d in range(radix)]
    bucket = [sum(hist[:d]) for d in range(radix)]  # the histogram's exclusive scan
    counts = [[digit[t * per:(t + 1) * per].count(d) for d in range(radix)] for t in range(tiles)]
    before = [sum(counts[t][d] for t in range(me)) for d in range(radix)]  # the look-back's sums
    start = [bucket[d] + before[d] for d in range(radix)]
    mine = keys[me * per:]
    gathered = sorted(mine, key=lambda k: k & (radix - 1))  # Python's sort is stable, as the tile's
    first = [sum(counts[me][:d]) for d in range(radix)]  # each digit's first place in shared memory
    place = [start[k & (radix - 1)] + j - first[k & (radix - 1)] for j, k in enumerate(gathered)]
    out = sorted(keys, key=lambda k: k & (radix - 1))  # the whole pass: a stable sort by the digit
    # Every tile's keys, placed by bucket start + earlier tiles' count + rank, must land where the
    # stable sort puts them.
    placed = [None] * len(keys)
    for t in range(tiles):
        seen = [sum(counts[u][d] for u in range(t)) for d in range(radix)]
        for k in keys[t * per:(t + 1) * per]:
            placed[bucket[k & (radix - 1)] + seen[k & (radix - 1)]] = k
            seen[k & (radix - 1)] += 1
    if placed != out or [out[p] for p in place] != gathered:
        raise ValueError("chapter 25's numbers do not add up")
    f = Figure("chapter25-radix-sort.svg", "Chapter 25: one pass of a one-sweep radix sort",
               "A histogram of the digits of all 24 keys, scanned, gives where each digit's bucket starts in "
               "the output. Tile 2 of three tiles of 8 keys publishes its digit counts as aggregates, looks "
               "back over tile 1's aggregates and tile 0's inclusive prefixes to learn how many keys of each "
               "digit come before it, gathers its keys in shared memory in stable digit order, and writes each "
               "digit's keys as one run at bucket start plus earlier tiles' count plus rank in the tile.", 0,
               "drawn: 2-bit digits (4 values) and tiles of 8 keys; the program's digits are 8-bit (256 values) "
               "and its tiles 8,192 keys")
    x0, pitch, w, gap = 130, 26, 24, 14
    tw = (per - 1) * pitch + w  # a tile's width
    sw, spitch = 48, 52.7  # a status word's box: four per tile

    def kx(t, i=0):  # left edge of key i of tile t
        return x0 + t * (per * pitch + gap) + i * pitch

    def sx(t, d):  # left edge of tile t's status word for digit d
        return kx(t) + d * spitch

    # The input, tile by tile, each key with its digit.
    y = 84
    f.text(20, y, f"The input, {tiles} tiles of {per} keys; this pass sorts by the digit key & {radix - 1}, the "
           f"lowest {RADIX_BITS} bits", size=14, weight="bold")
    y += 28
    for t in range(tiles):
        f.text(kx(t) + tw / 2, y, f"tile {t}", size=12, anchor="middle", fill=INK if t == me else MUTED,
               weight="bold" if t == me else None)
    y += 8
    for i, k in enumerate(keys):
        f.cell(kx(i // per, i % per), y, w, 24, str(k), PAPER, SCAN, INK, size=12,
               weight="bold" if i // per == me else None)
    row_label(f, y + 17, "keys")
    y += 28
    for i, d in enumerate(digit):
        fill, ink = DIGIT_FILLS[d]
        f.cell(kx(i // per, i % per), y, w, 24, str(d), fill, SCAN, ink, size=12)
    row_label(f, y + 17, "digits", f"key & {radix - 1}")

    # 1. The histogram of the whole input and its exclusive scan.
    y += 58
    f.text(20, y, "1. Up front, in one pass over all the keys: the digit histogram, and its exclusive scan",
           size=14, weight="bold")
    y += 26
    hw, hpitch = 56, 64
    for d in range(radix):
        f.text(x0 + d * hpitch + hw / 2, y, f"digit {d}", size=12, anchor="middle", fill=MUTED)
    y += 8
    for d in range(radix):
        fill, ink = DIGIT_FILLS[d]
        f.cell(x0 + d * hpitch, y, hw, 26, str(hist[d]), fill, SCAN, ink, weight="bold")
    row_label(f, y + 18, "histogram", f"all {len(keys)} keys")
    note_x = x0 + radix * hpitch + 20
    f.text(note_x, y + 17, f"counted with chapter 24's kernel: {' + '.join(str(h) for h in hist)} = {len(keys)} keys", size=12)
    y += 40
    for d in range(radix):
        f.cell(x0 + d * hpitch, y, hw, 26, str(bucket[d]), PAPER, SCAN, INK, weight="bold", width=2)
    row_label(f, y + 18, "bucket starts", "exclusive scan")
    f.text(note_x, y + 17, "where each digit's keys start in the output: "
           + ", ".join(f"{bucket[d - 1]} + {hist[d - 1]}" if d else "0" for d in range(radix)), size=12)

    # 2. Tile 2's counts, published, and its look-back, one digit at a time.
    y += 64
    f.text(20, y, f"2. Tile {me} publishes its count of each digit, then looks back over the tiles before it",
           size=14, weight="bold")
    legend(f, 20, y + 24, [(SCAN_TINT, SCAN, "A: the tile's own count (aggregate)"),
                           (SCAN, SCAN, "P: it and all tiles before (inclusive prefix)")])
    y += 56
    for t in range(tiles):
        for d in range(radix):
            f.text(sx(t, d) + sw / 2, y, f"digit {d}", size=12, anchor="middle", fill=MUTED)
    y += 13
    for t in range(tiles):
        for d in range(radix):
            if t == 0:
                f.cell(sx(t, d), y, sw, 28, f"P {counts[t][d]}", SCAN, SCAN, PAPER, weight="bold")
            else:
                f.cell(sx(t, d), y, sw, 28, f"A {counts[t][d]}", SCAN_TINT, SCAN, INK, weight="bold")
    f.rect(kx(me) - 3, y - 3, tw + 6, 34, "none", INK, width=2, rx=3)
    f.rect(kx(0) - 6, y - 6, kx(me - 1) + tw - kx(0) + 12, 40, "none", SCAN, width=2, rx=6)
    row_label(f, y + 19, "statuses", "a word per digit")
    f.text(kx(0) - 6, y + 50, f"tile {me}'s look-back, one thread per digit", size=12, fill=SCAN, weight="bold")
    y += 62
    lookback = ", ".join(f"{counts[1][d]} + {counts[0][d]}" for d in range(radix))
    f.text(kx(me) - 12, y + 17, f"per digit, A of tile 1 + P of tile 0 (a P: stop): {lookback} =", size=12,
           anchor="end", fill=SCAN, weight="bold")
    for d in range(radix):
        f.cell(sx(me, d), y, sw, 26, str(before[d]), SCAN_TINT, SCAN, INK, weight="bold")
    row_label(f, y + 18, "keys before", "in tiles 0 and 1")
    y += 40
    starts = ", ".join(f"{bucket[d]} + {before[d]}" for d in range(radix))
    f.text(kx(me) - 12, y + 17, f"bucket start + keys before: {starts} =", size=12, anchor="end")
    for d in range(radix):
        f.cell(sx(me, d), y, sw, 26, str(start[d]), PAPER, SCAN, INK, weight="bold", width=2)
    row_label(f, y + 18, "first place", "of each digit")
    y += 44
    f.text(kx(me) + tw, y, f"tile {me} then publishes P {', '.join(str(b + c) for b, c in zip(before, counts[me]))}: "
           f"keys before + its own counts, the histogram: it is the last tile", size=12, anchor="end", fill=MUTED)

    # 3. The tile gathered in digit order, written as one run per digit.
    y += 40
    f.text(20, y, f"3. Tile {me} gathers its keys in digit order in shared memory, and writes each digit's keys "
           f"as one run", size=14, weight="bold")
    y += 26
    for j, k in enumerate(gathered):
        f.text(kx(me, j) + w / 2, y, str(j - first[k & (radix - 1)]), size=12, anchor="middle", fill=MUTED)
    f.text(kx(me) - 12, y, "rank among the tile's keys of its digit", size=12, anchor="end", fill=MUTED)
    y += 8
    for j, k in enumerate(gathered):
        fill, ink = DIGIT_FILLS[k & (radix - 1)]
        f.cell(kx(me, j), y, w, 24, str(k), fill, SCAN, ink, size=12, weight="bold")
    f.text(kx(me) - 12, y + 17, f"stable: equal digits keep their input order ({gathered[0]} before "
           f"{gathered[1]})", size=12, anchor="end")
    row_label(f, y + 17, "shared memory")
    sm_bottom = y + 24
    y += 28
    for j in range(per):
        f.text(kx(me, j) + w / 2, y + 13, str(place[j]), size=12, anchor="middle", fill=SCAN, weight="bold")
    f.text(kx(me) - 12, y + 13, "place: first place of the digit + rank", size=12, anchor="end", fill=SCAN)
    pos_bottom = y + 18
    # The output: every key of the pass, tile 2's in its digit's colour.
    y += 86
    ox, opitch = x0, 27
    owner = {}
    for i, k in enumerate(keys):
        owner[k] = i // per
    for p, k in enumerate(out):
        if owner[k] == me:
            fill, ink = DIGIT_FILLS[k & (radix - 1)]
            f.cell(ox + p * opitch, y, w, 26, str(k), fill, SCAN, ink, size=12, weight="bold", width=2)
        else:
            f.cell(ox + p * opitch, y, w, 26, str(k), PAPER, FAINT, MUTED, size=12)
        f.text(ox + p * opitch + w / 2, y + 42, str(p), size=12, anchor="middle", fill=MUTED)
    for d in range(radix):
        j0, j1 = first[d], first[d] + counts[me][d] - 1
        if counts[me][d]:
            x1 = (kx(me, j0) + kx(me, j1) + w) / 2
            x2 = ox + (start[d] + (counts[me][d] - 1) / 2) * opitch + w / 2
            f.arrow(x1, pos_bottom + 2, x2, y - 3, "scan", 1.4)
    for d in range(radix):
        bracket_under(f, ox + bucket[d] * opitch, ox + (bucket[d] + hist[d] - 1) * opitch + w, y + 50,
                      f"bucket of digit {d}")
    row_label(f, y + 18, "output", "after the pass")
    y = f.lines(20, y + 96, [
        f"The faint keys come from tiles 0 and 1, written by their own blocks. Each digit's keys of a tile go out as",
        "one run, so the writes stay coalesced. In the program each of 256 threads looks back for one digit, eight",
        "tiles per look; tile 0 publishes P at once. Four such passes sort 32-bit keys, lowest digit first: each",
        "pass is stable, so the order of the lower digits survives."])
    f.grow_to(y)
    return f


# Every figure, in chapter order: each function draws one SVG.
FIGURES = [chapter00, chapter01, chapter02, chapter03, chapter04, chapter05, chapter06, chapter07, chapter08,
           chapter09, chapter10, chapter11, chapter12, chapter13_kogge_stone, chapter13_brent_kung,
           chapter14, chapter15, chapter16, chapter17, chapter18, chapter19, chapter20, chapter21, chapter22,
           chapter23, chapter24, chapter25]


# ---- writing and checking ------------------------------------------------------------------

FIGURES_DIR = os.path.join(ROOT, "docs", "figures")


def readme(figures):
    """docs/figures/README.md: for each figure, the Markdown that embeds it in a chapter page
    and its alt text (the SVG's desc)."""
    out = ["# Figures", "",
           "One figure per kernel pattern, drawn by `python3 scripts/wb.py figures` (scripts/wblib/figures.py);",
           "`python3 scripts/wb.py figures --check` says whether these files are what the code draws.",
           "Change the code, not the SVGs. To embed a figure in a chapter page, paste the Markdown at the",
           "end of its line (the path is relative to chapters/NN-slug/); the alt text is the SVG's `<desc>`.", ""]
    for fig in figures:
        out.append(f"- {fig.title} (`{fig.name}`): `![{fig.desc}](../../docs/figures/{fig.name})`")
    return "\n".join(out) + "\n"


def draw_all():
    """{file name: text} of every figure and of the README."""
    figures = [make() for make in FIGURES]
    files = {fig.name: fig.svg() for fig in figures}
    files["README.md"] = readme(figures)
    return files


def problems(name, text):
    """What is wrong with one generated SVG, as sentences ([] when nothing): it must parse as
    XML, be 800 pixels wide, carry a title and a desc, and use no font smaller than 12 px."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return [f"{name}: not well-formed XML ({e})"]
    found = []
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        found.append(f"{name}: the root element is not <svg>")
    if root.get("width") != str(WIDTH):
        found.append(f"{name}: width is {root.get('width')}, not {WIDTH}")
    for tag in ("title", "desc"):
        child = root.find(ns + tag)
        if child is None or not (child.text or "").strip():
            found.append(f"{name}: no <{tag}>")
    desc = root.find(ns + "desc")
    if desc is not None and any(c in (desc.text or "") for c in MARKDOWN_UNSAFE):
        found.append(f"{name}: the desc, used as Markdown alt text, holds one of {' '.join(MARKDOWN_UNSAFE)}")
    for node in root.iter():
        size = node.get("font-size")
        if size is not None and float(size) < SMALLEST_FONT:
            found.append(f"{name}: font-size {size} is below {SMALLEST_FONT} px")
            break
    return found


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(directory, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def check(directory, files):
    """The names of the files of `files` that are missing in `directory` or differ from it,
    and of SVGs in it that no figure draws any more."""
    bad = []
    for name, text in files.items():
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            bad.append(f"{name}: missing")
            continue
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() != text:
                bad.append(f"{name}: differs from what the code draws")
    if os.path.isdir(directory):
        for name in sorted(os.listdir(directory)):
            if name.endswith(".svg") and name not in files:
                bad.append(f"{name}: no figure draws it")
    return bad


def main(argv):
    parser = argparse.ArgumentParser(prog="wb.py figures", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the committed figures with what the code draws; exit 1 if any differ")
    parser.add_argument("--dir", default=FIGURES_DIR, help="the figures folder (default docs/figures)")
    args = parser.parse_args(argv)
    files = draw_all()
    found = [p for name, text in files.items() if name.endswith(".svg") for p in problems(name, text)]
    if found:
        for p in found:
            print(f"figures: {p}", file=sys.stderr)
        return 1
    if args.check:
        # Drawn into a temporary folder first, so that what is compared is what a write would leave.
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, files)
            drawn = {}
            for name in files:
                with open(os.path.join(tmp, name), encoding="utf-8", newline="") as f:
                    drawn[name] = f.read()
        bad = check(args.dir, drawn)
        for b in bad:
            print(f"figures: {os.path.relpath(os.path.join(args.dir, b))}", file=sys.stderr)
        if bad:
            print("figures: run 'python3 scripts/wb.py figures' and commit docs/figures", file=sys.stderr)
            return 1
        print(f"figures: {len(files)} files up to date in {os.path.relpath(args.dir)}")
        return 0
    write(args.dir, files)
    print(f"figures: wrote {len(files)} files to {os.path.relpath(args.dir)}")
    return 0
