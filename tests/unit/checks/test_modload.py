"""Expectation logic: literal logs (numbers as measured on Debian 6.1 under
QEMU) judged against the policy table; wrong observations must FAIL."""
import pathlib
import unittest

from helpers import MODULE_CHECKS, NET_CHECKS, agent_log, judge, roles_of
from ndisbench_lib.checks import modload
from ndisbench_lib import kernels
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()
SIG = 12288         # O + E: unsigned out-of-tree module on Debian's kernels
NOSIG = 4096        # O only: our tinyconfig kernels do not check signatures
ROLES = roles_of(MODULE_CHECKS)
# The wrapper's GPL-only imports grow with the wrapper; the build checks the
# table against the real module, these tests take it as given.
UNKNOWN = [f"{{m}}: Unknown symbol {s} (err -2)" for s in
           sorted(EXP.gpl_only_imports)]
# Workqueue and USB exports our wrapper imports from 6.1 (alloc_workqueue
# is 2.6.36's: these are not the historical wrapper's imports); every
# refusing policy must name them.
WQ_AND_USB = {"alloc_workqueue", "destroy_workqueue", "usb_deregister",
              "usb_register_driver"}


def unknown(module):
    return [u.format(m=module) for u in UNKNOWN]


def fixed_kernel_loads(ndis_taint="OE", ndis_errno=0, ndis_kmsg=None,
                       control_after=SIG, control_taint="OE"):
    """What Debian 6.1 (policy 2.6.25-rc4) really shows."""
    return [
        {"module": "ndisbench_control", "before": 0, "errno": 0,
         "after": control_after, "taint": control_taint,
         "kmsg": ["ndisbench_control: loading out-of-tree module taints "
                  "kernel."]},
        {"module": "ndiswrapper", "before": control_after,
         "errno": ndis_errno, "after": SIG | 1, "taint": ndis_taint,
         "kmsg": ndis_kmsg if ndis_kmsg is not None else
         ["ndiswrapper: module license taints kernel."]},
        {"module": "driverloader", "before": SIG | 1, "errno": 2,
         "after": SIG | 1, "taint": "-", "kmsg": unknown("driverloader")},
    ]


def rc1_kernel_loads(ndis_kmsg=None, ndis_errno=2, ndis_taint="-"):
    """Policy 2.6.25-rc1 on a kernel without module signatures."""
    return [
        {"module": "ndisbench_control", "before": 0, "errno": 0,
         "after": NOSIG, "taint": "O"},
        {"module": "ndiswrapper", "before": NOSIG, "errno": ndis_errno,
         "after": NOSIG | 1, "taint": ndis_taint,
         "kmsg": ndis_kmsg if ndis_kmsg is not None else
         ["ndiswrapper: module license taints kernel."] +
         unknown("ndiswrapper")},
        {"module": "driverloader", "before": NOSIG | 1, "errno": 2,
         "after": NOSIG | 1, "taint": "-", "kmsg": unknown("driverloader")},
    ]


def flagged_kernel_loads(ndis_taint="PO", dl_taint="PO"):
    """Policy 2.6.19-rc1 on a kernel without module signatures: both names
    taint the kernel and carry P themselves, and both still load."""
    return [
        {"module": "ndisbench_control", "before": 0, "errno": 0,
         "after": NOSIG, "taint": "O"},
        {"module": "ndiswrapper", "before": NOSIG, "errno": 0,
         "after": NOSIG | 1, "taint": ndis_taint,
         "kmsg": ["ndiswrapper: module license taints kernel."]},
        {"module": "driverloader", "before": NOSIG | 1, "errno": 0,
         "after": NOSIG | 1, "taint": dl_taint},
    ]


def judge_all(policy, loads, base, **kw):
    log = ktap.parse(agent_log(loads, **kw))
    return {c: judge(c, EXP.policies[policy], EXP, log, ROLES, base)
            for c in MODULE_CHECKS}


