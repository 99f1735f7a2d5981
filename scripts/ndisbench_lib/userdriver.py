"""A user's own Windows driver (`run --driver PATH.inf`): its .inf read
on the host by the wrapper's installer's own parser (`ndisconf
--describe`: hardware ids, the install section of each, the .sys it
copies), the .sys beside it checked by the wrapper's loader as a native
image of the guests' architecture (PE32+ for amd64 kernels from the
NTamd64 models, PE32 for i386 ones from NTx86), and the hardware id
mapped to the QEMU NIC that answers to it. What its imports say is the
installer's one line: an NDIS 6 miniport, or imports this tree's wrapper
does not export (not judged for a --wrapper-src tree, whose module has
tables of its own). The result is a device row made at run time: the
NIC's QEMU arguments, the driver's files, the kernel driver to unbind,
and the matrix row whose checks it runs. Every problem is one BenchError
line naming the file; the caps on hostile files are the parser's
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
IMAGE_FILE_MACHINE_I386 = 0x014C


@dataclasses.dataclass(frozen=True)
class GuestArch:
    """What a guest architecture's wrapper loads (kernels.ARCHES)."""
    machine: int
    image: str          # its PE kind, as describe's "pe" says it
    decoration: str     # the .inf models its installer reads
    loads: str          # "the wrapper loads ..."


GUEST_ARCHES: Dict[str, GuestArch] = {
    "amd64": GuestArch(IMAGE_FILE_MACHINE_AMD64, "amd64 PE32+", "NTamd64",
                       "x86-64 drivers"),
    "i386": GuestArch(IMAGE_FILE_MACHINE_I386, "i386 PE32", "NTx86",
                      "i386 drivers in an i386 guest"),
}


def _beside(folder: pathlib.Path, name: str) -> Optional[pathlib.Path]:
    """A file of the .inf's folder, by name in any case."""
    want = name.lower()
    return next((p for p in sorted(folder.iterdir())
                 if p.name.lower() == want and p.is_file()), None)


def _kernels(names: Sequence[str]) -> str:
    """" (kernels a, b)" for a message, or nothing."""
    if not names:
        return ""
    return f" (kernel{'s' if len(names) > 1 else ''} {', '.join(names)})"


def check_sys(path: pathlib.Path, arch: str = "amd64",
              kernels: Sequence[str] = (), own_wrapper: bool = True) -> None:
    """A native image of the guest architecture arch (of the kernels
    named) that the wrapper's loader accepts whole (headers, mapping,
    relocation, import table), not an NDIS 6 miniport, and, for this
    tree's wrapper (own_wrapper), with no import it lacks: each refusal
    one line naming the file (the loader's, the installer's)."""
    found = hosttool.describe(path)
    if found.get("format") != "sys":
        raise BenchError(f"{path}: not described as a .sys")
    guest = GUEST_ARCHES[arch]
    machine = found["machine"]
    if machine != guest.machine:
        raise BenchError(f"{path}: not an {guest.image} driver (machine "
                         f"{machine:#06x}, {found['pe']}); the wrapper "
                         f"loads {guest.loads}{_kernels(kernels)}")
    if found["ndis6_line"]:
        raise BenchError(f"{path}: {found['ndis6_line']}")
    if own_wrapper and found["unknown_imports_line"]:
        raise BenchError(f"{path}: {found['unknown_imports_line']}")


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


def _describe_inf(inf: pathlib.Path, arch: str,
                  kernels: Sequence[str]) -> List[Dict[str, Any]]:
    """The .inf's hardware ids for the guest architecture arch, as its
    installer reads them; a refusal names the kernels it is for."""
    try:
        return hosttool.describe(inf, GUEST_ARCHES[arch].decoration)["ids"]
    except hosttool.DescribeError as exc:
        raise BenchError(f"{exc}{_kernels(kernels)}") from None


def device(inf: pathlib.Path,
           guests: Optional[Dict[str, Sequence[str]]] = None,
           own_wrapper: bool = True) -> Device:
    """The device row that runs the driver of `inf` on its NIC, for the
    guests of each architecture (kernels.ARCHES) -> the kernels of it
    (their names for messages; none given: amd64); own_wrapper: the
    wrapper is this tree's (no --wrapper-src), whose exports are known."""
    if inf.suffix.lower() != ".inf" or not inf.stem:
        raise BenchError(f"{inf}: --driver takes the driver's .inf file")
    if guests is None:
        guests = {"amd64": ()}
    picked: Optional[Tuple[Dict[str, Any], Nic]] = None
    files = [(inf.name, str(inf.resolve()))]
    for arch in [a for a in GUEST_ARCHES if a in guests]:
        kernels = guests[arch]
        # the installer's reading: hardware ids, install sections, files
        described = _describe_inf(inf, arch, kernels)
        ids = _emulated(described)
        usable = [(i, NICS[(i["bus"], i["vendor"], i["device"])])
                  for i in ids
                  if (i["bus"], i["vendor"], i["device"]) in NICS]
        if not usable:
            named = ", ".join(f"{i['bus']}:{i['vendor']}:{i['device']}"
                              for i in ids)
            known = ", ".join(f"{v}:{d} ({n.name})"
                              for (_, v, d), n in NICS.items())
            raise BenchError(f"{inf}: no hardware id the bench can emulate "
                             f"({named}; known: {known})")
        if picked is None:
            picked = usable[0]
        elif usable[0][1] != picked[1]:
            raise BenchError(f"{inf}: its {GUEST_ARCHES[arch].decoration} "
                             f"models name another NIC "
                             f"({usable[0][1].name}) than the others "
                             f"({picked[1].name})")
        # every id's files, as the installer copies them all
        names = list(dict.fromkeys(name for i in [usable[0][0]] + described
                                   for name in i["files"]))
        for name in names:
            found = _beside(inf.parent, name)
            if found is None:
                raise BenchError(f"{inf}: its driver file {name} is not "
                                 f"beside it in {inf.parent}")
            check_sys(found, arch, kernels, own_wrapper)
            entry = (name.lower(), str(found.resolve()))
            if entry not in files:
                files.append(entry)
    if picked is None:
        raise BenchError(f"{inf}: no kernel of a known guest architecture "
                         f"({', '.join(GUEST_ARCHES)}) to run it on")
    ident, nic = picked
    bus, vendor, dev = ident["bus"], ident["vendor"], ident["device"]
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
