"""A kernel report is charged to the check whose agent test was running
(the agent's `# ndisbench: begin/end <row>` marks, on the console and in
the replayed kernel log), not to every check of the cell; the checks that
ran after it say so; a row whose child died is that row's checks' FAIL."""
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import judge_cell
from ndisbench_lib import devices, kernels
from ndisbench_lib.build.kbuild import KernelArtifact
from ndisbench_lib.checks import registry
from ndisbench_lib import cell
from ndisbench_lib.guest import machine
from ndisbench_lib.report import ktap
from ndisbench_lib.report.verdict import FAIL, PASS, TIMEOUT

DEVICE = "rtl8139/ndiswrapper"
CHECKS = ("broken", "install", "unload")
OOPS = "[   21.123456] BUG: unable to handle page fault for address: " \
       "0000000000000008"
WARN = "WARNING: CPU: 0 PID: 93 at drivers/net/foo.c:12 foo_open+0x1/0x2"


def rows_log(broken_body=None, klog=(), boot_extra=()):
    """A cell's serial log as the isolating agent prints it: rows boot,
    broken (one driver), install, insmod, unload, each between its marks;
    broken_body replaces the broken row's own lines; klog: the unload
    row's replay of the kernel log."""
    def row(name, body):
        return [f"# ndisbench: begin {name}", *body,
                f"# ndisbench: end {name}"]
    broken = broken_body if broken_body is not None else [
        "# inf: /lib/ndisbench/fixtures/broken/pe32.inf",
        "# install_status: 0", "# errno: 0", "not ok 2 broken pe32"]
    lines = ["[    0.500000] Run /init as init process", *boot_extra,
             "KTAP version 1", "1..5"]
    lines += row("boot", ["# release: 6.1.0", "# tainted: 0", "ok 1 boot"])
    lines += row("broken", broken)
    lines += row("install", ["# status: 0",
                             "# list: rtl8139nd : driver installed",
                             "ok 3 install"])
    lines += row("insmod", ["# module: ndiswrapper", "# errno: 0",
                            "ok 4 insmod ndiswrapper"])
    lines += row("unload", ["# rmmod: ndiswrapper errno=0", "# tainted: 1",
                           *[f"# klog: {k}" for k in klog], "ok 5 unload"])
    lines.append("# ndisbench-agent: done")
    return "\r\n".join(lines) + "\r\n"


def oopsed_broken():
    return ["# inf: /lib/ndisbench/fixtures/broken/pe32.inf", OOPS,
            "[   21.123999] Call Trace:",
            "[   21.124000]  <TASK>",
            "[   21.124100]  load_pe_image+0x2a/0x90 [ndiswrapper]",
            "# ndisbench: died broken: killed by signal 9 (Killed)",
            "# row_death: killed by signal 9 (Killed)",
            "not ok 2 broken pe32"]


class MarksTest(unittest.TestCase):
    def test_marks_are_rows_not_facts(self):
        log = ktap.parse(rows_log(oopsed_broken()))
        self.assertEqual([r.name for r in log.rows],
                         ["boot", "broken", "install", "insmod", "unload"])
        broken = log.rows[1]
        self.assertEqual(broken.tests, ["broken pe32"])
        self.assertEqual(broken.died, "killed by signal 9 (Killed)")
        self.assertEqual(log.test("broken pe32").facts, [
            ("inf", "/lib/ndisbench/fixtures/broken/pe32.inf"),
            ("row_death", "killed by signal 9 (Killed)")])
        self.assertIn("# ndisbench: begin broken", log.lines)
        self.assertTrue(log.complete)

    def test_each_line_has_its_row(self):
        rows = dict((line, row) for row, line in ktap.row_lines(rows_log(
            oopsed_broken(), klog=["ndisbench: begin install", WARN,
                                   "ndisbench: end install", "late"])))
        self.assertEqual(rows[OOPS], "broken")
        self.assertEqual(rows[f"# klog: {WARN}"], "install")
        self.assertEqual(rows["# klog: late"], "")
        self.assertEqual(rows["ok 5 unload"], "unload")
        self.assertEqual(rows["[    0.500000] Run /init as init process"],
                         "")


