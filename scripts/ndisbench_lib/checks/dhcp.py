"""dhcp: busybox udhcpc gets slirp's lease (10.0.2.15; a pair's second
guest 10.0.2.16) over the device's interface."""
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import agent_failed, compare, net_test, verdict


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "dhcp")
    if isinstance(test, Verdict):
        return test
    problems: List[str] = []
    compare("address", facts.address, test.fact("address"), problems)
    agent_failed("dhcp", test, problems)
    return verdict(problems, f"lease {test.fact('address')} in "
                             f"{test.fact('dhcp_ms')} ms")


CHECK = Check(
    name="dhcp", order=100, doc="udhcpc gets slirp's lease",
    reads=("dhcp",),
    devices=devices.REFERENCE_NIC + devices.RADIOS + devices.FAULTY +
    devices.WIRED,
    judge=judge, needs_iface=True, seconds=5)
