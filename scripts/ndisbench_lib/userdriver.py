"""A user's own Windows driver (`run --driver PATH.inf`): its .inf read
on the host by the wrapper's installer's own parser (`ndisconf
--describe`: hardware ids, the install section of each, the .sys it
copies), the .sys beside it checked by the wrapper's loader as an amd64
native PE32+ image, and the hardware id mapped to the QEMU NIC that
answers to it. The result is a device row made at run time: the NIC's
QEMU arguments, the driver's files, the kernel driver to unbind, and the
matrix row whose checks it runs. Every problem is one BenchError line
naming the file; the caps on hostile files are the parser's
(wrapper/loader/inf.h)."""
import dataclasses
import pathlib
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import devices
from .build import hosttool
from .devices import Device
from .errors import BenchError

# The NICs the bench can emulate, by bus and id: the PCI and USB models of
# devices.MODELS, QEMU's stock Ethernet NICs (our QEMU build has them:
# qemu_build.BASE_DEVICES) and our two WLAN models.
@dataclasses.dataclass(frozen=True)
class Nic:
    name: str               # the device row's name (QEMU's for stock NICs)
    like: str               # the matrix row whose checks a driver on it runs
    qemu_args: Tuple[str, ...]
    unbind: str = ""        # the PCI id the kernel's own driver lets go of
    native_first: str = ""  # that driver, loaded first where the kernel has it
    reference: str = ""     # the matrix row of its in-tree driver, if any
    ifname: str = "eth0"
    guest_modules: Tuple[str, ...] = ()
    own_qemu: bool = False
    connect_ssid: str = ""


_WIRED_LIKE = devices.WIRED_WRAPPED[0]


def _reference(model: devices.Model) -> str:
    """The matrix row of the model's in-tree driver, if the matrix has
    one (e1000: the reference NIC itself)."""
    for dev in devices.TARGETS:
        if dev.model == model.qemu and dev.wrapper in ("native", "") and \
                not dev.variant:
            return dev.label
    return ""


def _nic(model: devices.Model, device_id: str) -> Nic:
    """The NIC a driver for this id runs on: a stock one on slirp like the
    wired rows, our radios as their plain ndiswrapper row has them."""
    if not model.own:
        # its driver loaded first only where a matrix row wraps it too
        wrapped = devices.DEVICES.get(f"{model.row}/ndiswrapper")
        return Nic(model.row, _WIRED_LIKE,
                   devices.wired_args(model, model.user_mac),
                   unbind=model.ids[0],
                   native_first=wrapped.native_first if wrapped else "",
                   reference=_reference(model))
    like = devices.DEVICES[f"{model.row}/ndiswrapper"]
    args = like.qemu_args
    if device_id != model.ids[0]:
        # the model answers to the other ids through its device-id
        dev = device_id.split(":")[1]
        args = tuple(a.replace(f"{model.qemu},",
                               f"{model.qemu},device-id=0x{dev},")
                     if a.startswith(f"{model.qemu},") else a for a in args)
    return Nic(model.row, like.label, args, ifname=like.ifname,
               guest_modules=like.guest_modules, own_qemu=True,
               connect_ssid=like.connect_ssid)


def nics(models: Sequence[devices.Model]
         ) -> Dict[Tuple[str, str, str], Nic]:
    """(bus, vendor, device) -> the NIC a driver for that id runs on. An
    id two models answer to (a subtype of ours with another default id)
    stays with the first in MODELS' order: a new model does not move it."""
    out: Dict[Tuple[str, str, str], Nic] = {}
    for model in models:
        if model.bus not in ("pci", "usb"):
            continue
        for device_id in model.ids:
            key = (model.bus, *device_id.split(":"))
            if key not in out:
                out[key] = _nic(model, device_id)
    return out


NICS = nics(devices.MODELS)

IMAGE_FILE_MACHINE_AMD64 = 0x8664


