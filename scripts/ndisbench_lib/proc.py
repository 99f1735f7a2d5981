"""Running external commands with logs, timeouts and heartbeats."""
import os
import pathlib
import subprocess
import threading
import time
from typing import List, Mapping, Optional, Sequence

from . import buildlog
from .errors import BenchError, BuildError
from .progress import fmt_secs, say

HEARTBEAT_SECS = 30.0
BUILD_NICE = 10


def run_logged(cmd: Sequence[str], log: pathlib.Path, what: str,
               cwd: Optional[pathlib.Path] = None,
               env: Optional[Mapping[str, str]] = None,
               timeout: float = 3600.0, tag: str = "build") -> None:
    """Run cmd with stdout+stderr appended to log; heartbeat while it runs.

    Raises BuildError (a BenchError) naming `what`, the cause found in
    this run's part of the log (buildlog.cause_lines) and the log when
    the command cannot start, fails or runs past its timeout.
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
        # The log is appended to run after run: only what this run writes
        # from here on can be its cause.
        run_start = logf.tell()
        try:
            proc = subprocess.Popen(list(cmd), cwd=cwd, env=full_env,
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
        except OSError as exc:
            cause = f"{cmd[0]}: {exc.strerror}"
            logf.write((cause + "\n").encode())
            raise BuildError(what, log, None, [cause],
                             ended="cannot run") from exc
        assert proc.stdout is not None
        # Builds yield the CPU to guests: cells boot while later kernels
        # build (runner.run), and a starved guest misses its timers (scan
        # dwell, beacon loss). The child has exec'd by now and forks its
        # compilers later, so they inherit this.
        try:
            os.setpriority(os.PRIO_PROCESS, proc.pid, BUILD_NICE)
        except OSError:
            pass

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
                    _close(proc, reader)
                    logf.flush()
                    raise BuildError(what, log, None,
                                     _causes(log, run_start),
                                     ended=f"timed out after "
                                           f"{fmt_secs(timeout)}")
                if now >= next_beat:
                    say(tag, f"{what}: still running after "
                             f"{fmt_secs(now - start)}: "
                             f"{last_line[0][:70]}")
                    next_beat = now + HEARTBEAT_SECS
        reader.join(10)
        _close(proc, reader)
    if proc.returncode != 0:
        raise BuildError(what, log, proc.returncode, _causes(log, run_start))


def _close(proc: subprocess.Popen, reader: threading.Thread) -> None:
    """Close the pipe once the reader is done with it (a child that
    outlives the command may still hold it open)."""
    if not reader.is_alive() and proc.stdout is not None:
        proc.stdout.close()


# The tail of a run read for its cause: a kernel build's output can be
# tens of MB, and make stops soon after the first error.
CAUSE_TAIL_BYTES = 8 << 20


def _causes(log: pathlib.Path, offset: int) -> List[str]:
    """The cause lines of the part of log from offset on; its last
    meaningful line when no known error line is there."""
    try:
        with open(log, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(offset, size - CAUSE_TAIL_BYTES))
            text = f.read().decode(errors="replace")
    except OSError:
        return []
    found = buildlog.cause_lines(text)
    if not found:
        last = buildlog.last_line(text)
        found = [last] if last else []
    return found


def capture(cmd: Sequence[str], timeout: float = 120.0,
            what: str = "", env: Optional[Mapping[str, str]] = None) -> str:
    """Run a short command and return its stdout; BenchError on failure.
    env: added to the process environment."""
    try:
        res = subprocess.run(list(cmd), capture_output=True, text=True,
                             timeout=timeout, check=False,
                             stdin=subprocess.DEVNULL,
                             env=dict(os.environ, **env) if env else None)
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
