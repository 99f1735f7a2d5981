"""report.html: structure, escaping of untrusted text, and that it really
renders in headless Chromium (Debian package chromium, which
`scripts/ndisbench setup` installs) with the grid coloured as intended."""
import html.parser
import json
import os
import pathlib
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
import zlib

import helpers  # noqa: F401  (import path)
from ndisbench_lib.commands import bench, benchhtml
from ndisbench_lib.report.verdict import Verdict
from ndisbench_lib.report import report
from ndisbench_lib.report import html as htmlreport

HOSTILE = ('<script>document.title="pwned"</script>'
           '"><img src=x onerror="document.title=1">&amp; </pre></td>')
CHROMIUM_TIMEOUT = 90


def sample_run() -> report.RunResult:
    """Every colour of the grid once, a wrapped cell, an unwrapped one, an
    old-style cell and hostile text in summaries, details and names."""
    v = Verdict
    bcm = report.CellResult(
        "policy-2.6.25-rc1", "2.6.25-rc1", "bcm43xx",
        "cells/policy-2.6.25-rc1__bcm43xx__ndiswrapper", "6.1.192", 5.1, 2.0,
        wrapper="ndiswrapper")
    bcm.verdicts = {
        "load": v("xfail", "Unknown symbol usb_register_driver (err -2)"),
        "driverloader": v("xfail", "refused as expected"),
        "dhcp": v("FAIL", HOSTILE, (HOSTILE, "second <b>line</b>")),
        "ping": v("TIMEOUT", "guest killed after 120 s"),
        "tcp": v("ERROR", "no sink"),
        "unload": v("skip", "not reached"),
    }
    e1000 = report.CellResult("src-6.1", "2.6.25-rc4", "e1000",
                              "cells/src-6.1__e1000", "6.1.192", 4.0, 1.9)
    e1000.verdicts = {"dhcp": v("pass", "lease 10.0.2.15 in 162 ms"),
                      "ping": v("pass", "100/100 replies")}
    evil = report.CellResult('k"><script>alert(1)</script>', "p", "none",
                             "javascript:alert(1)//", "", None, None)
    evil.verdicts = {"load": v("pass", "ok")}
    return report.RunResult(
        "20260101-000000", "tcg",
        ["load", "driverloader", "dhcp", "ping", "tcp", "unload"],
        [bcm, e1000, evil], started="2026-01-01T00:00:00", host="<host>")


def failing_run() -> report.RunResult:
    """A run page's "What failed" cases: a check failure in the first
    cell, a cell whose kernel did not build (never booted, every check the
    same ERROR) after it, a cell whose agent died (one ERROR on three
    checks, one FAIL), expected failures and a hostile two-line cause."""
    v = Verdict
    ran = report.CellResult("src-6.1", "2.6.25-rc4", "e1000",
                            "cells/src-6.1__e1000", "6.1.192", 9.0, 2.0)
    ran.verdicts = {"dhcp": v("pass", "lease"),
                    "tcp": v("FAIL", "sink got 4190208 of 4194304 bytes"),
                    "ping": v("FAIL", HOSTILE + "\nsecond line")}
    built = report.CellResult("debug-6.1", "2.6.25-rc4", "bcm43xx",
                              "cells/debug-6.1__bcm43xx__ndiswrapper",
                              wrapper="ndiswrapper")
    err = v("ERROR", "kernel debug-6.1: make bzImage failed (exit 2)")
    built.verdicts = {c: err for c in ("load", "dhcp", "ping", "tcp")}
    died = report.CellResult("policy-2.6.25-rc1", "2.6.25-rc1", "none",
                             "cells/policy-2.6.25-rc1__none", "2.6.25", 30.0,
                             None)
    gone = v("ERROR", "agent did not finish (guest stopped, exit 1)")
    died.verdicts = {"load": gone, "taint": v("FAIL", "tainted 4096"),
                     "driverloader": gone, "control": gone,
                     "dhcp": v("xfail", "not reached (expected)")}
    return report.RunResult(
        "20260102-000000", "tcg",
        ["load", "taint", "driverloader", "control", "dhcp", "ping", "tcp"],
        [ran, built, died], started="2026-01-02T00:00:00", host="h")


