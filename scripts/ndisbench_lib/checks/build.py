"""build (every cell, judged on the host): the modules of ours the cell
loads (the wrapper under its test names, a --wrapper-src tree's, the
planted module) were built for its kernel, with that kernel's own
toolchain (build/modules.py; a chroot of its suite: build/chroot.py).
FAIL names the module and the first compiler error (`file:line: error:
...`, buildlog.cause_lines); the cell's checks that need that module are
then not run (status "not run", counted neither way), the others still
run. A cell that
loads no module of ours (e1000, the native rtl8187) passes: nothing of
ours to build."""
from .. import devices
from ..report.verdict import FAIL, PASS, Verdict
from .check import CellFacts, Check


def judge(facts: CellFacts) -> Verdict:
    failed = [(name, why) for name, why in facts.builds.items() if why]
    if failed:
        name, why = failed[0]
        more = f" (and {', '.join(n for n, _ in failed[1:])}.ko)" \
            if failed[1:] else ""
        return Verdict(FAIL, f"{name}.ko: {why}{more}",
                       [f"{n}.ko: {w}" for n, w in failed])
    if not facts.builds:
        return Verdict(PASS, "no module of ours (in-tree drivers only)")
    return Verdict(PASS, "built " + ", ".join(f"{n}.ko"
                                              for n in facts.builds))


CHECK = Check(
    name="build", order=5,
    doc="our modules built for the kernel (FAIL: the compiler's first "
        "error); what needs a module that did not build is not run",
    devices=tuple(d.label for d in devices.TARGETS), judge=judge,
    installs_driver=False, seconds=0, host_side=True)
