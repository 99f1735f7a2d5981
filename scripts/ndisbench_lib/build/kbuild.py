"""Guest kernels: Debian's prebuilt images and policy kernels built from
linux-source, all kept in the content-addressed cache.

A cache entry <cache>/kernels/<key>/ holds:
  bzImage         the bootable image (a built kernel's only where a guest
                  boots it: no PVH vmlinux, or KASAN)
  vmlinux         the uncompressed ELF with its PVH entry note, if available
  config          the kernel .config
  release         `uname -r` of the kernel
  Module.symvers  exported symbols (GPL-only ones are marked)
  modules/        lib/modules/<release>/ with modules.dep
  headers/        (debian) the unpacked linux-headers packages
and its metadata names the folder to build external modules against.
"""
import dataclasses
import functools
import lzma
import os
import pathlib
import re
import shutil
import struct
import subprocess
from typing import Dict, List, Optional, Tuple

from . import debian, usertree
from .cache import Cache, WorkTree, compiler_id, digest_inputs, file_digest
from ..errors import BenchError
from ..kernels import Kernel
from ..progress import Step, say
from ..proc import capture, run_logged
from ..trees import BZIMAGE, check_tree, parse_config

HEADERS_RE = re.compile(r"^linux-(headers|kbuild)-")
IMAGE_PARTS_RE = re.compile(r"^linux-(binary|modules|base)-\d")
XEN_ELFNOTE_PHYS32_ENTRY = 18
# make's ARCH= for a source kernel of another architecture than the host's
# (the host's gcc builds both; no multilib needed for the kernel itself).
KBUILD_ARCH = {"i386": "i386"}
NOT_SET_RE = re.compile(r"^# (CONFIG_\w+) is not set$", re.M)
BUILD_TIMEOUT = 3 * 3600.0


@dataclasses.dataclass(frozen=True)
class KernelArtifact:
    kernel: Kernel
    key: str
    entry: pathlib.Path
    release: str
    kdir: pathlib.Path      # where `make M=...` builds external modules

    @property
    def boot_image(self) -> pathlib.Path:
        """The uncompressed vmlinux (PVH entry) when present: under TCG it
        skips the slow in-guest decompressor. Not with KASAN: 6.1's PVH
        entry does not set up KASAN's early shadow, and such a kernel
        stops before its first console line (measured on debug-6.1)."""
        vmlinux = self.entry / "vmlinux"
        if vmlinux.exists() and pvh_entry_works(self.config()):
            return vmlinux
        return self.entry / "bzImage"

    @property
    def symvers(self) -> pathlib.Path:
        return self.entry / "Module.symvers"

    @property
    def modules_dir(self) -> pathlib.Path:
        return self.entry / "modules" / "lib" / "modules" / self.release

    def config(self) -> Dict[str, str]:
        """The kernel's .config (read once: every cell of the kernel asks;
        callers do not modify it)."""
        return self._config

    @functools.cached_property
    def _config(self) -> Dict[str, str]:
        return parse_config((self.entry / "config").read_text())


def pvh_entry_works(config: Dict[str, str]) -> bool:
    """Whether a kernel of this config boots through its PVH entry (see
    KernelArtifact.boot_image)."""
    return config.get("CONFIG_KASAN") != "y"


def boots_vmlinux(vmlinux: pathlib.Path, config: pathlib.Path) -> bool:
    """A guest boots this kernel's vmlinux (KernelArtifact.boot_image), so
    its bzImage, an XZ compression of the whole kernel (seconds of CPU on
    every policy row), need not be made."""
    return has_pvh_note(vmlinux.read_bytes()) and \
        pvh_entry_works(parse_config(config.read_text()))


def jobs() -> str:
    return str(os.cpu_count() or 1)


def parse_fragment(text: str) -> Dict[str, str]:
    """A config fragment as CONFIG_X -> value, "# CONFIG_X is not set"
    as "n" (a later fragment may unset what an earlier one set)."""
    opts = parse_config(text)
    for match in NOT_SET_RE.finditer(text):
        opts[match.group(1)] = "n"
    return opts


# -- the uncompressed vmlinux inside a bzImage --------------------------------

