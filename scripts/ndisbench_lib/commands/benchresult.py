"""What a bench produces (bench.py measures, bench.md and benchhtml.py
render): the goals, the figures' columns, the result and the notes under
the tables."""
import dataclasses
import statistics
from typing import Dict, List, Optional

from .. import devices
from ..progress import fmt_secs
from ..report.guestprofile import GuestProfile

# (what, device, reference, metric, comparison, target): the bench's speed
# goals, a wrapped device against its reference on the same emulated
# hardware (the first ones were 0.5, 1.5 and 0.9).
TARGETS = (
    ("PCI wrapped TCP throughput", "bcm43xx/ndiswrapper", "e1000",
     "tcp_mbps", ">=", 0.8),
    ("PCI wrapped ping RTT p50", "bcm43xx/ndiswrapper", "e1000",
     "rtt_p50_us", "<=", 1.2),
    ("USB wrapped TCP throughput", "rtl8187/ndiswrapper", "rtl8187/native",
     "tcp_mbps", ">=", 1.0),
)
# Between a device and its kernel in a row label of a bench of several.
ON = " on "
# Column order and headings of the per-device table.
METRICS = (
    ("tcp_mbps", "TCP MB/s"), ("wpa2_tcp_mbps", "WPA2 TCP MB/s"),
    ("rtt_p50_us", "RTT p50 us"),
    ("rtt_p99_us", "RTT p99 us"), ("udp_pps", "64 B pkt/s"),
    ("boot_s", "boot s"), ("load_ms", "load ms"), ("bind_ms", "bind ms"),
    ("assoc_ms", "assoc ms"), ("dhcp_ms", "dhcp ms"),
    ("traffic_s", "traffic s"), ("cell_s", "cell s"),
)


@dataclasses.dataclass
class BenchResult:
    bench_id: str
    kernel: str
    rounds: int
    accel: str = ""
    runs: List[str] = dataclasses.field(default_factory=list)
    # device label -> metric -> one value per round that produced it
    samples: Dict[str, Dict[str, List[float]]] = dataclasses.field(
        default_factory=dict)
    failures: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    matrix_wall_s: Optional[float] = None
    # --matrix: its cells' phases added up (phases.summary)
    matrix_phases: Dict[str, object] = dataclasses.field(
        default_factory=dict)
    # --matrix --clocks: per clock its run, wall_s, jobs, cells, verdict
    # counts, the kernels that fell back to real time, and phases
    matrix_clocks: Dict[str, Dict[str, object]] = dataclasses.field(
        default_factory=dict)
    # --matrix: `run --kernel all --arch all`, warm: its run, wall_s, jobs,
    # cells, kernels, verdict counts and how its guests started
    whole_axis: Dict[str, object] = dataclasses.field(default_factory=dict)
    # --edit-cycle: one wrapper .c edited, module rebuilt, one cell rerun
    edit_cycle: Dict[str, object] = dataclasses.field(default_factory=dict)
    # 1-minute load average before and after: a busy host slows every
    # device alike, but it explains absolute numbers.
    load: List[float] = dataclasses.field(default_factory=list)
    # --kernel K1 K2 ...: every device booted on each, side by side (the
    # i386 rows beside the x86-64 ones); one kernel: [kernel].
    kernels: List[str] = dataclasses.field(default_factory=list)
    # --profile: per row, the agent's samples of its tcp streams, summed
    profiles: Dict[str, GuestProfile] = dataclasses.field(
        default_factory=dict)

    def __post_init__(self) -> None:
        if not self.kernels:
            self.kernels = [self.kernel]

    def row(self, kernel: str, device: str) -> str:
        """A samples key: the device, and with several kernels, which."""
        return device if len(self.kernels) == 1 else f"{device}{ON}{kernel}"

    @staticmethod
    def device_of(row: str) -> str:
        return row.split(ON, 1)[0]

    def median(self, device: str, metric: str) -> Optional[float]:
        values = self.samples.get(device, {}).get(metric)
        return statistics.median(values) if values else None

    def ratios(self) -> List[Dict[str, object]]:
        """Each goal on each kernel, from that kernel's rows only."""
        rows = []
        for kernel in self.kernels:
            for what, dev, ref, metric, op, target in TARGETS:
                dev, ref = self.row(kernel, dev), self.row(kernel, ref)
                a, b = self.median(dev, metric), self.median(ref, metric)
                ratio = a / b if a is not None and b else None
                met = None if ratio is None else (
                    ratio >= target if op == ">=" else ratio <= target)
                rows.append({"what": what, "kernel": kernel, "device": dev,
                             "reference": ref, "metric": metric,
                             "ratio": ratio, "target": f"{op} {target}",
                             "met": met})
        return rows

    def protected(self) -> List[Dict[str, object]]:
        """Each radio row's TCP over the WPA2 network against over the
        open one (no goal: what CCMP costs on that path); a row without a
        wpa2 figure (no such check on it, or it failed) has ratio None."""
        rows = []
        for row in self.samples:
            if self.device_of(row) not in devices.RADIOS:
                continue
            open_, wpa2 = (self.median(row, "tcp_mbps"),
                           self.median(row, "wpa2_tcp_mbps"))
            rows.append({"device": row, "open": open_, "wpa2": wpa2,
                         "ratio": wpa2 / open_ if wpa2 and open_ else None})
        return rows


