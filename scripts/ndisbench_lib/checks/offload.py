"""offload: a miniport gets checksum offload requests only as it offered
and NDIS set them. On the rtl8139-offload row rtl8139nd.sys (its INF's
TaskOffload) answers OID_TCP_TASK_OFFLOAD with IPv4 transmit checksums
(TCP, UDP, IP) and checks every send: a TcpIpChecksumPacketInfo asking
for what was not set, or not for the frame's protocol, fails the packet,
and so does a frame without one whose checksums are left undone. The
wrapper must query the offload, set it, and ask it for the TCP stream's
checksums: the driver's Halt line (logged while the agent removes the
module) counts the TCP sends that asked, and none may have failed.

It judges the tcp check's stream: `run --check` needs both."""
import re
from typing import List

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import first_match, net_test, unload_lines, verdict

HALT_RE = re.compile(r"halt: checksum offload: (\d+) TCP and (\d+) UDP sends "
                     r"asked for it, (\d+) asked for what was not enabled, "
                     r"(\d+) left a checksum undone without asking")


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    halt = first_match(HALT_RE, unload_lines(facts, "kmsg"))
    tcp, udp, wrong, undone = (int(g) for g in halt.groups()) if halt \
        else (0, 0, 0, 0)
    problems: List[str] = []
    if not halt:
        problems.append("the driver's Halt line is missing (its checksum "
                        "offload counts unknown)")
    elif wrong:
        problems.append(f"{wrong} sends asked for checksum offload the "
                        f"driver had not enabled, or not for their protocol")
    elif undone:
        problems.append(f"{undone} sends without checksum offload had a "
                        f"checksum left undone")
    elif not tcp:
        problems.append("the driver offered checksum offload; no TCP send "
                        "asked for it")
    if not test.ok:
        problems.append("the TCP stream did not get through")
    return verdict(problems, f"checksum offload set; {tcp} TCP and {udp} "
                             f"UDP sends asked for it, none wrongly; the TCP "
                             f"stream got through in {test.fact('seconds')} s")


CHECK = Check(
    name="offload", order=129,
    reads=("tcp", "unload"),
    doc="checksum offload is set through OID_TCP_TASK_OFFLOAD and asked "
        "per packet only as the driver allows",
    devices=devices.OFFLOAD, judge=judge, needs_iface=True, seconds=5)
