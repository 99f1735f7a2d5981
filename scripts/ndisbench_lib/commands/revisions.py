"""A wrapper tree's history, read-only: `bisect --wrapper-src
REPO[:SUBDIR]`. Commits are resolved, listed and exported (`git archive`
into a folder of the bisect's own) without touching the user's work
tree, index, HEAD or refs: git bisect itself would move their HEAD."""
import dataclasses
import os
import pathlib
import posixpath
import re
import shutil
import subprocess
import tarfile
from typing import List, Sequence, Tuple

from ..errors import BenchError

GIT_TIMEOUT = 120.0
ARCHIVE_TIMEOUT = 600.0
SHORT = 8
# No index refresh or other optional write of git's in the user's repo.
GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0"}
BISECT_LINE_RE = re.compile(r"^([0-9a-f]{40,64}) \((?:.*, )?dist=(\d+)\)$")


def short(rev: str) -> str:
    return rev[:SHORT]


@dataclasses.dataclass(frozen=True)
class Source:
    """REPO[:SUBDIR]: a folder of a git repository and the wrapper tree's
    folder inside the repository (from its top; "": the top)."""
    repo: pathlib.Path
    subdir: str

    @property
    def label(self) -> str:
        return f"{self.repo}:{self.subdir}" if self.subdir else \
            str(self.repo)


