"""Saved boots (guest/snapshot.py): which words go on the console, what
the key depends on, the boot log kept with a snapshot, publish and prune;
and machine.boot's half: the agent's words written at its READY line, or
at once for a restored guest whose log starts with the saved boot."""
import os
import pathlib
import sys
import tempfile
import unittest
import unittest.mock

import helpers  # noqa: F401  (import path)

from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BenchError
from ndisbench_lib.guest import machine, snapshot
from ndisbench_lib.report.ktap import READY_LINE

# A QEMU stand-in: prints a boot, READY_LINE, reads the agent's words and
# echoes them as a KTAP comment, then the done line. With a first argument
# "restored" it prints nothing before reading (it was saved past READY).
FAKE_QEMU = """
import sys
restored = len(sys.argv) > 1 and sys.argv[1] == "restored"
if not restored:
    print("Linux version 6.1.0-test", flush=True)
    print(%r, flush=True)
words = sys.stdin.readline().strip()
print("KTAP version 1", flush=True)
print("# words: " + words, flush=True)
print("# ndisbench-agent: done", flush=True)
""" % READY_LINE


class SplitTest(unittest.TestCase):
    def test_agent_words_go_to_the_console(self):
        boot, words = snapshot.split_cmdline(
            "console=ttyS0 loglevel=2 ndisbench.load=ndiswrapper "
            "panic=-1 ndisbench.tcp=40000:4194304 cryptomgr.notests")
        self.assertEqual(boot, "console=ttyS0 loglevel=2 panic=-1 "
                               "cryptomgr.notests ndisbench.params=console")
        self.assertEqual(words, "ndisbench.load=ndiswrapper "
                                "ndisbench.tcp=40000:4194304")

    def test_two_cells_of_one_machine_share_the_boot_line(self):
        a, wa = snapshot.split_cmdline("console=ttyS0 ndisbench.tcp=1:2")
        b, wb = snapshot.split_cmdline("console=ttyS0 ndisbench.tcp=3:2")
        self.assertEqual(a, b)
        self.assertNotEqual(wa, wb)


class KeyTest(unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp())
        self.qemu = self.dir / "qemu"
        self.kernel = self.dir / "bzImage"
        self.initrd = self.dir / "initrd"
        for path, data in ((self.qemu, b"q"), (self.kernel, b"k"),
                           (self.initrd, b"i")):
            path.write_bytes(data)
        self.words = ["-m", "512", "-append", "console=ttyS0"]

    def key(self):
        return snapshot.key(self.qemu, [self.kernel, self.initrd],
                            self.words)

    def test_same_machine_same_key(self):
        self.assertEqual(self.key(), self.key())

    def test_initramfs_content_changes_the_key(self):
        before = self.key()
        self.initrd.write_bytes(b"i2")
        os.utime(self.initrd, ns=(1, 1))
        self.assertNotEqual(before, self.key())

    def test_qemu_binary_changes_the_key(self):
        before = self.key()
        self.qemu.write_bytes(b"q2")
        os.utime(self.qemu, ns=(2, 2))
        self.assertNotEqual(before, self.key())

    def test_command_words_change_the_key(self):
        before = self.key()
        self.words[1] = "256"
        self.assertNotEqual(before, self.key())

    def test_the_pool_user_qemu_runs_as_does_not_change_the_key(self):
        # cells take whichever pool user is free: ndisbench1 on one run,
        # ndisbench2 on the next, and a shard's worker another again
        self.words += ["-runas", "ndisbench1"]
        first = self.key()
        self.words[-1] = "ndisbench2"
        self.assertEqual(first, self.key())
        self.words[-2:] = []
        self.assertNotEqual(first, self.key())


class PrefixTest(unittest.TestCase):
    def test_boot_up_to_ready(self):
        serial = ("SeaBIOS\n[ 0.9] Run /init\n"
                  f"{READY_LINE}\nKTAP version 1\n")
        self.assertEqual(snapshot.boot_prefix(serial),
                         f"SeaBIOS\n[ 0.9] Run /init\n{READY_LINE}\n")

    def test_no_ready_line_no_prefix(self):
        self.assertIsNone(snapshot.boot_prefix("Kernel panic\n"))


