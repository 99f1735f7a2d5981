"""The shared QEMU build tree: files whose contents changed since the tree
last saw them get a fresh mtime (ninja goes by mtimes, and another checkout
may have built there with newer files); a QEMU binary in use is never
pruned."""
import os
import pathlib
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import qemu_build


class TouchChangedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.tree = types.SimpleNamespace(root=root / "tree",
                                          devices=root / "devices")
        self.tree.root.mkdir()
        self.tree.devices.mkdir()
        self.file = self.tree.devices / "wlan-air.c"
        self.file.write_text("one\n")

    def tearDown(self):
        self.tmp.cleanup()

    def touch(self):
        # the checkout's own qtests stay untouched
        with mock.patch.object(qemu_build, "QTEST_DIR", self.tree.root):
            qemu_build.QemuTree.touch_changed(self.tree)

    def test_only_changed_contents_get_a_new_mtime(self):
        self.touch()
        os.utime(self.file, (1, 1))
        self.touch()
        self.assertEqual(self.file.stat().st_mtime, 1)   # same contents
        # another checkout's older file with other contents
        self.file.write_text("two\n")
        os.utime(self.file, (1, 1))
        self.touch()
        self.assertGreater(self.file.stat().st_mtime, 1)


class InUseTest(unittest.TestCase):
    def test_a_binary_in_use_is_not_pruned(self):
        with tempfile.TemporaryDirectory() as tmp:
            entry = pathlib.Path(tmp) / "entry"
            entry.mkdir()
            holder = subprocess.Popen(
                [sys.executable, "-c",
                 "import fcntl, sys, time\n"
                 f"f = open({str(entry / qemu_build.IN_USE)!r}, 'a')\n"
                 "fcntl.flock(f, fcntl.LOCK_SH)\n"
                 "print('held', flush=True)\n"
                 "sys.stdin.read()\n"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                holder.stdout.readline()
                self.assertFalse(qemu_build._remove_unused(entry))
                self.assertTrue(entry.exists())
            finally:
                holder.communicate("", timeout=30)
            self.assertTrue(qemu_build._remove_unused(entry))
            self.assertFalse(entry.exists())


if __name__ == "__main__":
    unittest.main()
