"""The guest initramfs: busybox-static, the agent as /init, the test modules
and the in-tree modules they depend on, as an uncompressed newc cpio (no
decompression under TCG). Deterministic: same inputs, same bytes, same key.
"""
import functools
import hashlib
import os
import pathlib
import re
import stat
import subprocess
import tempfile
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, \
    Tuple

from .. import paths
from . import confine
from .cache import Cache, ensure_free, mark_used
from ..errors import BenchError
from ..proc import capture

BUSYBOX = pathlib.Path("/bin/busybox")
UDHCPC_SCRIPT = paths.REPO / "guest" / "image" / "udhcpc.script"
# etc/ndiswrapper: the wrappers' configuration folder (`ndiswrapper -i`
# writes it, /sbin/loadndisdriver reads it when the module asks).
DIRS = ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys",
        "tmp", "etc", "etc/ndiswrapper", "root", "lib", "lib/ndisbench",
        "lib/ndisbench/deps", "lib/ndisbench/modules")
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
                 "/usr/sbin/iwconfig", "/usr/sbin/iwlist")
# Debian's wpasupplicant (the supplicant and its control tool), only in
# the initramfs of a cell that joins a WPA2 network.
WPA_PROGRAMS = ("/usr/sbin/wpa_supplicant", "/usr/sbin/wpa_cli")
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


# -- what a wrapper tree's tools run on (scripts and their interpreters) ------
#
# A classic ndiswrapper tree's installer (utils/ndiswrapper) is a Perl
# script. A tool that starts with #! gets its interpreter: /bin/sh and the
# other busybox applets are in every image; perl is the host's /usr/bin/perl
# with its shared libraries and exactly the module files the script loads
# (perl itself tells which: the script is compiled on the host with a probe
# module whose CHECK block runs after the whole script compiled), each of
# them a file of a Debian package (perl-base, perl-modules-5.36,
# libperl5.36: `setup` installs `perl`). Nothing of perl goes into an image
# whose tools do not ask for it.

PERL = pathlib.Path("/usr/bin/perl")
PERL_NAME_RE = re.compile(r"^perl[\d.]*$")
# Loaded only when something dies with croak/confess (File::Path,
# Exporter): never in %INC after a clean compile.
PERL_LAZY = ("Carp",)
# `require Some::Module;` in a sub: loaded when the sub runs, so the probe
# loads it too.
PERL_REQUIRE_RE = re.compile(r"^\s*require\s+([A-Za-z_]\w*(?:::\w+)*)\s*;",
                             re.M)
PERL_PROBE_MODULE = "NdisbenchPerlProbe"
PERL_PROBE = f"""package {PERL_PROBE_MODULE};
# Loaded first (-M), so its CHECK block runs last: after the whole script
# compiled, with every module its `use` lines loaded.
CHECK {{
    for my $m (sort keys %INC) {{
        next if $m eq "{PERL_PROBE_MODULE}.pm";
        print "inc\t$m\t$INC{{$m}}\n";
    }}
    print "so\t$_\n" for @DynaLoader::dl_shared_objects;
}}
1;
"""
PERL_MISSING_RE = re.compile(r"^(Can't locate (\S+) in @INC)(?: \(you may need "
                             r"to install the (\S+) module\))?.*?"
                             r"( at .* line \d+\.)?$")


def script_interpreter(tool: pathlib.Path) -> Optional[Tuple[str, str]]:
    """(interpreter path, first argument or "") of a #! script; None for a
    compiled tool. `#!/usr/bin/env perl` names perl itself."""
    with open(tool, "rb") as f:
        head = f.read(256)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        raise BenchError(f"{tool}: an empty #! line")
    interp, arg = words[0], (words[1] if len(words) > 1 else "")
    if pathlib.PurePosixPath(interp).name == "env" and arg:
        return (arg if arg.startswith("/") else f"/usr/bin/{arg}"), ""
    return interp, arg


