"""Least privilege on the host (guest/sandbox.py): every QEMU gets -sandbox,
-runas only where the bench is root; /proc/<pid>/status is read while the
guest talks; a cell run as root whose QEMU still runs as uid 0 fails its
`sandbox` check; tshark is started as the unprivileged user."""
import os
import pathlib
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report import verdict as checks
from ndisbench_lib.guest import capture, machine, qmp, sandbox

STATUS = """Name:\tqemu-system-x86
Umask:\t0022
State:\tS (sleeping)
Uid:\t999\t999\t999\t999
Gid:\t995\t995\t995\t995
FDSize:\t128
Groups:\t995 
NoNewPrivs:\t1
Seccomp:\t2
Seccomp_filters:\t2
"""
USER = pwd.struct_passwd(("ndisbench", "x", 999, 995, "", "/nonexistent",
                          "/usr/sbin/nologin"))


def ids(uid: int, seccomp: int = 2, groups=None) -> sandbox.ProcessIds:
    gid = 995 if uid else 0
    return sandbox.ProcessIds([uid] * 4, [gid] * 4,
                              [gid] if groups is None else groups, 1,
                              seccomp, 1)


class ParseTest(unittest.TestCase):
    def test_status_fields(self):
        got = sandbox.parse_status(STATUS)
        self.assertEqual(got.uids, [999] * 4)
        self.assertEqual(got.gids, [995] * 4)
        self.assertEqual(got.groups, [995])
        self.assertEqual((got.no_new_privs, got.seccomp,
                          got.seccomp_filters), (1, 2, 2))

    def test_old_kernel_without_filter_count(self):
        text = STATUS.replace("Seccomp_filters:\t2\n", "")
        self.assertIsNone(sandbox.parse_status(text).seccomp_filters)

    def test_own_process(self):
        got = sandbox.read_ids(os.getpid())
        self.assertEqual(got.uids[0], os.getuid())
        self.assertIsNone(sandbox.read_ids(2 ** 22 + 12345))


class JudgeTest(unittest.TestCase):
    def test_root_bench_unprivileged_qemu_passes(self):
        v = sandbox.judge(ids(999), bench_root=True, user=USER)
        self.assertEqual(v.status, checks.PASS, v)
        self.assertIn("uid 999", v.summary)
        self.assertIn("seccomp mode 2", v.summary)

    def test_root_bench_qemu_still_root_fails(self):
        v = sandbox.judge(ids(0), bench_root=True, user=USER)
        self.assertEqual(v.status, checks.FAIL)
        self.assertIn("still ran as root", v.summary)

    def test_root_bench_without_the_user_fails(self):
        with mock.patch.object(sandbox, "user_entry", return_value=None):
            v = sandbox.judge(ids(0), bench_root=True)
        self.assertEqual(v.status, checks.FAIL)
        self.assertIn("setup creates it", v.summary)

    def test_another_uid_than_the_user_fails(self):
        v = sandbox.judge(ids(1000), bench_root=True, user=USER)
        self.assertEqual(v.status, checks.FAIL)

    def test_root_group_kept_fails(self):
        v = sandbox.judge(ids(999, groups=[995, 0]), bench_root=True,
                          user=USER)
        self.assertEqual(v.status, checks.FAIL)
        self.assertIn("group 0", v.summary)

    def test_no_seccomp_fails_even_unprivileged(self):
        v = sandbox.judge(ids(1000, seccomp=0), bench_root=False)
        self.assertEqual(v.status, checks.FAIL)
        self.assertIn("seccomp", v.summary)

    def test_unprivileged_bench_needs_no_drop(self):
        v = sandbox.judge(ids(1000), bench_root=False)
        self.assertEqual(v.status, checks.PASS, v)

    def test_never_read_is_an_error(self):
        self.assertEqual(sandbox.judge(None, bench_root=True,
                                       user=USER).status, checks.ERROR)


POOL = [pwd.struct_passwd((f"ndisbench{i}", "x", 990 - i, 980 - i, "",
                           "/nonexistent", "/usr/sbin/nologin"))
        for i in range(2)]