class ExpectedLoadsTest(unittest.TestCase):
    def test_fixed_policy_on_signed_kernel_matches_measurement(self):
        want = modload.expected_loads(EXP.policies["2.6.25-rc4"], EXP, ROLES,
                                      SIG)
        self.assertEqual(want["ndiswrapper"].tainted_after, 12289)
        self.assertEqual(want["ndiswrapper"].module_taint, "OE")
        self.assertEqual(want["ndiswrapper"].errno, 0)
        self.assertEqual(want["control"].tainted_after, 12288)
        self.assertEqual(want["driverloader"].errno, 2)
        self.assertFalse(want["driverloader"].license_message)

    def test_rc1_policy_refuses_every_gpl_only_import(self):
        want = modload.expected_loads(EXP.policies["2.6.25-rc1"], EXP, ROLES,
                                      NOSIG)["ndiswrapper"]
        self.assertEqual(want.errno, 2)
        self.assertEqual(want.unknown_symbols, sorted(EXP.gpl_only_imports))
        self.assertTrue(WQ_AND_USB <= set(want.unknown_symbols))
        self.assertEqual(want.tainted_after, 4097)
        self.assertEqual(want.module_taint, "-")
        self.assertTrue(want.license_message)

    def test_pre_2616_taints_nothing(self):
        want = modload.expected_loads(EXP.policies["pre-2.6.16"], EXP, ROLES,
                                      NOSIG)
        self.assertEqual(want["driverloader"].tainted_after, 4096)
        self.assertEqual(want["ndiswrapper"].module_taint, "O")

    def test_2619rc1_flags_both_modules_and_both_load(self):
        # 2.6.19-rc1 kept a P flag per module (2bc2d61a9638) while the
        # GPL-only check still read the license: P in the module's taint,
        # no Unknown symbol line, both names load.
        want = modload.expected_loads(EXP.policies["2.6.19-rc1"], EXP, ROLES,
                                      NOSIG)
        ndis, dl = want["ndiswrapper"], want["driverloader"]
        self.assertEqual((ndis.errno, dl.errno), (0, 0))
        self.assertEqual((ndis.module_taint, dl.module_taint), ("PO", "PO"))
        self.assertEqual((ndis.unknown_symbols, dl.unknown_symbols),
                         ([], []))
        self.assertEqual(ndis.tainted_after, NOSIG | 1)
        self.assertTrue(ndis.license_message)
        self.assertFalse(dl.license_message)
        self.assertEqual(want["control"].module_taint, "O")

    def test_2619rc2_refuses_like_2625rc1(self):
        rc2 = modload.expected_loads(EXP.policies["2.6.19-rc2"], EXP, ROLES,
                                     NOSIG)
        rc1 = modload.expected_loads(EXP.policies["2.6.25-rc1"], EXP, ROLES,
                                     NOSIG)
        self.assertEqual(rc2, rc1)
        self.assertEqual(rc2["ndiswrapper"].errno, 2)

    def test_module_base_bits_follow_module_sig(self):
        bits = EXP.taint_bits
        self.assertEqual(modload.module_base_bits(
            {"CONFIG_MODULE_SIG": "y"}, bits), SIG)
        self.assertEqual(modload.module_base_bits({}, bits), NOSIG)

    def test_taint_letters_in_kernel_order(self):
        self.assertEqual(modload.taint_letters(12289, EXP.taint_bits), "POE")


