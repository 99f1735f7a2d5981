"""The kernel matrix (guest/kernels.toml) and the policy table it refers to.

Every problem with an entry is reported as one BenchError line that names
the file, the entry and the bad field.
"""
import dataclasses
import functools
import pathlib
import re
import tomllib
import types
from typing import AbstractSet, List, Mapping, Optional, Tuple, Union

from . import paths
from . import trees
from .errors import BenchError

SOURCES_BUILT = re.compile(r"^linux-source-\d+\.\d+$")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9.+_-]*$")
SUITE_RE = re.compile(r"^[a-z][a-z0-9-]*$")
MODES = ("none", "kernel", "flagged", "module")
# The guest architectures: Debian's names (amd64: x86_64, i386: 32-bit x86).
ARCHES = ("amd64", "i386")
FIELDS = {
    "debian": {"name", "source", "suite", "image", "headers", "unsigned",
               "policy", "default", "arch"},
    "built": {"name", "source", "suite", "config", "patch", "policy",
              "slowdown", "default", "arch", "patches", "policy_row"},
    "tree": {"name", "source", "path", "policy", "default"},
}
TREE = "tree"
POLICY_FIELDS = {"name", "bases"}
# A base's rows: one per policy (every one of the expectations, or, where
# the file has [[policy]] tables, those naming it: a policy for some bases
# only), patched with <patches>/policy-<policy>.patch.
POLICY_PATCH = "policy-{policy}.patch"


@dataclasses.dataclass(frozen=True)
class Policy:
    name: str
    commit: str
    history: str
    modes: Mapping[str, str]    # module role ("ndiswrapper", ...) -> mode


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    source: str             # "debian", "linux-source-X.Y" or "tree"
    policy: Policy
    image: str = ""         # debian: image metapackage
    headers: str = ""       # debian: headers metapackage
    unsigned: bool = False  # debian: use the -unsigned image package
    # built: config fragments merged onto tinyconfig, in order
    configs: Tuple[pathlib.Path, ...] = ()
    patch: Optional[pathlib.Path] = None    # built: policy patch
    # built: how much slower its guests run (debug checkers): the guest
    # timeout is multiplied by it
    slowdown: int = 1
    # In a `run` without --kernel (false: only when named, or with
    # --kernel all; the test command runs every kernel).
    default: bool = True
    # built: the Debian suite whose linux-source package is fetched
    # (another suite than the host's: never installed); "": installed.
    # debian: the suite whose image and headers are fetched, and whose
    # chroot (build/chroot.py) builds its modules; "": the host's suite
    # and toolchain.
    suite: str = ""
    # tree: the user's kernel build folder, and its `uname -r`
    path: Optional[pathlib.Path] = None
    release: str = ""
    # The guest's architecture (ARCHES): its image, headers, modules,
    # initramfs and fixture drivers are of it.
    arch: str = "amd64"

    @property
    def is_debian(self) -> bool:
        return self.source == "debian"

    @property
    def is_tree(self) -> bool:
        return self.source == TREE

    @property
    def is_built(self) -> bool:
        """Built by the bench from a linux-source package."""
        return not self.is_debian and not self.is_tree


@dataclasses.dataclass(frozen=True)
class Known:
    """One known disagreement: on these checks ("*": any), a failing
    verdict whose text matches the regex is explained by why."""
    checks: Tuple[str, ...]
    match: str
    why: str

    def applies(self, check: str) -> bool:
        return "*" in self.checks or check in self.checks


@dataclasses.dataclass(frozen=True)
class WrapperNotes:
    """[wrapper.<name>]: another wrapper tree (run --wrapper-src) that
    disagrees with this table for known reasons. banner: a regex its module
    prints to the kernel log when it loads (how a cell knows it ran);
    tree: where it came from; known: its [[...known]] entries, first
    match wins."""
    name: str
    banner: str
    tree: str
    known: Tuple[Known, ...]


