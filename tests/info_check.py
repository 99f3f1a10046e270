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
null and the program must still exit 0. "cub" (the CUB the program was built with) is null or a
version such as "3.5.0".

Negative controls, on the output of the first chapter that passes: a broken JSON, a wrong slug, a
CUB version that is no version, a variant list that disagrees and a row name found only in the
Spec must each be reported, or the test fails.
Exit 0 all good, 1 a problem (each printed), 2 bad usage.
"""

import json
import os
import re
import subprocess
import sys

KEYS = ["chapter", "slug", "idea", "part", "op", "bytes_per_element", "bytes", "flags", "block", "batch",
        "variants", "default_kernels", "ceilings", "copy_kernels", "cub_pairs", "cub", "device"]
PARTS = {"ceiling", "reduction", "scan", "multi-gpu"}
BYTES = {"reduce": 4, "scan": 8}
DEVICE_KEYS = ["ordinal", "name", "sm", "sms", "l2_bytes", "peak_gbps"]


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


def check_chapter(cid, slug, info_text, variants_text, source):
    """The problems (a list of messages) in one chapter's --info and --list-variants output,
    given the chapter's number, slug and .cu source (None: no source to check the rows in)."""
    try:
        info = json.loads(info_text)
    except ValueError as e:
        return [f"--info is not JSON: {e}"]
    if not isinstance(info, dict):
        return ["--info is not a JSON object"]
    problems = []
    if json.dumps(info, indent=2, ensure_ascii=False) + "\n" != info_text:
        problems.append("--info is not laid out as json.dumps(indent=2) lays it out")
    # ceilings (chapter 00), copy_kernels (chapter 19's scans) and cub_pairs (chapter 20's
    # instances) only where a chapter has them.
    want_keys = [k for k in KEYS if k not in ("ceilings", "copy_kernels", "cub_pairs") or k in info]
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
    if cub is not None and not (isinstance(cub, str) and re.fullmatch(r"\d+\.\d+\.\d+", cub)):
        problems.append(f"cub is {cub!r}, neither null nor a version such as 3.5.0")
    device = info["device"]
    if device is not None and (not isinstance(device, dict) or list(device) != DEVICE_KEYS):
        problems.append(f"device is neither null nor an object with keys {DEVICE_KEYS}")
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


def negative_controls(cid, slug, info_text, variants_text, source):
    """Messages for the controls that were NOT reported (empty: each broken input was caught)."""
    info = json.loads(info_text)
    first_row = info["default_kernels"][0]
    controls = {
        "a broken JSON": (info_text[: len(info_text) // 2], variants_text, source),
        "a wrong slug": (info_text.replace(f'"slug": "{slug}"', f'"slug": "{slug}-x"'), variants_text, source),
        "a CUB version that is no version": (re.sub(r'\n  "cub": [^\n]*,\n', '\n  "cub": "3.5",\n', info_text),
                                             variants_text, source),
        "a variant list that disagrees": (info_text, variants_text + "extra\n", source),
        "an --info without its cub key": (re.sub(r'\n  "cub": [^\n]*,\n', '\n', info_text), variants_text, source),
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
        if not check_chapter(cid, slug, text, variants, src):
            missed.append(f"negative control: {what} was not reported")
    return missed


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) >= 2 and argv[0] == "--root":
        root, argv = argv[1], argv[2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    failures, controlled = [], False
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
        problems = check_chapter(cid, slug, info_text, variants_text, source)
        rc_hidden, hidden_text = run(program, "--info", hide_gpus=True)
        try:
            hidden_device = json.loads(hidden_text)["device"] if rc_hidden == 0 else "exit %d" % rc_hidden
        except (ValueError, KeyError, TypeError):
            hidden_device = "no JSON"
        if hidden_device is not None:
            problems.append(f"with CUDA_VISIBLE_DEVICES empty, device is {hidden_device!r}, not null")
        failures += [f"{name}: {p}" for p in problems]
        if not problems and not controlled:
            failures += [f"{name}: {m}" for m in negative_controls(cid, slug, info_text, variants_text, source)]
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