class JudgeTest(unittest.TestCase):
    def test_fixed_kernel_passes(self):
        verdicts = judge_all("2.6.25-rc4", fixed_kernel_loads(), SIG)
        self.assertEqual({c: v.status for c, v in verdicts.items()},
                         {"load": "pass", "taint": "pass",
                          "driverloader": "xfail", "control": "pass"})

    def test_ndiswrapper_tainted_p_on_fixed_kernel_fails(self):
        # The module itself got P on a kernel that must only taint itself:
        # its GPL-only imports were refused. load and taint must both FAIL.
        loads = fixed_kernel_loads(
            ndis_taint="-", ndis_errno=2,
            ndis_kmsg=["ndiswrapper: module license taints kernel."] +
            unknown("ndiswrapper"))
        verdicts = judge_all("2.6.25-rc4", loads, SIG)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertIn("errno", verdicts["load"].summary)
        self.assertEqual(verdicts["taint"].status, "FAIL")

    def test_module_taint_letter_p_alone_fails(self):
        verdicts = judge_all("2.6.25-rc4", fixed_kernel_loads(
            ndis_taint="POE"), SIG)
        self.assertEqual(verdicts["taint"].status, "FAIL")
        self.assertIn("/sys/module/ndiswrapper/taint",
                      verdicts["taint"].summary)

    def test_rc1_breakage_is_reproduced(self):
        verdicts = judge_all("2.6.25-rc1", rc1_kernel_loads(), NOSIG)
        self.assertEqual(verdicts["load"].status, "xfail")
        self.assertIn("regression reproduced", verdicts["load"].summary)
        self.assertIn("usb_register_driver", verdicts["load"].summary)
        self.assertEqual(verdicts["taint"].status, "xfail")
        self.assertEqual(verdicts["control"].status, "pass")

    def test_rc1_kernel_that_loads_ndiswrapper_fails(self):
        loads = rc1_kernel_loads(ndis_errno=0, ndis_taint="O",
                                 ndis_kmsg=["ndiswrapper: module license "
                                            "taints kernel."])
        verdicts = judge_all("2.6.25-rc1", loads, NOSIG)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertEqual(verdicts["taint"].status, "FAIL")

    def test_rc1_missing_unknown_symbol_line_fails(self):
        kmsg = ["ndiswrapper: module license taints kernel."] + \
            unknown("ndiswrapper")[1:]
        verdicts = judge_all("2.6.25-rc1", rc1_kernel_loads(ndis_kmsg=kmsg),
                             NOSIG)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertIn("Unknown symbol", verdicts["load"].summary)

    def test_2619rc1_replay_passes(self):
        verdicts = judge_all("2.6.19-rc1", flagged_kernel_loads(), NOSIG)
        self.assertEqual({c: v.status for c, v in verdicts.items()},
                         {"load": "pass", "taint": "pass",
                          "driverloader": "pass", "control": "pass"})
        self.assertIn("module taint 'PO'", verdicts["taint"].summary)

    def test_2616_behaviour_on_2619rc1_fails(self):
        # Kernel P only, as 2.6.16 did: the module's own P flag is missing.
        verdicts = judge_all("2.6.19-rc1",
                             flagged_kernel_loads(ndis_taint="O",
                                                  dl_taint="O"), NOSIG)
        self.assertEqual(verdicts["taint"].status, "FAIL")
        self.assertIn("/sys/module/ndiswrapper/taint",
                      verdicts["taint"].summary)
        self.assertEqual(verdicts["driverloader"].status, "FAIL")

    def test_2619rc1_flag_on_2616_fails(self):
        verdicts = judge_all("2.6.16", flagged_kernel_loads(), NOSIG)
        self.assertEqual(verdicts["taint"].status, "FAIL")
        self.assertEqual(verdicts["driverloader"].status, "FAIL")

    def test_refusal_on_2619rc1_fails(self):
        # 2.6.19-rc2's breakage is not rc1's behaviour.
        verdicts = judge_all("2.6.19-rc1", rc1_kernel_loads(), NOSIG)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertEqual(verdicts["driverloader"].status, "FAIL")

    def test_2619rc2_breakage_is_reproduced(self):
        verdicts = judge_all("2.6.19-rc2", rc1_kernel_loads(), NOSIG)
        self.assertEqual(verdicts["load"].status, "xfail")
        self.assertIn("regression reproduced", verdicts["load"].summary)

    def test_control_with_p_fails(self):
        loads = fixed_kernel_loads(control_after=SIG | 1,
                                   control_taint="POE")
        verdicts = judge_all("2.6.25-rc4", loads, SIG)
        self.assertEqual(verdicts["control"].status, "FAIL")

    def test_boot_taint_fails_taint_check(self):
        verdicts = judge_all("2.6.25-rc4", fixed_kernel_loads(), SIG,
                             boot_taint=512)
        self.assertEqual(verdicts["taint"].status, "FAIL")
        self.assertIn("tainted at boot", verdicts["taint"].summary)

    def test_failed_rmmod_fails_load(self):
        verdicts = judge_all("2.6.25-rc4", fixed_kernel_loads(), SIG,
                             rmmods=[])
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertIn("rmmod", verdicts["load"].summary)

    def test_license_message_on_pre_2616_fails(self):
        loads = [
            {"module": "ndisbench_control", "before": 0, "errno": 0,
             "after": NOSIG, "taint": "O"},
            {"module": "ndiswrapper", "before": NOSIG, "errno": 0,
             "after": NOSIG, "taint": "O",
             "kmsg": ["ndiswrapper: module license taints kernel."]},
            {"module": "driverloader", "before": NOSIG, "errno": 0,
             "after": NOSIG, "taint": "O"},
        ]
        verdicts = judge_all("pre-2.6.16", loads, NOSIG)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertEqual(verdicts["driverloader"].status, "pass")

    def test_no_boot_is_error(self):
        log = ktap.parse("Kernel panic - not syncing\n")
        verdict = judge("load", EXP.policies["2.6.25-rc4"], EXP, log,
                        ROLES, SIG)
        self.assertEqual(verdict.status, "ERROR")


if __name__ == "__main__":
    unittest.main()


