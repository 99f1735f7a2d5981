"""Another wrapper tree's known disagreements (expectations.toml
[wrapper.*]): recognised by its module's banner in the kernel log, a
failing check whose text the entry matches carries the entry's reason and
stays a failure; nothing else changes."""
import pathlib
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib import kernels
from ndisbench_lib.checks import known, registry
from ndisbench_lib.report import ktap
from ndisbench_lib.report.verdict import FAIL, PASS, Verdict

EXP = kernels.load_expectations()

LOG_163 = "\r\n".join([
    "KTAP version 1", "1..2", "ok 1 boot",
    "# module: ndiswrapper",
    "# kmsg: ndiswrapper version 1.63 loaded (smp=yes, preempt=no)",
    "ok 2 insmod ndiswrapper", "# ndisbench-agent: done", ""])
LOG_OURS = LOG_163.replace("ndiswrapper version 1.63 loaded",
                           "ndiswrapper: loaded")


class KnownWrapper(unittest.TestCase):
    def test_the_table_has_the_pgiri_entry(self) -> None:
        notes = EXP.wrappers["ndiswrapper-pgiri"]
        self.assertRegex("ndiswrapper version 1.63 loaded (smp=yes, "
                         "preempt=no)", notes.banner)
        self.assertIn("57d01fe6", notes.tree)
        self.assertIn("a3539e0e", notes.tree)
        self.assertTrue(any(k.applies("broken") for k in notes.known))
        for k in notes.known:
            self.assertTrue(k.checks and k.match and k.why, k)

    def test_only_the_trees_own_defects_with_their_file_and_line(
            self) -> None:
        """No entry explains a cause of the bench's: a kernel without
        kprobes, iw where the tree has wireless extensions, our ethtool
        or refusal wording."""
        for k in EXP.wrappers["ndiswrapper-pgiri"].known:
            self.assertRegex(k.why, r"driver/\w+\.c:\d+", k.why)
            for bench in ("KPROBES", "nl80211", "ethtool driver: expected",
                          "not these patterns"):
                self.assertNotIn(bench, k.match + k.why)

    def test_a_known_failure_carries_the_reason(self) -> None:
        notes = EXP.wrappers["ndiswrapper-pgiri"]
        entry = next(k for k in notes.known if k.checks == ("broken",))
        match, why = entry.match, entry.why
        # a failure text the entry's pattern was written for
        failing = Verdict(FAIL, "truncated: the kernel oopsed instead of "
                          "refusing it: BUG: unable to handle page fault for "
                          "address: ffffc9000004e000 (in link_pe_images "
                          "[ndiswrapper])",
                          ("truncated: no kernel line matches /x/",))
        self.assertRegex(failing.summary + "\n" +
                         "\n".join(failing.details), match)
        out = known.annotate(ktap.parse(LOG_163), EXP,
                             {"broken": failing, "load": Verdict(PASS, "ok")})
        self.assertEqual(out["broken"].status, FAIL)
        self.assertIn(why, out["broken"].summary)
        self.assertIn("ndiswrapper-pgiri", out["broken"].summary)
        self.assertTrue(out["broken"].summary.startswith(failing.summary))
        self.assertEqual(out["load"], Verdict(PASS, "ok"))

    def test_the_mtu_put_back_carries_ndis_change_mtu(self) -> None:
        """pgiri's ndis_change_mtu takes the header off the maximum total
        size and adds it to the MTU again: 1500 is refused after 1280."""
        failing = Verdict(FAIL, "MTU put back: expected 1500, got 1280",
                          ("MTU put back: expected 1500, got 1280",))
        out = known.annotate(ktap.parse(LOG_163), EXP, {"mtu": failing})
        self.assertEqual(out["mtu"].status, FAIL)
        self.assertIn("driver/wrapndis.c:903", out["mtu"].summary)
        self.assertIn("1486", out["mtu"].summary)
        # another mtu failure is not explained by it
        other = Verdict(FAIL, "mtu after the change: expected 1280, got 1500")
        self.assertEqual(known.annotate(ktap.parse(LOG_163), EXP,
                                        {"mtu": other}), {"mtu": other})

    def test_other_wrappers_and_other_failures_unchanged(self) -> None:
        failing = Verdict(FAIL, "truncated: the kernel oopsed instead "
                                "of refusing it: BUG: x")
        self.assertEqual(known.annotate(ktap.parse(LOG_OURS), EXP,
                                        {"broken": failing}),
                         {"broken": failing})
        other = Verdict(FAIL, "truncated: install status: expected '0', "
                              "got '1'")
        self.assertEqual(known.annotate(ktap.parse(LOG_163), EXP,
                                        {"broken": other}),
                         {"broken": other})

    def test_a_bad_entry_is_a_table_error(self) -> None:
        text = pathlib.Path(kernels.paths.EXPECTATIONS_TOML).read_text()
        text += ('\n[wrapper."x"]\nbanner = "x"\n'
                 '[[wrapper."x".known]]\nchecks = ["nosuchcheck"]\n'
                 'match = "a("\nwhy = "b"\n')
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "e.toml"
            path.write_text(text)
            with self.assertRaises(kernels.BenchError) as ctx:
                kernels.load_expectations(path)
        self.assertIn("nosuchcheck", str(ctx.exception))

    def test_every_known_check_is_a_check(self) -> None:
        for notes in EXP.wrappers.values():
            for k in notes.known:
                for check in k.checks:
                    if check != "*":
                        registry.get(check)     # raises if unknown


if __name__ == "__main__":
    unittest.main()


class OopsSite(unittest.TestCase):
    """A kernel problem line names where it happened: the first call
    trace frame inside a module (a jump to address 0 has no RIP symbol)."""
    SERIAL = "\n".join([
        "[   10.1] BUG: kernel NULL pointer dereference, address: "
        "0000000000000000",
        "[   10.1] RIP: 0010:0x0",
        "[   10.1] Call Trace:",
        "[   10.1]  <TASK>",
        "[   10.1]  ? nvmalloc+0x1b/0x63 [ndiswrapper]",
        "[   10.1]  ? wrapper_ioctl+0x34e/0x9e0 [ndiswrapper]",
        "[   10.1]  __x64_sys_ioctl+0x707/0x72a"])

    def test_first_module_frame(self) -> None:
        from ndisbench_lib.checks import facts
        self.assertEqual(facts.oops_site(self.SERIAL.splitlines()),
                         "nvmalloc [ndiswrapper]")

    def test_rip_symbol_when_no_module_frame(self) -> None:
        from ndisbench_lib.checks import facts
        self.assertEqual(facts.oops_site(["RIP: 0010:__memcpy+0x12/0x20",
                                          "Call Trace:",
                                          " copy_page+0x1/0x2"]),
                         "__memcpy")
        self.assertEqual(facts.oops_site(["BUG: x"]), "")
        # the agent's copies of kernel lines
        self.assertEqual(facts.oops_site(
            ["# kmsg: RIP: 0010:0x0",
             "# kmsg:  ? nvmalloc+0x1b/0x63 [ndiswrapper]"]),
            "nvmalloc [ndiswrapper]")

    def test_the_cell_names_it(self) -> None:
        from ndisbench_lib import cell
        self.assertEqual(cell.judge.kernel_problem(self.SERIAL),
                         "[   10.1] BUG: kernel NULL pointer dereference, "
                         "address: 0000000000000000 (in nvmalloc "
                         "[ndiswrapper])")
