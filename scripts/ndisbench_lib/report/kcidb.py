"""`ndisbench report --kcidb [RUN]`: a run as KernelCI KCIDB JSON (I/O
schema v5.0), for submission to a KCIDB dashboard (kcidb-submit).

One checkout and one build per kernel of the run (the kernel row is what
was checked out and built: Debian's image, linux-source with a policy
patch, a tree of one's own), one test per cell and check, with the path
`ndisbench.<device>[.<wrapper>].<check>`. Statuses: pass and the expected
failures (reproduced, refused: the verdict is ok) are PASS, FAIL is FAIL,
TIMEOUT and an ERROR of a booted guest are ERROR, an ERROR of a cell that
never booted (a build or setup step failed) is MISS, a check not run
because a module it needs did not build is SKIP; our own word is kept
in misc. The output is checked against the schema subset in
tests/e2e/kcidb-v5.0-subset.json (validate) before it is written."""
import datetime
import json
import pathlib
import re
import urllib.parse
from typing import Any, Dict, List, Optional

from .. import paths
from ..errors import BenchError
from . import report
from .verdict import (ERROR, FAIL, NOT_RUN, OK_STATES, TIMEOUT, clean_text,
                      label)

SUBSET = paths.REPO / "tests" / "e2e" / "kcidb-v5.0-subset.json"
ORIGIN = "ndisbench"
FILE = "kcidb.json"
EXCERPT = 16384


def load_subset(path: pathlib.Path = SUBSET) -> Dict[str, Any]:
    return json.loads(path.read_text())


def kcidb_status(status: str, booted: bool) -> str:
    if status in OK_STATES:
        return "PASS"
    if status == FAIL:
        return "FAIL"
    if status == NOT_RUN:
        return "SKIP"
    if status == ERROR and not booted:
        return "MISS"
    return "ERROR"      # TIMEOUT, ERROR of a booted guest, anything else


def wrapper_version(result: report.RunResult) -> str:
    """The wrapper tree under test in one word pair: its version string
    and git's name for its commit."""
    rec = result.subject
    return " ".join(str(rec.get(k)) for k in ("version", "describe")
                    if rec.get(k)) or str(rec.get("path", ""))


def timestamp(started: str) -> str:
    """results.json's local time with its offset (RFC 3339)."""
    try:
        when = datetime.datetime.fromisoformat(started)
    except (TypeError, ValueError):
        raise BenchError(f"results.json: started {started!r} is not an "
                         f"ISO 8601 time") from None
    if when.tzinfo is None:
        when = when.astimezone()
    return when.isoformat()


# Ids are one line of printable text (clean_text): a line break in a
# name would break the schema's `.*$` patterns.


