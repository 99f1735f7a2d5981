"""The source kernels carry the options distribution kernels have and
wrapper trees rely on (guest/config/guest.config, its "distribution
options" section), with Debian's own values: a tree judged on our kernels
must not crash or fail to build for an option no user's kernel lacks.
Debian's config comes from linux-config-6.1, which setup installs."""
import lzma
import pathlib
import unittest

from helpers import REPO
from ndisbench_lib.build.kbuild import parse_config, parse_fragment
from ndisbench_lib.commands import setup

GUEST_CONFIG = REPO / "guest" / "config" / "guest.config"
SECTION = "# ---- distribution options ----"
DEBIAN_CONFIG = pathlib.Path(
    "/usr/src/linux-config-6.1/config.amd64_none_amd64.xz")
# What the trees need at least: pgiri/ndiswrapper's kprobe on
# kallsyms_lookup_name, its wireless-extensions handlers, its strncat
# under FORTIFY_SOURCE; cfg80211's WEXT for iwconfig on a cfg80211 driver;
# the voluntary preemption Debian's kernels boot with (the checks' timing
# is a user's: under PREEMPT_NONE a stream out through a wrapped PCI driver
# overflowed its RX ring, which no Debian kernel did); and the allocator,
# compiler optimization, table sizes and timers every distribution kernel
# has, so that a data path's cost is the one a user's kernel would show
# (tinyconfig's SLOB, -Os and BASE_SMALL made every allocation and copy
# dearer, a wrapped path's many allocations most).
REQUIRED = ("CONFIG_KPROBES", "CONFIG_KALLSYMS", "CONFIG_FORTIFY_SOURCE",
            "CONFIG_CFG80211_WEXT", "CONFIG_WIRELESS_EXT",
            "CONFIG_WEXT_CORE", "CONFIG_WEXT_PROC", "CONFIG_WEXT_PRIV",
            "CONFIG_WEXT_SPY", "CONFIG_SMP", "CONFIG_PREEMPT_VOLUNTARY",
            "CONFIG_SLUB", "CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE",
            "CONFIG_BASE_FULL", "CONFIG_HIGH_RES_TIMERS")


def distro_section() -> dict:
    text = GUEST_CONFIG.read_text()
    if SECTION not in text:
        return {}
    return parse_fragment(text.split(SECTION, 1)[1])


class DistroConfigTest(unittest.TestCase):
    def test_section_has_what_trees_rely_on(self):
        got = distro_section()
        missing = [o for o in REQUIRED if got.get(o) != "y"]
        self.assertEqual(missing, [], f"{GUEST_CONFIG.name}: {SECTION!r} "
                                      f"lacks {missing}")

    def test_values_are_debians(self):
        self.assertTrue(DEBIAN_CONFIG.exists(),
                        f"{DEBIAN_CONFIG} missing: run scripts/ndisbench "
                        f"setup (linux-config-6.1)")
        debian = parse_config(lzma.decompress(
            DEBIAN_CONFIG.read_bytes()).decode())
        ours = distro_section()
        self.assertTrue(ours)
        drift = {k: (v, debian.get(k, "n")) for k, v in ours.items()
                 if debian.get(k, "n") != v}
        self.assertEqual(drift, {}, "ours vs Debian's 6.1 amd64 config")

    def test_setup_installs_debians_config(self):
        self.assertIn("linux-config-6.1", setup.PACKAGES)


if __name__ == "__main__":
    unittest.main()
