"""Host-side builds through meson: the guest agent, the wrapper's user
tools, the C unit tests."""
import json
import pathlib
import subprocess
from typing import Tuple

from . import paths
from .errors import BenchError
from .progress import Step
from .proc import run_logged

AGENT = paths.MESON_BUILD / "guest" / "agent" / "ndisbench-agent"


def meson_compile(target: str) -> None:
    """meson compile one target ("all": everything) in build/."""
    log = paths.MESON_BUILD.parent / "build.log"
    if not (paths.MESON_BUILD / "build.ninja").exists():
        with Step("build", "meson setup build"):
            run_logged(["meson", "setup", str(paths.MESON_BUILD),
                        str(paths.REPO)], log, "meson setup", timeout=300)
    cmd = ["meson", "compile", "-C", str(paths.MESON_BUILD)]
    run_logged(cmd + ([] if target == "all" else [target]), log,
               f"meson compile {target}", timeout=1800)


def build_agent() -> pathlib.Path:
    """The static guest agent (incremental: a no-op when up to date)."""
    meson_compile("ndisbench-agent")
    return AGENT


def meson_tests(suite: str) -> Tuple[int, int]:
    """Build and run one meson test suite; (passed, failed) by test."""
    meson_compile("all")
    log = paths.MESON_BUILD / "meson-logs" / "testlog.json"
    if log.exists():
        log.unlink()
    subprocess.run(["meson", "test", "-C", str(paths.MESON_BUILD),
                    "--suite", suite, "--print-errorlogs"],
                   stdin=subprocess.DEVNULL, timeout=1800, check=False)
    passed = failed = 0
    if log.exists():
        for line in log.read_text().splitlines():
            result = json.loads(line).get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result != "SKIP":
                failed += 1
    if passed + failed == 0:
        raise BenchError(f"meson test --suite {suite}: no results ({log})")
    return passed, failed
