"""Debian package queries and downloads (apt-cache, apt-get download).

Packages are downloaded into <cache>/debs and unpacked with dpkg-deb -x;
nothing is ever installed into the host's /boot or /lib/modules.

Packages of another suite than the host's (bullseye's linux-source-5.10 on
a bookworm host) come through a private apt configuration under the cache
(suite_apt): the host's apt sources, lists and dpkg status are never
touched.
"""
import dataclasses
import fcntl
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .cache import Cache
from ..errors import BenchError
from ..proc import capture
from ..progress import Step, say

DEP_NAME = re.compile(r"^\s*([a-z0-9][a-z0-9+.-]*)")
# A kernel build's full version in a package name (5.10.0-32-686-pae,
# 6.12.118+deb12-amd64); not a flavour (686-pae) or a series (6.12-amd64).
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+[-+]")


@dataclasses.dataclass(frozen=True)
class Package:
    name: str
    version: str
    depends: List[str]      # first alternative of each dependency
    arch: str = ""          # its Architecture (amd64, i386, all)


def _env(env: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    """The process environment plus env (suite_apt's APT_CONFIG)."""
    return dict(os.environ, **env) if env else None


def show(name: str, who: str,
         env: Optional[Mapping[str, str]] = None,
         version: str = "") -> Package:
    """The candidate version of a package (or exactly `version`);
    BenchError names `who`. env: suite_apt()'s, to ask another suite than
    the host's."""
    spec = f"{name}={version}" if version else name
    try:
        out = subprocess.run(["apt-cache", "show", "--no-all-versions",
                              spec], capture_output=True, text=True,
                             timeout=120, check=False,
                             env=_env(env)).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BenchError(f"{who}: apt-cache failed: {exc}") from exc
    fields: Dict[str, str] = {}
    for line in out.splitlines():
        if not line.strip():
            break
        if ":" in line and not line.startswith(" "):
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    if "Version" not in fields:
        raise BenchError(f"{who}: Debian package '{spec}' not found "
                         f"(check the name; `scripts/ndisbench setup` "
                         f"refreshes the package lists)")
    depends = []
    for dep in fields.get("Depends", "").split(","):
        match = DEP_NAME.match(dep.split("|")[0])
        if match:
            depends.append(match.group(1))
    return Package(name, fields["Version"], depends,
                   fields.get("Architecture", ""))


def resolve_meta(meta: str, prefix: str, who: str,
                 env: Optional[Mapping[str, str]] = None) -> Package:
    """Follow a metapackage to the versioned package it depends on; a
    versioned package (prefix then its version: linux-image-5.10.0-32-...)
    is taken as named, for a build the metapackage no longer points at."""
    pkg = show(meta, who, env)
    if meta.startswith(prefix) and VERSION_RE.match(meta[len(prefix):]):
        return pkg
    for dep in pkg.depends:
        if dep.startswith(prefix):
            return show(dep, who, env)
    raise BenchError(f"{who}: metapackage '{meta}' has no dependency "
                     f"starting with '{prefix}'")


def closure(root: Package, pattern: re.Pattern, who: str,
            env: Optional[Mapping[str, str]] = None) -> List[Package]:
    """root plus its dependencies (recursively) whose names match."""
    seen: Dict[str, Package] = {root.name: root}
    todo = [root]
    while todo:
        for dep in todo.pop().depends:
            if dep not in seen and pattern.match(dep):
                seen[dep] = show(dep, who, env)
                todo.append(seen[dep])
    return list(seen.values())


def download(pkg: Package, debs: pathlib.Path, who: str,
             env: Optional[Mapping[str, str]] = None) -> pathlib.Path:
    """The .deb of exactly pkg.version, downloaded once into debs/.
    env: suite_apt()'s, for a package of another suite."""
    debs.mkdir(parents=True, exist_ok=True)
    stem = f"{pkg.name}_{pkg.version.replace(':', '%3a')}_"
    # One version may be there for two architectures (an i386 guest's).
    found = sorted(debs.glob(stem + (f"{pkg.arch}.deb" if pkg.arch
                                     else "*.deb")))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(dir=debs) as tmp:
        try:
            res = subprocess.run(["apt-get", "-o",
                                  f"Acquire::Retries={APT_RETRIES}",
                                  "download", "-q",
                                  f"{pkg.name}={pkg.version}"], cwd=tmp,
                                 capture_output=True, text=True,
                                 timeout=1800, check=False, env=_env(env))
        except subprocess.TimeoutExpired as exc:
            raise BenchError(f"{who}: download of {pkg.name} timed out"
                             ) from exc
        got = list(pathlib.Path(tmp).glob("*.deb"))
        if res.returncode != 0 or len(got) != 1:
            msg = (res.stderr.strip().splitlines() or ["no .deb"])[-1]
            raise BenchError(f"{who}: apt-get download {pkg.name}="
                             f"{pkg.version} failed: {msg}")
        dest = debs / got[0].name
        shutil.move(str(got[0]), dest)
        return dest


def unpack(deb: pathlib.Path, dest: pathlib.Path, who: str) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    capture(["dpkg-deb", "-x", str(deb), str(dest)], timeout=900,
            what=f"{who}: dpkg-deb -x {deb.name}")


def installed_version(name: str) -> str:
    """Version of an installed package, or '' if it is not installed."""
    try:
        res = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}",
                              name], capture_output=True, text=True,
                             timeout=60, check=False)
    except OSError:
        return ""
    words = res.stdout.split()
    if res.returncode != 0 or "installed" not in words[:3]:
        return ""
    return words[-1]


