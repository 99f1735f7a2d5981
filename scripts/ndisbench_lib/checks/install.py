"""install: `ndiswrapper -i <fixture>.inf` succeeds and `-l` lists it."""
from typing import List

from .. import devices
from ..report.verdict import ERROR, Verdict
from .check import CellFacts, Check
from .facts import compare, not_booted, verdict


def judge(facts: CellFacts) -> Verdict:
    # Not behind the policy: the user side installs whatever the kernel
    # does with the module later.
    first = not_booted(facts.log)
    if first:
        return first
    test = facts.log.test("install")
    if test is None:
        return Verdict(ERROR, "agent printed no install result")
    problems: List[str] = []
    compare("ndiswrapper -i exit status", "0", test.fact("status"), problems)
    if not any(facts.fixture in line for line in test.all("list")):
        problems.append(f"ndiswrapper -l does not list {facts.fixture}")
    return verdict(problems, f"{facts.fixture} installed: "
                             f"{'; '.join(test.all('list'))}")


CHECK = Check(
    name="install", order=60,
    reads=("install",),
    doc="ndiswrapper -i installs the fixture driver, -l lists it",
    devices=devices.WRAPPED + devices.FAULTY_WRAPPED + devices.WIRED_WRAPPED,
    judge=judge,
    seconds=2)
