"""peer (`ndisbench pair` only): two guests on one air. The other guest
answered every echo, and it pinged this guest at least as often (Icmp
InEchos since boot: only the peer sends echo requests to a guest)."""
from typing import List, Sequence

from ..report.verdict import Verdict
from .check import CellFacts, Check, GuestContext
from .facts import compare, net_test, to_int, verdict

PEER_PINGS = 10             # each way, all must be answered


def params(ctx: GuestContext) -> Sequence[str]:
    if not ctx.peer:
        return ()
    return [f"ndisbench.peer={ctx.peer}:{PEER_PINGS}"]


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "peer")
    if isinstance(test, Verdict):
        return test
    count = PEER_PINGS
    problems: List[str] = []
    peer = test.fact("peer")
    if test.fact("peer_answered_ms") is None:
        problems.append(test.fact("error") or f"{peer} never answered")
    else:
        compare(f"echo requests sent to {peer}", count,
                to_int(test.fact("transmitted")), problems)
        compare(f"echo replies from {peer}", count,
                to_int(test.fact("received")), problems)
        in_echos = to_int(test.fact("in_echos"))
        if in_echos is None or in_echos < count:
            problems.append(f"{peer} pinged this guest {in_echos} times, "
                            f"want at least {count}")
    if not test.ok and not problems:
        problems.append(test.fact("error") or "agent reported peer failed")
    return verdict(problems, f"{test.fact('received')}/{count} replies from "
                             f"{peer}, rtt p50 {test.fact('rtt_p50_us')} us "
                             f"p99 {test.fact('rtt_p99_us')} us; it pinged "
                             f"us {test.fact('in_echos')} times")


# No row of the matrix: pair.py adds it to both sides' plans.
CHECK = Check(
    name="peer", order=165,
    reads=("peer",),
    doc="two guests on one air ping each other",
    devices=(), judge=judge, params=params, needs_iface=True, seconds=60,
    default=False, selectable=False)
