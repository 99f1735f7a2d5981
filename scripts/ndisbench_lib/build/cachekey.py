"""`ndisbench cache-key`: one key for a CI cache of the build cache.

The cache itself is content-addressed (every entry's key is a digest of
its inputs), so a CI cache restored under an older key is never wrong,
only incomplete. This key changes when an input of an entry does: the
repository's build inputs (the kernel matrix, configs, patches, agent,
test modules, wrapper, fixtures, device models, the build recipes, the
expectation table that names the modules) and the compilers' versions.
CI saves under it and restores with its prefix as the fallback."""
import hashlib
import pathlib
from typing import Iterable, List

from .. import paths
from .cache import RECIPE_VERSION, compiler_id, file_digest

PREFIX = "ndisbench-"
# What the cache's entries are built from, relative to the repository.
INPUTS = ("guest", "wrapper", "fixtures", "qemu-devices", "meson.build",
          "scripts/ndisbench_lib/build", "tests/e2e/expectations.toml")
COMPILERS = ("gcc", "x86_64-w64-mingw32-gcc")


def input_files(root: pathlib.Path = paths.REPO,
                inputs: Iterable[str] = INPUTS) -> List[pathlib.Path]:
    """Every regular file of the inputs, sorted; bytecode left out."""
    out: List[pathlib.Path] = []
    for name in inputs:
        top = root / name
        found = [top] if top.is_file() else sorted(
            p for p in top.rglob("*") if p.is_file())
        out += [p for p in found if "__pycache__" not in p.parts
                and p.suffix != ".pyc"]
    return sorted(out)


def cache_key(root: pathlib.Path = paths.REPO) -> str:
    h = hashlib.sha256(f"recipe {RECIPE_VERSION}\n".encode())
    for path in input_files(root):
        rel = path.relative_to(root).as_posix()
        h.update(f"{rel}\0{file_digest(path)}\n".encode())
    for cc in COMPILERS:
        h.update(f"{cc}: {compiler_id(cc)}\n".encode())
    return PREFIX + h.hexdigest()[:24]
