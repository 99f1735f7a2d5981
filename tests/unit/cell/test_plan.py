"""cell/plan.py needs(): the one place that says which of our modules a
cell loads, which each check cannot run without and which host services
its checks ask for; and a caller's Probe (soak) served like a check's."""
import socket
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib import cell, devices, kernels
from ndisbench_lib.checks.check import CUT_STREAM, QMP_HOTPLUG, QMP_ROAM, \
    STREAM

EXP = kernels.load_expectations()
KERNEL = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])


class NeedsTest(unittest.TestCase):
    def test_a_wrapped_radio(self):
        got = cell.plan.needs(devices.DEVICES["rtl8187/ndiswrapper"],
                              ("build", "load", "tcp", "hotplug", "roam"))
        self.assertEqual(got.roles, ("ndiswrapper",))
        self.assertTrue(got.wrapper)
        self.assertEqual(got.by_check["build"], ())
        self.assertEqual(got.by_check["tcp"], ("ndiswrapper",))
        self.assertEqual(got.sinks, {"tcp": STREAM, "hotplug": CUT_STREAM})
        self.assertEqual(got.qmp, {QMP_HOTPLUG, QMP_ROAM})

    def test_no_device_loads_in_load_order_and_serves_nothing(self):
        got = cell.plan.needs(devices.DEVICES["none"],
                              ("driverloader", "load", "control"))
        self.assertEqual(got.roles, ("control", "ndiswrapper",
                                     "driverloader"))
        self.assertFalse(got.wrapper)
        self.assertEqual((got.sinks, got.qmp), ({}, frozenset()))

    def test_extra_modules_once_in_check_order(self):
        got = cell.plan.needs(devices.DEVICES["none"],
                              ("survive", "planted", "survive"))
        self.assertEqual(list(got.extras), list(dict.fromkeys(
            m for c in ("survive", "planted") for m in
            cell.plan.registry.get(c).extra_modules)))
        roles, extras = cell.plan.builds_for([
            (devices.DEVICES["none"], ("survive",)),
            (devices.DEVICES["e1000"], ("tcp",)),
            (devices.DEVICES["none"], ("control", "load"))])
        self.assertEqual(roles, ["control", "ndiswrapper"])
        self.assertEqual(extras, list(cell.plan.registry.get(
            "survive").extra_modules))


class ProbeTest(unittest.TestCase):
    def plan(self, probe):
        return cell.plan.CellPlan(KERNEL, devices.DEVICES[
            "rtl8187/ndiswrapper"], ("bind",), EXP, probe=probe)

    def test_probe_words_come_last_with_its_ports(self):
        probe = cell.plan.Probe(("a", "b"), params=lambda ports: (
            f"ndisbench.soak=1:{ports['a']}:{ports['b']}:0",))
        words = cell.compose.kernel_cmdline(self.plan(probe),
                                            {"a": 11, "b": 12}).split()
        self.assertEqual(words[-1], "ndisbench.soak=1:11:12:0")

    def test_services_serve_the_probe(self):
        probe = cell.plan.Probe(("streams",), hotplug=True)
        served = cell.services.Services(self.plan(probe))
        self.addCleanup(served.close)
        self.assertIn("streams", served.ports)
        self.assertIsNotNone(served.plug)     # QMP for the unplug cycles
        # the sink counts only the cell's QEMU: this process is it here
        served.qemu_pid.started(__import__("os").getpid())
        for size in (3, 5):
            with socket.create_connection(
                    ("127.0.0.1", served.ports["streams"]), timeout=10) as c:
                c.sendall(b"x" * size)
                c.shutdown(socket.SHUT_WR)
                c.recv(64)
        served.close()
        self.assertEqual(served.stream_bytes, {"streams": [3, 5]})
        self.assertEqual(served.qmp_errors, [])


if __name__ == "__main__":
    unittest.main()
