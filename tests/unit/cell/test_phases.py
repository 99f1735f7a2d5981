"""Where a cell's time goes: the console marks become phases (setup, boot,
one per kind of agent test, poweroff, judging) with QEMU's CPU and CPU
wait, phases.json is written per booted cell, and a run's phases add up
with their shares and the idle share (bench --matrix, report --phases)."""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import REPO  # noqa: F401
from ndisbench_lib.cell import phases
from ndisbench_lib.commands import bench
from ndisbench_lib.commands.benchresult import BenchResult, notes
from ndisbench_lib.report import report
from ndisbench_lib.report.ktap import DONE_LINE


class PhasesTest(unittest.TestCase):
    def test_marks_become_phases(self):
        marks = [("boot", 12.0, 2.0, 1.0), ("start", 12.5, 2.2, 1.0),
                 ("broken", 13.0, 2.5, 1.1), ("broken", 14.0, 2.9, 1.2),
                 ("scan", 20.0, 3.0, 1.3), ("done", 20.5, 3.1, 1.3)]
        got = phases.phases(10.0, 11.0, 21.0, 23.5, marks)
        self.assertEqual([(p["name"], p["seconds"], p["cpu"], p["wait"])
                          for p in got],
                         [("setup", 1.0, None, None),
                          ("boot", 1.0, 2.0, 1.0),
                          ("start", 0.5, 0.2, 0.0),
                          ("broken", 1.5, 0.7, 0.2),
                          ("scan", 6.0, 0.1, 0.1),
                          ("poweroff", 1.0, None, None),
                          ("judging", 2.5, None, None)])
        self.assertAlmostEqual(sum(p["seconds"] for p in got), 13.5)

    def test_own_guests_are_not_judging(self):
        # a check with a guest of its own (broken) runs after the main
        # guest is judged: its boot and run are its phase, not judging's
        marks = [("boot", 12.0, 2.0, 1.0), ("scan", 20.0, 3.0, 1.3)]
        got = phases.phases(10.0, 11.0, 21.0, 33.5, marks, judged_at=22.0)
        self.assertEqual([(p["name"], p["seconds"]) for p in got[-3:]],
                         [("poweroff", 1.0), ("judging", 1.0),
                          ("own guests", 11.5)])
        tmp = pathlib.Path(tempfile.mkdtemp())
        try:
            clock = phases.Clock(tmp)
            clock.begin()
            clock.before_boot()
            clock.main_judged()
            first = clock.judged_at
            clock.main_judged()
            self.assertEqual(clock.judged_at, first)
            names = [p["name"] for p in clock.finish(1.0)["phases"]]
            self.assertEqual(names[-2:], ["judging", "own guests"])
        finally:
            shutil.rmtree(tmp)

    def test_console_lines_that_count(self):
        tmp = pathlib.Path(tempfile.mkdtemp())
        try:
            clock = phases.Clock(tmp)
            clock.begin()
            clock.before_boot()
            for line in ("Linux version", "KTAP version 1", "1..3",
                         "# release: 6.1", "ok 1 boot", "# load_ms: 5",
                         "not ok 2 insmod ndiswrapper", "ok 3 bind wlan0",
                         "ok 4 associate # SKIP", DONE_LINE):
                self.assertIsNone(clock.on_line(line))
            self.assertEqual([m[0] for m in clock.marks],
                             ["boot", "start", "module load", "bind",
                              "associate", "done"])
            # no pidfile: no QEMU times, the phases still count
            self.assertEqual({m[2] for m in clock.marks}, {None})
            data = clock.finish(3.0)
            self.assertEqual(json.loads((tmp / phases.FILE).read_text()),
                             data)
            self.assertEqual([p["name"] for p in data["phases"]],
                             ["setup", "boot", "start", "module load",
                              "bind", "associate", "poweroff", "judging"])
            (tmp / phases.FILE).unlink()
            self.assertIsNone(phases.Clock(tmp).finish(None))
            self.assertFalse((tmp / phases.FILE).exists())
        finally:
            shutil.rmtree(tmp)

    def test_qemu_times_of_a_real_process(self):
        tmp = pathlib.Path(tempfile.mkdtemp())
        spun = tmp / "spun"
        # a child that burns 0.5 s of CPU (whatever the host's load),
        # says so, then sleeps
        proc = subprocess.Popen([sys.executable, "-c",
                                 "import time, pathlib\n"
                                 "while time.process_time() < 0.5: pass\n"
                                 f"pathlib.Path({str(spun)!r}).touch()\n"
                                 "time.sleep(30)"])
        try:
            (tmp / phases.PIDFILE).write_text(f"{proc.pid}\n")
            clock = phases.Clock(tmp)
            deadline = time.monotonic() + 60
            while not spun.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            clock.on_line("KTAP version 1")
            cpu, wait = clock.marks[0][2], clock.marks[0][3]
            self.assertGreaterEqual(cpu, 0.45)
            self.assertLess(cpu, 5.0)
            self.assertIsNotNone(wait)
            clock.before_boot()
            clock.finish(1.0)
            self.assertFalse((tmp / phases.PIDFILE).exists())
        finally:
            proc.kill()
            proc.wait()
            shutil.rmtree(tmp)
        self.assertEqual(phases.qemu_times(2 ** 22 + 7), (None, None))


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def cell(self, name, rows):
        folder = f"cells/{name}"
        (self.tmp / folder).mkdir(parents=True)
        if rows is not None:
            (self.tmp / folder / phases.FILE).write_text(json.dumps(
                {"phases": [phases._phase(*r) for r in rows]}))
        return report.CellResult("k", "p", name, folder)

    def test_adds_up_shares_and_idle(self):
        cells = [self.cell("a", [("setup", 1.0), ("boot", 3.0, 2.0, 0.5),
                                 ("roam", 10.0, 0.5, 0.5),
                                 ("judging", 2.0)]),
                 self.cell("b", [("setup", 1.0), ("boot", 3.0, 2.5, 0.5)]),
                 self.cell("never-booted", None)]
        s = phases.summary(self.tmp, cells)
        self.assertEqual(s["cells"], 2)
        self.assertEqual(s["seconds"], 20.0)
        rows = {r["phase"]: r for r in s["rows"]}
        self.assertEqual([r["phase"] for r in s["rows"]],
                         ["roam", "boot", "setup", "judging"])
        self.assertEqual(rows["roam"]["share"], 0.5)
        self.assertEqual(rows["roam"]["idle"], 9.0)
        self.assertEqual(rows["boot"]["idle"], 0.5)   # 6 - 4.5 - 1
        self.assertIsNone(rows["setup"]["idle"])
        self.assertEqual(s["idle_share"], 0.475)     # (9 + 0.5) / 20
        text = "\n".join(phases.markdown(s))
        self.assertIn("| roam | 10.00 | 50.0% | 0.50 | 0.50 | 9.00 |", text)
        self.assertIn("idle (guest halted", text)

    def test_bench_report_carries_them(self):
        cells = [self.cell("a", [("setup", 1.0), ("roam", 3.0, 1.0, 0.0)])]
        res = BenchResult("bench-x", "src-6.1", 1, matrix_wall_s=60.0,
                          matrix_phases=phases.summary(self.tmp, cells))
        self.assertTrue(any("roam 75%" in n and "idle" in n
                            for n in notes(res)))
        self.assertIn("| roam | 3.00 | 75.0% |", bench.markdown(res))
        empty = BenchResult("bench-y", "src-6.1", 1)
        self.assertNotIn("| phase |", bench.markdown(empty))
        self.assertEqual(phases.markdown(phases.summary(self.tmp, [])), [])


if __name__ == "__main__":
    unittest.main()
