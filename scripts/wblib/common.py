"""What every command shares: the repository's layout, the chapter programs and what they say
about themselves (--info, --list-variants), CSV reading, number formats and page blocks."""

import csv
import fnmatch
import json
import os
import re
import subprocess
import sys
import time

# The repository root: the parent of scripts/.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def say(script, message):
    """A message on stderr, prefixed with the script's name (stdout flushed first, so that a
    log holding both keeps their order)."""
    sys.stdout.flush()
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


# ---- the tree ------------------------------------------------------------------------------

def ignore_rules(root=ROOT):
    """root/.gitignore as (pattern, anchored, directories only) rules: the subset of git's syntax
    the workbook uses (a leading / anchors a pattern to the root, a trailing / matches directories
    only, *, ? and [...] as fnmatch reads them; a pattern with another / is anchored, as git
    does). ValueError names a line outside that subset; no .gitignore: no rule."""
    path = os.path.join(root, ".gitignore")
    if not os.path.isfile(path):
        return []
    rules = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            p = line.strip()
            if not p or p.startswith("#"):
                continue
            if p.startswith("!") or "**" in p or "\\" in p:
                raise ValueError(f"{path}:{n}: '{p}' is beyond what wblib.common.tree_files reads (no !, ** or \\)")
            dirs_only = p.endswith("/")
            p = p.rstrip("/")
            anchored = "/" in p
            rules.append((p.lstrip("/"), anchored, dirs_only))
    return rules


def tree_files(root=ROOT):
    """The workbook's files under root, as sorted relative paths with / between their parts:
    everything but .git and what .gitignore ignores (the builds, the programs copied to the root,
    unpacked wheels, __pycache__). Taken from the tree, not from git, so that a source archive
    lists the same files as a checkout; a file that is not ignored is listed, tracked or not."""
    rules = ignore_rules(root)

    def ignored(rel, is_dir):
        name = rel.rsplit("/", 1)[-1]
        if name == ".git":
            return True
        return any(fnmatch.fnmatchcase(rel if anchored else name, p) for p, anchored, dirs_only in rules
                   if is_dir or not dirs_only)

    found = []
    for d, dirs, files in os.walk(root):
        base = os.path.relpath(d, root).replace(os.sep, "/")
        base = "" if base == "." else base + "/"
        dirs[:] = [x for x in dirs if not ignored(base + x, True)]
        found += [base + x for x in files if not ignored(base + x, False)]
    return sorted(found)


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



def chapter_facts(root=ROOT):
    """docs/results/chapters.json (every chapter's --info without its device, written by
    `wb.py info --write`) as {"00": {...}, ...}; {} when the file is absent. What the render
    stages know about a chapter (its part, chapter 00's ceilings) without running it."""
    path = os.path.join(root, "docs", "results", "chapters.json")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {info["chapter"]: info for info in json.load(f)}


def say_elsewhere(root=ROOT):
    """Say (on stdout) which chapters the summary, profile and sanitizer runs leave to another
    script, so that a reader of the run's output does not look for them."""
    dirs = chapter_dirs(root)
    for cid, script in elsewhere(root).items():
        if cid in dirs:
            print(f"chapter{cid}: not run here; its results come from {script}", flush=True)


# ---- running chapters ----------------------------------------------------------------------

def skip(script, message):
    """A run that cannot happen here (no GPU, no tool): say why and return the exit status,
    77 (skipped), or 1 when REQUIRE_GPU=1 asks that a skip count as a failure."""
    say(script, message)
    if os.environ.get("REQUIRE_GPU", "0") == "1":
        say(script, "REQUIRE_GPU=1: a skip counts as a failure")
        return 1
    say(script, "skipped (exit 77)")
    return 77


