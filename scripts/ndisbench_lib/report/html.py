"""report.html: one self-contained page per run (inline CSS, no script, no
external resource), and the shared page frame of compare-<run>.html.

Everything that comes from results.json or a guest (kernel names,
summaries, details, folders) is untrusted text: it goes through esc() or
href(), never straight into the page."""
import html
import os
import pathlib
import urllib.parse
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .verdict import (ERROR, FAIL, PASS, TIMEOUT, XFAIL, Verdict, label,
                      summary_line)

# Verdict status -> CSS class of its grid cell. Anything else (a future
# "skip", an unknown word) is grey; a check a cell did not run is "none".
STATUS_CLASS = {PASS: "st-pass", XFAIL: "st-xfail", FAIL: "st-fail",
                ERROR: "st-error", TIMEOUT: "st-timeout"}
NONE_CLASS = "st-none"
OTHER_CLASS = "st-skip"
# Background colours, also asserted by the headless-Chromium test.
COLOURS = {"st-pass": "#a5d6a7", "st-xfail": "#90caf9", "st-fail": "#ef5350",
           "st-error": "#b71c1c", "st-timeout": "#ffa726",
           "st-skip": "#d6d6d6", "st-none": "#eeeeee"}
# The air capture, kept gzipped by the capture check (capture.py).
PCAP = "air.pcap.gz"
FILES = ("serial.log", "ktap.txt", PCAP)

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #212121;
  background: #fff; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h2 { font-size: 1.15em; margin: 1.4em 0 .4em; }
h3 { font-size: 1em; margin: 1.2em 0 .3em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bdbdbd; padding: .25em .55em; text-align: left;
  vertical-align: top; }
