"""wpa2 (rows whose station takes WPA2 keys: rtl8187/native): after the
open network's tests the agent leaves that BSS and joins the air's WPA2-PSK
network (`ndisbench-wpa2`, its own AP and slirp) with Debian's
wpa_supplicant (`-Dnl80211`; a config of the SSID, the passphrase,
WPA-PSK over RSN, CCMP pairwise and group). The 4-way handshake completes
within 10 s of the association, the station reports the keys installed
(`Key negotiation completed ... [PTK=CCMP GTK=CCMP]`) and STATUS says
COMPLETED, WPA2-PSK, CCMP/CCMP, on the AP's BSSID; then a DHCP lease,
20/20 echoes to the gateway and the cell's TCP stream (the tcp check's
size: the table's 4 MiB, the bench's 64) whose every byte the host's sink
counts, over the protected link. On the air: every data frame
of the network to or from the station but the handshake's EAPOL ones has
the Protected bit, and tshark, given the passphrase and SSID, decrypts
the capture and finds the DHCP, ICMP and TCP traffic in the protected
frames."""
from typing import List, Sequence

from ..guest.air import WPA2_AP
from ..report.verdict import ERROR, Verdict
from .check import STREAM, CellFacts, Check, GuestContext
from .facts import compare, to_int, verdict
from . import wpa

PINGS = 20                      # the agent's WPA2_PINGS


def params(ctx: GuestContext) -> Sequence[str]:
    return [f"ndisbench.wpa2={wpa.network_words(ctx)}:"
            f"{WPA2_AP.passphrase}:{ctx.port}:"
            f"{ctx.tcp_bytes or int(ctx.exp.network['tcp_bytes'])}"]


def judge(facts: CellFacts) -> Verdict:
    test = wpa.wpa_test(facts, "wpa2")
    if isinstance(test, Verdict):
        return test
    problems: List[str] = []
    handshake = to_int(test.fact("handshake_ms"))
    if handshake is None:
        problems.append("the 4-way handshake never completed "
                        f"({test.fact('error') or 'no CTRL-EVENT-CONNECTED'})")
    elif handshake > wpa.HANDSHAKE_BOUND_MS:
        problems.append(f"handshake took {handshake} ms, the bound is "
                        f"{wpa.HANDSHAKE_BOUND_MS} ms")
    if not wpa.has_event(test, "Key negotiation completed"):
        problems.append("no 'Key negotiation completed' (PTK and GTK "
                        "installed)")
    wpa.status_problems(test, problems)
    compare("address", facts.address, test.fact("address"), problems)
    compare("echo replies", PINGS, to_int(test.fact("received")), problems)
    wpa.stream_problems(facts, "wpa2", test, facts.stream_bytes, problems)
    if not test.ok and not problems:
        problems.append(test.fact("error") or "the agent's wpa2 test failed")
    error = wpa.capture_error(facts.air)
    if error:
        return Verdict(ERROR, error) if not problems else \
            verdict(problems, "")
    assert facts.air is not None
    frames = wpa.network_frames(facts.air, wpa.station(facts))
    problems += wpa.unprotected(frames, wpa.station(facts), False)
    problems += wpa.decrypted_problems(frames)
    return verdict(problems, f"wpa_supplicant -D{test.fact('wpa_driver')}, "
                             f"handshake {handshake} ms, CCMP/CCMP, "
                             f"{PINGS}/{PINGS} pings and {facts.stream_bytes} TCP "
                             f"bytes over the protected link; every data "
                             f"frame protected; tshark decrypted DHCP, ICMP "
                             f"and TCP")


CHECK = Check(
    name="wpa2", order=162,
    reads=("bind", "wpa2"),
    doc="wpa_supplicant joins the WPA2-PSK AP; dhcp, ping, tcp over it; "
        "tshark decrypts the capture",
    devices=wpa.ROWS, judge=judge, params=params, needs_iface=True,
    sink=STREAM, air_capture=True, wpa2_network=True,
    kernel_modules=wpa.CCMP_MODULES, seconds=5)
