"""The build check: every cell says whether the modules of ours
it needs were built for its kernel; a module that did not build stops only
the checks that need it, named, with the compiler's first error; cells
that need no module of ours (e1000, the native rtl8187) still boot."""
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import agent_log
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib import cell
from ndisbench_lib.errors import BuildError
from ndisbench_lib.guest import machine
from ndisbench_lib.report import report

EXP = kernels.load_expectations()
ERROR_LINE = ("driver/compat.h:41:2: error: #error \"planted: 6.12 and "
              "later\"")


def failed_build():
    return BuildError("kernel 'k': build ndiswrapper.ko",
                      pathlib.Path("/c/logs/module-x.log"), 2,
                      [ERROR_LINE, "make[2]: *** [x] Error 1"])


def prep(failed=()):
    kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])
    p = cell.plan.Prepared(kernel, art=mock.Mock(release="6.12.1"),
                           base_bits=12288)
    for role in failed:
        p.failed[role] = failed_build()
    return p


def plan_of(device, checks, folder=None, run=None):
    kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])
    return cell.plan.CellPlan(kernel, devices.DEVICES[device], tuple(checks),
                              EXP, folder, run)


def checks_of(device):
    return registry.for_device(devices.DEVICES[device],
                               registry.default_names())


class BuildCheckTest(unittest.TestCase):
    def test_every_cell_has_it(self):
        for dev in devices.TARGETS:
            self.assertIn("build", registry.for_device(
                dev, registry.default_names()), dev.label)
        self.assertTrue(registry.get("build").host_side)

    def test_a_run_always_has_it(self):
        from ndisbench_lib.commands import cli
        self.assertEqual(cli._checks(["load"]), ["build", "load"])
        self.assertIn("build", cli._checks(None))

    def test_verdicts(self):
        plan = plan_of("none", checks_of("none"))
        ok = registry.judge("build", cell.judge.CellFacts(
            cell.judge.ktap.parse(""), EXP, plan.kernel.policy,
            builds=cell.plan.cell_builds(plan, prep())))
        self.assertEqual(ok.status, "pass")
        self.assertIn("ndiswrapper.ko", ok.summary)
        bad = registry.judge("build", cell.judge.CellFacts(
            cell.judge.ktap.parse(""), EXP, plan.kernel.policy,
            builds=cell.plan.cell_builds(plan, prep(["ndiswrapper"]))))
        self.assertEqual(bad.status, "FAIL")
        self.assertTrue(bad.summary.startswith(
            "ndiswrapper.ko: driver/compat.h:41:2: error: #error"),
            bad.summary)
        plain = registry.judge("build", cell.judge.CellFacts(
            cell.judge.ktap.parse(""), EXP, plan.kernel.policy,
            builds=cell.plan.cell_builds(plan_of("e1000", checks_of("e1000")),
                                         prep(["ndiswrapper"]))))
        self.assertEqual(plain.status, "pass")

    def test_what_a_failed_wrapper_blocks(self):
        p = prep(["ndiswrapper"])
        none = cell.plan.blocked_checks(plan_of("none", checks_of("none")), p)
        self.assertEqual(set(none), {"load", "taint"})
        wrapped = cell.plan.blocked_checks(plan_of(
            "bcm43xx/ndiswrapper", checks_of("bcm43xx/ndiswrapper")), p)
        self.assertNotIn("sandbox", wrapped)
        self.assertNotIn("build", wrapped)
        self.assertIn("dhcp", wrapped)
        self.assertIn("broken", wrapped)
        for plain in ("e1000", "rtl8187/native"):
            self.assertEqual(cell.plan.blocked_checks(
                plan_of(plain, checks_of(plain)), p), {}, plain)


class UnbuiltCellTest(unittest.TestCase):
    def run_cell(self, device, checks, p, serial=None):
        booted = []

        def boot(cmd, log, timeout, on_line=None, console=None,
                 on_start=None):
            booted.append(cmd)
            return machine.BootResult("done", 0, 3.0, 1.0, serial or "")

        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(cell.run, "cell_initrd",
                                  return_value=pathlib.Path("/i")), \
                mock.patch.object(cell.start, "guest_command",
                                  return_value=["qemu"]), \
                mock.patch.object(cell.run, "say", lambda *a: None), \
                mock.patch.object(cell.start, "say", lambda *a: None), \
                mock.patch.object(cell.run.machine, "boot", boot), \
                mock.patch.object(cell.run.known, "annotate",
                                  lambda log, exp, v: v):
            run = pathlib.Path(tmp)
            plan = cell.plan.CellPlan(p.kernel, devices.DEVICES[device],
                                      tuple(checks), EXP,
                                      run / "cells" / "k", run)
            return cell.run.run_plan(plan, p, None), booted

    def test_wrapped_cell_is_not_run_and_says_why(self):
        done, booted = self.run_cell("bcm43xx/ndiswrapper",
                                     checks_of("bcm43xx/ndiswrapper"),
                                     prep(["ndiswrapper"]))
        self.assertEqual(booted, [])
        self.assertEqual(done.result.release, "6.12.1")
        v = done.result.verdicts
        self.assertEqual(list(v), list(checks_of("bcm43xx/ndiswrapper")))
        self.assertEqual(v["build"].status, "FAIL")
        self.assertIn("compat.h:41:2: error:", v["build"].summary)
        self.assertEqual(v["dhcp"].status, "not run")
        self.assertIn("ndiswrapper.ko did not build", v["dhcp"].summary)
        line = report.cell_lines(done.result)[0]
        self.assertIn("build FAIL", line)

    def test_none_cell_runs_what_does_not_need_the_wrapper(self):
        serial = agent_log([
            {"module": "ndisbench_control", "before": 0, "errno": 0,
             "after": 12288, "taint": "OE"},
            {"module": "driverloader", "before": 12288, "errno": 2,
             "after": 12289, "taint": "-",
             "kmsg": ["driverloader: module license taints kernel."] +
             [f"driverloader: Unknown symbol {s} (err -2)"
              for s in EXP.gpl_only_imports]}])
        done, booted = self.run_cell("none", checks_of("none"),
                                     prep(["ndiswrapper"]), serial)
        self.assertEqual(len(booted), 1)
        v = done.result.verdicts
        self.assertEqual(v["build"].status, "FAIL")
        self.assertEqual((v["load"].status, v["taint"].status),
                         ("not run", "not run"))
        self.assertTrue(v["control"].ok, v["control"])
        self.assertTrue(v["driverloader"].ok, v["driverloader"])

    def test_plain_cell_boots_and_passes_build(self):
        done, booted = self.run_cell("e1000", ["build"],
                                     prep(["ndiswrapper"]),
                                     agent_log([]))
        self.assertEqual(len(booted), 1)
        self.assertEqual(done.result.verdicts["build"].status, "pass")


