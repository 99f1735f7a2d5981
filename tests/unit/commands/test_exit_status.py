"""The bench's exit status says how it ended (README "Exit status"): a
verdict failed (1), bad input (2), the bench crashed (3), interrupted
(130, SIGTERM 143), and no child outlives it."""
import io
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from contextlib import redirect_stderr
from unittest import mock

from helpers import REPO
from ndisbench_lib import proc
from ndisbench_lib.commands import cli
from ndisbench_lib.errors import BenchError

# The bench running a command that starts a child (a guest) and waits:
# argv[1] gets the child's pid.
BENCH = f"""
import sys, time
sys.path.insert(0, {str(REPO / 'scripts')!r})
from ndisbench_lib import proc
from ndisbench_lib import proc
from ndisbench_lib.commands import cli

def command(args):
    child = proc.start([sys.executable, "-c",
                        "import time; time.sleep(120)"])
    open(sys.argv[1], "w").write(str(child.pid))
    time.sleep(120)
    return 0

cli.cmd_list = command
sys.exit(cli.main(["list"]))
"""


def main_with(func):
    err = io.StringIO()
    with mock.patch.object(cli, "cmd_list", func), redirect_stderr(err):
        code = cli.main(["list"])
    return code, err.getvalue()


class ExitStatusTest(unittest.TestCase):
    def test_a_crash_has_its_own_status(self):
        def crash(args):
            raise RuntimeError("boom")
        code, err = main_with(crash)
        self.assertEqual(code, cli.EXIT_CRASH)
        self.assertEqual(code, 3)
        self.assertIn("Traceback", err)
        self.assertIn("ndisbench: crashed (a bug of the bench): "
                      "RuntimeError: boom", err.splitlines()[-1])

    def test_a_host_failure_outside_a_cell_is_a_crash_too(self):
        def full(args):
            raise OSError(28, "No space left on device", "/out/x")
        self.assertEqual(main_with(full)[0], 3)

    def test_bad_input_and_interrupt_keep_theirs(self):
        def bad(args):
            raise BenchError("no such kernel")

        def ctrl_c(args):
            raise KeyboardInterrupt
        self.assertEqual(main_with(bad)[0], 2)
        self.addCleanup(proc.reopen)
        self.assertEqual(main_with(ctrl_c)[0], 130)
        # a thread of the command (pair's second guest) starts nothing
        with self.assertRaises(proc.Cancelled):
            proc.start([sys.executable, "-c", "pass"])

    def test_sigterm_ends_the_bench_and_its_children(self):
        with tempfile.TemporaryDirectory() as tmp:
            pidfile = pathlib.Path(tmp) / "child"
            bench = subprocess.Popen([sys.executable, "-c", BENCH,
                                      str(pidfile)],
                                     stderr=subprocess.PIPE, text=True)
            end = time.monotonic() + 30
            while not (pidfile.exists() and pidfile.read_text()):
                self.assertLess(time.monotonic(), end)
                time.sleep(0.05)
            child = int(pidfile.read_text())
            bench.send_signal(signal.SIGTERM)
            _out, err = bench.communicate(timeout=30)
        self.assertEqual(bench.returncode, 143, err)
        self.assertIn("ndisbench: interrupted (SIGTERM)", err)
        end = time.monotonic() + 10
        while os.path.exists(f"/proc/{child}") and \
                time.monotonic() < end:
            time.sleep(0.05)
        self.assertFalse(os.path.exists(f"/proc/{child}"),
                         "the guest outlived the bench")

    def test_a_command_that_fills_the_cache_prunes_it_after(self):
        ran = []
        with mock.patch.object(cli, "cmd_build",
                               lambda args: ran.append("build") or 0), \
                mock.patch.object(cli, "prune_cache",
                                  lambda c: ran.append("prune") or []):
            self.assertEqual(cli.main(["build", "agent"]), 0)
            self.assertEqual(ran, ["build", "prune"])
            with mock.patch.dict("os.environ",
                                 {"NDISBENCH_CACHE_MB": "much"}), \
                    redirect_stderr(io.StringIO()) as err:
                self.assertEqual(cli.main(["build", "agent"]), 2)
        self.assertEqual(ran, ["build", "prune"])    # refused before
        self.assertIn("NDISBENCH_CACHE_MB=much: not a number", err.getvalue())

    def test_the_handler_is_put_back(self):
        before = signal.getsignal(signal.SIGTERM)
        main_with(lambda args: 0)
        self.assertIs(signal.getsignal(signal.SIGTERM), before)


if __name__ == "__main__":
    unittest.main()
