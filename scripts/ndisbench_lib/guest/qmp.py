"""A minimal QMP client (QEMU Machine Protocol, JSON lines over a unix
socket): enough to hot-unplug and replug a device while a guest runs, and
to save a guest into a file (guest/snapshot.py)."""
import json
import pathlib
import shutil
import socket
import tempfile
from typing import Any, Dict, List, Optional

from ..errors import BenchError

TIMEOUT_SECS = 10.0
# QEMU's longest replies (query-qom-tree and the like) are kilobytes.
MAX_LINE = 1 << 20


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON: QEMU never sends them."""
    raise ValueError(f"{name} is not JSON")


class Qmp:
    def __init__(self, path: str, timeout: float = TIMEOUT_SECS) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except OSError as exc:
            self.sock.close()
            raise BenchError(f"QMP {path}: {exc}") from exc
        self.start(path)

    def start(self, path: str) -> None:
        """QEMU's greeting, then capabilities negotiation, on self.sock."""
        self.reader = self.sock.makefile("r", encoding="utf-8")
        if "QMP" not in self._message():
            raise BenchError(f"QMP {path}: no greeting")
        self.execute("qmp_capabilities")

    def _message(self) -> Dict[str, Any]:
        """One JSON object of QEMU's; anything else is a BenchError."""
        try:
            line = self.reader.readline(MAX_LINE + 1)
        except OSError as exc:
            raise BenchError(f"QMP: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise BenchError(f"QMP: not UTF-8 ({exc.reason} at byte "
                             f"{exc.start} of a read)") from None
        if not line:
            raise BenchError("QMP: QEMU closed the connection")
        if len(line) > MAX_LINE:
            raise BenchError(f"QMP: a message longer than {MAX_LINE} bytes")
        try:
            message = json.loads(line, parse_constant=_no_constant)
        except ValueError as exc:       # JSON or UTF-8 (UnicodeDecodeError)
            raise BenchError(f"QMP: not a JSON line ({exc})") from None
        except RecursionError:
            raise BenchError("QMP: JSON nested too deep") from None
        if not isinstance(message, dict):
            raise BenchError(f"QMP: a {type(message).__name__} where an "
                             f"object was expected")
        return message

    def execute(self, command: str,
                arguments: Optional[Dict[str, Any]] = None) -> Any:
        """Run one command; its "return" value, or BenchError with QEMU's
        error description. Events arriving meanwhile are skipped."""
        try:
            self.sock.sendall(self._request(command, arguments))
        except OSError as exc:
            raise BenchError(f"QMP {command}: {exc}") from exc
        return self._reply(command)

    def send_fd(self, name: str, fd: int) -> None:
        """getfd: hand QEMU an open file (SCM_RIGHTS) under a name, for
        commands that take fd:<name> (migrate)."""
        try:
            socket.send_fds(self.sock, [self._request(
                "getfd", {"fdname": name})], [fd])
        except OSError as exc:
            raise BenchError(f"QMP getfd: {exc}") from exc
        self._reply("getfd")

    @staticmethod
    def _request(command: str,
                 arguments: Optional[Dict[str, Any]]) -> bytes:
        request: Dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        return json.dumps(request).encode() + b"\n"

    def _reply(self, command: str) -> Any:
        while True:
            reply = self._message()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                error = reply["error"]
                desc = error.get("desc") if isinstance(error, dict) else None
                raise BenchError(f"QMP {command}: "
                                 f"{desc if desc is not None else reply}"
                                 [:500])

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


class QmpSocket:
    """A QMP server socket for one QEMU, in a short folder of its own:
    unix socket paths are limited to 107 bytes and run folders can be
    deep."""

    def __init__(self) -> None:
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="ndisbench-qmp-"))
        self.path = self.dir / "qmp.sock"

    def qemu_args(self) -> List[str]:
        return ["-qmp", f"unix:{self.path},server=on,wait=off"]

    def connect(self) -> Qmp:
        return Qmp(str(self.path))

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def device_options(spec: str) -> Dict[str, str]:
    """`-device` text ("driver,key=value,...") as device_add arguments."""
    driver, *pairs = spec.split(",")
    args = {"driver": driver}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise BenchError(f"-device {spec}: '{pair}' is not key=value")
        args[key] = value
    return args
