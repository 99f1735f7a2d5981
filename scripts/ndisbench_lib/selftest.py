"""`ndisbench test`: the project's test command (README.md, .ci/run).

Host unit tests first (fast, no guests), then the e2e matrix; the last line
is the combined `N passed, N failed`."""
import argparse
import sys
import unittest
from typing import Callable, Tuple

from . import checks as chk
from . import paths, report, runner
from .cache import Cache
from .errors import BenchError
from .hostbuild import fixture_tests, meson_tests
from .progress import say

UNIT_DIR = paths.REPO / "tests" / "unit"


def run_unit() -> unittest.TestResult:
    suite = unittest.defaultTestLoader.discover(str(UNIT_DIR),
                                                top_level_dir=str(UNIT_DIR))
    return unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)


def run_device_qtests() -> Tuple[int, int]:
    """QEMU qtests of our device models, counted by TAP test case."""
    from . import qemu_build
    cache = Cache(paths.cache_root())
    try:
        results = qemu_build.run_qtests(cache)
    except BenchError as exc:
        say("test", f"qtest: ERROR: {exc}")
        return 0, 1
    passed = failed = 0
    for cases in qemu_build.qtest_cases(cache, results).values():
        ok = sum(1 for line in cases if line.startswith("ok "))
        passed += ok
        failed += len(cases) - ok
    return passed, failed


def run_tests(matrix: Callable[[], runner.Matrix],
              args: argparse.Namespace) -> int:
    say("test", "host unit tests (tests/unit)")
    unit = run_unit()
    unit_failed = len(unit.failures) + len(unit.errors)
    unit_passed = unit.testsRun - unit_failed - len(unit.skipped)
    say("test", f"unit: {unit_passed} passed, {unit_failed} failed")

    say("test", "host C unit tests (tests/unit/c, meson suite unit-c)")
    try:
        c_passed, c_failed = meson_tests("unit-c")
    except BenchError as exc:
        say("test", f"unit-c: ERROR: {exc}")
        c_passed, c_failed = 0, 1
    say("test", f"unit-c: {c_passed} passed, {c_failed} failed")
    unit_passed += c_passed
    unit_failed += c_failed

    say("test", "fixture drivers (imports, host simulator)")
    try:
        f_passed, f_failed = fixture_tests()
    except BenchError as exc:
        say("test", f"fixtures: ERROR: {exc}")
        f_passed, f_failed = 0, 1
    say("test", f"fixtures: {f_passed} passed, {f_failed} failed")
    unit_passed += f_passed
    unit_failed += f_failed

    say("test", "device-model qtests (tests/qtest, in the QEMU tree)")
    q_passed, q_failed = run_device_qtests()
    say("test", f"qtest: {q_passed} passed, {q_failed} failed")
    unit_passed += q_passed
    unit_failed += q_failed

    say("test", "e2e matrix (tests/e2e)")
    e2e_passed = e2e_failed = 0
    try:
        result = runner.run(matrix(), Cache(paths.cache_root()), args.out,
                            args.jobs, args.timeout, args.accel)
        sys.stdout.write("\n" + report.matrix(result) + "\n")
        say("test", f"e2e: {report.summary_line(result)}")
        counts = result.counts()
        e2e_passed = counts.get(chk.PASS, 0) + counts.get(chk.XFAIL, 0)
        e2e_failed = sum(counts.values()) - e2e_passed
    except BenchError as exc:
        say("test", f"e2e: ERROR: {exc}")
        e2e_failed = 1
    passed = unit_passed + e2e_passed
    failed = unit_failed + e2e_failed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
