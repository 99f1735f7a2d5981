"""A kernel of the user's own: a kernel build folder they already have
(`source = "tree"` in kernels.toml, or `run --kernel-tree DIR`), checked
by trees.py; here, its cache entry (kbuild.tree_artifact() makes it).

For the in-tree modules the guests load the tree needs modules.order
with the .ko files it lists. Nothing is copied but the bzImage, the
.config and Module.symvers: the cache entry's modules/ folder holds
symlinks into the tree (a distribution config's modules are gigabytes),
with a modules.dep made by depmod. The entry is keyed by the contents of
the bzImage, the .config and Module.symvers (and the folder, which its
links point into), so a rebuilt kernel is a new entry and an unchanged one
is found again.
"""
import pathlib
import shutil
from typing import List

from ..errors import BenchError
from ..proc import capture
from ..trees import release_problem


# Linux's limits on a path and on one name in it: a modules.order entry
# past them names no file the tree could have built.
MAX_MODULE_PATH = 4095
MAX_NAME = 255


def _module_paths(tree: pathlib.Path, where: str = "") -> List[str]:
    """The .ko files the tree built, relative to it (modules.order lists
    them; 5.10 writes kernel/<path>, 6.1 <path>). An absolute entry or
    one with `..` is an error: root makes a link at each."""
    order = tree / "modules.order"
    if not order.is_file():
        return []
    try:
        text = order.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BenchError(f"{where}: modules.order is not UTF-8 text "
                         f"(byte {exc.start})") from None
    rels = []
    for line in text.splitlines():
        rel = line.strip()
        if rel.startswith("kernel/"):
            rel = rel[len("kernel/"):]
        if rel.endswith(".o"):      # 6.x lists the objects
            rel = rel[:-2] + ".ko"
        if not rel:
            continue
        parts = pathlib.PurePosixPath(rel).parts
        if "\0" in rel or len(rel.encode()) > MAX_MODULE_PATH or any(
                len(p.encode()) > MAX_NAME for p in parts):
            raise BenchError(f"{where}: modules.order names "
                             f"{rel[:80]!r}..., not a module's path (a NUL "
                             f"byte or past the file system's lengths)")
        if rel.startswith("/") or ".." in parts:
            raise BenchError(f"{where}: modules.order names {line.strip()}, "
                             f"not a path inside the tree")
        rels.append(rel)
    return list(dict.fromkeys(rels))      # an entry twice is one link


def link_modules(tree: pathlib.Path, release: str,
                 dest: pathlib.Path, where: str) -> int:
    """dest/lib/modules/<release>/kernel/<path>.ko -> the tree's .ko files,
    plus modules.order, modules.builtin(.modinfo) and depmod's files."""
    if release_problem(release):
        raise BenchError(f"{where}: {release_problem(release)}")
    try:
        return _link_modules(tree, release, dest, where)
    except OSError as exc:
        # e.g. an entry within NAME_MAX and PATH_MAX alone, past PATH_MAX
        # below the tree's own path
        raise BenchError(f"{where}: {exc.strerror}: "
                         f"{str(exc.filename)[:80]}...") from None


def _link_modules(tree: pathlib.Path, release: str,
                  dest: pathlib.Path, where: str) -> int:
    moddir = dest / "lib" / "modules" / release
    rels = _module_paths(tree, where)
    top = tree.resolve()
    for rel in rels:
        # a .ko may be a link of the tree's own, never one out of it (its
        # bytes go into the guest's image)
        if top not in (tree / rel).resolve().parents:
            raise BenchError(f"{where}: {rel} leads out of the tree (to "
                             f"{(tree / rel).resolve()})")
    moddir.mkdir(parents=True)
    missing = [r for r in rels if not (tree / r).is_file()]
    if missing:
        raise BenchError(f"{where}: {len(missing)} module(s) of "
                         f"modules.order not built, e.g. {missing[0]} (run "
                         f"`make modules` there)")
    inside = moddir.resolve()
    for rel in rels:
        link = moddir / "kernel" / rel
        try:
            link.parent.mkdir(parents=True, exist_ok=True)
            if inside not in link.parent.resolve().parents and \
                    link.parent.resolve() != inside:
                raise BenchError(f"{where}: kernel/{rel} would lie outside "
                                 f"the cache entry")
            link.symlink_to((tree / rel).resolve())
        except OSError as exc:
            # e.g. "a/b.ko" and "a" both listed: one is a file and a folder
            raise BenchError(f"{where}: cannot link kernel/{rel}: "
                             f"{exc.strerror}") from None
    (moddir / "modules.order").write_text(
        "".join(f"kernel/{r}\n" for r in rels))
    for name in ("modules.builtin", "modules.builtin.modinfo"):
        if (tree / name).is_file():
            shutil.copy2(tree / name, moddir / name)
    capture(["depmod", "-b", str(dest), release], timeout=600,
            what=f"{where}: depmod")
    return len(rels)
