#!/usr/bin/env python3
"""Unit tests of scripts/wblib (the Python tooling), no GPU and no chapter program needed.

Run: python3 tests/test_wblib.py [-v]   (ctest: host_wblib). Each module's tests are a TestCase
class of their own; every check has a negative control that shows it can fail."""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

from wblib import common  # noqa: E402
from wblib import figures  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


class ReadCsvTest(unittest.TestCase):
    """common.read_csv: the csv module's reading, header-keyed, with required columns."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wb-test-")
        self.addCleanup(shutil.rmtree, self.dir)

    def csv(self, text):
        path = os.path.join(self.dir, "t.csv")
        write(path, text)
        return path

    def test_quoted_field_keeps_commas_and_quotes(self):
        line = '05,reduce_x,1024,256,1,"tile=256x8, window=4 ""tuned""",PASS'
        path = self.csv("chapter,kernel,n,block,batch,config,verified\n" + line + "\n")
        rows = common.read_csv(path, ["config"])
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["config"], 'tile=256x8, window=4 "tuned"')
        self.assertEqual(rows[0]["verified"], "PASS")
        # Negative control: splitting on commas cuts the quoted field in two and shifts the rest.
        naive = dict(zip("chapter,kernel,n,block,batch,config,verified".split(","), line.split(",")))
        self.assertNotEqual(naive["config"], rows[0]["config"])
        self.assertNotEqual(naive["verified"], "PASS")

    def test_values_above_2_to_the_32_stay_exact(self):
        path = self.csv("chapter,kernel,n\n11,reduce_best,4294967303\n")
        n = common.number(common.read_csv(path, ["n"])[0]["n"])
        self.assertEqual(n, 4294967303)
        self.assertIsInstance(n, int)
        self.assertEqual(common.pow2(n), "4294967303")
        self.assertEqual(common.pow2(4294967296), "2^32")
        # Negative control: %g formatting (awk's default for numbers) mangles it.
        self.assertEqual("%g" % n, "4.29497e+09")
        self.assertNotEqual(common.pow2(n), "%g" % n)

    def test_missing_required_column_is_named(self):
        path = self.csv("chapter,kernel,median_ms\n05,reduce_x,1.0\n")
        with self.assertRaises(common.CsvError) as caught:
            common.read_csv(path, ["chapter", "verified"])
        self.assertIn("verified", str(caught.exception))
        self.assertNotIn("chapter,", str(caught.exception))
        # Negative control: the columns that are there do not raise.
        self.assertEqual(common.read_csv(path, ["chapter", "median_ms"])[0]["median_ms"], "1.0")

    def test_missing_file(self):
        with self.assertRaises(common.CsvError):
            common.read_csv(os.path.join(self.dir, "none.csv"))
        # Negative control: an existing file reads.
        self.assertEqual(common.read_csv(self.csv("a\n1\n")), [{"a": "1"}])


# ---- summary ---------------------------------------------------------------------------------

HEADER = "chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,run,device,peak_gbps\n"
FACTS = [{"chapter": "00", "part": "ceiling", "ceilings": {"copy": ["copy_a", "copy_b"], "read": ["read_a"]}},
         {"chapter": "01", "part": "reduction"}, {"chapter": "11", "part": "reduction"},
         {"chapter": "12", "part": "scan"}]


def row(ch, kernel, n, ms, gbps, run="main", ok="PASS"):
    return f"{ch},{kernel},{n},256,1,{ms},{ms},{gbps},{gbps / 48.14:.1f},{ok},{run},NVIDIA H200,4814\n"


