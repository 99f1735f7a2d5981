"""rekey (the wpa2 rows): over the WPA2 link wpa2 left joined (or a join
of its own), a 16 MiB TCP stream while the AP changes its group key every
second (WPA2_AP.group_rekey_s; the stream takes about two seconds of
guest time on the native row): the station completes at least one group
key handshake during the stream
(wpa_supplicant's `Group rekeying completed`), every byte reaches the
host's sink, STATUS still says COMPLETED afterwards, and every data frame
of the network on the air stays protected."""
from typing import List, Sequence

from ..guest.air import WPA2_AP
from ..report.verdict import ERROR, Verdict
from .check import STREAM, CellFacts, Check, GuestContext
from .facts import to_int, verdict
from . import wpa

STREAM_BYTES = 16 << 20


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
    wpa.stream_problems(facts, "rekey", test, STREAM_BYTES, problems)
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
                             f"{STREAM_BYTES}-byte stream, every byte at the "
                             f"sink, still COMPLETED, every frame protected")


CHECK = Check(
    name="rekey", order=163,
    reads=("bind", "rekey"),
    doc="the AP changes the group key during a stream: nothing is lost",
    devices=wpa.ROWS, judge=judge, params=params, needs_iface=True,
    sink=STREAM, air_capture=True, wpa2_network=True,
    kernel_modules=wpa.CCMP_MODULES, seconds=4)
