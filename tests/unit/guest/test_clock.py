"""The guest clock (guest/clock.py): icount where it keeps the checks'
meaning, real time where it cannot; how a run records it, how merge and
the command line treat it."""
import json
import pathlib
import shutil
import tempfile
import types
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import devices, kernels
from ndisbench_lib import cell
from ndisbench_lib.cell import runner
from ndisbench_lib.commands import bench, cli
from ndisbench_lib.errors import BenchError
from ndisbench_lib.guest import clock
from ndisbench_lib.report import kcidb, merge, report
from ndisbench_lib.report.verdict import PASS, Verdict

EXP = kernels.load_expectations()
KERNELS = {k.name: k for k in kernels.load_kernels(exp=EXP)}
WITH_PORT = {"CONFIG_DEVPORT": "y"}


class QemuArgsTest(unittest.TestCase):
    def test_icount_skips_idle_time_and_keeps_the_rtc_on_the_host(self):
        args = clock.qemu_args(clock.ICOUNT)
        self.assertEqual(args[args.index("-icount") + 1],
                         "shift=auto,align=off,sleep=off")
        self.assertIn("clock=host", args[args.index("-rtc") + 1])

    def test_realtime_has_no_icount(self):
        args = clock.qemu_args(clock.REALTIME)
        self.assertNotIn("-icount", args)
        self.assertIn("clock=host", args[args.index("-rtc") + 1])

    def test_names(self):
        self.assertEqual(clock.parse_list("realtime,icount"),
                         ("realtime", "icount"))
        for bad in ("", "wall", "icount,icount"):
            with self.assertRaises(BenchError) as ctx:
                clock.parse_list(bad)
            self.assertNotIn("\n", str(ctx.exception))


class PerRowTest(unittest.TestCase):
    """Which cells may run on icount: each row type."""

    def test_plain_tcg_cell_with_the_host_clock_runs_icount(self):
        for name in ("src-6.1", "debian-6.1", "policy-2.6.25-rc1"):
            self.assertEqual(clock.for_cell(
                clock.ICOUNT, "tcg", KERNELS[name].slowdown, WITH_PORT),
                clock.ICOUNT, name)

    def test_kvm_is_realtime(self):
        self.assertEqual(clock.for_cell(clock.ICOUNT, "kvm", 1, WITH_PORT),
                         clock.REALTIME)
        self.assertIn("KVM", clock.why_realtime("kvm", 1, WITH_PORT))

    def test_slow_debug_kernel_is_realtime(self):
        debug = KERNELS["debug-6.1"]
        self.assertGreater(debug.slowdown, 1)
        self.assertEqual(clock.for_cell(clock.ICOUNT, "tcg", debug.slowdown,
                                        WITH_PORT), clock.REALTIME)

    def test_kernel_without_dev_port_is_realtime(self):
        self.assertEqual(clock.for_cell(clock.ICOUNT, "tcg", 1, {}),
                         clock.REALTIME)
        self.assertIn("CONFIG_DEVPORT", clock.why_realtime("tcg", 1, {}))

    def test_realtime_asked_is_realtime(self):
        self.assertEqual(clock.for_cell(clock.REALTIME, "tcg", 1, WITH_PORT),
                         clock.REALTIME)

    def test_the_source_kernels_have_dev_port(self):
        # guest.config gives the tinyconfig kernels /dev/port; without it
        # every source kernel would silently fall back to real time.
        text = (helpers.REPO / "guest" / "config" / "guest.config"
                ).read_text()
        self.assertIn("CONFIG_DEVPORT=y", text.split())

    def plan(self, **kw):
        dev = devices.DEVICES["none"]
        return cell.plan.CellPlan(KERNELS["src-6.1"], dev, ("load",), EXP,
                                  **kw)

    def command(self, plan):
        prep = types.SimpleNamespace(art=types.SimpleNamespace(
            boot_image=pathlib.Path("/k")))
        parts = types.SimpleNamespace(qemu=pathlib.Path("/our/qemu"),
                                      qemu_error=None)
        return cell.compose.guest_command(plan, prep, parts,
                                          pathlib.Path("/i"),
                                          "console=ttyS0")

    def test_a_plan_is_realtime_unless_asked(self):
        # pair, soak and the KVM probe build their plans with the default
        self.assertEqual(self.plan().clock, clock.REALTIME)
        self.assertNotIn("-icount", self.command(self.plan()))
        cmd = self.command(self.plan(clock=clock.ICOUNT))
        self.assertEqual(cmd[cmd.index("-icount") + 1],
                         clock.ICOUNT_OPTION)


