"""One `ndisbench run`: build what the selected cells need, boot every
kernel x device cell (in parallel up to -j), judge, and write the run
folder."""
import concurrent.futures
import dataclasses
import datetime
import os
import pathlib
import re
import threading
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ..guest import air
from ..checks import judge as chk
from ..guest import accel as accelerator
from ..guest import capture, machine
from ..build import initramfs, modules
from ..report import ktap, report
from ..build.cache import Cache
from ..devices import DEVICES, Device
from ..errors import BenchError
from ..build.hostbuild import build_agent, build_external_tools, \
    build_fixtures, guest_tools
from ..guest.qmp_requests import QmpRequests
from ..build.kbuild import KernelArtifact, kernel_artifact
from ..kernels import Expectations, Kernel
from ..build.modules import BuiltModule
from ..progress import fmt_secs, say
from ..guest.sink import TcpSink, UdpSink

# What fails a whole cell: oopses and WARNs, and the reports of the debug
# kernel's checkers (KASAN prints "BUG: KASAN", lockdep "WARNING: possible
# ...", "inconsistent lock state", "bad unlock balance"; kmemleak's scan,
# printed by the agent, "unreferenced object").
KERNEL_PROBLEM_RE = re.compile(
    r"(Kernel panic|BUG: |Oops: |general protection fault|WARNING: CPU:|"
    r"Call Trace:|WARNING: possible |WARNING: inconsistent lock state|"
    r"WARNING: bad unlock balance|WARNING: suspicious RCU usage|"
    r"unreferenced object 0x)")
MEMORY_MB = 512


@dataclasses.dataclass
class Prepared:
    """Everything one kernel's cells need, or why it could not be built."""
    kernel: Kernel
    art: Optional[KernelArtifact] = None
    built: Dict[str, BuiltModule] = dataclasses.field(
        default_factory=dict)          # role -> built test module
    base_bits: int = 0
    error: str = ""
    plant: Optional[BuiltModule] = None     # the `planted` check's module


@dataclasses.dataclass
class HostParts:
    """What the cells share: the agent, our QEMU and the fixtures (each
    built only when a selected device needs it, else an error string)."""
    cache: Cache
    agent: pathlib.Path
    qemu: Optional[pathlib.Path] = None
    qemu_error: str = ""
    fixtures: Optional[pathlib.Path] = None
    tools: Dict[str, pathlib.Path] = dataclasses.field(default_factory=dict)
    fixtures_error: str = ""


def host_parts(devices: Sequence[Device], cache: Cache,
               wrapper_src: Optional[pathlib.Path] = None) -> HostParts:
    parts = HostParts(cache, build_agent())
    if any(d.own_qemu for d in devices):
        # heavy: only when needed
        from ..build.qemu_build import build_qemu
        try:
            parts.qemu = build_qemu(cache)
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            parts.qemu_error = str(exc)
    if any(d.fixture for d in devices):
        try:
            parts.fixtures = build_fixtures(cache)
            parts.tools = (build_external_tools(wrapper_src, cache)
                           if wrapper_src else guest_tools())
        except BenchError as exc:
            say("build", f"ERROR: {exc}")
            parts.fixtures_error = str(exc)
    return parts


def prepare(kernel: Kernel, cache: Cache, exp: Expectations,
            roles: Sequence[str],
            wrapper_src: Optional[pathlib.Path] = None,
            plant: bool = False) -> Prepared:
    """The kernel and its test modules: ours are checked against the
    expectation table; the ndiswrapper of a --wrapper-src tree brings its
    own list of GPL-only imports."""
    try:
        art = kernel_artifact(kernel, cache)
        built = {}
        for role in roles:
            if role == "ndiswrapper" and wrapper_src:
                built[role] = modules.build_external_module(art, wrapper_src,
                                                            cache)
                continue
            mod = modules.build_module(art, exp.module_names[role], cache)
            modules.check_gpl_imports(mod, exp.gpl_imports_for(art.config()),
                                      art)
            built[role] = mod
        base = chk.module_base_bits(art.config(), exp.taint_bits)
        planted = modules.build_plant_module(art, cache) if plant else None
        return Prepared(kernel, art, built, base, plant=planted)
    except BenchError as exc:
        say("build", f"ERROR: {exc}")
        return Prepared(kernel, error=str(exc))


