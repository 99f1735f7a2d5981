"""The root half of a confined build (build/confine.py): run as root by
path (python3 -I, stdlib only), it makes the folders the build needs
reachable by the build user, drops to that user and execs bubblewrap.

Why a root half: the cache lives under root's home (mode 0700), which
the build user may not traverse, and bubblewrap resolves every bind
source by path as that user. So in a private mount namespace of its own
this script opens each source as root, covers /tmp with a fresh tmpfs
and bind-mounts each source at <STAGE>/<index> there; bubblewrap then
binds the staged folders back at their own paths in the sandbox. Only a
bound folder's own mode matters then, not its parents'. Nothing stays
mounted: the namespace goes away with the build.

argv[1]: a JSON object {"uid", "gid", "stage": [source, ...], "argv":
the bubblewrap command line naming <STAGE>/<index>}.
"""
import ctypes
import errno
import json
import os
import signal
import sys

STAGE = "/tmp/ndisbench-stage"
CLONE_NEWNS = 0x00020000
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
NEWROOT = "/tmp/ndisbench-root"
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


def _fail(what: str, err: int = 0) -> None:
    cause = f": {os.strerror(err)}" if err else ""
    sys.stderr.write(f"ndisbench confine: {what}{cause}\n")
    sys.exit(125)


def _mount(libc: ctypes.CDLL, source: str, target: str, fstype: str,
           flags: int, data: str) -> None:
    rc = libc.mount(source.encode() if source else None, target.encode(),
                    fstype.encode() if fstype else None, flags,
                    data.encode() if data else None)
    if rc != 0:
        _fail(f"mount {source or fstype} on {target}", ctypes.get_errno())


def _drop(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getegid() != gid:
        _fail("could not drop to the build user")


def _parse(argv: list) -> tuple:
    """(mount operations, environment, folder, command) of the bubblewrap
    command line build/confine.bwrap_argv wrote."""
    ops, env, chdir, i = [], {}, "/", 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return ops, env, chdir, argv[i + 1:]
        if arg in ("--ro-bind", "--bind", "--symlink"):
            ops.append((arg, argv[i + 1], argv[i + 2]))
            i += 3
        elif arg in ("--proc", "--dev", "--tmpfs"):
            ops.append((arg, "", argv[i + 1]))
            i += 2
        elif arg == "--setenv":
            env[argv[i + 1]] = argv[i + 2]
            i += 3
        elif arg == "--chdir":
            chdir = argv[i + 1]
            i += 2
        else:       # the namespace and session options: all are implied
            i += 1
    _fail("no command after --")
    return ops, env, chdir, []


def _target(dest: str, folder: bool) -> str:
    path = NEWROOT + (dest if dest != "/" else "")
    if folder:
        os.makedirs(path, 0o755, exist_ok=True)
    elif not os.path.lexists(path):
        os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
        with open(path, "w", encoding="ascii"):
            pass
    return path


def _no_userns(libc: ctypes.CDLL, argv: list, uid: int, gid: int) -> None:
    """bubblewrap's sandbox without its user namespace, for a runner that
    is itself a chroot: new mount, pid, network, IPC and UTS namespaces,
    the same binds under a new root, then the build user (no
    capabilities, no_new_privs). The child is the namespace's pid 1 and
    dies with this process; its exit status is passed on."""
    ops, env, chdir, cmd = _parse(argv)
    if libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                    CLONE_NEWUTS) != 0:
        _fail("unshare", ctypes.get_errno())
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        sys.exit(code if code >= 0 else 128 - code)
    os.mkdir(NEWROOT, 0o755)
    _mount(libc, "tmpfs", NEWROOT, "tmpfs", 0, "mode=0755")
    for op, source, dest in ops:
        if op == "--symlink":
            os.makedirs(os.path.dirname(NEWROOT + dest), 0o755,
                        exist_ok=True)
            os.symlink(source, NEWROOT + dest)
        elif op in ("--ro-bind", "--bind"):
            target = _target(dest, os.path.isdir(source))
            _mount(libc, source, target, "", MS_BIND | MS_REC, "")
            if op == "--ro-bind":
                _mount(libc, "", target, "", MS_BIND | MS_REMOUNT |
                       MS_RDONLY | MS_NOSUID | MS_NODEV, "")
        elif op == "--proc":
            _mount(libc, "proc", _target(dest, True), "proc",
                   MS_NOSUID | MS_NODEV, "")
        elif op == "--tmpfs":
            _mount(libc, "tmpfs", _target(dest, True), "tmpfs", MS_NOSUID |
                   MS_NODEV, "mode=1777")
        elif op == "--dev":
            _mount(libc, "tmpfs", _target(dest, True), "tmpfs", MS_NOSUID,
                   "mode=0755")
            for name in DEVICES:
                _mount(libc, f"/dev/{name}",
                       _target(f"{dest}/{name}", False), "", MS_BIND, "")
    os.chdir(NEWROOT)
    os.chroot(".")
    os.chdir(chdir)
    _drop(uid, gid)
    # after the drop: a change of credentials clears it
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("no_new_privs", ctypes.get_errno())
    program = _which(cmd[0], env.get("PATH", "/usr/bin:/bin"))
    try:
        os.execve(program, cmd, env)
    except OSError as exc:
        _fail(f"exec {cmd[0]}", exc.errno or 0)


