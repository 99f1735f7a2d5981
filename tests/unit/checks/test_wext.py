"""Both wireless interfaces: an interface without a cfg80211 wiphy is
driven through the wireless extensions (iwlist scan, iwconfig essid,
SIOCGIWAP/SIOCGIWESSID), one with a wiphy through nl80211 (iw). The
judges of scan, associate and roam read `wireless_api` and hold both ways
to the same facts; the wext row of our wrapper asks its module for no
wiphy."""
import unittest

from helpers import judge
from ktaplogs import real_log
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import scan
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()
POLICY = EXP.policies["2.6.25-rc4"]        # does not refuse ndiswrapper

# `iwlist wlan0 scan` (wireless-tools 30) on the air of guest/air.py.
IWLIST = """wlan0     Scan completed :
          Cell 01 - Address: 02:00:00:00:01:00
                    ESSID:"ndisbench"
                    Mode:Master
                    Frequency:2.437 GHz (Channel 6)
                    Quality=70/70  Signal level=-40 dBm
                    Encryption key:off
          Cell 02 - Address: 02:00:00:00:02:00
                    ESSID:"ndisbench-far"
                    Mode:Master
                    Frequency:2.412 GHz (Channel 1)
                    Quality=40/70  Signal level={far_signal} dBm
                    Encryption key:off
          Cell 03 - Address: 02:00:00:00:03:00
                    ESSID:{hidden_essid}
                    Mode:Master
                    Frequency:2.462 GHz (Channel 11)
                    Quality=55/70  Signal level=-55 dBm
                    Encryption key:off
          Cell 04 - Address: 02:00:00:00:04:00
                    ESSID:"ndisbench"
                    Mode:Master
                    Frequency:2.462 GHz (Channel 11)
                    Quality=50/70  Signal level=-60 dBm
                    Encryption key:off
"""


def scan_log(status=0, **kw):
    values = {"far_signal": "-70", "hidden_essid": "off/any/hidden"}
    values.update(kw)
    facts = "".join(f"# iwlist_scan: {line}\n"
                    for line in IWLIST.format(**values).splitlines())
    return ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                      "# wireless_api: wext\n" + facts +
                      f"# iwlist_scan_status: {status}\n"
                      f"{'ok' if status == 0 else 'not ok'} 2 scan\n")


class WextScanTest(unittest.TestCase):
    def test_iwlist_listing_every_ap_passes_and_says_so(self):
        verdict = scan.judge_scan(scan_log())
        self.assertEqual(verdict.status, "pass", verdict.details)
        self.assertTrue(verdict.summary.endswith("(wireless extensions)"),
                        verdict.summary)

    def test_hidden_ssid_may_show_empty(self):
        self.assertEqual(scan.judge_scan(scan_log(hidden_essid='""')).status,
                         "pass")

    def test_revealed_hidden_ssid_fails(self):
        verdict = scan.judge_scan(scan_log(hidden_essid='"ndisbench-'
                                                        'hidden"'))
        self.assertIn("hidden SSID revealed", verdict.summary)

    def test_wrong_signal_fails(self):
        verdict = scan.judge_scan(scan_log(far_signal="-40"))
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "02:00:00:00:02:00 signal "
                         "'-40 dBm', the air gives -70 dBm")

    def test_cells_are_read_with_their_frequency_and_ssid(self):
        lines = IWLIST.format(far_signal="-70",
                              hidden_essid='""').splitlines()
        found = scan.iwlist_results(lines)
        self.assertEqual(found["02:00:00:00:02:00"],
                         {"freq": "2412", "signal": "-70 dBm",
                          "ssid": "ndisbench-far"})
        self.assertEqual(found["02:00:00:00:03:00"]["ssid"], "")

    def test_a_channel_without_frequency_is_its_frequency(self):
        found = scan.iwlist_results([
            "Cell 01 - Address: 02:00:00:00:01:00", "Channel:14",
            "Signal level:-40 dBm", 'ESSID:"x"'])
        self.assertEqual(found["02:00:00:00:01:00"]["freq"], "2484")
        self.assertEqual(found["02:00:00:00:01:00"]["signal"], "-40 dBm")

    def test_missing_ap_fails(self):
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                         "# wireless_api: wext\n"
                         "# iwlist_scan: wlan0     Scan completed :\n"
                         "# iwlist_scan:           Cell 01 - Address: "
                         "02:00:00:00:01:00\n"
                         "# iwlist_scan_status: 0\nok 2 scan\n")
        verdict = scan.judge_scan(log)
        self.assertIn("02:00:00:00:02:00 (ndisbench-far) not in the scan",
                      verdict.details)

    def test_iwlist_that_failed_says_why_first(self):
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                         "# wireless_api: wext\n"
                         "# iwlist_scan: wlan0     Interface doesn't "
                         "support scanning.\n"
                         "# iwlist_scan_status: 255\nnot ok 2 scan\n")
        verdict = scan.judge_scan(log)
        self.assertEqual(verdict.summary, "iwlist scan exited 255: wlan0"
                         "     Interface doesn't support scanning.")

    def test_iw_facts_are_not_read_on_the_wext_way(self):
        # an iw listing does not stand in for the iwlist one
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                         "# wireless_api: wext\n"
                         "# iw_scan: BSS 02:00:00:00:01:00(on wlan0)\n"
                         "# iwlist_scan_status: 0\nok 2 scan\n")
        verdict = scan.judge_scan(log)
        self.assertIn("02:00:00:00:01:00 (ndisbench) not in the scan",
                      verdict.details)


