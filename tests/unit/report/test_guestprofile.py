"""The guest sampler's facts (guest/agent/profile.c) as the tcp test states
them: parsed into places and symbols, summed over rounds, rendered as
bench.md's section; malformed facts refused by name."""
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import guestprofile, ktap

TCP = """KTAP version 1
1..1
# target: 10.0.2.2:5001
# profile_samples: 200 lost 3 at 1000 Hz
# profile_where: 50.0% 100 kernel
# profile_where: 30.0% 60 no symbol
# profile_where: 20.0% 40 ndiswrapper
# profile: 30.0% 60 [no symbol]
# profile: 25.0% 50 memcpy_orig
# profile: 10.0% 20 ndis_tx_work [ndiswrapper]
# profile_nosym: 20.0% 40 ndis_map_image [ndiswrapper]+0x11a40
# profile_nosym: 10.0% 20 0xffffc90000300000
# bytes_sent: 67108864
ok 1 tcp
"""


def tcp_test(text=TCP):
    return ktap.parse(text).test("tcp")


class ParseTest(unittest.TestCase):
    def test_facts(self):
        p = guestprofile.parse(tcp_test())
        self.assertEqual((p.samples, p.lost, p.hz), (200, 3, 1000))
        self.assertEqual(p.where, {"kernel": 100, "no symbol": 60,
                                   "ndiswrapper": 40})
        self.assertEqual(p.symbols, {"[no symbol]": 60, "memcpy_orig": 50,
                                     "ndis_tx_work [ndiswrapper]": 20})
        self.assertEqual(p.nosym, {
            "ndis_map_image [ndiswrapper]+0x11a40": 40,
            "0xffffc90000300000": 20})

    def test_no_profile(self):
        text = TCP.replace("# profile", "# other")
        self.assertIsNone(guestprofile.parse(tcp_test(text)))
        self.assertIsNone(guestprofile.parse(None))

    def test_error_fact(self):
        text = TCP.replace("# profile_samples: 200 lost 3 at 1000 Hz",
                           "# profile_error: perf_event_open cpu 0: "
                           "No such file or directory")
        with self.assertRaisesRegex(BenchError, "perf_event_open cpu 0"):
            guestprofile.parse(tcp_test(text))

    def test_malformed(self):
        for old, new in (("lost 3 at 1000 Hz", "lost x at 1000 Hz"),
                         ("# profile: 25.0% 50 memcpy_orig",
                          "# profile: 25.0% memcpy_orig")):
            with self.assertRaisesRegex(BenchError, "malformed"):
                guestprofile.parse(tcp_test(TCP.replace(old, new)))


class SumTest(unittest.TestCase):
    def test_rounds_add(self):
        a = guestprofile.parse(tcp_test())
        b = guestprofile.parse(tcp_test())
        a.add(b)
        self.assertEqual((a.samples, a.lost), (400, 6))
        self.assertEqual(a.where["kernel"], 200)
        self.assertEqual(a.symbols["memcpy_orig"], 100)

    def test_markdown(self):
        p = guestprofile.parse(tcp_test())
        text = "\n".join(guestprofile.markdown({"bcm43xx/ndiswrapper": p},
                                               top=2))
        self.assertIn("bcm43xx/ndiswrapper", text)
        self.assertIn("200 samples at 1000 Hz, 3 lost", text)
        self.assertIn("kernel 50.0%, no symbol 30.0%, ndiswrapper 20.0%",
                      text)
        self.assertIn("| [no symbol] | 30.0% |", text)
        self.assertIn("| memcpy_orig | 25.0% |", text)
        self.assertNotIn("ndis_tx_work", text)      # past top
        self.assertIn("| ndis_map_image [ndiswrapper]+0x11a40 | 20.0% |",
                      text)
        self.assertEqual(guestprofile.markdown({}), [])


if __name__ == "__main__":
    unittest.main()
