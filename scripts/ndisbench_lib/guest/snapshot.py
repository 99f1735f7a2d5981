"""Booted guests saved once and restored for every later cell (the boot
was most of a warm cell's time).

A cell's guest is the same machine up to the moment the agent reads what
to do: same QEMU, kernel, initramfs, device models and kernel command
line. Only the agent's words (ndisbench.*: sink ports, checks) differ. So
the agent takes those from the console (ndisbench.params=console, guest/
agent/agent.c): it prints READY_LINE and waits. On a cache miss the host
boots as always, and at that line stops the VM, migrates it into a file
(QMP getfd + migrate fd:), lets it go on and writes the words; the file
goes into the cache under a key of everything the machine was made of
(key()). On a hit the host starts QEMU with -incoming fd:N on that file,
continues the guest once it is loaded (it was saved stopped) and writes
the words: the guest goes on from the line it waited
at, booted already. The boot's console output up to that line is kept
with the snapshot and leads the cell's serial.log, so judging sees a
whole boot either way.

What a snapshot cannot carry: frames in flight on the air when the VM
stopped (the air has no vmstate: they are lost, as when a radio goes
away; at that point only beacons fly), and the APs' stations (none is
associated at that point: qemu-devices/wlan-ap.c). The RTC runs on the
host's clock, so a restored guest's RTC is today's; its monotonic clock
goes on from the save.
"""
import dataclasses
import hashlib
import json
import os
import pathlib
import shutil
import tempfile
import threading
import time
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import qmp
from ..build.cache import Cache, ensure_free, file_digest
from ..errors import BenchError
from ..report.ktap import READY_LINE

PARAMS_WORD = "ndisbench.params=console"
AGENT_PREFIX = "ndisbench."
KIND = "snapshots"
STATE_FILE = "vm.state"
BOOT_LOG = "boot.log"
# Bump when what a snapshot holds, or how it is made, changes in a way
# the key's inputs do not show.
FORMAT = 2                      # 2: saved stopped
RUNAS_USER = "{user}"           # -runas in a key (_without_pool_user)
SAVE_TIMEOUT_SECS = 120.0
DEFAULT_BUDGET = 40000 * 1000 * 1000
PER_CELL = 2
STALE_SECS = 3600.0
POLL_SECS = 0.02
# A save's size before any exists to go by (they run 70-110 MB), and
# what stays free beside it: a guest's save must not fill the host's disk.
FIRST_SAVE_BYTES = 200 * 1000 * 1000
FREE_FLOOR_BYTES = 500 * 1000 * 1000


class SnapshotError(BenchError):
    """A guest could not be saved (the cell goes on unsaved)."""


def split_cmdline(append: str) -> Tuple[str, str]:
    """(the kernel's command line with PARAMS_WORD, the agent's words): the
    kernel's words are the same for every cell of a kernel x device, the
    agent's are the cell's own."""
    words = append.split()
    kernel = [w for w in words if not w.startswith(AGENT_PREFIX)]
    agent = [w for w in words if w.startswith(AGENT_PREFIX)]
    return " ".join(kernel + [PARAMS_WORD]), " ".join(agent)


_digests: Dict[Tuple[str, int, int], str] = {}
_digest_lock = threading.Lock()


def _file_id(path: pathlib.Path) -> str:
    """file_digest(), remembered per (path, size, mtime): every cell keys
    the same QEMU binary, kernel and (often) initramfs."""
    st = path.stat()
    memo = (str(path), st.st_size, st.st_mtime_ns)
    with _digest_lock:
        if memo in _digests:
            return _digests[memo]
    digest = file_digest(path)
    with _digest_lock:
        _digests[memo] = digest
    return digest


def _without_pool_user(words: List[str]) -> List[str]:
    """The words with -runas's user as one placeholder: a cell runs as
    whichever pool user is free (sandbox.py), which shapes nothing in the
    guest, and a key that named it restored a boot only on the worker slot
    that saved it."""
    return [RUNAS_USER if i and words[i - 1] == "-runas" else w
            for i, w in enumerate(words)]