def has_pvh_note(elf: bytes) -> bool:
    """True if the ELF64 image carries XEN_ELFNOTE_PHYS32_ENTRY in a PT_NOTE
    segment, which is what QEMU looks for to boot it through PVH."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:     # PT_NOTE
            continue
        pos, end = p_offset, p_offset + p_filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, pos)
            name = elf[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            pos += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
    return False


def _unxz(payload: bytes) -> bytes:
    try:
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ,
                                     memlimit=1 << 30).decompress(payload)
    except lzma.LZMAError:
        return b""


def _unzstd(payload: bytes) -> bytes:
    # Python 3.11 has no zstd; the payload is followed by the bzImage's
    # size trailer, which zstd reports as an error after writing the frame.
    try:
        return subprocess.run(["zstd", "-dc"], input=payload,
                              capture_output=True, timeout=300,
                              check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return b""


PAYLOADS = ((b"\xfd7zXZ\x00", _unxz), (b"\x28\xb5\x2f\xfd", _unzstd))


def extract_vmlinux(bzimage: pathlib.Path) -> Optional[bytes]:
    """The ELF payload of an XZ or zstd bzImage, if it has a PVH note."""
    data = bzimage.read_bytes()
    for magic, decompress in PAYLOADS:
        start = data.find(magic)
        while start >= 0:
            elf = decompress(data[start:])
            if elf[:4] == b"\x7fELF":
                return elf if has_pvh_note(elf) else None
            start = data.find(magic, start + 1)
    return None


def save_vmlinux(bzimage: pathlib.Path, dest: pathlib.Path) -> bool:
    elf = extract_vmlinux(bzimage)
    if elf is None:
        return False
    dest.write_bytes(elf)
    return True


# -- Debian prebuilt kernels --------------------------------------------------

def suite_env(kernel: Kernel, cache: Cache) -> Optional[Dict[str, str]]:
    """apt's environment for a Debian kernel of another suite or
    architecture (its private configuration), None for the host's."""
    if kernel.arch != debian.HOST_ARCH:
        return debian.suite_apt(cache, kernel.suite or debian.host_suite(),
                                arch=kernel.arch)
    return debian.suite_apt(cache, kernel.suite) if kernel.suite else None


def host_kbuild(headers: List[debian.Package], kernel: Kernel,
                cache: Cache) -> List[debian.Package]:
    """The headers' packages with linux-kbuild-* (fixdep, modpost, ...:
    programs of the kernel's architecture) replaced by the host
    architecture's package of the same version, for a guest of another
    architecture: i386 programs need an i386-capable host kernel, and the
    tools' output does not depend on the machine they run on. The same
    version, not the host's newest: the guest architecture's lists may
    lag (a security index the mirror could not serve)."""
    if kernel.arch == debian.HOST_ARCH:
        return headers
    who = f"kernel '{kernel.name}'"
    env = debian.suite_apt(cache, kernel.suite) if kernel.suite else None
    out = []
    for pkg in headers:
        if pkg.name.startswith("linux-kbuild-"):
            try:
                pkg = debian.show(pkg.name, who, env, version=pkg.version)
            except BenchError:
                raise BenchError(f"{who}: no {pkg.name} {pkg.version} for "
                                 f"{debian.HOST_ARCH} in its lists, the "
                                 f"version of the {kernel.arch} headers (the "
                                 f"build tools must match the headers)"
                                 ) from None
        out.append(pkg)
    return out


def _debian_packages(kernel: Kernel, cache: Cache
                     ) -> Tuple[List[debian.Package], List[debian.Package]]:
    """(the image's packages, the headers' packages). sid and 7.x split the
    image: linux-image-<abi> is a metapackage over linux-binary-<abi>
    (vmlinuz), linux-modules-<abi> and linux-base-<abi> (config)."""
    who = f"kernel '{kernel.name}'"
    env = suite_env(kernel, cache)
    image = debian.resolve_meta(kernel.image, "linux-image-", who, env)
    if kernel.unsigned:
        image = debian.show(image.name + "-unsigned", who, env)
    headers = debian.resolve_meta(kernel.headers, "linux-headers-", who,
                                  env)
    return (debian.closure(image, IMAGE_PARTS_RE, who, env),
            host_kbuild(debian.closure(headers, HEADERS_RE, who, env),
                        kernel, cache))


def _find_release_dir(root: pathlib.Path) -> pathlib.Path:
    for base in (root / "lib" / "modules", root / "usr" / "lib" / "modules"):
        if base.is_dir():
            dirs = [d for d in base.iterdir() if d.is_dir()]
            if len(dirs) == 1:
                return dirs[0]
    raise BenchError(f"{root}: no single lib/modules/<release> folder")


