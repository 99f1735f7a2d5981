"""The wrapper's Windows export tables against what drivers import.

wrapper/driver/gen_exports.sh builds one table per Windows module from
the WIN_FUNC(name) / WIN_FUNC_NAMED(name, function) lines of the files it
lists for that module. These tests read the same lines (no kernel build
needed) and check them against the fixtures' import lists
(fixtures/lib/*.def, the names our DDK-built drivers import) and against
the names DDK-built NDIS 5 drivers written by others import (a wrapper
that only runs our own fixtures proves little).
"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
DRIVER = ROOT / "wrapper" / "driver"
FIXTURE_LIB = ROOT / "fixtures" / "lib"

EXPORT_RE = re.compile(
    r"^WIN_FUNC\((\w+)\);$|^WIN_FUNC_NAMED\((\w+),\s*\w+\);$", re.M)
# The i386-only exports (names Windows has on x86 alone; _ASM: written in
# assembly), and every export with its C function, for the i386 decoration
# check.
EXPORT_I386_RE = re.compile(r"^WIN_FUNC_I386(?:_ASM)?\((\w+)\);$", re.M)
EXPORT_I386_ASM_RE = re.compile(r"^WIN_FUNC_I386_ASM\((\w+)\);$", re.M)
EXPORT_FUNC_RE = re.compile(
    r"^WIN_FUNC(?:_I386)?\((\w+)\);$|^WIN_FUNC_NAMED\((\w+),\s*(\w+)\);$",
    re.M)


def dll_sources() -> list:
    """[(dll, [source file names])] from gen_exports.sh's dlls= table."""
    text = (DRIVER / "gen_exports.sh").read_text()
    m = re.search(r'^dlls="([^"]*)"', text, re.M | re.S)
    if not m:
        raise AssertionError("gen_exports.sh: no dlls= table")
    out = []
    for entry in m.group(1).split():
        _table, dll, files = entry.split(":")
        out.append((dll, files.split(",")))
    return out


def wrapper_exports(arch: str = "amd64") -> dict:
    """{dll name (lower case): set of exported names}, as gen_exports.sh
    builds them for arch (amd64 or i386)."""
    tables = {}
    for dll, files in dll_sources():
        names = tables.setdefault(dll.lower(), set())
        for name in files:
            src = (DRIVER / name).read_text()
            for a, b in EXPORT_RE.findall(src):
                names.add(a or b)
            if arch == "i386":
                names.update(EXPORT_I386_RE.findall(src))
    return tables


# Argument types wider than a 4-byte i386 stack slot.
WIDE_TYPES = {"u64", "s64"}


