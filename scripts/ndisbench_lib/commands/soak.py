"""`ndisbench soak`: one guest for minutes of traffic, wrapper reloads and
(on USB rows) hot-unplugs, judged for crashes, lost cycles, lost bytes and
growth of the guest's memory and of QEMU's RSS.

The agent (guest/agent/soak.c) cycles until the time is up: a TCP stream
to a sink of ours, then rmmod + insmod of the wrapper or, every other cycle
on a row QEMU can hot-unplug, a device_del/device_add over QMP
(qmp_requests.py) under a second stream; link and DHCP again; one
`soak_cycle` fact line with MemAvailable, Slab, SUnreclaim, VmallocUsed
and the module refcounts. The host samples QEMU's VmRSS every few seconds
and at each cycle line.

Growth is judged after WARMUP_CYCLES cycles (the first loads fill the
kernel's caches, SUnreclaim rose by ~100 KiB over them on clean runs) as
the Theil-Sen slope over the cycles (the median of the slopes between
every two cycles): one spike (a socket's buffers, a refill of the per-CPU
lists) moves it hardly at all, a leak that adds a little every cycle
moves it by exactly that. A series fails when that slope is above its
per-cycle limit AND it really rose end to end (median of the last ENDS
cycles minus median of the first ENDS) by more than a floor, and by more
than NOISE_K times the series' own noise around its trend: a step or a
saw-tooth (MemAvailable's, ~1 MiB) can tilt the slope but does not rise,
a short run cannot fail on a few KiB of drift, a long one still catches a
small steady leak. The limits (LIMITS) are set from measured clean
10-minute runs (docs/measurements.md, "Soak"), at least twice their trend
there.

Output: out/soak-<stamp>/ with serial.log, soak.json, soak.md.
"""
import dataclasses
import json
import pathlib
import re
import statistics
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

from .. import paths
from ..build.cache import Cache
from ..cell.compose import MEMORY_MB, resolve_accel
from ..cell.parts import host_parts
from ..cell.plan import CellPlan, Probe, prepare
from ..cell.run import run_plan
from ..devices import Device
from ..errors import BenchError
from ..guest import sandbox
from ..kernels import Expectations, Kernel
from ..progress import fmt_secs, say
from ..report import ktap
from ..report.verdict import FAIL, PASS, TIMEOUT, Verdict

WARMUP_CYCLES = 4
ENDS = 5                        # cycles at each end for the rise
MIN_JUDGED_CYCLES = 3           # after the warm-up, for a slope
NOISE_K = 3.0                   # a rise must also beat 3 sigma of noise
SAMPLE_SECS = 5.0               # QEMU RSS sampling period
BOOT_ALLOWANCE_SECS = 240.0     # boot, install, first bind, last cycle
CHECKS = ("bind", "associate", "dhcp")   # what brings the link up first
# TCG's translation cache, MiB. QEMU's default (1 GiB) fills for hours:
# every module load at a new address is translated anew, and VmRSS grew
# by 1 MiB a cycle (95 KiB of it TB metadata on the vCPU thread's malloc
# arena). 16 MiB is flushed every minute or so; VmRSS is then flat.
TCG_TB_MIB = 16
CYCLE_PREFIX = "# soak_cycle: "
# The probe's sinks (services.StreamSink): the measured streams, and the
# streams an unplug cuts (counted, not compared).
STREAM_SINK = "soak-streams"
UNPLUG_SINK = "soak-unplug"
CYCLE_RE = re.compile(r"(\w+)=(\S*)")


@dataclasses.dataclass(frozen=True)
class Limit:
    """A series grows too much: Theil-Sen slope above per_cycle AND its
    rise (median of the last ENDS judged cycles minus median of the
    first ENDS) above floor; KiB."""
    what: str
    per_cycle: float
    floor: float
    falling: bool = False       # a fall is the bad direction


