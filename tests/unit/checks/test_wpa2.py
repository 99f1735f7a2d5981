"""The WPA2 checks (wpa2, wpa2-badkey, rekey) judged from synthetic agent
logs and air captures: each fact they judge, broken one at a time."""
import dataclasses
import unittest

import helpers
import ktaplogs
from ndisbench_lib import cell, devices, kernels
from ndisbench_lib.checks import registry, wpa
from ndisbench_lib.checks.check import GuestContext
from ndisbench_lib.guest import air
from ndisbench_lib.guest.capture import AirCapture, DataFrame

EXP = kernels.load_expectations()
POLICY = "2.6.25-rc4"
STA = "52:54:00:12:34:57"
AP = air.WPA2_AP.bssid
OPEN_AP = "02:00:00:00:01:00"
GW = "52:55:0a:00:02:02"
WPA2_BYTES = 4194304           # the table's tcp_bytes: the cell's stream
REKEY_BYTES = 16 << 20


def frame(number, sa, da, protected, layers, msg=0, bssid=AP):
    return DataFrame(number, 0x28, bssid, sa, da, protected, msg,
                     tuple(layers.split(":")))


WLAN = "radiotap:wlan_radio:wlan"
# The open network's data, then the good 4-way handshake, then DHCP, ICMP
# and TCP, decrypted.
GOOD_AIR = (
    frame(10, STA, GW, False, WLAN + ":llc:ip:udp:dhcp", bssid=OPEN_AP),
    frame(20, AP, STA, False, WLAN + ":llc:eapol", msg=1),
    frame(21, STA, AP, False, WLAN + ":llc:eapol", msg=2),
    frame(22, AP, STA, False, WLAN + ":llc:eapol", msg=3),
    frame(23, STA, AP, False, WLAN + ":llc:eapol", msg=4),
    frame(30, STA, "ff:ff:ff:ff:ff:ff", True, WLAN + ":llc:ip:udp:dhcp"),
    frame(31, GW, STA, True, WLAN + ":llc:ip:udp:dhcp"),
    frame(32, STA, GW, True, WLAN + ":llc:ip:icmp:data"),
    frame(33, GW, STA, True, WLAN + ":llc:ip:icmp:data"),
    frame(34, STA, GW, True, WLAN + ":llc:ip:tcp:data"),
    frame(35, GW, STA, True, WLAN + ":llc:ip:tcp"),
)
# A wrong passphrase first: the AP never sends message 3 to its message 2.
BAD_AIR = (
    frame(15, AP, STA, False, WLAN + ":llc:eapol", msg=1),
    frame(16, STA, AP, False, WLAN + ":llc:eapol", msg=2),
    frame(17, AP, STA, False, WLAN + ":llc:eapol", msg=1),
    frame(18, STA, AP, False, WLAN + ":llc:eapol", msg=2),
)


def capture(frames=GOOD_AIR, problems=()):
    return AirCapture(path="air.pcap.gz", wpa_frames=tuple(frames),
                      wpa_problems=tuple(problems))


JOINED = (
    "# wpa_driver: nl80211\n# wpa_ssid: ndisbench-wpa2\n"
    f"# wpa_event: Trying to associate with {AP} (SSID='ndisbench-wpa2' "
    "freq=2437 MHz)\n"
    f"# wpa_event: Associated with {AP}\n"
    f"# wpa_event: WPA: Key negotiation completed with {AP} "
    "[PTK=CCMP GTK=CCMP]\n"
    f"# wpa_event: CTRL-EVENT-CONNECTED - Connection to {AP} completed "
    "[id=0 id_str=]\n"
    "# connect_ms: {connect_ms}\n# handshake_ms: {handshake_ms}\n"
    "# wpa_bssid: {bssid}\n# wpa_ssid: ndisbench-wpa2\n"
    "# pairwise_cipher: {pairwise}\n# group_cipher: CCMP\n"
    "# key_mgmt: {key_mgmt}\n# wpa_state: {state}\n")


def joined(**kw):
    values = dict(connect_ms="4100", handshake_ms="310", bssid=AP,
                  pairwise="CCMP", key_mgmt="WPA2-PSK", state="COMPLETED")
    values.update(kw)
    return JOINED.format(**values)


