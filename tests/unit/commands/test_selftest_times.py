"""Where the test command's time went: every stage's wall time with its
counts, and the build steps that took longest (they overlap the stages'
cells, so they are listed apart, not summed)."""
import argparse
import contextlib
import io
import subprocess
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)

from ndisbench_lib import devices, kernels, progress
from ndisbench_lib.cell import runner
from ndisbench_lib.commands import cli, selftest
from ndisbench_lib.errors import BenchError


class FinishedStepsTest(unittest.TestCase):
    def setUp(self):
        progress.forget_steps()

    def test_a_step_is_kept_with_its_time_and_outcome(self):
        clock = iter([10.0, 25.5, 30.0, 31.0])
        with mock.patch.object(progress.time, "monotonic",
                               lambda: next(clock)), \
                contextlib.redirect_stdout(io.StringIO()):
            with progress.Step("build", "kernel src-6.1: make"):
                pass
            with self.assertRaises(BenchError):
                with progress.Step("build", "qemu: configure"):
                    raise BenchError("configure failed")
        self.assertEqual(progress.finished_steps(), [
            progress.Finished("build", "kernel src-6.1: make", 15.5, True),
            progress.Finished("build", "qemu: configure", 1.0, False)])

    def test_a_quiet_step_prints_nothing_and_is_kept(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            with progress.Step("build", "kernel src-6.1: ndiswrapper.ko",
                               quiet=True):
                pass
        self.assertEqual(out.getvalue(), "")
        self.assertEqual([s.text for s in progress.finished_steps()],
                         ["kernel src-6.1: ndiswrapper.ko"])


class StageTableTest(unittest.TestCase):
    def test_stages_and_longest_build_steps(self):
        stages = [selftest.StageTime("unit", 965, 0, 62.0),
                  selftest.StageTime("e2e", 2201, 1, 1800.4)]
        steps = [progress.Finished("build", "kernel a: make", 20.0, True),
                 progress.Finished("build", "kernel b: make", 227.0, True),
                 progress.Finished("qtest", "air", 200.0, True),
                 progress.Finished("build", "qemu: configure", 95.0,
                                   False)]
        self.assertEqual(selftest.time_table(stages, steps, longest=2), [
            "stage          passed  failed       wall",
            "unit              965       0      1m02s",
            "e2e              2201       1     30m00s",
            "total            3166       1     31m02s",
            "longest build steps (they overlap the stages above):",
            "  3m47s  kernel b: make",
            "  1m35s  qemu: configure (failed)",
        ])

    def test_no_build_steps_no_second_part(self):
        lines = selftest.time_table(
            [selftest.StageTime("unit", 1, 0, 1.0)], [])
        self.assertEqual(lines[-1], "total               1       0       "
                                    "1.0s")



class UnitStageStepsTest(unittest.TestCase):
    def test_steps_the_unit_tests_make_stay_out_of_the_table(self):
        # the unit tests time made-up build steps ("qemu: configure",
        # failed): they are not the test command's own
        progress.forget_steps()
        with contextlib.redirect_stdout(io.StringIO()):
            with progress.Step("build", "kernel real: make", quiet=True):
                pass

        def fake_tests(*_a, **_k):
            with progress.Step("build", "qemu: configure", quiet=True):
                pass
            return unittest.TestSuite()

        with mock.patch.object(selftest.unittest.defaultTestLoader,
                               "discover", fake_tests), \
                contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            selftest.python_unit()
        self.assertEqual([s.text for s in progress.finished_steps()],
                         ["kernel real: make"])


class FailureListTest(unittest.TestCase):
    """The last lines name what failed: CI shows the end of the output."""

    def result(self):
        from ndisbench_lib.report import report
        from ndisbench_lib.report.verdict import (ERROR, FAIL, NOT_RUN,
                                                  PASS, XFAIL, Verdict)
        cell = report.CellResult("src-6.1", "p", "bcm43xx", "cells/x",
                                 wrapper="ndiswrapper")
        cell.verdicts = {
            "load": Verdict(PASS, "ok"),
            "rekey": Verdict(FAIL, "no group rekey during the stream\n"
                                   "second line"),
            "wpa2": Verdict(XFAIL, "as history says"),
            "tcp": Verdict(NOT_RUN, "rekey failed"),
            "sandbox": Verdict(ERROR, "x" * 300)}
        return report.RunResult("20261208-000000", cells=[cell])

    def test_failed_checks_named(self):
        lines = selftest.failure_lines(self.result())
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[0], "src-6.1 / bcm43xx/ndiswrapper: rekey "
                                   "FAIL: no group rekey during the stream "
                                   "second line")
        self.assertTrue(lines[1].startswith(
            "src-6.1 / bcm43xx/ndiswrapper: sandbox ERROR: xxx"))
        self.assertLessEqual(len(lines[1]), 200)

    def test_listed_before_the_last_line_at_most_max(self):
        def stages(matrix, args):
            selftest.note_failures("e2e", self.result())
            return [selftest.StageTime("e2e", 1, 2, 1.0)]

        with mock.patch.object(selftest, "all_stages", stages), \
                mock.patch.object(selftest, "fetch_e2e_ahead",
                                  lambda m: None):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = selftest.run_tests(lambda: None,
                                            argparse.Namespace())
        self.assertEqual(status, 1)
        text = out.getvalue().splitlines()
        self.assertEqual(text[-1], "1 passed, 2 failed")
        self.assertEqual(text[-4], "failed (2):")
        self.assertEqual(text[-3], "  e2e: src-6.1 / bcm43xx/ndiswrapper: "
                                   "rekey FAIL: no group rekey during the "
                                   "stream second line")
        selftest.forget_failures()
        for n in range(selftest.FAILURES_SHOWN + 3):
            selftest.note_failures(f"s{n}", self.result())
        lines = selftest.failure_summary()
        self.assertEqual(lines[0], f"failed ({2 * (selftest.FAILURES_SHOWN + 3)}):")
        self.assertEqual(len(lines), selftest.FAILURES_SHOWN + 2)
        self.assertEqual(lines[-1], f"  ... and "
                         f"{2 * (selftest.FAILURES_SHOWN + 3) - selftest.FAILURES_SHOWN}"
                         " more (each stage's run folder has them)")
        selftest.forget_failures()


