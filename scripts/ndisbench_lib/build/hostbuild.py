"""Host-side builds: through meson the guest agent, the wrapper's user
tools, the C unit tests and the fixtures' tests, the libFuzzer targets
(build-fuzz/, clang); through fixtures/Makefile the fixture drivers."""
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from .. import paths
from . import confine, initramfs
from .cache import Cache, compiler_id, digest_inputs, tree_digest
from ..errors import BenchError
from ..progress import Step, say
from ..proc import run_logged

AGENT = paths.MESON_BUILD / "guest" / "agent" / "ndisbench-agent"
UTILS = paths.MESON_BUILD / "wrapper" / "utils"
# The static programs of an i386 guest: the same sources built -m32.
AGENT_I386 = paths.MESON_BUILD / "guest" / "agent" / "ndisbench-agent-i386"


def meson_compile(*targets: str) -> None:
    """meson compile these targets ("all": everything) in build/, in one
    ninja run."""
    log = paths.MESON_BUILD.parent / "build.log"
    if not (paths.MESON_BUILD / "build.ninja").exists():
        with Step("build", "meson setup build"):
            run_logged(["meson", "setup", str(paths.MESON_BUILD),
                        str(paths.REPO)], log, "meson setup", timeout=300)
    cmd = ["meson", "compile", "-C", str(paths.MESON_BUILD)]
    names = [t for t in targets if t != "all"]
    if names:
        # meson looks named targets up in the build folder's last
        # configuration: regenerate it first (a no-op when no meson.build
        # changed), or a target the tree gained since is "not found"
        run_logged(["ninja", "-C", str(paths.MESON_BUILD), "build.ninja"],
                   log, "meson regenerate", timeout=300)
    run_logged(cmd + names, log, f"meson compile {' '.join(targets)}",
               timeout=1800)


def build_agent(arch: str = "amd64") -> pathlib.Path:
    """The static guest agent (incremental: a no-op when up to date)."""
    agent = AGENT if arch == "amd64" else AGENT_I386
    _meson_compile_m32(arch, agent)
    return agent


def _meson_compile_m32(arch: str, *targets: pathlib.Path) -> None:
    """meson compile of these guest programs (an i386 one: built -m32
    -static, meson.build's have_m32_static)."""
    meson_compile(*(str(t.relative_to(paths.MESON_BUILD)) for t in targets))


# A TAP result line with a SKIP directive (the TAP spec: case-insensitive,
# "skipped" too).
_TAP_SKIP = re.compile(r"^(?:not )?ok\b.*#\s*skip", re.IGNORECASE)


def count_results(records: Iterable[Mapping[str, object]]
                  ) -> Tuple[int, int, List[str]]:
    """(passed, failed, problems) of `meson test`'s testlog.json records,
    counted by test. The test command builds everything its tests need,
    so a skip means a test did not run what it should: a skipped test, or
    a passing one with a skipped TAP subtest, counts as a failure, named
    in problems. (A plain failure meson's --print-errorlogs shows.)"""
    passed = failed = 0
    problems: List[str] = []
    for rec in records:
        name, result = str(rec.get("name")), rec.get("result")
        out = str(rec.get("stdout") or "").splitlines()
        if result == "SKIP":
            failed += 1
            why = next((ln for ln in reversed(out) if ln.strip()),
                       f"exit {rec.get('returncode')}")
            problems.append(f"{name}: skipped: {why.strip()} (a skip "
                            f"counts as a failure)")
        elif result in ("OK", "EXPECTEDFAIL"):
            skips = [ln.strip() for ln in out if _TAP_SKIP.match(ln)]
            if skips:
                failed += 1
                problems += [f"{name}: {ln} (a skip counts as a failure)"
                             for ln in skips]
            else:
                passed += 1
        else:
            failed += 1
    return passed, failed, problems


def _meson_results(build: pathlib.Path, args: List[str],
                   env: Optional[Mapping[str, str]] = None,
                   suite: Optional[str] = None) -> Tuple[int, int]:
    """Run `meson test` in build; (passed, failed) counted by test. With
    suite, every test of that suite without a result in testlog.json is a
    failure too: meson's harness can die part-way (an exec format error),
    leaving the rest unrun and unreported."""
    log = build / "meson-logs" / "testlog.json"
    if log.exists():
        log.unlink()
    proc = subprocess.run(["meson", "test", "-C", str(build),
                           "--print-errorlogs", *args],
                          stdin=subprocess.DEVNULL, timeout=1800,
                          check=False, env={**os.environ, **(env or {})})
    records = ([json.loads(line) for line in log.read_text().splitlines()
                if line.strip()] if log.exists() else [])
    passed, failed, problems = count_results(records)
    if suite is not None:
        logged = [str(rec.get("name", "")) for rec in records]
        for name in _suite_tests(build, suite):
            if not any(n == name or n.endswith(" / " + name)
                       for n in logged):
                failed += 1
                problems.append(f"{name}: no result (meson test exit "
                                f"{proc.returncode})")
    for problem in problems:
        say("test", problem)
    if passed + failed == 0:
        raise BenchError(f"meson test -C {build} {' '.join(args)}: no "
                         f"results ({log})")
    return passed, failed


