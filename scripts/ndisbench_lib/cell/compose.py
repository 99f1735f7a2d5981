"""How one cell's guest is made: the kernel command line that tells the
agent what to do, the initramfs (test modules, in-tree dependencies, the
device's driver and tools) and QEMU's arguments."""
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

from .. import devices
from ..build import guestarch, initramfs, modules
from ..build.hostbuild import fixture_root
from ..checks.check import GuestContext
from ..devices import Device
from ..errors import BenchError, BootError
from ..guest import accel as accelerator
from ..guest import air, machine
from ..guest import clock as guest_clock
from ..kernels import Expectations
from .parts import HostParts, parts_for, uses_own_qemu
from .plan import CellPlan, Prepared, native_first

MEMORY_MB = 512


def fixture_inf(device: Device) -> str:
    """The guest's path of the .inf the agent installs: a user's driver
    keeps its own file names, in a folder named after the driver."""
    if device.driver_files:
        return f"/{initramfs.FIXTURE_DIR}/{device.fixture}/" \
               f"{device.driver_files[0][0]}"
    return "/" + initramfs.fixture_file(device.fixture, device.fixture,
                                        ".inf")


def kernel_cmdline(plan: CellPlan,
                   ports: Optional[Dict[str, int]] = None) -> str:
    """What the agent is asked to do, on the kernel command line. ports:
    the host sinks of the checks that have one (tcp, udp, hotplug)."""
    ports = ports or {}
    device, exp, checks = plan.device, plan.exp, plan.units
    cell = plan.needs
    # Only emergencies and alerts on the console (an oops raises it by
    # itself): async messages would cut into the agent's lines. The agent
    # prints the warnings and worse of the kernel log at the end.
    # cryptomgr.notests: Debian's kernels test every crypto algorithm at
    # boot (0.7 s of guest time, up to 1 s of wall time under TCG); no
    # check uses them, and the control check still sees an untainted boot.
    words = ["console=ttyS0", "loglevel=2", "panic=-1", "cryptomgr.notests"]
    if cell.wrapper:
        words.append(f"ndisbench.install={fixture_inf(device)}")
        if device.unbind:
            words.append(f"ndisbench.unbind={device.unbind}")
    loads = [exp.module_names[r] for r in cell.roles] + list(cell.extras)
    if loads:
        words.append("ndisbench.load=" + ",".join(loads))
    if device.module_params:
        words.append("ndisbench.modparams=" + ",".join(device.module_params))
    if device.ifname and any(c.needs_iface for c in checks):
        words.append(f"ndisbench.net={device.ifname}")
        if device.wrapper == "ndiswrapper" and device.mac:
            # The wrapper names the interface (1.63: wlan%d for every
            # medium): the agent finds it by the NIC's MAC, as udev would.
            words.append(f"ndisbench.mac={device.mac}")
    if device.usb_id:
        words.append(f"ndisbench.usb={device.usb_id}")
    if device.connect_ssid:
        words.append(f"ndisbench.connect={device.connect_ssid}")
    for check in checks:
        words += check.params(GuestContext(exp, device, ports.get(check.name),
                                           plan.stream_bytes, plan.peer,
                                           plan.wrapper_src is not None))
    if plan.profile_hz and any(c.name == "tcp" for c in checks):
        words.append(f"ndisbench.profile={plan.profile_hz}")
    if plan.kernel.slowdown > 1:
        words.append(f"ndisbench.slowdown={plan.kernel.slowdown}")
    if plan.probe and plan.probe.params:
        words += plan.probe.params(ports)
    return " ".join(words)


def joins_wpa2(plan: CellPlan) -> bool:
    """One of the cell's checks joins the WPA2 network (air.WPA2_AP)."""
    return any(c.wpa2_network for c in plan.units)


def wpa_files(plan: CellPlan, parts: HostParts
              ) -> Dict[str, Tuple[bytes, int]]:
    """wpa_supplicant, wpa_cli and their libraries where a check of the
    cell joins the WPA2 network; nothing otherwise (every other cell's
    initramfs stays byte for byte as it was)."""
    if not joins_wpa2(plan):
        return {}
    arch = plan.kernel.arch
    if arch == "amd64":
        return initramfs.host_program_files(initramfs.WPA_PROGRAMS)
    land = guestarch.userland(parts.cache, arch, guestarch.WPA_PACKAGES)
    return guestarch.program_files(land, initramfs.WPA_PROGRAMS)


