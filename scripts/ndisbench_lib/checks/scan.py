"""scan (the WLAN rows): `iw dev wlan0 scan` (an interface with a cfg80211
wiphy) or `iwlist wlan0 scan` (one with wireless extensions only, the
agent's `wireless_api: wext`) lists every AP of the air on its channel's
frequency, with the signal the air model gives it (within 3 dB: the
driver's RSSI arithmetic rounds); the hidden AP is listed without its
SSID.

The judges of scan, associate and roam hold both wireless APIs to the
same facts; a verdict reached through wireless extensions says
"(wireless extensions)"."""
import re
from typing import Dict, List, Optional, Sequence

from .. import devices
from ..guest.air import ACCESS_POINTS
from ..report.ktap import KtapLog
from ..report.verdict import ERROR, Verdict
from .check import CellFacts, Check, GuestContext
from .facts import (WEXT, api_words, behind_refusal, compare, verdict,
                    wireless_api)

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


def channel_mhz(channel: int) -> int:
    return 2484 if channel == 14 else 2407 + 5 * channel


def iwlist_results(lines: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """`iwlist <if> scan` output as BSSID -> {freq (MHz), signal ("-40
    dBm"), ssid ("" where iwlist shows off/any/hidden)}."""
    found: Dict[str, Dict[str, str]] = {}
    current: Optional[Dict[str, str]] = None
    for raw in lines:
        line = raw.strip()
        cell = re.match(r"Cell \d+ - Address: ([0-9A-Fa-f:]{17})", line)
        freq = re.match(r"Frequency[:=]([\d.]+) GHz", line)
        channel = re.match(r"Channel[:=](\d+)$", line)
        signal = re.search(r"Signal level[:=](-?\d+) dBm", line)
        essid = re.match(r'ESSID:(?:"(.*)"|off/any/hidden)$', line)
        if cell:
            current = found.setdefault(cell.group(1).lower(), {})
        elif current is None:
            continue
        elif freq:
            current["freq"] = str(round(float(freq.group(1)) * 1000))
        elif channel and "freq" not in current:
            current["freq"] = str(channel_mhz(int(channel.group(1))))
        elif signal:
            current["signal"] = f"{signal.group(1)} dBm"
        elif essid:
            current["ssid"] = essid.group(1) or ""
    return found


def judge_scan(log: KtapLog) -> Verdict:
    """Every AP on the air is listed, except that a hidden one shows no
    SSID, on its channel, with the signal level the air model gives it."""
    test = log.test("scan")
    if test is None:
        return Verdict(ERROR, "agent printed no scan result")
    api = wireless_api(test)
    tool, key = ("iwlist scan", "iwlist_scan") if api == WEXT else \
        ("iw scan", "iw_scan")
    output = test.all(key)
    found = iwlist_results(output) if api == WEXT else scan_results(output)
    problems: List[str] = []
    status = test.fact(f"{key}_status")
    if status not in (None, "0"):
        # the tool itself failed: its first line says why (iw: nl80211
        # not found, no cfg80211 wiphy; iwlist: no scanning support)
        out = [ln.strip() for ln in output if ln.strip()]
        problems.append(f"{tool} exited {status}" +
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
                             f"and signal (one hidden, SSID not shown)"
                             f"{api_words(api)}")


def judge(facts: CellFacts) -> Verdict:
    return behind_refusal(facts) or judge_scan(facts.log)


def params(ctx: GuestContext) -> Sequence[str]:
    return ["ndisbench.scan=1"]


CHECK = Check(
    name="scan", order=80,
    reads=("scan",),
    doc="iw scan (or iwlist scan) lists every AP of the air with its "
        "channel and signal",
    devices=devices.RADIOS, judge=judge, params=params, needs_iface=True,
    seconds=5)
