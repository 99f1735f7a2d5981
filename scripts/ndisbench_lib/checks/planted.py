"""planted: guest/plant/'s ndisbench_plant.ko (an ABBA
lock order, a might_sleep() under a spinlock, a read past a 16-byte
kmalloc and a forgotten 0xa5-filled 64-byte object): each checker the
kernel's .config enables must report its bug, and none it lacks may seem
to, else the debug kernel's quiet runs would prove nothing.

The reports wanted: lockdep's circular dependency naming plant_lock_a/b,
the atomic-sleep BUG at plant.c, KASAN's slab-out-of-bounds in
ndisbench_plant_oob, kmemleak's size-64 object of 0xa5. It needs no
device: it runs in a bare guest of its own on each kernel, only when
`--check planted` names it; the test command's `planted` stage runs it on
debug-6.1 and src-6.1."""
import re
from typing import List

from ..build.modules import PLANT_MODULE
from ..report.ktap import KtapLog
from ..report.verdict import FAIL, PASS, Verdict
from .check import CellFacts, Check
from .facts import not_booted, verdict

# Each checker of the debug kernel, the option that enables it, and what
# its report of ndisbench_plant's bug looks like (in the agent's klog and
# kmemleak facts). All patterns must match where the option is set; none
# where it is not.
PLANTED_REPORTS = (
    ("lockdep", "CONFIG_PROVE_LOCKING",
     (r"WARNING: possible circular locking dependency detected",
      r"\(plant_lock_[ab]\)")),
    ("atomic sleep", "CONFIG_DEBUG_ATOMIC_SLEEP",
     (r"BUG: sleeping function called from invalid context at "
      r"\S*plant\.c:\d+",)),
    ("KASAN", "CONFIG_KASAN",
     (r"BUG: KASAN: slab-out-of-bounds in ndisbench_plant_oob\b",)),
    ("kmemleak", "CONFIG_DEBUG_KMEMLEAK",
     (r"unreferenced object 0x[0-9a-f]+ \(size 64\)",
      r"(a5 ){16}")),
)


def judge_reports(log: KtapLog, config: dict) -> Verdict:
    """ndisbench_plant.ko loaded; every checker the kernel has reported its
    bug, and no checker it lacks seems to have."""
    first = not_booted(log)
    if first:
        return first
    insmod = log.test(f"insmod {PLANT_MODULE}")
    if insmod is None or not insmod.ok:
        return Verdict(FAIL, "ndisbench_plant.ko did not load")
    lines = [v for t in log.tests for k, v in t.facts
             if k in ("klog", "kmemleak")]
    problems: List[str] = []
    found: List[str] = []
    for name, option, patterns in PLANTED_REPORTS:
        enabled = config.get(option) == "y"
        seen = all(any(re.search(p, line) for line in lines)
                   for p in patterns)
        if enabled and not seen:
            missing = [p for p in patterns
                       if not any(re.search(p, line) for line in lines)]
            problems.append(f"{name} ({option}=y) did not report its "
                            f"planted bug: no line matches {missing[0]!r}")
        elif not enabled and seen:
            problems.append(f"{name} reported although {option} is not set")
        elif enabled:
            found.append(name)
    if not found and not problems:
        return Verdict(PASS, "no checker on this kernel; none reported")
    return verdict(problems, f"reported by {', '.join(found)}")


def judge(facts: CellFacts) -> Verdict:
    return judge_reports(facts.log, facts.config or {})


CHECK = Check(
    name="planted", order=180,
    reads=("insmod ndisbench_plant",),
    doc="each debug checker the kernel has reports its planted bug",
    devices=(), own_cell=True, default=False, judge=judge,
    installs_driver=False, extra_modules=(PLANT_MODULE,),
    expects_kernel_reports=True, seconds=15)