class PublishTest(unittest.TestCase):
    def setUp(self):
        self.cache = Cache(pathlib.Path(tempfile.mkdtemp()))

    def saved(self, key, label):
        saver = snapshot.Saver(self.cache, key, label, {"kernel": "k"})
        root = self.cache.root / snapshot.KIND
        root.mkdir(parents=True, exist_ok=True)
        part = root / f".{key}.x.part"
        part.write_bytes(b"QEVM stream")
        saver.saved = part
        return saver

    def test_publish_keeps_stream_and_boot_log(self):
        saver = self.saved("k1", "src-6.1/e1000")
        snap = saver.publish(f"Linux\n{READY_LINE}\nKTAP version 1\n")
        saver.close()
        self.assertIsNotNone(snap)
        self.assertEqual(snap.state.read_bytes(), b"QEVM stream")
        self.assertEqual(snap.boot_log(), f"Linux\n{READY_LINE}\n")
        self.assertEqual(snap.label, "src-6.1/e1000")
        self.assertEqual(snapshot.find(self.cache, "k1").entry, snap.entry)
        self.assertEqual([p.name for p in (self.cache.root /
                                           snapshot.KIND).iterdir()],
                         ["k1"])

    def test_a_guest_that_never_waited_is_not_published(self):
        saver = self.saved("k1", "src-6.1/e1000")
        part = saver.saved
        self.assertIsNone(saver.publish("Kernel panic\n"))
        self.assertFalse(part.exists())
        self.assertIsNone(snapshot.find(self.cache, "k1"))

    def test_a_cell_keeps_its_two_newest_snapshots(self):
        root = self.cache.root / snapshot.KIND
        for age, name in ((300, "old"), (200, "mid")):
            self.saved(name, "src-6.1/e1000").publish(f"{READY_LINE}\n")
            os.utime(root / name, (1e9 - age, 1e9 - age))
        self.saved("other", "src-6.1/none").publish(f"{READY_LINE}\n")
        self.saved("new", "src-6.1/e1000").publish(f"{READY_LINE}\n")
        self.assertIsNone(snapshot.find(self.cache, "old"))
        self.assertIsNotNone(snapshot.find(self.cache, "mid"))
        self.assertIsNotNone(snapshot.find(self.cache, "other"))
        self.assertIsNotNone(snapshot.find(self.cache, "new"))

    def test_least_recently_used_go_over_the_budget(self):
        for name in ("a", "b", "c"):
            self.saved(name, f"k/{name}").publish(f"{READY_LINE}\n")
        root = self.cache.root / snapshot.KIND
        for age, name in ((300, "a"), (100, "b"), (200, "c")):
            os.utime(root / name, (1e9 - age, 1e9 - age))
        snapshot.used(snapshot.find(self.cache, "a"))
        size = (root / "a" / snapshot.STATE_FILE).stat().st_size
        snapshot.prune(self.cache, "k/none", "", budget=2 * size)
        self.assertIsNotNone(snapshot.find(self.cache, "a"))
        self.assertIsNotNone(snapshot.find(self.cache, "b"))
        self.assertIsNone(snapshot.find(self.cache, "c"))

    def test_stale_scratch_files_go(self):
        root = self.cache.root / snapshot.KIND
        root.mkdir(parents=True)
        old, fresh = root / ".k.1.part", root / ".k.2.part"
        old.write_bytes(b"x")
        fresh.write_bytes(b"x")
        os.utime(old, (1, 1))
        snapshot.prune(self.cache, "k/none", "")
        self.assertFalse(old.exists())
        self.assertTrue(fresh.exists())

    def test_budget_from_the_environment(self):
        with unittest.mock.patch.dict(os.environ,
                                      {"NDISBENCH_SNAPSHOT_MB": "5"}):
            self.assertEqual(snapshot.budget_bytes(), 5_000_000)
        with unittest.mock.patch.dict(os.environ,
                                      {"NDISBENCH_SNAPSHOT_MB": "lots"}):
            with self.assertRaisesRegex(Exception, "NDISBENCH_SNAPSHOT_MB"):
                snapshot.budget_bytes()

    def test_the_default_budget_holds_the_test_commands_guests(self):
        # Measured 2026-12-07 after the test command's e2e on a new
        # machine: 363 saved boots took 23.9 GB, the old default of
        # 24000 MB, and the oldest were already evicted. A pass over a set
        # larger than the budget evicts with least-recently-used exactly
        # the guests the next pass wants first: none is restored.
        with unittest.mock.patch.dict(os.environ, clear=False) as env:
            env.pop("NDISBENCH_SNAPSHOT_MB", None)
            self.assertGreaterEqual(snapshot.budget_bytes(),
                                    1.5 * 23_926_166_029)

    def test_discard(self):
        snap = self.saved("k1", "c").publish(f"{READY_LINE}\n")
        snapshot.discard(snap)
        self.assertIsNone(snapshot.find(self.cache, "k1"))


    def test_fresh_scratch_files_count_in_the_budget(self):
        for name in ("a", "b"):
            self.saved(name, f"k/{name}").publish(f"{READY_LINE}\n")
        root = self.cache.root / snapshot.KIND
        os.utime(root / "a", (1e9 - 300, 1e9 - 300))
        os.utime(root / "b", (1e9 - 100, 1e9 - 100))
        size = (root / "a" / snapshot.STATE_FILE).stat().st_size
        # A save under way (fresh, not stale) takes room too.
        (root / ".c.1.part").write_bytes(b"x" * size)
        snapshot.prune(self.cache, "k/none", "", budget=2 * size)
        self.assertIsNone(snapshot.find(self.cache, "a"))
        self.assertIsNotNone(snapshot.find(self.cache, "b"))
        self.assertTrue((root / ".c.1.part").exists())


