"""One `ndisbench run`: build what the selected cells need, boot every
kernel x device cell (in parallel up to -j) through the cell pipeline
(run.py), and write the run folder."""
import concurrent.futures
import dataclasses
import os
import pathlib
import threading
from typing import List, Optional, Sequence

from .. import paths, proc, subject
from ..build.cache import Cache
from ..checks import registry
from ..devices import Device
from ..errors import BenchError
from ..guest import clock as guest_clock
from ..guest import snapshot
from ..kernels import Expectations, Kernel
from ..progress import say
from ..report import report
from ..report.verdict import ERROR, Verdict
from . import phases
from . import shard as shardmod
from .compose import resolve_accel
from .parts import HostParts, host_parts
from .plan import (Artifacts, CellPlan, Prepared, builds_for, fetch_ahead,
                   needs, prepare)
from .plan import cells as kernel_cells
from .run import run_plan


@dataclasses.dataclass(frozen=True)
class Matrix:
    """The selected cells: kernels x devices, each running the checks;
    wrapper_src: a wrapper tree to test instead of wrapper/; tcp_bytes:
    the TCP stream of every cell (0: the table's)."""
    kernels: Sequence[Kernel]
    devices: Sequence[Device]
    checks: Sequence[str]
    exp: Expectations
    wrapper_src: Optional[pathlib.Path] = None
    tcp_bytes: int = 0
    shard: Optional[shardmod.Shard] = None   # run --shard I/N
    profile_hz: int = 0     # bench --profile: the tcp stream sampled
    # Restore each guest from its saved boot, saving it where none is
    # (guest/snapshot.py); run --no-snapshots boots every guest.
    snapshots: bool = True


def cell_checks(device: Device, selected: Sequence[str]) -> List[str]:
    return registry.for_device(device, selected)


def cell_roles(device: Device, check_names: Sequence[str]) -> List[str]:
    """Module roles the agent loads in a cell, in load order."""
    return list(needs(device, check_names).roles)


def cell_dir(run_dir: pathlib.Path, kernel: str, device: Device
             ) -> pathlib.Path:
    name = "__".join([kernel, device.name] + [device.wrapper] * bool(
        device.wrapper))
    return run_dir / "cells" / name


def runs_on(kernel: Kernel, device: Device) -> bool:
    """A row limited to some kernel sources (rtl8139/native: Debian's
    kernels, which ship 8139cp) has no cell on the others."""
    return not device.kernel_sources or kernel.source in \
        device.kernel_sources


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


def run_cell(prep: Prepared, plan: CellPlan, parts: HostParts,
             timer: Optional[phases.Clock] = None) -> report.CellResult:
    """One cell; timer: its phases (phases.json in the cell folder). The
    host failing under it (a full disk, a snapshot pruned by another run)
    is this cell's ERROR, not the run's end."""
    try:
        if timer is None:
            return run_plan(plan, prep, parts).result
        timer.begin()
        ran = run_plan(plan, prep, parts, on_line=timer.on_line,
                       before_boot=timer.before_boot,
                       main_judged=timer.main_judged)
        timer.finish(ran.boot.seconds if ran.boot else None)
        return ran.result
    except OSError as exc:
        return host_error_cell(plan, prep, exc)


def host_cause(exc: OSError) -> str:
    """"host: <what failed> (<file>)": the one line of a host failure."""
    what = exc.strerror or str(exc)
    return f"host: {what}" + (f" ({exc.filename})" if exc.filename
                              else "")


def host_error_cell(plan: CellPlan, prep: Prepared, exc: OSError
                    ) -> report.CellResult:
    assert plan.folder is not None and plan.run_dir is not None
    result = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                               plan.row,
                               str(plan.folder.relative_to(plan.run_dir)),
                               wrapper=plan.device.wrapper)
    result.release = prep.art.release if prep.art else ""
    verdict = Verdict(ERROR, host_cause(exc))
    result.verdicts = {c: verdict for c in plan.checks}
    return result


def stop_reason(exc: BaseException) -> str:
    """Why a run stopped before its end, as results.json says it."""
    if isinstance(exc, KeyboardInterrupt):
        return getattr(exc, "signal_name", "SIGINT")
    return f"bench crashed: {type(exc).__name__}: {exc}"