LIMITS = {
    "sunreclaim_kb": Limit("guest SUnreclaim", 4.0, 128.0),
    "vmalloc_used_kb": Limit("guest VmallocUsed", 4.0, 128.0),
    "mem_available_kb": Limit("guest MemAvailable", 64.0, 2048.0,
                              falling=True),
    "qemu_rss_kb": Limit("QEMU VmRSS", 64.0, 8192.0),
    "qemu_own_kb": Limit("QEMU RSS without guest RAM and TCG code", 64.0,
                         4096.0),
}
MEMORY_SERIES = ("sunreclaim_kb", "vmalloc_used_kb", "mem_available_kb")


@dataclasses.dataclass
class Cycle:
    n: int
    kind: str                   # start, reload, hotplug
    ok: bool
    sent: int
    reply: int
    mem_available_kb: int
    slab_kb: int
    sunreclaim_kb: int
    vmalloc_used_kb: int
    refcnt: Dict[str, int]
    ms: int
    t_ms: int
    qemu_rss_kb: Optional[int] = None       # VmRSS
    qemu_own_kb: Optional[int] = None       # without guest RAM, TCG code


def parse_cycle(text: str) -> Cycle:
    """One `# soak_cycle: n=.. kind=.. ...` line (BenchError if bad)."""
    if not text.startswith(CYCLE_PREFIX):
        raise BenchError(f"not a soak_cycle line: {text!r}")
    fields = dict(CYCLE_RE.findall(text[len(CYCLE_PREFIX):]))
    try:
        refcnt = {}
        if fields.get("refcnt", "-") not in ("-", ""):
            for item in fields["refcnt"].split(","):
                name, _, count = item.rpartition(":")
                refcnt[name] = int(count)
        return Cycle(int(fields["n"]), fields["kind"], fields["ok"] == "1",
                     int(fields["sent"]), int(fields["reply"]),
                     int(fields["mem_available_kb"]), int(fields["slab_kb"]),
                     int(fields["sunreclaim_kb"]),
                     int(fields["vmalloc_used_kb"]), refcnt,
                     int(fields["ms"]), int(fields["t_ms"]))
    except (KeyError, ValueError) as exc:
        raise BenchError(f"bad soak_cycle line ({exc}): {text!r}") from exc


# ---- the host's side while the guest runs ----

@dataclasses.dataclass
class RssSample:
    """QEMU's resident memory at one moment, KiB: VmRSS (status), and
    from smaps the guest's RAM (the anonymous mapping of the guest's
    size), TCG's translation cache (the anonymous rwx mapping; it fills
    as the guest runs new code, e.g. each module load at a new address,
    up to its size) and the rest: QEMU's own heap, arenas, libraries."""
    t: float
    vm_rss: int
    guest_ram: int
    tcg_code: int
    own: int


SMAPS_HEAD_RE = re.compile(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ (\d+)"
                           r"\s*(\S*)")
SMAPS_KB_RE = re.compile(r"^(Size|Rss):\s+(\d+) kB")


def split_smaps(smaps: str, guest_ram_kb: int) -> Tuple[int, int, int, int]:
    """(total, guest RAM, TCG code, own) resident KiB of an smaps text."""
    total = ram = code = 0
    kind, size = "own", 0
    for line in smaps.splitlines():
        head = SMAPS_HEAD_RE.match(line)
        if head:
            perms, inode, path = head.groups()
            anon = inode == "0" and not path
            kind = ("code" if anon and "w" in perms and "x" in perms
                    else "anon" if anon else "own")
            continue
        match = SMAPS_KB_RE.match(line)
        if not match:
            continue
        if match.group(1) == "Size":
            size = int(match.group(2))
            continue
        rss = int(match.group(2))
        total += rss
        if kind == "code":
            code += rss
        elif kind == "anon" and size >= guest_ram_kb:
            ram += rss
    return total, ram, code, total - ram - code


def vm_rss_kb(pid: int) -> Optional[int]:
    """VmRSS of a process from /proc/<pid>/status, or None if gone."""
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(match.group(1)) if match else None


