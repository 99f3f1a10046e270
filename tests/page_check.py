#!/usr/bin/env python3
"""tests/page_check.py: every chapter page reads in one sitting.

For each chapters/NN-slug/README.md:
  - the reading budget: what a student reads open, outside <details> blocks (a fold inside a fold
    too), is at most 2,000 prose words and at most 120 lines of code. Prose words are the runs of
    letters, digits and _ outside code fences and outside table rows (lines that start with |),
    HTML tags and comments and link targets removed; code lines are the lines inside the code
    fences (measure());
  - the lines before the first folded block (`<details`) are at most 250 for chapters 00-16 and
    400 for chapters 17 and up, and so are the lines a student reads open, from the top to the
    evidence folded after "What to try" (folds before it not counted);
  - it opens with the lesson and its figure: the first section after the title is "## The idea",
    and the chapter's figure stands in it before any code block;
  - its figure: a Markdown image of docs/figures/chapterNN-*.svg before that fold, whose file
    exists and has a <title> and a <desc> (the alt text);
  - the evidence folded: the whole diff (<!-- diff:begin -->) and the counters block
    (<!-- counters:begin -->) lie inside a <details> block;
  - the answer key apart: no "Expected:" outcome on a chapter page.
It prints a table of every page: its prose words and code lines open, and the figures it shows
open (docs/figures, then the results charts), then one line per problem.
Usage: python3 tests/page_check.py [ROOT]     (exit 0 all pages pass, 1 otherwise)
       python3 tests/page_check.py --self-test (each rule shown to fail on a page that breaks it)
"""
import os
import re
import sys
import tempfile


# The reading budget of a page's open part (outside <details>).
MAX_WORDS = 2000
MAX_CODE_LINES = 120
# The section a page opens with: the lesson.
LESSON = "## The idea"
FIGURE = r"!\[[^\]]+\]\(([^)]*docs/figures/chapter%02d-[^)]+\.svg)\)"


def budget(chapter):
    return 400 if chapter >= 17 else 250


def open_part(text):
    """The page as a student reads it open: every <details> block taken out, a fold inside a fold
    with it (where no fold holds another, the same as re.sub(r"<details.*?</details>", "", text,
    flags=re.S), which would leave the end of an outer fold, after an inner one, counted open)."""
    out, depth, start = [], 0, 0
    for m in re.finditer(r"<details|</details>", text):
        if m.group(0) == "<details":
            if depth == 0:
                out.append(text[start:m.start()])
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                start = m.end()
    if depth == 0:
        out.append(text[start:])
    return "".join(out)


def measure(text):
    """(prose words, code lines) of the open part of a page's text: code lines are the lines
    between the fences of each code block; prose words the words outside code blocks and outside
    table rows, once HTML tags (and comments) are removed and each link keeps only its text."""
    t = open_part(text)
    code = sum(c.count("\n") - 1 for c in re.findall(r"```.*?```", t, flags=re.S))
    rest = re.sub(r"```.*?```", "", t, flags=re.S)
    prose = "\n".join(l for l in rest.split("\n") if not l.lstrip().startswith("|"))
    prose = re.sub(r"\]\([^)]*\)", "]", re.sub(r"<[^>]+>", " ", prose))
    return len(re.findall(r"\w+", prose)), code


