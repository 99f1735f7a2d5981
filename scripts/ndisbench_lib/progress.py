"""Terminal progress: one line per step, elapsed times, heartbeats."""
import sys
import threading
import time

_lock = threading.Lock()


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
    """Context manager that announces a step and how long it took."""

    def __init__(self, tag: str, text: str) -> None:
        self.tag = tag
        self.text = text
        self.start = 0.0

    def __enter__(self) -> "Step":
        self.start = time.monotonic()
        say(self.tag, f"{self.text} ...")
        return self

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __exit__(self, exc_type, exc, tb) -> None:
        state = "done" if exc_type is None else "FAILED"
        say(self.tag, f"{self.text}: {state} in {fmt_secs(self.elapsed())}")
