#!/usr/bin/env python3
"""A small mutation fuzzer for the bench's Python parsers, with libFuzzer's
command line and output, so `scripts/ndisbench fuzz` runs its targets as it
runs the C ones (commands/fuzz.py parses the same status and stat:: lines).

usage: pyfuzz.py --list  (each target and its corpus folder's name)
       pyfuzz.py TARGET [-seed=N] [-max_total_time=S] [-runs=N]
                 [-max_len=N] [-rss_limit_mb=N] [-timeout=S]
                 [-artifact_prefix=P] [-print_final_stats=1] [CORPUS...]

TARGET is a function of pytargets.py (pytargets.TARGETS). Inputs are the
CORPUS folders' files (the first one receives new inputs, as libFuzzer's),
mutated with random (seeded by -seed: the same seed over the same corpus
makes the same inputs): bit flips, byte and token insertions (the target's
dictionary), deletions, duplications, chunk repeats, splices. -runs=0 runs
each corpus input once (replay).

Limits: the process's address space is capped at -rss_limit_mb (resource.
RLIMIT_AS; MemoryError is an `oom-` finding), each input at -timeout
seconds (an interval timer; a `timeout-` finding). Any exception a target
does not document (pytargets.Refused is how a target says "refused
cleanly") is a `crash-` finding: the input is written to
<artifact_prefix>crash-<sha1>, the traceback printed, and the exit status
is 1.

Coverage: `cov:` is the number of distinct source lines of
scripts/ndisbench_lib run by the traced inputs (one input in TRACE_EVERY
and every seed run under sys.settrace: tracing each input would cost 10x),
and a traced input that reaches a new line joins the corpus; `ft:` is the
number of distinct outcome classes (accepted, or refused with which
exception type and message shape, from the target's label).
"""
import hashlib
import os
import pathlib
import random
import resource
import signal
import sys
import time
import traceback
from typing import Callable, Dict, List, Optional, Set, Tuple

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pytargets  # noqa: E402  (after the path it lives in)

LIB = str(HERE.parents[1] / "scripts" / "ndisbench_lib")
TRACE_EVERY = 32
STATUS_EVERY_SECS = 10.0
DEFAULT_MAX_LEN = 65536
DEFAULT_RSS_MB = 1024
DEFAULT_TIMEOUT_S = 5


class InputTimeout(BaseException):
    """One input ran past -timeout (raised by the interval timer; a
    BaseException so that no target's `except Exception` swallows it)."""


def _on_alarm(signum: int, frame: object) -> None:
    raise InputTimeout()


