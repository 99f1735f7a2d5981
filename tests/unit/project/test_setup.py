"""setup's one package list against what the code runs: every external
program the bench starts (read from the source, not from memory) must be
provided by a package in setup.REQUIREMENTS, and every entry must really
provide what it says (the installed package's files, its dependencies
included). A program added to the code without its package fails here,
not on a new user's machine."""
import ast
import pathlib
import re
import shutil
import subprocess
import unittest
from typing import Dict, Iterator, List, Optional, Set, Tuple

import helpers  # noqa: F401  (import path)
from ndisbench_lib import paths
from ndisbench_lib.commands import setup

LIB = paths.REPO / "scripts" / "ndisbench_lib"
UNIT = paths.REPO / "tests" / "unit"
THIS = pathlib.Path(__file__).name
# The functions that start an external program with an argv list.
RUNNERS = {"run", "Popen", "check_output", "check_call", "call",
           "run_logged", "capture"}
# Programs the code runs that no package provides: built by the bench
# itself or reached by path inside a tree it unpacked, and the one a test
# runs to see a missing program reported.
OWN = {"configure", "merge_config.sh", "ndisbench-no-such-tool"}


def module_strings(tree: ast.Module) -> Dict[str, str]:
    """Module constants holding a program: NAME = "x" or
    NAME = pathlib.Path("/bin/x")."""
    consts: Dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and len(value.args) == 1 and \
                ast.unparse(value.func) in ("pathlib.Path", "Path"):
            value = value.args[0]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            consts[node.targets[0].id] = value.value
    return consts