class CellUserTest(unittest.TestCase):
    """A uid per concurrent cell: an escaped guest cannot signal or trace
    the QEMUs of the other cells running beside it."""

    def setUp(self):
        # Leases other tests' threads (this one among them) hold on the
        # machine's real pool are no business of this fake pool.
        for patcher in (mock.patch.object(sandbox, "_TAKEN", set()),
                        mock.patch.object(sandbox, "_THREAD",
                                          threading.local())):
            patcher.start()
            self.addCleanup(patcher.stop)

    def users_of_threads(self, count: int, hold: threading.Event):
        got, ready = [], threading.Barrier(count + 1)

        def cell():
            got.append(sandbox.drop_user().pw_name)
            self.assertEqual(sandbox.drop_user().pw_name, got[-1])
            ready.wait()
            hold.wait()

        threads = [threading.Thread(target=cell) for _ in range(count)]
        for t in threads:
            t.start()
        ready.wait()
        return got, threads

    def run_cells(self, count: int):
        hold = threading.Event()
        with mock.patch.object(sandbox, "bench_is_root", return_value=True), \
                mock.patch.object(sandbox, "pool_entries",
                                  return_value=POOL), \
                mock.patch.object(sandbox, "user_entry", return_value=USER):
            got, threads = self.users_of_threads(count, hold)
            hold.set()
            for t in threads:
                t.join()
            # the threads are gone: their users are free again
            again, threads = self.users_of_threads(2, hold)
            for t in threads:
                t.join()
        return got, again

    def test_concurrent_cells_get_distinct_users(self):
        got, again = self.run_cells(2)
        self.assertEqual(sorted(got), ["ndisbench0", "ndisbench1"])
        self.assertEqual(sorted(again), ["ndisbench0", "ndisbench1"])

    def test_more_cells_than_the_pool_share_the_bench_user(self):
        got, _ = self.run_cells(3)
        self.assertEqual(sorted(got), ["ndisbench", "ndisbench0",
                                       "ndisbench1"])

    def test_a_pool_user_passes_the_check(self):
        with mock.patch.object(sandbox, "pool_entries", return_value=POOL), \
                mock.patch.object(sandbox, "user_entry", return_value=USER):
            v = sandbox.judge(sandbox.ProcessIds([989] * 4, [979] * 4, [979],
                                                 1, 2, 1), bench_root=True)
            self.assertEqual(v.status, checks.PASS, v)
            v = sandbox.judge(sandbox.ProcessIds([989] * 4, [995] * 4, [995],
                                                 1, 2, 1), bench_root=True)
            self.assertEqual(v.status, checks.FAIL, v)

    def test_setup_makes_the_pool(self):
        made = []

        def fake_run(cmd, **kw):
            made.append(cmd[-1])
            return subprocess.CompletedProcess(cmd, 0, "", "")

        with mock.patch.object(sandbox, "user_entry", return_value=None), \
                mock.patch.object(sandbox.subprocess, "run", fake_run), \
                mock.patch.object(sandbox.pwd, "getpwnam",
                                  return_value=USER), \
                mock.patch.object(sandbox, "say"):
            sandbox.ensure_user()
        self.assertEqual(made, ["ndisbench"] + [
            f"ndisbench{i}" for i in range(sandbox.POOL_SIZE)])


