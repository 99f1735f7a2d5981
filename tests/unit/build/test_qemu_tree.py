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
from ndisbench_lib.errors import BenchError


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


PATCH = """Subject: a fix

--- a/hw/usb/core.c
+++ b/hw/usb/core.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
"""


class ApplyPatchesTest(unittest.TestCase):
    """qemu-patches/ in the shared tree: each checkout's own set, applied
    to the pristine files, and only files whose contents change rewritten."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.patches = root / "qemu-patches"
        self.patches.mkdir()
        self.tree = types.SimpleNamespace(
            root=root / "tree", src=root / "tree" / "src", who="QEMU (test)",
            version="7.2", log=root / "tree" / "build.log")
        (self.tree.src / "hw" / "usb").mkdir(parents=True)
        self.core = self.tree.src / "hw" / "usb" / "core.c"
        self.core.write_text("one\ntwo\nthree\n")
        self.other = self.tree.src / "hw" / "usb" / "hcd-xhci.c"
        self.other.write_text("xhci\n")

    def tearDown(self):
        self.tmp.cleanup()

    def apply(self):
        with mock.patch.object(qemu_build, "PATCH_DIR", self.patches):
            qemu_build.QemuTree.apply_patches(self.tree)

    def test_applies_in_order_and_only_rewrites_what_changes(self):
        (self.patches / "0001-fix.patch").write_text(PATCH)
        os.utime(self.other, (1, 1))
        self.apply()
        self.assertEqual(self.core.read_text(), "one\nTWO\nthree\n")
        self.assertEqual(self.other.stat().st_mtime, 1)
        os.utime(self.core, (1, 1))
        self.apply()                    # again: nothing to rewrite
        self.assertEqual(self.core.read_text(), "one\nTWO\nthree\n")
        self.assertEqual(self.core.stat().st_mtime, 1)
        self.assertFalse((self.tree.root / "patch.tmp").exists())

    def test_another_checkout_without_the_patch_gets_the_pristine_file(self):
        (self.patches / "0001-fix.patch").write_text(PATCH)
        self.apply()
        (self.patches / "0001-fix.patch").unlink()
        self.apply()
        self.assertEqual(self.core.read_text(), "one\ntwo\nthree\n")
        # and a changed patch applies to the pristine file, not on top
        (self.patches / "0001-fix.patch").write_text(
            PATCH.replace("+TWO", "+2"))
        self.apply()
        self.assertEqual(self.core.read_text(), "one\n2\nthree\n")

    def test_a_patch_that_does_not_apply_names_itself(self):
        (self.patches / "0001-fix.patch").write_text(
            PATCH.replace("-two", "-zwei"))
        with self.assertRaisesRegex(BenchError, "0001-fix.patch"):
            self.apply()
        self.assertEqual(self.core.read_text(), "one\ntwo\nthree\n")

    def test_refuses_files_the_bench_edits_and_paths_outside(self):
        (self.patches / "0001-fix.patch").write_text(
            PATCH.replace("hw/usb/core.c", "softmmu/vl.c"))
        with self.assertRaisesRegex(BenchError, "softmmu/vl.c"):
            self.apply()
        (self.patches / "0001-fix.patch").write_text(
            PATCH.replace("b/hw/usb/core.c", "b/../etc/passwd"))
        with self.assertRaisesRegex(BenchError, "not a path inside"):
            self.apply()
        (self.patches / "0001-fix.patch").write_text("no diff here\n")
        with self.assertRaisesRegex(BenchError, "changes no file"):
            self.apply()

    def test_the_binary_key_holds_the_patches(self):
        with mock.patch.object(qemu_build, "PATCH_DIR", self.patches):
            before = qemu_build.patches_digest()
            (self.patches / "0001-fix.patch").write_text(PATCH)
            self.assertNotEqual(qemu_build.patches_digest(), before)

    def test_the_repository_patches_name_their_files(self):
        names = [p.name for p in qemu_build.patch_files()]
        self.assertEqual(names, sorted(names))
        self.assertTrue(names)
        for patch in qemu_build.patch_files():
            for rel in qemu_build.patch_targets(patch):
                self.assertTrue(rel.startswith("hw/usb/"), rel)


class BinaryKeyTest(unittest.TestCase):
    def test_the_binary_key_holds_the_device_list(self):
        """A device added to BASE_DEVICES is a new binary, not the cached
        one without it ('rtl8139' is not a valid device model name)."""
        tree = types.SimpleNamespace(key="k", devices=qemu_build.paths.REPO
                                     / "qemu-devices")
        before = qemu_build._binary_inputs(tree)
        with mock.patch.object(qemu_build, "BASE_DEVICES",
                               qemu_build.BASE_DEVICES + ("EEPRO100_PCI",)):
            self.assertNotEqual(qemu_build._binary_inputs(tree), before)


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


QTEST_MESON = """qtests_i386 = []
qtests_x86_64 = qtests_i386
qtests = {
  'cdrom-test': files('boot-sector.c'),
}

foreach dir : target_dirs
endforeach
"""


class AddQtestsTest(unittest.TestCase):
    """Each repository qtest joins the tree's tests/qtest/meson.build; one
    that needs more than libqtest (the crypto test links wlan-rsn.c and
    QEMU's crypto library) gets its entry in the `qtests` dict."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.tree = types.SimpleNamespace(src=root / "src", who="QEMU")
        self.qdir = self.tree.src / "tests" / "qtest"
        self.qdir.mkdir(parents=True)
        self.meson = self.qdir / "meson.build"
        self.meson.write_text(QTEST_MESON)
        self.repo_qtests = root / "repo-qtest"
        self.repo_qtests.mkdir()
        for name in ("ndisbench-air-test.c", "ndisbench-rsn-test.c"):
            (self.repo_qtests / name).write_text("")

    def tearDown(self):
        self.tmp.cleanup()

    def add(self, extras):
        with mock.patch.object(qemu_build, "QTEST_DIR", self.repo_qtests), \
                mock.patch.object(qemu_build, "QTEST_EXTRAS", extras):
            qemu_build.QemuTree.add_qtests(self.tree)

    def test_extras_go_into_the_qtests_dict_once(self):
        extras = {"ndisbench-rsn-test": "[crypto, files('x.c')]"}
        self.add(extras)
        self.add(extras)
        text = self.meson.read_text()
        line = ("qtests += {'ndisbench-rsn-test': [crypto, files('x.c')]}"
                "  # ndisbench\n")
        self.assertEqual(text.count(line), 1, text)
        self.assertLess(text.index("qtests = {"), text.index(line))
        self.assertLess(text.index(line), text.index("foreach dir :"))
        self.assertEqual(text.count("qtests_x86_64 += ['ndisbench-rsn-test']"
                                    "  # ndisbench\n"), 1)
        # an extra that is gone from the table is gone from the tree
        self.add({})
        self.assertNotIn("qtests += {", self.meson.read_text())
        self.assertTrue((self.qdir / "ndisbench-rsn-test.c").is_symlink())

    def test_an_extra_for_no_qtest_is_refused(self):
        with self.assertRaisesRegex(BenchError, "ndisbench-gone-test"):
            self.add({"ndisbench-gone-test": "[crypto]"})

    def test_the_crypto_test_links_the_crypto_file(self):
        self.assertIn("wlan-rsn.c",
                      qemu_build.QTEST_EXTRAS["ndisbench-rsn-test"])
        self.assertIn("crypto", qemu_build.QTEST_EXTRAS["ndisbench-rsn-test"])
