"""What the cells of a command share, built once: the agent, our QEMU
and the fixtures (host_parts), and the programs of a guest of another
architecture."""
import dataclasses
import pathlib
from typing import Dict, Optional, Sequence, Tuple

from ..build import guestarch, initramfs
from ..build.cache import Cache
from ..build.hostbuild import build_agent, build_external_tools, \
    build_fixtures, guest_tools
from ..devices import Device
from ..errors import BenchError
from ..guest import machine
from ..progress import say


@dataclasses.dataclass
class HostParts:
    """What the cells share: the agent, our QEMU and the fixtures (each
    built only when a selected device needs it; else, or when its build
    failed, the error a cell that needs it gets)."""
    cache: Cache
    agent: pathlib.Path
    qemu: Optional[pathlib.Path] = None
    qemu_error: Optional[BenchError] = None
    fixtures: Optional[pathlib.Path] = None
    tools: Dict[str, pathlib.Path] = dataclasses.field(default_factory=dict)
    fixtures_error: Optional[BenchError] = None
    # Guests of another architecture (i386): their own agent, tools,
    # busybox and programs, or why they could not be made.
    arches: Dict[str, "ArchParts"] = dataclasses.field(default_factory=dict)
    arch_errors: Dict[str, BenchError] = dataclasses.field(
        default_factory=dict)


@dataclasses.dataclass
class ArchParts:
    """The static programs of an i386 guest (built -m32) and its Debian
    userland (guestarch)."""
    agent: pathlib.Path
    tools: Dict[str, pathlib.Path]
    busybox: pathlib.Path
    programs: Dict[str, Tuple[bytes, int]]      # initramfs.HOST_PROGRAMS


def arch_parts(arch: str, cache: Cache,
               wrapper_src: Optional[pathlib.Path]) -> ArchParts:
    if wrapper_src is not None:
        raise BenchError(f"--wrapper-src on an {arch} guest: its tools are "
                         f"built for the host only")
    land = guestarch.userland(cache, arch)
    return ArchParts(build_agent(arch), guest_tools(arch), land.busybox,
                     guestarch.program_files(land,
                                             initramfs.HOST_PROGRAMS))


def parts_for(parts: HostParts, arch: str) -> Tuple[
        pathlib.Path, Dict[str, pathlib.Path], pathlib.Path]:
    """(agent, tools, busybox) of a guest architecture."""
    if arch == "amd64":
        return parts.agent, parts.tools, initramfs.BUSYBOX
    if arch not in parts.arches:
        raise parts.arch_errors.get(arch) or BenchError(
            f"no {arch} guest programs were built")
    ap = parts.arches[arch]
    return ap.agent, ap.tools, ap.busybox


def uses_own_qemu(device: Device) -> bool:
    """Every row runs our QEMU build (the only one whose -sandbox denies
    elevateprivileges while -runas drops root), unless NDISBENCH_QEMU
    names another for the rows without our device models."""
    return device.own_qemu or machine.qemu_override() is None


def host_parts(devices_: Sequence[Device], cache: Cache,
               wrapper_src: Optional[pathlib.Path] = None,
               arches: Sequence[str] = ()) -> HostParts:
    parts = HostParts(cache, build_agent())
    for arch in sorted(set(arches) - {"amd64"}):
        try:
            parts.arches[arch] = arch_parts(arch, cache, wrapper_src)
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            parts.arch_errors[arch] = exc
    if any(uses_own_qemu(d) for d in devices_):
        # heavy: only when needed
        from ..build.qemu_build import build_qemu
        try:
            parts.qemu = build_qemu(cache)
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            parts.qemu_error = exc
    if any(d.fixture for d in devices_):
        try:
            parts.fixtures = build_fixtures(cache)
            parts.tools = (build_external_tools(wrapper_src, cache)
                           if wrapper_src else guest_tools())
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            parts.fixtures_error = exc
    return parts

