"""resources: a serialized miniport's NDIS_STATUS_RESOURCES sends go
again even when the driver never says so. NDIS sends the held packets
again at the driver's next NdisMSendComplete or
NdisMSendResourcesAvailable; on the rtl8139-resources row rtl8139nd.sys
(its INF's SendResources 2) answers RESOURCES when its ring is full and,
once in 64 sends, with nothing in flight, and never calls
NdisMSendResourcesAvailable: after such an answer neither call comes, and
only the wrapper's retry timer moves the queue. The TCP stream must get
through, the driver must have answered RESOURCES with nothing in flight
(its Halt line) and the wrapper must say its timer sent the held packets
again (both logged while the agent removes the module).

It judges the tcp check's stream: `run --check` needs both."""
import re
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import first_match, net_test, unload_lines, verdict

DRIVER_RE = re.compile(r"halt: (\d+) sends answered NDIS_STATUS_RESOURCES, "
                       r"(\d+) of them with no send in flight")
WRAPPER_RE = re.compile(r"(\d+) times the held sends went again on the "
                        r"retry timer")


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    kmsg = unload_lines(facts, "kmsg")
    driver = first_match(DRIVER_RE, kmsg)
    wrapper = first_match(WRAPPER_RE, kmsg)
    retried = int(wrapper.group(1)) if wrapper else 0
    idle = int(driver.group(2)) if driver else 0
    problems: List[str] = []
    if not driver:
        problems.append("the driver's Halt line is missing (its RESOURCES "
                        "answers unknown)")
    elif not idle:
        problems.append("the driver never answered NDIS_STATUS_RESOURCES "
                        "with no send in flight")
    elif not retried:
        problems.append(f"the driver answered {idle} sends RESOURCES with no "
                        f"send in flight; the wrapper never sent them again "
                        f"on its own")
    if not test.ok:
        problems.append("the TCP stream did not get through")
    return verdict(problems, f"{driver.group(1) if driver else 0} sends "
                             f"answered RESOURCES, {idle} with no send in "
                             f"flight; sent again on the retry timer "
                             f"{retried}x; the TCP stream got through in "
                             f"{test.fact('seconds')} s")


CHECK = Check(
    name="resources", order=127,
    reads=("tcp", "unload"),
    doc="RESOURCES sends go again when the driver never says so (no "
        "completion, no NdisMSendResourcesAvailable)",
    devices=devices.RESOURCES, judge=judge, needs_iface=True, seconds=5)
