"""scan (rows joined with `iw`): `iw dev wlan0 scan` lists every AP of the
air on its channel's frequency, with the signal the air model gives it
(within 3 dB: the driver's RSSI arithmetic rounds); the hidden AP is
listed without its SSID."""
import re
from typing import Dict, List, Optional, Sequence

from .. import devices
from ..guest.air import ACCESS_POINTS
from ..report.ktap import KtapLog
from ..report.verdict import ERROR, Verdict
from .check import CellFacts, Check, GuestContext
from .facts import behind_refusal, compare, verdict

SIGNAL_TOLERANCE_DB = 3     # the driver's RSSI arithmetic rounds


def scan_results(lines: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """`iw dev <if> scan` output as BSSID -> {freq, signal, ssid}."""
    found: Dict[str, Dict[str, str]] = {}
    current: Optional[Dict[str, str]] = None
    for raw in lines:
        line = raw.strip()
        match = re.match(r"BSS ([0-9a-f:]{17})", line)
        if match:
            current = found.setdefault(match.group(1), {})
        elif current is not None and ":" in line:
            key, _, value = line.partition(":")
            if key in ("freq", "signal", "SSID"):
                current[key.lower()] = value.strip()
    return found


def judge_scan(log: KtapLog) -> Verdict:
    """Every AP on the air is listed, except that a hidden one shows no
    SSID, on its channel, with the signal level the air model gives it."""
    test = log.test("scan")
    if test is None:
        return Verdict(ERROR, "agent printed no scan result")
    found = scan_results(test.all("iw_scan"))
    problems: List[str] = []
    status = test.fact("iw_scan_status")
    if status not in (None, "0"):
        # iw itself failed: its first line says why (nl80211 not found:
        # the interface has no cfg80211 wiphy)
        out = [ln.strip() for ln in test.all("iw_scan") if ln.strip()]
        problems.append(f"iw scan exited {status}" +
                        (f": {out[0]}" if out else ""))
    for ap in ACCESS_POINTS:
        bss = found.get(ap.bssid)
        if bss is None:
            problems.append(f"{ap.bssid} ({ap.ssid}) not in the scan")
            continue
        compare(f"{ap.bssid} frequency", str(ap.freq_mhz),
                bss.get("freq", "").split(".")[0], problems)
        signal = (bss.get("signal") or "").split()
        try:
            dbm = float(signal[0])
        except (IndexError, ValueError):
            dbm = None
        if dbm is None or abs(dbm - ap.rssi_dbm) > SIGNAL_TOLERANCE_DB:
            problems.append(f"{ap.bssid} signal {bss.get('signal')!r}, the "
                            f"air gives {ap.rssi_dbm} dBm")
        want_ssid = "" if ap.hidden else ap.ssid
        ssid = bss.get("ssid", "")
        if ap.hidden and ssid == ap.ssid:
            problems.append(f"{ap.bssid}: hidden SSID revealed by the scan")
        elif not ap.hidden and ssid != want_ssid:
            problems.append(f"{ap.bssid} SSID {ssid!r}, want {want_ssid!r}")
    if not test.ok and not problems:
        problems.append(test.fact("error") or "scan failed")
    return verdict(problems, f"{len(ACCESS_POINTS)} APs listed with channel "
                             f"and signal (one hidden, SSID not shown)")


def judge(facts: CellFacts) -> Verdict:
    return behind_refusal(facts) or judge_scan(facts.log)


def params(ctx: GuestContext) -> Sequence[str]:
    return ["ndisbench.scan=1"]


CHECK = Check(
    name="scan", order=80,
    reads=("scan",),
    doc="iw scan lists every AP of the air with its channel and signal",
    devices=devices.RADIOS, judge=judge, params=params, needs_iface=True,
    seconds=5)