NET_LOG = """KTAP version 1
1..7
# tainted: 0
ok 1 boot
# ifname: eth0
# driver: e1000
ok 2 bind eth0
# carrier_ms: 12
# operstate: up
{link_result} 3 associate
# udhcpc_status: 0
# dhcp_ms: 1123
# address: {address}
ok 4 dhcp
# transmitted: 100
# received: {received}
# rtt_p50_us: 581
# rtt_p99_us: 1656
{ping_result} 5 ping
# bytes_sent: 4194304
# seconds: 0.263
# sink_reply: received={sink_reply}
ok 6 tcp
# tainted: 0
ok 7 unload
# ndisbench-agent: done
"""


def judge_net(check, sink_bytes=4194304, **kw):
    values = {"address": "10.0.2.15", "received": 100, "ping_result": "ok",
              "sink_reply": 4194304, "link_result": "ok"}
    values.update(kw)
    log = ktap.parse(NET_LOG.format(**values))
    return judge(check, EXP.policies["2.6.25-rc4"], EXP, log, [], 0,
                 sink_bytes)


class NetJudgeTest(unittest.TestCase):
    def test_good_log_passes(self):
        for check in NET_CHECKS:
            self.assertEqual(judge_net(check).status, "pass", check)

    def test_wrong_lease_fails(self):
        self.assertEqual(judge_net("dhcp", address="10.0.2.16").status,
                         "FAIL")

    def test_one_lost_ping_fails(self):
        verdict = judge_net("ping", received=99, ping_result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("echo replies", verdict.summary)

    def test_no_link_fails(self):
        verdict = judge_net("dhcp", link_result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "no link")

    def test_byte_counts_must_match_on_both_ends(self):
        self.assertEqual(judge_net("tcp", sink_bytes=4194303).status, "FAIL")
        self.assertEqual(judge_net("tcp", sink_reply=1).status, "FAIL")
        self.assertEqual(judge_net("tcp", sink_bytes=None).status, "FAIL")

    def test_missing_interface_fails_every_net_check(self):
        log = ktap.parse(NET_LOG.format(address="-", received=0,
                                        ping_result="not ok", sink_reply=0,
                                        link_result="not ok")
                         .replace("ok 2 bind eth0", "# error: eth0 did not "
                                  "appear within 30000 ms\nnot ok 2 bind "
                                  "eth0"))
        for check in NET_CHECKS:
            verdict = judge(check, EXP.policies["2.6.25-rc4"], EXP,
                            log, [], 0, None)
            self.assertEqual(verdict.status, "FAIL")
            self.assertIn("did not appear", verdict.summary)


WRAPPED_LOG = """KTAP version 1
1..6
# tainted: 0
ok 1 boot
# inf: /lib/ndisbench/fixtures/broken/pe32.inf
# install_status: 0
# module: ndiswrapper
# errno: {broken_errno}
# kmsg: {broken_kmsg}
# wlan_present: {wlan_present}
# rmmod: ndiswrapper errno=0
# remove_status: 0
ok 2 broken pe32
# status: 0
# list: bcmwl : driver installed
ok 3 install
# module: ndiswrapper
# tainted_before: 4097
# errno: 0
# tainted_after: {tainted_after}
# module_taint: O
ok 4 insmod ndiswrapper
# ifname: wlan0
# driver: ndiswrapper
# fw_version: bcmwl.sys
ok 5 bind wlan0
# carrier_ms: 24
# ndis_bssid: {bssid}
# ndis_ssid: ndisbench
ok 6 associate
# rmmod: ndiswrapper errno=0
# kmsg: {unload_kmsg}
ok 7 unload
# ndisbench-agent: done
"""


def judge_wrapped(check, policy="2.6.25-rc4", **kw):
    values = {"broken_errno": 0, "wlan_present": 0, "tainted_after": 4097,
              "bssid": "02:00:00:00:01:00",
              "broken_kmsg": "loadndisdriver: /etc/ndiswrapper/pe32/pe32.sys:"
                             " 32-bit PE (i386) cannot run on x86_64",
              "unload_kmsg": "usbcore: deregistering interface driver"}
    values.update(kw)
    exp = kernels.Expectations(**{**EXP.__dict__,
                                  "broken": {"pe32": EXP.broken["pe32"]}})
    log = ktap.parse(WRAPPED_LOG.format(**values))
    return judge(check, EXP.policies[policy], exp, log, [], 4096,
                 None, "bcmwl")


def judge_drvinfo(driver, fw_version, renamed="", own_tree=True):
    """bind on WRAPPED_LOG with other ethtool facts (and a rename line);
    own_tree False: a --wrapper-src tree's (not our banner)."""
    text = WRAPPED_LOG.replace(
        "# driver: ndiswrapper\n# fw_version: bcmwl.sys\n",
        (renamed + "\n" if renamed else "") +
        f"# driver: {driver}\n# fw_version: {fw_version}\n")
    log = ktap.parse(text.format(
        broken_errno=0, wlan_present=0, tainted_after=4097,
        bssid="02:00:00:00:01:00", broken_kmsg="", unload_kmsg=""))
    return judge("bind", EXP.policies["2.6.25-rc4"], EXP, log, [], 4096,
                 None, "bcmwl", own_loader_abi=own_tree)


def judge_misuse(patterns, lines):
    exp = kernels.Expectations(**{**EXP.__dict__,
                                  "broken": {"misuse": patterns}})
    text = WRAPPED_LOG.replace("broken/pe32.inf", "broken/misuse.inf")
    text = text.replace("ok 2 broken pe32", "ok 2 broken misuse")
    log = ktap.parse(text.format(
        broken_errno=0, wlan_present=0, tainted_after=4097,
        bssid="02:00:00:00:01:00", unload_kmsg="",
        broken_kmsg="\n# kmsg: ".join(lines)))
    return judge("broken", EXP.policies["2.6.25-rc4"], exp, log, [], 4096,
                 None, "bcmwl")


class WrapperJudgeTest(unittest.TestCase):
    def test_good_log_passes(self):
        for check in ("broken", "install", "bind", "associate", "unload"):
            self.assertEqual(judge_wrapped(check).status, "pass", check)

    def test_broken_driver_without_its_line_fails(self):
        verdict = judge_wrapped("broken", broken_kmsg="something else")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("pe32: no kernel line matches", verdict.summary)

    def test_broken_driver_that_oopses_the_kernel_says_so(self):
        # ndiswrapper 1.63 on truncated.sys: a crash is no refusal
        verdict = judge_wrapped("broken", broken_kmsg="BUG: unable to "
                                "handle page fault for address: "
                                "ffffc9000004e000")
        self.assertEqual(verdict.status, "FAIL")
        self.assertTrue(verdict.summary.startswith(
            "pe32: the kernel oopsed instead of refusing it: BUG: unable "
            "to handle page fault"), verdict.summary)

    def test_broken_driver_that_binds_fails(self):
        self.assertEqual(judge_wrapped("broken", wlan_present=1).status,
                         "FAIL")

    def test_every_line_of_a_pattern_list_once(self):
        # broken/misuse.sys: a list of patterns, each matching exactly one
        # line (the wrapper's "logged once" and the fixture's own lines)
        lines = ["misuse: NdisMSleep(100 ms) at PASSIVE_LEVEL waited",
                 "__C_specific_handler called: Windows exception dispatch "
                 "is not supported"]
        patterns = ("misuse: NdisMSleep\\(100 ms\\) at PASSIVE_LEVEL "
                    "waited", "^__C_specific_handler called")
        self.assertEqual(judge_misuse(patterns, lines).status, "pass")
        verdict = judge_misuse(patterns, lines[:1])
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("misuse: no kernel line matches /^__C_specific_handler "
                      "called/", verdict.summary)
        verdict = judge_misuse(patterns, lines + lines[1:])
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("misuse: 2 kernel lines match /^__C_specific_handler "
                      "called/ (expected one)", verdict.summary)

    def test_pattern_lists_load_from_the_table(self):
        self.assertIsInstance(EXP.broken["misuse"], tuple)
        self.assertIsInstance(EXP.broken["pe32"], str)

    def test_leak_on_unload_fails(self):
        verdict = judge_wrapped("unload", unload_kmsg="bcmwl: 3 Windows "
                                "allocations leaked")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("leaked", verdict.summary)

    def test_bind_needs_the_windows_taint(self):
        verdict = judge_wrapped("bind", tainted_after=4096)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("tainted P", verdict.summary)

    def test_bind_takes_the_classic_ethtool_naming(self):
        # ndiswrapper 1.63 names the Windows driver after a '+' in
        # ethtool's driver field (its installed name) and no fw_version:
        # right for another wrapper tree, not for ours
        other = {"own_tree": False}
        self.assertEqual(judge_drvinfo("ndiswrapper+bcmwl", "",
                                       **other).status, "pass")
        verdict = judge_drvinfo("ndiswrapper+bcmwl", "", **other)
        self.assertIn("ndiswrapper+bcmwl", verdict.summary)
        verdict = judge_drvinfo("ndiswrapper+rtlwl", "", **other)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("ndiswrapper+rtlwl", verdict.summary)
        self.assertEqual(judge_drvinfo("ndiswrapper", "", **other).status,
                         "FAIL")
        self.assertEqual(judge_drvinfo("e1000", "bcmwl.sys",
                                       **other).status, "FAIL")
        self.assertEqual(judge_drvinfo("ndiswrapper+bcmwl", "").status,
                         "FAIL")

    def test_bind_names_an_interface_the_agent_renamed(self):
        verdict = judge_drvinfo("ndiswrapper", "bcmwl.sys",
                                "# renamed: eth0 -> wlan0 (the NIC's MAC "
                                "52:54:00:12:34:57)")
        self.assertEqual(verdict.status, "pass")
        self.assertIn("renamed from eth0", verdict.summary)

    def test_wrong_bssid_fails_associate(self):
        self.assertEqual(judge_wrapped("associate",
                                       bssid="02:00:00:00:02:00").status,
                         "FAIL")

    def test_refusing_policy_expects_nothing_to_run(self):
        verdict = judge_wrapped("broken", policy="2.6.25-rc1",
                                broken_errno=2)
        self.assertEqual(verdict.status, "xfail")
        self.assertEqual(judge_wrapped("bind", policy="2.6.25-rc1").status,
                         "FAIL")     # wlan0 appeared: must not


NATIVE_LOG = """KTAP version 1
1..4
# tainted: {boot_taint}
# dep: rtl8187.ko errno=0
ok 1 boot
# ifname: wlan0
# driver: {driver}
# bus_info: 1-1:1.0
ok 2 bind wlan0
{connect}
# carrier_ms: 4477
# iw_link: Connected to {bssid} (on wlan0)
# iw_link: \tSSID: {ssid}
# iw_link: \tfreq: 2437
{iwconfig}
ok 3 associate
# tainted: 0
ok 4 unload
# ndisbench-agent: done
"""


def judge_native(check, policy="2.6.25-rc1", **kw):
    values = {"boot_taint": 0, "driver": "rtl8187",
              "bssid": "02:00:00:00:01:00", "ssid": "ndisbench",
              "connect": "# iw_connect_status: 0", "iwconfig": ""}
    config = kw.pop("config", None)
    values.update(kw)
    log = ktap.parse(NATIVE_LOG.format(**values))
    return judge(check, EXP.policies[policy], EXP, log, [], 0, None,
                 "", "rtl8187", iw_ssid="ndisbench", config=config)


WEXT = {"CONFIG_CFG80211_WEXT": "y"}
IWCONFIG = ('# iwconfig: wlan0     IEEE 802.11  ESSID:"ndisbench"\n'
            "# iwconfig:           Mode:Managed  Frequency:2.437 GHz  "
            "Access Point: 02:00:00:00:01:00\n# iwconfig_status: 0")
NO_WEXT = "# iwconfig: wlan0     no wireless extensions.\n" \
          "# iwconfig_status: 255"


class NativeJudgeTest(unittest.TestCase):
    """The in-tree driver: no wrapper, so no policy refuses it."""

    def test_good_log_passes_even_on_a_refusing_policy(self):
        for check in ("bind", "associate"):
            self.assertEqual(judge_native(check).status, "pass", check)

    def test_other_driver_fails_bind(self):
        verdict = judge_native("bind", driver="ndiswrapper")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("ethtool driver", verdict.summary)

    def test_tainted_boot_fails_bind(self):
        self.assertEqual(judge_native("bind", boot_taint=4096).status,
                         "FAIL")

    def test_iw_link_names_the_bss(self):
        self.assertEqual(judge_native("associate",
                                      bssid="02:00:00:00:02:00").status,
                         "FAIL")
        self.assertEqual(judge_native("associate", ssid="other").status,
                         "FAIL")

    def test_the_join_must_be_iws(self):
        # A link the driver made on its own while iw connect failed.
        verdict = judge_native("associate", connect="# iw_connect: command "
                               "failed: Operation already in progress "
                               "(-114)\n# iw_connect_status: 142")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("iw connect ndisbench exited 142", verdict.summary)
        verdict = judge_native("associate", connect="# tainted: 0")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("never ran iw connect", verdict.summary)

    def test_iwconfig_agrees_where_the_kernel_has_wext(self):
        verdict = judge_native("associate", config=WEXT, iwconfig=IWCONFIG)
        self.assertEqual(verdict.status, "pass")
        self.assertIn("iwconfig agrees", verdict.summary)
        self.assertEqual(judge_native("associate", config={},
                                      iwconfig=NO_WEXT).status, "pass")

    def test_wext_that_disagrees_or_is_missing_fails(self):
        other_ap = IWCONFIG.replace("02:00:00:00:01:00",
                                    "02:00:00:00:04:00")
        verdict = judge_native("associate", config=WEXT, iwconfig=other_ap)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("no Access Point", verdict.summary)
        verdict = judge_native("associate", config=WEXT, iwconfig=NO_WEXT)
        self.assertIn('no ESSID:"ndisbench"', verdict.summary)
        verdict = judge_native("associate", config=WEXT)
        self.assertIn("no iwconfig output", verdict.summary)
        verdict = judge_native("associate", config={}, iwconfig=IWCONFIG)
        self.assertIn("without CONFIG_CFG80211_WEXT", verdict.summary)

    def test_ealready_then_disconnect_and_connect_passes(self):
        verdict = judge_native("associate", connect="# iw_connect_status: "
                               "142\n# iw_disconnect_status: 0\n"
                               "# iw_connect_status: 0")
        self.assertEqual(verdict.status, "pass")
        self.assertIn("with iw connect ndisbench", verdict.summary)


class RoleImportsTest(unittest.TestCase):
    """A module built from another wrapper tree brings its own GPL-only
    imports: the rc1 breakage is expected to name exactly those."""

    def test_per_role_list_overrides_the_table(self):
        built = {"ndiswrapper": ["usb_submit_urb", "usb_register_driver"]}
        want = modload.expected_loads(EXP.policies["2.6.25-rc1"], EXP,
                                      ["control", "ndiswrapper"], 4096,
                                      gpl_imports=built)
        self.assertEqual(want["ndiswrapper"].unknown_symbols,
                         ["usb_register_driver", "usb_submit_urb"])
        self.assertEqual(want["control"].unknown_symbols, [])
        want = modload.expected_loads(EXP.policies["2.6.25-rc1"], EXP,
                                      ["driverloader"], 4096,
                                      gpl_imports=built)
        self.assertEqual(want["driverloader"].unknown_symbols,
                         sorted(EXP.gpl_only_imports))


class WrapperSrcTest(unittest.TestCase):
    def test_classic_layout_is_required(self):
        import tempfile
        from ndisbench_lib.build import modules
        from ndisbench_lib.errors import BenchError
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "driver").mkdir()
            (root / "driver" / "Makefile").write_text("all:\n")
            with self.assertRaisesRegex(BenchError, "no utils/Makefile"):
                modules.check_wrapper_src(root)
            (root / "utils").mkdir()
            (root / "utils" / "Makefile").write_text("all:\n")
            modules.check_wrapper_src(root)


