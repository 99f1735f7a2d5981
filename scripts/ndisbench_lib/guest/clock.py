"""The guest's clock: QEMU's instruction counter (icount) or real time.

Under icount with sleep=off the virtual clock counts executed instructions
and jumps over the time the guest idles to its next timer, so a guest that
waits on its own timers (beacons, scan dwell, DHCP, retransmits) costs
almost no wall time. The device models, the air and the AP all run on the
virtual clock, so their timing is unchanged from the guest's view.

What icount cannot skip honestly is a wait on the host (a host sink's
answer, the host's QMP action after a console line): the guest's clock
would run out in no real time. The agent bounds those waits by the CMOS
RTC, which QEMU runs on the host's clock (-rtc clock=host), read through
/dev/port (guest/agent/hostclock.c); a kernel without CONFIG_DEVPORT
cannot, so it runs in real time.

Real time is also kept where icount is wrong or impossible: KVM (icount
is TCG-only) and kernels with slow debug checkers (their waits are
scaled for real time; `slowdown` in kernels.toml). pair and soak build
their plans with the default, real time: two QEMUs on one air must share
one clock, and a soak is minutes of wall time by definition.
"""
from typing import Dict, Optional, Tuple

from ..errors import BenchError

ICOUNT = "icount"
REALTIME = "realtime"
CLOCKS = (ICOUNT, REALTIME)
DEFAULT = ICOUNT
# shift=auto: QEMU tunes the ns per instruction so that busy guest time
# keeps up with real time (a fixed shift=4 was slower on a loaded host:
# docs/measurements.md); align=off: never held back to real time.
ICOUNT_OPTION = "shift=auto,align=off,sleep=off"
# The RTC on the host's clock (QEMU's default, stated: the agent's host
# waits rely on it).
RTC_ARGS = ("-rtc", "base=utc,clock=host")
# What the agent reads the RTC through.
HOST_CLOCK_CONFIG = "CONFIG_DEVPORT"


def parse(name: str) -> str:
    if name not in CLOCKS:
        raise BenchError(f"--clock {name}: unknown (known: "
                         f"{', '.join(CLOCKS)})")
    return name


def parse_list(text: str) -> Tuple[str, ...]:
    """--clocks a,b: each once, in order."""
    names = [n for n in text.split(",") if n]
    if not names:
        raise BenchError("--clocks: no clock named (known: "
                         f"{', '.join(CLOCKS)})")
    for name in names:
        parse(name)
    if len(set(names)) != len(names):
        raise BenchError(f"--clocks {text}: a clock named twice")
    return tuple(names)


def qemu_args(clock: str) -> Tuple[str, ...]:
    if clock == ICOUNT:
        return ("-icount", ICOUNT_OPTION) + RTC_ARGS
    return RTC_ARGS


def why_realtime(accel: str, slowdown: int,
                 config: Optional[Dict[str, str]]) -> str:
    """Why a cell that asked for icount must run in real time ("": it
    need not). config: the kernel's .config (None: not known, the cell
    will not boot)."""
    if accel.split(",")[0] == "kvm":
        return "KVM (icount is TCG-only)"
    if slowdown > 1:
        return "slow debug kernel"
    if config is not None and config.get(HOST_CLOCK_CONFIG) != "y":
        return f"no {HOST_CLOCK_CONFIG} (the agent's host clock)"
    return ""


def for_cell(requested: str, accel: str, slowdown: int,
             config: Optional[Dict[str, str]]) -> str:
    if requested == REALTIME or why_realtime(accel, slowdown, config):
        return REALTIME
    return ICOUNT