def open_figures(text):
    """The images a student sees open, by file name: the figures (docs/figures) first, then the
    others (the results charts), each in the order of the page."""
    found = [os.path.basename(m) for m in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", open_part(text))]
    return [f for f in found if f.startswith("chapter")] + [f for f in found if not f.startswith("chapter")]


def opening_problems(lines, chapter):
    """Why a page does not open with the lesson and its figure ([] when it does): its first
    section must be LESSON and hold the chapter's figure before any code block."""
    headings = [i for i, l in enumerate(lines) if l.startswith("## ")]
    if not headings or lines[headings[0]].rstrip() != LESSON:
        first = lines[headings[0]].rstrip() if headings else "none"
        return [f"it does not open with the lesson: its first section is {first!r}, not {LESSON!r}"]
    end = headings[1] if len(headings) > 1 else len(lines)
    for line in lines[headings[0]:end]:
        if line.lstrip().startswith("```"):
            return ["it does not open with the lesson and its figure: a code block comes before the "
                    f"chapter's figure in {LESSON!r}"]
        if re.search(FIGURE % chapter, line):
            return []
    return [f"it does not open with the lesson and its figure: no figure of the chapter in {LESSON!r}"]


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
        text = f.read()
    lines = text.split("\n")
    words, code = measure(text)
    if words > MAX_WORDS:
        problems.append(f"{words} prose words open (outside <details>, code and tables), budget {MAX_WORDS}")
    if code > MAX_CODE_LINES:
        problems.append(f"{code} lines of code open (outside <details>), budget {MAX_CODE_LINES}")
    problems += opening_problems(lines, chapter)
    fold = next((i for i, l in enumerate(lines) if "<details" in l), len(lines))
    if fold > budget(chapter):
        problems.append(f"{fold} lines before the first fold (<details>), budget {budget(chapter)}")
    lesson = open_lesson_lines(lines)
    if lesson > budget(chapter):
        problems.append(f"the lesson (everything open up to the evidence folded after \"What to try\") is "
                        f"{lesson} lines, budget {budget(chapter)}")
    figure = None
    for line in lines[:fold]:
        m = re.search(FIGURE % chapter, line)
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
    failures = []
    table = [f"| chapter | prose words (at most {MAX_WORDS}) | code lines (at most {MAX_CODE_LINES}) | figures open |",
             "| --- | ---: | ---: | --- |"]
    for name in sorted(os.listdir(base)):
        m = re.fullmatch(r"(\d\d)-.+", name)
        page = os.path.join(base, name, "README.md")
        if not m or not os.path.isfile(page):
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        words, code = measure(text)
        table.append(f"| {name} | {words:,}{' (over)' if words > MAX_WORDS else ''} | "
                     f"{code}{' (over)' if code > MAX_CODE_LINES else ''} | {', '.join(open_figures(text)) or '-'} |")
        failures += [f"chapters/{name}/README.md: {p}" for p in check_page(page, int(m.group(1)), root)]
    print("page_check: what a student reads open on each chapter page (outside <details>)\n")
    print("\n".join(table) + "\n")
    for p in failures:
        print(f"page_check: {p}")
    pages = len(table) - 2
    print(f"page_check: {pages} pages, {len(failures)} problem(s)")
    return 1 if failures or pages == 0 else 0


GOOD = """# Chapter 03: A page {#chapter03}

## The idea

![Three trees](../../docs/figures/chapter03-tree.svg)

## The code

```cpp
int x = 0;
```

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


def filler(words, tagged=False):
    """Prose that brings GOOD's open part to exactly `words` prose words: plain words, or (tagged)
    words behind HTML comments, in bold tags and with link targets, none of which may count."""
    n = words - measure(GOOD)[0]
    if not tagged:
        return " ".join(["word"] * n)
    return " ".join(["<!-- num h200 k 2^30 gbps -->word"] * (n - 2)) + " <b>two</b> [words](../x/y/z.md)"


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
        # The reading budget: 2,000 words open pass and 2,001 fail; folded or in a table they pass,
        # and tags, HTML and link targets add none; 121 lines of code open fail, folded they pass.
        "prose at the budget": (GOOD.replace("## The code\n", "## The code\n\n" + filler(MAX_WORDS) + "\n"), None),
        "prose over budget": (GOOD.replace("## The code\n", "## The code\n\n" + filler(MAX_WORDS + 1) + "\n"),
                              "2001 prose words open"),
        "prose folded": (GOOD.replace("## What to try\n", "<details>\n<summary>x</summary>\n\n" + filler(MAX_WORDS + 1)
                                      + "\n\n</details>\n\n## What to try\n"), None),
        "prose in a table": (GOOD.replace("## The code\n", "## The code\n\n| " + filler(MAX_WORDS + 1) + " |\n"), None),
        "prose with tags and links": (GOOD.replace("## The code\n", "## The code\n\n" + filler(MAX_WORDS, True) + "\n"),
                                      None),
        "prose after a fold in a fold": (GOOD.replace("## What to try\n", "<details>\n<summary>x</summary>\n\n"
                                                      "<details>\n<summary>y</summary>\n\n</details>\n\n"
                                                      + filler(MAX_WORDS + 1) + "\n\n</details>\n\n## What to try\n"), None),
        "code over budget": (GOOD.replace("int x = 0;\n", "int x = 0;\n" * 121), "lines of code open"),
        "code folded": (GOOD.replace("## What to try\n", "<details>\n<summary>x</summary>\n\n```\n" + "x\n" * 121
                                     + "```\n\n</details>\n\n## What to try\n"), None),
        "no lesson first": (GOOD.replace("## The idea\n", "## The code first\n\n```\nx\n```\n\n## The idea\n"),
                            "does not open with the lesson"),
        "code before the figure": (GOOD.replace("## The idea\n", "## The idea\n\n```\nx\n```\n"),
                                   "a code block comes before"),
        "figure later": (GOOD.replace("![Three trees](../../docs/figures/chapter03-tree.svg)\n", "").replace(
            "## What to try", "![Three trees](../../docs/figures/chapter03-tree.svg)\n\n## What to try"),
            "no figure of the chapter in"),
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
