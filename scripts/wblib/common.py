"""What every command shares: the repository's layout, the chapter programs and what they say
about themselves (--info, --list-variants), CSV reading, number formats and page blocks."""

import csv
import json
import os
import re
import subprocess
import sys

# The repository root: the parent of scripts/.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def say(script, message):
    """A message on stderr, prefixed with the script's name."""
    print(f"{script}: {message}", file=sys.stderr)


# ---- chapters ----------------------------------------------------------------------------

def chapter_dirs(root=ROOT):
    """{"05": "tree-sequential", ...} for every chapters/NN-slug/ directory, sorted by NN."""
    found = {}
    base = os.path.join(root, "chapters")
    if os.path.isdir(base):
        for name in sorted(os.listdir(base)):
            m = re.fullmatch(r"(\d\d)-(.+)", name)
            if m and os.path.isdir(os.path.join(base, name)):
                found.setdefault(m.group(1), m.group(2))
    return found


def chapter_page(root, cid):
    """The path of chapter NN's page (it may not exist), or None when there is no chapter NN."""
    slug = chapter_dirs(root).get(cid)
    return os.path.join(root, "chapters", f"{cid}-{slug}", "README.md") if slug else None


def normalise_id(text):
    """"5", "05", "chapter05" or "chapters/05-x" -> "05"; None for anything else."""
    t = text.rstrip("/").split("/")[-1]
    t = t[len("chapter"):] if t.startswith("chapter") else t
    t = t.split("-")[0]
    if re.fullmatch(r"\d", t):
        return "0" + t
    return t if re.fullmatch(r"\d\d", t) else None


def steps_rules(root=ROOT):
    """scripts/steps.txt as lists of words, one list per rule line (comments dropped)."""
    path = os.path.join(root, "scripts", "steps.txt")
    rules = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.lstrip().startswith("#"):
                    rules.append(line.split())
    return rules


def elsewhere(root=ROOT):
    """{"18": "scripts/scaling.sh"}: chapters whose results another script makes."""
    return {r[1]: r[2] for r in steps_rules(root) if r[0] == "elsewhere" and len(r) >= 3}


def summary_ids(root=ROOT):
    """The chapters the summary, profile and sanitizer runs cover: all but the 'elsewhere' ones."""
    skip = elsewhere(root)
    return [c for c in chapter_dirs(root) if c not in skip]


def find_binary(cid, bin_dir=None, root=ROOT):
    """chapterNN's program: in bin_dir when given, else at the root, else in $BUILD (build/)."""
    for d in (bin_dir, root, os.path.join(root, os.environ.get("BUILD", "build"))):
        if d:
            p = os.path.join(d, f"chapter{cid}")
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


def program_info(binary):
    """What a chapter program says about itself with --info (a dict), or None when it cannot."""
    try:
        out = subprocess.run([binary, "--info"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    try:
        return json.loads(out.stdout)
    except ValueError:
        return None


def list_variants(binary):
    """The --variant names a program takes (--list-variants), [] when it has no --variant."""
    out = subprocess.run([binary, "--list-variants"], capture_output=True, text=True, timeout=120)
    return [l.strip() for l in out.stdout.splitlines() if l.strip()] if out.returncode == 0 else []


def runs_covering_every_kernel(variants):
    """The one rule for which runs cover every kernel of a chapter: ["all"] where it offers
    `--variant all`, else each variant but "sweep" (a benchmark across sizes, not a kernel),
    else [None] (the chapter has no --variant)."""
    if "all" in variants:
        return ["all"]
    kernels = [v for v in variants if v != "sweep"]
    return kernels if kernels else [None]


# ---- CSV ---------------------------------------------------------------------------------

class CsvError(Exception):
    """A CSV that cannot be read as asked: a missing file or a missing column."""


def read_csv(path, required=()):
    """The rows of a CSV as dicts keyed by its header (the csv module: quoted fields may hold
    commas). Every column in `required` must be in the header, else CsvError names it."""
    if not os.path.isfile(path):
        raise CsvError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise CsvError(f"{path}: no column {', '.join(missing)} in its header")
        return [row for row in reader]


def number(text, default=0.0):
    """A CSV field as a number (int when it is one, so that 4294967303 stays exact)."""
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return default


# ---- formats -----------------------------------------------------------------------------

def pow2(n):
    """"2^k" for a power of two, the number (exact, no exponent) otherwise."""
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def xml(s):
    """Text escaped for SVG/XML."""
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def gpu_slug(name):
    """A file-name slug for a GPU: "NVIDIA H200" -> h200, "NVIDIA H100 80GB HBM3" -> h100-80gb-hbm3."""
    s = re.sub(r"^NVIDIA ", "", name).lower()
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def exit_meaning(rc, why1=""):
    """What a chapter's exit status means (the command-line contract)."""
    return {1: "a result was wrong" + why1, 2: "bad command line", 3: "CUDA error", 77: "no usable GPU",
            124: "timed out"}.get(rc, f"exit {rc}")


# ---- pages -------------------------------------------------------------------------------

def result_paths(directory, root=ROOT):
    """For results written into `directory`: (rel, pagerel, uprel) = the directory as seen
    from the root (for README.md), as seen from a chapter page (ending in "/"), and the root as
    seen from the directory (ending in "/"); absolute paths when it lies outside the root."""
    directory = os.path.abspath(directory)
    if directory == root or directory.startswith(root + os.sep):
        rel = os.path.relpath(directory, root)
        rel = "" if rel == "." else rel
        pagerel = "../../" + (rel + "/" if rel else "")
        uprel = "../" * (rel.count("/") + 1) if rel else ""
        return rel, pagerel, uprel
    return directory, directory + "/", root + "/"


def splice(path, begin, end, text):
    """Replace the lines between the marker lines `begin` and `end` of a file with `text`
    (which ends in a newline, or is empty); the rest stays byte for byte, and the file is
    written only when it changes. Returns 0 done, 3 the file lacks the markers (untouched)."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    out, state = [], 0
    for line in lines:
        stripped = line.strip()
        if state == 0 and stripped == begin:
            out.append(line)
            out.extend(text.split("\n")[:-1] if text else [])
            state = 1
        elif state == 1 and stripped == end:
            out.append(line)
            state = 2
        elif state != 1:
            out.append(line)
    if state != 2:
        return 3
    new = "\n".join(out)
    with open(path, encoding="utf-8", newline="") as f:
        old = f.read()
    if new != old:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(new)
    return 0
