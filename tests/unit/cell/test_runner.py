"""Guest supervision and cell judging: hangs become TIMEOUT with the log
kept, kernel oopses fail the cell, a patch that does not apply is one line."""
import errno
import pathlib
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

from helpers import MODULE_CHECKS, REPO, agent_log, roles_of
from ndisbench_lib import devices, kernels, proc
from ndisbench_lib.guest import machine as guest
from ndisbench_lib.build import kbuild
from ndisbench_lib.checks import registry
from ndisbench_lib.report import report
from ndisbench_lib.report.verdict import PASS, Verdict
from ndisbench_lib import cell
from ndisbench_lib.cell import runner
from ndisbench_lib.errors import BenchError

EXP = kernels.load_expectations()
ROLES = roles_of(MODULE_CHECKS)


def fake_guest(script: str):
    """A stand-in for QEMU: a Python child that prints, then may hang."""
    return [sys.executable, "-c", script]


class BootTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_hanging_guest_is_killed_and_its_log_kept(self):
        log = self.tmp / "serial.log"
        res = guest.boot(fake_guest(
            "import time; print('KTAP version 1', flush=True); "
            "time.sleep(60)"), log, timeout=1.5)
        self.assertEqual(res.status, "timeout")
        self.assertLess(res.seconds, 20)
        text = log.read_text()
        self.assertIn("KTAP version 1", text)
        self.assertIn("killed after", text)
        self.assertIsNotNone(res.first_ktap_secs)

    def test_guest_that_does_not_power_off_is_stopped_after_done(self):
        res = guest.boot(fake_guest(
            "import time; print('# ndisbench-agent: done', flush=True); "
            "time.sleep(60)"), self.tmp / "s.log", timeout=60, grace=0.5)
        self.assertEqual(res.status, "done")
        self.assertLess(res.seconds, 30)

    def test_console_flood_kills_the_guest(self):
        log = self.tmp / "serial.log"
        res = guest.boot(fake_guest(
            "import sys\nwhile True: sys.stdout.write('x' * 999 + '\\n')"),
            log, timeout=60, console_bytes=200_000)
        self.assertEqual(res.status, "flood")
        self.assertLessEqual(len(res.serial), 200_000)
        self.assertLess(log.stat().st_size, 201_000 + 500)
        self.assertTrue(log.read_text().endswith(
            "# ndisbench: console flood: more than 0.2 MiB, guest killed\n"))

    def test_one_endless_line_is_a_flood_too(self):
        res = guest.boot(fake_guest(
            "import sys\nwhile True: sys.stdout.write('y' * 4096)"),
            self.tmp / "s.log", timeout=60, console_bytes=300_000)
        self.assertEqual(res.status, "flood")
        self.assertLessEqual(len(res.serial), 300_000)

    def test_console_budget_from_the_environment(self):
        with mock.patch.dict("os.environ", {"NDISBENCH_CONSOLE_MB": "64"}):
            self.assertEqual(guest.console_budget(), 64 << 20)
        with mock.patch.dict("os.environ", {"NDISBENCH_CONSOLE_MB": ""}):
            self.assertEqual(guest.console_budget(), 16 << 20)
        with mock.patch.dict("os.environ", {"NDISBENCH_CONSOLE_MB": "x"}):
            with self.assertRaisesRegex(BenchError,
                                        "^NDISBENCH_CONSOLE_MB=x: not a "):
                guest.console_budget()

    def test_clean_exit(self):
        res = guest.boot(fake_guest("print('hello')"), self.tmp / "s.log",
                         timeout=30)
        self.assertEqual(res.status, "exited")
        self.assertEqual(res.exit_code, 0)


def prepared(policy="2.6.25-rc4", base=12288):
    kernel = kernels.Kernel("k", "debian", EXP.policies[policy])
    return cell.plan.Prepared(kernel, base_bits=base)


def plan(device, check_names, slowdown=1, folder=None):
    """A cell plan of a kernel 'k' (only what the pipeline reads here)."""
    kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"],
                            slowdown=slowdown)
    return cell.plan.CellPlan(kernel, device, tuple(check_names), EXP, folder)


def cmdline(device, check_names, ports=None, slowdown=1):
    return cell.compose.kernel_cmdline(plan(device, check_names, slowdown),
                                       ports)


