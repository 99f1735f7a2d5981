"""`ndisbench test`: the project's test command (README.md, .ci/run).

Stages, fastest first: Python unit tests, C unit tests, short libFuzzer
runs (clang), the fixtures' own tests, the device-model qtests, the e2e
matrix, a few cells through `run --wrapper-src` with a copy of wrapper/,
the same with a compile error planted for 6.12 and later (build-error),
the faulty-air rows, the planted bugs of the debug kernel, a short soak,
and one pair of guests on one air (`ndisbench pair`).
Each stage counts its own passes and failures; a stage that cannot run at
all counts as one failure. Before the last line, a table of where the time
went: each stage's wall time, and the longest build steps (kernels, QEMU,
chroots), which overlap the stages' cells; then the failed checks of the
stages' runs, by cell (CI shows the end of the output). The last line is
the combined `N passed, N failed`."""
import argparse
import dataclasses
import pathlib
import re
import shutil
import sys
import subprocess
import tempfile
import time
import unittest
from typing import Callable, List, Optional, Sequence, Tuple

from .. import devices, paths
from ..build.cache import Cache
from ..build.hostbuild import fixture_tests, fuzz_tests, meson_tests
from ..checks import registry
from ..errors import BenchError
from ..progress import (Finished, finished_steps, fmt_secs, restore_steps,
                        say)
from ..report import report
from ..report.verdict import NOT_RUN, PASS, passed_failed
from ..cell import runner

UNIT_DIR = paths.REPO / "tests" / "unit"
# The failed checks named at the end; the rest are in the run folders.
FAILURES_SHOWN = 20
FAILURE_TEXT = 160
Counts = Tuple[int, int]
BUILD_TAG = "build"             # progress.Step's tag of build steps
LONGEST_STEPS = 15


@dataclasses.dataclass(frozen=True)
class StageTime:
    name: str
    passed: int
    failed: int
    secs: float


def time_table(stages: Sequence[StageTime], steps: Sequence[Finished],
               longest: int = LONGEST_STEPS) -> List[str]:
    """The stages' counts and wall times with their total, then the
    longest build steps: these ran inside the stages (a kernel builds
    while other cells boot), so they are listed apart, not added up."""
    def row(name: str, passed: object, failed: object, wall: str) -> str:
        return f"{name:<12}{passed:>9}{failed:>8}{wall:>11}"

    lines = [row("stage", "passed", "failed", "wall")]
    lines += [row(s.name, s.passed, s.failed, fmt_secs(s.secs))
              for s in stages]
    lines.append(row("total", sum(s.passed for s in stages),
                     sum(s.failed for s in stages),
                     fmt_secs(sum(s.secs for s in stages))))
    builds = sorted((s for s in steps if s.tag == BUILD_TAG),
                    key=lambda s: -s.secs)[:longest]
    if builds:
        lines.append("longest build steps (they overlap the stages above):")
        lines += [f"{fmt_secs(s.secs):>7}  {s.text}"
                  + ("" if s.ok else " (failed)") for s in builds]
    return lines


_failures: List[str] = []
_stage_now = ["e2e"]        # the stage running (stage()), for its lines


def forget_failures() -> None:
    _failures.clear()


def failure_lines(result: report.RunResult) -> List[str]:
    """One line per failed check of a run: cell, check, status and the
    first line of its summary."""
    out = []
    for cell in result.cells:
        for check, verdict in cell.verdicts.items():
            if not verdict.failed:
                continue
            first = (verdict.summary or "").splitlines()[:1]
            text = f"{cell.kernel} / {cell.label}: {check} {verdict.status}"
            if first:
                text += f": {first[0]}"
            out.append(text[:FAILURE_TEXT])
    return out


def note_failures(stage_name: str, result: report.RunResult) -> None:
    _failures.extend(f"{stage_name}: {line}"
                     for line in failure_lines(result))


