"""Run results: the terminal lines, the matrix, results.json, JUnit XML,
the Markdown summary and report.html (html.py) of a run folder."""
import dataclasses
import datetime
import json
import os
import pathlib
import platform
import tempfile
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional

from ..errors import BenchError
from ..subject import line_of
from . import causes, html
from .stopped import stopped_line
from .verdict import (FAIL, NOT_RUN, PASS, Verdict, clean_text, label,
                      summary_line)


@dataclasses.dataclass
class CellResult:
    kernel: str
    policy: str
    device: str
    folder: str
    release: str = ""
    boot_seconds: Optional[float] = None
    first_ktap_seconds: Optional[float] = None
    verdicts: Dict[str, Verdict] = dataclasses.field(default_factory=dict)
    # "ndiswrapper", "native", or "" for a device without a wrapper (and in
    # runs written before the wrapper axis existed).
    wrapper: str = ""
    # What the host's sinks counted, per traffic check (bytes; udp:
    # datagrams): the host's half of the measurements.
    sinks: Dict[str, Optional[int]] = dataclasses.field(default_factory=dict)
    # What each sink refused: connections (udp: datagrams) from a local
    # process other than the cell's QEMU, never counted as the guest's.
    sink_refused: Dict[str, int] = dataclasses.field(default_factory=dict)
    # How the cell's QEMU ran (guest/sandbox.py: uids, gids, seccomp),
    # judged as its `sandbox` check.
    sandbox: Dict[str, object] = dataclasses.field(default_factory=dict)
    # The guest clock the cell ran on (guest/clock.py); "": a run from
    # before the clock was recorded (real time).
    clock: str = ""
    # How the guest came up (guest/snapshot.py): "restored" from a saved
    # boot, "saved" (booted, and saved for the next run), "booted" (not
    # saved), "": a run from before snapshots (booted).
    start: str = ""

    @property
    def label(self) -> str:
        """The matrix row: device[/wrapper]."""
        return f"{self.device}/{self.wrapper}" if self.wrapper else \
            self.device


CELL_FIELDS = frozenset(f.name for f in dataclasses.fields(CellResult))
# results.json's format: 2 added it, NOT_RUN verdicts and the subject; a
# file without it is format 1.
FORMAT = 2


@dataclasses.dataclass
class RunResult:
    run_id: str
    accel: str = ""
    checks: List[str] = dataclasses.field(default_factory=list)
    cells: List[CellResult] = dataclasses.field(default_factory=list)
    started: str = dataclasses.field(
        default_factory=lambda: datetime.datetime.now().isoformat(
            timespec="seconds"))
    host: str = dataclasses.field(default_factory=platform.node)
    # run --shard: cell/shard.py's record (index, count, the whole
    # split); a merged run: count, selection and the shards merged.
    shard: Dict[str, object] = dataclasses.field(default_factory=dict)
    # The guest clock asked for (guest/clock.py; "": a run from before the
    # clock was recorded, real time) and, by kernel, why its cells ran in
    # real time anyway.
    clock: str = ""
    realtime: Dict[str, str] = dataclasses.field(default_factory=dict)
    # The wrapper tree under test (run --wrapper-src; subject.Subject's
    # fields: path, version, commit, describe); {}: our own wrapper/.
    subject: Dict[str, str] = dataclasses.field(default_factory=dict)
    format: int = FORMAT
    # state: "running" while the run goes on (results.json is rewritten
    # after every cell), "interrupted" when it was stopped, "" when it ran
    # to its end; interrupted: why it stopped ("SIGINT", "SIGTERM",
    # "bench crashed: ..."); not_run: the cells without a result
    # ("kernel / device").
    state: str = ""
    interrupted: str = ""
    not_run: List[str] = dataclasses.field(default_factory=list)

    def counts(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for cell in self.cells:
            for verdict in cell.verdicts.values():
                out[verdict.status] = out.get(verdict.status, 0) + 1
        return out

    @property
    def ok(self) -> bool:
        """Ran to its end and nothing failed (a check not run fails no
        run: its cause does)."""
        return not self.state and not any(v.failed for c in self.cells
                                          for v in c.verdicts.values())


def cell_lines(cell: CellResult) -> List[str]:
    """One line per cell, plus one per check that is not a plain pass."""
    boot = (f"{cell.boot_seconds:.1f}s" if cell.boot_seconds is not None
            else "not booted")
    words = ", ".join(f"{c} {label(c, v)}" for c, v in cell.verdicts.items())
    lines = [f"{cell.kernel} / {cell.label}: {words} ({boot})"]
    for check, verdict in cell.verdicts.items():
        if verdict.status not in (PASS, NOT_RUN):
            lines.append(f"  {check}: {verdict.summary}")
    # what a build failure stopped: one line, its cause is the build's
    stopped = [c for c, v in cell.verdicts.items() if v.status == NOT_RUN]
    if stopped:
        lines.append(f"  not run: {', '.join(stopped)} "
                     f"({cell.verdicts[stopped[0]].summary})")
    return lines


def matrix(result: RunResult) -> str:
    header = ["kernel", "policy", "device"] + result.checks
    rows = [header] + [[c.kernel, c.policy, c.label] +
                       [label(k, c.verdicts[k]) if k in c.verdicts else "-"
                        for k in result.checks] for c in result.cells]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + interrupted_lines(result)[:1]) + "\n"


