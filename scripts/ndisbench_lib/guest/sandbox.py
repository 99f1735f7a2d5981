"""Least privilege on the host: every guest's QEMU runs under seccomp
(-sandbox) and, when the bench runs as root, drops to an unprivileged
system user (-runas); tshark reads captures as that user too.

Why -runas and not a user switch before exec: QEMU opens what its command
line names (kernel, initrd, firmware, chardevs and the QMP socket, the
air's pcap at object creation, /dev/kvm) as root before os_setup_post()
drops privileges, so nothing in the cache (under root's 0700 home) has to
be opened up to the user. What QEMU opens later (device_add, object-add
at run time) it opens as the user.

-sandbox elevateprivileges=deny traps the setgid()/setuid() of -runas in
QEMU 7.2 as released (the filter is loaded long before the drop: QEMU
dies of SIGSYS). Our QEMU build loads that part of the filter right after
the drop instead (qemu_build.QemuTree.defer_privileged_filter), and every
row runs it (cell/parts.uses_own_qemu); only a QEMU of another build
($NDISBENCH_QEMU, for the rows without our device models) gets
elevateprivileges=allow when it must drop, which grants nothing once
every uid is the user's: set*id() cannot regain root without CAP_SETUID,
and spawn=deny forbids exec of a setuid program.
"""
import dataclasses
import os
import pwd
import re
import subprocess
import threading
from typing import Dict, List, Mapping, Optional, Sequence, Set

from ..errors import BenchError
from ..progress import say
from ..report.verdict import ERROR, FAIL, PASS, Verdict

USER = "ndisbench"
# A uid per concurrent cell (ndisbench0..): a guest that escaped into its
# QEMU cannot signal or trace the QEMUs of the cells beside it. Past the
# pool, cells share USER.
POOL_SIZE = 8
SANDBOX = ("on,obsolete=deny,elevateprivileges={priv},spawn=deny,"
           "resourcecontrol=deny")
USERADD = "useradd"
NOLOGIN = "/usr/sbin/nologin"
STATUS_FIELDS = ("Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp",
                 "Seccomp_filters")


class SandboxError(BenchError):
    """The unprivileged user cannot be created or is not usable."""


def bench_is_root() -> bool:
    return os.geteuid() == 0


def user_entry(name: str = USER) -> Optional[pwd.struct_passwd]:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def pool_entries() -> List[pwd.struct_passwd]:
    """The cell users setup made (ndisbench0..), those that exist."""
    names = [f"{USER}{i}" for i in range(POOL_SIZE)]
    return [u for u in map(user_entry, names)
            if u is not None and u.pw_name in names]


class _Lease:
    """A pool user held by one thread (a cell of the runner's pool): freed
    when the thread ends and its thread-local data goes."""

    def __init__(self, user: pwd.struct_passwd) -> None:
        self.user = user

    def __del__(self) -> None:
        if _POOL_LOCK is None:      # interpreter shutdown: nothing to free
            return
        with _POOL_LOCK:
            _TAKEN.discard(self.user.pw_name)


_POOL_LOCK = threading.Lock()
_TAKEN: Set[str] = set()
_THREAD = threading.local()


def _cell_user() -> Optional[pwd.struct_passwd]:
    """This thread's pool user, taken on first use; USER's entry when the
    pool is all taken (or setup made none)."""
    lease = getattr(_THREAD, "lease", None)
    if lease is not None:
        return lease.user
    with _POOL_LOCK:
        free = [u for u in pool_entries() if u.pw_name not in _TAKEN]
        if free:
            _TAKEN.add(free[0].pw_name)
    if not free:
        return user_entry()
    _THREAD.lease = _Lease(free[0])
    return free[0]


def drop_user() -> Optional[pwd.struct_passwd]:
    """The user QEMU and tshark run as: one of ours per concurrent cell
    when the bench is root (and setup created them), else None (nothing
    to drop)."""
    return _cell_user() if bench_is_root() else None


def qemu_args(own_build: bool) -> List[str]:
    """-sandbox for every QEMU, and -runas when there is root to drop.
    own_build: our QEMU (its privilege filter waits for the drop)."""
    user = drop_user()
    priv = "deny" if own_build or user is None else "allow"
    args = ["-sandbox", SANDBOX.format(priv=priv)]
    if user is not None:
        args += ["-runas", user.pw_name]
    return args


def _ensure_one(name: str) -> bool:
    if user_entry(name) is not None:
        return False
    cmd = [USERADD, "--system", "--user-group", "--no-create-home",
           "--home-dir", "/nonexistent", "--shell", NOLOGIN,
           "--comment", "ndisbench guests (QEMU -runas), tshark, builds",
           name]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=60, check=False,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxError(f"setup: {USERADD} {name}: {exc}") from exc
    if res.returncode != 0:
        raise SandboxError(f"setup: {USERADD} {name} failed (exit "
                           f"{res.returncode}): {res.stderr.strip()}")
    say("setup", f"created system user {name} (uid "
                 f"{pwd.getpwnam(name).pw_uid}, shell {NOLOGIN})")
    return True


