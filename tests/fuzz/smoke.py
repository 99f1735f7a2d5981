#!/usr/bin/env python3
"""Smoke run of one libFuzzer target for `meson test --suite fuzz`.

usage: smoke.py FUZZER SEEDS [FUZZER_ARG...]

SEEDS: a folder of seeds, `-` for none, or `mkseeds:PROGRAM` (PROGRAM DIR
writes the seeds into DIR, a scratch folder). The target fuzzes into a
fresh scratch corpus (libFuzzer writes every new input into its first
corpus folder, so the checked-in seeds are only read); the exit status is
non-zero on any crash, sanitizer report or timeout."""
import os
import subprocess
import sys
import tempfile

TIMEOUT_S = 300


def main(argv: list) -> int:
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    fuzzer, seeds, extra = argv[1], argv[2], argv[3:]
    with tempfile.TemporaryDirectory(prefix="ndisbench-fuzz-") as scratch:
        corpus = os.path.join(scratch, "corpus")
        os.mkdir(corpus)
        cmd = [fuzzer, *extra, f"-artifact_prefix={scratch}/", corpus]
        if seeds.startswith("mkseeds:"):
            made = os.path.join(scratch, "seeds")
            os.mkdir(made)
            subprocess.run([seeds[len("mkseeds:"):], made],
                           stdin=subprocess.DEVNULL, timeout=60, check=True)
            cmd.append(made)
        elif seeds != "-":
            cmd.append(seeds)
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                  timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            print(f"smoke.py: {fuzzer} ran over {TIMEOUT_S} s",
                  file=sys.stderr)
            return 1
    if proc.returncode != 0:
        print(f"smoke.py: {fuzzer} exited with {proc.returncode}",
              file=sys.stderr)
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