def path_part(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", text) or "_"


def export(result: report.RunResult, origin: str = ORIGIN,
           base_url: str = "") -> Dict[str, Any]:
    """The KCIDB report of one run. base_url: where the run folder is
    published (logs get log_url/output_files under it), else no URLs."""
    start = timestamp(result.started)
    run = f"{origin}:{clean_text(result.run_id)}"
    out: Dict[str, Any] = {"version": {"major": 5, "minor": 0},
                           "checkouts": [], "builds": [], "tests": []}
    kernels: Dict[str, List[report.CellResult]] = {}
    for cell in result.cells:
        kernels.setdefault(cell.kernel, []).append(cell)
    for kernel, cells in kernels.items():
        kid = f"{run}:{clean_text(kernel)}"
        booted = [c for c in cells if c.boot_seconds is not None]
        releases = sorted({c.release for c in cells if c.release})
        out["checkouts"].append({
            "id": kid, "origin": origin, "tree_name": kernel,
            "start_time": start,
            "comment": f"ndisbench kernel row {kernel} (policy "
                       f"{cells[0].policy})",
            "misc": {"policy": cells[0].policy, "run": result.run_id,
                     **({"wrapper": dict(result.subject)}
                        if result.subject else {})}})
        build: Dict[str, Any] = {
            "id": kid, "checkout_id": kid, "origin": origin,
            "start_time": start, "architecture": "x86_64",
            "config_name": kernel,
            "status": "PASS" if booted else "FAIL",
            "comment": f"{kernel}: " + (", ".join(releases) or
                                        "not built"),
            "misc": {"releases": releases}}
        if not booted:
            why = next((v.summary for c in cells
                        for v in c.verdicts.values()), "")
            if why:
                build["log_excerpt"] = why[:EXCERPT]
        out["builds"].append(build)
        for cell in cells:
            out["tests"] += cell_tests(cell, kid, origin, start, base_url,
                                       result)
    return out


def cell_tests(cell: report.CellResult, build_id: str, origin: str,
               start: str, base_url: str, result: report.RunResult
               ) -> List[Dict[str, Any]]:
    booted = cell.boot_seconds is not None
    # the guest clock of the cell (a run from before it: real time)
    clock = cell.clock or result.clock or "realtime"
    parts = [cell.device] + ([cell.wrapper] if cell.wrapper else [])
    files: List[Dict[str, str]] = []
    log_url = ""
    if base_url:
        base = base_url.rstrip("/") + "/" + urllib.parse.quote(cell.folder)
        log_url = base + "/serial.log"
        files = [{"name": "ktap.txt", "url": base + "/ktap.txt"}]
    tests = []
    for check, v in cell.verdicts.items():
        test: Dict[str, Any] = {
            "id": clean_text(f"{build_id}:{'/'.join(parts)}:{check}"),
            "build_id": build_id, "origin": origin,
            "path": ".".join(path_part(p) for p in
                             ["ndisbench", *parts, check]),
            "status": kcidb_status(v.status, booted),
            "comment": f"{label(check, v)}: {v.summary}"[:EXCERPT],
            "start_time": start,
            "environment": {"comment": f"QEMU ({result.accel or 'tcg'}, "
                                       f"{clock}) on {result.host}",
                            "misc": {"accel": result.accel,
                                     "clock": clock}},
            "misc": {"ndisbench_status": v.status,
                     "label": label(check, v), "kernel": cell.kernel,
                     "release": cell.release, "device": cell.device,
                     "wrapper": cell.wrapper, "policy": cell.policy,
                     **({"wrapper_version": wrapper_version(result)}
                        if result.subject else {})}}
        text = "\n".join([v.summary, *v.details[1:]])
        if v.failed and text:
            test["log_excerpt"] = text[:EXCERPT]
        if booted:
            test["duration"] = float(cell.boot_seconds or 0)
        if v.status == TIMEOUT:
            test["misc"]["timeout"] = True
        if log_url:
            test["log_url"] = log_url
            test["output_files"] = files
        tests.append(test)
    return tests


# ---- the check against the schema subset ----

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?"
                     r"(Z|[+-]\d\d:\d\d)$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")


