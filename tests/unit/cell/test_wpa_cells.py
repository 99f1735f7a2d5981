"""The WPA2 network and wpa_supplicant are in the cells of the WPA2 checks
only: every other cell's initramfs files and QEMU command (so the key of
its saved boot) stay as they were."""
import pathlib
import types
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib import devices, kernels
from ndisbench_lib.build import initramfs
from ndisbench_lib.cell import compose, parts as cellparts
from ndisbench_lib.cell.plan import CellPlan
from ndisbench_lib.guest import air

EXP = kernels.load_expectations()
NATIVE = devices.DEVICES["rtl8187/native"]
WPA_CHECKS = ("wpa2", "wpa2-badkey", "rekey")


def plan(checks):
    kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])
    return CellPlan(kernel, NATIVE, tuple(checks), EXP)


def host_parts():
    return cellparts.HostParts(cache=None, agent=pathlib.Path("/agent"),
                               qemu=pathlib.Path("/qemu"))


def command(p):
    prep = types.SimpleNamespace(art=types.SimpleNamespace(
        boot_image=pathlib.Path("/k/bzImage")))
    return compose.guest_command(p, prep, host_parts(),
                                 pathlib.Path("/initrd"), "console=ttyS0")


class WpaCellsTest(unittest.TestCase):
    def test_other_cells_files_are_what_they_were(self):
        ping = plan(("ping", "scan", "tcp"))
        self.assertFalse(compose.joins_wpa2(ping))
        self.assertEqual(compose.wpa_files(ping, host_parts()), {})
        # a native WLAN cell's extra files: iw and the other host
        # programs, exactly as before the WPA2 checks
        self.assertEqual(compose.cell_extra_files(ping, host_parts()),
                         initramfs.host_program_files())

    def test_wpa_cells_carry_wpa_supplicant(self):
        for check in WPA_CHECKS:
            with self.subTest(check):
                p = plan(("ping", check))
                self.assertTrue(compose.joins_wpa2(p))
        files = compose.cell_extra_files(plan(("wpa2",)), host_parts())
        for name in ("usr/sbin/wpa_supplicant", "usr/sbin/wpa_cli",
                     "usr/sbin/iw"):
            self.assertIn(name, files)
        self.assertTrue(any(n.split("/")[-1].startswith("libnl-genl-3.so")
                            for n in files), sorted(files))
        self.assertTrue(any(n.split("/")[-1].startswith("libssl.so")
                            for n in files), sorted(files))

    def test_the_wpa2_ap_only_in_wpa_cells(self):
        without = command(plan(("ping",)))
        self.assertFalse(any(air.WPA2_AP.ssid in w or "passphrase" in w
                             for w in without))
        with_wpa = command(plan(("ping", "wpa2")))
        self.assertIn(air.WPA2_AP.qemu_object(), with_wpa)
        self.assertIn("wlan-ap,id=ap4,air=air0,ssid=ndisbench-wpa2,"
                      "bssid=02:00:00:00:05:00,channel=6,rssi=-45,"
                      "netdev=net2,passphrase=ndisbench-wpa2-secret,"
                      "group-rekey=1", with_wpa)
        # the rest of the command is the other cell's, the AP's
        # arguments added after the air it joins
        extra = [w for w in with_wpa if w not in without]
        self.assertEqual(extra, ["user,id=net2", air.WPA2_AP.qemu_object()])
        self.assertLess(with_wpa.index("-object"),
                        with_wpa.index(air.WPA2_AP.qemu_object()))

    def test_wpa_cells_load_the_ccmp_crypto(self):
        # mac80211 asks the crypto API for ccm(aes) when the PTK is
        # installed; the guest has no modprobe, so a kernel that builds
        # ctr and ccm as modules (Debian's) needs them loaded first
        self.assertEqual(compose.check_modules(plan(("ping", "scan"))), [])
        for check in WPA_CHECKS:
            with self.subTest(check):
                self.assertEqual(
                    compose.check_modules(plan(("ping", check))),
                    ["aes_generic", "ctr", "ccm"])

    def test_a_long_wpa2_stream_gets_room_in_the_capture(self):
        # the bench's streams (64 MiB open, 64 MiB protected) would pass
        # the air's default pcap-max before the WPA2 network's frames
        default = plan(("ping", "wpa2"))
        self.assertEqual(compose.capture_max(default), air.PCAP_MAX)
        self.assertNotIn("pcap-max", " ".join(command(default)))
        bench = CellPlan(default.kernel, NATIVE, ("tcp", "wpa2"), EXP,
                         tcp_bytes=64 << 20, folder=pathlib.Path("/cell"))
        self.assertEqual(compose.capture_max(bench),
                         3 * (64 << 20) + (32 << 20))
        p = types.SimpleNamespace(art=types.SimpleNamespace(
            boot_image=pathlib.Path("/k/bzImage")))
        words = compose.guest_command(bench, p, host_parts(),
                                      pathlib.Path("/initrd"), "console",
                                      ())
        self.assertIn(f"pcap-max={3 * (64 << 20) + (32 << 20)}",
                      " ".join(words))

    def test_i386_userland_of_its_own(self):
        from ndisbench_lib.build import guestarch
        self.assertNotIn("wpasupplicant", guestarch.PACKAGES)
        self.assertEqual(guestarch.WPA_PACKAGES, ("wpasupplicant",))


if __name__ == "__main__":
    unittest.main()
