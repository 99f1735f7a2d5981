"""The guest initramfs: busybox-static, the agent as /init, the test modules
and the in-tree modules they depend on, as an uncompressed newc cpio (no
decompression under TCG). Deterministic: same inputs, same bytes, same key.
"""
import hashlib
import os
import pathlib
import re
import stat
import subprocess
import tempfile
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .. import paths
from .cache import Cache
from ..errors import BenchError
from ..proc import capture

BUSYBOX = pathlib.Path("/bin/busybox")
UDHCPC_SCRIPT = paths.REPO / "guest" / "image" / "udhcpc.script"
DIRS = ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys",
        "tmp", "etc", "root", "lib", "lib/ndisbench", "lib/ndisbench/deps",
        "lib/ndisbench/modules")
# Where the fixture drivers a cell needs go (fixtures/<folder>/<name>.sys
# and .inf), as the agent's ndisbench.install= and .broken= name them.
FIXTURE_DIR = "lib/ndisbench/fixtures"


def fixture_file(folder: str, name: str, suffix: str) -> str:
    """The guest's path of a fixture driver's file, without the leading
    slash (the initramfs member name)."""
    return f"{FIXTURE_DIR}/{folder}/{name}{suffix}"


class Cpio:
    """A newc ("070701") archive writer."""

    def __init__(self) -> None:
        self.parts: List[bytes] = []
        self.ino = 1

    @staticmethod
    def _pad(n: int) -> bytes:
        return b"\0" * ((4 - n % 4) % 4)

    def add(self, name: str, mode: int, data: bytes = b"",
            rdev: Tuple[int, int] = (0, 0)) -> None:
        encoded = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0],
                  rdev[1], len(encoded), 0]
        header = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.parts += [header, encoded, self._pad(len(header) +
                                                  len(encoded)),
                       data, self._pad(len(data))]
        self.ino += 1

    def finish(self) -> bytes:
        self.add("TRAILER!!!", 0)
        return b"".join(self.parts)


def busybox_applets() -> List[str]:
    if not BUSYBOX.exists():
        raise BenchError(f"{BUSYBOX} missing: install busybox-static "
                         f"(scripts/ndisbench setup)")
    out = capture([str(BUSYBOX), "--list-full"], what="busybox --list-full")
    return sorted(line.strip() for line in out.splitlines() if line.strip())


# Debian's wireless and network tools, copied from the host with the shared
# libraries they link (installed by `ndisbench setup`).
HOST_PROGRAMS = ("/usr/sbin/iw", "/usr/sbin/ip", "/usr/sbin/ethtool",
                 "/usr/sbin/iwconfig")
LDD_LINE_RE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def shared_libraries(program: pathlib.Path) -> List[pathlib.Path]:
    """The shared objects `ldd` resolves for a host program, loader
    included, by the paths the program looks them up at."""
    res = subprocess.run(["ldd", str(program)], capture_output=True,
                         text=True, timeout=60, check=False,
                         stdin=subprocess.DEVNULL)
    if "not a dynamic executable" in res.stdout + res.stderr:
        return []
    if res.returncode != 0:
        raise BenchError(f"ldd {program}: {res.stderr.strip()}")
    out = res.stdout
    libs = []
    for line in out.splitlines():
        match = LDD_LINE_RE.search(line)
        if match:
            libs.append(pathlib.Path(match.group(1)))
    return libs


def library_files(programs: Iterable[pathlib.Path]
                  ) -> Dict[str, Tuple[bytes, int]]:
    """Guest path -> (bytes, mode) of the shared libraries the programs
    need (none for static ones)."""
    files: Dict[str, Tuple[bytes, int]] = {}
    for program in programs:
        for lib in shared_libraries(program):
            # Copy the file a symlink names, under the name looked up.
            files[str(lib).lstrip("/")] = (lib.resolve().read_bytes(), 0o755)
    return files


def host_program_files(programs: Sequence[str] = HOST_PROGRAMS
                       ) -> Dict[str, Tuple[bytes, int]]:
    """Guest path -> (bytes, mode) of host programs and their libraries."""
    files: Dict[str, Tuple[bytes, int]] = {}
    for name in programs:
        program = pathlib.Path(name)
        if not program.exists():
            raise BenchError(f"{program} missing: install its Debian "
                             f"package (scripts/ndisbench setup)")
        files[name.lstrip("/")] = (program.read_bytes(), 0o755)
    files.update(library_files(pathlib.Path(n) for n in programs))
    return files


def build(agent: pathlib.Path, modules: Dict[str, bytes],
          deps: List[Tuple[str, bytes]], cache: Cache,
          extra: Optional[Dict[str, Tuple[bytes, int]]] = None
          ) -> pathlib.Path:
    """modules: test module name -> .ko bytes; deps: (file name, bytes) of
    in-tree modules in load order; extra: guest path -> (bytes, mode) of
    further files (tools, fixture drivers), their folders created. Returns
    the cached cpio."""
    archive = Cpio()
    for d in DIRS:
        archive.add(d, stat.S_IFDIR | 0o755)
    # The kernel opens /dev/console for init before anything is mounted.
    archive.add("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    archive.add("init", stat.S_IFREG | 0o755, agent.read_bytes())
    archive.add("bin/busybox", stat.S_IFREG | 0o755, BUSYBOX.read_bytes())
    archive.add("etc/udhcpc.script", stat.S_IFREG | 0o755,
                UDHCPC_SCRIPT.read_bytes())
    for applet in busybox_applets():
        if applet in ("bin/busybox", "init", "sbin/init", "linuxrc"):
            continue
        archive.add(applet, stat.S_IFLNK | 0o777, b"/bin/busybox")
    deplist = []
    for filename, data in deps:
        path = f"lib/ndisbench/deps/{filename}"
        archive.add(path, stat.S_IFREG | 0o644, data)
        deplist.append("/" + path)
    archive.add("lib/ndisbench/deps.list", stat.S_IFREG | 0o644,
                "".join(p + "\n" for p in deplist).encode())
    for name in sorted(modules):
        archive.add(f"lib/ndisbench/modules/{name}.ko",
                    stat.S_IFREG | 0o644, modules[name])
    made = set(DIRS)
    for path in sorted(extra or {}):
        parts = path.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if folder not in made:
                archive.add(folder, stat.S_IFDIR | 0o755)
                made.add(folder)
        data, mode = (extra or {})[path]
        archive.add(path, stat.S_IFREG | mode, data)
    blob = archive.finish()
    key = hashlib.sha256(blob).hexdigest()[:24]
    dest = cache.root / "initramfs" / f"{key}.cpio"
    if not dest.exists():
        # Cells run in parallel and may build the same archive: each writes
        # its own temporary file; the identical results replace each other.
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=dest.parent, suffix=".tmp",
                                         delete=False) as tmp:
            tmp.write(blob)
        os.replace(tmp.name, dest)
    return dest
