"""The words a run's verdicts are shown by: the matrix word of a check's
verdict and the run's one-line summary (report.py and html.py both use
them, neither imports the other for them)."""
from typing import Dict, Protocol

from ..checks.judge import PASS, XFAIL, Verdict


class Counted(Protocol):
    """A run result: how many verdicts of each status it holds."""

    def counts(self) -> Dict[str, int]: ...


def label(check: str, verdict: Verdict) -> str:
    """Matrix word: an expected failure is shown as what it is."""
    if verdict.status != XFAIL:
        return verdict.status
    return "refused" if check == "driverloader" else "reproduced"


def summary_line(result: Counted) -> str:
    counts = result.counts()
    passed = counts.get(PASS, 0) + counts.get(XFAIL, 0)
    failed = sum(counts.values()) - passed
    return (f"{passed} passed, {failed} failed "
            f"({counts.get(XFAIL, 0)} expected failures reproduced)")
