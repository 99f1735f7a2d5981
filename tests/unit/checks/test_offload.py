"""The offload check (scripts/ndisbench_lib/checks/offload.py) on the
rtl8139-offload row: rtl8139nd.sys as rtl8139ndoffload, whose INF's test
knob TaskOffload offers IPv4 transmit checksum offload through
OID_TCP_TASK_OFFLOAD and checks every send: a TcpIpChecksumPacketInfo
asking for what NDIS did not enable, or not the frame's protocol, fails
the packet, and so does a frame without one whose checksums are left
undone. The wrapper must query the offload, set it, and ask it for the
TCP stream's checksums: the driver's Halt line counts the sends."""
import unittest

import ktaplogs
from helpers import judge
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

MAC = "52:54:00:12:34:59"


def cell_log(tcp, kmsg):
    """The agent's log of an offload cell: the tcp stream's result, then
    what the unload test printed before its own."""
    return ktaplogs.net_cell_log(ktaplogs.tcp_test(tcp, "3.5"), mac=MAC,
                                 unload=kmsg + "# tainted: 4097\n")


HALT = ("# kmsg: ndiswrapper: rtl8139ndoffload: rtl8139nd: halt: checksum "
        "offload: {tcp_sends} TCP and {udp} UDP sends asked for it, {wrong} asked "
        "for what was not enabled, {undone} left a checksum undone without "
        "asking\n")


def judge_offload(tcp="ok", kmsg=None, **counts):
    values = dict(tcp_sends=2890, udp=2, wrong=0, undone=0)
    values.update(counts)
    text = cell_log(tcp=tcp, kmsg=HALT.format(**values)
                      if kmsg is None else kmsg)
    return judge("offload", EXP.policies["2.6.25-rc4"], EXP,
                 ktap.parse(text), [], 0, fixture="rtl8139ndoffload")


class OffloadJudgeTest(unittest.TestCase):
    def test_offloaded_stream_passes(self):
        verdict = judge_offload()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("2890 TCP", verdict.summary)

    def test_never_offloaded_fails(self):
        verdict = judge_offload(tcp_sends=0, udp=0)
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "the driver offered checksum "
                         "offload; no TCP send asked for it")

    def test_wrong_request_fails(self):
        verdict = judge_offload(wrong=3)
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "3 sends asked for checksum "
                         "offload the driver had not enabled, or not for "
                         "their protocol")

    def test_checksum_left_undone_fails(self):
        verdict = judge_offload(undone=1)
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "1 sends without checksum offload "
                         "had a checksum left undone")

    def test_halt_line_missing_fails(self):
        verdict = judge_offload(kmsg="")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("Halt line is missing", verdict.summary)

    def test_stream_lost_fails(self):
        verdict = judge_offload(tcp="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("the TCP stream did not get through", verdict.details)

    def test_runs_on_the_offload_row_only(self):
        self.assertEqual(tuple(registry.get("offload").devices),
                         devices.OFFLOAD)
        self.assertEqual(devices.OFFLOAD, ("rtl8139-offload/ndiswrapper",))
        row = devices.DEVICES["rtl8139-offload/ndiswrapper"]
        self.assertEqual(row.fixture, "rtl8139ndoffload")
        self.assertTrue(row.default)
        for name in ("tcp", "unload"):
            self.assertIn(row.label, registry.get(name).devices, name)
        for name in ("ping", "mtu", "install", "dhcp"):
            self.assertNotIn(row.label, registry.get(name).devices, name)


if __name__ == "__main__":
    unittest.main()
