"""The content-addressed cache: keys follow inputs, entries appear whole or
not at all."""
import pathlib
import stat
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

    def test_python_byte_code_is_not_source(self):
        # Python writes __pycache__/*.pyc beside a script it runs (the
        # fixtures stage runs fixtures/check_imports.py), stamped with the
        # source's mtime: a clone's own. In a key, it made every clone's
        # fixtures, initramfs and saved boots new.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "tool.py").write_text("x = 1\n")
            first = cache.tree_digest(root)
            for where in (root, root / "sub"):
                (where / "__pycache__").mkdir(parents=True)
                (where / "__pycache__" / "tool.cpython-311.pyc"
                 ).write_bytes(b"\x00stamp")
                self.assertEqual(cache.tree_digest(root), first)

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

    def test_twin_that_wins_the_rename_is_no_error(self):
        """Two runs publish one key: the loser's rename meets the winner's
        complete entry (ENOTEMPTY), and the winner's entry stays."""
        import errno
        import os
        from unittest import mock
        real_rename = os.rename

        def twin_first(src, dst):
            twin = pathlib.Path(dst)
            twin.mkdir(parents=True)
            (twin / "from").write_text("twin")
            (twin / cache.COMPLETE).write_text("{}")
            raise OSError(errno.ENOTEMPTY, "Directory not empty", str(dst))

        with mock.patch.object(cache.os, "rename", twin_first):
            with self.cache.publish("kernels", "k", {}) as tmp:
                (tmp / "from").write_text("me")
        self.assertIs(cache.os.rename, real_rename)
        entry = self.cache.lookup("kernels", "k")
        self.assertEqual((entry / "from").read_text(), "twin")
        self.assertEqual([p.name for p in
                          (self.cache.root / "kernels").iterdir()
                          if p.name.endswith(".tmp") or ".tmp-" in p.name],
                         [])

    def test_two_threads_publishing_one_key_keep_their_scratch(self):
        import threading
        inside, second_in = threading.Event(), threading.Event()
        seen = {}

        def second():
            inside.wait(10)
            with self.cache.publish("kernels", "k", {}) as tmp:
                second_in.set()
                (tmp / "from").write_text("second")

        thread = threading.Thread(target=second)
        thread.start()
        with self.cache.publish("kernels", "k", {}) as tmp:
            (tmp / "from").write_text("first")
            inside.set()
            second_in.wait(10)
            seen["first"] = (tmp / "from").exists()
        thread.join(10)
        self.assertTrue(seen["first"], "the other thread's publish "
                                       "removed this one's scratch")
        entry = self.cache.lookup("kernels", "k")
        self.assertIn((entry / "from").read_text(), ("first", "second"))


