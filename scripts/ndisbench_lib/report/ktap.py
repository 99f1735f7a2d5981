"""A parser for the KTAP the guest agent prints (Documentation/dev-tools/
ktap.rst): top-level results only, with the `# key: value` diagnostic lines
that precede each result attached to it as facts."""
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
            pending = []
            log.lines.append(line)
    return log
