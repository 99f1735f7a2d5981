"""Content-addressed build cache.

Every artifact lives in <cache>/<kind>/<key>/ where key is a hash of
everything that went into it (package versions, patch and config contents,
compiler version, recipe version). An entry is built in a temporary folder
and renamed into place only when complete, so an interrupted build never
leaves a half-written entry behind and a second run finds everything.
"""
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
from typing import Iterator, Mapping, Optional, Sequence, Set, Tuple

from ..errors import BenchError

# Bump when a recipe changes in a way its inputs do not show.
RECIPE_VERSION = 1
COMPLETE = ".ndisbench-complete"


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


def tree_digest(root: pathlib.Path,
                ignore: Sequence[str] = (".gitignore",),
                skip_dirs: Sequence[str] = ()) -> str:
    """Hash of every regular file under root: relative names and contents.
    skip_dirs: top-level folders left out (in-tree build output)."""
    h = hashlib.sha256()
    for rel, path in sorted(tree_files(root)):
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
        """Yield a scratch folder; on success it becomes the entry."""
        final = self.path(kind, key)
        tmp = final.parent / f".{key}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        try:
            yield tmp
            (tmp / COMPLETE).write_text(json.dumps(dict(inputs),
                                                   sort_keys=True, indent=1))
            if final.exists():
                # Incomplete leftover of an interrupted run, or a twin that
                # finished first: the complete one wins.
                if (final / COMPLETE).exists():
                    shutil.rmtree(tmp)
                    return
                shutil.rmtree(final)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


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
