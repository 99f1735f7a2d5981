"""Behaviour, not our wording: another wrapper tree (run --wrapper-src)
passes `broken` when it refuses each malformed driver in its own words
(not loaded, no interface, no oops, nothing leaked, rmmod clean, still
usable) and `bind` when the interface is bound to the wrapper and the
Windows driver is named; our own wrapper, known by its banner (the table's
[own_wrapper]) or by being the repository's, keeps the exact messages."""
import unittest

import helpers
from ndisbench_lib import kernels
from ndisbench_lib.checks import facts as checkfacts
from ndisbench_lib.checks.check import CellFacts
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()
POLICY = EXP.policies["2.6.25-rc4"]
OURS = "ndiswrapper: loaded (pci and usb drivers registered)"
PUBLIC = "ndiswrapper version 1.63 loaded (smp=yes, preempt=no)"
PUBLIC_REFUSAL = "ndiswrapper (load_sys_files:217): couldn't prepare driver"

LOG = """KTAP version 1
1..5
# tainted: 0
ok 1 boot
# inf: /lib/ndisbench/fixtures/broken/pe32.inf
# install_form: plain
# install_status: {install_status}
# module: ndiswrapper
# errno: 0
# kmsg: {banner}
# kmsg: {refusal}
# wlan_present: {wlan_present}
# rmmod: ndiswrapper errno={rmmod_errno}
# remove_status: 0
{broken_result} 2 broken pe32
# module: ndiswrapper
# tainted_before: 4097
# errno: 0
# kmsg: {banner}
# tainted_after: 4097
# module_taint: O
ok 3 insmod ndiswrapper
# ifname: wlan0
# driver: {driver}
# fw_version: {fw_version}
# bus_info: 0000:00:04.0
ok 4 bind wlan0
# rmmod: ndiswrapper errno=0
ok 5 unload
# ndisbench-agent: done
"""


def judge(check, own_tree, **kw):
    values = {"install_status": 0, "banner": PUBLIC,
              "refusal": PUBLIC_REFUSAL, "wlan_present": 0,
              "rmmod_errno": 0, "broken_result": "ok",
              "driver": "ndiswrapper+bcmwl", "fw_version": ""}
    values.update(kw)
    exp = kernels.Expectations(**{**EXP.__dict__,
                                  "broken": {"pe32": EXP.broken["pe32"]}})
    return helpers.judge(check, POLICY, exp, ktap.parse(LOG.format(
        **values)), [], 4096, None, "bcmwl", own_loader_abi=own_tree)


class OwnWrapperTest(unittest.TestCase):
    def test_the_table_has_our_banner_as_our_module_prints_it(self):
        self.assertRegex(OURS, EXP.own_banner)
        self.assertNotRegex(PUBLIC, EXP.own_banner)
        self.assertNotRegex("driverloader: loaded (pci and usb drivers "
                            "registered)", EXP.own_banner)
        # wrapper/driver/main.c prints it (pr_fmt adds the module name)
        main = (helpers.REPO / "wrapper" / "driver" / "main.c").read_text()
        self.assertIn('pr_info("loaded (pci and usb drivers registered)\\n")',
                      main)

    def test_ours_by_banner_or_by_being_the_repositorys(self):
        def facts(banner, own_tree):
            return CellFacts(ktap.parse(LOG.format(
                install_status=0, banner=banner, refusal="", wlan_present=0,
                rmmod_errno=0, broken_result="ok", driver="", fw_version="")),
                EXP, POLICY, own_loader_abi=own_tree)
        self.assertTrue(checkfacts.own_wrapper(facts(OURS, False)))
        self.assertTrue(checkfacts.own_wrapper(facts(PUBLIC, True)))
        self.assertFalse(checkfacts.own_wrapper(facts(PUBLIC, False)))


class BrokenTest(unittest.TestCase):
    def test_another_wrappers_refusal_in_its_own_words_passes(self):
        verdict = judge("broken", False)
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertIn("in the wrapper's own words", verdict.summary)
        self.assertIn(f"pe32: {PUBLIC_REFUSAL}", verdict.details)

    def test_another_wrappers_refusal_at_install_passes(self):
        verdict = judge("broken", False, install_status=1)
        self.assertEqual(verdict.status, "pass", verdict)

    def test_ours_keeps_the_exact_message(self):
        verdict = judge("broken", True, banner=OURS)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("pe32: no kernel line matches", verdict.summary)
        # our wrapper from another folder: its banner says it is ours
        verdict = judge("broken", False, banner=OURS)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("pe32: no kernel line matches", verdict.summary)
        self.assertEqual(judge("broken", True, banner=OURS,
                               install_status=1).status, "FAIL")

    def test_behaviour_still_judged_for_another_wrapper(self):
        for kw, words in (({"wlan_present": 1}, "wlan interface present"),
                          ({"rmmod_errno": 16}, "rmmod errno"),
                          ({"refusal": "BUG: unable to handle page fault "
                                       "for address: ffffc9000004e000"},
                           "oopsed instead of refusing it"),
                          ({"refusal": "bcmwl: 3 Windows allocations "
                                       "leaked"}, "leaked")):
            verdict = judge("broken", False, **kw)
            self.assertEqual(verdict.status, "FAIL", kw)
            self.assertIn(words, verdict.summary)


class BindTest(unittest.TestCase):
    def test_another_wrapper_names_driver_its_own_way(self):
        for driver, fw in (("ndiswrapper+bcmwl", ""),
                           ("ndiswrapper", "bcmwl.sys"),
                           ("ndiswrapper+BCMWL", "1.0")):
            verdict = judge("bind", False, driver=driver, fw_version=fw)
            self.assertEqual(verdict.status, "pass", (driver, verdict))

    def test_another_wrapper_must_still_be_the_wrapper_and_name_it(self):
        verdict = judge("bind", False, driver="e1000", fw_version="bcmwl")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("not bound to the wrapper", verdict.summary)
        verdict = judge("bind", False, driver="ndiswrapper+rtlwl",
                        fw_version="")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("does not name bcmwl", verdict.summary)

    def test_ours_keeps_the_exact_names(self):
        self.assertEqual(judge("bind", True, banner=OURS,
                               driver="ndiswrapper",
                               fw_version="bcmwl.sys").status, "pass")
        verdict = judge("bind", True, banner=OURS,
                        driver="ndiswrapper+bcmwl", fw_version="")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("ethtool driver: expected 'ndiswrapper', got "
                      "'ndiswrapper+bcmwl'", verdict.summary)
        verdict = judge("bind", True, banner=OURS, driver="ndiswrapper",
                        fw_version="other.sys")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("ethtool does not name bcmwl.sys", verdict.summary)


if __name__ == "__main__":
    unittest.main()
