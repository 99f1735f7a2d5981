"""tests/qtest/fuzz.py writes the logs of failed seeds into --out by name:
by default a fresh private folder, and never a folder someone else owns
or can write to, nor one reached through a symlink."""
import contextlib
import importlib.util
import io
import os
import pathlib
import subprocess
import tempfile
import time
import unittest
from typing import List
from unittest import mock

from helpers import REPO

_SPEC = importlib.util.spec_from_file_location(
    "qtest_fuzz", REPO / "tests" / "qtest" / "fuzz.py")
assert _SPEC and _SPEC.loader
fuzz = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fuzz)


def failing_run(*args: object, **kwargs: object
                ) -> "subprocess.CompletedProcess[str]":
    time.sleep(0.05)    # one seed, then the time is up
    return subprocess.CompletedProcess([], 1, stdout="not ok 1 boom\n")


class OutFolderTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="test-qfuzz-"))
        self.addCleanup(subprocess.run, ["rm", "-rf", str(self.tmp)],
                        check=False)

    def main(self, argv: List[str]) -> str:
        out = io.StringIO()
        with mock.patch.object(fuzz, "build", return_value=self.tmp), \
                mock.patch.object(fuzz.subprocess, "run", failing_run), \
                mock.patch.object(fuzz.tempfile, "tempdir", str(self.tmp)), \
                contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(out):
            try:
                rc = fuzz.main(["--device", "bcm43xx", "--minutes", "0.0005",
                                "--seed", "1000", *argv])
            except SystemExit as exc:
                rc = exc.code
        return f"rc={rc}\n{out.getvalue()}"

    def test_default_out_is_a_fresh_private_folder(self) -> None:
        text = self.main([])
        self.assertIn("rc=1", text)     # the seed failed
        logs = list(self.tmp.glob("ndisbench-fuzz-out-*/bcm43xx-seed1000.log"))
        self.assertEqual(len(logs), 1, text)
        folder = logs[0].parent
        self.assertEqual(folder.stat().st_mode & 0o777, 0o700)
        self.assertEqual(folder.stat().st_uid, os.geteuid())
        self.assertIn(str(folder), text)

    def test_foreign_out_is_refused(self) -> None:
        if os.geteuid() != 0:
            self.skipTest("needs root to give a folder away")
        foreign = self.tmp / "foreign"
        foreign.mkdir()
        os.chown(foreign, 65534, 65534)
        text = self.main(["--out", str(foreign)])
        self.assertIn("rc=2", text)
        self.assertIn("owned by uid 65534", text)
        self.assertEqual(list(foreign.iterdir()), [])

    def test_symlink_out_is_refused(self) -> None:
        target = self.tmp / "target"
        target.mkdir(mode=0o700)
        link = self.tmp / "link"
        link.symlink_to(target)
        text = self.main(["--out", str(link)])
        self.assertIn("rc=2", text)
        self.assertIn("not a folder", text)
        self.assertEqual(list(target.iterdir()), [])

    def test_out_writable_by_others_is_refused(self) -> None:
        shared = self.tmp / "shared"
        shared.mkdir()
        shared.chmod(0o1777)
        text = self.main(["--out", str(shared)])
        self.assertIn("rc=2", text)
        self.assertIn("writable by others", text)

    def test_own_out_is_used_and_made(self) -> None:
        mine = self.tmp / "a" / "mine"
        text = self.main(["--out", str(mine)])
        self.assertIn("rc=1", text)
        self.assertTrue((mine / "bcm43xx-seed1000.log").is_file(), text)
        self.assertEqual(mine.stat().st_mode & 0o777, 0o700)


if __name__ == "__main__":
    unittest.main()
