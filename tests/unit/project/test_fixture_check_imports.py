"""fixtures/check_imports.py: the .def lists of both machines.

The i386 lists (fixtures/lib/i386/) carry the stdcall and fastcall
decoration the i386 import libraries need (Name@N, @Name@N); the name a
driver imports is the undecorated one (dlltool -k), so that is what the
check compares. No mingw-w64 needed: the PE images here are built by
hand (peimage.py). The images are read by the wrapper's loader through
`ndisconf --describe` (build/hosttool.py), not by check_imports itself.
"""
import contextlib
import importlib.util
import io
import pathlib
import re
import tempfile
import unittest

from helpers import REPO
from peimage import AMD64, I386, pe_image
from ndisbench_lib.build import hosttool

ROOT = REPO
LIB = ROOT / "fixtures" / "lib"

_spec = importlib.util.spec_from_file_location(
    "check_imports", ROOT / "fixtures" / "check_imports.py")
check_imports = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_imports)


class ReadDefsTest(unittest.TestCase):
    def test_decorations_are_not_part_of_the_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            pathlib.Path(tmp, "nt.def").write_text(
                "LIBRARY ntoskrnl.exe\nEXPORTS\nKeSetEvent@12\n"
                "@IofCallDriver@8 ; fastcall\nDbgPrint\nAlias=Other\n")
            self.assertEqual(check_imports.read_defs(tmp),
                             {"ntoskrnl.exe": {"KeSetEvent", "IofCallDriver",
                                               "DbgPrint", "Alias"}})

    def test_i386_lists_are_decorated(self):
        """Every i386 stdcall/fastcall name carries @N, N a multiple of 4
        (the callee pops whole stack slots); the cdecl C runtime and the
        variadic DbgPrint have none."""
        cdecl = {"DbgPrint", "memcpy", "memset", "memcmp"}
        defs = sorted((LIB / "i386").glob("*.def"))
        self.assertEqual([d.name for d in defs],
                         ["hal.def", "ndis.def", "ntoskrnl.def", "usbd.def"])
        for path in defs:
            in_exports = False
            for raw in path.read_text().splitlines():
                line = raw.split(";", 1)[0].strip()
                if line.upper() == "EXPORTS":
                    in_exports = True
                    continue
                if not in_exports or not line:
                    continue
                with self.subTest(def_file=path.name, name=line):
                    if line in cdecl:
                        continue
                    m = re.fullmatch(r"@?\w+@(\d+)", line)
                    self.assertIsNotNone(m, "no @N decoration")
                    self.assertEqual(int(m.group(1)) % 4, 0)

    def test_same_dlls_on_both_machines(self):
        self.assertEqual(set(check_imports.read_defs(LIB)),
                         set(check_imports.read_defs(LIB / "i386")))


class MachineTest(unittest.TestCase):
    """Each driver is checked against its own machine's lists."""

    def run_check(self, image: bytes, quiet: bool = True) -> int:
        return self.check_output(image, quiet)[0]

    def check_output(self, image: bytes, quiet: bool = True):
        """(exit status, what it printed) of one image's check."""
        out = io.StringIO()
        # built (with its progress lines) before what is printed is caught
        tool = hosttool.ndisconf()
        with tempfile.TemporaryDirectory() as tmp:
            sys_file = pathlib.Path(tmp, "d.sys")
            sys_file.write_bytes(image)
            with contextlib.redirect_stdout(out):
                rc = check_imports.check(str(sys_file), None, quiet, tool)
        return rc, out.getvalue().replace(tmp, "TMP")

    def test_i386_names(self):
        # KfAcquireSpinLock is HAL's on i386 (fastcall), not on amd64
        img = pe_image(I386, {"HAL.dll": ["KfAcquireSpinLock"]})
        self.assertEqual(self.run_check(img), 0)
        img = pe_image(AMD64, {"HAL.dll": ["KfAcquireSpinLock"]})
        self.assertEqual(self.run_check(img), 1)

    def test_decorated_import_is_unknown(self):
        # a .sys importing the decorated name was linked without -k
        img = pe_image(I386, {"ntoskrnl.exe": ["KeSetEvent@12"]})
        self.assertEqual(self.run_check(img), 1)
        img = pe_image(I386, {"ntoskrnl.exe": ["KeSetEvent"]})
        self.assertEqual(self.run_check(img), 0)

    def test_other_machine(self):
        img = pe_image(0xAA64, {"ntoskrnl.exe": ["KeSetEvent"]})
        rc, out = self.check_output(img)
        self.assertEqual(rc, 2)
        self.assertEqual(out, "TMP/d.sys: not a valid PE image: machine "
                              "0xaa64 (ARM64) is not x86_64 (0x8664)\n")

    def test_import_outside_the_allowed_dlls(self):
        """A DLL no .def file names: every import listed as the loader
        read it, the unknown one in ndiswrapper's wording."""
        img = pe_image(AMD64, {"NDIS.SYS": ["NdisMRegisterMiniport"],
                               "WDFLDR.SYS": ["WdfVersionBind"]})
        rc, out = self.check_output(img, quiet=False)
        self.assertEqual(rc, 1)
        self.assertEqual(out.splitlines(), [
            "TMP/d.sys: machine 0x8664, 2 imports",
            "  NDIS.SYS!NdisMRegisterMiniport",
            "  unknown symbol: WDFLDR.SYS:'WdfVersionBind'",
            "TMP/d.sys: 1 import(s) not in the .def lists"])

    def test_a_malformed_image_is_the_loaders_refusal(self):
        img = bytearray(pe_image(AMD64))
        img[0x98 + 36:0x98 + 40] = (0x100).to_bytes(4, "little")
        rc, out = self.check_output(bytes(img))
        self.assertEqual(rc, 2)
        self.assertEqual(out, "TMP/d.sys: not a valid PE image: bad "
                              "alignment: section 0x1000, file 0x100 "
                              "(powers of two, file 512..64K, section >= "
                              "file)\n")

    def test_no_pe_reader_of_its_own(self):
        """One reader of PE files: the wrapper's loader (the struct
        module, which a PE reader needs, is not even imported)."""
        self.assertFalse(hasattr(check_imports, "struct"))
        for reader in ("u16", "u32", "u64", "cstr"):
            self.assertFalse(hasattr(check_imports, reader), reader)


if __name__ == "__main__":
    unittest.main()
