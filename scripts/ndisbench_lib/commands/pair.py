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
qemu-devices/README.md). Each agent gets its peer's address (ndisbench.peer=) and the
two ping each other through the AP's intra-BSS relay; the host judges the
`peer` check of each side (checks.judge_peer) with the other checks of the
cell as a run does (runner.judge_cell).

Results: out/pairs/<stamp>/ with a cell folder per guest (serial.log,
ktap.txt, air.pcap.gz), results.json and the usual renderings (the rows
are `A:<device>/<wrapper>` and `B:...`), and pair.json (the port, the
addresses, when B started, both sides' RTTs). One level down, so that
`report latest` and `compare` (every out/* with a results.json, sorted by
name) keep seeing only the matrix runs; `report out/pairs/<stamp>` works.
"""
import dataclasses
import datetime
import json
import os
import pathlib
import re
import secrets
import socket
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from ..guest import air, capture, machine
from ..report import ktap, report
from . import runner
from ..checks import judge as chk
from ..build.cache import Cache
from ..devices import AIR_ARGS, DEVICES, Device
from ..errors import BenchError
from ..kernels import Expectations, Kernel
from ..progress import fmt_secs, say

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
    device: Device                  # with this side's QEMU arguments
    checks: List[str]
    roles: List[str]
    cdir: pathlib.Path
    cmd: List[str] = dataclasses.field(default_factory=list)
    boot: Optional[machine.BootResult] = None
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
    return [c for c in BASE_CHECKS if c in device.checks] + ["peer"]


def side_expectations(exp: Expectations, side: Side) -> Expectations:
    """The dhcp check of B expects slirp's second lease."""
    return dataclasses.replace(exp, network={**exp.network,
                                             "address": side.address})


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
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        run_dir = out / PAIRS_DIR / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            run_dir.mkdir(parents=True)
            return run_dir
        except FileExistsError:
            continue
    raise BenchError(f"{out}: cannot create a pair folder")


def _facts(boot: Optional[machine.BootResult]) -> Dict[str, Optional[str]]:
    """The peer test's measurements, for pair.json."""
    test = ktap.parse(boot.serial).test("peer") if boot else None
    keys = ("peer", "settle_pings", "peer_answered_ms", "transmitted",
            "received", "rtt_p50_us", "rtt_p99_us", "rtt_max_us",
            "in_echos", "peer_pinged_ms", "error")
    return {k: test.fact(k) if test else None for k in keys}


def boot_pair(sides: Sequence[Side], timeout: float) -> None:
    """A first; B once A printed its dhcp result (or A ended)."""
    a, b = sides
    a_dhcp = threading.Event()
    start = time.monotonic()

    def watch_a(line: str) -> Optional[str]:
        if DHCP_RESULT_RE.match(line) and not a_dhcp.is_set():
            a_dhcp.set()
            return "A's dhcp result is in: starting B"
        return None

    def run(side: Side, on_line: Optional[Callable[[str], Optional[str]]]
            = None) -> None:
        side.started = round(time.monotonic() - start, 2)
        say("pair", f"{side.name}: {side.device.label} booting "
                    f"(+{fmt_secs(side.started)})")
        side.boot = machine.boot(side.cmd, side.cdir / "serial.log",
                                 timeout, on_line=on_line)

    thread_a = threading.Thread(target=run, args=(a, watch_a), daemon=True)
    thread_a.start()
    while not a_dhcp.is_set() and thread_a.is_alive():
        a_dhcp.wait(0.2)
    run(b)
    thread_a.join()


def run(kernel: Kernel, exp: Expectations, cache: Cache, out: pathlib.Path,
        a_label: str = DEFAULT_A, b_label: str = DEFAULT_B,
        timeout: float = DEFAULT_TIMEOUT, accel: str = "auto"
        ) -> report.RunResult:
    devs = {"A": pick(a_label), "B": pick(b_label)}
    port = free_udp_port()
    parts = runner.host_parts(list(devs.values()), cache)
    roles = sorted({r for d in devs.values()
                    for r in runner.cell_roles(d, side_checks(d))},
                   key=chk.LOAD_ORDER.index)
    prep = runner.prepare(kernel, cache, exp, roles)
    accel = runner.resolve_accel(accel, [prep], exp, parts)
    run_dir = new_pair_dir(out)
    token_file = run_dir / "link.token"
    write_token(token_file)
    sides = []
    for name, dev in devs.items():
        checks = side_checks(dev)
        side_dev = dataclasses.replace(dev, qemu_args=tuple(
            side_qemu_args(dev, name, port, token_file)))
        cdir = run_dir / "cells" / f"{name}__{kernel.name}__{dev.name}" \
            f"__{dev.wrapper}"
        cdir.mkdir(parents=True)
        sides.append(Side(name, side_dev, checks,
                          runner.cell_roles(dev, checks), cdir))
    say("pair", f"{kernel.name}: A {devs['A'].label} ({sides[0].address}) "
                f"+ B {devs['B'].label} ({sides[1].address}) on one air, "
                f"link 127.0.0.1:{port}, accel {accel}, results in "
                f"{run_dir}")
    result = report.RunResult(run_dir.name, accel=accel, checks=list(
        dict.fromkeys(c for s in sides for c in s.checks)))
    error = prep.error
    if not error:
        try:
            for side in sides:
                initrd = runner.cell_initrd(prep, side.device, side.checks,
                                            exp, parts)
                append = runner.kernel_cmdline(
                    exp, side.device, side.checks, side.roles, None,
                    kernel.slowdown) + \
                    f" ndisbench.peer={side.peer}:{chk.PEER_PINGS}"
                side.cmd = runner.guest_command(prep, side.device, initrd,
                                                append, accel, parts, (),
                                                side.cdir, capture=True)
        except BenchError as exc:
            error = str(exc)
    if not error:
        boot_pair(sides, timeout * kernel.slowdown)
    token_file.unlink()         # both QEMUs have exited
    for side in sides:
        result.cells.append(judge_side(prep, exp, side, run_dir, error))
    for cell in result.cells:
        for line in report.cell_lines(cell):
            say("pair", line)
    report.write(run_dir, result)
    (run_dir / "pair.json").write_text(json.dumps({
        "kernel": kernel.name, "port": port,
        "sides": {s.name: {"device": s.device.label, "address": s.address,
                           "started_s": s.started,
                           "boot_seconds": round(s.boot.seconds, 2)
                           if s.boot else None,
                           "peer": _facts(s.boot)} for s in sides}},
        indent=1) + "\n")
    return result


def judge_side(prep: runner.Prepared, exp: Expectations, side: Side,
               run_dir: pathlib.Path, error: str) -> report.CellResult:
    dev = side.device
    cell = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                             f"{side.name}:{dev.name}",
                             str(side.cdir.relative_to(run_dir)),
                             wrapper=dev.wrapper)
    if error or side.boot is None:
        verdict = chk.Verdict(chk.ERROR, error or "guest not booted")
        cell.verdicts = {c: verdict for c in side.checks}
        return cell
    boot = side.boot
    (side.cdir / "ktap.txt").write_text(
        "\n".join(ktap.parse(boot.serial).lines) + "\n")
    pcap = side.cdir / "air.pcap"
    if pcap.exists():
        capture.compress(pcap)
    assert prep.art is not None
    cell.release = prep.art.release
    cell.boot_seconds = round(boot.seconds, 2)
    cell.first_ktap_seconds = (round(boot.first_ktap_secs, 2)
                               if boot.first_ktap_secs else None)
    cell.verdicts = runner.judge_cell(
        prep, side_expectations(exp, side), side.checks, side.roles, boot,
        side.cdir / "serial.log", None, dev)
    return cell