# Where the meson tests find the fixture build (tests/unit/c/test_tools.c,
# tests/fixtures/with_fixtures.py).
FIXTURES_ENV = "NDISBENCH_FIXTURES"


def meson_tests(suite: str) -> Tuple[int, int]:
    """Build and run one meson test suite of the main project, with the
    bench's cached fixture build in $NDISBENCH_FIXTURES."""
    meson_compile("all")
    fixtures = build_fixtures(Cache(paths.cache_root()))
    return _meson_results(paths.MESON_BUILD, ["--suite", suite],
                          {FIXTURES_ENV: str(fixtures)}, suite=suite)


def fixture_tests() -> Tuple[int, int]:
    """The fixtures' own tests (import check, host simulator): the main
    project's `fixtures` suite on the cached fixture build."""
    return meson_tests("fixtures")


FUZZ_BUILD = paths.REPO / "build-fuzz"
FUZZ_CC = "clang"
FUZZ_TARGETS = ("fuzz_pe", "fuzz_inf", "fuzz_ioctl", "fuzz_ndisconf",
                "fuzz_wlan_link", "fuzz_wlan_frame", "fuzz_bssid",
                "fuzz_usbcfg", "fuzz_ndiscfg")
FUZZ_SEED_ENV = "NDISBENCH_FUZZ_SEED"       # read by tests/fuzz/smoke.py
FUZZ_ARTIFACTS = paths.OUT / "fuzz-artifacts"   # smoke.py's default


def _suite_tests(build: pathlib.Path, suite: str) -> List[str]:
    """The tests of one suite a configured meson build folder has."""
    info = build / "meson-info" / "intro-tests.json"
    try:
        tests = json.loads(info.read_text())
        return [t["name"] for t in tests
                if any(s.endswith(":" + suite) for s in t["suite"])]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def fuzz_tests() -> Tuple[int, int]:
    """The libFuzzer smoke runs (tests/fuzz, `meson test --suite fuzz`) in
    build-fuzz/, configured with CC=clang: libFuzzer is clang's. No clang,
    or a build-fuzz/ without the smoke tests (configured with
    another compiler), is an error. Every target runs with one seed,
    NDISBENCH_FUZZ_SEED or a random one, printed; smoke.py keeps crash
    inputs in out/fuzz-artifacts/."""
    if shutil.which(FUZZ_CC) is None:
        raise BenchError(f"fuzz: {FUZZ_CC} not found (the fuzz targets need "
                         f"clang and libclang-rt-14-dev: ndisbench setup)")
    log = paths.REPO / "build.log"
    if not (FUZZ_BUILD / "build.ninja").exists():
        with Step("build", f"meson setup build-fuzz (CC={FUZZ_CC})"):
            run_logged(["meson", "setup", str(FUZZ_BUILD), str(paths.REPO)],
                       log, "meson setup build-fuzz", env={"CC": FUZZ_CC},
                       timeout=300)
    smokes = sorted(_suite_tests(FUZZ_BUILD, "fuzz"))
    want = sorted(f"{t}_smoke" for t in FUZZ_TARGETS)
    if smokes != want:
        raise BenchError(f"fuzz: {FUZZ_BUILD} has fuzz tests {smokes}, "
                         f"expected {want} (configured without "
                         f"CC={FUZZ_CC}? remove it)")
    run_logged(["meson", "compile", "-C", str(FUZZ_BUILD), *FUZZ_TARGETS],
               log, "meson compile build-fuzz", timeout=1800)
    # one seed for every target, printed, so a failing run can be replayed
    seed = os.environ.get(FUZZ_SEED_ENV) or str(secrets.randbelow(2**31 - 1)
                                                + 1)
    say("fuzz", f"-seed={seed} (replay: {FUZZ_SEED_ENV}={seed}); crash "
                f"inputs are kept in {FUZZ_ARTIFACTS}/")
    return _meson_results(FUZZ_BUILD, ["--suite", "fuzz"],
                          env={FUZZ_SEED_ENV: seed}, suite="fuzz")


