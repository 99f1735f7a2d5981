"""The wrapper's Windows export tables against what drivers import.

wrapper/driver/gen_exports.sh builds one table per Windows module from
the WIN_FUNC(name) / WIN_FUNC_NAMED(name, function) lines of the files it
lists for that module. These tests read the same lines (no kernel build
needed) and check them against the fixtures' import lists
(fixtures/lib/*.def, the names our DDK-built drivers import) and against
the names DDK-built NDIS 5 drivers written by others import (issue 14).
"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DRIVER = ROOT / "wrapper" / "driver"
FIXTURE_LIB = ROOT / "fixtures" / "lib"

EXPORT_RE = re.compile(
    r"^WIN_FUNC\((\w+)\);$|^WIN_FUNC_NAMED\((\w+),\s*\w+\);$", re.M)


def wrapper_exports() -> dict:
    """{dll name (lower case): set of exported names}, as gen_exports.sh."""
    text = (DRIVER / "gen_exports.sh").read_text()
    m = re.search(r'^dlls="([^"]*)"', text, re.M | re.S)
    if not m:
        raise AssertionError("gen_exports.sh: no dlls= table")
    tables = {}
    for entry in m.group(1).split():
        _table, dll, files = entry.split(":")
        names = tables.setdefault(dll.lower(), set())
        for name in files.split(","):
            src = (DRIVER / name).read_text()
            for a, b in EXPORT_RE.findall(src):
                names.add(a or b)
    return tables


def fixture_imports() -> dict:
    """{dll (lower case): names} from fixtures/lib/*.def."""
    out = {}
    for path in sorted(FIXTURE_LIB.glob("*.def")):
        dll, names, in_exports = None, set(), False
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
                names.add(word)
        out.setdefault(dll.lower(), set()).update(names)
    return out


# What mingw-w64-built NDIS 5 miniports import that issue 14 names (among
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


if __name__ == "__main__":
    unittest.main()
