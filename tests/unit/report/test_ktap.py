import unittest

from helpers import agent_log  # noqa: F401  (sets sys.path)
from ndisbench_lib.report import ktap


class KtapParserTest(unittest.TestCase):
    def test_parses_results_and_facts_amid_console_noise(self):
        log = ktap.parse(agent_log([
            {"module": "ndiswrapper", "before": 0, "errno": 2,
             "after": 12289, "taint": "-",
             "kmsg": ["ndiswrapper: Unknown symbol usb_deregister (err -2)"]}
        ]))
        self.assertEqual(log.version, 1)
        self.assertEqual(log.plan, 3)
        self.assertTrue(log.complete)
        self.assertEqual([t.name for t in log.tests],
                         ["boot", "insmod ndiswrapper", "unload"])
        insmod = log.test("insmod ndiswrapper")
        self.assertFalse(insmod.ok)
        self.assertEqual(insmod.fact("errno"), "2")
        self.assertEqual(insmod.fact("tainted_after"), "12289")
        self.assertEqual(insmod.all("kmsg"),
                         ["ndiswrapper: Unknown symbol usb_deregister "
                          "(err -2)"])
        self.assertEqual(log.test("boot").fact("tainted"), "0")

    def test_empty_fact_value_is_kept(self):
        log = ktap.parse("KTAP version 1\n1..1\n# module_taint: \n"
                         "ok 1 insmod x\n")
        self.assertEqual(log.test("insmod x").fact("module_taint"), "")

    def test_truncated_log_is_not_complete(self):
        text = agent_log([{"module": "x", "before": 0, "errno": 0,
                           "after": 4096, "taint": "O"}], done=False)
        self.assertFalse(ktap.parse(text).complete)
        cut = "\n".join(text.splitlines()[:8])
        log = ktap.parse(cut)
        self.assertFalse(log.complete)
        self.assertIsNone(log.test("unload"))

    def test_no_ktap_at_all(self):
        log = ktap.parse("Kernel panic - not syncing: VFS\n")
        self.assertIsNone(log.version)
        self.assertEqual(log.tests, [])
        self.assertFalse(log.complete)

    def test_directive_and_indented_subtests(self):
        log = ktap.parse("KTAP version 1\n1..2\n    ok 1 sub\n"
                         "ok 1 first # SKIP not here\nnot ok 2 second\n")
        self.assertEqual(log.tests[0].name, "first")
        self.assertEqual(log.tests[0].directive, "SKIP not here")
        self.assertEqual(len(log.tests), 2)


if __name__ == "__main__":
    unittest.main()