LINK_LOG = """KTAP version 1
1..4
# tainted: 0
ok 1 boot
# ifname: wlan0
# driver: ndiswrapper
# fw_version: bcmwl.sys
ok 2 bind wlan0
# wireless_api: wext
{join}
# carrier_ms: 2100
# operstate: up
# wireless_api: wext
{link}
# iwconfig: wlan0     IEEE 802.11bg  ESSID:"{ssid}"
# iwconfig:           Mode:Managed  Frequency:2.437 GHz  Access Point: \
{iwconfig_ap}
# iwconfig_status: 0
ok 3 associate
{roam}
# rmmod: ndiswrapper errno=0
ok {rmmod} unload
# ndisbench-agent: done
"""

ROAM = """# roam_request: drop
# lost_ms: 310
# wireless_api: wext
# iwconfig_essid_status: 0
# carrier_ms: 5200
# operstate: up
# wireless_api: wext
# wext_ap: {roam_ap}
# wext_essid: ndisbench
# iwconfig: wlan0     IEEE 802.11bg  ESSID:"ndisbench"
# iwconfig_status: 0
# settle_pings: 2
# received: 10
ok 4 roam"""


def judge_wext(check, config=None, roam=False, **kw):
    values = {"join": "# iwconfig_essid_status: 0",
              "link": "# wext_ap: 02:00:00:00:01:00\n"
                      "# wext_essid: ndisbench",
              "ssid": "ndisbench", "iwconfig_ap": "02:00:00:00:01:00",
              "roam_ap": "02:00:00:00:04:00"}
    values.update(kw)
    values["roam"] = ROAM.format(**values) if roam else ""
    values["rmmod"] = 5 if roam else 4
    text = LINK_LOG.format(**values)
    if roam:
        text = text.replace("1..4", "1..5")
    return judge(check, POLICY, EXP, ktap.parse(text), [], 4096, None,
                 "bcmwl", iw_ssid="ndisbench", config=config)


class WextAssociateTest(unittest.TestCase):
    def test_iwconfig_join_and_siocgiwap_pass_and_say_so(self):
        for config in (None, {}, {"CONFIG_CFG80211_WEXT": "y"}):
            verdict = judge_wext("associate", config=config)
            self.assertEqual(verdict.status, "pass", verdict.details)
            self.assertIn("with iwconfig essid ndisbench",
                          verdict.summary)
            self.assertTrue(verdict.summary.endswith(
                "(wireless extensions)"), verdict.summary)

    def test_the_ap_siocgiwap_gives_is_judged(self):
        verdict = judge_wext("associate", link="# wext_ap: "
                             "02:00:00:00:04:00\n# wext_essid: ndisbench")
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "BSSID the driver reports: "
                         "expected '02:00:00:00:01:00', got "
                         "'02:00:00:00:04:00'")
        verdict = judge_wext("associate", link="# wext_ap: "
                             "02:00:00:00:01:00\n# wext_essid: other")
        self.assertIn("SSID the driver reports", verdict.summary)

    def test_the_join_must_be_iwconfigs(self):
        verdict = judge_wext("associate", join="# iwconfig_essid: Error "
                             "for wireless request \"Set ESSID\" (8B1A)\n"
                             "# iwconfig_essid_status: 255")
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "iwconfig essid ndisbench exited "
                         "255: Error for wireless request \"Set ESSID\" "
                         "(8B1A)")
        verdict = judge_wext("associate", join="# carrier_wait: 1")
        self.assertEqual(verdict.summary,
                         "agent never ran iwconfig essid ndisbench")

    def test_iw_is_not_asked_for_on_the_wext_way(self):
        verdict = judge_wext("associate")
        self.assertNotIn("iw connect", verdict.summary)

    def test_iwconfig_must_show_the_link_whatever_cfg80211_has(self):
        verdict = judge_wext("associate", config={},
                             iwconfig_ap="Not-Associated")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("iwconfig shows no Access Point", verdict.summary)
        verdict = judge_wext("associate", config={}, ssid="other")
        self.assertIn('iwconfig shows no ESSID:"ndisbench"',
                      verdict.summary)