class RssSampler:
    """QEMU's VmRSS every SAMPLE_SECS (its pid from QEMU's -pidfile)."""

    def __init__(self, pidfile: pathlib.Path, guest_ram_kb: int,
                 period: float = SAMPLE_SECS) -> None:
        self.pidfile = pidfile
        self.guest_ram_kb = guest_ram_kb
        self.period = period
        self.samples: List[RssSample] = []
        self.lock = threading.Lock()
        self.start = time.monotonic()
        self.pid: Optional[int] = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def now(self) -> Optional[RssSample]:
        with self.lock:
            if self.pid is None:
                try:
                    self.pid = int(self.pidfile.read_text().strip())
                except (OSError, ValueError):
                    return None
            rss = vm_rss_kb(self.pid)
            try:
                smaps = pathlib.Path(f"/proc/{self.pid}/smaps").read_text()
            except OSError:
                return None
            if rss is None:
                return None
            _, ram, code, own = split_smaps(smaps, self.guest_ram_kb)
            sample = RssSample(round(time.monotonic() - self.start, 1),
                               rss, ram, code, own)
            self.samples.append(sample)
            return sample

    def _run(self) -> None:
        while not self.stop.wait(self.period):
            self.now()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(self.period + 1)


# ---- judging (pure) ----

@dataclasses.dataclass
class SoakData:
    """What a soak produced, for judge()."""
    cycles: List[Cycle]
    host_streams: List[int]     # bytes per measured connection, in order
    soak_test: Optional[ktap.KtapTest]
    complete: bool              # the agent finished (KTAP complete)
    problem: str = ""           # first kernel problem line of the log
    wanted_cycles: int = 0      # --cycles, 0: until the time is up
    leak_message: str = "Windows allocations leaked"   # exp.leak_message


@dataclasses.dataclass
class Growth:
    series: str
    first: Optional[float]
    last: Optional[float]
    slope: Optional[float]      # per cycle (Theil-Sen)
    rise: Optional[float]       # median of the last ENDS - of the first
    noise: float = 0.0          # robust sigma around the trend line


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Median of the slopes between every two points (robust to spikes)."""
    slopes = [(ys[j] - ys[i]) / (xs[j] - xs[i])
              for i in range(len(xs)) for j in range(i + 1, len(xs))
              if xs[j] != xs[i]]
    return statistics.median(slopes) if slopes else 0.0


def judged(cycles: Sequence[Cycle]) -> List[Cycle]:
    """The cycles growth is judged over: after the warm-up, finished."""
    return [c for c in cycles if c.n > WARMUP_CYCLES and c.ok]


def growth(cycles: Sequence[Cycle], series: str) -> Growth:
    points = [(c.n, getattr(c, series)) for c in judged(cycles)
              if getattr(c, series) is not None and getattr(c, series) >= 0]
    if len(points) < 2:
        return Growth(series, None, None, None, None)
    xs = [float(x) for x, _ in points]
    ys = [float(y) for _, y in points]
    ends = max(1, min(ENDS, len(ys) // 4))
    rise = statistics.median(ys[-ends:]) - statistics.median(ys[:ends])
    slope = theil_sen(xs, ys)
    return Growth(series, ys[0], ys[-1], slope, rise,
                  robust_sigma(xs, ys, slope))


def robust_sigma(xs: Sequence[float], ys: Sequence[float],
                 slope: float) -> float:
    """1.4826 x the median absolute deviation of the residuals around the
    Theil-Sen line: the series' own noise (KASAN's quarantine makes the
    debug kernel's SUnreclaim swing by hundreds of KiB, src-6.1's by
    tens)."""
    intercept = statistics.median(y - slope * x for x, y in zip(xs, ys))
    residuals = [y - slope * x - intercept for x, y in zip(xs, ys)]
    centre = statistics.median(residuals)
    return 1.4826 * statistics.median(abs(r - centre) for r in residuals)


def growth_verdict(g: Growth, limit: Limit) -> Verdict:
    if g.slope is None or g.rise is None:
        return Verdict(FAIL, f"{limit.what}: fewer than 2 samples "
                                     f"after the warm-up")
    sign = -1.0 if limit.falling else 1.0
    slope, rise = sign * g.slope, sign * g.rise
    floor = max(limit.floor, NOISE_K * g.noise)
    word = "falling" if limit.falling else "growing"
    text = (f"{limit.what} {g.first:.0f} -> {g.last:.0f} KiB, trend "
            f"{g.slope:+.1f} KiB/cycle, {g.rise:+.0f} KiB end to end "
            f"(noise {g.noise:.0f}); fails {word} faster than "
            f"{limit.per_cycle:g} KiB/cycle and by more than {floor:.0f} "
            f"KiB")
    if slope > limit.per_cycle and rise > floor:
        return Verdict(FAIL, text)
    return Verdict(PASS, text)


def judge(data: SoakData) -> Dict[str, Verdict]:
    """Verdicts: kernel, cycles, bytes, leaks, refcounts, guest memory
    series (LIMITS) and QEMU's RSS."""
    out: Dict[str, Verdict] = {}
    out["kernel"] = (Verdict(FAIL, f"kernel reported: "
                                           f"{data.problem}")
                     if data.problem else
                     Verdict(PASS, "no oops, BUG, WARNING, KASAN "
                                           "or kmemleak report"))
    out["cycles"] = cycles_verdict(data)
    out["bytes"] = bytes_verdict(data)
    test = data.soak_test
    leaks = [v for v in (test.all("kmsg") if test else [])
             if data.leak_message in v]
    out["leaks"] = (Verdict(FAIL, f"{len(leaks)} leak report(s): "
                                          f"{leaks[0]}") if leaks else
                    Verdict(PASS, "no Windows allocation leaked at "
                                          "any rmmod"))
    out["refcounts"] = refcount_verdict(data.cycles)
    for series in MEMORY_SERIES + ("qemu_rss_kb", "qemu_own_kb"):
        out[series] = growth_verdict(growth(data.cycles, series),
                                     LIMITS[series])
    return out