class Lines:
    """Distinct (file, line) pairs of the bench's library that traced
    inputs ran."""

    def __init__(self) -> None:
        self.seen: Set[Tuple[str, int]] = set()
        self._new = 0

    def _local(self, frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "line":
            key = (frame.f_code.co_filename, frame.f_lineno)
            if key not in self.seen:
                self.seen.add(key)
                self._new += 1
        return self._local

    def _global(self, frame, event, arg):  # type: ignore[no-untyped-def]
        if frame.f_code.co_filename.startswith(LIB):
            return self._local
        return None

    def run(self, fn: Callable[[bytes], str], data: bytes) -> Tuple[str, int]:
        """fn(data) traced: its label and how many new lines it reached."""
        self._new = 0
        sys.settrace(self._global)
        try:
            label = fn(data)
        finally:
            sys.settrace(None)
        return label, self._new


class Mutator:
    def __init__(self, rng: random.Random, tokens: List[bytes],
                 max_len: int) -> None:
        self.rng = rng
        self.tokens = tokens or [b"\n", b" ", b"\x00"]
        self.max_len = max_len

    def mutate(self, data: bytes, other: bytes) -> bytes:
        rng = self.rng
        buf = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(9)
            pos = rng.randint(0, len(buf))
            if op == 0 and buf:
                i = rng.randrange(len(buf))
                buf[i] ^= 1 << rng.randrange(8)
            elif op == 1:
                buf[pos:pos] = bytes([rng.randrange(256)])
            elif op in (2, 3):
                buf[pos:pos] = rng.choice(self.tokens)
            elif op == 4 and buf:
                end = min(len(buf), pos + rng.randint(1, 64))
                del buf[pos:end]
            elif op == 5 and buf:
                start = rng.randrange(len(buf))
                chunk = buf[start:start + rng.randint(1, 128)]
                buf[pos:pos] = chunk
            elif op == 6 and buf:
                # one chunk many times: what makes a parser quadratic
                start = rng.randrange(len(buf))
                chunk = bytes(buf[start:start + rng.randint(1, 32)])
                buf[pos:pos] = chunk * rng.randint(2, 512)
            elif op == 7 and other:
                start = rng.randrange(len(other))
                buf[pos:pos] = other[start:start + rng.randint(1, 256)]
            elif op == 8 and buf:
                buf[rng.randrange(len(buf))] = rng.choice(b"\x00\x7f\xff\n\r"
                                                          b"\x1b<&\"'%|;\\")
        return bytes(buf[:self.max_len])


def parse_args(argv: List[str]) -> Tuple[str, Dict[str, str], List[str]]:
    if not argv or argv[0].startswith("-"):
        raise SystemExit(__doc__)
    flags: Dict[str, str] = {}
    folders: List[str] = []
    for arg in argv[1:]:
        if arg.startswith("-"):
            key, _, value = arg[1:].partition("=")
            flags[key] = value
        else:
            folders.append(arg)
    return argv[0], flags, folders


def load_corpus(folders: List[str]) -> List[bytes]:
    inputs = []
    for folder in folders:
        path = pathlib.Path(folder)
        if path.is_dir():
            inputs += [p.read_bytes() for p in sorted(path.iterdir())
                       if p.is_file()]
        elif path.is_file():
            inputs.append(path.read_bytes())
    return inputs


def rss_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def limit_memory(mb: int) -> None:
    if mb > 0:
        cap = mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def main(argv: List[str]) -> int:
    if argv == ["--list"]:
        # for commands/fuzz.py, which runs this file and does not import it
        for key in sorted(pytargets.TARGETS):
            print(key, pytargets.TARGETS[key].corpus or key)
        return 0
    name, flags, folders = parse_args(argv)
    if name not in pytargets.TARGETS:
        print(f"pyfuzz: unknown target {name} (known: "
              f"{', '.join(sorted(pytargets.TARGETS))})", file=sys.stderr)
        return 2
    target = pytargets.TARGETS[name]
    seed = int(flags.get("seed", "0") or 0) or random.randrange(1, 2**31)
    total = float(flags.get("max_total_time", "0") or 0)
    runs = int(flags["runs"]) if "runs" in flags else -1
    max_len = int(flags.get("max_len", DEFAULT_MAX_LEN))
    per_input = float(flags.get("timeout", DEFAULT_TIMEOUT_S))
    prefix = flags.get("artifact_prefix", "./")
    limit_memory(int(flags.get("rss_limit_mb", DEFAULT_RSS_MB)))
    signal.signal(signal.SIGALRM, _on_alarm)
    rng = random.Random(seed)
    print(f"INFO: Seed: {seed}", flush=True)
    doc = (target.fn.__doc__ or "").strip().splitlines()
    print(f"INFO: pyfuzz target {name}: {doc[0] if doc else target.fn}",
          flush=True)
    corpus = load_corpus(folders) or [b""]
    new_dir = pathlib.Path(folders[0]) if folders else None
    lines = Lines()
    outcomes: Set[str] = set()
    mutator = Mutator(rng, target.tokens, max_len)
    start = time.monotonic()
    execs = 0
    new_units = 0
    last_status = start

    def status(kind: str) -> None:
        elapsed = max(time.monotonic() - start, 1e-6)
        size = sum(len(c) for c in corpus)
        print(f"#{execs}\t{kind} cov: {len(lines.seen)} ft: {len(outcomes)} "
              f"corp: {len(corpus)}/{size}b exec/s: {int(execs / elapsed)} "
              f"rss: {rss_mb()}Mb", flush=True)

    def one(data: bytes, traced: bool) -> Optional[str]:
        """Runs one input; None, or the kind of finding it was."""
        nonlocal execs, new_units
        signal.setitimer(signal.ITIMER_REAL, per_input)
        try:
            if traced:
                label, new = lines.run(target.fn, data)
            else:
                label, new = target.fn(data), 0
        except InputTimeout:
            return "timeout"
        except MemoryError:
            return "oom"
        except Exception:  # anything a target does not document
            signal.setitimer(signal.ITIMER_REAL, 0)
            print(f"=={os.getpid()}== ERROR: pyfuzz: uncaught exception in "
                  f"target {name}", flush=True)
            traceback.print_exc(file=sys.stdout)
            return "crash"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        execs += 1
        outcomes.add(label)
        if new and data not in corpus and execs > 0:
            corpus.append(data)
            new_units += 1
            if new_dir is not None and new_dir.is_dir():
                digest = hashlib.sha1(data).hexdigest()
                (new_dir / digest).write_bytes(data)
        return None

    def found(kind: str, data: bytes) -> int:
        path = pathlib.Path(f"{prefix}{kind}-"
                            f"{hashlib.sha1(data).hexdigest()}")
        path.write_bytes(data)
        print(f"=={os.getpid()}== ERROR: pyfuzz: {kind} in target {name}; "
              f"input written to {path} ({len(data)} bytes)", flush=True)
        print(f"SUMMARY: pyfuzz: {kind}", flush=True)
        final()
        return 1

    def final() -> None:
        elapsed = max(time.monotonic() - start, 1e-6)
        if flags.get("print_final_stats") == "1":
            print(f"stat::number_of_executed_units: {execs}")
            print(f"stat::average_exec_per_sec:     {int(execs / elapsed)}")
            print(f"stat::new_units_added:          {new_units}")
            print(f"stat::peak_rss_mb:              {rss_mb()}", flush=True)

    seeds = list(corpus)
    for data in seeds:
        kind = one(data[:max_len], traced=True)
        if kind:
            return found(kind, data)
    status("INITED")
    while runs != 0:
        if runs > 0 and execs >= runs:
            break
        if total and time.monotonic() - start >= total:
            break
        if not total and runs < 0:
            break
        data = mutator.mutate(rng.choice(corpus), rng.choice(corpus))
        kind = one(data, traced=execs % TRACE_EVERY == 0)
        if kind:
            return found(kind, data)
        if time.monotonic() - last_status >= STATUS_EVERY_SECS:
            status("pulse")
            last_status = time.monotonic()
    status("DONE")
    final()
    print(f"Done {execs} runs in {int(time.monotonic() - start)} second(s)",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