class ConditionalImportsTest(unittest.TestCase):
    def test_lockdep_kernels_add_their_imports(self):
        plain = EXP.gpl_imports_for({"CONFIG_SMP": "y"})
        self.assertEqual(plain, sorted(EXP.gpl_only_imports))
        debug = EXP.gpl_imports_for({"CONFIG_DEBUG_LOCK_ALLOC": "y"})
        self.assertIn("mutex_lock_nested", debug)
        self.assertEqual(len(debug), len(plain) + 2)


    def test_renamed_exports_where_the_kernel_has_them(self):
        """7.x: alloc_workqueue() is a macro over alloc_workqueue_noprof
        (allocation profiling), the GPL-only export the module imports."""
        self.assertEqual(EXP.gpl_only_imports_renamed["alloc_workqueue"],
                         "alloc_workqueue_noprof")
        old = EXP.gpl_imports_for({}, {"alloc_workqueue", "flush_work"})
        self.assertIn("alloc_workqueue", old)
        new = EXP.gpl_imports_for({}, {"alloc_workqueue_noprof"})
        self.assertIn("alloc_workqueue_noprof", new)
        self.assertNotIn("alloc_workqueue", new)
        self.assertEqual(len(new), len(old))
        with self.assertRaises(TypeError):
            EXP.gpl_only_imports_renamed["x"] = "y"  # type: ignore

    def test_no_tlb_flush_import(self):
        """The image is written through an alias (pe_image.c): 7.x exports
        __flush_tlb_all to kvm only."""
        self.assertNotIn("__flush_tlb_all", EXP.gpl_only_imports)


