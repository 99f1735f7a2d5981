"""What one cell is and what it needs: CellPlan (one guest: kernel,
device, checks and every per-command variation as a field), cells() (the
cells of a kernel: one per device row, one per check that asks for a cell
of its own), needs() (the one place that says which of our modules a cell
loads, which each check cannot run without, and which host services its
checks ask for), and Prepared (one kernel's image and built modules, or
why not: prepare())."""
import dataclasses
import pathlib
import threading
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, \
    Sequence, Tuple

from ..build import modules
from ..build.cache import Cache
from ..build.kbuild import KernelArtifact, kernel_artifact
from ..build.modules import BuiltModule
from ..checks import registry
from ..checks.check import Check
from ..checks.modload import LOAD_ORDER, module_base_bits
from .. import devices
from ..devices import Device
from ..errors import BenchError, BuildError
from ..guest import clock as guest_clock
from ..kernels import Expectations, Kernel
from ..progress import say


# The guest's timeout unless its checks' shares ask more (guest_timeout),
# seconds: what a hung guest costs. Every default cell fits in it
# (the longest, a USB radio wrapped with the WPA2 checks, asks 132 s).
GUEST_TIMEOUT_FLOOR = 150.0


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


@dataclasses.dataclass(frozen=True)
class Needs:
    """What a device's cell of some checks needs from us: the test modules
    the agent loads (roles, in load order) and those the checks load after
    them (extras); per check, the modules it cannot run without; the host
    services its checks ask for (a sink per check, QMP requests)."""
    roles: Tuple[str, ...]
    extras: Tuple[str, ...]
    # The device's driver is installed through the wrapper (a wrapped
    # device with a check past `broken`).
    wrapper: bool
    by_check: Dict[str, Tuple[str, ...]]
    sinks: Dict[str, str]           # check -> its sink's kind (check.py)
    qmp: FrozenSet[str]             # QMP_HOTPLUG, QMP_ROAM


def needs(device: Device, check_names: Sequence[str]) -> Needs:
    """Which modules and services a cell of these checks on this device
    needs: each check's own role and extra modules, and on a wrapped
    device whose checks install its driver, the wrapper."""
    units = [registry.get(c) for c in check_names]
    wrapper = bool(device.fixture) and any(u.installs_driver for u in units)
    by_check: Dict[str, Tuple[str, ...]] = {}
    for unit in units:
        own = [unit.role] if unit.role else []
        if unit.installs_driver and wrapper:
            own.append("ndiswrapper")
        by_check[unit.name] = tuple(own + list(unit.extra_modules))
    wanted = {u.role for u in units if u.role} | (
        {"ndiswrapper"} if wrapper else set())
    return Needs(tuple(r for r in LOAD_ORDER if r in wanted),
                 tuple(dict.fromkeys(m for u in units
                                     for m in u.extra_modules)),
                 wrapper, by_check,
                 {u.name: u.sink for u in units if u.sink},
                 frozenset(u.qmp for u in units if u.qmp))


def own_cell_device(check: Check) -> Device:
    """The guest of a check that asks for a cell of its own
    (Check.own_cell): no network hardware, named after the check. It is
    not a row of the matrix: `--device` does not know it."""
    return Device(check.name, f"the {check.name} check's own cell: no "
                              f"network device")


def cells(rows: Sequence[Device], selected: Sequence[str]
          ) -> List[Tuple[Device, Tuple[str, ...]]]:
    """The cells of one kernel (device, checks), in matrix order: each row
    with the selected checks that apply to it, then one cell per selected
    check that asks for a cell of its own, with the selected host-side
    checks beside it. When every guest check selected has a cell of its
    own, the rows, which would hold only host-side checks, run no cell."""
    units = [registry.get(c) for c in selected]
    own = [u for u in units if u.own_cell]
    others = [u for u in units if not u.own_cell and not u.host_side]
    out: List[Tuple[Device, Tuple[str, ...]]] = []
    for row in rows if others or not own else ():
        checks = tuple(registry.for_device(row, selected))
        if checks:
            out.append((row, checks))
    for unit in own:
        out.append((own_cell_device(unit), tuple(
            u.name for u in units if u is unit or u.host_side)))
    return out


def device_rows(names: Optional[List[str]],
                wrappers: Optional[List[str]] = None) -> List[Device]:
    """devices.select(), where a check's name (one with a cell of its own)
    given as a row is one line saying to name it with --check."""
    own = [c.name for c in registry.all_checks() if c.own_cell]
    for name in names or []:
        if name in own:
            raise BenchError(f"--device {name}: not a device row; the "
                             f"{name} check runs in a cell of its own: use "
                             f"--check {name}")
    return devices.select(names, wrappers)