FIXED = [
    {"module": "ndisbench_control", "before": 0, "errno": 0,
     "after": 12288, "taint": "OE"},
    {"module": "ndiswrapper", "before": 12288, "errno": 0, "after": 12289,
     "taint": "OE", "kmsg": ["ndiswrapper: module license taints kernel."]},
    {"module": "driverloader", "before": 12289, "errno": 2, "after": 12289,
     "taint": "-", "kmsg": [f"driverloader: Unknown symbol {s} (err -2)"
                            for s in EXP.gpl_only_imports]},
]


class JudgeCellTest(unittest.TestCase):
    def judge(self, serial, status="done"):
        boot = guest.BootResult(status, 0, 3.0, 1.0, serial)
        return cell.judge.judge_cell(plan(devices.DEVICES["none"],
                                          MODULE_CHECKS,
                                          folder=pathlib.Path("/x")),
                                     prepared(), boot)

    def test_good_serial_log(self):
        verdicts = self.judge(agent_log(FIXED))
        self.assertTrue(all(v.ok for v in verdicts.values()), verdicts)

    def test_timeout_marks_every_check(self):
        verdicts = self.judge(agent_log(FIXED)[:200], status="timeout")
        self.assertEqual({v.status for v in verdicts.values()}, {"TIMEOUT"})
        self.assertIn("/x/serial.log", verdicts["load"].summary)

    def test_console_flood_is_an_error_of_every_check(self):
        verdicts = self.judge(agent_log(FIXED)[:200], status="flood")
        self.assertEqual({v.status for v in verdicts.values()}, {"ERROR"})
        self.assertEqual(verdicts["load"].summary,
                         "console flood: more than 16.0 MiB, guest "
                         "killed (log: /x/serial.log)")

    def test_oops_fails_the_cell(self):
        serial = agent_log(FIXED).replace(
            "ok 5 unload", "[  2.1] BUG: kernel NULL pointer dereference\r\n"
            "ok 5 unload")
        verdicts = self.judge(serial)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertIn("NULL pointer", verdicts["load"].summary)

    def test_agent_that_stops_early_is_an_error(self):
        verdicts = self.judge(agent_log(FIXED, done=False), status="exited")
        self.assertEqual(verdicts["control"].status, "ERROR")


class RunPlanErrorTest(unittest.TestCase):
    """A kernel that could not be built: every check of its cells is one
    ERROR line, the build step's own (errors.BuildError), nothing boots."""

    def test_build_error_is_each_checks_error(self):
        from ndisbench_lib.errors import BuildError
        error = BuildError("build ndiswrapper.ko", pathlib.Path("/x/b.log"),
                           2, ["driver/proc.c:365:37: error: bad"])
        prep = cell.plan.Prepared(prepared().kernel, error=error)
        with tempfile.TemporaryDirectory() as tmp:
            run = pathlib.Path(tmp)
            done = cell.run.run_plan(cell.plan.CellPlan(
                prep.kernel, devices.DEVICES["none"], MODULE_CHECKS, EXP,
                run / "cells" / "k__none", run), prep, None)
        self.assertIsNone(done.boot)
        self.assertEqual({v.status for v in done.result.verdicts.values()},
                         {"ERROR"})
        self.assertEqual(done.result.verdicts["load"].summary, str(error))
        self.assertIn("proc.c:365:37", str(error))


class PatchErrorTest(unittest.TestCase):
    def test_patch_that_does_not_apply_is_one_line_naming_the_kernel(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp)
            (src / "kernel" / "module").mkdir(parents=True)
            (src / "kernel" / "module" / "main.c").write_text("int x;\n")
            tree = kbuild.SourceTree.__new__(kbuild.SourceTree)
            tree.who, tree.src = "kernel 'k'", src
            tree.package, tree.version = "linux-source-6.1", "6.1.192-3"
            bad = REPO / "tests/unit/data/does-not-apply.patch"
            with self.assertRaises(BenchError) as ctx:
                tree.patch(bad)
            msg = str(ctx.exception)
            self.assertNotIn("\n", msg)
            self.assertIn("kernel 'k': patch does-not-apply.patch does not "
                          "apply to linux-source-6.1 6.1.192-3", msg)
            self.assertEqual((src / "kernel/module/main.c").read_text(),
                             "int x;\n")


