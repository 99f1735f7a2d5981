"""taint: /proc/sys/kernel/tainted at boot (0), before and after
ndiswrapper's load (exact masks: P=bit 0, O=12, E=13 where the kernel
checks module signatures) and /sys/module/ndiswrapper/taint (no P on fixed
kernels, P on 2.6.19-rc1 where the module loads anyway)."""
from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .modload import judge_module


def judge(facts: CellFacts) -> Verdict:
    return judge_module("taint", "ndiswrapper", facts, taint_only=True)


CHECK = Check(
    name="taint", order=20,
    reads=("insmod ndiswrapper", "unload"),
    doc="the kernel's and ndiswrapper's taint masks before and after its "
        "load",
    devices=devices.BARE, judge=judge, role="ndiswrapper",
    installs_driver=False, seconds=1)
