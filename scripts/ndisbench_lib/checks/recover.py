"""recover: a driver that hangs is brought back. On the bcm43xx-hang row
bcmwl.sys's TX hangs once (its INF's test knob HangTxAfter); the wrapper
must ask MiniportCheckForHang, call MiniportReset when it says hung (the
kernel warns "the driver was hung: reset done"), and the TCP stream that
ran into the hang must still get through.

It judges the tcp check's stream, so `run --check` needs both."""
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import net_test, unload_lines, verdict

RESET_LINE = "the driver was hung: reset"



def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    klog = unload_lines(facts, "klog")
    resets = [line for line in klog if RESET_LINE in line]
    problems: List[str] = []
    if not resets:
        problems.append("no reset: the driver did not hang, or the wrapper "
                        "never asked CheckForHang")
    problems += [line for line in resets if f"{RESET_LINE} done" not in line]
    if not test.ok:
        problems.append("the TCP stream did not get through the hang and "
                        "the reset")
    return verdict(problems, f"hung, reset ({len(resets)}x), the TCP stream "
                             f"got through in {test.fact('seconds')} s")


CHECK = Check(
    name="recover", order=125,
    reads=("tcp", "unload"),
    doc="a driver that hangs once is reset (CheckForHang, MiniportReset) "
        "and carries on",
    devices=devices.HUNG, judge=judge, needs_iface=True, seconds=10)
