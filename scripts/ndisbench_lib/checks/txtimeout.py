"""txtimeout: a send the driver never completes is found by the wrapper's
transmit watchdog, which resets the miniport. On the rtl8139-txlost row
rtl8139nd.sys (its INF's LoseSendAfter 400) keeps send 400 unsent and
uncompleted until a MiniportReset, and its CheckForHang does not notice.
The wrapper must warn "transmit timeout" and reset the driver ("the
driver was hung: reset done", as recover's reset), the driver must have
seen that reset (its Halt line: resets after the dropped send, and the
send not still held), and the TCP stream that waited on the send must
get through.

It judges the tcp check's stream: `run --check` needs both."""
import re
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import first_match, net_test, unload_lines, verdict
from .recover import RESET_LINE

TIMEOUT_LINE = "transmit timeout"
HALT_RE = re.compile(r"halt: (\d+) resets after send \d+ was dropped")
HELD_LINE = "the dropped send was still held"


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    klog = unload_lines(facts, "klog")
    kmsg = unload_lines(facts, "kmsg")
    timeouts = [line for line in klog if TIMEOUT_LINE in line]
    resets = [line for line in klog if RESET_LINE in line]
    halt = first_match(HALT_RE, kmsg)
    problems: List[str] = []
    if not timeouts:
        problems.append("no transmit timeout: the wrapper never noticed the "
                        "send the driver kept")
    problems += [line for line in resets if f"{RESET_LINE} done" not in line]
    if timeouts and not resets:
        problems.append("a transmit timeout, but no MiniportReset")
    problems += [line for line in kmsg if HELD_LINE in line]
    if not halt:
        problems.append("the driver's Halt line is missing (did it drop a "
                        "send?)")
    if not test.ok:
        problems.append("the TCP stream did not get through")
    return verdict(problems, f"send dropped, transmit timeout, reset "
                             f"{len(resets)}x; the TCP stream got through in "
                             f"{test.fact('seconds')} s")


CHECK = Check(
    name="txtimeout", order=128,
    reads=("tcp", "unload"),
    doc="a send the driver keeps is found by the transmit watchdog and the "
        "miniport reset",
    devices=devices.TXLOST, judge=judge, needs_iface=True, seconds=15)