class DevnodeLog:
    """A load-check verdict on an agent log with the devnode facts."""

    def judge(self, errno, ioctls=None, kmsg="", own_abi=True):
        """ioctls: the agent's `ioctl` facts (default: every case answered
        as the wrapper must); kmsg: a kernel line logged meanwhile;
        own_abi: False for a --wrapper-src tree."""
        if ioctls is None:
            ioctls = dict(modload.IOCTL_EXPECTED)
        facts = "".join(f"# ioctl: {case} errno={name}\r\n"
                        for case, name in ioctls.items())
        log = agent_log([{"module": "ndisbench_control", "before": 0,
                          "errno": 0, "after": 12288, "taint": "OE"},
                         {"module": "ndiswrapper", "before": 12288,
                          "errno": 0, "after": 12289, "taint": "OE",
                          "kmsg": ["ndiswrapper: module license taints "
                                   "kernel."]}])
        log = log.replace("# module_taint: OE\r\n# kmsg: ndiswrapper",
                          f"# module_taint: OE\r\n"
                          f"# devnode_unprivileged_errno: {errno}\r\n"
                          f"{facts}{kmsg}"
                          f"# kmsg: ndiswrapper")
        return judge("load", EXP.policies["2.6.25-rc4"], EXP,
                     ktap.parse(log), ["control", "ndiswrapper"], 12288,
                     own_loader_abi=own_abi)