def failure_summary(shown: int = FAILURES_SHOWN) -> List[str]:
    if not _failures:
        return []
    lines = [f"failed ({len(_failures)}):"]
    lines += [f"  {line}" for line in _failures[:shown]]
    if len(_failures) > shown:
        lines.append(f"  ... and {len(_failures) - shown} more (each "
                     f"stage's run folder has them)")
    return lines


def python_unit() -> Counts:
    # The unit tests time made-up build steps of their own: the table at
    # the end keeps only the test command's.
    steps = finished_steps()
    try:
        suite = unittest.defaultTestLoader.discover(
            str(UNIT_DIR), top_level_dir=str(UNIT_DIR))
        res = unittest.TextTestRunner(stream=sys.stdout,
                                      verbosity=1).run(suite)
    finally:
        restore_steps(steps)
    failed = len(res.failures) + len(res.errors)
    return res.testsRun - failed - len(res.skipped), failed


def device_qtests() -> Counts:
    """QEMU qtests of our device models, counted by TAP test case."""
    from ..build import qemu_build
    cache = Cache(paths.cache_root())
    results = qemu_build.run_qtests(cache)
    passed = failed = 0
    for cases in qemu_build.qtest_cases(cache, results).values():
        ok = sum(1 for line in cases if line.startswith("ok "))
        passed += ok
        failed += len(cases) - ok
    return passed, failed


def e2e(matrix: Callable[[], runner.Matrix],
        args: argparse.Namespace) -> Counts:
    result = runner.run(matrix(), Cache(paths.cache_root()), args.out,
                        args.jobs, args.timeout, args.accel, args.clock)
    sys.stdout.write("\n" + report.matrix(result) + "\n")
    say("test", f"e2e: {report.summary_line(result)}")
    note_failures(_stage_now[0], result)
    return passed_failed(result.counts())


# The --wrapper-src path, exercised with a copy of our own wrapper/ on the
# unpatched kernel and one that refuses ndiswrapper.
WRAPPER_SRC_KERNELS = ("src-6.1", "policy-2.6.25-rc1")
WRAPPER_SRC_DEVICES = ("none", "bcm43xx", "rtl8187/ndiswrapper")


def wrapper_src(matrix: Callable[[], runner.Matrix],
                args: argparse.Namespace) -> Counts:
    """`run --wrapper-src` on a copy of wrapper/ in the classic layout."""
    full = matrix()
    with tempfile.TemporaryDirectory(prefix="ndisbench-wrapper-src-") as tmp:
        src = pathlib.Path(tmp) / "wrapper"
        shutil.copytree(paths.REPO / "wrapper", src,
                        ignore=shutil.ignore_patterns(".*", "*.o", "*.ko"))
        cells = runner.Matrix(
            [k for k in full.kernels if k.name in WRAPPER_SRC_KERNELS],
            devices.select(list(WRAPPER_SRC_DEVICES)), full.checks,
            full.exp, src)
        return e2e(lambda: cells, args)


# A compile error planted in a copy of wrapper/ that only kernels from 6.12
# on hit (a newer kernel breaking the wrapper must stop only its own
# cells): exactly those show build FAIL with the compiler's
# line; their cells that need no wrapper still run; the older ones build
# and run everything. One kernel of each toolchain on each side: the host's
# (6.1, 6.12) and a suite chroot's (5.10, sid).
BUILD_ERROR_KERNELS = {"debian-5.10": False, "debian-6.1": False,
                       "debian-6.12": True, "debian-sid": True}
BUILD_ERROR_DEVICES = ("none", "e1000")
PLANTED_ERROR = "ndisbench planted: no build on 6.12 and later"
# What the checks of a `none` cell need: not run where ndiswrapper.ko did
# not build; the control and driverloader modules are ours (wrapper/).
NEEDS_WRAPPER = ("load", "taint")


def plant_build_error(src: pathlib.Path) -> int:
    """Put an #error for kernels 6.12 and later into the tree's
    driver/compat.h, before its include guard's #endif; its line."""
    compat = src / "driver" / "compat.h"
    lines = compat.read_text().splitlines()
    end = max(i for i, line in enumerate(lines) if line.startswith("#endif"))
    lines[end:end] = ["#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)",
                      f'#error "{PLANTED_ERROR}"', "#endif"]
    compat.write_text("\n".join(lines) + "\n")
    return end + 2


