"""A kernel of the user's own: a kernel build folder they already have
(`source = "tree"` in kernels.toml, or `run --kernel-tree DIR`).

The folder must hold what a finished `make bzImage modules` leaves:
arch/x86/boot/bzImage, .config, Module.symvers, include/config/
kernel.release and, for the in-tree modules the guests load, modules.order
with the .ko files it lists. Nothing is copied but the bzImage, the
.config and Module.symvers: the cache entry's modules/ folder holds
symlinks into the tree (a distribution config's modules are gigabytes),
with a modules.dep made by depmod. The entry is keyed by the contents of
the bzImage, the .config and Module.symvers (and the folder, which its
links point into), so a rebuilt kernel is a new entry and an unchanged one
is found again.
"""
import dataclasses
import pathlib
import re
import shutil
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from .cache import Cache, digest_inputs, file_digest
from ..errors import BenchError
from ..progress import Step, say
from ..proc import capture

if TYPE_CHECKING:   # kernels.py imports this module to validate trees
    from ..kernels import Kernel
    from .kbuild import KernelArtifact

BZIMAGE = "arch/x86/boot/bzImage"
# The guest image and the agent need these built in (ttyS0 console, an
# initramfs, loadable modules).
REQUIRED = (("CONFIG_MODULES", "loadable modules"),
            ("CONFIG_BLK_DEV_INITRD", "the guest's initramfs"),
            ("CONFIG_SERIAL_8250_CONSOLE", "the console on ttyS0"))
VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")


@dataclasses.dataclass(frozen=True)
class TreeInfo:
    path: pathlib.Path
    release: str
    version: Tuple[int, int, int]
    config: Dict[str, str]


def version_of(release: str) -> Optional[Tuple[int, int, int]]:
    """(major, minor, sublevel) at the start of a `uname -r`."""
    match = VERSION_RE.match(release)
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2)),
            int(match.group(3) or 0))


def _config(text: str) -> Dict[str, str]:
    opts = {}
    for line in text.splitlines():
        if line.startswith("CONFIG_") and "=" in line:
            key, _, value = line.partition("=")
            opts[key] = value
    return opts


def is_x86_bzimage(path: pathlib.Path) -> bool:
    """The x86 boot protocol's "HdrS" magic at 0x202 (any other
    architecture's image lacks it)."""
    try:
        with open(path, "rb") as f:
            f.seek(0x202)
            return f.read(4) == b"HdrS"
    except OSError:
        return False


def check_tree(path: pathlib.Path, what: str = "kernel tree") -> TreeInfo:
    """Validate a user's kernel build folder; one-line BenchError naming
    the folder and the first thing missing."""
    where = f"{what} {path}"
    if not path.is_dir():
        raise BenchError(f"{where}: not a folder")
    if not (path / ".config").is_file():
        raise BenchError(f"{where}: no .config (not a configured kernel "
                         f"build folder)")
    config = _config((path / ".config").read_text(errors="replace"))
    if config.get("CONFIG_X86_64") != "y":
        arch = next((k[len("CONFIG_"):] for k in ("CONFIG_ARM64",
                     "CONFIG_ARM", "CONFIG_RISCV", "CONFIG_PPC",
                     "CONFIG_S390", "CONFIG_X86_32")
                     if config.get(k) == "y"), "not x86_64")
        raise BenchError(f"{where}: wrong architecture: .config is "
                         f"{arch}, the guests are x86_64 (CONFIG_X86_64 "
                         f"not set)")
    bzimage = path / BZIMAGE
    if not bzimage.is_file():
        raise BenchError(f"{where}: no {BZIMAGE} (run `make bzImage "
                         f"modules` there)")
    if not is_x86_bzimage(bzimage):
        raise BenchError(f"{where}: {BZIMAGE} is not an x86 bzImage (no "
                         f"HdrS boot header)")
    if not (path / "Module.symvers").is_file():
        raise BenchError(f"{where}: no Module.symvers (run `make modules` "
                         f"there: external modules build against it)")
    missing = [f"{opt} ({why})" for opt, why in REQUIRED
               if config.get(opt) != "y"]
    if missing:
        raise BenchError(f"{where}: .config lacks {', '.join(missing)}")
    relfile = path / "include" / "config" / "kernel.release"
    release = relfile.read_text().strip() if relfile.is_file() else ""
    version = version_of(release)
    if version is None:
        raise BenchError(f"{where}: no kernel release in "
                         f"include/config/kernel.release (an unfinished "
                         f"build?)")
    return TreeInfo(path, release, version, config)


def infer_policy(info: TreeInfo, where: str) -> str:
    """Every kernel since 2.6.25 has 2.6.25-rc4's special case (taint the
    kernel for ndiswrapper, the module for driverloader; later kernels
    added only unrelated names). Older trees must say."""
    if info.version >= (2, 6, 25):
        return "2.6.25-rc4"
    raise BenchError(f"{where}: cannot infer the taint policy of "
                     f"{info.release} (before 2.6.25): set policy")


def tree_name(info: TreeInfo) -> str:
    """A kernel name for a --kernel-tree folder: tree-<release>."""
    return "tree-" + re.sub(r"[^a-z0-9.+_-]", "-", info.release.lower())


def _module_paths(tree: pathlib.Path) -> List[str]:
    """The .ko files the tree built, relative to it (modules.order lists
    them; 5.10 writes kernel/<path>, 6.1 <path>)."""
    order = tree / "modules.order"
    if not order.is_file():
        return []
    rels = []
    for line in order.read_text().splitlines():
        rel = line.strip()
        if rel.startswith("kernel/"):
            rel = rel[len("kernel/"):]
        if rel.endswith(".o"):      # 6.x lists the objects
            rel = rel[:-2] + ".ko"
        if rel:
            rels.append(rel)
    return rels


def link_modules(tree: pathlib.Path, release: str,
                 dest: pathlib.Path, where: str) -> int:
    """dest/lib/modules/<release>/kernel/<path>.ko -> the tree's .ko files,
    plus modules.order, modules.builtin(.modinfo) and depmod's files."""
    moddir = dest / "lib" / "modules" / release
    moddir.mkdir(parents=True)
    rels = _module_paths(tree)
    missing = [r for r in rels if not (tree / r).is_file()]
    if missing:
        raise BenchError(f"{where}: {len(missing)} module(s) of "
                         f"modules.order not built, e.g. {missing[0]} (run "
                         f"`make modules` there)")
    for rel in rels:
        link = moddir / "kernel" / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to((tree / rel).resolve())
    (moddir / "modules.order").write_text(
        "".join(f"kernel/{r}\n" for r in rels))
    for name in ("modules.builtin", "modules.builtin.modinfo"):
        if (tree / name).is_file():
            shutil.copy2(tree / name, moddir / name)
    capture(["depmod", "-b", str(dest), release], timeout=600,
            what=f"{where}: depmod")
    return len(rels)


def tree_kernel(kernel: "Kernel", cache: Cache) -> "KernelArtifact":
    """The KernelArtifact of a `source = "tree"` kernel (kbuild's
    kernel_artifact calls this)."""
    from .kbuild import KernelArtifact, save_vmlinux
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
                count = link_modules(kernel.path, info.release,
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
