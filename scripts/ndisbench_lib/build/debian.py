"""Debian package queries and downloads (apt-cache, apt-get download).

Packages are downloaded into <cache>/debs and unpacked with dpkg-deb -x;
nothing is ever installed into the host's /boot or /lib/modules.
"""
import dataclasses
import pathlib
import re
import shutil
import subprocess
import tempfile
from typing import Dict, List

from ..errors import BenchError
from ..proc import capture

DEP_NAME = re.compile(r"^\s*([a-z0-9][a-z0-9+.-]*)")


@dataclasses.dataclass(frozen=True)
class Package:
    name: str
    version: str
    depends: List[str]      # first alternative of each dependency


def show(name: str, who: str) -> Package:
    """The candidate version of a package; BenchError names `who`."""
    try:
        out = subprocess.run(["apt-cache", "show", "--no-all-versions",
                              name], capture_output=True, text=True,
                             timeout=120, check=False).stdout
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
        raise BenchError(f"{who}: Debian package '{name}' not found "
                         f"(check the name; `scripts/ndisbench setup` "
                         f"refreshes the package lists)")
    depends = []
    for dep in fields.get("Depends", "").split(","):
        match = DEP_NAME.match(dep.split("|")[0])
        if match:
            depends.append(match.group(1))
    return Package(name, fields["Version"], depends)


def resolve_meta(meta: str, prefix: str, who: str) -> Package:
    """Follow a metapackage to the versioned package it depends on."""
    pkg = show(meta, who)
    for dep in pkg.depends:
        if dep.startswith(prefix):
            return show(dep, who)
    raise BenchError(f"{who}: metapackage '{meta}' has no dependency "
                     f"starting with '{prefix}'")


def closure(root: Package, pattern: re.Pattern, who: str) -> List[Package]:
    """root plus its dependencies (recursively) whose names match."""
    seen: Dict[str, Package] = {root.name: root}
    todo = [root]
    while todo:
        for dep in todo.pop().depends:
            if dep not in seen and pattern.match(dep):
                seen[dep] = show(dep, who)
                todo.append(seen[dep])
    return list(seen.values())


def download(pkg: Package, debs: pathlib.Path, who: str) -> pathlib.Path:
    """The .deb of exactly pkg.version, downloaded once into debs/."""
    debs.mkdir(parents=True, exist_ok=True)
    stem = f"{pkg.name}_{pkg.version.replace(':', '%3a')}_"
    found = sorted(debs.glob(stem + "*.deb"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(dir=debs) as tmp:
        try:
            res = subprocess.run(["apt-get", "download", "-q",
                                  f"{pkg.name}={pkg.version}"], cwd=tmp,
                                 capture_output=True, text=True,
                                 timeout=1800, check=False)
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