class ChargeTest(unittest.TestCase):
    def test_every_guest_check_declares_what_it_reads(self):
        for check in registry.all_checks():
            if check.host_side:
                self.assertEqual(check.reads, (), check.name)
            else:
                self.assertTrue(check.reads, check.name)

    def test_clean_rows_pass(self):
        verdicts = judge_cell(DEVICE, ("install", "unload"), rows_log())
        self.assertEqual({c: v.status for c, v in verdicts.items()},
                         {"install": PASS, "unload": PASS}, verdicts)

    def test_oops_is_charged_to_its_own_check(self):
        verdicts = judge_cell(DEVICE, CHECKS, rows_log(oopsed_broken()))
        broken = verdicts["broken"]
        self.assertEqual(broken.status, FAIL)
        self.assertEqual(broken.summary,
                         f"kernel reported: {OOPS} (in load_pe_image "
                         "[ndiswrapper])")
        note = f" (ran after an oops in broken: {OOPS} (in load_pe_image " \
               "[ndiswrapper]))"
        for check in ("install", "unload"):
            self.assertEqual(verdicts[check].status, PASS, verdicts[check])
            self.assertTrue(verdicts[check].summary.endswith(note),
                            verdicts[check].summary)

    def test_a_replayed_warning_is_charged_by_the_klog_marks(self):
        verdicts = judge_cell(DEVICE, CHECKS, rows_log(klog=[
            "ndisbench: begin install", WARN, "ndisbench: end install"]))
        self.assertEqual(verdicts["install"].status, FAIL)
        self.assertEqual(verdicts["install"].summary,
                         f"kernel reported: # klog: {WARN}")
        self.assertNotIn("kernel reported", verdicts["broken"].summary)
        self.assertNotIn("ran after", verdicts["broken"].summary)
        self.assertEqual(verdicts["unload"].status, PASS)
        self.assertIn("(ran after an oops in install: # klog: WARNING: "
                      "CPU: 0", verdicts["unload"].summary)

    def test_a_report_before_the_first_row_fails_every_check(self):
        verdicts = judge_cell(DEVICE, ("install", "unload"),
                              rows_log(boot_extra=[OOPS]))
        for check in ("install", "unload"):
            self.assertEqual(verdicts[check].status, FAIL)
            self.assertEqual(verdicts[check].summary,
                             f"kernel reported: {OOPS}")

    def test_a_report_in_a_row_no_check_reads_fails_every_check(self):
        log = rows_log().replace("ok 1 boot", f"{OOPS}\r\nok 1 boot")
        verdicts = judge_cell(DEVICE, ("install", "unload"), log)
        for check in ("install", "unload"):
            self.assertEqual(verdicts[check].status, FAIL, verdicts[check])
            self.assertEqual(verdicts[check].summary,
                             f"kernel reported: {OOPS}")

    def test_a_dead_row_without_a_report_fails_its_checks(self):
        body = ["# ndisbench: died install: timed out after 600 s (killed)",
                "# row_death: timed out after 600 s (killed)",
                "not ok 3 install"]
        log = rows_log().replace(
            "# status: 0\r\n# list: rtl8139nd : driver installed\r\n"
            "ok 3 install", "\r\n".join(body))
        verdicts = judge_cell(DEVICE, ("install", "unload"), log)
        self.assertEqual(verdicts["install"].status, FAIL)
        self.assertEqual(verdicts["install"].summary,
                         "the agent's install test died: timed out after "
                         "600 s (killed)")
        self.assertEqual(verdicts["unload"].status, PASS)

    def test_a_row_that_died_after_an_oops_says_so(self):
        """A BUG that leaves a lock held (rtnl in an ethtool ioctl) hangs
        a later row: its death came after the oops, and says so."""
        log = rows_log(oopsed_broken()).replace(
            "# rmmod: ndiswrapper errno=0\r\n# tainted: 1\r\nok 5 unload",
            "# ndisbench: died unload: timed out after 600 s (killed)\r\n"
            "# row_death: timed out after 600 s (killed)\r\nnot ok 5 unload")
        verdicts = judge_cell(DEVICE, CHECKS, log)
        self.assertEqual(verdicts["unload"].status, FAIL)
        self.assertEqual(
            verdicts["unload"].summary,
            "the agent's unload test died: timed out after 600 s (killed) "
            f"(ran after an oops in broken: {OOPS} (in load_pe_image "
            "[ndiswrapper]))")

    def test_a_guest_killed_after_an_oops_quotes_it(self):
        """A row that oopsed and then hung until the host killed the
        guest (pgiri's PE loader in broken's own guest): the TIMEOUT
        names the report, as the row's death would have."""
        serial = rows_log(oopsed_broken()).split(
            "# ndisbench: died broken")[0]
        verdicts = judge_cell(DEVICE, ("broken",), serial,
                              status="timeout")
        self.assertEqual(verdicts["broken"].status, TIMEOUT)
        self.assertRegex(verdicts["broken"].summary,
                         r"^guest killed after 3\.0 ?s .*; the kernel "
                         r"reported in broken: \[   21\.123456\] BUG: "
                         r"unable to handle page fault")