def cell_clock(requested: str, accel: str, prep: Prepared,
               result: report.RunResult) -> str:
    """The clock of a cell of this kernel; why it is real time when
    icount was asked goes into the result (once per kernel)."""
    config = prep.art.config() if prep.art is not None else None
    why = guest_clock.why_realtime(accel, prep.kernel.slowdown, config)
    if requested == guest_clock.ICOUNT and why:
        result.realtime[prep.kernel.name] = why
    return guest_clock.for_cell(requested, accel, prep.kernel.slowdown,
                                config)


def fetch_kernels_ahead(kernels: Sequence[Kernel], cache: Cache,
                        exp: Expectations, roles: Sequence[str],
                        wrapper_src: Optional[pathlib.Path],
                        artifacts: Optional[Artifacts] = None) -> List[str]:
    """In build order, what of each kernel waits on the network (Debian
    packages, a suite's chroot: minutes each on a cold cache), beside the
    builds and boots that hold the CPU. A failure here is only a note:
    prepare() does the same work again and reports it for the cells.
    Returns the kernels whose fetch failed."""
    failed: List[str] = []
    for kernel in kernels:
        if proc.cancelled():
            break
        try:
            fetch_ahead(kernel, cache, exp, roles, wrapper_src, artifacts)
        except (BenchError, OSError) as exc:
            say("build", f"fetching ahead for {kernel.name} stopped "
                         f"({exc}); its own build comes back to it")
            failed.append(kernel.name)
    return failed