def key(qemu: pathlib.Path, files: Sequence[pathlib.Path],
        words: Iterable[str]) -> str:
    """What the machine up to READY_LINE is made of: the QEMU binary, the
    files it loads (kernel, initramfs) by content, and every other word
    of its command line that shapes the guest (the boot command line, the
    machine, memory, accelerator, clock, devices)."""
    try:
        inputs = {"format": FORMAT, "qemu": _file_id(qemu),
                  "files": [_file_id(f) for f in files],
                  "words": _without_pool_user(list(words))}
    except OSError as exc:
        raise SnapshotError(f"cannot key a saved boot: {exc}") from exc
    blob = json.dumps(inputs, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:24]


@dataclasses.dataclass
class Snapshot:
    """One saved guest: the migration stream and the boot log up to
    READY_LINE."""
    entry: pathlib.Path
    label: str

    @property
    def state(self) -> pathlib.Path:
        return self.entry / STATE_FILE

    def boot_log(self) -> str:
        return (self.entry / BOOT_LOG).read_text(encoding="utf-8",
                                                 errors="replace")


def find(cache: Cache, key_: str) -> Optional[Snapshot]:
    entry = cache.lookup(KIND, key_)
    if entry is None or not (entry / STATE_FILE).is_file():
        return None
    try:
        label = str(cache.meta(entry).get("cell", ""))
    except (OSError, ValueError):
        return None
    return Snapshot(entry, label)


# What QEMU prints, prefixed by its program name, when the incoming
# stream could not be loaded (migration.c, then it exits 1).
LOAD_FAILED = "load of migration failed: "


def load_error(serial: str, qemu: pathlib.Path) -> str:
    """QEMU's own reason a restore failed (its load error line), or ""
    when it never said so: a QEMU killed or crashed after loading has not
    shown its snapshot bad."""
    said = f"{qemu.name}: {LOAD_FAILED}"
    for line in reversed(serial.splitlines()):
        if line.startswith(said):
            return line[len(said):].strip() or "no reason given"
    return ""


def discard(snap: Snapshot) -> None:
    """A snapshot QEMU could not load: gone, so the next cell boots."""
    shutil.rmtree(snap.entry, ignore_errors=True)