INCLUDE_ABS_RE = re.compile(r"^include /usr/src/(\S+)$", re.M)


def relocate_headers(root: pathlib.Path) -> None:
    """Debian's per-flavour headers Makefile includes the common one by an
    absolute /usr/src path; make it relative to the Makefile itself so the
    unpacked headers work from the cache."""
    for makefile in (root / "usr" / "src").glob("*/Makefile"):
        text = makefile.read_text()
        fixed = INCLUDE_ABS_RE.sub(
            r"include $(dir $(realpath $(lastword $(MAKEFILE_LIST))))../\1",
            text)
        if fixed != text:
            makefile.write_text(fixed)


def _image_file(root: pathlib.Path, release: str, name: str,
                who: str) -> pathlib.Path:
    """/boot/<name>-<release> (bullseye to trixie), or the split image's
    /usr/lib/modules/<release>/<name> (sid, 7.x)."""
    for path in (root / "boot" / f"{name}-{release}",
                 root / "usr" / "lib" / "modules" / release / name,
                 root / "lib" / "modules" / release / name):
        if path.is_file():
            return path
    raise BenchError(f"{who}: the image packages have no {name} of "
                     f"{release} (neither /boot/{name}-{release} nor "
                     f"/usr/lib/modules/{release}/{name})")


def _publish_debian(kernel: Kernel, image: List[debian.Package],
                    headers: List[debian.Package], debs: pathlib.Path,
                    tmp: pathlib.Path, env: Optional[Dict[str, str]],
                    host_env: Optional[Dict[str, str]]) -> Dict[str, str]:
    """host_env: apt's for the host architecture's packages among them
    (host_kbuild's tools of a guest of another architecture)."""
    who = f"kernel '{kernel.name}'"
    image_root = tmp / "image-root"
    for pkg in image:
        debian.unpack(debian.download(pkg, debs, who, env), image_root, who)
    for pkg in headers:
        penv = host_env if kernel.arch != debian.HOST_ARCH and \
            pkg.arch == debian.HOST_ARCH else env
        debian.unpack(debian.download(pkg, debs, who, penv),
                      tmp / "headers", who)
    relocate_headers(tmp / "headers")
    reldir = _find_release_dir(image_root)
    release = reldir.name
    shutil.copy2(_image_file(image_root, release, "vmlinuz", who),
                 tmp / "bzImage")
    shutil.copy2(_image_file(image_root, release, "config", who),
                 tmp / "config")
    for name in ("vmlinuz", "config", "System.map"):
        (reldir / name).unlink(missing_ok=True)
    (tmp / "release").write_text(release + "\n")
    moddest = tmp / "modules" / "lib" / "modules"
    moddest.mkdir(parents=True)
    shutil.move(str(reldir), moddest / release)
    shutil.rmtree(image_root)
    capture(["depmod", "-b", str(tmp / "modules"), release], timeout=300,
            what=f"{who}: depmod")
    kdir = tmp / "headers" / "usr" / "src" / f"linux-headers-{release}"
    if not (kdir / "Module.symvers").exists():
        raise BenchError(f"{who}: headers package has no {kdir.name}/"
                         f"Module.symvers")
    shutil.copy2(kdir / "Module.symvers", tmp / "Module.symvers")
    if not save_vmlinux(tmp / "bzImage", tmp / "vmlinux"):
        say("build", f"kernel {kernel.name}: no PVH vmlinux in the bzImage,"
                     f" booting the bzImage (slower under TCG)")
    return {"release": release,
            "kdir": str(kdir.relative_to(tmp))}


def debian_kernel(kernel: Kernel, cache: Cache) -> KernelArtifact:
    image, headers = _debian_packages(kernel, cache)
    pkgs = image + headers
    inputs = {"kind": "kernel-debian", "layout": 2,
              "packages": {p.name: p.version for p in pkgs}}
    if kernel.arch != debian.HOST_ARCH:
        inputs["arch"] = kernel.arch
    key = digest_inputs(inputs)
    entry = cache.lookup("kernels", key)
    if entry is None:
        with Step("build", f"kernel {kernel.name}: fetch and unpack "
                           f"{pkgs[0].name} {pkgs[0].version}"):
            with cache.publish("kernels", key, inputs) as tmp:
                inputs.update(_publish_debian(
                    kernel, image, headers, cache.root / "debs", tmp,
                    suite_env(kernel, cache),
                    debian.suite_apt(cache, kernel.suite)
                    if kernel.suite else None))
        entry = cache.path("kernels", key)
    meta = cache.meta(entry)
    return KernelArtifact(kernel, key, entry, meta["release"],
                          entry / meta["kdir"])