def wpa2_test(result="ok", received=20, sent=WPA2_BYTES,
              address="10.0.2.15", **kw):
    return (joined(**kw) + "# udhcpc_status: 0\n"
            f"# address: {address}\n# target: 10.0.2.2\n"
            f"# transmitted: 20\n# received: {received}\n"
            f"# target: 10.0.2.2:40000\n# bytes_sent: {sent}\n"
            f"# sink_reply: received={sent}\n{result} 5 wpa2\n")


BADKEY_FAIL = (
    "# wpa_driver: nl80211\n# wpa_ssid: ndisbench-wpa2\n"
    f"# wpa_event: Associated with {AP}\n"
    "# wpa_event: WPA: 4-Way Handshake failed - pre-shared key may be "
    "incorrect\n"
    "# wpa_event: CTRL-EVENT-SSID-TEMP-DISABLED id=0 ssid=\"ndisbench-wpa2\""
    " auth_failures=1 duration=10 reason=WRONG_KEY\n")


def badkey_test(events=BADKEY_FAIL, state="SCANNING", connect_ms="-",
                result="ok"):
    return (events + f"# connect_ms: {connect_ms}\n# handshake_ms: -\n"
            f"# wpa_state: {state}\n# wpa_supplicant_stopped: 1\n"
            f"{result} 5 wpa2-badkey\n")


def rekey_test(rekeys=2, sent=REKEY_BYTES, state="COMPLETED", result="ok"):
    events = "".join(f"# wpa_event: WPA: Group rekeying completed with {AP}"
                     f" [GTK=CCMP]\n" for _ in range(rekeys))
    return ("# wpa_joined_before: 1\n# target: 10.0.2.2:40001\n"
            f"# bytes_sent: {sent}\n# sink_reply: received={sent}\n"
            + events + f"# group_rekeys: {rekeys}\n"
            f"# wpa_state: {state}\n{result} 5 rekey\n")


def judge(check, test, air_capture=None, sink=None, config=None):
    log = ktaplogs.net_cell_log(test, ifname="wlan0", mac=STA)
    from ndisbench_lib.report import ktap
    return helpers.judge(check, EXP.policies[POLICY], EXP,
                         ktap.parse(log), ["ndiswrapper"], 12288,
                         sink_bytes=sink, air=air_capture,
                         iw_ssid="ndisbench", config=config)


class ThirtyTwoBitTimeTest(unittest.TestCase):
    """Debian's i386 wpa_supplicant (glibc 2.36) calls the 32-bit futex;
    a 32-bit kernel without CONFIG_COMPAT_32BIT_TIME (our i386 source
    kernels' tinyconfig) cannot run it: not run, never FAIL."""

    def test_not_run_without_32bit_time(self):
        cfg = {"CONFIG_X86_32": "y"}
        for check, log in (("wpa2", wpa2_test(result="not ok")),
                           ("wpa2-badkey", badkey_test(result="not ok")),
                           ("rekey", rekey_test(rekeys=0,
                                                result="not ok"))):
            with self.subTest(check):
                v = judge(check, log, capture(), WPA2_BYTES, config=cfg)
                self.assertEqual(v.status, "not run")
                self.assertIn("CONFIG_COMPAT_32BIT_TIME", v.summary)

    def test_runs_with_it_or_on_64_bit(self):
        for cfg in ({"CONFIG_X86_32": "y", "CONFIG_COMPAT_32BIT_TIME": "y"},
                    {"CONFIG_X86_64": "y"}, None):
            v = judge("wpa2", wpa2_test(), capture(), WPA2_BYTES,
                      config=cfg)
            self.assertEqual(v.status, "pass", (cfg, v.summary))


