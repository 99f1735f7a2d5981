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
    def test_the_table_has_the_163_entry(self) -> None:
        notes = EXP.wrappers["ndiswrapper-1.63"]
        self.assertTrue(notes.banner)
        self.assertTrue(any(k.applies("broken") for k in notes.known))
        for k in notes.known:
            self.assertTrue(k.checks and k.match and k.why, k)

    def test_a_known_failure_carries_the_reason(self) -> None:
        notes = EXP.wrappers["ndiswrapper-1.63"]
        entry = next(k for k in notes.known if k.applies("broken"))
        match, why = entry.match, entry.why
        # a failure text the entry's pattern was written for
        failing = Verdict(FAIL, "truncated: the kernel oopsed instead of "
                          "refusing it: BUG: unable to handle page fault for "
                          "address: ffffc9000004e000",
                          ("truncated: no kernel line matches /x/",))
        self.assertRegex(failing.summary + "\n" +
                         "\n".join(failing.details), match)
        out = known.annotate(ktap.parse(LOG_163), EXP,
                             {"broken": failing, "load": Verdict(PASS, "ok")})
        self.assertEqual(out["broken"].status, FAIL)
        self.assertIn(why, out["broken"].summary)
        self.assertIn("ndiswrapper-1.63", out["broken"].summary)
        self.assertTrue(out["broken"].summary.startswith(failing.summary))
        self.assertEqual(out["load"], Verdict(PASS, "ok"))

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
