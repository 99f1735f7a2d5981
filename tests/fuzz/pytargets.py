"""The Python fuzz targets (pyfuzz.py runs them;
tests/unit/commands/test_pyfuzz.py runs a short fixed-seed smoke of each).
A target takes the input's bytes and returns a short label of its
outcome class; a clean refusal is the documented exception (BenchError)
caught and labelled here. Anything else escaping, or an oracle's
AssertionError, is a finding.
"""
import atexit
import dataclasses
import html.parser
import json
import pathlib
import re
import shutil
import socket
import sys
import tempfile
import xml.etree.ElementTree as ET
from typing import Callable, Dict, List
from unittest import mock

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests" / "unit"))

from ndisbench_lib import trees  # noqa: E402
from ndisbench_lib.build import hosttool, usertree  # noqa: E402
from ndisbench_lib.errors import BenchError  # noqa: E402
from ndisbench_lib.guest import qmp  # noqa: E402
from ndisbench_lib.report import html as report_html  # noqa: E402
from ndisbench_lib.report import kcidb, ktap, report  # noqa: E402
from ndisbench_lib.report.verdict import STATUSES, Verdict  # noqa: E402


@dataclasses.dataclass
class PyTarget:
    fn: Callable[[bytes], str]
    tokens: List[bytes]
    # its seeds: tests/fuzz/corpus/<corpus>/ ("": corpus/<target name>/)
    corpus: str = ""


def refused(exc: BaseException) -> str:
    """The outcome class of a refusal: its type and its message with the
    input's own text (quoted parts, numbers) left out."""
    shape = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "#", str(exc))
    return f"{type(exc).__name__}: {' '.join(shape.split()[:3])}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


# ---- the host's .inf reading (run --driver): ndisconf --describe ----

_INF_DIR = pathlib.Path(tempfile.mkdtemp(prefix="ndisbench-pyfuzz-inf-"))
atexit.register(shutil.rmtree, _INF_DIR, True)
INF_PATH = _INF_DIR / "fuzz.inf"
INF_MAX_HWIDS = 8192        # wrapper/loader/inf.h


def inf(data: bytes) -> str:
    """userdriver's .inf reading: the wrapper's parser through `ndisconf
    --describe` and its JSON back into Python (hardware ids, the install
    section and .sys file of each, settings)."""
    INF_PATH.write_bytes(data)
    try:
        ids = hosttool.describe(INF_PATH)["ids"]
    except BenchError as exc:
        return refused(BenchError(str(exc).replace(str(_INF_DIR), "")))
    assert len(ids) <= INF_MAX_HWIDS
    for ident in ids:
        assert ident["bus"] in ("pci", "usb"), ident["bus"]
        assert re.fullmatch(r"[0-9a-f]{4}", ident["vendor"]), ident
        assert re.fullmatch(r"[0-9a-f]{4}", ident["device"]), ident
        assert isinstance(ident["install"], str) and ident["install"]
        assert all(f.lower().endswith(".sys") for f in ident["files"])
        assert all(isinstance(k, str) and isinstance(v, str)
                   for k, v in ident["settings"].items())
    return f"accepted: {min(len(ids), 3)} ids, " \
           f"{min(sum(len(i['files']) for i in ids), 3)} files"


# ---- KTAP/console text to verdicts ----

KTAP_DEVICE = "rtl8139/ndiswrapper"
KTAP_CHECKS = ("broken", "install", "unload")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x1b]")


def ktap_verdicts(data: bytes) -> str:
    """The guest's serial text through report/ktap.parse and every check's
    judge (the cell pipeline's judge_cell, as tests/unit/helpers runs it)."""
    from helpers import judge_cell
    text = _text(data)
    log = ktap.parse(text)
    ktap.row_lines(text)
    verdicts = judge_cell(KTAP_DEVICE, KTAP_CHECKS, text)
    for check, verdict in verdicts.items():
        assert verdict.status in STATUSES, (check, verdict.status)
        for line in (verdict.summary, *verdict.details):
            assert not _CONTROL.search(line), (check, line)
    return "tests %d; " % min(len(log.tests), 3) + ",".join(
        f"{c}={v.status}" for c, v in sorted(verdicts.items()))


