"""`ndisbench report --by-kernel [RUN]`: which checks change between
adjacent kernel versions in one run, the regression-finding view.

The kernels of a run are split into lines by taint policy (a policy row
differs from the next one on purpose, not by version) and each line is
ordered by the release its cells recorded (`uname -r`), ties in run
order. For each (device/wrapper, check) the line's sequence of results is
shown, and every change between two kernels that both ran the check is a
transition, classified as compare.py does (regressed, fixed, xfail-state,
changed): "rtl8187/ndiswrapper tcp: pass on 6.1.0-57-amd64 (debian-6.1)
-> FAIL on 6.12.118+deb12-amd64 (debian-6.12)".
"""
import dataclasses
import re
from typing import Dict, List, Optional, Sequence, Tuple

from . import markup as hr
from . import verdict
from .verdict import Verdict, classify

RowKey = Tuple[str, str]        # device/wrapper label, check


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    release: str


@dataclasses.dataclass(frozen=True)
class Transition:
    label: str                  # device/wrapper
    check: str
    before: Kernel
    after: Kernel
    was: Verdict
    now: Verdict
    kind: str                   # compare.classify()

    def text(self) -> str:
        return (f"{self.label} {self.check}: "
                f"{verdict.label(self.check, self.was)} on "
                f"{self.before.release or '?'} ({self.before.name}) -> "
                f"{verdict.label(self.check, self.now)} on "
                f"{self.after.release or '?'} ({self.after.name})")


@dataclasses.dataclass
class Line:
    """The kernels of one policy, oldest release first, and what their
    cells said."""
    policy: str
    kernels: List[Kernel]
    # (label, check) -> one verdict (or None: not run) per kernel
    rows: Dict[RowKey, List[Optional[Verdict]]]

    def changing(self) -> List[RowKey]:
        return [key for key, seq in self.rows.items()
                if len({v.status for v in seq if v is not None}) > 1]

    def transitions(self) -> List[Transition]:
        out = []
        for (label, check), seq in self.rows.items():
            ran = [(k, v) for k, v in zip(self.kernels, seq)
                   if v is not None]
            for (k1, v1), (k2, v2) in zip(ran, ran[1:]):
                kind = classify(v1, v2)
                if kind:
                    out.append(Transition(label, check, k1, k2, v1, v2,
                                          kind))
        return out


def version_key(release: str) -> Tuple[int, Tuple[int, ...]]:
    """Orders releases by their numbers: 5.10.262 < 6.1.0-57-amd64 <
    6.1.192 < 6.12.118+deb12-amd64; a cell without one sorts last."""
    nums = tuple(int(n) for n in re.findall(r"\d+", release))
    return (0, nums) if nums else (1, ())


def lines(result, wrapper: Optional[str] = None) -> List[Line]:
    """One Line per policy, in the order the run first shows it; wrapper:
    only the cells of that wrapper (ndiswrapper, native)."""
    cells = [c for c in result.cells
             if wrapper is None or hr.wrapper_of(c) == wrapper]
    checks = hr.run_checks(result)
    order: Dict[str, int] = {}
    release: Dict[str, str] = {}
    policies: Dict[str, List[str]] = {}
    for cell in cells:
        order.setdefault(cell.kernel, len(order))
        if cell.release:
            release.setdefault(cell.kernel, cell.release)
        names = policies.setdefault(cell.policy, [])
        if cell.kernel not in names:
            names.append(cell.kernel)
    out = []
    for policy, names in policies.items():
        names.sort(key=lambda n: (version_key(release.get(n, "")),
                                  order[n]))
        kernels = [Kernel(n, release.get(n, "")) for n in names]
        rows: Dict[RowKey, List[Optional[Verdict]]] = {}
        labels: List[str] = []
        for cell in cells:
            if cell.policy == policy and hr.row_label(cell) not in labels:
                labels.append(hr.row_label(cell))
        by_cell = {(c.kernel, hr.row_label(c)): c for c in cells
                   if c.policy == policy}
        for label in labels:
            for check in checks:
                seq = [by_cell[(n, label)].verdicts.get(check)
                       if (n, label) in by_cell else None for n in names]
                if any(v is not None for v in seq):
                    rows[(label, check)] = seq
        out.append(Line(policy, kernels, rows))
    return out