class FetchBeforeE2eTest(unittest.TestCase):
    """The e2e kernels' downloads and chroots start with the test command,
    in a process of their own, beside the CPU-bound stages before e2e."""

    def matrix(self, *names):
        exp = kernels.load_expectations()
        ks = {k.name: k for k in kernels.load_kernels()}
        return runner.Matrix([ks[n] for n in names],
                             devices.select(["none"], None), ["load"], exp)

    def test_started_before_the_first_stage_and_reaped_after_the_last(self):
        events = []

        class Fetch:
            def __init__(self, argv, **kw):
                events.append(("fetch", argv[2:]))

            def wait(self, timeout=None):
                events.append(("reaped", timeout))

        def stage(name, what, run):
            events.append(name)
            return selftest.StageTime(name, 1, 0, 0.0)

        matrix = self.matrix("src-6.1", "debian-5.10", "debian-6.1")
        with mock.patch.object(selftest, "stage", stage), \
                mock.patch.object(selftest.subprocess, "Popen", Fetch), \
                contextlib.redirect_stdout(io.StringIO()):
            selftest.run_tests(lambda: matrix, argparse.Namespace())
        self.assertEqual(events[0], ("fetch", ["build", "fetch", "--kernel",
                                               "debian-5.10", "debian-6.1"]))
        self.assertEqual(events[1], "unit")
        self.assertEqual(events[-1], ("reaped", selftest.FETCH_TIMEOUT))

    def test_no_debian_kernel_no_fetch(self):
        with mock.patch.object(selftest.subprocess, "Popen") as popen:
            self.assertIsNone(selftest.fetch_e2e_ahead(
                lambda: self.matrix("src-6.1")))
        popen.assert_not_called()

    def test_a_matrix_that_cannot_be_made_fetches_nothing(self):
        def bad():
            raise BenchError("kernels.toml: bad entry")
        with mock.patch.object(selftest.subprocess, "Popen") as popen:
            self.assertIsNone(selftest.fetch_e2e_ahead(bad))
        popen.assert_not_called()

    def test_an_interrupted_test_command_stops_the_fetch(self):
        fetch = mock.Mock()
        fetch.wait.side_effect = [subprocess.TimeoutExpired("f", 5), 0]

        def stage(name, what, run):
            raise KeyboardInterrupt

        with mock.patch.object(selftest, "stage", stage), \
                mock.patch.object(selftest, "fetch_e2e_ahead",
                                  lambda m: fetch), \
                self.assertRaises(KeyboardInterrupt):
            selftest.run_tests(lambda: None, argparse.Namespace())
        fetch.kill.assert_called_once_with()


class BuildFetchTest(unittest.TestCase):
    def test_build_fetch_fetches_in_build_order_and_fails_on_a_failure(self):
        calls = []

        def fetch(order, cache, exp, roles, src):
            calls.append(([k.name for k in order], sorted(roles), src))
            return ["debian-sid"]

        args = cli.parser().parse_args(["build", "fetch", "--kernel",
                                        "src-6.1", "debian-sid"])
        with mock.patch.object(cli.runner, "fetch_kernels_ahead", fetch), \
                mock.patch.object(cli, "say", lambda *a: None):
            self.assertEqual(args.func(args), 1)
        exp = kernels.load_expectations()
        self.assertEqual(calls, [(["debian-sid", "src-6.1"],
                                  sorted(exp.module_names), None)])


if __name__ == "__main__":
    unittest.main()