FIXTURE_DIR = "lib/ndisbench/fixtures"


def fixture_inf(device: Device) -> str:
    return f"/{FIXTURE_DIR}/{device.fixture}/{device.fixture}.inf"


def cell_extra_files(device: Device, check_names: Sequence[str],
                     exp: Expectations, parts: HostParts
                     ) -> Dict[str, Tuple[bytes, int]]:
    """The Windows driver a wrapped device uses and the wrapper's tools;
    iw and its libraries where the guest connects with iw."""
    iw = initramfs.host_program_files() if device.connect_ssid else {}
    if not device.fixture:
        return iw
    if parts.fixtures is None:
        raise BenchError(parts.fixtures_error or "fixtures not built")
    extra = {guest_path: (tool.read_bytes(), 0o755)
             for guest_path, tool in parts.tools.items()}
    # Tools of a --wrapper-src tree may be dynamically linked.
    extra.update(initramfs.library_files(parts.tools.values()))
    wanted = [(device.fixture, device.fixture)]
    if "broken" in check_names:
        wanted += [("broken", name) for name in exp.broken]
    for folder, name in wanted:
        for suffix in (".sys", ".inf"):
            extra[f"{FIXTURE_DIR}/{folder}/{name}{suffix}"] = (
                (parts.fixtures / folder / f"{name}{suffix}").read_bytes(),
                0o644)
    extra.update(iw)
    return extra


def cell_initrd(prep: Prepared, device: Device, check_names: Sequence[str],
                exp: Expectations, parts: HostParts) -> pathlib.Path:
    """The initramfs of one cell: its test modules, the in-tree modules
    they and the device need, the device's fixture driver and tools."""
    assert prep.art is not None
    roles = cell_roles(device, check_names)
    kos = {prep.built[r].name: prep.built[r].ko.read_bytes()
           for r in roles}
    if "planted" in check_names and prep.plant is not None:
        kos[prep.plant.name] = prep.plant.ko.read_bytes()
    wanted: List[str] = []
    for name in [d for r in roles for d in prep.built[r].depends] + \
            list(device.guest_modules):
        if name not in wanted:
            wanted.append(name)
    deps = [(modules.modfile(p), modules.module_bytes(p))
            for p in modules.dependency_paths(prep.art, wanted)]
    return initramfs.build(parts.agent, kos, deps, parts.cache,
                           cell_extra_files(device, check_names, exp, parts))


def cell_dir(run_dir: pathlib.Path, kernel: str, device: Device
             ) -> pathlib.Path:
    name = "__".join([kernel, device.name] + [device.wrapper] * bool(
        device.wrapper))
    return run_dir / "cells" / name


def kernel_problem(serial: str) -> str:
    for line in serial.splitlines():
        if KERNEL_PROBLEM_RE.search(line):
            return line.strip()
    return ""


def read_capture(pcap: pathlib.Path) -> chk.AirCapture:
    """Read the air's capture with tshark, then keep it gzipped."""
    if not pcap.exists():
        return chk.AirCapture(error=f"QEMU wrote no {pcap.name}")
    try:
        air = chk.AirCapture(capture.read_frames(pcap),
                             capture.file_problems(pcap),
                             path=pcap.name + ".gz")
    except BenchError as exc:
        air = chk.AirCapture(error=str(exc))
    capture.compress(pcap)
    return air


