#!/usr/bin/env python3
"""tests/copies_check.py: code copied from one chapter to another on purpose stays equal.

Each chapter is one self-contained .cu file (with, for chapters 11 and 17, a header beside it that a
later chapter includes instead of copying), so helpers (warp and block sums, tile loads and
stores, launchers, the look-back) are copied from chapter to chapter on purpose: the diff between
neighbours is the lesson. A copy that drifts by accident is a bug nobody sees. COPIES below lists
every such copy: the copy's file and region, the file and region it was copied from, and, where a
chapter changes its copy on purpose, the exact lines that may differ with the reason, which the
chapter's page or a comment of its program also gives (`said_in`: a file and a phrase it contains,
checked too). EXPECTED_DRIFT lists differences that are known and not intended: each is printed as
a warning, and the check fails if it disappears or changes, so that fixing it updates this table.

A region is a function (by name; `template`, `__device__`, `__global__` and `__launch_bounds__`
included), `struct NAME` or `class NAME`, `decl NAME` (a file-level `constexpr` or `using`), or
`[NAME]`, the lines between two `// [NAME]` markers as the pages quote them (scripts/wblib/pages.py).
Both sides are compared as statements: comments dropped, whitespace collapsed, one statement per
line wherever the source breaks its lines. A drifted pair is shown as a unified diff.

Usage: python3 tests/copies_check.py [ROOT]      exit 0: every copy as the table says; 1 otherwise
       python3 tests/copies_check.py --self-test  a copy altered, an allowed difference, a drift
                                                  fixed and a region missing, each on a temporary tree
"""
import collections
import difflib
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
from wblib import pages  # noqa: E402  (the `// [NAME]` reader the pages use)


class Copy:
    """One copy on purpose: `region` of `copy` was taken from `source_region` (default: the same
    name) of `source`. A file is a chapter number ("17": that chapter's program) or a path from
    the root. `allowed` holds the exact statements that may differ, "- old" or "+ new"; `reason`
    says why in one sentence and `said_in` is (file, phrase) where the chapter says so."""

    def __init__(self, copy, region, source, source_region=None, allowed=(), reason="", said_in=None):
        self.copy, self.region = copy, region
        self.source, self.source_region = source, source_region or region
        self.allowed, self.reason, self.said_in = list(allowed), reason, said_in

    def name(self):
        src = self.source if self.source_region == self.region else f"{self.source} {self.source_region}"
        return f"{self.copy} {self.region} <- {src}"


class Drift:
    """A known difference that nobody meant: `lines` ("- old" / "+ new") of the copy named by
    (copy, region), and what it is."""

    def __init__(self, copy, region, lines, note):
        self.copy, self.region, self.lines, self.note = copy, region, list(lines), note


# ---- reading C++ ---------------------------------------------------------------------------

