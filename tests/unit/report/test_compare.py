"""`ndisbench compare`: kinds of change, cell identity with the wrapper
axis, exit status, run resolution and the escaped HTML page."""
import contextlib
import io
import json
import pathlib
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report.verdict import Verdict
from ndisbench_lib.commands import cli
from ndisbench_lib.report import compare, report

V = Verdict


def cell(kernel, device, wrapper="", **verdicts):
    c = report.CellResult(kernel, "2.6.25-rc4", device,
                          "cells/" + "__".join(
                              p for p in (kernel, device, wrapper) if p),
                          "6.1.192", 4.0, 2.0, wrapper=wrapper)
    c.verdicts = {k: V(*v) if isinstance(v, tuple) else V(v, f"{k} {v}")
                  for k, v in verdicts.items()}
    return c


def run_a():
    return report.RunResult("20260101-000000", "tcg", [
        "load", "driverloader", "dhcp", "ping"], [
        cell("src-6.1", "none", load="pass", driverloader="xfail"),
        cell("src-6.1", "bcm43xx", "ndiswrapper", dhcp="pass", ping="FAIL"),
        cell("src-6.1", "bcm43xx", "native", dhcp="pass"),
        cell("old-6.0", "e1000", dhcp="pass"),
    ], started="2026-01-01T00:00:00")


def run_b():
    return report.RunResult("20260102-000000", "tcg", [
        "load", "driverloader", "dhcp", "ping"], [
        # load pass -> xfail: the expected-failure state changed
        cell("src-6.1", "none", load="xfail", driverloader="xfail"),
        # dhcp regressed, ping fixed
        cell("src-6.1", "bcm43xx", "ndiswrapper",
             dhcp=("FAIL", "<script>alert(1)</script> lease"), ping="pass"),
        # same kernel and device, other wrapper: its own cell, unchanged
        cell("src-6.1", "bcm43xx", "native", dhcp="pass"),
        cell("src-6.12", "e1000", dhcp="pass"),          # new
    ], started="2026-01-02T00:00:00")


class CompareTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def save(self, result) -> pathlib.Path:
        run_dir = self.out / result.run_id
        run_dir.mkdir()
        report.write(run_dir, result)
        for c in result.cells:
            (run_dir / c.folder).mkdir(parents=True)
            for name in ("serial.log", "ktap.txt"):
                (run_dir / c.folder / name).write_text(name)
        return run_dir

    def cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["compare", *argv, "--out", str(self.out)])
        return code, out.getvalue(), err.getvalue()

    def kinds(self, a, b):
        return {(c.where, c.check): c.kind for c in compare.changes(a, b)}

    def test_kinds(self):
        self.assertEqual(self.kinds(run_a(), run_b()), {
            ("src-6.1 / none", "load"): "xfail-state",
            ("src-6.1 / bcm43xx / ndiswrapper", "dhcp"): "regressed",
            ("src-6.1 / bcm43xx / ndiswrapper", "ping"): "fixed",
            ("src-6.12 / e1000", "dhcp"): "new",
            ("old-6.0 / e1000", "dhcp"): "gone",
        })

    def test_changed_between_two_failures_is_not_a_regression(self):
        a, b = run_a(), run_a()
        b.cells[1].verdicts["ping"] = V("TIMEOUT", "killed")
        found = compare.changes(a, b)
        self.assertEqual([c.kind for c in found], ["changed"])
        self.assertFalse(compare.regressed(found))

    def test_new_failing_check_counts_as_regression(self):
        a, b = run_a(), run_a()
        b.cells.append(cell("src-6.12", "none", load="ERROR"))
        found = compare.changes(a, b)
        self.assertEqual([c.kind for c in found], ["new"])
        self.assertTrue(compare.regressed(found))

    def test_missing_wrapper_key_is_the_empty_wrapper(self):
        a_dir = self.save(run_a())
        raw = json.loads((a_dir / "results.json").read_text())
        for c in raw["cells"]:
            c.pop("wrapper")
        (a_dir / "results.json").write_text(json.dumps(raw))
        b = run_a()
        b.run_id = "20260102-000000"
        self.save(b)
        code, out, _ = self.cli(a_dir.name, b.run_id)
        # The two bcm43xx cells had wrappers in B only: new and gone.
        kinds = self.kinds(report.load(a_dir), b)
        self.assertNotIn(("src-6.1 / none", "load"), kinds)
        self.assertNotIn(("old-6.0 / e1000", "dhcp"), kinds)
        self.assertEqual(kinds[("src-6.1 / bcm43xx / ndiswrapper", "dhcp")],
                         "new")
        self.assertEqual(kinds[("src-6.1 / bcm43xx", "dhcp")], "gone")
        self.assertIn("src-6.1 / bcm43xx / native", out)

    def test_exit_1_on_regression_text_and_html(self):
        self.save(run_a())
        b_dir = self.save(run_b())
        code, out, err = self.cli("20260101-000000", "20260102-000000")
        self.assertEqual(code, 1, err)
        self.assertIn("regressed", out)
        self.assertRegex(out, r"regressed +src-6.1 / bcm43xx / ndiswrapper"
                              r" +dhcp: pass -> FAIL")
        self.assertIn("fixed", out)
        self.assertIn("regressions: yes", out)
        page = b_dir / "compare-20260101-000000.html"
        self.assertIn(str(page), out)
        text = page.read_text()
        self.assertNotIn("<script>", text)
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", text)
        self.assertIn('data-kind="regressed"', text)
        self.assertIn('href="../20260101-000000/report.html"', text)
        self.assertIn('href="../20260101-000000/cells/src-6.1__bcm43xx__'
                      'ndiswrapper/serial.log"', text)

    def test_exit_0_without_regression(self):
        self.save(run_a())
        code, out, _ = self.cli("20260101-000000", "20260101-000000")
        self.assertEqual(code, 0)
        self.assertIn("0 change(s)", out)
        self.assertIn("regressions: none", out)
        b = run_b()
        b.cells[1].verdicts["dhcp"] = V("pass", "lease")
        self.save(b)
        code, out, _ = self.cli("20260101-000000", "20260102-000000")
        self.assertEqual(code, 0, out)
        self.assertIn("fixed", out)

    def test_latest_previous_and_folders(self):
        a_dir, b_dir = self.save(run_a()), self.save(run_b())
        self.assertEqual(compare.resolve("latest", self.out), b_dir)
        self.assertEqual(compare.resolve("previous", self.out), a_dir)
        code, _, _ = self.cli()             # previous -> latest
        self.assertEqual(code, 1)
        code, _, _ = self.cli(str(a_dir), str(b_dir))
        self.assertEqual(code, 1)
        code, _, _ = self.cli(str(b_dir), "latest")
        self.assertEqual(code, 0)

    def test_bad_run_is_exit_2_with_one_line(self):
        self.save(run_a())
        code, out, err = self.cli("20260101-000000", "no-such-run")
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("'no-such-run'", err)
        self.assertEqual(out, "")
        (self.out / "empty").mkdir()
        code, _, err = self.cli("empty", "20260101-000000")
        self.assertEqual(code, 2)
        self.assertIn("'empty'", err)
        code, _, err = self.cli("previous", "latest")
        self.assertEqual(code, 2)
        self.assertIn("'previous'", err)


if __name__ == "__main__":
    unittest.main()