def fake_run(matrix, out, clock_name, configs=None):
    """runner.run with builds and guests replaced; the plans it made."""
    plans = []

    def prepare(kernel, *a, **kw):
        config = (configs or {}).get(kernel.name, WITH_PORT)
        return cell.plan.Prepared(kernel, art=types.SimpleNamespace(
            config=lambda: config))

    def run_cell(prep, plan, *a, **kw):
        plans.append(plan)
        plan.folder.mkdir(parents=True)
        res = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                                plan.device.name,
                                str(plan.folder.relative_to(plan.run_dir)),
                                wrapper=plan.device.wrapper,
                                boot_seconds=1.0, clock=plan.clock)
        res.verdicts = {c: Verdict(PASS, "ok") for c in plan.checks}
        return res

    with mock.patch.object(runner, "prepare", prepare), \
            mock.patch.object(runner, "fetch_ahead",
                              lambda *a, **kw: None), \
            mock.patch.object(runner, "run_cell", run_cell), \
            mock.patch.object(runner, "host_parts", lambda *a, **kw: None), \
            mock.patch.object(runner, "resolve_accel",
                              lambda *a, **kw: "tcg"), \
            mock.patch.object(runner, "say", lambda *a: None):
        return runner.run(matrix, None, out, 2, 10, "auto",
                          clock=clock_name), plans


class RunRecordsTheClockTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def matrix(self, names, shard_spec=None):
        from ndisbench_lib.cell import shard
        sh = None
        if shard_spec:
            sh = shard.Shard(*shard.parse_spec(shard_spec), {})
        return runner.Matrix([KERNELS[n] for n in names],
                             devices.select(["none"], None), ["load"], EXP,
                             shard=sh)

    def test_each_cell_gets_its_clock_and_the_run_records_both(self):
        res, plans = fake_run(self.matrix(["src-6.1", "debug-6.1",
                                           "debian-6.1"]),
                              self.tmp, clock.ICOUNT,
                              {"debian-6.1": {}})
        by_kernel = {p.kernel.name: p.clock for p in plans}
        self.assertEqual(by_kernel, {"src-6.1": "icount",
                                     "debug-6.1": "realtime",
                                     "debian-6.1": "realtime"})
        self.assertEqual(res.clock, "icount")
        again = report.load(self.tmp / res.run_id)
        self.assertEqual(again.clock, "icount")
        self.assertEqual({c.kernel: c.clock for c in again.cells},
                         by_kernel)
        summary = (self.tmp / res.run_id / "summary.md").read_text()
        self.assertIn("clock icount", summary)
        self.assertIn("debug-6.1: slow debug kernel", summary)

    def test_realtime_run(self):
        res, plans = fake_run(self.matrix(["src-6.1"]), self.tmp,
                              clock.REALTIME)
        self.assertEqual([p.clock for p in plans], ["realtime"])
        self.assertEqual(res.clock, "realtime")

    def test_kcidb_names_the_clock(self):
        res, _ = fake_run(self.matrix(["src-6.1"]), self.tmp, clock.ICOUNT)
        data = kcidb.export(res, "ndisbench", "")
        env = data["tests"][0]["environment"]
        self.assertEqual(env["misc"]["clock"], "icount")
        self.assertIn("icount", env["comment"])

    def test_merge_refuses_shards_of_different_clocks(self):
        dirs = []
        for i, name in ((1, clock.ICOUNT), (2, clock.REALTIME)):
            res, _ = fake_run(self.matrix(["src-6.1", "debian-6.1"],
                                          f"{i}/2"),
                              self.tmp / str(i), name)
            dirs.append(self.tmp / str(i) / res.run_id)
        with self.assertRaises(BenchError) as ctx:
            merge.merge(dirs, self.tmp / "merged")
        msg = str(ctx.exception)
        self.assertNotIn("\n", msg)
        self.assertIn("different clocks", msg)
        self.assertIn("icount", msg)
        self.assertIn("realtime", msg)
        self.assertFalse((self.tmp / "merged").exists())

    def test_merge_keeps_a_common_clock(self):
        dirs = []
        for i in (1, 2):
            res, _ = fake_run(self.matrix(["src-6.1", "debian-6.1"],
                                          f"{i}/2"),
                              self.tmp / str(i), clock.ICOUNT)
            dirs.append(self.tmp / str(i) / res.run_id)
        _, merged = merge.merge(dirs, self.tmp / "merged")
        self.assertEqual(merged.clock, "icount")

    def test_a_run_from_before_the_clock_reads_as_realtime(self):
        res, _ = fake_run(self.matrix(["src-6.1"]), self.tmp,
                          clock.REALTIME)
        path = self.tmp / res.run_id / "results.json"
        raw = json.loads(path.read_text())
        raw.pop("clock")
        for c in raw["cells"]:
            c.pop("clock")
        path.write_text(json.dumps(raw))
        self.assertEqual(report.load(self.tmp / res.run_id).clock, "")