def builds_for(cells: Iterable[Tuple[Device, Sequence[str]]]
               ) -> Tuple[List[str], List[str]]:
    """(roles, extra modules) a kernel must build for these cells (device,
    checks): every cell's needs, roles in load order."""
    roles: set = set()
    extras: Dict[str, None] = {}
    for device, check_names in cells:
        cell = needs(device, check_names)
        roles.update(cell.roles)
        extras.update(dict.fromkeys(cell.extras))
    return sorted(roles, key=LOAD_ORDER.index), list(extras)


class Artifacts:
    """kernel_artifact() once per kernel in a run: the runner's
    fetch-ahead thread and the kernel's own prepare() share the result
    (resolving a Debian kernel's packages is seconds of apt-cache even
    when everything is cached). A failure is not kept: the next caller
    tries again and reports it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._per: Dict[str, Tuple[threading.Lock, List[KernelArtifact]]] \
            = {}

    def get(self, kernel: Kernel, cache: Cache) -> KernelArtifact:
        with self._lock:
            lock, box = self._per.setdefault(kernel.name,
                                             (threading.Lock(), []))
        with lock:
            if not box:
                box.append(kernel_artifact(kernel, cache))
            return box[0]


def prepare(kernel: Kernel, cache: Cache, exp: Expectations,
            roles: Sequence[str],
            wrapper_src: Optional[pathlib.Path] = None,
            extras: Sequence[str] = (),
            artifacts: Optional[Artifacts] = None) -> Prepared:
    """The kernel and its test modules: ours are checked against the
    expectation table; the ndiswrapper of a --wrapper-src tree brings its
    own list of GPL-only imports."""
    try:
        art = (artifacts or Artifacts()).get(kernel, cache)
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


def fetch_ahead(kernel: Kernel, cache: Cache, exp: Expectations,
                roles: Sequence[str],
                wrapper_src: Optional[pathlib.Path] = None,
                artifacts: Optional[Artifacts] = None) -> None:
    """The part of prepare() that waits on the network, not the CPU: a
    Debian kernel's packages and, when a module must be built for it, its
    suite's chroot. The runner does this for the kernels ahead while the
    earlier ones build and boot; prepare() then finds both in the cache
    (its locks keep the two threads from making one thing twice)."""
    if not kernel.is_debian:
        return
    art = (artifacts or Artifacts()).get(kernel, cache)
    chain = modules.toolchain(art, cache)
    if chain.recipe is None:
        return
    if wrapper_src is None and all(
            modules.module_cached(art, module_file(r, exp), cache)
            for r in roles):
        return
    chain.chroot        # the property makes it (chroot.ensure)


def module_file(key: str, exp: Expectations) -> str:
    """The module a role (or an extra module's name) stands for."""
    return exp.module_names.get(key, key)


def check_needs(plan: "CellPlan", check: str) -> List[str]:
    """The modules of ours (roles, extra module names) a check of the
    cell cannot run without (needs())."""
    return list(plan.needs.by_check[check])


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


@dataclasses.dataclass(frozen=True)
class Probe:
    """What a caller asks of a cell's guest beyond its checks (soak): sinks
    of its own, each counting many streams one after the other; QMP
    requests for the device's hot-unplug; and the agent words it adds once
    the sinks' ports are known (services.py serves them)."""
    streams: Tuple[str, ...] = ()
    hotplug: bool = False
    params: Optional[Callable[[Dict[str, int]], Tuple[str, ...]]] = None


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
    timeout: float = GUEST_TIMEOUT_FLOOR    # the floor of the guest's timeout, s
    wrapper_src: Optional[pathlib.Path] = None  # its ioctls are not ours
    # The guest clock (guest/clock.py): real time unless the command asks
    # (run does; pair, soak and the KVM probe do not).
    clock: str = guest_clock.REALTIME
    # The per-command variations:
    side: str = ""              # pair: "A" or "B", the row's prefix
    peer: str = ""              # pair: the other guest's address
    lease: str = ""             # the address dhcp must get ("": table's)
    tcp_bytes: int = 0          # the TCP stream (0: the table's 4 MiB)
    profile_hz: int = 0         # the agent samples the tcp stream (bench)
    qemu_args: Optional[Tuple[str, ...]] = None  # None: the device's
    keep_air: bool = False      # write air.pcap without the capture check
    probe: Optional[Probe] = None           # soak's own sinks and QMP
    extra_qemu_args: Tuple[str, ...] = ()   # the caller's -pidfile
    # Restore the guest from a saved boot of the same machine, or save
    # this one's (guest/snapshot.py): run does; pair and soak do not (two
    # guests on one air, a soak's own timing).
    snapshot: bool = False

    @property
    def needs(self) -> Needs:
        return needs(self.device, self.checks)

    @property
    def roles(self) -> List[str]:
        return list(self.needs.roles)

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




def native_first(plan: CellPlan, prep: Prepared) -> str:
    """The kernel's own driver the cell's device is bound to before the
    wrapper takes it (Device.native_first, where this kernel has it)."""
    name = plan.device.native_first
    if not name or prep.art is None or not modules.kernel_has(
            prep.art.modules_dir, name):
        return ""
    return name