def cell_extra_files(plan: CellPlan, parts: HostParts
                     ) -> Dict[str, Tuple[bytes, int]]:
    """The Windows driver a wrapped device uses, the drivers its checks
    need and the wrapper's tools; iw and its libraries where the guest
    connects with iw; wpa_supplicant where it joins the WPA2 network."""
    device = plan.device
    arch = plan.kernel.arch
    _agent, tools, _busybox = parts_for(parts, arch)
    iw: Dict[str, Tuple[bytes, int]] = {}
    if device.connect_ssid:
        iw = initramfs.host_program_files() if arch == "amd64" else \
            parts.arches[arch].programs
    iw.update(wpa_files(plan, parts))
    if not device.fixture:
        return iw
    if parts.fixtures is None and not device.driver_files:
        raise parts.fixtures_error or BenchError("fixtures not built")
    extra = {guest_path: (tool.read_bytes(), 0o755)
             for guest_path, tool in tools.items()}
    # Tools of a --wrapper-src tree may be dynamically linked, or scripts
    # (a classic tree's Perl installer): their libraries or interpreter.
    if arch == "amd64":
        extra.update(initramfs.tool_files(tools.values()))
    wanted = [] if device.driver_files else [(device.fixture,
                                              device.fixture)]
    for guest_name, host_path in device.driver_files:
        extra[f"{initramfs.FIXTURE_DIR}/{device.fixture}/{guest_name}"] = (
            pathlib.Path(host_path).read_bytes(), 0o644)
    # The device's driver is of the guest's architecture; what checks ask
    # for (broken/ negatives) is the amd64 build's.
    roots = {f: parts.fixtures for f, _ in wanted}
    if wanted:
        assert parts.fixtures is not None
        roots[device.fixture] = fixture_root(parts.fixtures,
                                             plan.kernel.arch)
    for check in plan.units:
        wanted += check.guest_files(plan.exp)
    for folder, name in wanted:
        root = roots.get(folder, parts.fixtures)
        assert root is not None
        for suffix in (".sys", ".inf"):
            extra[initramfs.fixture_file(folder, name, suffix)] = (
                (root / folder / f"{name}{suffix}").read_bytes(), 0o644)
    extra.update(iw)
    return extra


def check_modules(plan: CellPlan) -> List[str]:
    """The in-tree modules the cell's checks ask for, in order, once."""
    names: List[str] = []
    for check in plan.units:
        names += [m for m in check.kernel_modules if m not in names]
    return names


def cell_initrd(plan: CellPlan, prep: Prepared, parts: HostParts
                ) -> pathlib.Path:
    """The initramfs of one cell: its test modules, the in-tree modules
    they and the device need, the device's fixture driver and tools."""
    assert prep.art is not None
    cell = plan.needs
    roles = cell.roles
    kos = {prep.built[r].name: prep.built[r].ko.read_bytes()
           for r in roles}
    for name in cell.extras:
        if name in prep.extras:
            kos[name] = prep.extras[name].ko.read_bytes()
    wanted: List[str] = []
    first = native_first(plan, prep)
    if first and modules.kernel_has(prep.art.modules_dir, first) != "module":
        first = ""                  # built in: bound at boot already
    for name in [d for r in roles for d in prep.built[r].depends] + \
            list(plan.device.guest_modules) + \
            [m for m in check_modules(plan)
             if modules.kernel_has(prep.art.modules_dir, m) == "module"] + \
            ([first] if first else []):
        if name not in wanted:
            wanted.append(name)
    deps = [(modules.modfile(p), modules.module_bytes(p))
            for p in modules.dependency_paths(prep.art, wanted)]
    agent, _tools, busybox = parts_for(parts, plan.kernel.arch)
    return initramfs.build(agent, kos, deps, parts.cache,
                           cell_extra_files(plan, parts), busybox)


def capture_max(plan: CellPlan) -> int:
    """The air capture's cap: the model's default, or room for the cell's
    open and protected streams and the rekey's where a WPA2 check reads
    the capture after them (the bench's 64 MiB streams)."""
    if not joins_wpa2(plan):
        return air.PCAP_MAX
    return max(air.PCAP_MAX, 3 * plan.stream_bytes + (32 << 20))


def cell_qemu_args(args: Sequence[str], cdir: Optional[pathlib.Path],
                   capture_air: bool, pcap_max: int = air.PCAP_MAX
                   ) -> List[str]:
    """A device's QEMU arguments for one cell: "{cell}" is its folder; the
    air writes air.pcap only when asked to, up to pcap_max bytes (the
    option only where it is not the model's default)."""
    out = []
    option = air.PCAP_OPTION if pcap_max == air.PCAP_MAX else \
        f"{air.PCAP_OPTION},pcap-max={pcap_max}"
    for arg in args:
        if not capture_air or cdir is None:
            arg = arg.replace(air.PCAP_OPTION, "")
        else:
            arg = arg.replace(air.PCAP_OPTION, option)
        out.append(arg.replace("{cell}", str(cdir)))
    return out


def guest_command(plan: CellPlan, prep: Prepared, parts: HostParts,
                  initrd: pathlib.Path, append: str,
                  extra_args: Sequence[str] = ()) -> List[str]:
    assert prep.art is not None
    qemu = None
    if uses_own_qemu(plan.device):
        if parts.qemu is None:
            raise parts.qemu_error or BootError("QEMU not built")
        qemu = str(parts.qemu)
    capture_air = plan.keep_air or any(c.air_capture for c in plan.units)
    wpa2 = list(air.wpa2_qemu_args()) if joins_wpa2(plan) else []
    return machine.qemu_command(prep.art.boot_image, initrd, append,
                                plan.accel, MEMORY_MB, cell_qemu_args(
                                    plan.device_args, plan.folder,
                                    capture_air, capture_max(plan)) + wpa2 + list(extra_args) +
                                list(plan.extra_qemu_args) +
                                list(guest_clock.qemu_args(plan.clock)),
                                qemu)



def resolve_accel(requested: str, preps: Sequence[Prepared],
                  exp: Expectations, parts: HostParts) -> str:
    ready = [p for p in preps if not p.error]
    if requested != "auto" or not ready:
        return "tcg" if requested == "auto" else requested
    probe = CellPlan(ready[0].kernel, devices.DEVICES["none"], (), exp,
                     accel="kvm")
    initrd = cell_initrd(probe, ready[0], parts)
    return accelerator.resolve(requested, guest_command(
        probe, ready[0], parts, initrd, kernel_cmdline(probe)), parts.cache)