def wide_run(kernels: int = 14, checks_n: int = 12) -> report.RunResult:
    """A matrix wider than a 1366 px window: long kernel names, every
    check a pass but one FAIL in the last row."""
    v = Verdict
    # As long as the real names (driverloader, associate): the columns
    # add up to more than 1366 px.
    names = [f"associate-{n:02d}" for n in range(checks_n)]
    cells = []
    for k in range(kernels):
        cell = report.CellResult(f"policy-2.6.{k + 10}-rc{k % 5}",
                                 "2.6.25-rc4", "rtl8187", f"cells/k{k}",
                                 "6.1.192", 9.0, 2.0, wrapper="ndiswrapper")
        cell.verdicts = {c: v("pass", f"{c} fine") for c in names}
        cells.append(cell)
    # A cause with a long path (build errors name their logs): one word
    # wider than the window, which must wrap rather than widen the page.
    path = "/".join(["home", "user", ".cache", "ndisbench"] + ["tmp"] * 50)
    cells[-1].verdicts[names[-1]] = v("FAIL", f"the last check failed: "
                                              f"see {path}/kbuild.log")
    return report.RunResult("20260103-000000", "tcg", names, cells,
                            started="2026-01-03T00:00:00", host="h")


class Grid(html.parser.HTMLParser):
    """Collects the elements a test looks at."""
    def __init__(self) -> None:
        super().__init__()
        self.tags: list = []          # (tag, attrs dict)
        self.cells: list = []         # attrs of grid td.v
        self.hrefs: list = []
        self.failures: list = []      # attrs of the what-failed rows
        self.computed = ""
        self._in_computed = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "td" and "v" in a.get("class", "").split():
            self.cells.append(a)
        if tag == "tr" and "failure" in a.get("class", "").split():
            self.failures.append(a)
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if a.get("id") == "computed":
            self._in_computed = True

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_computed = False

    def handle_data(self, data):
        if self._in_computed:
            self.computed += data


def parse(text: str) -> Grid:
    grid = Grid()
    grid.feed(text)
    return grid


def by_check(grid: Grid, check: str, row: int = 0) -> dict:
    return [c for c in grid.cells if c.get("data-check") == check][row]


class ReportHtmlTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.run_dir = pathlib.Path(self.tmp.name) / "20260101-000000"
        self.run_dir.mkdir()
        self.result = sample_run()
        for cell in self.result.cells[:2]:
            folder = self.run_dir / cell.folder
            folder.mkdir(parents=True)
            (folder / "serial.log").write_text("log\n")
            (folder / "ktap.txt").write_text("KTAP version 1\n")
        (self.run_dir / self.result.cells[0].folder / "air.pcap.gz").write_bytes(
            b"\xd4\xc3\xb2\xa1")

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def page(self) -> str:
        report.write(self.run_dir, self.result)
        return (self.run_dir / "report.html").read_text()

    def test_render_writes_report_html_beside_the_others(self):
        self.page()
        for name in ("results.json", "matrix.txt", "summary.md", "junit.xml",
                     "report.html"):
            self.assertTrue((self.run_dir / name).is_file(), name)

    def test_grid_classes_and_labels(self):
        grid = parse(self.page())
        self.assertEqual(len(grid.cells), 3 * 6)
        want = {"load": "st-xfail", "driverloader": "st-xfail",
                "dhcp": "st-fail", "ping": "st-timeout", "tcp": "st-error",
                "unload": "st-skip"}
        for check, cls in want.items():
            self.assertIn(cls, by_check(grid, check)["class"].split(), check)
        self.assertIn("st-pass", by_check(grid, "dhcp", 1)["class"].split())
        self.assertIn("st-none", by_check(grid, "load", 1)["class"].split())
        text = self.page()
        self.assertIn(">reproduced</a>", text)
        self.assertIn(">refused</a>", text)
        self.assertIn('title="load: reproduced: Unknown symbol', text)

    def test_hostile_text_is_escaped(self):
        text = self.page()
        grid = parse(text)
        tags = [t for t, _ in grid.tags]
        self.assertNotIn("script", tags)
        self.assertNotIn("img", tags)
        self.assertFalse(any("onerror" in a for _, a in grid.tags))
        self.assertIn("&lt;script&gt;document.title=&quot;pwned&quot;", text)
        self.assertIn("second &lt;b&gt;line&lt;/b&gt;", text)
        self.assertIn("&lt;host&gt;", text)
        # A folder cannot become a javascript: (or any scheme) link.
        self.assertFalse([h for h in grid.hrefs
                          if re.match(r"^[a-z]+:", h, re.I)], grid.hrefs)
        # The summary is in the title attribute, escaped, not closing it.
        dhcp = by_check(grid, "dhcp")
        self.assertTrue(dhcp["title"].startswith("dhcp: FAIL: <script>"))

    def test_log_links_are_relative_and_pcap_only_when_present(self):
        grid = parse(self.page())
        bcm = "cells/policy-2.6.25-rc1__bcm43xx__ndiswrapper/"
        for name in ("serial.log", "ktap.txt", "air.pcap.gz"):
            self.assertIn(bcm + name, grid.hrefs)
        self.assertIn("cells/src-6.1__e1000/serial.log", grid.hrefs)
        self.assertNotIn("cells/src-6.1__e1000/air.pcap.gz", grid.hrefs)

    def test_self_contained(self):
        text = self.page()
        self.assertNotRegex(text, r"(src|href)=\"(https?:)?//")
        self.assertNotIn("<link", text)
        self.assertIn("<style>", text)

    def test_old_results_without_wrapper_still_load(self):
        raw = json.loads(report.to_json(self.result))
        for cell in raw["cells"]:
            del cell["wrapper"]
        raw["cells"][0]["future_key"] = 1
        again = report.from_json(json.dumps(raw))
        self.assertEqual([c.wrapper for c in again.cells], ["", "", ""])
        self.assertIn("<table", htmlreport.run_page(again))


