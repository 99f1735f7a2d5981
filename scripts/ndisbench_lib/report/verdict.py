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
import unicodedata
from typing import Dict, Optional, Protocol, Sequence, Tuple

PASS, XFAIL, FAIL, ERROR, TIMEOUT, NOT_RUN = "pass", "xfail", "FAIL", \
    "ERROR", "TIMEOUT", "not run"
STATUSES = (PASS, XFAIL, FAIL, ERROR, TIMEOUT, NOT_RUN)
OK_STATES = (PASS, XFAIL)
# Neither passed nor failed: the cause is another verdict's (build).
UNCOUNTED = (NOT_RUN,)
# The check whose expected failure is a refusal, not a breakage.
REFUSED_CHECKS = ("driverloader",)


# Characters that reorder text on screen (the bidi controls) and XML's
# two non-characters: shown as escapes, like the C0/C1 controls.
_SHOWN_AS_ESCAPES = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066"
                              "\u2067\u2068\u2069\ufffe\uffff")
_SPACES = frozenset("\t\n\r\u2028\u2029")


def _clean_char(ch: str) -> str:
    if ch in _SPACES:
        return " "
    cat = unicodedata.category(ch)
    if cat == "Cs":
        return "\ufffd"      # a lone surrogate: undecodable bytes
    if cat == "Cc":
        return f"\\x{ord(ch):02x}"
    if ch in _SHOWN_AS_ESCAPES:
        return f"\\u{ord(ch):04x}"
    return ch


def clean_text(text: str) -> str:
    """Guest text made one safe line: line breaks and tabs become spaces,
    control characters (NUL, ESC of an ANSI sequence, DEL, C1) and bidi
    overrides visible escapes (\\x1b), lone surrogates U+FFFD. What is
    left is printable on a terminal and valid in XML, JSON and UTF-8;
    each output format escapes its own syntax on top."""
    if text.isprintable() and text.isascii():
        return text
    return "".join(_clean_char(ch) if not ch.isprintable() or
                   ch in _SHOWN_AS_ESCAPES else ch for ch in str(text))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A check's result. Summary and details are cleaned (clean_text)
    however the verdict is made: judged from a guest's facts, or loaded
    from a results.json."""
    status: str             # one of STATUSES
    summary: str            # one line for the terminal and the matrix
    details: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", clean_text(self.summary))
        object.__setattr__(self, "details",
                           tuple(clean_text(d) for d in self.details))

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