th { background: #f5f5f5; }
table.grid td.v { text-align: center; min-width: 5.5em; }
table.grid td.v a { color: inherit; text-decoration: none; display: block; }
table.grid tr.newkernel td, table.grid tr.newkernel th {
  border-top: 2px solid #616161; }
dl.meta { display: grid; grid-template-columns: max-content auto;
  gap: .1em 1em; margin: 0; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
.legend span { display: inline-block; padding: .1em .6em;
  margin: 0 .3em .3em 0; border: 1px solid #bdbdbd; }
ul.checks { list-style: none; padding: 0; margin: .3em 0; }
ul.checks li { margin: .2em 0; }
ul.checks .badge { display: inline-block; min-width: 6.5em; padding: 0 .4em;
  text-align: center; border: 1px solid #bdbdbd; }
pre { background: #fafafa; border: 1px solid #e0e0e0; padding: .4em;
  margin: .2em 0 .2em 1.5em; white-space: pre-wrap; word-break: break-word; }
.missing { color: #9e9e9e; }
.kind-regressed, .kind-new-failing { font-weight: 700; color: #b71c1c; }
.kind-fixed { font-weight: 700; color: #1b5e20; }
:target { outline: 3px solid #1565c0; }
table#changes td { white-space: nowrap; }
table#changes td.summary { white-space: normal; }
"""
CSS += "".join(
    f".{cls} {{ background: {colour}; color: "
    f"{'#fff' if cls in ('st-error', 'st-fail') else '#212121'}; }}\n"
    for cls, colour in COLOURS.items())


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def href(path: str) -> str:
    """A relative link: percent-encoded (no scheme can survive, since ':'
    is encoded) and then attribute-escaped."""
    return esc(urllib.parse.quote(path.replace(os.sep, "/"), safe="/._-~"))


def status_class(status: Optional[str]) -> str:
    if status is None:
        return NONE_CLASS
    return STATUS_CLASS.get(status, OTHER_CLASS)


def wrapper_of(cell: object) -> str:
    return getattr(cell, "wrapper", "") or ""


def cell_name(cell: object) -> str:
    parts = [getattr(cell, "kernel"), getattr(cell, "device"),
             wrapper_of(cell)]
    return " / ".join(p for p in parts if p)


def extra_details(verdict: Verdict) -> List[str]:
    """The details lines that say more than the summary."""
    details = list(verdict.details)
    if details and details[0] == verdict.summary:
        details = details[1:]
    return [str(d) for d in details]


def badge(check: str, verdict: Optional[Verdict], tag: str = "span",
          extra: str = "") -> str:
    title = (f"{check}: {label(check, verdict)}: {verdict.summary}"
             if verdict is not None else f"{check}: not run")
    return (f'<{tag} class="{status_class(verdict and verdict.status)}'
            f'{extra}" title="{esc(title)}">{esc(label(check, verdict))}'
            f'</{tag}>')


def legend() -> str:
    words = ((PASS, "pass"), (XFAIL, "reproduced / refused (expected)"),
             (FAIL, "FAIL"), (ERROR, "ERROR"), (TIMEOUT, "TIMEOUT"),
             ("skip", "skipped / not reached"), (None, "- not run"))
    return ('<p class="legend">' + "".join(
        f'<span class="{status_class(s)}">{esc(w)}</span>' for s, w in words)
        + "</p>")


def page(title: str, body: Iterable[str]) -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>",
        '<meta charset="utf-8">',
        # No script, no fetch: the page stands alone even if opened from
        # an untrusted run folder.
        '<meta http-equiv="Content-Security-Policy" content="default-src '
        "'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(title)}</title>", f"<style>{CSS}</style>", "</head>",
        "<body>", *body, "</body>", "</html>", ""])


def file_links(run_dir: Optional[pathlib.Path], folder: str,
               base: str = "") -> str:
    """Links to a cell's logs; a file the run folder lacks is named, not
    linked. base: prefix from the page's folder to the run folder."""
    out = []
    for name in FILES:
        rel = f"{folder}/{name}"
        present = (run_dir / rel).is_file() if run_dir is not None else (
            name != PCAP)
        if present:
            out.append(f'<a href="{href(base + rel)}">{esc(name)}</a>')
        elif name != PCAP:
            out.append(f'<span class="missing">{esc(name)} (none)</span>')
    return ", ".join(out)


def counts_line(counts: Dict[str, int]) -> str:
    order = [PASS, XFAIL, FAIL, ERROR, TIMEOUT]
    keys = order + sorted(k for k in counts if k not in order)
    return ", ".join(
        f'<span class="{status_class(k)}">&nbsp;{counts[k]} '
        f'{esc("expected failure" if k == XFAIL else k)}&nbsp;</span>'
        for k in keys if counts.get(k))


def run_page(result, run_dir: Optional[pathlib.Path] = None) -> str:
    """The whole report.html of a report.RunResult."""
    counts = result.counts()
    checks: Sequence[str] = result.checks or sorted(
        {k for c in result.cells for k in c.verdicts})
    body = [f"<h1>ndisbench run {esc(result.run_id)}</h1>",
            '<dl class="meta">',
            f"<dt>run</dt><dd>{esc(result.run_id)}</dd>",
            f"<dt>started</dt><dd>{esc(result.started)}</dd>",
            f"<dt>host</dt><dd>{esc(result.host)}</dd>",
            f"<dt>accel</dt><dd>{esc(result.accel or '-')}</dd>",
            f"<dt>cells</dt><dd>{len(result.cells)} "
            f"({len(checks)} checks)</dd>",
            f"<dt>result</dt><dd>{esc(summary_line(result))}</dd>",
            f"<dt>verdicts</dt><dd>{counts_line(counts) or '-'}</dd>",
            "</dl>", "<h2>Matrix</h2>", legend(),
            '<table class="grid" id="grid">', "<thead><tr>",
            "<th>kernel</th><th>policy</th><th>device</th><th>wrapper</th>",
            *[f"<th>{esc(k)}</th>" for k in checks], "</tr></thead><tbody>"]
    previous = None
    for n, cell in enumerate(result.cells):
        row = "newkernel" if previous not in (None, cell.kernel) else ""
        previous = cell.kernel
        body.append(
            f'<tr class="cell {row}" id="row{n}">'
            f'<th><a href="#c{n}">{esc(cell.kernel)}</a></th>'
            f"<td>{esc(cell.policy)}</td><td>{esc(cell.device)}</td>"
            f"<td>{esc(wrapper_of(cell) or '-')}</td>")
        for m, check in enumerate(checks):
            verdict = cell.verdicts.get(check)
            title = (f"{check}: {label(check, verdict)}: {verdict.summary}"
                     if verdict is not None else f"{check}: not run")
            word = esc(label(check, verdict))
            inner = (f'<a href="#c{n}-k{m}">{word}</a>' if verdict is not None
                     else word)
            body.append(
                f'<td class="v {status_class(verdict and verdict.status)}" '
                f'data-check="{esc(check)}" '
                f'data-status="{esc(verdict.status if verdict else "none")}" '
                f'title="{esc(title)}">{inner}</td>')
        body.append("</tr>")
    body += ["</tbody></table>",
             "<p><code>reproduced</code>: the historical breakage happened "
             "exactly as expected (symbols, message, taint bits). "
             "<code>refused</code>: driverloader denied its GPL-only "
             "symbols, as intended. Both are expected results, not "
             "failures.</p>", "<h2>Cells</h2>"]
    for n, cell in enumerate(result.cells):
        boot = (f"{cell.boot_seconds} s" if cell.boot_seconds is not None
                else "not booted")
        first = (f"{cell.first_ktap_seconds} s"
                 if cell.first_ktap_seconds is not None else "-")
        body += [f'<section class="cell" id="c{n}">',
                 f"<h3>{esc(cell_name(cell))}</h3>",
                 f"<p>policy {esc(cell.policy)}, release "
                 f"<code>{esc(cell.release or '-')}</code>, boot "
                 f"{esc(boot)}, first KTAP line {esc(first)}; "
                 f"{file_links(run_dir, cell.folder)}</p>",
                 '<ul class="checks">']
        for m, check in enumerate(checks):
            verdict = cell.verdicts.get(check)
            if verdict is None:
                continue
            more = extra_details(verdict)
            body.append(f'<li id="c{n}-k{m}">'
                        f'{badge(check, verdict, extra=" badge")} '
                        f"<b>{esc(check)}</b>: {esc(verdict.summary)}")
            if more:
                body.append("<pre>" + esc("\n".join(more)) + "</pre>")
            body.append("</li>")
        body += ["</ul>", "</section>"]
    return page(f"ndisbench run {result.run_id}", body)


def write(run_dir: pathlib.Path, result) -> pathlib.Path:
    path = run_dir / "report.html"
    path.write_text(run_page(result, run_dir), encoding="utf-8")
    return path


def relpath(target: pathlib.Path, start: pathlib.Path) -> str:
    rel = os.path.relpath(target.resolve(), start.resolve())
    return "" if rel == "." else rel + "/"


def key_cells(result) -> Dict[Tuple[str, str, str], object]:
    return {(c.kernel, c.device, wrapper_of(c)): c for c in result.cells}
