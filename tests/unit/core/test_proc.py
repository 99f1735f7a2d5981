"""Children of the bench (proc.py): each in its own process group, so a
timeout, an interrupt or the bench's own end takes a build's compilers
and a guest's QEMU with it, and none starts once a run is cancelled."""
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import helpers  # noqa: F401  (import path)

from ndisbench_lib import proc
from ndisbench_lib.errors import BuildError
from ndisbench_lib.guest import machine

# A child that forks a grandchild (a compiler under make), writes its pid
# and waits.
FORKER = ("import subprocess, sys, time\n"
          "g = subprocess.Popen([sys.executable, '-c', "
          "'import time; time.sleep(120)'])\n"
          "open(sys.argv[1], 'w').write(str(g.pid))\n"
          "time.sleep(120)\n")


def alive(pid: int) -> bool:
    """The pid runs and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(path: pathlib.Path, secs: float = 20.0) -> int:
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def gone(pid: int, secs: float = 10.0) -> bool:
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


class ProcTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.grandchildren = []

    def tearDown(self):
        for pid in self.grandchildren:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.reopen()
        import shutil
        shutil.rmtree(self.tmp)

    def test_build_timeout_kills_the_compilers_too(self):
        pidfile = self.tmp / "grandchild"
        with self.assertRaises(BuildError) as ctx:
            proc.run_logged([sys.executable, "-c", FORKER, str(pidfile)],
                            self.tmp / "b.log", "build x", timeout=1.5)
        self.assertIn("timed out", str(ctx.exception))
        pid = wait_for(pidfile)
        self.grandchildren.append(pid)
        self.assertTrue(gone(pid), "the compiler outlived make's timeout")

    def test_cancel_kills_every_group_and_refuses_new_children(self):
        pidfile = self.tmp / "grandchild"
        child = proc.start([sys.executable, "-c", FORKER, str(pidfile)],
                           stdin=subprocess.DEVNULL)
        self.assertEqual(os.getpgid(child.pid), child.pid)
        pid = wait_for(pidfile)
        self.grandchildren.append(pid)
        proc.cancel()
        self.assertTrue(gone(pid))
        self.assertEqual(child.wait(10), -signal.SIGKILL)
        with self.assertRaisesRegex(proc.Cancelled, "interrupted"):
            proc.start([sys.executable, "-c", "pass"])

    def test_kill_all_ends_children_and_new_ones_may_start(self):
        child = proc.start([sys.executable, "-c",
                            "import time; time.sleep(120)"])
        proc.kill_all()
        self.assertEqual(child.wait(10), -signal.SIGKILL)
        again = proc.start([sys.executable, "-c", "pass"])
        self.assertEqual(again.wait(10), 0)
        proc.forget(again)

    def test_run_is_registered_and_times_out_with_its_group(self):
        res = proc.run([sys.executable, "-c", "print('hi')"], timeout=30)
        self.assertEqual((res.returncode, res.stdout.strip()), (0, "hi"))
        pidfile = self.tmp / "grandchild"
        with self.assertRaises(subprocess.TimeoutExpired):
            proc.run([sys.executable, "-c", FORKER, str(pidfile)],
                     timeout=1.5)
        pid = wait_for(pidfile)
        self.grandchildren.append(pid)
        self.assertTrue(gone(pid))

    def test_a_cancelled_guest_ends_at_once(self):
        started = time.monotonic()
        threading.Timer(1.0, proc.cancel).start()
        res = machine.boot([sys.executable, "-c",
                            "import time; print('KTAP version 1', "
                            "flush=True); time.sleep(120)"],
                           self.tmp / "serial.log", timeout=100)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual((res.status, res.exit_code),
                         ("exited", -signal.SIGKILL))
        with self.assertRaises(proc.Cancelled):
            machine.boot([sys.executable, "-c", "pass"],
                         self.tmp / "serial2.log", timeout=10)


if __name__ == "__main__":
    unittest.main()
