"""`ndisbench merge RUN...`: the shard folders of one split (`run --shard
I/N`, cell/shard.py) joined into one run folder, as one `run` of the
whole selection would have written it: results.json (cells in selection
order, the selection's checks), every cell's folder, and what report.py
renders from it (matrix.txt, summary.md, junit.xml, report.html).

Refused, with one line naming the runs: a folder that is not a shard run
(a plain or an already merged run), shards of different splits (another
selection, shard count or durations: their `selection` digests differ),
two folders of one shard, a missing shard, a shard whose cells are not
the ones its split gave it, shards that ran with different accelerators
or guest clocks."""
import pathlib
import shutil
from typing import Dict, List, Sequence, Tuple

from .. import paths
from ..errors import BenchError
from . import report

Key = Tuple[str, str, str]


def _where(key: Key) -> str:
    return " / ".join(p for p in key if p)


def _record(run_dir: pathlib.Path, result: report.RunResult
            ) -> Dict[str, object]:
    rec = result.shard
    if rec.get("merged"):
        raise BenchError(f"{run_dir}: already a merged run, not a shard")
    if "index" not in rec or "plan" not in rec:
        raise BenchError(f"{run_dir}: not a shard run (it was not written "
                         f"by run --shard I/N)")
    return rec


def check(runs: Sequence[Tuple[pathlib.Path, report.RunResult]]
          ) -> List[Tuple[pathlib.Path, report.RunResult]]:
    """The runs in shard order, or BenchError with the first problem."""
    if not runs:
        raise BenchError("merge: no run folder given")
    records = [_record(d, r) for d, r in runs]
    first_dir, first = runs[0][0], records[0]
    for (run_dir, _), rec in zip(runs[1:], records[1:]):
        if rec["count"] != first["count"]:
            raise BenchError(
                f"{run_dir} is shard {rec['index']}/{rec['count']} but "
                f"{first_dir} is {first['index']}/{first['count']}: not one "
                f"split")
        if rec["selection"] != first["selection"]:
            raise BenchError(
                f"{run_dir} and {first_dir} are shards of different "
                f"selections (kernels, devices, checks, options or "
                f"durations differ: {rec['selection']} != "
                f"{first['selection']})")
    by_index: Dict[object, pathlib.Path] = {}
    for (run_dir, _), rec in zip(runs, records):
        if rec["index"] in by_index:
            raise BenchError(f"{by_index[rec['index']]} and {run_dir} are "
                             f"both shard {rec['index']}/{rec['count']}")
        by_index[rec["index"]] = run_dir
    count = int(first["count"])  # type: ignore[call-overload]
    missing = [str(i) for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise BenchError(f"merge: shard(s) {', '.join(missing)} of {count} "
                         f"missing")
    seen: Dict[Key, pathlib.Path] = {}
    for run_dir, result in runs:
        for c in result.cells:
            key = (c.kernel, c.device, c.wrapper)
            if key in seen:
                raise BenchError(f"{seen[key]} and {run_dir} both hold cell "
                                 f"{_where(key)}: overlapping shards")
            seen[key] = run_dir
            rel = pathlib.PurePosixPath(c.folder)
            if rel.parts[:1] != ("cells",) or ".." in rel.parts:
                raise BenchError(f"{run_dir}: cell folder {c.folder!r} is "
                                 f"not under cells/")
    for (run_dir, result), rec in zip(runs, records):
        planned = {(r[0], r[1], r[2]) for r in rec["plan"]  # type: ignore
                   if r[4] == rec["index"]}
        got = {(c.kernel, c.device, c.wrapper) for c in result.cells}
        for key in sorted(got - planned):
            raise BenchError(f"{run_dir}: cell {_where(key)} is not one of "
                             f"shard {rec['index']}'s cells")
        for key in sorted(planned - got):
            raise BenchError(f"{run_dir}: shard {rec['index']} lacks cell "
                             f"{_where(key)}")
    accels = {r.accel for _, r in runs if r.cells}
    if len(accels) > 1:
        raise BenchError("merge: the shards ran with different "
                         f"accelerators ({', '.join(sorted(accels))})")
    # Every shard, an empty one too: the clock is the command line's.
    # ("": a run from before the clock was recorded, real time)
    clocks = {r.clock or "realtime" for _, r in runs}
    if len(clocks) > 1:
        raise BenchError("merge: the shards ran with different clocks "
                         f"({', '.join(sorted(clocks))})")
    return sorted(runs, key=lambda dr: int(dr[1].shard["index"]))  # type: ignore


def merged(run_id: str, runs: Sequence[Tuple[pathlib.Path,
                                             report.RunResult]]
           ) -> report.RunResult:
    """One RunResult of checked shards (check()'s order)."""
    rec = runs[0][1].shard
    order = {(r[0], r[1], r[2]): i
             for i, r in enumerate(rec["plan"])}  # type: ignore
    cells = sorted((c for _, r in runs for c in r.cells),
                   key=lambda c: order[(c.kernel, c.device, c.wrapper)])
    used = {k for c in cells for k in c.verdicts}
    checks = [c for c in rec["checks"] if c in used]  # type: ignore
    accel = next((r.accel for _, r in runs if r.cells), "")
    realtime = {k: why for _, r in runs for k, why in r.realtime.items()}
    hosts = list(dict.fromkeys(r.host for _, r in runs))
    return report.RunResult(
        run_id, accel=accel, checks=checks, cells=cells,
        clock=runs[0][1].clock, realtime=realtime,
        subject=dict(runs[0][1].subject),
        started=min(r.started for _, r in runs), host=", ".join(hosts),
        shard={"count": rec["count"], "selection": rec["selection"],
               "durations": rec["durations"],
               "merged": [r.run_id for _, r in runs]})


def merge(run_dirs: Sequence[pathlib.Path], out: pathlib.Path
          ) -> Tuple[pathlib.Path, report.RunResult]:
    """Check the shards; only then make the merged run's folder under out,
    copy the shards' cell folders into it and write it."""
    runs = check([(d, report.load(d)) for d in run_dirs])
    out_dir = paths.new_stamped_dir(out)
    result = merged(out_dir.name, runs)
    for run_dir, shard in runs:
        for c in shard.cells:
            src = run_dir / c.folder
            if src.is_dir():
                shutil.copytree(src, out_dir / c.folder, symlinks=True)
    report.write(out_dir, result)
    return out_dir, result
