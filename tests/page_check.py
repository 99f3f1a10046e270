#!/usr/bin/env python3
"""tests/page_check.py: every chapter page reads in one sitting.

For each chapters/NN-slug/README.md:
  - the reading budget: the lines before the first folded block (`<details`) are at most 250 for
    chapters 00-16 and 400 for chapters 17 and up, and so are the lines a student reads open,
    from the top to the evidence folded after "What to try" (folds before it not counted);
  - its figure: a Markdown image of docs/figures/chapterNN-*.svg before that fold, whose file
    exists and has a <title> and a <desc> (the alt text);
  - the evidence folded: the whole diff (<!-- diff:begin -->) and the counters block
    (<!-- counters:begin -->) lie inside a <details> block;
  - the answer key apart: no "Expected:" outcome on a chapter page.
Usage: python3 tests/page_check.py [ROOT]     (exit 0 all pages pass, 1 otherwise)
       python3 tests/page_check.py --self-test (each rule shown to fail on a page that breaks it)
"""
import os
import re
import sys
import tempfile


def budget(chapter):
    return 400 if chapter >= 17 else 250


def open_lesson_lines(lines):
    """The lines a student reads open: from the top to the first fold that follows the "What to
    try" heading (or the page's end), less the lines of folded blocks before it (such as the
    other GPU's results inside the Result section)."""
    count, depth, tried = 0, 0, False
    for line in lines:
        if line.startswith("## What to try"):
            tried = True
        if "<details" in line:
            if tried and depth == 0:
                break
            depth += 1
        if depth == 0:
            count += 1
        if "</details>" in line:
            depth -= 1
    return count


def check_page(path, chapter, root):
    """The problems of one page, as a list of messages (empty: the page passes)."""
    problems = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fold = next((i for i, l in enumerate(lines) if "<details" in l), len(lines))
    if fold > budget(chapter):
        problems.append(f"{fold} lines before the first fold (<details>), budget {budget(chapter)}")
    lesson = open_lesson_lines(lines)
    if lesson > budget(chapter):
        problems.append(f"the lesson (everything open up to the evidence folded after \"What to try\") is "
                        f"{lesson} lines, budget {budget(chapter)}")
    figure = None
    for line in lines[:fold]:
        m = re.search(r"!\[[^\]]+\]\(([^)]*docs/figures/chapter%02d-[^)]+\.svg)\)" % chapter, line)
        if m:
            figure = m.group(1)
            break
    if figure is None:
        problems.append(f"no figure (![alt](.../docs/figures/chapter{chapter:02d}-*.svg)) before the first fold")
    else:
        svg = os.path.normpath(os.path.join(os.path.dirname(path), figure))
        if not os.path.isfile(svg):
            problems.append(f"its figure {figure} does not exist")
        else:
            text = open(svg, encoding="utf-8").read()
            if "<title>" not in text or "<desc>" not in text:
                problems.append(f"its figure {figure} has no <title> or no <desc>")
    depth = 0
    for line in lines:
        depth += line.count("<details")
        depth -= line.count("</details>")
        for block in ("diff", "counters"):
            if line.strip() == f"<!-- {block}:begin -->" and depth <= 0:
                problems.append(f"the {block} block is not folded inside <details>")
    if any(re.match(r"\s*(\d+\.\s+)?Expected:", l) for l in lines):
        problems.append("an \"Expected:\" outcome (outcomes belong in docs/pages/solutions.md)")
    return problems


def check_all(root):
    base = os.path.join(root, "chapters")
    failures = 0
    pages = 0
    for name in sorted(os.listdir(base)):
        m = re.fullmatch(r"(\d\d)-.+", name)
        page = os.path.join(base, name, "README.md")
        if not m or not os.path.isfile(page):
            continue
        pages += 1
        for p in check_page(page, int(m.group(1)), root):
            print(f"page_check: chapters/{name}/README.md: {p}")
            failures += 1
    print(f"page_check: {pages} pages, {failures} problem(s)")
    return 1 if failures or pages == 0 else 0


GOOD = """# Chapter 03: A page {#chapter03}

## The idea

![Three trees](../../docs/figures/chapter03-tree.svg)

## What to try

1. Run `./chapter03`.

<details>
<summary>The whole change</summary>

<!-- diff:begin -->
<!-- diff:end -->

</details>

<details>
<summary>Every counter</summary>

<!-- counters:begin -->
<!-- counters:end -->

</details>
"""


def self_test():
    """Each rule must fail on a page made to break it, and a good page must pass."""
    cases = {
        "good page": (GOOD, None),
        "over budget": (GOOD.replace("## The idea\n", "## The idea\n" + "text\n" * 250), "lines before the first fold"),
        "lesson over budget": (GOOD.replace("## What to try\n", "<details>\n<summary>x</summary>\n\n</details>\n"
                                            + "text\n" * 250 + "## What to try\n"), "the lesson"),
        "no figure": (GOOD.replace("![Three trees](../../docs/figures/chapter03-tree.svg)", "no picture"), "no figure"),
        "missing svg": (GOOD.replace("chapter03-tree.svg", "chapter03-gone.svg"), "does not exist"),
        "diff open": (GOOD.replace("<details>\n<summary>The whole change</summary>", "", 1).replace("</details>", "", 1),
                      "diff block is not folded"),
        "expected": (GOOD.replace("1. Run `./chapter03`.", "1. Run `./chapter03`.\n   Expected: 42 GB/s"), "Expected"),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs", "figures"))
        with open(os.path.join(root, "docs", "figures", "chapter03-tree.svg"), "w") as f:
            f.write("<svg><title>t</title><desc>d</desc></svg>\n")
        d = os.path.join(root, "chapters", "03-tree")
        os.makedirs(d)
        page = os.path.join(d, "README.md")
        for name, (text, want) in cases.items():
            with open(page, "w") as f:
                f.write(text)
            got = check_page(page, 3, root)
            ok = (not got) if want is None else any(want in p for p in got)
            print(f"page_check self-test: {name}: {'ok' if ok else 'WRONG'} ({'; '.join(got) or 'passes'})")
            failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check_all(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
