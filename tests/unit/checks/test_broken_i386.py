"""The broken check on an i386 guest: the amd64 negatives of
fixtures/broken/ cannot reach the module there, so each must be refused
at install for its architecture, naming both (the cross-architecture
refusal the amd64 guests show with pe32.sys in the module)."""
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib import kernels
from ndisbench_lib.checks import broken
from ndisbench_lib.checks.check import CellFacts
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()
LOG = """KTAP version 1
1..2
ok 1 boot
# inf: /lib/ndisbench/fixtures/broken/pe32.inf
# out: ndiswrapper: pe32.inf:14: {out}
# install_status: {status}
# module: ndiswrapper
# errno: 0
# wlan_present: {wlan}
# rmmod: ndiswrapper errno=0
# remove_status: 0
ok 2 broken pe32
# ndisbench-agent: done
"""
REFUSAL = ("no models for NTx86 (this i386 wrapper), only for NTamd64 "
           "(a 64-bit x86_64 driver)")


def judge(config, out=REFUSAL, status=1, wlan=0, policy="2.6.25-rc4"):
    exp = kernels.Expectations(**{**EXP.__dict__,
                                  "broken": {"pe32": EXP.broken["pe32"]}})
    log = ktap.parse(LOG.format(out=out, status=status, wlan=wlan))
    return broken.judge(CellFacts(log, exp, EXP.policies[policy],
                                  config=config))


class BrokenI386Test(unittest.TestCase):
    I386 = {"CONFIG_X86_32": "y"}

    def test_refused_for_its_architecture_passes(self):
        v = judge(self.I386)
        self.assertEqual(v.status, "pass", v.summary)
        self.assertIn("architecture", v.summary)

    def test_no_interface_fact_after_a_refused_install(self):
        # the agent skips the interface look when the install failed
        exp = kernels.Expectations(**{**EXP.__dict__,
                                      "broken": {"pe32": EXP.broken["pe32"]}})
        text = LOG.format(out=REFUSAL, status=1, wlan=0).replace(
            "# wlan_present: 0\n", "")
        v = broken.judge(CellFacts(ktap.parse(text), exp,
                                   EXP.policies["2.6.25-rc4"],
                                   config=self.I386))
        self.assertEqual(v.status, "pass", v.summary)

    def test_installed_or_other_reason_fails(self):
        self.assertEqual(judge(self.I386, status=0).status, "FAIL")
        v = judge(self.I386, out="cannot read pe32.sys")
        self.assertEqual(v.status, "FAIL")
        self.assertIn("NTx86", v.summary)
        self.assertEqual(judge(self.I386, wlan=1).status, "FAIL")

    def test_refused_at_install_under_a_refusing_policy_too(self):
        # The installer refuses the amd64 image before any insmod, so a
        # policy that refuses the module (2.6.25-rc1) changes nothing:
        # no errno to compare, the same refusal to find.
        v = judge(self.I386, policy="2.6.25-rc1")
        self.assertEqual(v.status, "pass", v.summary)
        self.assertEqual(judge(self.I386, status=0,
                               policy="2.6.25-rc1").status, "FAIL")

    def test_amd64_still_wants_the_module_s_line(self):
        # the same log on amd64: the install must have succeeded
        self.assertEqual(judge({"CONFIG_X86_64": "y"}).status, "FAIL")


if __name__ == "__main__":
    unittest.main()
