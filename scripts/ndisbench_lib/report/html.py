"""report.html: one self-contained page per run (inline CSS, no script, no
external resource), and the shared page frame of compare-<run>.html.

Everything that comes from results.json or a guest (kernel names,
summaries, details, folders) is untrusted text: it goes through esc() or
href(), never straight into the page."""
import dataclasses
import html
import os
import pathlib
import urllib.parse
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .markup import (NONE_CLASS, OTHER_CLASS, STATUS_CLASS,  # noqa: F401
                     badge, cell_name, esc, href, row_label, run_checks,
                     status_class, wrapper_of)
from ..subject import line_of
from . import causes as causes_mod
from .stopped import stopped_line
from .verdict import (ERROR, FAIL, NOT_RUN, PASS, TIMEOUT, XFAIL, Verdict,
                      label, summary_line)

# Background colours, also asserted by the headless-Chromium test.
COLOURS = {"st-pass": "#a5d6a7", "st-xfail": "#90caf9", "st-fail": "#ef5350",
           "st-error": "#b71c1c", "st-timeout": "#ffa726",
           "st-skip": "#d6d6d6", "st-none": "#eeeeee"}
# The pinned kernel and device columns of the matrix: their own colour, so
# that cells scrolled under them do not show through (and a test finds it).
KERNEL_BG = "#e8eaf6"
# The kernel column has a fixed width (longer names end in an ellipsis,
# the full name is the title): the device column is pinned right after it,
# at that width plus the kernel cell's padding (2 x .55em) and border.
KERNEL_WIDTH = "10.5em"
DEVICE_LEFT = f"calc({KERNEL_WIDTH} + 1.1em + 1px)"
# The left edge of the "What failed" box: something failed / nothing did
# (also found in the screenshot by the headless-Chromium test).
MARKS = {"bad": "#c62828", "ok": "#2e7d32"}
# A cause longer than this is cut in the list (the cell details have it).
CAUSE_CHARS = 300
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
div.frame { display: inline-block; max-width: 100%; max-height: 85vh;
  overflow: auto; border: 1px solid #bdbdbd; }
#grid { border-collapse: separate; border-spacing: 0; }
#grid th, #grid td { border-width: 0 1px 1px 0; white-space: nowrap;
  vertical-align: middle; }
#grid tr.newkernel th, #grid tr.newkernel td {
  border-top: 2px solid #616161; }
#grid td.v { min-width: 4.5em; }
#grid th.kernel { position: sticky; left: 0; z-index: 1;
  white-space: nowrap; background: KERNEL_BG; }
#grid th.device { position: sticky; left: DEVICE_LEFT; z-index: 1;
  white-space: nowrap; background: KERNEL_BG; }
#grid th .name { display: block; width: KERNEL_WIDTH; overflow: hidden;
  text-overflow: ellipsis; }
