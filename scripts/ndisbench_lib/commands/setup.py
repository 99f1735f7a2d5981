"""`ndisbench setup`: the Debian packages and the deb-src entry the bench
needs, and the system user QEMU drops to; nothing else. Idempotent: a
machine that has everything is left alone (no apt-get update, no
network)."""
import dataclasses
import os
import pathlib
import subprocess
import time
from typing import List, Sequence, Tuple

from ..build import debian
from ..errors import BenchError
from ..guest import sandbox
from ..kernels import Kernel
from ..progress import Step, say

@dataclasses.dataclass(frozen=True)
class Requirement:
    """One Debian package, what of it the bench runs or reads (programs by
    name, other files by absolute path) and why."""
    package: str
    provides: Tuple[str, ...]
    why: str


# Everything the bench needs on a bare Debian 12, in one list:
# tests/unit/project/test_setup.py ties every program the code runs to an entry
# here and checks each entry against the package's real file list.
REQUIREMENTS = (
    # guests
    Requirement("qemu-system-x86", ("qemu-system-x86_64",),
                "BIOS and option ROMs our QEMU loads with -L; the KVM "
                "probe's fingerprint"),
    Requirement("busybox-static", ("busybox",), "the guest image's shell"),
    Requirement("iw", ("iw",), "guest image: joins the emulated AP"),
    Requirement("iproute2", ("ip",), "guest image: interfaces"),
    Requirement("ethtool", ("ethtool",), "guest image: driver info"),
    Requirement("wireless-tools", ("iwconfig", "iwlist"),
                "guest image: the wireless-extensions view and way"),
    Requirement("wpasupplicant", ("wpa_supplicant", "wpa_cli"),
                "guest image of the WPA2 checks' cells: joins the WPA2 AP"),
    Requirement("perl", ("perl", "/usr/share/perl/5.*/File/Copy.pm",
                         "/usr/lib/x86_64-linux-gnu/perl/5.*/Time/HiRes.pm"),
                "guest image, for a --wrapper-src tree whose installer is a "
                "Perl script (classic ndiswrapper's utils/ndiswrapper): "
                "perl-base, perl-modules-5.36 and libperl5.36 hold the "
                "core modules it loads (initramfs.perl_files)"),
    # kernel and module builds (kbuild.py, modules.py)
    Requirement("build-essential", (), "gcc, g++, libc6-dev, make: "
                "kernel and tool builds"),
    Requirement("make", ("make",), "kernel, module and tool builds"),
    Requirement("gcc", ("gcc",), "host tools, the agent, modules"),
    Requirement("gcc-12", ("gcc-12",), "the compiler bookworm's kernels "
                "were built with"),
    Requirement("bc", ("bc",), "kbuild (timeconst)"),
    Requirement("bison", ("bison",), "kbuild (kconfig, genksyms)"),
    Requirement("flex", ("flex",), "kbuild (kconfig, genksyms)"),
    Requirement("libelf-dev", ("/usr/include/libelf.h",),
                "kbuild: objtool"),
    Requirement("libssl-dev", ("/usr/include/openssl/evp.h",),
                "kbuild: sign-file, extract-cert"),
    Requirement("pahole", ("pahole",), "kbuild: module BTF on kernels "
                "with DEBUG_INFO_BTF_MODULES (debian-6.12)"),
    Requirement("cpio", ("cpio",), "kbuild (kheaders); initramfs tests"),
    Requirement("xz-utils", ("xz",), "linux-source tarballs, modules"),
    Requirement("zstd", ("zstd",), "Debian's compressed modules"),
    Requirement("kmod", ("depmod", "modinfo"), "modules.dep, module "
                "dependencies"),
    Requirement("patch", ("patch",), "the policy patches; qemu-patches/"),
    # Debian kernels of another suite (build/chroot.py): their modules are
    # built in a chroot of that suite, with its own compiler
    Requirement("mmdebstrap", ("mmdebstrap",), "the per-suite build "
                "chroots (bullseye, trixie, trixie-backports, sid)"),
    Requirement("util-linux", ("unshare",), "mmdebstrap --mode=unshare "
                "runs it (as root: mount and pid namespaces)"),
    # every build that runs a tree's code (build/confine.py)
    Requirement("bubblewrap", ("bwrap",), "builds run confined: a user, "
                "mount, pid and network namespace of their own, as the "
                "unprivileged build user"),
    Requirement("binutils", ("nm", "ld", "readelf"),
                "GPL import checks, linking, an i386 guest's libraries"),
    Requirement("tar", ("tar",), "linux-source tarballs"),
    Requirement("git", ("git",), "names a --wrapper-src tree's commit and "
                "git describe (subject.py, read-only)"),
    Requirement("linux-config-6.1",
                ("/usr/src/linux-config-6.1/config.amd64_none_amd64.xz",),
                "Debian's own kernel config: the source kernels' "
                "distribution options are checked against it "
                "(tests/unit/build/test_distro_config.py)"),
    Requirement("libc-bin", ("ldd",), "guest tools' shared libraries"),
    # host build system and orchestration
    Requirement("meson", ("meson",), "host tools, tests, fixtures"),
    Requirement("ninja-build", ("ninja",), "meson's and QEMU's builds"),
    Requirement("dash", ("sh",), "/bin/sh: the wrapper's export names for "
                "the user tools (gen_exports.sh --names, meson)"),
    Requirement("python3", ("python3",), "the bench itself"),
    Requirement("pkgconf", ("pkg-config",), "QEMU's configure"),
    # Debian packages and source packages (debian.py, qemu_build.py)
    Requirement("apt", ("apt-get", "apt-cache"), "downloads"),
    Requirement("dpkg", ("dpkg-deb", "dpkg-query"), "unpacking, versions"),
    Requirement("dpkg-dev", ("dpkg-source",),
                "QEMU's sources with Debian's patches (apt-get source)"),
    # QEMU 7.2 with our device models (qemu_build.py): configure's libraries
    Requirement("libglib2.0-dev", ("/usr/include/glib-2.0/glib.h",),
                "QEMU"),
    Requirement("libpixman-1-dev", ("/usr/include/pixman-1/pixman.h",),
                "QEMU"),
    Requirement("libslirp-dev", ("/usr/include/slirp/libslirp.h",),
                "QEMU: -netdev user (--enable-slirp)"),
    Requirement("zlib1g-dev", ("/usr/include/zlib.h",), "QEMU"),
    Requirement("libfdt-dev", ("/usr/include/libfdt.h",),
                "QEMU: configure stops without it (x86_64-softmmu needs "
                "fdt)"),
    Requirement("libseccomp-dev", ("/usr/include/seccomp.h",),
                "QEMU: -sandbox (--enable-seccomp), every guest's QEMU "
                "runs under it"),
    Requirement("nettle-dev", ("/usr/include/nettle/pbkdf2.h",),
                "QEMU: its crypto API's PBKDF2, HMAC and AES (--enable-nettle)"
                ", the access point's WPA2 keys (qemu-devices/wlan-rsn.c)"),
    # the unprivileged user QEMU and tshark run as (sandbox.py), and
    # builds (build/confine.py)
    Requirement("passwd", ("useradd",), "setup creates the system user "
                "QEMU drops to (-runas), tshark and builds run as"),
    # tests/fuzz: the libFuzzer targets
    Requirement("clang", ("clang", "clang++"), "the libFuzzer targets; "
                "the fuzzing QEMU (`ndisbench fuzz`: CC=clang CXX=clang++, "
                "libFuzzer's main is C++)"),
    Requirement("libclang-rt-14-dev",
                ("/usr/lib/llvm-14/lib/clang/*/lib/linux/"
                 "libclang_rt.fuzzer-x86_64.a",
                 "/usr/lib/llvm-14/lib/clang/*/lib/linux/"
                 "libclang_rt.asan-x86_64.a",
                 "/usr/lib/llvm-14/lib/clang/*/lib/linux/"
                 "libclang_rt.ubsan_standalone-x86_64.a"),
                "libFuzzer's runtime, ASan and UBSan (--enable-sanitizers)"),
    Requirement("llvm", ("llvm-symbolizer",), "sanitizer reports of the "
                "fuzz targets name functions and lines"),
    # fixtures/: the Windows NDIS fixture drivers (PE32+, mingw-w64)
    Requirement("gcc-mingw-w64-x86-64", ("x86_64-w64-mingw32-gcc",),
                "fixture drivers"),
    Requirement("binutils-mingw-w64-x86-64",
                ("x86_64-w64-mingw32-dlltool",), "fixture import libraries"),
    # ... and their i386 (PE32) builds from the same sources
    Requirement("gcc-mingw-w64-i686", ("i686-w64-mingw32-gcc",),
                "the fixture drivers' i386 builds"),
    Requirement("binutils-mingw-w64-i686", ("i686-w64-mingw32-dlltool",),
                "the i386 import libraries (stdcall-decorated .def, "
                "dlltool -k)"),
    # tests/unit/c: the i386 thunk test is a 32-bit host program
    Requirement("gcc-multilib", ("/usr/lib32/crt1.o",
                                 "/usr/lib/gcc/x86_64-linux-gnu/12/32/"
                                 "libgcc.a"),
                "gcc -m32: the i386 calling-convention thunk test "
                "(meson suite unit-c)"),
    Requirement("qemu-user-static", ("qemu-i386-static",),
                "runs the 32-bit test programs (thunks32, install32): "
                "hosts without IA32 emulation cannot exec them"),
    # reports and captures
    Requirement("chromium", ("chromium",),
                "a unit test renders report.html headless"),
    Requirement("tshark", ("tshark",), "the capture check reads the "
                "air's pcap; the WPA2 checks decrypt it"),
    Requirement("yamllint", ("yamllint",), "a unit test checks the CI "
                "files (.github/workflows/, .gitlab-ci.yml) as YAML"),
)
PACKAGES = tuple(r.package for r in REQUIREMENTS)
APT_SOURCES = pathlib.Path("/etc/apt/sources.list.d")
SRC_LIST = APT_SOURCES / "ndisbench-deb-src.sources"


