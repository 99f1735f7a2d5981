"""Content-addressed build cache.

Every artifact lives in <cache>/<kind>/<key>/ where key is a hash of
everything that went into it (package versions, patch and config contents,
compiler version, recipe version). An entry is built in a temporary folder
and renamed into place only when complete, so an interrupted build never
leaves a half-written entry behind and a second run finds everything.
"""
import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
import time
from typing import Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from ..errors import BenchError

# Bump when a recipe changes in a way its inputs do not show.
RECIPE_VERSION = 1
COMPLETE = ".ndisbench-complete"
# The publish locks of every entry, apart from the entries.
LOCKS = ".locks"
# What the whole cache may take (NDISBENCH_CACHE_MB; its least recently
# used entries go beyond it) and the free space a big write needs
# (NDISBENCH_FREE_MB).
DEFAULT_CACHE_MB = 100000
DEFAULT_FREE_MB = 2000
# An entry used this recently may be another run's: it stays.
RECENT_SECS = 3600.0


def digest_inputs(inputs: Mapping[str, object]) -> str:
    """Stable short hash of a JSON-able mapping."""
    blob = json.dumps({"recipe": RECIPE_VERSION, **inputs}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def file_digest(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def tree_files(root: pathlib.Path) -> Iterator[Tuple[str, pathlib.Path]]:
    """(relative name, path) of every regular file under root, symlinks
    inside the tree followed. A symlink that leaves the tree is a
    BenchError: a user's tree must not make the bench (root) read, hash or
    copy what lies outside it."""
    top = root.resolve()
    seen: Set[pathlib.Path] = set()

    def walk(folder: pathlib.Path, rel: pathlib.PurePosixPath
             ) -> Iterator[Tuple[str, pathlib.Path]]:
        real = folder.resolve()
        if real in seen:        # a link back to a folder already walked
            return
        seen.add(real)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            path, name = pathlib.Path(entry.path), rel / entry.name
            if entry.is_symlink():
                target = path.resolve()
                if target != top and top not in target.parents:
                    raise BenchError(f"{root}: {name} is a symlink out of "
                                     f"the tree (to {target}): refused")
            if entry.is_dir():
                yield from walk(path, name)
            elif entry.is_file():
                yield name.as_posix(), path

    yield from walk(root, pathlib.PurePosixPath())


BYTE_CODE_DIR = "__pycache__"


def tree_digest(root: pathlib.Path,
                ignore: Sequence[str] = (".gitignore",),
                skip_dirs: Sequence[str] = ()) -> str:
    """Hash of every regular file under root: relative names and contents.
    skip_dirs: top-level folders left out (in-tree build output). Python's
    byte code (__pycache__, at any depth) is left out too: it is written
    beside a script that runs, stamped with the source's mtime, which
    differs in every clone."""
    h = hashlib.sha256()
    for rel, path in sorted(tree_files(root)):
        parts = rel.split("/")
        if path.name in ignore or parts[0] in skip_dirs or \
                BYTE_CODE_DIR in parts[:-1]:
            continue
        h.update(rel.encode() + b"\0" + file_digest(path).encode() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def compiler_id(cc: str = "gcc") -> str:
    """First line of `cc --version`: part of every compiled artifact's key."""
    try:
        out = subprocess.run([cc, "--version"], capture_output=True,
                             text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return f"{cc}: unavailable"
    return out.splitlines()[0] if out else cc


def _megabytes(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    try:
        return (int(text) if text else default) * 1000 * 1000
    except ValueError:
        raise BenchError(f"{name}={text}: not a number of megabytes"
                         ) from None


def cache_budget() -> int:
    """NDISBENCH_CACHE_MB in bytes (default 100000 MB)."""
    return _megabytes("NDISBENCH_CACHE_MB", DEFAULT_CACHE_MB)


def free_floor() -> int:
    """NDISBENCH_FREE_MB in bytes (default 2000 MB)."""
    return _megabytes("NDISBENCH_FREE_MB", DEFAULT_FREE_MB)


def ensure_free(where: pathlib.Path) -> None:
    """BenchError before a big write (a cache entry, a saved guest) when
    the file system of where has less than the floor free: the write would
    fill the disk for every run of the machine."""
    probe = where
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    st = os.statvfs(probe)
    free = st.f_bavail * st.f_frsize
    floor = free_floor()
    if free < floor:
        raise BenchError(f"host: {free // 1000000} MB free under {where} "
                         f"(below NDISBENCH_FREE_MB={floor // 1000000})")


# The entries this process uses (looked up, published, built in): never
# pruned while it runs.
_in_use: Set[pathlib.Path] = set()
_in_use_lock = threading.Lock()


def mark_used(path: pathlib.Path) -> None:
    """path is used now: its mtime is the cache's LRU clock, and this
    process keeps it."""
    with _in_use_lock:
        _in_use.add(path)
    try:
        os.utime(path)
    except OSError:
        pass


def forget_in_use() -> None:
    """Nothing is in use any more (between the unit tests of one
    process)."""
    with _in_use_lock:
        _in_use.clear()


def _size(path: pathlib.Path) -> int:
    """Bytes under path; 0 once it is gone (another run's scratch file,
    renamed into its entry meanwhile)."""
    if not path.is_dir() or path.is_symlink():
        try:
            return path.lstat().st_size
        except OSError:
            return 0
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


def _busy_tree(entry: pathlib.Path) -> bool:
    """A work tree whose lock another process holds (a build in it)."""
    lockfile = entry.parent / f"{entry.name}.lock"
    if not lockfile.exists():
        return False
    with open(lockfile, "a") as fd:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def cache_entries(root: pathlib.Path
                  ) -> List[Tuple[float, pathlib.Path]]:
    """(last used, path) of every entry of every kind: <kind>/<name>,
    files and folders; not the locks."""
    out: List[Tuple[float, pathlib.Path]] = []
    for kind in sorted(root.iterdir()) if root.is_dir() else []:
        if kind.name.startswith(".") or not kind.is_dir():
            continue
        for entry in kind.iterdir():
            if entry.name.endswith(".lock"):
                continue
            try:
                out.append((entry.lstat().st_mtime, entry))
            except OSError:
                continue
    return sorted(out)


def prune_cache(cache: "Cache", budget: Optional[int] = None,
                now: Optional[float] = None) -> List[pathlib.Path]:
    """Remove the least recently used entries while the whole cache is
    over budget; never one this process uses, one used in the last hour
    (another run's), or a work tree another process builds in. The
    entries removed, oldest first."""
    budget = cache_budget() if budget is None else budget
    now = time.time() if now is None else now
    if cache.root.is_dir():
        st = os.statvfs(cache.root)
        if (st.f_blocks - st.f_bfree) * st.f_frsize <= budget:
            return []           # the whole file system is within it
    entries = [(used, path, _size(path))
               for used, path in cache_entries(cache.root)]
    total = sum(size for _, _, size in entries)
    with _in_use_lock:
        keep = set(_in_use)
    gone: List[pathlib.Path] = []
    for used, path, size in entries:
        if total <= budget:
            break
        if path in keep or now - used < RECENT_SECS or (
                path.parent.name == "trees" and _busy_tree(path)):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not path.exists():
            gone.append(path)
            total -= size
    return gone


class Cache:
    """The cache folder and its atomic publish protocol."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root

    def path(self, kind: str, key: str) -> pathlib.Path:
        return self.root / kind / key

    def lookup(self, kind: str, key: str) -> Optional[pathlib.Path]:
        entry = self.path(kind, key)
        if not (entry / COMPLETE).exists():
            return None
        mark_used(entry)
        return entry

    def meta(self, entry: pathlib.Path) -> dict:
        return json.loads((entry / COMPLETE).read_text())

    @contextlib.contextmanager
    def publish(self, kind: str, key: str,
                inputs: Mapping[str, object]) -> Iterator[pathlib.Path]:
        """Yield a scratch folder; on success it becomes the entry. The
        scratch is this call's own (threads of one run build twins too);
        a twin that published first wins and this one's work goes."""
        final = self.path(kind, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        ensure_free(final.parent)
        mark_used(final)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{key}.tmp-",
                                            dir=final.parent))
        # mkdtemp's 0700 would shut the build user out of a kernel entry
        # its confined module builds read (build/confine.py binds the
        # entry itself); the cache's own root keeps others out.
        tmp.chmod(0o755)
        try:
            yield tmp
            (tmp / COMPLETE).write_text(json.dumps(dict(inputs),
                                                   sort_keys=True, indent=1))
            with self._entry_lock(kind, key):
                self._place(tmp, final)
            mark_used(final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @contextlib.contextmanager
    def _entry_lock(self, kind: str, key: str) -> Iterator[None]:
        """Held while an entry is checked and replaced: a leftover is
        removed by one publisher only, never a twin's fresh entry."""
        locks = self.root / LOCKS
        locks.mkdir(parents=True, exist_ok=True)
        with open(locks / f"{kind}-{key}", "w") as fd:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield

    @staticmethod
    def _place(tmp: pathlib.Path, final: pathlib.Path) -> None:
        if final.exists():
            # Incomplete leftover of an interrupted run, or a twin that
            # finished first: the complete one wins.
            if (final / COMPLETE).exists():
                shutil.rmtree(tmp)
                return
            shutil.rmtree(final)
        try:
            os.rename(tmp, final)
        except OSError as exc:
            # Another process (whose lock this is not: an older bench)
            # renamed its twin in between.
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or \
                    not (final / COMPLETE).exists():
                raise
            shutil.rmtree(tmp)


class WorkTree:
    """A persistent build folder <cache>/trees/<key>/ (a source tree that is
    built incrementally, so not a publishable entry) and its lock. Callers
    hold lock() while they use it."""

    def __init__(self, cache: Cache, inputs: Mapping[str, object],
                 base: Optional[pathlib.Path] = None) -> None:
        """base: where the tree lives, if not <cache>/trees (a build
        chroot's /build: build/chroot.py); its lock stays in trees/."""
        self.inputs = dict(inputs)
        self.key = digest_inputs(self.inputs)
        self.root = (base or cache.root / "trees") / self.key
        self.src = self.root / "src"
        self.log = self.root / "build.log"
        self.lockfile = cache.root / "trees" / f"{self.key}.lock"

    def lock(self):
        """An exclusive flock, released when the returned file closes."""
        self.lockfile.parent.mkdir(parents=True, exist_ok=True)
        fd = open(self.lockfile, "w")
        fcntl.flock(fd, fcntl.LOCK_EX)
        if self.root.parent == self.lockfile.parent:
            mark_used(self.root)
        return fd