# -- packages of another Debian suite (a private apt configuration) ----------

HOST_APT = pathlib.Path("/etc/apt")
DEFAULT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# Suites without a security archive.
NO_SECURITY = ("sid", "unstable", "experimental")
# Lists older than this are refreshed (a failed refresh keeps the old ones:
# a run needs no network once its packages are downloaded).
LISTS_MAX_AGE = 7 * 24 * 3600.0


@dataclasses.dataclass(frozen=True)
class Mirror:
    """Where the host gets Debian from (its deb822 sources)."""
    archive: str            # URI of the main archive
    security: str           # URI of the security archive, "" if none
    components: Tuple[str, ...]
    signed_by: str          # keyring file


def _deb822_stanzas(text: str) -> List[Dict[str, str]]:
    stanzas = []
    for block in re.split(r"\n\s*\n", text):
        fields: Dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith("#") or ":" not in line or \
                    line[:1].isspace():
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        stanzas.append(fields)
    return stanzas


def _one_line_stanzas(text: str) -> List[Dict[str, str]]:
    """`deb [opt=value ...] URI SUITE COMPONENT...` lines as deb822
    fields."""
    stanzas = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        opts = re.match(r"^(deb(?:-src)?)\s+\[([^\]]*)\]\s+(.*)$", line)
        fields: Dict[str, str] = {}
        if opts:
            kind, rest = opts.group(1), opts.group(3)
            for opt in opts.group(2).split():
                key, _, value = opt.partition("=")
                fields[key.lower()] = value
        else:
            kind, _, rest = line.partition(" ")
        words = rest.split()
        if kind not in ("deb", "deb-src") or len(words) < 2:
            continue
        fields.update({"types": kind, "uris": words[0], "suites": words[1],
                       "components": " ".join(words[2:]) or "main"})
        stanzas.append(fields)
    return stanzas


def host_sources(apt: pathlib.Path = HOST_APT) -> List[pathlib.Path]:
    """The host's apt source files, as apt reads them: sources.list and
    sources.list.d/*.list (one-line) and sources.list.d/*.sources
    (deb822), whatever they are named (a bare mmdebstrap root has
    0000main.sources, a Debian install debian.sources)."""
    parts = apt / "sources.list.d"
    files = [apt / "sources.list"] + sorted(parts.glob("*.list")) + \
        sorted(parts.glob("*.sources"))
    return [f for f in files if f.is_file()]


