"""Confined builds: every command that runs code of a user's tree (a
--wrapper-src tree's Makefiles and installer, a --kernel-tree's top
Makefile, and our own module builds, which run the kernel tree's) runs
unprivileged in bubblewrap: its own user, mount, pid, network, IPC and
UTS namespaces, no capabilities, no network, a fresh /proc, /dev and
/tmp, the host's /usr and /etc (or a build chroot's tree) read-only,
the folders it reads read-only, only its work folder writable, and an
environment of PATH, HOME, LC_ALL and what the caller names.

When the bench runs as root the build runs as the bench's system user
(ndisbench, made by `ndisbench setup`), reached through
confine_enter.py (which see; it also makes the sandbox itself where
the bench runs in a chroot and bubblewrap cannot); otherwise as the
invoking user. The
writable folder must belong to that user (own() makes it so); what the
build leaves there the bench reads back as root (read_output) and
publishes into the cache itself.
"""
import json
import os
import pathlib
import pwd
import shutil
import stat
import sys
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import BenchError

BUILD_USER = "ndisbench"
# In the keys of what confined builds make: an entry built before builds
# were confined (as root) is not reused.
RECIPE = 1
BWRAP = "bwrap"
ENTER = pathlib.Path(__file__).with_name("confine_enter.py")
STAGE = "/tmp/ndisbench-stage"          # confine_enter.STAGE
PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
HOME = "/tmp"
# The host's system folders a build on the host sees (read-only); a
# symlink among them (/bin -> usr/bin on a merged /usr) is made as one.
HOST_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
             "/libx32")


# A folder seen at its own path, or (host folder, path in the sandbox).
Bind = Union[pathlib.Path, Tuple[pathlib.Path, str]]


class ConfineError(BenchError):
    """A confined build cannot be set up (no build user, a folder the
    build may not have)."""


def build_user() -> Optional[pwd.struct_passwd]:
    """Who builds: the bench's system user when the bench is root (None:
    setup never made it), else nobody to switch to (None)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(BUILD_USER)
    except KeyError:
        raise ConfineError(f"no user {BUILD_USER} to run builds as (run "
                           f"`scripts/ndisbench setup`)") from None


def _pair(bind: Bind) -> Tuple[pathlib.Path, str]:
    return bind if isinstance(bind, tuple) else (bind, str(bind))


def _ordered(binds: Sequence[Tuple[str, Bind]]
             ) -> List[Tuple[str, pathlib.Path, str]]:
    """(kind, source, dest): parents before the folders bound inside
    them; each dest once (its writable bind wins)."""
    by_dest: Dict[str, Tuple[str, pathlib.Path]] = {}
    for kind, bind in binds:
        src, dest = _pair(bind)
        if by_dest.get(dest, ("",))[0] != "rw":
            by_dest[dest] = (kind, src)
    ordered = sorted(by_dest.items(),
                     key=lambda item: (len(pathlib.PurePosixPath(
                         item[0]).parts), item[0]))
    return [(kind, src, dest) for dest, (kind, src) in ordered]


def bwrap_argv(argv: Sequence[str], ro: Sequence[Bind] = (),
               rw: Sequence[Bind] = (),
               root: Optional[pathlib.Path] = None,
               chdir: Optional[pathlib.Path] = None,
               env: Optional[Mapping[str, str]] = None,
               staged: bool = False,
               host_dirs: Sequence[str] = HOST_DIRS
               ) -> Tuple[List[str], List[str]]:
    """(bubblewrap command line, the sources to stage). root: a chroot
    folder bound read-only as /, else the host's system folders. staged:
    each of root, ro and rw is bound from STAGE/<index> (confine_enter.py
    puts it there) instead of its own path."""
    stage: List[str] = []

    def source(path: pathlib.Path) -> str:
        if not staged:
            return str(path)
        stage.append(str(path))
        return f"{STAGE}/{len(stage) - 1}"

    cmd = [BWRAP, "--unshare-all", "--die-with-parent", "--new-session",
           "--clearenv"]
    if root is not None:
        cmd += ["--ro-bind", source(root), "/"]
    else:
        for name in host_dirs:
            host = pathlib.Path(name)
            if host.is_symlink():
                cmd += ["--symlink", os.readlink(host), name]
            elif host.is_dir():
                cmd += ["--ro-bind", name, name]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for kind, src, dest in _ordered([("ro", b) for b in ro] +
                                    [("rw", b) for b in rw]):
        cmd += ["--bind" if kind == "rw" else "--ro-bind", source(src),
                dest]
    for key, value in sorted({"PATH": PATH, "HOME": HOME,
                              "LC_ALL": "C.UTF-8", **(env or {})}.items()):
        cmd += ["--setenv", key, value]
    if chdir is not None:
        cmd += ["--chdir", str(chdir)]
    return cmd + ["--", *argv], stage


def command(argv: Sequence[str], ro: Sequence[Bind] = (),
            rw: Sequence[Bind] = (),
            root: Optional[pathlib.Path] = None,
            chdir: Optional[pathlib.Path] = None,
            env: Optional[Mapping[str, str]] = None) -> List[str]:
    """argv confined (module docstring): what to hand to proc.run_logged
    or subprocess. ro, rw: folders (or files) to read, to write."""
    for path in [*(_pair(b)[0] for b in [*ro, *rw]),
                 *([root] if root else [])]:
        if not path.is_absolute():
            raise ConfineError(f"confined build: {path} is not an absolute "
                               f"path")
    if shutil.which(BWRAP) is None:
        raise ConfineError(f"{BWRAP} not found: builds run confined in it "
                           f"(run `scripts/ndisbench setup`)")
    user = build_user()
    if user is None:
        return bwrap_argv(argv, ro, rw, root, chdir, env)[0]
    cmd, stage = bwrap_argv(argv, ro, rw, root, chdir, env, staged=True)
    spec = {"uid": user.pw_uid, "gid": user.pw_gid, "stage": stage,
            "argv": cmd}
    return [sys.executable, "-I", str(ENTER), json.dumps(spec)]


def own(tree: pathlib.Path) -> None:
    """Give a work folder the build user, and nothing in it a way out: a
    symlink the user left (a build can make any) is removed, never
    followed; root's writes into the folder go through write_file."""
    user = build_user()
    if user is None:
        return
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
    os.chown(tree, user.pw_uid, user.pw_gid, follow_symlinks=False)


def _inside(tree: pathlib.Path, rel: str) -> pathlib.Path:
    """tree/rel after checking that no part of the way is a symlink (the
    build user may have made one pointing anywhere)."""
    path = tree
    for part in pathlib.PurePosixPath(rel).parts:
        if part in ("..", "/"):
            raise ConfineError(f"{tree}: {rel} leaves the folder")
        path = path / part
        if path.is_symlink():
            raise ConfineError(f"{path}: a symlink in a build folder (the "
                               f"build made it): refused")
    return path


def read_output(tree: pathlib.Path, rel: str) -> bytes:
    """A file a confined build left in tree, read without following a
    symlink the build may have put on the way."""
    path = _inside(tree, rel)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ConfineError(f"{path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ConfineError(f"{path}: not a regular file")
        return f.read()


def write_file(tree: pathlib.Path, rel: str, data: bytes, mode: int
               ) -> None:
    """Write tree/rel as root in a folder the build user owns: parents
    made as folders, nothing followed through a symlink."""
    path = _inside(tree, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    _inside(tree, rel)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    fd = os.open(path, flags, mode & 0o777)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        os.fchmod(f.fileno(), mode & 0o777)
