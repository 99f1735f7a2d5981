"""Guest text is untrusted: a verdict's summary and details are made safe
where the verdict is made (report/verdict.py), and each output escapes
what its own format gives meaning to. Hostile text (NULs, ANSI escapes,
form feeds, lone surrogates and invalid UTF-8 decoded with replacement,
Markdown table pipes, HTML) is rendered into every output, and each is
parsed back."""
import html.parser
import json
import pathlib
import re
import tempfile
import unittest
import xml.etree.ElementTree as ET

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report import kcidb, report
from ndisbench_lib.report.verdict import FAIL, PASS, Verdict, clean_text

RAW = b"oops\x00 \x1b[31mred\x1b[0m \x0cpage \xff\xfe bad | a | b |"
HOSTILE = (RAW.decode("utf-8", errors="replace") + "\ud800 lone "
           "<script>alert(1)</script> **bold** [x](javascript:y) "
           "\u202eevil\u2028next\x7f\x85end")
# What no output may hold: C0/C1 controls other than the newline, lone
# surrogates, the bidi override, and XML's two non-characters.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e"
                    "\u2066-\u2069\u2028\u2029\ufffe\uffff]")


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def hostile_run() -> report.RunResult:
    cell = report.CellResult(
        "debian-6.1", "2.6.25-rc4", "e1000", "cells/debian-6.1__e1000",
        release="6.1.0-test", boot_seconds=3.0, verdicts={
            "load": Verdict(FAIL, HOSTILE, (HOSTILE, "second " + HOSTILE)),
            "ping": Verdict(PASS, "ok")})
    return report.RunResult("r1", "tcg", ["load", "ping"], [cell],
                            started="2026-01-01T00:00:00", host="h")


class CleanTextTest(unittest.TestCase):
    def test_controls_become_visible_escapes(self):
        self.assertEqual(clean_text("a\x00b\x1b[31mc\x0cd\x7fe\x85f"),
                         "a\\x00b\\x1b[31mc\\x0cd\\x7fe\\x85f")

    def test_lines_and_tabs_become_spaces(self):
        self.assertEqual(clean_text("a\nb\r\nc\td\u2028e"), "a b  c d e")

    def test_surrogates_and_bidi_controls(self):
        self.assertEqual(clean_text("x\ud800y\u202ez\ufffe"),
                         "x\ufffdy\\u202ez\\ufffe")

    def test_plain_text_is_unchanged(self):
        text = "insmod ndiswrapper: errno 2 (taint OE) é → 10.0.2.2"
        self.assertEqual(clean_text(text), text)

    def test_a_verdict_is_clean_however_made(self):
        v = Verdict(FAIL, "a\x1b[2Jb", ["c\x00d"])
        self.assertEqual(v.summary, "a\\x1b[2Jb")
        self.assertEqual(v.details, ("c\\x00d",))
        loaded = report.from_json(report.to_json(hostile_run()))
        self.assertIsNone(UNSAFE.search(loaded.cells[0].verdicts["load"]
                                        .summary))


class EveryOutputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = pathlib.Path(self.tmp.name)
        self.result = hostile_run()
        report.write(self.dir, self.result)
        kcidb.write(self.dir, self.result)

    def read(self, name):
        text = (self.dir / name).read_bytes().decode("utf-8")  # strict
        self.assertIsNone(UNSAFE.search(text.replace("\n", "")), name)
        return text

    def test_terminal_lines(self):
        for line in report.cell_lines(self.result.cells[0]):
            self.assertIsNone(UNSAFE.search(line), line)
            self.assertNotIn("\x1b", line)

    def test_matrix(self):
        text = self.read("matrix.txt")
        self.assertEqual(len(text.splitlines()), 3)

    def test_summary_md(self):
        text = self.read("summary.md")
        for line in text.splitlines():
            if line.startswith("| "):
                # the table: header, rule and one row of 5 columns each
                self.assertEqual(line.count(" | "), 4, line)
        entry = next(ln for ln in text.splitlines()
                     if ln.startswith("- load:"))
        self.assertNotIn("<script>", entry)
        self.assertNotIn("**bold**", entry)
        self.assertNotRegex(entry, r"(?<!\\)\]\(javascript")
        self.assertIn(r"\[x\](javascript", entry)
        self.assertRegex(entry, r"bad \\\| a \\\| b \\\|")

    def test_summary_md_causes(self):
        """The causes come first, quoting the same guest text: it is as
        inert there as in the per-cell lines."""
        text = self.read("summary.md")
        causes = text.split("## Causes", 1)[1].split("\n\n", 2)[1]
        self.assertNotIn("<script>", causes)
        self.assertNotIn("`", causes.replace("\\`", ""))
        self.assertIn(r"\[x\](javascript", causes)

    def test_junit_parses(self):
        tree = ET.parse(self.dir / "junit.xml")
        failure = tree.getroot().find("testcase/failure")
        self.assertIn("<script>alert(1)</script>", failure.get("message"))
        self.assertIn("\\x1b[31mred", failure.get("message"))

    def test_report_html_parses(self):
        parser = Tags()
        parser.feed(self.read("report.html"))
        parser.close()
        self.assertNotIn("script", parser.tags)
        self.assertIn("<script>alert(1)</script>", "".join(parser.text))

    def test_json_outputs_parse(self):
        for name in ("results.json", kcidb.FILE):
            with self.subTest(name=name):
                data = json.loads(self.read(name))
                self.assertTrue(data)
        data = json.loads(self.read("results.json"))
        summary = data["cells"][0]["verdicts"]["load"]["summary"]
        self.assertIn("\\x00", summary)
        self.assertIn("\ufffd", summary)


if __name__ == "__main__":
    unittest.main()
