"""`ndisbench bench`: the wrapped devices measured side by side with their
references in one run, never against absolute numbers (these shared
machines drift): TCP bulk, ping RTT, small-packet rate, and where a cell's
time goes (guest boot, module load, bind, association, traffic).

Every round boots each device once on the same kernel, one guest at a time
(a parallel guest would be measured too), the device order reversed every
other round so drift does not favour one side; the figures are medians
over the rounds. Results: out/bench-<stamp>/bench.json, bench.md and
bench.html (benchhtml.py), next to the ordinary run folders of the rounds.
"""
import collections
import dataclasses
import datetime
import json
import os
import pathlib
import shutil
import statistics
import tempfile
import time
from typing import Dict, List, Optional, Sequence

from .. import devices, paths
from ..build.cache import Cache
from ..checks import registry
from ..checks.facts import iface_test
from ..errors import BenchError
from ..guest import clock as guest_clock
from ..kernels import Expectations, Kernel
from ..progress import fmt_secs, say
from ..report import guestprofile, ktap, report
from ..report.verdict import PASS
from ..cell import phases, runner
from .benchresult import (METRICS, TARGETS, BenchResult,  # noqa: F401
                          PHASES_NOTE, fmt_figure, notes)

DEVICES = ("e1000", "bcm43xx/ndiswrapper", "rtl8187/ndiswrapper",
           "rtl8187/native")
# wpa2 where the row has it: the same stream over the WPA2 network.
CHECKS = ("load", "bind", "associate", "dhcp", "ping", "tcp", "udp",
          "wpa2", "sandbox")
# At least 64 MiB or 5 s a figure: a shorter stream measures its start,
# not the path.
TCP_BYTES = 64 << 20

def _num(value: Optional[str]) -> Optional[float]:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def cell_metrics(run_dir: pathlib.Path, cell: report.CellResult,
                 tcp_bytes: int) -> Dict[str, float]:
    """The numbers of one cell, from its KTAP facts and the host's sinks;
    only those of checks that passed."""
    log = ktap.parse((run_dir / cell.folder / "ktap.txt").read_text())
    ok = {c for c, v in cell.verdicts.items() if v.status == PASS}
    out: Dict[str, Optional[float]] = {
        "boot_s": cell.first_ktap_seconds, "cell_s": cell.boot_seconds}
    insmod = next((t for t in log.tests if t.name.startswith("insmod ")),
                  None)
    if insmod:
        out["load_ms"] = _num(insmod.fact("load_ms"))
    iface = iface_test(log)
    if iface:
        out["bind_ms"] = _num(iface.fact("appeared_ms"))
    link = log.test("associate")
    if link and link.ok:
        out["assoc_ms"] = _num(link.fact("carrier_ms"))
    dhcp = log.test("dhcp")
    if "dhcp" in ok and dhcp:
        out["dhcp_ms"] = _num(dhcp.fact("dhcp_ms"))
    ping = log.test("ping")
    if "ping" in ok and ping:
        out["rtt_p50_us"] = _num(ping.fact("rtt_p50_us"))
        out["rtt_p99_us"] = _num(ping.fact("rtt_p99_us"))
    tcp = log.test("tcp")
    seconds = _num(tcp.fact("seconds")) if tcp else None
    if "tcp" in ok and seconds:
        out["tcp_mbps"] = tcp_bytes / seconds / 1e6
    wpa2 = log.test("wpa2")
    # its last `seconds` is the stream's (the first, its pings')
    wpa2_times = list(wpa2.all("seconds")) if wpa2 else []
    wpa2_secs = _num(wpa2_times[-1]) if wpa2_times else None
    if "wpa2" in ok and wpa2_secs:
        out["wpa2_tcp_mbps"] = tcp_bytes / wpa2_secs / 1e6
    udp = log.test("udp")
    udp_secs = _num(udp.fact("seconds")) if udp else None
    if "udp" in ok and udp_secs and cell.sinks.get("udp"):
        out["udp_pps"] = cell.sinks["udp"] / udp_secs
    traffic = [_num(t.fact("seconds")) if t and t.name in ok else None
               for t in (ping, tcp, udp)]
    if all(traffic):
        out["traffic_s"] = sum(t or 0 for t in traffic)
    return {k: float(v) for k, v in out.items() if v is not None}


