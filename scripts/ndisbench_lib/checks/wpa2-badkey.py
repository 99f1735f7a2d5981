"""wpa2-badkey (the wpa2 rows): before wpa2 the agent joins the same
network with a wrong passphrase (the agent's, not the AP's). The AP's
MIC check of message 2 fails: on the air the station's first EAPOL-Key
message 2 is never answered with message 3; the station reports the
failure (wpa_supplicant's `4-Way Handshake failed` or
`CTRL-EVENT-SSID-TEMP-DISABLED ... reason=WRONG_KEY`) and never reaches
COMPLETED; and no data frame but EAPOL leaves the station in that network
without the Protected bit. The agent then stops that wpa_supplicant."""
from typing import List, Optional, Sequence

from ..guest.capture import DataFrame
from ..report.verdict import ERROR, Verdict
from .check import CellFacts, Check, GuestContext
from .facts import verdict
from . import wpa

WRONG_PASSPHRASE = "not-the-ndisbench-passphrase"


def params(ctx: GuestContext) -> Sequence[str]:
    return [f"ndisbench.wpa2_badkey={wpa.network_words(ctx)}:"
            f"{WRONG_PASSPHRASE}"]


def message_2_problem(frames: Sequence[DataFrame], sta: str
                      ) -> Optional[str]:
    """The station's first message 2, and the AP's next EAPOL-Key to it:
    a retry of message 1 or nothing, never message 3."""
    msg2 = next((f for f in frames if f.eapol_msg == 2 and f.sa == sta),
                None)
    if msg2 is None:
        return f"no EAPOL-Key message 2 from {sta} on the air"
    answer = next((f for f in frames if f.number > msg2.number and
                   f.da == sta and f.eapol_msg), None)
    if answer is not None and answer.eapol_msg == 3:
        return (f"the AP answered message 2 (frame {msg2.number}) with "
                f"message 3 (frame {answer.number})")
    return None


def judge(facts: CellFacts) -> Verdict:
    test = wpa.wpa_test(facts, "wpa2-badkey")
    if isinstance(test, Verdict):
        return test
    problems: List[str] = []
    state = test.fact("wpa_state") or "-"
    if state == "COMPLETED" or test.fact("connect_ms") not in (None, "-"):
        problems.append(f"joined with a wrong passphrase (wpa_state "
                        f"{state})")
    reported = wpa.has_event(test, "4-Way Handshake failed") or \
        wpa.has_event(test, "reason=WRONG_KEY")
    if not reported:
        problems.append("the station reported no handshake failure")
    error = wpa.capture_error(facts.air)
    if error:
        return Verdict(ERROR, error) if not problems else \
            verdict(problems, "")
    assert facts.air is not None
    sta = wpa.station(facts)
    frames = wpa.network_frames(facts.air, sta)
    problem = message_2_problem(frames, sta)
    if problem:
        problems.append(problem)
    problems += wpa.unprotected(frames, sta, True)
    if not test.ok and not problems:
        problems.append(test.fact("error") or "the agent's test failed")
    reason = "reason=WRONG_KEY" if wpa.has_event(test, "reason=WRONG_KEY") \
        else "4-Way Handshake failed"
    return verdict(problems, f"message 2 not answered (MIC refused), the "
                             f"station reported {reason}, wpa_state "
                             f"{state}, no unprotected data sent")


CHECK = Check(
    name="wpa2-badkey", order=161,
    reads=("bind", "wpa2-badkey"),
    doc="a wrong passphrase fails at message 2's MIC; the station says so "
        "and sends nothing unprotected",
    devices=wpa.ROWS, judge=judge, params=params, needs_iface=True,
    air_capture=True, wpa2_network=True,
    kernel_modules=wpa.CCMP_MODULES, seconds=5)