def judge_build_error(result: report.RunResult, line: int,
                      kernels: int = len(BUILD_ERROR_KERNELS)) -> Counts:
    """Each cell of the planted run (on that many of its kernels) against
    what it must show."""
    # gcc names the header by the path it was built with: driver/compat.h
    # (kbuild before 6.13 passes full paths), compat.h (relative to M= on
    # 7.x): the work tree's prefix is already cut (build/modules.py).
    want = re.compile(rf"(?:^|[\s/]){re.escape('compat.h')}:{line}:\d+: "
                      rf"error: #error")
    passed = failed = 0
    for cell in result.cells:
        # e1000 loads no module of ours: its build passes everywhere.
        fails = BUILD_ERROR_KERNELS[cell.kernel] and cell.device == "none"
        problems = []
        build = cell.verdicts.get("build")
        if build is None:
            problems.append("no build verdict")
        elif fails and not (build.status == "FAIL" and
                            want.search(build.summary) and
                            PLANTED_ERROR in build.summary):
            problems.append(f"build should FAIL at compat.h:{line} #error, "
                            f"got {build.status}: {build.summary}")
        elif not fails and not build.ok:
            problems.append(f"build should pass: {build.summary}")
        for check, verdict in cell.verdicts.items():
            if check == "build":
                continue
            blocked = fails and check in NEEDS_WRAPPER
            if blocked and verdict.status != NOT_RUN:
                problems.append(f"{check} should not run: {verdict.summary}")
            elif not blocked and not verdict.ok:
                problems.append(f"{check}: {verdict.status} "
                                f"{verdict.summary}")
        where = f"{cell.kernel} / {cell.label}"
        if problems:
            failed += 1
            say("test", f"build-error: {where}: {'; '.join(problems)}")
        else:
            passed += 1
    missing = kernels * len(BUILD_ERROR_DEVICES) - len(result.cells)
    if missing:
        say("test", f"build-error: {missing} cell(s) missing")
    return passed, failed + max(0, missing)


def build_error(matrix: Callable[[], runner.Matrix],
                args: argparse.Namespace) -> Counts:
    """`run --wrapper-src` on a copy of wrapper/ that does not compile on
    6.12 and later."""
    full = matrix()
    picked = [k for k in full.kernels if k.name in BUILD_ERROR_KERNELS]
    if not picked:
        say("test", "build-error: none of its kernels selected, nothing to "
                    "run")
        return 0, 0
    with tempfile.TemporaryDirectory(prefix="ndisbench-planted-") as tmp:
        src = pathlib.Path(tmp) / "wrapper"
        shutil.copytree(paths.REPO / "wrapper", src,
                        ignore=shutil.ignore_patterns(".*", "*.o", "*.ko"))
        line = plant_build_error(src)
        cells = runner.Matrix(picked, devices.select(
            list(BUILD_ERROR_DEVICES)), full.checks, full.exp, src)
        result = runner.run(cells, Cache(paths.cache_root()), args.out,
                            args.jobs, args.timeout, args.accel, args.clock)
    sys.stdout.write("\n" + report.matrix(result) + "\n")
    return judge_build_error(result, line, len(picked))


# The faulty-air rows (only with --device in `run`), on one kernel.
FAULT_KERNELS = ("src-6.1",)
FAULT_DEVICES = ("bcm43xx-faults", "rtl8187-faults", "bcm43xx-hang",
                 "bcm43xx-serial")


def faults(matrix: Callable[[], runner.Matrix],
           args: argparse.Namespace) -> Counts:
    """Lost, corrupted, duplicated and delayed frames: the drivers, the
    wrapper and TCP must recover with both byte counts equal."""
    full = matrix()
    cells = runner.Matrix(
        [k for k in full.kernels if k.name in FAULT_KERNELS],
        devices.select(list(FAULT_DEVICES)), full.checks, full.exp)
    return e2e(lambda: cells, args)