def _which(name: str, path: str) -> str:
    """name found on path, with nothing imported: inside the new root the
    host's Python library is gone (a suite's chroot has another), and
    os.execvpe imports `warnings` late."""
    if "/" in name:
        return name
    for folder in path.split(":"):
        candidate = f"{folder or '.'}/{name}"
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    _fail(f"exec {name}: not found on {path}")
    return name


def main() -> None:
    if len(sys.argv) != 2:
        _fail("usage: confine_enter.py SPEC-JSON")
    spec = json.loads(sys.argv[1])
    uid, gid = int(spec["uid"]), int(spec["gid"])
    if uid == 0 or gid == 0:
        _fail("refusing to run a build as root")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        _fail("unshare(CLONE_NEWNS)", ctypes.get_errno())
    # Where / is no mount point (a chroot of a plain folder: fresh-machine,
    # a build container) the kernel refuses to make it private, and
    # bubblewrap's MS_SLAVE on / likewise; nor may a chrooted process make
    # a user namespace. There the sandbox is made here (_no_userns).
    chrooted = libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0
    if chrooted and ctypes.get_errno() != errno.EINVAL:
        _fail("make / private", ctypes.get_errno())
    # Opened in the new namespace (a bind's source must be one of its
    # mounts) and before /tmp is covered: a source may live there.
    fds = []
    for source in spec["stage"]:
        try:
            fds.append(os.open(source, os.O_PATH | os.O_CLOEXEC))
        except OSError as exc:
            _fail(f"open {source}", exc.errno or 0)
    _mount(libc, "tmpfs", "/tmp", "tmpfs", 0, "mode=0755,size=1m")
    os.mkdir(STAGE, 0o755)
    for index, fd in enumerate(fds):
        target = f"{STAGE}/{index}"
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.mkdir(target, 0o755)
        else:
            with open(target, "w", encoding="ascii"):
                pass
        _mount(libc, f"/proc/self/fd/{fd}", target, "", MS_BIND | MS_REC, "")
        os.close(fd)
    if chrooted:
        _no_userns(libc, spec["argv"], uid, gid)
    _drop(uid, gid)
    argv = spec["argv"]
    try:
        os.execvpe(argv[0], argv, {"PATH": "/usr/bin:/bin"})
    except OSError as exc:
        _fail(f"exec {argv[0]}", exc.errno or 0)


if __name__ == "__main__":
    main()
