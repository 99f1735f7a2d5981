"""The checks of the bench, found by looking: every module of this package
that defines `CHECK` is one (check.py says what a check declares). The
runner, `list`, the reports and the docs read them from here, in their
declared order; nothing else keeps a list of checks."""
import functools
import importlib
import pkgutil
from typing import Dict, List, Sequence, Tuple

from ..devices import Device
from ..errors import BenchError
from ..report.verdict import Verdict
from .check import BOOT_SECONDS, CellFacts, Check


@functools.lru_cache(maxsize=None)
def all_checks() -> Tuple[Check, ...]:
    found: List[Check] = []
    for info in pkgutil.iter_modules(_package_path()):
        module = importlib.import_module(f"{__package__}.{info.name}")
        check = getattr(module, "CHECK", None)
        if isinstance(check, Check):
            found.append(check)
    found.sort(key=lambda c: c.order)
    for a, b in zip(found, found[1:]):
        if a.order == b.order or a.name == b.name:
            raise BenchError(f"checks {a.name} and {b.name}: the same "
                             f"order {a.order} or name")
    return tuple(found)


def _package_path() -> Sequence[str]:
    package = importlib.import_module(__package__)
    return list(package.__path__)


def by_name() -> Dict[str, Check]:
    return {c.name: c for c in all_checks()}


def get(name: str) -> Check:
    try:
        return by_name()[name]
    except KeyError:
        raise BenchError(f"unknown check '{name}'") from None


def names() -> List[str]:
    """What `run --check` accepts, in matrix order."""
    return [c.name for c in all_checks() if c.selectable]


def default_names() -> List[str]:
    """A run without --check."""
    return [c.name for c in all_checks() if c.selectable and c.default]


def select(wanted: Sequence[str]) -> List[str]:
    """The named checks in matrix order (BenchError naming the unknown)."""
    known = names()
    bad = [n for n in wanted if n not in known]
    if bad:
        raise BenchError(f"unknown check(s) {', '.join(bad)} (known: "
                         f"{', '.join(known)})")
    return [c for c in known if c in wanted]


def with_brought(selected: Sequence[str]) -> List[str]:
    """The selected checks and those they bring (brought_by), in matrix
    order: a run's columns."""
    wanted = set(selected)
    wanted.update(b for n in selected for b in brought_by(get(n)))
    return [c.name for c in all_checks() if c.name in wanted]


def for_device(device: Device, selected: Sequence[str]) -> List[str]:
    """Those of the selected checks that apply to the device, in the
    order given, each after the checks whose agent tests it reads
    (brought_by)."""
    checks = by_name()
    out: List[str] = []
    for name in selected:
        if name not in checks or not checks[name].applies(device):
            continue
        out += [c for c in brought_by(checks[name])
                if c not in out and checks[c].applies(device)]
        if name not in out:
            out.append(name)
    return out


def brought_by(check: Check) -> List[str]:
    """The other checks whose agent tests this one reads and the agent
    runs only when they ask (recover reads tcp's stream: tcp's params
    ask for it), in matrix order. The tests every cell runs (boot, the
    insmods, unload) bring nothing."""
    named = {read.split()[0] for read in check.reads}
    return [c.name for c in all_checks()
            if c.name in named and c.name != check.name and c.asks_agent]


def seconds(check_names: Sequence[str]) -> float:
    """The guest time a cell of these checks may need under TCG."""
    return BOOT_SECONDS + sum(get(c).seconds for c in check_names)


def judge(name: str, facts: CellFacts) -> Verdict:
    return get(name).judge(facts)