class WhatFailedTest(unittest.TestCase):
    """The "What failed" list at the top of report.html."""

    def setUp(self) -> None:
        self.result = failing_run()
        self.text = htmlreport.run_page(self.result)
        self.grid = parse(self.text)

    def test_list_is_above_the_matrix(self):
        self.assertIn('id="failed"', self.text)
        self.assertLess(self.text.index('id="failed"'),
                        self.text.index('id="grid"'))
        self.assertLess(self.text.index("What failed"),
                        self.text.index("<h2>Matrix</h2>"))

    def test_build_failures_first_then_cell_order(self):
        rows = [(r["data-kernel"], r["data-status"], r["data-checks"])
                for r in self.grid.failures]
        self.assertEqual(rows, [
            ("debug-6.1", "ERROR", "load dhcp ping tcp"),
            ("src-6.1", "FAIL", "ping"),
            ("src-6.1", "FAIL", "tcp"),
            ("policy-2.6.25-rc1", "ERROR", "load driverloader control"),
            ("policy-2.6.25-rc1", "FAIL", "taint")])
        self.assertEqual([r["class"].split() for r in self.grid.failures][0],
                         ["failure", "build"])
        self.assertNotIn("build", self.grid.failures[3]["class"].split())

    def test_item_names_its_cell_and_cause(self):
        first = self.grid.failures[0]
        self.assertEqual((first["data-device"], first["data-wrapper"]),
                         ("bcm43xx", "ndiswrapper"))
        self.assertIn("make bzImage failed (exit 2)", self.text)
        self.assertIn("agent did not finish", self.text)
        # Each item links to its first check in the cell details.
        self.assertIn("#c1-k0", self.grid.hrefs)
        self.assertIn("#c2-k0", self.grid.hrefs)

    def test_expected_failures_are_not_listed(self):
        statuses = {r["data-status"] for r in self.grid.failures}
        self.assertNotIn("xfail", statuses)
        self.assertNotIn("pass", statuses)
        self.assertIn("1 expected failure", self.text)

    def test_cause_is_one_escaped_line(self):
        start = self.text.index('id="failed"')
        block = self.text[start:self.text.index('id="grid"')]
        self.assertIn("&lt;script&gt;document.title=&quot;pwned&quot;", block)
        self.assertIn("&lt;/pre&gt;&lt;/td&gt; second line", block)
        self.assertNotIn("<script", block)
        tags = [t for t, _ in self.grid.tags]
        self.assertNotIn("script", tags)
        self.assertNotIn("img", tags)

    def test_items_come_from_failures(self):
        items = htmlreport.failures(self.result)
        self.assertEqual([(i.kernel, i.checks, i.build) for i in items][:2], [
            ("debug-6.1", ["load", "dhcp", "ping", "tcp"], True),
            ("src-6.1", ["ping"], False)])
        self.assertEqual(items[0].anchor, "c1-k0")
        self.assertEqual(items[2].anchor, "c0-k6")

    def test_nothing_failed(self):
        v = Verdict
        cell = report.CellResult("src-6.1", "p", "none", "cells/x", "", 1.0)
        cell.verdicts = {"load": v("pass", "ok"),
                         "driverloader": v("xfail", "refused")}
        text = htmlreport.run_page(report.RunResult(
            "r", "tcg", ["load", "driverloader"], [cell]))
        self.assertEqual(parse(text).failures, [])
        self.assertIn('class="failed ok"', text)
        self.assertIn("Nothing failed", text)

    def test_every_badge_has_its_summary_as_title(self):
        cells = self.grid.cells
        self.assertEqual(len(cells), 3 * 7)
        for cell in cells:
            self.assertTrue(cell.get("title"), cell)
        built = [c for c in cells if c["data-status"] == "ERROR"]
        self.assertTrue(all("make bzImage failed" in c["title"]
                            or "agent did not finish" in c["title"]
                            for c in built))
        ping = by_check(self.grid, "ping")
        self.assertTrue(ping["title"].startswith("ping: FAIL: <script>"))
        self.assertIn('title="ping: FAIL: &lt;script&gt;', self.text)


