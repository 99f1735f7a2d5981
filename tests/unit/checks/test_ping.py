"""The ping check (scripts/ndisbench_lib/checks/ping.py; the agent's ping
test in guest/agent/net.c): every echo answered, replies that came after
their own wait counted (as ping(8) counts them) and said so."""
import unittest

from helpers import judge
from ndisbench_lib import kernels
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

PING_LOG = """KTAP version 1
1..6
# tainted: 0
ok 1 boot
# ifname: eth0
# mac: 52:54:00:12:34:57
ok 2 bind eth0
# carrier_ms: 12
ok 3 associate
# address: 10.0.2.15
ok 4 dhcp
# target: 10.0.2.2
# seconds: 2.100
# transmitted: 100
# received: {received}
{late}# rtt_p50_us: 480
# rtt_p99_us: 2100000
# rtt_max_us: 2300000
{result} 5 ping
# tainted: 0
ok 6 unload
# ndisbench-agent: done
"""


def judge_ping(received=100, late=None, result="ok"):
    late_line = "" if late is None else f"# late_replies: {late}\n"
    log = ktap.parse(PING_LOG.format(received=received, late=late_line,
                                     result=result))
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


if __name__ == "__main__":
    unittest.main()