# ---- the report renderers ----

_HTML_TAGS = frozenset(re.findall(
    r"<(\w+)", pathlib.Path(report_html.__file__).read_text())) | {
        "html", "head", "body", "meta", "title", "style"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: List[str] = []

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.tags.append(tag)


def _result(data: bytes) -> report.RunResult:
    """A run whose every text field comes from the input (NUL-separated
    parts, reused round the fields) and whose statuses its bytes pick."""
    # decoded as the console's reader decodes guest text
    parts = data.decode("utf-8", errors="replace").split("\x00")

    def part(n: int) -> str:
        return parts[n % len(parts)]

    cells = []
    for c in range(1 + len(data) % 3):
        verdicts = {}
        for v in range(1 + (data[c] if c < len(data) else 0) % 4):
            status = STATUSES[(data[v] if v < len(data) else v) %
                              len(STATUSES)]
            verdicts[part(c * 7 + v) or "load"] = Verdict(
                status, part(c + v + 1), tuple(parts[:3]))
        # a run has one cell per kernel and device: the index keeps them
        # apart
        cells.append(report.CellResult(
            part(c + 2), part(c + 3), f"{part(c + 4)}{c}", part(c + 5),
            release=part(c + 6), verdicts=verdicts, wrapper=part(c + 1),
            clock=part(c), start=part(c + 3)))
    return report.RunResult(
        part(0), accel=part(1), checks=parts[:4], cells=cells,
        # the bench writes an ISO time: the input's text one time in four
        started=part(2) if data[:1] and data[0] % 4 == 0
        else "2026-12-06T21:00:00", host=part(3),
        subject={"path": part(4), "version": part(5), "describe": part(6)},
        interrupted=part(7), state="interrupted" if len(parts) % 2 else "",
        not_run=parts[:2])


def renderers(data: bytes) -> str:
    """report.py's terminal, matrix, Markdown, JUnit and JSON, html.py's
    run page and kcidb.py's export of a run made of the input's text.
    Oracles: the XML and the JSON parse back (JSON to the same run), the
    HTML's tags are only those html.py writes, the KCIDB export validates
    and survives json."""
    result = _result(data)
    page = report_html.run_page(result)
    for out in (report.terminal(result), report.matrix(result),
                report.markdown(result), page):
        out.encode("utf-8")         # what writing the file does
    ET.fromstring(report.junit(result))
    text = report.to_json(result)
    assert report.to_json(report.from_json(text)) == text
    tags = _Tags()
    tags.feed(page)
    tags.close()
    stray = set(tags.tags) - _HTML_TAGS
    assert not stray, f"tags from the input in report.html: {stray}"
    try:
        export = kcidb.export(result)
    except BenchError as exc:
        assert "started" in str(exc), exc
        return refused(exc)
    problems = kcidb.validate(json.loads(json.dumps(export)))
    assert not problems, problems[:3]
    return f"{len(result.cells)} cells, {len(tags.tags) // 50} tags/50"


# ---- kernel-tree metadata: modules.order and kernel.release ----

_TREE = pathlib.Path(tempfile.mkdtemp(prefix="ndisbench-pyfuzz-tree-"))
atexit.register(shutil.rmtree, _TREE, True)


def tree_metadata(data: bytes) -> str:
    """The first line is a kernel.release, the rest a modules.order:
    trees.release_problem/version_of, usertree.link_modules (depmod left
    out) into a scratch folder. Oracles: an accepted release is
    [A-Za-z0-9._+~-]+ and not dots only; everything link_modules makes
    lies inside <dest>/lib/modules/<release>/."""
    text = _text(data)
    release, _, order = text.partition("\n")
    shutil.rmtree(_TREE, ignore_errors=True)
    tree = _TREE / "tree"
    dest = _TREE / "dest"
    tree.mkdir(parents=True)
    dest.mkdir()
    (tree / "modules.order").write_bytes(order.encode("utf-8",
                                                      "surrogateescape"))
    trees.version_of(release)
    trees.parse_config(order)
    problem = trees.release_problem(release)
    if not problem:
        assert re.fullmatch(r"[A-Za-z0-9._+~-]{1,64}", release)
        assert set(release) != {"."}
    for rel in order.splitlines()[:64]:
        rel = rel.strip().removeprefix("kernel/")
        if rel and "/" not in rel.rstrip("/") and ".." not in rel:
            ko = tree / (rel[:-2] + ".ko" if rel.endswith(".o") else rel)
            try:
                ko.parent.mkdir(parents=True, exist_ok=True)
                ko.write_bytes(b"")
            except (OSError, ValueError):
                pass
    try:
        with mock.patch.object(usertree, "capture", return_value=""):
            count = usertree.link_modules(tree, release, dest, "fuzz")
    except BenchError as exc:
        return refused(exc)
    moddir = dest / "lib" / "modules" / release
    for path in dest.rglob("*"):
        assert path == moddir or moddir in path.parents or \
            path in moddir.parents, path
    return f"linked {min(count, 3)}"


# ---- QMP replies ----

def qmp_replies(data: bytes) -> str:
    """guest/qmp.Qmp reading the input as QEMU's side of the socket (the
    greeting, then replies to qmp_capabilities and one command)."""
    ours, theirs = socket.socketpair()
    try:
        # within what the socket pair buffers (no reader runs meanwhile)
        theirs.sendall(data[:65536])
        theirs.shutdown(socket.SHUT_WR)
        client = qmp.Qmp.__new__(qmp.Qmp)
        client.sock = ours
        ours.settimeout(5)
        try:
            client.start("fuzz")
            value = client.execute("query-status")
        except BenchError as exc:
            return refused(exc)
        finally:
            client.close()
        return f"returned {type(value).__name__}"
    finally:
        ours.close()
        theirs.close()


TARGETS: Dict[str, PyTarget] = {
    "py_inf": PyTarget(inf, [b"[Manufacturer]\n", b"[Strings]\n", b"%",
                             b"=", b",", b";", b"\\\n", b"\"",
                             b"PCI\\VEN_14E4&DEV_4320", b"USB\\VID_0BDA&PID_8187",
                             b"CopyFiles", b"SourceDisksFiles", b".NTx86",
                             b"\xff\xfe", b"\xef\xbb\xbf"], corpus="inf"),
    "py_ktap": PyTarget(ktap_verdicts, [
        b"KTAP version 1\n", b"1..9\n", b"ok ", b"not ok ", b" # SKIP",
        b"# module: ", b"# errno: ", b"# tainted: ", b"# kmsg: ",
        b"# rmmod: ", b"# ndisbench-agent: done\n", b"    ", b"\x1b[31m",
        b"Oops", b"BUG: ", b"\r\n"]),
    "py_report": PyTarget(renderers, [
        b"\x00", b"<", b"]]>", b"&", b"\x1b[0m", b"|", b"`", b"\x0b",
        b"\xed\xa0\x80", "\u202e".encode(), b"<script>"]),
    "py_tree": PyTarget(tree_metadata, [b"\n", b"kernel/", b"../", b"/",
                                        b".ko", b".o", b"6.1.0-57-amd64",
                                        b"~", b"..", b"\x00"]),
    "py_qmp": PyTarget(qmp_replies, [b"\n", b'{"QMP": {}}\n',
                                     b'{"return": {}}\n', b'{"error": ',
                                     b'{"event": "X"}\n', b'"desc"', b"[",
                                     b"{", b"null", b"1e999", b"\xff"]),
}