class WextRoamTest(unittest.TestCase):
    def test_roam_through_iwconfig_passes_and_says_so(self):
        verdict = judge_wext("roam", roam=True)
        self.assertEqual(verdict.status, "pass", verdict.details)
        self.assertTrue(verdict.summary.endswith("(wireless extensions)"),
                        verdict.summary)

    def test_the_ap_after_the_roam_is_judged(self):
        verdict = judge_wext("roam", roam=True, roam_ap="02:00:00:00:01:00")
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary, "BSSID after the roam: expected "
                         "'02:00:00:00:04:00', got '02:00:00:00:01:00'")


class WextCaptureTest(unittest.TestCase):
    """The join on the air is the same either way; the summary says which
    API the agent joined through."""

    def judge_capture(self, api_line):
        from guest.test_air import AP, sequence
        from ndisbench_lib.guest.capture import AirCapture
        log = ktap.parse("KTAP version 1\n1..3\nok 1 boot\n"
                         "# mac: 52:54:00:12:34:58\nok 2 bind wlan0\n"
                         f"{api_line}\n# carrier_ms: 9\nok 3 associate\n")
        self.assertEqual(AP, EXP.network["ap_bssid"])
        return judge("capture", POLICY, EXP, log, [], 4096, None, "bcmwl",
                     air=AirCapture(sequence(), path="air.pcap.gz"))

    def test_the_summary_names_the_wireless_extensions(self):
        verdict = self.judge_capture("# wireless_api: wext")
        self.assertEqual(verdict.status, "pass", verdict.details)
        self.assertTrue(verdict.summary.endswith("(wireless extensions)"),
                        verdict.summary)
        verdict = self.judge_capture("# wireless_api: nl80211")
        self.assertEqual(verdict.status, "pass", verdict.details)
        self.assertNotIn("wireless extensions", verdict.summary)


class WextRowTest(unittest.TestCase):
    def test_the_wext_row_asks_our_wrapper_for_no_wiphy(self):
        from cell.test_runner import cmdline
        row = devices.DEVICES["bcm43xx-wext/ndiswrapper"]
        self.assertIn(row.label, devices.RADIOS)
        self.assertFalse(row.default)
        words = cmdline(row, ["scan", "associate"]).split()
        self.assertIn("ndisbench.modparams=ndiswrapper.wiphy=0", words)
        self.assertIn("ndisbench.connect=ndisbench", words)
        plain = cmdline(devices.DEVICES["bcm43xx/ndiswrapper"], ["scan"])
        self.assertNotIn("modparams", plain)


class WextRealCellScanTest(unittest.TestCase):
    """The scan of a real bcm43xx-wext cell (debian-6.1, a run of our
    wrapper's wext row): iwlist's own listing, its cells in the order the
    driver gave them, trailing blanks and all."""
    def test_the_real_cell_passes_with_its_summary(self):
        log = ktap.parse(real_log("checks",
                                  "debian-6.1__bcm43xx-wext__ndiswrapper"))
        verdict = scan.judge_scan(log)
        self.assertEqual(verdict.status, "pass", verdict.details)
        self.assertEqual(verdict.summary, "4 APs listed with channel and "
                         "signal (one hidden, SSID not shown) (wireless "
                         "extensions)")


if __name__ == "__main__":
    unittest.main()
