"""`ndisbench pair`: two guests on one emulated air.

Guest A's QEMU owns the air's access points and slirp (the same air as
every WLAN row, air.py) and listens for a second air on a UDP port of
127.0.0.1 (wlan-air link-listen=); guest B's QEMU has an air with no AP
that connects to it (link-connect=), so B's radio hears A's APs and
associates through the link. slirp leases 10.0.2.15 to its first DHCP
client and 10.0.2.16 to the next: A boots first, B only once A printed its
dhcp result. The link carries a random token of the run (secrets.token_hex,
in a 0600 file that both QEMUs read through a `secret` object, so it is
not on their command lines): any local user can send datagrams to the
port, but only the two airs know the token, and A's air hears only the
address of B's hello once it came (wlan-air link-token-secret=; see
qemu-devices/README.md). Each agent gets its peer's address
(ndisbench.peer=) and the two ping each other through the AP's intra-BSS
relay. Each side is a CellPlan run through the one cell pipeline
(cell.run_plan): the host judges the `peer` check of each side
(checks/peer.py) with the other checks of the cell as a run does.

Results: out/pairs/<stamp>/ with a cell folder per guest (serial.log,
ktap.txt, air.pcap.gz), results.json and the usual renderings (the rows
are `A:<device>/<wrapper>` and `B:...`), and pair.json (the port, the
addresses, when B started, both sides' RTTs). One level down, so that
`report latest` and `compare` (every out/* with a results.json, sorted by
name) keep seeing only the matrix runs; `report out/pairs/<stamp>` works.
"""
import dataclasses
import json
import os
import pathlib
import re
import secrets
import socket
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from .. import paths
from ..build.cache import Cache
from ..checks import registry
from ..devices import AIR_ARGS, DEVICES, Device
from ..errors import BenchError
from ..guest import air, machine
from ..kernels import Expectations, Kernel
from ..progress import fmt_secs, say
from ..report import ktap, report
from ..cell.compose import resolve_accel
from ..cell.parts import host_parts
from ..cell.plan import CellPlan, builds_for, prepare
from ..cell.run import run_plan

DEFAULT_A = "rtl8187/ndiswrapper"
DEFAULT_B = "rtl8187/native"
# The checks of a side, where its device has them, then `peer`.
BASE_CHECKS = ("load", "install", "bind", "associate", "dhcp")
ADDRESSES = {"A": "10.0.2.15", "B": "10.0.2.16"}   # slirp's first leases
# B's radio: its own MAC whatever the device's default is (A keeps its).
B_MAC = "52:54:00:12:34:5b"
MAC_RE = re.compile(r"\bmac=[0-9A-Fa-f:]{17}")
DHCP_RESULT_RE = re.compile(r"^(not )?ok \d+ dhcp$")
DEFAULT_TIMEOUT = 300.0


@dataclasses.dataclass
class Side:
    """One of the two guests."""
    name: str                       # "A" or "B"
    label: str                      # its device/wrapper
    cdir: pathlib.Path
    plan: Optional[CellPlan] = None
    boot: Optional[machine.BootResult] = None
    result: Optional[report.CellResult] = None
    started: Optional[float] = None     # seconds after A started

    @property
    def address(self) -> str:
        return ADDRESSES[self.name]

    @property
    def peer(self) -> str:
        return ADDRESSES["B" if self.name == "A" else "A"]


def free_udp_port() -> int:
    """A UDP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


TOKEN_SECRET_ID = "linktoken"


def write_token(path: pathlib.Path) -> None:
    """A fresh link token (32 hex digits) in a new file only we can read."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(16) + "\n")


def side_qemu_args(device: Device, side: str, port: int,
                   token_file: pathlib.Path) -> List[str]:
    """A's device arguments with its air listening on the link; B's with
    an air of its own (no AP, no slirp) connected to A's, and B_MAC. Both
    airs take the run's token from token_file (a secret object)."""
    args = list(device.qemu_args)
    n = len(AIR_ARGS)
    if tuple(args[:n]) != AIR_ARGS:
        raise BenchError(f"device {device.label} is not a radio on the "
                         f"emulated air: it cannot be one side of a pair")
    secret = ["-object", f"secret,id={TOKEN_SECRET_ID},file={token_file},"
                         f"format=raw"]
    token = f",link-token-secret={TOKEN_SECRET_ID}"
    if side == "A":
        args[1] = args[1].replace(
            "wlan-air,id=air0", f"wlan-air,id=air0,link-listen={port}"
            + token, 1)
        return secret + args
    rest = [MAC_RE.sub(f"mac={B_MAC}", a) if i and args[n + i - 1] ==
            "-device" else a for i, a in enumerate(args[n:])]
    return secret + ["-object", f"wlan-air,id=air0,link-connect={port}" +
                     token + air.PCAP_OPTION] + rest


def side_checks(device: Device) -> List[str]:
    return registry.for_device(device, BASE_CHECKS) + ["peer", "sandbox"]


def pick(label: str) -> Device:
    if label not in DEVICES:
        known = ", ".join(d for d in DEVICES if DEVICES[d].own_qemu)
        raise BenchError(f"unknown device '{label}' for a pair (known: "
                         f"{known})")
    device = DEVICES[label]
    if not device.own_qemu or not device.ifname:
        raise BenchError(f"device {label} is not a radio on the emulated "
                         f"air: it cannot be one side of a pair")
    return device


PAIRS_DIR = "pairs"


