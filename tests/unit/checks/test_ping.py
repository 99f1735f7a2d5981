"""The ping check (scripts/ndisbench_lib/checks/ping.py; the agent's ping
test in guest/agent/net.c): every echo answered, replies that came after
their own wait counted (as ping(8) counts them) and said so."""
import unittest

from helpers import judge
from ktaplogs import net_cell_log, real_log
from ndisbench_lib import kernels
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

PING_TEST = """# target: 10.0.2.2
# seconds: 2.100
# transmitted: 100
# received: {received}
{late}# rtt_p50_us: 480
# rtt_p99_us: 2100000
# rtt_max_us: 2300000
{result} 5 ping
"""


def judge_ping(received=100, late=None, result="ok"):
    late_line = "" if late is None else f"# late_replies: {late}\n"
    log = ktap.parse(net_cell_log(PING_TEST.format(
        received=received, late=late_line, result=result)))
    return judge("ping", EXP.policies["2.6.25-rc4"], EXP, log, [], 0)


class PingJudgeTest(unittest.TestCase):
    def test_all_answered_passes(self):
        verdict = judge_ping(late=0)
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("100/100 replies from 10.0.2.2", verdict.summary)
        self.assertNotIn("late", verdict.summary)

    def test_late_replies_pass_and_are_said(self):
        verdict = judge_ping(late=2)
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("100/100 replies from 10.0.2.2 (2 after their "
                      "1 s wait)", verdict.summary)

    def test_a_lost_echo_fails(self):
        verdict = judge_ping(received=99, late=1, result="not ok")
        self.assertEqual(verdict.status, "FAIL", verdict)
        self.assertIn("echo replies: expected 100, got 99", verdict.summary)

    def test_an_agent_without_the_late_fact_is_judged_as_before(self):
        verdict = judge_ping()
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertNotIn("late", verdict.summary)



class RealCellPingTest(unittest.TestCase):
    """The ping test of a real cell (debian-6.1, rtl8139/ndiswrapper, the
    default run of the s21 session), as its serial log has it."""
    def test_the_real_cell_passes_with_its_numbers(self):
        log = ktap.parse(real_log("checks",
                                  "debian-6.1__rtl8139__ndiswrapper"))
        verdict = judge("ping", EXP.policies["2.6.25-rc4"], EXP, log, [], 0)
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertEqual(verdict.summary, "100/100 replies from 10.0.2.2, "
                                          "rtt p50 43 us p99 86 us")


if __name__ == "__main__":
    unittest.main()