def blank_comments(text, strings_too=False):
    """The text with every comment (and, with strings_too, the inside of every string and
    character literal) replaced by spaces; newlines and offsets are kept."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i) or text.startswith("/*", i):
            close = "\n" if text[i + 1] == "/" else "*/"
            end = text.find(close, i + 2)
            end = n if end < 0 else end + (2 if close == "*/" else 0)
            for k in range(i, end):
                if out[k] != "\n":
                    out[k] = " "
            i = end
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i] and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if strings_too:
                for k in range(i + 1, min(j, n)):
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def matching(code, at):
    """The offset of the bracket that closes the one at `at` (-1 if none)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    opening, closing, depth = code[at], pairs[code[at]], 0
    for i in range(at, len(code)):
        if code[i] == opening:
            depth += 1
        elif code[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def declaration_start(code, at):
    """Where the declaration holding offset `at` begins: after the last `;`, `{` or `}` before it,
    and after any preprocessor line or access label (`public:`) between."""
    i = at - 1
    while i >= 0 and code[i] not in ";{}":
        i -= 1
    start = i + 1
    while True:
        rest = code[start:at]
        m = re.match(r"\s*(#[^\n]*\n|(public|private|protected)\s*:(?!:))", rest)
        if not m:
            break
        start += m.end()
    while start < at and code[start].isspace():
        start += 1
    return start


def find_functions(code, name):
    """(start, end) of every definition of the function `name` in `code` (comments and strings
    already blanked): the name, its parameters, then qualifiers and a body in braces."""
    plain = re.sub(r"__launch_bounds__\s*\([^)]*\)", lambda m: " " * len(m.group(0)), code)
    found = []
    for m in re.finditer(r"(?<![\w:.>])" + re.escape(name) + r"\s*\(", plain):
        close = matching(plain, m.end() - 1)
        if close < 0:
            continue
        tail = re.match(r"(\s|\bconst\b|\bnoexcept\b|\boverride\b|\bfinal\b|->[^{;]*)*", plain[close + 1:])
        body = close + 1 + tail.end()
        if body >= len(plain) or plain[body] != "{":
            continue
        start = declaration_start(plain, m.start())
        before = plain[start:m.start()].strip()
        # A definition has a return type (or is a constructor named alone); a call inside an
        # expression or a member initialiser list does not qualify.
        if before and not re.search(r"[\w>*&]\Z", before):
            continue
        if re.search(r"(\breturn|\bnew|\belse|\bdo|=)\Z", before):
            continue
        end = matching(plain, body)
        if end > 0:
            found.append((start, end + 1))
    return outermost(found)


def find_aggregates(code, kind, name):
    """(start, end) of every `struct NAME { ... };` or `class NAME ... { ... };`."""
    found = []
    for m in re.finditer(r"\b" + kind + r"\s+" + re.escape(name) + r"\b[^;{()]*\{", code):
        end = matching(code, m.end() - 1)
        if end < 0:
            continue
        semi = re.match(r"\s*;", code[end + 1:])
        found.append((declaration_start(code, m.start()), end + 1 + (semi.end() if semi else 0)))
    return outermost(found)


def find_declarations(code, name):
    """(start, end) of every file-level `constexpr ... NAME = ...;` or `using NAME = ...;`."""
    found = []
    for m in re.finditer(r"(?<![\w:.])" + re.escape(name) + r"\s*=(?!=)", code):
        start = declaration_start(code, m.start())
        if code[:start].count("{") != code[:start].count("}"):
            continue  # inside a function, struct or namespace: not a file-level constant
        if not re.match(r"(using|constexpr|const|static|inline)\b", code[start:]):
            continue
        end = code.find(";", m.end())
        if end > 0:
            found.append((start, end + 1))
    return found


def outermost(spans):
    """The spans that no other span contains (a function's body may hold a call that looks like
    a definition to the patterns above)."""
    return [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]


def program_path(root, spec):
    """The file that a table entry names: a chapter number gives that chapter's program."""
    if "/" in spec:
        return spec
    dirs = [d for d in pages.chapter_dirs(root) if d.split("/")[1].startswith(spec + "-")]
    return pages.program(root, dirs[0]) if dirs else f"chapters/{spec}-?/ (no such chapter)"


def files_of(root, spec):
    """The files where a table entry's regions may lie: a chapter's program, then the headers
    beside it (.cuh, .h), which it includes; a path names one file."""
    path = program_path(root, spec)
    if "/" in spec:
        return [path]
    folder = os.path.dirname(path)
    full = os.path.join(root, folder)
    headers = sorted(n for n in os.listdir(full) if n.endswith((".cuh", ".h"))) if os.path.isdir(full) else []
    return [path] + [f"{folder}/{n}" for n in headers]


def region_text(root, spec, region):
    """(text, None) for `region` of the file `spec` (a chapter: its program or a header beside
    it, wherever the region is, but in one of them only), or (None, why it cannot be read)."""
    files = files_of(root, spec)
    path = files[0]
    if not os.path.isfile(os.path.join(root, path)):
        return None, f"{path}: no such file"
    m = re.fullmatch(r"\[([A-Za-z0-9_]+)\]", region)
    kind, _, name = region.rpartition(" ")
    if not m and kind not in ("struct", "class", "decl", ""):
        return None, f"{path}: cannot read a region named {region!r}"
    found = []  # (file, text, spans)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as handle:
            text = handle.read()
        if m:
            marker = f"// [{m.group(1)}]"
            if marker in text:
                # The pages' own reader; it also says on stderr why it failed.
                code = pages.code_region(root, os.path.basename(f), m.group(1))
                if code is None:
                    return None, f"{f}: no region // [{m.group(1)}] ... // [{m.group(1)}]"
                found.append((f, "\n".join(code[1:-1]) + "\n", None))
            continue
        code = blank_comments(text, strings_too=True)
        if kind in ("struct", "class"):
            spans = find_aggregates(code, kind, name)
        elif kind == "decl":
            spans = find_declarations(code, name)
        else:
            spans = find_functions(code, name)
        if spans:
            found.append((f, text, spans))
    if not found:
        what = {"struct": f"no {kind} {name}", "class": f"no {kind} {name}",
                "decl": f"no file-level constexpr or using {name}", "": f"no definition of the function {name}"}
        return None, f"{path}: " + (f"no region // [{m.group(1)}] ... // [{m.group(1)}]" if m else what[kind])
    if len(found) > 1:
        return None, f"{path}: {region} is in {' and '.join(f for f, _, _ in found)}; the table needs one"
    f, text, spans = found[0]
    if spans is None:
        return text, None
    if len(spans) > 1:
        lines = ", ".join(str(text.count("\n", 0, s) + 1) for s, _ in spans)
        return None, f"{f}: {region} is defined {len(spans)} times (lines {lines}); the table needs one"
    start, end = spans[0]
    return text[start:end] + "\n", None


# ---- comparing -----------------------------------------------------------------------------

BLOCK_BEFORE = re.compile(r"(\)|\belse|\bdo|\btry|\bconst|\bnoexcept|\boverride|\bfinal|"
                          r"\bcase\b[^?]*:|\bdefault\s*:)\Z")
ACCESS = re.compile(r"(public|private|protected):\Z")
AGGREGATE = re.compile(r"^(template\s*<.*>\s*)?(struct|class|union|enum|namespace)\b[^=]*\Z")


def tidy(line):
    """One statement with its whitespace collapsed outside string literals, and none just inside
    brackets (where a line was broken)."""
    parts = re.split(r"(\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')", line)
    for i in range(0, len(parts), 2):
        p = re.sub(r"\s+", " ", parts[i])
        parts[i] = re.sub(r"\s+([)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", p))
    return "".join(parts).strip()


