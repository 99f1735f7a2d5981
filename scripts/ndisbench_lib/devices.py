"""The device axis of the matrix: what QEMU adds to the guest.

Only `none` exists so far: a q35 guest with no WLAN hardware, enough for
the load and taint checks. The emulated WLAN devices join this table when
their QEMU models land.
"""
import dataclasses
from typing import Dict, List, Optional, Tuple

from .errors import BenchError


@dataclasses.dataclass(frozen=True)
class Device:
    name: str
    description: str
    qemu_args: Tuple[str, ...] = ()


DEVICES: Dict[str, Device] = {
    "none": Device("none", "no WLAN device (load and taint checks only)"),
}


def select(names: Optional[List[str]]) -> List[Device]:
    if not names:
        return list(DEVICES.values())
    bad = [n for n in names if n not in DEVICES]
    if bad:
        raise BenchError(f"unknown device(s) {', '.join(bad)} (known: "
                         f"{', '.join(DEVICES)})")
    return [DEVICES[n] for n in names]