def css_rule(selector: str) -> str:
    """The declarations of one rule of htmlreport.CSS (all rules with that
    exact selector list, joined)."""
    found = [body for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}",
                                              htmlreport.CSS)
             if selector in [x.strip() for x in sel.split(",")]]
    assert found, f"no CSS rule for {selector}"
    return " ".join(" ".join(found).split())


class MatrixLayoutTest(unittest.TestCase):
    """The matrix scrolls inside its own frame with the row names pinned."""

    def test_grid_sits_in_a_scrolling_frame(self):
        text = htmlreport.run_page(wide_run())
        self.assertRegex(text, r'<div class="frame"[^>]*>\s*'
                               r'<table class="grid" id="grid">')
        self.assertIn("overflow: auto", css_rule("div.frame"))

    def test_kernel_column_does_not_wrap_and_is_pinned(self):
        grid = parse(htmlreport.run_page(wide_run()))
        kernels = [a for t, a in grid.tags
                   if t == "th" and "kernel" in a.get("class", "").split()]
        self.assertEqual(len(kernels), 14 + 1)      # rows and the header
        rule = css_rule("#grid th.kernel")
        for want in ("white-space: nowrap", "position: sticky", "left: 0",
                     f"background: {htmlreport.KERNEL_BG}"):
            self.assertIn(want, rule)
        self.assertIn("position: sticky", css_rule("#grid th.device"))
        self.assertIn("white-space: nowrap", css_rule("#grid th.device"))

    def test_kernel_groups_keep_their_separator(self):
        """The frame's own border rule (#grid th, #grid td) outranks
        table.grid's: the thicker line above a new kernel needs its own."""
        self.assertIn("border-top: 2px solid",
                      css_rule("#grid tr.newkernel th"))
        self.assertIn("border-top: 2px solid",
                      css_rule("#grid tr.newkernel td"))

    def test_header_row_is_pinned(self):
        rule = css_rule("#grid thead th")
        self.assertIn("position: sticky", rule)
        self.assertIn("top: 0", rule)
        self.assertIn("background:", rule)

    def test_a_long_kernel_name_is_cut_with_its_name_as_title(self):
        result = wide_run(2, 2)
        result.cells[0].kernel = "k" * 80
        text = htmlreport.run_page(result)
        self.assertTrue(f'title="{"k" * 80}"' in text)
        self.assertIn("text-overflow: ellipsis", css_rule("#grid th .name"))


SVG = "{http://www.w3.org/2000/svg}"


def svg_bars(svg: str) -> dict:
    """label -> bar width of a bar_chart(); also checks it is well-formed
    XML (escaped labels cannot break it)."""
    root = ET.fromstring(svg)
    rows = {}
    for group in root.iter(SVG + "g"):
        label = group.find(SVG + "text")
        rect = group.find(SVG + "rect")
        rows[label.text] = float(rect.get("width")) if rect is not None \
            else None
    return rows


def sample_bench() -> bench.BenchResult:
    """The bench figures of 2026-12-03 (docs/history/measurements-2026.md;
    bcm43xx's RTT p50 750 instead of 822, so that one of the bench's goals
    is met and drawn as met), one device without any number and a hostile device label."""
    res = bench.BenchResult("bench-20261203-101010", "src-6.1", 3, "tcg",
                            runs=["20261203-101011", "20261203-101500"],
                            load=[0.7, 0.7])
    figures = {
        "e1000": (27.64, 682, 1159, 18380),
        "bcm43xx/ndiswrapper": (14.02, 750, 1293, 16121),
        "rtl8187/ndiswrapper": (4.83, 1114, 2500, 7272),
        "rtl8187/native": (5.36, 1256, 3188, 3612),
    }
    for dev, values in figures.items():
        res.samples[dev] = {m: [v] for m, v in zip(
            ("tcp_mbps", "rtt_p50_us", "rtt_p99_us", "udp_pps"), values)}
        res.samples[dev].update(boot_s=[1.9], cell_s=[8.2], assoc_ms=[56])
    res.samples[HOSTILE] = {}
    res.failures = {HOSTILE: ["round 1: tcp FAIL"]}
    res.edit_cycle = {"device": "bcm43xx/ndiswrapper",
                      "edited": "driver/ndis.c", "edit_s": 31.9,
                      "build_s": 8.3, "cell_s": 23.6, "first_build_s": 19.6}
    return res


