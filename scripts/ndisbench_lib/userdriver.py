"""A user's own Windows driver (`run --driver PATH.inf`): its .inf read
on the host the way the wrapper's installer reads it (Manufacturer ->
models -> hardware ids and install sections -> CopyFiles, else
SourceDisksFiles), the .sys beside it checked as an amd64 native PE32+
image, and the hardware id mapped to the QEMU NIC that answers to it. The
result is a device row made at run time: the NIC's QEMU arguments, the
driver's files, the kernel driver to unbind, and the matrix row whose
checks it runs. Every problem is one BenchError line naming the file."""
import dataclasses
import os
import pathlib
import re
import stat
import struct
from typing import Dict, List, Optional, Tuple

from . import devices
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


NICS: Dict[Tuple[str, str, str], Nic] = {
    (model.bus, *device_id.split(":")): _nic(model, device_id)
    for model in devices.MODELS if model.bus in ("pci", "usb")
    for device_id in model.ids
}

HWID_RE = re.compile(r"^(PCI)\\VEN_([0-9A-F]{4})&DEV_([0-9A-F]{4})|"
                     r"^(USB)\\VID_([0-9A-F]{4})&PID_([0-9A-F]{4})", re.I)
SECTION_RE = re.compile(r"^\[([^\]]*)\]\s*$")
STRING_RE = re.compile(r"%([^%]*)%")

# The caps of the wrapper's own parser (wrapper/loader/inf.h): what it
# refuses, the host refuses before a guest boots.
INF_MAX_FILE_SIZE = 8 << 20
INF_MAX_HWIDS = 8192
INF_MAX_LINE_TEXT = 64 << 10
INF_MAX_TEXT = 16 << 20

IMAGE_FILE_MACHINE_AMD64 = 0x8664
PE32_PLUS = 0x20B
SUBSYSTEM_NATIVE = 1


# ---- the .inf ----

def _decode(data: bytes, path: pathlib.Path) -> str:
    if data.startswith(b"\xff\xfe"):
        return data[2:].decode("utf-16-le", errors="replace")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\0" in data:
        raise BenchError(f"{path}: not a text .inf (NUL bytes, no UTF-16 "
                         f"byte order mark)")
    return data.decode("utf-8", errors="replace")


