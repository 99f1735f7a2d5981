"""The mtu check (scripts/ndisbench_lib/checks/mtu.py; the agent's mtu
test in guest/agent/net.c): the interface takes a smaller MTU, echoes of
exactly that size with DF set are answered through it, one byte more is
refused by the stack (EMSGSIZE), and the old MTU is put back."""
import unittest

from helpers import judge
from ktaplogs import net_cell_log, real_log
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.checks.check import GuestContext
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

MTU_TEST = """# mtu_before: 1500
# mtu_set_errno: {set_errno}
# mtu: {mtu}
# df_ping_bytes: 1280
# df_transmitted: 3
# df_received: {received}
# df_over_errno: {over}
# mtu_restored: {restored}
{result} 5 mtu
"""


def judge_mtu(policy="2.6.25-rc4", fixture="", **kw):
    values = {"ifname": "eth0", "iface_result": "ok", "set_errno": 0,
              "mtu": 1280, "received": 3, "over": "EMSGSIZE",
              "restored": 1500, "result": "ok"}
    values.update(kw)
    log = ktap.parse(net_cell_log(MTU_TEST.format(**values),
                                  values["ifname"], values["iface_result"]))
    return judge("mtu", EXP.policies[policy], EXP, log, [], 0,
                 fixture=fixture)


class MtuJudgeTest(unittest.TestCase):
    def test_good_log_passes(self):
        verdict = judge_mtu()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("MTU 1280", verdict.summary)
        self.assertIn("3/3", verdict.summary)

    def test_refused_mtu_change_fails(self):
        verdict = judge_mtu(set_errno=22, mtu=1500, received=0,
                            result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("MTU", verdict.summary)

    def test_unanswered_full_size_echo_fails(self):
        verdict = judge_mtu(received=2, result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("echo replies", verdict.summary)

    def test_oversized_packet_sent_anyway_fails(self):
        verdict = judge_mtu(over="0", result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("one byte over", verdict.summary)

    def test_mtu_not_put_back_fails(self):
        verdict = judge_mtu(restored=1280, result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("put back", verdict.summary)

    def test_agent_failure_without_facts_fails(self):
        self.assertEqual(judge_mtu(result="not ok").status, "FAIL")

    def test_no_result_is_an_error(self):
        log = ktap.parse(net_cell_log(MTU_TEST.format(
            set_errno=0, mtu=1280, received=3, over="EMSGSIZE",
            restored=1500, result="ok")).replace("ok 5 mtu", "ok 5 tcp"))
        verdict = judge("mtu", EXP.policies["2.6.25-rc4"], EXP, log, [], 0)
        self.assertEqual(verdict.status, "ERROR")

    def test_behind_a_refusing_policy_nothing_runs(self):
        verdict = judge_mtu("2.6.25-rc1", "bcmwl", ifname="wlan0",
                            iface_result="not ok")
        self.assertEqual(verdict.status, "xfail")


class MtuCheckTest(unittest.TestCase):
    def test_asks_the_agent_for_the_new_mtu(self):
        check = registry.get("mtu")
        ctx = GuestContext(EXP, devices.DEVICES["e1000"])
        self.assertEqual(list(check.params(ctx)), ["ndisbench.mtu=1280"])
        self.assertTrue(check.needs_iface)

    def test_where_it_runs(self):
        """Every device a ping reaches the gateway through; not the faulty
        air (loss is expected there), not without a device."""
        check = registry.get("mtu")
        self.assertEqual(set(check.devices), set(registry.get("ping")
                                                 .devices))
        names = registry.names()
        self.assertLess(names.index("ping"), names.index("mtu"))
        self.assertLess(names.index("mtu"), names.index("tcp"))
        self.assertIn("mtu", registry.default_names())



class RealCellMtuTest(unittest.TestCase):
    """The mtu test of a real cell (debian-6.1, rtl8139/ndiswrapper, the
    default run of the s21 session), as its serial log has it."""
    def test_the_real_cell_passes_with_its_numbers(self):
        log = ktap.parse(real_log("checks",
                                  "debian-6.1__rtl8139__ndiswrapper"))
        verdict = judge("mtu", EXP.policies["2.6.25-rc4"], EXP, log, [], 0,
                        fixture="rtl8139nd")
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertEqual(verdict.summary,
                         "MTU 1280 taken: 3/3 echoes of 1280 bytes with DF "
                         "answered, 1281 refused (EMSGSIZE), 1500 put back")


if __name__ == "__main__":
    unittest.main()