def cycles_verdict(data: SoakData) -> Verdict:
    test = data.soak_test
    if test is None:
        return Verdict(FAIL, "no soak result: the agent did not "
                                     "get to the soak or did not finish it")
    work = [c for c in data.cycles if c.n > 0]
    numbers = [c.n for c in work]
    if numbers != list(range(1, len(work) + 1)):
        return Verdict(FAIL, f"cycle lines out of sequence: "
                                     f"{numbers[:20]}")
    failed = [c.n for c in work if not c.ok]
    if failed:
        errors = test.all("soak_error")
        return Verdict(FAIL, f"cycle {failed[0]} ({work[failed[0] - 1].kind}) "
                                     f"failed" + (f": {errors[-1]}"
                                                  if errors else ""))
    claimed = test.fact("soak_cycles")
    if claimed is None or int(claimed) != len(work):
        return Verdict(FAIL, f"agent counted {claimed} cycle(s), "
                                     f"{len(work)} cycle line(s) arrived")
    end = test.fact("soak_end")
    if data.wanted_cycles and len(work) != data.wanted_cycles:
        return Verdict(FAIL, f"{len(work)} of {data.wanted_cycles} "
                                     f"cycles (end: {end})")
    if not data.wanted_cycles and end != "time":
        return Verdict(FAIL, f"soak ended early ({end})")
    if len(work) < WARMUP_CYCLES + MIN_JUDGED_CYCLES:
        return Verdict(FAIL, f"only {len(work)} cycle(s): growth "
                                     f"needs {WARMUP_CYCLES} warm-up + "
                                     f"{MIN_JUDGED_CYCLES}")
    if not test.ok or not data.complete:
        return Verdict(FAIL, "soak or agent did not finish ok")
    kinds = sorted({c.kind for c in work})
    return Verdict(PASS, f"{len(work)} cycles ({', '.join(kinds)}) "
                                 f"all completed")


