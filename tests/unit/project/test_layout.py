"""scripts/ndisbench_lib is grouped by stage and has no import cycle: not
between modules, and not between the stage packages (build, guest,
checks, report, cell, commands; the top-level modules count one by one)."""
import ast
import pathlib
import unittest
from typing import Dict, List, Set

from helpers import REPO

LIB = REPO / "scripts" / "ndisbench_lib"
STAGES = ("build", "guest", "checks", "report", "cell", "commands")


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(LIB.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> Dict[str, Set[str]]:
    """module -> the package modules it imports (also inside functions)."""
    modules = {module_name(p): p for p in LIB.rglob("*.py")}
    graph: Dict[str, Set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else \
            name.rsplit(".", 1)[0]
        deps: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[:len(package.split(".")) -
                                         node.level + 1]
                target = ".".join(base + ([node.module] if node.module
                                          else []))
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    deps.add(full if full in modules else target)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def stage_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else module


class LayoutTest(unittest.TestCase):
    def test_no_module_cycle(self):
        self.assertEqual(cycles(import_graph()), [])

    def test_no_stage_cycle(self):
        stages: Dict[str, Set[str]] = {}
        for module, deps in import_graph().items():
            stages.setdefault(stage_of(module), set()).update(
                stage_of(d) for d in deps if stage_of(d) != stage_of(module))
        self.assertEqual(cycles(stages), [])

    def test_modules_live_in_their_stage(self):
        top = sorted(p.stem for p in LIB.glob("*.py") if p.stem != "__init__")
        self.assertEqual(top, ["buildlog", "devices", "errors", "kernels",
                               "paths", "proc", "progress", "subject", "trees",
                               "userdriver"])
        for stage in STAGES:
            self.assertTrue((LIB / stage / "__init__.py").is_file(), stage)

    def test_graph_sees_lazy_imports(self):
        """The check is only as good as its graph: a function-level import
        counts (cell/parts.py imports build.qemu_build inside host_parts)."""
        self.assertIn("ndisbench_lib.build.qemu_build",
                      import_graph()["ndisbench_lib.cell.parts"])


if __name__ == "__main__":
    unittest.main()