class SaveOnceTest(unittest.TestCase):
    """A guest that prints the ready line again gets no second save: each
    save would otherwise leave a full guest image outside the budget."""

    def setUp(self):
        self.cache = Cache(pathlib.Path(tempfile.mkdtemp()))
        self.saver = snapshot.Saver(self.cache, "k1", "c", {})
        self.addCleanup(self.saver.close)
        self.migrations = []

        def migrate(fd):
            os.write(fd, b"QEVM stream")
            self.migrations.append(fd)
        self.saver._migrate = migrate

    def test_a_second_save_is_refused(self):
        self.assertIn("snapshot saved", self.saver.save())
        self.assertEqual(self.saver.save(),
                         "snapshot not saved: the guest was saved already "
                         "(a second ready line)")
        self.assertEqual(len(self.migrations), 1)
        parts = list((self.cache.root / snapshot.KIND).iterdir())
        self.assertEqual(len(parts), 1)

    def test_a_save_needs_free_space_first(self):
        usage = unittest.mock.Mock(free=10 * 1000 * 1000)
        with unittest.mock.patch.object(snapshot.shutil, "disk_usage",
                                        return_value=usage):
            note = self.saver.save()
        self.assertRegex(note, r"^snapshot not saved: 10 MB free in .*, a "
                               r"save needs [0-9]+ MB$")
        self.assertEqual(self.migrations, [])
        self.assertIsNone(self.saver.saved)


