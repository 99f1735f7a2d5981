"""Out-of-tree modules: the wrapper built under each test name, per kernel.

The same wrapper/driver sources are built as ndiswrapper.ko, driverloader.ko
and the control name (the kernel only special-cases names), in a copy so the
source folder stays clean. Each result is a cache entry keyed by the kernel,
the source tree hash, the name and the compiler.

The copy is a persistent work tree per kernel and module (<cache>/trees/):
only the files whose contents changed are rewritten, so kbuild recompiles
just those after an edit (the edit cycle `ndisbench bench --edit-cycle`
times). A tree whose file list changed, or whose last build was cut short,
is started afresh.
"""
import dataclasses
import fnmatch
import gzip
import lzma
import os
import pathlib
import shutil
import stat
import subprocess
import threading
from typing import Callable, Dict, List, Optional, Sequence

from .. import paths
from . import chroot, confine, debian
from .cache import (Cache, WorkTree, compiler_id, digest_inputs,
                    tree_digest, tree_files)
from ..errors import BenchError, BuildError
from .kbuild import KernelArtifact, ensure_kdir, SourceTree
from ..progress import Step
from ..proc import capture, run_logged

WRAPPER = paths.REPO / "wrapper"
# What the module is built from: its own folder, the PE loader and the
# parsers of driver output it compiles in and the headers it shares with
# the tools (not the tools themselves).
MODULE_SOURCES = ("driver", "loader", "parse", "include")


@dataclasses.dataclass(frozen=True)
class BuiltModule:
    name: str
    ko: pathlib.Path
    gpl_imports: List[str]
    depends: List[str]


def gpl_exports(symvers: pathlib.Path) -> set:
    """Names the kernel exports with EXPORT_SYMBOL_GPL."""
    names = set()
    for line in symvers.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) >= 4 and fields[3] == "EXPORT_SYMBOL_GPL":
            names.add(fields[1])
    return names


def undefined_symbols(ko: pathlib.Path) -> set:
    out = capture(["nm", "-u", str(ko)], what=f"nm -u {ko.name}")
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


# Never copied into a build tree: hidden files and build output.
SKIP_PATTERNS = (".*", "*.o", "*.ko", "*.mod", "*.mod.c", "*.cmd")
SOURCES_LIST = ".ndisbench-sources"     # the file list of the last sync
BUILDING = ".ndisbench-building"        # present while make runs


def source_files(root: pathlib.Path, parts: Sequence[str] = ()
                 ) -> Dict[str, pathlib.Path]:
    """Relative name -> file, under root (or only its parts), without
    SKIP_PATTERNS."""
    files: Dict[str, pathlib.Path] = {}
    for rel, path in tree_files(root):
        names = rel.split("/")
        if parts and names[0] not in parts:
            continue
        if not any(fnmatch.fnmatch(n, pat) for n in names
                   for pat in SKIP_PATTERNS):
            files[rel] = path
    return files


def _plain_tree(tree: pathlib.Path) -> bool:
    """Whether the work tree holds only folders and regular files. A
    confined build (build/confine.py) may leave anything there: a symlink
    or a FIFO the bench (root) would follow or block on while it syncs."""
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in dirnames + filenames:
            mode = os.lstat(os.path.join(dirpath, name)).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return False
    return True


def sync_sources(files: Dict[str, pathlib.Path], tree: pathlib.Path) -> None:
    """Make tree hold exactly these files, rewriting only those whose
    contents differ (a fresh mtime: make rebuilds what uses them). Starts
    afresh if the file list changed or the last build was interrupted
    (its objects could be half written)."""
    names = "\n".join(sorted(files))
    listed = tree / SOURCES_LIST
    if not _plain_tree(tree) or (tree / BUILDING).exists() or \
            not listed.is_file() or listed.read_text() != names:
        shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True, exist_ok=True)
    for rel, path in files.items():
        dst = tree / rel
        data = path.read_bytes()
        if not dst.is_file() or dst.read_bytes() != data:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
            shutil.copymode(path, dst)
    listed.write_text(names)