# -- kernels built from linux-source -----------------------------------------

_SUITE_PACKAGES: Dict[Tuple[pathlib.Path, str, str], debian.Package] = {}


def _suite_package(root: pathlib.Path, suite: str, package: str,
                   who: str) -> debian.Package:
    # Once per process: every kernel of the source and every module build
    # asks again.
    key = (root, suite, package)
    if key not in _SUITE_PACKAGES:
        _SUITE_PACKAGES[key] = debian.show(
            package, who, debian.suite_apt(Cache(root), suite))
    return _SUITE_PACKAGES[key]


def suite_source_version(cache: Cache, suite: str, package: str,
                         who: str) -> str:
    """The candidate version of a linux-source package of another suite
    (bullseye's linux-source-5.10 on a bookworm host)."""
    return _suite_package(cache.root, suite, package, who).version


def suite_source_tarball(cache: Cache, suite: str, package: str,
                         version: str, who: str) -> pathlib.Path:
    """The source tarball of that package, downloaded with the suite's
    private apt configuration and unpacked (dpkg-deb -x) once into
    <cache>/sources/<key>/; the .deb is not kept."""
    inputs = {"kind": "source-deb", "suite": suite, "package": package,
              "version": version}
    key = digest_inputs(inputs)
    entry = cache.lookup("sources", key)
    if entry is None:
        pkg = _suite_package(cache.root, suite, package, who)
        env = debian.suite_apt(cache, suite)
        with Step("build", f"{package} {version} ({suite}): download and "
                           f"unpack"):
            with cache.publish("sources", key, inputs) as tmp:
                deb = debian.download(pkg, tmp / "deb", who, env)
                debian.unpack(deb, tmp, who)
                shutil.rmtree(tmp / "deb")
        entry = cache.path("sources", key)
    path = entry / "usr" / "src" / f"{package}.tar.xz"
    if not path.is_file():
        raise BenchError(f"{who}: {package} {version} has no "
                         f"usr/src/{path.name}")
    return path


