"""resend: a serialized miniport's NDIS_STATUS_RESOURCES sends are queued
again, not dropped. On the bcm43xx-serial row bcmwl.sys is serialized and
answers RESOURCES when 8 frames wait; the TCP stream must get through
(its byte counts are the tcp check's), the driver must have answered
RESOURCES (its Halt line) and the wrapper must say it queued them again
(both logged while the agent removes the module).

As recover, it judges the tcp check's stream: `run --check` needs both."""
import re
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import net_test, unload_lines, verdict

DRIVER_RE = re.compile(r"halt: (\d+) sends answered NDIS_STATUS_RESOURCES")
WRAPPER_RE = re.compile(r"(\d+) sends the serialized miniport answered "
                        r"NDIS_STATUS_RESOURCES were queued again")



def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    kmsg = unload_lines(facts, "kmsg")
    answered = [int(m.group(1)) for m in map(DRIVER_RE.search, kmsg) if m]
    queued = [int(m.group(1)) for m in map(WRAPPER_RE.search, kmsg) if m]
    problems: List[str] = []
    if not answered or not answered[0]:
        problems.append("the driver never answered NDIS_STATUS_RESOURCES "
                        "(or its Halt line is missing)")
    elif not queued:
        problems.append(f"the driver answered {answered[0]} sends "
                        f"NDIS_STATUS_RESOURCES; the wrapper never said it "
                        f"queued them again")
    if not test.ok:
        problems.append("the TCP stream did not get through")
    return verdict(problems, f"{answered[0] if answered else 0} sends "
                             f"answered RESOURCES, queued again; the TCP "
                             f"stream got through in {test.fact('seconds')} s")


CHECK = Check(
    name="resend", order=126,
    reads=("tcp", "unload"),
    doc="a serialized miniport's NDIS_STATUS_RESOURCES sends are queued "
        "again, not dropped",
    devices=devices.SERIAL, judge=judge, needs_iface=True, seconds=5)
