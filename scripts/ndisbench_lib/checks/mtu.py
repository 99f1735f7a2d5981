"""mtu: the device's interface takes a smaller MTU (1280, the least every
IP link must carry), echoes of exactly that size with DF set cross it and
are answered by the gateway, one byte more is refused by the stack
(EMSGSIZE: it would have to fragment), and the MTU it had is put back for
the checks after it. For a wrapped device this is ndiswrapper's netdev
taking dev_set_mtu() and its TX/RX paths carrying full frames of the new
size (guest/agent/net.c, test_mtu). A driver may reset its link for the
change (e1000 does, for about 2 s): the agent waits for the carrier and
one answered echo before it measures."""
from typing import List, Sequence

from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check, GuestContext
from .facts import agent_failed, compare, net_test, to_int, verdict

MTU = 1280
DF_PINGS = 3                # the agent's echoes of the full new size


def params(ctx: GuestContext) -> Sequence[str]:
    return [f"ndisbench.mtu={MTU}"]


def judge(facts: CellFacts) -> Verdict:
    test = net_test(facts, "mtu")
    if isinstance(test, Verdict):
        return test
    problems: List[str] = []
    compare("errno of the MTU change", 0, to_int(test.fact("mtu_set_errno")),
            problems)
    compare("MTU after the change", MTU, to_int(test.fact("mtu")), problems)
    compare(f"echo replies to {MTU}-byte packets with DF", DF_PINGS,
            to_int(test.fact("df_received")), problems)
    compare(f"sending {MTU + 1} bytes with DF (one byte over)", "EMSGSIZE",
            test.fact("df_over_errno"), problems)
    compare("MTU put back", to_int(test.fact("mtu_before")),
            to_int(test.fact("mtu_restored")), problems)
    agent_failed("mtu", test, problems)
    return verdict(problems, f"MTU {MTU} taken: {test.fact('df_received')}/"
                             f"{DF_PINGS} echoes of {MTU} bytes with DF "
                             f"answered, {MTU + 1} refused (EMSGSIZE), "
                             f"{test.fact('mtu_restored')} put back")


CHECK = Check(
    name="mtu", order=115,
    reads=("mtu",),
    doc="the interface takes MTU 1280: full-size DF echoes answered, one "
        "byte more refused, the MTU put back",
    devices=devices.REFERENCE_NIC + devices.RADIOS + devices.WIRED,
    judge=judge,
    params=params, needs_iface=True, seconds=5)
