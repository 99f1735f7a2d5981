"""Two guests on one air (pair.py) and the peer check (checks/peer.py):
a missing reply or a peer that never pinged fails; B's QEMU has no AP and
no slirp, only a link to A's air; B starts after A's dhcp result."""
import contextlib
import io
import pathlib
import shutil
import sys
import tempfile
import unittest

from helpers import judge as judge_check
from ndisbench_lib.guest import machine
from ndisbench_lib.report.verdict import ERROR, FAIL, PASS
from ndisbench_lib.report import compare, ktap
from ndisbench_lib import devices, kernels
from ndisbench_lib.commands import pair
from ndisbench_lib.errors import BenchError

EXP = kernels.load_expectations()


def peer_log(peer="10.0.2.16", address="10.0.2.15", received=10,
             in_echos=11, answered=True, ok=None, error=""):
    """The agent's network tests of one side of a pair, as it prints them."""
    lines = ["KTAP version 1", "1..6", "# tainted: 0", "ok 1 boot",
             "# ifname: wlan0", "# driver: rtl8187", "ok 2 bind wlan0",
             "# carrier_ms: 900", "ok 3 associate", f"# address: {address}",
             "ok 4 dhcp", f"# peer: {peer}", "# in_echos_start: 0",
             "# settle_pings: 3"]
    if answered:
        lines += ["# peer_answered_ms: 2500", f"# target: {peer}",
                  "# seconds: 0.150", "# transmitted: 10",
                  f"# received: {received}", "# rtt_p50_us: 3000",
                  "# rtt_p99_us: 6000", "# rtt_max_us: 6000",
                  f"# in_echos: {in_echos}"]
        if in_echos >= 10:
            lines.append("# peer_pinged_ms: 40")
    if error:
        lines.append(f"# error: {error}")
    if ok is None:
        ok = answered and received == 10 and in_echos >= 10
    lines += [f"{'ok' if ok else 'not ok'} 5 peer", "# tainted: 0",
              "ok 6 unload", "# ndisbench-agent: done"]
    return ktap.parse("\n".join(lines) + "\n")


def judge(log, address="10.0.2.15", check="peer"):
    """A side's check; address: the lease its plan expects (B: the
    second)."""
    return judge_check(check, EXP.policies["2.6.25-rc4"], EXP, log, [], 0,
                       native="rtl8187", lease=address)


class PeerCheckTest(unittest.TestCase):
    def test_both_ways_pass(self):
        verdict = judge(peer_log())
        self.assertEqual(verdict.status, PASS, verdict)
        self.assertIn("10/10 replies from 10.0.2.16", verdict.summary)
        self.assertIn("rtt p50 3000 us", verdict.summary)

    def test_missing_replies_fail(self):
        verdict = judge(peer_log(received=7))
        self.assertEqual(verdict.status, FAIL)
        self.assertIn("echo replies from 10.0.2.16", verdict.summary)

    def test_peer_never_answered_fails(self):
        verdict = judge(peer_log(answered=False, error="10.0.2.16 did not "
                                 "answer within 120000 ms"))
        self.assertEqual(verdict.status, FAIL)
        self.assertIn("did not answer", verdict.summary)

    def test_peer_never_pinged_us_fails(self):
        verdict = judge(peer_log(in_echos=3, error="10.0.2.16 sent 3 echo "
                                 "requests within 120000 ms, not 10"))
        self.assertEqual(verdict.status, FAIL)
        self.assertIn("pinged this guest 3 times", verdict.summary)

    def test_agent_failure_without_facts_fails(self):
        verdict = judge(peer_log(ok=False))
        self.assertEqual(verdict.status, FAIL)

    def test_missing_peer_result_is_an_error(self):
        log = ktap.parse("KTAP version 1\n1..2\nok 1 boot\n# ifname: wlan0"
                         "\nok 2 bind wlan0\nok 3 associate\n")
        self.assertEqual(judge(log).status, ERROR)

    def test_b_expects_the_second_lease(self):
        good = peer_log(peer="10.0.2.15", address="10.0.2.16")
        self.assertEqual(judge(good, "10.0.2.16", "dhcp").status,
                         PASS)
        self.assertEqual(judge(good, "10.0.2.15", "dhcp").status,
                         FAIL)


TOKEN = pathlib.Path("/run/pair/link.token")
SECRET = f"secret,id=linktoken,file={TOKEN},format=raw"


