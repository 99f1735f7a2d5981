"""The wrapper modules' persistent build trees (modules.sync_sources): only
changed files are rewritten, so kbuild rebuilds just what an edit touched;
anything that could leave stale objects starts the tree afresh."""
import os
import pathlib
import pwd
import shutil
import tempfile
import types
import unittest

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import confine, debian, modules
from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BenchError


class SyncSourcesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.src, self.tree = root / "src", root / "tree"
        (self.src / "driver").mkdir(parents=True)
        for name in ("a.c", "b.c"):
            (self.src / "driver" / name).write_text(f"/* {name} */\n")
        (self.src / "driver" / "a.o").write_text("stale object\n")
        (self.src / ".git").mkdir()
        (self.src / ".git" / "HEAD").write_text("ref\n")

    def tearDown(self):
        self.tmp.cleanup()

    def sync(self):
        modules.sync_sources(modules.source_files(self.src), self.tree)

    def age(self, *names):
        """Backdate tree files, as if built long ago; their mtimes."""
        for name in names:
            os.utime(self.tree / name, (1, 1))

    def test_copies_sources_only(self):
        self.sync()
        self.assertEqual((self.tree / "driver" / "a.c").read_text(),
                         "/* a.c */\n")
        self.assertFalse((self.tree / "driver" / "a.o").exists())
        self.assertFalse((self.tree / ".git").exists())

    def test_only_the_edited_file_is_rewritten(self):
        self.sync()
        (self.tree / "driver" / "a.o").write_text("built\n")
        self.age("driver/a.c", "driver/b.c")
        (self.src / "driver" / "b.c").write_text("/* edited */\n")
        self.sync()
        self.assertEqual((self.tree / "driver" / "a.c").stat().st_mtime, 1)
        self.assertGreater((self.tree / "driver" / "b.c").stat().st_mtime, 1)
        self.assertEqual((self.tree / "driver" / "b.c").read_text(),
                         "/* edited */\n")
        # build output survives an incremental sync
        self.assertTrue((self.tree / "driver" / "a.o").exists())

    def test_removed_file_starts_afresh(self):
        self.sync()
        (self.tree / "driver" / "b.o").write_text("built\n")
        (self.src / "driver" / "b.c").unlink()
        self.sync()
        self.assertFalse((self.tree / "driver" / "b.c").exists())
        self.assertFalse((self.tree / "driver" / "b.o").exists())

    def test_interrupted_build_starts_afresh(self):
        self.sync()
        (self.tree / "driver" / "a.o").write_text("half written\n")
        (self.tree / modules.BUILDING).touch()
        self.sync()
        self.assertFalse((self.tree / "driver" / "a.o").exists())
        self.assertFalse((self.tree / modules.BUILDING).exists())


@unittest.skipUnless(shutil.which(confine.BWRAP), "bwrap missing")
class ConfinedMakeTest(unittest.TestCase):
    """A tree's make runs as the build user, not as the bench's root, and
    the bench still publishes what it built."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = pathlib.Path(tmp.name)
        self.cache = Cache(self.root / "cache")
        self.src = self.root / "src"
        self.src.mkdir()
        # what a hostile tree's Makefile can do: run anything, try the
        # cache, leave a symlink where the bench reads its output
        (self.src / "Makefile").write_text(
            "all:\n\tid -u > out.ko\n"
            "\t-touch $(CACHE)/poisoned\n"
            "\tln -sf /etc/hostname link.ko\n")
        kernel = types.SimpleNamespace(name="k", arch=debian.HOST_ARCH,
                                       is_debian=False, suite=None)
        self.art = types.SimpleNamespace(kernel=kernel, key="kkey")
        modules._TOOLCHAINS.clear()
        self.addCleanup(modules._TOOLCHAINS.clear)

    def make(self, built):
        ko = self.root / "x.ko"
        modules._incremental_make(
            self.cache, self.art, "x", modules.source_files(self.src),
            ["make", "-C", "{tree}", f"CACHE={self.cache.root}"], built, ko,
            self.root / "log", read=[self.root / "src"])
        return ko

    def test_make_runs_unprivileged(self):
        ko = self.make("out.ko")
        uid = int(ko.read_text())
        self.assertNotEqual(uid, 0)
        if os.geteuid() == 0:
            self.assertEqual(uid, pwd.getpwnam(confine.BUILD_USER).pw_uid)
        self.assertFalse((self.cache.root / "poisoned").exists())

    def test_symlinked_output_not_followed(self):
        with self.assertRaisesRegex(BenchError, "link.ko: a symlink in a "
                                                "build folder"):
            self.make("link.ko")


if __name__ == "__main__":
    unittest.main()