def _type(value: Any, kind: str, subset: Dict[str, Any], where: str,
          problems: List[str]) -> None:
    def bad(what: str) -> None:
        problems.append(f"{where}: {what}")
    if value is None:
        return bad("null")
    if kind.startswith("list:"):
        if not isinstance(value, list):
            return bad("not a list")
        item = kind[5:]
        for i, v in enumerate(value):
            if item in subset["objects"]:
                _object(v, item, subset, f"{where}[{i}]", problems)
            elif item == "string":
                _type(v, "string", subset, f"{where}[{i}]", problems)
            else:
                bad(f"{item} are not in the subset")
                break
        return None
    if kind in ("string", "date-time", "uri") or kind.startswith(
            ("pattern:", "string<=")):
        if not isinstance(value, str):
            return bad(f"not a string ({kind})")
        if kind == "date-time" and not RFC3339.match(value):
            bad(f"not an RFC 3339 date-time: {value!r}")
        elif kind == "uri" and not URI.match(value):
            bad(f"not a URI: {value!r}")
        elif kind.startswith("pattern:") and not re.search(
                subset["patterns"][kind[8:]], value):
            bad(f"{value!r} does not match {kind[8:]} "
                f"{subset['patterns'][kind[8:]]}")
        elif kind.startswith("string<=") and len(value) > int(kind[8:]):
            bad(f"longer than {kind[8:]} characters")
        return None
    if kind == "status":
        if value not in subset["statuses"]:
            bad(f"status {value!r} not one of {subset['statuses']}")
        return None
    if kind == "boolean":
        if not isinstance(value, bool):
            bad("not a boolean")
        return None
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            bad("not a number")
        return None
    if kind == "object":
        if not isinstance(value, dict):
            bad("not an object")
        return None
    fields: Dict[str, str]
    required: List[str] = []
    if kind == "version":
        fields, required = {"major": "integer", "minor": "integer"}, \
            ["major"]
    elif kind == "resource_list":
        if not isinstance(value, list):
            return bad("not a list")
        for i, v in enumerate(value):
            _fields(v, {"name": "pattern:resource_name", "url": "uri"},
                    ["name", "url"], subset, f"{where}[{i}]", problems)
        return None
    elif kind == "environment":
        fields = {"comment": "string", "misc": "object",
                  "compatible": "list:string"}
    elif kind == "number_object":
        fields, required = {"value": "number", "unit": "string",
                            "prefix": "string"}, ["value"]
        if isinstance(value, dict) and value.get("prefix") not in (
                None, "metric", "binary"):
            bad("prefix not metric or binary")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            bad("not an integer")
        return None
    else:
        return bad(f"unknown type {kind} in the subset")
    _fields(value, fields, required, subset, where, problems)
    if kind == "version" and isinstance(value, dict):
        want = subset["version"]
        if value.get("major") != want["major"]:
            bad(f"major {value.get('major')!r}, the subset is "
                f"{want['major']}")
        if not 0 <= value.get("minor", 0) <= want["minor"]:
            bad(f"minor {value.get('minor')!r} above {want['minor']}")
    return None


def _fields(value: Any, fields: Dict[str, str], required: List[str],
            subset: Dict[str, Any], where: str, problems: List[str]
            ) -> None:
    if not isinstance(value, dict):
        problems.append(f"{where}: not an object")
        return
    for name in required:
        if name not in value:
            problems.append(f"{where}: {name} missing")
    for name, v in value.items():
        if name not in fields:
            problems.append(f"{where}: unknown field {name}")
            continue
        _type(v, fields[name], subset, f"{where}.{name}", problems)


def _object(value: Any, kind: str, subset: Dict[str, Any], where: str,
            problems: List[str]) -> None:
    spec = subset["objects"][kind]
    _fields(value, spec["fields"], spec["required"], subset, where,
            problems)


def validate(data: Any, subset: Optional[Dict[str, Any]] = None
             ) -> List[str]:
    """Every way data breaks the subset (empty: valid), plus the links:
    ids unique per kind, every build's checkout and every test's build
    present."""
    subset = subset or load_subset()
    problems: List[str] = []
    top = subset["top"]
    _fields(data, top["fields"], top["required"], subset, "report",
            problems)
    if problems or not isinstance(data, dict):
        return problems
    ids: Dict[str, set] = {}
    for kind in ("checkouts", "builds", "tests"):
        seen = ids.setdefault(kind, set())
        for obj in data.get(kind, []):
            if obj.get("id") in seen:
                problems.append(f"{kind}: id {obj['id']!r} twice")
            seen.add(obj.get("id"))
    for b in data.get("builds", []):
        if b.get("checkout_id") not in ids["checkouts"]:
            problems.append(f"build {b.get('id')!r}: checkout "
                            f"{b.get('checkout_id')!r} not in the report")
    for t in data.get("tests", []):
        if t.get("build_id") not in ids["builds"]:
            problems.append(f"test {t.get('id')!r}: build "
                            f"{t.get('build_id')!r} not in the report")
    return problems


def write(run_dir: pathlib.Path, result: report.RunResult,
          origin: str = ORIGIN, base_url: str = "") -> pathlib.Path:
    data = export(result, origin, base_url)
    problems = validate(data)
    if problems:
        raise BenchError(f"KCIDB export of {run_dir} does not validate: "
                         f"{problems[0]} ({len(problems)} problem(s))")
    path = run_dir / FILE
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path
