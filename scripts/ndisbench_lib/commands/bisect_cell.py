"""The bisect command's real judge: one cell per step through the cell
pipeline (cell.py), the step's tree as the cell's wrapper tree (as `run
--wrapper-src` passes one: its module is a cache entry keyed by the
tree's contents, so a tree seen before is not rebuilt), the guest
restored from a saved boot where run would restore it.

A step's verdict: the wrapper tree does not build for the kernel (build
FAIL, the compiler's first error; nothing boots); only `build` selected:
it builds (pass, no boot); else the selected checks of the cell, or all
of them by default: one FAIL is FAIL, else an ERROR or TIMEOUT means the
step could not be judged."""
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

from .. import devices, kernels, paths
from ..build import modules
from ..build.cache import Cache
from ..checks import registry
from ..checks.modload import LOAD_ORDER
from ..devices import Device
from ..errors import BenchError
from ..guest import clock as guest_clock
from ..progress import say
from ..report import report
from ..report.verdict import ERROR, FAIL, TIMEOUT, Verdict
from . import bisect, revisions
from ..cell.compose import resolve_accel
from ..cell.parts import HostParts, host_parts
from ..cell.plan import CellPlan, build_cause, needs, prepare
from ..cell.run import run_plan

WRAPPER_ROLE = "ndiswrapper"
BUILD = "build"


def outcome_of(verdicts: Dict[str, Verdict], checks: Sequence[str]
               ) -> bisect.Outcome:
    """The step's verdict from the cell's: the first failing check, else
    the first that could not be judged, else pass."""
    missing = Verdict(ERROR, "no verdict")
    for check in checks:
        verdict = verdicts.get(check, missing)
        if verdict.status == FAIL:
            return bisect.Outcome(bisect.FAIL_WORD,
                                  f"{check}: {verdict.summary}")
    for check in checks:
        verdict = verdicts.get(check, missing)
        if verdict.status in (ERROR, TIMEOUT):
            return bisect.Outcome(verdict.status,
                                  f"{check}: {verdict.summary}")
        if not verdict.ok:
            return bisect.Outcome(ERROR, f"{check}: {verdict.status}: "
                                         f"{verdict.summary}")
    return bisect.Outcome(bisect.PASS_WORD, f"{len(checks)} check(s) "
                                            f"passed: {', '.join(checks)}")


def build_outcome(exc: BenchError) -> bisect.Outcome:
    return bisect.Outcome(bisect.BUILD_FAIL_WORD, build_cause(exc))


def pick_device(name: str) -> Device:
    """One row: a label, or a name whose rows have one ndiswrapper
    row (the wrapper tree is an ndiswrapper)."""
    if name in devices.DEVICES:
        return devices.DEVICES[name]
    rows = devices.select([name])
    wrapped = [d for d in rows if d.wrapper == WRAPPER_ROLE]
    if len(rows) == 1 or len(wrapped) == 1:
        return rows[0] if len(rows) == 1 else wrapped[0]
    raise BenchError(f"--device {name}: {len(rows)} rows ("
                     f"{', '.join(d.label for d in rows)}); name one")


def cell_checks(device: Device, names: Optional[List[str]]) -> List[str]:
    """The checks a step's cell runs: those named (each must run on the
    device) or the default ones that do, and build."""
    selected = registry.select((names or registry.default_names()) +
                               [BUILD])
    checks = registry.for_device(device, selected)
    off = [c for c in selected if c not in checks and names and c in names]
    if off:
        raise BenchError(f"--check {', '.join(off)}: not run on "
                         f"{device.label}")
    return checks


