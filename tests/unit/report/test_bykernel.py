"""`ndisbench report --by-kernel`: a synthetic run's kernels ordered by
release within each policy, the per-check sequences, the transitions
between adjacent kernels, the wrapper filter, the exit status and the
report.html section."""
import contextlib
import io
import pathlib
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report.verdict import Verdict
from ndisbench_lib.commands import cli
from ndisbench_lib.report import bykernel, html, report

V = Verdict


def cell(kernel, release, device, wrapper="", policy="2.6.25-rc4",
         **verdicts):
    c = report.CellResult(kernel, policy, device,
                          "cells/" + "__".join(
                              p for p in (kernel, device, wrapper) if p),
                          release, 4.0, 2.0, wrapper=wrapper)
    c.verdicts = {k: V(v, f"{k} {v}") for k, v in verdicts.items()}
    return c


def synthetic():
    """Run order is not release order: debian-6.12 comes first."""
    rtl = ("rtl8187", "ndiswrapper")
    return report.RunResult("20260301-000000", "tcg",
                            ["load", "tcp", "capture"], [
        cell("debian-6.12", "6.12.118+deb12-amd64", *rtl, load="pass",
             tcp="FAIL", capture="pass"),
        cell("debian-6.1", "6.1.0-57-amd64", *rtl, load="pass", tcp="pass"),
        cell("src-6.1", "6.1.192", *rtl, load="pass", tcp="pass",
             capture="FAIL"),
        cell("src-5.10", "5.10.262", *rtl, load="pass", tcp="pass",
             capture="pass"),
        cell("src-5.10", "5.10.262", "rtl8187", "native", tcp="pass"),
        cell("src-6.1", "6.1.192", "rtl8187", "native", tcp="pass"),
        cell("policy-2.6.25-rc1", "6.1.192", *rtl, policy="2.6.25-rc1",
             load="xfail"),
        cell("policy-2.6.25-rc1-5.10", "5.10.262", *rtl,
             policy="2.6.25-rc1", load="xfail"),
        cell("policy-2.6.16", "", "none", policy="2.6.16", load="ERROR"),
    ], started="2026-03-01T00:00:00")


class ByKernelTest(unittest.TestCase):
    def test_version_order(self):
        releases = ["6.12.118+deb12-amd64", "6.1.192", "", "5.10.262",
                    "6.1.0-57-amd64", "7.2.13+deb14-amd64"]
        self.assertEqual(sorted(releases, key=bykernel.version_key),
                         ["5.10.262", "6.1.0-57-amd64", "6.1.192",
                          "6.12.118+deb12-amd64", "7.2.13+deb14-amd64",
                          ""])

    def test_lines_per_policy_in_release_order(self):
        found = {line.policy: line for line in bykernel.lines(synthetic())}
        self.assertEqual(list(found), ["2.6.25-rc4", "2.6.25-rc1",
                                       "2.6.16"])
        self.assertEqual([k.name for k in found["2.6.25-rc4"].kernels],
                         ["src-5.10", "debian-6.1", "src-6.1",
                          "debian-6.12"])
        self.assertEqual([k.name for k in found["2.6.25-rc1"].kernels],
                         ["policy-2.6.25-rc1-5.10", "policy-2.6.25-rc1"])
        seq = found["2.6.25-rc4"].rows[("rtl8187/ndiswrapper", "capture")]
        self.assertEqual([v and v.status for v in seq],
                         ["pass", None, "FAIL", "pass"])

    def test_transitions(self):
        line = bykernel.lines(synthetic())[0]
        moves = [(t.kind, t.text()) for t in line.transitions()]
        self.assertIn(("regressed", "rtl8187/ndiswrapper tcp: pass on "
                       "6.1.192 (src-6.1) -> FAIL on 6.12.118+deb12-amd64 "
                       "(debian-6.12)"), moves)
        # capture skips debian-6.1, which did not run it
        self.assertIn(("regressed", "rtl8187/ndiswrapper capture: pass on "
                       "5.10.262 (src-5.10) -> FAIL on 6.1.192 (src-6.1)"),
                      moves)
        self.assertIn(("fixed", "rtl8187/ndiswrapper capture: FAIL on "
                       "6.1.192 (src-6.1) -> pass on 6.12.118+deb12-amd64 "
                       "(debian-6.12)"), moves)
        self.assertEqual(len(moves), 3)
        self.assertEqual(bykernel.lines(synthetic())[1].transitions(), [])

    def test_text(self):
        out = bykernel.text(synthetic())
        self.assertIn("3 transition(s): 2 regressed, 1 fixed", out)
        self.assertIn("policy 2.6.25-rc4: 4 kernels by release", out)
        self.assertIn("  [1]  src-5.10     5.10.262", out)
        rows = [ln.split() for ln in out.splitlines()]
        self.assertIn(["rtl8187/ndiswrapper", "tcp", "pass", "pass", "pass",
                       "FAIL"], rows)
        self.assertIn(["rtl8187/ndiswrapper", "capture", "pass", "-",
                       "FAIL", "pass"], rows)
        self.assertIn("    rtl8187/ndiswrapper: load pass", out)
        self.assertIn("    rtl8187/native: tcp pass", out)
        self.assertIn("    rtl8187/ndiswrapper: load reproduced", out)
        self.assertIn("policy 2.6.16: 1 kernel by release", out)
        self.assertIn("one kernel: nothing to compare", out)
        self.assertIn("  [1]  policy-2.6.16  ?", out)

    def test_wrapper_filter(self):
        out = bykernel.text(synthetic(), "native")
        self.assertIn("0 transition(s)", out)
        self.assertNotIn("ndiswrapper", out.replace("(wrapper native)", ""))
        self.assertTrue(bykernel.regressed(synthetic()))
        self.assertFalse(bykernel.regressed(synthetic(), "native"))

    def test_html_section(self):
        page = html.run_page(synthetic())
        self.assertIn('<section id="by-kernel">', page)
        section = page[page.index('<section id="by-kernel">'):]
        section = section[:section.index("</section>")]
        self.assertIn("<h3>policy 2.6.25-rc4</h3>", section)
        self.assertIn("<code>6.12.118+deb12-amd64</code>", section)
        self.assertIn('<li class="kind-regressed">regressed: '
                      "rtl8187/ndiswrapper tcp: pass on 6.1.192 (src-6.1) "
                      "-&gt; FAIL on 6.12.118+deb12-amd64 (debian-6.12)"
                      "</li>", section)
        # 2.6.25-rc1 ran on two kernels, the same: no table for it
        self.assertIn("every check the same", section)
        self.assertNotIn("policy 2.6.16", section)

    def test_html_escapes(self):
        run = synthetic()
        run.cells[0].kernel = "<b>k</b>"
        page = html.run_page(run)
        self.assertNotIn("<b>k</b>", page)

    def test_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = pathlib.Path(tmp) / "20260301-000000"
            run_dir.mkdir()
            report.write(run_dir, synthetic())
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                code = cli.main(["report", "--by-kernel", str(run_dir)])
            self.assertEqual(code, 1)
            self.assertIn("regressed   rtl8187/ndiswrapper tcp: pass on "
                          "6.1.192 (src-6.1) -> FAIL on "
                          "6.12.118+deb12-amd64 (debian-6.12)",
                          buf.getvalue())
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(["report", "--by-kernel",
                                           "--wrapper", "native",
                                           str(run_dir)]), 0)
            self.assertIn('id="by-kernel"',
                          (run_dir / "report.html").read_text())


if __name__ == "__main__":
    unittest.main()