def statements(text):
    """The code of a region as one statement per line: comments dropped, whitespace collapsed,
    a line ending after each `;` outside brackets, after a `{` that opens a block (an initialiser
    list stays on its line) and around the `}` that closes one; preprocessor lines stay lines."""
    code = blank_comments(text)
    shape = blank_comments(text, strings_too=True)
    out, buf, parens, braces = [], [], 0, []

    def flush():
        line = tidy("".join(buf))
        if line:
            out.append(line)
        buf.clear()

    pos = 0
    for raw in code.split("\n"):
        skel = shape[pos:pos + len(raw)]
        pos += len(raw) + 1
        if skel.strip().startswith("#"):
            flush()
            out.append(tidy(raw))
            continue
        for i, ch in enumerate(raw):
            c = skel[i]
            buf.append(ch)
            if c in "([":
                parens += 1
            elif c in ")]":
                parens -= 1
            elif c == "{" and parens == 0:
                so_far = tidy("".join(buf[:-1]))
                block = so_far == "" or BLOCK_BEFORE.search(so_far) or AGGREGATE.match(so_far)
                braces.append("block" if block and not any(b == "init" for b in braces) else "init")
                if braces[-1] == "block":
                    flush()
            elif c == "}" and parens == 0 and braces:
                if braces.pop() == "block":
                    buf.pop()
                    flush()
                    buf.append("}")
                    after = skel[i + 1:].lstrip() or "\n"
                    rest = shape[pos:].lstrip()
                    following = after if after != "\n" else rest
                    if not re.match(r"(;|else\b|while\b|,|\))", following):
                        flush()
            elif c == ";" and parens == 0 and not braces.count("init"):
                flush()
            elif c == ":" and parens == 0 and ACCESS.match(tidy("".join(buf))):
                flush()
        buf.append(" ")
    flush()
    return out


def changed_lines(old, new):
    """The statements that differ, as "- old" and "+ new", in the order of difflib's opcodes."""
    lines = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            lines += ["- " + s for s in old[a1:a2]] + ["+ " + s for s in new[b1:b2]]
    return lines


def phrase_in(root, path, phrase):
    """Whether the file holds the phrase, whitespace (line breaks of a page) aside."""
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return False
    with open(full, encoding="utf-8") as f:
        text = re.sub(r"\s+", " ", f.read())
    return re.sub(r"\s+", " ", phrase) in text


