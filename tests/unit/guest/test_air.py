"""The air of the WLAN rows: the APs QEMU gets, what a scan must list,
and the capture's association sequence."""
import gzip
import pathlib
import shutil
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.guest import air, capture
from ndisbench_lib.checks import scan
from ndisbench_lib import kernels
from ndisbench_lib.report import ktap
from ndisbench_lib import cell
from ndisbench_lib.guest.capture import Frame

EXP = kernels.load_expectations()
STA = "52:54:00:12:34:58"
AP = "02:00:00:00:01:00"


class AirConfigTest(unittest.TestCase):
    def test_main_ap_is_the_expectation_tables(self):
        main = air.ACCESS_POINTS[0]
        self.assertEqual(main.ssid, EXP.network["ap_ssid"])
        self.assertEqual(main.bssid, EXP.network["ap_bssid"])
        self.assertEqual(main.channel, EXP.network["ap_channel"])
        self.assertEqual(main.uplink, "net0")
        same = [a for a in air.ACCESS_POINTS if a.ssid == main.ssid]
        self.assertEqual(same, [air.ROAM_FROM, air.ROAM_TO])
        self.assertGreater(main.rssi_dbm, air.ROAM_TO.rssi_dbm)
        self.assertTrue(air.ROAM_TO.uplink)

    def test_qemu_objects(self):
        args = air.qemu_args()
        self.assertIn("wlan-ap,id=ap2,air=air0,ssid=ndisbench-hidden,"
                      "bssid=02:00:00:00:03:00,channel=11,rssi=-55,"
                      "hidden=on", args)
        self.assertEqual(air.ACCESS_POINTS[1].freq_mhz, 2412)

    def test_capture_option_only_when_the_check_runs(self):
        cdir = pathlib.Path("/r/cells/c")
        with_capture = cell.compose.cell_qemu_args(air.qemu_args(), cdir, True)
        # written in batches: the capture is read after the guest
        self.assertIn("wlan-air,id=air0,pcap=/r/cells/c/air.pcap,"
                      "pcap-flush-ms=200", with_capture)
        without = cell.compose.cell_qemu_args(air.qemu_args(), cdir, False)
        self.assertIn("wlan-air,id=air0", without)
        self.assertFalse(any("pcap" in a for a in without))


SCAN = """BSS 02:00:00:00:01:00(on wlan0)
\tfreq: 2437
\tsignal: -40.00 dBm
\tSSID: ndisbench
BSS 02:00:00:00:02:00(on wlan0)
\tfreq: 2412
\tsignal: {far_signal} dBm
\tSSID: ndisbench-far
BSS 02:00:00:00:03:00(on wlan0)
\tfreq: 2462
\tsignal: -55.00 dBm
\tSSID: {hidden_ssid}
BSS 02:00:00:00:04:00(on wlan0)
\tfreq: 2462
\tsignal: -60.00 dBm
\tSSID: ndisbench
"""


def judge_scan(**kw):
    values = {"far_signal": "-70.00", "hidden_ssid": ""}
    values.update(kw)
    facts = "".join(f"# iw_scan: {line}\n"
                    for line in SCAN.format(**values).splitlines())
    log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n" + facts +
                     "ok 2 scan\n")
    return scan.judge_scan(log)


class ScanTest(unittest.TestCase):
    def test_every_ap_with_channel_and_signal_passes(self):
        self.assertEqual(judge_scan().status, "pass")

    def test_wrong_signal_fails(self):
        verdict = judge_scan(far_signal="-40.00")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("signal", verdict.summary)

    def test_revealed_hidden_ssid_fails(self):
        self.assertIn("hidden SSID revealed",
                      judge_scan(hidden_ssid="ndisbench-hidden").summary)

    def test_missing_ap_fails(self):
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                         "# iw_scan: BSS 02:00:00:00:01:00(on wlan0)\n"
                         "ok 2 scan\n")
        verdict = scan.judge_scan(log)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("02:00:00:00:02:00 (ndisbench-far) not in the scan",
                      verdict.details)

    def test_iw_that_failed_says_why_first(self):
        # a wireless-extensions driver (ndiswrapper 1.63): no wiphy
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n"
                         "# iw_scan: nl80211 not found.\n"
                         "# iw_scan_status: 1\nnot ok 2 scan\n")
        verdict = scan.judge_scan(log)
        self.assertEqual(verdict.status, "FAIL")
        self.assertEqual(verdict.summary,
                         "iw scan exited 1: nl80211 not found.")


def sequence(*skip):
    frames = [Frame(1, 0x08, AP, "ff:ff:ff:ff:ff:ff", None, 2437),
              Frame(2, 0x04, STA, "ff:ff:ff:ff:ff:ff", None, 2437),
              Frame(3, 0x05, AP, STA, None, 2437),
              Frame(4, 0x0b, STA, AP, None, 2437),
              Frame(5, 0x0b, AP, STA, None, 2437),
              Frame(6, 0x00, STA, AP, None, 2437),
              Frame(7, 0x01, AP, STA, 0, 2437),
              Frame(8, 0x20, STA, AP, None, 2437),
              Frame(9, 0x20, AP, STA, None, 2437)]
    return [f for f in frames if f.number not in skip]