class SourceTree(WorkTree):
    """One configured build tree shared by every policy of a source+config.

    The tree is a working folder, not a cache entry: policies are built in it
    one after another (apply patch, incremental make, save, revert) under a
    lock, and each result is published as its own content-addressed entry.
    """

    def __init__(self, kernel: Kernel, cache: Cache) -> None:
        assert kernel.configs
        self.who = f"kernel '{kernel.name}'"
        self.package = kernel.source
        self.cache = cache
        self.suite = kernel.suite
        if self.suite:
            self.version = suite_source_version(cache, self.suite,
                                                self.package, self.who)
        else:
            self.version = debian.installed_version(self.package)
        if not self.version:
            raise BenchError(f"{self.who}: Debian package '{self.package}' is"
                             f" not installed (run `scripts/ndisbench setup`)")
        self.configs = kernel.configs
        self.config_names = "+".join(c.name for c in self.configs)
        self.arch_args = [f"ARCH={KBUILD_ARCH[kernel.arch]}"] \
            if kernel.arch != debian.HOST_ARCH else []
        inputs = {"kind": "tree", "package": self.package,
                  "version": self.version,
                  "config": "+".join(file_digest(c) for c in self.configs),
                  "cc": compiler_id()}
        if self.suite:
            inputs["suite"] = self.suite
        if kernel.arch != debian.HOST_ARCH:
            # Only then: the amd64 trees keep the keys they had.
            inputs["arch"] = kernel.arch
        super().__init__(cache, inputs)

    def tarball(self) -> pathlib.Path:
        if self.suite:
            return suite_source_tarball(self.cache, self.suite,
                                        self.package, self.version,
                                        self.who)
        path = pathlib.Path("/usr/src") / f"{self.package}.tar.xz"
        if not path.exists():
            raise BenchError(f"{self.who}: {path} missing (reinstall "
                             f"{self.package})")
        return path

    def extract(self) -> None:
        if (self.src / ".ndisbench-extracted").exists():
            return
        tmp = self.root / "src.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(self.src, ignore_errors=True)
        tmp.mkdir(parents=True)
        tarball = self.tarball()    # a suite's package: downloaded first
        with Step("build", f"{self.package} {self.version}: unpack source"):
            run_logged(["tar", "-xJf", str(tarball), "-C", str(tmp),
                        "--strip-components=1"], self.log,
                       f"{self.who}: unpack {self.package}", timeout=1800)
        (tmp / ".ndisbench-extracted").write_text(self.version + "\n")
        os.rename(tmp, self.src)

    def make_command(self, *args: str) -> List[str]:
        """make in the tree, for the kernel's architecture."""
        return ["make", "-C", str(self.src), *self.arch_args, *args]

    def make(self, *targets: str, what: str) -> None:
        run_logged(self.make_command(f"-j{jobs()}", *targets),
                   self.log, f"{self.who}: {what}", timeout=BUILD_TIMEOUT)

    def configure(self) -> None:
        stamp = self.src / ".ndisbench-configured"
        if stamp.exists():
            return
        with Step("build", f"{self.package}: tinyconfig + "
                           f"{self.config_names}"):
            self.make("tinyconfig", what="make tinyconfig")
            run_logged([str(self.src / "scripts/kconfig/merge_config.sh"),
                        "-m", "-O", str(self.src), str(self.src / ".config"),
                        *map(str, self.configs)], self.log,
                       f"{self.who}: merge {self.config_names}",
                       cwd=self.src, timeout=600)
            self.make("olddefconfig", what="make olddefconfig")
        self.check_config()
        stamp.write_text(self.inputs["config"] + "\n")

    def check_config(self) -> None:
        """Kconfig silently drops options whose dependencies are unmet: make
        that loud, naming the options."""
        wanted: Dict[str, str] = {}
        for fragment in self.configs:
            wanted.update(parse_fragment(fragment.read_text()))
        got = parse_config((self.src / ".config").read_text())
        lost = [f"# {k} is not set" if v == "n" else f"{k}={v}"
                for k, v in wanted.items() if got.get(k, "n") != v]
        if lost:
            raise BenchError(f"{self.who}: {self.config_names}: options not "
                             f"accepted by Kconfig: {', '.join(lost)}")

    def patch(self, patch: pathlib.Path, reverse: bool = False) -> None:
        args = ["patch", "-p1", "--batch", "--silent", "-d", str(self.src),
                "-i", str(patch)]
        args += ["-R"] if reverse else ["--forward"]
        res = subprocess.run(args + ["--dry-run"], capture_output=True,
                             text=True, timeout=120, check=False)
        if res.returncode != 0:
            msg = (res.stdout + res.stderr).strip().splitlines()
            first = msg[0] if msg else f"exit {res.returncode}"
            verb = "revert" if reverse else "apply"
            raise BenchError(f"{self.who}: patch {patch.name} does not "
                             f"{verb} to {self.package} {self.version}: "
                             f"{first}")
        capture(args, timeout=120, what=f"{self.who}: patch {patch.name}")

    def restore_pristine(self) -> None:
        """Undo a patch an interrupted build left applied."""
        state = self.src / ".ndisbench-applied"
        if state.exists():
            self.patch(pathlib.Path(state.read_text().strip()), reverse=True)
            state.unlink()

    def prepare(self) -> None:
        self.extract()
        self.restore_pristine()
        self.configure()

    def build_into(self, patch: Optional[pathlib.Path],
                   tmp: pathlib.Path) -> Dict[str, str]:
        """Build the tree (with patch applied) and copy results into tmp."""
        state = self.src / ".ndisbench-applied"
        if patch:
            self.patch(patch)
            state.write_text(str(patch) + "\n")
        try:
            self.make("vmlinux", "modules", what="make vmlinux modules")
            release = capture(self.make_command("-s", "kernelrelease"),
                              timeout=120,
                              what=f"{self.who}: kernelrelease").strip()
            files = [("vmlinux", "vmlinux"), ("config", ".config"),
                     ("Module.symvers", "Module.symvers")]
            if not boots_vmlinux(self.src / "vmlinux", self.src / ".config"):
                self.make("bzImage", what="make bzImage")
                files.append(("bzImage", BZIMAGE))
            for name, src in files:
                shutil.copy2(self.src / src, tmp / name)
            run_logged(self.make_command(
                "modules_install", f"INSTALL_MOD_PATH={tmp / 'modules'}"),
                self.log, f"{self.who}: modules_install", timeout=600)
            if not has_pvh_note((tmp / "vmlinux").read_bytes()):
                (tmp / "vmlinux").unlink()
        finally:
            if patch:
                self.patch(patch, reverse=True)
                state.unlink()
        (tmp / "release").write_text(release + "\n")
        return {"release": release}