class StreamingRunTest(unittest.TestCase):
    """run(): a kernel's cells boot while the next kernel builds, the build
    takes one of the -j slots, cheap kernels are built first."""

    def kernels(self):
        ks = {k.name: k for k in kernels.load_kernels()}
        return [ks["debug-6.1"], ks["src-6.1"], ks["debian-6.1"]]

    def test_build_order_cheap_first_debug_last(self):
        self.assertEqual([k.name for k in runner.build_order(self.kernels())],
                         ["debian-6.1", "src-6.1", "debug-6.1"])

    def test_cells_stream_and_share_the_slots(self):
        events = []
        lock = threading.Lock()
        busy = [0, 0]          # now, most at once

        def enter(what):
            with lock:
                busy[0] += 1
                busy[1] = max(busy[1], busy[0])
                events.append(("start", what))

        def leave(what):
            with lock:
                busy[0] -= 1
                events.append(("end", what))

        def prepare(kernel, *args, **kw):
            enter("build " + kernel.name)
            time.sleep(0.3)
            leave("build " + kernel.name)
            return cell.plan.Prepared(kernel)

        def run_cell(prep, plan, *args, **kw):
            enter(f"cell {prep.kernel.name}")
            time.sleep(0.1)
            leave(f"cell {prep.kernel.name}")
            device = plan.device
            result = report.CellResult(prep.kernel.name,
                                       prep.kernel.policy.name,
                                       device.name, "x",
                                       wrapper=device.wrapper)
            result.verdicts = {"load": Verdict(PASS, "ok")}
            return result

        ks = self.kernels()
        matrix = runner.Matrix(ks, devices.select(["none", "bcm43xx"]),
                               ["load"], EXP)
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(runner, "prepare", prepare), \
                mock.patch.object(runner, "fetch_ahead",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "run_cell", run_cell), \
                mock.patch.object(runner, "host_parts",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "resolve_accel",
                                  lambda *a, **kw: "tcg"), \
                mock.patch.object(runner.report, "write",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "say", lambda *a: None):
            result = runner.run(matrix, None, pathlib.Path(tmp), 2, 10,
                                "auto")
        # debian-6.1's cells ran while src-6.1 was building.
        first_cell = events.index(("start", "cell debian-6.1"))
        self.assertLess(first_cell, events.index(("end", "build src-6.1")))
        self.assertLessEqual(busy[1], 2)   # -j2: build + cell, never more
        self.assertEqual(result.accel, "tcg")
        # The report keeps the matrix order, not the order of completion.
        self.assertEqual([(c.kernel, c.device) for c in result.cells],
                         [(k.name, d) for k in ks
                          for d in ("none", "bcm43xx")])


def fake_cell(prep, plan, *args, **kw):
    """A finished cell of the plan: its sandbox check passes."""
    device = plan.device
    result = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                               device.name, "x", wrapper=device.wrapper)
    result.verdicts = {"sandbox": Verdict(PASS, "ok")}
    return result


