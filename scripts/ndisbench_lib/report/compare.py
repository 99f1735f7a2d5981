"""`ndisbench compare RUN_A RUN_B`: what changed from run A to run B, check
by check, for the regression view across kernels and wrapper changes.

A cell is identified by (kernel, device, wrapper); runs written before the
wrapper axis read as wrapper "". Kinds of change, per check:

- regressed: ok in A (pass or expected failure), not ok in B
- fixed: not ok in A, ok in B
- xfail-state: both ok, but the expected-failure state flipped (pass <->
  reproduced/refused): the kernel or its expectations now say otherwise
- changed: not ok in both, with a different status (FAIL -> TIMEOUT)
- not-run: not run in one of them (a module it needs did not build): not
  a regression nor a fix of the check; the build check's change says it
- new: only in B (a new failing check counts as a regression)
- gone: only in A

Exit status: 0 nothing regressed, 1 something did, 2 bad input."""
import dataclasses
import pathlib
import sys
from typing import List, Optional, Tuple

from . import html as hr
from . import report
from ..errors import BenchError
from .verdict import Verdict, classify, label

KINDS = ("regressed", "new", "fixed", "xfail-state", "changed", "not-run",
         "gone")
Key = Tuple[str, str, str]


@dataclasses.dataclass(frozen=True)
class Change:
    kind: str
    key: Key                        # kernel, device, wrapper
    check: str
    before: Optional[Verdict]
    after: Optional[Verdict]

    @property
    def bad(self) -> bool:
        """Counts toward exit status 1."""
        return self.kind == "regressed" or (
            self.kind == "new" and self.after is not None
            and self.after.failed)

    @property
    def where(self) -> str:
        return " / ".join(p for p in self.key if p)


def changes(a: report.RunResult, b: report.RunResult) -> List[Change]:
    """Every check whose result differs, in B's cell order (then A's
    vanished cells), checks in run order."""
    cells_a, cells_b = hr.key_cells(a), hr.key_cells(b)
    keys = list(cells_b) + [k for k in cells_a if k not in cells_b]
    order = list(b.checks) + [c for c in a.checks if c not in b.checks]
    out: List[Change] = []
    for key in keys:
        va = cells_a[key].verdicts if key in cells_a else {}
        vb = cells_b[key].verdicts if key in cells_b else {}
        names = [c for c in order if c in va or c in vb]
        names += sorted((set(va) | set(vb)) - set(names))
        for check in names:
            kind = classify(va.get(check), vb.get(check))
            if kind:
                out.append(Change(kind, key, check, va.get(check),
                                  vb.get(check)))
    return out


def regressed(found: List[Change]) -> bool:
    return any(c.bad for c in found)


def _word(check: str, verdict: Optional[Verdict]) -> str:
    return label(check, verdict)


def text(a: report.RunResult, b: report.RunResult,
         found: List[Change]) -> str:
    lines = [f"compare {a.run_id} -> {b.run_id}: {len(found)} change(s)"
             + (": " + ", ".join(
                 f"{sum(1 for c in found if c.kind == k)} {k}"
                 for k in KINDS if any(c.kind == k for c in found))
                if found else "")]
    width = max([len(c.where) for c in found] + [0])
    for c in sorted(found, key=lambda c: KINDS.index(c.kind)):
        last = c.after if c.after is not None else c.before
        kind = "new FAIL" if c.kind == "new" and c.bad else c.kind
        lines.append(f"  {kind:11} {c.where:{width}}  {c.check}: "
                     f"{_word(c.check, c.before)} -> "
                     f"{_word(c.check, c.after)}"
                     + (f": {last.summary}" if last is not None else ""))
    lines.append("regressions: " + ("yes" if regressed(found) else "none"))
    return "\n".join(lines) + "\n"