def built_kernel(kernel: Kernel, cache: Cache) -> KernelArtifact:
    tree = SourceTree(kernel, cache)
    inputs = {"kind": "kernel-built", "tree": tree.key,
              "patch": file_digest(kernel.patch) if kernel.patch else None}
    key = digest_inputs(inputs)
    entry = cache.lookup("kernels", key)
    if entry is None:
        with tree.lock():
            entry = cache.lookup("kernels", key)
            if entry is None:
                tree.prepare()
                what = kernel.patch.name if kernel.patch else "unpatched"
                with Step("build", f"kernel {kernel.name}: {tree.package} "
                                   f"+ {what}"):
                    with cache.publish("kernels", key, inputs) as tmp:
                        inputs.update(tree.build_into(kernel.patch, tmp))
                entry = cache.path("kernels", key)
    meta = cache.meta(entry)
    return KernelArtifact(kernel, key, entry, meta["release"], tree.src)


def ensure_kdir(art: KernelArtifact, tree: SourceTree) -> pathlib.Path:
    """The module build folder, rebuilding a removed source tree if needed.
    The caller holds the tree's lock."""
    if (art.kdir / "Module.symvers").exists():
        return art.kdir
    tree.prepare()
    with Step("build", f"kernel {art.kernel.name}: rebuild removed tree for"
                       f" external modules"):
        tree.make("bzImage", "modules", what="make bzImage modules")
    return art.kdir


def kernel_artifact(kernel: Kernel, cache: Cache) -> KernelArtifact:
    if kernel.is_debian:
        return debian_kernel(kernel, cache)
    if kernel.is_tree:
        return tree_artifact(kernel, cache)
    return built_kernel(kernel, cache)


def tree_artifact(kernel: Kernel, cache: Cache) -> KernelArtifact:
    """The KernelArtifact of a `source = "tree"` kernel: its bzImage,
    .config and Module.symvers copied, its modules linked
    (usertree.link_modules), keyed by their contents."""
    assert kernel.path is not None
    where = f"kernel '{kernel.name}' (tree {kernel.path})"
    info = check_tree(kernel.path, f"kernel '{kernel.name}': tree")
    inputs = {"kind": "kernel-tree", "layout": 1,
              "bzImage": file_digest(kernel.path / BZIMAGE),
              "config": file_digest(kernel.path / ".config"),
              "symvers": file_digest(kernel.path / "Module.symvers"),
              "path": str(kernel.path.resolve())}
    key = digest_inputs(inputs)
    entry = cache.lookup("kernels", key)
    if entry is None:
        with Step("build", f"kernel {kernel.name}: {info.release} from "
                           f"{kernel.path}"):
            with cache.publish("kernels", key, inputs) as tmp:
                shutil.copy2(kernel.path / BZIMAGE, tmp / "bzImage")
                shutil.copy2(kernel.path / ".config", tmp / "config")
                shutil.copy2(kernel.path / "Module.symvers",
                             tmp / "Module.symvers")
                (tmp / "release").write_text(info.release + "\n")
                count = usertree.link_modules(kernel.path, info.release,
                                     tmp / "modules", where)
                # The payload of the bzImage, not the tree's vmlinux
                # (with debug info that can be a gigabyte).
                if not save_vmlinux(tmp / "bzImage", tmp / "vmlinux"):
                    say("build", f"kernel {kernel.name}: no PVH vmlinux in "
                                 f"the bzImage (XZ or zstd with "
                                 f"CONFIG_PVH), booting the bzImage")
                say("build", f"kernel {kernel.name}: {count} module(s) "
                             f"linked from the tree")
                inputs["release"] = info.release
        entry = cache.path("kernels", key)
    meta = cache.meta(entry)
    return KernelArtifact(kernel, key, entry, meta["release"], kernel.path)
