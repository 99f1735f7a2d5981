#!/usr/bin/env python3
"""Smoke run of one libFuzzer target for `meson test --suite fuzz`.

usage: smoke.py [--artifacts DIR] FUZZER CORPUS [FUZZER_ARG...]

CORPUS: the target's checked-in corpus folder (tests/fuzz/corpus/<t>/), or
`-` for none. It is only read: the target fuzzes a scratch copy of it
(libFuzzer adds every new input to its first corpus folder), and a run
that changed it fails.

The seed is passed explicitly (-seed=N) and printed: NDISBENCH_FUZZ_SEED=N
replays a run, else a random one is drawn. Crash, leak, timeout and
out-of-memory inputs go to a new folder under --artifacts (default
<repo>/out/fuzz-artifacts/), kept with the target's output and named in
the failure message; it is removed after a clean run. The exit status is
1 on any crash, sanitizer report, kept input, overrun or corpus change.
"""
import hashlib
import os
import pathlib
import secrets
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional

REPO = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "out" / "fuzz-artifacts"
SEED_ENV = "NDISBENCH_FUZZ_SEED"
TIMEOUT_S = 300


def pick_seed() -> int:
    """NDISBENCH_FUZZ_SEED, else random (libFuzzer's own, -seed=0, is only
    in its output)."""
    env = os.environ.get(SEED_ENV, "")
    if env:
        seed = int(env)
        if seed <= 0:
            raise ValueError(f"{SEED_ENV}={env}: not a positive number")
        return seed
    return secrets.randbelow(2**31 - 1) + 1


def snapshot(folder: Optional[pathlib.Path]) -> Dict[str, str]:
    """Every file of folder by name, as its SHA-256."""
    if folder is None:
        return {}
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def main(argv: List[str]) -> int:
    args = argv[1:]
    artifacts = ARTIFACTS
    if args[:1] == ["--artifacts"] and len(args) > 1:
        artifacts, args = pathlib.Path(args[1]), args[2:]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    fuzzer, seeds, extra = args[0], args[1], args[2:]
    name = pathlib.Path(fuzzer).name
    corpus = None if seeds == "-" else pathlib.Path(seeds)
    try:
        seed = pick_seed()
    except ValueError as exc:
        print(f"smoke.py: {exc}", file=sys.stderr)
        return 2
    before = snapshot(corpus)
    artifacts.mkdir(parents=True, exist_ok=True)
    kept = pathlib.Path(tempfile.mkdtemp(prefix=f"{name}-seed{seed}-",
                                         dir=artifacts))
    print(f"smoke.py: {name} -seed={seed} (replay: {SEED_ENV}={seed})",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="ndisbench-fuzz-") as scratch:
        work = pathlib.Path(scratch) / "corpus"
        if corpus is None:
            work.mkdir()
        else:
            shutil.copytree(corpus, work)
        cmd = [fuzzer, *extra, f"-seed={seed}",
               f"-artifact_prefix={kept}/", str(work)]
        problems = []
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT,
                                  timeout=TIMEOUT_S, check=False)
            output = proc.stdout
            if proc.returncode:
                problems.append(f"exited with {proc.returncode}")
        except subprocess.TimeoutExpired as exc:
            output = exc.stdout or b""
            problems.append(f"ran over {TIMEOUT_S} s")
    sys.stdout.buffer.write(output)
    sys.stdout.flush()
    inputs = sorted(p.name for p in kept.iterdir())
    if inputs:
        problems.append(f"left {len(inputs)} input(s)")
    if snapshot(corpus) != before:
        problems.append(f"the checked-in corpus {corpus} changed")
    if not problems:
        kept.rmdir()
        return 0
    (kept / f"{name}.log").write_bytes(output)
    print(f"smoke.py: {name} -seed={seed} FAILED: {'; '.join(problems)}; "
          f"kept in {kept}: {', '.join(inputs) or 'no input'} and "
          f"{name}.log", file=sys.stderr)
    for crash in inputs:
        print(f"smoke.py: reproduce: {fuzzer} {kept / crash}", file=sys.stderr)
    print(f"smoke.py: rerun: {SEED_ENV}={seed} meson test -C build-fuzz "
          f"{name}_smoke", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