def add_profile(res: BenchResult, run_dir: pathlib.Path,
                cell: report.CellResult, row: str, round_no: int) -> None:
    """--profile: the cell's tcp samples into the row's sum; where the agent
    could not sample, the round's failure says why."""
    log = ktap.parse((run_dir / cell.folder / "ktap.txt").read_text())
    try:
        prof = guestprofile.parse(log.test("tcp"))
    except BenchError as exc:
        res.failures.setdefault(row, []).append(
            f"round {round_no}: profile: {exc}")
        return
    if prof is None:
        return
    if row in res.profiles:
        res.profiles[row].add(prof)
    else:
        res.profiles[row] = prof


def markdown(res: BenchResult) -> str:
    kernels = ", ".join(f"`{k}`" for k in res.kernels)
    out = [f"# ndisbench bench {res.bench_id}", "",
           f"Kernel{'s' if len(res.kernels) > 1 else ''} {kernels}, "
           f"{res.rounds} round(s), accel "
           f"{res.accel}, medians; one guest at a time; host load "
           f"{' -> '.join(f'{x:.1f}' for x in res.load)} on "
           f"{os.cpu_count()} CPUs. Runs: "
           + ", ".join(f"`{r}`" for r in res.runs) + ".", "",
           "| device | " + " | ".join(h for _, h in METRICS) + " |",
           "|---|" + "---:|" * len(METRICS)]
    for dev in res.samples:
        out.append(f"| {dev} | " + " | ".join(
            fmt_figure(res.median(dev, m)) for m, _ in METRICS) + " |")
    out += ["", "| target | ratio | goal | met |", "|---|---:|---|---|"]
    for r in res.ratios():
        met = {None: "no data", True: "yes", False: "**no**"}[r["met"]]
        ratio = r["ratio"] if isinstance(r["ratio"], float) else None
        out.append(f"| {r['what']} ({r['device']} / {r['reference']}, "
                   f"{r['metric']}) | {fmt_figure(ratio)} | "
                   f"{r['target']} | {met} |")
    protected = res.protected()
    if protected:
        out += ["", "| radio row | open TCP MB/s | WPA2 TCP MB/s | "
                "protected/open |", "|---|---:|---:|---:|"]
        for r in protected:
            ratio = r["ratio"] if isinstance(r["ratio"], float) else None
            out.append(f"| {r['device']} | {fmt_figure(r['open'])} | "  # type: ignore
                       f"{fmt_figure(r['wpa2'])} | "  # type: ignore
                       + (fmt_figure(ratio) if ratio is not None
                          else "no wpa2 figure") + " |")
    for line in notes(res):
        out += ["", line]
    out += matrices_table(res)
    for name, m in res.matrix_clocks.items():
        out += ["", f"### The matrix, clock {name} (run `{m['run']}`)",
                ""]
        if m.get("starts"):
            out += ["Guests: " + ", ".join(
                f"{n} {how}" for how, n in sorted(
                    m["starts"].items())) + " (restored: from the saved "  # type: ignore
                "boot of the same machine; saved: booted, and saved for "
                "the next run).", ""]
        out += phases.markdown(m["phases"])  # type: ignore
    if res.matrix_phases and not res.matrix_clocks:
        out += [""] + phases.markdown(res.matrix_phases)
    out += guestprofile.markdown(res.profiles)
    return "\n".join(out) + "\n"


def write(out: pathlib.Path, res: BenchResult) -> pathlib.Path:
    """out/<bench id>/: bench.json, bench.md and bench.html."""
    from . import benchhtml
    bench_dir = out / res.bench_id
    bench_dir.mkdir(parents=True, exist_ok=True)
    (bench_dir / "bench.json").write_text(json.dumps(
        {**dataclasses.asdict(res), "ratios": res.ratios(),
         "medians": {d: {m: res.median(d, m) for m, _ in METRICS}
                     for d in res.samples}}, indent=1))
    (bench_dir / "bench.md").write_text(markdown(res))
    benchhtml.write(bench_dir, res)
    return bench_dir


# The edit-cycle target: what a wrapper developer reruns after a change.
EDIT_DEVICE = "bcm43xx/ndiswrapper"
EDIT_FILE = "driver/ndis.c"


def _timed_cell(kernel: Kernel, exp: Expectations, cache: Cache,
                out: pathlib.Path, timeout: float, accel: str,
                src: pathlib.Path, res: BenchResult) -> Dict[str, float]:
    """One cell of EDIT_DEVICE built from src: wall time, and the part of
    it before the guest started (the builds)."""
    dev = devices.DEVICES[EDIT_DEVICE]
    checks = registry.for_device(dev, registry.default_names())
    start = time.monotonic()
    result = runner.run(runner.Matrix([kernel], [dev], checks, exp, src,
                                      TCP_BYTES), cache, out, 1, timeout,
                        accel, clock=guest_clock.DEFAULT)
    wall = time.monotonic() - start
    res.runs.append(result.run_id)
    cell = result.cells[0]
    bad = [f"{c} {v.status}" for c, v in cell.verdicts.items()
           if v.status != PASS]
    if bad:
        res.failures.setdefault(f"edit cycle {cell.label}", []).append(
            ", ".join(bad))
    return {"wall": wall, "cell": cell.boot_seconds or 0.0,
            "build": wall - (cell.boot_seconds or 0.0)}