def html_page(a: report.RunResult, a_dir: pathlib.Path,
              b: report.RunResult, b_dir: pathlib.Path,
              found: List[Change]) -> str:
    """compare-<A>.html, written into B's folder; links relative to it."""
    to_a = hr.relpath(a_dir, b_dir)
    cells_a, cells_b = hr.key_cells(a), hr.key_cells(b)
    body = [f"<h1>ndisbench compare {hr.esc(a.run_id)} &rarr; "
            f"{hr.esc(b.run_id)}</h1>", '<table class="runs">',
            "<tr><th></th><th>run</th><th>started</th><th>host</th>"
            "<th>accel</th><th>cells</th><th>result</th></tr>"]
    for name, run, base in (("A", a, to_a), ("B", b, "")):
        body.append(
            f"<tr><th>{name}</th><td><a href=\"{hr.href(base + 'report.html')}"
            f"\">{hr.esc(run.run_id)}</a></td><td>{hr.esc(run.started)}</td>"
            f"<td>{hr.esc(run.host)}</td><td>{hr.esc(run.accel or '-')}</td>"
            f"<td>{len(run.cells)}</td>"
            f"<td>{hr.esc(report.summary_line(run))}</td></tr>")
    body += ["</table>", "<h2>Changes</h2>"]
    verdict = ("<p class=\"kind-regressed\">Regressions found.</p>"
               if regressed(found) else
               "<p class=\"kind-fixed\">No regressions.</p>")
    body.append(verdict)
    if not found:
        body.append("<p>No check changed its result.</p>")
    else:
        body += [hr.legend(), '<table class="grid" id="changes">',
                 "<thead><tr><th>change</th><th>kernel</th><th>device</th>"
                 "<th>wrapper</th><th>check</th><th>A</th><th>B</th>"
                 "<th>summary (B, else A)</th><th>logs</th></tr></thead>"
                 "<tbody>"]
        for c in sorted(found, key=lambda c: KINDS.index(c.kind)):
            kind = "new-failing" if c.kind == "new" and c.bad else c.kind
            last = c.after if c.after is not None else c.before
            logs = []
            if c.key in cells_a:
                logs.append("A: " + hr.file_links(
                    a_dir, cells_a[c.key].folder, to_a))
            if c.key in cells_b:
                logs.append("B: " + hr.file_links(
                    b_dir, cells_b[c.key].folder))
            more = hr.extra_details(last) if last is not None else []
            summary = hr.esc(last.summary if last is not None else "")
            if more:
                summary += "<pre>" + hr.esc("\n".join(more)) + "</pre>"
            kernel, device, wrapper = c.key
            body.append(
                f'<tr class="change" data-kind="{hr.esc(c.kind)}">'
                f'<td class="kind-{hr.esc(kind)}">'
                f"{hr.esc(kind.replace('-', ' '))}</td>"
                f"<td>{hr.esc(kernel)}</td><td>{hr.esc(device)}</td>"
                f"<td>{hr.esc(wrapper or '-')}</td><td>{hr.esc(c.check)}</td>"
                + hr.badge(c.check, c.before, "td", " v")
                + hr.badge(c.check, c.after, "td", " v")
                + f'<td class="summary">{summary}</td>'
                f"<td>{'<br>'.join(logs)}</td></tr>")
        body.append("</tbody></table>")
    return hr.page(f"ndisbench compare {a.run_id} -> {b.run_id}", body)


def run_dirs(out: pathlib.Path) -> List[pathlib.Path]:
    """Run folders under out, oldest first (run ids sort by time)."""
    if not out.is_dir():
        return []
    return sorted(p for p in out.iterdir() if (p / "results.json").is_file())


def resolve(arg: str, out: pathlib.Path) -> pathlib.Path:
    """A run folder, a run id under out, 'latest' or 'previous'."""
    if arg in ("latest", "previous"):
        runs = run_dirs(out)
        need = 1 if arg == "latest" else 2
        if len(runs) < need:
            raise BenchError(f"run '{arg}' not found: {len(runs)} run(s) "
                             f"with results.json under {out}")
        return runs[-need]
    path = pathlib.Path(arg)
    for cand in (path, out / arg):
        if cand.is_dir():
            if not (cand / "results.json").is_file():
                raise BenchError(f"run '{arg}' ({cand}) has no results.json")
            return cand
    raise BenchError(f"run '{arg}' not found (a folder, a run id under "
                     f"{out}, 'latest' or 'previous')")


def main(arg_a: str, arg_b: str, out: pathlib.Path) -> int:
    dir_a, dir_b = resolve(arg_a, out), resolve(arg_b, out)
    a, b = report.load(dir_a), report.load(dir_b)
    found = changes(a, b)
    sys.stdout.write(text(a, b, found))
    page_path = dir_b / f"compare-{dir_a.resolve().name}.html"
    try:
        page_path.write_text(html_page(a, dir_a, b, dir_b, found),
                             encoding="utf-8")
        sys.stdout.write(f"wrote {page_path}\n")
    except OSError as exc:      # a read-only run folder: the text stands
        print(f"ndisbench: warning: cannot write {page_path}: {exc}",
              file=sys.stderr)
    return 1 if regressed(found) else 0