class CommandLineTest(unittest.TestCase):
    def parse(self, *argv):
        return cli.parser().parse_args(list(argv))

    def test_run_and_test_default_to_icount(self):
        for cmd in ("run", "test"):
            self.assertEqual(self.parse(cmd).clock, "icount")
            self.assertEqual(self.parse(cmd, "--clock", "realtime").clock,
                             "realtime")

    def test_unknown_clock_is_refused(self):
        with self.assertRaises(SystemExit), \
                mock.patch("sys.stderr"):
            self.parse("run", "--clock", "wall")

    def test_bench_clocks(self):
        args = self.parse("bench", "--matrix", "--clocks",
                          "realtime,icount", "--matrix-kernel", "src-6.1")
        self.assertEqual(args.clocks, "realtime,icount")
        self.assertEqual(args.matrix_kernel, ["src-6.1"])
        self.assertEqual(self.parse("bench").clocks, clock.DEFAULT)

    def test_bench_matrix_once_per_clock(self):
        calls = []

        def run(matrix, cache, out, jobs, timeout, accel, clock=None):
            calls.append((clock, jobs))
            cells = [report.CellResult("src-6.1", "p", d, f"c/{d}",
                                       start=how)
                     for d, how in (("none", "restored"),
                                    ("e1000", "restored"),
                                    ("bcm43xx", "saved"))]
            return report.RunResult(f"run-{clock}", accel="tcg",
                                    clock=clock, cells=cells)

        res = bench.BenchResult("b", "src-6.1", 1)
        default = runner.Matrix([KERNELS["src-6.1"]],
                                devices.select(["none"], None), ["load"],
                                EXP)
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(bench.runner, "run", run), \
                mock.patch.object(bench, "say", lambda *a: None):
            bench.time_matrix(default, None, pathlib.Path(tmp), 120, "tcg",
                              ("realtime", "icount"), 1, res)
        self.assertEqual(calls, [("realtime", 1), ("icount", 1)])
        self.assertEqual(list(res.matrix_clocks), ["realtime", "icount"])
        self.assertEqual(res.matrix_clocks["icount"]["run"], "run-icount")
        self.assertIn("wall_s", res.matrix_clocks["realtime"])
        self.assertEqual(res.matrix_clocks["icount"]["starts"],
                         {"restored": 2, "saved": 1})
        self.assertIn("Guests: 2 restored, 1 saved", bench.markdown(res))
        text = "\n".join(bench.notes(res))
        self.assertIn("realtime", text)
        self.assertIn("icount", text)


if __name__ == "__main__":
    unittest.main()