class PairArgsTest(unittest.TestCase):
    def test_a_listens_and_keeps_the_aps(self):
        dev = devices.DEVICES["rtl8187/ndiswrapper"]
        args = pair.side_qemu_args(dev, "A", 4242, TOKEN)
        self.assertEqual(args[:2], ["-object", SECRET])
        self.assertIn("link-listen=4242,link-token-secret=linktoken",
                      args[3])
        self.assertEqual(len(args), len(dev.qemu_args) + 2)
        self.assertTrue(any("wlan-ap" in a and "netdev=net0" in a
                            for a in args))

    def test_b_has_only_the_link_and_its_own_mac(self):
        for label in ("rtl8187/native", "bcm43xx/ndiswrapper"):
            dev = devices.DEVICES[label]
            args = pair.side_qemu_args(dev, "B", 4242, TOKEN)
            text = " ".join(args)
            self.assertEqual(args[:2], ["-object", SECRET])
            self.assertIn("wlan-air,id=air0,link-connect=4242,"
                          "link-token-secret=linktoken", text)
            self.assertNotIn("wlan-ap", text)
            self.assertNotIn("-netdev", args)
            self.assertIn(f"mac={pair.B_MAC}", text)
            self.assertNotIn("link-listen", text)

    def test_token_is_fresh_and_private(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = pathlib.Path(tmp) / "a.token"
            b = pathlib.Path(tmp) / "b.token"
            pair.write_token(a)
            pair.write_token(b)
            tok = a.read_text()
            self.assertRegex(tok, r"^[0-9a-f]{32}\n$")
            self.assertNotEqual(tok, b.read_text())
            self.assertEqual(a.stat().st_mode & 0o777, 0o600)
            with self.assertRaises(FileExistsError):
                pair.write_token(a)

    def test_devices_off_the_air_are_refused(self):
        with self.assertRaisesRegex(BenchError, "not a radio"):
            pair.pick("e1000")
        with self.assertRaisesRegex(BenchError, "unknown device"):
            pair.pick("nosuch/native")

    def test_checks_of_a_side(self):
        self.assertEqual(pair.side_checks(devices.DEVICES["rtl8187/native"]),
                         ["bind", "associate", "dhcp", "peer", "sandbox"])
        self.assertEqual(
            pair.side_checks(devices.DEVICES["bcm43xx/ndiswrapper"]),
            ["load", "install", "bind", "associate", "dhcp", "peer",
             "sandbox"])

    def test_pair_folders_stay_out_of_latest(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            run = out / "20261203-100000"
            run.mkdir()
            (run / "results.json").write_text("{}")
            folder = pair.new_pair_dir(out)
            (folder / "results.json").write_text("{}")
            self.assertEqual(folder.parent, out / "pairs")
            self.assertEqual(compare.run_dirs(out), [run])

    def test_free_port(self):
        self.assertTrue(1 <= pair.free_udp_port() <= 65535)


class StartOrderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def boot_pair(self, sides):
        """pair.boot_pair, each side a Python child instead of its cell,
        the progress lines kept out of the test log."""
        def run_side(side, on_line, before_boot):
            before_boot()
            side.boot = machine.boot(self.scripts[side.name],
                                     side.cdir / "serial.log", 30,
                                     on_line=on_line)

        with contextlib.redirect_stdout(io.StringIO()):
            pair.boot_pair(sides, run_side)

    def side(self, name, script):
        cdir = self.tmp / name
        cdir.mkdir()
        self.scripts = getattr(self, "scripts", {})
        self.scripts[name] = [sys.executable, "-c", script]
        return pair.Side(name, "rtl8187/native", cdir)

    def test_b_starts_after_a_dhcp_result(self):
        a = self.side("A", "import time; print('ok 1 boot', flush=True); "
                           "time.sleep(1.0); print('ok 4 dhcp', flush=True);"
                           " time.sleep(1.0)")
        b = self.side("B", "print('hello')")
        self.boot_pair([a, b])
        self.assertGreaterEqual(b.started, 0.9)
        self.assertLess(b.started, 10)
        self.assertEqual(a.boot.exit_code, 0)
        self.assertIn("starting B", (a.cdir / "serial.log").read_text())

    def test_a_side_that_cannot_be_made_ready_keeps_the_other_down(self):
        """A's initramfs or command failed: B does not boot either, and
        says why."""
        from ndisbench_lib.errors import BenchError as Error
        from ndisbench_lib.report import report
        from ndisbench_lib.report.verdict import Verdict

        a, b = self.side("A", "print('x')"), self.side("B", "print('y')")
        errors = {}

        def run_side(side, on_line, before_boot):
            if side.name == "A":
                side.result = report.CellResult("k", "p", "A:x", "f")
                side.result.verdicts = {"load": Verdict(
                    ERROR, "build ndiswrapper.ko: failed")}
                return
            try:
                before_boot()
            except Error as exc:
                errors[side.name] = str(exc)
                return
            side.boot = machine.boot(self.scripts[side.name],
                                     side.cdir / "serial.log", 30)

        with contextlib.redirect_stdout(io.StringIO()):
            pair.boot_pair([a, b], run_side)
        self.assertIsNone(b.boot)
        self.assertEqual(errors, {"B": "build ndiswrapper.ko: failed"})

    def test_b_starts_when_a_ends_without_dhcp(self):
        a = self.side("A", "print('not ok 1 boot')")
        b = self.side("B", "print('hello')")
        self.boot_pair([a, b])
        self.assertIsNotNone(b.boot)
        self.assertEqual(b.boot.exit_code, 0)


if __name__ == "__main__":
    unittest.main()
