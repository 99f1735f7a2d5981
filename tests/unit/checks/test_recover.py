"""The recover check (scripts/ndisbench_lib/checks/recover.py) on the
bcm43xx-hang row: bcmwl.sys under the name bcmwlhang with its INF's test
knob HangTxAfter, so its TX hangs once; the wrapper's CheckForHang must
see it and its MiniportReset bring the driver back, and the TCP stream
that ran into the hang must still get through. Judged from the agent's
tcp result and the kernel's warnings (`klog` facts of the rmmod test)."""
import unittest

from helpers import judge
from ktaplogs import net_cell_log, real_log, tcp_test
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

LOG = net_cell_log(tcp_test("{tcp}", "9.1"), "wlan0",
                   unload="# tainted: 4097\n{klog}")

RESET = ("# klog: ndiswrapper 0000:00:04.0 wlan0: the driver was hung: "
         "reset done (status 0)\n")


def judge_recover(tcp="ok", klog=RESET, policy="2.6.25-rc4"):
    log = __import__("ndisbench_lib.report.ktap", fromlist=["parse"]).parse(
        LOG.format(tcp=tcp, klog=klog))
    return judge("recover", EXP.policies[policy], EXP, log, [], 0,
                 fixture="bcmwlhang")


class RecoverJudgeTest(unittest.TestCase):
    def test_reset_and_stream_through_passes(self):
        verdict = judge_recover()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("reset", verdict.summary)

    def test_no_reset_fails(self):
        verdict = judge_recover(klog="")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("no reset", verdict.summary)

    def test_failed_reset_fails(self):
        verdict = judge_recover(klog=RESET.replace(
            "reset done (status 0)", "reset failed (status 0xc0000001)"))
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("reset failed", verdict.summary)

    def test_stream_lost_after_the_reset_fails(self):
        verdict = judge_recover(tcp="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("TCP", verdict.summary)

    def test_without_the_tcp_result_is_an_error(self):
        log = __import__("ndisbench_lib.report.ktap",
                         fromlist=["parse"]).parse(
            LOG.format(tcp="ok", klog=RESET).replace(
                "# bytes_sent: 4194304\n# seconds: 9.1\nok 5 tcp\n", ""))
        verdict = judge("recover", EXP.policies["2.6.25-rc4"], EXP, log,
                        [], 0, fixture="bcmwlhang")
        self.assertEqual(verdict.status, "ERROR")
        self.assertEqual(verdict.summary, "agent printed no tcp result")

    def test_selected_alone_it_brings_the_tcp_stream(self):
        """`run --check recover` runs tcp's agent test too: the registry
        brings the check whose agent test recover reads."""
        hang = devices.DEVICES["bcm43xx-hang/ndiswrapper"]
        self.assertEqual(registry.for_device(hang, ["recover"]),
                         ["tcp", "recover"])

    def test_runs_on_the_hang_row_only(self):
        check = registry.get("recover")
        self.assertEqual(tuple(check.devices), devices.HUNG)
        self.assertIn("bcm43xx-hang/ndiswrapper", devices.DEVICES)
        self.assertEqual(devices.DEVICES["bcm43xx-hang/ndiswrapper"].fixture,
                         "bcmwlhang")
        for name in ("tcp", "dhcp", "install"):
            self.assertIn("bcm43xx-hang/ndiswrapper",
                          registry.get(name).devices, name)



class RealCellRecoverTest(unittest.TestCase):
    """A real bcm43xx-hang cell (debian-6.1, its run of the s21 session):
    the wrapper's reset line among the kernel's other messages."""
    def test_the_real_cell_passes_with_its_numbers(self):
        log = ktap.parse(real_log("checks",
                                  "debian-6.1__bcm43xx-hang__ndiswrapper"))
        verdict = judge("recover", EXP.policies["2.6.25-rc4"], EXP, log, [],
                        0, fixture="bcmwlhang")
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertEqual(verdict.summary, "hung, reset (1x), the TCP stream "
                                          "got through in 8.655 s")


if __name__ == "__main__":
    unittest.main()
