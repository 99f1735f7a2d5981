"""The one place for what a check's result can be and how it is shown.

A verdict's status is one of six words; the matrix shows an expected
failure (XFAIL) as what it is: `refused` where driverloader was denied its
GPL-only symbols (as every kernel since 2.6.19 intends), `reproduced`
where a historical breakage happened exactly as expected. PASS and XFAIL
count as passed; NOT_RUN (a check that could not run: a module it needs
did not build, and the build check FAILs with the cause) counts neither
way and fails no run; the others count as failed. The run's summary line
says so.
"""
import dataclasses
from typing import Dict, Optional, Protocol, Sequence, Tuple

PASS, XFAIL, FAIL, ERROR, TIMEOUT, NOT_RUN = "pass", "xfail", "FAIL", \
    "ERROR", "TIMEOUT", "not run"
STATUSES = (PASS, XFAIL, FAIL, ERROR, TIMEOUT, NOT_RUN)
OK_STATES = (PASS, XFAIL)
# Neither passed nor failed: the cause is another verdict's (build).
UNCOUNTED = (NOT_RUN,)
# The check whose expected failure is a refusal, not a breakage.
REFUSED_CHECKS = ("driverloader",)


@dataclasses.dataclass(frozen=True)
class Verdict:
    status: str             # one of STATUSES
    summary: str            # one line for the terminal and the matrix
    details: Sequence[str] = ()

    @property
    def ok(self) -> bool:
        return self.status in OK_STATES

    @property
    def failed(self) -> bool:
        """Counts as a failure (of the run, in the summary line)."""
        return self.status not in OK_STATES + UNCOUNTED


def label(check: str, verdict: Optional[Verdict]) -> str:
    """Matrix word: an expected failure is shown as what it is; '-' for a
    check that did not run."""
    if verdict is None:
        return "-"
    if verdict.status != XFAIL:
        return verdict.status
    return "refused" if check in REFUSED_CHECKS else "reproduced"


class Counted(Protocol):
    """A run result: how many verdicts of each status it holds."""

    def counts(self) -> Dict[str, int]: ...


def passed_failed(counts: Dict[str, int]) -> Tuple[int, int]:
    """(passed, failed): PASS and XFAIL pass, NOT_RUN is neither, every
    other status fails."""
    passed = sum(counts.get(s, 0) for s in OK_STATES)
    uncounted = sum(counts.get(s, 0) for s in UNCOUNTED)
    return passed, sum(counts.values()) - passed - uncounted


def summary_line(result: Counted) -> str:
    counts = result.counts()
    passed, failed = passed_failed(counts)
    not_run = counts.get(NOT_RUN, 0)
    return (f"{passed} passed, {failed} failed"
            + (f", {not_run} not run" if not_run else "") +
            f" ({counts.get(XFAIL, 0)} expected failures reproduced)")


def _ok(verdict: Verdict) -> bool:
    return verdict.status in OK_STATES


def classify(before: Optional[Verdict], after: Optional[Verdict]
             ) -> Optional[str]:
    """The kind of change from one run's verdict of a check to the next
    (report/compare.py says what each kind means); None: no change."""
    if before is None and after is None:
        return None
    if before is None:
        return "new"
    if after is None:
        return "gone"
    if before.status == after.status:
        return None
    if NOT_RUN in (before.status, after.status):
        return "not-run"
    if _ok(before) and not _ok(after):
        return "regressed"
    if not _ok(before) and _ok(after):
        return "fixed"
    return "xfail-state" if _ok(before) else "changed"