def host_stanzas(files: Sequence[pathlib.Path]) -> List[Dict[str, str]]:
    """Every entry of the given apt source files as deb822 fields (keys
    in lower case), one-line and deb822 files alike."""
    stanzas: List[Dict[str, str]] = []
    for path in files:
        try:
            text = path.read_text()
        except OSError as exc:
            raise BenchError(f"{path}: cannot read the host's apt sources "
                             f"({exc.strerror})") from exc
        stanzas += _deb822_stanzas(text) if path.suffix == ".sources" \
            else _one_line_stanzas(text)
    return stanzas


def host_mirror(sources: Optional[pathlib.Path] = None,
                apt: pathlib.Path = HOST_APT) -> Mirror:
    """The archive and security URIs of the host's `deb` entries (one
    file, or every source file under apt): the entry whose suites all end
    in -security is the security archive. Read, never hard-coded, so a
    local mirror or proxy is used as is."""
    files = [sources] if sources is not None else host_sources(apt)
    stanzas = host_stanzas(files)
    archive = security = ""
    components: Tuple[str, ...] = ("main",)
    signed_by = DEFAULT_KEYRING
    for fields in stanzas:
        uris = fields.get("uris", "").split()
        suites = fields.get("suites", "").split()
        if "deb" not in fields.get("types", "").split() or not uris or \
                not suites or fields.get("enabled", "yes") == "no":
            continue
        if all(s.endswith("-security") for s in suites):
            security = security or uris[0]
            continue
        if not archive:
            archive = uris[0]
            components = tuple(fields.get("components", "main").split())
            keyring = fields.get("signed-by", "")
            # A path, not an inline key block.
            if keyring.startswith("/") and " " not in keyring:
                signed_by = keyring
    if not archive:
        where = ", ".join(str(f) for f in files) or \
            f"{apt}/sources.list(.d)"
        raise BenchError(f"{where}: no Debian `deb` entry with URIs and "
                         f"Suites")
    return Mirror(archive, security, components, signed_by)


BACKPORTS = "-backports"


def base_suite(suite: str) -> str:
    """The suite a backports suite builds on (trixie-backports: trixie)."""
    return suite[:-len(BACKPORTS)] if suite.endswith(BACKPORTS) else suite


def suite_sources(mirror: Mirror, suite: str) -> str:
    """One-line sources for suite (and its security archive, if any). A
    backports suite comes with its base suite and that one's security
    archive: its packages depend on them (gcc, libc)."""
    comps = " ".join(mirror.components)
    opts = f"[signed-by={mirror.signed_by}]"
    base = base_suite(suite)
    lines = [f"deb {opts} {mirror.archive} {suite} {comps}"]
    if base != suite:
        lines.append(f"deb {opts} {mirror.archive} {base} {comps}")
    if mirror.security and base not in NO_SECURITY:
        lines.append(f"deb {opts} {mirror.security} {base}-security "
                     f"{comps}")
    return "\n".join(lines) + "\n"


def suite_preferences(suite: str) -> str:
    """apt preferences of a private configuration: a backports suite is
    pinned level with its base (500, not NotAutomatic's 100), so the
    metapackages (linux-image-amd64) resolve to the backported kernel,
    the higher version. "" for any other suite."""
    if base_suite(suite) == suite:
        return ""
    return (f"Package: *\nPin: release n={suite}\nPin-Priority: 500\n")


APT_ARCHES = ("amd64", "i386")


def suite_apt_config(root: pathlib.Path, sources_list: pathlib.Path,
                     arch: str = "amd64") -> str:
    """apt.conf of a private configuration under root: its own sources,
    lists, (empty) dpkg status and cache; no host sources.list.d or pins;
    one architecture (amd64, or i386 for 32-bit guests); no Valid-Until
    check (an old suite's Release file, or a snapshot mirror's, may be
    past it)."""
    if arch not in APT_ARCHES:
        raise BenchError(f"apt architecture {arch!r}: not one of "
                         f"{', '.join(APT_ARCHES)}")

    def q(path: pathlib.Path) -> str:
        return f'"{path}"'
    return "\n".join([
        f"Dir::Etc::sourcelist {q(sources_list)};",
        f"Dir::Etc::sourceparts {q(root / 'sources.list.d')};",
        f"Dir::Etc::preferences {q(root / 'preferences')};",
        f"Dir::Etc::preferencesparts {q(root / 'preferences.d')};",
        f"Dir::State::Lists {q(root / 'lists')};",
        f"Dir::State::status {q(root / 'status')};",
        f"Dir::Cache {q(root / 'cache')};",
        f'APT::Architecture "{arch}";',
        f'APT::Architectures {{ "{arch}"; }};',
        'Acquire::Check-Valid-Until "false";',
        'Acquire::Languages "none";',
        f'Acquire::Retries "{APT_RETRIES}";',
    ]) + "\n"


