"""ping: ICMP echoes to the slirp gateway 10.0.2.2 (the table's
ping_count, 100), none lost; RTT p50/p99 reported. A reply that comes
after its own one-second wait is counted, as ping(8) counts it, and the
summary says how many did."""
from typing import List, Sequence

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check, GuestContext
from .facts import agent_failed, compare, net_test, to_int, verdict


def params(ctx: GuestContext) -> Sequence[str]:
    return [f"ndisbench.ping={ctx.exp.network['ping_count']}"]


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "ping")
    if isinstance(test, Verdict):
        return test
    net = facts.exp.network
    problems: List[str] = []
    count = int(net["ping_count"])
    compare("echo requests sent", count, to_int(test.fact("transmitted")),
            problems)
    compare("echo replies", count, to_int(test.fact("received")), problems)
    agent_failed("ping", test, problems)
    # the agent counts a reply that came after its own wait (a host stall
    # of the guest's network under TCG), as ping(8) does; the verdict says
    # how many did
    late = to_int(test.fact("late_replies"))
    late_note = f" ({late} after their 1 s wait)" if late else ""
    return verdict(problems, f"{test.fact('received')}/{count} replies from "
                             f"{net['gateway']}{late_note}, rtt p50 "
                             f"{test.fact('rtt_p50_us')} us p99 "
                             f"{test.fact('rtt_p99_us')} us")


CHECK = Check(
    name="ping", order=110, doc="100 echoes to the gateway, none lost",
    reads=("ping",),
    devices=devices.REFERENCE_NIC + devices.RADIOS + devices.WIRED,
    judge=judge,
    params=params, needs_iface=True, seconds=5)
