"""`ndisbench setup`: the Debian packages and the deb-src entry the bench
needs, and nothing else. Idempotent: a machine that has everything is left
alone (no apt-get update, no network)."""
import os
import pathlib
import subprocess
from typing import List, Sequence

from . import debian
from .errors import BenchError
from .kernels import Kernel
from .progress import Step, say

PACKAGES = (
    # guests
    "qemu-system-x86", "busybox-static",
    # kernel and module builds
    "build-essential", "gcc-12", "bc", "bison", "flex", "libelf-dev",
    "libssl-dev", "cpio", "xz-utils", "zstd", "kmod", "patch", "binutils",
    # host build system and orchestration
    "meson", "ninja-build", "python3",
    # Debian source packages (QEMU's sources with Debian's patches)
    "dpkg-dev",
    # tests/fuzz: the libFuzzer targets (clang; libclang_rt.fuzzer)
    "clang", "libclang-rt-14-dev",
    # fixtures/: the Windows NDIS fixture drivers (PE32+, mingw-w64)
    "gcc-mingw-w64-x86-64", "binutils-mingw-w64-x86-64",
    # report.html (htmlreport.py): a unit test renders it in headless Chromium
    "chromium",
    # QEMU 7.2 with our device models (qemu_build.py): configure's libraries
    "pkg-config", "libglib2.0-dev", "libpixman-1-dev", "libslirp-dev",
    "zlib1g-dev",
    # guest image: the standard wireless and network tools (with the
    # shared libraries they link, copied from the host)
    "iw", "iproute2", "ethtool", "wireless-tools",
)
APT_SOURCES = pathlib.Path("/etc/apt/sources.list.d")
SRC_LIST = APT_SOURCES / "ndisbench-deb-src.sources"


def deb_src_stanzas(sources_dir: pathlib.Path = APT_SOURCES) -> str:
    """deb-src twins of every deb822 `Types: deb` stanza on the machine."""
    stanzas = []
    for path in sorted(sources_dir.glob("*.sources")):
        if path == SRC_LIST:
            continue
        for block in path.read_text().split("\n\n"):
            lines = [ln for ln in block.splitlines()
                     if ln.strip() and not ln.startswith("#")]
            fields = dict(ln.split(":", 1) for ln in lines if ":" in ln)
            types = fields.get("Types", "").split()
            if "deb" not in types or "deb-src" in types:
                continue
            if "debian" not in fields.get("URIs", ""):
                continue
            stanzas.append("\n".join(
                "Types: deb-src" if ln.startswith("Types:") else ln
                for ln in lines))
    return "\n\n".join(stanzas) + "\n" if stanzas else ""


def ensure_deb_src() -> bool:
    """Write the deb-src entry; True if it changed (apt needs an update)."""
    text = deb_src_stanzas()
    if not text:
        raise BenchError(f"{APT_SOURCES}: no Debian `Types: deb` entry to "
                         f"derive a deb-src entry from")
    if SRC_LIST.exists() and SRC_LIST.read_text() == text:
        return False
    tmp = SRC_LIST.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.rename(SRC_LIST)
    say("setup", f"wrote {SRC_LIST}")
    return True


def apt(args: Sequence[str], what: str) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    res = subprocess.run(["apt-get", *args], env=env, timeout=3600,
                         stdin=subprocess.DEVNULL, check=False)
    if res.returncode != 0:
        raise BenchError(f"setup: {what} failed (exit {res.returncode})")


def packages_for(kernels: Sequence[Kernel]) -> List[str]:
    pkgs = list(PACKAGES)
    for k in kernels:
        if not k.is_debian and k.source not in pkgs:
            pkgs.append(k.source)
    return pkgs


def setup(kernels: Sequence[Kernel]) -> None:
    if os.geteuid() != 0:
        raise BenchError("setup: needs root (it runs apt-get)")
    changed = ensure_deb_src()
    missing = [p for p in packages_for(kernels)
               if not debian.installed_version(p)]
    if changed or missing:
        with Step("setup", "apt-get update"):
            apt(["update", "-q"], "apt-get update")
    if missing:
        with Step("setup", f"apt-get install {' '.join(missing)}"):
            apt(["install", "-y", "-q", "--no-install-recommends",
                 *missing], "apt-get install")
    say("setup", "all packages present" if not missing else
        f"installed {len(missing)} package(s)")