def split_params(params: str) -> list:
    """A C parameter list at its top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def i386_signatures() -> dict:
    """{dll (lower case): {export name: (convention, argument bytes)}}
    from the definitions of the exported C functions: the convention is
    the WIN_ABI (stdcall), WIN_FASTCALL or WIN_CDECL of the definition,
    the bytes 4 per argument and 8 per u64/s64 (None when variadic)."""
    out = {}
    for dll, files in dll_sources():
        table = out.setdefault(dll.lower(), {})
        for name in files:
            src = (DRIVER / name).read_text()
            for plain, named, func in EXPORT_FUNC_RE.findall(src):
                export, cfunc = (plain, plain) if plain else (named, func)
                m = re.search(r"\bWIN_(ABI|FASTCALL|CDECL)\b[^;{}]*?\b"
                              + cfunc + r"\s*\(([^{;]*?)\)\s*\{", src, re.S)
                if not m:
                    raise AssertionError(f"{name}: no WIN_ABI, WIN_FASTCALL "
                                         f"or WIN_CDECL definition of {cfunc}")
                conv = {"ABI": "stdcall", "FASTCALL": "fastcall",
                        "CDECL": "cdecl"}[m.group(1)]
                params = split_params(m.group(2))
                if params == ["void"]:
                    params = []
                if "..." in params:
                    nbytes = None
                else:
                    nbytes = sum(8 if p.split()[0] in WIDE_TYPES
                                 and "*" not in p else 4 for p in params)
                table[export] = (conv, nbytes)
    return out


def def_exports(path: pathlib.Path) -> tuple:
    """(LIBRARY name, the first word of each EXPORTS line) of a .def file."""
    dll, words, in_exports = None, [], False
    for raw in path.read_text().splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        word = line.split()[0]
        if word.upper() == "LIBRARY":
            dll = line.split()[1]
        elif word.upper() == "EXPORTS":
            in_exports = True
        elif in_exports:
            words.append(word)
    return dll, words


def i386_def_entries() -> dict:
    """{dll (lower case): {name: (convention, bytes)}} from
    fixtures/lib/i386/*.def: Name@N stdcall, @Name@N fastcall, Name cdecl
    (bytes None)."""
    out = {}
    for path in sorted((FIXTURE_LIB / "i386").glob("*.def")):
        dll, words = def_exports(path)
        entries = {}
        for word in words:
            m = re.fullmatch(r"(@?)(\w+?)(?:@(\d+))?", word)
            if not m:
                raise AssertionError(f"{path.name}: bad entry {word}")
            at, name, n = m.groups()
            if at:
                entries[name] = ("fastcall", int(n))
            elif n is not None:
                entries[name] = ("stdcall", int(n))
            else:
                entries[name] = ("cdecl", None)
        out.setdefault(dll.lower(), {}).update(entries)
    return out


def fixture_imports() -> dict:
    """{dll (lower case): names} from fixtures/lib/*.def."""
    out = {}
    for path in sorted(FIXTURE_LIB.glob("*.def")):
        dll, words = def_exports(path)
        names = set(words)
        out.setdefault(dll.lower(), set()).update(names)
    return out


# What mingw-w64-built NDIS 5 miniports written by others import (among
# them the port I/O, PCI configuration and shutdown handler exports of a
# wired miniport such as fixtures/drivers/rtl8139nd), and the C runtime of ntoskrnl.exe that DDK macros (RtlCopyMemory,
# RtlZeroMemory, RtlEqualMemory, RtlMoveMemory) and drivers call.
ISSUE_14 = {
    "ndis.sys": {
        "NdisMSetPeriodicTimer", "NdisMSleep",
        "NdisMInitializeScatterGatherDma", "NDIS_BUFFER_TO_SPAN_PAGES",
        "NdisGetSystemUpTime",
        "NdisMRegisterIoPortRange", "NdisMDeregisterIoPortRange",
        "NdisReadPciSlotInformation", "NdisWritePciSlotInformation",
        "NdisMRegisterAdapterShutdownHandler",
        "NdisMDeregisterAdapterShutdownHandler",
    },
    "ntoskrnl.exe": {
        "KeAcquireSpinLockAtDpcLevel", "KeReleaseSpinLockFromDpcLevel",
        "KeAcquireSpinLockRaiseToDpc", "KeReleaseSpinLock",
        "MmMapLockedPages", "DbgBreakPoint", "__C_specific_handler",
        "memcpy", "memset", "memmove", "memcmp", "memchr",
        "strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy",
        "strcat", "strncat", "strchr", "strrchr", "strstr",
        "_stricmp", "_strnicmp", "_snprintf", "_vsnprintf",
        "tolower", "toupper", "wcslen",
    },
}


class WrapperExportsTest(unittest.TestCase):
    def setUp(self):
        self.exports = wrapper_exports()

    def test_fixture_imports_are_exported(self):
        for dll, names in fixture_imports().items():
            missing = sorted(names - self.exports.get(dll, set()))
            self.assertEqual(missing, [], f"{dll}: fixtures import these, "
                             "the wrapper does not export them")

    def test_issue_14_names_are_exported(self):
        for dll, names in ISSUE_14.items():
            missing = sorted(names - self.exports.get(dll, set()))
            self.assertEqual(missing, [], f"{dll}: not exported")

    def test_names_are_unique_per_dll(self):
        for entry in re.findall(r"\b\w+:[\w.]+:[\w.,]+",
                                (DRIVER / "gen_exports.sh").read_text()):
            _t, dll, files = entry.split(":")
            seen = {}
            for name in files.split(","):
                for a, b in EXPORT_RE.findall((DRIVER / name).read_text()):
                    n = a or b
                    self.assertNotIn(n, seen, f"{dll}: {n} exported twice")
                    seen[n] = name


class I386ExportsTest(unittest.TestCase):
    """The i386 table: the names an XP driver imports, each exported with
    the convention and (stdcall, fastcall) argument bytes its decoration in
    fixtures/lib/i386/*.def says; a wrong byte count is a stack the callee
    pops wrongly."""

    def test_i386_def_names_are_exported(self):
        exports = wrapper_exports("i386")
        for dll, entries in i386_def_entries().items():
            missing = sorted(set(entries) - exports.get(dll, set()))
            self.assertEqual(missing, [], f"{dll}: the i386 fixtures import "
                             "these, the wrapper does not export them")

    def test_i386_decoration_matches_the_definition(self):
        sigs = i386_signatures()
        for dll, entries in i386_def_entries().items():
            for name, want in sorted(entries.items()):
                got = sigs.get(dll, {}).get(name)
                if want[0] == "cdecl":
                    self.assertEqual(got and got[0], "cdecl",
                                     f"{dll}: {name} must be WIN_CDECL")
                else:
                    self.assertEqual(got, want, f"{dll}: {name}: (convention,"
                                     " argument bytes) of the definition vs "
                                     "the .def's decoration")

    def test_i386_only_names_stay_out_of_amd64(self):
        amd64 = wrapper_exports("amd64")
        i386 = wrapper_exports("i386")
        for dll in ("hal.dll", "ntoskrnl.exe"):
            only = i386[dll] - amd64[dll]
            self.assertIn("KeQueryInterruptTime" if dll == "ntoskrnl.exe"
                          else "KfAcquireSpinLock", only)
        self.assertNotIn("KfAcquireSpinLock", amd64["hal.dll"])

    def test_assembly_exports_are_defined_in_assembly(self):
        asm = "".join(p.read_text() for p in sorted(DRIVER.glob("*_32.S")))
        defined = set(re.findall(r"^SYM_FUNC_START\((\w+)\)$", asm, re.M))
        defined |= set(re.findall(r"^DVRM (\w+),", asm, re.M))
        named = set()
        for _dll, files in dll_sources():
            for name in files:
                named.update(EXPORT_I386_ASM_RE.findall(
                    (DRIVER / name).read_text()))
        self.assertEqual(named, {"_alldvrm", "_aulldvrm", "_allshl",
                                 "_aullshl", "_allshr", "_aullshr"})
        self.assertEqual(sorted(named - defined), [])
        self.assertTrue(named <= wrapper_exports("i386")["ntoskrnl.exe"])
        self.assertFalse(named & wrapper_exports("amd64")["ntoskrnl.exe"])

    def test_signature_parser_reads_wide_and_fastcall(self):
        self.assertEqual(split_params("void *a, u64 pa, void (*f)(int, int)"),
                         ["void *a", "u64 pa", "void (*f)(int, int)"])
        sigs = i386_signatures()
        self.assertEqual(sigs["ndis.sys"]["NdisMMapIoSpace"], ("stdcall", 20))
        self.assertEqual(sigs["ndis.sys"]["NdisMAllocateSharedMemory"],
                         ("stdcall", 20))


if __name__ == "__main__":
    unittest.main()