FIXTURES = paths.REPO / "fixtures"
SHARED_REGS = paths.REPO / "qemu-devices" / "include"
MINGW_CC = "x86_64-w64-mingw32-gcc"
MINGW32_CC = "i686-w64-mingw32-gcc"   # the fixtures' i386 builds


def build_fixtures(cache: Cache) -> pathlib.Path:
    """The Windows fixture drivers (fixtures/Makefile, mingw-w64) as a cache
    entry: <entry>/<driver>/<driver>.{sys,inf}, <entry>/broken/ and the
    i386 builds in <entry>/i386/<driver>/."""
    inputs = {"kind": "fixtures",
              "source": tree_digest(FIXTURES, skip_dirs=("build",)),
              "regs": tree_digest(SHARED_REGS), "cc": compiler_id(MINGW_CC),
              "cc32": compiler_id(MINGW32_CC)}
    key = digest_inputs(inputs)
    entry = cache.lookup("fixtures", key)
    if entry is None:
        with Step("build", "fixtures (mingw-w64)"):
            with cache.publish("fixtures", key, inputs) as tmp:
                run_logged(["make", "-C", str(FIXTURES), f"O={tmp}", "all"],
                           cache.root / "logs" / f"fixtures-{key}.log",
                           "fixtures: make", timeout=900)
        entry = cache.path("fixtures", key)
    return entry


def fixture_root(entry: pathlib.Path, arch: str) -> pathlib.Path:
    """The folder of a fixture build holding the drivers of a guest
    architecture: amd64's at the top, i386's (PE32) under i386/."""
    if arch == "amd64":
        return entry
    root = entry / arch
    if not root.is_dir():
        raise BenchError(f"{entry}: no {arch} fixture drivers (the fixture "
                         f"build's {arch}/ folder)")
    return root


def guest_tools(arch: str = "amd64") -> Dict[str, pathlib.Path]:
    """Static builds of the wrapper's user tools, by their guest path."""
    suffix = "" if arch == "amd64" else f"-{arch}"
    tools = {"sbin/ndiswrapper": UTILS / f"ndiswrapper-static{suffix}",
             "sbin/loadndisdriver": UTILS / f"loadndisdriver-static{suffix}"}
    _meson_compile_m32(arch, *tools.values())
    return tools


# The user tools of a --wrapper-src tree, and where the guest gets them.
EXTERNAL_TOOLS = {"sbin/ndiswrapper": "ndiswrapper",
                  "sbin/loadndisdriver": "loadndisdriver"}


def build_external_tools(src: pathlib.Path, cache: Cache
                         ) -> Dict[str, pathlib.Path]:
    """`make -C <src>/utils` in a scratch copy, as a cache entry keyed by
    the tree without driver/ (the module's own folder: an edit there
    leaves the tools alone); the tools by their guest path (what they run
    on, shared libraries or a script's interpreter and its modules, is
    added to the image by initramfs.tool_files, and checked here)."""
    inputs = {"kind": "external-tools",
              "source": tree_digest(src, skip_dirs=(".git", "driver")),
              "cc": compiler_id(), "confined": confine.RECIPE}
    key = digest_inputs(inputs)
    entry = cache.lookup("tools", key)
    if entry is None:
        with Step("build", f"wrapper tools: make -C {src}/utils"):
            with cache.publish("tools", key, inputs) as tmp:
                tree = tmp / "src"
                shutil.copytree(src, tree, symlinks=True,
                                ignore=shutil.ignore_patterns(
                                    ".*", "*.o", "*.ko"))
                # The tree's Makefile is its own code: it runs confined,
                # as the build user, writing only its copy.
                confine.own(tree)
                run_logged(confine.command(["make", "-C",
                                            str(tree / "utils")],
                                           rw=[tree], chdir=tree),
                           cache.root / "logs" / f"tools-{key}.log",
                           f"make -C {src}/utils", timeout=600)
                for name in EXTERNAL_TOOLS.values():
                    if not (tree / "utils" / name).is_file():
                        raise BenchError(f"--wrapper-src {src}: utils/ "
                                         f"built no {name}")
                    confine.write_file(tmp, name, confine.read_output(
                        tree, f"utils/{name}"), 0o755)
                shutil.rmtree(tree)
        entry = cache.path("tools", key)
    tools = {guest: entry / name for guest, name in EXTERNAL_TOOLS.items()}
    # What they run on (a script's interpreter and its modules) is found
    # now, so a module the host lacks is this build step's error, not
    # every cell's.
    try:
        initramfs.tool_files(tools.values())
    except BenchError as exc:
        raise BenchError(f"--wrapper-src {src}: utils/: {exc}") from None
    return tools

