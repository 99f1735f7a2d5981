"""The wrapper tree under test (`run --wrapper-src DIR`), named exactly:
its version string as its sources define it (DRIVER_VERSION, else the
MODULE_VERSION modinfo shows) and, where DIR is a git work tree or inside
one, its commit and `git describe --tags --always --dirty`.

git is run read-only (no optional locks, no fsmonitor, no hooks) and with a
timeout: it reads the repository, it never builds or runs the tree's own
code. A tree that is no git work tree, or a git that fails, simply has no
commit."""
import dataclasses
import os
import pathlib
import re
import subprocess
from typing import Dict, List, Mapping

GIT_SECONDS = 20
# Sources are small; a tree this big is not a wrapper, so stop looking.
MAX_FILES = 2000
DRIVER_VERSION_RE = re.compile(
    r'^\s*#\s*define\s+DRIVER_VERSION\s+"([^"\n]+)"', re.MULTILINE)
MODULE_VERSION_RE = re.compile(r'\bMODULE_VERSION\(\s*"([^"\n]+)"\s*\)')


@dataclasses.dataclass(frozen=True)
class Subject:
    path: str
    version: str = ""       # "": the sources define none
    commit: str = ""        # HEAD of the work tree; "": not a git tree
    describe: str = ""      # git describe --tags --always --dirty

    @property
    def label(self) -> str:
        """One line: version, then git's name and commit."""
        version = f"version {self.version}" if self.version else \
            "no version string"
        if not self.commit:
            return f"{version} (not a git work tree)"
        return f"{version}, git {self.describe or '?'} ({self.commit})"

    def as_dict(self) -> Dict[str, str]:
        return dataclasses.asdict(self)


def line_of(record: Mapping[str, object]) -> str:
    """The reports' line for a results.json subject record ({}: our own
    wrapper, "")."""
    if not record:
        return ""
    who = Subject(**{f.name: str(record.get(f.name, "")) for f in
                     dataclasses.fields(Subject)})
    return f"Wrapper under test: {who.path}, {who.label}."


def _sources(src: pathlib.Path) -> List[pathlib.Path]:
    found: List[pathlib.Path] = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [pathlib.Path(root) / f for f in sorted(files)
                  if f.endswith((".h", ".c"))]
        if len(found) > MAX_FILES:
            break
    # headers first: DRIVER_VERSION lives in one
    return sorted(found, key=lambda p: (p.suffix != ".h", str(p)))


def version_of(src: pathlib.Path) -> str:
    """DRIVER_VERSION of the tree's headers, else its MODULE_VERSION."""
    texts = []
    for path in _sources(src):
        try:
            texts.append(path.read_text(errors="replace"))
        except OSError:
            continue
    for regex in (DRIVER_VERSION_RE, MODULE_VERSION_RE):
        for text in texts:
            match = regex.search(text)
            if match:
                return match.group(1).strip()
    return ""


def _git(src: pathlib.Path, *args: str) -> str:
    """git's answer, or "" when it has none (no git, not a work tree, an
    untrusted owner, a timeout)."""
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        proc = subprocess.run(
            ["git", "--no-optional-locks", "-c", "core.fsmonitor=false",
             "-c", "core.hooksPath=/dev/null", "-C", str(src), *args],
            capture_output=True, text=True, timeout=GIT_SECONDS, env=env,
            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def identify(src: pathlib.Path) -> Subject:
    commit = ""
    describe = ""
    if _git(src, "rev-parse", "--is-inside-work-tree") == "true":
        commit = _git(src, "rev-parse", "HEAD")
        if commit:
            describe = _git(src, "describe", "--tags", "--always",
                            "--dirty")
    return Subject(str(src), version_of(src), commit, describe)
