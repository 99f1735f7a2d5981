"""What the WPA2 checks (wpa2, wpa2-badkey, rekey) share: the agent's
words for the network, the supplicant's state as the agent reports it
(wpa_supplicant's STATUS and the events of its control socket), and the
air capture read with the network's passphrase (guest/capture.py
read_tshark_wpa: every data frame, decrypted where tshark could).

The checks run where the station can take the keys: the native rtl8187
row (mac80211, `wpa_supplicant -Dnl80211`), and our wrapper's rows whose
fixture does WPA2-PSK (WPA2_FIXTURES): with a wiphy through the wrapper's
cfg80211 (-Dnl80211), on the wiphy=0 row through its wireless extensions
(-Dwext). The wrapper maps the keys onto OID_802_11_ADD_KEY and the other
key OIDs; rtlwl.sys does CCMP in the driver, bcmwl.sys in the chip (the
bcm43xx model's key table), where each lived on real hardware. A user's
wrapper tree (--wrapper-src)
gets the driver interface its interface asks: the agent picks nl80211
where there is a wiphy, wext where not, as scan and associate do."""
from typing import List, Optional, Sequence, Union

from .. import devices
from ..devices import Device
from ..guest.air import WPA2_AP
from ..guest.capture import AirCapture, DataFrame
from ..report.ktap import KtapTest
from ..report.verdict import NOT_RUN, Verdict
from .check import CellFacts, GuestContext
from .facts import compare, iface_test, net_test

# The fixtures that do WPA2-PSK (CCMP in the driver or the device).
WPA2_FIXTURES = ("rtlwl", "bcmwl")
ROWS = devices.NATIVE + devices.group(
    lambda d: d.label in devices.WRAPPED and d.fixture in WPA2_FIXTURES)
# mac80211 asks the crypto API for ccm(aes) when a CCMP key is installed;
# Debian builds the ccm and ctr templates as modules, and 5.10 the AES
# cipher too (aes_generic; 6.1 builds it in).
CCMP_MODULES = ("aes_generic", "ctr", "ccm")
# The agent's choice by the interface: nl80211 with a wiphy, else wext.
NL80211, WEXT, AUTO = "nl80211", "wext", "auto"
# From association to CTRL-EVENT-CONNECTED (the 4-way handshake), guest
# time; the handshake is four frames and two key derivations.
HANDSHAKE_BOUND_MS = 10000
BROADCAST = "ff:ff:ff:ff:ff:ff"


def supplicant_driver(device: Device, users_wrapper: bool = False) -> str:
    """wpa_supplicant's driver interface for the row: nl80211 where the
    station has a cfg80211 wiphy (mac80211's rows, our wrapper's by
    default), the wireless extensions on our wrapper's wiphy=0 row; for a
    user's wrapper tree, the agent's choice by the interface (auto)."""
    if users_wrapper and device.wrapper == "ndiswrapper":
        return AUTO
    return WEXT if device.variant == "wext" else NL80211


def network_words(ctx: GuestContext) -> str:
    """The start of each WPA2 parameter: <driver>:<ssid>."""
    return f"{supplicant_driver(ctx.device, ctx.users_wrapper)}:" \
        f"{WPA2_AP.ssid}"


def station(facts: CellFacts) -> str:
    iface = iface_test(facts.log)
    return (iface.fact("mac") or "").lower() if iface else ""


def events(test: KtapTest) -> List[str]:
    return list(test.all("wpa_event"))


def has_event(test: KtapTest, text: str) -> Optional[str]:
    return next((e for e in events(test) if text in e), None)


def status_problems(test: KtapTest, problems: List[str]) -> None:
    """STATUS after the join: WPA2-PSK with CCMP both ways, on our AP."""
    for key, want in (("wpa_state", "COMPLETED"), ("key_mgmt", "WPA2-PSK"),
                      ("pairwise_cipher", "CCMP"), ("group_cipher", "CCMP")):
        got = test.fact(key)
        if got != want:
            problems.append(f"{key} {got or '-'}, want {want}")
    bssid = (test.fact("wpa_bssid") or "-").lower()
    if bssid != WPA2_AP.bssid:
        problems.append(f"BSSID {bssid}, want {WPA2_AP.bssid}")


def cannot_run(facts: CellFacts) -> Optional[Verdict]:
    """NOT_RUN where the guest cannot run Debian's wpa_supplicant: a
    32-bit kernel without CONFIG_COMPAT_32BIT_TIME has no 32-bit futex
    call, which i386 glibc 2.36 makes (it aborts: "The futex facility
    returned an unexpected error code"). Our i386 source kernels' config
    (tinyconfig based) leaves it out."""
    config = facts.config or {}
    if config.get("CONFIG_X86_32") == "y" and \
            config.get("CONFIG_COMPAT_32BIT_TIME") != "y":
        return Verdict(NOT_RUN, "the kernel has no CONFIG_COMPAT_32BIT_TIME:"
                                " i386 wpa_supplicant (glibc 2.36) needs the "
                                "32-bit futex call")
    return None


def wpa_test(facts: CellFacts, name: str) -> Union[KtapTest, Verdict]:
    """A WPA2 check's agent test, or the verdict that comes first: not
    run where the guest cannot run wpa_supplicant (cannot_run), else
    net_test's."""
    return cannot_run(facts) or net_test(facts, name)


def capture_error(air: Optional[AirCapture]) -> Optional[str]:
    if air is None:
        return "no capture read"
    if air.error:
        return air.error
    if air.wpa_problems:
        return f"tshark with the passphrase: {air.wpa_problems[0]}"
    return None


def network_frames(air: AirCapture, sta: str) -> List[DataFrame]:
    """The WPA2 network's data frames to or from the station."""
    return [f for f in air.wpa_frames if f.bssid == WPA2_AP.bssid and
            sta in (f.sa, f.da)]


def unprotected(frames: Sequence[DataFrame], sta: str, from_station: bool
                ) -> List[str]:
    """Data frames without the Protected bit that are not EAPOL (the
    handshake's own frames go out before there is a key)."""
    return [f"frame {f.number} ({f.sa} -> {f.da}) has no Protected bit"
            for f in frames if not f.protected and not f.eapol and
            f.subtype in (0x20, 0x28) and
            (f.sa == sta or not from_station)]


def decrypted_problems(frames: Sequence[DataFrame]) -> List[str]:
    """tshark, given the passphrase, found DHCP, ICMP and TCP inside the
    protected frames."""
    return [f"tshark found no decrypted {proto.upper()} in the "
            f"{WPA2_AP.ssid} network's protected frames"
            for proto in ("dhcp", "icmp", "tcp")
            if not any(f.protected and proto in f.layers for f in frames)]


def stream_problems(facts: CellFacts, check: str, test: KtapTest,
                    want: int, problems: List[str]) -> None:
    """Every byte of the stream sent and counted by the host's sink."""
    compare("bytes sent", str(want), test.fact("bytes_sent"), problems)
    got = facts.sinks.get(check)
    if got != want:
        problems.append(f"bytes at the sink: expected {want}, got {got}")
