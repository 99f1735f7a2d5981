"""One cause, one line: a check that could not run because a module did
not build is "not run" (counted neither as passed nor as failed, not a
failure of the run, skipped in JUnit, SKIP in KCIDB, no change in
compare), and every rendering of a run begins with its distinct causes,
each once with the cells it hit, build failures first."""
import pathlib
import tempfile
import unittest
import xml.etree.ElementTree as ET

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report import causes, compare, html, kcidb, report
from ndisbench_lib.report.verdict import (ERROR, FAIL, NOT_RUN, PASS,
                                          STATUSES, TIMEOUT, XFAIL, Verdict,
                                          classify, passed_failed,
                                          summary_line)

BUILD_LINE = ("ndiswrapper.ko: proc.c:365:9: error: passing argument 1 of "
              "'list_is_head' from incompatible pointer type (log: "
              "/c/modules/{h}/build.log)")
WARN = ("kernel reported: [   {t}] WARNING: CPU: 0 PID: {p} at "
        "net/core/dev_addr_lists.c:512 dev_addr_check+0x{a}/0x110")


def unbuilt_cell(kernel, device, wrapper="", h="0a1b2c3d4e5f6071"):
    c = report.CellResult(kernel, "2.6.25-rc4", device,
                          f"cells/{kernel}__{device}", wrapper=wrapper,
                          release="6.12.48+deb13-amd64")
    c.verdicts = {"build": Verdict(FAIL, BUILD_LINE.format(h=h)),
                  "load": Verdict(NOT_RUN, "ndiswrapper.ko did not build "
                                           "for this kernel (see build)"),
                  "bind": Verdict(NOT_RUN, "ndiswrapper.ko did not build "
                                           "for this kernel (see build)")}
    return c


def warned_cell(kernel, device, wrapper, t, p, a):
    c = report.CellResult(kernel, "2.6.25-rc4", device,
                          f"cells/{kernel}__{device}", boot_seconds=9.0,
                          wrapper=wrapper)
    c.verdicts = {"build": Verdict(PASS, "built ndiswrapper.ko"),
                  "bind": Verdict(FAIL, WARN.format(t=t, p=p, a=a)),
                  "load": Verdict(PASS, "loaded")}
    return c


def sample() -> report.RunResult:
    return report.RunResult("r1", "tcg", ["build", "load", "bind"], [
        warned_cell("debian-6.1", "rtl8139", "ndiswrapper", "10.5", 77,
                    "1b"),
        warned_cell("debian-6.1", "e1000", "ndiswrapper", "11.25", 80,
                    "2c"),
        unbuilt_cell("debian-6.12", "none"),
        unbuilt_cell("debian-6.12", "rtl8139", "ndiswrapper",
                     h="ffee00112233aabb")])


class NotRunStatusTest(unittest.TestCase):
    def test_a_status_of_its_own_counted_neither_way(self):
        self.assertIn(NOT_RUN, STATUSES)
        v = Verdict(NOT_RUN, "x.ko did not build (see build)")
        self.assertFalse(v.ok)
        self.assertFalse(v.failed)
        self.assertTrue(Verdict(FAIL, "x").failed)
        self.assertFalse(Verdict(XFAIL, "x").failed)
        self.assertEqual(passed_failed({PASS: 2, FAIL: 1, NOT_RUN: 5}),
                         (2, 1))
        run = report.RunResult("r", cells=[unbuilt_cell("k", "none")])
        self.assertEqual(summary_line(run),
                         "0 passed, 1 failed, 2 not run "
                         "(0 expected failures reproduced)")

    def test_not_run_does_not_fail_a_run(self):
        c = unbuilt_cell("k", "none")
        c.verdicts["build"] = Verdict(PASS, "built")
        self.assertTrue(report.RunResult("r", cells=[c]).ok)
        self.assertFalse(report.RunResult(
            "r", cells=[unbuilt_cell("k", "none")]).ok)

    def test_compare_not_run_is_neither_regression_nor_fix(self):
        ran, skipped = Verdict(PASS, "ok"), Verdict(NOT_RUN, "see build")
        failed = Verdict(FAIL, "x")
        for a, b in ((ran, skipped), (skipped, ran), (failed, skipped),
                     (skipped, failed)):
            kind = classify(a, b)
            self.assertEqual(kind, "not-run", (a, b))
            self.assertIn(kind, compare.KINDS)
        self.assertIsNone(classify(skipped, Verdict(NOT_RUN, "other")))
        a = report.RunResult("a", cells=[unbuilt_cell("k", "none")])
        b = report.RunResult("b", cells=[unbuilt_cell("k", "none")])
        b.cells[0].verdicts["load"] = Verdict(PASS, "loaded")
        b.cells[0].verdicts["build"] = Verdict(PASS, "built")
        found = compare.changes(a, b)
        self.assertEqual(sorted(c.kind for c in found),
                         ["fixed", "not-run"])
        # back: the build regressed; the check it stopped is no regression
        self.assertEqual([(c.check, c.kind) for c in compare.changes(b, a)
                          if c.bad], [("build", "regressed")])

    def test_junit_skips_it(self):
        root = ET.fromstring(report.junit(sample()))
        skipped = [case for case in root.iter("testcase")
                   if case.find("skipped") is not None]
        self.assertEqual(len(skipped), 4)
        self.assertEqual(root.get("skipped"), "4")
        self.assertEqual(root.get("failures"), "4")
        self.assertEqual(root.get("errors"), "0")
        self.assertIn("did not build",
                      skipped[0].find("skipped").get("message"))

    def test_kcidb_skips_it(self):
        data = kcidb.export(sample())
        kcidb.validate(data)
        got = {(t["path"], t["status"]) for t in data["tests"]
               if t["id"].endswith(":load")}
        self.assertIn(("ndisbench.none.load", "SKIP"), got)
        self.assertIn(("ndisbench.rtl8139.ndiswrapper.load", "PASS"), got)