def judge_cell(prep: Prepared, exp: Expectations, check_names: Sequence[str],
               roles: Sequence[str], boot: machine.BootResult,
               log_path: pathlib.Path,
               sink_bytes: Optional[Dict[str, Optional[int]]] = None,
               device: Optional[Device] = None) -> Dict[str, chk.Verdict]:
    """sink_bytes: per check (tcp, hotplug), what the host's sink got."""
    capture = read_capture(log_path.parent / "air.pcap") \
        if "capture" in check_names else None
    if boot.status == "timeout":
        verdict = chk.Verdict(chk.TIMEOUT, f"guest killed after "
                              f"{fmt_secs(boot.seconds)} (log kept: "
                              f"{log_path})")
        return {c: verdict for c in check_names}
    log = ktap.parse(boot.serial)
    exp = dataclasses.replace(exp, role_gpl_imports={
        role: mod.gpl_imports for role, mod in prep.built.items()})
    fixture = device.fixture if device else ""
    native = device.native_driver if device else ""
    sinks = sink_bytes or {}
    iw_ssid = device.connect_ssid if device else ""
    config = prep.art.config() if prep.art else None
    verdicts = {c: chk.judge(c, prep.kernel.policy, exp, log, roles,
                             prep.base_bits, sinks.get(c), fixture, native,
                             capture, iw_ssid, config)
                for c in check_names}
    problem = kernel_problem(boot.serial)
    if problem:
        downgrade = chk.Verdict(chk.FAIL, f"kernel reported: {problem}")
    elif not log.complete:
        downgrade = chk.Verdict(chk.ERROR, "agent did not finish (guest "
                                f"stopped, exit {boot.exit_code})")
    else:
        return verdicts
    # The planted check wants the kernel's reports: it judges them itself.
    return {c: (downgrade if v.ok and (c != "planted" or not problem)
                else v) for c, v in verdicts.items()}


def kernel_cmdline(exp: Expectations, device: Device, check_names:
                   Sequence[str], roles: Sequence[str],
                   ports: Optional[Dict[str, int]] = None,
                   slowdown: int = 1) -> str:
    """What the agent is asked to do, on the kernel command line. ports:
    the host sinks of the traffic checks (tcp, udp, hotplug)."""
    ports = ports or {}
    # Only emergencies and alerts on the console (an oops raises it by
    # itself): async messages would cut into the agent's lines. The agent
    # prints the warnings and worse of the kernel log at the end.
    words = ["console=ttyS0", "loglevel=2", "panic=-1"]
    if device.fixture and "broken" in check_names:
        words.append("ndisbench.broken=" + ",".join(
            f"/{FIXTURE_DIR}/broken/{name}.inf" for name in exp.broken))
    if needs_wrapper(device, check_names):
        words.append(f"ndisbench.install={fixture_inf(device)}")
    loads = [exp.module_names[r] for r in roles]
    if "planted" in check_names:
        loads.append(modules.PLANT_MODULE)
    if loads:
        words.append("ndisbench.load=" + ",".join(loads))
    if device.ifname and any(c in chk.IFACE_CHECKS for c in check_names):
        words.append(f"ndisbench.net={device.ifname}")
    if device.usb_id:
        words.append(f"ndisbench.usb={device.usb_id}")
    if device.connect_ssid:
        words.append(f"ndisbench.connect={device.connect_ssid}")
    if "scan" in check_names:
        words.append("ndisbench.scan=1")
    if "ping" in check_names:
        words.append(f"ndisbench.ping={exp.network['ping_count']}")
    if "tcp" in ports:
        words.append(f"ndisbench.tcp={ports['tcp']}:"
                     f"{exp.network['tcp_bytes']}")
    if "udp" in ports:
        words.append(f"ndisbench.udp={ports['udp']}:"
                     f"{exp.network['udp_ms']}")
    if "hotplug" in ports:
        words.append(f"ndisbench.hotplug={ports['hotplug']}")
    if "roam" in check_names:
        words.append("ndisbench.roam=1")
    if slowdown > 1:
        words.append(f"ndisbench.slowdown={slowdown}")
    return " ".join(words)


def guest_command(prep: Prepared, device: Device, initrd: pathlib.Path,
                  append: str, accel: str, parts: HostParts,
                  extra_args: Sequence[str] = (),
                  cdir: Optional[pathlib.Path] = None,
                  capture: bool = False) -> List[str]:
    assert prep.art is not None
    qemu = None
    if device.own_qemu:
        if parts.qemu is None:
            raise BenchError(parts.qemu_error or "QEMU not built")
        qemu = str(parts.qemu)
    return machine.qemu_command(prep.art.boot_image, initrd, append, accel,
                                MEMORY_MB, cell_qemu_args(
                                    device.qemu_args, cdir, capture) +
                                list(extra_args), qemu)


