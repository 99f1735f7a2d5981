"""The air capture read with a WPA2 network's passphrase
(capture.read_tshark_wpa): tshark's decryption preferences as Debian 12's
tshark takes them, and its rows as data frames."""
import pathlib
import shutil
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.guest import air, capture

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
PCAP = DATA / "air-tcp-port-34980.pcap"


def wpa_frames_apart(pcap, ssid, passphrase):
    """The network's data frames from a tshark pass of their own: what
    read_tshark_wpa's single pass must read the same."""
    args = ["-Y", capture.DATA_TYPE_FILTER, "-T", "fields",
            "-E", "separator=/t"] + \
        capture.decryption_options(ssid, passphrase) + \
        list(capture.TCP_AS_DATA)
    for field in capture.WPA_FIELDS:
        args += ["-e", field]
    out, problems = capture._tshark(pcap, args)
    return [f for f in map(capture._data_frame, out.splitlines()) if f], \
        problems


class DataFrameRowTest(unittest.TestCase):
    def test_a_decrypted_row(self):
        row = "\t".join(["42", "0x0028", "02:00:00:00:05:00",
                         "52:54:00:12:34:58", "52:55:0A:00:02:02", "True",
                         "", "radiotap:wlan_radio:wlan:llc:ip:icmp:data"])
        f = capture._data_frame(row)
        self.assertEqual((f.number, f.subtype, f.bssid, f.da, f.protected,
                          f.eapol_msg, f.eapol),
                         (42, 0x28, "02:00:00:00:05:00", "52:55:0a:00:02:02",
                          True, 0, False))
        self.assertIn("icmp", f.layers)

    def test_an_eapol_row(self):
        row = "\t".join(["7", "0x0020", "02:00:00:00:05:00",
                         "02:00:00:00:05:00", "52:54:00:12:34:58", "False",
                         "3", "radiotap:wlan_radio:wlan:llc:eapol"])
        f = capture._data_frame(row)
        self.assertEqual((f.eapol_msg, f.eapol, f.protected), (3, True,
                                                               False))

    def test_other_rows_are_none(self):
        self.assertIsNone(capture._data_frame("Running as user root"))
        self.assertIsNone(capture._data_frame("1\t2\t3"))


@unittest.skipIf(shutil.which(capture.TSHARK) is None,
                 "tshark not installed (scripts/ndisbench setup)")
class TsharkTakesTheKeyTest(unittest.TestCase):
    def test_the_networks_key_is_taken(self):
        _all, problems, frames, refused = capture.read_tshark_wpa(
            PCAP, air.WPA2_AP.ssid, air.WPA2_AP.passphrase)
        self.assertEqual((problems, refused), ([], []))
        self.assertTrue(frames)
        self.assertTrue(all(not f.protected for f in frames))

    def test_one_tshark_run_reads_the_file_and_the_network(self):
        # each run dissects the whole capture (megabytes of TCP): the
        # frames, the file's warnings and the decrypted data frames come
        # from one pass
        import tempfile
        from unittest import mock
        want, _ = wpa_frames_apart(PCAP, air.WPA2_AP.ssid,
                                   air.WPA2_AP.passphrase)
        frames, _ = capture.read_tshark(PCAP)
        with tempfile.TemporaryDirectory() as d:
            pcap = pathlib.Path(d) / "air.pcap"
            shutil.copy(PCAP, pcap)
            with mock.patch.object(capture, "_tshark",
                                   wraps=capture._tshark) as run:
                got = capture.read(pcap, (air.WPA2_AP.ssid,
                                          air.WPA2_AP.passphrase))
        self.assertEqual(run.call_count, 1)
        self.assertEqual((list(got.wpa_frames), list(got.wpa_problems)),
                         (want, []))
        self.assertEqual((list(got.frames), list(got.file_problems)),
                         (frames, []))

    def test_a_key_tshark_refuses_is_the_networks_problem(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            pcap = pathlib.Path(d) / "air.pcap"
            shutil.copy(PCAP, pcap)
            got = capture.read(pcap, ("ssid", "short"))
        self.assertTrue(any("Invalid key format" in p
                            for p in got.wpa_problems), got.wpa_problems)
        self.assertEqual((len(got.frames), list(got.file_problems),
                          got.error), (1, [], ""))

    def test_a_key_tshark_refuses_is_a_problem(self):
        # wpa-pwd passphrases have 8 to 63 characters
        _all, _problems, frames, refused = capture.read_tshark_wpa(
            PCAP, "ssid", "short")
        self.assertEqual(frames, [])
        self.assertTrue(any("Invalid key format" in p for p in refused),
                        refused)


if __name__ == "__main__":
    unittest.main()


class TruncatedCaptureTest(unittest.TestCase):
    def test_a_capture_at_its_cap_is_an_error(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            pcap = pathlib.Path(d) / "air.pcap"
            pcap.write_bytes(b"\0" * 5000)
            self.assertEqual(capture.truncation(pcap, 6000),
                             "the air capture stopped at its pcap-max of "
                             "6000 bytes (air.pcap): later frames are "
                             "missing")
            self.assertIsNone(capture.truncation(pcap, 5000 + 3000))