class BarChartTest(unittest.TestCase):
    """benchhtml.bar_chart(): an inline SVG of horizontal bars."""

    def test_bar_lengths_are_proportional_to_values(self):
        bars = svg_bars(benchhtml.bar_chart("t", [
            benchhtml.Bar("a", 10.0), benchhtml.Bar("b", 5.0),
            benchhtml.Bar("c", 2.5), benchhtml.Bar("d", 0.0)]))
        self.assertGreater(bars["a"], 100)
        self.assertAlmostEqual(bars["b"] / bars["a"], 0.5, places=2)
        self.assertAlmostEqual(bars["c"] / bars["a"], 0.25, places=2)
        self.assertEqual(bars["d"], 0)

    def test_longest_bar_fits_the_chart_with_its_figure(self):
        svg = benchhtml.bar_chart("t", [benchhtml.Bar("a", 123456.0)],
                                  width=300)
        root = ET.fromstring(svg)
        self.assertEqual(root.get("width"), "300")
        rect = next(root.iter(SVG + "rect"))
        self.assertLessEqual(float(rect.get("x")) + float(rect.get("width")),
                             300 - 50)
        self.assertIn("123456", svg)

    def test_labels_and_title_are_escaped(self):
        svg = benchhtml.bar_chart(HOSTILE, [benchhtml.Bar(HOSTILE, 1.0),
                                            benchhtml.Bar("b", 2.0,
                                                          text=HOSTILE)])
        self.assertNotIn("<script", svg)
        self.assertNotIn("<img", svg)
        self.assertIn(HOSTILE, svg_bars(svg))       # back as plain text
        root = ET.fromstring(svg)
        self.assertEqual(root.find(SVG + "title").text, HOSTILE)
        self.assertEqual(root.get("aria-label"), HOSTILE)

    def test_missing_values_have_no_bar_but_say_so(self):
        svg = benchhtml.bar_chart("t", [benchhtml.Bar("a", 4.0),
                                        benchhtml.Bar("gone", None)])
        bars = svg_bars(svg)
        self.assertIsNone(bars["gone"])
        self.assertIn("no data", svg)
        none = benchhtml.bar_chart("t", [benchhtml.Bar("x", None),
                                         benchhtml.Bar("y", None)])
        self.assertEqual(svg_bars(none), {"x": None, "y": None})
        self.assertEqual(svg_bars(benchhtml.bar_chart("t", [])), {})

    def test_a_goal_mark_is_on_the_same_scale(self):
        svg = benchhtml.bar_chart("t", [benchhtml.Bar("r", 0.5, mark=1.5)])
        root = ET.fromstring(svg)
        rect = next(root.iter(SVG + "rect"))
        line = next(e for e in root.iter(SVG + "line")
                    if e.get("class") == "mark")
        start = float(rect.get("x"))
        self.assertAlmostEqual((float(line.get("x1")) - start)
                               / float(rect.get("width")), 3.0, places=2)

    def test_figure_is_written_after_a_mark_beyond_the_bar(self):
        root = ET.fromstring(benchhtml.bar_chart("t", [
            benchhtml.Bar("r", 0.76, text="0.76 missed", mark=0.9)]))
        group = next(root.iter(SVG + "g"))
        figure = group.findall(SVG + "text")[1]
        line = group.find(SVG + "line")
        self.assertEqual(figure.text, "0.76 missed")
        self.assertGreater(float(figure.get("x")), float(line.get("x1")))

    def test_colours_are_attribute_escaped(self):
        svg = benchhtml.bar_chart("t", [benchhtml.Bar("a", 1.0,
                                                      colour='"><x')])
        self.assertNotIn('"><x', svg)
        ET.fromstring(svg)


