"""`ndisbench soak`: the cycle lines, the smaps split of QEMU's memory and
the verdicts (a growing series, a missed cycle, lost bytes, a leak and a
kernel problem each fail; a flat noisy run passes)."""
import os
import random
import socket
import unittest
from typing import List, Optional

import helpers  # noqa: F401  (import path)
from ndisbench_lib.report import ktap
from ndisbench_lib.cell import services
from ndisbench_lib.commands import soak
from ndisbench_lib.report.verdict import FAIL, PASS
from ndisbench_lib.errors import BenchError

LINE = ("# soak_cycle: n={n} kind={kind} ok={ok} sent={sent} "
        "reply={reply} mem_available_kb={avail} slab_kb={slab} "
        "sunreclaim_kb={sunr} vmalloc_used_kb={vmalloc} "
        "refcnt=ndiswrapper:{ref},xhci_pci:0 ms=4000 t_ms={t}")


def cycles(count: int, seed: int = 1, sunr_step: float = 0.0,
           vmalloc_step: float = 0.0, avail_step: float = 0.0,
           own_step: float = 0.0, rss_step: float = 0.0,
           ref_step: int = 0) -> List[soak.Cycle]:
    """count cycles after the start line, noisy like a real run (seen in
    out/soak-*: SUnreclaim +-40 KiB, MemAvailable +-400 KiB, QEMU's own
    RSS +-1 MiB), plus a steady growth per cycle where asked."""
    rnd = random.Random(seed)
    out = []
    for n in range(count + 1):
        sent = 0 if n == 0 else rnd.randrange(6 << 20, 16 << 20)
        line = LINE.format(
            n=n, kind="start" if n == 0 else
            ("reload" if n % 2 else "hotplug"),
            ok=1, sent=sent, reply=sent,
            avail=int(488000 - avail_step * n + rnd.randint(-400, 400)),
            slab=int(9000 + sunr_step * n + rnd.randint(-60, 60)),
            sunr=int(3400 + sunr_step * n + rnd.randint(-40, 40)),
            vmalloc=int(508 + vmalloc_step * n + rnd.choice((0, 0, 4, -4))),
            ref=ref_step * n, t=n * 5000)
        cycle = soak.parse_cycle(line)
        cycle.qemu_rss_kb = int(110000 + (own_step + rss_step) * n +
                                rnd.randint(-1024, 1024))
        cycle.qemu_own_kb = int(60000 + own_step * n +
                                rnd.randint(-1024, 1024))
        out.append(cycle)
    return out


def soak_test(cycle_list: List[soak.Cycle], end: str = "time",
              kmsg: Optional[List[str]] = None) -> ktap.KtapTest:
    work = [c for c in cycle_list if c.n > 0]
    facts = [("kmsg", k) for k in kmsg or []]
    facts += [("soak_cycles", str(len(work))), ("soak_end", end)]
    return ktap.KtapTest(9, "soak", end != "failed", facts=facts)


def data(cycle_list: List[soak.Cycle], **kw) -> soak.SoakData:
    host = kw.pop("host", [c.sent for c in cycle_list if c.n > 0])
    test = kw.pop("test", soak_test(cycle_list))
    return soak.SoakData(cycle_list, host, test, True, **kw)


def failed(verdicts) -> List[str]:
    return sorted(k for k, v in verdicts.items() if v.status != PASS)


