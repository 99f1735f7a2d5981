"""Choosing the accelerator: detect, don't assume.

/dev/kvm can exist and still be unusable (a nested software layer on which
ordinary guests hang or die with emulation errors), so `auto` boots one real
guest with KVM and keeps KVM only if the agent finishes. The verdict is
remembered per host kernel, CPU and QEMU binary, so the probe runs once.
"""
import hashlib
import json
import os
import pathlib
import platform
import tempfile
from typing import Sequence

from . import machine
from ..build.cache import Cache
from ..progress import say

PROBE_TIMEOUT = 45.0


def _fingerprint() -> str:
    cpu = ""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line
                break
    except OSError:
        pass
    qemu = machine.qemu_binary()
    stat = os.stat(qemu)
    blob = f"{platform.release()}|{cpu}|{qemu}|{stat.st_size}|{stat.st_mtime}"
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def kvm_openable() -> bool:
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return True


def resolve(requested: str, probe_cmd: Sequence[str], cache: Cache) -> str:
    """probe_cmd: a complete QEMU command line booting a prepared guest,
    with `-accel kvm`."""
    if requested != "auto":
        return requested
    if not kvm_openable():
        return "tcg"
    memo = cache.root / "accel-probe.json"
    key = _fingerprint()
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if key not in known:
        say("run", "probing KVM with one guest (once per host)")
        with tempfile.TemporaryDirectory() as tmp:
            res = machine.boot(probe_cmd, pathlib.Path(tmp) / "probe.log",
                               PROBE_TIMEOUT)
        known[key] = "kvm" if res.status == "done" else "tcg"
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(json.dumps(known))
        verdict = ("usable" if known[key] == "kvm"
                   else "not usable, using TCG")
        say("run", f"KVM probe: {verdict}")
    return known[key]
