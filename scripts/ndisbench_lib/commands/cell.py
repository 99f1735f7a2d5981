"""The one cell pipeline: a CellPlan says what one guest is (kernel,
device/wrapper, checks, accel, timeout, and every per-command variation as
an explicit field); run_plan() makes its initramfs, starts QEMU with the
device and its air, serves the host's side (sinks, QMP), collects the
serial log and the air's capture, and judges the checks. run, pair, soak
and bench all boot their guests through it.

What the cells of a command share is built before: host_parts() (the
agent, our QEMU, the fixtures) and prepare() per kernel (its image and
test modules)."""
import dataclasses
import os
import pathlib
import re
import shutil
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import devices
from ..build import guestarch, initramfs, modules
from ..build.cache import Cache
from ..build.hostbuild import build_agent, build_external_tools, \
    build_fixtures, fixture_root, guest_tools
from ..build.kbuild import KernelArtifact, kernel_artifact
from ..build.modules import BuiltModule
from ..checks import known, registry
from ..checks.check import (CUT_STREAM, DATAGRAMS, QMP_HOTPLUG, QMP_ROAM,
                            CellFacts, Check, GuestContext)
from ..checks.facts import oops_site
from ..checks.modload import module_base_bits
from ..devices import Device
from ..errors import BenchError, BootError, BuildError, GuestTimeout
from ..guest import accel as accelerator
from ..guest import air, capture, machine, sandbox, snapshot
from ..guest import clock as guest_clock
from ..guest.qmp_requests import QmpRequests
from ..guest.sink import TcpSink, UdpSink
from ..kernels import Expectations, Kernel
from ..progress import say
from ..report import ktap
from ..report.report import CellResult
from ..report.verdict import ERROR, FAIL, NOT_RUN, TIMEOUT, Verdict

# What fails a whole cell: oopses and WARNs, and the reports of the debug
# kernel's checkers (KASAN prints "BUG: KASAN", lockdep "WARNING: possible
# ...", "inconsistent lock state", "bad unlock balance"; kmemleak's scan,
# printed by the agent, "unreferenced object").
KERNEL_PROBLEM_RE = re.compile(
    r"(Kernel panic|BUG: |Oops: |general protection fault|WARNING: CPU:|"
    r"detected buffer overflow|"
    r"Call Trace:|WARNING: possible |WARNING: inconsistent lock state|"
    r"WARNING: bad unlock balance|WARNING: suspicious RCU usage|"
    r"unreferenced object 0x)")
MEMORY_MB = 512
LineHook = Callable[[str], Optional[str]]


# ---- what the cells of a command share: built once ----

@dataclasses.dataclass
class Prepared:
    """Everything one kernel's cells need, or why it could not be built."""
    kernel: Kernel
    art: Optional[KernelArtifact] = None
    built: Dict[str, BuiltModule] = dataclasses.field(
        default_factory=dict)          # role -> built test module
    base_bits: int = 0
    # The kernel could not be had (fetched, built, its table read): no
    # cell of it runs.
    error: Optional[BenchError] = None
    # name -> the modules checks load after the test modules (planted)
    extras: Dict[str, BuiltModule] = dataclasses.field(default_factory=dict)
    # role or extra module name -> why that module did not build: only
    # the checks that need it are not run (the build check says why)
    failed: Dict[str, BenchError] = dataclasses.field(default_factory=dict)


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


def prepare(kernel: Kernel, cache: Cache, exp: Expectations,
            roles: Sequence[str],
            wrapper_src: Optional[pathlib.Path] = None,
            extras: Sequence[str] = ()) -> Prepared:
    """The kernel and its test modules: ours are checked against the
    expectation table; the ndiswrapper of a --wrapper-src tree brings its
    own list of GPL-only imports."""
    try:
        art = kernel_artifact(kernel, cache)
        base = module_base_bits(art.config(), exp.taint_bits)
    except BenchError as exc:
        say("build", f"ERROR: {exc}")
        return Prepared(kernel, error=exc)
    prep = Prepared(kernel, art, base_bits=base)
    # A module that does not build stops only the cells that load it.
    for role in roles:
        try:
            if role == "ndiswrapper" and wrapper_src:
                prep.built[role] = modules.build_external_module(
                    art, wrapper_src, cache)
                continue
            mod = modules.build_module(art, exp.module_names[role], cache)
            modules.check_gpl_imports(mod, exp.gpl_imports_for(
                art.config(), modules.gpl_exports(art.symvers)), art)
            prep.built[role] = mod
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            prep.failed[role] = exc
    for name in extras:
        try:
            prep.extras[name] = modules.build_named_module(art, name, cache)
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            prep.failed[name] = exc
    return prep