class ParseTest(unittest.TestCase):
    def test_cycle_line(self):
        c = soak.parse_cycle(LINE.format(n=3, kind="hotplug", ok=1,
                                         sent=100, reply=100, avail=5,
                                         slab=6, sunr=7, vmalloc=8, ref=2,
                                         t=9))
        self.assertEqual((c.n, c.kind, c.ok, c.sent, c.sunreclaim_kb),
                         (3, "hotplug", True, 100, 7))
        self.assertEqual(c.refcnt, {"ndiswrapper": 2, "xhci_pci": 0})

    def test_bad_line_names_it(self):
        with self.assertRaisesRegex(BenchError, "bad soak_cycle"):
            soak.parse_cycle("# soak_cycle: n=1 kind=reload")

    def test_smaps_split(self):
        smaps = "\n".join([
            "7f00-7f10 rwxp 00000000 00:00 0 ",
            "Size:            1048572 kB", "Rss:               45056 kB",
            "7f20-7f30 rw-p 00000000 00:00 0 ",
            "Size:             524288 kB", "Rss:               40960 kB",
            "55f4-55f5 rw-p 00000000 00:00 0                   [heap]",
            "Size:              16668 kB", "Rss:                9696 kB",
            "7f40-7f50 rw-p 00000000 00:00 0 ",
            "Size:              12980 kB", "Rss:               11640 kB",
            "55f0-55f1 r-xp 001fe000 fe:00 12084860   /x/qemu-system",
            "Size:               3784 kB", "Rss:                3576 kB"])
        total, ram, code, own = soak.split_smaps(smaps, 524288)
        self.assertEqual((ram, code, own), (40960, 45056,
                                            9696 + 11640 + 3576))
        self.assertEqual(total, ram + code + own)

    def test_theil_sen_ignores_a_spike(self):
        ys = [10.0] * 10
        ys[4] = 5000.0
        self.assertEqual(soak.theil_sen(list(range(10)), ys), 0.0)


class HostSideTest(unittest.TestCase):
    def test_stream_sink_counts_each_connection(self):
        sink = services.StreamSink()
        try:
            for size in (1000, 0, 70000):
                with socket.create_connection(("127.0.0.1", sink.port),
                                              timeout=10) as conn:
                    conn.sendall(b"x" * size)
                    conn.shutdown(socket.SHUT_WR)
                    reply = conn.makefile().readline().strip()
                self.assertEqual(reply, f"received={size}")
        finally:
            total = sink.close()
        self.assertEqual(sink.streams, [1000, 0, 70000])
        self.assertEqual(total, 71000)

    def test_vm_rss_of_a_live_and_a_gone_process(self):
        self.assertGreater(soak.vm_rss_kb(os.getpid()) or 0, 0)
        self.assertIsNone(soak.vm_rss_kb(2 ** 22 + 7))