def require_gpu(script, binary, notes=None):
    """Run a chapter once on a tiny input to learn whether there is a usable GPU: None when
    there is, else the status to exit with (skip(), with the chapter's own reason). A list
    given as `notes` receives the lines of the chapter's stderr (chapter 18 names its GPUs
    there)."""
    out = subprocess.run([binary, "--n", "1", "--reps", "1", "--warmup", "0", "--csv"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if notes is not None:
        notes.extend(out.stderr.splitlines())
    if out.returncode != 77:
        return None
    why = next((l for l in out.stderr.splitlines() if "no usable cuda device" in l.lower()), "no message")
    name = os.path.basename(binary)
    return skip(script, f"no usable CUDA GPU on this machine ({name} exited 77: {why})")


def run_logged(argv, log, seconds, stdout=subprocess.PIPE, env=None):
    """Run a chapter with a time limit, its stderr appended to the file `log`: (exit status,
    its stdout as text). 124 when it ran past `seconds`, as coreutils' timeout says. env: the
    environment (default this process's)."""
    with open(log, "a", encoding="utf-8") as err:
        try:
            out = subprocess.run(argv, stdout=stdout, stderr=err, text=True, timeout=seconds, env=env)
        except subprocess.TimeoutExpired as e:
            text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return 124, text
    return out.returncode, out.stdout or ""


def failed_run(cid, log, rc, why1=""):
    """What a failed run of chapter cid says in the failure list: "--variant V: MEANING" for a
    run whose log is chapterNN.V.log, "MEANING" for chapterNN.log (exit_meaning)."""
    name = os.path.basename(log)
    name = name[len(f"chapter{cid}"):] if name.startswith(f"chapter{cid}") else name
    name = name[:-len(".log")] if name.endswith(".log") else name
    variant = name[1:] if name.startswith(".") else name
    meaning = exit_meaning(rc, why1)
    return f"--variant {variant}: {meaning}" if variant else meaning


# ---- command lines -------------------------------------------------------------------------

class Usage(Exception):
    """A bad command line: the message is said and the command exits 2."""


def option_value(argv, i):
    """The value after option argv[i] (Usage when there is none)."""
    if i + 1 >= len(argv) or argv[i + 1] == "":
        raise Usage(f"{argv[i]} needs a value")
    return argv[i + 1]


def parse_options(argv, options, valued=(), switches=(), words=None, help=True):
    """The one walk over a command line that every command does. `valued` names the options
    that take a value (`--x V`): the value lands in options[KEY], KEY the name without "--" and
    with "-" as "_", unless `valued` is a dict that maps the option to a function (options,
    value) that records it; `switches` maps an option without a value to a function of
    `options`; any other word that does not start with "-" goes to words(options, word) (Usage
    when there is no such function). With `help`, -h and --help set options["help"] and end
    the walk (without, they are unknown options). Raises Usage for an unknown option or a
    missing value. Returns `options`."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if help and a in ("-h", "--help"):
            options["help"] = True
            break
        if a in valued:
            value = option_value(argv, i)
            if isinstance(valued, dict):
                valued[a](options, value)
            else:
                options[a[2:].replace("-", "_")] = value
            i += 1
        elif a in switches:
            switches[a](options)
        elif a.startswith("-") or words is None:
            raise Usage(f"unknown option '{a}' (see -h)")
        else:
            words(options, a)
        i += 1
    return options


def render_args(argv):
    """The command line of a render stage: [--date YYYY-MM-DD] CSV... -> (date or None, CSVs)."""
    o = parse_options(argv, {"date": None, "csvs": []}, valued=("--date",),
                      words=lambda o, w: o["csvs"].append(w), help=False)
    if not o["csvs"]:
        raise Usage("render needs a CSV (see -h)")
    return o["date"], o["csvs"]


def run_render_main(script, argv, usage, do_run, do_render):
    """The command line of a script with a run stage (needs the GPU) and a render stage (reads
    the CSV run wrote): `run ARGS`, `render ARGS` or `all ARGS` (run, then render what it wrote;
    --date goes to render, the rest to run). do_run(argv) returns (status, the list of CSVs it
    wrote, or None when it stopped before writing one); do_render(argv) a status. Returns the exit
    status (2 for a bad command line)."""
    cmd, rest = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if cmd in ("-h", "--help"):
            print(usage, end="")
            return 0
        if cmd == "run":
            return do_run(rest)[0]
        if cmd == "render":
            return do_render(rest)
        if cmd == "all":
            run_argv, render_argv, i = [], [], 0
            while i < len(rest):
                if rest[i] == "--date":
                    render_argv += ["--date", option_value(rest, i)]
                    i += 1
                else:
                    run_argv.append(rest[i])
                i += 1
            status, written = do_run(run_argv)
            if not written:
                return status  # the run ended before writing a CSV (no GPU, nothing built)
            if not all(os.path.isfile(p) for p in written):
                return 1
            if do_render(render_argv + written) != 0:
                return 1
            return status
    except Usage as e:
        say(script, str(e))
        return 2
    print(usage, end="", file=sys.stderr)
    return 2

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

def file_date(path):
    """A file's modification date, YYYY-MM-DD in local time (a render's date without --date)."""
    return time.strftime("%Y-%m-%d", time.localtime(os.path.getmtime(path)))


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


def gpu_short(name):
    """A GPU's name without its maker, for a page's title: "NVIDIA H200" -> "H200"."""
    return re.sub(r"^NVIDIA ", "", str(name)).strip() or str(name)


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


def fold_gpus(blocks):
    """One page block from the blocks of several GPUs, [(device name, text ending in a
    newline)] in the order given: the first stays open, each further one is folded in a
    <details> whose summary reads "The same on the <device>", its text set off by blank lines
    so that GitHub renders the Markdown inside. The blocks are separated by a blank line."""
    parts = []
    for i, (device, text) in enumerate(blocks):
        if i == 0:
            parts.append(text)
        else:
            parts.append(f"<details>\n<summary>The same on the {xml(device)}</summary>\n\n{text}\n</details>\n")
    return "\n".join(parts)
