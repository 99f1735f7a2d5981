"""Judging one guest: its serial log is parsed once (read_serial) into a
ParsedSerial that every reader shares: the checks' facts, the kernel's
reports (charged to the rows they fell in: charge_reports; or, without
rows, the first problem line: kernel_problem), the known-disagreement
notes and the cell's ktap.txt."""
import dataclasses
import pathlib
import re
from typing import Dict, List, Optional, Sequence, Tuple

from ..checks import registry
from ..checks.check import CellFacts
from ..checks.facts import oops_site
from ..errors import GuestTimeout
from ..guest import capture, machine
from ..report import ktap
from ..report.verdict import ERROR, FAIL, TIMEOUT, Verdict
from .plan import CellPlan, Prepared, cell_builds, native_first

# What fails a whole cell: oopses and WARNs, and the reports of the debug
# kernel's checkers (KASAN prints "BUG: KASAN", lockdep "WARNING: possible
# ...", "inconsistent lock state", "bad unlock balance"; kmemleak's scan,
# printed by the agent, "unreferenced object").
KERNEL_PROBLEM_RE = re.compile(
    r"(Kernel panic|BUG: |Oops: |general protection fault|WARNING: CPU:|"
    r"detected buffer overflow|"
    r"Call Trace:|WARNING: possible |WARNING: inconsistent lock state|"
    r"WARNING: bad unlock balance|WARNING: suspicious RCU usage|"
    r"unreferenced object 0x)")


def kernel_problem(serial: str) -> str:
    """The first problem line, with where it happened when a trace says
    (facts.oops_site)."""
    lines = serial.splitlines()
    for i, line in enumerate(lines):
        if KERNEL_PROBLEM_RE.search(line):
            site = oops_site(lines[i:i + 60])
            return line.strip() + (f" (in {site})" if site else "")
    return ""


@dataclasses.dataclass(frozen=True)
class KernelReport:
    """The first kernel problem line of one agent row ("": outside every
    row), with where it happened when a trace says."""
    row: str
    line: str


def kernel_reports(serial: str) -> List[KernelReport]:
    """The first problem of each row, in the order they appear."""
    lines = ktap.row_lines(serial)
    found: Dict[str, KernelReport] = {}
    for i, (row, line) in enumerate(lines):
        if row not in found and KERNEL_PROBLEM_RE.search(line):
            site = oops_site([text for _, text in lines[i:i + 60]])
            found[row] = KernelReport(row, line.strip() +
                                      (f" (in {site})" if site else ""))
    return list(found.values())


@dataclasses.dataclass(frozen=True)
class ParsedSerial:
    """One guest's serial log, read once: the agent's KTAP, the first
    kernel problem of each row and the first problem line of all."""
    text: str
    log: ktap.KtapLog
    reports: Tuple[KernelReport, ...]
    problem: str


def read_serial(serial: str) -> ParsedSerial:
    return ParsedSerial(serial, ktap.parse(serial),
                        tuple(kernel_reports(serial)), kernel_problem(serial))


def row_readers(log: ktap.KtapLog, row: str, checks: Sequence[str]
                ) -> List[str]:
    """The checks that read a result the row printed (or the row's own
    name)."""
    tests = [t for r in log.rows if r.name == row for t in r.tests] + [row]
    return [c for c in checks
            if any(registry.get(c).reads_test(t) for t in tests)]


def last_row(log: ktap.KtapLog, check: str) -> Optional[int]:
    """Where the last row the check reads ran (None: it reads none)."""
    unit = registry.get(check)
    return max((i for i, r in enumerate(log.rows)
                if any(unit.reads_test(t) for t in r.tests + [r.name])),
               default=None)