if __name__ == "__main__":
    unittest.main()


class PlantedBuildErrorStageTest(unittest.TestCase):
    """The test command's build-error stage: where the #error goes, and
    what each cell of its run must show."""

    def test_plant_puts_the_error_inside_the_guard(self):
        from ndisbench_lib.commands import selftest
        from helpers import REPO
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp)
            (src / "driver").mkdir()
            (src / "driver" / "compat.h").write_text(
                (REPO / "wrapper" / "driver" / "compat.h").read_text())
            line = selftest.plant_build_error(src)
            lines = (src / "driver" / "compat.h").read_text().splitlines()
        self.assertIn(selftest.PLANTED_ERROR, lines[line - 1])
        self.assertTrue(lines[line - 1].startswith("#error"))
        self.assertIn("KERNEL_VERSION(6, 12, 0)", lines[line - 2])
        self.assertEqual(lines[-1], "#endif /* NDIS_COMPAT_H */")

    def result(self, line, tweak=None):
        from ndisbench_lib.commands import selftest
        from ndisbench_lib.report.verdict import ERROR, FAIL, PASS, Verdict
        run = report.RunResult("r")
        for kernel, fails in selftest.BUILD_ERROR_KERNELS.items():
            for device in selftest.BUILD_ERROR_DEVICES:
                c = report.CellResult(kernel, "2.6.25-rc4", device, "x")
                c.verdicts["build"] = Verdict(
                    FAIL, f"ndiswrapper.ko: driver/compat.h:{line}:2: "
                          f"error: #error \"{selftest.PLANTED_ERROR}\"") \
                    if fails and device == "none" else Verdict(PASS, "ok")
                for check in checks_of(device):
                    if check == "build":
                        continue
                    blocked = fails and device == "none" and \
                        check in selftest.NEEDS_WRAPPER
                    c.verdicts[check] = Verdict(
                        "not run", "ndiswrapper.ko did not build") \
                        if blocked else Verdict(PASS, "ok")
                if tweak:
                    tweak(c)
                run.cells.append(c)
        return run

    def test_judge(self):
        from ndisbench_lib.commands import selftest
        from ndisbench_lib.report.verdict import ERROR, PASS, Verdict
        with mock.patch.object(selftest, "say", lambda *a: None):
            self.assertEqual(selftest.judge_build_error(
                self.result(41), 41), (8, 0))

            def e1000_down(c):
                if c.kernel == "debian-sid" and c.device == "e1000":
                    c.verdicts["dhcp"] = Verdict(ERROR, "not run: x")
            self.assertEqual(selftest.judge_build_error(
                self.result(41, e1000_down), 41), (7, 1))

            def sid_built(c):
                if c.kernel == "debian-sid":
                    c.verdicts["build"] = Verdict(PASS, "built")
            self.assertEqual(selftest.judge_build_error(
                self.result(41, sid_built), 41)[1], 1)
            # The wrong line is not the planted error.
            self.assertEqual(selftest.judge_build_error(
                self.result(40), 41)[1], 2)

            def relative(c):        # 7.x's kbuild: relative to M=
                c.verdicts["build"] = Verdict(
                    c.verdicts["build"].status, c.verdicts["build"].summary
                    .replace("driver/compat.h", "compat.h"))
            self.assertEqual(selftest.judge_build_error(
                self.result(41, relative), 41), (8, 0))


class BuildFailureInReportsTest(unittest.TestCase):
    """The compiler's line reaches every rendering of a run: the terminal
    line, summary.md, junit.xml and report.html."""

    def test_every_report_names_the_compiler_line(self):
        from ndisbench_lib.report.verdict import ERROR, FAIL, PASS, Verdict
        run = report.RunResult("r", checks=["build", "load"])
        c = report.CellResult("debian-sid", "2.6.25-rc4", "none", "cells/x")
        c.verdicts = {"build": Verdict(FAIL, f"ndiswrapper.ko: {ERROR_LINE}"),
                      "load": Verdict("not run", "ndiswrapper.ko did "
                                                 "not build for this kernel")}
        ok = report.CellResult("debian-6.1", "2.6.25-rc4", "none", "cells/y")
        ok.verdicts = {"build": Verdict(PASS, "built ndiswrapper.ko"),
                       "load": Verdict(PASS, "ok")}
        run.cells = [c, ok]
        self.assertIn(ERROR_LINE, "\n".join(report.cell_lines(c)))
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            report.write(folder, run)
            for name in ("summary.md", "junit.xml", "report.html"):
                text = (folder / name).read_text()
                # html/xml escape the quotes of the #error text
                self.assertIn("driver/compat.h:41:2: error: #error", text,
                              name)