class Toolchain:
    """Where a kernel's modules are built: with the host's compiler, or
    (a Debian kernel of another suite) in its suite's chroot
    (build/chroot.py), made only when a module is really built. cc: what
    the module keys record of it (the host's gcc, or the chroot's key)."""

    def __init__(self, art: KernelArtifact, cache: Cache) -> None:
        self.art = art
        self.cache = cache
        self.who = f"kernel '{art.kernel.name}'"
        self.recipe: Optional[chroot.Recipe] = None
        self._chroot: Optional[chroot.Chroot] = None
        self.foreign = art.kernel.arch != debian.HOST_ARCH
        if art.kernel.is_debian and art.kernel.suite:
            self.recipe = chroot.recipe(cache, art.kernel.suite,
                                        art.release, self.who,
                                        headers=not self.foreign)
            self.cc = f"chroot {self.recipe.key}"
        else:
            self.cc = compiler_id()

    @property
    def chroot(self) -> Optional[chroot.Chroot]:
        if self.recipe is not None and self._chroot is None:
            self._chroot = chroot.ensure(self.cache, self.recipe.suite,
                                         self.recipe.release, self.who,
                                         made=self.recipe)
        return self._chroot

    def kdir(self, kdir: pathlib.Path) -> str:
        """The kernel's build folder as make sees it: the exact headers
        package installed in the chroot, or for a guest of another
        architecture the kernel's own headers copied in."""
        if self.recipe is None:
            return str(kdir)
        place = self.chroot
        if self.foreign and place is not None:
            return foreign_kdir(place, self.art.key, kdir)
        return f"/usr/src/{chroot.headers_package(self.art.release)}"

    def work_tree(self, inputs: Dict[str, object]) -> WorkTree:
        place = self.chroot
        return WorkTree(self.cache, inputs,
                        base=place.trees if place else None)

    def path(self, host: pathlib.Path) -> str:
        place = self.chroot
        return place.inside(host) if place else str(host)

    def command(self, argv: List[str], work: pathlib.Path,
                read: Sequence[pathlib.Path] = ()) -> List[str]:
        """argv confined (build/confine.py) with work writable: in the
        kernel's chroot, or on the host reading the folders read (the
        kernel's build folder)."""
        place = self.chroot
        if place:
            return place.command(argv, work)
        return confine.command(argv, ro=read, rw=[work])


