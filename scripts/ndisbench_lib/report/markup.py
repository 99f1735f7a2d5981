"""The HTML every page shares (report.html, the by-kernel section,
compare-<run>.html, bench.html): escaping and links of untrusted text, the
status classes, a verdict's badge, a cell's names, a run's columns.
Untrusted text (from results.json or a guest) goes through esc() or
href(), never straight into a page."""
import html
import os
import urllib.parse
from typing import List, Optional

from .verdict import (ERROR, FAIL, NOT_RUN, PASS, TIMEOUT, XFAIL, Verdict,
                      label)

# Verdict status -> CSS class of its grid cell. A check not run (a module
# it needs did not build) and anything else (an unknown word) are grey; a
# check that does not apply to a cell is "none".
STATUS_CLASS = {PASS: "st-pass", XFAIL: "st-xfail", FAIL: "st-fail",
                ERROR: "st-error", TIMEOUT: "st-timeout",
                NOT_RUN: "st-skip"}
NONE_CLASS = "st-none"
OTHER_CLASS = "st-skip"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def href(path: str) -> str:
    """A relative link: percent-encoded (no scheme can survive, since ':'
    is encoded) and then attribute-escaped. A name with undecodable bytes
    (os.fsdecode's surrogates) links to those bytes; a lone surrogate of
    other origin (a results.json's escape) becomes '?'."""
    path = path.replace(os.sep, "/")
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "replace")
    return esc(urllib.parse.quote(raw, safe="/._-~"))


def status_class(status: Optional[str]) -> str:
    if status is None:
        return NONE_CLASS
    return STATUS_CLASS.get(status, OTHER_CLASS)


def wrapper_of(cell: object) -> str:
    return getattr(cell, "wrapper", "") or ""


def row_label(cell: object) -> str:
    """device[/wrapper], as matrix.txt shows it (report.CellResult.label)."""
    wrapper = wrapper_of(cell)
    return f"{getattr(cell, 'device')}/{wrapper}" if wrapper else \
        getattr(cell, "device")


def cell_name(cell: object) -> str:
    parts = [getattr(cell, "kernel"), getattr(cell, "device"),
             wrapper_of(cell)]
    return " / ".join(p for p in parts if p)


def badge(check: str, verdict: Optional[Verdict], tag: str = "span",
          extra: str = "") -> str:
    title = (f"{check}: {label(check, verdict)}: {verdict.summary}"
             if verdict is not None else f"{check}: not run")
    return (f'<{tag} class="{status_class(verdict and verdict.status)}'
            f'{extra}" title="{esc(title)}">{esc(label(check, verdict))}'
            f'</{tag}>')


def run_checks(result) -> List[str]:
    """The grid's columns."""
    return list(result.checks) or sorted(
        {k for c in result.cells for k in c.verdicts})