class OwnGuestTest(unittest.TestCase):
    def test_broken_gets_a_guest_of_its_own(self):
        self.assertTrue(registry.get("broken").own_guest)
        plan = cell.plan.CellPlan(None,  # type: ignore
                                  devices.DEVICES[DEVICE],
                                  ("build", "broken", "install", "unload"),
                                  kernels.load_expectations())
        self.assertEqual(cell.run.guest_groups(plan), [
            (("build", "install", "unload"), "serial.log"),
            (("broken",), "serial-broken.log")])

    def test_alone_it_shares_the_one_guest(self):
        for checks in (("broken",), ("build", "broken"), ("install",)):
            plan = cell.plan.CellPlan(None,  # type: ignore
                                      devices.DEVICES[DEVICE],
                                      checks, kernels.load_expectations())
            self.assertEqual(cell.run.guest_groups(plan),
                             [(checks, "serial.log")])

    def test_both_guests_boot_one_initramfs_main_first(self):
        exp = kernels.load_expectations()
        kernel = kernels.Kernel("k", "debian", exp.policies["2.6.25-rc4"])
        tmp = pathlib.Path(tempfile.mkdtemp())
        art = mock.Mock(spec=KernelArtifact, release="6.1.0")
        prep = cell.plan.Prepared(kernel, art, base_bits=12288)
        # judged: no .config
        bare = cell.plan.Prepared(kernel, base_bits=12288)
        plan = cell.plan.CellPlan(kernel, devices.DEVICES[DEVICE],
                                  ("broken", "install", "unload"), exp,
                                  tmp / "cell", tmp)
        calls = []

        def fake_guest(sub, prep_, parts, initrd, log_name, on_line,
                       before_boot):
            calls.append((sub.checks, initrd, log_name))
            serial = rows_log(oopsed_broken()) if log_name != "serial.log" \
                else rows_log()
            boot = machine.BootResult("done", 0, 3.0, 1.0, serial)
            return cell.run.GuestRun(boot, "saved" if not calls[1:] else
                                     "restored", cell.judge.judge_cell(
                                     sub, bare, boot, log_name=log_name),
                                     {}, cell.judge.read_serial(serial))
        with mock.patch.object(cell.run, "cell_initrd",
                               return_value=tmp / "initrd.cpio"), \
                mock.patch.object(cell.run, "run_guest", fake_guest):
            run = cell.run.run_plan(plan, prep, mock.Mock())
        self.assertEqual(calls, [
            (("install", "unload"), tmp / "initrd.cpio", "serial.log"),
            (("broken",), tmp / "initrd.cpio", "serial-broken.log")])
        verdicts = run.result.verdicts
        self.assertEqual(list(verdicts), ["broken", "install", "unload"])
        # The oops of broken's own guest touches neither of the others.
        self.assertTrue(verdicts["broken"].summary.startswith(
            "kernel reported: [   21.123456] BUG: unable"))
        self.assertEqual(verdicts["install"].status, PASS)
        self.assertNotIn("ran after", verdicts["install"].summary)
        self.assertEqual(run.result.start, "saved")
        ktap_txt = (tmp / "cell" / "ktap.txt").read_text()
        self.assertIn("# broken: a guest of its own (serial-broken.log)",
                      ktap_txt)
        self.assertEqual(ktap_txt.count("KTAP version 1"), 2)