# The deb822 fields of a deb-src entry, in the order they are written.
DEB_SRC_FIELDS = (("uris", "URIs"), ("suites", "Suites"),
                  ("components", "Components"), ("signed-by", "Signed-By"))


def deb_src_stanzas(apt: pathlib.Path = debian.HOST_APT) -> str:
    """deb-src twins of the host's Debian `deb` entries, one-line
    (sources.list, *.list) and deb822 (*.sources, whatever the name) alike,
    except those that already have their deb-src and our own file."""
    files = [f for f in debian.host_sources(apt) if f.name != SRC_LIST.name]
    entries = [e for e in debian.host_stanzas(files)
               if e.get("enabled", "yes") != "no"]
    have = {(e.get("uris"), e.get("suites")) for e in entries
            if "deb-src" in e.get("types", "").split()}
    stanzas = []
    for entry in entries:
        key = (entry.get("uris"), entry.get("suites"))
        if "deb" not in entry.get("types", "").split() or key in have or \
                "debian" not in entry.get("uris", ""):
            continue
        have.add(key)
        lines = ["Types: deb-src"] + [f"{name}: {entry[field]}"
                                      for field, name in DEB_SRC_FIELDS
                                      if entry.get(field)]
        stanzas.append("\n".join(lines))
    return "\n\n".join(stanzas) + "\n" if stanzas else ""


