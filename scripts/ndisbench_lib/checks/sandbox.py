"""sandbox (every cell, judged on the host): how the cell's QEMU ran, read
from /proc/<pid>/status while the guest talked (guest/sandbox.py). A bench
run as root must have left QEMU as the unprivileged user `ndisbench`
(-runas), with no root group; every QEMU must run under a seccomp filter
(-sandbox)."""
from .. import devices
from ..guest import sandbox
from ..report.verdict import Verdict
from .check import CellFacts, Check


def judge(facts: CellFacts) -> Verdict:
    return sandbox.judge(facts.qemu_ids)


CHECK = Check(
    name="sandbox", order=200,
    doc="QEMU ran under seccomp and, for a root bench, as ndisbench",
    devices=tuple(d.label for d in devices.TARGETS), judge=judge,
    installs_driver=False, seconds=0, host_side=True)