def bytes_verdict(data: SoakData) -> Verdict:
    work = [c for c in data.cycles if c.n > 0]
    guest = [c.sent for c in work]
    replies = [c.reply for c in work]
    if guest != data.host_streams:
        bad = next((i for i, (a, b) in enumerate(zip(guest,
                                                     data.host_streams))
                    if a != b), min(len(guest), len(data.host_streams)))
        return Verdict(FAIL, f"guest sent {sum(guest)} B in "
                                     f"{len(guest)} stream(s), host got "
                                     f"{sum(data.host_streams)} B in "
                                     f"{len(data.host_streams)}; first "
                                     f"difference at cycle {bad + 1}")
    if replies != guest:
        return Verdict(FAIL, "a sink reply differs from what the "
                                     "guest sent")
    if not guest:
        return Verdict(FAIL, "no stream")
    return Verdict(PASS, f"{sum(guest)} B in {len(guest)} streams, "
                                 f"guest == host for every one")


def refcount_verdict(cycles: Sequence[Cycle]) -> Verdict:
    done = judged(cycles)
    if len(done) < 2:
        return Verdict(FAIL, "fewer than 2 cycles after the warm-up")
    first, last = done[0].refcnt, done[-1].refcnt
    grown = [f"{m} {first.get(m, 0)} -> {n}" for m, n in last.items()
             if n > first.get(m, 0)]
    if grown:
        return Verdict(FAIL, "module refcount grew: " +
                           ", ".join(grown))
    return Verdict(PASS, "module refcounts steady: " + (", ".join(
        f"{m}={n}" for m, n in sorted(last.items())) or "none loadable"))


# ---- the run ----

@dataclasses.dataclass
class SoakResult:
    soak_id: str
    kernel: str
    device: str
    seconds: float
    accel: str = ""
    boot_status: str = ""
    cycles: List[Cycle] = dataclasses.field(default_factory=list)
    host_streams: List[int] = dataclasses.field(default_factory=list)
    unplug_streams: List[int] = dataclasses.field(default_factory=list)
    rss_samples: List[RssSample] = dataclasses.field(default_factory=list)
    qmp_errors: List[str] = dataclasses.field(default_factory=list)
    kmemleak: str = ""          # "scanned" where the kernel has kmemleak
    verdicts: Dict[str, Verdict] = dataclasses.field(
        default_factory=dict)
    wall_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.verdicts) and all(v.ok for v in
                                           self.verdicts.values())


def new_soak_dir(out: pathlib.Path) -> pathlib.Path:
    return paths.new_stamped_dir(out, "soak-", "soak")


def soak_param(seconds: int, port: int, unplug_port: int,
               cycles: int) -> str:
    return f"ndisbench.soak={seconds}:{port}:{unplug_port}:{cycles}"


class CycleWatch:
    """The soak's console hook while it runs: each `soak_cycle` line
    parsed, with QEMU's RSS sampled at it (the cell's services answer the
    QMP requests of the unplug cycles)."""

    def __init__(self, res: "SoakResult", pidfile: pathlib.Path) -> None:
        self.res = res
        self.pidfile = pidfile
        self.sampler: Optional[RssSampler] = None

    def start(self) -> None:
        """Just before QEMU starts: the sampler waits for its pidfile."""
        self.sampler = RssSampler(self.pidfile, MEMORY_MB * 1024)

    def on_line(self, text: str) -> Optional[str]:
        if not text.startswith(CYCLE_PREFIX):
            return None
        sample = self.sampler.now() if self.sampler else None
        try:
            cycle = parse_cycle(text)
        except BenchError as exc:
            return str(exc)
        if sample:
            cycle.qemu_rss_kb = sample.vm_rss
            cycle.qemu_own_kb = sample.own
        self.res.cycles.append(cycle)
        say("soak", f"cycle {cycle.n} {cycle.kind} "
                    f"{'ok' if cycle.ok else 'FAILED'}: "
                    f"{cycle.sent} B, SUnreclaim "
                    f"{cycle.sunreclaim_kb} KiB, QEMU RSS "
                    f"{sample.vm_rss // 1024 if sample else '-'} "
                    f"MiB (own "
                    f"{sample.own // 1024 if sample else '-'} MiB)")
        return None

    def close(self) -> None:
        if self.sampler:
            self.sampler.close()
            self.res.rss_samples = list(self.sampler.samples)


