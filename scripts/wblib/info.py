"""info: docs/results/chapters.json, every chapter's --info without its device and its CUB.

  python3 scripts/wb.py info [--bin-dir DIR]           print it, from the built programs
  python3 scripts/wb.py info --write [--bin-dir DIR]   write docs/results/chapters.json
  python3 scripts/wb.py info --check [--bin-dir DIR]   exit 1, showing the difference, where
                                                       the committed file and the programs differ

The render stages read the file so that they need no program and no GPU: a chapter's part
(ceiling, reduction, scan, multi-gpu) and chapter 00's ceiling kernels. Its layout is fixed
(chapters sorted, 2-space indent, a newline at the end), so the same programs write the same
bytes. A chapter whose program is not built keeps its entry (--write) or is reported as
skipped (--check); --check exits 77 when no program is built at all."""

import difflib
import json
import os
import sys

from . import common
from .common import ROOT

SCRIPT = "info"

USAGE = """\
usage: python3 scripts/wb.py info [--write | --check] [--bin-dir DIR]

  (nothing)       print docs/results/chapters.json as the built programs describe themselves
  --write         write it
  --check         compare it with the committed file: exit 1 and show the difference where
                  they differ, 77 when no chapter is built; a chapter not built is skipped
  --bin-dir DIR   where the chapterNN programs are (default: repository root, then build/)
Exit: 0 done (or up to date), 1 a program failed or the file is stale, 2 bad usage, 77 nothing built.
"""


def path_of(root=ROOT):
    return os.path.join(root, "docs", "results", "chapters.json")


def dump(entries):
    """The file's text: the entries sorted by chapter, 2-space indent, a final newline."""
    return json.dumps(sorted(entries, key=lambda e: e["chapter"]), indent=2, ensure_ascii=False) + "\n"


def committed(root=ROOT):
    """The committed entries by chapter ({} without the file)."""
    path = path_of(root)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {e["chapter"]: e for e in json.load(f)}


def from_programs(bin_dir, root=ROOT):
    """({chapter: its --info without "device" and "cub"} for every built chapter, [chapters not
    built], [chapters whose --info failed]). Both are facts of the machine and the build (the CUB
    found when it was configured), not of the chapter, so the committed file holds neither."""
    found, unbuilt, failed = {}, [], []
    for cid in common.chapter_dirs(root):
        binary = common.find_binary(cid, bin_dir, root)
        if not binary:
            unbuilt.append(cid)
            continue
        info = common.program_info(binary)
        if not isinstance(info, dict) or info.get("chapter") != cid:
            failed.append(cid)
            continue
        info.pop("device", None)
        info.pop("cub", None)
        found[cid] = info
    return found, unbuilt, failed


def main(argv):
    try:
        o = common.parse_options(argv, {"mode": "print", "bin_dir": None, "help": False}, valued=("--bin-dir",),
                                 switches={"--write": lambda o: o.update(mode="write"),
                                           "--check": lambda o: o.update(mode="check")})
    except common.Usage as e:
        common.say(SCRIPT, str(e))
        return 2
    if o["help"]:
        print(USAGE, end="")
        return 0
    mode, bin_dir = o["mode"], o["bin_dir"]
    found, unbuilt, failed = from_programs(bin_dir)
    for cid in failed:
        common.say(SCRIPT, f"chapter{cid} --info printed no description of chapter {cid}")
    if failed:
        return 1
    old = committed()
    if mode == "check":
        return check(found, unbuilt, old)
    for cid in unbuilt:
        if cid in old:
            common.say(SCRIPT, f"chapter{cid}: not built; its entry is kept as it was")
            found[cid] = old[cid]
        else:
            common.say(SCRIPT, f"chapter{cid}: not built and not in {os.path.relpath(path_of(), ROOT)}; left out")
    text = dump(found.values())
    if mode == "print":
        sys.stdout.write(text)
        return 0
    with open(path_of(), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"info: wrote {os.path.relpath(path_of(), ROOT)} ({len(found)} chapters)")
    return 0


def check(found, unbuilt, old):
    """--check: each built chapter's entry against the committed one."""
    shown = os.path.relpath(path_of(), ROOT)
    for cid in unbuilt:
        print(f"chapter{cid}: not built, skipped")
    if not found:
        common.say(SCRIPT, "no chapter program found: build them first (make all); skipped (exit 77)")
        return 77
    stale = 0
    for cid in sorted(set(old) - set(common.chapter_dirs())):
        common.say(SCRIPT, f"{shown} describes chapter {cid}, which has no chapters/{cid}-*/ directory")
        stale += 1
    for cid, info in sorted(found.items()):
        if old.get(cid) == info:
            print(f"chapter{cid}: up to date")
            continue
        stale += 1
        want = dump([old[cid]]) if cid in old else ""
        got = dump([info])
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                   f"{shown} (chapter {cid})", f"chapter{cid} --info"))
    if stale:
        common.say(SCRIPT, f"{shown} is stale: write it with `python3 scripts/wb.py info --write`")
        return 1
    return 0
