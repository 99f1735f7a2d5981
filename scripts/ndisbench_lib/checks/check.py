"""What a check is: one unit that says where it applies, what the guest
must run for it, what the host must provide, and how its verdict is made
from the agent's KTAP facts.

Each check is one module of this package that defines `CHECK = Check(...)`
(registry.py finds them); the judge functions the checks share are in
facts.py and modload.py. The agent only observes: every verdict is made
here, on the host, from the expectation table (tests/e2e/
expectations.toml), so a wrong kernel or a wrong expectation shows up as
FAIL.
"""
import dataclasses
from typing import (Callable, Dict, Mapping, Optional, Sequence, Tuple)

from ..devices import Device
from ..guest.capture import AirCapture
from ..guest.sandbox import ProcessIds
from ..kernels import Expectations, Policy
from ..report.ktap import KtapLog
from ..report.verdict import Verdict

# Host sinks a check can ask for (guest/sink.py): a TCP stream the guest
# ends and the sink answers; a TCP stream an unplug cuts (what arrived
# counts); UDP datagrams, counted.
STREAM, CUT_STREAM, DATAGRAMS = "stream", "cut-stream", "datagrams"
# What a check's agent test asks the host to do over QMP
# (guest/qmp_requests.py).
QMP_HOTPLUG, QMP_ROAM = "hotplug", "roam"


@dataclasses.dataclass(frozen=True)
class GuestContext:
    """What a check's agent parameters are made from."""
    exp: Expectations
    device: Device
    port: Optional[int] = None      # its host sink's port, if it has one
    tcp_bytes: int = 0              # the cell's TCP stream size
    peer: str = ""                  # the other guest of a pair
    # The wrapper is a user's tree (--wrapper-src), not ours: what it
    # offers (a cfg80211 wiphy or not) is its own to decide.
    users_wrapper: bool = False


@dataclasses.dataclass(frozen=True)
class CellFacts:
    """Everything a judge reads: the agent's KTAP log and what the host
    knows about the cell. The expectation table is read-only; what a
    command varies is an explicit field (lease, tcp_bytes, gpl_imports,
    own_loader_abi)."""
    log: KtapLog
    exp: Expectations
    policy: Policy
    roles: Sequence[str] = ()       # module roles loaded, in load order
    base_bits: int = 0              # taint every out-of-tree module brings
    device: Optional[Device] = None  # the cell's device row (None: none)
    config: Optional[Dict[str, str]] = None     # the kernel's .config
    sinks: Mapping[str, Optional[int]] = dataclasses.field(
        default_factory=dict)       # check -> what its host sink counted
    air: Optional[AirCapture] = None    # the capture check's air.pcap
    # role -> the GPL-only imports of the module really built (a
    # --wrapper-src tree has its own); a role not named: the table's.
    gpl_imports: Mapping[str, Sequence[str]] = dataclasses.field(
        default_factory=dict)
    # The wrapper speaks our loader ABI (wrapper/include/loader_abi.h), so
    # each malformed ioctl has a known errno; a --wrapper-src tree only has
    # to survive them.
    own_loader_abi: bool = True
    lease: str = ""                 # the address dhcp must get; "": table's
    tcp_bytes: int = 0              # the TCP stream size; 0: table's
    # QEMU's uids, gids and seccomp mode while the guest ran (sandbox)
    qemu_ids: Optional[ProcessIds] = None
    # The modules of ours the cell needs, by name: "" built, else why not
    # (the first compiler error: the build check)
    builds: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # The kernel's own driver the device was bound to before the wrapper
    # (loaded first: Device.native_first where the kernel has it); "": none
    unbinds: str = ""

    @property
    def fixture(self) -> str:
        """The Windows driver a wrapped device runs ("": not wrapped)."""
        return self.device.fixture if self.device else ""

    @property
    def native(self) -> str:
        """The in-tree driver a native cell binds."""
        return self.device.native_driver if self.device else ""

    @property
    def iw_ssid(self) -> str:
        """The network the guest joins with `iw connect`."""
        return self.device.connect_ssid if self.device else ""

    @property
    def fixture_sys(self) -> str:
        """The wrapped driver's .sys (ethtool's fw_version)."""
        return self.device.sys_name if self.fixture else ""

    @property
    def address(self) -> str:
        return self.lease or str(self.exp.network["address"])

    @property
    def stream_bytes(self) -> int:
        return self.tcp_bytes or int(self.exp.network["tcp_bytes"])

    @property
    def refused(self) -> bool:
        """The policy refuses ndiswrapper: nothing behind it can run."""
        return self.policy.modes.get("ndiswrapper") == "module"

    def gpl_imports_of(self, role: str) -> Sequence[str]:
        return self.gpl_imports.get(role, self.exp.gpl_only_imports)


