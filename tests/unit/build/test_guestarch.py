"""build/guestarch.py: an i386 guest's programs and the libraries they
need, found in unpacked Debian packages without running them."""
import os
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import guestarch
from ndisbench_lib.errors import BenchError


class GuestArchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        lib = self.root / "lib" / "i386-linux-gnu"
        lib.mkdir(parents=True)
        (lib / "ld-linux.so.2").write_bytes(b"ld")
        (lib / "libc.so.6").write_bytes(b"libc")
        (lib / "libnl-3.so.200.26.0").write_bytes(b"nl")
        os.symlink("libnl-3.so.200.26.0", lib / "libnl-3.so.200")
        # Debian's absolute loader link: followed inside the root
        os.symlink("/lib/i386-linux-gnu/ld-linux.so.2",
                   self.root / "lib" / "ld-linux.so.2")
        (self.root / "usr" / "sbin").mkdir(parents=True)
        (self.root / "usr" / "sbin" / "iw").write_bytes(b"iw")
        self.land = guestarch.Userland("i386", self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def test_inside_follows_links_in_the_root(self):
        self.assertEqual(guestarch.inside(self.root, "/lib/ld-linux.so.2"),
                         self.root / "lib/i386-linux-gnu/ld-linux.so.2")
        self.assertEqual(
            guestarch.inside(self.root, "/lib/i386-linux-gnu/libnl-3.so.200"
                             ).read_bytes(), b"nl")

    def test_program_files_take_interpreter_and_libraries(self):
        needs = {"iw": ("/lib/ld-linux.so.2", ["libnl-3.so.200",
                                                "libc.so.6"]),
                 "ld-linux.so.2": ("", []), "libc.so.6": ("", []),
                 "libnl-3.so.200.26.0": ("", ["libc.so.6"])}
        with mock.patch.object(guestarch, "elf_needs",
                               side_effect=lambda p: needs[p.name]):
            files = guestarch.program_files(self.land, ["/usr/sbin/iw"])
        self.assertEqual(sorted(files), [
            "lib/i386-linux-gnu/libc.so.6",
            "lib/i386-linux-gnu/libnl-3.so.200",
            "lib/ld-linux.so.2", "usr/sbin/iw"])
        self.assertEqual(files["lib/i386-linux-gnu/libnl-3.so.200"][0],
                         b"nl")

    def test_merged_usr_twin(self):
        # wireless-tools ships /sbin/iwconfig; the host's name is /usr/sbin
        (self.root / "sbin").mkdir()
        (self.root / "sbin" / "iwconfig").write_bytes(b"iwc")
        with mock.patch.object(guestarch, "elf_needs",
                               return_value=("", [])):
            files = guestarch.program_files(self.land, ["/usr/sbin/iwconfig"])
        self.assertEqual(files, {"usr/sbin/iwconfig": (b"iwc", 0o755)})

    def test_missing_library_is_named(self):
        with mock.patch.object(guestarch, "elf_needs",
                               return_value=("", ["libmnl.so.0"])):
            with self.assertRaises(BenchError) as ctx:
                guestarch.program_files(self.land, ["/usr/sbin/iw"])
        self.assertIn("libmnl.so.0", str(ctx.exception))
        with self.assertRaises(BenchError) as ctx:
            guestarch.program_files(self.land, ["/usr/sbin/ip"])
        self.assertIn("/usr/sbin/ip", str(ctx.exception))

    def test_library_packages(self):
        for name in ("libc6", "libnl-3-200", "zlib1g"):
            self.assertTrue(guestarch.LIBRARY_PACKAGE_RE.match(name), name)
        for name in ("debconf", "perl-base", "zlib1g-dev"):
            self.assertFalse(guestarch.LIBRARY_PACKAGE_RE.match(name), name)

    def test_readelf_reads_a_real_elf(self):
        interp, needed = guestarch.elf_needs(pathlib.Path("/usr/bin/env"))
        self.assertTrue(interp.startswith("/lib"))
        self.assertIn("libc.so.6", needed)


if __name__ == "__main__":
    unittest.main()