def _perl_module_line(tool: pathlib.Path, stderr: str) -> str:
    """perl -c's complaint as one line: a missing module named, @INC cut."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for line in lines:
        match = PERL_MISSING_RE.match(line)
        if match:
            module = match.group(3) or match.group(2)
            return (f"{tool}: uses the Perl module {module}, which the "
                    f"host's perl does not have ({match.group(1)}"
                    f"{match.group(4) or ''}); the guest's perl takes its "
                    f"modules from the host's Debian packages")
    first = lines[0] if lines else "no output"
    return f"{tool}: perl -c failed: {first}"


@functools.lru_cache(maxsize=32)
def _perl_closure(tool: str, digest: str) -> Tuple[Tuple[str, ...],
                                                   Tuple[str, ...]]:
    """(module files, XS objects) perl loads for the script at `tool`
    (digest: its contents, so an edited script is probed again)."""
    del digest
    tool = str(pathlib.Path(tool).resolve())
    text = pathlib.Path(tool).read_text(errors="replace")
    lazy = list(PERL_LAZY) + PERL_REQUIRE_RE.findall(text)
    with tempfile.TemporaryDirectory(prefix="ndisbench-perl-") as tmp:
        (pathlib.Path(tmp) / f"{PERL_PROBE_MODULE}.pm").write_text(
            PERL_PROBE)
        os.chmod(tmp, 0o755)
        argv = [str(PERL), f"-I{tmp}", f"-M{PERL_PROBE_MODULE}"] + \
            [f"-m{m}" for m in dict.fromkeys(lazy)] + ["-c", tool]
        try:
            # perl -c runs the script's BEGIN blocks: a tree's code, run
            # confined as the build user (build/confine.py). No PERL5LIB,
            # PERL5OPT or local::lib of the caller's: the closure is the
            # one the guest's identical perl sees.
            res = subprocess.run(
                confine.command(argv, ro=[pathlib.Path(tmp),
                                          pathlib.Path(tool)],
                                chdir=pathlib.Path(tmp), env={"LC_ALL": "C"}),
                capture_output=True, text=True, timeout=60, check=False,
                stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            raise BenchError(f"{tool}: perl -c: {exc}") from None
    if res.returncode != 0:
        raise BenchError(_perl_module_line(pathlib.Path(tool), res.stderr))
    modules, objects = [], []
    for line in res.stdout.splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "inc":
            modules.append(rest.split("\t", 1)[1])
        elif kind == "so":
            objects.append(rest)
    return tuple(modules), tuple(objects)


def debian_owners(files: Sequence[str]) -> Dict[str, str]:
    """file -> the Debian package that ships it (dpkg-query -S, on the
    file's real path); a file no package ships is an error."""
    real = {f: str(pathlib.Path(f).resolve()) for f in files}
    res = subprocess.run(["dpkg-query", "-S", *sorted(set(real.values()))],
                         capture_output=True, text=True, timeout=120,
                         check=False, stdin=subprocess.DEVNULL)
    owner: Dict[str, str] = {}
    for line in res.stdout.splitlines():
        if line.startswith("diversion ") or ": " not in line:
            continue
        pkgs, path = line.split(": ", 1)
        owner[path.strip()] = pkgs.split(",")[0].strip().split(":")[0]
    stray = [f for f in files if real[f] not in owner]
    if stray:
        raise BenchError(f"{stray[0]} belongs to no Debian package: the "
                         f"guest's perl takes its modules from Debian's "
                         f"perl packages only (scripts/ndisbench setup)")
    return {f: owner[real[f]] for f in files}


def perl_files(tool: pathlib.Path, interp: str
               ) -> Dict[str, Tuple[bytes, int]]:
    """Guest path -> (bytes, mode): the host's perl at the path the
    script's #! names, its libraries, and the modules the script loads at
    the paths perl looks them up at."""
    if not PERL.exists():
        raise BenchError(f"{tool} is a Perl script and {PERL} is missing: "
                         f"install perl (scripts/ndisbench setup)")
    digest = hashlib.sha256(tool.read_bytes()).hexdigest()
    modules, objects = _perl_closure(str(tool), digest)
    debian_owners([str(PERL), *modules, *objects])
    files = {interp.lstrip("/"): (PERL.read_bytes(), 0o755),
             str(PERL).lstrip("/"): (PERL.read_bytes(), 0o755)}
    for path in modules:
        files[path.lstrip("/")] = (pathlib.Path(path).read_bytes(), 0o644)
    for path in objects:
        files[path.lstrip("/")] = (pathlib.Path(path).read_bytes(), 0o755)
    files.update(library_files([PERL, *map(pathlib.Path, objects)]))
    return files


def _applets() -> FrozenSet[str]:
    return frozenset(busybox_applets()) | {"bin/busybox"}


def tool_files(tools: Iterable[pathlib.Path]
               ) -> Dict[str, Tuple[bytes, int]]:
    """Guest path -> (bytes, mode) of what the tools need to run: the
    shared libraries of compiled ones, the interpreter of scripts (a
    busybox applet: nothing to add; perl: perl_files). An interpreter the
    guest cannot have is an error naming the tool."""
    files: Dict[str, Tuple[bytes, int]] = {}
    compiled = []
    applets: Optional[FrozenSet[str]] = None
    for tool in tools:
        script = script_interpreter(tool)
        if script is None:
            compiled.append(tool)
            continue
        interp = script[0]
        if PERL_NAME_RE.match(pathlib.PurePosixPath(interp).name):
            files.update(perl_files(tool, interp))
            continue
        if applets is None:
            applets = _applets()
        if interp.lstrip("/") not in applets:
            raise BenchError(f"{tool}: its interpreter {interp} is not in "
                             f"the guest image (busybox's applets and "
                             f"perl are)")
    files.update(library_files(compiled))
    return files


def build(agent: pathlib.Path, modules: Dict[str, bytes],
          deps: List[Tuple[str, bytes]], cache: Cache,
          extra: Optional[Dict[str, Tuple[bytes, int]]] = None,
          busybox: pathlib.Path = BUSYBOX) -> pathlib.Path:
    """modules: test module name -> .ko bytes; deps: (file name, bytes) of
    in-tree modules in load order; extra: guest path -> (bytes, mode) of
    further files (tools, fixture drivers), their folders created;
    busybox: the guest architecture's (its applets are the host's
    busybox's list: the same Debian version). Returns the cached cpio."""
    archive = Cpio()
    for d in DIRS:
        archive.add(d, stat.S_IFDIR | 0o755)
    # The kernel opens /dev/console for init before anything is mounted.
    archive.add("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    archive.add("init", stat.S_IFREG | 0o755, agent.read_bytes())
    archive.add("bin/busybox", stat.S_IFREG | 0o755, busybox.read_bytes())
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
        ensure_free(dest.parent)
        with tempfile.NamedTemporaryFile(dir=dest.parent, suffix=".tmp",
                                         delete=False) as tmp:
            tmp.write(blob)
        os.replace(tmp.name, dest)
    mark_used(dest)
    return dest
