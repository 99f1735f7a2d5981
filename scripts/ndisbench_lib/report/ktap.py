"""A parser for the KTAP the guest agent prints (Documentation/dev-tools/
ktap.rst): top-level results only, with the `# key: value` diagnostic lines
that precede each result attached to it as facts.

The agent runs each row of its table in a child and marks it on the
console (`# ndisbench: begin <row>`, `end <row>`, and `died <row>: <how>`
when PID 1 printed results the child did not) and in the kernel log, which
the rmmod row replays as `# klog:` facts: the marks say which row a kernel
report fell in (row_lines)."""
import dataclasses
import re
from typing import List, Optional, Tuple

VERSION_RE = re.compile(r"^KTAP version (\d+)$")
PLAN_RE = re.compile(r"^1\.\.(\d+)$")
RESULT_RE = re.compile(r"^(ok|not ok) (\d+)(?: ([^#]*?))?\s*(?:#\s*(.*))?$")
FACT_RE = re.compile(r"^# ([A-Za-z0-9_.-]+): ?(.*)$")
DONE_LINE = "# ndisbench-agent: done"
# ndisbench.params=console: the agent waits for its words (guest/snapshot.py)
READY_LINE = "# ndisbench-agent: waiting for parameters"
# The agent's row marks (guest/agent/isolate.c), on the console.
MARK_RE = re.compile(r"^# ndisbench: (begin|end) (\S+)$")
DIED_RE = re.compile(r"^# ndisbench: died (\S+?): (.*)$")
# The same marks in the kernel log the agent replays.
KLOG_FACT = "# klog: "
KLOG_MARK_RE = re.compile(r"^# klog: ndisbench: (begin|end) (\S+)$")
# A kmemleak scan at the end reports what no row can be said to have leaked.
UNROWED_FACTS = ("# kmemleak: ", "# kmemleak_scanned: ")


@dataclasses.dataclass
class KtapRow:
    """One row of the agent's table as it ran: the results printed
    between its marks, and how its child died ("": it did not)."""
    name: str
    tests: List[str] = dataclasses.field(default_factory=list)
    died: str = ""


@dataclasses.dataclass
class KtapTest:
    number: int
    name: str
    ok: bool
    directive: str = ""
    facts: List[Tuple[str, str]] = dataclasses.field(default_factory=list)

    def fact(self, key: str) -> Optional[str]:
        for k, v in self.facts:
            if k == key:
                return v
        return None

    def all(self, key: str) -> List[str]:
        return [v for k, v in self.facts if k == key]


@dataclasses.dataclass
class KtapLog:
    version: Optional[int] = None
    plan: Optional[int] = None
    tests: List[KtapTest] = dataclasses.field(default_factory=list)
    done: bool = False
    lines: List[str] = dataclasses.field(default_factory=list)
    rows: List[KtapRow] = dataclasses.field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every planned result is there and the agent finished."""
        return (self.plan is not None and len(self.tests) == self.plan
                and self.done)

    def test(self, name: str) -> Optional[KtapTest]:
        for t in self.tests:
            if t.name == name:
                return t
        return None


def parse(text: str) -> KtapLog:
    """Parse KTAP out of a serial log; lines before `KTAP version` and
    indented (subtest) lines are ignored, so kernel console noise around the
    agent's output does not disturb it."""
    log = KtapLog()
    pending: List[Tuple[str, str]] = []
    row: Optional[KtapRow] = None
    for raw in text.splitlines():
        line = raw.rstrip("\r\n").rstrip()
        if log.version is None:
            match = VERSION_RE.match(line.strip())
            if match:
                log.version = int(match.group(1))
                log.lines.append(line)
            continue
        if not line or line[0].isspace():
            continue
        if line == DONE_LINE:
            log.done = True
            log.lines.append(line)
            continue
        match = PLAN_RE.match(line)
        if match and log.plan is None:
            log.plan = int(match.group(1))
            log.lines.append(line)
            continue
        mark = MARK_RE.match(line)
        if mark:
            row = KtapRow(mark.group(2)) if mark.group(1) == "begin" \
                else None
            if row is not None:
                log.rows.append(row)
            log.lines.append(line)
            continue
        died = DIED_RE.match(line)
        if died:
            if row is not None:
                row.died = died.group(2)
            log.lines.append(line)
            continue
        match = FACT_RE.match(line)
        if match:
            pending.append((match.group(1), match.group(2)))
            log.lines.append(line)
            continue
        match = RESULT_RE.match(line)
        if match:
            log.tests.append(KtapTest(int(match.group(2)),
                                      (match.group(3) or "").strip(),
                                      match.group(1) == "ok",
                                      (match.group(4) or "").strip(),
                                      pending))
            if row is not None:
                row.tests.append(log.tests[-1].name)
            pending = []
            log.lines.append(line)
    return log


def row_lines(text: str) -> List[Tuple[str, str]]:
    """Each line of a serial log with the agent row it belongs to ("":
    none: the boot, between rows, a kmemleak scan). A console line is of
    the row whose marks enclose it; a replayed kernel log line (`# klog:`)
    of the row whose marks enclose it in the kernel log."""
    out: List[Tuple[str, str]] = []
    console, klog = "", ""
    for raw in text.splitlines():
        line = raw.rstrip("\r\n").rstrip()
        mark = MARK_RE.match(line)
        if mark:
            console = mark.group(2) if mark.group(1) == "begin" else ""
        kmark = KLOG_MARK_RE.match(line)
        if kmark:
            klog = kmark.group(2) if kmark.group(1) == "begin" else ""
        if line.startswith(KLOG_FACT):
            out.append((klog, line))
        elif line.startswith(UNROWED_FACTS):
            out.append(("", line))
        else:
            out.append((console, line))
    return out