class RunRecordTest(unittest.TestCase):
    """A run is never lost: results.json is rewritten after every cell,
    and an interrupt writes the cells that finished, marked."""

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        ks = {k.name: k for k in kernels.load_kernels()}
        self.kernel = ks["src-6.1"]
        self.devices = devices.select(["none", "e1000", "bcm43xx"])
        self.matrix = runner.Matrix([self.kernel], self.devices,
                                    ["sandbox"], EXP)
        # Python leaves SIGINT ignored when it started so (a job a
        # non-interactive shell put in the background, as CI may): this
        # test's Ctrl-C must still reach it.
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, old)

    def tearDown(self):
        proc.reopen()
        shutil.rmtree(self.tmp)

    def run_with(self, run_cell):
        with mock.patch.object(runner, "prepare",
                               lambda k, *a, **kw: cell.plan.Prepared(k)), \
                mock.patch.object(runner, "fetch_ahead",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "run_cell", run_cell), \
                mock.patch.object(runner, "host_parts",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "resolve_accel",
                                  lambda *a, **kw: "tcg"), \
                mock.patch.object(runner, "say", lambda *a: None):
            return runner.run(self.matrix, None, self.tmp, 1, 10, "auto")

    def run_dir(self):
        (run_dir,) = [d for d in self.tmp.iterdir() if d.is_dir()]
        return run_dir

    def test_results_json_after_every_cell(self):
        seen = []

        def run_cell(prep, plan, *args, **kw):
            on_disk = report.load(self.run_dir()) if \
                (self.run_dir() / "results.json").exists() else None
            seen.append(on_disk)
            return fake_cell(prep, plan)

        result = self.run_with(run_cell)
        self.assertEqual(len(result.cells), 3)
        self.assertEqual([len(r.cells) if r else None for r in seen],
                         [None, 1, 2])
        self.assertEqual([r.state for r in seen[1:]], ["running"] * 2)
        # not yet run, in matrix order
        self.assertEqual(seen[1].not_run, ["src-6.1 / e1000",
                                           "src-6.1 / bcm43xx/ndiswrapper"])
        final = report.load(self.run_dir())
        self.assertEqual((final.state, final.not_run), ("", []))
        self.assertTrue(final.ok)

    def test_a_brought_check_is_a_column_and_runs_where_it_was_brought(self):
        """run --check recover: tcp is recover's stream, so a column of the
        run, and in the recover cell only."""
        planned = {}

        def run_cell(prep, plan, *args, **kw):
            planned[plan.device.label] = list(plan.checks)
            return fake_cell(prep, plan)

        self.devices = [devices.DEVICES["bcm43xx/ndiswrapper"],
                        devices.DEVICES["bcm43xx-hang/ndiswrapper"]]
        self.matrix = runner.Matrix([self.kernel], self.devices,
                                    registry.select(["recover"]), EXP)
        result = self.run_with(run_cell)
        self.assertEqual(result.checks, ["tcp", "recover"])
        self.assertEqual(planned, {"bcm43xx-hang/ndiswrapper":
                                   ["tcp", "recover"]})

    def test_ctrl_c_writes_the_finished_cells_marked_interrupted(self):
        calls = []

        def run_cell(prep, plan, *args, **kw):
            calls.append(plan.device.name)
            if len(calls) == 2:
                # Ctrl-C while this guest runs; its QEMU is killed
                signal.pthread_kill(threading.main_thread().ident,
                                    signal.SIGINT)
                end = time.monotonic() + 20
                while not proc.cancelled() and time.monotonic() < end:
                    time.sleep(0.05)
            return fake_cell(prep, plan)

        with self.assertRaises(KeyboardInterrupt):
            self.run_with(run_cell)
        self.assertEqual(calls, ["none", "e1000"])   # the third never ran
        self.assertTrue(proc.cancelled())
        run_dir = self.run_dir()
        done = report.load(run_dir)
        self.assertEqual(done.state, "interrupted")
        self.assertEqual(done.interrupted, "SIGINT")
        self.assertEqual([c.device for c in done.cells], ["none"])
        self.assertEqual(done.not_run, ["src-6.1 / e1000",
                                        "src-6.1 / bcm43xx/ndiswrapper"])
        self.assertFalse(done.ok)
        summary = (run_dir / "summary.md").read_text()
        self.assertIn("Interrupted (SIGINT) after 1 of 3 cells; not run: "
                      "src-6.1 / e1000, src-6.1 / bcm43xx/ndiswrapper.",
                      summary)
        self.assertIn("Interrupted (SIGINT)", (run_dir /
                                               "matrix.txt").read_text())
        junit = (run_dir / "junit.xml").read_text()
        self.assertIn('name="interrupted"', junit)
        self.assertIn("Interrupted (SIGINT) after 1 of 3 cells",
                      (run_dir / "report.html").read_text())

    def test_a_host_error_in_a_cell_is_that_cells_error(self):
        def run_cell(prep, plan, *args, **kw):
            if plan.device.name == "e1000":
                raise OSError(errno.ENOSPC, "No space left on device",
                              "/cache/snapshots/x")
            return fake_cell(prep, plan)

        # through runner.run_cell's own guard: run_plan is what fails
        def run_plan(plan, prep, parts, **kw):
            return cell.run.CellRun(run_cell(prep, plan))

        with mock.patch.object(runner, "run_plan", run_plan):
            result = self.run_with(runner.run_cell)
        self.assertEqual(len(result.cells), 3)
        verdict = result.cells[1].verdicts["sandbox"]
        self.assertEqual((verdict.status, verdict.summary),
                         ("ERROR", "host: No space left on device "
                                   "(/cache/snapshots/x)"))
        self.assertTrue(result.cells[2].verdicts["sandbox"].ok)

    def test_a_host_error_preparing_a_kernel_is_its_cells_error(self):
        def prepare(kernel, *args, **kw):
            raise OSError(errno.EIO, "Input/output error")

        with mock.patch.object(runner, "prepare", prepare), \
                mock.patch.object(runner, "fetch_ahead",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "host_parts",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "say", lambda *a: None):
            result = runner.run(self.matrix, None, self.tmp, 1, 10, "tcg")
        self.assertEqual({c.verdicts["sandbox"].summary for c in result.cells},
                         {"host: Input/output error"})

    def test_a_crash_writes_the_finished_cells_and_goes_on_up(self):
        def run_cell(prep, plan, *args, **kw):
            if plan.device.name == "e1000":
                raise RuntimeError("a bug")
            return fake_cell(prep, plan)

        with self.assertRaisesRegex(RuntimeError, "a bug"):
            self.run_with(run_cell)
        done = report.load(self.run_dir())
        self.assertEqual(done.state, "interrupted")
        self.assertEqual(done.interrupted, "bench crashed: RuntimeError: "
                                           "a bug")
        self.assertEqual([c.device for c in done.cells], ["none"])