class CausesTest(unittest.TestCase):
    def test_distinct_causes_build_first_each_once(self):
        found = causes.causes(sample())
        self.assertEqual([c.check for c in found], ["build", "bind"])
        build, warn = found
        self.assertTrue(build.build)
        self.assertEqual(build.status, FAIL)
        self.assertEqual(build.first_line, BUILD_LINE.format(
            h="0a1b2c3d4e5f6071"))
        self.assertEqual(build.cells, ["debian-6.12 / none",
                                       "debian-6.12 / rtl8139/ndiswrapper"])
        self.assertEqual(build.not_run, 4)
        self.assertFalse(warn.build)
        self.assertEqual(warn.cells, ["debian-6.1 / rtl8139/ndiswrapper",
                                      "debian-6.1 / e1000/ndiswrapper"])
        self.assertEqual(warn.not_run, 0)

    def test_other_words_are_other_causes(self):
        run = sample()
        run.cells[1].verdicts["bind"] = Verdict(FAIL, "no interface")
        self.assertEqual([c.first_line for c in causes.causes(run)][1:],
                         [WARN.format(t="10.5", p=77, a="1b"),
                          "no interface"])

    def test_what_fails_after_a_kernel_report_is_counted_under_it(self):
        """A BUG in the agent's process loses every later check: their
        'no result' failures are the BUG's, not causes of their own."""
        c = report.CellResult("debian-6.1", "2.6.25-rc4", "rtl8139",
                              "cells/x", boot_seconds=70.0,
                              wrapper="ndiswrapper")
        c.verdicts = {
            "build": Verdict(PASS, "built"),
            "load": Verdict(FAIL, "rmmod errno: expected 0, got None"),
            "install": Verdict(FAIL, "kernel reported: [   57.4] detected "
                                     "buffer overflow in strncat"),
            "bind": Verdict(FAIL, "agent printed no interface result"),
            "unload": Verdict(ERROR, "agent printed no insmod/rmmod result")}
        found = causes.causes(report.RunResult("r", cells=[c]))
        self.assertEqual([(x.check, x.after) for x in found],
                         [("install", ["load", "bind", "unload"])])
        text = causes.lines(report.RunResult("r", cells=[c]))
        self.assertEqual(text[2], "     3 more checks of these cells failed "
                                  "after it: load, bind, unload")

    def test_each_later_failure_goes_under_the_report_it_ran_after(self):
        """Two reports in one cell (broken's own guest oopsed, then the
        main guest's bind): the later checks quote the one they ran after,
        and go under it; the other guest's report took nothing."""
        pe = ("[   10.85] BUG: unable to handle page fault for address: "
              "ffffc90000046000 (in link_pe_images [ndiswrapper])")
        strncat = ("[   27.29] detected buffer overflow in strncat (in "
                   "ndis_get_drvinfo.cold [ndiswrapper])")
        c = report.CellResult("debian-6.1", "2.6.25-rc4", "bcm43xx",
                              "cells/x", boot_seconds=70.0,
                              wrapper="ndiswrapper")
        c.verdicts = {
            "build": Verdict(PASS, "built"),
            "load": Verdict(FAIL, "the agent's unload test died: timed out "
                                  f"(ran after an oops in bind: {strncat})"),
            "broken": Verdict(FAIL, f"kernel reported: {pe} [known, x]"),
            "bind": Verdict(FAIL, f"kernel reported: {strncat} [known, y]"),
            "dhcp": Verdict(FAIL, "iface wlan0 failed (ran after an oops "
                                  f"in bind: {strncat}) [known, y]")}
        found = causes.causes(report.RunResult("r", cells=[c]))
        self.assertEqual([(x.check, x.after) for x in found],
                         [("broken", []), ("bind", ["load", "dhcp"])])

    def test_a_timeout_that_quotes_no_report_is_a_cause_of_its_own(self):
        """broken's own guest timed out while the main guest's bind
        oopsed: the timeout did not run after that oops."""
        c = report.CellResult("src-6.1", "2.6.25-rc4", "bcm43xx", "cells/x",
                              boot_seconds=70.0, wrapper="ndiswrapper")
        c.verdicts = {
            "broken": Verdict(TIMEOUT, "guest killed after 2m00s (log kept: "
                                       "cells/x/serial-broken.log)"),
            "bind": Verdict(FAIL, "kernel reported: [  27.2] detected buffer "
                                  "overflow in strncat"),
            "dhcp": Verdict(FAIL, "iface wlan0 failed (ran after an oops "
                                  "in bind: [  27.2] detected buffer "
                                  "overflow in strncat)")}
        found = causes.causes(report.RunResult("r", cells=[c]))
        self.assertEqual([(x.check, x.status, x.after) for x in found],
                         [("broken", TIMEOUT, []),
                          ("bind", FAIL, ["dhcp"])])

    def test_nothing_failed_no_causes(self):
        c = warned_cell("k", "e1000", "", "1", 1, "1")
        c.verdicts["bind"] = Verdict(PASS, "bound")
        self.assertEqual(causes.causes(report.RunResult("r", cells=[c])),
                         [])
        self.assertEqual(causes.lines(report.RunResult("r", cells=[c])),
                         [])

    def test_terminal_summary_md_and_html_begin_with_them(self):
        run = sample()
        term = report.terminal(run).splitlines()
        self.assertEqual(term[0], "2 causes:")
        self.assertTrue(term[1].startswith("  1. build FAIL: " +
                                           BUILD_LINE.format(
                                               h="0a1b2c3d4e5f6071")))
        self.assertIn("debian-6.12 / none, debian-6.12 / "
                      "rtl8139/ndiswrapper", term[1])
        self.assertEqual(term[2], "     4 checks not run in these cells "
                                  "(they need what did not build)")
        self.assertTrue(term[3].startswith("  2. bind FAIL: kernel "
                                           "reported:"))
        self.assertIn("kernel", term[term.index("") + 1])   # the matrix
        md = report.markdown(run)
        head = md.split("| kernel |")[0]
        self.assertIn("## Causes", head)
        # guest text is literal Markdown there: '_' escaped
        self.assertLess(head.index("build"),
                        head.index(r"dev\_addr\_check"))
        self.assertEqual(head.count(r"list\_is\_head"), 1)
        self.assertEqual(head.count(r"dev\_addr\_check"), 1)
        page = html.run_page(run)
        self.assertLess(page.index('id="causes"'), page.index('id="failed"'))
        section = page[page.index('id="causes"'):page.index('id="failed"')]
        self.assertEqual(section.count('<tr class="cause'), 2)
        self.assertEqual(section.count('<tr class="cause build"'), 1)
        self.assertIn("list_is_head", section)
        self.assertIn("4 not run", section)
        # not-run verdicts are no items of "What failed"
        failed = page[page.index('id="failed"'):page.index("<h2>Matrix")]
        self.assertNotIn("did not build for this kernel", failed)

    def test_a_cells_terminal_lines_name_what_was_not_run_once(self):
        lines = report.cell_lines(unbuilt_cell("debian-6.12", "none"))
        self.assertEqual(lines[1:], [
            "  build: " + BUILD_LINE.format(h="0a1b2c3d4e5f6071"),
            "  not run: load, bind (ndiswrapper.ko did not build for this "
            "kernel (see build))"])

    def test_written_reports_stay_valid(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            report.write(folder, sample())
            ET.parse(folder / "junit.xml")
            again = report.load(folder)
        self.assertEqual(again.cells[2].verdicts["load"].status, NOT_RUN)


if __name__ == "__main__":
    unittest.main()