def terminal(result: RunResult) -> str:
    """What the terminal shows at the end of a run: its distinct causes,
    then the matrix."""
    head = causes.lines(result)
    return "".join(line + "\n" for line in head + [""] * bool(head)) + \
        matrix(result)


def causes_markdown(result: RunResult) -> List[str]:
    """summary.md's first section: each distinct cause once."""
    found = causes.causes(result)
    if not found:
        return []
    out = ["## Causes", ""]
    for n, cause in enumerate(found, start=1):
        out.append(f"{n}. {cause.check} **{cause.status}**: "
                   f"{md_text(cause.first_line)} "
                   f"({md_text(', '.join(cause.cells))})")
        out += [f"   - {line}" for line in causes.sub_lines(cause)]
    return out + [""]


def subject_line(result: RunResult) -> str:
    """Which wrapper tree ran: "" for our own."""
    return line_of(result.subject)


def shard_lines(result: RunResult) -> List[str]:
    """The summary's line about a shard or a merged run."""
    rec = result.shard
    if not rec:
        return []
    if rec.get("merged"):
        return [f"Merged from {rec['count']} shards of selection "
                f"{rec['selection']}: "
                f"{', '.join(map(str, rec['merged']))}.", ""]  # type: ignore
    return [f"Shard {rec.get('index')}/{rec.get('count')} of selection "
            f"{rec.get('selection')} (durations: {rec.get('durations')}).",
            ""]


def clock_lines(result: RunResult) -> List[str]:
    """The summary's line about kernels that could not run on icount."""
    if not result.realtime:
        return []
    return ["Real time instead of icount on " + "; ".join(
        f"{k}: {why}" for k, why in result.realtime.items()) + ".", ""]


def interrupted_lines(result: RunResult) -> List[str]:
    """The summary's line saying the run did not run to its end."""
    line = stopped_line(result)
    return [line, ""] if line else []


# What Markdown (and the HTML a renderer lets through) gives meaning to
# inside a line: each is shown as itself behind a backslash. Untrusted
# text never starts a line here, so '#' (a heading) and '!' (an image,
# only before '[') stay as they are: compiler lines read as printed.
MARKDOWN_SPECIAL = frozenset("\\`*_[]<>|~&")


def md_text(text: object) -> str:
    """Untrusted text as literal Markdown: no emphasis, link, HTML tag or
    table cell boundary of its own."""
    return "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch
                   for ch in str(text))


def markdown(result: RunResult) -> str:
    out = [f"# ndisbench run {result.run_id}", "",
           f"Started {result.started} on {result.host}, accel "
           f"{result.accel}, clock {result.clock or 'realtime'}. "
           f"{summary_line(result)}.", "",
           *([subject_line(result), ""] if result.subject else []),
           *causes_markdown(result),
           *interrupted_lines(result), *clock_lines(result),
           *shard_lines(result),
           "| " + " | ".join(["kernel", "policy", "device"] + result.checks)
           + " |",
           "|" + "---|" * (3 + len(result.checks))]
    for c in result.cells:
        cols = [c.kernel, c.policy, c.label] + [
            label(k, c.verdicts[k]) if k in c.verdicts else "-"
            for k in result.checks]
        out.append("| " + " | ".join(md_text(col) for col in cols) + " |")
    out += ["", "`reproduced`: the historical breakage happened exactly as "
            "expected (symbols, message, taint bits). `refused`: "
            "driverloader denied its GPL-only symbols, as intended.", "",
            "## Cells", ""]
    for c in result.cells:
        boot = f"{c.boot_seconds}s" if c.boot_seconds is not None else "-"
        out.append(f"### {md_text(c.kernel)} / {md_text(c.label)}")
        release = (c.release or "-").replace("`", "'")
        out.append(f"release `{release}`, boot {boot}, first KTAP "
                   f"line {c.first_ktap_seconds or '-'}s, clock "
                   f"{c.clock or 'realtime'}, "
                   f"[serial log]({c.folder}/serial.log), "
                   f"[KTAP]({c.folder}/ktap.txt)")
        out.append("")
        for check, v in c.verdicts.items():
            out.append(f"- {md_text(check)}: **{label(check, v)}**: "
                       f"{md_text(v.summary)}")
            out += [f"  - {md_text(d)}" for d in v.details[1:]]
        out.append("")
    return "\n".join(out)