# The planted bugs (guest/plant/): reported by every checker of the debug
# kernel, by none on the plain one.
PLANTED_KERNELS = ("debug-6.1", "src-6.1")


def planted(matrix: Callable[[], runner.Matrix],
            args: argparse.Namespace) -> Counts:
    """The debug kernel's checkers catch deliberate bugs: otherwise its
    quiet run of the whole chain would prove nothing. The check has a cell
    of its own per kernel (no device row); the matrix's host-side checks
    run beside it."""
    full = matrix()
    cells = runner.Matrix(
        [k for k in full.kernels if k.name in PLANTED_KERNELS], [],
        registry.select(list(full.checks) + ["planted"]), full.exp)
    return e2e(lambda: cells, args)


# The paths a wrapper tree of someone else's takes, proven on ours: a
# module that oopses in one agent row (survive: the oops charged to that
# row's check, the later rows still run) and our wrapper without a wiphy,
# driven through wireless extensions as classic ndiswrapper is.
PATHS_KERNELS = ("src-6.1",)
PATHS_CHECKS = ("build", "load", "taint", "control", "survive")
# The rows without a wiphy (the wrapper's own wireless extensions): out of
# the default matrix, run here with every default check.
WEXT_ROWS = devices.group(lambda d: d.variant == "wext")


def paths_stage(matrix: Callable[[], runner.Matrix],
                args: argparse.Namespace) -> Counts:
    full = matrix()
    kernels = [k for k in full.kernels if k.name in PATHS_KERNELS]
    oops = runner.Matrix(kernels, devices.select(["none"]),
                         list(PATHS_CHECKS), full.exp)
    passed, failed = e2e(lambda: oops, args)
    wext = runner.Matrix(kernels, devices.select(list(WEXT_ROWS)),
                         full.checks, full.exp)
    more = e2e(lambda: wext, args)
    return passed + more[0], failed + more[1]


# Two guests on one air (pair.py): its defaults, on one kernel.
PAIR_KERNEL = "src-6.1"


def pair_stage(matrix: Callable[[], runner.Matrix],
               args: argparse.Namespace) -> Counts:
    """A wrapped guest and a native one ping each other through the AP:
    every check of both sides, `peer` both ways, must pass."""
    from . import pair
    full = matrix()
    kernel = next((k for k in full.kernels if k.name == PAIR_KERNEL), None)
    if kernel is None:
        say("test", f"pair: {PAIR_KERNEL} not selected, nothing to run")
        return 0, 0
    result = pair.run(kernel, full.exp, Cache(paths.cache_root()), args.out,
                      accel=args.accel)
    sys.stdout.write("\n" + report.matrix(result) + "\n")
    counts = result.counts()
    passed = counts.get(PASS, 0)
    return passed, sum(counts.values()) - passed
# A short soak (`ndisbench soak`): one guest, wrapper reloads and
# hot-unplugs under traffic; each verdict counts.
SOAK_KERNEL, SOAK_DEVICE, SOAK_MINUTES = "src-6.1", "rtl8187/ndiswrapper", 1.5


def soak_stage(matrix: Callable[[], runner.Matrix],
               args: argparse.Namespace) -> Counts:
    from . import soak
    full = matrix()
    kernel = next((k for k in full.kernels if k.name == SOAK_KERNEL), None)
    if kernel is None:
        say("test", f"soak: skipped ({SOAK_KERNEL} not selected)")
        return 0, 0
    res = soak.run(kernel, devices.DEVICES[SOAK_DEVICE], full.exp,
                   Cache(paths.cache_root()), args.out, SOAK_MINUTES, 0,
                   args.accel)
    say("test", soak.summary_line(res))
    passed = sum(v.ok for v in res.verdicts.values())
    return passed, len(res.verdicts) - passed


