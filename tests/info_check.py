#!/usr/bin/env python3
"""info_check.py [--root DIR] PROGRAM...: check what each chapter program says about itself.

For every chapterNN program given, run `--info` and `--list-variants` (no GPU needed) and check:
both exit 0; the JSON parses and is laid out as json.dumps(indent=2) lays it out, with the keys
in their fixed order; chapter and slug are those of its directory chapters/NN-slug/; part is one
of the four; bytes_per_element is what op counts (4 for a reduction, 8 for a scan); the variant
names are the --list-variants lines; default_kernels is the first variant's list; the flags match
block, batch and variants; and every row name (kernels, default_kernels, ceilings) is a string
literal of the chapter's .cu file outside the statements that fill its wb::Spec, so that a
declared name is one the code really reports (skipped for a stand-in whose directory holds no
.cu file, such as the tests' fake chapters). With CUDA_VISIBLE_DEVICES empty, "device" must be
null and the program must still exit 0; where it is an object, its keys are those that
common/wb_options.h's device_json sets, in its order (read from there, so that the check follows the
code that writes them). "cub" (the CUB the program was built with) is null or a version such as
"3.5.0"; "needs_cub", where a chapter has it, maps rows of its variants to the CUB version each
needs, whatever CUB the program was built with.

Negative controls, on the output of the first chapter that passes: a broken JSON, a wrong slug, a
CUB version that is no version, a variant list that disagrees, a row name found only in the Spec,
a device object without one of its keys, and a needs_cub naming a row no variant reports or a
version that is no version must each be reported, or the test fails; the same output with a
device object of every key, and with a needs_cub of one of its rows, must pass.
Exit 0 all good, 1 a problem (each printed), 2 bad usage.
"""

import json
import os
import re
import subprocess
import sys

KEYS = ["chapter", "slug", "idea", "part", "op", "bytes_per_element", "bytes", "flags", "block", "batch",
        "variants", "default_kernels", "ceilings", "copy_kernels", "cub_pairs", "needs_cub", "cub", "device"]
OPTIONAL_KEYS = ("ceilings", "copy_kernels", "cub_pairs", "needs_cub")
PARTS = {"ceiling", "reduction", "scan", "multi-gpu"}
BYTES = {"reduce": 4, "scan": 8}
VERSION = re.compile(r"\d+\.\d+\.\d+")