def junit(result: RunResult) -> bytes:
    # Verdicts are clean already; names and cell fields loaded from a
    # results.json may not be, and one control character makes the whole
    # file unparseable.
    x = clean_text
    suite = ET.Element("testsuite", name="ndisbench",
                       tests=str(sum(len(c.verdicts) for c in result.cells)))
    failures = errors = skipped = 0
    for c in result.cells:
        for check, v in c.verdicts.items():
            case = ET.SubElement(suite, "testcase",
                                 classname=x(f"{c.kernel}.{c.label}"),
                                 name=x(check),
                                 time=str(c.boot_seconds or 0))
            text = "\n".join([v.summary, *v.details[1:]])
            if v.status == NOT_RUN:
                skipped += 1
                ET.SubElement(case, "skipped", message=v.summary)
            elif v.status == FAIL:
                failures += 1
                ET.SubElement(case, "failure", message=v.summary).text = text
            elif not v.ok:
                errors += 1
                ET.SubElement(case, "error", type=v.status,
                              message=v.summary).text = text
            else:
                ET.SubElement(case, "system-out").text = (
                    f"{label(check, v)}: {v.summary}")
    if result.state:
        # The cells that did not run are an error of the run itself.
        errors += 1
        case = ET.SubElement(suite, "testcase", classname="ndisbench",
                             name="interrupted", time="0")
        line = x(interrupted_lines(result)[0])
        ET.SubElement(case, "error", type="INTERRUPTED",
                      message=line).text = line
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True)


def to_json(result: RunResult) -> str:
    return json.dumps(dataclasses.asdict(result), indent=1)


def from_json(text: str) -> RunResult:
    raw = json.loads(text)
    raw.setdefault("format", 1)
    if not isinstance(raw["format"], int) or raw["format"] > FORMAT:
        raise BenchError(f"results.json format {raw['format']!r}: newer "
                         f"than this ndisbench reads ({FORMAT})")
    cells = []
    for c in raw.pop("cells"):
        verdicts = {k: Verdict(v["status"], v["summary"],
                               tuple(v["details"]))
                    for k, v in c.pop("verdicts").items()}
        cells.append(CellResult(**{k: v for k, v in c.items()
                                   if k in CELL_FIELDS}, verdicts=verdicts))
    return RunResult(**raw, cells=cells)


def write(run_dir: pathlib.Path, result: RunResult) -> None:
    """results.json plus everything rendered from it."""
    write_record(run_dir, result)
    render(run_dir, result)


def write_record(run_dir: pathlib.Path, result: RunResult) -> None:
    """results.json alone (after every cell of a run): whole or not at
    all, the last one written stays if this one fails."""
    put_atomic(run_dir / "results.json", to_json(result).encode())


def put_atomic(path: pathlib.Path, data: bytes) -> None:
    """A scratch file beside path, synced, then renamed over it: a
    reader (or a crash) never sees half a file."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)    # as a plain write makes it
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(name, path)
    except BaseException:
        pathlib.Path(name).unlink(missing_ok=True)
        raise


def render(run_dir: pathlib.Path, result: RunResult) -> None:
    put_atomic(run_dir / "matrix.txt", matrix(result).encode())
    put_atomic(run_dir / "summary.md", markdown(result).encode())
    put_atomic(run_dir / "junit.xml", junit(result))
    html.write(run_dir, result)


def load(run_dir: pathlib.Path) -> RunResult:
    path = run_dir / "results.json"
    try:
        return from_json(path.read_text())
    except FileNotFoundError as exc:
        raise BenchError(f"{run_dir}: not a run folder (no results.json)"
                         ) from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise BenchError(f"{path}: unreadable: {exc}") from exc