class CellJudge:
    """bisect.Judge: one cell of the kernel and device per step."""

    def __init__(self, kernel: kernels.Kernel, device: Device,
                 checks: Sequence[str], judged: Sequence[str],
                 exp: kernels.Expectations,
                 cache: Cache, run_dir: pathlib.Path, timeout: float,
                 accel: str, clock: str, snapshots: bool) -> None:
        self.kernel = kernel
        self.device = device
        self.checks = tuple(checks)
        self.judged = tuple(judged)     # the checks the verdict is of
        self.exp = exp
        self.cache = cache
        self.run_dir = run_dir
        self.timeout = timeout
        self.accel = accel
        self.resolved = ""
        self.clock = clock
        self.snapshots = snapshots
        self.count = 0
        self.parts: Optional[HostParts] = None
        cell = needs(device, checks)
        wanted = set(cell.roles) | {WRAPPER_ROLE}
        self.roles = [r for r in LOAD_ORDER if r in wanted]
        self.extras = list(cell.extras)

    def __call__(self, rev: str, tree: pathlib.Path) -> bisect.Outcome:
        self.count += 1
        try:
            return self._judge(rev, tree)
        except BenchError as exc:
            return bisect.Outcome(ERROR, str(exc))

    def _judge(self, rev: str, tree: pathlib.Path) -> bisect.Outcome:
        modules.check_wrapper_src(tree)
        prep = prepare(self.kernel, self.cache, self.exp, self.roles, tree,
                       self.extras)
        if prep.error:
            return bisect.Outcome(ERROR, str(prep.error))
        if WRAPPER_ROLE in prep.failed:
            return build_outcome(prep.failed[WRAPPER_ROLE])
        if self.checks == (BUILD,):
            return bisect.Outcome(bisect.PASS_WORD,
                                  f"built ndiswrapper.ko for "
                                  f"{prep.art.release if prep.art else ''}")
        parts = self._parts(tree)
        if not self.resolved:
            self.resolved = resolve_accel(self.accel, [prep], self.exp,
                                          parts)
        config = prep.art.config() if prep.art else None
        plan = CellPlan(
            self.kernel, self.device, self.checks, self.exp,
            self.run_dir / "cells" / f"{self.count:02d}-"
                                     f"{revisions.short(rev)}",
            self.run_dir, self.resolved, self.timeout, tree,
            clock=guest_clock.for_cell(self.clock, self.resolved,
                                       self.kernel.slowdown, config),
            snapshot=self.snapshots)
        cell = run_plan(plan, prep, parts).result
        for line in report.cell_lines(cell):
            say("cell", line)
        return outcome_of(cell.verdicts, self.judged)

    def _parts(self, tree: pathlib.Path) -> HostParts:
        """The agent, QEMU and fixtures (cached builds), and the tree's
        own tools for a wrapped device: looked up again per step only
        there, where the tools differ from tree to tree."""
        if self.parts is None or self.device.fixture:
            self.parts = host_parts([self.device], self.cache, tree,
                                    [self.kernel.arch])
        return self.parts


def run(spec: str, good: str, bad: str, kernel_name: str,
        device_name: str, check_names: Optional[List[str]],
        kernels_toml: pathlib.Path, out: pathlib.Path, timeout: float,
        accel: str, clock: str, snapshots: bool
        ) -> Tuple[pathlib.Path, bisect.Result]:
    """The bisect command: everything checked before its folder is made;
    out/bisect-<stamp>/ holds bisect.json, bisect.md and the cells."""
    source = revisions.parse_source(spec)
    bisect.check_range(revisions.Repo(source), good, bad)
    exp = kernels.load_expectations()
    kernel = kernels.select(kernels.load_kernels(kernels_toml, exp),
                            [kernel_name])[0]
    device = pick_device(device_name)
    checks = cell_checks(device, check_names)
    guest_clock.parse(clock)
    folder = paths.new_stamped_dir(out, "bisect-", "bisect")
    judged = registry.select(check_names) if check_names else checks
    judge = CellJudge(kernel, device, checks, judged, exp,
                      Cache(paths.cache_root()), folder, timeout, accel,
                      clock, snapshots)
    say("bisect", f"{source.label} {good}..{bad} on {kernel.name} / "
                  f"{device.label}, verdict of {', '.join(judged)}; "
                  f"results in {folder}")
    res = bisect.search(source, good, bad, judge, folder,
                        lambda line: say("bisect", line))
    bisect.write(folder, res, {"kernel": kernel.name,
                               "device": device.label,
                               "checks": list(checks),
                               "judged": list(judged)})
    return folder, res