HOST_ARCH = "amd64"
# apt's own retries of a download that failed (a mirror mid-sync)
APT_RETRIES = 3
OS_RELEASE = pathlib.Path("/etc/os-release")


def host_suite(os_release: pathlib.Path = OS_RELEASE) -> str:
    """The host's Debian suite (VERSION_CODENAME), for a kernel of the
    host's suite and another architecture."""
    try:
        text = os_release.read_text()
    except OSError as exc:
        raise BenchError(f"{os_release}: cannot read the host's Debian "
                         f"suite: {exc.strerror}") from None
    m = re.search(r'^VERSION_CODENAME="?([a-z][a-z0-9-]*)"?$', text, re.M)
    if not m:
        raise BenchError(f"{os_release}: no VERSION_CODENAME (the host's "
                         f"Debian suite)")
    return m.group(1)


def suite_apt(cache: Cache, suite: str,
              sources: Optional[pathlib.Path] = None,
              arch: str = HOST_ARCH) -> Dict[str, str]:
    """The environment (APT_CONFIG) under which apt-cache and apt-get
    download see one Debian suite of the host's mirror, e.g. bullseye on
    a bookworm host, for one architecture (i386: a 32-bit guest's
    packages). Lives in <cache>/apt/<suite>/ (<suite>-i386/); `apt-get
    update` runs when its lists are missing or older than LISTS_MAX_AGE.
    Usable as show(..., env=) and download(..., env=)."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", suite):
        raise BenchError(f"Debian suite {suite!r}: not a suite name")
    suite_apt_config(cache.root, cache.root, arch)   # arch validated
    label = suite if arch == HOST_ARCH else f"{suite}-{arch}"
    root = cache.root / "apt" / label
    conf = root / "apt.conf"
    env = {"APT_CONFIG": str(conf)}
    listing = suite_sources(host_mirror(sources), suite)
    root.mkdir(parents=True, exist_ok=True)
    with open(cache.root / "apt" / f"{label}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for sub in ("lists/partial", "cache/archives/partial",
                    "sources.list.d", "preferences.d"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "status").touch()
        sources_list = root / "sources.list"
        changed = not sources_list.is_file() or \
            sources_list.read_text() != listing
        if changed:
            sources_list.write_text(listing)
        prefs = root / "preferences"
        if not prefs.is_file() or prefs.read_text() != \
                suite_preferences(suite):
            prefs.write_text(suite_preferences(suite))
        conf.write_text(suite_apt_config(root, sources_list, arch))
        stamp = root / "updated"
        # apt may keep the lists compressed (_Packages.lz4).
        have = any((root / "lists").glob("*_Packages*"))
        age = time.time() - stamp.stat().st_mtime if stamp.exists() \
            else float("inf")
        if changed or not have or age > LISTS_MAX_AGE:
            try:
                with Step("build", f"apt-get update ({label}, private "
                                   f"lists in {root})"):
                    capture(["apt-get", "update", "-q"], timeout=900,
                            what=f"apt-get update for {label}", env=env)
                stamp.touch()
            except BenchError as exc:
                # apt keeps the indexes it could fetch when one fails (a
                # mirror serving an index out of step with its Release).
                if have and not changed and stamp.exists():
                    kept = f"the {label} lists of {fmt_age(age)} ago"
                elif any((root / "lists").glob("*_Packages*")):
                    kept = f"the indexes it fetched ({label})"
                else:
                    raise
                say("build", f"warning: {exc}; going on with {kept}")
    return env


def fmt_age(secs: float) -> str:
    return f"{secs / 86400:.1f} days" if secs >= 86400 else \
        f"{secs / 3600:.1f} hours"