class ArgsTest(unittest.TestCase):
    def setUp(self):
        # No cell pool (setup may have made one on this machine): QEMU and
        # tshark drop to the bench's user, or to none.
        # A lease this thread took in an earlier test goes too.
        for patcher in (mock.patch.object(sandbox, "pool_entries",
                                          return_value=[]),
                        mock.patch.object(sandbox, "_THREAD",
                                          threading.local())):
            patcher.start()
            self.addCleanup(patcher.stop)

    def args(self, root: bool, user, own: bool):
        with mock.patch.object(sandbox, "bench_is_root", return_value=root), \
                mock.patch.object(sandbox, "user_entry", return_value=user):
            return sandbox.qemu_args(own_build=own)

    def test_root_drops_with_runas(self):
        args = self.args(True, USER, own=True)
        self.assertEqual(args[:2], ["-sandbox", "on,obsolete=deny,"
                                    "elevateprivileges=deny,spawn=deny,"
                                    "resourcecontrol=deny"])
        self.assertEqual(args[2:], ["-runas", "ndisbench"])

    def test_other_builds_allow_the_drop_itself(self):
        # QEMU 7.2 as released traps -runas's setgid under deny
        args = self.args(True, USER, own=False)
        self.assertIn("elevateprivileges=allow", args[1])
        self.assertEqual(args[2:], ["-runas", "ndisbench"])

    def test_unprivileged_bench_denies_and_does_not_drop(self):
        for own in (True, False):
            args = self.args(False, USER, own)
            self.assertIn("elevateprivileges=deny", args[1])
            self.assertNotIn("-runas", args)

    def test_no_user_no_runas(self):
        self.assertNotIn("-runas", self.args(True, None, own=True))

    def test_every_guest_command_has_them(self):
        cmd = machine.qemu_command(pathlib.Path("/k"), pathlib.Path("/i"),
                                   "console=ttyS0", "tcg", 256, [],
                                   "/our/qemu")
        self.assertIn("-sandbox", cmd)
        self.assertIn("spawn=deny", cmd[cmd.index("-sandbox") + 1])

    def guest_cmd(self, name: str, env: dict):
        from ndisbench_lib import devices
        from ndisbench_lib import cell
        dev = devices.DEVICES[name]
        plan = types.SimpleNamespace(device=dev, keep_air=False, units=[],
                                     accel="tcg", device_args=dev.qemu_args,
                                     folder=None, extra_qemu_args=(),
                                     clock="realtime")
        prep = types.SimpleNamespace(art=types.SimpleNamespace(
            boot_image=pathlib.Path("/k")))
        parts = types.SimpleNamespace(qemu=pathlib.Path("/our/qemu"),
                                      qemu_error=None)
        environ = {k: v for k, v in os.environ.items()
                   if k != "NDISBENCH_QEMU"}
        with mock.patch.dict(os.environ, {**environ, **env}, clear=True), \
                mock.patch.object(sandbox, "bench_is_root",
                                  return_value=True), \
                mock.patch.object(sandbox, "user_entry", return_value=USER):
            cmd = cell.compose.guest_command(plan, prep, parts,
                                             pathlib.Path("/i"),
                                             "console=ttyS0")
            # host_parts builds our QEMU for exactly these rows
            built = cell.parts.uses_own_qemu(dev)
        return cmd, built

    def test_every_row_runs_our_build_with_privileges_denied(self):
        # elevateprivileges=deny for every guest (a QEMU taken over
        # cannot gain privileges through setuid or capabilities), the
        # none and e1000 rows too (Debian's QEMU 7.2 cannot drop under
        # deny)
        from ndisbench_lib import devices
        for name in devices.DEVICES:
            cmd, built = self.guest_cmd(name, {})
            self.assertEqual(cmd[0], "/our/qemu", name)
            self.assertIn("elevateprivileges=deny",
                          cmd[cmd.index("-sandbox") + 1], name)
            self.assertEqual(cmd[cmd.index("-runas") + 1], "ndisbench")
            self.assertTrue(built, name)

    def test_ndisbench_qemu_still_serves_the_rows_without_our_models(self):
        env = {"NDISBENCH_QEMU": "/their/qemu"}
        for name, theirs in (("none", True), ("e1000", True),
                             ("rtl8187/ndiswrapper", False)):
            cmd, built = self.guest_cmd(name, env)
            self.assertEqual(cmd[0], "/their/qemu" if theirs
                             else "/our/qemu", name)
            self.assertEqual(built, not theirs, name)
            self.assertIn("elevateprivileges=allow" if theirs
                          else "elevateprivileges=deny",
                          cmd[cmd.index("-sandbox") + 1], name)

    def test_tshark_runs_as_the_user_only_as_root(self):
        with mock.patch.object(sandbox, "bench_is_root", return_value=True), \
                mock.patch.object(sandbox, "user_entry", return_value=USER):
            kw = sandbox.run_as_user_kwargs()
        self.assertEqual((kw["user"], kw["group"], kw["extra_groups"]),
                         (999, 995, []))
        self.assertEqual(kw["env"]["HOME"], "/nonexistent")
        with mock.patch.object(sandbox, "bench_is_root", return_value=False):
            self.assertEqual(sandbox.run_as_user_kwargs(), {})

    def test_tshark_reads_the_capture_from_stdin_as_the_user(self):
        seen = {}

        def fake_run(cmd, **kw):
            seen.update(kw, cmd=cmd, data=kw["stdin"].read())
            return subprocess.CompletedProcess(cmd, 0, "", "")

        with tempfile.TemporaryDirectory() as tmp:
            pcap = pathlib.Path(tmp) / "air.pcap"
            pcap.write_bytes(b"pcap")
            with mock.patch.object(sandbox, "bench_is_root",
                                   return_value=True), \
                    mock.patch.object(sandbox, "user_entry",
                                      return_value=USER), \
                    mock.patch.object(capture.shutil, "which",
                                      return_value="/usr/bin/tshark"), \
                    mock.patch.object(capture.children, "run", fake_run):
                capture.read_tshark(pcap)
        self.assertEqual(seen["cmd"][:3], ["tshark", "-r", "-"])
        self.assertNotIn(str(pcap), seen["cmd"])
        self.assertEqual(seen["data"], b"pcap")
        self.assertEqual(seen["user"], 999)


