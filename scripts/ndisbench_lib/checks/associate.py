"""associate: the driver reports the AP's BSSID (and SSID). Rows the agent
joins need the join itself to have succeeded (a link the driver made on
its own does not count): `iw connect` on an interface with a cfg80211
wiphy, `iwconfig essid` on one with wireless extensions only (the agent's
`wireless_api: wext`, where SIOCGIWAP and SIOCGIWESSID give the BSS).
iwconfig (wireless-tools: the wireless extensions an iwconfig-era user
has) must show the same ESSID and Access Point: always on the wext way;
with a wiphy where the kernel has CONFIG_CFG80211_WEXT (the Debian
kernels), else "no wireless extensions" (the source kernels before they
had it). Native rows read the BSS from `iw dev wlan0 link`."""
from typing import Dict, List, Optional

from .. import devices
from ..report.ktap import KtapTest
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .facts import (WEXT, api_words, compare, iface_first, join_problem,
                    join_words, link_bss, verdict, wireless_api)


def wext_problem(test: KtapTest, config: Dict[str, str], ssid: str,
                 bssid: str) -> Optional[str]:
    """iwconfig on the joined link: the ESSID and AP where the driver has
    wireless extensions of its own or the kernel has cfg80211's
    emulation, a plain refusal where neither."""
    lines = test.all("iwconfig")
    text = " ".join(line.strip() for line in lines)
    if not lines:
        return "agent printed no iwconfig output"
    if (wireless_api(test) != WEXT and
            config.get("CONFIG_CFG80211_WEXT") != "y"):
        if "no wireless extensions" not in text:
            return (f"iwconfig answered without CONFIG_CFG80211_WEXT: "
                    f"{text}")
        return None
    if f'ESSID:"{ssid}"' not in text:
        return f'iwconfig shows no ESSID:"{ssid}": {text}'
    if f"ACCESS POINT: {bssid.upper()}" not in text.upper():
        return f"iwconfig shows no Access Point: {bssid}: {text}"
    return None


def judge(facts: CellFacts) -> Verdict:
    first = iface_first(facts, need_link=True)
    if first:
        return first
    net, iw_ssid, config = facts.exp.network, facts.iw_ssid, facts.config
    link = facts.log.test("associate")
    assert link is not None
    problems: List[str] = []
    bss = link_bss(link)
    compare("BSSID the driver reports", net["ap_bssid"], bss["bssid"],
            problems)
    if bss["ssid"] is not None:
        compare("SSID the driver reports", net["ap_ssid"], bss["ssid"],
                problems)
    api = wireless_api(link)
    joined = join_problem(link, iw_ssid) if iw_ssid else None
    if joined:
        problems.append(joined)
    # The wext way is iwconfig's own: it is judged whatever the kernel
    # has of cfg80211's emulation (and whether its .config was read).
    if iw_ssid and (config is not None or api == WEXT):
        wext = wext_problem(link, config or {}, str(net["ap_ssid"]),
                            str(net["ap_bssid"]))
        if wext:
            problems.append(wext)
    how = f" with {join_words(api, iw_ssid)}" if iw_ssid else ""
    if iw_ssid and config is not None and api != WEXT:
        how += (", iwconfig agrees" if config.get("CONFIG_CFG80211_WEXT")
                == "y" else ", no wireless extensions here")
    return verdict(problems, f"associated to {net['ap_bssid']} "
                             f"({net['ap_ssid']}) in "
                             f"{link.fact('carrier_ms')} ms{how}"
                             f"{api_words(api)}")


CHECK = Check(
    name="associate", order=90,
    reads=("associate",),
    doc="the driver reports the AP's BSSID and SSID; iw connect (or "
        "iwconfig essid) and iwconfig agree",
    devices=devices.RADIOS + devices.FAULTY, judge=judge, needs_iface=True,
    seconds=5)