def string_of(node: ast.expr, consts: Dict[str, str]) -> Optional[str]:
    """"x", NAME or str(NAME) as the string it stands for."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "str" \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None


def argv_programs(source: str) -> Iterator[Tuple[int, str]]:
    """(line, program) for each runner call whose argv list starts with a
    known string, and each shutil.which() of a literal name."""
    tree = ast.parse(source)
    consts = module_strings(tree)
    for loop in ast.walk(tree):          # for NAME in ("a", "b"): which(NAME)
        if not (isinstance(loop, ast.For) and isinstance(
                loop.target, ast.Name) and isinstance(
                    loop.iter, (ast.Tuple, ast.List))):
            continue
        for call in ast.walk(loop):
            if isinstance(call, ast.Call) and call.args and \
                    ast.unparse(call.func).endswith("which") and \
                    ast.unparse(call.args[0]) == loop.target.id:
                for elt in loop.iter.elts:
                    if isinstance(elt, ast.Constant):
                        yield call.lineno, elt.value
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else \
            getattr(fn, "id", "")
        argv = node.args[0]
        if name == "which":
            prog = string_of(argv, consts)
        elif name in RUNNERS and isinstance(argv, ast.List) and argv.elts:
            prog = string_of(argv.elts[0], consts)
        else:
            continue
        if prog:
            yield node.lineno, prog


def code_programs() -> Dict[str, str]:
    """program -> first place it is run, over the bench's Python code and
    its tests, the meson files' find_program() and the cross tools of
    fixtures/Makefile."""
    found: Dict[str, str] = {}
    tests = [p for p in sorted(UNIT.glob("*.py")) +
             sorted(UNIT.glob("*/test_*.py")) if p.name != THIS]
    for path in sorted(LIB.rglob("*.py")) + tests:
        for line, prog in argv_programs(path.read_text()):
            found.setdefault(pathlib.PurePath(prog).name,
                             f"{path.name}:{line}")
    for path in sorted(paths.REPO.glob("**/meson.build")):
        for m in re.finditer(r"find_program\('([^']+)'", path.read_text()):
            if not m.group(1).endswith(".py"):
                found.setdefault(m.group(1), str(path))
    make = paths.REPO / "fixtures" / "Makefile"
    text = make.read_text()
    # CROSS: the amd64 fixtures, CROSS32: their i386 builds
    for var in ("CROSS", "CROSS32"):
        cross = re.search(rf"^{var}\s*\?=\s*(\S+)", text, re.M)
        assert cross, f"fixtures/Makefile: no {var}"
        for tool in sorted(set(re.findall(rf"\$\({var}\)([\w+-]+)",
                                          text))):
            # one place per variable: each toolchain needs its package
            # (a place is served by any one program found there)
            found.setdefault(cross.group(1) + tool,
                             f"fixtures/Makefile $({var})")
    return found


def dpkg(*args: str) -> Optional[str]:
    res = subprocess.run(["dpkg-query", *args], capture_output=True,
                         text=True, timeout=60, check=False)
    return res.stdout if res.returncode == 0 else None


def closure(package: str) -> Set[str]:
    """The installed package and everything it depends on, installed."""
    seen: Set[str] = set()
    todo = [package]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        out = dpkg("-W", "-f=${Status}\t${Pre-Depends}, ${Depends}", name)
        if out is None or "ok installed" not in out.split("\t")[0]:
            continue
        seen.add(name)
        for alt in re.split(r"[,|]", out.split("\t", 1)[1]):
            dep = alt.strip().split(" ")[0].split(":")[0]
            if dep:
                todo.append(dep)
    return seen


def owners(path: str) -> Set[str]:
    """Packages owning path, trying its /usr-merged twin and, for a
    symlink (alternatives), its target too."""
    real = str(pathlib.Path(path).resolve())
    tries = {path, real}
    for p in list(tries):
        if p.startswith("/usr/"):
            tries.add(p[4:])
        else:
            tries.add("/usr" + p)
    found: Set[str] = set()
    for p in tries:
        out = dpkg("-S", p)
        if out:
            for line in out.splitlines():
                pkgs = line.split(": ", 1)[0]
                found.update(x.strip().split(":")[0]
                             for x in pkgs.split(","))
    return found


def provided_paths(item: str) -> List[str]:
    """A program by name (found on PATH) or a file path, glob allowed."""
    if item.startswith("/"):
        parent = pathlib.Path(item).parent
        base = pathlib.Path(item).name
        if "*" in str(parent):
            return [str(p) for p in pathlib.Path("/").glob(item[1:])]
        return [str(p) for p in parent.glob(base)] if "*" in base else \
            ([item] if pathlib.Path(item).exists() else [])
    found = shutil.which(item, path="/usr/local/sbin:/usr/local/bin:"
                         "/usr/sbin:/usr/bin:/sbin:/bin")
    return [found] if found else []


class RequirementTable(unittest.TestCase):
    def test_names_unique_and_every_entry_says_why(self) -> None:
        names = [r.package for r in setup.REQUIREMENTS]
        self.assertEqual(len(names), len(set(names)), names)
        for r in setup.REQUIREMENTS:
            self.assertTrue(r.why, r.package)
        self.assertEqual(setup.PACKAGES, tuple(names))

    def test_guest_programs_from_the_host_have_a_package(self) -> None:
        """What the initramfs copies from the host (iw, ..., and
        wpa_supplicant for the WPA2 cells) is installed by setup."""
        from ndisbench_lib.build import initramfs
        provided = {pathlib.PurePath(p).name
                    for r in setup.REQUIREMENTS for p in r.provides}
        for path in initramfs.HOST_PROGRAMS + initramfs.WPA_PROGRAMS:
            self.assertIn(pathlib.PurePath(path).name, provided, path)

    def test_every_program_the_code_runs_has_a_package(self) -> None:
        provided = {pathlib.PurePath(p).name
                    for r in setup.REQUIREMENTS for p in r.provides}
        found = code_programs()
        # Candidates tried at one place (for name in ("chromium",
        # "chromium-browser")) need only one package between them.
        served = {where for prog, where in found.items() if prog in provided}
        missing = {prog: where for prog, where in found.items()
                   if prog not in provided and prog not in OWN
                   and where not in served}
        self.assertEqual(missing, {}, "programs the code runs with no "
                         "package in setup.REQUIREMENTS")

    def test_the_scan_sees_the_programs_it_must(self) -> None:
        """The scanner itself: a scan that found nothing would pass."""
        progs = code_programs()
        for prog in ("tshark", "meson", "ninja", "make", "apt-get",
                     "depmod", "nm", "busybox", "chromium", "cpio",
                     "bwrap",
                     "qemu-system-x86_64",
                     "x86_64-w64-mingw32-dlltool",
                     "i686-w64-mingw32-gcc", "i686-w64-mingw32-dlltool"):
            self.assertIn(prog, progs)
        self.assertEqual(list(argv_programs(
            'X = "tshark"\nB = pathlib.Path("/bin/busybox")\n'
            'subprocess.run([X, "-r"])\n'
            'run_logged(["pahole", "-J"], log, "btf")\n'
            'capture(cmd)\ncapture([str(B), "--list"])\n'
            'shutil.which("chromium")\n'
            'for n in ("a", "b"):\n    shutil.which(n)\n')),
            [(9, "a"), (9, "b"), (3, "tshark"), (4, "pahole"),
             (6, "/bin/busybox"), (7, "chromium")])

    def test_tools_run_by_other_tools(self) -> None:
        """What no argv in our code names: kbuild runs pahole for
        module BTF (debian-6.12), QEMU's configure needs libfdt and
        nettle (--enable-nettle: the AP's WPA2 crypto), the capture check
        needs tshark, the report test chromium."""
        provided = {p for r in setup.REQUIREMENTS for p in r.provides}
        for item in ("pahole", "bc", "bison", "flex", "pkg-config",
                     "/usr/include/libfdt.h", "/usr/include/libelf.h",
                     "/usr/include/nettle/pbkdf2.h",
                     "chromium", "clang", "x86_64-w64-mingw32-gcc",
                     # meson's -m32 thunk test: 32-bit crt and libgcc
                     "/usr/lib32/crt1.o",
                     "/usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a"):
            self.assertIn(item, provided)


@unittest.skipUnless(shutil.which("dpkg-query"), "not a Debian system")
class RequirementsOnThisMachine(unittest.TestCase):
    """After `ndisbench setup`: each package is installed and provides
    what its entry says (so a wrong package name cannot hide)."""

    def test_each_entry_provides_what_it_says(self) -> None:
        problems = []
        for req in setup.REQUIREMENTS:
            pkgs = closure(req.package)
            if not pkgs:
                problems.append(f"{req.package}: not installed (run "
                                f"scripts/ndisbench setup)")
                continue
            for item in req.provides:
                hits = provided_paths(item)
                if not hits:
                    problems.append(f"{req.package}: {item} not found")
                elif not any(owners(h) & pkgs for h in hits):
                    problems.append(f"{req.package}: {item} ({hits[0]}) "
                                    f"belongs to {sorted(owners(hits[0]))}")
        self.assertEqual(problems, [])

    def test_closure_and_owners(self) -> None:
        """A meta package reaches its dependencies; an alternatives link
        is owned by the package of its target; /usr-merged paths work."""
        mingw = closure("gcc-mingw-w64-x86-64")
        self.assertIn("gcc-mingw-w64-x86-64-win32", mingw)
        self.assertTrue(owners(shutil.which("x86_64-w64-mingw32-gcc") or
                               "/nonexistent") & mingw)
        self.assertIn("cpio", owners("/usr/bin/cpio"))
        self.assertEqual(closure("no-such-package-ndisbench"), set())


if __name__ == "__main__":
    unittest.main()


class DebSrcEntry(unittest.TestCase):
    """setup derives its deb-src entry from the host's `deb` entries, in
    whichever form apt reads them."""

    def write(self, root: pathlib.Path, name: str, text: str) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def test_one_line_sources_list(self) -> None:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.write(root, "sources.list",
                       "# a Debian installed before deb822\n"
                       "deb http://deb.debian.org/debian bookworm main\n"
                       "deb [signed-by=/k.gpg] http://deb.debian.org/"
                       "debian-security bookworm-security main contrib\n"
                       "deb-src http://deb.debian.org/debian bookworm main\n"
                       "deb http://example.org/other stable main\n")
            (root / "sources.list.d").mkdir()
            text = setup.deb_src_stanzas(root)
        self.assertEqual(text,
                         "Types: deb-src\n"
                         "URIs: http://deb.debian.org/debian-security\n"
                         "Suites: bookworm-security\n"
                         "Components: main contrib\n"
                         "Signed-By: /k.gpg\n")

    def test_deb822_any_name_and_own_entry_skipped(self) -> None:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.write(root, "sources.list.d/0000main.sources",
                       "Types: deb\nURIs: http://deb.debian.org/debian\n"
                       "Suites: bookworm bookworm-updates\n"
                       "Components: main\n"
                       "Signed-By: /usr/share/keyrings/debian.gpg\n")
            self.write(root, "sources.list.d/" + setup.SRC_LIST.name,
                       "Types: deb-src\nURIs: http://stale/debian\n"
                       "Suites: x\nComponents: main\n")
            text = setup.deb_src_stanzas(root)
        self.assertEqual(text,
                         "Types: deb-src\n"
                         "URIs: http://deb.debian.org/debian\n"
                         "Suites: bookworm bookworm-updates\n"
                         "Components: main\n"
                         "Signed-By: /usr/share/keyrings/debian.gpg\n")