def new_pair_dir(out: pathlib.Path) -> pathlib.Path:
    return paths.new_stamped_dir(out / PAIRS_DIR, what="pair")


def _facts(boot: Optional[machine.BootResult]) -> Dict[str, Optional[str]]:
    """The peer test's measurements, for pair.json."""
    test = ktap.parse(boot.serial).test("peer") if boot else None
    keys = ("peer", "settle_pings", "peer_answered_ms", "transmitted",
            "received", "rtt_p50_us", "rtt_p99_us", "rtt_max_us",
            "in_echos", "peer_pinged_ms", "error")
    return {k: test.fact(k) if test else None for k in keys}


# How one side is run: run_plan in the command, a stand-in in tests.
RunSide = Callable[[Side, Optional[Callable[[str], Optional[str]]],
                    Callable[[], None]], None]


def failure(side: Side) -> str:
    """Why a side never booted: its first verdict's summary."""
    verdicts = side.result.verdicts if side.result else {}
    return next((v.summary for v in verdicts.values()),
                f"{side.name} not booted")


def boot_pair(sides: Sequence[Side], run_side: RunSide) -> None:
    """Each side ready (initramfs, command) before either boots, A first,
    B once A printed its dhcp result (or A ended). A side that cannot be
    made ready keeps the other from booting too."""
    a, b = sides
    a_ready, b_ready = threading.Event(), threading.Event()
    a_dhcp, a_done = threading.Event(), threading.Event()
    start: List[float] = []

    def watch_a(line: str) -> Optional[str]:
        if DHCP_RESULT_RE.match(line) and not a_dhcp.is_set():
            a_dhcp.set()
            return "A's dhcp result is in: starting B"
        return None

    def booting(side: Side) -> None:
        side.started = round(time.monotonic() - start[0], 2)
        say("pair", f"{side.name}: {side.label} booting "
                    f"(+{fmt_secs(side.started)})")

    def before_a() -> None:
        a_ready.set()
        b_ready.wait()
        if b.started is None and b.result is not None:
            raise BenchError(failure(b))
        start.append(time.monotonic())
        booting(a)

    def before_b() -> None:
        b_ready.set()
        while not a_dhcp.is_set() and not a_done.is_set():
            a_dhcp.wait(0.2)
        if a.started is None:
            raise BenchError(failure(a))
        booting(b)

    def run_a() -> None:
        try:
            run_side(a, watch_a, before_a)
        finally:
            a_done.set()

    thread_a = threading.Thread(target=run_a, daemon=True)
    thread_a.start()
    while not a_ready.is_set() and not a_done.is_set():
        a_ready.wait(0.2)
    try:
        run_side(b, None, before_b)
    finally:
        b_ready.set()
    thread_a.join()


def run(kernel: Kernel, exp: Expectations, cache: Cache, out: pathlib.Path,
        a_label: str = DEFAULT_A, b_label: str = DEFAULT_B,
        timeout: float = DEFAULT_TIMEOUT, accel: str = "auto"
        ) -> report.RunResult:
    devs = {"A": pick(a_label), "B": pick(b_label)}
    port = free_udp_port()
    parts = host_parts(list(devs.values()), cache)
    roles, extras = builds_for((d, side_checks(d)) for d in devs.values())
    prep = prepare(kernel, cache, exp, roles, extras=extras)
    accel = resolve_accel(accel, [prep], exp, parts)
    run_dir = new_pair_dir(out)
    token_file = run_dir / "link.token"
    write_token(token_file)
    sides = []
    for name, dev in devs.items():
        cdir = run_dir / "cells" / f"{name}__{kernel.name}__{dev.name}" \
            f"__{dev.wrapper}"
        side = Side(name, dev.label, cdir)
        side.plan = CellPlan(
            kernel, dev, tuple(side_checks(dev)), exp, cdir, run_dir, accel,
            timeout, side=name, peer=side.peer, lease=side.address,
            qemu_args=tuple(side_qemu_args(dev, name, port, token_file)),
            keep_air=True)
        sides.append(side)
    say("pair", f"{kernel.name}: A {devs['A'].label} ({sides[0].address}) "
                f"+ B {devs['B'].label} ({sides[1].address}) on one air, "
                f"link 127.0.0.1:{port}, accel {accel}, results in "
                f"{run_dir}")
    result = report.RunResult(run_dir.name, accel=accel, checks=list(
        dict.fromkeys(c for s in sides for c in s.plan.checks)))

    def run_side(side: Side, on_line: Optional[Callable[[str],
                                                        Optional[str]]],
                 before_boot: Callable[[], None]) -> None:
        assert side.plan is not None
        done = run_plan(side.plan, prep, parts, on_line, before_boot)
        side.result, side.boot = done.result, done.boot

    boot_pair(sides, run_side)
    token_file.unlink()         # both QEMUs have exited
    for side in sides:
        assert side.result is not None
        result.cells.append(side.result)
    for cell in result.cells:
        for line in report.cell_lines(cell):
            say("pair", line)
    report.write(run_dir, result)
    (run_dir / "pair.json").write_text(json.dumps({
        "kernel": kernel.name, "port": port,
        "sides": {s.name: {"device": s.label, "address": s.address,
                           "started_s": s.started,
                           "boot_seconds": round(s.boot.seconds, 2)
                           if s.boot else None,
                           "peer": _facts(s.boot)} for s in sides}},
        indent=1) + "\n")
    return result
