"""A kernel of the user's own: a kernel build folder they already have
(`source = "tree"` in kernels.toml, or `run --kernel-tree DIR`), checked
before anything is built: what a finished `make bzImage modules` leaves
(arch/x86/boot/bzImage, .config, Module.symvers, include/config/
kernel.release), an x86_64 kernel with what the guests need built in. The
tree's cache entry is build/usertree.py's and kbuild.tree_artifact()'s.
"""
import dataclasses
import pathlib
import re
from typing import Dict, Optional, Tuple

from .errors import BenchError
BZIMAGE = "arch/x86/boot/bzImage"
# The guest image and the agent need these built in (ttyS0 console, an
# initramfs, loadable modules).
REQUIRED = (("CONFIG_MODULES", "loadable modules"),
            ("CONFIG_BLK_DEV_INITRD", "the guest's initramfs"),
            ("CONFIG_SERIAL_8250_CONSOLE", "the console on ttyS0"))
VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")
# What a `uname -r` is made of: it names folders (lib/modules/<release>)
# the bench creates as root, so never a path.
RELEASE_RE = re.compile(r"[A-Za-z0-9._+~-]+")
# utsname's release field: 65 bytes with its NUL.
RELEASE_MAX = 64


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


def release_problem(release: str) -> str:
    """Why release cannot be a kernel release the bench names folders by;
    "" when it can."""
    if not RELEASE_RE.fullmatch(release) or set(release) == {"."}:
        return (f"{release!r} is not a kernel release (letters, digits "
                f"and ._+~- only)")
    if len(release) > RELEASE_MAX:
        return (f"{release[:20]!r}... is not a kernel release (more than "
                f"{RELEASE_MAX} characters, uname's limit)")
    return ""


def parse_config(text: str) -> Dict[str, str]:
    """A kernel .config as CONFIG_X -> value (set options only)."""
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
    config = parse_config((path / ".config").read_text(errors="replace"))
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
    if release and release_problem(release):
        raise BenchError(f"{where}: include/config/kernel.release: "
                         f"{release_problem(release)}")
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