def module_file(key: str, exp: Expectations) -> str:
    """The module a role (or an extra module's name) stands for."""
    return exp.module_names.get(key, key)


def check_needs(plan: "CellPlan", check: str) -> List[str]:
    """The modules of ours (roles, extra module names) a check of the
    cell cannot run without: its own role and extra modules, and on a
    wrapped device the wrapper its driver is installed through."""
    unit = registry.get(check)
    needs = [unit.role] if unit.role else []
    if unit.installs_driver and registry.needs_wrapper(plan.device,
                                                       plan.checks):
        needs.append("ndiswrapper")
    return needs + list(unit.extra_modules)


def cell_builds(plan: "CellPlan", prep: Prepared) -> Dict[str, str]:
    """Module name -> "" (built) or why not, for every module of ours the
    cell's checks need (the build check's facts)."""
    out: Dict[str, str] = {}
    for key in dict.fromkeys(k for c in plan.checks
                             for k in check_needs(plan, c)):
        exc = prep.failed.get(key)
        out[module_file(key, plan.exp)] = build_cause(exc) if exc else ""
    return out


def build_cause(exc: BenchError) -> str:
    """The one line a failed module build is shown by: the compiler's
    first error when the log has one, with the log to read."""
    if isinstance(exc, BuildError) and exc.causes:
        return f"{exc.causes[0]} (log: {exc.log})"
    return str(exc)


def blocked_checks(plan: "CellPlan", prep: Prepared) -> Dict[str, str]:
    """Check -> the module it needs that did not build."""
    out = {}
    for check in plan.checks:
        missing = [k for k in check_needs(plan, check) if k in prep.failed]
        if missing:
            out[check] = module_file(missing[0], plan.exp)
    return out


def extra_modules(check_names: Sequence[str]) -> List[str]:
    """The modules the checks load after the test modules."""
    return list(dict.fromkeys(m for c in check_names
                              for m in registry.get(c).extra_modules))


# ---- one guest ----

@dataclasses.dataclass(frozen=True)
class CellPlan:
    """One guest: what to boot, what it runs, how it is judged. The
    expectation table is shared and never changed: what a command varies
    is a field here."""
    kernel: Kernel
    device: Device
    checks: Tuple[str, ...]
    exp: Expectations
    folder: Optional[pathlib.Path] = None   # serial.log, ktap.txt, air.pcap
    run_dir: Optional[pathlib.Path] = None  # the result's folder is relative
    accel: str = "tcg"          # QEMU's -accel, resolved (options allowed)
    timeout: float = 120.0      # the floor of the guest's timeout, seconds
    wrapper_src: Optional[pathlib.Path] = None  # its ioctls are not ours
    # The guest clock (guest/clock.py): real time unless the command asks
    # (run does; pair, soak and the KVM probe do not).
    clock: str = guest_clock.REALTIME
    # The per-command variations:
    side: str = ""              # pair: "A" or "B", the row's prefix
    peer: str = ""              # pair: the other guest's address
    lease: str = ""             # the address dhcp must get ("": table's)
    tcp_bytes: int = 0          # the TCP stream (0: the table's 4 MiB)
    qemu_args: Optional[Tuple[str, ...]] = None  # None: the device's
    keep_air: bool = False      # write air.pcap without the capture check
    extra_params: Tuple[str, ...] = ()      # more agent words (soak)
    extra_qemu_args: Tuple[str, ...] = ()   # -pidfile, QMP of the caller
    # Restore the guest from a saved boot of the same machine, or save
    # this one's (guest/snapshot.py): run does; pair and soak do not (two
    # guests on one air, a soak's own timing).
    snapshot: bool = False

    @property
    def roles(self) -> List[str]:
        return registry.roles(self.device, self.checks)

    @property
    def stream_bytes(self) -> int:
        return self.tcp_bytes or int(self.exp.network["tcp_bytes"])

    @property
    def guest_timeout(self) -> float:
        """At least the checks' shares, times the kernel's slowdown."""
        return max(self.timeout, registry.seconds(self.checks)) * \
            self.kernel.slowdown

    @property
    def row(self) -> str:
        """The device column of the result (a pair's side in front)."""
        name = self.device.name
        return f"{self.side}:{name}" if self.side else name

    @property
    def device_args(self) -> Tuple[str, ...]:
        return self.device.qemu_args if self.qemu_args is None \
            else self.qemu_args

    @property
    def units(self) -> List[Check]:
        """The checks themselves (registry.py)."""
        return [registry.get(c) for c in self.checks]


