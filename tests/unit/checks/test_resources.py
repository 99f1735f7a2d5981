"""The resources check (scripts/ndisbench_lib/checks/resources.py) on the
rtl8139-resources row: rtl8139nd.sys as rtl8139ndres, a serialized
miniport (its INF's test knob SendResources 2) that answers
NDIS_STATUS_RESOURCES when its ring is full and, once in 64 sends, with
nothing in flight, and never calls NdisMSendResourcesAvailable. NDIS sends
the held packets again at the next send completion or
NdisMSendResourcesAvailable; after an idle answer neither comes, so the
wrapper's retry timer must send them: the TCP stream gets through, the
driver did answer RESOURCES with nothing in flight (its Halt line) and
the wrapper says its timer sent held packets again."""
import unittest

import ktaplogs
from helpers import judge
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

MAC = "52:54:00:12:34:59"


def cell_log(tcp, kmsg):
    """The agent's log of a resources cell: the tcp stream's result, then
    what the unload test printed before its own."""
    return ktaplogs.net_cell_log(ktaplogs.tcp_test(tcp, "6.5"), mac=MAC,
                                 unload=kmsg + "# tainted: 4097\n")


DRIVER = ("# kmsg: ndiswrapper: rtl8139ndres: rtl8139nd: halt: {n} sends "
          "answered NDIS_STATUS_RESOURCES, {idle} of them with no send in "
          "flight\n")
WRAPPER = ("# kmsg: ndiswrapper: rtl8139ndres: {r} times the held sends went "
           "again on the retry timer (no completion, no "
           "NdisMSendResourcesAvailable)\n")


def judge_resources(tcp="ok", n=40, idle=3, r=3, driver=True, wrapper=True):
    kmsg = (DRIVER.format(n=n, idle=idle) if driver else "") + \
        (WRAPPER.format(r=r) if wrapper else "")
    return judge("resources", EXP.policies["2.6.25-rc4"], EXP,
                 ktap.parse(cell_log(tcp=tcp, kmsg=kmsg)), [], 0,
                 fixture="rtl8139ndres")


class ResourcesJudgeTest(unittest.TestCase):
    def test_retried_and_stream_through_passes(self):
        verdict = judge_resources()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("3 with no send in flight", verdict.summary)

    def test_no_idle_answer_fails(self):
        verdict = judge_resources(idle=0)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("never answered NDIS_STATUS_RESOURCES with no send in "
                      "flight", verdict.summary)

    def test_driver_line_missing_fails(self):
        verdict = judge_resources(driver=False)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("Halt line is missing", verdict.summary)

    def test_wrapper_never_retried_fails(self):
        verdict = judge_resources(wrapper=False)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("the wrapper never sent them again on its own",
                      verdict.summary)

    def test_stream_stalled_fails(self):
        verdict = judge_resources(tcp="not ok", wrapper=False)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("the TCP stream did not get through", verdict.details)

    def test_runs_on_the_resources_row_only(self):
        self.assertEqual(tuple(registry.get("resources").devices),
                         devices.RESOURCES)
        self.assertEqual(devices.RESOURCES, ("rtl8139-resources/ndiswrapper",))
        row = devices.DEVICES["rtl8139-resources/ndiswrapper"]
        self.assertEqual(row.fixture, "rtl8139ndres")
        self.assertTrue(row.default)
        self.assertEqual(row.unbind, "10ec:8139")
        for name in ("tcp", "unload"):
            self.assertIn(row.label, registry.get(name).devices, name)
        # a knob row runs its own check, not the wired row's whole set
        for name in ("ping", "mtu", "install", "dhcp"):
            self.assertNotIn(row.label, registry.get(name).devices, name)


if __name__ == "__main__":
    unittest.main()
