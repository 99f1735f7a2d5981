"""The test command's paths stage: every row without a wiphy (the wrapper's
own wireless extensions, wiphy=0) runs there on its kernels, so the test
command exercises iwconfig and `wpa_supplicant -Dwext` as well."""
import unittest

import helpers  # noqa: F401  (puts scripts/ on the path)
from ndisbench_lib import devices
from ndisbench_lib.commands import selftest


class PathsStageRowsTest(unittest.TestCase):
    def test_every_wext_row_runs_in_the_paths_stage(self):
        wext = [d.label for d in devices.TARGETS if d.variant == "wext"]
        self.assertIn("bcm43xx-wext/ndiswrapper", wext)
        self.assertIn("rtl8187-wext/ndiswrapper", wext)
        self.assertEqual(sorted(selftest.WEXT_ROWS), sorted(wext))


if __name__ == "__main__":
    unittest.main()