class FreeSpaceTest(unittest.TestCase):
    """A guest is not saved below the free-space floor (the stream is
    70-110 MB), and a publish refused for it is no crash of the cell."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = Cache(pathlib.Path(self.tmp.name))
        self.full = os.statvfs_result((4096, 4096, 1000, 1, 1, 0, 0, 0, 0,
                                       255))

    def tearDown(self):
        self.tmp.cleanup()

    def test_no_save_below_the_floor(self):
        from ndisbench_lib.build import cache as cachemod
        saver = snapshot.Saver(self.cache, "k1", "k/none", {})
        self.addCleanup(saver.close)
        with unittest.mock.patch.object(cachemod.os, "statvfs",
                                        return_value=self.full):
            note = saver.save()
        self.assertRegex(note, r"^snapshot not saved: host: 0 MB free "
                               r"under .* \(below NDISBENCH_FREE_MB=")
        self.assertIsNone(saver.saved)
        self.assertEqual(list((self.cache.root / snapshot.KIND).iterdir()),
                         [])

    def test_a_publish_refused_for_space_saves_nothing(self):
        from ndisbench_lib.build import cache as cachemod
        saver = snapshot.Saver(self.cache, "k1", "k/none", {})
        self.addCleanup(saver.close)
        saver.saved = self.cache.root / snapshot.KIND / ".k1.part"
        saver.saved.parent.mkdir(parents=True)
        saver.saved.write_bytes(b"stream")
        with unittest.mock.patch.object(cachemod.os, "statvfs",
                                        return_value=self.full):
            self.assertIsNone(saver.publish(f"{READY_LINE}\n"))
        self.assertFalse(saver.saved.exists())
        self.assertIsNone(snapshot.find(self.cache, "k1"))


class RestorerTest(unittest.TestCase):
    def test_a_qemu_killed_while_restoring_is_a_note_not_a_traceback(self):
        """Killed (an interrupted run) in the middle of the QMP talk: the
        socket breaks, and the waiting thread ends with a note."""
        restorer = snapshot.Restorer(0)
        self.addCleanup(restorer.close)
        restorer.qmp.path.parent.mkdir(parents=True, exist_ok=True)
        restorer.qmp.path.touch()
        mon = unittest.mock.Mock()
        mon.execute.side_effect = BrokenPipeError(32, "Broken pipe")
        with unittest.mock.patch.object(restorer.qmp, "connect",
                                        return_value=mon):
            note = restorer.running(timeout=5)
        self.assertIn("Broken pipe", note)
        mon.close.assert_called_once()


    def test_a_socket_not_yet_listening_is_tried_again(self):
        """QEMU binds its QMP socket before it listens: a connect in
        between is refused, and the words must still wait for the guest
        (a restore under load once lost them and timed out)."""
        restorer = snapshot.Restorer(0)
        self.addCleanup(restorer.close)
        restorer.qmp.path.parent.mkdir(parents=True, exist_ok=True)
        restorer.qmp.path.touch()
        mon = unittest.mock.Mock()
        mon.execute.return_value = {"status": "running"}
        refused = BenchError("QMP /x: [Errno 111] Connection refused")
        with unittest.mock.patch.object(
                restorer.qmp, "connect",
                side_effect=[refused, refused, mon]) as connect:
            note = restorer.running(timeout=5)
        self.assertIsNone(note)
        self.assertEqual(connect.call_count, 3)

    def test_a_socket_refused_to_the_end_is_a_note(self):
        restorer = snapshot.Restorer(0)
        self.addCleanup(restorer.close)
        restorer.qmp.path.parent.mkdir(parents=True, exist_ok=True)
        restorer.qmp.path.touch()
        refused = BenchError("QMP /x: [Errno 111] Connection refused")
        with unittest.mock.patch.object(restorer.qmp, "connect",
                                        side_effect=refused):
            note = restorer.running(timeout=0.5)
        self.assertIn("Connection refused", note)


class ConsoleTest(unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp())
        self.fake = self.dir / "qemu.py"
        self.fake.write_text(FAKE_QEMU)

    def test_words_written_at_ready(self):
        seen = []

        def at_ready():
            seen.append("saved")
            return "snapshot saved"
        result = machine.boot(
            [sys.executable, str(self.fake)], self.dir / "serial.log", 30,
            console=machine.ConsoleParams("ndisbench.ping=3",
                                          at_ready=at_ready))
        self.assertEqual(result.status, "done")
        self.assertEqual(seen, ["saved"])
        self.assertIn("# words: ndisbench.ping=3", result.serial)
        log = (self.dir / "serial.log").read_text()
        self.assertIn(f"{READY_LINE}\n# ndisbench: snapshot saved\n", log)

    def test_a_flood_of_ready_lines_is_acted_on_once(self):
        flood = self.dir / "flood.py"
        flood.write_text(
            "import sys\n"
            f"for _ in range(6): print({READY_LINE!r}, flush=True)\n"
            "words = sys.stdin.readline().strip()\n"
            "print('# words: ' + words, flush=True)\n"
            "print('# ndisbench-agent: done', flush=True)\n")
        seen = []

        def at_ready():
            seen.append("saved")
            return "snapshot saved"
        result = machine.boot(
            [sys.executable, str(flood)], self.dir / "serial.log", 30,
            console=machine.ConsoleParams("ndisbench.ping=3",
                                          at_ready=at_ready))
        self.assertEqual(result.status, "done")
        self.assertEqual(seen, ["saved"])
        log = (self.dir / "serial.log").read_text()
        self.assertEqual(log.count("# ndisbench: snapshot saved\n"), 1)
        self.assertEqual(log.count("# ndisbench: ready line again: "
                                   "ignored\n"), 5)
        self.assertEqual(result.serial.count("# words: ndisbench.ping=3"), 1)

    def test_restored_guest_gets_words_at_once_after_its_boot(self):
        prefix = f"Linux version 6.1.0-test\n{READY_LINE}\n"
        result = machine.boot(
            [sys.executable, str(self.fake), "restored"],
            self.dir / "serial.log", 30,
            console=machine.ConsoleParams("ndisbench.tcp=1:2", prefix=prefix,
                                          note="restored from snapshot k"))
        self.assertEqual(result.status, "done")
        self.assertTrue(result.serial.startswith(prefix))
        self.assertIn("# words: ndisbench.tcp=1:2", result.serial)
        log = (self.dir / "serial.log").read_text().splitlines()
        self.assertEqual(log[1], "# ndisbench: restored from snapshot k")
        self.assertEqual(log[2], "Linux version 6.1.0-test")

    def test_restore_passes_the_stream_fd(self):
        fd = os.open(self.fake, os.O_RDONLY)
        self.addCleanup(os.close, fd)
        probe = self.dir / "probe.py"
        probe.write_text(
            "import os, sys\n"
            f"print('fd open' if os.path.exists('/proc/self/fd/{fd}') "
            "else 'fd closed', flush=True)\n"
            "sys.stdin.readline()\nprint('# ndisbench-agent: done', "
            "flush=True)\n")
        result = machine.boot(
            [sys.executable, str(probe)], self.dir / "serial.log", 30,
            console=machine.ConsoleParams("w", prefix=f"{READY_LINE}\n",
                                          pass_fds=(fd,)))
        self.assertIn("fd open", result.serial)


class FallbackTest(unittest.TestCase):
    """A snapshot QEMU will not load is dropped, and the cell boots (and
    saves a new one) in the same run."""

    def restore(self, first_boot):
        """Publish a snapshot, restore a cell from it with machine.boot
        answering first_boot, then a plain boot: (start, result, calls)."""
        from unittest import mock
        from ndisbench_lib import devices, kernels
        from ndisbench_lib import cell
        tmp = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(__import__("shutil").rmtree, tmp, True)
        self.tmp = tmp
        cache = self.cache = Cache(tmp / "cache")
        qemu, image, initrd = (tmp / "qemu-system-x86_64", tmp / "bzImage",
                               tmp / "initrd")
        for path in (qemu, image, initrd):
            path.write_bytes(path.name.encode())
        exp = kernels.load_expectations()
        kernel = kernels.Kernel("k", "debian", exp.policies["2.6.25-rc4"])
        prep = cell.plan.Prepared(kernel, art=mock.Mock(release="6.1",
                                                        boot_image=image))
        parts = cell.parts.HostParts(cache, tmp / "agent")
        plan = cell.plan.CellPlan(kernel, devices.DEVICES["none"], ("load",),
                                  exp,
                                  tmp / "cell", tmp, snapshot=True)
        calls = []

        def boot(cmd, log, timeout, on_line=None, console=None,
                 on_start=None):
            calls.append((list(cmd), console))
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text("x\n")
            if len(calls) == 1:
                return first_boot
            return machine.BootResult("done", 0, 3.0, 1.0,
                                      f"{READY_LINE}\nKTAP version 1\n")

        with mock.patch.object(cell.start, "guest_command",
                               return_value=[str(qemu), "-m", "512"]), \
                mock.patch.object(cell.start, "say", lambda *a: None), \
                mock.patch.object(cell.run.machine, "boot", boot):
            start = cell.start.GuestStart(plan, prep, parts, initrd,
                                          "console=ttyS0 ndisbench.load=x", [])
            saver = snapshot.Saver(cache, start.key, start.label, {})
            saver.saved = cache.root / snapshot.KIND / ".stream.part"
            saver.saved.parent.mkdir(parents=True)
            saver.saved.write_bytes(b"stream")
            saver.publish(f"{READY_LINE}\n")
            start = cell.start.GuestStart(plan, prep, parts, initrd,
                                          "console=ttyS0 ndisbench.load=x", [])
            self.assertEqual(start.how, "restored")
            result = start.boot(tmp / "cell" / "serial.log", 60, None)
            start.close()
        return start, result, calls

    def test_unloadable_snapshot_is_dropped_and_the_cell_boots(self):
        start, result, calls = self.restore(machine.BootResult(
            "exited", 1, 0.3, None, "qemu-system-x86_64: load of "
            "migration failed: Input/output error\n"))
        self.assertEqual(result.status, "done")
        self.assertEqual(len(calls), 2)
        self.assertIn("-incoming", calls[0][0])
        self.assertNotIn("-incoming", calls[1][0])
        self.assertEqual(calls[1][1].words, "ndisbench.load=x")
        self.assertIsNotNone(calls[1][1].at_ready)
        self.assertTrue((self.tmp / "cell" / "serial-restore.log").exists())
        # the guest never reached the saver's migrate: nothing saved, and
        # the snapshot that would not load is gone
        self.assertEqual(start.how, "booted")
        self.assertIsNone(snapshot.find(self.cache, start.key))

    def test_a_qemu_killed_while_restoring_keeps_the_snapshot(self):
        """Killed (SIGKILL: exit -9) before the restored guest's first
        KTAP line, without QEMU's own load error: the crash is the cell's
        result, and the snapshot, which loaded, stays."""
        killed = machine.BootResult("exited", -9, 0.3, None,
                                    f"{READY_LINE}\n")
        start, result, calls = self.restore(killed)
        self.assertIs(result, killed)
        self.assertEqual(len(calls), 1)
        self.assertEqual(start.how, "restored")
        self.assertIsNotNone(snapshot.find(self.cache, start.key))
        self.assertFalse((self.tmp / "cell" / "serial-restore.log").exists())

    def test_qemus_own_load_error_is_what_says_a_snapshot_failed(self):
        qemu = pathlib.Path("/x/qemu-system-x86_64")
        self.assertEqual(snapshot.load_error(
            "noise\nqemu-system-x86_64: Unknown savevm section type 5\n"
            "qemu-system-x86_64: load of migration failed: Invalid "
            "argument\n", qemu), "Invalid argument")
        for serial in ("", f"{READY_LINE}\n", "qemu-system-x86_64: "
                       "terminating on signal 15 from pid 1\n",
                       "guest says: load of migration failed: x\n"):
            self.assertEqual(snapshot.load_error(serial, qemu), "", serial)


class ResumeAfterSaveTest(unittest.TestCase):
    """query-migrate says completed a moment before QEMU leaves its
    finish-migrate state, and a cont in between is refused ("Migration is
    not finalized yet"): the saved guest must go on all the same, or it
    sits stopped until the cell's timeout."""

    class Monitor:
        def __init__(self, finishing, migration="completed"):
            self.finishing = finishing      # query-status answers left
            self.migration = migration
            self.running = False
            self.commands = []

        def execute(self, command, arguments=None):
            self.commands.append(command)
            if command == "query-migrate":
                return {"status": self.migration}
            if command == "query-status":
                if self.finishing > 0:
                    self.finishing -= 1
                    return {"status": "finish-migrate", "running": False}
                return {"status": "running" if self.running else
                        "postmigrate", "running": self.running}
            if command == "cont":
                if self.finishing > 0:
                    raise BenchError("QMP cont: Migration is not finalized "
                                     "yet")
                self.running = True
            return {}

        def send_fd(self, name, fd):
            self.commands.append("getfd")

        def close(self):
            pass

    def saver_with(self, mon):
        saver = snapshot.Saver(Cache(pathlib.Path(tempfile.mkdtemp())),
                               "k1", "c", {})
        self.addCleanup(saver.close)
        saver.qmp = unittest.mock.Mock(connect=lambda: mon)
        return saver

    def test_cont_waits_for_the_migration_to_be_finalized(self):
        mon = self.Monitor(finishing=3)
        self.saver_with(mon)._migrate(0)
        self.assertTrue(mon.running)
        self.assertEqual(mon.commands[-1], "cont")

    def test_a_failed_migration_still_lets_the_guest_go_on(self):
        mon = self.Monitor(finishing=0, migration="failed")
        with self.assertRaises(snapshot.SnapshotError) as ctx:
            self.saver_with(mon)._migrate(0)
        self.assertEqual(str(ctx.exception), "migration failed")
        self.assertTrue(mon.running)


if __name__ == "__main__":
    unittest.main()