class Wpa2Test(unittest.TestCase):
    def good(self, **kw):
        air_capture = kw.pop("air_capture", capture())
        sink = kw.pop("sink", WPA2_BYTES)
        return judge("wpa2", wpa2_test(**kw), air_capture, sink)

    def test_good_log_passes(self):
        v = self.good()
        self.assertEqual(v.status, "pass", v.summary)
        self.assertIn("310 ms", v.summary)
        self.assertIn("tshark decrypted DHCP, ICMP and TCP", v.summary)
        self.assertIn("wpa_supplicant -Dnl80211", v.summary)

    def test_each_fact_fails_alone(self):
        cases = {
            "wpa_state SCANNING, want COMPLETED": dict(state="SCANNING"),
            "key_mgmt WPA-PSK, want WPA2-PSK": dict(key_mgmt="WPA-PSK"),
            "pairwise_cipher TKIP, want CCMP": dict(pairwise="TKIP"),
            f"BSSID {OPEN_AP}, want {AP}": dict(bssid=OPEN_AP),
            "handshake took 12000 ms, the bound is 10000 ms":
                dict(handshake_ms="12000"),
            "echo replies: expected 20, got 19": dict(received=19),
            "address: expected '10.0.2.15', got '-'": dict(address="-"),
        }
        for problem, kw in cases.items():
            with self.subTest(problem):
                v = self.good(**kw)
                self.assertEqual(v.status, "FAIL")
                self.assertIn(problem, v.summary)

    def test_no_handshake_time_fails(self):
        v = self.good(handshake_ms="-", state="ASSOCIATED")
        self.assertEqual(v.status, "FAIL")
        self.assertIn("the 4-way handshake never completed", v.summary)

    def test_keys_installed_is_judged(self):
        log = wpa2_test().replace("WPA: Key negotiation completed", "x")
        v = judge("wpa2", log, capture(), WPA2_BYTES)
        self.assertEqual(v.status, "FAIL")
        self.assertIn("no 'Key negotiation completed' (PTK and GTK "
                      "installed)", v.summary)

    def test_stream_short_at_the_sink(self):
        v = self.good(sink=WPA2_BYTES - 1)
        self.assertEqual(v.status, "FAIL")
        self.assertIn(f"bytes at the sink: expected {WPA2_BYTES}, got "
                      f"{WPA2_BYTES - 1}", v.summary)

    def test_an_unprotected_data_frame_fails(self):
        leak = GOOD_AIR + (frame(40, STA, GW, False,
                                 WLAN + ":llc:ip:icmp:data"),)
        v = self.good(air_capture=capture(leak))
        self.assertEqual(v.status, "FAIL")
        self.assertIn("frame 40 (52:54:00:12:34:57 -> 52:55:0a:00:02:02) "
                      "has no Protected bit", v.summary)

    def test_open_networks_frames_are_not_judged(self):
        # frame 10 (open AP, unprotected) is in GOOD_AIR: it passes
        self.assertEqual(self.good().status, "pass")

    def test_tshark_must_decrypt_each_protocol(self):
        for proto in ("dhcp", "icmp", "tcp"):
            with self.subTest(proto):
                frames = [f for f in GOOD_AIR if proto not in f.layers]
                v = self.good(air_capture=capture(frames))
                self.assertEqual(v.status, "FAIL")
                self.assertIn(f"tshark found no decrypted {proto.upper()}",
                              v.summary)

    def test_capture_unread_is_error(self):
        v = self.good(air_capture=AirCapture(error="QEMU wrote no "
                                                   "air.pcap"))
        self.assertEqual(v.status, "ERROR")
        self.assertIn("QEMU wrote no air.pcap", v.summary)

    def test_missing_result_is_error(self):
        log = wpa2_test().replace("ok 5 wpa2\n", "ok 5 other\n")
        v = judge("wpa2", log, capture(), WPA2_BYTES)
        self.assertEqual(v.status, "ERROR")
        self.assertIn("agent printed no wpa2 result", v.summary)