def stage(name: str, what: str, run: Callable[[], Counts]) -> StageTime:
    say("test", f"{name}: {what}")
    _stage_now[0] = name
    start = time.monotonic()
    try:
        passed, failed = run()
    except BenchError as exc:
        say("test", f"{name}: ERROR: {exc}")
        _failures.append(f"{name}: ERROR: {exc}"[:FAILURE_TEXT])
        passed, failed = 0, 1
    secs = time.monotonic() - start
    say("test", f"{name}: {passed} passed, {failed} failed "
                f"in {fmt_secs(secs)}")
    return StageTime(name, passed, failed, secs)


NDISBENCH = paths.REPO / "scripts" / "ndisbench"
FETCH_TIMEOUT = 3600.0


def fetch_e2e_ahead(matrix: Callable[[], runner.Matrix]
                    ) -> Optional[subprocess.Popen]:
    """`build fetch` of the e2e stage's Debian kernels (their packages,
    their suites' chroots: minutes of network on a cold cache), started
    beside the stages before e2e, which use the CPU. A process of its own:
    the unit tests run in this one and patch what it would call. A matrix
    that cannot be made is the e2e stage's error."""
    try:
        names = [k.name for k in matrix().kernels if k.is_debian]
    except BenchError:
        return None
    if not names:
        return None
    return subprocess.Popen([sys.executable, str(NDISBENCH), "build",
                             "fetch", "--kernel", *names],
                            stdin=subprocess.DEVNULL)


def reap_fetch(fetch: Optional[subprocess.Popen],
               timeout: float = FETCH_TIMEOUT) -> None:
    """The fetch has long finished when the stages end; if not, stop it
    (what it made is complete in the cache or not there at all)."""
    if fetch is None:
        return
    try:
        fetch.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        fetch.kill()
        fetch.wait(timeout=60)


def run_tests(matrix: Callable[[], runner.Matrix],
              args: argparse.Namespace) -> int:
    fetch = fetch_e2e_ahead(matrix)
    forget_failures()
    try:
        stages = all_stages(matrix, args)
    except BaseException:
        reap_fetch(fetch, timeout=5)     # Ctrl-C reached it too
        raise
    reap_fetch(fetch)
    passed = sum(s.passed for s in stages)
    failed = sum(s.failed for s in stages)
    say("test", "where the time went:")
    for line in time_table(stages, finished_steps()) + failure_summary():
        print(line)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def all_stages(matrix: Callable[[], runner.Matrix],
               args: argparse.Namespace) -> List[StageTime]:
    stages: List[StageTime] = [
        stage("unit", "Python unit tests (tests/unit)", python_unit),
        stage("unit-c", "C unit tests (tests/unit/c)",
              lambda: meson_tests("unit-c")),
        stage("fuzz", "libFuzzer smoke runs (tests/fuzz: PE loader, INF "
                      "parser, ioctl validators)", fuzz_tests),
        stage("fixtures", "fixture drivers (imports, host simulator)",
              fixture_tests),
        stage("qtest", "device-model qtests (tests/qtest)", device_qtests),
        stage("e2e", "the kernel x device matrix (tests/e2e)",
              lambda: e2e(matrix, args)),
        stage("wrapper-src", "run --wrapper-src with a copy of wrapper/",
              lambda: wrapper_src(matrix, args)),
        stage("build-error", "a compile error planted for 6.12 and later "
                             "fails exactly those kernels' build",
              lambda: build_error(matrix, args)),
        stage("faults", "the faulty-air rows (drop, corrupt, duplicate, "
                        "delay), the fixture that hangs once and the "
                        "serialized one", lambda: faults(matrix, args)),
        stage("planted", "the debug kernel's checkers report planted bugs",
              lambda: planted(matrix, args)),
        stage("paths", "an oops in one agent row charged to its check, "
                       "the later rows run; our wrapper through wireless "
                       "extensions", lambda: paths_stage(matrix, args)),
        stage("soak", f"{SOAK_MINUTES} min soak on {SOAK_KERNEL} "
                      f"{SOAK_DEVICE}", lambda: soak_stage(matrix, args)),
        stage("pair", "two guests on one air ping each other",
              lambda: pair_stage(matrix, args)),
    ]
    return stages
