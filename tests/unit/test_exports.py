"""The wrapper exports every name our fixtures import: each name of
fixtures/lib/*.def (the import libraries the fixtures link against) is a
WIN_FUNC of the wrapper source files gen_exports.sh builds that DLL's
export table from, so a fixture never fails to load for a missing
export."""
import re
import unittest

from helpers import REPO

DRIVER = REPO / "wrapper" / "driver"
WIN_FUNC_RE = re.compile(r"^WIN_FUNC\((\w+)\);$", re.M)


def wrapper_exports():
    """DLL name (upper case) -> the names its export table has."""
    script = (DRIVER / "gen_exports.sh").read_text()
    table = re.search(r'^dlls="([^"]*)"', script, re.M | re.S).group(1)
    out = {}
    for entry in table.split():
        _, dll, files = entry.split(":")
        out[dll.upper()] = {name for f in files.split(",")
                            for name in WIN_FUNC_RE.findall(
                                (DRIVER / f).read_text())}
    return out


def def_imports(path):
    """(LIBRARY, names) of a .def file."""
    library, names = "", []
    for line in path.read_text().splitlines():
        line = line.split(";", 1)[0].strip()
        if not line or line == "EXPORTS":
            continue
        if line.startswith("LIBRARY"):
            library = line.split()[1].upper()
        else:
            names.append(line.split()[0])
    return library, names


class ExportsTest(unittest.TestCase):
    def test_every_fixture_import_is_exported(self):
        exports = wrapper_exports()
        defs = sorted((REPO / "fixtures" / "lib").glob("*.def"))
        self.assertGreaterEqual(len(defs), 4)
        for path in defs:
            library, names = def_imports(path)
            self.assertIn(library, exports, path.name)
            missing = [n for n in names if n not in exports[library]]
            self.assertEqual(missing, [], f"{path.name}: imported by the "
                             f"fixtures, not exported by the wrapper")

    def test_the_wired_fixtures_exports(self):
        ndis = wrapper_exports()["NDIS.SYS"]
        for name in ("NdisMRegisterIoPortRange", "NdisMDeregisterIoPortRange",
                     "NdisReadPciSlotInformation",
                     "NdisWritePciSlotInformation",
                     "NdisMRegisterAdapterShutdownHandler",
                     "NdisMDeregisterAdapterShutdownHandler"):
            self.assertIn(name, ndis)


if __name__ == "__main__":
    unittest.main()