def git(repo: pathlib.Path, args: Sequence[str], what: str,
        timeout: float = GIT_TIMEOUT) -> subprocess.CompletedProcess:
    """git -C repo args (never raises on its exit code: the caller
    reads it); BenchError when git cannot run or times out."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args],
                              capture_output=True, text=True,
                              timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL,
                              env=dict(os.environ, **GIT_ENV))
    except FileNotFoundError as exc:
        raise BenchError(f"{what}: git not found (run `scripts/ndisbench "
                         f"setup`)") from exc
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{what}: git {args[0]} timed out after "
                         f"{timeout:.0f}s") from exc


def _last_error(res: subprocess.CompletedProcess) -> str:
    return (res.stderr.strip().splitlines() or ["(no output)"])[-1]


def parse_source(spec: str) -> Source:
    """REPO, or REPO:SUBDIR (a folder that exists is always taken whole).
    REPO may be a folder inside the work tree: its path in the repository
    goes in front of SUBDIR."""
    repo, sub = spec, ""
    if not pathlib.Path(spec).is_dir() and ":" in spec:
        repo, sub = spec.rsplit(":", 1)
    path = pathlib.Path(repo).expanduser()
    if not path.is_dir():
        raise BenchError(f"--wrapper-src {repo}: no such folder")
    sub = posixpath.normpath(sub) if sub else ""
    if sub.startswith("/") or sub == ".." or sub.startswith("../"):
        raise BenchError(f"--wrapper-src {spec}: SUBDIR '{sub}' leaves "
                         f"the repository")
    # git runs from the top: in a folder of the work tree, git archive
    # would take a tree's paths as relative to that folder.
    res = git(path, ["rev-parse", "--show-cdup", "--show-prefix"],
              f"--wrapper-src {repo}")
    if res.returncode != 0:
        raise BenchError(f"--wrapper-src {repo}: not a git repository "
                         f"(bisect reads its history)")
    lines = res.stdout.split("\n")
    cdup, prefix = (lines + ["", ""])[:2]
    full = posixpath.normpath(posixpath.join(prefix.strip(), sub))
    return Source((path / cdup.strip()).resolve(),
                  "" if full == "." else full)


class Repo:
    """The read-only git commands of a bisect."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.path = source.repo

    def _out(self, args: Sequence[str], what: str) -> str:
        res = git(self.path, args, what)
        if res.returncode != 0:
            raise BenchError(f"{what}: {_last_error(res)}")
        return res.stdout

    def commit(self, rev: str, what: str) -> str:
        """The full hash of a commit (what: the option that named it)."""
        res = git(self.path, ["rev-parse", "--verify", "--quiet",
                              "--end-of-options", f"{rev}^{{commit}}"], what)
        if res.returncode != 0 or not res.stdout.strip():
            raise BenchError(f"{what} {rev}: not a commit of "
                             f"{self.path}")
        return res.stdout.strip()

    def is_ancestor(self, old: str, new: str) -> bool:
        res = git(self.path, ["merge-base", "--is-ancestor", old, new],
                  "git merge-base")
        if res.returncode not in (0, 1):
            raise BenchError(f"git merge-base: {_last_error(res)}")
        return res.returncode == 0

    def subject(self, rev: str) -> str:
        return self._out(["show", "-s", "--no-show-signature",
                          "--format=%s", rev], f"git show {short(rev)}"
                         ).strip()

    def parents(self, rev: str) -> List[str]:
        return self._out(["rev-list", "--parents", "-n", "1", rev],
                         f"git rev-list {short(rev)}").split()[1:]

    def _range(self, new: str, olds: Sequence[str]) -> List[str]:
        return ["--ancestry-path", new, "--not", *olds]

    def candidates(self, new: str, olds: Sequence[str]
                   ) -> List[Tuple[str, int]]:
        """The commits that may be the first new one (new among them):
        descendants of an old commit, ancestors of new; best split points
        first (git's own bisection distance)."""
        out = self._out(["rev-list", "--bisect-all",
                         *self._range(new, olds)],
                        "git rev-list --bisect-all")
        found = []
        for line in out.splitlines():
            m = BISECT_LINE_RE.match(line.strip())
            if not m:
                raise BenchError(f"git rev-list --bisect-all: unexpected "
                                 f"line '{line.strip()}'")
            found.append((m.group(1), int(m.group(2))))
        return sorted(found, key=lambda c: -c[1])

    def oldest_first(self, new: str, olds: Sequence[str]) -> List[str]:
        """The same commits, oldest first (for reading)."""
        return self._out(["rev-list", "--reverse", "--topo-order",
                          *self._range(new, olds)], "git rev-list").split()

    def export(self, rev: str, dest: pathlib.Path) -> pathlib.Path:
        """The wrapper tree (SUBDIR) of a commit, written afresh into
        dest: git archive of the commit's tree, unpacked as data (no
        links out, no devices)."""
        sub = self.source.subdir
        obj = f"{rev}:{sub}"        # "rev:": the commit's whole tree
        kind = git(self.path, ["cat-file", "-t", obj], "git cat-file")
        if kind.returncode != 0 or kind.stdout.strip() != "tree":
            raise BenchError(f"{short(rev)} has no folder {sub or '/'}")
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        tar = dest.parent / f"{dest.name}.tar"
        res = git(self.path, ["archive", "--format=tar", "-o", str(tar),
                              obj], f"git archive {short(rev)}",
                  ARCHIVE_TIMEOUT)
        try:
            if res.returncode != 0:
                raise BenchError(f"git archive {short(rev)}: "
                                 f"{_last_error(res)}")
            with tarfile.open(tar) as archive:
                _unpack(archive, dest)
        except (OSError, tarfile.TarError) as exc:
            raise BenchError(f"{short(rev)}: cannot unpack its tree into "
                             f"{dest}: {exc}") from exc
        finally:
            tar.unlink(missing_ok=True)
        return dest


def _unpack(archive: tarfile.TarFile, dest: pathlib.Path) -> None:
    """Unpack as data: tarfile's own filter where this Python has it (3.12,
    some 3.11 builds), else the same refusals by hand (a path out of
    dest, a device or fifo)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
        return
    members = archive.getmembers()
    for m in members:
        name = posixpath.normpath(m.name)
        if name.startswith("/") or name == ".." or name.startswith("../"):
            raise BenchError(f"refused path {m.name} in the archive")
        if m.isdev() or m.isfifo():
            raise BenchError(f"refused special file {m.name} in the archive")
    archive.extractall(dest, members=members)
