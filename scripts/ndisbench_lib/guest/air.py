"""The emulated air of the WLAN rows: which access points QEMU puts on it
(wlan-ap objects on one wlan-air) and what a scan must therefore find.

The first AP is the one the drivers join (the strongest of its SSID): it is
bridged to slirp and its SSID/BSSID/channel are the expectation table's
ap_* values (a unit test keeps them equal). The last has the same SSID,
a weaker signal and its own slirp: the roam check removes the first and
the station must move there. The others have no uplink: one on another
channel with a weaker signal, one hidden (empty SSID in its beacons, silent
to wildcard probe requests). None of them is encrypted.

The WPA2 checks add one more AP (WPA2_AP: WPA2-PSK with its passphrase,
its own SSID and slirp), and only to their own cells: every other cell's
QEMU command, and so the key of its saved boot, stays as it was.
"""
import dataclasses
from typing import List, Tuple


@dataclasses.dataclass(frozen=True)
class AccessPoint:
    ident: str
    ssid: str
    bssid: str
    channel: int
    rssi_dbm: int
    hidden: bool = False
    uplink: str = ""                # id of the -netdev user it bridges to
    passphrase: str = ""            # WPA2-PSK when set; "": open
    group_rekey_s: int = 0          # a new group key this often; 0: never

    @property
    def freq_mhz(self) -> int:
        return 2484 if self.channel == 14 else 2407 + 5 * self.channel

    def qemu_object(self) -> str:
        opts = [f"wlan-ap,id={self.ident},air=air0", f"ssid={self.ssid}",
                f"bssid={self.bssid}", f"channel={self.channel}",
                f"rssi={self.rssi_dbm}"]
        if self.uplink:
            opts.append(f"netdev={self.uplink}")
        if self.hidden:
            opts.append("hidden=on")
        if self.passphrase:
            opts.append(f"passphrase={self.passphrase}")
        if self.group_rekey_s:
            opts.append(f"group-rekey={self.group_rekey_s}")
        return ",".join(opts)


ACCESS_POINTS: Tuple[AccessPoint, ...] = (
    AccessPoint("ap0", "ndisbench", "02:00:00:00:01:00", 6, -40,
                uplink="net0"),
    AccessPoint("ap1", "ndisbench-far", "02:00:00:00:02:00", 1, -70),
    AccessPoint("ap2", "ndisbench-hidden", "02:00:00:00:03:00", 11, -55,
                hidden=True),
    AccessPoint("ap3", "ndisbench", "02:00:00:00:04:00", 11, -60,
                uplink="net1"),
)
# The roam check removes this AP (QMP object-del) ...
ROAM_FROM = ACCESS_POINTS[0]
# ... and the station must reassociate here.
ROAM_TO = ACCESS_POINTS[3]


# The medium's capture option: "{cell}" is the cell folder; the runner
# fills it in, or drops the option where no check reads the capture. The
# capture is read after the guest: its records are written in batches at
# most 200 ms of host time apart (a stream through the air otherwise pays
# a write per frame, inside the guest's doorbell).
PCAP_OPTION = ",pcap={cell}/air.pcap,pcap-flush-ms=200"
# wlan-air's pcap-max default: past it the capture stops (whole records
# only), so a file within one record of its cap may have lost frames: a
# record is at most its 16-byte header, the radiotap header (under 64
# bytes) and WLAN_MAX_FRAME (2346).
PCAP_MAX = 64 << 20
PCAP_RECORD_MAX = 16 + 64 + 2346


def qemu_args() -> Tuple[str, ...]:
    """The air (captured), slirp and the APs."""
    args: List[str] = ["-object", "wlan-air,id=air0" + PCAP_OPTION]
    for ap in ACCESS_POINTS:
        if ap.uplink:
            args += ["-netdev", f"user,id={ap.uplink}"]
    for ap in ACCESS_POINTS:
        args += ["-object", ap.qemu_object()]
    return tuple(args)


# The WPA2-PSK network of the wpa2 checks: the station joins it with
# wpa_supplicant and the passphrase; tshark decrypts the air's capture
# with the same passphrase and SSID. Neither has a ':' or a space (the
# agent's parameter separates with ':').
WPA2_AP = AccessPoint("ap4", "ndisbench-wpa2", "02:00:00:00:05:00", 6, -45,
                      uplink="net2", passphrase="ndisbench-wpa2-secret",
                      group_rekey_s=1)


def wpa2_qemu_args() -> Tuple[str, ...]:
    """The WPA2 AP and its slirp, after the air (qemu_args) they join."""
    assert WPA2_AP.uplink
    return ("-netdev", f"user,id={WPA2_AP.uplink}",
            "-object", WPA2_AP.qemu_object())