@dataclasses.dataclass
class CellRun:
    """What run_plan gives back: the cell's result (as results.json keeps
    it) and the boot it came from (None: it never booted)."""
    result: CellResult
    boot: Optional[machine.BootResult] = None


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
    # Only emergencies and alerts on the console (an oops raises it by
    # itself): async messages would cut into the agent's lines. The agent
    # prints the warnings and worse of the kernel log at the end.
    # cryptomgr.notests: Debian's kernels test every crypto algorithm at
    # boot (0.7 s of guest time, up to 1 s of wall time under TCG); no
    # check uses them, and the control check still sees an untainted boot.
    words = ["console=ttyS0", "loglevel=2", "panic=-1", "cryptomgr.notests"]
    if registry.needs_wrapper(device, plan.checks):
        words.append(f"ndisbench.install={fixture_inf(device)}")
        if device.unbind:
            words.append(f"ndisbench.unbind={device.unbind}")
    loads = [exp.module_names[r] for r in plan.roles] + \
        extra_modules(plan.checks)
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
                                           plan.stream_bytes, plan.peer))
    if plan.kernel.slowdown > 1:
        words.append(f"ndisbench.slowdown={plan.kernel.slowdown}")
    return " ".join(words + list(plan.extra_params))


def cell_extra_files(plan: CellPlan, parts: HostParts
                     ) -> Dict[str, Tuple[bytes, int]]:
    """The Windows driver a wrapped device uses, the drivers its checks
    need and the wrapper's tools; iw and its libraries where the guest
    connects with iw."""
    device = plan.device
    arch = plan.kernel.arch
    _agent, tools, _busybox = parts_for(parts, arch)
    iw: Dict[str, Tuple[bytes, int]] = {}
    if device.connect_ssid:
        iw = initramfs.host_program_files() if arch == "amd64" else \
            parts.arches[arch].programs
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


def native_first(plan: CellPlan, prep: Prepared) -> str:
    """The kernel's own driver the cell's device is bound to before the
    wrapper takes it (Device.native_first, where this kernel has it)."""
    name = plan.device.native_first
    if not name or prep.art is None or not modules.kernel_has(
            prep.art.modules_dir, name):
        return ""
    return name


def cell_initrd(plan: CellPlan, prep: Prepared, parts: HostParts
                ) -> pathlib.Path:
    """The initramfs of one cell: its test modules, the in-tree modules
    they and the device need, the device's fixture driver and tools."""
    assert prep.art is not None
    roles = plan.roles
    kos = {prep.built[r].name: prep.built[r].ko.read_bytes()
           for r in roles}
    for name in extra_modules(plan.checks):
        if name in prep.extras:
            kos[name] = prep.extras[name].ko.read_bytes()
    wanted: List[str] = []
    first = native_first(plan, prep)
    if first and modules.kernel_has(prep.art.modules_dir, first) != "module":
        first = ""                  # built in: bound at boot already
    for name in [d for r in roles for d in prep.built[r].depends] + \
            list(plan.device.guest_modules) + ([first] if first else []):
        if name not in wanted:
            wanted.append(name)
    deps = [(modules.modfile(p), modules.module_bytes(p))
            for p in modules.dependency_paths(prep.art, wanted)]
    agent, _tools, busybox = parts_for(parts, plan.kernel.arch)
    return initramfs.build(agent, kos, deps, parts.cache,
                           cell_extra_files(plan, parts), busybox)


def cell_qemu_args(args: Sequence[str], cdir: Optional[pathlib.Path],
                   capture_air: bool) -> List[str]:
    """A device's QEMU arguments for one cell: "{cell}" is its folder; the
    air writes air.pcap only when asked to."""
    out = []
    for arg in args:
        if not capture_air or cdir is None:
            arg = arg.replace(air.PCAP_OPTION, "")
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
    return machine.qemu_command(prep.art.boot_image, initrd, append,
                                plan.accel, MEMORY_MB, cell_qemu_args(
                                    plan.device_args, plan.folder,
                                    capture_air) + list(extra_args) +
                                list(plan.extra_qemu_args) +
                                list(guest_clock.qemu_args(plan.clock)),
                                qemu)