class SummaryRenderTest(unittest.TestCase):
    """summary render on a small layout: facts from chapters.json, numbers exact."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="wb-summary-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copytree(os.path.join(os.path.dirname(HERE), "scripts"), os.path.join(self.root, "scripts"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for d in ("00-light", "01-naive", "11-best", "12-scan"):
            os.makedirs(os.path.join(self.root, "chapters", d))
        write(os.path.join(self.root, "chapters", "11-best", "README.md"),
              "# 11\n\n<!-- results:begin -->\n<!-- results:end -->\n\n<!-- sweep:begin -->\n<!-- sweep:end -->\n")

    def facts(self, facts):
        write(os.path.join(self.root, "docs", "results", "chapters.json"), json.dumps(facts, indent=2) + "\n")

    def render(self, rows):
        write(os.path.join(self.root, "docs", "results", "g.csv"), HEADER + "".join(rows))
        return subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "summary", "render",
                               "--date", "2026-01-02", "docs/results/g.csv"], cwd=self.root, capture_output=True, text=True)

    def read(self, *path):
        with open(os.path.join(self.root, *path), encoding="utf-8") as f:
            return f.read()

    def base_rows(self, n=1073741824):
        return [row("00", "copy_a", n, 2.0, 4000.0), row("00", "copy_b", n, 1.9, 4200.0), row("00", "read_a", n, 1.0, 4400.0),
                row("01", "reduce_atomic", n, 20.0, 200.0), row("11", "reduce_best", n, 1.0, 4300.0),
                row("11", "cub_device_reduce_sum", n, 1.1, 4100.0), row("12", "scan_x", n, 4.0, 2100.0)]

    def test_parts_and_ceilings_come_from_chapters_json(self):
        self.facts(FACTS)
        out = self.render(self.base_rows())
        self.assertEqual(out.returncode, 0, out.stderr)
        page = self.read("docs", "results", "g.md")
        self.assertIn("read-only 4400.0 GB/s, copy 4200.0 GB/s.", page)
        # Chapter 12 is a scan: judged against the copy ceiling (2100 / 4200 = 50.0%).
        self.assertIn("| 12 | scan_x | 2^30 | 256 | 1 | 4.000 | 4.000 | 2100.0 | 43.6% | 50.0% | PASS |", page)
        # Negative control: told chapter 12 is a reduction, the same row is against the read ceiling.
        self.facts([f if f["chapter"] != "12" else {"chapter": "12", "part": "reduction"} for f in FACTS])
        self.assertEqual(self.render(self.base_rows()).returncode, 0)
        self.assertIn("| 12 | scan_x | 2^30 | 256 | 1 | 4.000 | 4.000 | 2100.0 | 43.6% | 47.7% | PASS |",
                      self.read("docs", "results", "g.md"))

    def test_unknown_chapter_is_refused(self):
        self.facts([f for f in FACTS if f["chapter"] != "12"])
        out = self.render(self.base_rows())
        self.assertEqual(out.returncode, 1)
        self.assertIn("12", out.stderr)
        self.assertIn("chapters.json", out.stderr)
        # Negative control: with chapter 12 known, the same CSV renders.
        self.facts(FACTS)
        self.assertEqual(self.render(self.base_rows()).returncode, 0)

    def test_sizes_past_2_to_the_32_stay_apart(self):
        # mawk turned N above 2^31 into "%.6g" text as an array key, so 2^32 and 2^32 + 7 were
        # one size ("4.29497e+09"): the across-N table lost a row.
        self.facts(FACTS)
        sweep = [row("11", k, n, ms, 100.0, "sweep") for n in (256, 4294967296, 4294967303)
                 for k, ms in (("cub_device_reduce_sum", 0.5), ("reduce_best", 0.4))]
        out = self.render(self.base_rows() + sweep)
        self.assertEqual(out.returncode, 0, out.stderr)
        block = self.read("chapters", "11-best", "README.md")
        self.assertIn("| 2^32 | 0.5000 | 0.4000 | 1.25x |", block)
        self.assertIn("| 4294967303 | 0.5000 | 0.4000 | 1.25x |", block)
        # Negative control: the two sizes are one in %g, the form that merged them.
        self.assertEqual("%g" % 4294967296, "%g" % 4294967303)

    def test_a_chapters_own_run_charts_its_kernels(self):
        """render --chapter NN (a run of chapter 00 and chapter NN alone): the chart shows one bar
        per kernel of chapter NN, not a best-per-chapter chart of two bars; the page is titled for
        the run."""
        self.facts(FACTS)
        rows = self.base_rows()[:3] + [row("11", "reduce_best", 1073741824, 1.0, 4300.0),
                                       row("11", "reduce_other", 1073741824, 1.2, 3600.0),
                                       row("11", "cub_device_reduce_sum", 1073741824, 1.1, 4100.0)]
        write(os.path.join(self.root, "docs", "results", "g-run-chapter11.csv"), HEADER + "".join(rows))
        out = subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "summary", "render", "--chapter",
                              "11", "--date", "2026-01-02", "docs/results/g-run-chapter11.csv"],
                             cwd=self.root, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        made = sorted(os.listdir(os.path.join(self.root, "docs", "results")))
        self.assertIn("g-run-chapter11-chapter11.svg", made)
        self.assertNotIn("g-run-chapter11.svg", made)
        self.assertNotIn("g-run-chapter11-chapter00.svg", made)
        chart = self.read("docs", "results", "g-run-chapter11-chapter11.svg")
        self.assertIn("<title>Chapter 11's kernels: NVIDIA H200, N = 2^30</title>", chart)
        for kernel, said in (("reduce_best", "4300.0 (97.7% of read)"), ("reduce_other", "3600.0 (81.8% of read)"),
                             ("cub_device_reduce_sum", "4100.0 (93.2% of read)")):
            self.assertIn(f">{kernel}</text>", chart)
            self.assertIn(f">{said}</text>", chart)
        self.assertNotIn(">read_a</text>", chart)  # chapter 00's rows are the ceilings, not bars
        page = self.read("docs", "results", "g-run-chapter11.md")
        self.assertTrue(page.startswith("# H200 results: chapter 11's own run\n"))
        self.assertIn("![GB/s of each kernel of chapter 11 on the NVIDIA H200](g-run-chapter11-chapter11.svg)", page)
        self.assertIn("![GB/s of each kernel of chapter 11 on the NVIDIA H200](../../docs/results/g-run-chapter11-chapter11.svg)",
                      self.read("chapters", "11-best", "README.md"))
        # Negative control: the same CSV rendered as a summary run charts the best kernel per chapter.
        self.assertEqual(subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "summary", "render",
                                         "--date", "2026-01-02", "docs/results/g-run-chapter11.csv"],
                                        cwd=self.root, capture_output=True).returncode, 0)
        self.assertIn("Best GB/s per chapter", self.read("docs", "results", "g-run-chapter11-chapter11.svg"))
        self.assertTrue(self.read("docs", "results", "g-run-chapter11.md").startswith("# H200 results: chapters 00 to 11\n"))

    def test_render_is_reproducible(self):
        self.facts(FACTS)
        self.render(self.base_rows())
        first = {n: self.read("docs", "results", n) for n in sorted(os.listdir(os.path.join(self.root, "docs", "results")))}
        self.render(self.base_rows())
        again = {n: self.read("docs", "results", n) for n in sorted(os.listdir(os.path.join(self.root, "docs", "results")))}
        self.assertEqual(first, again)
        self.assertIn("g-chapter11.svg", first)
        # Negative control: another date changes the outputs.
        write(os.path.join(self.root, "docs", "results", "g.csv"), HEADER + "".join(self.base_rows()))
        subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "summary", "render", "--date",
                        "2026-01-03", "docs/results/g.csv"], cwd=self.root, capture_output=True)
        self.assertNotEqual(first["g.md"], self.read("docs", "results", "g.md"))


class SvgTest(unittest.TestCase):
    """scripts/wblib/svg.py: element text and axis arithmetic."""

    def test_element_attributes_in_order_and_left_out(self):
        from wblib import svg
        self.assertEqual(svg.el("rect", (("x", "1.0"), ("fill", "#fff"), ("stroke", None))), '<rect x="1.0" fill="#fff"/>')
        self.assertEqual(svg.el("text", (("x", "2"),), "a &amp; b"), '<text x="2">a &amp; b</text>')
        # Negative control: a value given is written.
        self.assertIn('stroke="#000"', svg.el("rect", (("stroke", "#000"),)))

    def test_nice_step_and_ticks(self):
        from wblib import svg
        self.assertEqual(svg.nice_step(5054.7), 1000)
        self.assertEqual(svg.nice_step(0.4), 0.1)
        self.assertEqual([round(v, 6) for v in svg.ticks(0.8, 1.2, 0.1)], [0.8, 0.9, 1.0, 1.1, 1.2])
        self.assertEqual(svg.ceil_to(1.25, 0.1), svg.ceil_to(1.21, 0.1))
        # Negative control: a larger range takes a larger step.
        self.assertGreater(svg.nice_step(50547), svg.nice_step(5054.7))

    def test_labels_pushed_apart(self):
        from wblib import svg
        s = svg.Svg(10, 10)
        labels = svg.RefLabels()
        labels.add(104.0, "b", "#000", False)
        labels.add(100.0, "a", "#000", True)
        labels.place(s, 5)
        self.assertEqual(s.lines[1:], ['  <text x="5" y="100.0" fill="#000" font-weight="bold">a</text>',
                                       '  <text x="5" y="114.0" fill="#000">b</text>'])


class StudyTest(unittest.TestCase):
    """scripts/wblib/study.py: chapter 19's study chart from its --study CSV."""

    HEADER = "chapter,kernel,n,input,spread,runs,patterns,bits,exact_bits,ulps_max,rel_err_max,verified\n"

    def rows(self, ulps_big):
        lines = [self.HEADER]
        for n in (1024, 16384):
            lines.append(f"19,float_atomic,{n},positive,8,200,{3 if n > 1024 else 1},0x1,0x1,{ulps_big},1e-7,PASS\n")
            lines.append(f"19,float_exact,{n},positive,8,200,1,0x1,0x1,0.01,1e-9,PASS\n")
            lines.append(f"19,float_exact,{n},mixed,8,200,1,0x1,0x1,5000,1e-9,PASS\n")
        return "".join(lines)

    def render(self, text):
        from wblib import study
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpu-chapter19-study.csv")
            write(path, text)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                status = study.main(["render", path])
            svg = open(path[:-4] + ".svg", encoding="utf-8").read() if status == 0 else None
        return status, svg

    def test_two_panels_per_kernel_only_the_positive_input(self):
        status, svg = self.render(self.rows(8.5))
        self.assertEqual(status, 0)
        # Two kernels drawn, each in both panels; the mixed row (5000 ulps) sets no axis.
        self.assertEqual(svg.count("<polyline"), 4)
        self.assertIn(">10</text>", svg)
        self.assertNotIn(">10000</text>", svg)
        self.assertEqual(svg, self.render(self.rows(8.5))[1])
        # Negative control: a larger error on the positive input lifts the error axis.
        self.assertIn(">1000</text>", self.render(self.rows(850))[1])

    def test_not_a_study_is_refused(self):
        self.assertEqual(self.render(self.rows(1))[0], 0)
        status, _ = self.render("chapter,kernel,n\n19,float_atomic,1024\n")
        self.assertEqual(status, 2)

    @staticmethod
    def clipped(svg):
        """The texts of an SVG whose glyphs reach below its height (a baseline less than 3 px,
        12 px Helvetica's descent, above the bottom edge)."""
        height = float(re.search(r'<svg [^>]*height="([0-9.]+)"', svg).group(1))
        return [m.group(2) for m in re.finditer(r'<text [^>]*y="([0-9.]+)"[^>]*>([^<]*)</text>', svg)
                if float(m.group(1)) + 3 > height]

    def test_every_legend_line_inside_the_chart(self):
        from wblib import study
        # Every line the chart draws, so that the legend takes all its rows.
        lines = [self.HEADER]
        for n in (1024, 16384):
            for kernel, *_ in study.LINES:
                lines.append(f"19,{kernel},{n},positive,8,200,2,0x1,0x1,1.5,1e-7,PASS\n")
        status, svg = self.render("".join(lines))
        self.assertEqual(status, 0)
        self.assertIn(">0.5 ulp: correctly rounded</text>", svg)
        self.assertEqual(self.clipped(svg), [])
        # Negative control: the same chart cut to its old fixed height loses its last legend line.
        cut = re.sub(r'(<svg [^>]*)height="[0-9]+"', r'\1height="446"', svg)
        self.assertEqual(self.clipped(cut), ["0.5 ulp: correctly rounded"])
        # Fewer keys, fewer legend rows: the chart is shorter, and still nothing is cut.
        _, small = self.render(self.rows(8.5))
        self.assertEqual(self.clipped(small), [])
        self.assertLess(float(re.search(r'height="([0-9]+)"', small).group(1)),
                        float(re.search(r'height="([0-9]+)"', svg).group(1)))

    def test_page_table_from_the_csv(self):
        from wblib import study
        text = (self.HEADER + "19,float_atomic,1024,positive,8,200,3,0x1,0x1,0.9263,1e-7,PASS\n"
                "19,float_atomic,16384,positive,8,200,5,0x1,0x1,1.577,1e-7,PASS\n"
                "19,float_atomic,16384,cancel,8,200,1,0x1,0x1,2.604e+06,1e-12,PASS\n"
                "19,cub_sum_gpu_to_gpu,16384,cancel,8,200,1,0x1,0x1,4.403e+41,1e+23,FAIL\n"
                "19,float_scan_single_pass,1024,positive,8,200,200,0x1,0x1,2.999,1e-7,PASS\n")
        page_text = "# Chapter 19\n\n<!-- study:begin gpu-chapter19-study.csv -->\nold\n<!-- study:end -->\n\nend\n"
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "docs", "results"))
            os.makedirs(os.path.join(d, "chapters", "19-float-sum"))
            csv_path = os.path.join(d, "docs", "results", "gpu-chapter19-study.csv")
            page = os.path.join(d, "chapters", "19-float-sum", "README.md")
            write(csv_path, text)
            write(page, page_text)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(study.main(["render", csv_path]), 0)
            got = open(page, encoding="utf-8").read()
            # Negative control: another CSV's marker is not this one's, and the page stays as it was.
            write(page, page_text.replace("gpu-chapter19-study", "other-chapter19-study"))
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(study.main(["render", csv_path]), 0)
            self.assertNotIn("| float_atomic |", open(page, encoding="utf-8").read())
        self.assertNotIn("\nold\n", got)
        self.assertTrue(got.endswith("<!-- study:end -->\n\nend\n"))
        # Each sum at its largest N, the numbers as the CSV spells them, a failure named.
        self.assertIn("| float_atomic | 2^14 | 1.577 | 5 | 2.604e+06 | 1 |", got)
        self.assertIn("| cub_sum_gpu_to_gpu | 2^14 |  |  | 4.403e+41 FAIL | 1 |", got)
        self.assertIn("| float_scan_single_pass | 2^10 | 2.999 | 200 |  |  |", got)
        self.assertNotIn("0.9263", got)
        self.assertIn("| kernel | N | positive: ulps | results | cancel: ulps | results |", got)


class ScalingTest(unittest.TestCase):
    """scripts/wblib/scaling.py: the GPUs and device come from chapter 18's --info, not its notes."""

    def test_gpus_and_device_from_info(self):
        from wblib import scaling
        info = {"device": {"ordinal": 0, "name": "NVIDIA H200", "sms": 132, "visible": 2}}
        self.assertEqual(scaling.gpus_and_device(info), ("2", "NVIDIA H200"))
        # Negative controls: no device, or a device without the count, is refused.
        self.assertIsNone(scaling.gpus_and_device({"device": None}))
        self.assertIsNone(scaling.gpus_and_device({"device": {"name": "NVIDIA H200"}}))
        self.assertIsNone(scaling.gpus_and_device(None))

    def test_gpu_counts(self):
        from wblib import scaling
        from wblib.common import Usage
        self.assertEqual(scaling.gpu_counts(None, 4), [4])
        self.assertEqual(scaling.gpu_counts("4 2", 4), [2, 4])
        self.assertEqual(scaling.gpu_counts("1,2,4,2", 4), [1, 2, 4])
        # Negative controls: more GPUs than the machine has, none, a word that is not a count.
        for bad in ("2 8", "0 2", "", "two", "2 -1"):
            with self.assertRaises(Usage, msg=bad):
                scaling.gpu_counts(bad, 4)

    def test_with_block(self):
        from wblib import scaling
        page = "intro\n<!-- scaling x2:begin -->\nG2\n<!-- scaling x2:end -->\n\nprose\n"
        self.assertIs(scaling.with_block(page, 2), page)   # already there: unchanged
        four = scaling.with_block(page, 4)                  # after the largest smaller G
        self.assertEqual(four, "intro\n<!-- scaling x2:begin -->\nG2\n<!-- scaling x2:end -->\n\n"
                               "<!-- scaling x4:begin -->\n<!-- scaling x4:end -->\n\nprose\n")
        one = scaling.with_block(four, 1)                   # before the first block
        self.assertTrue(one.startswith("intro\n<!-- scaling x1:begin -->\n<!-- scaling x1:end -->\n\n"
                                       "<!-- scaling x2:begin -->"))
        three = scaling.with_block(four, 3)                 # between 2 and 4
        self.assertLess(three.index("x2:end"), three.index("x3:begin"))
        self.assertLess(three.index("x3:end"), three.index("x4:begin"))
        # Negative control: a page without any scaling block has no place for one.
        self.assertIsNone(scaling.with_block("intro\n<!-- scaling:begin -->\n<!-- scaling:end -->\n", 2))


