"""Where the test command's time went: every stage's wall time with its
counts, and the build steps that took longest (they overlap the stages'
cells, so they are listed apart, not summed)."""
import contextlib
import io
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)

from ndisbench_lib import progress
from ndisbench_lib.commands import selftest
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


if __name__ == "__main__":
    unittest.main()
