"""roam (rows joined with `iw`): the agent prints `# roam_request: drop`,
the host removes the associated AP (QMP `object-del ap0`); the link must
drop, and come back on the other `ndisbench` AP (after `iw dev wlan0 scan
flush` and `iw connect`, as a supplicant would; on an interface with
wireless extensions only, `iwconfig wlan0 essid` again, the BSS read back
with SIOCGIWAP), with 10/10 pings through its slirp. The wrapper reports the change as a disconnect and a new
connect (not cfg80211_roamed), as NDIS 5.1 media indications carry no
more than that.

The drop must come within 30 s of host time."""
from typing import List, Sequence

from .. import devices
from ..guest.air import ROAM_FROM, ROAM_TO
from ..report.verdict import Verdict
from .check import QMP_ROAM, CellFacts, Check, GuestContext
from .facts import (HOTPLUG_PINGS, after_the_change, api_words, compare,
                    join_problem, link_bss, net_test, wireless_api)


def params(ctx: GuestContext) -> Sequence[str]:
    return ["ndisbench.roam=1"]


def judge(facts: CellFacts) -> Verdict:
    """The AP went away: link lost, then the station is associated to the
    other AP of the SSID and reaches the gateway through it."""
    test = net_test(facts, "roam")
    if isinstance(test, Verdict):
        return test
    iw_ssid = facts.iw_ssid
    problems: List[str] = []
    if test.fact("lost_ms") is None:
        problems.append(test.fact("error") or "the link never went down")
    joined = join_problem(test, iw_ssid) if iw_ssid else None
    if joined:
        problems.append(joined)
    bss = link_bss(test)
    compare("BSSID after the roam", ROAM_TO.bssid, bss["bssid"], problems)
    return after_the_change(
        "roam", test, problems, f"{ROAM_FROM.bssid} removed: link lost "
        f"after {test.fact('lost_ms')} ms, associated to {ROAM_TO.bssid} "
        f"after {test.fact('carrier_ms')} ms, {HOTPLUG_PINGS}/"
        f"{HOTPLUG_PINGS} pings{api_words(wireless_api(test))}")


CHECK = Check(
    name="roam", order=160,
    reads=("roam",),
    doc="the associated AP goes away: the station joins the other AP of "
        "the SSID",
    devices=devices.RADIOS, judge=judge, params=params, needs_iface=True,
    qmp=QMP_ROAM, seconds=20)
