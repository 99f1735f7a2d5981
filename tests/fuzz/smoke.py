#!/usr/bin/env python3
"""Smoke run of one libFuzzer target for `meson test --suite fuzz`.

usage: smoke.py FUZZER SEED_DIR|- [FUZZER_ARG...]

The target fuzzes into a fresh scratch corpus (libFuzzer writes every new
input into its first corpus folder, so the checked-in seeds are only read)
and exits non-zero on any crash, sanitizer report or timeout."""
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
        cmd = [fuzzer, *extra, f"-artifact_prefix={scratch}/", scratch]
        if seeds != "-":
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