def run(matrix: Matrix, cache: Cache, out: pathlib.Path, jobs: int,
        timeout: float, accel: str, clock: str = guest_clock.DEFAULT
        ) -> report.RunResult:
    """Cells start as soon as their kernel is ready: kernels are prepared
    one at a time (build_order) while earlier kernels' cells boot. A build
    holds one of the -j slots, so guests and kbuild do not pile up on the
    cores. clock: the guest clock asked for (guest/clock.py; each cell
    may fall back to real time)."""
    exp = matrix.exp
    if matrix.snapshots:
        snapshot.budget_bytes()         # a bad NDISBENCH_SNAPSHOT_MB: now
    # the rows' cells and those of the checks with a cell of their own
    cells = [(d, list(cs)) for d, cs in kernel_cells(matrix.devices,
                                                     matrix.checks)]
    if not cells:
        raise BenchError("no selected check applies to the selected "
                         "device(s)")
    every = [(k, d, cs) for k in matrix.kernels for d, cs in cells
             if runs_on(k, d)]
    # the columns: the selected checks and those they bring (run --check
    # recover shows tcp, whose stream it judges), where any cell runs them
    used = [c for c in registry.with_brought(matrix.checks)
            if any(c in cs for _, cs in cells)]
    record: dict = {}
    if matrix.shard:
        # Only this shard's cells: only their kernels are built.
        record = shardmod.plan(every, matrix.shard, used, [
            str(matrix.wrapper_src or ""), str(matrix.tcp_bytes)])
        keep = set(shardmod.mine(record))
        every = [(k, d, cs) for k, d, cs in every
                 if (k.name, d.name, d.wrapper) in keep]
    by_kernel = {k.name: [(d, cs) for kk, d, cs in every if kk is k]
                 for k in matrix.kernels}
    kernels_ = [k for k in matrix.kernels if by_kernel[k.name]]
    roles, extras = builds_for((d, cs) for _, d, cs in every)
    run_dir = paths.new_stamped_dir(out)
    result = report.RunResult(run_dir.name, accel=accel, checks=used,
                              shard=record, clock=guest_clock.parse(clock))
    if matrix.wrapper_src is not None:
        result.subject = subject.identify(matrix.wrapper_src).as_dict()
        say("run", f"wrapper under test: {matrix.wrapper_src}, "
                   f"{subject.Subject(**result.subject).label}")
    if not every:
        say("run", f"shard {matrix.shard.index}/{matrix.shard.count} "
                   f"has no cell; results in {run_dir}")
        result.accel = ""
        report.write(run_dir, result)
        return result
    parts = host_parts(list(dict.fromkeys(d for _, d, _ in every)), cache,
                       matrix.wrapper_src, [k.arch for k in kernels_])
    if matrix.shard:
        result.checks = [c for c in used
                         if any(c in cs for _, _, cs in every)]
    say("run", f"{len(every)} cell(s) on {len(kernels_)} kernel(s), "
               f"-j{jobs}, results in {run_dir}; each kernel's cells start "
               f"once it is built" + (
                   f"; shard {matrix.shard.index}/{matrix.shard.count} "
                   f"(durations: {matrix.shard.source})"
                   if matrix.shard else ""))
    slots = threading.BoundedSemaphore(max(1, jobs))
    lock = threading.Lock()
    keys = [(k.name, d.name, d.wrapper) for k, d, _ in every]
    labels = {(k.name, d.name, d.wrapper): f"{k.name} / {d.label}"
              for k, d, _ in every}
    order = {key: i for i, key in enumerate(keys)}

    def settle(state: str) -> None:
        """result as results.json keeps it: cells in matrix order, the
        state, the cells not run yet. Called with lock held."""
        result.cells.sort(key=lambda c: order[(c.kernel, c.device,
                                               c.wrapper)])
        finished = {(c.kernel, c.device, c.wrapper) for c in result.cells}
        result.state = state
        result.not_run = [labels[k] for k in keys if k not in finished]

    def one_cell(prep: Prepared, device: Device, checks: Sequence[str]
                 ) -> None:
        folder = cell_dir(run_dir, prep.kernel.name, device)
        timer = phases.Clock(folder)
        with lock:
            guest = cell_clock(clock, result.accel, prep, result)
        plan = CellPlan(prep.kernel, device, tuple(checks), exp, folder,
                        run_dir, result.accel, timeout, matrix.wrapper_src,
                        clock=guest, tcp_bytes=matrix.tcp_bytes,
                        profile_hz=matrix.profile_hz,
                        extra_qemu_args=timer.qemu_args(),
                        snapshot=matrix.snapshots)
        with slots:
            if proc.cancelled():
                return
            try:
                cell = run_cell(prep, plan, parts, timer)
            except proc.Cancelled:
                return
            except BaseException:
                proc.cancel()   # a crash: no other cell starts
                raise
        if proc.cancelled():
            return              # its guest was killed: it did not finish
        for line in report.cell_lines(cell):
            say("cell", line)
        with lock:
            result.cells.append(cell)
            settle("running")
            try:
                report.write_record(run_dir, result)
            except OSError as exc:
                # the end of the run writes it again
                say("run", f"WARNING: results.json not updated: "
                           f"{host_cause(exc)}")

    resolved = False
    kernel_order = build_order(kernels_)
    artifacts = Artifacts()
    # a daemon: a run that ends (or is interrupted) does not wait for it
    threading.Thread(target=fetch_kernels_ahead, name="fetch-ahead",
                     args=(kernel_order[1:], cache, exp, roles,
                           matrix.wrapper_src, artifacts),
                     daemon=True).start()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = []
        for kernel in kernel_order:
            with slots:
                try:
                    prep = prepare(kernel, cache, exp, roles,
                                   matrix.wrapper_src, extras,
                                   artifacts=artifacts)
                except OSError as exc:
                    say("build", f"ERROR: {kernel.name}: "
                                 f"{host_cause(exc)}")
                    prep = Prepared(kernel, error=BenchError(
                        host_cause(exc)))
                if not resolved and not prep.error:
                    result.accel = resolve_accel(accel, [prep], exp, parts)
                    resolved = True
                    say("run", f"accel {result.accel}")
            futures += [pool.submit(one_cell, prep, d, cs)
                        for d, cs in by_kernel[kernel.name]]
        if not resolved:
            result.accel = "tcg" if accel == "auto" else accel
        for fut in futures:
            fut.result()
    except BaseException as exc:
        # Ctrl-C, SIGTERM (cli.py) or a crash: no queued cell starts, the
        # running guests are killed, the finished cells are written.
        why = stop_reason(exc)
        killed = proc.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        with lock:
            settle("interrupted")
            result.interrupted = why
        finish(result, matrix, run_dir)
        say("run", f"interrupted ({why}): {len(result.cells)} of "
                   f"{len(every)} cell(s) finished, {killed} child "
                   f"process(es) killed; results in {run_dir}")
        raise
    pool.shutdown(wait=True)
    settle("")
    finish(result, matrix, run_dir)
    return result


def finish(result: report.RunResult, matrix: Matrix,
           run_dir: pathlib.Path) -> None:
    names = [k.name for k in matrix.kernels]
    result.realtime = {k: result.realtime[k] for k in names
                       if k in result.realtime}
    report.write(run_dir, result)


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)
