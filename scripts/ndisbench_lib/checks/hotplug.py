"""hotplug (USB rows): while a TCP stream to a second host sink runs, the
agent prints `# hotplug_request: unplug`; the host answers with QMP
device_del (guest/qmp_requests.py), the interface must disappear, then
`# hotplug_request: replug` gets a device_add of the same device; the
interface must come back, associate, lease the address and answer 10/10
pings. Bytes must have reached the host before the unplug.

The stream's second before the unplug and the 30 s waits for the
interface to go and come back are host time (guest/README.md, "Guest
clock"). No oops anywhere; the QMP actions are noted in the serial log
(guest/qmp.py)."""
from typing import List, Sequence

from .. import devices
from ..report.verdict import Verdict
from .check import CUT_STREAM, QMP_HOTPLUG, CellFacts, Check, GuestContext
from .facts import HOTPLUG_PINGS, after_the_change, compare, net_test


def params(ctx: GuestContext) -> Sequence[str]:
    if ctx.port is None:
        return ()
    return [f"ndisbench.hotplug={ctx.port}"]


def judge(facts: CellFacts) -> Verdict:
    """Unplugged while a stream ran, the interface went away; replugged,
    it came back and reached the gateway again."""
    test = net_test(facts, "hotplug")
    if isinstance(test, Verdict):
        return test
    streamed = facts.sinks.get("hotplug")
    problems: List[str] = []
    if not streamed:
        problems.append("no traffic reached the host before the unplug")
    if test.fact("unplug_ms") is None:
        problems.append(test.fact("error") or "interface not removed")
    elif test.fact("replug_ms") is None:
        problems.append(test.fact("error") or "interface not back")
    compare("address after the replug", facts.address, test.fact("address"),
            problems)
    return after_the_change(
        "hotplug", test, problems, f"unplugged during a stream ({streamed} "
        f"bytes arrived): gone in {test.fact('unplug_ms')} ms, back in "
        f"{test.fact('replug_ms')} ms, {HOTPLUG_PINGS}/{HOTPLUG_PINGS} "
        f"pings after")


CHECK = Check(
    name="hotplug", order=150,
    reads=("hotplug",),
    doc="unplugged under traffic and replugged: gone, back, reaches the "
        "gateway",
    devices=devices.UNPLUGGABLE, judge=judge, params=params,
    needs_iface=True, sink=CUT_STREAM, qmp=QMP_HOTPLUG, seconds=20)
