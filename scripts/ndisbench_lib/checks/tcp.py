"""tcp: the table's tcp_bytes (4 MiB; the bench's 16) to a sink the host
runs on 127.0.0.1 (10.0.2.2 in the guest); the guest's count, the sink's
reply and the host's own count must all match.

The stream's limit (60 s) and the wait for the sink's reply (10 s) are
host time (guest/README.md, "Guest clock"; the `host_clock` fact says
`rtc` when the RTC bounded them)."""
from typing import List, Sequence

from .. import devices
from ..report.verdict import Verdict
from .check import STREAM, CellFacts, Check, GuestContext
from .facts import agent_failed, compare, net_test, to_int, verdict


def params(ctx: GuestContext) -> Sequence[str]:
    if ctx.port is None:
        return ()
    return [f"ndisbench.tcp={ctx.port}:{ctx.tcp_bytes}"]


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "tcp")
    if isinstance(test, Verdict):
        return test
    want = facts.stream_bytes
    problems: List[str] = []
    compare("bytes sent by the guest", want, to_int(test.fact("bytes_sent")),
            problems)
    compare("sink's reply", f"received={want}", test.fact("sink_reply"),
            problems)
    compare("bytes counted by the host sink", want, facts.sinks.get("tcp"),
            problems)
    agent_failed("tcp", test, problems)
    return verdict(problems, f"{want} bytes, counted on both ends, in "
                             f"{test.fact('seconds')} s")


CHECK = Check(
    name="tcp", order=120,
    reads=("tcp",),
    doc="a TCP stream to the host's sink, counted on both ends",
    devices=devices.REFERENCE_NIC + devices.RADIOS + devices.FAULTY +
    devices.WIRED + devices.SEND_RULES,
    judge=judge, params=params, needs_iface=True, sink=STREAM, seconds=10)
