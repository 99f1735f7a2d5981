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


def _module_paths(tree: pathlib.Path) -> List[str]:
    """The .ko files the tree built, relative to it (modules.order lists
    them; 5.10 writes kernel/<path>, 6.1 <path>)."""
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
        if rel:
            rels.append(rel)
    return rels


def link_modules(tree: pathlib.Path, release: str,
                 dest: pathlib.Path, where: str) -> int:
    """dest/lib/modules/<release>/kernel/<path>.ko -> the tree's .ko files,
    plus modules.order, modules.builtin(.modinfo) and depmod's files."""
    moddir = dest / "lib" / "modules" / release
    moddir.mkdir(parents=True)
    rels = _module_paths(tree)
    missing = [r for r in rels if not (tree / r).is_file()]
    if missing:
        raise BenchError(f"{where}: {len(missing)} module(s) of "
                         f"modules.order not built, e.g. {missing[0]} (run "
                         f"`make modules` there)")
    for rel in rels:
        link = moddir / "kernel" / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to((tree / rel).resolve())
    (moddir / "modules.order").write_text(
        "".join(f"kernel/{r}\n" for r in rels))
    for name in ("modules.builtin", "modules.builtin.modinfo"):
        if (tree / name).is_file():
            shutil.copy2(tree / name, moddir / name)
    capture(["depmod", "-b", str(dest), release], timeout=600,
            what=f"{where}: depmod")
    return len(rels)
