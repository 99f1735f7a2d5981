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
import zlib

import helpers  # noqa: F401  (import path)
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


class Grid(html.parser.HTMLParser):
    """Collects the elements a test looks at."""
    def __init__(self) -> None:
        super().__init__()
        self.tags: list = []          # (tag, attrs dict)
        self.cells: list = []         # attrs of grid td.v
        self.hrefs: list = []
        self.computed = ""
        self._in_computed = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "td" and "v" in a.get("class", "").split():
            self.cells.append(a)
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
        text = self.page.read_text()
        # The page forbids scripts (CSP); the probe copy drops that meta
        # line and appends a script that prints the computed backgrounds.
        probe_text = re.sub(r'<meta http-equiv="Content-Security-Policy"'
                            r'[^>]*>', "", text)
        probe_text = probe_text.replace("</body>", """<pre id="computed">
</pre><script>
var out = [];
document.querySelectorAll("#grid td.v").forEach(function (td) {
  out.push([td.dataset.check, td.dataset.status,
            getComputedStyle(td).backgroundColor,
            getComputedStyle(td).color]);
});
document.getElementById("computed").textContent = JSON.stringify(out);
</script></body>""")
        self.assertNotEqual(probe_text, text)
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


if __name__ == "__main__":
    unittest.main()
