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
import json
import os
import sys

STAGE = "/tmp/ndisbench-stage"
CLONE_NEWNS = 0x00020000
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18


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
    _mount(libc, "", "/", "", MS_REC | MS_PRIVATE, "")
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
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getegid() != gid:
        _fail("could not drop to the build user")
    argv = spec["argv"]
    try:
        os.execvpe(argv[0], argv, {"PATH": "/usr/bin:/bin"})
    except OSError as exc:
        _fail(f"exec {argv[0]}", exc.errno or 0)


if __name__ == "__main__":
    main()
