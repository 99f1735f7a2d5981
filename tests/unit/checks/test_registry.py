"""The check registry (scripts/ndisbench_lib/checks/): every check is one
module that declares itself, the registry finds them all, and what each
declares fits the devices and the guest agent's test table."""
import re
import unittest

from helpers import REPO
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.checks.check import GuestContext

EXP = kernels.load_expectations()
# A row of the agent's table: { order, "name", "ndisbench.param" (or a
# macro of it, or NULL), ...
AGENT_ROW_RE = re.compile(r'\{\s*(\d+),\s*"([\w-]+)",\s*("[\w.]+"|\w+)')
DEFINE_RE = re.compile(r'^#define\s+(\w+)\s+("[\w.]+")', re.M)


def agent_rows():
    """(order, name, parameter or "") of every row in guest/agent/*.c."""
    rows = []
    for path in sorted((REPO / "guest" / "agent").glob("*.c")):
        text = path.read_text()
        macros = dict(DEFINE_RE.findall(text))
        for order, name, param in AGENT_ROW_RE.findall(text):
            param = macros.get(param, param)
            rows.append((order, name,
                         param.strip('"') if param != "NULL" else ""))
    return rows


class RegistryTest(unittest.TestCase):
    def test_every_check_module_is_found(self):
        folder = REPO / "scripts" / "ndisbench_lib" / "checks"
        modules = {p.stem for p in folder.glob("*.py")
                   if "\nCHECK = Check(" in p.read_text()}
        self.assertEqual(modules, set(registry.by_name()))

    def test_matrix_order_and_defaults(self):
        """The matrix columns keep their order (a new check goes where its
        `order` puts it)."""
        known = ["load", "taint", "driverloader", "control", "broken",
                 "install", "bind", "scan", "associate", "dhcp", "ping",
                 "tcp", "udp", "capture", "hotplug", "roam", "unload",
                 "planted"]
        self.assertEqual([n for n in registry.names() if n in known], known)
        self.assertNotIn("udp", registry.default_names())
        self.assertNotIn("peer", registry.names())      # pair only

    def test_devices_are_rows_of_the_matrix(self):
        for check in registry.all_checks():
            for label in check.devices:
                self.assertIn(label, devices.DEVICES, check.name)
        for device in devices.TARGETS:
            self.assertTrue(registry.for_device(device, registry.names()),
                            device.label)

    def test_agent_knows_every_parameter_a_check_asks_for(self):
        known = {param for _, _, param in agent_rows() if param}
        for check in registry.all_checks():
            for label in check.devices or ("rtl8187/native",):
                ctx = GuestContext(EXP, devices.DEVICES[label], 4242,
                                   4 << 20, "10.0.2.16")
                for word in check.params(ctx):
                    self.assertIn(word.split("=")[0], known,
                                  f"{check.name}: {word}")

    def test_agent_table_has_one_row_per_name_and_order(self):
        rows = agent_rows()
        self.assertGreater(len(rows), 10)
        for index in (0, 1, 2):
            values = [r[index] for r in rows if r[index]]
            self.assertEqual(len(values), len(set(values)), values)

    def test_unknown_check_is_one_clear_error(self):
        from ndisbench_lib.errors import BenchError
        with self.assertRaisesRegex(BenchError, "unknown check.*nosuch"):
            registry.select(["nosuch"])
        self.assertEqual(registry.select(["tcp", "load"]), ["load", "tcp"])

    def test_timeout_shares_fit_the_default_timeouts(self):
        """The matrix's cells ask no more than run's 150 s floor: the
        shares only raise the timeout of a cell that would need more."""
        from ndisbench_lib.cell.plan import GUEST_TIMEOUT_FLOOR
        self.assertEqual(GUEST_TIMEOUT_FLOOR, 150.0)
        for device in devices.TARGETS:
            cell = registry.for_device(device, registry.default_names())
            self.assertLessEqual(registry.seconds(cell), GUEST_TIMEOUT_FLOOR,
                                 device.label)


class OneCheckEndToEndTest(unittest.TestCase):
    """A check and the agent test it is one with share a name and a place
    in the run order; a check that reads another check's agent test brings
    that check along."""

    # The agent's own rows that belong to no check: settings, the boot,
    # the module loads, the soak.
    AGENT_ONLY = {"params", "shell", "slowdown", "mac", "profile", "boot",
                  "unbind", "modparams", "insmod", "oops", "soak"}

    def test_agent_rows_are_checks_in_the_checks_order(self):
        checks = registry.by_name()
        rows = [(int(order), name) for order, name, _ in agent_rows()]
        for order, name in rows:
            if name in self.AGENT_ONLY:
                continue
            self.assertIn(name, checks, f"agent row {name}: no check of "
                                        f"that name")
            self.assertEqual(order, checks[name].order,
                             f"agent row {name}: order {order}, check "
                             f"{checks[name].order}")

    def test_agent_names_its_tests_as_the_checks(self):
        names = {name for _, name, _ in agent_rows()}
        for old, new in (("iface", "bind"), ("link", "associate"),
                         ("rmmod", "unload")):
            self.assertNotIn(old, names)
            self.assertIn(new, names)
        self.assertEqual(max(agent_rows(), key=lambda r: int(r[0]))[1],
                         "unload")

    def test_every_read_is_an_agent_row(self):
        names = {name for _, name, _ in agent_rows()}
        for check in registry.all_checks():
            for read in check.reads:
                self.assertIn(read.split()[0], names,
                              f"{check.name} reads {read}")

    def test_a_check_brings_the_agent_test_it_reads(self):
        hang = devices.DEVICES["bcm43xx-hang/ndiswrapper"]
        serial = devices.DEVICES["bcm43xx-serial/ndiswrapper"]
        self.assertEqual(registry.for_device(
            hang, registry.select(["recover"])), ["tcp", "recover"])
        self.assertEqual(registry.for_device(
            serial, registry.select(["resend"])), ["tcp", "resend"])
        # only where the check that brings it runs
        bcm43xx = devices.DEVICES["bcm43xx/ndiswrapper"]
        self.assertEqual(registry.for_device(
            bcm43xx, registry.select(["recover", "build"])), ["build"])
        self.assertEqual(registry.with_brought(["build", "recover"]),
                         ["build", "tcp", "recover"])
        # what every cell runs anyway (insmod, unload) brings no check
        wrapped = devices.DEVICES["bcm43xx/ndiswrapper"]
        self.assertEqual(registry.for_device(
            wrapped, registry.select(["load"])), ["load"])
        self.assertEqual(registry.for_device(
            wrapped, registry.select(["capture"])), ["capture"])

    def test_the_default_matrix_is_what_it_was(self):
        from ndisbench_lib.commands import cli
        self.assertEqual(cli._checks(None), registry.select(
            registry.default_names() + ["build"]))
        for device in devices.TARGETS:
            wanted = registry.default_names()
            self.assertEqual(registry.for_device(device, wanted),
                             [c for c in wanted
                              if registry.get(c).applies(device)],
                             device.label)


if __name__ == "__main__":
    unittest.main()