class BenchPageTest(unittest.TestCase):
    """bench.html: the figures' table beside the charts, the goals."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.tmp.name)
        self.res = sample_bench()
        self.text = benchhtml.page(self.res)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_write_puts_bench_html_beside_bench_md(self):
        folder = bench.write(self.out, self.res)
        for name in ("bench.json", "bench.md", "bench.html"):
            self.assertTrue((folder / name).is_file(), name)
        self.assertIn("<svg", (folder / "bench.html").read_text())

    def test_table_and_charts(self):
        self.assertIn(">27.64</td>", self.text)
        self.assertIn(">18380</td>", self.text)
        charts = re.findall(r"<svg .*?</svg>", self.text, re.S)
        self.assertEqual(len(charts), 4)
        titles = [ET.fromstring(c).find(SVG + "title").text for c in charts]
        self.assertTrue(titles[0].startswith("TCP MB/s"), titles)
        self.assertTrue(titles[1].startswith("RTT p50"), titles)
        self.assertTrue(titles[2].startswith("64 B pkt/s"), titles)
        tcp = svg_bars(charts[0])
        self.assertAlmostEqual(tcp["bcm43xx/ndiswrapper"] / tcp["e1000"],
                               14.02 / 27.64, places=2)
        self.assertIsNone(tcp[HOSTILE])

    def test_goal_ratios_with_their_marks(self):
        goals = ET.fromstring(re.findall(r"<svg .*?</svg>", self.text,
                                         re.S)[3])
        marks = [e for e in goals.iter(SVG + "line")
                 if e.get("class") == "mark"]
        self.assertEqual(len(marks), 3)
        self.assertIn("0.51", self.text)
        self.assertIn("met", self.text)

    def test_self_contained_and_escaped(self):
        self.assertNotRegex(self.text, r"(src|href)=\"(https?:)?//")
        self.assertNotIn("<link", self.text)
        self.assertNotIn("<script", self.text)
        self.assertNotIn("<img", self.text)
        self.assertIn("Content-Security-Policy", self.text)
        self.assertIn("&lt;script&gt;", self.text)
        for svg in re.findall(r"<svg .*?</svg>", self.text, re.S):
            ET.fromstring(svg)

    def test_rounds_link_to_their_reports(self):
        self.assertIn('href="../20261203-101011/report.html"', self.text)

    def test_notes_as_in_bench_md(self):
        self.assertIn("<code>driver/ndis.c</code>", self.text)
        self.assertIn("boot: QEMU start to the agent", self.text)


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError(
        "chromium is not installed: the headless-render test needs it "
        "(Debian package chromium; `scripts/ndisbench setup` installs it)")


def run_chromium(args, tmp: pathlib.Path) -> subprocess.CompletedProcess:
    """Runs headless Chromium in its own session (a timeout kills its whole
    process group, renderers included) with a throwaway profile."""
    cmd = [chromium(), "--headless", "--disable-gpu", "--no-sandbox",
           "--no-first-run", "--no-default-browser-check",
           "--disable-extensions", "--hide-scrollbars",
           f"--user-data-dir={tmp / 'profile'}", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env={"HOME": str(tmp), "PATH": "/usr/bin:/bin"},
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=CHROMIUM_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"chromium did not finish in "
                             f"{CHROMIUM_TIMEOUT} s: {' '.join(cmd)}")
    if proc.returncode != 0:
        raise AssertionError(f"chromium exit {proc.returncode}: "
                             f"{err.decode(errors='replace')[-2000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def with_probe(text: str, script: str) -> str:
    """A copy of a page that runs script at its end. The page forbids
    scripts (CSP): the copy drops that meta line; the script's result goes
    into <pre id="computed"> for --dump-dom."""
    probe = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                   text)
    assert probe != text, "no CSP line in the page"
    return probe.replace("</body>", '<pre id="computed"></pre><script>'
                         + script + "</script></body>")


def colour_count(rows, bpp: int, colour: str, x0: int = 0,
                 x1: int = 1 << 30, y0: int = 0, y1: int = 1 << 30) -> int:
    """Pixels of exactly colour in the box [x0, x1) x [y0, y1)."""
    want = bytes(rgb(colour))
    count = 0
    for row in rows[y0:y1]:
        for x in range(x0, min(x1, len(row) // bpp)):
            if row[x * bpp:x * bpp + 3] == want:
                count += 1
    return count


def rgb(colour: str) -> tuple:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def png_pixels(data: bytes):
    """(width, height, rows of RGB tuples) of an 8-bit non-interlaced
    RGB/RGBA PNG, which is what Chromium's --screenshot writes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, head = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = head
    assert depth == 8 and ctype in (2, 6) and not interlace, head
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        base = y * (stride + 1)
        ftype, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


class ChromiumRenderTest(unittest.TestCase):
    """Renders report.html in headless Chromium. Fails (never skips) when
    chromium is missing: CI installs it through `scripts/ndisbench setup`."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmpdir = tempfile.TemporaryDirectory()
        cls.tmp = pathlib.Path(cls.tmpdir.name)
        cls.run_dir = cls.tmp / "20260101-000000"
        cls.run_dir.mkdir()
        report.write(cls.run_dir, sample_run())
        cls.page = cls.run_dir / "report.html"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmpdir.cleanup()

    def test_dump_dom_has_the_grid_and_no_injected_markup(self):
        started = time.monotonic()
        res = run_chromium(["--dump-dom", self.page.as_uri()], self.tmp)
        dom = res.stdout.decode()
        grid = parse(dom)
        self.assertIn(("table", {"class": "grid", "id": "grid"}), grid.tags,
                      dom[:2000])
        self.assertEqual(len(grid.cells), 18)
        load = by_check(grid, "load")
        self.assertIn("st-xfail", load["class"].split())
        self.assertNotIn("st-fail", load["class"].split())
        self.assertIn("st-fail", by_check(grid, "dhcp")["class"].split())
        self.assertIn("st-timeout", by_check(grid, "ping")["class"].split())
        # The hostile summaries stayed text: no element came out of them.
        tags = [t for t, _ in grid.tags]
        self.assertNotIn("script", tags)
        self.assertNotIn("img", tags)
        self.assertIn("<title>ndisbench run 20260101-000000</title>", dom)
        self.assertLess(time.monotonic() - started, CHROMIUM_TIMEOUT)

    def test_computed_colours(self):
        """Chromium's own computed styles: the xfail cell is the neutral
        blue, not the failure red; each status has its colour."""
        probe_text = with_probe(self.page.read_text(), """
