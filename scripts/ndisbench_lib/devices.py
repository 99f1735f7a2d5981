"""The device axis of the matrix: what QEMU adds to the guest, which
in-tree modules the guest loads for it, and which checks apply to it.

- `none`: a q35 guest without network hardware: the load and taint checks.
- `e1000`: QEMU's e1000 on the slirp user network: the reference NIC the
  network checks (and the wrapped WLAN devices) are measured against.
- `bcm43xx`: our Broadcom-class PCI WLAN model on an emulated air with an
  access point bridged to slirp, driven by the bcmwl fixture driver through
  ndiswrapper: the whole chain from `ndiswrapper -i` to TCP.
"""
import dataclasses
from typing import Dict, List, Optional, Tuple

from .checks import MODULE_CHECKS, NET_CHECKS, WRAPPER_CHECKS
from .errors import BenchError


@dataclasses.dataclass(frozen=True)
class Device:
    name: str
    description: str
    checks: Tuple[str, ...]
    qemu_args: Tuple[str, ...] = ()
    guest_modules: Tuple[str, ...] = ()     # in-tree, unless built in
    ifname: str = ""                        # interface the net checks use
    own_qemu: bool = False                  # needs our QEMU build
    fixture: str = ""                       # Windows driver it is wrapped with
    default: bool = True                    # in the matrix without --device


DEVICES: Dict[str, Device] = {d.name: d for d in (
    Device("none", "no network device: module load and taint checks",
           MODULE_CHECKS),
    Device("e1000", "QEMU e1000 on -netdev user (slirp): reference NIC",
           NET_CHECKS,
           qemu_args=("-netdev", "user,id=net0", "-device",
                      "e1000,netdev=net0,mac=52:54:00:12:34:56"),
           guest_modules=("e1000",), ifname="eth0"),
    Device("bcm43xx", "our PCI WLAN model + AP on the air, wrapped: bcmwl.sys "
           "in ndiswrapper", ("load",) + WRAPPER_CHECKS + NET_CHECKS,
           qemu_args=("-object", "wlan-air,id=air0",
                      "-netdev", "user,id=net0",
                      "-object", "wlan-ap,id=ap0,air=air0,netdev=net0,"
                      "ssid=ndisbench,bssid=02:00:00:00:01:00,channel=6",
                      "-device", "bcm43xx,air=air0,mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwl"),
)}


def select(names: Optional[List[str]]) -> List[Device]:
    if not names:
        return [d for d in DEVICES.values() if d.default]
    bad = [n for n in names if n not in DEVICES]
    if bad:
        raise BenchError(f"unknown device(s) {', '.join(bad)} (known: "
                         f"{', '.join(DEVICES)})")
    return [DEVICES[n] for n in names]