def check(root, copies, drifts, out=print):
    """Check every copy of the table; print what is wrong. Returns (problems, warnings)."""
    problems = warnings = 0
    by_copy = collections.defaultdict(list)
    for d in drifts:
        by_copy[(d.copy, d.region)].append(d)
    known = {(c.copy, c.region) for c in copies}
    for key in by_copy:
        if key not in known:
            out(f"copies: FAIL: EXPECTED_DRIFT names {key[0]} {key[1]}, which COPIES does not list")
            problems += 1
    for c in copies:
        copy_text, why_copy = region_text(root, c.copy, c.region)
        source_text, why_source = region_text(root, c.source, c.source_region)
        if why_copy or why_source:
            for why in (why_copy, why_source):
                if why:
                    out(f"copies: FAIL: {c.name()}: cannot find the region: {why}")
            problems += 1
            continue
        old, new = statements(source_text), statements(copy_text)
        got = changed_lines(old, new)
        drift = [line for d in by_copy[(c.copy, c.region)] for line in d.lines]
        want = c.allowed + drift
        if collections.Counter(got) == collections.Counter(want):
            if drift:
                for d in by_copy[(c.copy, c.region)]:
                    out(f"copies: warning: known drift in {c.name()}: {d.note}")
                    for line in d.lines:
                        out(f"    {line}")
                warnings += 1
            else:
                shown = f" ({len(c.allowed)} line{'s' if len(c.allowed) > 1 else ''} allowed to differ)"
                out(f"copies: ok: {c.name()}" + (shown if c.allowed else ""))
            if c.allowed and c.said_in and not phrase_in(root, *c.said_in):
                out(f"copies: FAIL: {c.name()}: the reason ({c.reason}) is no longer said in "
                    f"{c.said_in[0]} (\"{c.said_in[1]}\"): say it there again, or update the table")
                problems += 1
            continue
        problems += 1
        extra = list((collections.Counter(got) - collections.Counter(want)).elements())
        missing = list((collections.Counter(want) - collections.Counter(got)).elements())
        out(f"copies: FAIL: {c.name()} differs from its source other than the table says")
        for line in extra:
            out(f"    not allowed: {line}")
        for line in missing:
            listed = "EXPECTED_DRIFT" if line in drift else "allowed"
            out(f"    {listed} but no longer there: {line}"
                + ("  (fixed? then remove it from EXPECTED_DRIFT)" if line in drift else ""))
        src = f"{program_path(root, c.source)} {c.source_region}"
        dst = f"{program_path(root, c.copy)} {c.region}"
        for line in difflib.unified_diff(old, new, src, dst, n=2, lineterm=""):
            out(f"    {line}")
    return problems, warnings


# ---- the table -----------------------------------------------------------------------------

C = Copy
R18 = "chapters/18-multi-gpu/README.md"