var out = [];
document.querySelectorAll("#grid td.v").forEach(function (td) {
  out.push([td.dataset.check, td.dataset.status,
            getComputedStyle(td).backgroundColor,
            getComputedStyle(td).color]);
});
document.getElementById("computed").textContent = JSON.stringify(out);
""")
        probe = self.run_dir / "probe.html"
        probe.write_text(probe_text)
        res = run_chromium(["--dump-dom", probe.as_uri()], self.tmp)
        grid = parse(res.stdout.decode())
        self.assertTrue(grid.computed.strip(), "probe script did not run")
        cells = json.loads(grid.computed)
        self.assertEqual(len(cells), 18)
        colour = {}
        for _, status, bg, _ in cells:
            colour.setdefault(status, set()).add(bg)
        want = {"pass": "st-pass", "xfail": "st-xfail", "FAIL": "st-fail",
                "ERROR": "st-error", "TIMEOUT": "st-timeout",
                "skip": "st-skip", "none": "st-none"}
        for status, cls in want.items():
            r, g, b = rgb(htmlreport.COLOURS[cls])
            self.assertEqual(colour.get(status), {f"rgb({r}, {g}, {b})"},
                             status)
        bad = colour["FAIL"] | colour["ERROR"] | colour["TIMEOUT"]
        self.assertFalse(colour["xfail"] & bad,
                         "an expected failure is styled as a failure")
        self.assertNotEqual(colour["xfail"], colour["pass"])
        xr, xg, xb = rgb(htmlreport.COLOURS["st-xfail"])
        self.assertTrue(xb > xr and xb > xg, "xfail colour is not blue")

    def test_screenshot_shows_the_colours(self):
        shot = self.tmp / "report.png"
        run_chromium([f"--screenshot={shot}", "--window-size=900,420",
                      self.page.as_uri()], self.tmp)
        width, height, rows, bpp = png_pixels(shot.read_bytes())
        self.assertEqual((width, height), (900, 420))
        seen = {}
        for row in rows:
            for x in range(0, width * bpp, bpp):
                px = row[x:x + 3]
                seen[px] = seen.get(px, 0) + 1
        for cls in ("st-pass", "st-xfail", "st-fail", "st-timeout",
                    "st-error"):
            self.assertGreater(seen.get(bytes(rgb(htmlreport.COLOURS[cls])),
                                        0), 200, f"{cls} not on screen")


# What the wide-matrix probe measures: the page's width, the frame's, and
# (after scrolling the frame to its right end) where the pinned columns are.
WIDE_PROBE = """(function () {
var frame = document.querySelector("div.frame");
var kernel = document.querySelector("#grid tbody th.kernel");
var device = document.querySelector("#grid tbody th.device");
var label = kernel.querySelector(".name");
var out = {page: document.documentElement.scrollWidth, inner: innerWidth,
           frame_scroll: frame.scrollWidth, frame_client: frame.clientWidth,
           name_lines: label.getClientRects().length,
           position: getComputedStyle(kernel).position};
frame.scrollLeft = 100000;
var k = kernel.getBoundingClientRect(), d = device.getBoundingClientRect();
var f = frame.getBoundingClientRect();
out.scrolled = frame.scrollLeft;
out.kernel = [k.left, k.right, k.top, k.bottom];
out.device = [d.left, d.right];
out.frame = [f.left, f.right, f.top, f.bottom];
document.getElementById("computed").textContent = JSON.stringify(out);
})();"""


class FirstViewportTest(unittest.TestCase):
    """report.html as a newcomer first sees it: headless Chromium, 1366 px
    wide, 768 high, a matrix of 14 kernels x 12 checks."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmpdir = tempfile.TemporaryDirectory()
        cls.tmp = pathlib.Path(cls.tmpdir.name)
        cls.run_dir = cls.tmp / "20260103-000000"
        cls.run_dir.mkdir()
        report.write(cls.run_dir, wide_run())
        cls.page = cls.run_dir / "report.html"
        cls.probe = cls.run_dir / "probe.html"
        cls.probe.write_text(with_probe(cls.page.read_text(), WIDE_PROBE))
        res = run_chromium(["--window-size=1366,768", "--dump-dom",
                            cls.probe.as_uri()], cls.tmp)
        cls.measured = json.loads(parse(res.stdout.decode()).computed)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmpdir.cleanup()

    def shot(self, page: pathlib.Path, name: str):
        png = self.tmp / name
        run_chromium([f"--screenshot={png}", "--window-size=1366,768",
                      page.as_uri()], self.tmp)
        width, height, rows, bpp = png_pixels(png.read_bytes())
        self.assertEqual((width, height), (1366, 768))
        return rows, bpp

    def test_what_failed_is_in_the_first_viewport(self):
        rows, bpp = self.shot(self.page, "first.png")
        # The box's left edge: 6 px wide, as high as the box.
        self.assertGreater(colour_count(rows, bpp, htmlreport.MARKS["bad"]),
                           6 * 40)

    def test_wide_matrix_scrolls_in_its_frame_not_the_page(self):
        m = self.measured
        self.assertEqual(m["inner"], 1366, m)
        self.assertLessEqual(m["page"], 1366, m)
        self.assertGreater(m["frame_scroll"], m["frame_client"] + 100, m)
        self.assertGreater(m["scrolled"], 100, m)

    def test_kernel_names_stay_on_one_line(self):
        self.assertEqual(self.measured["name_lines"], 1, self.measured)

    def test_pinned_columns_stay_at_the_left_when_scrolled(self):
        m = self.measured
        self.assertEqual(m["position"], "sticky")
        self.assertLessEqual(abs(m["kernel"][0] - m["frame"][0]), 2, m)
        self.assertLessEqual(abs(m["device"][0] - m["kernel"][1]), 1.5, m)

    def test_scrolled_cells_do_not_show_through(self):
        """The frame scrolled to its right end: the pinned kernel column
        has its own colour and no pass cell's green under it."""
        probe = self.run_dir / "scrolled.html"
        probe.write_text(with_probe(self.page.read_text(),
                                    'document.querySelector("div.frame")'
                                    ".scrollLeft = 100000;"))
        rows, bpp = self.shot(probe, "scrolled.png")
        left, right, top, bottom = (int(v) for v in self.measured["kernel"])
        box = dict(x0=left + 2, x1=right - 2, y0=top,
                   y1=min(bottom + 200, 768))
        self.assertGreater(colour_count(rows, bpp, htmlreport.KERNEL_BG,
                                        **box), 500)
        self.assertEqual(colour_count(rows, bpp, htmlreport.COLOURS[
            "st-pass"], **box), 0)


