#!/usr/bin/env python3
"""Build and run the device-model qtests (tests/qtest/*-test.c) in the
bench's QEMU tree, against its qemu-system-x86_64.

    tests/qtest/run.py [NAME ...]      e.g. ndisbench-bcm43xx-test

The tree is scripts/ndisbench_lib/build/qemu_build.py's (<cache>/trees/<key>/):
the first run fetches and builds QEMU (minutes), later runs rebuild only
what changed. Each test's TAP log is <tree>/qtest-<name>.log; its results
are printed here, then one `N passed, N failed` line. Exit status 0 when
every test passed.
"""
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from ndisbench_lib import paths  # noqa: E402
from ndisbench_lib.build import qemu_build  # noqa: E402
from ndisbench_lib.build.cache import Cache  # noqa: E402
from ndisbench_lib.errors import BenchError  # noqa: E402


def main(argv):
    cache = Cache(paths.cache_root())
    try:
        results = qemu_build.run_qtests(cache, argv or None)
    except BenchError as exc:
        print(f"qtest: ERROR: {exc}")
        return 2
    passed = failed = 0
    for name, cases in qemu_build.qtest_cases(cache, results).items():
        for line in cases:
            print(f"{name}: {line}")
        ok = sum(1 for line in cases if line.startswith("ok "))
        passed += ok
        failed += len(cases) - ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