class BadkeyTest(unittest.TestCase):
    def test_good_log_passes(self):
        v = judge("wpa2-badkey", badkey_test(), capture(BAD_AIR))
        self.assertEqual(v.status, "pass", v.summary)
        self.assertIn("message 2 not answered", v.summary)
        self.assertIn("reason=WRONG_KEY", v.summary)

    def test_joined_with_the_wrong_key_fails(self):
        v = judge("wpa2-badkey", badkey_test(state="COMPLETED",
                                             connect_ms="900"),
                  capture(BAD_AIR))
        self.assertEqual(v.status, "FAIL")
        self.assertIn("joined with a wrong passphrase (wpa_state "
                      "COMPLETED)", v.summary)

    def test_failure_not_reported_fails(self):
        v = judge("wpa2-badkey",
                  badkey_test(events="# wpa_event: Associated with x\n"),
                  capture(BAD_AIR))
        self.assertEqual(v.status, "FAIL")
        self.assertIn("the station reported no handshake failure",
                      v.summary)

    def test_message_3_after_a_bad_message_2_fails(self):
        frames = BAD_AIR[:2] + (frame(17, AP, STA, False,
                                      WLAN + ":llc:eapol", msg=3),)
        v = judge("wpa2-badkey", badkey_test(), capture(frames))
        self.assertEqual(v.status, "FAIL")
        self.assertIn("the AP answered message 2 (frame 16) with message 3 "
                      "(frame 17)", v.summary)

    def test_no_message_2_fails(self):
        v = judge("wpa2-badkey", badkey_test(), capture(BAD_AIR[:1]))
        self.assertEqual(v.status, "FAIL")
        self.assertIn(f"no EAPOL-Key message 2 from {STA}", v.summary)

    def test_unprotected_data_from_the_station_fails(self):
        frames = BAD_AIR + (frame(19, STA, GW, False,
                                  WLAN + ":llc:ip:udp:dhcp"),)
        v = judge("wpa2-badkey", badkey_test(), capture(frames))
        self.assertEqual(v.status, "FAIL")
        self.assertIn("frame 19 (52:54:00:12:34:57 -> 52:55:0a:00:02:02) "
                      "has no Protected bit", v.summary)


class RekeyTest(unittest.TestCase):
    """The agent streams until two group rekeys completed during the
    stream (and at least REKEY_MIN_BYTES went), at most REKEY_BYTES: the
    stream's length follows the rekeys, not the host's speed."""
    SENT = 3 << 20

    def test_good_log_passes(self):
        v = judge("rekey", rekey_test(sent=self.SENT), capture(), self.SENT)
        self.assertEqual(v.status, "pass", v.summary)
        self.assertIn(f"2 group rekeys during a {self.SENT}-byte stream",
                      v.summary)

    def test_the_whole_cap_with_one_rekey_passes(self):
        v = judge("rekey", rekey_test(rekeys=1), capture(), REKEY_BYTES)
        self.assertEqual(v.status, "pass", v.summary)

    def test_no_rekey_fails(self):
        v = judge("rekey", rekey_test(rekeys=0), capture(), REKEY_BYTES)
        self.assertEqual(v.status, "FAIL")
        self.assertIn("no group rekey during the stream", v.summary)

    def test_bytes_lost_fails(self):
        v = judge("rekey", rekey_test(sent=self.SENT), capture(),
                  self.SENT - 1460)
        self.assertEqual(v.status, "FAIL")
        self.assertIn(f"bytes at the sink: expected {self.SENT}, got "
                      f"{self.SENT - 1460}", v.summary)

    def test_short_stream_fails(self):
        short = (1 << 20) - 1
        v = judge("rekey", rekey_test(sent=short), capture(), short)
        self.assertEqual(v.status, "FAIL")
        self.assertIn(f"the stream stopped after {short} bytes, before "
                      f"{1 << 20}", v.summary)

    def test_more_than_the_cap_fails(self):
        v = judge("rekey", rekey_test(sent=REKEY_BYTES + 1), capture(),
                  REKEY_BYTES + 1)
        self.assertEqual(v.status, "FAIL")
        self.assertIn(f"{REKEY_BYTES + 1} bytes sent, more than the "
                      f"{REKEY_BYTES} asked", v.summary)

    def test_link_lost_fails(self):
        v = judge("rekey", rekey_test(state="DISCONNECTED"), capture(),
                  REKEY_BYTES)
        self.assertEqual(v.status, "FAIL")
        self.assertIn("wpa_state DISCONNECTED, want COMPLETED", v.summary)


