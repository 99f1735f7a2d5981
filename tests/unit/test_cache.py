"""The content-addressed cache: keys follow inputs, entries appear whole or
not at all."""
import pathlib
import tempfile
import unittest

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import cache, modules
from ndisbench_lib.errors import BenchError


class CacheKeyTest(unittest.TestCase):
    def test_key_is_stable_and_order_independent(self):
        a = cache.digest_inputs({"version": "6.1.192-3", "patch": "abc"})
        b = cache.digest_inputs({"patch": "abc", "version": "6.1.192-3"})
        self.assertEqual(a, b)

    def test_every_input_changes_the_key(self):
        base = {"package": "linux-source-6.1", "version": "6.1.192-3",
                "config": "c1", "patch": "p1", "cc": "gcc 12.2.0"}
        key = cache.digest_inputs(base)
        for field in base:
            changed = dict(base, **{field: base[field] + "x"})
            self.assertNotEqual(cache.digest_inputs(changed), key, field)

    def test_tree_digest_follows_content_and_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "a.c").write_text("int a;\n")
            first = cache.tree_digest(root)
            self.assertEqual(cache.tree_digest(root), first)
            (root / "a.c").write_text("int b;\n")
            second = cache.tree_digest(root)
            self.assertNotEqual(second, first)
            (root / "a.c").rename(root / "b.c")
            self.assertNotEqual(cache.tree_digest(root), second)

    def test_symlink_out_of_the_tree_refused(self):
        # A user's tree must not make the bench (root) read what lies
        # outside it: neither a file nor a folder.
        with tempfile.TemporaryDirectory() as tmp:
            outside = pathlib.Path(tmp) / "outside"
            outside.mkdir()
            (outside / "secret").write_text("root only\n")
            for name, target in (("leak", outside / "secret"),
                                 ("dir", outside)):
                root = pathlib.Path(tmp) / f"tree-{name}"
                (root / "driver").mkdir(parents=True)
                (root / "driver" / name).symlink_to(target)
                pattern = (f"tree-{name}: driver/{name} is a symlink out "
                           f"of the tree \\(to {target}\\)")
                with self.assertRaisesRegex(BenchError, pattern):
                    cache.tree_digest(root)
                with self.assertRaisesRegex(BenchError, pattern):
                    modules.source_files(root)

    def test_symlink_inside_the_tree_followed(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "inc").mkdir()
            (root / "inc" / "a.h").write_text("#define A\n")
            (root / "driver").mkdir()
            (root / "driver" / "a.h").symlink_to("../inc/a.h")
            files = modules.source_files(root)
            self.assertEqual(sorted(files), ["driver/a.h", "inc/a.h"])
            first = cache.tree_digest(root)
            (root / "inc" / "a.h").write_text("#define B\n")
            self.assertNotEqual(cache.tree_digest(root), first)

    def test_compiler_id_names_a_version(self):
        self.assertRegex(cache.compiler_id(), r"\d+\.\d+")


class CachePublishTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = cache.Cache(pathlib.Path(self.tmp.name))

    def tearDown(self):
        self.tmp.cleanup()

    def test_publish_then_lookup(self):
        self.assertIsNone(self.cache.lookup("kernels", "k"))
        with self.cache.publish("kernels", "k", {"x": 1}) as tmp:
            (tmp / "bzImage").write_bytes(b"img")
        entry = self.cache.lookup("kernels", "k")
        self.assertEqual((entry / "bzImage").read_bytes(), b"img")
        self.assertEqual(self.cache.meta(entry), {"x": 1})

    def test_failed_build_leaves_nothing(self):
        with self.assertRaises(RuntimeError):
            with self.cache.publish("kernels", "k", {}) as tmp:
                (tmp / "half").write_bytes(b"x")
                raise RuntimeError("make failed")
        self.assertIsNone(self.cache.lookup("kernels", "k"))
        self.assertEqual(list((self.cache.root / "kernels").iterdir()), [])

    def test_incomplete_leftover_is_replaced(self):
        stale = self.cache.path("kernels", "k")
        stale.mkdir(parents=True)
        (stale / "junk").write_text("interrupted")
        self.assertIsNone(self.cache.lookup("kernels", "k"))
        with self.cache.publish("kernels", "k", {}) as tmp:
            (tmp / "good").write_text("ok")
        entry = self.cache.lookup("kernels", "k")
        self.assertTrue((entry / "good").exists())
        self.assertFalse((entry / "junk").exists())


if __name__ == "__main__":
    unittest.main()