class DevnodeTest(DevnodeLog, unittest.TestCase):
    """/dev/ndiswrapper is root only: a world-openable node fails load."""

    def test_refused_open_passes(self):
        self.assertEqual(self.judge(13).status, "pass")

    def test_world_openable_node_fails(self):
        verdict = self.judge(0)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("non-root open of /dev/ndiswrapper", verdict.summary)


class IoctlTest(DevnodeLog, unittest.TestCase):
    """The malformed messages to /dev/ndiswrapper (guest/agent/devnode.c):
    each must be refused with its exact errno."""

    def test_accepted_message_fails(self):
        ioctls = dict(modload.IOCTL_EXPECTED, load_sys_size_over_max="0")
        verdict = self.judge(13, ioctls)
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary,
                         "ioctl load_sys_size_over_max on /dev/ndiswrapper: "
                         "expected 'errno=EFBIG', got 'errno=0'")

    def test_wrong_errno_fails(self):
        # a size check gone: the message reaches the request lookup
        ioctls = dict(modload.IOCTL_EXPECTED, load_sys_size_0="ESRCH")
        self.assertEqual(self.judge(13, ioctls).status, "FAIL")

    def test_missing_case_fails(self):
        ioctls = dict(modload.IOCTL_EXPECTED)
        del ioctls["unprivileged"]
        verdict = self.judge(13, ioctls)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("got 'missing'", verdict.summary)

    def test_unknown_case_fails(self):
        ioctls = dict(modload.IOCTL_EXPECTED, open="EACCES")
        self.assertIn("unexpected case open",
                      self.judge(13, ioctls).summary)

    def test_oops_while_probing_fails(self):
        verdict = self.judge(13, kmsg="# kmsg: BUG: unable to handle page "
                                      "fault for address: 0000000000000010"
                                      "\r\n")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("kernel log while /dev/ndiswrapper was probed",
                      verdict.summary)

    def test_another_tree_only_has_to_survive(self):
        """--wrapper-src: its ioctls are not ours, so other errnos pass,
        but an oops while probing still fails."""
        foreign = False
        ioctls = {case: "ENOTTY" for case in modload.IOCTL_EXPECTED}
        self.assertEqual(self.judge(13, ioctls, own_abi=foreign).status,
                         "pass")
        verdict = self.judge(13, ioctls, own_abi=foreign,
                             kmsg="# kmsg: BUG: unable to handle page "
                                  "fault for address: 0000000000000010\r\n")
        self.assertEqual(verdict.status, "FAIL")


class UdpJudgeTest(unittest.TestCase):
    """The bench's small-packet check: the host's count is the measure."""

    LOG = ("KTAP version 1\n1..3\n# tainted: 0\nok 1 boot\n# ifname: eth0\n"
           "ok 2 bind eth0\n# carrier_ms: 5\nok 3 associate\n"
           "# udp_payload: 64\n# udp_sent: 1000\n# seconds: 2.000\n"
           "ok 4 udp\n# ndisbench-agent: done\n")

    def judge(self, arrived):
        return judge("udp", EXP.policies["2.6.25-rc4"], EXP,
                     ktap.parse(self.LOG), [], 0, arrived)

    def test_rate_from_the_host_count(self):
        verdict = self.judge(800)
        self.assertEqual(verdict.status, "pass")
        self.assertIn("400 datagrams/s", verdict.summary)

    def test_nothing_or_too_much_arriving_fails(self):
        self.assertEqual(self.judge(0).status, "FAIL")
        self.assertEqual(self.judge(1001).status, "FAIL")