class WhereTheyRunTest(unittest.TestCase):
    NAMES = ("wpa2", "wpa2-badkey", "rekey")

    def test_native_and_wrapped_rows_whose_fixture_does_wpa2(self):
        """Linux's own driver, and our wrapper's rows whose fixture does
        WPA2-PSK (rtlwl.sys: CCMP in the driver; bcmwl.sys: in the chip's
        key table), with a wiphy and without; not the recovery or
        send-rule variants."""
        want = devices.NATIVE + ("rtl8187/ndiswrapper",
                                 "rtl8187-wext/ndiswrapper",
                                 "bcm43xx/ndiswrapper",
                                 "bcm43xx-wext/ndiswrapper")
        for name in self.NAMES:
            check = registry.get(name)
            with self.subTest(name):
                self.assertEqual(sorted(check.devices), sorted(want))
                self.assertTrue(check.wpa2_network and check.air_capture)
                self.assertTrue(check.default)
                for row in devices.FAULTY:
                    self.assertNotIn(row, check.devices)

    def test_wext_row_of_the_usb_radio(self):
        """rtl8187-wext/ndiswrapper: rtlwl.sys in the wrapper without a
        wiphy (ndiswrapper.wiphy=0), out of a plain run."""
        row = next(d for d in devices.TARGETS
                   if d.label == "rtl8187-wext/ndiswrapper")
        self.assertEqual(row.variant, "wext")
        self.assertEqual(row.fixture, "rtlwl")
        self.assertFalse(row.default)
        self.assertIn("ndiswrapper.wiphy=0", row.module_params)
        self.assertIn(row.label, devices.WRAPPED)

    def test_supplicant_driver(self):
        """nl80211 wherever the station has a cfg80211 wiphy (native and
        our wrapper's default), wext on the wiphy=0 row."""
        by_label = {d.label: d for d in devices.TARGETS}
        for label, want in (("rtl8187/native", "nl80211"),
                            ("rtl8187/ndiswrapper", "nl80211"),
                            ("bcm43xx/ndiswrapper", "nl80211"),
                            (devices.WEXT_ROW, "wext")):
            with self.subTest(label):
                self.assertEqual(wpa.supplicant_driver(by_label[label]),
                                 want)

    def test_a_users_wrapper_tree_gets_the_driver_its_wiphy_asks(self):
        """A user's tree (--wrapper-src; ndiswrapper 1.63 has no cfg80211)
        decides itself: the agent takes nl80211 where the interface has a
        wiphy, wext where not, as scan and associate do."""
        dev = next(d for d in devices.TARGETS
                   if d.label == "rtl8187/ndiswrapper")
        self.assertEqual(wpa.supplicant_driver(dev, users_wrapper=True),
                         "auto")
        words = registry.get("wpa2").params(
            GuestContext(EXP, dev, 40000, users_wrapper=True))
        self.assertTrue(words[0].startswith(
            f"ndisbench.wpa2=auto:{air.WPA2_AP.ssid}:"), words)

    def test_params(self):
        dev = devices.DEVICES["rtl8187/native"] \
            if "rtl8187/native" in devices.DEVICES else \
            next(d for d in devices.TARGETS if d.label == "rtl8187/native")
        words = {n: registry.get(n).params(GuestContext(EXP, dev, 40000))
                 for n in self.NAMES}
        net = f"nl80211:{air.WPA2_AP.ssid}"
        self.assertEqual(list(words["wpa2"]), [
            f"ndisbench.wpa2={net}:{air.WPA2_AP.passphrase}:40000:"
            f"{WPA2_BYTES}"])
        self.assertEqual(list(words["rekey"]), [
            f"ndisbench.rekey={net}:{air.WPA2_AP.passphrase}:40000:"
            f"{REKEY_BYTES}"])
        bad = list(words["wpa2-badkey"])
        self.assertEqual(len(bad), 1)
        self.assertTrue(bad[0].startswith(f"ndisbench.wpa2_badkey={net}:"))
        self.assertNotIn(air.WPA2_AP.passphrase, bad[0])


if __name__ == "__main__":
    unittest.main()