COPIES = [
    # ---- the tree (chapters 03-07) ----
    C("04", "reduce_tree_strided_index", "03", "reduce_tree_divergent",
      ["- __global__ void reduce_tree_divergent(const int* in, int64_t n, int* partials) {",
       "+ __global__ void reduce_tree_strided_index(const int* in, int64_t n, int* partials) {",
       "- if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];",
       "+ const unsigned index = 2 * stride * tid;",
       "+ if (index < blockDim.x) s[index] += s[index + stride];"],
      "The kernel's new name, and the step that hands the t-th pair to thread t.",
      ("chapters/04-tree-strided-index/tree_strided_index.cu", "Since chapter 03: only the step of the tree")),
    C("04", "launch_tree_strided_index", "03", "launch_tree_divergent",
      ["- void launch_tree_divergent(const int* in, int64_t n, int* sum, int* scratch_a, int* scratch_b, int block) {",
       "+ void launch_tree_strided_index(const int* in, int64_t n, int* sum, int* scratch_a, int* scratch_b, int block) {",
       "- reduce_tree_divergent<<<unsigned(blocks), block, smem>>>(src, count, out);",
       "+ reduce_tree_strided_index<<<unsigned(blocks), block, smem>>>(src, count, out);"],
      "The kernel is renamed, and the launcher with it.",
      ("chapters/04-tree-strided-index/README.md", "The kernel `reduce_tree_divergent` is now `reduce_tree_strided_index`")),
    C("05", "reduce_tree_sequential_multipass", "04", "reduce_tree_strided_index",
      ["- __global__ void reduce_tree_strided_index(const int* in, int64_t n, int* partials) {",
       "+ __global__ void reduce_tree_sequential_multipass(const int* in, int64_t n, int* partials) {",
       "- for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {",
       "- const unsigned index = 2 * stride * tid;",
       "- if (index < blockDim.x) s[index] += s[index + stride];",
       "+ for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {",
       "+ if (tid < stride) s[tid] += s[tid + stride];"],
      "The multipass variant is chapter 04's kernel with this chapter's tree.",
      ("chapters/05-tree-sequential/tree_sequential.cu", "chapter 04's kernel with this chapter's tree")),
    C("05", "launch_multipass", "04", "launch_tree_strided_index",
      ["- void launch_tree_strided_index(const int* in, int64_t n, int* sum, int* scratch_a, int* scratch_b, int block) {",
       "+ void launch_multipass(PassKernel kernel, int per_block, const int* in, int64_t n, int* sum, "
       "int* scratch_a, int* scratch_b, int block) {",
       "- const int64_t blocks = wb::ceil_div<int64_t>(count, block);",
       "+ const int64_t blocks = wb::ceil_div<int64_t>(count, per_block);",
       "- reduce_tree_strided_index<<<unsigned(blocks), block, smem>>>(src, count, out);",
       "+ kernel<<<unsigned(blocks), block, smem>>>(src, count, out);"],
      "Chapter 04's launcher, handed the pass kernel and the elements each block reduces.",
      ("chapters/05-tree-sequential/tree_sequential.cu", "Chapter 04's launcher, for a pass kernel")),
    C("06", "[load]", "05"),
    C("07", "[load]", "06",
      allowed=["- s[tid] = total;"],
      reason="Each warp sums in registers, so the thread's total no longer goes to shared memory.",
      said_in=("chapters/07-warp-shuffle/warp_shuffle.cu", "each warp sums its 32 values in registers")),
    C("07", "launch_warp_shuffle", "06", "launch_warp_unroll",
      ["- void launch_warp_unroll(const int* in, int64_t n, int* sum, int* scratch, int block, int64_t max_blocks, "
       "bool racy) {",
       "- const ReduceKernel kernel = warp_unroll_kernel(block, racy);",
       "+ void launch_warp_shuffle(ReduceKernel kernel, const int* in, int64_t n, int* sum, int* scratch, int block, "
       "int64_t max_blocks) {"],
      "The same two passes, with the kernel that --variant picks handed in instead of the template dispatch.",
      ("chapters/07-warp-shuffle/warp_shuffle.cu", "The two passes are chapter 06's.")),
    # ---- the warp and block sums (chapters 07-11) ----
    C("08", "warp_sum", "07", "warp_sum_reduce_add",
      ["- __device__ int warp_sum_reduce_add(int v) {",
       "+ __device__ int warp_sum(int v) {",
       "- return warp_sum_shuffle(v);",
       "+ #pragma unroll",
       "+ for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);",
       "+ return v;"],
      "One warp sum, __reduce_add_sync, whose sm_75 fallback is chapter 07's shuffle tree written in place.",
      ("chapters/08-one-pass/one_pass.cu", "block_sum() is chapter 07's, with one warp sum")),
    C("08", "block_sum", "07",
      allowed=["- template <WarpSum kHow> __device__ int block_sum(int v) {",
               "+ __device__ int block_sum(int v) {",
               "- v = warp_sum<kHow>(v);",
               "+ v = warp_sum(v);",
               "- if (warp == 0) v = warp_sum<kHow>(lane < blockDim.x / 32 ? warp_totals[lane] : 0);",
               "+ if (warp == 0) v = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0);"],
      reason="With one warp sum there is no variant to pick, so no template parameter.",
      said_in=("chapters/08-one-pass/one_pass.cu", "block_sum() is chapter 07's, with one warp sum")),
    C("09", "warp_sum", "08"),
    C("09", "block_sum", "08"),
    C("09", "launch_batched", "08", "launch_one_pass_atomic",
      ["- void launch_one_pass_atomic(const int* in, int64_t n, int* sum, int block, int64_t max_blocks) {",
       "+ void launch_batched(const int* in, int64_t n, int* sum, int block, int batch, int64_t max_blocks) {",
       "- const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);",
       "- reduce_one_pass_atomic<<<unsigned(blocks), block>>>(in, n, sum);",
       "+ const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, int64_t(block) * batch), max_blocks);",
       "+ reduce_batched<<<unsigned(blocks), block>>>(in, n, batch, sum);"],
      "The atomic variant's launcher with one block per tile of block x K elements.",
      ("chapters/09-batching/batching.cu", "The grid is one block per tile, capped at one resident wave")),
    C("10", "warp_sum", "09"),
    C("10", "block_sum", "09"),
    C("11", "warp_sum", "10"),
    C("11", "block_sum", "10"),
    C("11", "struct AlignedSplit", "10"),
    C("11", "split_aligned", "10"),
    C("11", "kernel_for", "10",
      allowed=["- case %d: return reduce_vectorized<%d>;" % (k, k) for k in (1, 2, 4, 8)]
      + ["- default: return reduce_vectorized<16>;"]
      + ["+ case %d: return reduce_best<%d>;" % (k, k) for k in (1, 2, 4, 8)]
      + ["+ default: return reduce_best<16>;"],
      reason="The kernel reduce_vectorized is now reduce_best.",
      said_in=("chapters/11-cub-and-beyond/README.md", "The kernel `reduce_vectorized` is now `reduce_best`")),
    # ---- the scans' warp scan and tiles (chapters 15-17) ----
    C("16", "warp_inclusive_scan", "15"),
    C("17", "warp_inclusive_scan", "16",
      allowed=["- __device__ int warp_inclusive_scan(int value) {",
               "+ template <class T> __device__ T warp_inclusive_scan(T value) {",
               "- const int left = __shfl_up_sync(kFullMask, value, offset);",
               "+ const T left = __shfl_up_sync(kFullMask, value, offset);"],
      reason="Chapter 17's header scans any 4-byte element type T (chapter 19 scans floats with it).",
      said_in=("chapters/17-scan-device-wide/single_pass.cuh", "The element type T is any 4-byte type")),
    C("17", "stage_ints_per_warp", "16"),
    C("17", "[transpose]", "16",
      allowed=["- template <int K> __device__ void load_tile(const int* tile, int count, int* stage, int (&items)[K]) {",
               "+ template <int K, class T> __device__ void load_tile(const T* tile, int count, T* stage, "
               "T (&items)[K]) {",
               "- int* const part = stage + warp * stage_ints_per_warp(K);",
               "+ T* const part = stage + warp * stage_ints_per_warp(K);",
               "- int* const part = stage + warp * stage_ints_per_warp(K);",  # load_tile's, then store_tile's
               "+ T* const part = stage + warp * stage_ints_per_warp(K);",
               "- for (int j = 0; j < K; ++j) part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? "
               "tile[first + j * kWarp] : 0;",
               "+ for (int j = 0; j < K; ++j) part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? "
               "tile[first + j * kWarp] : T(0);",
               "- const int* const mine = part + lane * K + lane * K / kWarp;",
               "+ const T* const mine = part + lane * K + lane * K / kWarp;",
               "- template <int K> __device__ void store_tile(int* tile, int count, int* stage, const int (&items)[K]) {",
               "+ template <int K, class T> __device__ void store_tile(T* tile, int count, T* stage, "
               "const T (&items)[K]) {",
               "- int* const mine = part + lane * K + lane * K / kWarp;",
               "+ T* const mine = part + lane * K + lane * K / kWarp;"],
      reason="Chapter 17's header loads and stores tiles of any 4-byte element type T.",
      said_in=("chapters/17-scan-device-wide/single_pass.cuh", "The element type T is any 4-byte type")),
    C("17", "stage_bytes", "16"),
    C("17", "sizes_to_run", "11"),
    # ---- chapter 21's sweep, chapter 17's ----
    C("21", "sizes_to_run", "17"),
    # ---- chapter 24's vectorized split, chapter 11's (the same arithmetic on uint32 samples) ----
    C("chapters/24-histogram/histogram.cuh", "struct AlignedSplit", "11"),
    C("chapters/24-histogram/histogram.cuh", "split_aligned", "11",
      allowed=["- __host__ __device__ inline AlignedSplit split_aligned(const int* in, int64_t n) {",
               "+ __host__ __device__ inline AlignedSplit split_aligned(const uint32_t* in, int64_t n) {"],
      reason="Chapter 24 splits uint32 samples, not ints.",
      said_in=("chapters/24-histogram/histogram.cuh", "16-byte-aligned middle (chapter 10)")),
    # ---- chapter 25's stress hooks (its look-back is its own, one thread per digit), chapter 17's ----
    C("chapters/25-radix-sort/lookback_stress.cuh", "stress_hash", "chapters/17-scan-device-wide/single_pass.cuh"),
    C("chapters/25-radix-sort/lookback_stress.cuh", "[stress_host]", "chapters/17-scan-device-wide/single_pass.cuh"),
]