def charge_reports(serial: ParsedSerial, verdicts: Dict[str, Verdict],
                   keep: Sequence[str]) -> Dict[str, Verdict]:
    """Each kernel report FAILs the checks reading the row it fell in; a
    report outside every row, or in a row no check reads, fails every
    passing check as before. The checks that ran (in part) after a
    charged report keep their verdict and say so. A row whose child died
    (PID 1 printed its results) FAILs its readers. keep: checks judged as
    they are (a row one of them reads is theirs: it charges no other)."""
    log = serial.log
    out = dict(verdicts)
    judged = [c for c in verdicts if c not in keep]
    guest = [c for c in verdicts if not registry.get(c).host_side]
    charged: Dict[str, str] = {}
    after: List[Tuple[int, KernelReport]] = []
    for report in serial.reports:
        readers = row_readers(log, report.row, guest) if report.row else []
        index = next((i for i, r in enumerate(log.rows)
                      if r.name == report.row), None)
        for check in [c for c in readers if c in judged] if readers \
                else judged:
            if readers or out[check].ok:
                charged.setdefault(check, report.line)
        if readers and index is not None:
            after.append((index, report))
    for check, line in charged.items():
        own = out[check]
        out[check] = Verdict(FAIL, f"kernel reported: {line}",
                             (own.summary,) if own.summary else ())
    for check in judged:
        if check in charged:
            continue
        for row in log.rows:
            if row.died and any(registry.get(check).reads_test(t)
                                for t in row.tests):
                out[check] = Verdict(
                    FAIL, f"the agent's {row.name} test died: {row.died}",
                    (out[check].summary,))
                break
        at = last_row(log, check)
        before = [r for i, r in after if at is not None and i < at]
        if before:
            # its own verdict, or its row's death: either came after
            own = out[check]
            out[check] = Verdict(
                own.status, f"{own.summary} (ran after an oops in "
                            f"{before[0].row}: {before[0].line})",
                own.details)
    return out


def judge_cell(plan: CellPlan, prep: Prepared, boot: machine.BootResult,
               sink_bytes: Optional[Dict[str, Optional[int]]] = None,
               air_capture: Optional[capture.AirCapture] = None,
               log_name: str = "serial.log",
               serial: Optional[ParsedSerial] = None) -> Dict[str, Verdict]:
    """Every check's verdict; a kernel problem (charged to the checks of
    the agent row it fell in: charge_reports) or an agent that did not
    finish turns the passes into FAIL or ERROR. sink_bytes: per check,
    what its host sink counted; log_name: the guest's serial log; serial:
    the log as read (None: read it here)."""
    log_path = (plan.folder or pathlib.Path(".")) / log_name
    if serial is None:
        serial = read_serial(boot.serial)
    log = serial.log
    facts = cell_facts(plan, prep, boot, serial, sink_bytes, air_capture)
    host = {c for c in plan.checks if registry.get(c).host_side}
    if boot.status == "timeout":
        why = str(GuestTimeout(boot.seconds, log_path, boot))
        # A row that oopsed and hung until the kill: the report is why.
        first = next((r for r in serial.reports if r.row), None)
        if first is not None:
            why += f"; the kernel reported in {first.row}: {first.line}"
        verdict = Verdict(TIMEOUT, why)
        return {c: registry.judge(c, facts) if c in host else verdict
                for c in plan.checks}
    if boot.status == "flood":
        flood = machine.flood_message(machine.console_budget())
        verdict = Verdict(ERROR, f"{flood} (log: {log_path})")
        return {c: registry.judge(c, facts) if c in host else verdict
                for c in plan.checks}
    verdicts = {c: registry.judge(c, facts) for c in plan.checks}
    if log.rows:
        # A check that wants the kernel's reports judges them itself.
        verdicts = charge_reports(serial, verdicts, [
            c for c in plan.checks if c in host or
            registry.get(c).expects_kernel_reports])
        problem = ""
    else:
        # An agent without row marks: any report fails the whole cell.
        problem = serial.problem
    if problem:
        downgrade = Verdict(FAIL, f"kernel reported: {problem}")
    elif not log.complete:
        downgrade = Verdict(ERROR, "agent did not finish (guest stopped, "
                                   f"exit {boot.exit_code})")
    else:
        return verdicts
    keep = host | {c for c in plan.checks if problem and
                   registry.get(c).expects_kernel_reports}
    return {c: (downgrade if v.ok and c not in keep else v)
            for c, v in verdicts.items()}


def cell_facts(plan: CellPlan, prep: Prepared, boot: machine.BootResult,
               serial: ParsedSerial,
               sink_bytes: Optional[Dict[str, Optional[int]]] = None,
               air_capture: Optional[capture.AirCapture] = None
               ) -> CellFacts:
    """What the checks of one guest judge from."""
    return CellFacts(
        serial.log, plan.exp, prep.kernel.policy, plan.roles, prep.base_bits,
        plan.device, config=prep.art.config() if prep.art else None,
        sinks=sink_bytes or {}, air=air_capture,
        gpl_imports={role: mod.gpl_imports
                     for role, mod in prep.built.items()},
        own_loader_abi=plan.wrapper_src is None, lease=plan.lease,
        tcp_bytes=plan.tcp_bytes, qemu_ids=boot.qemu_ids,
        builds=cell_builds(plan, prep), unbinds=native_first(plan, prep))