def ensure_user() -> bool:
    """Create the system users (no home, no login shell, each its own
    group) that are missing: USER (builds, and cells past the pool) and
    the cell pool; True if one was created. Idempotent."""
    made = [_ensure_one(name) for name in
            [USER] + [f"{USER}{i}" for i in range(POOL_SIZE)]]
    return any(made)


def run_as_user_kwargs() -> Dict[str, object]:
    """subprocess keyword arguments that run a helper program (tshark) as
    the unprivileged user when the bench is root: its uid, its group and
    no supplementary group, a HOME it cannot write (root's is not
    readable to it anyway). Empty when there is no root to drop."""
    user = drop_user()
    if user is None:
        return {}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": user.pw_dir, "LANG": os.environ.get("LANG", "C.UTF-8")}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [],
            "env": env}


@dataclasses.dataclass(frozen=True)
class ProcessIds:
    """What /proc/<pid>/status says about a process's privileges."""
    uids: List[int]                 # real, effective, saved, filesystem
    gids: List[int]
    groups: List[int]
    no_new_privs: Optional[int] = None
    seccomp: Optional[int] = None           # 2: filter mode
    seccomp_filters: Optional[int] = None


def parse_status(text: str) -> ProcessIds:
    fields: Dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in STATUS_FIELDS:
            fields[key] = value.strip()

    def ints(key: str) -> List[int]:
        return [int(v) for v in fields.get(key, "").split() if v.isdigit()]

    def one(key: str) -> Optional[int]:
        value = fields.get(key, "")
        return int(value) if re.fullmatch(r"\d+", value) else None

    return ProcessIds(ints("Uid"), ints("Gid"), ints("Groups"),
                      one("NoNewPrivs"), one("Seccomp"),
                      one("Seccomp_filters"))


def read_ids(pid: int) -> Optional[ProcessIds]:
    """The process's ids, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii",
                  errors="replace") as f:
            return parse_status(f.read())
    except OSError:
        return None


def facts(ids: Optional[ProcessIds]) -> Mapping[str, object]:
    """For results.json: the observation as plain values."""
    return dataclasses.asdict(ids) if ids else {}


def problems(ids: Optional[ProcessIds], bench_root: bool,
             user: Optional[pwd.struct_passwd],
             pool: Sequence[pwd.struct_passwd] = ()) -> List[str]:
    """Why a QEMU observed with these ids is not sandboxed as it must be;
    empty when it is. bench_root: the bench ran as root; user: the entry
    of the user it should have dropped to (None: setup never created
    it)."""
    if ids is None or not ids.uids:
        return ["QEMU's ids were never read (it printed nothing on the "
                "console before it exited)"]
    found: List[str] = []
    if bench_root:
        if user is None:
            found.append(f"no user {USER} to drop to (scripts/ndisbench "
                         f"setup creates it)")
        if 0 in ids.uids or 0 in ids.gids:
            found.append(f"QEMU still ran as root (Uid {ids.uids}, Gid "
                         f"{ids.gids})")
        elif user is not None and all(
                set(ids.uids) != {u.pw_uid} or set(ids.gids) != {u.pw_gid}
                for u in [user, *pool]):
            found.append(f"QEMU ran as uid {ids.uids} gid {ids.gids}, not "
                         f"as {USER} ({user.pw_uid}:{user.pw_gid})")
        if 0 in ids.groups:
            found.append("QEMU kept root's supplementary group 0")
    if ids.seccomp != 2:
        found.append(f"QEMU had no seccomp filter (Seccomp: {ids.seccomp})")
    return found


def summary(ids: ProcessIds) -> str:
    name = next((p.pw_name for p in [_by_uid(ids.uids[0])] if p), "?")
    filters = ("" if ids.seccomp_filters is None else
               f", {ids.seccomp_filters} seccomp filter(s)")
    return (f"QEMU ran as uid {ids.uids[0]} ({name}), gid {ids.gids[0]}, "
            f"seccomp mode {ids.seccomp}{filters}, no_new_privs "
            f"{ids.no_new_privs}")


def _by_uid(uid: int) -> Optional[pwd.struct_passwd]:
    try:
        return pwd.getpwuid(uid)
    except KeyError:
        return None


def judge(ids: Optional[ProcessIds], bench_root: Optional[bool] = None,
          user: Optional[pwd.struct_passwd] = None) -> Verdict:
    """The sandbox verdict of a QEMU from its ids (BootResult.qemu_ids):
    FAIL when a bench run as root left QEMU running as root, or QEMU had
    no seccomp filter; ERROR when they were never read (checks/
    sandbox.py makes it the `sandbox` check of every cell)."""
    root = bench_is_root() if bench_root is None else bench_root
    pool: List[pwd.struct_passwd] = []
    if root and user is None:
        user = user_entry()
        pool = pool_entries()
    found = problems(ids, root, user, pool)
    if ids is None or not ids.uids:
        return Verdict(ERROR, found[0])
    if found:
        return Verdict(FAIL, "; ".join(found), (summary(ids),))
    return Verdict(PASS, summary(ids))
