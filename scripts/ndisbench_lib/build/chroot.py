"""Per-suite build chroots: a Debian kernel of another suite than the
host's (bullseye, trixie, trixie-backports, sid) gets its modules built
with the compiler and kbuild tools of its own suite.

The host (bookworm: gcc-12, glibc 2.36) cannot build for them: bullseye's
5.10 was built with gcc-10; trixie's and sid's kbuild tools (objtool,
modpost, genksyms) need glibc 2.38, sid's headers hard-code
x86_64-linux-gnu-gcc-16 and flags gcc-12 rejects. So each such kernel has
a minimal chroot made by mmdebstrap (--variant=apt: gcc, make, kmod and the
exact linux-headers-<release>), from the host's mirror (read from its apt
sources, never changed) and the suite's sources (debian.suite_sources).

Cached like a kernel: <cache>/chroots/<key>/chroot.tar.zst, the key made
of the suite, the mirror's sources and the candidate versions of every
package asked for (read through the suite's private apt configuration).
mmdebstrap writes into the entry's scratch folder, published only when
complete (cache.publish): an interrupted build leaves nothing. The
tarball is unpacked once into a work tree (<cache>/trees/<key>/src,
renamed into place when whole); the kernel's module work trees live
inside it (/build/<key>/), so make sees the same files as the host.

make runs confined (build/confine.py): as the build user, the chroot
read-only as its /, the module's work tree writable, a /proc of its own
(sid's objtool reads it); nothing stays mounted on the host.
"""
import dataclasses
import os
import pathlib
import shutil
import stat
from typing import Dict, List, Mapping, Optional, Sequence

from . import confine, debian
from .cache import Cache, WorkTree, digest_inputs
from ..progress import Step
from ..proc import run_logged

# The packages of every chroot besides the kernel's headers.
TOOLS = ("gcc", "make", "kmod")
TARBALL = "chroot.tar.zst"
EXTRACTED = ".ndisbench-extracted"
MMDEBSTRAP_TIMEOUT = 1800.0
# What the chroot leaves out: the kernel hooks (trixie's headers pull in
# the image, whose postinst would make an initramfs) and the docs.
EXCLUDES = ("/etc/kernel/postinst.d/*", "/usr/share/doc/*",
            "/usr/share/man/*", "/usr/share/locale/*")
def headers_package(release: str) -> str:
    """The exact headers package of a Debian kernel, by its uname -r."""
    return f"linux-headers-{release}"


def mmdebstrap_command(suite: str, packages: Sequence[str],
                       sources: str, tarball: pathlib.Path,
                       preferences: Optional[pathlib.Path] = None
                       ) -> List[str]:
    """mmdebstrap's arguments: a minimal apt chroot of suite with the
    packages (name=version), from these one-line sources, as a tarball.
    No Valid-Until check (sid's index may be past it); a backports suite's
    pin (a preferences file) is copied in before its first update.
    Unshare mode: run as root it keeps the packages' maintainer scripts
    in mount and pid namespaces of their own (root mode mounts /proc and
    /dev in the host's); the archive is Debian's, no user's code."""
    suite_word = debian.base_suite(suite)
    cmd = ["mmdebstrap", "--variant=apt", "--mode=unshare", "--quiet",
           "--include=" + ",".join(packages),
           "--aptopt=Acquire::Check-Valid-Until \"false\"",
           "--aptopt=Acquire::Languages \"none\"",
           f"--aptopt=Acquire::Retries \"{debian.APT_RETRIES}\""]
    cmd += [f"--dpkgopt=path-exclude={p}" for p in EXCLUDES]
    if preferences is not None:
        cmd.append(f"--setup-hook=copy-in {preferences} "
                   f"/etc/apt/preferences.d/")
    cmd += [suite_word, str(tarball)]
    cmd += [line for line in sources.splitlines() if line.strip()]
    return cmd


@dataclasses.dataclass(frozen=True)
class Chroot:
    """A kernel's build chroot, unpacked: root is its / on the host."""
    key: str
    suite: str
    root: pathlib.Path

    def inside(self, path: pathlib.Path) -> str:
        """A host path under root as the chroot sees it."""
        return "/" + path.relative_to(self.root).as_posix()

    def command(self, argv: Sequence[str], work: pathlib.Path
                ) -> List[str]:
        """argv run in the chroot, confined (build/confine.py): as the
        build user, the chroot read-only as / (a build cannot poison it
        for later ones), only the work tree (a folder under trees)
        writable, its own /proc (the host's /proc/1/root would lead out),
        /dev and /tmp, a clean environment."""
        return confine.command(argv, root=self.root,
                               rw=[(work, self.inside(work))])

    @property
    def trees(self) -> pathlib.Path:
        """Where the module work trees of its kernel live."""
        return self.root / "build"