def _table(head: Sequence[str], rows: Sequence[Sequence[str]],
           indent: str = "  ") -> List[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in
              range(len(head))]
    return [indent + "  ".join(v.ljust(w) for v, w in zip(r, widths))
            .rstrip() for r in [head, *rows]]


def text(result, wrapper: Optional[str] = None) -> str:
    found = lines(result, wrapper)
    moves = [t for line in found for t in line.transitions()]
    kinds: Dict[str, int] = {}
    for t in moves:
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    out = [f"report --by-kernel {result.run_id}"
           + (f" (wrapper {wrapper})" if wrapper else "")
           + f": {len(found)} polic{'y' if len(found) == 1 else 'ies'}, "
           f"kernels by release within each; {len(moves)} transition(s)"
           + (": " + ", ".join(f"{n} {k}" for k, n in kinds.items())
              if kinds else "")]
    for line in found:
        cols = [f"[{n}]" for n in range(1, len(line.kernels) + 1)]
        out += ["", f"policy {line.policy}: {len(line.kernels)} "
                f"kernel{'s' if len(line.kernels) != 1 else ''} by release"]
        out += _table(["", "kernel", "release"],
                      [[c, k.name, k.release or "?"]
                       for c, k in zip(cols, line.kernels)])[1:]
        if len(line.kernels) < 2:
            out.append("  one kernel: nothing to compare")
            continue
        changing = line.changing()
        if changing:
            out += _table(["device", "check", *cols],
                          [[label, check, *[verdict.label(check, v) for v in
                                            line.rows[(label, check)]]]
                           for label, check in changing])
        same: Dict[str, List[str]] = {}
        for (label, check), seq in line.rows.items():
            if (label, check) not in changing:
                word = next(verdict.label(check, v) for v in seq if v)
                same.setdefault(label, []).append(f"{check} {word}")
        if same:
            out.append("  the same on every kernel that ran it:")
            out += [f"    {label}: {', '.join(words)}"
                    for label, words in same.items()]
        line_moves = line.transitions()
        out.append("  transitions:" if line_moves else "  no transitions")
        out += [f"    {t.kind:11} {t.text()}" for t in line_moves]
    return "\n".join(out) + "\n"


def regressed(result, wrapper: Optional[str] = None) -> bool:
    return any(t.kind == "regressed" for line in lines(result, wrapper)
               for t in line.transitions())


def html_section(result) -> List[str]:
    """report.html's "By kernel" section: the lines with more than one
    kernel, their changing rows and their transitions."""
    found = [line for line in lines(result) if len(line.kernels) > 1]
    out = ['<section id="by-kernel">', "<h2>By kernel</h2>",
           "<p>Per policy, the kernels ordered by release; the rows whose "
           "result changes between them, and each change between two "
           "kernels that both ran the check (<code>ndisbench report "
           "--by-kernel</code>).</p>"]
    if not found:
        return out + ["<p>No policy ran on more than one kernel.</p>",
                      "</section>"]
    for line in found:
        out.append(f"<h3>policy {hr.esc(line.policy)}</h3>")
        changing = line.changing()
        if not changing:
            out.append("<p>" + hr.esc(", ".join(
                f"{k.name} ({k.release or '?'})" for k in line.kernels))
                + ": every check the same.</p>")
            continue
        # A long line of kernels scrolls in its frame, not the page.
        out += ['<div class="frame">', '<table class="grid bykernel">',
                "<thead><tr>"
                "<th>device</th><th>check</th>"]
        out += [f'<th title="{hr.esc(k.name)}">{hr.esc(k.name)}<br>'
                f"<code>{hr.esc(k.release or '?')}</code></th>"
                for k in line.kernels]
        out.append("</tr></thead><tbody>")
        for label, check in changing:
            out.append(f"<tr><td>{hr.esc(label)}</td>"
                       f"<td>{hr.esc(check)}</td>" + "".join(
                           hr.badge(check, v, "td", " v")
                           for v in line.rows[(label, check)]) + "</tr>")
        out.append("</tbody></table></div><ul>")
        out += [f'<li class="kind-{hr.esc(t.kind)}">{hr.esc(t.kind)}: '
                f"{hr.esc(t.text())}</li>" for t in line.transitions()]
        out.append("</ul>")
    return out + ["</section>"]