class AtomicWriteTest(unittest.TestCase):
    def test_a_failed_write_keeps_the_old_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = pathlib.Path(tmp)
            old = report.RunResult("r1", checks=["load"])
            report.write(run_dir, old)
            before = (run_dir / "results.json").read_text()
            with mock.patch.object(report.os, "fsync",
                                   side_effect=OSError(errno.EIO, "EIO")):
                with self.assertRaises(OSError):
                    report.write_record(run_dir, report.RunResult(
                        "r1", checks=["load", "dhcp"]))
            self.assertEqual((run_dir / "results.json").read_text(), before)
            self.assertEqual(sorted(p.name for p in run_dir.iterdir()),
                             ["junit.xml", "matrix.txt", "report.html",
                              "results.json", "summary.md"])


if __name__ == "__main__":
    unittest.main()


class TcpSinkTest(unittest.TestCase):
    def test_counts_and_answers(self):
        import socket
        from ndisbench_lib.guest.sink import TcpSink
        sink = TcpSink()
        with socket.create_connection(("127.0.0.1", sink.port), 10) as conn:
            conn.sendall(b"x" * 100000)
            conn.shutdown(socket.SHUT_WR)
            reply = conn.makefile().readline().strip()
        self.assertEqual(reply, "received=100000")
        self.assertEqual(sink.close(), 100000)

    def test_nobody_connects(self):
        from ndisbench_lib.guest.sink import TcpSink
        sink = TcpSink()
        self.assertIsNone(sink.close())
        # close() ends the accept at once: a guest refused before its tcp
        # check (the 2.6.25-rc1 policy) left the thread blocked and every
        # such cell waited out the 5 s join
        self.assertFalse(sink.thread.is_alive())


class CmdlineTest(unittest.TestCase):
    def test_net_options_only_for_net_checks(self):
        from ndisbench_lib import devices
        line = cmdline(devices.DEVICES["e1000"], ["dhcp", "ping", "tcp"],
                       {"tcp": 4242})
        self.assertIn("ndisbench.net=eth0", line)
        self.assertIn("ndisbench.ping=100", line)
        self.assertIn("ndisbench.tcp=4242:4194304", line)
        self.assertNotIn("ndisbench.load", line)
        line = cmdline(devices.DEVICES["none"], ["load"])
        self.assertIn("ndisbench.load=ndiswrapper", line)
        self.assertNotIn("ndisbench.net", line)


    def test_wrapped_nic_named_by_its_mac(self):
        # a wrapper names the interface its own way (1.63: wlan%d for
        # every medium): the agent finds a wrapped NIC by QEMU's mac=
        from ndisbench_lib import devices
        dev = devices.DEVICES["rtl8139/ndiswrapper"]
        self.assertEqual(dev.mac, "52:54:00:12:34:59")
        line = cmdline(dev, ["dhcp"])
        self.assertIn("ndisbench.net=eth0", line)
        self.assertIn("ndisbench.mac=52:54:00:12:34:59", line)
        line = cmdline(devices.DEVICES["e1000"], ["dhcp"])
        self.assertNotIn("ndisbench.mac", line)
        self.assertEqual(devices.DEVICES["none"].mac, "")

