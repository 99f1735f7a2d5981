"""The userland of a guest of another architecture than the host's (i386):
busybox and the programs the host's guests get from the host (iw, ip,
ethtool, iwconfig, initramfs.HOST_PROGRAMS), here from Debian's packages
of that architecture, fetched through its private apt configuration
(debian.suite_apt) and unpacked into the cache, never installed.

The host cannot run these programs (ldd, busybox --list-full), so their
shared libraries are found from the ELF files themselves (readelf: the
program interpreter and DT_NEEDED), inside the unpacked packages.
"""
import dataclasses
import os
import pathlib
import re
from typing import Dict, List, Sequence, Tuple

from . import debian
from .cache import Cache, digest_inputs
from ..errors import BenchError
from ..progress import Step
from ..proc import capture

# busybox-static: /bin/busybox; the others: initramfs.HOST_PROGRAMS.
PACKAGES = ("busybox-static", "iw", "iproute2", "ethtool", "wireless-tools")
# Debian's wpasupplicant for the cells that join a WPA2 network: a cache
# entry of its own (initramfs.WPA_PROGRAMS), so that the one above, and
# every other cell's initramfs, stays as it is.
WPA_PACKAGES = ("wpasupplicant",)
# What of the packages' dependencies is unpacked: the shared libraries
# (zlib's package is the one not named lib*: iproute2's libelf needs it).
LIBRARY_PACKAGE_RE = re.compile(r"^(lib|zlib1g$)")
# Where the dynamic loader of a Debian i386 system looks (multiarch first).
LIBRARY_DIRS = ("lib/i386-linux-gnu", "usr/lib/i386-linux-gnu", "lib",
                "usr/lib")
NEEDED_RE = re.compile(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]")
INTERP_RE = re.compile(r"\[Requesting program interpreter: ([^\]]+)\]")


@dataclasses.dataclass(frozen=True)
class Userland:
    arch: str
    root: pathlib.Path          # the unpacked packages

    @property
    def busybox(self) -> pathlib.Path:
        return self.root / "bin" / "busybox"


def userland(cache: Cache, arch: str,
             packages: Sequence[str] = PACKAGES) -> Userland:
    """The unpacked packages of arch (a cache entry keyed by their
    versions): busybox and initramfs.HOST_PROGRAMS, or the packages
    named (WPA_PACKAGES)."""
    who = f"the {arch} guest userland"
    env = debian.suite_apt(cache, debian.host_suite(), arch=arch)
    pkgs: Dict[str, debian.Package] = {}
    for name in packages:
        root_pkg = debian.show(name, who, env)
        for pkg in debian.closure(root_pkg, LIBRARY_PACKAGE_RE, who, env):
            pkgs[pkg.name] = pkg
    inputs = {"kind": "userland", "arch": arch,
              "packages": {n: pkgs[n].version for n in sorted(pkgs)}}
    key = digest_inputs(inputs)
    entry = cache.lookup("userland", key)
    if entry is None:
        with Step("build", f"{who}: fetch and unpack {len(pkgs)} packages"):
            with cache.publish("userland", key, inputs) as tmp:
                for name in sorted(pkgs):
                    debian.unpack(debian.download(pkgs[name],
                                                  cache.root / "debs", who,
                                                  env), tmp / "root", who)
        entry = cache.path("userland", key)
    land = Userland(arch, entry / "root")
    if tuple(packages) == PACKAGES and not land.busybox.is_file():
        raise BenchError(f"{who}: busybox-static has no /bin/busybox")
    return land


def inside(root: pathlib.Path, path: str, hops: int = 0) -> pathlib.Path:
    """path (absolute in the guest) as a file under root, its symlinks
    followed inside root (an absolute link target is the guest's)."""
    if hops > 40:
        raise BenchError(f"{root}: symlink loop at {path}")
    parts = [p for p in path.split("/") if p]
    cur = root
    for i, part in enumerate(parts):
        nxt = cur / part
        if nxt.is_symlink():
            target = os.readlink(nxt)
            rest = "/".join(parts[i + 1:])
            base = "/" if target.startswith("/") else \
                "/" + str(cur.relative_to(root))
            return inside(root, f"{base}/{target}/{rest}", hops + 1)
        cur = nxt
    return pathlib.Path(os.path.normpath(cur))


# Packages of a merged-/usr suite still ship some files under /bin, /sbin
# and /lib (wireless-tools: /sbin/iwconfig), which the host finds through
# its /sbin -> usr/sbin links; the unpacked packages have no such links.
USRMERGE = (("/usr/sbin/", "/sbin/"), ("/usr/bin/", "/bin/"),
            ("/usr/lib/", "/lib/"))


def locate(root: pathlib.Path, guest: str) -> pathlib.Path:
    """A guest path's file under root, or its merged-/usr twin's."""
    host = inside(root, guest)
    if host.is_file():
        return host
    for usr, top in USRMERGE:
        for a, b in ((usr, top), (top, usr)):
            if guest.startswith(a):
                twin = inside(root, b + guest[len(a):])
                if twin.is_file():
                    return twin
    return host


def elf_needs(path: pathlib.Path) -> Tuple[str, List[str]]:
    """(program interpreter or "", DT_NEEDED sonames) of an ELF file."""
    out = capture(["readelf", "-W", "-l", "-d", str(path)], timeout=60,
                  what=f"readelf {path.name}")
    interp = INTERP_RE.search(out)
    return (interp.group(1) if interp else "", NEEDED_RE.findall(out))


def find_library(root: pathlib.Path, soname: str, who: str) -> str:
    """The guest path a soname is loaded from."""
    for folder in LIBRARY_DIRS:
        guest = f"/{folder}/{soname}"
        if locate(root, guest).is_file():
            return guest
    raise BenchError(f"{who}: library {soname} not in the unpacked "
                     f"packages ({', '.join(LIBRARY_DIRS)})")


def program_files(land: Userland, programs: Sequence[str]
                  ) -> Dict[str, Tuple[bytes, int]]:
    """Guest path -> (bytes, mode) of the programs, their interpreter and
    the libraries they need, transitively (under the names they are
    looked up by)."""
    who = f"the {land.arch} guest userland"
    files: Dict[str, Tuple[bytes, int]] = {}
    todo = list(programs)
    seen = set()
    while todo:
        guest = todo.pop()
        if guest in seen:
            continue
        seen.add(guest)
        host = locate(land.root, guest)
        if not host.is_file():
            raise BenchError(f"{who}: {guest} is in none of its packages")
        files[guest.lstrip("/")] = (host.read_bytes(), 0o755)
        interp, needed = elf_needs(host)
        if interp:
            todo.append(interp)
        todo += [find_library(land.root, soname, who) for soname in needed]
    return files