class CacheBudgetTest(unittest.TestCase):
    """One least-recently-used budget over the whole cache, and a floor
    of free space before big writes."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.cache = cache.Cache(self.root)
        self.now = 1_900_000_000.0
        self.addCleanup(cache.forget_in_use)

    def tearDown(self):
        self.tmp.cleanup()

    def make(self, rel, size, hours_ago, folder=True):
        import os
        path = self.root / rel
        if folder:
            path.mkdir(parents=True)
            (path / "data").write_bytes(b"x" * size)
            (path / cache.COMPLETE).write_text("{}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"x" * size)
        stamp = self.now - hours_ago * 3600
        os.utime(path, (stamp, stamp))
        return path

    def test_least_recently_used_go_first_over_every_kind(self):
        old_kernel = self.make("kernels/k1", 4000, 50)
        old_image = self.make("initramfs/a.cpio", 3000, 40, folder=False)
        old_log = self.make("logs/module-x.log", 1000, 30, folder=False)
        tree = self.make("trees/t1", 5000, 20)
        new_kernel = self.make("kernels/k2", 4000, 10)
        gone = cache.prune_cache(self.cache, budget=10000, now=self.now)
        self.assertEqual(sorted(gone), sorted([old_kernel, old_image,
                                               old_log]))
        for path in (tree, new_kernel):
            self.assertTrue(path.exists(), path)

    def test_what_this_command_uses_and_recent_entries_stay(self):
        used = self.make("kernels/k1", 4000, 50)
        recent = self.make("kernels/k2", 4000, 0.5)
        locked = self.make("trees/t1", 4000, 40)
        other = self.make("modules/m1", 4000, 30)
        self.assertEqual(self.cache.lookup("kernels", "k1"), used)
        import fcntl
        lockfile = open(self.root / "trees" / "t1.lock", "w")
        self.addCleanup(lockfile.close)
        fcntl.flock(lockfile, fcntl.LOCK_EX)   # another run builds in it
        gone = cache.prune_cache(self.cache, budget=1, now=self.now)
        self.assertEqual(gone, [other])
        for path in (used, recent, locked):
            self.assertTrue(path.exists(), path)

    def test_an_entry_that_goes_while_counted_is_no_error(self):
        import os
        from unittest import mock
        self.make("kernels/k1", 4000, 50)
        scratch = self.make("snapshots/.k2.x.part", 100, 0.1, folder=False)
        real_lstat = os.lstat
        seen = []

        def vanishing(path, *a, **kw):
            # listed first, renamed away before it is measured
            if str(path) == str(scratch):
                seen.append(path)
                if len(seen) > 1:
                    raise FileNotFoundError(2, "No such file", str(path))
            return real_lstat(path, *a, **kw)

        with mock.patch.object(pathlib.Path, "lstat",
                               lambda self: vanishing(self)):
            gone = cache.prune_cache(self.cache, budget=1, now=self.now)
        self.assertEqual([p.name for p in gone], ["k1"])

    def test_a_file_system_within_the_budget_is_not_walked(self):
        from unittest import mock
        self.make("kernels/k1", 4000, 50)
        with mock.patch.object(cache, "_size") as size:
            self.assertEqual(cache.prune_cache(self.cache, budget=10 ** 18,
                                               now=self.now), [])
        size.assert_not_called()

    def test_budget_and_floor_from_the_environment(self):
        from unittest import mock
        from ndisbench_lib.errors import BenchError
        with mock.patch.dict("os.environ", {"NDISBENCH_CACHE_MB": "500",
                                            "NDISBENCH_FREE_MB": "7"}):
            self.assertEqual(cache.cache_budget(), 500 * 1000 * 1000)
            self.assertEqual(cache.free_floor(), 7 * 1000 * 1000)
        with mock.patch.dict("os.environ", {"NDISBENCH_CACHE_MB": "lots"}):
            with self.assertRaisesRegex(BenchError,
                                        "NDISBENCH_CACHE_MB=lots: not a "
                                        "number of megabytes"):
                cache.cache_budget()
        with mock.patch.dict("os.environ", {}, clear=True):
            self.assertGreaterEqual(cache.cache_budget(), 50_000_000_000)

    def test_no_big_write_below_the_free_space_floor(self):
        import os
        from unittest import mock
        from ndisbench_lib.errors import BenchError
        full = os.statvfs_result((4096, 4096, 1000, 10, 10, 0, 0, 0, 0, 255))
        with mock.patch.object(cache.os, "statvfs", return_value=full), \
                mock.patch.dict("os.environ", {"NDISBENCH_FREE_MB": "100"}):
            with self.assertRaisesRegex(
                    BenchError, r"host: 0 MB free under .* \(below "
                                r"NDISBENCH_FREE_MB=100\)"):
                with self.cache.publish("kernels", "k", {}):
                    pass
        self.assertIsNone(self.cache.lookup("kernels", "k"))



class EntryModeTest(unittest.TestCase):
    """A published entry is 0755 as a plain mkdir makes it (the cache's
    own root is 0700): confined builds read a kernel entry as the build
    user, through a bind of the entry itself. mkdtemp's scratch is 0700,
    and every module build of a fresh cache failed on it ("Permission
    denied")."""

    def test_a_published_entry_is_searchable_by_others(self):
        with tempfile.TemporaryDirectory() as tmp:
            store = cache.Cache(pathlib.Path(tmp) / "c")
            with store.publish("kernels", "k1", {"a": 1}) as scratch:
                (scratch / "headers").mkdir()
            mode = stat.S_IMODE(store.path("kernels", "k1").stat().st_mode)
            self.assertEqual(mode, 0o755)


if __name__ == "__main__":
    unittest.main()
