#!/usr/bin/env python3
"""Long fuzzing run of the device models: ndisbench-fuzz-test, seed after
seed, for a given time, against the bench's QEMU.

    tests/qtest/fuzz.py [--minutes 10] [--seed N] [--iters N] [--mutants N]
                        [--device bcm43xx|rtl8187|wlan-ap ...]
                        [--out DIR]

Builds QEMU and the fuzz qtest in the bench's tree (as tests/qtest/run.py
does), copies both out of it (the tree stays free for others), then runs
one QEMU per seed, alternating the devices, until the time is up (a seed
also decides the machine: pc or q35, UHCI/EHCI or xHCI, and which radios
lose the reentrancy guard). The first seed is a fresh random one unless
--seed gives it; it is printed first. A seed whose run fails (QEMU
aborted, crashed or hung, or the test asserted) keeps its log in --out as
<device>-seed<N>.log; replay it with

    tests/qtest/fuzz.py --device <device> --seed N --iters I --minutes 0

(one seed; or NDISBENCH_FUZZ_SEED=N NDISBENCH_FUZZ_ITERS=I with the test
binary, -p /x86_64/ndisbench/fuzz/<device>).

Prints the actions and seeds run and the failures per device; exit status
1 if any seed failed. Without --out the logs go to a fresh private folder
(tempfile.mkdtemp, printed); an --out folder must be this user's own, a
real folder (not a symlink) that nobody else can write to.
"""
import argparse
import os
import pathlib
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from ndisbench_lib import paths  # noqa: E402
from ndisbench_lib.build import qemu_build  # noqa: E402
from ndisbench_lib.build.cache import Cache  # noqa: E402

TEST = "ndisbench-fuzz-test"
DEVICES = ("bcm43xx", "rtl8187", "wlan-ap")
ITERS = {"bcm43xx": 3000, "rtl8187": 600, "wlan-ap": 200}
ACTIONS_RE = re.compile(r"# fuzz ([\w-]+): (\d+) actions in")


def build(workdir: pathlib.Path) -> pathlib.Path:
    """The fuzz test and a QEMU wrapper script, copied to workdir."""
    tree = qemu_build.QemuTree(Cache(paths.cache_root()))
    with tree.lock():
        tree.prepare()
        tree.ninja(qemu_build.TARGET, f"tests/qtest/{TEST}",
                   what="ninja fuzz")
        shutil.copy2(tree.binary, workdir / "qemu-bin")
        shutil.copy2(tree.build / "tests" / "qtest" / TEST, workdir / TEST)
    # libqtest takes the target from the binary's name
    wrapper = workdir / "bin" / qemu_build.TARGET
    wrapper.parent.mkdir()
    args = " ".join(qemu_build.firmware_args())
    wrapper.write_text(f'#!/bin/sh\nexec "{workdir}/qemu-bin" {args} '
                       f'"$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def out_folder(path: Optional[str]) -> pathlib.Path:
    """The folder for the logs of failed seeds. They are written by name,
    so a folder another user owns or can write to (a fixed /tmp name, a
    symlink planted there) could send them anywhere: refused (ValueError)."""
    if path is None:
        return pathlib.Path(tempfile.mkdtemp(prefix="ndisbench-fuzz-out-"))
    out = pathlib.Path(path)
    if not out.is_symlink() and not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        out.mkdir(mode=0o700)
    st = os.lstat(out)
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"--out {out}: not a folder (a symbolic link?)")
    if st.st_uid != os.geteuid():
        raise ValueError(f"--out {out}: owned by uid {st.st_uid}, not by "
                         f"this user ({os.geteuid()})")
    if st.st_mode & 0o022:
        raise ValueError(f"--out {out}: writable by others (mode "
                         f"{st.st_mode & 0o7777:o})")
    return out


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=None,
                    help="first seed (default: a fresh random one)")
    ap.add_argument("--iters", type=int, default=0,
                    help="actions per seed (default: the test's)")
    ap.add_argument("--mutants", type=int, default=None,
                    help="mutated migration streams per seed (default: "
                         "the test's)")
    ap.add_argument("--device", action="append", choices=DEVICES)
    ap.add_argument("--out", help="folder for the logs of failed seeds "
                    "(default: a new private one)")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = secrets.randbelow(2 ** 32)
    print(f"fuzz: first seed {args.seed} (replay one with --seed N "
          f"--minutes 0)", flush=True)
    devices = args.device or list(DEVICES)
    try:
        out = out_folder(args.out)
    except ValueError as exc:
        ap.error(str(exc))
    print(f"fuzz: logs of failed seeds go to {out}", flush=True)

    with tempfile.TemporaryDirectory(prefix="ndisbench-fuzz-") as tmp:
        workdir = pathlib.Path(tmp)
        wrapper = build(workdir)
        env = dict(os.environ, QTEST_QEMU_BINARY=str(wrapper))
        if args.mutants is not None:
            env["NDISBENCH_FUZZ_MUTANTS"] = str(args.mutants)
        stats = {d: {"seeds": 0, "actions": 0, "failed": []}
                 for d in devices}
        start = time.monotonic()
        end = start + args.minutes * 60
        seed = args.seed
        # --minutes 0: one round, the first seed of each device
        while time.monotonic() < end or seed == args.seed:
            for dev in devices:
                iters = args.iters or ITERS[dev]
                env.update(NDISBENCH_FUZZ_SEED=str(seed),
                           NDISBENCH_FUZZ_ITERS=str(iters),
                           NDISBENCH_FUZZ_RUNS="1")
                try:
                    proc = subprocess.run(
                        [str(workdir / TEST), "--tap", "-p",
                         f"/x86_64/ndisbench/fuzz/{dev}"],
                        env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, timeout=300)
                    text, ok = proc.stdout, proc.returncode == 0
                except subprocess.TimeoutExpired as exc:
                    text = (exc.stdout or b"").decode(errors="replace")
                    text += "\nfuzz.py: killed after 300 s\n"
                    ok = False
                st = stats[dev]
                st["seeds"] += 1
                m = ACTIONS_RE.search(text)
                st["actions"] += int(m.group(2)) if m else 0
                if not ok or not m:
                    st["failed"].append(seed)
                    log = out / f"{dev}-seed{seed}.log"
                    log.write_text(text)
                    print(f"fuzz {dev}: seed {seed} FAILED (log: {log})",
                          flush=True)
            seed += 1
        secs = time.monotonic() - start
    failed = 0
    for dev, st in stats.items():
        failed += len(st["failed"])
        print(f"fuzz {dev}: {st['actions']} actions, {st['seeds']} seeds "
              f"({args.seed}..{seed - 1}), {len(st['failed'])} failed"
              + (f": seeds {st['failed']}" if st["failed"] else ""))
    print(f"fuzz: {secs:.0f} s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
