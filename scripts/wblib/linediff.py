"""Unified line diffs that come out exactly as GNU diff's `diff -U N` writes them, computed here
so that a generated page does not depend on which `diff` a machine has (BSD, BusyBox and GNU
diff all find valid but different hunks for the same two files).

The steps follow GNU diff's, since its choices (not just any shortest edit script) are what the
committed pages show:
  1. the identical lines at both ends are set aside, all but a few that stay in play;
  2. lines of one file found nowhere in the other, and runs of very common lines among them,
     are marked changed at once and hidden from the search ("confusing" lines);
  3. Myers' O(ND) search, from both ends at once, splits the rest at the middle of a shortest
     edit script, recursively;
  4. each run of changes is slid along runs of equal lines, to merge with its neighbours and to
     line up with a change in the other file;
  5. changes closer than 2N + 1 unchanged lines share a hunk, with N lines of context around it.
"""

# Lines of the identical prefix and suffix kept in play (GNU diff's horizon, at least the context).
_HORIZON = 3
# A snake longer than this counts as long (only the search's cost cut-off reads it).
_SNAKE_LIMIT = 20


def _common_ends(a, b, horizon):
    """(prefix, end_a, end_b): how many leading lines both files leave out of the search, and
    where the searched part of each ends (a line index), found on the bytes as GNU diff does."""
    ba = b"".join(a)
    bb = b"".join(b)
    # The first differing byte, then back to the start of its line and `horizon` lines more.
    n = min(len(ba), len(bb))
    p = 0
    while p < n and ba[p] == bb[p]:
        p += 1
    same_lines = ba.count(b"\n", 0, p)
    prefix = max(0, same_lines - horizon)
    prefix_bytes = sum(len(line) for line in a[:prefix])
    # The identical suffix, never reaching into the prefix of the shorter file.
    limit = n - prefix_bytes
    s = 0
    while s < limit and ba[len(ba) - 1 - s] == bb[len(bb) - 1 - s]:
        s += 1
    start_a = len(ba) - s
    start_b = len(bb) - s
    at_line_start = ((start_a == 0 or ba[start_a - 1] == 0x0A) and
                     (start_b == 0 or bb[start_b - 1] == 0x0A))
    # Keep `horizon` lines of the suffix in play, and the rest of a line it starts inside.
    keep = horizon + (0 if at_line_start else 1)
    end = start_a
    while keep and end != len(ba):
        end = ba.index(b"\n", end) + 1
        keep -= 1
    moved = end - start_a
    end_a = ba.count(b"\n", 0, end)
    end_b = bb.count(b"\n", 0, start_b + moved)
    return prefix, end_a, end_b


def _discard_confusing(eq, other_counts):
    """For one file's lines (equivalence classes): 1 where a line is taken out of the search
    (it never occurs in the other file, or it is a very common line inside a run of such),
    0 otherwise."""
    end = len(eq)
    many = 5
    tem = end // 64
    tem >>= 2
    while tem > 0:
        many *= 2
        tem >>= 2
    marks = [0] * end
    for i, e in enumerate(eq):
        matches = other_counts.get(e, 0)
        if matches == 0:
            marks[i] = 1
        elif matches > many:
            marks[i] = 2      # provisionally: only inside a run of lines that match nothing
    i = 0
    while i < end:
        if marks[i] == 2:
            marks[i] = 0
        elif marks[i] != 0:
            j = i
            provisional = 0
            while j < end and marks[j] != 0:
                if marks[j] == 2:
                    provisional += 1
                j += 1
            while j > i and marks[j - 1] == 2:
                j -= 1
                marks[j] = 0
                provisional -= 1
            length = j - i
            if provisional * 4 > length:
                while j > i:
                    j -= 1
                    if marks[j] == 2:
                        marks[j] = 0
            else:
                # Long stretches of provisional lines stay in the search.
                minimum = 1
                tem = length >> 2
                tem >>= 2
                while tem > 0:
                    minimum <<= 1
                    tem >>= 2
                minimum += 1
                consec = 0
                k = 0
                while k < length:
                    if marks[i + k] != 2:
                        consec = 0
                    else:
                        consec += 1
                        if consec == minimum:
                            k -= consec
                        elif consec > minimum:
                            marks[i + k] = 0
                    k += 1
                # Near either end of the run, provisional lines stay in the search too.
                _keep_provisional_at_edge(marks, i, length, 1)
                i += length - 1
                _keep_provisional_at_edge(marks, i, length, -1)
        i += 1
    return [1 if m else 0 for m in marks]


def _keep_provisional_at_edge(marks, start, length, step):
    """From `start`, walking by `step`, un-mark provisional lines until three lines that match
    nothing come in a row, or one such line at least 8 lines in."""
    consec = 0
    for k in range(length):
        at = start + step * k
        if k >= 8 and marks[at] == 1:
            break
        if marks[at] == 2:
            consec = 0
            marks[at] = 0
        elif marks[at] == 0:
            consec = 0
        else:
            consec += 1
        if consec == 3:
            break


