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


def _module_paths(tree: pathlib.Path, where: str = "") -> List[str]:
    """The .ko files the tree built, relative to it (modules.order lists
    them; 5.10 writes kernel/<path>, 6.1 <path>). An absolute entry or
    one with `..` is an error: root makes a link at each."""
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
        if not rel:
            continue
        parts = pathlib.PurePosixPath(rel).parts
        if rel.startswith("/") or ".." in parts:
            raise BenchError(f"{where}: modules.order names {line.strip()}, "
                             f"not a path inside the tree")
        rels.append(rel)
    return rels


def link_modules(tree: pathlib.Path, release: str,
                 dest: pathlib.Path, where: str) -> int:
    """dest/lib/modules/<release>/kernel/<path>.ko -> the tree's .ko files,
    plus modules.order, modules.builtin(.modinfo) and depmod's files."""
    if release_problem(release):
        raise BenchError(f"{where}: {release_problem(release)}")
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
        link.parent.mkdir(parents=True, exist_ok=True)
        if inside not in link.parent.resolve().parents and \
                link.parent.resolve() != inside:
            raise BenchError(f"{where}: kernel/{rel} would lie outside "
                             f"the cache entry")
        link.symlink_to((tree / rel).resolve())
    (moddir / "modules.order").write_text(
        "".join(f"kernel/{r}\n" for r in rels))
    for name in ("modules.builtin", "modules.builtin.modinfo"):
        if (tree / name).is_file():
            shutil.copy2(tree / name, moddir / name)
    capture(["depmod", "-b", str(dest), release], timeout=600,
            what=f"{where}: depmod")
    return len(rels)