def run(kernel: Kernel, device: Device, exp: Expectations, cache: Cache,
        out: pathlib.Path, minutes: float, cycles: int, accel: str
        ) -> SoakResult:
    if minutes <= 0:
        raise BenchError(f"--minutes {minutes}: must be more than 0")
    if cycles < 0:
        raise BenchError(f"--cycles {cycles}: must be 0 or more")
    if not device.fixture:
        raise BenchError(f"--device {device.label}: the soak reloads the "
                         f"wrapper; pick a wrapped device")
    seconds = max(1, round(minutes * 60))
    parts = host_parts([device], cache)
    prep = prepare(kernel, cache, exp, ["ndiswrapper"])
    if prep.error:
        raise prep.error
    accel = resolve_accel(accel, [prep], exp, parts)
    soak_dir = new_soak_dir(out)
    res = SoakResult(soak_dir.name, kernel.name, device.label, seconds,
                     accel)
    pidfile = soak_dir / "qemu.pid"
    unplug = (UNPLUG_SINK,) if device.hotplug else ()

    def params(ports: Dict[str, int]) -> Tuple[str, ...]:
        return (soak_param(seconds, ports[STREAM_SINK],
                           ports.get(UNPLUG_SINK, 0), cycles),)

    watch = CycleWatch(res, pidfile)
    plan = CellPlan(
        kernel, device, CHECKS, exp, soak_dir, soak_dir,
        f"{accel},tb-size={TCG_TB_MIB}" if accel == "tcg" else accel,
        seconds + BOOT_ALLOWANCE_SECS,
        probe=Probe((STREAM_SINK,) + unplug, bool(device.hotplug), params),
        extra_qemu_args=("-pidfile", str(pidfile)))
    say("soak", f"{kernel.name} / {device.label}: {fmt_secs(seconds)} "
                f"of cycles, accel {accel}, results in {soak_dir}")
    try:
        done = run_plan(plan, prep, parts, watch.on_line, watch.start)
    finally:
        watch.close()
        # QEMU wrote it as root; after -runas it cannot remove it itself
        pidfile.unlink(missing_ok=True)
    boot, guest = done.boot, done.guest
    if boot is None or guest is None:
        raise BenchError(next(iter(done.result.verdicts.values())).summary)
    res.boot_status = boot.status
    res.wall_seconds = round(boot.seconds, 1)
    res.host_streams = guest.streams.get(STREAM_SINK, [])
    res.unplug_streams = guest.streams.get(UNPLUG_SINK, [])
    res.qmp_errors = list(guest.qmp_errors)
    log = guest.serial.log
    final = log.test("unload")
    res.kmemleak = ("scanned" if final and final.fact("kmemleak_scanned")
                    else "not in this kernel")
    data = SoakData(res.cycles, res.host_streams, log.test("soak"),
                    log.complete, guest.serial.problem, cycles,
                    exp.leak_message)
    res.verdicts = judge(data)
    res.verdicts["sandbox"] = sandbox.judge(boot.qemu_ids)
    if boot.status == "timeout":
        res.verdicts["cycles"] = Verdict(
            TIMEOUT, f"guest killed after {fmt_secs(boot.seconds)}")
    if res.qmp_errors:
        res.verdicts["cycles"] = Verdict(
            FAIL, f"QMP: {res.qmp_errors[0]}")
    write(soak_dir, res)
    return res


# ---- output ----

def figures(res: SoakResult) -> Dict[str, object]:
    """Start/end figures of the run, for soak.md and the summary."""
    work = [c for c in res.cycles if c.n > 0]
    start = next((c for c in res.cycles if c.n == 0), None)
    last = work[-1] if work else None
    rss = [s.vm_rss for s in res.rss_samples]

    def pair(attr: str) -> Tuple[Optional[int], Optional[int]]:
        return (getattr(start, attr) if start else None,
                getattr(last, attr) if last else None)

    return {
        "cycles": len(work),
        "reload": sum(c.kind == "reload" for c in work),
        "hotplug": sum(c.kind == "hotplug" for c in work),
        "guest_bytes": sum(c.sent for c in work),
        "host_bytes": sum(res.host_streams),
        "unplug_stream_bytes": sum(res.unplug_streams),
        "rss_kb": pair("qemu_rss_kb"),
        "own_kb": pair("qemu_own_kb"),
        "rss_max_kb": max(rss) if rss else None,
        "slab_kb": pair("slab_kb"),
        "sunreclaim_kb": pair("sunreclaim_kb"),
        "vmalloc_used_kb": pair("vmalloc_used_kb"),
        "mem_available_kb": pair("mem_available_kb"),
    }


