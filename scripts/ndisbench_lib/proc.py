"""Running external commands with logs, timeouts and heartbeats.

Every long-lived child (a build's make, a guest's QEMU, tshark) starts
through start(): in a process group of its own, so that a timeout kills
what it forked too (make's compilers), and registered, so that an
interrupted run (cancel()) or the bench's own end (kill_all()) leaves no
child behind. A terminal's Ctrl-C no longer reaches them by itself: the
bench ends them."""
import os
import pathlib
import signal
import subprocess
import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import buildlog
from .errors import BenchError, BuildError
from .progress import fmt_secs, say

HEARTBEAT_SECS = 30.0
BUILD_NICE = 10


class Cancelled(BenchError):
    """The run was interrupted: no child starts any more."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled, `kill`): ends the bench the way
    Ctrl-C does."""
    signal_name = "SIGTERM"


def raise_terminated(signum: int, frame: object) -> None:
    """The bench's SIGTERM handler (commands/cli.py)."""
    raise Terminated()


_children: Dict[int, subprocess.Popen] = {}
_children_lock = threading.Lock()
_cancelled = threading.Event()


def start(cmd: Sequence[str], **popen_kw: Any) -> subprocess.Popen:
    """subprocess.Popen in a new session (its own process group),
    registered until forget(); Cancelled once the run is cancelled."""
    with _children_lock:
        if _cancelled.is_set():
            raise Cancelled(f"{pathlib.Path(cmd[0]).name}: not started, "
                            f"the run was interrupted")
        child = subprocess.Popen(list(cmd), start_new_session=True,
                                 **popen_kw)
        _children[child.pid] = child
    return child


def kill_group(child: subprocess.Popen) -> None:
    """SIGKILL to the child's whole process group (it leads it), then
    reap the child."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass


def forget(child: subprocess.Popen) -> None:
    """The child is done with: its group goes if anything of it is left
    (a compiler of a make that exited)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    with _children_lock:
        _children.pop(child.pid, None)


def kill_all() -> int:
    """Kill every registered child's group: how many there were."""
    with _children_lock:
        live = list(_children.values())
        _children.clear()
    for child in live:
        kill_group(child)
    return len(live)


def cancel() -> int:
    """Interrupt the run: no child starts from now on, and every running
    one is killed with its group (the cells' QEMUs end at once)."""
    with _children_lock:
        _cancelled.set()
    return kill_all()


def cancelled() -> bool:
    return _cancelled.is_set()


def reopen() -> None:
    """Children may start again (between the unit tests of one process)."""
    _cancelled.clear()


def run(cmd: Sequence[str], timeout: float, **popen_kw: Any
        ) -> subprocess.CompletedProcess:
    """subprocess.run's capture through start(): stdout and stderr as
    text; TimeoutExpired after killing the child's group."""
    kw = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kw.update(popen_kw)
    child = start(cmd, **kw)
    try:
        out, err = child.communicate(timeout=timeout)
    except BaseException:
        kill_group(child)
        child.communicate()
        raise
    finally:
        forget(child)
    return subprocess.CompletedProcess(list(cmd), child.returncode, out,
                                       err)


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
    began = time.monotonic()
    last_line = [""]
    with open(log, "ab") as logf:
        logf.write(("$ " + " ".join(cmd) + "\n").encode())
        logf.flush()
        # The log is appended to run after run: only what this run writes
        # from here on can be its cause.
        run_start = logf.tell()
        try:
            proc = start(cmd, cwd=cwd, env=full_env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
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
        next_beat = began + HEARTBEAT_SECS
        try:
            while True:
                try:
                    proc.wait(timeout=1.0)
                    break
                except subprocess.TimeoutExpired:
                    now = time.monotonic()
                    if now - began > timeout:
                        # make's compilers too: they are in its group
                        kill_group(proc)
                        reader.join(5)
                        _close(proc, reader)
                        logf.flush()
                        raise BuildError(what, log, None,
                                         _causes(log, run_start),
                                         ended=f"timed out after "
                                               f"{fmt_secs(timeout)}")
                    if now >= next_beat:
                        say(tag, f"{what}: still running after "
                                 f"{fmt_secs(now - began)}: "
                                 f"{last_line[0][:70]}")
                        next_beat = now + HEARTBEAT_SECS
        except BaseException:
            # interrupted (Ctrl-C, SIGTERM): the whole build goes
            kill_group(proc)
            raise
        finally:
            forget(proc)
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
