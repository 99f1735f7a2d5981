"""Every QEMU device a bench row or a user's driver (run --driver) asks
for is compiled into our QEMU build: every row runs our build (the
sandbox), which is configured --without-default-devices, so a NIC left out
of qemu_build.BASE_DEVICES is "Device 'x' not found" at boot."""
import re
import unittest

from helpers import REPO
from ndisbench_lib import devices, userdriver
from ndisbench_lib.build import qemu_build

# -device name -> the Kconfig symbol that builds it (QEMU 7.2's hw/*/Kconfig),
# from the model table; our own models come from qemu-devices/.
KCONFIG = {m.qemu: m.kconfig for m in devices.MODELS if not m.own}
OUR_MODELS = devices.OUR_MODELS
MESON = REPO / "qemu-devices" / "meson.build"
KCONFIG_FILE = REPO / "qemu-devices" / "Kconfig"


def built_symbols(meson_text):
    """The Kconfig symbols qemu-devices/meson.build compiles a model for."""
    return set(re.findall(r"when:\s*'CONFIG_([A-Z0-9_]+)'", meson_text))


def table_mismatch(meson_text, models=devices.MODELS):
    """What the QEMU build and the model table disagree on: (built but not
    in the table, in the table but not built)."""
    built = built_symbols(meson_text)
    ours = {m.kconfig for m in models if m.own}
    return sorted(built - ours), sorted(ours - built)


def registered_types(texts):
    """The QOM type names the C sources register: each TypeInfo's .name,
    a string or a TYPE_ macro #defined in any of them."""
    whole = "\n".join(texts)
    macros = dict(re.findall(r'^#define (TYPE_\w+)\s+"([^"]+)"', whole, re.M))
    names = re.findall(r'TypeInfo \w+ = \{\s*\.name = (TYPE_\w+|"[^"]+")',
                       whole)
    return {macros.get(n, n.strip('"')) for n in names}


def device_sources():
    return [p.read_text() for p in sorted(
        (REPO / "qemu-devices").glob("*.[ch]"))]


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
        self.assertIn("virtio-net-pci", names)
        for name in sorted(names - OUR_MODELS):
            self.assertIn(name, KCONFIG, f"{name}: which Kconfig symbol?")
            self.assertIn(KCONFIG[name], qemu_build.BASE_DEVICES,
                          f"-device {name} is not in our QEMU build")


class ModelTableTest(unittest.TestCase):
    """Every model qemu-devices/ builds is in devices.MODELS, and every one
    of ours there is built and declared in qemu-devices/Kconfig."""

    def test_build_and_table_agree(self):
        self.assertEqual(table_mismatch(MESON.read_text()), ([], []))
        declared = set(re.findall(r"^config ([A-Z0-9_]+)$",
                                  KCONFIG_FILE.read_text(), re.M))
        self.assertEqual(declared, {m.kconfig for m in devices.MODELS
                                    if m.own})

    def test_a_model_on_one_side_only_fails(self):
        text = MESON.read_text()
        added = text + ("softmmu_ss.add(when: 'CONFIG_RT2500', "
                        "if_true: files('rt2500.c'))\n")
        self.assertEqual(table_mismatch(added), (["RT2500"], []))
        dropped = "\n".join(line for line in text.splitlines()
                            if "CONFIG_BCM43XX" not in line)
        self.assertEqual(table_mismatch(dropped), ([], ["BCM43XX"]))
        self.assertEqual(table_mismatch(text, [m for m in devices.MODELS
                                               if m.qemu != "wlan-ap"]),
                         (["WLAN_AP"], []))

    def test_stock_models_are_in_our_build(self):
        for model in devices.MODELS:
            if not model.own:
                self.assertIn(model.kconfig, qemu_build.BASE_DEVICES,
                              model.qemu)

    def test_usb_ids_and_our_models_come_from_the_table(self):
        self.assertEqual(devices.USB_IDS, {"usb-rtl8187": "0bda:8187"})
        # ours in the table = the types qemu-devices/ registers, so a new
        # model is its MODELS entry, not an edit here too
        self.assertEqual(OUR_MODELS, registered_types(device_sources()))
        self.assertTrue({"bcm43xx", "usb-rtl8187", "wlan-air",
                         "wlan-ap"} <= OUR_MODELS)

    def test_registered_types_are_read_from_the_sources(self):
        sources = device_sources()
        self.assertIn("bcm43xx", registered_types(sources))
        extra = ('#define TYPE_RT2500 "rt2500"\n'
                 'static const TypeInfo rt2500_info = {\n'
                 '    .name = TYPE_RT2500,\n'
                 '    .parent = TYPE_PCI_DEVICE,\n};\n'
                 'static const TypeInfo x_info = {\n'
                 '    .name = "x-dev",\n};\n')
        self.assertEqual(registered_types(sources + [extra]) - OUR_MODELS,
                         {"rt2500", "x-dev"})


if __name__ == "__main__":
    unittest.main()