def cell_qemu_args(args: Sequence[str], cdir: Optional[pathlib.Path],
                   capture: bool) -> List[str]:
    """A device's QEMU arguments for one cell: "{cell}" is its folder; the
    air writes air.pcap only when the capture check wants it."""
    out = []
    for arg in args:
        if not capture or cdir is None:
            arg = arg.replace(air.PCAP_OPTION, "")
        out.append(arg.replace("{cell}", str(cdir)))
    return out


def resolve_accel(requested: str, preps: Sequence[Prepared],
                  exp: Expectations, parts: HostParts) -> str:
    ready = [p for p in preps if not p.error]
    if requested != "auto" or not ready:
        return "tcg" if requested == "auto" else requested
    none = DEVICES["none"]
    initrd = cell_initrd(ready[0], none, [], exp, parts)
    probe = guest_command(ready[0], none, initrd,
                          kernel_cmdline(exp, none, [], [], None), "kvm",
                          parts)
    return accelerator.resolve(requested, probe, parts.cache)


def cell_checks(device: Device, selected: Sequence[str]) -> List[str]:
    return [c for c in selected if c in device.checks]


def needs_wrapper(device: Device, check_names: Sequence[str]) -> bool:
    """A wrapped device's checks past `broken` all need its driver
    installed and the wrapper loaded, whichever of them were selected."""
    return bool(device.fixture) and any(
        c not in ("broken",) + chk.MODULE_CHECKS for c in check_names)


def cell_roles(device: Device, check_names: Sequence[str]) -> List[str]:
    """Module roles the agent loads in a cell, in load order."""
    roles = chk.modules_for(check_names)
    if "ndiswrapper" not in roles and (
            needs_wrapper(device, check_names) or "broken" in check_names):
        roles.append("ndiswrapper")
    return [r for r in chk.LOAD_ORDER if r in roles]


def run_cell(prep: Prepared, device: Device, exp: Expectations,
             check_names: Sequence[str], parts: HostParts,
             run_dir: pathlib.Path, timeout: float, accel: str
             ) -> report.CellResult:
    cdir = cell_dir(run_dir, prep.kernel.name, device)
    cdir.mkdir(parents=True, exist_ok=True)
    cell = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                             device.name, str(cdir.relative_to(run_dir)),
                             wrapper=device.wrapper)
    roles = cell_roles(device, check_names)
    sinks: Dict[str, Union[TcpSink, UdpSink]] = {}
    plug: Optional[QmpRequests] = None
    try:
        if prep.error:
            raise BenchError(prep.error)
        assert prep.art is not None
        initrd = cell_initrd(prep, device, check_names, exp, parts)
        sinks = {c: UdpSink() if c == "udp" else TcpSink()
                 for c in ("tcp", "udp", "hotplug") if c in check_names}
        roam = air.ROAM_FROM.ident if "roam" in check_names else ""
        plug = QmpRequests(device.hotplug if "hotplug" in sinks else "",
                           roam) if "hotplug" in sinks or roam else None
        append = kernel_cmdline(exp, device, check_names, roles,
                                {c: s.port for c, s in sinks.items()},
                                prep.kernel.slowdown)
        cmd = guest_command(prep, device, initrd, append, accel, parts,
                            plug.qemu_args() if plug else (), cdir,
                            "capture" in check_names)
    except BenchError as exc:
        for sink in sinks.values():
            sink.close()
        if plug:
            plug.close()
        verdict = chk.Verdict(chk.ERROR, str(exc))
        cell.verdicts = {c: verdict for c in check_names}
        return cell
    say("cell", f"{prep.kernel.name} / {device.label}: booting "
                f"{prep.art.boot_image.name} ({prep.art.release})")
    log_path = cdir / "serial.log"
    try:
        boot = machine.boot(cmd, log_path, timeout * prep.kernel.slowdown,
                            on_line=plug.on_line if plug else None)
    finally:
        sink_bytes = {c: sink.close() for c, sink in sinks.items()}
        if "hotplug" in sinks:
            # A stream cut by the unplug never ends: what arrived counts.
            sink_bytes["hotplug"] = sinks["hotplug"].count
        if plug:
            plug.close()
    (cdir / "ktap.txt").write_text("\n".join(ktap.parse(boot.serial).lines)
                                   + "\n")
    cell.release = prep.art.release
    cell.boot_seconds = round(boot.seconds, 2)
    cell.first_ktap_seconds = (round(boot.first_ktap_secs, 2)
                               if boot.first_ktap_secs else None)
    cell.sinks = sink_bytes
    cell.verdicts = judge_cell(prep, exp, check_names, roles, boot, log_path,
                               sink_bytes, device)
    return cell