class TreeFilesTest(unittest.TestCase):
    """tree_files: the workbook's files from the tree, without git: .git and what .gitignore
    ignores are left out, at the depth its patterns say; `wb.py files` prints the same."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="wb-tree-")
        self.addCleanup(shutil.rmtree, self.root)
        write(os.path.join(self.root, ".gitignore"), "# builds\n/build*/\n/chapter[0-9][0-9]\n/.whl/\n__pycache__/\n")
        self.kept = [".gitignore", "chapters/05-x/chapter05", "chapters/05-x/x.cu", "docs/build/page.md",
                     "build.txt", "chapter5", "scripts/wb.py"]
        left_out = ["build/chapter05", "build-tk/CMakeCache.txt", "chapter05", ".whl/cccl/a.h", ".git/HEAD",
                    "scripts/__pycache__/common.pyc", "chapters/05-x/.git"]
        for rel in self.kept[1:] + left_out:
            write(os.path.join(self.root, rel), rel)

    def test_ignored_left_out_at_their_depth(self):
        self.assertEqual(common.tree_files(self.root), sorted(self.kept))
        out = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "scripts", "wb.py"), "files", "-0"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.split("\0")[-1], "")
        self.assertIn("scripts/wblib/common.py", out.stdout.split("\0"))
        # Negative control: without the .gitignore, the builds and programs are files like any other.
        os.remove(os.path.join(self.root, ".gitignore"))
        self.assertIn("build/chapter05", common.tree_files(self.root))
        self.assertNotIn(".git/HEAD", common.tree_files(self.root))

    def test_a_pattern_beyond_the_subset_is_refused(self):
        write(os.path.join(self.root, ".gitignore"), "/build*/\n!build/keep\n")
        with self.assertRaisesRegex(ValueError, r"\.gitignore:2: '!build/keep' is beyond"):
            common.tree_files(self.root)


class InfoTest(unittest.TestCase):
    """info --check against stand-in programs whose --info is what chapters.json says, or not."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="wb-info-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copytree(os.path.join(os.path.dirname(HERE), "scripts"), os.path.join(self.root, "scripts"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.facts = [{"chapter": "00", "slug": "light", "part": "ceiling"}, {"chapter": "01", "slug": "naive", "part": "reduction"}]
        for f in self.facts:
            os.makedirs(os.path.join(self.root, "chapters", f"{f['chapter']}-{f['slug']}"))
        write(os.path.join(self.root, "docs", "results", "chapters.json"), json.dumps(self.facts, indent=2) + "\n")
        self.bin = os.path.join(self.root, "bin")

    def program(self, cid, info):
        path = os.path.join(self.bin, f"chapter{cid}")
        write(path, "#!/bin/sh\ncat <<'EOF'\n" + json.dumps(dict(info, device=None), indent=2) + "\nEOF\n")
        os.chmod(path, 0o755)

    def info(self, *args):
        env = dict(os.environ, BUILD=os.path.join(self.root, "nobuild"))
        return subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "info", "--bin-dir", self.bin]
                              + list(args), capture_output=True, text=True, env=env)

    def test_check(self):
        self.assertEqual(self.info("--check").returncode, 77)  # nothing built: skipped
        self.program("00", self.facts[0])
        out = self.info("--check")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("chapter01: not built, skipped", out.stdout)
        self.assertIn("chapter00: up to date", out.stdout)
        # Negative control: a program that says otherwise makes the check fail, with the difference.
        self.program("01", dict(self.facts[1], part="scan"))
        out = self.info("--check")
        self.assertEqual(out.returncode, 1)
        self.assertIn('+    "part": "scan"', out.stdout)

    def test_write_keeps_unbuilt_entries_and_is_stable(self):
        self.program("00", dict(self.facts[0], idea="new"))
        self.assertEqual(self.info("--write").returncode, 0)
        with open(os.path.join(self.root, "docs", "results", "chapters.json"), encoding="utf-8") as f:
            text = f.read()
        got = json.loads(text)
        self.assertEqual([e["chapter"] for e in got], ["00", "01"])
        self.assertEqual(got[0]["idea"], "new")
        self.assertNotIn("device", got[0])
        self.assertEqual(got[1], self.facts[1])
        self.assertTrue(text.endswith("}\n]\n"))
        self.assertEqual(self.info().stdout, text)
        # Negative control: now the file agrees with the program, --check passes.
        self.assertEqual(self.info("--check").returncode, 0)


SWEEP_HEADER = "chapter,kernel,n,flush,reps,block,batch,median_ms,gbps,blk_per_sm,check,device\n"


def sweep_row(block, batch, gbps, check="PASS", kernel="reduce_batched", blk=8):
    return f"09,{kernel},1048576,flush,5,{block},{batch},1.000000,{gbps},{blk},{check},NVIDIA H200\n"


def refused(block, batch, why="refused"):
    return f"09,-,1048576,flush,5,{block},{batch},0,0,0,{why},NVIDIA H200\n"


class SweepParseTest(unittest.TestCase):
    """sweep.parse_sweep and the tables: what each kind of cell shows, exactly."""

    def setUp(self):
        from wblib import sweep
        self.sweep = sweep

    def md_rows(self, text):
        """The matrix rows of the Markdown table of a sweep CSV's text."""
        md = self.sweep.render_md(self.sweep.parse_sweep(text), "2026-11-22")
        return [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| block")
                and not line.startswith("| ---")]

    def test_refused_cell(self):
        text = SWEEP_HEADER + sweep_row(256, 1, "266.0") + refused(256, 2)
        self.assertEqual(self.md_rows(text), ["| 256 | **266.0** | - | 8 |"])
        grid = self.sweep.parse_sweep(text).grids[0]
        self.assertEqual(grid.cell("256", "2", "reduce_batched"), "-")
        # Negative control: the same cell measured shows its GB/s.
        self.assertEqual(self.md_rows(SWEEP_HEADER + sweep_row(256, 1, "266.0") + sweep_row(256, 2, "276.0")),
                         ["| 256 | 266.0 | **276.0** | 8 |"])

    def test_failed_cells(self):
        # A wrong result (a FAIL row) and a run that printed no row (a CUDA error, a time-out).
        text = (SWEEP_HEADER + sweep_row(64, 1, "74.0") + sweep_row(64, 3, "94.0", "FAIL")
                + refused(64, 8, "ERR (exit 3)") + refused(64, 16, "ERR (timed out)"))
        self.assertEqual(self.md_rows(text), ["| 64 | **74.0** | FAIL | ERR | ERR | 8 |"])
        out = self.sweep.render_text(self.sweep.parse_sweep(text))
        self.assertIn("        64    74.0*     FAIL      ERR      ERR\n", out)
        self.assertIn("best (*): --block 64 --batch 1: 74.0 GB/s, 1.0000 ms\n", out)
        # Negative control: a FAIL row is never the best cell, however fast.
        text = SWEEP_HEADER + sweep_row(64, 1, "74.0") + sweep_row(64, 3, "9400.0", "FAIL")
        self.assertEqual(self.md_rows(text), ["| 64 | **74.0** | FAIL | 8 |"])
        text = SWEEP_HEADER + sweep_row(64, 1, "74.0") + sweep_row(64, 3, "9400.0")
        self.assertEqual(self.md_rows(text), ["| 64 | 74.0 | **9400.0** | 8 |"])

    def test_missing_column(self):
        # A header without a column is refused, naming it.
        with self.assertRaises(common.CsvError) as e:
            self.sweep.parse_sweep(SWEEP_HEADER.replace(",blk_per_sm", "") + "09,k,1,flush,5,64,1,1.0,74.0,PASS,G\n")
        self.assertEqual(str(e.exception), "no column blk_per_sm in its header")
        # A row cut short (its last columns missing) is left out, as if never run: no column K = 2.
        text = SWEEP_HEADER + sweep_row(64, 1, "74.0") + "09,reduce_batched,1048576,flush,5,64,2,1.0,80.0\n"
        self.assertEqual(self.md_rows(text), ["| 64 | **74.0** | 8 |"])
        self.assertEqual(self.sweep.parse_sweep(text).grids[0].cell("64", "2", "reduce_batched"), "-")
        # Negative control: the whole row shows.
        text = SWEEP_HEADER + sweep_row(64, 1, "74.0") + sweep_row(64, 2, "80.0")
        self.assertEqual(self.md_rows(text), ["| 64 | 74.0 | **80.0** | 8 |"])

    def test_occupancy_varies_with_k(self):
        text = SWEEP_HEADER + sweep_row(128, 4, "4101.5", blk=16) + sweep_row(128, 8, "4227.3", blk=8)
        self.assertEqual(self.md_rows(text), ["| 128 | 4101.5 | **4227.3** | 8-16 |"])
        # Negative control: one value of K, one number.
        self.assertEqual(self.md_rows(SWEEP_HEADER + sweep_row(128, 4, "4101.5", blk=16)),
                         ["| 128 | **4101.5** | 16 |"])