def summary_line(res: SoakResult) -> str:
    f = figures(res)
    bad = [k for k, v in res.verdicts.items() if not v.ok]
    rss, own, slab = f["rss_kb"], f["own_kb"], f["slab_kb"]
    assert isinstance(rss, tuple) and isinstance(slab, tuple)
    assert isinstance(own, tuple)
    mib = (lambda kb: "-" if kb is None else f"{kb / 1024:.0f}")
    return (f"soak {res.kernel} {res.device}: "
            f"{'PASS' if res.ok else 'FAIL (' + ', '.join(bad) + ')'}; "
            f"{f['cycles']} cycles ({f['reload']} reload, {f['hotplug']} "
            f"hotplug) in {fmt_secs(res.wall_seconds)}, "
            f"{f['guest_bytes']} B guest / {f['host_bytes']} B host, "
            f"QEMU RSS {mib(rss[0])} -> {mib(rss[1])} MiB (own "
            f"{mib(own[0])} -> {mib(own[1])}), slab "
            f"{slab[0]} -> {slab[1]} KiB")


def markdown(res: SoakResult) -> str:
    f = figures(res)
    out = [f"# ndisbench soak {res.soak_id}", "",
           f"Kernel `{res.kernel}`, device `{res.device}`, "
           f"{fmt_secs(res.seconds)} of cycles asked, accel {res.accel}, "
           f"guest {res.boot_status} after {fmt_secs(res.wall_seconds)}. "
           f"Growth judged after {WARMUP_CYCLES} warm-up cycles (Theil-Sen "
           f"slope per cycle).", "",
           "| verdict | result | detail |", "|---|---|---|"]
    for name, v in res.verdicts.items():
        out.append(f"| {name} | {v.status} | {v.summary} |")
    out += ["", f"kmemleak at the end: {res.kmemleak}.", "",
            f"Bytes: guest {f['guest_bytes']}, host "
                f"{f['host_bytes']} (plus {f['unplug_stream_bytes']} in "
                f"streams cut by unplugs, not compared).", "",
            "| n | kind | ok | bytes | MemAvailable KiB | Slab KiB | "
            "SUnreclaim KiB | VmallocUsed KiB | QEMU VmRSS KiB | "
            "QEMU own KiB | ms | refcnt |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in res.cycles:
        out.append(f"| {c.n} | {c.kind} | {'yes' if c.ok else '**no**'} | "
                   f"{c.sent} | {c.mem_available_kb} | {c.slab_kb} | "
                   f"{c.sunreclaim_kb} | {c.vmalloc_used_kb} | "
                   f"{'-' if c.qemu_rss_kb is None else c.qemu_rss_kb} | "
                   f"{'-' if c.qemu_own_kb is None else c.qemu_own_kb} | "
                   f"{c.ms} | "
                   + ", ".join(f"{m}={n}" for m, n in sorted(
                       c.refcnt.items())) + " |")
    return "\n".join(out) + "\n"


def write(soak_dir: pathlib.Path, res: SoakResult) -> None:
    data = dataclasses.asdict(res)
    data["verdicts"] = {k: dataclasses.asdict(v)
                        for k, v in res.verdicts.items()}
    data["figures"] = figures(res)
    data["limits"] = {k: dataclasses.asdict(v) for k, v in LIMITS.items()}
    data["warmup_cycles"] = WARMUP_CYCLES
    data["summary"] = summary_line(res)
    (soak_dir / "soak.json").write_text(json.dumps(data, indent=1))
    (soak_dir / "soak.md").write_text(markdown(res))
