"""`ndisbench bench`: numbers taken from the cells' facts and the host's
counts, medians over rounds, and the side-by-side targets."""
import pathlib
import shutil
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.commands import bench
from ndisbench_lib.report import report
from ndisbench_lib.report.verdict import FAIL, PASS, Verdict

KTAP = """KTAP version 1
1..7
# tainted: 0
ok 1 boot
# load_ms: 41
ok 2 insmod ndiswrapper
# appeared_ms: 300
ok 3 bind wlan0
# carrier_ms: 600
ok 4 associate
# dhcp_ms: 150
ok 5 dhcp
# seconds: 1.500
# rtt_p50_us: {p50}
# rtt_p99_us: 3000
ok 6 ping
# seconds: {tcp_secs}
ok 7 tcp
# seconds: 2.000
ok 8 udp
# wpa_state: COMPLETED
# seconds: 0.200
# bytes_sent: 16777216
# seconds: {wpa2_secs}
ok 9 wpa2
# ndisbench-agent: done
"""


class CellMetricsTest(unittest.TestCase):
    def setUp(self):
        self.run = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.run)

    def cell(self, label, p50=1000, tcp_secs=2.0, tcp=PASS, wpa2=None):
        device, _, wrapper = label.partition("/")
        folder = f"cells/k__{label.replace('/', '__')}"
        (self.run / folder).mkdir(parents=True, exist_ok=True)
        (self.run / folder / "ktap.txt").write_text(
            KTAP.format(p50=p50, tcp_secs=tcp_secs, wpa2_secs=4.0))
        verdicts = {c: Verdict(PASS, "") for c in
                    ("load", "bind", "associate", "dhcp", "ping", "udp")}
        verdicts["tcp"] = Verdict(tcp, "")
        if wpa2:
            verdicts["wpa2"] = Verdict(wpa2, "")
        return report.CellResult("k", "p", device, folder,
                                 boot_seconds=9.0, first_ktap_seconds=2.5,
                                 verdicts=verdicts, wrapper=wrapper,
                                 sinks={"tcp": 1 << 24, "udp": 8000})

    def test_metrics_come_from_facts_and_sinks(self):
        m = bench.cell_metrics(self.run, self.cell("e1000"), 16 << 20)
        self.assertAlmostEqual(m["tcp_mbps"], (16 << 20) / 2.0 / 1e6)
        self.assertEqual(m["udp_pps"], 4000)
        self.assertEqual(m["load_ms"], 41)
        self.assertEqual(m["bind_ms"], 300)
        self.assertEqual(m["assoc_ms"], 600)
        self.assertEqual(m["rtt_p50_us"], 1000)
        self.assertAlmostEqual(m["traffic_s"], 1.5 + 2.0 + 2.0)
        self.assertEqual(m["boot_s"], 2.5)

    def test_protected_throughput_from_the_wpa2_stream(self):
        # the stream's time is the test's last `seconds` (the first is
        # its pings')
        m = bench.cell_metrics(self.run, self.cell("rtl8187/native",
                                                   wpa2=PASS), 16 << 20)
        self.assertAlmostEqual(m["wpa2_tcp_mbps"], (16 << 20) / 4.0 / 1e6)
        m = bench.cell_metrics(self.run, self.cell("rtl8187/native",
                                                   wpa2=FAIL), 16 << 20)
        self.assertNotIn("wpa2_tcp_mbps", m)
        self.assertNotIn("wpa2_tcp_mbps", bench.cell_metrics(
            self.run, self.cell("e1000"), 16 << 20))

    def test_protected_against_open_per_wlan_row(self):
        res = bench.BenchResult("b", "k", 3)
        res.samples = {
            "e1000": {"tcp_mbps": [20]},
            "rtl8187/native": {"tcp_mbps": [10, 12], "wpa2_tcp_mbps": [8]},
            "rtl8187/ndiswrapper": {"tcp_mbps": [9]},
        }
        rows = {r["device"]: r for r in res.protected()}
        self.assertEqual(set(rows), {"rtl8187/native",
                                     "rtl8187/ndiswrapper"})
        self.assertAlmostEqual(rows["rtl8187/native"]["ratio"], 8 / 11)
        self.assertIsNone(rows["rtl8187/ndiswrapper"]["ratio"])
        text = bench.markdown(res)
        self.assertIn("| rtl8187/native | 11.00 | 8.00 | 0.73 |", text)
        self.assertIn("| rtl8187/ndiswrapper | 9.00 | - | no wpa2 "
                      "figure |", text)
        from ndisbench_lib.commands import benchhtml
        page = benchhtml.page(res)
        self.assertIn("<h2>Protected against open</h2>", page)
        self.assertIn('<th>rtl8187/native</th><td class="num">11.00</td>'
                      '<td class="num">8.00</td><td class="num">0.73</td>',
                      page)

    def test_a_failed_check_gives_no_number(self):
        m = bench.cell_metrics(self.run, self.cell("e1000", tcp=FAIL),
                               16 << 20)
        self.assertNotIn("tcp_mbps", m)
        self.assertNotIn("traffic_s", m)

    def test_targets_are_ratios_of_medians(self):
        res = bench.BenchResult("b", "k", 3)
        res.samples = {
            "e1000": {"tcp_mbps": [30, 10, 20], "rtt_p50_us": [700]},
            "bcm43xx/ndiswrapper": {"tcp_mbps": [9, 11, 5],
                                    "rtt_p50_us": [1400]},
        }
        rows = {r["what"]: r for r in res.ratios()}
        tcp = rows["PCI wrapped TCP throughput"]
        self.assertAlmostEqual(tcp["ratio"], 9 / 20)
        self.assertFalse(tcp["met"])
        rtt = rows["PCI wrapped ping RTT p50"]
        self.assertAlmostEqual(rtt["ratio"], 2.0)
        self.assertFalse(rtt["met"])
        self.assertIsNone(rows["USB wrapped TCP throughput"]["met"])
        text = bench.markdown(res)
        self.assertIn("| e1000 | 20.00 |", text)
        self.assertIn("**no**", text)
        self.assertIn("no data", text)

    def test_kernels_side_by_side(self):
        # bench --kernel src-6.1 src-6.1-i386: each device a row per
        # kernel, the goals per kernel from that kernel's rows only.
        res = bench.BenchResult("b", "a64", 1, kernels=["a64", "x86"])
        self.assertEqual(res.row("a64", "e1000"), "e1000 on a64")
        res.samples = {
            "e1000 on a64": {"tcp_mbps": [20]},
            "bcm43xx/ndiswrapper on a64": {"tcp_mbps": [10]},
            "e1000 on x86": {"tcp_mbps": [40]},
            "bcm43xx/ndiswrapper on x86": {"tcp_mbps": [30]},
        }
        rows = {(r["kernel"], r["what"]): r for r in res.ratios()}
        self.assertEqual(len(rows), 2 * len(bench.TARGETS))
        self.assertAlmostEqual(
            rows["a64", "PCI wrapped TCP throughput"]["ratio"], 0.5)
        self.assertAlmostEqual(
            rows["x86", "PCI wrapped TCP throughput"]["ratio"], 0.75)
        self.assertEqual(res.device_of("bcm43xx/ndiswrapper on x86"),
                         "bcm43xx/ndiswrapper")
        text = bench.markdown(res)
        self.assertIn("Kernels `a64`, `x86`", text)
        self.assertIn("| bcm43xx/ndiswrapper on x86 | 30.00 |", text)
        self.assertIn("(bcm43xx/ndiswrapper on x86 / e1000 on x86, "
                      "tcp_mbps) | 0.75 |", text)
        from ndisbench_lib.commands import benchhtml
        self.assertIn("bcm43xx/ndiswrapper on x86", benchhtml.page(res))

    def test_one_kernel_keeps_plain_device_rows(self):
        res = bench.BenchResult("b", "k", 1)
        self.assertEqual(res.kernels, ["k"])
        self.assertEqual(res.row("k", "e1000"), "e1000")
        self.assertEqual(res.device_of("e1000"), "e1000")

    def test_profiles_summed_over_rounds(self):
        # bench --profile: the tcp test's sampler facts, per row, summed
        cell = self.cell("bcm43xx/ndiswrapper")
        ktap_file = self.run / cell.folder / "ktap.txt"
        ktap_file.write_text(ktap_file.read_text().replace(
            "ok 7 tcp", "# profile_samples: 10 lost 0 at 1000 Hz\n"
            "# profile_where: 60.0% 6 kernel\n"
            "# profile_where: 40.0% 4 no symbol\n"
            "# profile: 40.0% 4 [no symbol]\n"
            "# profile: 30.0% 3 skb_segment\nok 7 tcp"))
        res = bench.BenchResult("b", "k", 2)
        for n in (1, 2):
            bench.add_profile(res, self.run, cell, "bcm43xx/ndiswrapper", n)
        prof = res.profiles["bcm43xx/ndiswrapper"]
        self.assertEqual((prof.samples, prof.where["no symbol"]), (20, 8))
        text = bench.markdown(res)
        self.assertIn("**bcm43xx/ndiswrapper**: 20 samples at 1000 Hz",
                      text)
        self.assertIn("| skb_segment | 30.0% |", text)
        # a cell without the facts adds nothing; an agent's error is the
        # round's failure, named
        bench.add_profile(res, self.run, self.cell("e1000"), "e1000", 1)
        self.assertNotIn("e1000", res.profiles)
        cell = self.cell("rtl8187/native")
        ktap_file = self.run / cell.folder / "ktap.txt"
        ktap_file.write_text(ktap_file.read_text().replace(
            "ok 7 tcp", "# profile_error: perf_event_open cpu 0: No such "
            "file or directory\nok 7 tcp"))
        bench.add_profile(res, self.run, cell, "rtl8187/native", 2)
        self.assertEqual(res.failures["rtl8187/native"],
                         ["round 2: profile: guest profile: the agent could "
                          "not sample: perf_event_open cpu 0: No such file "
                          "or directory"])

    def test_rounds_must_be_positive(self):
        from ndisbench_lib.errors import BenchError
        with self.assertRaises(BenchError):
            bench.run(None, None, None, self.run, 0, 10, "tcg")


if __name__ == "__main__":
    unittest.main()
