"""The guest's own sampler (guest/agent/profile.c, `bench --profile`): the
facts its tcp test states, parsed, summed over a bench's rounds and shown
in bench.md.

    # profile_samples: <n> lost <m> at <hz> Hz
    # profile_where: <share>% <n> <kernel|user|module|no symbol>
    # profile: <share>% <n> <symbol>[ [<module>]]
    # profile_nosym: <share>% <n> <vmalloc caller>+0x<offset> | 0x<addr>
    # profile_error: <why sampling could not start>

"no symbol" is kernel memory no text symbol covers: a wrapped driver's
Windows image. profile_nosym names such samples, in 16-byte bins, by the
/proc/vmallocinfo region they fall in (its caller: the wrapper's function
that mapped the image) and the offset there: for our wrapper, the image's
base, so the offset is the address relative to the .sys's image base
(objdump -d --adjust-vma, or its .pdata, names the function). The agent states only its heaviest symbols, so a sum over
rounds is a sum of each round's heaviest."""
import dataclasses
import re
from typing import Dict, List, Mapping, Optional, Tuple

from ..errors import BenchError
from .ktap import KtapTest

SAMPLES_RE = re.compile(r"^(\d+) lost (\d+) at (\d+) Hz$")
SHARE_RE = re.compile(r"^[0-9.]+% (\d+) (.+)$")


@dataclasses.dataclass
class GuestProfile:
    samples: int = 0
    lost: int = 0
    hz: int = 0
    where: Dict[str, int] = dataclasses.field(default_factory=dict)
    symbols: Dict[str, int] = dataclasses.field(default_factory=dict)
    nosym: Dict[str, int] = dataclasses.field(default_factory=dict)

    def add(self, other: "GuestProfile") -> None:
        self.samples += other.samples
        self.lost += other.lost
        self.hz = self.hz or other.hz
        for mine, theirs in ((self.where, other.where),
                             (self.symbols, other.symbols),
                             (self.nosym, other.nosym)):
            for name, n in theirs.items():
                mine[name] = mine.get(name, 0) + n


def _share(key: str, value: str) -> Tuple[str, int]:
    m = SHARE_RE.match(value)
    if not m:
        raise BenchError(f"guest profile: malformed {key} fact {value!r}")
    return m.group(2), int(m.group(1))


def parse(test: Optional[KtapTest]) -> Optional[GuestProfile]:
    """The tcp test's profile; None where it was not sampled."""
    if test is None:
        return None
    error = test.fact("profile_error")
    if error is not None:
        raise BenchError(f"guest profile: the agent could not sample: "
                         f"{error}")
    head = test.fact("profile_samples")
    if head is None:
        return None
    m = SAMPLES_RE.match(head)
    if not m:
        raise BenchError(f"guest profile: malformed profile_samples fact "
                         f"{head!r}")
    prof = GuestProfile(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for key, into in (("profile_where", prof.where),
                      ("profile", prof.symbols),
                      ("profile_nosym", prof.nosym)):
        for value in test.all(key):
            name, n = _share(key, value)
            into[name] = into.get(name, 0) + n
    return prof


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.1f}%" if total else "-"


def markdown(profiles: Mapping[str, GuestProfile], top: int = 15
             ) -> List[str]:
    """bench.md's section: per row, where the samples fell and the
    heaviest symbols."""
    if not profiles:
        return []
    out = ["", "### Where the guest's CPU goes during the TCP stream", "",
           "The agent's sampler (`bench --profile`): the kernel's "
           "cpu-clock, every CPU, kernel and user; \"no symbol\" is kernel "
           "code outside every text symbol (a wrapped driver's Windows "
           "image). Code that runs with interrupts off is charged where "
           "they come on again."]
    for row, p in profiles.items():
        where = sorted(p.where.items(), key=lambda kv: (-kv[1], kv[0]))
        out += ["", f"**{row}**: {p.samples} samples at {p.hz} Hz, "
                    f"{p.lost} lost; " + ", ".join(
                        f"{name} {_pct(n, p.samples)}" for name, n in where),
                "", "| symbol | share |", "|---|---:|"]
        syms = sorted(p.symbols.items(), key=lambda kv: (-kv[1], kv[0]))
        out += [f"| {name} | {_pct(n, p.samples)} |"
                for name, n in syms[:top]]
        if p.nosym:
            out += ["", "| no symbol: vmalloc region + offset | share |",
                    "|---|---:|"]
            nosym = sorted(p.nosym.items(), key=lambda kv: (-kv[1], kv[0]))
            out += [f"| {name} | {_pct(n, p.samples)} |"
                    for name, n in nosym[:top]]
    return out
