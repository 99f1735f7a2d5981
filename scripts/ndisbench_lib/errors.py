"""The exception types the CLI turns into a one-line error."""
import pathlib
from typing import Optional, Sequence

from .progress import fmt_secs

# A cause longer than this is cut: the line must stay readable.
CAUSE_MAX = 300


class BenchError(Exception):
    """A user-facing failure: the message names the bad input or step."""


class BuildError(BenchError):
    """A logged build step failed. str(): one line with the step, how it
    ended, its cause (the most specific error line of its log) and the
    log. causes: every cause line found, most specific first."""

    def __init__(self, step: str, log: pathlib.Path,
                 exit_code: Optional[int], causes: Sequence[str],
                 ended: str = "") -> None:
        self.step = step
        self.log = log
        self.exit_code = exit_code
        self.causes = list(causes)
        self.ended = ended or f"failed (exit {exit_code})"
        cause = self.causes[0] if self.causes else "no output"
        if len(cause) > CAUSE_MAX:
            cause = cause[:CAUSE_MAX - 3] + "..."
        super().__init__(f"{step}: {self.ended}: {cause} (log: {log})")


class BootError(BenchError):
    """A guest could not be started: no QEMU, or QEMU would not run."""


class GuestTimeout(BenchError):
    """A guest was killed at its timeout; boot is what it printed until
    then (machine.BootResult), its serial log is kept."""

    def __init__(self, seconds: float, log: pathlib.Path,
                 boot: object = None) -> None:
        self.seconds = seconds
        self.log = log
        self.boot = boot
        super().__init__(f"guest killed after {fmt_secs(seconds)} (log "
                         f"kept: {log})")