def foreign_kdir(place: chroot.Chroot, key: str, kdir: pathlib.Path) -> str:
    """The unpacked headers kdir lives in (<root>/usr/src/<kdir>, the
    common folder beside it and usr/lib/linux-kbuild-*, whose tools are
    the host architecture's: kbuild.host_kbuild) copied once into the
    chroot as /usr/src/ndisbench-<key>/: made aside, then renamed, so a
    copy cut short is never used."""
    root = kdir.parents[2]
    dest = place.root / "usr" / "src" / f"ndisbench-{key}"
    if not dest.is_dir():
        tmp = dest.with_name(f"{dest.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(root, tmp, symlinks=True)
        try:
            os.rename(tmp, dest)
        except OSError:
            # another process put it there first
            shutil.rmtree(tmp, ignore_errors=True)
    return place.inside(dest / kdir.relative_to(root))


_TOOLCHAINS: Dict[str, Toolchain] = {}
_TOOLCHAIN_LOCKS: Dict[str, threading.Lock] = {}
_TOOLCHAINS_LOCK = threading.Lock()


def toolchain(art: KernelArtifact, cache: Cache) -> Toolchain:
    """One per kernel and process: its chroot's versions are read once."""
    key = f"{cache.root}:{art.key}"
    # a run's fetch-ahead thread and its kernels' builds ask at once: one
    # reads the versions (seconds of apt-cache), the other waits for it
    with _TOOLCHAINS_LOCK:
        lock = _TOOLCHAIN_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _TOOLCHAINS:
            _TOOLCHAINS[key] = Toolchain(art, cache)
        return _TOOLCHAINS[key]


def kernel_reads(cache: Cache, kdir: pathlib.Path) -> List[pathlib.Path]:
    """What a module build reads of its kernel: the whole cache entry kdir
    lies in (a Debian headers package links across its folders), or a
    user's tree and the source folder its `source` link names (a build
    with O=)."""
    try:
        rel = kdir.relative_to(cache.root)
    except ValueError:
        reads = [kdir]
        source = kdir / "source"
        if source.is_symlink():
            reads.append(source.resolve())
        return reads
    return [cache.root.joinpath(*rel.parts[:2])]


def _incremental_make(cache: Cache, art: KernelArtifact, what: str,
                      files: Dict[str, pathlib.Path], make: List[str],
                      built: str, ko: pathlib.Path,
                      log: pathlib.Path,
                      read: Sequence[pathlib.Path] = ()) -> None:
    """Sync files into this kernel's work tree for `what`, run make (its
    arguments: {tree} stands for the tree) with the kernel's toolchain,
    confined (build/confine.py: as the build user, reading read, writing
    only the tree), copy the module to ko."""
    tc = toolchain(art, cache)
    work = tc.work_tree({"kind": "module-tree", "kernel": art.key,
                         "what": what, "cc": tc.cc})
    with work.lock():
        sync_sources(files, work.src)
        (work.src / BUILDING).touch()
        confine.own(work.src)
        tree = tc.path(work.src)
        try:
            with Step("build", f"kernel {art.kernel.name}: {what}",
                      quiet=True):
                run_logged(tc.command([a.replace("{tree}", tree)
                                       for a in make], work.src, read), log,
                           f"kernel '{art.kernel.name}': build {what}",
                           timeout=900)
        except BuildError as exc:
            # The compiler names files by the work tree's path (a cache
            # folder, or /build/<key> in a chroot): show them as the
            # source tree's own (driver/compat.h:41:2: error: ...).
            raise BuildError(exc.step, exc.log, exc.exit_code,
                             [c.replace(tree + "/", "") for c in exc.causes],
                             exc.ended) from None
        if not (work.src / built).is_file():
            raise BenchError(f"kernel '{art.kernel.name}': make built no "
                             f"{built} (log: {log})")
        ko.write_bytes(confine.read_output(work.src, built))
        (work.src / BUILDING).unlink()


def _build(art: KernelArtifact, name: str, kdir: pathlib.Path,
           tmp: pathlib.Path, log: pathlib.Path,
           cache: Cache) -> Dict[str, object]:
    # The whole wrapper/ tree: the module shares wrapper/include and the
    # PE loader sources with the user-space tools.
    ko = tmp / f"{name}.ko"
    _incremental_make(cache, art, f"{name}.ko",
                      source_files(WRAPPER, MODULE_SOURCES),
                      ["make", "-C", toolchain(art, cache).kdir(kdir),
                       "M={tree}/driver",
                       f"-j{os.cpu_count() or 1}", f"NDIS_MODNAME={name}",
                       "modules"], f"driver/{name}.ko", ko, log,
                      kernel_reads(cache, kdir))
    return _module_facts(art, ko)


def check_vermagic(art: KernelArtifact, ko: pathlib.Path) -> None:
    """The module's vermagic names the kernel's `uname -r`: built against
    the wrong headers it would only fail to load in the guest."""
    magic = capture(["modinfo", "-F", "vermagic", str(ko)],
                    what=f"modinfo {ko.name}").split()
    if not magic or magic[0] != art.release:
        raise BenchError(f"kernel '{art.kernel.name}': {ko.name} has "
                         f"vermagic {magic[0] if magic else '(none)'}, the "
                         f"kernel is {art.release}")


def _module_facts(art: KernelArtifact, ko: pathlib.Path
                  ) -> Dict[str, object]:
    """What the cache entry records of a built module (its vermagic
    checked first): its GPL-only imports on this kernel and the modules
    it depends on."""
    check_vermagic(art, ko)
    gpl = sorted(undefined_symbols(ko) & gpl_exports(art.symvers))
    depends = capture(["modinfo", "-F", "depends", str(ko)],
                      what=f"modinfo {ko.name}").strip()
    return {"gpl_imports": gpl,
            "depends": [d for d in depends.split(",") if d]}


Builder = Callable[[pathlib.Path, pathlib.Path, pathlib.Path],
                   Dict[str, object]]


def _cached_module(art: KernelArtifact, name: str, inputs: Dict[str, object],
                   cache: Cache, build: Builder) -> BuiltModule:
    """Look the module up, else build(kdir, tmp, log) it into a new cache
    entry (a source kernel's build dir is shared: under its tree lock)."""
    key = digest_inputs(inputs)
    entry = cache.lookup("modules", key)
    if entry is None:
        log = cache.root / "logs" / f"module-{key}.log"
        if not art.kernel.is_built:
            # A prebuilt kernel's headers, or a user's tree: nothing of
            # ours to lock or rebuild.
            with cache.publish("modules", key, inputs) as tmp:
                inputs.update(build(art.kdir, tmp, log))
        else:
            tree = SourceTree(art.kernel, cache)
            with tree.lock():
                kdir = ensure_kdir(art, tree)
                with cache.publish("modules", key, inputs) as tmp:
                    inputs.update(build(kdir, tmp, log))
        entry = cache.path("modules", key)
    meta = cache.meta(entry)
    return BuiltModule(name, entry / f"{name}.ko", meta["gpl_imports"],
                       meta["depends"])


def _module_inputs(art: KernelArtifact, name: str, cache: Cache
                   ) -> Dict[str, object]:
    return {"kind": "module", "kernel": art.key, "name": name,
            "source": {part: tree_digest(WRAPPER / part)
                       for part in MODULE_SOURCES},
            "cc": toolchain(art, cache).cc, "confined": confine.RECIPE}


def module_cached(art: KernelArtifact, name: str, cache: Cache) -> bool:
    """Whether build_module would find the module built already."""
    key = digest_inputs(_module_inputs(art, name, cache))
    return cache.lookup("modules", key) is not None


def build_module(art: KernelArtifact, name: str, cache: Cache
                 ) -> BuiltModule:
    inputs = _module_inputs(art, name, cache)
    return _cached_module(art, name, inputs, cache,
                          lambda kdir, tmp, log: _build(art, name, kdir, tmp,
                                                        log, cache))


# -- the planted bugs of the `planted` check (guest/plant/) -------------------

PLANT = paths.REPO / "guest" / "plant"
PLANT_MODULE = "ndisbench_plant"


OOPS = paths.REPO / "guest" / "oops"
OOPS_MODULE = "ndisbench_oops"


def build_plant_module(art: KernelArtifact, cache: Cache) -> BuiltModule:
    """ndisbench_plant.ko for one kernel: deliberate bugs the debug kernel's
    checkers must report."""
    return _build_bug_module(art, cache, PLANT, PLANT_MODULE, "plant-module")


def _build_bug_module(art: KernelArtifact, cache: Cache, tree: pathlib.Path,
                      name: str, kind: str) -> BuiltModule:
    """A module of deliberate bugs (guest/plant, guest/oops): one Kbuild
    folder, one module."""
    inputs = {"kind": kind, "kernel": art.key,
              "source": tree_digest(tree),
              "cc": toolchain(art, cache).cc, "confined": confine.RECIPE}

    def build(kdir: pathlib.Path, tmp: pathlib.Path,
              log: pathlib.Path) -> Dict[str, object]:
        ko = tmp / f"{name}.ko"
        _incremental_make(cache, art, f"{name}.ko",
                          source_files(tree),
                          ["make", "-C", toolchain(art, cache).kdir(kdir),
                           "M={tree}",
                           f"-j{os.cpu_count() or 1}", "modules"],
                          f"{name}.ko", ko, log,
                          kernel_reads(cache, kdir))
        return _module_facts(art, ko)

    return _cached_module(art, name, inputs, cache, build)


# -- a wrapper tree of someone else's (--wrapper-src) -------------------------

EXTERNAL_MODULE = "ndiswrapper"


def check_wrapper_src(src: pathlib.Path) -> None:
    """The layout of the classic ndiswrapper releases: driver/ built with
    `make KBUILD=<kernel build dir>`, utils/ with `make`."""
    for need in ("driver/Makefile", "utils/Makefile"):
        if not (src / need).is_file():
            raise BenchError(f"--wrapper-src {src}: no {need} (expected "
                             f"the classic layout: driver/, utils/)")


def _build_external(art: KernelArtifact, src: pathlib.Path,
                    kdir: pathlib.Path, tmp: pathlib.Path,
                    log: pathlib.Path, cache: Cache) -> Dict[str, object]:
    ko = tmp / f"{EXTERNAL_MODULE}.ko"
    try:
        # One work tree per kernel for any outside tree: syncing rewrites
        # whatever differs, so trees may take turns in it.
        _incremental_make(cache, art, "external:driver",
                          source_files(src), ["make", "-C", "{tree}/driver",
                          f"KBUILD={toolchain(art, cache).kdir(kdir)}",
                          f"-j{os.cpu_count() or 1}"],
                          f"driver/{EXTERNAL_MODULE}.ko", ko, log,
                          kernel_reads(cache, kdir))
    except BuildError as exc:
        raise BuildError(f"--wrapper-src {src}: {exc.step}", exc.log,
                         exc.exit_code, exc.causes, exc.ended) from None
    except BenchError as exc:
        raise BenchError(f"--wrapper-src {src}: {exc}") from None
    return _module_facts(art, ko)


def build_external_module(art: KernelArtifact, src: pathlib.Path,
                          cache: Cache) -> BuiltModule:
    """ndiswrapper.ko from a wrapper tree outside the repository, for one
    kernel, as a cache entry keyed by the tree's contents."""
    inputs = {"kind": "external-module", "kernel": art.key,
              "source": tree_digest(src, skip_dirs=(".git",)),
              "cc": toolchain(art, cache).cc, "confined": confine.RECIPE}
    return _cached_module(art, EXTERNAL_MODULE, inputs, cache,
                          lambda kdir, tmp, log: _build_external(
                              art, src, kdir, tmp, log, cache))


def build_named_module(art: KernelArtifact, name: str, cache: Cache
                       ) -> BuiltModule:
    """A module a check loads besides the test modules, by name."""
    if name == PLANT_MODULE:
        return build_plant_module(art, cache)
    if name == OOPS_MODULE:
        return _build_bug_module(art, cache, OOPS, OOPS_MODULE,
                                 "oops-module")
    raise BenchError(f"no recipe for a module named {name}")


def check_gpl_imports(mod: BuiltModule, expected: List[str],
                      art: KernelArtifact) -> None:
    """The expectation table must name exactly the GPL-only imports."""
    if sorted(expected) != mod.gpl_imports:
        raise BenchError(
            f"kernel '{art.kernel.name}': {mod.name}.ko imports GPL-only "
            f"{', '.join(mod.gpl_imports) or 'nothing'} but "
            f"tests/e2e/expectations.toml lists {', '.join(expected)}")


# -- in-tree modules the test modules depend on ------------------------------

def _modname(path: str) -> str:
    base = pathlib.PurePosixPath(path).name
    for suffix in (".xz", ".gz", ".zst"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base[: -len(".ko")].replace("-", "_")


def kernel_has(moddir: pathlib.Path, name: str) -> str:
    """Whether a kernel's modules folder has the driver `name`: "module",
    "builtin", or "" (neither)."""
    name = name.replace("-", "_")
    for listing, kind in (("modules.dep", "module"),
                          ("modules.builtin", "builtin")):
        path = moddir / listing
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            target = line.partition(":")[0].strip()
            if target and _modname(target) == name:
                return kind
    return ""


def dependency_paths(art: KernelArtifact, names: List[str]
                     ) -> List[pathlib.Path]:
    """In-tree modules needed by `names`, dependencies first."""
    moddir = art.modules_dir
    builtin = set()
    builtin_file = moddir / "modules.builtin"
    if builtin_file.exists():
        builtin = {_modname(line.strip()) for line in
                   builtin_file.read_text().splitlines() if line.strip()}
    deps: Dict[str, List[str]] = {}
    where: Dict[str, str] = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        target, _, rest = line.partition(":")
        mod = _modname(target)
        where[mod] = target
        deps[mod] = [_modname(d) for d in rest.split()]
    order: List[str] = []

    def visit(mod: str, chain: List[str]) -> None:
        if mod in order or (mod in builtin and mod not in where):
            return
        if mod not in where:
            raise BenchError(f"kernel '{art.kernel.name}': module '{mod}' "
                             f"(needed by {' <- '.join(chain)}) not in "
                             f"modules.dep")
        for dep in deps[mod]:
            visit(dep, chain + [mod])
        order.append(mod)

    for name in names:
        visit(name.replace("-", "_"), [])
    return [moddir / where[m] for m in order]


def module_bytes(path: pathlib.Path) -> bytes:
    """A module file's ELF bytes, decompressed on the host so the guest
    kernel needs no module decompression support."""
    data = path.read_bytes()
    if path.suffix == ".xz":
        return lzma.decompress(data)
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".zst":
        try:
            return subprocess.run(["zstd", "-dc"], input=data,
                                  capture_output=True, check=True,
                                  timeout=120).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            raise BenchError(f"{path}: cannot decompress (zstd): {exc}"
                             ) from exc
    return data



def modfile(path: pathlib.Path) -> str:
    """The file name a module gets in the guest (decompressed)."""
    name = path.name
    for suffix in (".xz", ".gz", ".zst"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
