"""survive (not in the default run): a module that oopses as it loads
(guest/oops/, a NULL dereference in the process context of the agent's
finit_module) is loaded by an agent row of its own; the kernel kills that
row's child, not the agent: PID 1 prints the row's result with the death,
the kernel's report lies between the row's marks in the kernel log, and
the later rows (unload) run in children of their own to the end of the
plan. The report is this check's own (it judges it); the cell's other
checks keep their verdicts (cell/judge.py charge_reports).

Run it with `--device none --check survive`. A kernel report is charged
to the checks that read the agent row it fell in (each row runs in its
own child, between `# ndisbench: begin/end <row>` marks); one before the
first row still fails every check; the checks that ran after it say so
in their summary."""
import re
from typing import List

from .. import devices
from ..build.modules import OOPS_MODULE
from ..report import ktap
from ..report.verdict import ERROR, Verdict
from .check import CellFacts, Check, GuestContext
from .facts import not_booted, verdict

# What the kernel says of ndisbench_oops's NULL dereference.
REPORT_RE = re.compile(r"BUG: kernel NULL pointer dereference")


def params(ctx: GuestContext) -> List[str]:
    return [f"ndisbench.oops={OOPS_MODULE}"]


def judge(facts: CellFacts) -> Verdict:
    log = facts.log
    first = not_booted(log)
    if first:
        return first
    test = log.test(f"oops {OOPS_MODULE}")
    if test is None:
        return Verdict(ERROR, f"agent printed no oops {OOPS_MODULE} result")
    problems: List[str] = []
    death = test.fact("row_death") or ""
    if not death.startswith("killed by signal"):
        problems.append(f"the oops did not kill its row's child (row_death: "
                        f"{death or 'none'})")
    reports = [line for row, line in ktap.row_lines("\n".join(log.lines))
               if row == "oops" and REPORT_RE.search(line)]
    if not reports:
        problems.append(f"no kernel line matches /{REPORT_RE.pattern}/ "
                        f"between the oops row's marks")
    unload = log.test("unload")
    if unload is None or unload.fact("row_death") is not None:
        problems.append("the rmmod row after it did not run to its end")
    if not log.complete:
        problems.append(f"the agent did not finish its plan "
                        f"({len(log.tests)} of {log.plan} results)")
    return verdict(problems, f"{test.name}: child {death}; "
                             f"{reports[0] if reports else ''}; the later "
                             f"rows ran")


CHECK = Check(
    name="survive", order=185,
    reads=("oops",),
    doc="an oops in one agent test kills only that test's child: the "
        "later tests run",
    devices=devices.BARE, judge=judge, params=params, installs_driver=False,
    extra_modules=(OOPS_MODULE,), expects_kernel_reports=True,
    default=False, seconds=10)
