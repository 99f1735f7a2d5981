"""The kernel and device axes expand to exactly the rows main had before
they became tables (tests/unit/data/axes-*.json, made by axes_snapshot.py
from that commit): the same names in the same order and every field that
goes into a kernel's cache key or a guest's command line. A changed
kernel field is a changed cache key (every kernel rebuilt); changed QEMU
arguments no longer match the saved boots."""
import json
import unittest

import axes_snapshot


class AxesSnapshotTest(unittest.TestCase):
    maxDiff = None

    def test_kernel_rows_unchanged(self):
        want = json.loads(axes_snapshot.KERNELS_JSON.read_text())
        got = axes_snapshot.kernel_rows()
        self.assertEqual([r["name"] for r in got], [r["name"] for r in want])
        for row_got, row_want in zip(got, want):
            self.assertEqual(row_got, row_want, row_want["name"])

    def test_device_rows_unchanged(self):
        want = json.loads(axes_snapshot.DEVICES_JSON.read_text())
        got = axes_snapshot.device_rows()
        self.assertEqual([r["label"] for r in got["rows"]],
                         [r["label"] for r in want["rows"]])
        for row_got, row_want in zip(got["rows"], want["rows"]):
            # Fields added since (the row's model and variant) are new
            # facts, not changed ones; every field main had is the same.
            self.assertEqual({k: row_got.get(k) for k in row_want},
                             row_want, row_want["label"])
        # A group is a membership test (Check.applies: `in`), so its rows
        # are compared as a set; its order was never output.
        self.assertEqual({g: sorted(rows) for g, rows in got["groups"].items()},
                         {g: sorted(rows)
                          for g, rows in want["groups"].items()})
        for key in ("wext_row", "names", "usb_ids", "nics", "fuzz_configs"):
            self.assertEqual(got[key], want[key], key)

    def test_snapshot_sees_a_changed_field(self):
        """The comparison is only as good as the dump: one changed QEMU
        argument or patch path shows."""
        rows = axes_snapshot.device_rows()["rows"]
        want = json.loads(axes_snapshot.DEVICES_JSON.read_text())["rows"]
        rows[2]["qemu_args"][-1] += ",x=1"
        self.assertNotEqual(rows, want)
        kernel_rows = axes_snapshot.kernel_rows()
        kernel_rows[-1]["patch"] = "guest/patches/other.patch"
        self.assertNotEqual(
            kernel_rows, json.loads(axes_snapshot.KERNELS_JSON.read_text()))


if __name__ == "__main__":
    unittest.main()
