"""Terminal progress: one line per step, elapsed times, heartbeats."""
import dataclasses
import sys
import threading
import time
from typing import List

_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Finished:
    """A step that ended: what it was, how long it took, whether it
    succeeded (the test command's time table lists the longest)."""
    tag: str
    text: str
    secs: float
    ok: bool


_finished: List[Finished] = []


def finished_steps() -> List[Finished]:
    with _lock:
        return list(_finished)


def forget_steps() -> None:
    with _lock:
        _finished.clear()


def restore_steps(steps: List[Finished]) -> None:
    """The finished steps as they were (finished_steps()'s copy)."""
    with _lock:
        _finished[:] = steps


def say(tag: str, text: str) -> None:
    """Print one complete progress line (safe from several threads)."""
    with _lock:
        sys.stdout.write(f"[{tag}] {text}\n")
        sys.stdout.flush()


def fmt_secs(secs: float) -> str:
    if secs < 60:
        return f"{secs:.1f}s"
    return f"{int(secs // 60)}m{int(secs % 60):02d}s"


class Step:
    """Context manager that announces a step and how long it took; a quiet
    one (a module build: dozens per run) is only timed for the table."""

    def __init__(self, tag: str, text: str, quiet: bool = False) -> None:
        self.tag = tag
        self.text = text
        self.quiet = quiet
        self.start = 0.0

    def __enter__(self) -> "Step":
        self.start = time.monotonic()
        if not self.quiet:
            say(self.tag, f"{self.text} ...")
        return self

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __exit__(self, exc_type, exc, tb) -> None:
        secs = self.elapsed()
        state = "done" if exc_type is None else "FAILED"
        with _lock:
            _finished.append(Finished(self.tag, self.text, secs,
                                      exc_type is None))
        if not self.quiet:
            say(self.tag, f"{self.text}: {state} in {fmt_secs(secs)}")