# Differences nobody meant. Each is printed as a warning; when one is fixed (or changes), the check
# fails until this list says so.
EXPECTED_DRIFT = []


# ---- the self-test ------------------------------------------------------------------------

SOURCE = """// [load]
int total = 0;
// [load]
/// Sum over a warp.
__device__ int warp_sum(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}
"""

# The same code as SOURCE, laid out and commented differently: it must compare equal.
SAME = """/// A different comment.
__device__ int
warp_sum(int v) {  // also here
#pragma unroll
  for (int offset = 16; offset > 0;
       offset /= 2) v += __shfl_down_sync(kFullMask, v,   offset);
  return v; }
  // [load]
  int total = 0;  /* a block comment */
  // [load]
"""

RENAME = ["- __device__ int warp_sum(int v) {", "+ __device__ int warp_sum_copy(int v) {"]


def mini_tree(root, copy_text, page="The copy is renamed."):
    """A tree of two chapters: 01 holds SOURCE, 02 `copy_text` and a page saying `page`."""
    for d, text in (("01-a", SOURCE), ("02-b", copy_text)):
        os.makedirs(os.path.join(root, "chapters", d), exist_ok=True)
        with open(os.path.join(root, "chapters", d, d[3:] + ".cu"), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(root, "chapters", "02-b", "README.md"), "w", encoding="utf-8") as f:
        f.write(page + "\n")


