"""The resend check (scripts/ndisbench_lib/checks/resend.py) on the
bcm43xx-serial row: bcmwl.sys as bcmwlserial, a serialized miniport whose
SendPackets answers NDIS_STATUS_RESOURCES when 8 frames wait. The wrapper
must queue those sends again (not drop them): the TCP stream gets through
with both byte counts equal, the driver did answer RESOURCES (its Halt
line, logged during the agent's rmmod) and the wrapper said it queued
them again."""
import unittest

from helpers import judge
from ktaplogs import net_cell_log, real_log, tcp_test
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

LOG = net_cell_log(tcp_test("{tcp}", "3.2"), "wlan0",
                   unload="{kmsg}# tainted: 4097\n")

KMSG = ("# kmsg: ndiswrapper: bcmwlserial: {n} sends the serialized miniport "
        "answered NDIS_STATUS_RESOURCES were queued again\n"
        "# kmsg: ndiswrapper: bcmwlserial: bcmwl: halt: {d} sends answered "
        "NDIS_STATUS_RESOURCES\n")


def judge_resend(tcp="ok", n=57, d=57, kmsg=None):
    text = LOG.format(tcp=tcp, kmsg=KMSG.format(n=n, d=d)
                      if kmsg is None else kmsg)
    return judge("resend", EXP.policies["2.6.25-rc4"], EXP, ktap.parse(text),
                 [], 0, fixture="bcmwlserial")


class ResendJudgeTest(unittest.TestCase):
    def test_resent_and_stream_through_passes(self):
        verdict = judge_resend()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("57", verdict.summary)

    def test_no_resources_answer_fails(self):
        verdict = judge_resend(kmsg="# kmsg: ndiswrapper: bcmwlserial: "
                                    "bcmwl: halt: 0 sends answered "
                                    "NDIS_STATUS_RESOURCES\n")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("never answered", verdict.summary)

    def test_wrapper_silent_fails(self):
        verdict = judge_resend(kmsg="# kmsg: ndiswrapper: bcmwlserial: "
                                    "bcmwl: halt: 12 sends answered "
                                    "NDIS_STATUS_RESOURCES\n")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("never said it queued them again", verdict.summary)

    def test_stream_lost_fails(self):
        verdict = judge_resend(tcp="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("TCP", verdict.summary)

    def test_runs_on_the_serial_row_only(self):
        self.assertEqual(tuple(registry.get("resend").devices),
                         devices.SERIAL)
        row = devices.DEVICES["bcm43xx-serial/ndiswrapper"]
        self.assertEqual(row.fixture, "bcmwlserial")
        self.assertFalse(row.default)
        for name in ("tcp", "dhcp", "install", "unload"):
            self.assertIn("bcm43xx-serial/ndiswrapper",
                          registry.get(name).devices, name)


class RealCellResendTest(unittest.TestCase):
    """A real bcm43xx-serial cell (src-6.1, main's wrapper in the s22
    session): both of the wrapper's and the driver's lines among the
    kernel's messages of the rmmod test."""
    def test_the_real_cell_passes_with_its_numbers(self):
        log = ktap.parse(real_log("checks",
                                  "src-6.1__bcm43xx-serial__ndiswrapper"))
        verdict = judge("resend", EXP.policies["2.6.25-rc4"], EXP, log, [],
                        0, fixture="bcmwlserial")
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertEqual(verdict.summary, "2520 sends answered RESOURCES, "
                         "queued again; the TCP stream got through in "
                         "12.203 s")


if __name__ == "__main__":
    unittest.main()
