"""Running one cell: its guests (the main one, and one per check that
needs a guest of its own), each started, served and judged (run_guest);
a cell some of whose modules did not build runs what it can
(run_unbuilt)."""
import dataclasses
import pathlib
from typing import Callable, Dict, List, Optional, Tuple

from ..checks import known, registry
from ..checks.check import CellFacts
from ..errors import BenchError
from ..guest import air, capture, machine, sandbox
from ..progress import say
from ..report import ktap
from ..report.report import CellResult
from ..report.verdict import ERROR, NOT_RUN, Verdict
from .compose import capture_max, cell_initrd, kernel_cmdline
from .judge import ParsedSerial, judge_cell, read_serial
from .parts import HostParts
from .plan import CellPlan, Prepared, cell_builds, blocked_checks
from .services import Services
from .start import GuestStart, LineHook


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
    serial: ParsedSerial        # its serial log, read once
    # per check, the peers its sink refused (not the cell's QEMU)
    sink_refused: Dict[str, int] = dataclasses.field(default_factory=dict)
    # the plan's probe: each of its sinks' streams, QMP's errors
    streams: Dict[str, List[int]] = dataclasses.field(default_factory=dict)
    qmp_errors: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class CellRun:
    """What run_plan gives back: the cell's result (as results.json keeps
    it), the boot it came from (None: it never booted) and its main
    guest's run."""
    result: CellResult
    boot: Optional[machine.BootResult] = None
    guest: Optional[GuestRun] = None


def run_guest(plan: CellPlan, prep: Prepared, parts: HostParts,
              initrd: pathlib.Path, log_name: str,
              on_line: Optional[LineHook],
              before_boot: Optional[Callable[[], None]]) -> GuestRun:
    """Boot (or restore) one guest of the cell's initramfs with the plan's
    checks and judge them; a BenchError if it cannot start."""
    assert plan.folder is not None and prep.art is not None
    checks = plan.units
    services = Services(plan)
    try:
        append = kernel_cmdline(plan, services.ports)
        start = GuestStart(plan, prep, parts, initrd, append,
                           services.qemu_args())
        if before_boot:
            before_boot()
    except BenchError:
        services.close()
        raise
    say("cell", f"{prep.kernel.name} / {plan.device.label}: "
                f"{start.verb} {prep.art.boot_image.name} "
                f"({prep.art.release})" +
                ("" if log_name == "serial.log" else f" for {log_name}"))
    try:
        boot = start.boot(plan.folder / log_name, plan.guest_timeout,
                          services.on_line(on_line),
                          services.qemu_pid.started)
    finally:
        services.close()
        for name, n in services.refused.items():
            say("cell", f"WARNING: {prep.kernel.name} / "
                        f"{plan.device.label}: the {name} sink refused {n} "
                        f"peer(s) other than the cell's QEMU")
        start.close()
    pcap = plan.folder / "air.pcap"
    wpa_network = (air.WPA2_AP.ssid, air.WPA2_AP.passphrase) \
        if any(c.wpa2_network for c in checks) else None
    air_read = capture.read(pcap, wpa_network, capture_max(plan)) \
        if any(c.air_capture for c in checks) else None
    if air_read is None and pcap.exists():
        capture.compress(pcap)
    serial = read_serial(boot.serial)
    # Another wrapper tree's known disagreements carry their reason.
    verdicts = known.annotate(serial.log, plan.exp,
                              judge_cell(plan, prep, boot, services.counts,
                                         air_read, log_name, serial))
    return GuestRun(boot, start.how, verdicts, services.counts, serial,
                    services.refused, services.stream_bytes,
                    services.qmp_errors)


def run_plan(plan: CellPlan, prep: Prepared, parts: HostParts,
             on_line: Optional[LineHook] = None,
             before_boot: Optional[Callable[[], None]] = None,
             main_judged: Optional[Callable[[], None]] = None) -> CellRun:
    """Run one cell as planned and judge it: one guest, or the main guest
    and one per own-guest check (guest_groups), all of one initramfs, so
    the first saves the boot and the others restore it. on_line: the
    caller's own console hook (soak's cycles, pair's start of B), on the
    main guest; before_boot: called once everything is ready, just before
    QEMU first starts (it may wait; a BenchError from it is the cell's
    ERROR); main_judged: called when the main guest is judged and another
    guest is to start."""
    assert plan.folder is not None and plan.run_dir is not None
    cdir = plan.folder
    cdir.mkdir(parents=True, exist_ok=True)
    cell = CellResult(prep.kernel.name, prep.kernel.policy.name, plan.row,
                      str(cdir.relative_to(plan.run_dir)),
                      wrapper=plan.device.wrapper)
    blocked = {} if prep.error else blocked_checks(plan, prep)
    if blocked:
        return run_unbuilt(plan, prep, parts, blocked, on_line, before_boot,
                           main_judged)
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
            # the caller's probe and hooks are the main guest's
            main = not runs
            if len(runs) == 1 and main_judged:
                main_judged()
            guest = dataclasses.replace(plan, checks=checks, probe=(
                plan.probe if main else None))
            run = run_guest(guest, prep, parts, initrd, log_name,
                            on_line if main else None,
                            before_boot if main else None)
            runs.append(run)
            verdicts.update(run.verdicts)
            if len(runs) > 1:
                ktap_lines += ["", f"# {', '.join(checks)}: a guest of its "
                                   f"own ({log_name})"]
            ktap_lines += run.serial.log.lines
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
    return CellRun(cell, boot, runs[0])


def run_unbuilt(plan: CellPlan, prep: Prepared, parts: HostParts,
                blocked: Dict[str, str],
                on_line: Optional[LineHook] = None,
                before_boot: Optional[Callable[[], None]] = None,
                main_judged: Optional[Callable[[], None]] = None
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
                       on_line, before_boot, main_judged)
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
