"""driverloader: the load and the taint masks of the module built as
driverloader (not GPL at all: every kernel since 2.6.19 refuses it its
GPL-only symbols; the matrix shows that as `refused`)."""
from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .modload import judge_module


def judge(facts: CellFacts) -> Verdict:
    return judge_module("driverloader", "driverloader", facts,
                        with_taint=True)


CHECK = Check(
    name="driverloader", order=30,
    reads=("insmod driverloader", "unload"),
    doc="the module built as driverloader: load and taint masks",
    devices=devices.BARE, judge=judge, role="driverloader",
    installs_driver=False, seconds=2)