class _Search:
    """Myers' search over the lines left in play, writing into the two `changed` lists."""

    def __init__(self, xv, yv, xreal, yreal, changed_x, changed_y):
        self.xv, self.yv = xv, yv
        self.xreal, self.yreal = xreal, yreal
        self.changed_x, self.changed_y = changed_x, changed_y
        size = len(xv) + len(yv) + 3
        self.offset = len(yv) + 1
        self.fd = [0] * size
        self.bd = [0] * size
        expensive = 1
        while size:
            expensive <<= 1
            size >>= 2
        self.too_expensive = max(4096, expensive)

    def middle(self, xoff, xlim, yoff, ylim, minimal):
        """(xmid, ymid, lo_minimal, hi_minimal): where a shortest edit script of the two ranges
        crosses its middle, searched forward from the start and backward from the end."""
        xv, yv, o = self.xv, self.yv, self.offset
        fd, bd = self.fd, self.bd
        dmin, dmax = xoff - ylim, xlim - yoff
        fmid, bmid = xoff - yoff, xlim - ylim
        fmin = fmax = fmid
        bmin = bmax = bmid
        odd = (fmid - bmid) & 1
        fd[o + fmid] = xoff
        bd[o + bmid] = xlim
        huge = len(xv) + len(yv) + 10
        c = 0
        while True:
            c += 1
            if fmin > dmin:
                fmin -= 1
                fd[o + fmin - 1] = -1
            else:
                fmin += 1
            if fmax < dmax:
                fmax += 1
                fd[o + fmax + 1] = -1
            else:
                fmax -= 1
            for d in range(fmax, fmin - 1, -2):
                lo, hi = fd[o + d - 1], fd[o + d + 1]
                x = hi if lo < hi else lo + 1
                y = x - d
                while x < xlim and y < ylim and xv[x] == yv[y]:
                    x += 1
                    y += 1
                fd[o + d] = x
                if odd and bmin <= d <= bmax and bd[o + d] <= x:
                    return x, y, True, True
            if bmin > dmin:
                bmin -= 1
                bd[o + bmin - 1] = huge
            else:
                bmin += 1
            if bmax < dmax:
                bmax += 1
                bd[o + bmax + 1] = huge
            else:
                bmax -= 1
            for d in range(bmax, bmin - 1, -2):
                lo, hi = bd[o + d - 1], bd[o + d + 1]
                x = lo if lo < hi else hi - 1
                y = x - d
                while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                    x -= 1
                    y -= 1
                bd[o + d] = x
                if not odd and fmin <= d <= fmax and x <= fd[o + d]:
                    return x, y, True, True
            if not minimal and c >= self.too_expensive:
                return self._give_up(xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax)

    def _give_up(self, xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax):
        """A search that grew too costly splits where either direction got furthest."""
        fd, bd, o = self.fd, self.bd, self.offset
        fxy, fx = -1, 0
        for d in range(fmax, fmin - 1, -2):
            x = min(fd[o + d], xlim)
            y = x - d
            if ylim < y:
                x, y = ylim + d, ylim
            if fxy < x + y:
                fxy, fx = x + y, x
        bxy, bx = None, 0
        for d in range(bmax, bmin - 1, -2):
            x = max(xoff, bd[o + d])
            y = x - d
            if y < yoff:
                x, y = yoff + d, yoff
            if bxy is None or x + y < bxy:
                bxy, bx = x + y, x
        if (xlim + ylim) - bxy < fxy - (xoff + yoff):
            return fx, fxy - fx, True, False
        return bx, bxy - bx, False, True

    def compare(self, xoff, xlim, yoff, ylim, minimal):
        """Mark the changed lines of the two ranges."""
        xv, yv = self.xv, self.yv
        while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
            xoff += 1
            yoff += 1
        while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
            xlim -= 1
            ylim -= 1
        if xoff == xlim:
            for k in range(yoff, ylim):
                self.changed_y[self.yreal[k] + 1] = 1
        elif yoff == ylim:
            for k in range(xoff, xlim):
                self.changed_x[self.xreal[k] + 1] = 1
        else:
            xmid, ymid, lo_min, hi_min = self.middle(xoff, xlim, yoff, ylim, minimal)
            self.compare(xoff, xmid, yoff, ymid, lo_min)
            self.compare(xmid, xlim, ymid, ylim, hi_min)