def device_keys():
    """The keys of --info's device object, in order: those that wb::device_json sets, in this
    workbook's common/wb_options.h (beside tests/, whatever --root names). Only a GPU machine prints
    one, so a list kept here would go stale unseen by the host tests; read from the code, it cannot.
    SystemExit where the function or its keys are not found."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common", "wb_options.h")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit(f"info_check: cannot read {path}: {e}")
    m = re.search(r"\ninline Json device_json\(.*?\n}\n", text, re.S)
    keys = re.findall(r'\.set\("(\w+)"', m.group(0)) if m else []
    if not keys:
        raise SystemExit(f"info_check: no device_json setting keys in {path}: cannot check --info's device")
    return keys


def code_outside_spec(source):
    """The source without the statements that fill the Spec: from a line that starts with
    `spec.` to the line that ends that statement with `;`."""
    kept, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if not inside and stripped.startswith("spec."):
            inside = True
        if inside:
            inside = not stripped.endswith(";")
            continue
        kept.append(line)
    return "\n".join(kept)


def string_literals(code):
    """Every string literal of C++ code, as written between its quotes."""
    return set(re.findall(r'"((?:[^"\\\n]|\\.)*)"', code))


def check_chapter(cid, slug, info_text, variants_text, source, device_keys):
    """The problems (a list of messages) in one chapter's --info and --list-variants output,
    given the chapter's number, slug and .cu source (None: no source to check the rows in) and
    the keys a device object has."""
    try:
        info = json.loads(info_text)
    except ValueError as e:
        return [f"--info is not JSON: {e}"]
    if not isinstance(info, dict):
        return ["--info is not a JSON object"]
    problems = []
    if json.dumps(info, indent=2, ensure_ascii=False) + "\n" != info_text:
        problems.append("--info is not laid out as json.dumps(indent=2) lays it out")
    # ceilings (chapter 00), copy_kernels (chapter 19's scans), cub_pairs (chapter 20's
    # instances) and needs_cub (chapter 19's determinism rows) only where a chapter has them.
    want_keys = [k for k in KEYS if k not in OPTIONAL_KEYS or k in info]
    if list(info) != want_keys:
        problems.append(f"keys {list(info)}, expected {want_keys}")
        missing = [k for k in want_keys if k not in info]
        if missing:  # the checks below read them (a program built before a key was added)
            return problems + [f"no {', '.join(missing)}: rebuild the program?"]
    rows = {k for v in info.get("variants") or [] for k in v.get("kernels", [])} | set(info.get("default_kernels") or [])
    for k in info.get("copy_kernels", []):
        if k not in rows:
            problems.append(f"copy_kernels names {k}, which no variant reports")
    # cub_pairs: a workbook row -> the CUB row it is compared with, both rows the chapter reports.
    for ours, cub in (info.get("cub_pairs") or {}).items():
        if ours not in rows or ours.startswith("cub"):
            problems.append(f"cub_pairs pairs {ours}, which is no workbook row of a variant")
        if cub not in rows or not cub.startswith("cub"):
            problems.append(f"cub_pairs pairs {ours} with {cub}, which is no CUB row of a variant")
    # needs_cub: a row of a variant -> the oldest CUB that runs it. The same whatever CUB the
    # program has (a build with an older CUB lists the row and leaves it out when it runs).
    needs = info.get("needs_cub", {})
    if not isinstance(needs, dict) or (not needs and "needs_cub" in info):
        problems.append("needs_cub is not an object naming at least one row")
        needs = {}
    for row, version in needs.items():
        if row not in rows:
            problems.append(f"needs_cub names {row}, which no variant reports")
        if not (isinstance(version, str) and VERSION.fullmatch(version)):
            problems.append(f"needs_cub gives {row} the CUB {version!r}, which is no version such as 3.1.0")
    if info["chapter"] != cid or info["slug"] != slug:
        problems.append(f"chapter/slug {info['chapter']}/{info['slug']}, expected {cid}/{slug}")
    if info["part"] not in PARTS:
        problems.append(f"part {info['part']!r} is not one of {sorted(PARTS)}")
    if info["op"] not in BYTES or info["bytes_per_element"] != BYTES[info["op"]]:
        problems.append(f"op {info['op']!r} with bytes_per_element {info['bytes_per_element']!r}")
    if not isinstance(info["bytes"], str) or not info["bytes"]:
        problems.append("bytes is not a sentence")
    names = [v.get("name") for v in info["variants"]]
    listed = variants_text.splitlines()
    if names != listed:
        problems.append(f"variants {names}, but --list-variants prints {listed}")
    flags = info["flags"]
    for flag, present in (("--variant", bool(names)), ("--block", info["block"] is not None),
                          ("--batch", info["batch"] is not None)):
        if (flag in flags) != present:
            problems.append(f"flags {'lack' if present else 'have'} {flag}")
    if flags[:8] != ["--n", "--offset", "--reps", "--warmup", "--seed", "--no-flush", "--csv", "--device"]:
        problems.append(f"flags do not start with the shared ones: {flags}")
    rows = {"default_kernels": info["default_kernels"]}
    for v in info["variants"]:
        rows[f"variant {v.get('name')}"] = v.get("kernels") or []
    if names and info["default_kernels"] != info["variants"][0]["kernels"]:
        problems.append("default_kernels is not the first variant's list")
    if "ceilings" in info:
        rows["ceilings"] = info["ceilings"]["copy"] + info["ceilings"]["read"]
        if not set(rows["ceilings"]) <= set(info["default_kernels"]):
            problems.append("a ceiling row is not among default_kernels")
    literals = string_literals(code_outside_spec(source)) if source is not None else None
    for where, kernels in rows.items():
        if not kernels:
            problems.append(f"{where}: no rows")
        for k in kernels:
            if literals is not None and k not in literals:
                problems.append(f"{where}: '{k}' is no string literal of the source outside its Spec")
    cub = info["cub"]
    if cub is not None and not (isinstance(cub, str) and VERSION.fullmatch(cub)):
        problems.append(f"cub is {cub!r}, neither null nor a version such as 3.5.0")
    device = info["device"]
    if device is not None and (not isinstance(device, dict) or list(device) != device_keys):
        problems.append(f"device is neither null nor an object with keys {device_keys}")
    return problems


def run(program, flag, hide_gpus=False):
    """(exit status, standard output) of `program flag`."""
    env = dict(os.environ)
    if hide_gpus:
        env["CUDA_VISIBLE_DEVICES"] = ""
    try:
        out = subprocess.run([program, flag], capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return 124, ""
    return out.returncode, out.stdout


def chapter_of(program, root):
    """(NN, slug, source text) of chapterNN's directory (source None where it holds no .cu
    file), or None where there is no such directory or it holds several .cu files."""
    m = re.fullmatch(r"chapter(\d\d)", os.path.basename(program))
    base = os.path.join(root, "chapters")
    for name in sorted(os.listdir(base)) if m else []:
        if name.startswith(m.group(1) + "-"):
            sources = [f for f in sorted(os.listdir(os.path.join(base, name))) if f.endswith(".cu")]
            if not sources:
                return m.group(1), name[3:], None
            if len(sources) == 1:
                with open(os.path.join(base, name, sources[0]), encoding="utf-8") as f:
                    return m.group(1), name[3:], f.read()
    return None


def with_keys(info, **values):
    """--info's text for `info` with the keys in `values` set, laid out in KEYS' order."""
    merged = dict(info, **values)
    return json.dumps({k: merged[k] for k in KEYS if k in merged}, indent=2, ensure_ascii=False) + "\n"


def negative_controls(cid, slug, info_text, variants_text, source, device_keys):
    """Messages for the controls that were NOT reported, or for the right inputs that were
    (empty: each broken input was caught, each right one passed)."""
    info = json.loads(info_text)
    first_row = info["default_kernels"][0]
    # A device object of every key (a GPU machine's --info) and a needs_cub of one of the rows.
    device = {k: i for i, k in enumerate(device_keys)}
    right = {
        "a device object with every key": with_keys(info, device=device),
        "a needs_cub of one of its rows": with_keys(info, needs_cub={first_row: "3.1.0"}),
    }
    controls = {
        "a broken JSON": (info_text[: len(info_text) // 2], variants_text, source),
        "a wrong slug": (info_text.replace(f'"slug": "{slug}"', f'"slug": "{slug}-x"'), variants_text, source),
        "a CUB version that is no version": (re.sub(r'\n  "cub": [^\n]*,\n', '\n  "cub": "3.5",\n', info_text),
                                             variants_text, source),
        "a variant list that disagrees": (info_text, variants_text + "extra\n", source),
        "an --info without its cub key": (re.sub(r'\n  "cub": [^\n]*,\n', '\n', info_text), variants_text, source),
        "a device object without its last key": (
            with_keys(info, device={k: i for i, k in enumerate(device_keys[:-1])}), variants_text, source),
        "a needs_cub naming a row no variant reports": (
            with_keys(info, needs_cub={first_row + "_x": "3.1.0"}), variants_text, source),
        "a needs_cub version that is no version": (with_keys(info, needs_cub={first_row: "3.1"}), variants_text, source),
        "an empty needs_cub": (with_keys(info, needs_cub={}), variants_text, source),
        "a row name found only in the Spec": (
            info_text, variants_text,
            "\n".join(l for l in (source or "").splitlines()
                      if f'"{first_row}"' not in l or l.strip().startswith("spec."))
            + f'\n  spec.kernels = {{"{first_row}"}};\n'),
    }
    if "cub_pairs" in info:
        first_pair = next(iter(info["cub_pairs"]))
        controls["a pair with a row no variant reports"] = (
            info_text.replace(f'"{first_pair}": "', f'"{first_pair}": "x', 1), variants_text, source)
    if source is None:
        del controls["a row name found only in the Spec"]
    missed = []
    for what, (text, variants, src) in controls.items():
        if not check_chapter(cid, slug, text, variants, src, device_keys):
            missed.append(f"negative control: {what} was not reported")
    for what, text in right.items():
        for p in check_chapter(cid, slug, text, variants_text, source, device_keys):
            missed.append(f"control: {what} was refused: {p}")
    return missed


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) >= 2 and argv[0] == "--root":
        root, argv = argv[1], argv[2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    failures, controlled = [], False
    keys = device_keys()
    for program in argv:
        name = os.path.basename(program)
        chapter = chapter_of(program, root)
        if chapter is None:
            failures.append(f"{name}: no chapters/NN-slug/ directory with at most one .cu file for it")
            continue
        cid, slug, source = chapter
        rc_info, info_text = run(program, "--info")
        rc_list, variants_text = run(program, "--list-variants")
        if rc_info != 0 or rc_list != 0:
            failures.append(f"{name}: --info exited {rc_info}, --list-variants exited {rc_list} (0 expected)")
            continue
        problems = check_chapter(cid, slug, info_text, variants_text, source, keys)
        rc_hidden, hidden_text = run(program, "--info", hide_gpus=True)
        try:
            hidden_device = json.loads(hidden_text)["device"] if rc_hidden == 0 else "exit %d" % rc_hidden
        except (ValueError, KeyError, TypeError):
            hidden_device = "no JSON"
        if hidden_device is not None:
            problems.append(f"with CUDA_VISIBLE_DEVICES empty, device is {hidden_device!r}, not null")
        failures += [f"{name}: {p}" for p in problems]
        if not problems and not controlled:
            failures += [f"{name}: {m}" for m in negative_controls(cid, slug, info_text, variants_text, source, keys)]
            controlled = True
        print(f"{name}: {'ok' if not problems else 'problems (below)'}")
    if not controlled and not failures:
        failures.append("no chapter passed, so the negative controls did not run")
    for f in failures:
        print(f"FAIL {f}")
    print(f"info_check: {len(argv)} program(s), {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
