"""The planted check (guest/plant/): each checker the kernel's config
enables must report its deliberate bug; none it lacks may seem to."""
import unittest

from helpers import judge as judge_check
from ktaplogs import real_log
from ndisbench_lib.report import ktap
from ndisbench_lib.kernels import load_expectations

EXP = load_expectations()
DEBUG = {"CONFIG_PROVE_LOCKING": "y", "CONFIG_DEBUG_ATOMIC_SLEEP": "y",
         "CONFIG_KASAN": "y", "CONFIG_DEBUG_KMEMLEAK": "y"}
REPORTS = {
    "lockdep": "# klog: WARNING: possible circular locking dependency "
               "detected\n# klog: (plant_lock_a){+.+.}-{3:3}, at: "
               "ndisbench_plant_init+0x1e/0x60 [ndisbench_plant]\n",
    "sleep": "# klog: BUG: sleeping function called from invalid context "
             "at /tree/src/plant.c:45\n",
    "kasan": "# klog: BUG: KASAN: slab-out-of-bounds in "
             "ndisbench_plant_oob+0x89/0x98 [ndisbench_plant]\n",
    "kmemleak": "# kmemleak: unreferenced object 0xffff888000f7be00 (size "
                "64):\n# kmemleak:     a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 a5 "
                "a5 a5 a5 a5 a5  ................\n",
}


def judge(reports, config=DEBUG, loaded="ok", texts=REPORTS):
    """reports: which of texts the kernel log holds."""
    log = ("KTAP version 1\n1..3\n# tainted: 0\nok 1 boot\n# errno: 0\n"
           f"{loaded} 2 insmod ndisbench_plant\n"
           + "".join(texts[r] for r in reports) +
           "# tainted: 4096\nok 3 unload\n# ndisbench-agent: done\n")
    return judge_check("planted", EXP.policies["2.6.25-rc4"], EXP,
                       ktap.parse(log), [], 0, config=config)


class PlantedTest(unittest.TestCase):
    def test_every_checker_reporting_passes(self):
        verdict = judge(REPORTS)
        self.assertEqual(verdict.status, "pass")
        self.assertEqual(verdict.summary, "reported by lockdep, atomic "
                         "sleep, KASAN, kmemleak")

    def test_a_silent_checker_fails(self):
        for silent in REPORTS:
            verdict = judge([r for r in REPORTS if r != silent])
            self.assertEqual(verdict.status, "FAIL", silent)
            self.assertIn("did not report its planted bug", verdict.summary)

    def test_a_leak_that_is_not_ours_does_not_count(self):
        other = dict(REPORTS,
                     kmemleak=REPORTS["kmemleak"].replace("a5", "00"))
        self.assertEqual(judge(REPORTS, texts=other).status, "FAIL")

    def test_a_kernel_without_checkers_must_stay_quiet(self):
        self.assertEqual(judge([], config={}).status, "pass")
        verdict = judge(["kasan"], config={})
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("KASAN reported although CONFIG_KASAN is not set",
                      verdict.summary)

    def test_module_that_did_not_load_fails(self):
        self.assertEqual(judge(REPORTS, loaded="not ok").status, "FAIL")



class RealCellPlantedTest(unittest.TestCase):
    """A real cell of the planted bugs on the debug kernel (debug-6.1, a
    run of main in the s22 session): every checker's report as the
    kernel printed it, among its other messages."""
    def test_the_real_cell_passes_naming_every_checker(self):
        log = ktap.parse(real_log("checks", "debug-6.1__planted"))
        verdict = judge_check("planted", EXP.policies["2.6.25-rc4"], EXP,
                              log, [], 0, config=DEBUG)
        self.assertEqual(verdict.status, "pass", verdict)
        self.assertEqual(verdict.summary, "reported by lockdep, atomic "
                                          "sleep, KASAN, kmemleak")


if __name__ == "__main__":
    unittest.main()
