"""Running external commands with logs, timeouts and heartbeats."""
import os
import pathlib
import subprocess
import threading
import time
from typing import Mapping, Optional, Sequence

from .errors import BenchError
from .progress import fmt_secs, say

HEARTBEAT_SECS = 30.0


def run_logged(cmd: Sequence[str], log: pathlib.Path, what: str,
               cwd: Optional[pathlib.Path] = None,
               env: Optional[Mapping[str, str]] = None,
               timeout: float = 3600.0, tag: str = "build") -> None:
    """Run cmd with stdout+stderr appended to log; heartbeat while it runs.

    Raises BenchError naming `what` and the log when the command fails or
    runs past its timeout.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    start = time.monotonic()
    last_line = [""]
    with open(log, "ab") as logf:
        logf.write(("$ " + " ".join(cmd) + "\n").encode())
        logf.flush()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=full_env,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        assert proc.stdout is not None

        def pump() -> None:
            for raw in proc.stdout:
                logf.write(raw)
                text = raw.decode(errors="replace").strip()
                if text:
                    last_line[0] = text
            logf.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        next_beat = start + HEARTBEAT_SECS
        while True:
            try:
                proc.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now - start > timeout:
                    proc.kill()
                    proc.wait()
                    reader.join(5)
                    raise BenchError(f"{what}: timed out after "
                                     f"{fmt_secs(timeout)} (log: {log})")
                if now >= next_beat:
                    say(tag, f"{what}: still running after "
                             f"{fmt_secs(now - start)}: "
                             f"{last_line[0][:70]}")
                    next_beat = now + HEARTBEAT_SECS
        reader.join(10)
    if proc.returncode != 0:
        raise BenchError(f"{what}: failed (exit {proc.returncode}): "
                         f"{last_line[0][:120]} (log: {log})")


def capture(cmd: Sequence[str], timeout: float = 120.0,
            what: str = "") -> str:
    """Run a short command and return its stdout; BenchError on failure."""
    try:
        res = subprocess.run(list(cmd), capture_output=True, text=True,
                             timeout=timeout, check=False,
                             stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise BenchError(f"{what or cmd[0]}: {cmd[0]} not found "
                         f"(run `scripts/ndisbench setup`)") from exc
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{what or cmd[0]}: timed out after "
                         f"{timeout:.0f}s") from exc
    if res.returncode != 0:
        msg = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BenchError(f"{what or ' '.join(cmd)}: {msg}")
    return res.stdout
