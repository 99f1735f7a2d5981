"""Booting one guest under QEMU and collecting its serial console.

The serial port is QEMU's stdio; every line goes to the cell's serial.log
as it arrives, so a guest that hangs is killed at the timeout with its log
kept. The agent powers the guest off when done (-no-reboot makes QEMU exit;
panic=-1 turns a panic into a reboot, so into an exit, too).

Every QEMU runs sandboxed (guest/sandbox.py: seccomp, and -runas when the
bench is root); boot() reads the ids QEMU runs with while the guest talks.
"""
import dataclasses
import os
import pathlib
import shutil
import subprocess
import threading
import time
from typing import Callable, List, Optional, Sequence, Tuple

from . import sandbox
from .. import proc as children
from ..errors import BenchError, BootError
from ..report.ktap import DONE_LINE, READY_LINE

QEMU_FIRMWARE_DIRS = ("/usr/share/seabios", "/usr/share/qemu",
                      "/usr/lib/ipxe/qemu")
GRACE_SECS = 10.0
# What one guest may print (NDISBENCH_CONSOLE_MB raises it): a whole
# agent run is well under 1 MiB; past this the guest is flooding, and the
# host keeps its console in memory and on disk.
CONSOLE_MB = 16
# The console is read in pieces of at most this, so one endless line
# cannot outgrow the budget in memory before it is counted.
READ_CHUNK = 64 * 1024


@dataclasses.dataclass
class BootResult:
    status: str                 # "done", "timeout", "exited", "flood"
    exit_code: Optional[int]
    seconds: float
    first_ktap_secs: Optional[float]
    serial: str
    # QEMU's /proc/<pid>/status at its last console line (the guest's
    # lines come after -runas dropped privileges: that happens before the
    # main loop lets a vCPU reach the serial port).
    qemu_ids: Optional[sandbox.ProcessIds] = None


def console_budget() -> int:
    """NDISBENCH_CONSOLE_MB (MiB), else CONSOLE_MB: the bytes one guest's
    console may hold."""
    text = os.environ.get("NDISBENCH_CONSOLE_MB", "")
    try:
        mib = int(text) if text else CONSOLE_MB
    except ValueError:
        raise BenchError(f"NDISBENCH_CONSOLE_MB={text}: not a number of "
                         f"MiB") from None
    if mib <= 0:
        raise BenchError(f"NDISBENCH_CONSOLE_MB={text}: must be positive")
    return mib << 20


def flood_message(budget: int) -> str:
    return f"console flood: more than {budget / (1 << 20):.1f} MiB, guest " \
        "killed"


def qemu_override() -> Optional[str]:
    """NDISBENCH_QEMU: a QEMU of the user's for the rows that do not need
    our device models (none, e1000); unset, every row runs our build."""
    return os.environ.get("NDISBENCH_QEMU") or None


def qemu_binary() -> str:
    """NDISBENCH_QEMU, else qemu-system-x86_64 from PATH (Debian's)."""
    qemu = qemu_override() or shutil.which("qemu-system-x86_64")
    if not qemu:
        raise BenchError("qemu-system-x86_64 not found (run "
                         "`scripts/ndisbench setup`)")
    return qemu


def qemu_command(kernel: pathlib.Path, initrd: pathlib.Path, append: str,
                 accel: str, memory_mb: int, device_args: Sequence[str],
                 qemu: Optional[str] = None) -> List[str]:
    """qemu: our build (its privilege filter waits for -runas), else
    qemu_binary() (NDISBENCH_QEMU, or Debian's: elevateprivileges=allow
    when it must drop)."""
    cmd = [qemu or qemu_binary(), "-M", "q35", "-accel", accel, "-m",
           str(memory_mb), "-nodefaults", "-display", "none",
           "-no-reboot", "-serial", "stdio", "-kernel", str(kernel),
           "-initrd", str(initrd), "-append", append]
    for fw in QEMU_FIRMWARE_DIRS:
        if os.path.isdir(fw):
            cmd += ["-L", fw]
    cmd += sandbox.qemu_args(own_build=qemu is not None)
    return cmd + list(device_args)


@dataclasses.dataclass
class ConsoleParams:
    """The agent's words, written on the console when it prints
    READY_LINE (after at_ready, whose note goes into the log), or, for a
    guest restored past that line (prefix: the console output of the boot
    it was saved from, which leads the log), once at_ready returns (the
    guest runs)."""
    words: str
    at_ready: Optional[Callable[[], Optional[str]]] = None
    prefix: str = ""
    pass_fds: Tuple[int, ...] = ()
    note: str = ""              # the log's first line after the command