def _beside(folder: pathlib.Path, name: str) -> Optional[pathlib.Path]:
    """A file of the .inf's folder, by name in any case."""
    want = name.lower()
    return next((p for p in sorted(folder.iterdir())
                 if p.name.lower() == want and p.is_file()), None)


def check_sys(path: pathlib.Path) -> None:
    """An amd64 native PE32+ image the wrapper's loader accepts whole
    (headers, mapping, relocation, import table): its refusals are the
    loader's, one line naming the file."""
    found = hosttool.describe(path)
    if found.get("format") != "sys":
        raise BenchError(f"{path}: not described as a .sys")
    machine = found["machine"]
    if machine != IMAGE_FILE_MACHINE_AMD64:
        raise BenchError(f"{path}: not an amd64 PE32+ driver (machine "
                         f"{machine:#06x}, {found['pe']}); the wrapper "
                         f"loads x86-64 drivers")


def _emulated(ids: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The ids of an .inf's description, each (bus, vendor, device)
    once, in order."""
    seen = set()
    out = []
    for ident in ids:
        key = (ident["bus"], ident["vendor"], ident["device"])
        if key not in seen:
            seen.add(key)
            out.append(ident)
    return out


# What `run --driver` runs without --check.
CHECKS = ("load", "install", "bind", "dhcp", "ping", "tcp")


def device(inf: pathlib.Path) -> Device:
    """The device row that runs the driver of `inf` on its NIC."""
    if inf.suffix.lower() != ".inf" or not inf.stem:
        raise BenchError(f"{inf}: --driver takes the driver's .inf file")
    # the installer's reading: hardware ids, install sections, files
    described = hosttool.describe(inf)["ids"]
    ids = _emulated(described)
    usable = [(i, NICS[(i["bus"], i["vendor"], i["device"])]) for i in ids
              if (i["bus"], i["vendor"], i["device"]) in NICS]
    if not usable:
        named = ", ".join(f"{i['bus']}:{i['vendor']}:{i['device']}"
                          for i in ids)
        known = ", ".join(f"{v}:{d} ({n.name})"
                          for (_, v, d), n in NICS.items())
        raise BenchError(f"{inf}: no hardware id the bench can emulate "
                         f"({named}; known: {known})")
    ident, nic = usable[0]
    bus, vendor, dev = ident["bus"], ident["vendor"], ident["device"]
    # every id's files, as the installer copies them all
    names = list(dict.fromkeys(name for i in [ident] + described
                               for name in i["files"]))
    files = [(inf.name, str(inf.resolve()))]
    for name in names:
        found = _beside(inf.parent, name)
        if found is None:
            raise BenchError(f"{inf}: its driver file {name} is not beside "
                             f"it in {inf.parent}")
        check_sys(found)
        files.append((name.lower(), str(found.resolve())))
    driver = inf.stem.lower()
    if not re.fullmatch(r"[a-z0-9][a-z0-9._+-]*", driver):
        raise BenchError(f"{inf}: driver name '{driver}' has characters "
                         f"the installer refuses")
    return Device(f"{driver}@{nic.name}", f"{driver} ({inf.name}) on "
                  f"{nic.name}, "
                  f"{bus.upper()} {vendor}:{dev}", wrapper="ndiswrapper",
                  qemu_args=nic.qemu_args, guest_modules=nic.guest_modules,
                  ifname=nic.ifname, own_qemu=nic.own_qemu, fixture=driver,
                  connect_ssid=nic.connect_ssid, unbind=nic.unbind,
                  native_first=nic.native_first,
                  driver_files=tuple(files), like=nic.like)


def reference(row: Device) -> Optional[Device]:
    """The in-tree driver's row on the same NIC, run beside a user's
    driver."""
    for nic in NICS.values():
        if row.name.endswith(f"@{nic.name}") and nic.reference:
            return devices.DEVICES[nic.reference]
    return None