def no_params(ctx: GuestContext) -> Sequence[str]:
    return ()


def no_files(exp: Expectations) -> Sequence[Tuple[str, str]]:
    return ()


@dataclasses.dataclass(frozen=True)
class Check:
    """One check. name: its column in the matrix; order: where (matrix
    column, kernel command line); doc: one line for `list` and the docs.
    devices: the device/wrapper labels it applies to (devices.py's
    groups). judge: its verdict from the cell's facts."""
    name: str
    order: int
    doc: str
    devices: Tuple[str, ...]
    judge: Callable[[CellFacts], Verdict]
    # The agent's kernel parameters it needs (guest/agent/README.md).
    params: Callable[[GuestContext], Sequence[str]] = no_params
    # Its share of the guest's timeout under TCG, seconds: a cell's
    # timeout is at least BOOT_SECONDS plus its checks' shares.
    seconds: float = 5.0
    role: str = ""              # the module role it loads (load order)
    # On a wrapped device: the fixture driver installed and the wrapper
    # loaded first, whatever else is selected.
    installs_driver: bool = True
    needs_iface: bool = False   # the agent's network tests on the device
    sink: str = ""              # STREAM, CUT_STREAM, DATAGRAMS or ""
    qmp: str = ""               # QMP_HOTPLUG, QMP_ROAM or ""
    air_capture: bool = False   # the air writes air.pcap for it
    # The air has the WPA2 access point (guest/air.py WPA2_AP) and the
    # guest image wpa_supplicant and wpa_cli: only in the cells of such
    # checks, so that no other cell's initramfs or saved boot changes.
    wpa2_network: bool = False
    # fixtures/ drivers (folder, name) it needs in the guest.
    guest_files: Callable[[Expectations],
                          Sequence[Tuple[str, str]]] = no_files
    extra_modules: Tuple[str, ...] = ()     # loaded after the test modules
    # In-tree modules its guest needs that nothing loads by itself (the
    # guest has no modprobe for the kernel's request_module): loaded with
    # the device's, where the kernel builds them as modules.
    kernel_modules: Tuple[str, ...] = ()
    # The agent tests it reads, as the agent names them: a name or its
    # first word ("insmod ndiswrapper", "broken": every "broken <x>"). An
    # agent test that is a check's own has the check's name and order;
    # where another check's params ask the agent for it (recover reads
    # tcp's stream), selecting this check brings that one along
    # (registry.for_device). A kernel report while the row printing one
    # of them ran is this check's FAIL (cell/judge.py judge_cell); ()
    # for host_side checks.
    reads: Tuple[str, ...] = ()
    # It judges the kernel's oops and checker reports itself: they do not
    # fail it as they fail every other check of the cell.
    expects_kernel_reports: bool = False
    # It feeds the wrapper bad input on purpose: it runs in a guest of its
    # own (restored from the cell's saved boot), so the cell's other
    # checks run in a guest that never saw it.
    own_guest: bool = False
    # It needs no device row but a cell of its own on each kernel (a bare
    # guest without network hardware, named after it; cell/plan.py
    # cells()): it applies to no row (devices ()), runs only when `--check`
    # names it (default False), and only the host-side checks run beside
    # it.
    own_cell: bool = False
    # Judged from what the host saw of QEMU, not from the guest: a guest
    # that timed out, oopsed or did not finish leaves it as it is.
    host_side: bool = False
    default: bool = True        # in a run without --check
    selectable: bool = True     # `run --check` may name it

    def applies(self, device: Device) -> bool:
        return device.checks_row in self.devices

    @property
    def asks_agent(self) -> bool:
        """The agent runs its test only when its params ask for it."""
        return self.params is not no_params

    def reads_test(self, name: str) -> bool:
        """One of the agent tests it reads."""
        return any(name == r or name.startswith(r + " ")
                   for r in self.reads)


# The guest's boot and the agent's own tests (boot, rmmod): the part of a
# cell's timeout no check owns (TCG boots a guest in under 10 s).
BOOT_SECONDS = 25.0