def ensure_deb_src() -> bool:
    """Write the deb-src entry; True if it changed (apt needs an update)."""
    text = deb_src_stanzas()
    if not text:
        raise BenchError(f"{debian.HOST_APT}: no Debian `deb` entry to "
                         f"derive a deb-src entry from")
    if SRC_LIST.exists() and SRC_LIST.read_text() == text:
        return False
    tmp = SRC_LIST.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.rename(SRC_LIST)
    say("setup", f"wrote {SRC_LIST}")
    return True


# A mirror can fail for a while (an index out of step with its Release
# file while it syncs): apt retries each download, and a failed update or
# install is tried again after these pauses.
APT_ATTEMPTS = 3
APT_PAUSES = (10, 30)
APT_LISTS = pathlib.Path("/var/lib/apt/lists")


def apt(args: Sequence[str]) -> int:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    res = subprocess.run(["apt-get", "-o", "Acquire::Retries=3", *args],
                         env=env, timeout=3600, stdin=subprocess.DEVNULL,
                         check=False)
    return res.returncode


def apt_update() -> None:
    """apt-get update, tried again; when it keeps failing, apt's lists
    from before (or the indexes it did fetch) still serve an install."""
    for attempt in range(APT_ATTEMPTS):
        code = apt(["update", "-q"])
        if code == 0:
            return
        if attempt + 1 < APT_ATTEMPTS:
            say("setup", f"apt-get update failed (exit {code}); again in "
                         f"{APT_PAUSES[attempt]}s")
            time.sleep(APT_PAUSES[attempt])
    failed = f"apt-get update failed {APT_ATTEMPTS} times (exit {code})"
    if any(APT_LISTS.glob("*_Packages*")):
        say("setup", f"warning: {failed}; going on with the package lists "
                     f"apt has")
        return
    raise BenchError(f"setup: {failed}")


def apt_install(packages: Sequence[str]) -> None:
    """apt-get install, tried again after a fresh update (a package file
    that failed its hash came from lists the mirror had moved past)."""
    for attempt in range(APT_ATTEMPTS):
        code = apt(["install", "-y", "-q", "--no-install-recommends",
                    *packages])
        if code == 0:
            return
        if attempt + 1 < APT_ATTEMPTS:
            say("setup", f"apt-get install failed (exit {code}); updating "
                         f"and trying again in {APT_PAUSES[attempt]}s")
            time.sleep(APT_PAUSES[attempt])
            apt(["update", "-q"])
    raise BenchError(f"setup: apt-get install failed {APT_ATTEMPTS} times "
                     f"(exit {code})")


def packages_for(kernels: Sequence[Kernel]) -> List[str]:
    pkgs = list(PACKAGES)
    for k in kernels:
        # A suite's source package is fetched at build time (it may not
        # be installable on this release); a tree needs nothing.
        if k.is_built and not k.suite and k.source not in pkgs:
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
            apt_update()
    if missing:
        with Step("setup", f"apt-get install {' '.join(missing)}"):
            apt_install(missing)
    say("setup", "all packages present" if not missing else
        f"installed {len(missing)} package(s)")
    # QEMU's -runas user and tshark's (guest/sandbox.py)
    sandbox.ensure_user()