class GuestStart:
    """How one cell's guest comes up: a plain boot; or, for a plan with
    snapshot set, a restore of the saved boot of the same machine
    (guest/snapshot.py), else a boot saved at the agent's READY_LINE for
    the next run. A snapshot QEMU says it cannot load is discarded and the
    cell boots instead."""

    def __init__(self, plan: CellPlan, prep: Prepared, parts: HostParts,
                 initrd: pathlib.Path, append: str,
                 extra_args: Sequence[str]) -> None:
        self.plan, self.prep, self.parts = plan, prep, parts
        self.initrd, self.extra = initrd, list(extra_args)
        self.console: Optional[machine.ConsoleParams] = None
        self.saver: Optional[snapshot.Saver] = None
        self.restorer: Optional[snapshot.Restorer] = None
        self.restored: Optional[snapshot.Snapshot] = None
        self.fd: Optional[int] = None
        self.how = "booted"
        if not plan.snapshot:
            self.cmd = guest_command(plan, prep, parts, initrd, append,
                                     self.extra)
            return
        boot_append, self.words = snapshot.split_cmdline(append)
        self.cmd = guest_command(plan, prep, parts, initrd, boot_append,
                                 self.extra)
        qemu = shutil.which(self.cmd[0]) or self.cmd[0]
        self.key = snapshot.key(pathlib.Path(qemu), [
            prep.art.boot_image, initrd] if prep.art else [initrd],
            self.machine_words(boot_append))
        self.label = f"{prep.kernel.name}/{plan.device.label}"
        snap = snapshot.find(parts.cache, self.key)
        self.fd = snapshot.open_state(snap) if snap else None
        if snap is not None and self.fd is not None:
            self.restored = snap
            snapshot.used(snap)
            self.restorer = snapshot.Restorer(self.fd)
            self.how = "restored"
            self.console = machine.ConsoleParams(
                self.words, at_ready=self.restorer.running,
                prefix=snap.boot_log(), pass_fds=(self.fd,),
                note=f"restored from snapshot {self.key} (the boot of "
                     f"{snap.label} saved at the agent's wait)")
        else:
            self._plan_save()

    def _plan_save(self) -> None:
        assert self.prep.art is not None
        self.saver = snapshot.Saver(self.parts.cache, self.key, self.label, {
            "kernel": self.prep.kernel.name,
            "release": self.prep.art.release})
        self.console = machine.ConsoleParams(self.words,
                                             at_ready=self.saver.save)

    def machine_words(self, boot_append: str) -> List[str]:
        """The guest's QEMU command without what is the cell's own (its
        folder, the air capture, -pidfile and QMP sockets): the kernel and
        the initramfs stand by name, their contents are keyed apart."""
        assert self.prep.art is not None
        bare = dataclasses.replace(self.plan, extra_qemu_args=(),
                                   folder=None, keep_air=False)
        words = guest_command(bare, self.prep, self.parts, self.initrd,
                              boot_append)
        names = {str(self.prep.art.boot_image): "{kernel}",
                 str(self.initrd): "{initrd}"}
        return [names.get(w, w) for w in words[1:]]

    @property
    def verb(self) -> str:
        return "restoring" if self.restored else "booting"

    def boot(self, log: pathlib.Path, timeout: float,
             on_line: Optional[LineHook],
             on_start: Optional[Callable[[int], None]] = None
             ) -> machine.BootResult:
        args = self.cmd + (self.restorer.qemu_args() if self.restorer
                           else self.saver.qemu_args() if self.saver
                           else [])
        result = machine.boot(args, log, timeout, on_line=on_line,
                              console=self.console, on_start=on_start)
        why = snapshot.load_error(result.serial, pathlib.Path(
            self.cmd[0])) if self.restored else ""
        if why:
            # QEMU refused the stream (another build, a torn file): keep
            # its log beside, drop the snapshot, boot. Any other end (a
            # kill, a crash) is the cell's own result.
            log.rename(log.with_name("serial-restore.log"))
            say("cell", f"WARNING: {self.label}: snapshot {self.key} did "
                        f"not load ({why}; serial-restore.log); booting")
            snapshot.discard(self.restored)
            self.close()
            self.restored, self.restorer, self.how = None, None, "booted"
            self._plan_save()
            return self.boot(log, timeout, on_line, on_start)
        if self.saver is not None:
            self.how = "saved" if self.saver.publish(result.serial) \
                else "booted"
        return result

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.saver is not None:
            self.saver.close()
        if self.restorer is not None:
            self.restorer.close()


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


