"""Where a cell's time goes, phase by phase, from the host's side: every
cell of `run` (and so of `bench --matrix`) writes `phases.json` in its
folder; summary() adds them up for a run (bench.md, `report --phases`).

Phases, on the host's monotonic clock:
- setup: the cell's initramfs, sinks and QEMU command, before QEMU starts;
- boot: QEMU start to the agent's `KTAP version` line (QEMU's own start
  and the kernel's boot to /init together: nothing on the console tells
  them apart; the kernel prints nothing at loglevel=2; for a guest
  restored from a saved boot, guest/snapshot.py, QEMU loading it);
- one phase per agent test, from the previous result line to its own
  (consecutive tests of one kind are one phase: the 7 `broken` drivers;
  `insmod` is the module load; `start` is the agent's first test; the
  others are named as the checks they are);
- poweroff: the last result line to QEMU's exit (the agent's last words,
  kmemleak scans on the debug kernel, poweroff);
- judging: QEMU's exit to the cell's verdicts (KTAP, the air capture
  through tshark, the checks);
- own guests: the guests of checks that have one of their own (broken),
  booted and judged after the main guest.
For the guest's phases QEMU's CPU time (all its threads, /proc/<pid>/stat)
and the time its threads waited for a host CPU (/proc/<pid>/task/*/
schedstat) are read at each line; the rest of the phase's wall time is
idle: the guest halted, waiting on its timers (beacons, scan dwell, DHCP,
retransmits, the agent's own waits). QEMU's pid comes from its -pidfile
in the cell folder."""
import json
import os
import pathlib
import re
import time
from typing import Dict, List, Optional, Tuple

from ..report.ktap import DONE_LINE

FILE = "phases.json"
PIDFILE = "qemu.pid"
RESULT_RE = re.compile(r"^(?:not )?ok \d+ (\S+)")
RENAME = {"boot": "start", "insmod": "module load"}
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
Mark = Tuple[str, float, Optional[float], Optional[float]]


