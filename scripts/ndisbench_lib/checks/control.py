"""control: the same module under a neutral name (ndisbench_control),
loaded first: no P anywhere, so a P left behind by a special-cased name
cannot hide a wrong one."""
from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .modload import judge_module


def judge(facts: CellFacts) -> Verdict:
    return judge_module("control", "control", facts, with_taint=True)


CHECK = Check(
    name="control", order=40,
    reads=("insmod ndisbench_control", "unload"),
    doc="the module under a neutral name: loads, no P anywhere",
    devices=devices.BARE, judge=judge, role="control",
    installs_driver=False, seconds=2)