def _wrapper_notes(path: pathlib.Path, data: Mapping[str, object]
                   ) -> Mapping[str, WrapperNotes]:
    notes = {}
    for name, body in data.items():
        if not isinstance(body, dict) or not body.get("banner"):
            raise BenchError(f"{path}: wrapper '{name}': no banner")
        entries = []
        for n, entry in enumerate(body.get("known", []), start=1):
            if not (isinstance(entry, dict) and entry.get("checks") and
                    entry.get("match") and entry.get("why")):
                raise BenchError(f"{path}: wrapper '{name}': known entry "
                                 f"{n} needs checks, match and why")
            for regex in (entry["match"], body["banner"]):
                try:
                    re.compile(regex)
                except re.error as exc:
                    raise BenchError(f"{path}: wrapper '{name}': known entry "
                                     f"{n} ({', '.join(entry['checks'])}): "
                                     f"bad regex {regex!r}: {exc}") from None
            entries.append(Known(tuple(entry["checks"]), str(entry["match"]),
                                 str(entry["why"])))
        notes[name] = WrapperNotes(name, str(body["banner"]),
                                   str(body.get("tree", "")), tuple(entries))
    return types.MappingProxyType(notes)


@dataclasses.dataclass(frozen=True)
class Expectations:
    """tests/e2e/expectations.toml, read once (load_expectations) and
    read-only: its mappings cannot be changed, and nothing replaces it
    with a modified copy; what a command varies is a field of its cell
    plans (cell/plan.py)."""
    policies: Mapping[str, Policy]
    gpl_only_imports: Tuple[str, ...]
    module_names: Mapping[str, str]     # role -> module name
    messages: Mapping[str, str]
    taint_bits: Mapping[str, int]
    network: Mapping[str, object]
    # fixtures/broken name -> a kmsg regex (some line matches it), or a
    # tuple of them (each matches exactly one line)
    broken: Mapping[str, Union[str, Tuple[str, ...]]]
    leak_message: str
    # More GPL-only imports where a kernel option is set: debug options
    # turn inline helpers into calls (lockdep: mutex_lock_nested, ...).
    gpl_only_imports_if: Mapping[str, Tuple[str, ...]] = \
        dataclasses.field(default_factory=lambda: types.MappingProxyType({}))
    # Other wrapper trees' known disagreements, by name ([wrapper.*]).
    wrappers: Mapping[str, WrapperNotes] = \
        dataclasses.field(default_factory=lambda: types.MappingProxyType({}))
    # An import under another name where the kernel exports that name and
    # not the old one (7.x: alloc_workqueue -> alloc_workqueue_noprof).
    gpl_only_imports_renamed: Mapping[str, str] = \
        dataclasses.field(default_factory=lambda: types.MappingProxyType({}))
    # A regex of what our own wrapper's module prints when it loads
    # ([own_wrapper] banner): a cell whose kernel log shows it ran ours,
    # which is held to the table's exact messages.
    own_banner: str = ""

    def gpl_imports_for(self, config: Mapping[str, str],
                        exports: Optional[AbstractSet[str]] = None
                        ) -> List[str]:
        """The table's GPL-only imports on a kernel with this .config
        (and these GPL-only exports, for the renamed ones)."""
        extra = [sym for option, syms in self.gpl_only_imports_if.items()
                 if config.get(option) == "y" for sym in syms]
        names = set(self.gpl_only_imports) | set(extra)
        for old, new in self.gpl_only_imports_renamed.items():
            if exports is not None and old in names and new in exports \
                    and old not in exports:
                names = (names - {old}) | {new}
        return sorted(names)


