"""`run --shard I/N`: which cells of the selection one shard runs.

The split depends on nothing but its inputs: the selected cells in matrix
order (kernels.toml order, then device order), N, and one weight per cell:
its recorded duration from the durations source (the checked-in
`.ci/durations.json` by default, a file written by `ndisbench durations`,
a run folder, or `none`), else a fixed estimate for its kind of device
(ESTIMATES) times the kernel's slowdown. Every CI job of one commit reads
the same file, so every job computes the same split.

The cells, in order, are cut into N contiguous runs of about equal weight:
a cell belongs to the shard whose share of the total its midpoint falls
in (integer milliseconds, so no rounding differs between machines; a
midpoint exactly on a boundary goes to the later shard). Each cell is in
exactly one shard; a shard's weight is within one cell's weight of
total/N; a kernel's cells stay together (a kernel is split between at
most two neighbouring shards), so a shard builds few kernels. A shard may
be empty (more shards than cells)."""
import dataclasses
import hashlib
import json
import pathlib
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .. import devices, paths
from ..devices import Device
from ..errors import BenchError
from ..kernels import Kernel

# The checked-in durations every CI job reads (ndisbench durations > it).
DEFAULT_DURATIONS = paths.REPO / ".ci" / "durations.json"
NONE = "none"
# Seconds of one cell with no record, by kind of device (TCG, a warm
# cache; docs/measurements.md): times the kernel's slowdown.
ESTIMATES = {"bare": 3.0, "nic": 10.0, "radio": 25.0, "faulty": 30.0}
MIN_MS = 100


def cell_key(kernel: str, device: str, wrapper: str) -> str:
    """kernel/device[/wrapper]: how a durations file names a cell."""
    return "/".join([kernel, device] + [wrapper] * bool(wrapper))


def kind(device: Device) -> str:
    if device.label in devices.FAULTY:
        return "faulty"
    if device.label in devices.RADIOS:
        return "radio"
    if device.label in devices.REFERENCE_NIC or device.ifname:
        return "nic"
    return "bare"


def estimate(kernel: Kernel, device: Device) -> float:
    return ESTIMATES[kind(device)] * kernel.slowdown


@dataclasses.dataclass(frozen=True)
class Shard:
    """--shard I/N and the recorded durations that weigh the cells."""
    index: int
    count: int
    durations: Mapping[str, float] = dataclasses.field(default_factory=dict)
    source: str = NONE


def parse_spec(text: str) -> Tuple[int, int]:
    """"I/N" with 1 <= I <= N."""
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise BenchError(f"--shard {text}: expected I/N, e.g. 1/2") from None
    if not 1 <= i <= n:
        raise BenchError(f"--shard {text}: I must be between 1 and N")
    return i, n


def durations_from_run(run_dir: pathlib.Path) -> Dict[str, float]:
    """Each booted cell's guest seconds (boot_seconds) in results.json."""
    try:
        raw = json.loads((run_dir / "results.json").read_text())
        return {cell_key(c["kernel"], c["device"], c.get("wrapper", "")):
                float(c["boot_seconds"]) for c in raw["cells"]
                if c.get("boot_seconds") is not None}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(f"{run_dir}: no durations: {exc}") from exc


def collect(run_dirs: Sequence[pathlib.Path]) -> Dict[str, object]:
    """A durations file's contents from runs, oldest first: the newest
    record of each cell wins."""
    cells: Dict[str, float] = {}
    for run_dir in run_dirs:
        cells.update(durations_from_run(run_dir))
    return {"from": [d.name for d in run_dirs],
            "cells": dict(sorted(cells.items()))}


def load_durations(source: Optional[str]) -> Tuple[Dict[str, float], str]:
    """(durations, what they came from). None: the checked-in file if
    there is one; `none`: no record at all; a run folder; a file."""
    if source == NONE:
        return {}, NONE
    path = pathlib.Path(source) if source else DEFAULT_DURATIONS
    if source is None and not path.is_file():
        return {}, NONE
    if path.is_dir():
        return durations_from_run(path), str(path)
    try:
        raw = json.loads(path.read_text())
        cells = {str(k): float(v) for k, v in raw["cells"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BenchError(f"--durations {path}: unreadable: {exc}") from exc
    bad = [k for k, v in cells.items() if not v >= 0]
    if bad:
        raise BenchError(f"--durations {path}: negative seconds for "
                         f"{bad[0]}")
    rel = path.resolve()
    try:
        label = str(rel.relative_to(paths.REPO))
    except ValueError:
        label = str(rel)
    return cells, label


def weights_ms(cells: Sequence[Tuple[Kernel, Device]],
               durations: Mapping[str, float]) -> List[int]:
    out = []
    for kernel, device in cells:
        key = cell_key(kernel.name, device.name, device.wrapper)
        secs = durations.get(key)
        if secs is None:
            secs = estimate(kernel, device)
        out.append(max(MIN_MS, int(round(secs * 1000))))
    return out


def split(weights: Sequence[int], count: int) -> List[int]:
    """The shard (1..count) of each cell, cells in selection order."""
    total = sum(weights)
    out, before = [], 0
    for w in weights:
        twice_mid = 2 * before + w
        out.append(min(count - 1, twice_mid * count // (2 * total)) + 1)
        before += w
    return out


def plan(cells: Sequence[Tuple[Kernel, Device, Sequence[str]]],
         shard: Shard, checks: Sequence[str], extra: Sequence[str] = ()
         ) -> Dict[str, object]:
    """The shard record a shard's results.json keeps: the whole split
    (every cell, its shard and weight), the selection's checks in order,
    and a digest of all of it with `extra` (what else must agree between
    shards: wrapper tree, stream size), which merge compares."""
    weights = weights_ms([(k, d) for k, d, _ in cells], shard.durations)
    shards = split(weights, shard.count) if cells else []
    rows = [[k.name, d.name, d.wrapper, list(cs), s, w]
            for (k, d, cs), s, w in zip(cells, shards, weights)]
    blob = json.dumps({"count": shard.count, "cells": rows,
                       "checks": list(checks), "extra": list(extra)},
                      sort_keys=True)
    return {"index": shard.index, "count": shard.count,
            "selection": hashlib.sha256(blob.encode()).hexdigest()[:16],
            "durations": shard.source, "checks": list(checks),
            "extra": list(extra), "plan": rows}


def mine(record: Mapping[str, object]) -> List[Tuple[str, str, str]]:
    """The (kernel, device, wrapper) cells of the record's own shard."""
    index = record["index"]
    return [(r[0], r[1], r[2]) for r in record["plan"]  # type: ignore
            if r[4] == index]
