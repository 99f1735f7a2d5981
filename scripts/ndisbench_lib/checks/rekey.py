"""rekey (the wpa2 rows): over the WPA2 link wpa2 left joined (or a join
of its own), a TCP stream while the AP changes its group key every second
(WPA2_AP.group_rekey_s). The agent streams until the station completed
two group key handshakes during the stream (wpa_supplicant's `Group
rekeying completed`) and at least MIN_BYTES went, or STREAM_BYTES went,
spread over at least 4 s of the guest's clock (bcm43xx's DMA rings move
16 MiB in 0.3 s, before the AP's first rekey):
the stream's length follows the rekeys, not the host's speed (the host's
time bounds a stream: a wrapped row doing CCMP in its driver, on a loaded
host, sent 13.7 of a fixed 16 MiB in those 40 s). At least one
rekey during it, every byte sent reaches the host's sink, STATUS still
says COMPLETED afterwards, and every data frame of the network on the air
stays protected."""
from typing import List, Sequence

from ..guest.air import WPA2_AP
from ..report.verdict import ERROR, Verdict
from .check import STREAM, CellFacts, Check, GuestContext
from .facts import to_int, verdict
from . import wpa

STREAM_BYTES = 16 << 20         # the most the agent sends
MIN_BYTES = 1 << 20             # the least, even after two rekeys


def params(ctx: GuestContext) -> Sequence[str]:
    return [f"ndisbench.rekey={wpa.network_words(ctx)}:"
            f"{WPA2_AP.passphrase}:{ctx.port}:{STREAM_BYTES}"]


def judge(facts: CellFacts) -> Verdict:
    test = wpa.wpa_test(facts, "rekey")
    if isinstance(test, Verdict):
        return test
    problems: List[str] = []
    rekeys = to_int(test.fact("group_rekeys")) or 0
    if rekeys < 1:
        problems.append("no group rekey during the stream (the AP "
                        f"rekeys every {WPA2_AP.group_rekey_s} s; the "
                        f"stream took {test.fact('seconds') or '-'} s)")
    sent = to_int(test.fact("bytes_sent"))
    if sent is None:
        problems.append("no bytes_sent")
    elif sent < MIN_BYTES:
        problems.append(f"the stream stopped after {sent} bytes, before "
                        f"{MIN_BYTES}")
    elif sent > STREAM_BYTES:
        problems.append(f"{sent} bytes sent, more than the {STREAM_BYTES} "
                        f"asked")
    if sent is not None:
        wpa.stream_problems(facts, "rekey", test, sent, problems)
    state = test.fact("wpa_state")
    if state != "COMPLETED":
        problems.append(f"wpa_state {state or '-'}, want COMPLETED")
    if not test.ok and not problems:
        problems.append(test.fact("error") or "the agent's rekey failed")
    error = wpa.capture_error(facts.air)
    if error:
        return Verdict(ERROR, error) if not problems else \
            verdict(problems, "")
    assert facts.air is not None
    sta = wpa.station(facts)
    problems += wpa.unprotected(wpa.network_frames(facts.air, sta), sta,
                                False)
    return verdict(problems, f"{rekeys} group rekeys during a "
                             f"{sent}-byte stream, every byte at the "
                             f"sink, still COMPLETED, every frame protected")


CHECK = Check(
    name="rekey", order=163,
    reads=("bind", "rekey"),
    doc="the AP changes the group key during a stream: nothing is lost",
    devices=wpa.ROWS, judge=judge, params=params, needs_iface=True,
    sink=STREAM, air_capture=True, wpa2_network=True,
    kernel_modules=wpa.CCMP_MODULES, seconds=4)