def kernel_problem(serial: str) -> str:
    """The first problem line, with where it happened when a trace says
    (facts.oops_site)."""
    lines = serial.splitlines()
    for i, line in enumerate(lines):
        if KERNEL_PROBLEM_RE.search(line):
            site = oops_site(lines[i:i + 60])
            return line.strip() + (f" (in {site})" if site else "")
    return ""


@dataclasses.dataclass(frozen=True)
class KernelReport:
    """The first kernel problem line of one agent row ("": outside every
    row), with where it happened when a trace says."""
    row: str
    line: str


def kernel_reports(serial: str) -> List[KernelReport]:
    """The first problem of each row, in the order they appear."""
    lines = ktap.row_lines(serial)
    found: Dict[str, KernelReport] = {}
    for i, (row, line) in enumerate(lines):
        if row not in found and KERNEL_PROBLEM_RE.search(line):
            site = oops_site([text for _, text in lines[i:i + 60]])
            found[row] = KernelReport(row, line.strip() +
                                      (f" (in {site})" if site else ""))
    return list(found.values())


def row_readers(log: ktap.KtapLog, row: str, checks: Sequence[str]
                ) -> List[str]:
    """The checks that read a result the row printed (or the row's own
    name)."""
    tests = [t for r in log.rows if r.name == row for t in r.tests] + [row]
    return [c for c in checks
            if any(registry.get(c).reads_test(t) for t in tests)]


def last_row(log: ktap.KtapLog, check: str) -> Optional[int]:
    """Where the last row the check reads ran (None: it reads none)."""
    unit = registry.get(check)
    return max((i for i, r in enumerate(log.rows)
                if any(unit.reads_test(t) for t in r.tests + [r.name])),
               default=None)


def charge_reports(log: ktap.KtapLog, serial: str,
                   verdicts: Dict[str, Verdict], keep: Sequence[str]
                   ) -> Dict[str, Verdict]:
    """Each kernel report FAILs the checks reading the row it fell in; a
    report outside every row, or in a row no check reads, fails every
    passing check as before. The checks that ran (in part) after a
    charged report keep their verdict and say so. A row whose child died
    (PID 1 printed its results) FAILs its readers. keep: checks judged as
    they are (a row one of them reads is theirs: it charges no other)."""
    out = dict(verdicts)
    judged = [c for c in verdicts if c not in keep]
    guest = [c for c in verdicts if not registry.get(c).host_side]
    charged: Dict[str, str] = {}
    after: List[Tuple[int, KernelReport]] = []
    for report in kernel_reports(serial):
        readers = row_readers(log, report.row, guest) if report.row else []
        index = next((i for i, r in enumerate(log.rows)
                      if r.name == report.row), None)
        for check in [c for c in readers if c in judged] if readers \
                else judged:
            if readers or out[check].ok:
                charged.setdefault(check, report.line)
        if readers and index is not None:
            after.append((index, report))
    for check, line in charged.items():
        own = out[check]
        out[check] = Verdict(FAIL, f"kernel reported: {line}",
                             (own.summary,) if own.summary else ())
    for check in judged:
        if check in charged:
            continue
        for row in log.rows:
            if row.died and any(registry.get(check).reads_test(t)
                                for t in row.tests):
                out[check] = Verdict(
                    FAIL, f"the agent's {row.name} test died: {row.died}",
                    (out[check].summary,))
                break
        at = last_row(log, check)
        before = [r for i, r in after if at is not None and i < at]
        if before:
            # its own verdict, or its row's death: either came after
            own = out[check]
            out[check] = Verdict(
                own.status, f"{own.summary} (ran after an oops in "
                            f"{before[0].row}: {before[0].line})",
                own.details)
    return out