class SanitizeTest(unittest.TestCase):
    """sanitize.summary_counts (the tools' summary lines) and its table."""

    def setUp(self):
        from wblib import sanitize
        self.sanitize = sanitize

    def test_summary_counts(self):
        race = "========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)\n"
        err = "========= ERROR SUMMARY: 2 errors\n"
        self.assertEqual(self.sanitize.summary_counts(race + race, "racecheck"), (6, 2, 4))
        self.assertEqual(self.sanitize.summary_counts(err + err, "memcheck"), (4, 4, 0))
        self.assertEqual(self.sanitize.summary_counts(err, "racecheck"), (2, 2, 0))
        # Negative control: a log without a summary line has no counts.
        self.assertIsNone(self.sanitize.summary_counts("========= Error: process didn't terminate\n", "memcheck"))

    def test_cell_text(self):
        cell = self.sanitize.Cell()
        self.assertEqual(cell.text(), "clean")
        cell.problem("exit 1: wrong result")
        cell.problem("exit 1: wrong result")
        self.assertEqual(cell.text(), "clean, exit 1: wrong result")
        cell.no_summary = True
        self.assertEqual(cell.text(), "exit 1: wrong result")
        # Negative control: counts show even when a run had no summary.
        cell.errors = cell.hazards = 2
        self.assertEqual(cell.text(), "2 err / 0 warn, exit 1: wrong result")

    def test_nccl_records(self):
        # Records two H200s saved (chapter 18 at G = 2): NCCL's probe of its kernels (2 call
        # stacks), its second enabling of peer access (2), and 2 of initcheck's reads inside
        # NCCL's LL kernels (one in a device function called by the kernel, one in the kernel).
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "nccl-records.xml")
        with open(path, encoding="utf-8") as f:
            saved = f.read()
        self.assertEqual(self.sanitize.nccl_records(saved), (6, 6))
        # Cut off (a run stopped mid-write): nothing is NCCL's, so every error counts.
        self.assertEqual(self.sanitize.nccl_records(saved[:len(saved) // 2]), (0, 0))

        def record(i):
            start = -1
            for _ in range(i + 1):
                start = saved.index("<record>", start + 1)
            return saved[start:saved.index("</record>", start) + len("</record>")]

        api, initcheck = record(2), record(4)
        self.assertIn("cudaErrorPeerAccessAlreadyEnabled", api)
        self.assertIn("<kind>Initcheck</kind>", initcheck)
        # Negative controls: each of these records is the program's, and counts.
        bad = [
            api.replace("libnccl.so.2", "chapter18"),                        # the program's own call
            api.replace("cudaErrorPeerAccessAlreadyEnabled", "cudaErrorInvalidValue"),  # another error
            api.replace("<kind>Api</kind>", "<kind>Precise</kind>"),         # a memory error
            initcheck.replace("libnccl.so.2", "chapter18"),                  # a kernel of the program's
            initcheck.replace("<func>ncclDevFunc_AllGather_RING_LL</func>",  # read in the program's code
                              "<func>scan_kernel</func>"),
            initcheck.replace("<kind>Initcheck</kind>", "<kind>Precise</kind>"),  # out of bounds in NCCL
        ]
        for one, original in zip(bad, [api] * 3 + [initcheck] * 3):
            self.assertNotEqual(one, original)
            self.assertEqual(self.sanitize.nccl_records(saved.replace(original, one, 1)), (5, 6))

    def test_run_leaves_nccl_records_uncounted(self):
        # A stand-in for compute-sanitizer that saves the given records where --save says and
        # prints the summary the real tool prints for them, exiting with --error-exitcode.
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "nccl-records.xml")
        with open(path, encoding="utf-8") as f:
            saved = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "fake-sanitizer")
            with open(fake, "w", encoding="utf-8") as f:
                f.write('#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  [ "$1" = --save ] && cp "$RECORDS" "$2"\n  shift\ndone\n'
                        'echo "========= ERROR SUMMARY: $COUNT errors"\nexit 99\n')
            os.chmod(fake, 0o755)
            records = os.path.join(tmp, "records.xml")
            san = self.sanitize.Sanitizer(fake, "60")
            for text, count, nccl, tool, errors, own in (
                    (saved, 6, True, "initcheck", 0, 6),    # all NCCL's own: clean
                    (saved.replace("libnccl.so.2", "chapter18"), 6, True, "memcheck", 6, 0),  # none is
                    (saved, 9, True, "memcheck", 3, 6),     # 3 errors the XML does not hold count
                    (saved, 6, False, "initcheck", 6, 0),   # another chapter: everything counts
                    (saved, 6, True, "racecheck", 6, 0)):   # not a tool NCCL's records are split for
                with open(records, "w", encoding="utf-8") as f:
                    f.write(text)
                cell = self.sanitize.Cell()
                os.environ.update(RECORDS=records, COUNT=str(count))
                try:
                    san.run(cell, tool, os.path.join(tmp, f"run.{tool}.log"), ["chapter18"], nccl=nccl)
                finally:
                    del os.environ["RECORDS"], os.environ["COUNT"]
                self.assertEqual((cell.errors, cell.nccl), (errors, own), (tool, count, nccl))
                self.assertEqual(cell.problems, [])
                self.assertEqual(cell.text(), "clean" if errors == 0 else f"{errors} err / 0 warn")

    def test_table(self):
        self.assertEqual(self.sanitize.table([["chapter", "variants", "racecheck"], ["06", "-", "clean"],
                                              ["13", "not built"]]),
                         "chapter  variants   racecheck\n06       -          clean\n13       not built\n")


# The NVTX column of `ncu --nvtx --csv --page raw` (ncu 2025.3.1, as seen on an H100): the process
# id, two spaces, then each open range quoted after two spaces, outermost first, and a last space.
def nvtx(*entries, pid="506"):
    return pid + "".join(f'  "{e}"' for e in entries) + " "


def wb_entry(name):
    return f"<default domain>:{name}:none:none:none:none:none:none"


CUB_ENTRY = "CCCL:cub::DeviceReduce::Sum:none:none:none:none:REGISTERED:cub::DeviceReduce::Sum"


class ProfileNvtxTest(unittest.TestCase):
    """profile.wb_range and profile.parse_ncu: each launch's row and run from its NVTX ranges."""

    def setUp(self):
        from wblib import profile
        self.profile = profile

    def test_probe_values(self):
        # The values ncu printed for the probe's launches (/first, /timed, and no range).
        wb = self.profile.wb_range
        self.assertEqual(wb('506  "<default domain>:wb/row_one/first:none:none:none:none:none:none" '),
                         ("row_one", "first"))
        self.assertEqual(wb('506  "<default domain>:wb/row_one/timed:none:none:none:none:none:none" '),
                         ("row_one", "timed"))
        self.assertEqual(wb(nvtx(wb_entry("wb/cub::DeviceScan::InclusiveSum/warmup"))),
                         ("cub::DeviceScan::InclusiveSum", "warmup"))
        # Negative control: the run is read, not assumed.
        self.assertNotEqual(wb(nvtx(wb_entry("wb/row_one/first"))), ("row_one", "timed"))

    def test_empty_value_is_no_range(self):
        self.assertIsNone(self.profile.wb_range(""))
        self.assertIsNone(self.profile.wb_range(" "))
        # Ranges, but none of ours: not the chapter's launch either.
        self.assertIsNone(self.profile.wb_range(nvtx(wb_entry("other range"), CUB_ENTRY)))
        # Negative control: one wb/ range among them is found.
        self.assertEqual(self.profile.wb_range(nvtx(wb_entry("other range"), wb_entry("wb/k/timed"))), ("k", "timed"))

    def test_innermost_wb_range_wins(self):
        wb = self.profile.wb_range
        self.assertEqual(wb(nvtx(wb_entry("wb/outer/first"), wb_entry("wb/inner/timed"))), ("inner", "timed"))
        # CUB's own range inside ours is passed over; so is anyone's.
        self.assertEqual(wb(nvtx(wb_entry("wb/cub_sum/timed"), CUB_ENTRY)), ("cub_sum", "timed"))
        self.assertEqual(wb(nvtx(wb_entry("wb/outer/first"), wb_entry("wb/inner/timed"), wb_entry("other range"))),
                         ("inner", "timed"))
        self.assertEqual(self.profile.nvtx_ranges(nvtx(wb_entry("wb/a/first"), CUB_ENTRY)),
                         [("<default domain>", "wb/a/first:none:none:none:none:none:none"),
                          ("CCCL", "cub::DeviceReduce::Sum:none:none:none:none:REGISTERED:cub::DeviceReduce::Sum")])
        # Negative control: the outer range alone gives the outer row.
        self.assertEqual(wb(nvtx(wb_entry("wb/outer/first"))), ("outer", "first"))

    def test_malformed_is_refused(self):
        wb = self.profile.wb_range
        # The probe's last launch: a double quote in the name, which ncu writes unescaped.
        with self.assertRaises(self.profile.NvtxError):
            wb('506  "<default domain>:wb/row,two "q"/first:none:none:none:none:none:none" ')
        for name in ("wb/row-two/first", "wb/row_one/second", "wb/row_one/firstly", "wb//timed", "wb/a b/timed",
                     "wb/row_one"):
            with self.assertRaises(self.profile.NvtxError, msg=name):
                wb(nvtx(wb_entry(name)))
        with self.assertRaises(self.profile.NvtxError):
            wb("506 garbage")
        # Negative control: the same names made well-formed are read.
        self.assertEqual(wb(nvtx(wb_entry("wb/row_two/first"))), ("row_two", "first"))

    def ncu_csv(self, launches):
        """A small `ncu --nvtx --csv --page raw` output: launches are (kernel, NVTX value, duration)."""
        head = ['"ID","Process ID","Process Name","Host Name",'
                '"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name",'
                '"Block Size","Grid Size","gpu__time_duration.sum"',
                '"","","","","","","","","ns"']
        rows = [f'"{i}","506","chapter99","h","{v.replace(chr(34), chr(34) * 2)}","{k}","(256, 1, 1)","(8, 1, 1)","{d}"'
                for i, (k, v, d) in enumerate(launches)]
        return ["==PROF== Connected to process 506"] + head + rows

    def test_parse_ncu_rows(self):
        check = "wb::count_mismatches(const int *, const int *, long, unsigned long long *)"
        lines = self.ncu_csv([
            ("void k<4>(const int *, long)", nvtx(wb_entry("wb/k/first")), "1,000"),
            (check, "", "10"),
            ("void k<4>(const int *, long)", nvtx(wb_entry("wb/k/timed")), "2,000"),
            ("void k<4>(const int *, long)", nvtx(wb_entry("wb/k/timed")), "3,000"),
            (check, "", "10"),
        ])
        out, notes, ok = self.profile.parse_ncu(lines, "99", [("memcpy", "64"), ("k", "1024")], "2^24", "GPU")
        empty = "," * 16  # the 16 metrics after the duration, which this output lacks
        self.assertTrue(ok)
        self.assertEqual(out, [
            "99,memcpy,timed,0,-,,,64," + empty + ",,GPU",  # no kernel: every metric and the ID empty
            "99,k,first,1,k,8,256,1024,1000" + empty + ",0,GPU",
            "99,k,timed,1,k,8,256,1024,2000" + empty + ",2,GPU",
            "99,k,timed,2,k,8,256,1024,3000" + empty + ",3,GPU",
        ])
        self.assertEqual(len([n for n in notes if "reported no" in n]), 16)
        # Negative control: the check kernel inside the timed range is counted as the row's launch.
        lines[-1] = lines[-1].replace('"506","chapter99","h","",', '"506","chapter99","h","' +
                                      nvtx(wb_entry("wb/k/timed")).replace('"', '""') + '",')
        out, _, _ = self.profile.parse_ncu(lines, "99", [("memcpy", "64"), ("k", "1024")], "2^24", "GPU")
        self.assertEqual(out[-1], "99,k,timed,3,count_mismatches,8,256,1024,10" + empty + ",4,GPU")

    def test_parse_ncu_refusals(self):
        k = "void k<4>(const int *, long)"
        # A refused range: the launch is left out with a message, the others kept, the run not ok.
        lines = self.ncu_csv([(k, nvtx(wb_entry("wb/k/timed")), "5"), (k, nvtx(wb_entry("wb/k-x/timed")), "6")])
        out, notes, ok = self.profile.parse_ncu(lines, "99", [("k", "1024")], "1024", "GPU")
        self.assertFalse(ok)
        self.assertEqual([l.split(",")[:5] for l in out], [["99", "k", "timed", "1", "k"]])
        self.assertIn("chapter 99: launch 1 (k) left out: its NVTX range 'wb/k-x/timed' is not wb/<row>/first, "
                      "/warmup or /timed with a row name of letters, digits and _ : .", notes)
        # Launches but none in a wb/ range: a program built before the ranges, refused.
        out, notes, ok = self.profile.parse_ncu(self.ncu_csv([(k, "", "5")]), "99", [("k", "1024")], "1024", "GPU")
        self.assertFalse(ok)
        self.assertTrue(any("none of its 1 launch(es) is inside a wb/ NVTX range" in n for n in notes))
        # Output without the NVTX column (ncu without --nvtx): refused.
        no_nvtx = [l.replace('"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",', "")
                   for l in self.ncu_csv([])]
        self.assertEqual(self.profile.parse_ncu(no_nvtx, "99", [], "1024", "GPU")[2], False)
        # Negative control: the well-formed launch alone is ok.
        out, _, ok = self.profile.parse_ncu(self.ncu_csv([(k, nvtx(wb_entry("wb/k/timed")), "5")]), "99",
                                            [("k", "1024")], "1024", "GPU")
        self.assertTrue(ok)


class ProfileDatesTest(unittest.TestCase):
    """profile.Counters.chapter_dates and profile.measured_on: each chapter's counters carry the
    date of the run that measured them, and the pages say so chapter by chapter."""

    def setUp(self):
        from wblib import profile
        self.profile = profile
        self.dir = tempfile.mkdtemp(prefix="wb-test-")
        self.addCleanup(shutil.rmtree, self.dir)

    def counters(self, dated_rows, header=None):
        """A counters CSV of one row per (chapter, date[, cub]) (cub "" where not given) under
        `header` (default the current one): its rows leave out the added columns it lacks."""
        header = header or self.profile.HEADER
        have = len(self.profile.ADDED_COLUMNS) - self.profile.LACKING[header]
        empty = "," * len(self.profile.METRICS)
        lines = [header] + [f"{ch},k,timed,1,k,8,256,1024{empty},0,GPU" + "".join("," + v for v in (list(added) + ["", ""])[:have])
                            for ch, *added in dated_rows]
        path = os.path.join(self.dir, "gpu-counters.csv")
        write(path, "\n".join(lines) + "\n")
        return self.profile.Counters(path)

    def test_each_chapter_its_own_date(self):
        c = self.counters([("00", "2026-11-22"), ("00", "2026-11-22"), ("18", "2026-11-22"), ("19", "2026-11-25")])
        dates, mixed = c.chapter_dates("2026-12-01")
        self.assertEqual(dates, {"00": "2026-11-22", "18": "2026-11-22", "19": "2026-11-25"})
        self.assertEqual(mixed, [])
        # The chapter blocks: chapter 00's says 2026-11-22, chapter 19's 2026-11-25.
        for ch, day in (("00", "2026-11-22"), ("19", "2026-11-25")):
            block = self.profile.chapter_block(c, ch, "gpu-counters", dates[ch], "")
            self.assertIn(f"by `scripts/profile.sh` on {day}.\n", block)
        page = self.profile.counters_page(c, "gpu-counters", dates, "", {})
        self.assertIn("by `scripts/profile.sh run` on 2026-11-22 (chapter 19: 2026-11-25).\n", page)
        # Negative control: the fallback (--date or the file's date) on every chapter is not it.
        one = {ch: "2026-12-01" for ch in dates}
        self.assertNotEqual(one, dates)
        self.assertNotIn("(chapter 19: 2026-11-25)", self.profile.counters_page(c, "gpu-counters", one, "", {}))

    def test_rows_without_a_date_take_the_fallback(self):
        undated = self.counters([("00", None), ("19", None)], header=self.profile.UNDATED_HEADER)
        self.assertEqual(undated.chapter_dates("2026-12-01"), ({"00": "2026-12-01", "19": "2026-12-01"}, []))
        # An empty date (a row kept from a CSV without the column) takes it too; a dated row keeps its own.
        part = self.counters([("00", ""), ("19", "2026-11-25")])
        self.assertEqual(part.chapter_dates("2026-12-01")[0], {"00": "2026-12-01", "19": "2026-11-25"})
        # Negative control: with the fallback the older date, chapter 19 still shows its own.
        self.assertEqual(part.chapter_dates("2026-11-01")[0]["19"], "2026-11-25")

    def test_a_chapter_of_two_dates_shows_the_latest(self):
        c = self.counters([("05", "2026-11-25"), ("05", "2026-11-22"), ("06", "2026-11-22")])
        self.assertEqual(c.chapter_dates("")[0]["05"], "2026-11-25")
        self.assertEqual(c.chapter_dates("")[1], ["05"])
        # Negative control: a chapter of one date is not named.
        self.assertNotIn("06", c.chapter_dates("")[1])

    def test_measured_on(self):
        on = self.profile.measured_on
        self.assertEqual(on({"00": "2026-11-22", "19": "2026-11-22"}), "2026-11-22")
        self.assertEqual(on({"00": "2026-11-22", "01": "2026-11-22", "19": "2026-11-25"}),
                         "2026-11-22 (chapter 19: 2026-11-25)")
        self.assertEqual(on({"00": "2026-11-22", "01": "2026-11-22", "02": "2026-11-22", "03": "2026-11-20",
                             "16": "2026-11-24", "17": "2026-11-24", "19": "2026-11-25"}),
                         "2026-11-22 (chapter 03: 2026-11-20; chapters 16 and 17: 2026-11-24; chapter 19: 2026-11-25)")
        self.assertEqual(self.profile.chapter_list(["03", "16", "17"]), "chapters 03, 16 and 17")
        # The date of most chapters leads; of two as common, the later.
        self.assertEqual(on({"00": "2026-11-22", "19": "2026-11-25"}), "2026-11-25 (chapter 00: 2026-11-22)")
        self.assertEqual(on({"00": "2026-11-25", "01": "2026-11-22", "02": "2026-11-22"}),
                         "2026-11-22 (chapter 00: 2026-11-25)")
        # Negative control: one date for chapters measured on two days would hide the second.
        self.assertNotEqual(on({"00": "2026-11-22", "01": "2026-11-22", "19": "2026-11-25"}), "2026-11-22")


class ProfileCubTest(unittest.TestCase):
    """profile.chapter_cub, kept_rows and the render: the counters of a chapter that calls CUB
    say which CUB's kernels they profiled (the cub column, from the chapter's --info)."""

    setUp = ProfileDatesTest.setUp
    counters = ProfileDatesTest.counters

    def test_the_column_is_infos_cub_in_a_chapter_that_calls_it(self):
        cub = self.profile.chapter_cub
        self.assertEqual(cub({"cub": "3.5.0", "default_kernels": ["cub_device_reduce_sum", "reduce_best"]}), "3.5.0")
        self.assertEqual(cub({"cub": "3.0.1", "default_kernels": ["scan_single_pass"],
                              "variants": [{"name": "cub", "kernels": ["cub::DeviceScan::InclusiveSum"]}]}), "3.0.1")
        # Negative controls: a chapter that calls no CUB names the CUB on its include path all the
        # same, and gets none; a program without CUB (null), or no --info, none either.
        self.assertEqual(cub({"cub": "3.5.0", "default_kernels": ["reduce_best"],
                              "variants": [{"name": "all", "kernels": ["reduce_best", "scan_cubic"]}]}), "")
        self.assertEqual(cub({"cub": None, "default_kernels": ["cub_device_reduce_sum"]}), "")
        self.assertEqual(cub(None), "")

    def test_kept_rows_of_older_csvs_get_the_columns_empty(self):
        ids = ["11"]
        for header, rows, want in (
                (self.profile.HEADER, [("05", "2026-11-22", ""), ("19", "2026-11-25", "3.5.0")],
                 [",2026-11-22,", ",2026-11-25,3.5.0"]),
                (",".join(self.profile.COLUMNS[:-1]), [("05", "2026-11-22"), ("19", "2026-11-25")],
                 [",2026-11-22,", ",2026-11-25,"]),
                (self.profile.UNDATED_HEADER, [("05", None), ("19", None)], [",,", ",,"])):
            self.counters(rows + [("11", "2026-11-22", "3.0.1")], header=header)
            kept = self.profile.kept_rows(os.path.join(self.dir, "gpu-counters.csv"), ids)
            self.assertEqual([l.split(",")[0] for l in kept], ["05", "19"], header)
            self.assertEqual([l[-len(w):] for l, w in zip(kept, want)], want, header)
            self.assertTrue(all(len(l.split(",")) == len(self.profile.COLUMNS) for l in kept), header)
        # Negative control: a header that is not the current one less a tail of the added
        # columns (cub without date) is another CSV's, whose rows are not kept.
        cols = [c for c in self.profile.COLUMNS if c != "date"]
        write(os.path.join(self.dir, "other.csv"), ",".join(cols) + "\n")
        self.assertIsNone(self.profile.kept_rows(os.path.join(self.dir, "other.csv"), ids))

    def test_blocks_and_page_name_the_cub(self):
        c = self.counters([("05", "2026-11-22"), ("11", "2026-11-22", "3.0.1"), ("17", "2026-11-22", "3.0.1"),
                           ("19", "2026-11-25", "3.5.0")])
        dates = c.chapter_dates("")[0]
        self.assertEqual(c.chapter_cubs(), {"11": "CUB 3.0.1", "17": "CUB 3.0.1", "19": "CUB 3.5.0"})
        block = self.profile.chapter_block(c, "11", "gpu-counters", dates["11"], "")
        self.assertIn("by `scripts/profile.sh` on 2026-11-22, CUB's kernels from CUB 3.0.1.\n", block)
        self.assertIn("on 2026-11-25, CUB's kernels from CUB 3.5.0.\n",
                      self.profile.chapter_block(c, "19", "gpu-counters", dates["19"], ""))
        page = self.profile.counters_page(c, "gpu-counters", dates, "", {})
        self.assertIn("(chapter 19: 2026-11-25).\nCUB's kernels came from CUB 3.0.1 (chapters 11 and 17) "
                      "and CUB 3.5.0 (chapter 19).\n", page)
        # Negative controls: a chapter whose rows name no CUB says none; a CSV without the column
        # names none anywhere.
        self.assertIn("by `scripts/profile.sh` on 2026-11-22.\n",
                      self.profile.chapter_block(c, "05", "gpu-counters", dates["05"], ""))
        old = self.counters([("11", "2026-11-22"), ("19", "2026-11-25")], header=",".join(self.profile.COLUMNS[:-1]))
        self.assertEqual(old.chapter_cubs(), {})
        self.assertNotIn("CUB's kernels", self.profile.chapter_block(old, "11", "gpu-counters", "2026-11-22", ""))
        self.assertNotIn("CUB's kernels", self.profile.counters_page(old, "gpu-counters", dates, "", {}))

    def test_versions_in_number_order(self):
        self.assertEqual(self.profile.cubs_of({"19": "CUB 3.10.0", "11": "CUB 3.5.0", "17": "CUB 3.0.1"}),
                         "CUB 3.0.1 (chapter 17), CUB 3.5.0 (chapter 11) and CUB 3.10.0 (chapter 19)")
        self.assertEqual(self.profile.cubs_of({}), "")
        # Negative control: in text order 3.10.0 would come before 3.5.0.
        self.assertEqual(sorted(["3.5.0", "3.10.0"]), ["3.10.0", "3.5.0"])
        self.assertEqual(sorted(["3.10.0", "3.5.0"], key=self.profile.version_key), ["3.5.0", "3.10.0"])


class LineDiffTest(unittest.TestCase):
    """linediff.unified_diff: the hunks GNU diff writes, not just any valid diff."""

    def test_gnu_diffs_choice_among_equal_scripts(self):
        from wblib import linediff
        a, b = ["a", "a", "}"], ["b", "}", "a"]
        want = ["@@ -1,3 +1,3 @@", "-a", "-a", "+b", " }", "+a"]    # diff -U1 (GNU diffutils 3.8)
        self.assertEqual(linediff.unified_diff(a, b, context=1), want)
        # Negative control: difflib finds another diff of the same size, which the test refuses.
        import difflib
        other = list(difflib.unified_diff(a, b, n=1, lineterm=""))[2:]
        self.assertNotEqual(other, want)

    def test_two_hunks_with_context_and_ranges(self):
        from wblib import linediff
        old = ["int f() {", "  return 1;", "}", "", "int g() {", "  int a = 0;", "  int b = 0;",
               "  int c = 0;", "  int d = 0;", "  return 2;", "}"]
        new = ["#include <x>"] + old[:9] + ["  int e = 0;", "  return 3;", "}"]
        want = ["@@ -1,3 +1,4 @@", "+#include <x>", " int f() {", "   return 1;", " }",
                "@@ -7,5 +8,6 @@", "   int b = 0;", "   int c = 0;", "   int d = 0;", "-  return 2;",
                "+  int e = 0;", "+  return 3;", " }"]
        self.assertEqual(linediff.unified_diff(old, new), want)
        self.assertEqual(linediff.unified_diff(old, old), [])
        # Negative control: 9 unchanged lines apart, the changes share a hunk from a context of 5
        # (fewer than 2 * 5 + 1 lines between them), not of 4.
        hunks = [sum(l.startswith("@@") for l in linediff.unified_diff(old, new, context=c)) for c in (4, 5)]
        self.assertEqual(hunks, [2, 1])


class MdFilterDiffTest(unittest.TestCase):
    """mdfilter: a ```diff block becomes a code fragment whose lines are marked for colour."""

    DIFF = ["--- a/x.cu", "+++ b/x.cu", "@@ int f(int* p)", " if (a < b && c > d) {",
            "-  s = \"old\";", "+  s = 'new' @ \\n;"]

    def test_exact_html_with_escapes(self):
        from wblib import mdfilter
        want = [
            '\\htmlonly[block]<div class="fragment diff">',
            '<div class="line diff-file">--- a/x.cu</div>',
            '<div class="line diff-file">+++ b/x.cu</div>',
            '<div class="line diff-hunk">&#64;&#64; int f(int* p)</div>',
            '<div class="line"> if (a &lt; b &amp;&amp; c &gt; d) {</div>',
            '<div class="line diff-del">-  s = &quot;old&quot;;</div>',
            '<div class="line diff-add">+  s = &#39;new&#39; &#64; &#92;n;</div>',
            '</div><!-- fragment -->\\endhtmlonly',
        ]
        self.assertEqual(mdfilter.diff_html(self.DIFF), want)
        # Negative control: without the escapes, < and & reach the HTML as markup.
        self.assertNotIn("<div class=\"line\"> if (a < b && c > d) {</div>", want)

    def test_html_check_reads_the_marks(self):
        """The site's check (tests/html_check.py) finds every line marked, and finds the same
        fragment with its marks removed in one colour."""
        from wblib import mdfilter
        sys.path.insert(0, HERE)
        import html_check
        html = "\n".join(mdfilter.diff_html(self.DIFF)).replace("\\htmlonly[block]", "").replace("\\endhtmlonly", "")

        def parsed(text):
            page = html_check.Page()
            page.feed(f"<html><body><div class='contents'>{text}</div></body></html>")
            return html_check.diffs(page)
        found = parsed(html)
        self.assertEqual(len(found), 1)
        self.assertEqual([text for _, text in found[0]], self.DIFF)
        self.assertEqual(html_check.unmarked_diff_lines(found[0]), [])
        # Negative control: the same lines unmarked are refused, each + and - and header line.
        import re
        bare = re.sub(r' class="line diff-[a-z]+"', ' class="line"', html)
        self.assertEqual(len(html_check.unmarked_diff_lines(parsed(bare)[0])), 5)

    def test_only_diff_blocks_change_and_lines_keep_their_numbers(self):
        from wblib import mdfilter
        page = ["# Chapter 05: x", "", "```cpp", "+1;", "```", "[a](../06-y/README.md)", "```diff"] + \
            self.DIFF + ["```", "after [b](x.cu)"]
        out = mdfilter.filtered("chapters/05-x/README.md", page)
        self.assertEqual(len(out), len(page))
        self.assertEqual(out[:5], ["# Chapter 05: x {#chapter05}", "", "```cpp", "+1;", "```"])
        self.assertEqual(out[5], "[a](@ref chapter06)")
        self.assertEqual(out[6:-1], mdfilter.diff_html(self.DIFF))
        self.assertEqual(out[-1], "after [b](x_8cu_source.html)")
        # Negative control: a block never closed is left as it was.
        self.assertEqual(mdfilter.filtered("docs/pages/p.md", ["```diff", "+x"]), ["```diff", "+x"])


class MdFilterGlossaryTest(unittest.TestCase):
    """mdfilter: the glossary's headings get GitHub's anchors as labels, and a link to one of them
    from another page reaches it in the site; a headline number's tag is taken out of the prose."""

    def test_glossary_anchors_and_links(self):
        from wblib import mdfilter
        self.assertEqual(mdfilter.github_anchor("Bulk copy (TMA)"), "bulk-copy-tma")
        self.assertEqual(mdfilter.github_anchor("Aggregate and inclusive prefix"), "aggregate-and-inclusive-prefix")
        page = ["# Glossary", "", "## Look-back", "```", "## not a heading", "```", "See [carry](#carry)."]
        out = mdfilter.filtered("docs/pages/glossary.md", page)
        self.assertEqual(out[:5], ["# Glossary {#glossary}", "", "## Look-back {#look-back}", "```", "## not a heading"])
        self.assertEqual(out[-1], "See [carry](#carry).")
        link = mdfilter.filtered("chapters/17-x/README.md", ["[ulp](../../docs/pages/glossary.md#ulp) and [it](../../docs/pages/glossary.md)"])
        self.assertEqual(link, ["[ulp](@ref ulp) and [it](@ref glossary)"])
        # Negative control: another page's headings get no label, and its anchors are dropped as before.
        self.assertEqual(mdfilter.filtered("docs/pages/course.md", ["## Look-back"]), ["## Look-back"])
        self.assertEqual(mdfilter.filtered("README.md", ["[c](docs/pages/course.md#x)"]), ["[c](@ref course)"])

    def test_number_tags_are_taken_out_of_prose_only(self):
        from wblib import mdfilter
        tag = "<!-- num h200 read_sum_int4 2^30 gbps -->"
        out = mdfilter.filtered("docs/pages/p.md", [f"at {tag}4468.2 GB/s, `{tag}1.0`", "```", f"{tag}1", "```"])
        self.assertEqual(out, [f"at 4468.2 GB/s, `{tag}1.0`", "```", f"{tag}1", "```"])


class PagesTest(unittest.TestCase):
    """pages: navigation and the diff between two chapters' programs, and --check."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="wb-pages-")
        self.addCleanup(shutil.rmtree, self.root)
        write(os.path.join(self.root, "README.md"), "# Workbook\n")
        write(os.path.join(self.root, "chapters/00-first/first.cu"),
              "// the first\n__global__ void reduce_first(int* p) {\n  p[0] = 1;  // one\n}\n")
        write(os.path.join(self.root, "chapters/01-second/second.cu"),
              "// the second\n__global__ void reduce_second(int* p) {\n  p[0] = 2;\n}\n")
        for cid, name in (("00-first", "First"), ("01-second", "Second")):
            write(os.path.join(self.root, f"chapters/{cid}/README.md"),
                  f"# {name}\n<!-- nav:begin -->\n<!-- nav:end -->\n" +
                  ("<!-- diff:begin -->\nstale\n<!-- diff:end -->\n" if cid.startswith("01") else ""))

    def run_pages(self, *argv):
        from wblib import pages
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = pages.main(list(argv), root=self.root)
        return rc, out.getvalue()

    def test_write_then_check(self):
        self.assertEqual(self.run_pages(), (0, "pages: wrote chapters/00-first/README.md\n"
                                                 "pages: wrote chapters/01-second/README.md\n"))
        with open(os.path.join(self.root, "chapters/01-second/README.md"), encoding="utf-8") as f:
            got = f.read()
        want = (
            "# Second\n<!-- nav:begin -->\n"
            "Previous: [First](../00-first/README.md) · Code: [second.cu](second.cu) · [All chapters](../../README.md)\n"
            "<!-- nav:end -->\n<!-- diff:begin -->\n"
            "Comments are left out, so that only code shows; the full programs are "
            "[first.cu](../00-first/first.cu) and [second.cu](second.cu).\n\n"
            "The kernel `reduce_first` is now `reduce_second`. To keep the rename from rippling through "
            "the diff, the old program is shown with the new name (`first` becomes `second`, in the "
            "launcher's name too).\n\n"
            "```diff\n--- chapters/00-first/first.cu\n+++ chapters/01-second/second.cu\n"
            "@@\n __global__ void reduce_second(int* p) {\n-  p[0] = 1;\n+  p[0] = 2;\n }\n```\n"
            "<!-- diff:end -->\n")
        self.assertEqual(got, want)
        self.assertEqual(self.run_pages("--check"),
                         (0, "pages: every generated block is up to date (3 pages)\n"))
        # Negative control: a change to the code leaves the page out of date.
        write(os.path.join(self.root, "chapters/01-second/second.cu"),
              "__global__ void reduce_second(int* p) {\n  p[0] = 3;\n}\n")
        rc, out = self.run_pages("--check")
        self.assertEqual(rc, 1)
        self.assertIn("pages: chapters/01-second/README.md is out of date", out)


class FiguresTest(unittest.TestCase):
    """figures: every SVG is valid, titled, 800 px wide, legible and drawn the same way each time;
    --check names what differs from the committed folder; the drawn steps follow the kernels."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wb-test-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.files = figures.draw_all()
        figures.write(self.dir, self.files)

    def check(self):
        """figures --check on self.dir: (exit status, what it said on stderr)."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = figures.main(["--check", "--dir", self.dir])
        return rc, err.getvalue()

    def test_fresh_drawing_passes_the_check(self):
        self.assertEqual(self.check(), (0, ""))

    def test_check_names_an_altered_svg(self):
        path = os.path.join(self.dir, "chapter05-sequential-tree.svg")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        write(path, text.replace(">80<", ">81<", 1))
        rc, err = self.check()
        self.assertEqual(rc, 1)
        self.assertIn("chapter05-sequential-tree.svg: differs", err)
        self.assertNotIn("chapter04", err)

    def test_check_names_a_missing_and_a_stray_file(self):
        os.remove(os.path.join(self.dir, "README.md"))
        write(os.path.join(self.dir, "chapter99-old.svg"), "<svg/>\n")
        rc, err = self.check()
        self.assertEqual(rc, 1)
        self.assertIn("README.md: missing", err)
        self.assertIn("chapter99-old.svg: no figure draws it", err)

    def test_every_figure_is_valid_and_reproducible(self):
        svgs = {n: t for n, t in self.files.items() if n.endswith(".svg")}
        self.assertGreaterEqual(len(svgs), 20)
        for name, text in svgs.items():
            self.assertEqual(figures.problems(name, text), [], name)
            self.assertRegex(name, r"^chapter\d\d-[a-z0-9-]+\.svg$")
        self.assertEqual(figures.draw_all(), self.files)
        for name in svgs:
            self.assertIn(f"(../../docs/figures/{name})", self.files["README.md"])

    def test_problems_catches_each_fault(self):
        good = self.files["chapter03-interleaved-tree.svg"]
        self.assertEqual(figures.problems("x.svg", good), [])
        faults = {
            "not well-formed": good.replace("</svg>", ""),
            "width is 900": good.replace('width="800"', 'width="900"', 1),
            "no <desc>": re.sub(r"<desc>.*?</desc>", "", good, count=1),
            "no <title>": re.sub(r"<title>.*?</title>", "", good, count=1),
            "below 12 px": good.replace('font-size="12"', 'font-size="10"', 1),
            "Markdown alt text": re.sub(r"<desc>", "<desc>s[i] ", good, count=1),
        }
        for what, text in faults.items():
            found = " ".join(figures.problems("x.svg", text))
            self.assertIn(what, found, what)

    def test_tree_steps_follow_the_kernels(self):
        # Chapter 04, 256 threads, stride 1: thread 3 adds s[7] into s[6].
        strided = dict(figures.tree_steps("strided", 256))
        self.assertIn((3, 6, 7), strided[1])
        # Warp 0's worst bank conflict per step: chapter 04's grows to 8-way, 03 and 05 have none.
        ways = {kind: [max(figures.bank_hits(pairs)) for _s, pairs in figures.tree_steps(kind, 256)]
                for kind in ("interleaved", "strided", "sequential")}
        self.assertEqual(ways["strided"], [2, 4, 8, 8, 8, 4, 2, 1])
        self.assertEqual(ways["interleaved"], [1] * 8)
        self.assertEqual(ways["sequential"], [1] * 8)
        # Every tree leaves the sum in slot 0; a step left out does not.
        for kind in ("interleaved", "strided", "sequential"):
            steps = figures.tree_steps(kind, 16)
            self.assertEqual(run_pairs(figures.TREE_VALUES, steps)[0], sum(figures.TREE_VALUES), kind)
            self.assertNotEqual(run_pairs(figures.TREE_VALUES, steps[:-1])[0], sum(figures.TREE_VALUES), kind)

    def test_brent_kung_steps_scan(self):
        steps = [(d, pairs) for _phase, d, pairs in figures.brent_kung_steps(8)]
        want = figures.inclusive(figures.SCAN_VALUES)
        self.assertEqual(run_pairs(figures.SCAN_VALUES, steps), want)
        self.assertEqual(sum(len(p) for _d, p in steps), 11)
        self.assertNotEqual(run_pairs(figures.SCAN_VALUES, steps[:3]), want)  # the up-sweep alone


def run_pairs(values, steps):
    """values after each step's (thread, dst, src) adds, every read of a step before its writes."""
    values = list(values)
    for _stride, pairs in steps:
        new = list(values)
        for _t, dst, src in pairs:
            new[dst] = values[dst] + values[src]
        values = new
    return values


# ---- summary: the pages read in one sitting ----------------------------------------------------

def between(text, marker):
    """The lines between a page's <!-- marker:begin --> and <!-- marker:end --> lines."""
    return text.split(f"<!-- {marker}:begin -->\n", 1)[1].split(f"<!-- {marker}:end -->", 1)[0]


class SummaryPagesTest(unittest.TestCase):
    """summary render of tests/fixtures/scripts/h200.csv and the same rows on an "NVIDIA L4" (two
    GPUs): the blocks it writes into the README and the chapter pages, as exact text."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="wb-pages-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copytree(os.path.join(os.path.dirname(HERE), "scripts"), os.path.join(self.root, "scripts"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        fixture = os.path.join(HERE, "fixtures", "scripts")
        os.makedirs(os.path.join(self.root, "docs", "results"))
        shutil.copy(os.path.join(fixture, "chapters.json"), os.path.join(self.root, "docs", "results"))
        with open(os.path.join(fixture, "h200.csv"), encoding="utf-8") as f:
            rows = f.read()
        write(os.path.join(self.root, "docs", "results", "h200.csv"), rows)
        write(os.path.join(self.root, "docs", "results", "l4.csv"), rows.replace("NVIDIA H200", "NVIDIA L4"))
        for d in ("00-speed-of-light", "01-atomic-naive", "05-tree-sequential", "11-cub-and-beyond",
                  "12-scan-naive-global", "13-scan-shared", "17-scan-device-wide"):
            write(os.path.join(self.root, "chapters", d, "README.md"),
                  f"# {d}\n\n<!-- results:begin -->\n<!-- results:end -->\n\n<!-- sweep:begin -->\n<!-- sweep:end -->\n")
        write(os.path.join(self.root, "README.md"), "# W\n\n<!-- summary:begin -->\n<!-- summary:end -->\n")

    def render(self, *csvs):
        out = subprocess.run([sys.executable, os.path.join(self.root, "scripts", "wb.py"), "summary", "render",
                              "--date", "2026-11-22"] + [f"docs/results/{c}.csv" for c in csvs],
                             cwd=self.root, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def block(self, page, marker):
        with open(os.path.join(self.root, page), encoding="utf-8") as f:
            return between(f.read(), marker)

    def test_second_gpu_folded(self):
        self.render("h200", "l4")
        self.assertEqual(self.block("chapters/05-tree-sequential/README.md", "results"), CHAPTER05_TWO_GPUS)
        sweep = self.block("chapters/11-cub-and-beyond/README.md", "sweep")
        self.assertTrue(sweep.startswith("CUB against the workbook across N on the NVIDIA H200,"), sweep)
        self.assertEqual(sweep.count("<details>"), 1)
        self.assertIn("faster.\n\n<details>\n<summary>The same on the NVIDIA L4</summary>\n\n"
                      "CUB against the workbook across N on the NVIDIA L4,", sweep)
        self.assertTrue(sweep.endswith("faster.\n\n</details>\n"), sweep)
        # Negative controls: the other order folds the H200's block instead; one GPU folds nothing.
        self.render("l4", "h200")
        swapped = self.block("chapters/05-tree-sequential/README.md", "results")
        self.assertNotEqual(swapped, CHAPTER05_TWO_GPUS)
        self.assertIn("<summary>The same on the NVIDIA H200</summary>", swapped)
        self.render("h200")
        self.assertNotIn("<details>", self.block("chapters/05-tree-sequential/README.md", "results"))
        self.assertEqual(common.fold_gpus([("A", "a\n")]), "a\n")
        self.assertEqual(common.fold_gpus([("A", "a\n"), ("B & C", "b\n")]),
                         "a\n\n<details>\n<summary>The same on the B &amp; C</summary>\n\nb\n\n</details>\n")

    def standing(self, chapter):
        """The sentences under the tables of a chapter's results block, in order."""
        return [l for l in self.block(chapter, "results").split("\n") if l.startswith(("The step", "This chapter's"))]

    def test_open_block_says_where_the_chapter_stands(self):
        self.render("h200", "l4")
        p11, p12 = "chapters/11-cub-and-beyond/README.md", "chapters/12-scan-naive-global/README.md"
        # Only the open block (the first GPU's) has the sentence; the numbers are the best table's.
        self.assertEqual(self.standing(p11), [
            "This chapter's fastest verified kernel, reduce_best (0.9600 ms), reaches 99.0% of the read-only ceiling "
            "and runs 1.56x as fast as chapter 05's reduce_tree_sequential (1.500 ms) and 1.02x as fast as CUB's "
            "cub_device_reduce_sum (0.9800 ms)."])
        self.assertEqual(self.standing("chapters/17-scan-device-wide/README.md"), [
            "This chapter's fastest verified kernel, scan_decoupled_lookback (2.700 ms), reaches 74.1% of the copy ceiling "
            "and runs 2.96x as fast as chapter 13's scan_shared (8.000 ms) and 1.04x as fast as CUB's "
            "cub_device_inclusive_sum (2.800 ms)."])
        self.assertEqual(self.standing(p12), [
            "This chapter's fastest verified kernel, scan_naive_global (40.00 ms), reaches 5.0% of the copy ceiling."])
        self.assertEqual(self.standing("chapters/00-speed-of-light/README.md"), [])
        with open(os.path.join(self.root, "docs", "results", "h200.md"), encoding="utf-8") as f:
            self.assertIn("| 99.0% | 1.56x | 625.00x | 1.02x |", f.read())
        # Negative controls: a slower chapter 05 changes chapter 11's "as fast as", and without
        # its CUB row chapter 11 says nothing of CUB.
        path = os.path.join(self.root, "docs", "results", "h200.csv")
        with open(path, encoding="utf-8") as f:
            rows = f.read()
        write(path, rows.replace("05,reduce_tree_sequential,1073741824,256,1,1.500000", "05,reduce_tree_sequential,1073741824,256,1,1.920000"))
        self.render("h200")
        self.assertIn("runs 2.00x as fast as chapter 05's reduce_tree_sequential (1.920 ms)", self.standing(p11)[0])
        write(path, "".join(l for l in rows.splitlines(True) if not l.startswith("11,cub_")))
        self.render("h200")
        self.assertNotIn("CUB", self.standing(p11)[0])
        self.assertTrue(self.standing(p11)[0].endswith("(1.500 ms)."), self.standing(p11))

    def test_readme_block_is_one_short_table(self):
        self.render("h200", "l4")
        block = self.block("README.md", "summary")
        self.assertEqual(block, README_TWO_GPUS)
        self.assertLess(len(block.encode()), 3500)
        # CUB's rows are folded into the vs CUB column; the H200's numbers are those of its best table.
        self.assertNotIn("| cub_", block)
        with open(os.path.join(self.root, "docs", "results", "h200.md"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("| cub_device_reduce_sum |", page)
        self.assertIn("| 74.1% | 2.96x | 14.81x | 1.04x |", page)
        # Negative controls: in the other order the L4's table and chart come first; the full
        # tables (the results page, which the README links instead) would not fit the budget.
        self.render("l4", "h200")
        swapped = self.block("README.md", "summary")
        self.assertNotEqual(swapped, README_TWO_GPUS)
        self.assertTrue(swapped.startswith("Each chapter's step (else its fastest verified kernel) on the NVIDIA L4,"))
        self.assertTrue(swapped.endswith("](docs/results/l4.svg)\n"), swapped)
        self.assertGreater(len(page.encode()), 3500)

    def retag(self, tags):
        """Rewrite h200.csv in the programs' current layout (blocks_per_sm and config columns):
        tags maps a chapter to the config of its CUB rows; other rows get an empty config."""
        path = os.path.join(self.root, "docs", "results", "h200.csv")
        with open(os.path.join(HERE, "fixtures", "scripts", "h200.csv"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        out = [lines[0].replace(",verified,", ",verified,blocks_per_sm,config,")]
        for line in lines[1:]:
            f = line.split(",")
            config = tags.get(f[0], "") if f[1].startswith("cub_") else ""
            out.append(",".join(f[:10] + ["0", config] + f[10:]))
        write(path, "\n".join(out) + "\n")

    def test_blocks_name_the_cub_they_compare_against(self):
        p11, p17 = "chapters/11-cub-and-beyond/README.md", "chapters/17-scan-device-wide/README.md"
        # Rows that record no CUB (the CSVs written before the programs did) ran CUDA 13.0's.
        self.render("h200")
        self.assertIn("measured in the same run. vs CUB compares with CUB 3.0.1 (CUDA 13.0's).\n", self.block(p11, "results"))
        self.assertIn("vs CUB compares with CUB 3.0.1 (CUDA 13.0's).\n", self.block("README.md", "summary"))
        # Every CUB row names its CUB: every block says that one, and no other.
        self.retag({"11": "cub=3.5.0", "17": "tile=1x1 cub=3.5.0"})
        self.render("h200")
        self.assertIn("measured in the same run. vs CUB compares with CUB 3.5.0.\n", self.block(p11, "results"))
        self.assertIn("measured in the same run. vs CUB compares with CUB 3.5.0.\n", self.block(p17, "results"))
        self.assertIn("(above 1: faster); vs CUB compares with CUB 3.5.0.\n", self.block("README.md", "summary"))
        self.assertIn("the fastest verified call of CUB 3.5.0 and", self.block(p11, "sweep"))
        with open(os.path.join(self.root, "docs", "results", "h200.md"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("\nThe CUB calls ran CUB 3.5.0, the CUB these programs were built with.\n", page)
        self.assertIn("the fastest verified call of CUB 3.5.0 and", page)
        self.assertNotIn("3.0.1", page + self.block("README.md", "summary") + self.block(p11, "results"))
        # A chapter without CUB rows says nothing of which CUB.
        self.assertNotIn("compares with", self.block("chapters/05-tree-sequential/README.md", "results"))
        # Negative control: chapter 11's rows from another build; each block names its own, the
        # README both, oldest first.
        self.retag({"11": "", "17": "cub=3.5.0"})
        self.render("h200")
        self.assertIn("vs CUB compares with CUB 3.0.1 (CUDA 13.0's).\n", self.block(p11, "results"))
        self.assertIn("vs CUB compares with CUB 3.5.0.\n", self.block(p17, "results"))
        self.assertIn("vs CUB compares with CUB 3.0.1 (CUDA 13.0's) and CUB 3.5.0.\n", self.block("README.md", "summary"))

    def test_cub_of_reads_the_config(self):
        from wblib import summary
        self.assertEqual(summary.cub_of("cub=3.5.0"), "CUB 3.5.0")
        self.assertEqual(summary.cub_of("tile=256x32 cub=3.10.2"), "CUB 3.10.2")
        # Negative controls: no version, or a key that only ends in "cub", is no recorded CUB.
        for config in ("", None, "tile=256x32", "notcub=9.9.9", "cub="):
            self.assertEqual(summary.cub_of(config), summary.UNRECORDED_CUB, config)
        rows = [summary.Row("11", k, 1, 0, 0, 1.0, 1.0, 1.0, 1.0, True, "main", summary.cub_of(c) if c is not None else "")
                for k, c in (("cub_a", "cub=3.10.0"), ("cub_b", "cub=3.5.0"), ("reduce_best", None), ("cub_c", "cub=3.5.0"))]
        # Version order, not text order: 3.5.0 before 3.10.0; each once; "" without a CUB call.
        self.assertEqual(summary.cub_label(rows), "CUB 3.5.0 and CUB 3.10.0")
        self.assertEqual(summary.cub_label(rows[2:3]), "")


README_TWO_GPUS = """\
Each chapter's step (else its fastest verified kernel) on the NVIDIA H200, measured on 2026-11-22 at N = 2^30. \
% of ceiling is against chapter 00's read-only ceiling for a reduction, its copy ceiling for a scan; vs previous and \
vs CUB are the previous chapter's and CUB's time over this one's (above 1: faster); vs CUB compares with CUB 3.0.1 \
(CUDA 13.0's).

| chapter | kernel | median ms | GB/s | % of ceiling | vs previous | vs CUB |
| --- | --- | ---: | ---: | ---: | ---: | ---: |
| [00 speed-of-light](chapters/00-speed-of-light/README.md) | memcpy_d2d (copy ceiling) | 2.000 | 4295.0 | 100.0% |  |  |
| [00 speed-of-light](chapters/00-speed-of-light/README.md) | read_sum_int4 (read-only ceiling) | 0.9500 | 4521.0 | 100.0% |  |  |
| [01 atomic-naive](chapters/01-atomic-naive/README.md) | reduce_atomic_naive | 600.0 | 7.2 | 0.2% |  |  |
| [05 tree-sequential](chapters/05-tree-sequential/README.md) | reduce_tree_sequential | 1.500 | 2863.3 | 63.3% | 400.00x |  |
| [11 cub-and-beyond](chapters/11-cub-and-beyond/README.md) | reduce_best | 0.9600 | 4473.9 | 99.0% | 1.56x | 1.02x |
| [12 scan-naive-global](chapters/12-scan-naive-global/README.md) | scan_naive_global | 40.00 | 214.7 | 5.0% |  |  |
| [13 scan-shared](chapters/13-scan-shared/README.md) | scan_shared | 8.000 | 1073.7 | 25.0% | 5.00x |  |
| [17 scan-device-wide](chapters/17-scan-device-wide/README.md) | scan_decoupled_lookback | 2.700 | 3181.5 | 74.1% | 2.96x | 1.04x |

Every kernel, each change alone and CUB's own rows: [Results on the NVIDIA H200](docs/results/h200.md), \
[Results on the NVIDIA L4](docs/results/l4.md).

![Best GB/s per chapter on the NVIDIA H200](docs/results/h200.svg)
"""


CHAPTER05_TWO_GPUS = """\
Measured on the NVIDIA H200 on 2026-11-22 at N = 2^30 by `scripts/summary.sh`. % of ceiling is against chapter 00's read-only ceiling, 4521.0 GB/s, measured in the same run.

| kernel | n | block | batch | median ms | GB/s | % of peak | % of ceiling |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| reduce_tree_sequential | 2^30 | 256 | 1 | 1.500 | 2863.3 | 59.5% | 63.3% |
| reduce_tree_racy_demo (FAIL) | 2^30 | 256 | 1 | 1.000 | 4295.0 | 89.2% | 95.0% |

The step this chapter teaches, reduce_tree_sequential (1.500 ms), reaches 63.3% of the read-only ceiling and runs 400.00x as fast as chapter 01's reduce_atomic_naive (600.0 ms).

![Best GB/s per chapter on the NVIDIA H200, chapter 05 marked](../../docs/results/h200-chapter05.svg)

Every chapter's kernels, the charts and the CSV: [Results on the NVIDIA H200](../../docs/results/h200.md).

<details>
<summary>The same on the NVIDIA L4</summary>

Measured on the NVIDIA L4 on 2026-11-22 at N = 2^30 by `scripts/summary.sh`. % of ceiling is against chapter 00's read-only ceiling, 4521.0 GB/s, measured in the same run.

| kernel | n | block | batch | median ms | GB/s | % of peak | % of ceiling |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| reduce_tree_sequential | 2^30 | 256 | 1 | 1.500 | 2863.3 | 59.5% | 63.3% |
| reduce_tree_racy_demo (FAIL) | 2^30 | 256 | 1 | 1.000 | 4295.0 | 89.2% | 95.0% |

![Best GB/s per chapter on the NVIDIA L4, chapter 05 marked](../../docs/results/l4-chapter05.svg)

Every chapter's kernels, the charts and the CSV: [Results on the NVIDIA L4](../../docs/results/l4.md).

</details>
"""


class MdFilterFoldTest(unittest.TestCase):
    """mdfilter: a folded block's own lines become raw HTML, since Doxygen 1.9 would close the
    <details> right after its summary; the Markdown between them is left for Doxygen."""

    def test_fold_lines(self):
        from wblib import mdfilter
        page = ["# T", "", "<details>", "<summary>The same on the `H100` @ 2^30</summary>", "",
                "| a |", "| --- |", "", "</details>", "```", "<details>", "```"]
        want = ["# T {#t}", "", "\\htmlonly[block]<details>\\endhtmlonly",
                "\\htmlonly[block]<summary>The same on the <code>H100</code> &#64; 2^30</summary>\\endhtmlonly",
                "", "| a |", "| --- |", "", "\\htmlonly[block]</details>\\endhtmlonly", "```", "<details>", "```"]
        self.assertEqual(mdfilter.filtered("docs/pages/t.md", page), want)
        # Negative control: a line that only mentions <details> in text is not a fold.
        self.assertEqual(mdfilter.filtered("docs/pages/t.md", ["Use <details> to fold."]),
                         ["Use <details> to fold."])


class NumbersScalingTest(unittest.TestCase):
    """numbers on chapter 18's scaling CSV: a row per kernel and launch mode."""

    def test_rows_by_launch_mode_and_ratios(self):
        from wblib import numbers
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gpu-x2-chapter18.csv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("run,device,gpus,chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,"
                        "blocks_per_sm,config\n"
                        "one process,G,2,18,sum_one_gpu,1024,256,4,0.500000,0.5,8.2,1.0,PASS,0,\n"
                        "one process,G,2,18,sum_allreduce,1024,256,4,0.250000,0.25,16.4,1.0,PASS,0,\n"
                        "mpirun -np 2,G,2,18,sum_allreduce,1024,256,4,0.400000,0.4,10.2,1.0,PASS,0,\n")
            t = numbers.table_for(path)
            self.assertIsInstance(t, numbers.ScalingTable)
            self.assertEqual(t.value("sum_allreduce", 1024, "ms"), "0.2500")
            self.assertEqual(t.value("mpi:sum_allreduce", 1024, "gbps"), "10.2")
            self.assertEqual(t.value("sum_allreduce", 1024, "x_sum_one_gpu"), "2.00")
            # Negative controls: no such row, a quantity a scaling CSV has no ceiling for.
            with self.assertRaises(numbers.TagError):
                t.value("mpi:sum_one_gpu", 1024, "ms")
            with self.assertRaises(numbers.TagError):
                t.value("sum_allreduce", 1024, "pct_copy")


if __name__ == "__main__":
    unittest.main()
