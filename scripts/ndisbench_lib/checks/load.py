"""load: ndiswrapper's load against the kernel's taint policy: its errno,
its `Unknown symbol <sym> (err -2)` lines (exactly the GPL-only imports of
the module built for this kernel, or none), the `module license taints
kernel.` line, a clean rmmod, and /dev/<module> refusing a non-root open
and each malformed ioctl with its exact errno (modload.IOCTL_EXPECTED,
guest/agent/devnode.c), with no oops meanwhile.

The open is by uid 65534 (EACCES); the 23 malformed ioctls come from
root: bad sizes, counts, versions, names with `/`, `..` or no NUL, bad
pointers, an unknown ioctl, a descriptor passed to uid 65534. The kernel
lines are matched in 6.1's wording (guest/README.md, the kernel matrix)."""
from .. import devices
from ..report.verdict import Verdict
from .check import CellFacts, Check
from .modload import judge_module


def judge(facts: CellFacts) -> Verdict:
    return judge_module("load", "ndiswrapper", facts)


CHECK = Check(
    name="load", order=10,
    reads=("insmod ndiswrapper", "unload"),
    doc="ndiswrapper loads (or is refused) exactly as the policy says; "
        "/dev/ndiswrapper refuses non-root and malformed ioctls",
    devices=devices.BARE + devices.WRAPPED + devices.FAULTY_WRAPPED +
    devices.WIRED_WRAPPED,
    judge=judge, role="ndiswrapper", installs_driver=False, seconds=3)
