"""The wrapper's host tool ndisconf (wrapper/utils/ndisconf_tool.c), built
by meson in build/ like the other user tools: `ndisconf --describe FILE`
is the bench's one reader of .inf and .sys files (the fuzzed parser and
loader of wrapper/loader), its findings one JSON object."""
import json
import pathlib
import subprocess
from typing import Any, Dict, Optional

from .. import paths
from ..errors import BenchError
from .hostbuild import UTILS, meson_compile

NDISCONF = UTILS / "ndisconf"
# ndisconf's exit statuses (wrapper/utils/describe.h)
REFUSED, USAGE, UNREADABLE, FAILED = 1, 2, 3, 4
TIMEOUT = 120

_built = False


class DescribeError(BenchError):
    """A file ndisconf refused (REFUSED) or could not read (UNREADABLE):
    its one-line message names the file."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def ndisconf() -> pathlib.Path:
    """The host build of ndisconf, (re)built once per process (meson
    compile is a no-op when it is up to date; a fresh clone gets it
    here)."""
    global _built
    if not _built:
        meson_compile(f"{NDISCONF.relative_to(paths.MESON_BUILD)}:executable")
        _built = True
    return NDISCONF


def describe(path: pathlib.Path, arch: Optional[str] = None
             ) -> Dict[str, Any]:
    """What the wrapper's parsers read in an .inf (by its suffix) or a
    .sys; arch: the models decoration of an .inf (NTamd64 unless
    given)."""
    cmd = [str(ndisconf()), "--describe", str(path)]
    if arch is not None:
        cmd += ["--arch", arch]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{path}: ndisconf --describe took more than "
                         f"{TIMEOUT} s") from None
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode in (REFUSED, UNREADABLE):
        raise DescribeError(err.splitlines()[0] if err else
                            f"{path}: refused by ndisconf", proc.returncode)
    if proc.returncode:
        raise BenchError(f"{path}: ndisconf --describe failed (exit "
                         f"{proc.returncode}): {err or 'no message'}")
    try:
        found = json.loads(proc.stdout.decode("utf-8", "replace"))
    except ValueError as exc:
        raise BenchError(f"{path}: ndisconf --describe printed no JSON "
                         f"({exc})") from None
    if not isinstance(found, dict) or "format" not in found:
        raise BenchError(f"{path}: ndisconf --describe printed no "
                         f"description")
    return found
