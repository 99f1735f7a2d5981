"""The txtimeout check (scripts/ndisbench_lib/checks/txtimeout.py) on the
rtl8139-txlost row: rtl8139nd.sys as rtl8139ndlost, whose INF's test knob
LoseSendAfter 400 makes it keep send 400 unsent and uncompleted until a
MiniportReset; its CheckForHang does not notice. The wrapper's transmit
watchdog must find the send pending too long and call MiniportReset (the
warnings "transmit timeout" and "the driver was hung: reset done"), the
driver then fails the send, and the TCP stream that waited on it gets
through."""
import unittest

import ktaplogs
from helpers import judge
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

MAC = "52:54:00:12:34:59"


def cell_log(tcp, klog, kmsg):
    """The agent's log of a txtimeout cell: the tcp stream's result, then
    what the unload test printed before its own."""
    return ktaplogs.net_cell_log(ktaplogs.tcp_test(tcp, "14.5"), mac=MAC,
                                 unload="# tainted: 4097\n" + klog + kmsg)


TIMEOUT = ("# klog: ndiswrapper 0000:00:03.0 eth0: transmit timeout: a send "
           "pending for 5000 ms\n")
RESET = ("# klog: ndiswrapper 0000:00:03.0 eth0: the driver was hung: reset "
         "done (status 0), found by the transmit watchdog\n")
HALT = ("# kmsg: ndiswrapper: rtl8139ndlost: rtl8139nd: halt: {n} resets "
        "after send 400 was dropped\n")
HELD = ("# kmsg: ndiswrapper: rtl8139ndlost: rtl8139nd: halt: the dropped "
        "send was still held: no reset came\n")


def judge_txtimeout(tcp="ok", klog=TIMEOUT + RESET, kmsg=HALT.format(n=1)):
    return judge("txtimeout", EXP.policies["2.6.25-rc4"], EXP,
                 ktap.parse(cell_log(tcp=tcp, klog=klog, kmsg=kmsg)), [], 0,
                 fixture="rtl8139ndlost")


class TxTimeoutJudgeTest(unittest.TestCase):
    def test_timeout_reset_and_stream_through_passes(self):
        verdict = judge_txtimeout()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("reset 1x", verdict.summary)

    def test_no_watchdog_fails(self):
        verdict = judge_txtimeout(tcp="not ok", klog="",
                                  kmsg=HALT.format(n=0) + HELD)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("no transmit timeout", verdict.summary)
        self.assertIn("the TCP stream did not get through", verdict.details)

    def test_failed_reset_fails(self):
        verdict = judge_txtimeout(klog=TIMEOUT + RESET.replace(
            "reset done (status 0)", "reset failed (status 0xc0000001)"))
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("reset failed", verdict.summary)

    def test_driver_never_dropped_fails(self):
        verdict = judge_txtimeout(kmsg="")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("Halt line is missing", verdict.summary)

    def test_send_still_held_at_halt_fails(self):
        verdict = judge_txtimeout(kmsg=HELD + HALT.format(n=0))
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("still held", verdict.summary)

    def test_runs_on_the_txlost_row_only(self):
        self.assertEqual(tuple(registry.get("txtimeout").devices),
                         devices.TXLOST)
        self.assertEqual(devices.TXLOST, ("rtl8139-txlost/ndiswrapper",))
        row = devices.DEVICES["rtl8139-txlost/ndiswrapper"]
        self.assertEqual(row.fixture, "rtl8139ndlost")
        self.assertTrue(row.default)
        for name in ("tcp", "unload"):
            self.assertIn(row.label, registry.get(name).devices, name)
        for name in ("ping", "mtu", "install", "dhcp", "recover"):
            self.assertNotIn(row.label, registry.get(name).devices, name)


if __name__ == "__main__":
    unittest.main()
