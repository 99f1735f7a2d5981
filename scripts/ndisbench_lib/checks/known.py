"""Known disagreements of another wrapper tree with the expectation table
(tests/e2e/expectations.toml, [wrapper.<name>]): where a cell's kernel log
shows that wrapper's banner, a failing check whose text matches the entry
gets the entry's reason appended. The status stays what it was: the
matrix still shows what the wrapper does, the reason says why."""
import re
from typing import Dict, List

from ..kernels import Expectations, WrapperNotes
from ..report.ktap import KtapLog
from ..report.verdict import Verdict


def wrappers_seen(log: KtapLog, exp: Expectations) -> List[WrapperNotes]:
    """The table's wrappers whose banner a kernel line of the cell shows."""
    kmsg = [value for test in log.tests for value in test.all("kmsg")]
    return [notes for notes in exp.wrappers.values()
            if any(re.search(notes.banner, line) for line in kmsg)]


def annotate(log: KtapLog, exp: Expectations,
             verdicts: Dict[str, Verdict]) -> Dict[str, Verdict]:
    seen = wrappers_seen(log, exp)
    if not seen:
        return verdicts
    out = dict(verdicts)
    for check, verdict in verdicts.items():
        if not verdict.failed:      # a pass, or not run (see build)
            continue
        text = "\n".join([verdict.summary, *verdict.details])
        entry = next(((notes, k) for notes in seen for k in notes.known
                      if k.applies(check) and re.search(k.match, text)),
                     None)
        if entry:
            notes, k = entry
            out[check] = Verdict(verdict.status, f"{verdict.summary} "
                                 f"[known, {notes.name}: {k.why}]",
                                 verdict.details)
    return out