def _edit(src: pathlib.Path, n: int) -> None:
    """Append a comment to EDIT_FILE: a new module cache key, as any edit
    gives, and a newer file for make."""
    edited = src / EDIT_FILE
    stamp = datetime.datetime.now().isoformat()
    edited.write_text(edited.read_text() +
                      f"/* ndisbench bench edit {n} {stamp} */\n")


def edit_cycle(kernel: Kernel, exp: Expectations, cache: Cache,
               out: pathlib.Path, timeout: float, accel: str,
               res: BenchResult) -> None:
    """Time what a developer waits for after editing one wrapper .c: the
    module rebuild and one cell. Done on a copy of wrapper/ (the checkout
    is never touched) built through `run --wrapper-src`: a first edit
    brings the module's work tree up to date (a whole build if it had
    another tree's files), the second edit is the one timed."""
    with tempfile.TemporaryDirectory(prefix="ndisbench-edit-") as tmp:
        src = pathlib.Path(tmp) / "wrapper"
        shutil.copytree(paths.REPO / "wrapper", src,
                        ignore=shutil.ignore_patterns(".*", "*.o", "*.ko"))
        say("bench", f"edit cycle: {EDIT_DEVICE} from a copy of wrapper/, "
                     f"{EDIT_FILE} edited (first edit: the work tree)")
        _edit(src, 1)
        first = _timed_cell(kernel, exp, cache, out, timeout, accel, src, res)
        say("bench", f"edit cycle: {EDIT_FILE} edited again; timed")
        _edit(src, 2)
        edit = _timed_cell(kernel, exp, cache, out, timeout, accel, src, res)
    res.edit_cycle = {"device": EDIT_DEVICE, "edited": EDIT_FILE,
                      "edit_s": edit["wall"], "build_s": edit["build"],
                      "cell_s": edit["cell"],
                      "first_build_s": first["build"]}


def starts(cells: Sequence[report.CellResult]) -> Dict[str, int]:
    """How many guests were restored, saved or booted."""
    return dict(collections.Counter(c.start or "booted" for c in cells))


def time_matrix(matrix: runner.Matrix, cache: Cache, out: pathlib.Path,
                timeout: float, accel: str, clocks: Sequence[str],
                jobs: int, res: BenchResult) -> None:
    """The matrix, warm, as `ndisbench run` runs it, once per clock one
    after the other: each one's wall time, phases and verdicts. The last
    clock's are also matrix_wall_s and matrix_phases."""
    for name in clocks:
        say("bench", f"the matrix, warm, as `ndisbench run --clock {name} "
                     f"-j{jobs}` runs it")
        start = time.monotonic()
        mres = runner.run(matrix, cache, out, jobs, timeout, accel,
                          clock=name)
        wall = time.monotonic() - start
        res.runs.append(mres.run_id)
        summary = phases.summary(out / mres.run_id, mres.cells)
        res.matrix_clocks[name] = {
            "run": mres.run_id, "wall_s": wall, "jobs": jobs,
            "cells": len(mres.cells),
            "kernels": len({c.kernel for c in mres.cells}),
            "verdicts": mres.counts(),
            "realtime": dict(mres.realtime), "phases": summary,
            "starts": starts(mres.cells)}
        res.matrix_wall_s, res.matrix_phases = wall, summary


# The whole axis restored from saved boots: the goal on 2 cores.
WHOLE_AXIS_GOAL_S = 300.0


def time_whole_axis(matrix: runner.Matrix, cache: Cache, out: pathlib.Path,
                    timeout: float, accel: str, jobs: int,
                    res: BenchResult) -> None:
    """Every kernel of every architecture, warm, as `ndisbench run --kernel
    all --arch all` runs it (the default clock)."""
    say("bench", f"the whole axis, warm, as `ndisbench run --kernel all "
                 f"--arch all -j{jobs}` runs it")
    start = time.monotonic()
    mres = runner.run(matrix, cache, out, jobs, timeout, accel,
                      clock=guest_clock.DEFAULT)
    wall = time.monotonic() - start
    res.runs.append(mres.run_id)
    res.whole_axis = {"run": mres.run_id, "wall_s": wall, "jobs": jobs,
                      "cells": len(mres.cells),
                      "kernels": len({c.kernel for c in mres.cells}),
                      "verdicts": mres.counts(),
                      "starts": starts(mres.cells)}


