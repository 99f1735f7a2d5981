"""A --wrapper-src tree's user tools and installer are built and probed
confined (build/confine.py): its Makefile and the Perl installer's BEGIN
blocks run as the build user, never as the bench's root."""
import os
import pathlib
import pwd
import shutil
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import confine, hostbuild, initramfs
from ndisbench_lib.build.cache import Cache

BUILD_UID = (pwd.getpwnam(confine.BUILD_USER).pw_uid
             if os.geteuid() == 0 else os.geteuid())


@unittest.skipUnless(shutil.which(confine.BWRAP), "bwrap missing")
class ToolsTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = pathlib.Path(tmp.name)
        self.src = self.root / "tree"
        (self.src / "driver").mkdir(parents=True)
        (self.src / "utils").mkdir()
        (self.src / "driver" / "Makefile").write_text("all:\n")
        (self.src / "utils" / "Makefile").write_text(
            "all:\n\tfor t in ndiswrapper loadndisdriver; do "
            "printf 'uid %s\\n' $$(id -u) > $$t; chmod 755 $$t; done\n")
        self.cache = Cache(self.root / "cache")

    def test_utils_make_runs_unprivileged(self):
        with mock.patch.object(initramfs, "tool_files", return_value={}):
            tools = hostbuild.build_external_tools(self.src, self.cache)
        built = tools["sbin/loadndisdriver"]
        self.assertEqual(built.read_text(), f"uid {BUILD_UID}\n")
        self.assertNotEqual(BUILD_UID, 0)
        self.assertTrue(os.access(built, os.X_OK))
        self.assertEqual(built.stat().st_uid, os.geteuid())


@unittest.skipUnless(shutil.which(confine.BWRAP), "bwrap missing")
class PerlProbeTest(unittest.TestCase):
    def test_begin_block_runs_unprivileged(self):
        with tempfile.TemporaryDirectory() as tmp:
            tool = pathlib.Path(tmp) / "ndiswrapper"
            # perl -c runs BEGIN blocks: a tree's installer can run code
            # while the bench only means to list its modules
            tool.write_text("#!/usr/bin/perl\nBEGIN { die \"uid $<\\n\" }\n")
            os.chmod(tmp, 0o755)
            with self.assertRaisesRegex(Exception,
                                        f"perl -c failed: uid {BUILD_UID}$"):
                initramfs._perl_closure(str(tool), "digest")


if __name__ == "__main__":
    unittest.main()