def judge_cell(plan: CellPlan, prep: Prepared, boot: machine.BootResult,
               sink_bytes: Optional[Dict[str, Optional[int]]] = None,
               air_capture: Optional[capture.AirCapture] = None,
               log_name: str = "serial.log") -> Dict[str, Verdict]:
    """Every check's verdict; a kernel problem (charged to the checks of
    the agent row it fell in: charge_reports) or an agent that did not
    finish turns the passes into FAIL or ERROR. sink_bytes: per check,
    what its host sink counted; log_name: the guest's serial log."""
    log_path = (plan.folder or pathlib.Path(".")) / log_name
    log = ktap.parse(boot.serial)
    device = plan.device
    facts = CellFacts(
        log, plan.exp, prep.kernel.policy, plan.roles, prep.base_bits,
        fixture=device.fixture, native=device.native_driver,
        iw_ssid=device.connect_ssid,
        config=prep.art.config() if prep.art else None,
        sinks=sink_bytes or {}, air=air_capture,
        gpl_imports={role: mod.gpl_imports
                     for role, mod in prep.built.items()},
        own_loader_abi=plan.wrapper_src is None, lease=plan.lease,
        tcp_bytes=plan.tcp_bytes, qemu_ids=boot.qemu_ids,
        fixture_sys=device.sys_name if device.fixture else "",
        builds=cell_builds(plan, prep), unbinds=native_first(plan, prep))
    host = {c for c in plan.checks if registry.get(c).host_side}
    if boot.status == "timeout":
        why = str(GuestTimeout(boot.seconds, log_path, boot))
        # A row that oopsed and hung until the kill: the report is why.
        first = next((r for r in kernel_reports(boot.serial) if r.row),
                     None)
        if first is not None:
            why += f"; the kernel reported in {first.row}: {first.line}"
        verdict = Verdict(TIMEOUT, why)
        return {c: registry.judge(c, facts) if c in host else verdict
                for c in plan.checks}
    if boot.status == "flood":
        flood = machine.flood_message(machine.console_budget())
        verdict = Verdict(ERROR, f"{flood} (log: {log_path})")
        return {c: registry.judge(c, facts) if c in host else verdict
                for c in plan.checks}
    verdicts = {c: registry.judge(c, facts) for c in plan.checks}
    if log.rows:
        # A check that wants the kernel's reports judges them itself.
        verdicts = charge_reports(log, boot.serial, verdicts, [
            c for c in plan.checks if c in host or
            registry.get(c).expects_kernel_reports])
        problem = ""
    else:
        # An agent without row marks: any report fails the whole cell.
        problem = kernel_problem(boot.serial)
    if problem:
        downgrade = Verdict(FAIL, f"kernel reported: {problem}")
    elif not log.complete:
        downgrade = Verdict(ERROR, "agent did not finish (guest stopped, "
                                   f"exit {boot.exit_code})")
    else:
        return verdicts
    keep = host | {c for c in plan.checks if problem and
                   registry.get(c).expects_kernel_reports}
    return {c: (downgrade if v.ok and c not in keep else v)
            for c, v in verdicts.items()}


Sink = Union[TcpSink, UdpSink]


class QemuPid:
    """The cell's QEMU once it runs: the only peer its sinks count."""

    def __init__(self) -> None:
        self.pid: Optional[int] = None

    def started(self, pid: int) -> None:
        self.pid = pid

    def __call__(self) -> Optional[int]:
        return self.pid


def open_sinks(checks: Sequence[Check],
               owner: Optional[QemuPid] = None) -> Dict[str, Sink]:
    return {c.name: UdpSink(owner) if c.sink == DATAGRAMS
            else TcpSink(owner) for c in checks if c.sink}


def refused_peers(sinks: Dict[str, Sink]) -> Dict[str, int]:
    """Per check, what its sink refused (not from the cell's QEMU)."""
    return {name: s.refused for name, s in sinks.items() if s.refused}


def close_sinks(checks: Sequence[Check], sinks: Dict[str, Sink]
                ) -> Dict[str, Optional[int]]:
    """What each sink counted; a stream an unplug cut never ends, so what
    arrived counts."""
    counts = {name: sink.close() for name, sink in sinks.items()}
    for check in checks:
        sink = sinks.get(check.name)
        if check.sink == CUT_STREAM and isinstance(sink, TcpSink):
            counts[check.name] = sink.count
    return counts


def qmp_requests(plan: CellPlan) -> Optional[QmpRequests]:
    """The host's QMP side of the checks that ask for one."""
    wanted = {c.qmp for c in plan.units if c.qmp}
    if not wanted:
        return None
    return QmpRequests(plan.device.hotplug if QMP_HOTPLUG in wanted else "",
                       air.ROAM_FROM.ident if QMP_ROAM in wanted else "")


