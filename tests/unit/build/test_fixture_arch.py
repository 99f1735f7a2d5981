"""The fixture drivers a cell's guest gets are of its kernel's
architecture: the amd64 (PE32+) builds at the top of the fixture entry,
the i386 (PE32) ones under i386/ (fixtures/README.md, "Building")."""
import pathlib
import re
import subprocess
import tempfile
import unittest

from helpers import REPO
from ndisbench_lib import devices, kernels
from ndisbench_lib.build import hostbuild, initramfs
from ndisbench_lib.build.cache import Cache
from ndisbench_lib import cell
from ndisbench_lib.errors import BenchError


class FixtureArchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.entry = pathlib.Path(self.tmp.name)
        for sub, tag in (("bcmwl", b"PE32+"), ("i386/bcmwl", b"PE32")):
            (self.entry / sub).mkdir(parents=True)
            (self.entry / sub / "bcmwl.sys").write_bytes(tag)
            (self.entry / sub / "bcmwl.inf").write_bytes(b"inf " + tag)
        self.by_name = {k.name: k for k in kernels.load_kernels()}

    def tearDown(self):
        self.tmp.cleanup()

    def test_fixture_root(self):
        self.assertEqual(hostbuild.fixture_root(self.entry, "amd64"),
                         self.entry)
        self.assertEqual(hostbuild.fixture_root(self.entry, "i386"),
                         self.entry / "i386")
        (self.entry / "i386" / "bcmwl" / "bcmwl.sys").unlink()
        for p in (self.entry / "i386").rglob("*"):
            if p.is_file():
                p.unlink()
        for p in sorted((self.entry / "i386").rglob("*"), reverse=True):
            p.rmdir()
        (self.entry / "i386").rmdir()
        with self.assertRaises(BenchError) as ctx:
            hostbuild.fixture_root(self.entry, "i386")
        self.assertIn("no i386 fixture", str(ctx.exception))

    def sys_for(self, kernel_name):
        device = devices.select(["bcm43xx"], ["ndiswrapper"])[0]
        plan = cell.plan.CellPlan(self.by_name[kernel_name], device, (),
                                  kernels.load_expectations())
        tool = self.entry / "tool"
        tool.write_bytes(b"tool")
        parts = cell.parts.HostParts(Cache(self.entry / "cache"),
                                     self.entry / "agent", fixtures=self.entry)
        parts.arches["i386"] = cell.parts.ArchParts(
            self.entry / "agent32", {"sbin/ndiswrapper": tool},
            self.entry / "busybox32", {})
        files = cell.compose.cell_extra_files(plan, parts)
        return files[initramfs.fixture_file(device.fixture, device.fixture,
                                            ".sys")][0]

    def test_cell_gets_its_architecture_s_driver(self):
        self.assertEqual(self.sys_for("debian-6.1"), b"PE32+")
        self.assertEqual(self.sys_for("debian-6.1-686"), b"PE32")


    def test_an_i386_cell_without_its_programs_says_why(self):
        device = devices.select(["bcm43xx"], ["ndiswrapper"])[0]
        plan = cell.plan.CellPlan(self.by_name["debian-6.1-686"], device, (),
                                  kernels.load_expectations())
        parts = cell.parts.HostParts(Cache(self.entry / "cache"),
                                     self.entry / "agent", fixtures=self.entry)
        parts.arch_errors["i386"] = BenchError("gcc -m32 cannot link")
        with self.assertRaises(BenchError) as ctx:
            cell.compose.cell_extra_files(plan, parts)
        self.assertIn("gcc -m32", str(ctx.exception))


class FixtureMakefileTest(unittest.TestCase):
    def test_every_rows_fixture_is_built_for_both_architectures(self):
        """Every row that names a fixture gets its .sys and .inf from
        fixtures/Makefile's `all` at the top and under i386/: a row runs
        on the i386 kernels too (with --arch all, or by name)."""
        with tempfile.TemporaryDirectory() as tmp:
            # every target `all` would make in an empty OUT, by --trace
            out = subprocess.run(
                ["make", "-n", "--trace", "-C", str(REPO / "fixtures"),
                 f"OUT={tmp}", "all"], capture_output=True, text=True,
                timeout=60, check=True).stdout
            built = set(re.findall(r"update target '([^']+)'", out))
            fixtures = sorted({d.fixture for d in devices.TARGETS
                               if d.fixture})
            self.assertTrue(fixtures)
            missing = [f"{sub}{f}/{f}{ext}" for f in fixtures
                       for sub in ("", "i386/") for ext in (".sys", ".inf")
                       if f"{tmp}/{sub}{f}/{f}{ext}" not in built]
            self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
