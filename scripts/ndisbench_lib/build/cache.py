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
from typing import Iterator, Mapping, Optional, Sequence

# Bump when a recipe changes in a way its inputs do not show.
RECIPE_VERSION = 1
COMPLETE = ".ndisbench-complete"
# The publish locks of every entry, apart from the entries.
LOCKS = ".locks"


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


def tree_digest(root: pathlib.Path,
                ignore: Sequence[str] = (".gitignore",),
                skip_dirs: Sequence[str] = ()) -> str:
    """Hash of every regular file under root: relative names and contents.
    skip_dirs: top-level folders left out (in-tree build output)."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if path.name in ignore or rel.split("/")[0] in skip_dirs:
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


class Cache:
    """The cache folder and its atomic publish protocol."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root

    def path(self, kind: str, key: str) -> pathlib.Path:
        return self.root / kind / key

    def lookup(self, kind: str, key: str) -> Optional[pathlib.Path]:
        entry = self.path(kind, key)
        return entry if (entry / COMPLETE).exists() else None

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
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{key}.tmp-",
                                            dir=final.parent))
        try:
            yield tmp
            (tmp / COMPLETE).write_text(json.dumps(dict(inputs),
                                                   sort_keys=True, indent=1))
            with self._entry_lock(kind, key):
                self._place(tmp, final)
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
        return fd
