"""unload: rmmod of the wrapper after the traffic is clean and reports no
leaked Windows allocation; on a policy that refuses ndiswrapper the module
must not have loaded at all."""
from typing import List

from .. import devices
from ..report.verdict import ERROR, FAIL, XFAIL, Verdict
from .check import CellFacts, Check
from .facts import compare, rmmod_errno, verdict


def judge(facts: CellFacts) -> Verdict:
    exp, log = facts.exp, facts.log
    module = exp.module_names["ndiswrapper"]
    insmod = log.test(f"insmod {module}")
    unload = log.test("unload")
    if insmod is None or unload is None:
        return Verdict(ERROR, "agent printed no insmod/rmmod result")
    if facts.refused:
        if insmod.ok:
            return Verdict(FAIL, f"{module} loaded although the policy "
                                 f"refuses it")
        return Verdict(XFAIL, "not reached (expected: the policy refuses "
                              "ndiswrapper)")
    problems: List[str] = []
    compare("rmmod errno", 0, rmmod_errno(unload, module), problems)
    leaks = [line for line in unload.all("kmsg")
             if exp.leak_message in line]
    if leaks:
        problems.append(leaks[0])
    return verdict(problems, "rmmod clean, no Windows allocation leaked")


CHECK = Check(
    name="unload", order=170,
    reads=("insmod ndiswrapper", "unload"),
    doc="rmmod of the wrapper after the traffic: clean, nothing leaked",
    devices=(devices.WRAPPED + devices.HUNG + devices.SERIAL +
             devices.WIRED_WRAPPED + devices.SEND_RULES),
    judge=judge, seconds=2)