def matrices_table(res: BenchResult) -> List[str]:
    """The default matrix (the last clock timed) and the whole axis, side
    by side."""
    def guests(counts: Dict[str, int]) -> str:
        return ", ".join(f"{n} {how}" for how, n in sorted(counts.items()))

    rows = []
    if res.matrix_clocks:
        m = list(res.matrix_clocks.values())[-1]
        cells = m.get("cells", 0)
        rows.append(f"| default (`run`) | {m.get('kernels', '?')} | "
                    f"{cells} | {guests(m.get('starts', {}))} | "  # type: ignore
                    f"{fmt_secs(m['wall_s'])} |  |")  # type: ignore
    if res.whole_axis:
        a = res.whole_axis
        met = "yes" if a["wall_s"] <= WHOLE_AXIS_GOAL_S else "**no**"  # type: ignore
        rows.append(f"| whole axis (`run --kernel all --arch all`) | "
                    f"{a['kernels']} | {a['cells']} | "
                    f"{guests(a['starts'])} | "  # type: ignore
                    f"{fmt_secs(a['wall_s'])} | {met} |")  # type: ignore
    if not rows:
        return []
    return ["", "| matrix | kernels | cells | guests | wall | "
                "whole axis <= 5 min |", "|---|---:|---:|---|---:|---|"] + rows


def run(kernels: Sequence[Kernel], exp: Expectations, cache: Cache,
        out: pathlib.Path, rounds: int, timeout: float, accel: str,
        device_names: Sequence[str] = DEVICES, matrix: bool = False,
        default_matrix: Optional[runner.Matrix] = None,
        edit: bool = False,
        clocks: Sequence[str] = (guest_clock.DEFAULT,),
        matrix_jobs: int = 0,
        whole_axis: Optional[runner.Matrix] = None,
        profile_hz: int = 0) -> BenchResult:
    """Each round boots every device on every kernel (several: their rows
    side by side, as the i386 ones beside the x86-64 ones); the edit cycle
    uses the first kernel. profile_hz: the agent samples each tcp stream
    (bench.md's profile section)."""
    if rounds < 1:
        raise BenchError(f"--rounds {rounds}: at least 1")
    targets = [devices.DEVICES[n] for n in device_names]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    res = BenchResult(f"bench-{stamp}", kernels[0].name, rounds,
                      load=[os.getloadavg()[0]],
                      kernels=[k.name for k in kernels])
    for n in range(rounds):
        order = targets if n % 2 == 0 else targets[::-1]
        say("bench", f"round {n + 1}/{rounds}: "
                     + ", ".join(d.label for d in order))
        # Real time: the figures (MB/s, RTT, pkt/s) are the guest's own
        # clock over its traffic, which icount would make virtual.
        result = runner.run(runner.Matrix(list(kernels), order, CHECKS, exp,
                                          tcp_bytes=TCP_BYTES,
                                          profile_hz=profile_hz),
                            cache, out, 1, timeout, accel,
                            clock=guest_clock.REALTIME)
        res.accel = result.accel
        res.runs.append(result.run_id)
        for cell in result.cells:
            row = res.row(cell.kernel, cell.label)
            bad = [f"{c} {v.status}" for c, v in cell.verdicts.items()
                   if v.status != PASS]
            if bad:
                res.failures.setdefault(row, []).append(
                    f"round {n + 1}: " + ", ".join(bad))
            metrics = cell_metrics(out / result.run_id, cell, TCP_BYTES)
            if profile_hz:
                add_profile(res, out / result.run_id, cell, row, n + 1)
            per_dev = res.samples.setdefault(row, {})
            for key, value in metrics.items():
                per_dev.setdefault(key, []).append(value)
    rows = [res.row(k.name, d.label) for d in targets for k in kernels]
    res.samples = {r: res.samples.get(r, {}) for r in rows}
    res.load.append(os.getloadavg()[0])
    if matrix and default_matrix is not None:
        time_matrix(default_matrix, cache, out, timeout, accel, clocks,
                    matrix_jobs or runner.default_jobs(), res)
    if matrix and whole_axis is not None:
        time_whole_axis(whole_axis, cache, out, timeout, accel,
                        matrix_jobs or runner.default_jobs(), res)
    if edit:
        edit_cycle(kernels[0], exp, cache, out, timeout, accel, res)
    write(out, res)
    return res
