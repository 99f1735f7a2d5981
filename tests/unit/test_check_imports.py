"""fixtures/check_imports.py: the .def lists of both machines.

The i386 lists (fixtures/lib/i386/) carry the stdcall and fastcall
decoration the i386 import libraries need (Name@N, @Name@N); the name a
driver imports is the undecorated one (dlltool -k), so that is what the
check compares. No mingw-w64 needed: the PE images here are built by
hand, only their import tables.
"""
import importlib.util
import pathlib
import re
import struct
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = ROOT / "fixtures" / "lib"

_spec = importlib.util.spec_from_file_location(
    "check_imports", ROOT / "fixtures" / "check_imports.py")
check_imports = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_imports)


def pe_image(machine: int, dll: str, names: list) -> bytes:
    """A minimal PE image (PE32 for i386, PE32+ for amd64) whose only
    content is an import table of dll with names."""
    pe64 = machine == 0x8664
    step = 8 if pe64 else 4
    opt_fixed = 112 if pe64 else 96
    optsize = opt_fixed + 16 * 8
    data = bytearray(0x1000)
    data[0:2] = b"MZ"
    struct.pack_into("<I", data, 0x3C, 0x80)
    data[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", data, 0x84, machine, 1, 0, 0, 0, optsize,
                     0x2102)
    opt = 0x98
    struct.pack_into("<H", data, opt, 0x20B if pe64 else 0x10B)
    struct.pack_into("<I", data, opt + opt_fixed - 4, 16)
    struct.pack_into("<II", data, opt + opt_fixed + 8, 0x1000, 40)
    sect = opt + optsize
    data[sect:sect + 8] = b".idata\0\0"
    struct.pack_into("<IIII", data, sect + 8, 0x800, 0x1000, 0x800, 0x800)
    base = 0x800    # file offset of RVA 0x1000
    ilt, names_at, dll_at = 0x1100, 0x1200, 0x1080
    struct.pack_into("<IIIII", data, base, ilt, 0, 0, dll_at, ilt)
    data[base + 0x80:base + 0x80 + len(dll) + 1] = dll.encode() + b"\0"
    at = names_at
    for i, name in enumerate(names):
        struct.pack_into("<Q" if pe64 else "<I", data,
                         base + ilt - 0x1000 + i * step, at)
        raw = name.encode() + b"\0"
        data[base + at - 0x1000 + 2:base + at - 0x1000 + 2 + len(raw)] = raw
        at += 2 + len(raw) + (len(raw) & 1)
    return bytes(data)


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

    def run_check(self, image: bytes) -> int:
        with tempfile.TemporaryDirectory() as tmp:
            sys_file = pathlib.Path(tmp, "d.sys")
            sys_file.write_bytes(image)
            return check_imports.check(str(sys_file), None, True)

    def test_i386_names(self):
        # KfAcquireSpinLock is HAL's on i386 (fastcall), not on amd64
        img = pe_image(0x14C, "HAL.dll", ["KfAcquireSpinLock"])
        self.assertEqual(self.run_check(img), 0)
        img = pe_image(0x8664, "HAL.dll", ["KfAcquireSpinLock"])
        self.assertEqual(self.run_check(img), 1)

    def test_decorated_import_is_unknown(self):
        # a .sys importing the decorated name was linked without -k
        img = pe_image(0x14C, "ntoskrnl.exe", ["KeSetEvent@12"])
        self.assertEqual(self.run_check(img), 1)
        img = pe_image(0x14C, "ntoskrnl.exe", ["KeSetEvent"])
        self.assertEqual(self.run_check(img), 0)

    def test_other_machine(self):
        img = pe_image(0xAA64, "ntoskrnl.exe", ["KeSetEvent"])
        self.assertEqual(self.run_check(img), 2)


if __name__ == "__main__":
    unittest.main()
