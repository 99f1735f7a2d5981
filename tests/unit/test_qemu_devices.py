"""Every QEMU device a bench row or a user's driver (run --driver) asks
for is compiled into our QEMU build: every row runs our build (the
sandbox), which is configured --without-default-devices, so a NIC left out
of qemu_build.BASE_DEVICES is "Device 'x' not found" at boot."""
import unittest

import helpers  # noqa: F401  (puts scripts/ on sys.path)
from ndisbench_lib import devices, userdriver
from ndisbench_lib.build import qemu_build

# -device name -> the Kconfig symbol that builds it (QEMU 7.2's hw/*/Kconfig);
# our own models come from qemu-devices/ and need no entry.
KCONFIG = {
    "e1000": "E1000_PCI",
    "rtl8139": "RTL8139_PCI",
    "pcnet": "PCNET_PCI",
    "ne2k_pci": "NE2000_PCI",
    "qemu-xhci": "USB_XHCI_PCI",
    "usb-ehci": "USB_EHCI_PCI",
    "piix3-usb-uhci": "USB_UHCI",
}
OUR_MODELS = {"bcm43xx", "usb-rtl8187"}


def device_names(args):
    return {args[i + 1].split(",")[0]
            for i, a in enumerate(args[:-1]) if a == "-device"}


class QemuDevicesTest(unittest.TestCase):
    def test_every_requested_device_is_built(self):
        names = set()
        for dev in devices.TARGETS:
            names |= device_names(list(dev.qemu_args))
        for nic in userdriver.NICS.values():
            names |= device_names(list(nic.qemu_args))
        self.assertIn("rtl8139", names)
        for name in sorted(names - OUR_MODELS):
            self.assertIn(name, KCONFIG, f"{name}: which Kconfig symbol?")
            self.assertIn(KCONFIG[name], qemu_build.BASE_DEVICES,
                          f"-device {name} is not in our QEMU build")


if __name__ == "__main__":
    unittest.main()