def _shift_boundaries(changed, other, eq):
    """Slide each run of changed lines (1-based flags with a 0 at each end) along equal lines:
    back to merge with the run before, forward to merge with the run after, then back to
    where it lines up with a change in the other file."""
    n = len(eq)
    i = j = 0          # 0-based line indices into this file and the other
    while True:
        while i < n and not changed[i + 1]:
            while other[j + 1]:
                j += 1
            j += 1
            i += 1
        if i == n:
            break
        start = i
        i += 1
        while changed[i + 1]:
            i += 1
        while other[j + 1]:
            j += 1
        while True:
            run = i - start
            while start and eq[start - 1] == eq[i - 1]:
                start -= 1
                changed[start + 1] = 1
                i -= 1
                changed[i + 1] = 0
                while changed[start]:
                    start -= 1
                j -= 1
                while other[j + 1]:
                    j -= 1
            corresponding = i if other[j] else n
            while i != n and eq[start] == eq[i]:
                changed[start + 1] = 0
                start += 1
                changed[i + 1] = 1
                i += 1
                while changed[i + 1]:
                    i += 1
                j += 1
                while other[j + 1]:
                    corresponding = i
                    j += 1
            if run == i - start:
                break
        while corresponding < i:
            start -= 1
            changed[start + 1] = 1
            i -= 1
            changed[i + 1] = 0
            j -= 1
            while other[j + 1]:
                j -= 1


def _changes(a, b):
    """The edit script: (line_a, line_b, deleted, inserted) in order, 0-based line numbers."""
    prefix, end_a, end_b = _common_ends(a, b, _HORIZON)
    mid_a, mid_b = a[prefix:end_a], b[prefix:end_b]
    classes = {}
    eq_a = [classes.setdefault(line, len(classes) + 1) for line in mid_a]
    eq_b = [classes.setdefault(line, len(classes) + 1) for line in mid_b]
    count_a, count_b = {}, {}
    for e in eq_a:
        count_a[e] = count_a.get(e, 0) + 1
    for e in eq_b:
        count_b[e] = count_b.get(e, 0) + 1
    changed_a = [0] * (len(mid_a) + 2)
    changed_b = [0] * (len(mid_b) + 2)
    kept = []
    for eq, counts, changed in ((eq_a, count_b, changed_a), (eq_b, count_a, changed_b)):
        out = _discard_confusing(eq, counts)
        for k, gone in enumerate(out):
            if gone:
                changed[k + 1] = 1
        kept.append([k for k, gone in enumerate(out) if not gone])
    xreal, yreal = kept
    search = _Search([eq_a[k] for k in xreal], [eq_b[k] for k in yreal], xreal, yreal,
                     changed_a, changed_b)
    search.compare(0, len(xreal), 0, len(yreal), False)
    _shift_boundaries(changed_a, changed_b, eq_a)
    _shift_boundaries(changed_b, changed_a, eq_b)
    script = []
    i = k = 0
    while i < len(mid_a) or k < len(mid_b):
        if changed_a[i + 1] or changed_b[k + 1]:
            i0, k0 = i, k
            while changed_a[i + 1]:
                i += 1
            while changed_b[k + 1]:
                k += 1
            script.append((prefix + i0, prefix + k0, i - i0, k - k0))
        i += 1
        k += 1
    return script


def _range(first, last):
    """A hunk header's line range: "start,count", "start" for one line, "before,0" for none."""
    if last < first:
        return f"{last + 1},0"
    if last == first:
        return f"{first + 1}"
    return f"{first + 1},{last - first + 1}"


def unified_diff(a, b, context=3):
    """The hunks of `diff -U context` between two lists of lines (str, without newlines), as a
    list of lines without newlines, headed by "@@ -r +r @@" each, without the ---/+++ lines.
    [] when the two are the same."""
    enc = [[(line + "\n").encode("utf-8", "surrogateescape") for line in side] for side in (a, b)]
    script = _changes(enc[0], enc[1])
    out = []
    h = 0
    while h < len(script):
        # Changes closer than 2 * context + 1 unchanged lines share a hunk.
        last = h
        while (last + 1 < len(script) and
               script[last + 1][0] - (script[last][0] + script[last][2]) < 2 * context + 1):
            last += 1
        group = script[h:last + 1]
        first_a = max(group[0][0] - context, 0)
        first_b = max(group[0][1] - context, 0)
        end_a = group[-1][0] + group[-1][2] - 1
        end_b = group[-1][1] + group[-1][3] - 1
        end_a = min(end_a + context, len(a) - 1)
        end_b = min(end_b + context, len(b) - 1)
        out.append(f"@@ -{_range(first_a, end_a)} +{_range(first_b, end_b)} @@")
        i, k = first_a, first_b
        for line_a, line_b, deleted, inserted in group:
            while i < line_a:
                out.append(" " + a[i])
                i += 1
                k += 1
            out.extend("-" + a[i + d] for d in range(deleted))
            out.extend("+" + b[k + d] for d in range(inserted))
            i += deleted
            k += inserted
        while i <= end_a:
            out.append(" " + a[i])
            i += 1
        h = last + 1
    return out