class BenchChromiumTest(unittest.TestCase):
    """bench.html at 1366x768, with realistic labels: the charts are on
    screen, beside the table."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmpdir = tempfile.TemporaryDirectory()
        cls.tmp = pathlib.Path(cls.tmpdir.name)
        res = sample_bench()
        del res.samples[HOSTILE]
        cls.page = bench.write(cls.tmp, res) / "bench.html"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmpdir.cleanup()

    def test_bars_are_visible(self):
        png = self.tmp / "bench.png"
        run_chromium([f"--screenshot={png}", "--window-size=1366,768",
                      self.page.as_uri()], self.tmp)
        width, height, rows, bpp = png_pixels(png.read_bytes())
        self.assertEqual((width, height), (1366, 768))
        for colour in (benchhtml.WRAPPED, benchhtml.REFERENCE,
                       benchhtml.MET):
            self.assertGreater(colour_count(rows, bpp, colour), 300, colour)

    def test_charts_beside_the_table(self):
        probe = self.tmp / "probe.html"
        probe.write_text(with_probe(self.page.read_text(), """(function () {
var t = document.querySelector("table").getBoundingClientRect();
var c = document.querySelector("svg.chart").getBoundingClientRect();
document.getElementById("computed").textContent = JSON.stringify({
  table: [t.left, t.right, t.top], chart: [c.left, c.top],
  page: document.documentElement.scrollWidth});
})();"""))
        res = run_chromium(["--window-size=1366,768", "--dump-dom",
                            probe.as_uri()], self.tmp)
        m = json.loads(parse(res.stdout.decode()).computed)
        self.assertGreater(m["chart"][0], m["table"][1], m)
        self.assertLess(m["chart"][1], m["table"][2] + 80, m)
        self.assertLessEqual(m["page"], 1366, m)

if __name__ == "__main__":
    unittest.main()