class JudgeTest(unittest.TestCase):
    def test_flat_noisy_run_passes(self):
        for seed in range(20):
            verdicts = soak.judge(data(cycles(40, seed)))
            self.assertEqual(failed(verdicts), [], (seed, verdicts))

    def test_short_flat_run_passes(self):
        # What the selftest's 1.5 minutes give: about 15 cycles.
        for seed in range(20):
            self.assertEqual(failed(soak.judge(data(cycles(12, seed)))), [])

    def test_growing_slab_fails(self):
        verdicts = soak.judge(data(cycles(40, sunr_step=16)))
        self.assertEqual(failed(verdicts), ["sunreclaim_kb"])
        self.assertIn("KiB/cycle", verdicts["sunreclaim_kb"].summary)

    def test_growing_vmalloc_fails(self):
        # A driver image (one page or more) kept at every second cycle.
        verdicts = soak.judge(data(cycles(40, vmalloc_step=8)))
        self.assertEqual(failed(verdicts), ["vmalloc_used_kb"])

    def test_falling_mem_available_fails(self):
        verdicts = soak.judge(data(cycles(40, avail_step=128)))
        self.assertEqual(failed(verdicts), ["mem_available_kb"])

    def test_growing_qemu_rss_fails(self):
        verdicts = soak.judge(data(cycles(40, own_step=256)))
        self.assertEqual(failed(verdicts), ["qemu_own_kb", "qemu_rss_kb"])

    def test_growing_vm_rss_alone_fails(self):
        # Guest RAM or TCG code growing: VmRSS, not QEMU's own part.
        verdicts = soak.judge(data(cycles(40, rss_step=512)))
        self.assertEqual(failed(verdicts), ["qemu_rss_kb"])

    def test_growth_under_the_floor_passes(self):
        # Above the slope limit but a few KiB in all: not a finding yet.
        g = soak.Growth("sunreclaim_kb", 3400, 3430, 6.0, 30.0)
        self.assertEqual(soak.growth_verdict(
            g, soak.LIMITS["sunreclaim_kb"]).status, PASS)

    def test_saw_tooth_passes(self):
        # MemAvailable on a clean run: a slow fall, a jump back, a fall.
        cs = cycles(60)
        for c in cs:
            c.mem_available_kb = 489000 - 40 * (c.n % 30)
        verdicts = soak.judge(data(cs))
        self.assertEqual(failed(verdicts), [])

    def test_very_noisy_flat_series_passes(self):
        # The debug kernel: KASAN's quarantine swings SUnreclaim by
        # +-400 KiB with no trend.
        for seed in range(10):
            rnd = random.Random(seed)
            cs = cycles(26, seed)
            for c in cs:
                c.sunreclaim_kb = 30800 + rnd.randint(-400, 400)
            self.assertEqual(failed(soak.judge(data(cs))), [], seed)

    def test_leak_under_noise_fails(self):
        rnd = random.Random(5)
        cs = cycles(40)
        for c in cs:
            c.sunreclaim_kb = 30800 + 96 * c.n + rnd.randint(-400, 400)
        verdicts = soak.judge(data(cs))
        self.assertEqual(failed(verdicts), ["sunreclaim_kb"])

    def test_slope_without_rise_passes(self):
        g = soak.Growth("sunreclaim_kb", 3400, 3400, 6.0, 100.0)
        self.assertEqual(soak.growth_verdict(
            g, soak.LIMITS["sunreclaim_kb"]).status, PASS)

    def test_refcount_growth_fails(self):
        verdicts = soak.judge(data(cycles(10, ref_step=1)))
        self.assertEqual(failed(verdicts), ["refcounts"])

    def test_missed_cycle_fails(self):
        cs = cycles(10)
        del cs[5]                       # cycle 5 never reported
        verdicts = soak.judge(data(cs, test=soak_test(cycles(10))))
        self.assertIn("cycles", failed(verdicts))

    def test_failed_cycle_fails(self):
        cs = cycles(10)
        cs[-1].ok = False
        verdicts = soak.judge(data(cs, test=soak_test(cs, "failed")))
        self.assertIn("cycles", failed(verdicts))
        self.assertIn("cycle 10", verdicts["cycles"].summary)

    def test_early_end_fails(self):
        verdicts = soak.judge(data(cycles(10), test=soak_test(cycles(10),
                                                              "failed")))
        self.assertEqual(failed(verdicts), ["cycles"])

    def test_wanted_cycles(self):
        cs = cycles(10)
        self.assertEqual(failed(soak.judge(data(
            cs, test=soak_test(cs, "cycles"), wanted_cycles=10))), [])
        self.assertEqual(failed(soak.judge(data(
            cs, test=soak_test(cs, "time"), wanted_cycles=12))), ["cycles"])

    def test_too_few_cycles_fails(self):
        verdicts = soak.judge(data(cycles(3)))
        self.assertIn("cycles", failed(verdicts))

    def test_no_soak_result_fails(self):
        verdicts = soak.judge(data(cycles(10), test=None))
        self.assertIn("cycles", failed(verdicts))

    def test_byte_mismatch_fails(self):
        cs = cycles(10)
        host = [c.sent for c in cs if c.n > 0]
        host[6] -= 1448                 # one segment lost
        verdicts = soak.judge(data(cs, host=host))
        self.assertEqual(failed(verdicts), ["bytes"])
        self.assertIn("cycle 7", verdicts["bytes"].summary)

    def test_missing_stream_fails(self):
        cs = cycles(10)
        host = [c.sent for c in cs if c.n > 0][:-1]
        self.assertEqual(failed(soak.judge(data(cs, host=host))), ["bytes"])

    def test_wrong_reply_fails(self):
        cs = cycles(10)
        cs[3].reply -= 1
        self.assertEqual(failed(soak.judge(data(cs))), ["bytes"])

    def test_windows_leak_fails(self):
        cs = cycles(10)
        verdicts = soak.judge(data(cs, test=soak_test(
            cs, kmsg=["rtlwl: 3 Windows allocations leaked"])))
        self.assertEqual(failed(verdicts), ["leaks"])

    def test_kernel_problem_fails(self):
        verdicts = soak.judge(data(cycles(10),
                                   problem="BUG: KASAN: use-after-free"))
        self.assertEqual(verdicts["kernel"].status, FAIL)


if __name__ == "__main__":
    unittest.main()