def _strip_comment(line: str) -> str:
    """Everything before a ';' that is not inside double quotes."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            return line[:i]
    return line


def parse_inf(text: str) -> Dict[str, List[str]]:
    """Section name (lower case) -> its lines, comments and continuations
    ("\\" at the end) resolved."""
    sections: Dict[str, List[str]] = {}
    current: Optional[List[str]] = None
    pending = ""
    for raw in text.splitlines():
        line = _strip_comment(raw).rstrip()
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        line = (pending + line).strip()
        pending = ""
        if not line:
            continue
        match = SECTION_RE.match(line)
        if match:
            current = sections.setdefault(match.group(1).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return sections


class InfTooLarge(BenchError):
    """An .inf past one of the caps below (device() names the file)."""


class _Text:
    """The [Strings] of an .inf and what %string% substitution may still
    produce: a 3-byte reference can stand for a long string, so the text
    after substitution is capped per line and per file, as the wrapper's
    parser caps it."""

    def __init__(self, sections: Dict[str, List[str]]) -> None:
        self.strings = _strings(sections)
        self.left = INF_MAX_TEXT

    def fields(self, value: str, section: str) -> List[str]:
        """The comma-separated fields of a value, %strings% replaced and
        quotes removed."""
        def sub(m: "re.Match[str]") -> str:
            key = m.group(1)
            return self.strings.get(key.lower(), m.group(0)) if key else "%"
        out = [STRING_RE.sub(sub, f.strip()).strip().strip('"')
               for f in value.split(",")]
        size = sum(len(f) for f in out)
        if size > INF_MAX_LINE_TEXT:
            raise InfTooLarge(f"a line of [{section}] comes to more than "
                              f"{INF_MAX_LINE_TEXT >> 10} KiB after "
                              f"%string% substitution")
        self.left -= size
        if self.left < 0:
            raise InfTooLarge(f"more than {INF_MAX_TEXT >> 20} MiB of text "
                              f"after %string% substitution")
        return out

    def entries(self, sections: Dict[str, List[str]], section: str
                ) -> List[Tuple[str, List[str]]]:
        out = []
        for line in sections.get(section, []):
            key, eq, value = line.partition("=")
            if eq:
                out.append((key.strip(), self.fields(value, section)))
            else:
                out.append(("", self.fields(line, section)))
        return out


def _strings(sections: Dict[str, List[str]]) -> Dict[str, str]:
    strings = {}
    for line in sections.get("strings", []):
        key, eq, value = line.partition("=")
        if eq:
            strings[key.strip().lower()] = value.strip().strip('"')
    return strings


def _decorated(sections: Dict[str, List[str]], name: str) -> Optional[str]:
    """The section an amd64 install uses: name.NTamd64, name.NT, name."""
    for suffix in (".ntamd64", ".nt", ""):
        if (name + suffix).lower() in sections:
            return (name + suffix).lower()
    return None


def hardware_ids(sections: Dict[str, List[str]], path: pathlib.Path
                 ) -> List[Tuple[str, str, str, str]]:
    """(bus, vendor, device, install section) of every model, in order,
    each id once (its first model). Each models section is read once
    however many [Manufacturer] lines name it: the walk is linear in the
    file."""
    text = _Text(sections)
    if "manufacturer" not in sections:
        raise BenchError(f"{path}: no [Manufacturer] section: not a driver "
                         f"installation .inf")
    found: Dict[Tuple[str, str, str], str] = {}
    visited = set()
    for _, fields in text.entries(sections, "manufacturer"):
        models, decorations = fields[0], fields[1:]
        names = [f"{models}.{d}" for d in decorations if d] + [models]
        section = next((n.lower() for n in names
                        if n.lower() in sections), None)
        if section is None or section in visited:
            continue
        visited.add(section)
        for _, model in text.entries(sections, section):
            if len(model) < 2:
                continue
            install = model[0]
            for hwid in model[1:]:
                match = HWID_RE.match(hwid)
                if not match:
                    continue
                groups = [g for g in match.groups() if g]
                ident = (groups[0].lower(), groups[1].lower(),
                         groups[2].lower())
                if ident in found:
                    continue
                if len(found) >= INF_MAX_HWIDS:
                    raise InfTooLarge(f"more than {INF_MAX_HWIDS} hardware "
                                      f"ids")
                found[ident] = install
    return [ident + (install,) for ident, install in found.items()]


def sys_files(sections: Dict[str, List[str]], install: str) -> List[str]:
    """The .sys files the install section copies (CopyFiles: sections or
    @file; each section once), else those SourceDisksFiles lists."""
    text = _Text(sections)
    section = _decorated(sections, install)
    names: List[str] = []
    visited = set()
    for key, fields in text.entries(sections, section or ""):
        if key.lower() != "copyfiles":
            continue
        for item in fields:
            if item.startswith("@"):
                names.append(item[1:])
            elif item.lower() in sections and item.lower() not in visited:
                visited.add(item.lower())
                names += [f[0] for _, f in
                          text.entries(sections, item.lower()) if f]
    if not any(n.lower().endswith(".sys") for n in names):
        for disk in ("sourcedisksfiles.amd64", "sourcedisksfiles"):
            names += [k or f[0] for k, f in text.entries(sections, disk)]
    return list(dict.fromkeys(n for n in names if n.lower().endswith(".sys")))


# ---- the .sys ----

def check_sys(path: pathlib.Path) -> None:
    """An amd64 native PE32+ image (what the wrapper's loader accepts)."""
    data = path.read_bytes()
    if len(data) < 0x40 or data[:2] != b"MZ":
        raise BenchError(f"{path}: not a PE image (no MZ header)")
    (pe_off,) = struct.unpack_from("<I", data, 0x3C)
    if pe_off + 24 + 70 > len(data) or data[pe_off:pe_off + 4] != b"PE\0\0":
        raise BenchError(f"{path}: not a PE image (no PE signature)")
    (machine,) = struct.unpack_from("<H", data, pe_off + 4)
    (magic,) = struct.unpack_from("<H", data, pe_off + 24)
    (subsystem,) = struct.unpack_from("<H", data, pe_off + 24 + 68)
    if machine != IMAGE_FILE_MACHINE_AMD64 or magic != PE32_PLUS:
        raise BenchError(f"{path}: not an amd64 PE32+ driver (machine "
                         f"{machine:#06x}, optional header magic "
                         f"{magic:#05x}); the wrapper loads x86-64 drivers")
    if subsystem != SUBSYSTEM_NATIVE:
        raise BenchError(f"{path}: subsystem {subsystem}, not a native "
                         f"(kernel-mode) driver")


def _beside(folder: pathlib.Path, name: str) -> Optional[pathlib.Path]:
    """A file of the .inf's folder, by name in any case."""
    want = name.lower()
    return next((p for p in sorted(folder.iterdir())
                 if p.name.lower() == want and p.is_file()), None)


# ---- the row ----

def _read_capped(inf: pathlib.Path) -> bytes:
    """The .inf's bytes: a regular file of at most INF_MAX_FILE_SIZE."""
    try:
        with open(inf, "rb") as src:
            st = os.fstat(src.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise BenchError(f"{inf}: not a regular file")
            data = src.read(INF_MAX_FILE_SIZE + 1)
    except OSError as exc:
        raise BenchError(f"{inf}: {exc.strerror}") from None
    if len(data) > INF_MAX_FILE_SIZE:
        raise BenchError(f"{inf}: larger than {INF_MAX_FILE_SIZE >> 20} MiB "
                         f"({max(st.st_size, len(data))} bytes); the "
                         f"wrapper refuses it too")
    return data


# What `run --driver` runs without --check.
CHECKS = ("load", "install", "bind", "dhcp", "ping", "tcp")


def device(inf: pathlib.Path) -> Device:
    """The device row that runs the driver of `inf` on its NIC."""
    if inf.suffix.lower() != ".inf" or not inf.stem:
        raise BenchError(f"{inf}: --driver takes the driver's .inf file")
    data = _read_capped(inf)
    sections = parse_inf(_decode(data, inf))
    try:
        ids = hardware_ids(sections, inf)
    except InfTooLarge as exc:
        raise BenchError(f"{inf}: {exc}") from None
    if not ids:
        raise BenchError(f"{inf}: names no PCI\\VEN_&DEV_ or USB\\VID_&PID_ "
                         f"hardware id")
    usable = [(i, NICS[i[:3]]) for i in ids if i[:3] in NICS]
    if not usable:
        named = ", ".join(dict.fromkeys(f"{b}:{v}:{d}" for b, v, d, _ in ids))
        known = ", ".join(f"{v}:{d} ({n.name})"
                          for (_, v, d), n in NICS.items())
        raise BenchError(f"{inf}: no hardware id the bench can emulate "
                         f"({named}; known: {known})")
    (bus, vendor, dev, install), nic = usable[0]
    try:
        names = sys_files(sections, install)
    except InfTooLarge as exc:
        raise BenchError(f"{inf}: {exc}") from None
    if not names:
        raise BenchError(f"{inf}: install section '{install}' copies no "
                         f".sys file (CopyFiles, SourceDisksFiles)")
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