def _load_toml(path: pathlib.Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError as exc:
        raise BenchError(f"{path}: file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise BenchError(f"{path}: not valid TOML: {exc}") from exc


@functools.lru_cache(maxsize=None)
def load_expectations(path: pathlib.Path = paths.EXPECTATIONS_TOML
                      ) -> Expectations:
    data = _load_toml(path)
    frozen = types.MappingProxyType
    try:
        module = data["module"]
        roles = {r: module[r] for r in ("ndiswrapper", "driverloader",
                                        "control")}
        policies = {}
        for name, body in data["policy"].items():
            modes = {r: body[r] for r in ("ndiswrapper", "driverloader")}
            for role, mode in modes.items():
                if mode not in MODES:
                    raise BenchError(f"{path}: policy '{name}': {role} = "
                                     f"'{mode}' is not one of {MODES}")
            policies[name] = Policy(name, body["commit"], body["history"],
                                    frozen(modes))
        return Expectations(frozen(policies),
                            tuple(module["gpl_only_imports"]),
                            frozen(roles), frozen(dict(data["messages"])),
                            frozen({k: int(v)
                                    for k, v in data["taint"].items()}),
                            frozen(dict(data["network"])),
                            frozen({k: v if isinstance(v, str) else
                                    tuple(str(p) for p in v)
                                    for k, v in data["broken"].items()}),
                            data["unload"]["leak"],
                            frozen({k: tuple(v) for k, v in module.get(
                                "gpl_only_imports_if", {}).items()}),
                            _wrapper_notes(path, data.get("wrapper", {})),
                            frozen({str(k): str(v) for k, v in module.get(
                                "gpl_only_imports_renamed", {}).items()}),
                            _own_banner(path, data["own_wrapper"]))
    except KeyError as exc:
        raise BenchError(f"{path}: missing key {exc}") from exc


def _own_banner(path: pathlib.Path, body: Mapping[str, object]) -> str:
    banner = str(body.get("banner", ""))
    try:
        re.compile(banner)
    except re.error as exc:
        raise BenchError(f"{path}: own_wrapper: bad banner regex "
                         f"{banner!r}: {exc}") from None
    if not banner:
        raise BenchError(f"{path}: own_wrapper: no banner")
    return banner


def _entry_error(path: pathlib.Path, name: str, msg: str) -> BenchError:
    return BenchError(f"{path}: kernel '{name}': {msg}")


def _repo_file(path: pathlib.Path, name: str, field: str,
               value: object) -> pathlib.Path:
    if not isinstance(value, str) or not value:
        raise _entry_error(path, name, f"{field} must be a path string" +
                           (" or a list of them" if field == "config"
                            else ""))
    full = (paths.REPO / value).resolve()
    if not full.is_file():
        raise _entry_error(path, name, f"{field} '{value}' does not exist")
    return full


def _parse_entry(path: pathlib.Path, raw: dict,
                 exp: Expectations) -> Kernel:
    name = raw.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise BenchError(f"{path}: kernel entry {raw!r}: name must match "
                         f"{NAME_RE.pattern}")
    source = raw.get("source")
    if source in ("debian", TREE):
        kind = source
    elif isinstance(source, str) and SOURCES_BUILT.match(source):
        kind = "built"
    else:
        raise _entry_error(path, name, f"unknown source {source!r} (use "
                           f"\"debian\", \"linux-source-X.Y\" or "
                           f"\"tree\")")
    unknown = sorted(set(raw) - FIELDS[kind])
    if unknown:
        raise _entry_error(path, name, f"unknown field(s) {', '.join(unknown)}"
                           f" for source {source!r}")
    suite = raw.get("suite", "")
    if not isinstance(suite, str) or (suite and not SUITE_RE.match(suite)):
        raise _entry_error(path, name, "suite must be a Debian suite name "
                           "(e.g. \"bullseye\")")
    default = raw.get("default", True)
    if not isinstance(default, bool):
        raise _entry_error(path, name, "default must be true or false")
    arch = raw.get("arch", "amd64")
    if arch not in ARCHES:
        raise _entry_error(path, name, f"arch {arch!r} is not one of "
                           f"{', '.join(ARCHES)}")
    if kind == TREE:
        return _tree_entry(path, name, raw, exp, default)
    policy = _policy(path, name, raw.get("policy"), exp)
    if kind == "debian":
        for field in ("image", "headers"):
            if not isinstance(raw.get(field), str) or not raw[field]:
                raise _entry_error(path, name, f"needs {field} = "
                                   f"\"<metapackage>\"")
        unsigned = raw.get("unsigned", False)
        if not isinstance(unsigned, bool):
            raise _entry_error(path, name, "unsigned must be true or false")
        return Kernel(name, source, policy, image=raw["image"],
                      headers=raw["headers"], unsigned=unsigned,
                      default=default, suite=suite, arch=arch)
    value = raw.get("config")
    values = value if isinstance(value, list) and value else [value]
    configs = tuple(_repo_file(path, name, "config", v) for v in values)
    patch = None
    if "patch" in raw:
        patch = _repo_file(path, name, "patch", raw["patch"])
    slowdown = raw.get("slowdown", 1)
    if not isinstance(slowdown, int) or isinstance(slowdown, bool) or \
            not 1 <= slowdown <= 20:
        raise _entry_error(path, name, "slowdown must be an integer from "
                           "1 to 20")
    return Kernel(name, source, policy, configs=configs, patch=patch,
                  slowdown=slowdown, default=default, suite=suite,
                  arch=arch)


def _policy(path: pathlib.Path, name: str, policy_name: object,
            exp: Expectations) -> Policy:
    if policy_name not in exp.policies:
        raise _entry_error(path, name, f"unknown policy {policy_name!r} "
                           f"(known: {', '.join(exp.policies)})")
    return exp.policies[str(policy_name)]


def tree_kernel(folder: pathlib.Path, exp: Expectations,
                name: Optional[str] = None,
                policy_name: Optional[str] = None,
                what: str = "--kernel-tree", default: bool = True) -> Kernel:
    """A kernel of the user's own build folder, validated (one-line
    errors); the policy, when not given, inferred from its version
    (trees.infer_policy); the name, when not given, tree-<release>."""
    folder = folder.expanduser()
    info = trees.check_tree(folder, what)
    where = f"{what} {folder}"
    if policy_name is None:
        policy_name = trees.infer_policy(info, where)
    if policy_name not in exp.policies:
        raise BenchError(f"{where}: unknown policy {policy_name!r} "
                         f"(known: {', '.join(exp.policies)})")
    return Kernel(name or trees.tree_name(info), TREE,
                  exp.policies[policy_name], default=default,
                  path=folder.resolve(), release=info.release)


def _tree_entry(path: pathlib.Path, name: str, raw: dict,
                exp: Expectations, default: bool) -> Kernel:
    folder = raw.get("path")
    if not isinstance(folder, str) or not folder:
        raise _entry_error(path, name, "needs path = \"<kernel build "
                           "folder>\"")
    policy_name = raw.get("policy")
    if policy_name is not None:
        _policy(path, name, policy_name, exp)
    # Relative to the repository, like config and patch.
    full = paths.REPO / pathlib.Path(folder).expanduser()
    return tree_kernel(full, exp, name, policy_name,
                       f"{path}: kernel '{name}': path", default)


@dataclasses.dataclass(frozen=True)
class Base:
    """A [[kernel]] entry with `patches`: its own (unpatched) row, and the
    rows of the policies that name it, named by its policy_row."""
    kernel: Kernel
    patches: str                # folder of policy-<policy>.patch files
    row: str                    # row name template with {policy}


def _base(path: pathlib.Path, raw: dict, kernel: Kernel) -> Base:
    name = kernel.name
    if "patch" in raw:
        raise _entry_error(path, name, "a base (patches) takes no patch")
    folder = raw["patches"]
    if not isinstance(folder, str) or not folder or \
            not (paths.REPO / folder).is_dir():
        raise _entry_error(path, name, f"patches {folder!r} is not a "
                           f"folder of the repository")
    row = raw.get("policy_row")
    if not isinstance(row, str) or row.count("{policy}") != 1 or \
            row.replace("{policy}", "").count("{") or \
            row.replace("{policy}", "").count("}"):
        raise _entry_error(path, name, "policy_row must contain {policy} "
                           "once (e.g. \"policy-{policy}-i386\")")
    return Base(kernel, folder.rstrip("/"), row)


def _policy_table(path: pathlib.Path, data: dict,
                  exp: Expectations) -> List[Tuple[str, Tuple[str, ...]]]:
    """(policy name, the bases it applies to), in order: from [[policy]]
    tables where the file has any, else every policy of the expectations
    (where a policy is declared) on every base."""
    if "policy" not in data:
        bases = tuple(str(raw.get("name")) for raw in data.get("kernel", [])
                      if isinstance(raw, dict) and "patches" in raw)
        return [(name, bases) for name in exp.policies]
    entries = data["policy"]
    if not isinstance(entries, list):
        raise BenchError(f"{path}: policy must be [[policy]] tables")
    out = []
    for raw in entries:
        name = raw.get("name") if isinstance(raw, dict) else None
        if name not in exp.policies:
            raise BenchError(f"{path}: policy {name!r}: unknown policy "
                             f"(known: {', '.join(exp.policies)})")
        unknown = sorted(set(raw) - POLICY_FIELDS)
        if unknown:
            raise BenchError(f"{path}: policy '{name}': unknown field(s) "
                             f"{', '.join(unknown)}")
        bases = raw.get("bases")
        if not isinstance(bases, list) or not bases or \
                not all(isinstance(b, str) for b in bases):
            raise BenchError(f"{path}: policy '{name}': bases must be a "
                             f"list of kernel names")
        out.append((str(name), tuple(bases)))
    return out


def _policy_rows(path: pathlib.Path, base: Base,
                 policies: List[Tuple[str, Tuple[str, ...]]],
                 exp: Expectations) -> List[Kernel]:
    rows = []
    for policy, bases in policies:
        if base.kernel.name not in bases:
            continue
        name = base.row.replace("{policy}", policy)
        if not NAME_RE.match(name):
            raise _entry_error(path, name, f"name must match "
                               f"{NAME_RE.pattern}")
        patch = _repo_file(path, name, "patch", f"{base.patches}/" +
                           POLICY_PATCH.format(policy=policy))
        rows.append(dataclasses.replace(base.kernel, name=name, patch=patch,
                                        policy=exp.policies[policy]))
    return rows


def load_kernels(path: pathlib.Path = paths.KERNELS_TOML,
                 exp: Optional[Expectations] = None) -> List[Kernel]:
    """Parse and validate the whole matrix before anything is built: the
    [[kernel]] entries in order, each base followed by its policy rows."""
    exp = exp or load_expectations()
    data = _load_toml(path)
    unknown = sorted(set(data) - {"kernel", "policy"})
    if unknown:
        raise BenchError(f"{path}: unknown table(s) {', '.join(unknown)}")
    entries = data.get("kernel")
    if not isinstance(entries, list) or not entries:
        raise BenchError(f"{path}: no [[kernel]] entries")
    policies = _policy_table(path, data, exp)
    kernels: List[Kernel] = []
    bases = set()
    for raw in entries:
        kernel = _parse_entry(path, raw, exp)
        rows = [kernel]
        if "policy_row" in raw and "patches" not in raw:
            raise _entry_error(path, kernel.name, "policy_row without "
                               "patches (the folder of its policy patches)")
        if "patches" in raw:
            base = _base(path, raw, kernel)
            bases.add(kernel.name)
            rows += _policy_rows(path, base, policies, exp)
        for row in rows:
            if any(k.name == row.name for k in kernels):
                raise _entry_error(path, row.name, "duplicate name")
            kernels.append(row)
    for policy, names in policies:
        for name in names:
            if name not in bases:
                raise BenchError(f"{path}: policy '{policy}': base "
                                 f"'{name}' is not a [[kernel]] entry with "
                                 f"patches")
    return kernels


ALL = "all"


def select(kernels: List[Kernel], names: Optional[List[str]],
           arch: Optional[str] = None) -> List[Kernel]:
    """The entries named on the command line, in matrix order; none named:
    the default ones; `all`: every entry. arch (--arch): of those named,
    the ones of that architecture; none named: every entry of it."""
    if arch is not None:
        return select_arch(select(kernels, names or [ALL]), arch)
    if not names:
        return [k for k in kernels if k.default]
    if ALL in names:
        return kernels
    known = {k.name for k in kernels}
    bad = [n for n in names if n not in known]
    if bad:
        raise BenchError(f"unknown kernel(s) {', '.join(bad)} (known: "
                         f"{', '.join(sorted(known))})")
    return [k for k in kernels if k.name in names]


def select_arch(kernels: List[Kernel], arch: str) -> List[Kernel]:
    """The kernels of one architecture (--arch), or all of them."""
    if arch == ALL:
        return kernels
    if arch not in ARCHES:
        raise BenchError(f"--arch {arch}: not one of {', '.join(ARCHES)} "
                         f"or {ALL}")
    out = [k for k in kernels if k.arch == arch]
    if not out:
        raise BenchError(f"--arch {arch}: no {arch} kernel among "
                         f"{', '.join(k.name for k in kernels)}")
    return out


def add_trees(selected: List[Kernel], kernels: List[Kernel],
              folders: List[pathlib.Path], exp: Expectations,
              policy_name: Optional[str] = None) -> List[Kernel]:
    """selected plus one kernel per --kernel-tree folder, named
    tree-<release> (tree-<release>-2, ... where a name is taken)."""
    out = list(selected)
    taken = {k.name for k in kernels} | {k.name for k in out}
    for folder in folders:
        kernel = tree_kernel(folder, exp, policy_name=policy_name)
        name, n = kernel.name, 1
        while name in taken:
            n += 1
            name = f"{kernel.name}-{n}"
        taken.add(name)
        out.append(dataclasses.replace(kernel, name=name))
    return out