def chain(*hooks: Optional[LineHook]) -> Optional[LineHook]:
    """One console line hook of several: the first note wins."""
    live = [h for h in hooks if h is not None]
    if not live:
        return None

    def on_line(text: str) -> Optional[str]:
        notes = [h(text) for h in live]
        return next((n for n in notes if n), None)
    return on_line


def guest_groups(plan: CellPlan) -> List[Tuple[Tuple[str, ...], str]]:
    """The guests of a cell and their serial logs: the checks that need a
    guest of their own (Check.own_guest: bad input on purpose) each run in
    one after the main guest, so that the others run in a guest that never
    saw it; alone, or with only host-side checks beside, they share it."""
    own = tuple(c for c in plan.checks if registry.get(c).own_guest)
    main = tuple(c for c in plan.checks if c not in own)
    if not own or not any(not registry.get(c).host_side for c in main):
        return [(plan.checks, "serial.log")]
    return [(main, "serial.log")] + [((c,), f"serial-{c}.log") for c in own]


@dataclasses.dataclass
class GuestRun:
    """One guest of a cell, booted or restored, and judged."""
    boot: machine.BootResult
    how: str
    verdicts: Dict[str, Verdict]
    sinks: Dict[str, Optional[int]]
    # per check, the peers its sink refused (not the cell's QEMU)
    sink_refused: Dict[str, int] = dataclasses.field(default_factory=dict)


def run_guest(plan: CellPlan, prep: Prepared, parts: HostParts,
              initrd: pathlib.Path, log_name: str,
              on_line: Optional[LineHook],
              before_boot: Optional[Callable[[], None]]) -> GuestRun:
    """Boot (or restore) one guest of the cell's initramfs with the plan's
    checks and judge them; a BenchError if it cannot start."""
    assert plan.folder is not None and prep.art is not None
    checks = plan.units
    sinks: Dict[str, Sink] = {}
    qemu_pid = QemuPid()
    plug: Optional[QmpRequests] = None
    try:
        sinks = open_sinks(checks, qemu_pid)
        plug = qmp_requests(plan)
        append = kernel_cmdline(plan, {c: s.port for c, s in sinks.items()})
        extra = plug.qemu_args() if plug else []
        start = GuestStart(plan, prep, parts, initrd, append, extra)
        if before_boot:
            before_boot()
    except BenchError:
        close_sinks(checks, sinks)
        if plug:
            plug.close()
        raise
    say("cell", f"{prep.kernel.name} / {plan.device.label}: "
                f"{start.verb} {prep.art.boot_image.name} "
                f"({prep.art.release})" +
                ("" if log_name == "serial.log" else f" for {log_name}"))
    try:
        boot = start.boot(plan.folder / log_name, plan.guest_timeout,
                          chain(plug.on_line if plug else None, on_line),
                          qemu_pid.started)
    finally:
        sink_bytes = close_sinks(checks, sinks)
        refused = refused_peers(sinks)
        for name, n in refused.items():
            say("cell", f"WARNING: {prep.kernel.name} / "
                        f"{plan.device.label}: the {name} sink refused {n} "
                        f"peer(s) other than the cell's QEMU")
        if plug:
            plug.close()
        start.close()
    pcap = plan.folder / "air.pcap"
    air_read = capture.read(pcap) if any(c.air_capture for c in checks) \
        else None
    if air_read is None and pcap.exists():
        capture.compress(pcap)
    # Another wrapper tree's known disagreements carry their reason.
    verdicts = known.annotate(ktap.parse(boot.serial), plan.exp,
                              judge_cell(plan, prep, boot, sink_bytes,
                                         air_read, log_name))
    return GuestRun(boot, start.how, verdicts, sink_bytes, refused)


