"""What the two axes expand to, as plain JSON data: every kernel row with
every field that reaches a cache key or a command line, every device row
with its QEMU arguments, ids and groups, the user-driver NIC map and the
fuzz configs. tests/unit/data/axes-*.json hold it as main had it before
the axes became tables (core/test_axes_snapshot.py compares); regenerate only
on purpose: python3 tests/unit/axes_snapshot.py."""
import dataclasses
import json
import pathlib
import sys
from typing import Any, Dict, List

from helpers import REPO
from ndisbench_lib import devices, kernels, userdriver
from ndisbench_lib.commands import fuzz as fuzz_cmd

DATA = pathlib.Path(__file__).resolve().parent / "data"
KERNELS_JSON = DATA / "axes-kernels.json"
DEVICES_JSON = DATA / "axes-devices.json"
# The group tuples the checks name (checks/*.py `devices`).
GROUPS = ("BARE", "REFERENCE_NIC", "WRAPPED", "NATIVE", "RADIOS",
          "UNPLUGGABLE", "HUNG", "SERIAL", "FAULTY_WRAPPED", "FAULTY",
          "WIRED_WRAPPED", "WIRED_NATIVE", "WIRED", "RESOURCES",
          "TXLOST", "OFFLOAD", "SEND_RULES")


def _plain(value: Any) -> Any:
    if isinstance(value, pathlib.Path):
        return str(value.relative_to(REPO))
    if isinstance(value, kernels.Policy):
        return value.name
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def kernel_rows() -> List[Dict[str, Any]]:
    return [{f.name: _plain(getattr(k, f.name))
             for f in dataclasses.fields(k)}
            for k in kernels.load_kernels()]


def device_rows() -> Dict[str, Any]:
    rows = []
    for d in devices.TARGETS:
        row = {f.name: _plain(getattr(d, f.name))
               for f in dataclasses.fields(d)}
        row.update(label=d.label, usb_id=d.usb_id, mac=d.mac)
        rows.append(row)
    nics = [{"bus": bus, "vendor": ven, "device": dev,
             **{f.name: _plain(getattr(n, f.name))
                for f in dataclasses.fields(n)}}
            for (bus, ven, dev), n in userdriver.NICS.items()]
    fuzz = [{"name": c.name, "args": c.args, "objects": c.objects,
             "max_len": c.max_len} for c in fuzz_cmd.QEMU_CONFIGS]
    return {"rows": rows,
            "groups": {g: list(getattr(devices, g)) for g in GROUPS},
            "wext_row": devices.WEXT_ROW,
            "names": list(devices.NAMES),
            "usb_ids": dict(devices.USB_IDS),
            "nics": nics, "fuzz_configs": fuzz}


def main() -> None:
    DATA.mkdir(exist_ok=True)
    KERNELS_JSON.write_text(json.dumps(kernel_rows(), indent=1) + "\n")
    DEVICES_JSON.write_text(json.dumps(device_rows(), indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
