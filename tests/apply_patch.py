#!/usr/bin/env python3
"""Apply a one-file unified diff to a copy of its file, strictly.

    python3 tests/apply_patch.py PATCH SOURCE OUTPUT   write SOURCE, patched, to OUTPUT
    python3 tests/apply_patch.py --check PATCH SOURCE  only say whether PATCH applies to SOURCE

Used for the mutations of tests/mutations/ (each a small change to one chapter, built from a
copy in the build tree, never applied to the chapter itself). Text before the first `---`
line is the patch's description and is skipped. Each hunk's old lines (context and removed)
must occur in the source exactly, once, at or after the end of the previous hunk; its line
number is only a hint, so a patch survives edits elsewhere in the file, but any change to
the lines it touches makes it refuse with the hunk's header: the mutation must then be
brought up to date. Standard library only; exit 0 on success, 1 when a hunk does not apply,
2 on bad usage.
"""
import re
import sys

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_hunks(patch_text):
    """The hunks of a one-file diff: a list of (header, old lines, new lines)."""
    lines = patch_text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("--- ")), None)
    if start is None or start + 1 >= len(lines) or not lines[start + 1].startswith("+++ "):
        raise ValueError("no '--- ' and '+++ ' lines: not a unified diff")
    if any(line.startswith("--- ") for line in lines[start + 2:]):
        raise ValueError("more than one file in the diff")
    hunks = []
    for line in lines[start + 2:]:
        if HUNK.match(line):
            hunks.append((line, [], []))
        elif not hunks:
            raise ValueError("text before the first hunk: %r" % line)
        elif line.startswith(" ") or line == "":
            text = line[1:]
            hunks[-1][1].append(text)
            hunks[-1][2].append(text)
        elif line.startswith("-"):
            hunks[-1][1].append(line[1:])
        elif line.startswith("+"):
            hunks[-1][2].append(line[1:])
        elif line.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            raise ValueError("a line that is no part of a hunk: %r" % line)
    if not hunks:
        raise ValueError("no hunk")
    return hunks


def find_block(lines, block, start):
    """Indexes i >= start where lines[i:i + len(block)] == block."""
    n = len(block)
    return [i for i in range(start, len(lines) - n + 1) if lines[i:i + n] == block]


def apply(patch_text, source_text):
    """The source with every hunk applied; ValueError names the hunk that does not apply."""
    lines = source_text.split("\n")
    out = []
    at = 0
    for header, old, new in parse_hunks(patch_text):
        places = find_block(lines, old, at)
        if len(places) != 1:
            why = "its lines are not in the source" if not places else "its lines occur %d times" % len(places)
            raise ValueError("hunk %s does not apply: %s" % (header, why))
        place = places[0]
        out.extend(lines[at:place])
        out.extend(new)
        at = place + len(old)
    out.extend(lines[at:])
    return "\n".join(out)


def main(argv):
    check = argv[:1] == ["--check"]
    args = argv[1:] if check else argv
    if len(args) != (2 if check else 3):
        sys.stderr.write(__doc__)
        return 2
    with open(args[0], encoding="utf-8") as f:
        patch_text = f.read()
    with open(args[1], encoding="utf-8") as f:
        source_text = f.read()
    try:
        result = apply(patch_text, source_text)
    except ValueError as e:
        print("apply_patch: %s to %s: %s" % (args[0], args[1], e), file=sys.stderr)
        return 1
    if check:
        print("apply_patch: %s applies to %s" % (args[0], args[1]))
    else:
        with open(args[2], "w", encoding="utf-8") as f:
            f.write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