def run_plan(plan: CellPlan, prep: Prepared, parts: HostParts,
             on_line: Optional[LineHook] = None,
             before_boot: Optional[Callable[[], None]] = None) -> CellRun:
    """Run one cell as planned and judge it: one guest, or the main guest
    and one per own-guest check (guest_groups), all of one initramfs, so
    the first saves the boot and the others restore it. on_line: the
    caller's own console hook (soak's cycles, pair's start of B), on the
    main guest; before_boot: called once everything is ready, just before
    QEMU first starts (it may wait; a BenchError from it is the cell's
    ERROR)."""
    assert plan.folder is not None and plan.run_dir is not None
    cdir = plan.folder
    cdir.mkdir(parents=True, exist_ok=True)
    cell = CellResult(prep.kernel.name, prep.kernel.policy.name, plan.row,
                      str(cdir.relative_to(plan.run_dir)),
                      wrapper=plan.device.wrapper)
    blocked = {} if prep.error else blocked_checks(plan, prep)
    if blocked:
        return run_unbuilt(plan, prep, parts, blocked, on_line, before_boot)
    runs: List[GuestRun] = []
    ktap_lines: List[str] = []
    verdicts: Dict[str, Verdict] = {}
    try:
        if prep.error:
            raise prep.error
        assert prep.art is not None
        # The cell's initramfs, whichever guest: one saved boot for all.
        initrd = cell_initrd(plan, prep, parts)
        for checks, log_name in guest_groups(plan):
            run = run_guest(dataclasses.replace(plan, checks=checks), prep,
                            parts, initrd, log_name,
                            on_line if not runs else None,
                            before_boot if not runs else None)
            runs.append(run)
            verdicts.update(run.verdicts)
            if len(runs) > 1:
                ktap_lines += ["", f"# {', '.join(checks)}: a guest of its "
                                   f"own ({log_name})"]
            ktap_lines += ktap.parse(run.boot.serial).lines
    except BenchError as exc:
        if not runs:
            verdict = Verdict(ERROR, str(exc))
            cell.verdicts = {c: verdict for c in plan.checks}
            return CellRun(cell)
        verdicts.update({c: Verdict(ERROR, str(exc)) for c in plan.checks
                         if c not in verdicts})
    boot = runs[0].boot
    cell.start = runs[0].how
    (cdir / "ktap.txt").write_text("\n".join(ktap_lines) + "\n")
    cell.release = prep.art.release
    cell.clock = plan.clock
    cell.boot_seconds = round(boot.seconds, 2)
    cell.first_ktap_seconds = (round(boot.first_ktap_secs, 2)
                               if boot.first_ktap_secs else None)
    cell.sinks = {k: v for run in runs for k, v in run.sinks.items()}
    cell.sink_refused = {k: v for run in runs
                         for k, v in run.sink_refused.items()}
    cell.sandbox = dict(sandbox.facts(boot.qemu_ids))
    cell.verdicts = {c: verdicts[c] for c in plan.checks}
    return CellRun(cell, boot)


def run_unbuilt(plan: CellPlan, prep: Prepared, parts: HostParts,
                blocked: Dict[str, str],
                on_line: Optional[LineHook] = None,
                before_boot: Optional[Callable[[], None]] = None
                ) -> CellRun:
    """A cell some of whose modules did not build: the checks that need
    them are not run (NOT_RUN, naming the module: counted neither as
    passed nor as failed, the build check's FAIL is the one cause, with
    the compiler's first error); the others still boot
    and run (the control and driverloader of a `none` cell whose
    ndiswrapper failed); the build check says what failed and why. No
    boot at all when only host-side checks would be left."""
    builds = cell_builds(plan, prep)
    build = registry.judge("build", CellFacts(
        ktap.parse(""), plan.exp, prep.kernel.policy, builds=builds))
    rest = tuple(c for c in plan.checks if c not in blocked)
    guest = [c for c in rest if not registry.get(c).host_side]
    ran: Optional[CellRun] = None
    if guest:
        ran = run_plan(dataclasses.replace(plan, checks=rest), prep, parts,
                       on_line, before_boot)
        cell = ran.result
    else:
        assert plan.folder is not None and plan.run_dir is not None
        plan.folder.mkdir(parents=True, exist_ok=True)
        cell = CellResult(prep.kernel.name, prep.kernel.policy.name,
                          plan.row,
                          str(plan.folder.relative_to(plan.run_dir)),
                          wrapper=plan.device.wrapper)
        # Not booted, but the kernel is known: report --by-kernel places
        # the cell by its release.
        cell.release = prep.art.release if prep.art else ""
    done = dict(cell.verdicts)
    verdicts: Dict[str, Verdict] = {}
    for check in plan.checks:
        if check == "build":
            verdicts[check] = build
        elif check in blocked:
            verdicts[check] = Verdict(
                NOT_RUN, f"{blocked[check]}.ko did not build for this "
                         f"kernel (see build)")
        elif check in done:
            verdicts[check] = done[check]
        else:
            verdicts[check] = Verdict(NOT_RUN, "the cell did not boot "
                                               "(see build)")
    cell.verdicts = verdicts
    return CellRun(cell, ran.boot if ran else None)