class CaptureSequenceTest(unittest.TestCase):
    def test_full_sequence_passes(self):
        self.assertEqual(capture.sequence_problems(sequence(), STA, AP), [])

    def test_passive_scan_needs_no_probe(self):
        self.assertEqual(capture.sequence_problems(sequence(2, 3), STA, AP),
                         [])

    def test_unanswered_probe_fails(self):
        problems = capture.sequence_problems(sequence(3), STA, AP)
        self.assertIn("no probe response", problems[0])

    def test_probes_on_other_channels_need_no_answer(self):
        frames = sequence(2, 3) + [
            Frame(2, 0x04, STA, "ff:ff:ff:ff:ff:ff", None, 2472)]
        frames.sort(key=lambda f: f.number)
        self.assertEqual(capture.sequence_problems(frames, STA, AP), [])

    def test_each_missing_step_is_named(self):
        names = {1: "beacon", 5: "authentication response",
                 7: "association response", 9: "data to the station"}
        for number, name in names.items():
            problems = capture.sequence_problems(sequence(number), STA, AP)
            self.assertEqual(len(problems), 1, name)
            self.assertIn(name, problems[0])

    def test_refused_association_fails(self):
        frames = sequence()
        frames[6] = Frame(7, 0x01, AP, STA, 17, 2437)
        self.assertIn("refused", capture.sequence_problems(frames, STA,
                                                           AP)[0])

    def test_data_before_association_does_not_count(self):
        frames = sequence(8, 9) + [Frame(0, 0x20, STA, AP, None, 2437)]
        self.assertTrue(capture.sequence_problems(sorted(
            frames, key=lambda f: f.number), STA, AP))


class CaptureFileTest(unittest.TestCase):
    """tshark on a real radiotap pcap written here."""

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    @staticmethod
    def pcap(frames) -> bytes:
        import struct
        out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 127)
        for n, body in enumerate(frames):
            radiotap = struct.pack("<BBHI", 0, 0, 8, 0)
            data = radiotap + body
            out += struct.pack("<IIII", n, 0, len(data), len(data)) + data
        return out

    @staticmethod
    def mac(text):
        return bytes(int(x, 16) for x in text.split(":"))

    def auth(self, sa, da):
        import struct
        hdr = struct.pack("<BBH", 0xb0, 0, 0) + self.mac(da) + \
            self.mac(sa) + self.mac(AP) + struct.pack("<H", 0)
        return hdr + struct.pack("<HHH", 0, 1, 0)

    def test_frames_read_back_and_gzip(self):
        path = self.tmp / "air.pcap"
        path.write_bytes(self.pcap([self.auth(STA, AP), self.auth(AP, STA)]))
        frames, problems = capture.read_tshark(path)
        self.assertEqual([(f.subtype, f.sa, f.da) for f in frames],
                         [(0x0b, STA, AP), (0x0b, AP, STA)])
        self.assertEqual(problems, [])
        gz = capture.compress(path)
        self.assertFalse(path.exists())
        self.assertEqual(len(gzip.decompress(gz.read_bytes())), 24 + 2 * (
            16 + 8 + 30))

    def test_cut_file_is_a_problem(self):
        path = self.tmp / "air.pcap"
        path.write_bytes(self.pcap([self.auth(STA, AP)])[:-10])
        self.assertTrue(capture.read_tshark(path)[1])

    def test_malformed_frame_is_a_problem_and_the_rest_is_read(self):
        path = self.tmp / "air.pcap"
        path.write_bytes(self.pcap([self.auth(STA, AP),
                                    self.auth(AP, STA)[:27],
                                    self.auth(AP, STA)]))
        frames, problems = capture.read_tshark(path)
        self.assertEqual([f.number for f in frames], [1, 2, 3])
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("Malformed", problems[0])

    def test_a_stream_on_a_port_a_dissector_claims_is_data(self):
        """One frame of a tcp check whose host sink listened on 34980
        (EtherCAT's port): its bytes are our stream, not a malformed
        EtherCAT mailbox."""
        path = self.tmp / "air.pcap"
        shutil.copy(pathlib.Path(__file__).parents[1] / "data" /
                    "air-tcp-port-34980.pcap", path)
        frames, problems = capture.read_tshark(path)
        self.assertEqual(len(frames), 1)
        self.assertEqual(problems, [])

    def test_one_tshark_run_per_capture(self):
        # fields and expert items come from one pass over the file: each
        # run costs a dissection of the whole capture (megabytes of TCP)
        from unittest import mock
        path = self.tmp / "air.pcap"
        path.write_bytes(self.pcap([self.auth(STA, AP)]))
        with mock.patch.object(capture, "_tshark",
                               wraps=capture._tshark) as run:
            air = capture.read(path)
        self.assertEqual(run.call_count, 1)
        self.assertEqual((len(air.frames), list(air.file_problems)), (1, []))


if __name__ == "__main__":
    unittest.main()


class ExpertRowsTest(unittest.TestCase):
    def test_tcp_flow_analysis_is_not_a_capture_problem(self):
        from unittest import mock
        table = ("1\t0x0008\t02:00:00:00:01:00\tff:ff:ff:ff:ff:ff\t\t2412\n"
                 "\nWarns (4)\n=============\n"
                 "Frequency      Group           Protocol  Summary\n"
                 "3   Sequence                TCP  TCP window full\n"
                 "1   Malformed     IEEE 802.11  Malformed Packet\n")
        with mock.patch.object(capture, "_tshark",
                               return_value=(table, [])):
            frames, problems = capture.read_tshark(pathlib.Path("x.pcap"))
        self.assertEqual(len(frames), 1)
        self.assertEqual(problems,
                         ["1 x Malformed/IEEE 802.11: Malformed Packet"])