class Restorer:
    """The host's half of a hit: QEMU loads the stream from an inherited
    fd, and running() holds the agent's words back until the guest runs.
    Bytes written while QEMU still loads would reach the serial port of
    the machine before its saved state replaces it: they are lost."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.qmp = qmp.QmpSocket()

    def qemu_args(self) -> List[str]:
        return ["-incoming", f"fd:{self.fd}"] + self.qmp.qemu_args()

    def running(self, timeout: float = SAVE_TIMEOUT_SECS) -> Optional[str]:
        """Wait until the stream is loaded and continue the guest (saved
        stopped, it comes up paused): None, or a note for the log saying
        why the words went in anyway."""
        end = time.monotonic() + timeout
        while not self.qmp.path.exists():
            if time.monotonic() > end:
                return "QMP socket never appeared"
            time.sleep(POLL_SECS)
        while True:
            # QEMU binds the socket before it listens: a connect in
            # between is refused, so try again until the deadline.
            try:
                mon = self.qmp.connect()
                break
            except BenchError as exc:
                if time.monotonic() > end:
                    return str(exc)
                time.sleep(POLL_SECS)
        try:
            while True:
                status = mon.execute("query-status").get("status", "")
                if status == "running":
                    return None
                if status == "paused" and mon.execute("query-migrate").get(
                        "status") == "completed":
                    mon.execute("cont")
                    continue
                if time.monotonic() > end or status not in (
                        "inmigrate", "prelaunch", "restore-vm"):
                    return f"restored guest is {status}"
                time.sleep(POLL_SECS)
        except (BenchError, OSError) as exc:
            # OSError: QEMU killed mid-talk (an interrupted run)
            return str(exc)
        finally:
            mon.close()

    def close(self) -> None:
        self.qmp.close()


class Saver:
    """The host's half of a miss: a QMP socket on the booting QEMU and,
    at READY_LINE, save(): stop, migrate into a scratch file, go on. The
    file becomes the cache entry with the boot log so far (publish())."""

    def __init__(self, cache: Cache, key_: str, label: str,
                 inputs: Dict[str, object]) -> None:
        self.cache = cache
        self.key = key_
        self.label = label
        self.inputs = inputs
        self.qmp = qmp.QmpSocket()
        self.saved: Optional[pathlib.Path] = None
        self.tried = False

    def qemu_args(self) -> List[str]:
        return self.qmp.qemu_args()

    def save(self) -> str:
        """Called at READY_LINE, the guest waiting: a note for the log.
        Once per boot: the first ready line is the machine every cell
        shares; a guest that prints it again gets no second image."""
        if self.tried:
            return ("snapshot not saved: the guest was saved already "
                    "(a second ready line)")
        self.tried = True
        start = time.monotonic()
        root = self.cache.root / KIND
        root.mkdir(parents=True, exist_ok=True)
        try:
            ensure_free(root)
        except BenchError as exc:
            return f"snapshot not saved: {exc}"
        short = room_short(root)
        if short:
            return f"snapshot not saved: {short}"
        fd, name = tempfile.mkstemp(prefix=f".{self.key}.", suffix=".part",
                                    dir=root)
        path = pathlib.Path(name)
        try:
            self._migrate(fd)
        except (BenchError, OSError) as exc:
            path.unlink(missing_ok=True)
            return f"snapshot not saved: {exc}"
        finally:
            os.close(fd)
        self.saved = path
        return (f"snapshot saved in {time.monotonic() - start:.2f}s "
                f"({path.stat().st_size / 1e6:.1f} MB)")

    def _migrate(self, fd: int) -> None:
        mon = self.qmp.connect()
        try:
            # Stopped first: one pass over a still machine, no dirty-page
            # tracking to trust. The stream records the run state, so a
            # restore comes up paused and Restorer.running() continues it.
            mon.execute("stop")
            mon.send_fd("snapshot", fd)
            mon.execute("migrate", {"uri": "fd:snapshot"})
            status = wait_migration(mon)
            resume_after_save(mon)
        finally:
            mon.close()
        if status != "completed":
            raise SnapshotError(f"migration {status}")

    def publish(self, boot_log: str) -> Optional[Snapshot]:
        """The saved file and the boot log up to READY_LINE as the cache
        entry (older snapshots of the same cell go); None when nothing
        was saved."""
        if self.saved is None:
            return None
        prefix = boot_prefix(boot_log)
        if prefix is None:
            self.saved.unlink(missing_ok=True)
            return None
        try:
            with self.cache.publish(KIND, self.key, dict(
                    self.inputs, cell=self.label)) as tmp:
                os.rename(self.saved, tmp / STATE_FILE)
                (tmp / BOOT_LOG).write_text(prefix, encoding="utf-8")
        except BenchError:
            return None         # below the free-space floor: not saved
        finally:
            self.saved.unlink(missing_ok=True)
        prune(self.cache, self.label, self.key)
        return find(self.cache, self.key)

    def close(self) -> None:
        if self.saved is not None:
            self.saved.unlink(missing_ok=True)
        self.qmp.close()


def wait_migration(mon: "qmp.Qmp",
                   timeout: float = SAVE_TIMEOUT_SECS) -> str:
    """Poll query-migrate until it ends: its last status."""
    end = time.monotonic() + timeout
    while True:
        status = mon.execute("query-migrate").get("status", "")
        if status in ("completed", "failed", "cancelled"):
            return status
        if time.monotonic() > end:
            return f"still {status or 'not started'} after {timeout:.0f}s"
        time.sleep(POLL_SECS)


def resume_after_save(mon: "qmp.Qmp",
                      timeout: float = SAVE_TIMEOUT_SECS) -> None:
    """Let the saved guest go on. query-migrate says completed a moment
    before QEMU leaves finish-migrate, and a cont in between is refused
    (Migration is not finalized yet): wait for that state to pass."""
    end = time.monotonic() + timeout
    while True:
        state = mon.execute("query-status")
        if state.get("running"):
            return
        status = state.get("status", "")
        if status != "finish-migrate":
            try:
                mon.execute("cont")
                return
            except BenchError as exc:
                if "not finalized" not in str(exc):
                    raise
        if time.monotonic() > end:
            raise SnapshotError(f"the guest stayed {status or 'stopped'} "
                                f"{timeout:.0f}s after its save")
        time.sleep(POLL_SECS)


def boot_prefix(serial: str) -> Optional[str]:
    """The console output up to and including READY_LINE, or None
    without that line."""
    lines = serial.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == READY_LINE:
            return "".join(lines[:i + 1])
    return None


def room_short(root: pathlib.Path) -> Optional[str]:
    """Why a save does not fit on root's file system now, or None: the
    largest snapshot there (else FIRST_SAVE_BYTES) plus FREE_FLOOR_BYTES
    must be free."""
    largest = FIRST_SAVE_BYTES
    for entry in root.iterdir():
        try:
            largest = max(largest, (entry / STATE_FILE).stat().st_size)
        except OSError:
            continue
    need = largest + FREE_FLOOR_BYTES
    try:
        free = shutil.disk_usage(root).free
    except OSError as exc:
        return f"cannot read the free space of {root}: {exc}"
    if free < need:
        return (f"{free // 1000000} MB free in {root}, a save needs "
                f"{need // 1000000} MB")
    return None


def budget_bytes() -> int:
    """NDISBENCH_SNAPSHOT_MB: what all snapshots may take together
    (default 40000 MB: every guest the test command saves, more than 363
    of 22-196 MB, with room; below that, its passes evict with
    least-recently-used exactly the guests the next pass wants first)."""
    text = os.environ.get("NDISBENCH_SNAPSHOT_MB", "")
    try:
        return int(text) * 1000 * 1000 if text else DEFAULT_BUDGET
    except ValueError:
        raise BenchError(f"NDISBENCH_SNAPSHOT_MB={text}: not a number of "
                         f"megabytes") from None


def prune(cache: Cache, label: str, keep: str,
          budget: Optional[int] = None) -> None:
    """Older snapshots of the same cell (kernel/device) beyond the newest
    PER_CELL: an edit of the wrapper or the kernel leaves its old guests
    behind otherwise. Then the least recently used ones while all
    together exceed the budget, and scratch files of saves that never
    finished (older than an hour). Fresh scratch files (saves under way)
    count in the budget but stay. A QEMU that has one open keeps reading
    it (unlinked files live on)."""
    root = cache.root / KIND
    budget = budget_bytes() if budget is None else budget
    kept: List[Tuple[float, int, pathlib.Path]] = []
    mine: List[Tuple[float, pathlib.Path]] = []
    scratch = 0
    now = time.time()
    for entry in root.iterdir() if root.is_dir() else []:
        try:
            if entry.name.startswith("."):
                if now - entry.stat().st_mtime > STALE_SECS:
                    if entry.is_dir():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        entry.unlink()
                else:
                    scratch += _tree_bytes(entry)
                continue
            mtime = entry.stat().st_mtime
            kept.append((mtime, (entry / STATE_FILE).stat().st_size, entry))
            if cache.meta(entry).get("cell") == label:
                mine.append((mtime, entry))
        except (OSError, ValueError):
            continue
    # The newest PER_CELL of this cell stay: two variants of one cell
    # (bench's rounds and the matrix's) must not evict each other.
    mine.sort(reverse=True)
    gone = {e for _, e in mine[PER_CELL:] if e.name != keep}
    for entry in gone:
        shutil.rmtree(entry, ignore_errors=True)
    kept = [k for k in kept if k[2] not in gone]
    total = scratch + sum(size for _, size, _ in kept)
    for _, size, entry in sorted(kept):
        if total <= budget:
            break
        if entry.name != keep:
            shutil.rmtree(entry, ignore_errors=True)
            total -= size


def _tree_bytes(path: pathlib.Path) -> int:
    """The bytes of a file, or of the files under a folder."""
    if not path.is_dir():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def used(snap: Snapshot) -> None:
    """Mark a snapshot as just used (prune() drops the least recent)."""
    try:
        os.utime(snap.entry)
    except OSError:
        pass


def open_state(snap: Snapshot) -> Optional[int]:
    """A read fd on the migration stream for -incoming (inherited by
    QEMU), or None when it went meanwhile (pruned by another run)."""
    try:
        return os.open(snap.state, os.O_RDONLY)
    except OSError:
        return None