#grid thead th { position: sticky; top: 0; z-index: 2; background: #f5f5f5; }
#grid thead th.kernel, #grid thead th.device { z-index: 3; }
dl.meta { display: grid; grid-template-columns: max-content auto;
  gap: .1em 1em; margin: 0; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
.legend span { display: inline-block; padding: .1em .6em;
  margin: 0 .3em .3em 0; border: 1px solid #bdbdbd; }
ul.checks { list-style: none; padding: 0; margin: .3em 0; }
ul.checks li { margin: .2em 0; overflow-wrap: anywhere; }
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
section.failed { border-left: 6px solid; padding: .1em 0 .3em .8em;
  margin: 1em 0; }
section.failed h2 { margin-top: .2em; }
table.failed td { white-space: nowrap; }
table.failed td.cause { white-space: normal; overflow-wrap: anywhere; }
table.failed tr.group th { font-weight: 600; background: #fafafa; }
"""
CSS = CSS.replace("KERNEL_BG", KERNEL_BG).replace(
    "DEVICE_LEFT", DEVICE_LEFT).replace("KERNEL_WIDTH", KERNEL_WIDTH)
CSS += "".join(f"section.failed.{k} {{ border-left-color: {c}; }}\n"
               for k, c in MARKS.items())
CSS += "".join(
    f".{cls} {{ background: {colour}; color: "
    f"{'#fff' if cls in ('st-error', 'st-fail') else '#212121'}; }}\n"
    for cls, colour in COLOURS.items())


def extra_details(verdict: Verdict) -> List[str]:
    """The details lines that say more than the summary."""
    details = list(verdict.details)
    if details and details[0] == verdict.summary:
        details = details[1:]
    return [str(d) for d in details]


def legend() -> str:
    words = ((PASS, "pass"), (XFAIL, "reproduced / refused (expected)"),
             (FAIL, "FAIL"), (ERROR, "ERROR"), (TIMEOUT, "TIMEOUT"),
             (NOT_RUN, "not run (its build failed) / skipped"),
             (None, "- does not apply"))
    return ('<p class="legend">' + "".join(
        f'<span class="{status_class(s)}">{esc(w)}</span>' for s, w in words)
        + "</p>")


def page(title: str, body: Iterable[str], css: str = "") -> str:
    """css: the page's own rules after the shared ones."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>",
        '<meta charset="utf-8">',
        # No script, no fetch: the page stands alone even if opened from
        # an untrusted run folder.
        '<meta http-equiv="Content-Security-Policy" content="default-src '
        "'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(title)}</title>", f"<style>{CSS}{css}</style>",
        "</head>",
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
    order = [PASS, XFAIL, FAIL, ERROR, TIMEOUT, NOT_RUN]
    keys = order + sorted(k for k in counts if k not in order)
    return ", ".join(
        f'<span class="{status_class(k)}">&nbsp;{counts[k]} '
        f'{esc("expected failure" if k == XFAIL else k)}&nbsp;</span>'
        for k in keys if counts.get(k))


@dataclasses.dataclass(frozen=True)
class Failure:
    """One item of "What failed": the checks of one cell that share one
    verdict (a build error gives all of a cell's checks the same one)."""
    kernel: str
    device: str
    wrapper: str
    checks: List[str]
    status: str
    summary: str
    build: bool         # the guest never started: a build or setup step
    anchor: str         # the first check's entry in the cell details
    ran: int            # how many checks the cell ran


def failures(result) -> List[Failure]:
    """Every verdict that is not ok, one item per cell and verdict, build
    and setup errors first (they explain many cells at once), then in
    matrix order. Expected failures are ok (checks.OK_STATES) and are not
    items: they are what the kernel's policy predicts, and listing them
    would bury the real failures under the 30-odd of every green run."""
    columns = run_checks(result)
    items = []
    for n, cell in enumerate(result.cells):
        groups: Dict[Tuple[str, str], List[int]] = {}
        for m, check in enumerate(columns):
            verdict = cell.verdicts.get(check)
            if verdict is not None and verdict.failed:
                groups.setdefault((verdict.status, verdict.summary),
                                  []).append(m)
        for (status, summary), found in groups.items():
            # runner.run_cell gives an ERROR before the boot (prepare(),
            # host_parts(), the initrd or QEMU) to a cell it never boots.
            build = status == ERROR and cell.boot_seconds is None
            items.append(Failure(cell.kernel, cell.device, wrapper_of(cell),
                                 [columns[m] for m in found], status,
                                 summary, build, f"c{n}-k{found[0]}",
                                 len(cell.verdicts)))
    return sorted(items, key=lambda item: not item.build)


def one_line(text: str, limit: int = CAUSE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "\u2026"


def failure_row(item: Failure) -> str:
    names = " ".join(item.checks)
    shown = (f"all {item.ran} checks"
             if len(item.checks) == item.ran > 1 else ", ".join(item.checks))
    return (f'<tr class="failure{" build" if item.build else ""}" '
            f'data-kernel="{esc(item.kernel)}" '
            f'data-device="{esc(item.device)}" '
            f'data-wrapper="{esc(item.wrapper)}" '
            f'data-checks="{esc(names)}" data-status="{esc(item.status)}">'
            f'<td><a href="#{esc(item.anchor)}">{esc(item.kernel)}</a></td>'
            f"<td>{esc(item.device)}</td><td>{esc(item.wrapper or '-')}</td>"
            f'<td title="{esc(names)}">{esc(shown)}</td>'
            f'<td class="{status_class(item.status)}">{esc(item.status)}</td>'
            f'<td class="cause" title="{esc(one_line(item.summary, 4000))}">'
            f"{esc(one_line(item.summary))}</td></tr>")


def causes_section(result) -> List[str]:
    """The page's first box: each distinct cause once, with its first
    line and the cells it hit, build failures first (report/causes.py)."""
    found = causes_mod.causes(result)
    if not found:
        return []
    out = ['<section class="failed bad" id="causes">', "<h2>Causes</h2>",
           '<table class="failed">', "<thead><tr><th>#</th><th>check</th>"
           "<th>status</th><th>cause</th><th>cells</th></tr></thead><tbody>"]
    for n, cause in enumerate(found, start=1):
        stopped = (f"<br>{cause.not_run} not run in these cells (they "
                   f"need what did not build)" if cause.not_run else "")
        if cause.after:
            stopped += (f"<br>{len(cause.after)} more failed after it: "
                        f"{esc(', '.join(cause.after))}")
        out.append(
            f'<tr class="cause{" build" if cause.build else ""}">'
            f"<td>{n}</td><td>{esc(cause.check)}</td>"
            f'<td class="{status_class(cause.status)}">{esc(cause.status)}'
            f'</td><td class="cause" '
            f'title="{esc(one_line(cause.first_line, 4000))}">'
            f"{esc(one_line(cause.first_line))}</td>"
            f"<td>{esc(', '.join(cause.cells))}{stopped}</td></tr>")
    return out + ["</tbody></table>", "</section>"]


def failed_section(result) -> List[str]:
    """The "What failed" box above the matrix: every failure's cause
    without scrolling to the cell details."""
    items = failures(result)
    expected = result.counts().get(XFAIL, 0)
    note = (f" {expected} expected failure{'s' if expected != 1 else ''} "
            "(reproduced / refused, blue in the matrix) "
            f"{'are' if expected != 1 else 'is'} not listed: "
            "history predicts them." if expected else "")
    if not items:
        return ['<section class="failed ok" id="failed">',
                "<h2>What failed</h2>",
                f"<p>Nothing failed.{esc(note)}</p>", "</section>"]
    cells = len({(i.kernel, i.device, i.wrapper) for i in items})
    out = ['<section class="failed bad" id="failed">', "<h2>What failed</h2>",
           f"<p>{len(items)} item{'s' if len(items) != 1 else ''} in "
           f"{cells} cell{'s' if cells != 1 else ''}; identical verdicts "
           f"of a cell are one item.{esc(note)}</p>",
           '<table class="failed">', "<thead><tr><th>kernel</th>"
           "<th>device</th><th>wrapper</th><th>check(s)</th><th>status</th>"
           "<th>cause</th></tr></thead><tbody>"]
    groups = (("Build and setup errors: the guest never started",
               [i for i in items if i.build]),
              ("Failed checks", [i for i in items if not i.build]))
    for heading, group in groups:
        if group:
            out.append(f'<tr class="group"><th colspan="6">{esc(heading)}'
                       "</th></tr>")
            out += [failure_row(i) for i in group]
    return out + ["</tbody></table>", "</section>"]


def run_page(result, run_dir: Optional[pathlib.Path] = None) -> str:
    """The whole report.html of a report.RunResult."""
    counts = result.counts()
    checks: Sequence[str] = run_checks(result)
    body = [f"<h1>ndisbench run {esc(result.run_id)}</h1>",
            '<dl class="meta">',
            f"<dt>run</dt><dd>{esc(result.run_id)}</dd>",
            f"<dt>started</dt><dd>{esc(result.started)}</dd>",
            f"<dt>host</dt><dd>{esc(result.host)}</dd>",
            f"<dt>accel</dt><dd>{esc(result.accel or '-')}</dd>",
            *([f"<dt>wrapper</dt><dd>{esc(line_of(result.subject))}</dd>"]
              if result.subject else []),
            f"<dt>cells</dt><dd>{len(result.cells)} "
            f"({len(checks)} checks)</dd>",
            f"<dt>result</dt><dd>{esc(summary_line(result))}</dd>",
            *([f"<dt>stopped</dt><dd>{esc(stopped_line(result))}</dd>"]
              if stopped_line(result) else []),
            f"<dt>verdicts</dt><dd>{counts_line(counts) or '-'}</dd>",
            "</dl>", *causes_section(result), *failed_section(result),
            "<h2>Matrix</h2>", legend(),
            # The frame scrolls, not the page: a 17-check matrix is wider
            # than a laptop screen.
            '<div class="frame">', '<table class="grid" id="grid">',
            "<thead><tr>", '<th class="kernel"><span class="name">kernel'
            '</span></th><th class="device">device</th><th>policy</th>',
            *[f"<th>{esc(k)}</th>" for k in checks], "</tr></thead><tbody>"]
    previous = None
    for n, cell in enumerate(result.cells):
        row = "newkernel" if previous not in (None, cell.kernel) else ""
        previous = cell.kernel
        body.append(
            f'<tr class="cell {row}" id="row{n}">'
            f'<th class="kernel"><a class="name" href="#c{n}" '
            f'title="{esc(cell.kernel)}">{esc(cell.kernel)}</a></th>'
            f'<th class="device">{esc(row_label(cell))}</th>'
            f"<td>{esc(cell.policy)}</td>")
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
    body += ["</tbody></table>", "</div>",
             "<p><code>reproduced</code>: the historical breakage happened "
             "exactly as expected (symbols, message, taint bits). "
             "<code>refused</code>: driverloader denied its GPL-only "
             "symbols, as intended. Both are expected results, not "
             "failures.</p>"]
    from . import bykernel     # it renders with this module's helpers
    body += bykernel.html_section(result)
    body.append("<h2>Cells</h2>")
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