def chroot_inputs(suite: str, release: str, sources: str,
                  versions: Mapping[str, str]) -> Dict[str, object]:
    return {"kind": "chroot", "layout": 1, "suite": suite,
            "release": release, "sources": sources,
            "packages": dict(sorted(versions.items())),
            "excludes": list(EXCLUDES)}


def _versions(cache: Cache, suite: str, release: str,
              who: str, headers: bool) -> Dict[str, str]:
    env = debian.suite_apt(cache, suite)
    names = list(TOOLS) + ([headers_package(release)] if headers else [])
    return {n: debian.show(n, who, env).version for n in names}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """What a chroot is made of (known before it is made: its key)."""
    suite: str
    release: str
    sources: str
    versions: Mapping[str, str]

    @property
    def inputs(self) -> Dict[str, object]:
        return chroot_inputs(self.suite, self.release, self.sources,
                             self.versions)

    @property
    def key(self) -> str:
        return digest_inputs(self.inputs)


def recipe(cache: Cache, suite: str, release: str, who: str,
           sources: Optional[str] = None, headers: bool = True) -> Recipe:
    """The chroot a kernel of this suite and release needs: the candidate
    versions of its packages in the suite (its private apt lists).
    headers=False: no headers package (a guest of another architecture,
    whose headers' tools this host cannot run: the kernel's own unpacked
    headers are copied in instead, modules.foreign_kdir)."""
    if sources is None:
        sources = debian.suite_sources(debian.host_mirror(), suite)
    return Recipe(suite, release, sources,
                  _versions(cache, suite, release, who, headers))


def ensure(cache: Cache, suite: str, release: str, who: str,
           sources: Optional[str] = None,
           made: Optional[Recipe] = None) -> Chroot:
    """The build chroot of a kernel of this suite and release: made with
    mmdebstrap once (a cache entry keyed by its package versions), then
    unpacked once into its work tree."""
    made = made or recipe(cache, suite, release, who, sources)
    sources, versions = made.sources, made.versions
    inputs = made.inputs
    key = made.key
    entry = cache.lookup("chroots", key)
    log = cache.root / "logs" / f"chroot-{key}.log"
    if entry is None:
        packages = [f"{n}={v}" for n, v in sorted(versions.items())]
        with Step("build", f"{who}: {suite} chroot (mmdebstrap: gcc "
                           f"{versions['gcc']}"
                           + (f", {headers_package(release)})"
                              if headers_package(release) in versions
                              else ")")):
            with cache.publish("chroots", key, inputs) as tmp:
                prefs = None
                if debian.suite_preferences(suite):
                    prefs = tmp / "ndisbench"
                    prefs.write_text(debian.suite_preferences(suite))
                run_logged(mmdebstrap_command(
                    suite, packages, sources, tmp / TARBALL, prefs), log,
                    f"{who}: mmdebstrap {suite}",
                    timeout=MMDEBSTRAP_TIMEOUT)
        entry = cache.path("chroots", key)
    tree = WorkTree(cache, {"kind": "chroot-root", "chroot": key})
    with tree.lock():
        if not (tree.src / EXTRACTED).is_file():
            unpack(entry / TARBALL, tree.root, tree.src, log, who)
    return Chroot(key, suite, tree.src)


def unpack(tarball: pathlib.Path, workdir: pathlib.Path,
           dest: pathlib.Path, log: pathlib.Path, who: str) -> None:
    """Unpack the tarball next to dest and rename it into place when
    whole: an interrupted unpack leaves no half chroot."""
    tmp = workdir / "src.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.mkdir(parents=True)
    with Step("build", f"{who}: unpack the chroot"):
        run_logged(["tar", "--zstd", "-xpf", str(tarball), "-C", str(tmp),
                    "--numeric-owner"], log, f"{who}: unpack the chroot",
                   timeout=900)
    strip_setid(tmp)
    (tmp / "build").mkdir(exist_ok=True)
    (tmp / EXTRACTED).write_text(tarball.parent.name + "\n")
    os.rename(tmp, dest)


def strip_setid(tree: pathlib.Path) -> None:
    """Clear the setuid and setgid bits of every regular file under tree
    (links not followed): a build inside the chroot never needs su or
    mount, and a setuid-root program there is a way up from its uid. A
    folder's setgid bit (group inheritance) stays."""
    setid = stat.S_ISUID | stat.S_ISGID
    for folder, _, files in os.walk(tree):
        for name in files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and st.st_mode & setid:
                os.chmod(path, stat.S_IMODE(st.st_mode) & ~setid)