def edit(root, path, old, new):
    """Replace the one occurrence of `old` in a file of the tree by `new`."""
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if text.count(old) != 1:
        raise SystemExit(f"copies self-test: {path} holds {old!r} {text.count(old)} times, not once")
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


def self_test():
    """Each way a copy can go wrong must be reported, and what the table allows must pass: on a
    tree of two small chapters, then on a copy of this repository's chapters made to break."""
    renamed = SOURCE.replace("warp_sum(int v)", "warp_sum_copy(int v)")
    said = ("chapters/02-b/README.md", "The copy is renamed.")
    mini = [
        # name, the copy's text, the page, the table, the drifts, problems wanted, text wanted
        ("a copy laid out and commented differently passes", SAME, "",
         [Copy("02", "warp_sum", "01"), Copy("02", "[load]", "01")], [], 0, "ok: 02 [load] <- 01"),
        ("an altered copy fails, with its diff", SAME.replace("offset > 0", "offset > 1"), "",
         [Copy("02", "warp_sum", "01")], [], 1, "+ for (int offset = 16; offset > 1; offset /= 2)"),
        ("an altered region fails", SAME.replace("total = 0", "total = 1"), "",
         [Copy("02", "[load]", "01")], [], 1, "not allowed: + int total = 1;"),
        ("an allowed difference passes", renamed, said[1],
         [Copy("02", "warp_sum_copy", "01", "warp_sum", RENAME, "renamed", said)], [], 0,
         "ok: 02 warp_sum_copy <- 01 warp_sum (2 lines allowed to differ)"),
        ("an allowed difference beside another fails", renamed.replace("return v", "return -v"), said[1],
         [Copy("02", "warp_sum_copy", "01", "warp_sum", RENAME, "renamed", said)], [], 1, "not allowed: + return -v;"),
        ("an allowed difference no longer there fails", SOURCE, said[1],
         [Copy("02", "warp_sum", "01", None, RENAME, "renamed", said)], [], 1, "allowed but no longer there"),
        ("a reason no longer said fails", renamed, "Something else.",
         [Copy("02", "warp_sum_copy", "01", "warp_sum", RENAME, "renamed", said)], [], 1, "no longer said in"),
        ("a known drift passes with a warning", renamed, "",
         [Copy("02", "warp_sum_copy", "01", "warp_sum")], [Drift("02", "warp_sum_copy", RENAME, "renamed")], 0,
         "warning: known drift"),
        ("a known drift that is fixed fails", SOURCE, "",
         [Copy("02", "warp_sum", "01")], [Drift("02", "warp_sum", RENAME, "renamed")], 1,
         "remove it from EXPECTED_DRIFT"),
        ("a known drift that changes fails", renamed.replace("return v", "return -v"), "",
         [Copy("02", "warp_sum_copy", "01", "warp_sum")], [Drift("02", "warp_sum_copy", RENAME, "renamed")], 1,
         "not allowed: + return -v;"),
        ("a drift of a copy not in the table fails", SOURCE, "",
         [Copy("02", "warp_sum", "01")], [Drift("02", "[load]", ["- x"], "x")], 1, "which COPIES does not list"),
        ("a function that is not there fails", renamed, "",
         [Copy("02", "warp_sum", "01")], [], 1,
         "cannot find the region: chapters/02-b/b.cu: no definition of the function warp_sum"),
        ("a region that is not there fails", SOURCE.replace("// [load]\n", "", 1), "",
         [Copy("02", "[load]", "01")], [], 1, "cannot find the region: chapters/02-b/b.cu: no region // [load]"),
        ("a function defined twice fails", SOURCE + SOURCE.split("// [load]\n")[-1], "",
         [Copy("02", "warp_sum", "01")], [], 1, "warp_sum is defined 2 times (lines 5, 11)"),
        ("a struct that is not there fails", SOURCE, "",
         [Copy("02", "struct Plan", "01")], [], 1, "no struct Plan"),
    ]
    failures = 0

    def verdict(name, problems, lines, want_problems, want_text):
        nonlocal failures
        ok = problems == want_problems and any(want_text in line for line in lines)
        failures += 0 if ok else 1
        print(f"copies self-test: {name}: {'ok' if ok else 'WRONG'} ({problems} problem(s))")
        if not ok:
            for line in lines:
                print(f"    | {line}")

    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, text, page, copies, drifts, want, want_text) in enumerate(mini):
            root = os.path.join(tmp, f"mini{n}")
            mini_tree(root, text, page)
            lines = []
            problems, _ = check(root, copies, drifts, lines.append)
            verdict(name, problems, lines, want, want_text)

        # This repository's chapters, as they are and made to break in three ways.
        repo = os.path.dirname(HERE)
        real = [
            ("the chapters as they are pass (regions in the headers beside a program too)", [], 0,
             "ok: 17 warp_inclusive_scan <- 16"),
            ("chapter 17's load_tile altered in its header fails",
             [("chapters/17-scan-device-wide/single_pass.cuh",
               "lane * K + lane * K / kWarp;\n#pragma unroll\n  for (int i = 0; i < K; ++i) items",
               "lane * K;\n#pragma unroll\n  for (int i = 0; i < K; ++i) items")],
             1, "FAIL: 17 [transpose] <- 16 differs"),
            ("chapter 17's warp_inclusive_scan renamed in its header fails: it cannot be found",
             [("chapters/17-scan-device-wide/single_pass.cuh", "__device__ T warp_inclusive_scan(",
               "__device__ T warp_inclusive_scan_renamed(")],
             1, "no definition of the function warp_inclusive_scan"),
            ("a function both in a program and in the header beside it fails",
             [("chapters/11-cub-and-beyond/cub_and_beyond.cu", "/// The smallest N of `--variant sweep`.",
               "__device__ int warp_sum(int v) { return v; }\n/// The smallest N of `--variant sweep`.")],
             1, "warp_sum is in chapters/11-cub-and-beyond/cub_and_beyond.cu and"),
        ]
        for n, (name, edits, want, want_text) in enumerate(real):
            root = os.path.join(tmp, f"real{n}")
            for top in ("chapters", "common"):
                shutil.copytree(os.path.join(repo, top), os.path.join(root, top))
            for path, old, new in edits:
                edit(root, path, old, new)
            lines = []
            problems, _ = check(root, COPIES, EXPECTED_DRIFT, lines.append)
            verdict(name, problems, lines, want, want_text)
    print(f"copies self-test: {len(mini) + len(real)} cases, {failures} wrong")
    return 1 if failures else 0


def run(root):
    problems, warnings = check(root, COPIES, EXPECTED_DRIFT)
    print(f"copies: {len(COPIES)} copies, {problems} problem(s), {warnings} with known drift")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        print("usage: copies_check.py [ROOT] | --self-test", file=sys.stderr)
        sys.exit(2)
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(HERE)))
