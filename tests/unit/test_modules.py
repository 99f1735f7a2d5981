"""The wrapper modules' persistent build trees (modules.sync_sources): only
changed files are rewritten, so kbuild rebuilds just what an edit touched;
anything that could leave stale objects starts the tree afresh."""
import os
import pathlib
import tempfile
import unittest

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import modules


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


if __name__ == "__main__":
    unittest.main()