class WrappedCellTest(unittest.TestCase):
    """Selecting one check of a wrapped device brings what it stands on."""

    def test_dhcp_alone_installs_and_loads_the_wrapper(self):
        from ndisbench_lib import devices
        dev = devices.DEVICES["bcm43xx/ndiswrapper"]
        roles = runner.cell_roles(dev, ["dhcp"])
        self.assertEqual(roles, ["ndiswrapper"])
        line = cmdline(dev, ["dhcp"])
        self.assertIn("ndisbench.install=/lib/ndisbench/fixtures/bcmwl/"
                      "bcmwl.inf", line)
        self.assertIn("ndisbench.load=ndiswrapper", line)
        self.assertIn("ndisbench.net=wlan0", line)
        self.assertNotIn("ndisbench.broken", line)

    def test_broken_alone_loads_but_installs_nothing_else(self):
        from ndisbench_lib import devices
        dev = devices.DEVICES["bcm43xx/ndiswrapper"]
        line = cmdline(dev, ["broken"])
        self.assertIn("ndisbench.broken=", line)
        self.assertIn("/lib/ndisbench/fixtures/broken/pe32.inf", line)
        self.assertNotIn("ndisbench.install", line)
        self.assertNotIn("ndisbench.net", line)

    def test_plain_devices_need_no_wrapper(self):
        from ndisbench_lib import devices
        self.assertEqual(runner.cell_roles(devices.DEVICES["e1000"],
                                           ["dhcp", "ping"]), [])


class DeviceAxesTest(unittest.TestCase):
    """Device rows and wrapper columns select cells as documented."""

    def test_name_selects_every_wrapper_of_a_device(self):
        from ndisbench_lib import devices
        labels = [d.label for d in devices.select(["rtl8187"])]
        self.assertEqual(labels, ["rtl8187/ndiswrapper", "rtl8187/native"])

    def test_wrapper_narrows_and_keeps_named_plain_devices(self):
        from ndisbench_lib import devices
        labels = [d.label for d in devices.select(None, ["native"])]
        self.assertEqual(labels, ["rtl8187/native", "rtl8139/native"])
        labels = [d.label for d in devices.select(["e1000", "rtl8187"],
                                                  ["native"])]
        self.assertEqual(labels, ["e1000", "rtl8187/native"])

    def test_bad_names_are_one_clear_error(self):
        from ndisbench_lib import devices
        with self.assertRaisesRegex(BenchError, "unknown device.*rtl8188"):
            devices.select(["rtl8188"])
        with self.assertRaisesRegex(BenchError, "unknown wrapper.*ndisulator"):
            devices.select(None, ["ndisulator"])
        with self.assertRaisesRegex(BenchError, "no device is driven"):
            devices.select(["bcm43xx"], ["native"])

    def test_native_cell_connects_with_iw_and_loads_no_wrapper(self):
        from ndisbench_lib import devices
        dev = devices.DEVICES["rtl8187/native"]
        checks_ = runner.cell_checks(dev, registry.names())
        self.assertNotIn("load", checks_)
        roles = runner.cell_roles(dev, checks_)
        self.assertEqual(roles, [])
        line = cmdline(dev, checks_)
        self.assertIn("ndisbench.connect=ndisbench", line)
        self.assertNotIn("ndisbench.install", line)
        self.assertNotIn("ndisbench.load", line)

    def test_cell_folders_name_the_wrapper(self):
        from ndisbench_lib import devices
        run = pathlib.Path("/r")
        self.assertEqual(runner.cell_dir(run, "k", devices.DEVICES["e1000"]),
                         run / "cells" / "k__e1000")
        self.assertEqual(
            runner.cell_dir(run, "k", devices.DEVICES["rtl8187/native"]),
            run / "cells" / "k__rtl8187__native")


