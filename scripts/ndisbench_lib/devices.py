"""The device axis of the matrix: what QEMU adds to the guest, which
in-tree modules the guest loads for it, and which checks apply to it.

- `none`: a q35 guest without network hardware: the load and taint checks.
- `e1000`: QEMU's e1000 on the slirp user network: the reference NIC the
  network checks (and later the wrapped WLAN devices) are measured against.
"""
import dataclasses
from typing import Dict, List, Optional, Tuple

from .checks import MODULE_CHECKS, NET_CHECKS
from .errors import BenchError


@dataclasses.dataclass(frozen=True)
class Device:
    name: str
    description: str
    checks: Tuple[str, ...]
    qemu_args: Tuple[str, ...] = ()
    guest_modules: Tuple[str, ...] = ()     # in-tree, unless built in
    ifname: str = ""                        # interface the net checks use


DEVICES: Dict[str, Device] = {d.name: d for d in (
    Device("none", "no network device: module load and taint checks",
           MODULE_CHECKS),
    Device("e1000", "QEMU e1000 on -netdev user (slirp): reference NIC",
           NET_CHECKS,
           qemu_args=("-netdev", "user,id=net0", "-device",
                      "e1000,netdev=net0,mac=52:54:00:12:34:56"),
           guest_modules=("e1000",), ifname="eth0"),
)}


def select(names: Optional[List[str]]) -> List[Device]:
    if not names:
        return list(DEVICES.values())
    bad = [n for n in names if n not in DEVICES]
    if bad:
        raise BenchError(f"unknown device(s) {', '.join(bad)} (known: "
                         f"{', '.join(DEVICES)})")
    return [DEVICES[n] for n in names]
