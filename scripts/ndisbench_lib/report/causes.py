"""A run's distinct causes: what every rendering of a run begins with.

A cause is one failure summary (a verdict that counts as failed), the same
across cells once what differs from cell to cell is set aside (numbers,
addresses, hashes: normalised); it is listed once, with its first line
and the cells it hit. Build failures come first: the checks they stopped
("not run") are counted under them, not listed as causes of their own.
Likewise a kernel's report (a BUG, an oops, a WARNING: "kernel reported:")
in a cell takes the cell's other failures: they came after it (a BUG in
the agent's process loses every later result). Then the other causes in
matrix order."""
import dataclasses
import re
from typing import Dict, List, Tuple

from .verdict import FAIL, NOT_RUN, TIMEOUT, Verdict

# What differs between cells that failed for one reason: hex addresses
# and hashes, then any other number (times, PIDs, offsets, versions).
_HEX_RE = re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b",
                     re.IGNORECASE)
_NUMBER_RE = re.compile(r"\d+")


def normalise(summary: str) -> str:
    """The part of a failure summary that names its cause."""
    first = summary.splitlines()[0] if summary else ""
    return _NUMBER_RE.sub("N", _HEX_RE.sub("H", first)).strip()


@dataclasses.dataclass
class Cause:
    check: str          # the check whose verdict it is (the first cell's)
    status: str
    first_line: str     # its summary's first line, as the first cell had it
    build: bool         # a build check's FAIL: a module did not build
    cells: List[str] = dataclasses.field(default_factory=list)
    # How many checks of those cells were not run because of it.
    not_run: int = 0
    # The checks of those cells that failed after it (a kernel's report).
    after: List[str] = dataclasses.field(default_factory=list)


KERNEL_REPORT = "kernel reported:"


def _first_line(verdict: Verdict) -> str:
    return verdict.summary.splitlines()[0] if verdict.summary else ""


def _report_line(verdict: Verdict) -> str:
    """The kernel's line a report verdict quotes."""
    line = _first_line(verdict)[len(KERNEL_REPORT):].strip()
    return line.split(" [known,", 1)[0]


def _ran_after(verdicts: Dict[str, Verdict], reports: List[str],
               check: str) -> str:
    """The report check a failure after a kernel report belongs to: the
    one whose line its summary quotes ("ran after an oops in <row>:
    <line>"; a check of another guest, as broken's, quotes none), else
    the cell's first; none ("") for a timeout that quotes none."""
    summary = verdicts[check].summary
    for name in reports:
        if _report_line(verdicts[name]) in summary:
            return name
    return "" if verdicts[check].status == TIMEOUT else reports[0]


def causes(result) -> List[Cause]:
    """Every distinct cause of a report.RunResult, build failures first."""
    found: Dict[Tuple[bool, str, str, str], Cause] = {}
    for cell in result.cells:
        name = f"{cell.kernel} / {cell.label}"
        build = cell.verdicts.get("build")
        built = build is None or not build.failed
        reports = [c for c, v in cell.verdicts.items()
                   if v.failed and v.summary.startswith(KERNEL_REPORT)]
        # (a build failure stays a cause of its own)
        lost = [c for c, v in cell.verdicts.items() if reports and v.failed
                and c != "build" and not v.summary.startswith(KERNEL_REPORT)]
        under = {c: _ran_after(cell.verdicts, reports, c) for c in lost}
        # a guest killed at its timeout with no report quoted (broken's
        # own guest) did not run after the other guest's report
        lost = [c for c in lost if under[c] or
                cell.verdicts[c].status != TIMEOUT]
        for check, verdict in cell.verdicts.items():
            if not verdict.failed or check in lost:
                continue
            is_build = check == "build" and verdict.status == FAIL
            key = (is_build, check if is_build else "", verdict.status,
                   normalise(verdict.summary))
            cause = found.get(key)
            if cause is None:
                cause = found[key] = Cause(check, verdict.status,
                                           _first_line(verdict), is_build)
            if name not in cause.cells:
                cause.cells.append(name)
            if is_build:
                cause.not_run += sum(1 for v in cell.verdicts.values()
                                     if v.status == NOT_RUN)
            if check in reports:
                cause.after += [c for c in lost if under[c] == check
                                and c not in cause.after]
        if built:
            # Not run with no build failure of its cell: its own cause.
            for check, verdict in cell.verdicts.items():
                if verdict.status != NOT_RUN:
                    continue
                key = (False, "", NOT_RUN, normalise(verdict.summary))
                cause = found.setdefault(key, Cause(
                    check, NOT_RUN, _first_line(verdict), False))
                if name not in cause.cells:
                    cause.cells.append(name)
    ordered = list(found.values())
    return [c for c in ordered if c.build] + \
        [c for c in ordered if not c.build]


def lines(result) -> List[str]:
    """The terminal's and matrix.txt's head: one line per cause (and one
    for the checks a build failure stopped); nothing when none."""
    found = causes(result)
    if not found:
        return []
    out = [f"{len(found)} cause{'s' if len(found) != 1 else ''}:"]
    for n, cause in enumerate(found, start=1):
        out.append(f"  {n}. {cause.check} {cause.status}: "
                   f"{cause.first_line} [{', '.join(cause.cells)}]")
        out += [f"     {line}" for line in sub_lines(cause)]
    return out


def sub_lines(cause: Cause) -> List[str]:
    """What a cause took with it: the checks it stopped, the failures of
    its cells after it (the terminal's and summary.md's lines under it)."""
    out = []
    if cause.not_run:
        out.append(f"{cause.not_run} checks not run in these cells (they "
                   f"need what did not build)")
    if cause.after:
        out.append(f"{len(cause.after)} more checks of these cells failed "
                   f"after it: {', '.join(cause.after)}")
    return out