class DebugKernelReportTest(unittest.TestCase):
    """The debug kernel's checkers fail the cell; ordinary noise does not."""

    def test_checker_reports_are_problems(self):
        for line in (
                "[   12.1] BUG: KASAN: slab-out-of-bounds in ndis_foo+0x1",
                "[    3.2] WARNING: possible circular locking dependency "
                "detected",
                "[    3.2] WARNING: inconsistent lock state",
                "[    9.9] BUG: sleeping function called from invalid "
                "context at kernel/locking/mutex.c:580",
                "# kmemleak: unreferenced object 0xffff888003a1c000 "
                "(size 64):"):
            self.assertTrue(cell.judge.kernel_problem("noise\n" + line + "\n"),
                            line)

    def test_ordinary_lines_are_not(self):
        self.assertEqual(cell.judge.kernel_problem(
            "[    0.1] kasan: KernelAddressSanitizer initialized\n"
            "# kmemleak_scanned: 1\n"
            "[    1.0] cfg80211: failed to load regulatory.db\n"), "")


class ProfileParamTest(unittest.TestCase):
    def test_profile_asked_only_with_a_tcp_stream(self):
        import dataclasses
        from ndisbench_lib import devices
        dev = devices.DEVICES["bcm43xx/ndiswrapper"]
        sampled = dataclasses.replace(plan(dev, ["dhcp", "tcp"]),
                                      profile_hz=1000)
        line = cell.compose.kernel_cmdline(sampled, {"tcp": 4242}).split()
        self.assertIn("ndisbench.profile=1000", line)
        no_tcp = dataclasses.replace(plan(dev, ["dhcp", "ping"]),
                                     profile_hz=1000)
        self.assertNotIn("ndisbench.profile",
                         cell.compose.kernel_cmdline(no_tcp, {}))
        self.assertNotIn("ndisbench.profile",
                         cmdline(dev, ["dhcp", "tcp"], {"tcp": 4242}))


class IfaceChecksTest(unittest.TestCase):
    def test_any_interface_check_alone_brings_the_network_tests(self):
        from ndisbench_lib import devices
        dev = devices.DEVICES["rtl8187/native"]
        for check in ("hotplug", "roam", "scan", "capture", "udp"):
            line = cmdline(dev, [check])
            self.assertIn("ndisbench.net=wlan0", line, check)

    def test_recover_alone_asks_the_agent_for_the_tcp_stream(self):
        from ndisbench_lib import devices
        from ndisbench_lib.checks import registry
        dev = devices.DEVICES["bcm43xx-hang/ndiswrapper"]
        checks = runner.cell_checks(dev, registry.select(["recover"]))
        line = cmdline(dev, checks, {"tcp": 4242})
        self.assertIn("ndisbench.tcp=4242:4194304", line.split())


class CryptoSelfTestCmdlineTest(unittest.TestCase):
    def test_boot_skips_the_crypto_self_tests(self):
        """Debian's kernels run the crypto API's self-tests at boot
        (crypto_algapi_init: 0.74 s of guest time); no check needs them."""
        from ndisbench_lib import devices
        for label in ("none", "e1000", "rtl8187/ndiswrapper"):
            self.assertIn("cryptomgr.notests",
                          cmdline(devices.DEVICES[label], ["load"]).split())


class SlowdownCmdlineTest(unittest.TestCase):
    def test_slow_kernels_scale_the_agents_waits(self):
        from ndisbench_lib import devices
        dev = devices.DEVICES["e1000"]
        self.assertIn("ndisbench.slowdown=4",
                      cmdline(dev, ["tcp"], None, 4))
        self.assertNotIn("slowdown", cmdline(dev, ["tcp"]))


class UsbWaitTest(unittest.TestCase):
    def test_usb_rows_wait_for_their_device(self):
        from ndisbench_lib import devices
        for label in ("rtl8187/ndiswrapper", "rtl8187/native",
                      "rtl8187-faults/native"):
            line = cmdline(devices.DEVICES[label], ["bind"])
            self.assertIn("ndisbench.usb=0bda:8187", line, label)
        line = cmdline(devices.DEVICES["e1000"], ["dhcp"])
        self.assertNotIn("ndisbench.usb", line)