NULL_BUG = "BUG: kernel NULL pointer dereference, address: 0000000000000000"


def survive_log(death="killed by signal 9 (Killed)", klog_bug=True,
                rmmod=True, control=False):
    """A `none` cell of survive: ndisbench_oops loaded by its own row
    (control: ndisbench_control loaded before it, removed after)."""
    first = 2 + control
    insmod = ["# ndisbench: begin insmod", "# module: ndisbench_control",
              "# tainted_before: 0", "# errno: 0", "# errname: 0",
              "# tainted_after: 12288", "# module_taint: OE",
              "ok 2 insmod ndisbench_control",
              "# ndisbench: end insmod"] if control else []
    oops = [*insmod, "# ndisbench: begin oops", "# module: ndisbench_oops",
            f"[    3.100000] {NULL_BUG}", "[    3.100100] Call Trace:"]
    if death:
        oops += [f"# ndisbench: died oops: {death}", f"# row_death: {death}"]
    oops += [f"not ok {first} oops ndisbench_oops", "# ndisbench: end oops"]
    klog = ["ndisbench: begin oops"] + ([NULL_BUG] if klog_bug else []) + \
        ["ndisbench: end oops"]
    lines = ["KTAP version 1", f"1..{first + 1}", "# ndisbench: begin boot",
             "# tainted: 0", "ok 1 boot", "# ndisbench: end boot", *oops]
    if rmmod:
        lines += ["# ndisbench: begin unload",
                  *(["# rmmod: ndisbench_control errno=0"] if control
                    else []), "# tainted: 12416",
                  *[f"# klog: {k}" for k in klog], f"ok {first + 1} unload",
                  "# ndisbench: end unload", "# ndisbench-agent: done"]
    return "\r\n".join(lines) + "\r\n"


class SurviveTest(unittest.TestCase):
    def test_the_agent_outlives_the_oops(self):
        verdict = judge_cell("none", ("survive",), survive_log())["survive"]
        self.assertEqual(verdict.status, PASS, verdict)
        self.assertEqual(verdict.summary,
                         f"oops ndisbench_oops: child killed by signal 9 "
                         f"(Killed); # klog: {NULL_BUG}; the later rows ran")

    def test_its_oops_is_not_charged_to_the_others(self):
        # survive judges its own report: a row read by a check that
        # judges reports itself charges no other check.
        verdicts = judge_cell("none", ("survive", "control"),
                              survive_log(control=True))
        self.assertEqual(verdicts["survive"].status, PASS)
        self.assertEqual(verdicts["control"].status, PASS,
                         verdicts["control"])
        self.assertIn("(ran after an oops in oops: [    3.100000] "
                      f"{NULL_BUG})", verdicts["control"].summary)

    def test_a_child_that_lived_is_a_failure(self):
        verdict = judge_cell("none", ("survive",),
                             survive_log(death=""))["survive"]
        self.assertEqual(verdict.status, FAIL)
        self.assertEqual(verdict.summary, "the oops did not kill its row's "
                                          "child (row_death: none)")

    def test_no_report_in_the_row_is_a_failure(self):
        verdict = judge_cell("none", ("survive",),
                             survive_log(klog_bug=False))["survive"]
        self.assertEqual(verdict.summary,
                         "no kernel line matches /BUG: kernel NULL pointer "
                         "dereference/ between the oops row's marks")

    def test_an_agent_that_stopped_is_a_failure(self):
        verdict = judge_cell("none", ("survive",),
                             survive_log(rmmod=False))["survive"]
        self.assertEqual(verdict.status, FAIL)
        self.assertEqual(verdict.summary, "no kernel line matches /BUG: "
                         "kernel NULL pointer dereference/ between the oops "
                         "row's marks")
        self.assertIn("the rmmod row after it did not run to its end",
                      verdict.details)


if __name__ == "__main__":
    unittest.main()
