"""Initramfs archive format, PVH note detection, results round trip."""
import struct
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from helpers import REPO  # noqa: F401
from ndisbench_lib.report.verdict import Verdict
from ndisbench_lib.build import kbuild
from ndisbench_lib.report import report
from ndisbench_lib.build.initramfs import Cpio


def elf_with_note(name: bytes, ntype: int) -> bytes:
    """A minimal ELF64 with one PT_NOTE segment."""
    note = struct.pack("<III", len(name) + 1, 4, ntype) + name + b"\0"
    note += b"\0" * ((4 - len(note) % 4) % 4) + b"\0\0\0\0"
    phoff = 64
    note_off = phoff + 56
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", header, 0x20, phoff)
    struct.pack_into("<HH", header, 0x36, 56, 1)
    ph = struct.pack("<IIQQQQQQ", 4, 0, note_off, 0, 0, len(note),
                     len(note), 4)
    return bytes(header) + ph + note


class PvhNoteTest(unittest.TestCase):
    def test_xen_phys32_entry_note_is_found(self):
        self.assertTrue(kbuild.has_pvh_note(elf_with_note(b"Xen", 18)))

    def test_other_notes_are_not_pvh(self):
        self.assertFalse(kbuild.has_pvh_note(elf_with_note(b"Xen", 17)))
        self.assertFalse(kbuild.has_pvh_note(elf_with_note(b"GNU", 18)))
        self.assertFalse(kbuild.has_pvh_note(b"MZ not an elf"))

    def test_parse_config(self):
        cfg = kbuild.parse_config("# c\nCONFIG_A=y\n# CONFIG_B is not set\n"
                                  "CONFIG_C=\"x=y\"\n")
        self.assertEqual(cfg, {"CONFIG_A": "y", "CONFIG_C": "\"x=y\""})


class CpioTest(unittest.TestCase):
    def test_archive_lists_with_cpio(self):
        archive = Cpio()
        archive.add("dev", 0o40755)
        archive.add("dev/console", 0o20600, rdev=(5, 1))
        archive.add("init", 0o100755, b"#!/bin/sh\n")
        archive.add("bin/sh", 0o120777, b"/bin/busybox")
        blob = archive.finish()
        self.assertEqual(len(blob) % 4, 0)
        with tempfile.TemporaryDirectory() as tmp:
            res = subprocess.run(["cpio", "-itv"], input=blob,
                                 capture_output=True, cwd=tmp, timeout=30,
                                 check=True)
        listing = res.stdout.decode()
        for name in ("dev/console", "init", "bin/sh -> /bin/busybox"):
            self.assertIn(name, listing)
        self.assertIn("5,", listing)    # the console's device numbers


class ReportTest(unittest.TestCase):
    def result(self):
        cell = report.CellResult("policy-2.6.25-rc1", "2.6.25-rc1", "none",
                                 "cells/x", "6.1.192", 4.2, 3.1)
        cell.verdicts = {
            "load": Verdict("xfail", "regression reproduced"),
            "taint": Verdict("FAIL", "tainted after load: x",
                                    ("tainted after load: x", "more")),
            "control": Verdict("TIMEOUT", "guest killed"),
        }
        return report.RunResult("run1", "tcg", ["load", "taint", "control"],
                                [cell])

    def test_json_round_trip(self):
        result = self.result()
        again = report.from_json(report.to_json(result))
        self.assertEqual(again, result)

    def test_summary_counts_expected_failures_as_passed(self):
        self.assertTrue(report.summary_line(self.result()).startswith(
            "1 passed, 2 failed"))
        self.assertFalse(self.result().ok)

    def test_junit_marks_failures_and_errors(self):
        root = ET.fromstring(report.junit(self.result()))
        self.assertEqual(root.get("tests"), "3")
        self.assertEqual(root.get("failures"), "1")
        self.assertEqual(root.get("errors"), "1")

    def test_matrix_shows_reproduced(self):
        text = report.matrix(self.result())
        self.assertIn("reproduced", text)
        self.assertIn("TIMEOUT", text)


if __name__ == "__main__":
    unittest.main()
