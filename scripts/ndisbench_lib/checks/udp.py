"""udp (a measurement for `ndisbench bench`, not run unless selected):
64-byte datagrams to the host's sink for the table's udp_ms; some must
arrive, never more than were sent. The rate is the bench's figure, not a
pass mark."""
from typing import Sequence

from .. import devices
from ..report.verdict import FAIL, PASS, Verdict
from .check import DATAGRAMS, CellFacts, Check, GuestContext
from .facts import net_test, to_int


def params(ctx: GuestContext) -> Sequence[str]:
    if ctx.port is None:
        return ()
    return [f"ndisbench.udp={ctx.port}:{ctx.exp.network['udp_ms']}"]


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "udp")
    if isinstance(test, Verdict):
        return test
    arrived = facts.sinks.get("udp")
    sent = to_int(test.fact("udp_sent"))
    seconds = float(test.fact("seconds") or 0)
    if not test.ok or not sent or not seconds:
        return Verdict(FAIL, test.fact("error") or "no datagram sent")
    if not arrived or arrived > sent:
        return Verdict(FAIL, f"host counted {arrived} of {sent} datagrams")
    return Verdict(PASS, f"{arrived / seconds:.0f} datagrams/s arrived "
                         f"({arrived}/{sent}, {test.fact('udp_payload')} "
                         f"bytes each, {seconds:.1f} s)")


CHECK = Check(
    name="udp", order=130,
    reads=("udp",),
    doc="small-packet rate: datagrams to the host's sink (for bench)",
    devices=devices.REFERENCE_NIC + devices.RADIOS, judge=judge,
    params=params, needs_iface=True, sink=DATAGRAMS, seconds=10,
    default=False)