def new_run_dir(out: pathlib.Path) -> pathlib.Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        run_dir = out / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            run_dir.mkdir(parents=True)
            return run_dir
        except FileExistsError:
            continue
    raise BenchError(f"{out}: cannot create a run folder")


@dataclasses.dataclass(frozen=True)
class Matrix:
    """The selected cells: kernels x devices, each running the checks;
    wrapper_src: a wrapper tree to test instead of wrapper/."""
    kernels: Sequence[Kernel]
    devices: Sequence[Device]
    checks: Sequence[str]
    exp: Expectations
    wrapper_src: Optional[pathlib.Path] = None


def build_order(kernels: Sequence[Kernel]) -> List[Kernel]:
    """Cheapest first, so results stream while the slow kernels build:
    Debian's prebuilt images (a download and module builds) and users'
    trees (module builds), then the source kernels in matrix order, the
    slow debug kernels last."""
    def cost(kernel: Kernel) -> int:
        if not kernel.is_built:
            return 0
        return 2 if kernel.slowdown > 1 else 1
    return sorted(kernels, key=cost)


def run(matrix: Matrix, cache: Cache, out: pathlib.Path, jobs: int,
        timeout: float, accel: str) -> report.RunResult:
    """Cells start as soon as their kernel is ready: kernels are prepared
    one at a time (build_order) while earlier kernels' cells boot. A build
    holds one of the -j slots, so guests and kbuild do not pile up on the
    cores."""
    exp = matrix.exp
    cells = [(d, cell_checks(d, matrix.checks)) for d in matrix.devices]
    cells = [(d, cs) for d, cs in cells if cs]
    if not cells:
        raise BenchError("no selected check applies to the selected "
                         "device(s)")
    roles = sorted({r for d, cs in cells for r in cell_roles(d, cs)},
                   key=chk.LOAD_ORDER.index)
    parts = host_parts([d for d, _ in cells], cache, matrix.wrapper_src)
    if matrix.wrapper_src:
        exp = dataclasses.replace(exp, own_loader_abi=False)
    plant = any("planted" in cs for _, cs in cells)
    run_dir = new_run_dir(out)
    say("run", f"{len(matrix.kernels) * len(cells)} cell(s) on "
               f"{len(matrix.kernels)} kernel(s), -j{jobs}, results in "
               f"{run_dir}; each kernel's cells start once it is built")
    used = [c for c in matrix.checks if any(c in cs for _, cs in cells)]
    result = report.RunResult(run_dir.name, accel=accel, checks=used)
    slots = threading.BoundedSemaphore(max(1, jobs))
    lock = threading.Lock()

    def one_cell(prep: Prepared, device: Device, checks: Sequence[str]
                 ) -> None:
        with slots:
            cell = run_cell(prep, device, exp, checks, parts, run_dir,
                            timeout, result.accel)
        for line in report.cell_lines(cell):
            say("cell", line)
        with lock:
            result.cells.append(cell)

    resolved = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = []
        for kernel in build_order(matrix.kernels):
            with slots:
                prep = prepare(kernel, cache, exp, roles,
                               matrix.wrapper_src, plant)
                if not resolved and not prep.error:
                    result.accel = resolve_accel(accel, [prep], exp, parts)
                    resolved = True
                    say("run", f"accel {result.accel}")
            futures += [pool.submit(one_cell, prep, d, cs) for d, cs in cells]
        if not resolved:
            result.accel = "tcg" if accel == "auto" else accel
        for fut in futures:
            fut.result()
    order = {(k.name, d.name, d.wrapper): i
             for i, (k, (d, _)) in enumerate(
                 (k, c) for k in matrix.kernels for c in cells)}
    result.cells.sort(key=lambda c: order[(c.kernel, c.device, c.wrapper)])
    report.write(run_dir, result)
    return result


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)
