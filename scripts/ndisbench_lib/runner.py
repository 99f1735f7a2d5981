"""One `ndisbench run`: build what the selected cells need, boot every
kernel x device cell (in parallel up to -j), judge, and write the run
folder."""
import concurrent.futures
import dataclasses
import datetime
import os
import pathlib
import re
from typing import Dict, List, Optional, Sequence

from . import checks as chk
from . import accel as accelerator
from . import guest, initramfs, ktap, modules, report
from .cache import Cache
from .devices import DEVICES, Device
from .errors import BenchError
from .hostbuild import build_agent
from .kbuild import KernelArtifact, kernel_artifact
from .kernels import Expectations, Kernel
from .progress import fmt_secs, say

KERNEL_PROBLEM_RE = re.compile(
    r"(Kernel panic|BUG: |Oops: |general protection fault|WARNING: CPU:|"
    r"Call Trace:)")
MEMORY_MB = 512


@dataclasses.dataclass
class Prepared:
    """Everything one kernel's cells need, or why it could not be built."""
    kernel: Kernel
    art: Optional[KernelArtifact] = None
    initrd: Optional[pathlib.Path] = None
    base_bits: int = 0
    error: str = ""


def prepare(kernel: Kernel, cache: Cache, exp: Expectations,
            roles: Sequence[str], agent: pathlib.Path) -> Prepared:
    """Kernel, test modules (checked against the expectation table) and the
    initramfs holding them."""
    try:
        art = kernel_artifact(kernel, cache)
        kos: Dict[str, bytes] = {}
        depends: List[str] = []
        for role in roles:
            mod = modules.build_module(art, exp.module_names[role], cache)
            modules.check_gpl_imports(mod, exp.gpl_only_imports, art)
            kos[mod.name] = mod.ko.read_bytes()
            depends += [d for d in mod.depends if d not in depends]
        deps = [(modules.modfile(p), modules.module_bytes(p))
                for p in modules.dependency_paths(art, depends)]
        initrd = initramfs.build(agent, kos, deps, cache)
        base = chk.module_base_bits(art.config(), exp.taint_bits)
        return Prepared(kernel, art, initrd, base)
    except BenchError as exc:
        say("build", f"ERROR: {exc}")
        return Prepared(kernel, error=str(exc))


def cell_dir(run_dir: pathlib.Path, kernel: str, device: str
             ) -> pathlib.Path:
    return run_dir / "cells" / f"{kernel}__{device}"


def kernel_problem(serial: str) -> str:
    for line in serial.splitlines():
        if KERNEL_PROBLEM_RE.search(line):
            return line.strip()
    return ""


def judge_cell(prep: Prepared, exp: Expectations, check_names: Sequence[str],
               roles: Sequence[str], boot: guest.BootResult,
               log_path: pathlib.Path) -> Dict[str, chk.Verdict]:
    if boot.status == "timeout":
        verdict = chk.Verdict(chk.TIMEOUT, f"guest killed after "
                              f"{fmt_secs(boot.seconds)} (log kept: "
                              f"{log_path})")
        return {c: verdict for c in check_names}
    log = ktap.parse(boot.serial)
    verdicts = {c: chk.judge(c, prep.kernel.policy, exp, log, roles,
                             prep.base_bits) for c in check_names}
    problem = kernel_problem(boot.serial)
    if problem:
        downgrade = chk.Verdict(chk.FAIL, f"kernel reported: {problem}")
    elif not log.complete:
        downgrade = chk.Verdict(chk.ERROR, "agent did not finish (guest "
                                f"stopped, exit {boot.exit_code})")
    else:
        return verdicts
    return {c: (downgrade if v.ok else v) for c, v in verdicts.items()}


def guest_command(prep: Prepared, device: Device, exp: Expectations,
                  roles: Sequence[str], accel: str) -> List[str]:
    assert prep.art is not None and prep.initrd is not None
    names = [exp.module_names[r] for r in roles]
    append = (f"console=ttyS0 loglevel=4 panic=-1 "
              f"ndisbench.load={','.join(names)}")
    return guest.qemu_command(prep.art.boot_image, prep.initrd, append,
                              accel, MEMORY_MB, device.qemu_args)


def resolve_accel(requested: str, preps: Sequence[Prepared],
                  exp: Expectations, roles: Sequence[str], cache: Cache
                  ) -> str:
    ready = [p for p in preps if not p.error]
    if requested != "auto" or not ready:
        return "tcg" if requested == "auto" else requested
    probe = guest_command(ready[0], DEVICES["none"], exp, roles, "kvm")
    return accelerator.resolve(requested, probe, cache)


def run_cell(prep: Prepared, device: Device, exp: Expectations,
             check_names: Sequence[str], roles: Sequence[str],
             run_dir: pathlib.Path, timeout: float, accel: str
             ) -> report.CellResult:
    cdir = cell_dir(run_dir, prep.kernel.name, device.name)
    cdir.mkdir(parents=True, exist_ok=True)
    cell = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                             device.name, str(cdir.relative_to(run_dir)))
    if prep.error:
        verdict = chk.Verdict(chk.ERROR, prep.error)
        cell.verdicts = {c: verdict for c in check_names}
        return cell
    assert prep.art is not None
    say("cell", f"{prep.kernel.name} / {device.name}: booting "
                f"{prep.art.boot_image.name} ({prep.art.release})")
    cmd = guest_command(prep, device, exp, roles, accel)
    log_path = cdir / "serial.log"
    boot = guest.boot(cmd, log_path, timeout)
    (cdir / "ktap.txt").write_text("\n".join(ktap.parse(boot.serial).lines)
                                   + "\n")
    cell.release = prep.art.release
    cell.boot_seconds = round(boot.seconds, 2)
    cell.first_ktap_seconds = (round(boot.first_ktap_secs, 2)
                               if boot.first_ktap_secs else None)
    cell.verdicts = judge_cell(prep, exp, check_names, roles, boot, log_path)
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
    """The selected cells: kernels x devices, each running the checks."""
    kernels: Sequence[Kernel]
    devices: Sequence[Device]
    checks: Sequence[str]
    exp: Expectations


def run(matrix: Matrix, cache: Cache, out: pathlib.Path, jobs: int,
        timeout: float, accel: str) -> report.RunResult:
    kernels, devices, exp = matrix.kernels, matrix.devices, matrix.exp
    check_names = matrix.checks
    roles = chk.modules_for(check_names)
    agent = build_agent()
    preps = [prepare(k, cache, exp, roles, agent) for k in kernels]
    accel = resolve_accel(accel, preps, exp, roles, cache)
    run_dir = new_run_dir(out)
    say("run", f"{len(preps) * len(devices)} cell(s), -j{jobs}, accel "
               f"{accel}, results in {run_dir}")
    result = report.RunResult(run_dir.name, accel=accel,
                              checks=list(check_names))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_cell, p, d, exp, check_names, roles,
                               run_dir, timeout, accel)
                   for p in preps for d in devices]
        for fut in concurrent.futures.as_completed(futures):
            cell = fut.result()
            for line in report.cell_lines(cell):
                say("cell", line)
            result.cells.append(cell)
    order = {(p.kernel.name, d.name): i for i, (p, d) in
             enumerate((p, d) for p in preps for d in devices)}
    result.cells.sort(key=lambda c: order[(c.kernel, c.device)])
    report.write(run_dir, result)
    return result


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)