class BootReadsIdsTest(unittest.TestCase):
    def test_ids_of_the_process_that_printed(self):
        with tempfile.TemporaryDirectory() as tmp:
            res = machine.boot([sys.executable, "-c",
                                "import time; print('hello', flush=True); "
                                "time.sleep(0.3)"],
                               pathlib.Path(tmp) / "serial.log", timeout=30)
        self.assertIsNotNone(res.qemu_ids)
        self.assertEqual(res.qemu_ids.uids[0], os.getuid())


class CellCheckTest(unittest.TestCase):
    """The `sandbox` check in the cell pipeline: a check of every row
    (default, last column), judged from the boot's ids, also when the
    guest timed out or oopsed."""

    def judge(self, ids, serial: str, status: str = "done"):
        from ndisbench_lib import devices, kernels
        from ndisbench_lib import cell
        exp = kernels.load_expectations()
        kernel = kernels.Kernel("k", "debian", exp.policies["2.6.25-rc4"])
        plan = cell.plan.CellPlan(kernel, devices.DEVICES["none"],
                                  ("load", "sandbox"), exp, pathlib.Path("/x"))
        prep = cell.plan.Prepared(kernel, base_bits=12288)
        boot = machine.BootResult(status, 0, 3.0, 1.0, serial, ids)
        with mock.patch.object(sandbox, "bench_is_root", return_value=True), \
                mock.patch.object(sandbox, "user_entry", return_value=USER):
            return cell.judge.judge_cell(plan, prep, boot)

    def test_every_row_by_default_in_the_last_column(self):
        from ndisbench_lib import devices
        from ndisbench_lib.checks import registry
        self.assertEqual(registry.default_names()[-1], sandbox_check())
        for device in devices.TARGETS:
            self.assertIn("sandbox", registry.for_device(
                device, registry.default_names()), device.label)

    def test_pass_and_fail(self):
        self.assertEqual(self.judge(ids(999), "")["sandbox"].status,
                         checks.PASS)
        self.assertEqual(self.judge(ids(0), "")["sandbox"].status,
                         checks.FAIL)

    def test_timeout_and_oops_leave_it_alone(self):
        got = self.judge(ids(0), "KTAP version 1\n", status="timeout")
        self.assertEqual(got["load"].status, checks.TIMEOUT)
        self.assertEqual(got["sandbox"].status, checks.FAIL)
        got = self.judge(ids(999), "[ 1.0] BUG: kernel NULL pointer\n")
        self.assertFalse(got["load"].ok)
        self.assertEqual(got["sandbox"].status, checks.PASS)


def sandbox_check() -> str:
    from ndisbench_lib.checks import sandbox as check
    return check.CHECK.name


def _debian_qemu() -> str:
    return shutil.which("qemu-system-x86_64") or ""


@unittest.skipUnless(os.geteuid() == 0 and sandbox.user_entry() and
                     _debian_qemu(), "needs root, the ndisbench user "
                     "(scripts/ndisbench setup) and Debian's QEMU")
class RealQemuTest(unittest.TestCase):
    """Debian's QEMU with the bench's sandbox arguments: it drops to the
    user before its main loop answers QMP, with a seccomp filter, and
    the QMP socket it opened as root still works."""

    def test_runas_and_seccomp(self):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="test-sandbox-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        sock = tmp / "qmp.sock"
        cmd = [_debian_qemu(), "-M", "none", "-display", "none",
               "-nodefaults", "-qmp", f"unix:{sock},server=on,wait=off",
               *sandbox.qemu_args(own_build=False)]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 20
            while not sock.exists() and time.monotonic() < deadline:
                if proc.poll() is not None:
                    self.fail(f"QEMU exited {proc.returncode}: "
                              f"{proc.stderr.read().decode()}")
                time.sleep(0.05)
            client = qmp.Qmp(str(sock))     # the greeting: main loop runs
            got = sandbox.read_ids(proc.pid)
            client.execute("quit", {})
            client.close()
        finally:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stderr.close()
        self.assertEqual(sandbox.judge(got).status, checks.PASS, got)


if __name__ == "__main__":
    unittest.main()
