"""capture (WLAN rows): the medium writes every frame to the cell's
air.pcap (radiotap, LINKTYPE 127, timestamps from the virtual clock);
tshark reads it back (guest/capture.py): no expert warning beyond TCP's
own flow analysis (no malformed frame, nothing cut short), and the
station's beacon, probe request/response, authentication both ways,
association request/response (status 0) and data both ways in that order
(a probe request is optional, since a passive scan learns the BSS from
beacons, but must be answered when sent), whichever wireless API the
agent joined through (the summary says "(wireless extensions)" for
iwconfig's). The capture is then kept as air.pcap.gz.

Wireshark opens the kept capture as it is."""
from .. import devices
from ..guest.capture import sequence_problems
from ..report.verdict import ERROR, FAIL, Verdict
from .check import CellFacts, Check
from .facts import (NL80211, api_words, behind_refusal, iface_test,
                    verdict, wireless_api)


def judge(facts: CellFacts) -> Verdict:
    first = behind_refusal(facts)
    if first:
        return first
    air = facts.air
    if air is None or air.error:
        return Verdict(ERROR, air.error if air else "no capture read")
    iface = iface_test(facts.log)
    station = iface.fact("mac") if iface else None
    if not station:
        return Verdict(FAIL, "no interface, so no station to follow")
    problems = list(air.file_problems)
    problems += sequence_problems(list(air.frames), station,
                                  str(facts.exp.network["ap_bssid"]))
    link = facts.log.test("associate")
    api = wireless_api(link) if link else NL80211
    return verdict(problems, f"{len(air.frames)} frames, no warnings: "
                             f"beacon, probe, auth, assoc, data in order "
                             f"({air.path}){api_words(api)}")


CHECK = Check(
    name="capture", order=140,
    reads=("bind", "associate"),
    doc="the air's pcap reads clean and shows the station's join in order",
    devices=devices.RADIOS, judge=judge, needs_iface=True, air_capture=True,
    seconds=1)