def fmt_figure(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}"


PHASES_NOTE = ("boot: QEMU start to the agent's first KTAP line; load: "
               "finit_module of the wrapper; bind: modules loaded to the "
               "interface; assoc: interface up to carrier; traffic: ping + "
               "TCP + UDP; cell: QEMU start to exit.")


def phase_note(summary: Dict[str, object]) -> List[str]:
    rows = summary.get("rows") if summary else None
    if not rows:
        return []
    idle = summary.get("idle_share")
    return ["Where the matrix's cell time went (phases, share of "
            f"{summary['seconds']} s in {summary['cells']} cells): " +
            ", ".join(f"{r['phase']} {float(r['share']) * 100:.0f}%"
                      for r in rows[:8]) +  # type: ignore
            "; idle (the guest halted on its timers): " +
            (f"{float(idle) * 100:.0f}%"  # type: ignore
             if idle is not None else "not read") + "."]


def notes(res: BenchResult) -> List[str]:
    """The paragraphs under the tables, Markdown code spans and all: shared
    by bench.md and bench.html."""
    out = []
    if res.matrix_clocks:
        for name, m in res.matrix_clocks.items():
            verdicts = ", ".join(f"{n} {s}" for s, n in sorted(
                m["verdicts"].items()))  # type: ignore
            fallback = "; ".join(f"{k}: {w}" for k, w in
                                 m["realtime"].items())  # type: ignore
            out.append(f"Matrix, clock {name}, warm cache, -j{m['jobs']}: "
                       f"{fmt_secs(float(m['wall_s']))} wall (goal < 2 "
                       f"min), {m['cells']} cells ({verdicts})" +
                       (f"; real time on {fallback}" if fallback else "")
                       + ".")
            out += phase_note(m["phases"])  # type: ignore
    elif res.matrix_wall_s is not None:
        out.append(f"Default matrix, warm cache: "
                   f"{fmt_secs(res.matrix_wall_s)} wall (goal < 2 min).")
        out += phase_note(res.matrix_phases)
    if res.edit_cycle:
        e = res.edit_cycle
        out.append(f"Edit cycle: `{e['edited']}` edited in a copy of "
                   f"wrapper/, module rebuilt and one `{e['device']}` cell "
                   f"rerun (`run --wrapper-src`): "
                   f"{fmt_secs(float(e['edit_s']))} (goal < 30 s): "
                   f"{fmt_secs(float(e['build_s']))} to rebuild (the "
                   f"host parts and the module, one file recompiled), "
                   f"{fmt_secs(float(e['cell_s']))} the cell; the "
                   f"edit before it, on a fresh work tree: "
                   f"{fmt_secs(float(e['first_build_s']))} to rebuild.")
    for dev, problems in res.failures.items():
        out.append(f"{dev}: " + "; ".join(problems))
    return out + [PHASES_NOTE]
