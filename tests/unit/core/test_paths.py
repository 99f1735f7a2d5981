"""The cache is trusted by who owns it (paths.cache_root): made 0700, an
own folder tightened to 0700, a foreign-owned or group/world-writable one
refused with one line."""
import os
import pathlib
import stat
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import paths
from ndisbench_lib.errors import BenchError


class CacheRootTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = pathlib.Path(self.tmp.name)
        self.addCleanup(self.tmp.cleanup)

    def root(self, path):
        with mock.patch.dict(os.environ, {"NDISBENCH_CACHE": str(path)}):
            return paths.cache_root()

    def mode(self, path):
        return stat.S_IMODE(path.stat().st_mode)

    def test_a_new_cache_is_made_0700(self):
        got = self.root(self.base / "a" / "cache")
        self.assertEqual(got, (self.base / "a" / "cache").resolve())
        self.assertEqual(self.mode(got), 0o700)

    def test_an_own_open_cache_is_tightened(self):
        cache = self.base / "cache"
        cache.mkdir(mode=0o755)
        os.chmod(cache, 0o755)
        self.root(cache)
        self.assertEqual(self.mode(cache), 0o700)

    def test_a_writable_cache_is_refused(self):
        for mode in (0o777, 0o770, 0o1777):
            with self.subTest(mode=oct(mode)):
                cache = self.base / f"cache{mode:o}"
                cache.mkdir()
                os.chmod(cache, mode)
                with self.assertRaisesRegex(
                        BenchError, rf"^{cache}: the cache is group- or "
                        rf"world-writable \(mode {mode & 0o777:04o}\): "
                        rf"anyone could plant builds in it; chmod 700 it$"):
                    self.root(cache)
                self.assertEqual(self.mode(cache), mode)

    def test_a_foreign_cache_is_refused(self):
        cache = self.base / "cache"
        cache.mkdir(mode=0o700)
        owner = os.geteuid()
        other = owner + 1
        with mock.patch.object(paths.os, "geteuid", return_value=other):
            with self.assertRaisesRegex(
                    BenchError, rf"^{cache}: the cache belongs to uid "
                    rf"{owner}, not to this user \(uid {other}\)$"):
                self.root(cache)

    def test_a_file_is_not_a_cache(self):
        cache = self.base / "cache"
        cache.write_text("")
        with self.assertRaisesRegex(BenchError, rf"^{cache}: the cache is "
                                                r"not a folder$"):
            self.root(cache)


if __name__ == "__main__":
    unittest.main()