def qemu_times(pid: int) -> Tuple[Optional[float], Optional[float]]:
    """(CPU seconds, seconds waited for a CPU) of a process so far."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, ValueError, IndexError):
        return None, None
    wait = 0
    try:
        for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
            wait += int((task / "schedstat").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return cpu, None
    return cpu, wait / 1e9


class Clock:
    """The hooks of one cell's run_plan (before_boot, on_line) and, after
    it, finish() with its CellRun."""

    def __init__(self, folder: pathlib.Path) -> None:
        self.folder = folder
        self.pidfile = folder / PIDFILE
        self.start = time.monotonic()
        self.boot_at: Optional[float] = None
        self.pid: Optional[int] = None
        self.marks: List[Mark] = []
        self.judged_at: Optional[float] = None

    def begin(self) -> None:
        """The cell starts now (its -j slot taken)."""
        self.start = time.monotonic()

    def qemu_args(self) -> Tuple[str, ...]:
        return ("-pidfile", str(self.pidfile))

    def before_boot(self) -> None:
        self.boot_at = time.monotonic()

    def main_judged(self) -> None:
        """The main guest is judged; another guest starts."""
        if self.judged_at is None:
            self.judged_at = time.monotonic()

    def _times(self) -> Tuple[Optional[float], Optional[float]]:
        if self.pid is None:
            try:
                self.pid = int(self.pidfile.read_text().strip())
            except (OSError, ValueError):
                return None, None
        return qemu_times(self.pid)

    def on_line(self, text: str) -> Optional[str]:
        now = time.monotonic()
        if text.startswith("KTAP version") and not self.marks:
            name = "boot"
        elif text == DONE_LINE:
            name = "done"
        else:
            m = RESULT_RE.match(text)
            if not m:
                return None
            name = m.group(1)
            name = RENAME.get(name, name)
        cpu, wait = self._times()
        self.marks.append((name, now, cpu, wait))
        return None

    def finish(self, boot_seconds: Optional[float]) -> Optional[Dict]:
        """phases.json from the marks; None (and no file) for a cell
        whose QEMU never ran."""
        end = time.monotonic()
        try:
            self.pidfile.unlink()
        except OSError:
            pass
        if self.boot_at is None or boot_seconds is None:
            return None
        data = {"phases": phases(self.start, self.boot_at,
                                 self.boot_at + boot_seconds, end,
                                 self.marks, self.judged_at)}
        (self.folder / FILE).write_text(json.dumps(data, indent=1) + "\n")
        return data


def _phase(name: str, seconds: float, cpu: Optional[float] = None,
           wait: Optional[float] = None) -> Dict[str, object]:
    return {"name": name, "seconds": round(max(0.0, seconds), 3),
            "cpu": None if cpu is None else round(cpu, 3),
            "wait": None if wait is None else round(wait, 3)}


def phases(start: float, boot_at: float, exit_at: float, end: float,
           marks: List[Mark], judged_at: Optional[float] = None
           ) -> List[Dict[str, object]]:
    out = [_phase("setup", boot_at - start)]
    prev_t, prev_cpu, prev_wait = boot_at, 0.0, 0.0
    for name, t, cpu, wait in marks:
        if name == "done":
            continue
        d_cpu = None if cpu is None or prev_cpu is None else cpu - prev_cpu
        d_wait = None if wait is None or prev_wait is None \
            else wait - prev_wait
        if out[-1]["name"] == name and name != "boot":
            last = out[-1]
            last["seconds"] = round(float(last["seconds"]) + t - prev_t, 3)
            for key, delta in (("cpu", d_cpu), ("wait", d_wait)):
                last[key] = None if last[key] is None or delta is None \
                    else round(float(last[key]) + delta, 3)
        else:
            out.append(_phase(name, t - prev_t, d_cpu, d_wait))
        prev_t, prev_cpu, prev_wait = t, cpu, wait
    out.append(_phase("poweroff", exit_at - prev_t))
    if judged_at is None:
        out.append(_phase("judging", end - exit_at))
    else:
        out.append(_phase("judging", judged_at - exit_at))
        out.append(_phase("own guests", end - judged_at))
    return out


def summary(run_dir: pathlib.Path, cells) -> Dict[str, object]:
    """The run's phases added up over its cells: seconds, share of all
    cell time, QEMU CPU, CPU wait and idle (only where both were read)."""
    totals: Dict[str, Dict[str, float]] = {}
    counted = 0
    for cell in cells:
        path = run_dir / cell.folder / FILE
        if not path.is_file():
            continue
        counted += 1
        for p in json.loads(path.read_text())["phases"]:
            t = totals.setdefault(p["name"], {"seconds": 0.0, "cpu": 0.0,
                                              "wait": 0.0, "read": 0.0})
            t["seconds"] += p["seconds"]
            if p["cpu"] is not None and p["wait"] is not None:
                t["read"] += p["seconds"]
                t["cpu"] += p["cpu"]
                t["wait"] += p["wait"]
    whole = sum(t["seconds"] for t in totals.values()) or 1.0
    rows = []
    for name, t in sorted(totals.items(), key=lambda kv: -kv[1]["seconds"]):
        idle = max(0.0, t["read"] - t["cpu"] - t["wait"]) if t["read"] \
            else None
        rows.append({"phase": name, "seconds": round(t["seconds"], 2),
                     "share": round(t["seconds"] / whole, 4),
                     "cpu": round(t["cpu"], 2) if t["read"] else None,
                     "wait": round(t["wait"], 2) if t["read"] else None,
                     "idle": None if idle is None else round(idle, 2)})
    read = sum(t["read"] for t in totals.values())
    idle_all = sum(r["idle"] or 0.0 for r in rows)
    return {"cells": counted, "seconds": round(whole, 2) if counted else 0,
            "idle_share": round(idle_all / whole, 4) if read else None,
            "rows": rows}


def markdown(s: Dict[str, object]) -> List[str]:
    if not s.get("cells"):
        return []
    out = [f"Phases of {s['cells']} cell(s), {s['seconds']} s of cell "
           f"time in all; idle (guest halted on its timers: wall minus "
           f"QEMU's CPU and its wait for a host CPU): "
           + (f"{float(s['idle_share']) * 100:.0f}%"  # type: ignore
              if s.get("idle_share") is not None else "not read") + ".", "",
           "| phase | seconds | share | QEMU CPU s | CPU wait s | idle s |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in s["rows"]:  # type: ignore
        def f(v: Optional[float]) -> str:
            return "-" if v is None else f"{v:.2f}"
        out.append(f"| {r['phase']} | {r['seconds']:.2f} | "
                   f"{r['share'] * 100:.1f}% | {f(r['cpu'])} | "
                   f"{f(r['wait'])} | {f(r['idle'])} |")
    return out
