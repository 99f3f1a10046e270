"""SVG written as text, so that a chart is the same bytes every time it is rendered from the same
CSV: attributes in the order given, numbers in fixed formats (f1, whole), no ids or timestamps.

A chart is an Svg: its lines, each one or more elements (el), then text() or write(path).
Also here: the arithmetic of axes (nice_step, floor_to, ceil_to) and labels of horizontal
reference lines that never overlap (RefLabels)."""


def f1(x):
    """A coordinate with one decimal ("%.1f")."""
    return "%.1f" % x


def whole(x):
    """A whole number, truncated toward zero as C's (int) cast does ("%d")."""
    return "%d" % x


def el(tag, attrs=(), body=None):
    """One element: <tag a="v" .../> or, with a body (already escaped), <tag ...>body</tag>.
    attrs: (name, value) pairs in the order written; a value of None leaves the attribute out.
    Values and bodies are written as given: escape text with common.xml first."""
    a = "".join(f' {k}="{v}"' for k, v in attrs if v is not None)
    return f"<{tag}{a}/>" if body is None else f"<{tag}{a}>{body}</{tag}>"


class Svg:
    """An SVG document built line by line; every line after the opening tag is indented."""

    def __init__(self, width, height, attrs=(), indent="  "):
        self.indent = indent
        size = (("xmlns", "http://www.w3.org/2000/svg"), ("width", whole(width)), ("height", whole(height)))
        self.lines = [el("svg", size + tuple(attrs))[:-2] + ">"]

    def add(self, *elements):
        """A line holding the elements, side by side."""
        self.lines.append(self.indent + "".join(elements))

    def text(self):
        """The document, closed, ending in a newline."""
        return "\n".join(self.lines + ["</svg>"]) + "\n"

    def write(self, path):
        """Write the document to path (always "\\n" line ends)."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.text())


def text_width(text, size=12):
    """About how wide a line of text is in Helvetica at `size` pixels: 0.46 em a character,
    a little more than the workbook's lowercase prose takes (0.41 em), so that a chart sized
    by it does not cut the line off. Whole pixels."""
    return int(len(text) * size * 0.46 + 0.999)


# Attributes of a label that a line may cross (a bar's value under a reference line): a white
# outline painted under the glyphs hides the line where it passes them. Draw such labels after
# the lines they may meet.
HALO = (("stroke", "#ffffff"), ("stroke-width", "3"), ("paint-order", "stroke"))


def titled(width, height, title, subtitle):
    """A white chart of the workbook's look: Helvetica 12, a bold title and a grey subtitle
    (title and subtitle already escaped)."""
    s = Svg(width, height, (("viewBox", f"0 0 {whole(width)} {whole(height)}"),
                            ("font-family", "Helvetica, Arial, sans-serif"), ("font-size", "12")))
    s.add(el("title", (), title))
    s.add(el("rect", (("width", whole(width)), ("height", whole(height)), ("fill", "#ffffff"))))
    s.add(el("text", (("x", "20"), ("y", "26"), ("font-size", "16"), ("font-weight", "bold"), ("fill", "#222222")), title))
    s.add(el("text", (("x", "20"), ("y", "46"), ("fill", "#555555")), subtitle))
    return s


# ---- axes --------------------------------------------------------------------------------

def nice_step(v):
    """A round axis step for values up to v: 1, 2, 2.5 or 5 times a power of ten, about five
    steps (1 for v <= 0)."""
    if v <= 0:
        return 1
    p = 1
    while p * 10 <= v / 5:
        p *= 10
    while p > v / 5:
        p /= 10
    s = p
    # Each candidate in turn while the axis would still need more than six steps.
    for k in (2, 2.5, 5, 10):
        if v / s > 6:
            s = k * p
    return s


def floor_to(v, step):
    """The largest whole multiple of step at or below v (slack for rounding)."""
    return step * int(v / step + 1e-9)


def ceil_to(v, step):
    """The smallest whole multiple of step at or above v (slack for rounding)."""
    q = int(v / step - 1e-9)
    if q * step < v - step * 1e-9:
        q += 1
    return step * q


def ticks(lo, hi, step):
    """lo, lo + step, ... up to hi (a thousandth of a step of slack), added up as a chart's
    gridlines are: each from the one before."""
    v = lo
    while v <= hi + step / 1000:
        yield v
        v += step


class RefLabels:
    """Labels of horizontal reference lines, set at the right of a plot once every line is
    drawn, moved down where they would overlap (14 pixels apart at least)."""

    def __init__(self):
        self.labels = []

    def add(self, y, text, color, bold):
        """A label whose baseline would be y."""
        self.labels.append([y, text, color, bold])

    def place(self, svg, x):
        """Write the labels at x, top to bottom, pushed apart."""
        placed = sorted(self.labels, key=lambda l: l[0])
        for prev, cur in zip(placed, placed[1:]):
            if cur[0] < prev[0] + 14:
                cur[0] = prev[0] + 14
        for y, text, color, bold in placed:
            svg.add(el("text", (("x", whole(x)), ("y", f1(y)), ("fill", color),
                                ("font-weight", "bold" if bold else None)), text))
        self.labels = []