def _wait(proc: subprocess.Popen, done: threading.Event, start: float,
          timeout: float, grace: float) -> str:
    """Wait for QEMU to exit; kill it at the timeout, or `grace` seconds
    after the agent said it is done (a guest that fails to power off)."""
    done_at: Optional[float] = None
    while True:
        try:
            proc.wait(timeout=0.2)
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if done.is_set() and done_at is None:
            done_at = now
        if now - start > timeout or (done_at and now - done_at > grace):
            children.kill_group(proc)
            return "timeout" if done_at is None else "exited"


def boot(cmd: Sequence[str], log_path: pathlib.Path, timeout: float,
         grace: float = GRACE_SECS,
         on_line: Optional[Callable[[str], Optional[str]]] = None,
         console: Optional["ConsoleParams"] = None,
         console_bytes: Optional[int] = None,
         on_start: Optional[Callable[[int], None]] = None) -> BootResult:
    """Run QEMU until it exits, the agent is done, the timeout hits, or the
    guest prints more than console_bytes (default: console_budget();
    status "flood", QEMU killed, the log ends at the budget).
    on_line sees every console line as it arrives (the host's side of a
    conversation with the agent); what it returns goes into the log.
    console: the agent's words go in on the console (guest/snapshot.py).
    on_start: told QEMU's pid once it runs (the sinks count only it)."""
    budget = console_budget() if console_bytes is None else console_bytes
    flooded = threading.Event()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    first_ktap: List[float] = []
    done = threading.Event()
    lines: List[str] = []
    notes: List[str] = []       # a restored guest's note, logged at the end
    ids: List[sandbox.ProcessIds] = []
    ready: List[float] = []     # when the agent's ready line came
    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        log.write("# " + " ".join(cmd) + "\n")
        if console is not None:
            if console.note:
                log.write(f"# ndisbench: {console.note}\n")
            log.write(console.prefix)
            lines.append(console.prefix)
        log.flush()
        try:
            proc = children.start(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL if console is None
                else subprocess.PIPE,
                pass_fds=console.pass_fds if console is not None else ())
        except OSError as exc:
            raise BootError(f"{cmd[0]}: cannot start: {exc}") from exc
        assert proc.stdout is not None
        if on_start is not None:
            on_start(proc.pid)

        def tell_agent() -> None:
            assert console is not None and proc.stdin is not None
            try:
                proc.stdin.write(console.words.encode() + b"\n")
                proc.stdin.flush()
            except OSError:
                pass            # QEMU is gone: its exit tells why

        if console is not None and console.prefix:
            def restored() -> None:
                assert console is not None
                note = console.at_ready() if console.at_ready else None
                if note:
                    notes.append(note)
                tell_agent()
            threading.Thread(target=restored, daemon=True).start()

        def pump() -> None:
            assert proc.stdout is not None
            printed = 0
            while True:
                raw = proc.stdout.readline(READ_CHUNK)
                if not raw:
                    return
                printed += len(raw)
                if printed > budget:
                    flooded.set()
                    proc.kill()
                    log.write(f"\n# ndisbench: {flood_message(budget)}\n")
                    log.flush()
                    return
                line = raw.decode("utf-8", errors="replace")
                lines.append(line)
                log.write(line)
                log.flush()
                text = line.strip()
                # QEMU's own warnings come before the drop: the last
                # reading counts.
                seen = sandbox.read_ids(proc.pid)
                if seen is not None:
                    ids[:] = [seen]
                if not first_ktap and text.startswith("KTAP version"):
                    first_ktap.append(time.monotonic() - start)
                if text == DONE_LINE:
                    done.set()
                note = on_line(text) if on_line else None
                if text == READY_LINE and console is not None and \
                        not console.prefix:
                    # The agent waits once per boot: a repeat is the
                    # guest's text, never a second save or second words.
                    if ready:
                        note = "ready line again: ignored"
                    else:
                        ready.append(time.monotonic())
                        note = console.at_ready() if console.at_ready \
                            else note
                        tell_agent()
                if note:
                    log.write(f"# ndisbench: {note}\n")
                    log.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            status = _wait(proc, done, start, timeout, grace)
        finally:
            children.forget(proc)
        reader.join(grace)
        proc.stdout.close()
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if done.is_set():
            status = "done"
        if flooded.is_set():
            status = "flood"
        elapsed = time.monotonic() - start
        for note in notes:
            log.write(f"# ndisbench: {note}\n")
        if status == "timeout":
            log.write(f"\n# ndisbench: killed after {elapsed:.1f}s "
                      f"(timeout {timeout:.0f}s)\n")
    return BootResult(status, proc.returncode, elapsed,
                      first_ktap[0] if first_ktap else None, "".join(lines),
                      ids[0] if ids else None)
