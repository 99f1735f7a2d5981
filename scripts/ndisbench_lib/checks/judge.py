"""The load/taint checks and how each is judged against the expectation
table of the kernel's taint policy (tests/e2e/expectations.toml).

The guest agent only observes (errno, taint masks, module taint letters,
kernel log lines); every verdict is made here, on the host, from the policy
table, so a wrong kernel or a wrong expectation shows up as FAIL.
"""
import dataclasses
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from ..guest.air import ACCESS_POINTS, ROAM_FROM, ROAM_TO
from ..kernels import Expectations, Policy
from ..report.ktap import KtapLog, KtapTest
from ..report.verdict import (ERROR, FAIL, OK_STATES, PASS,  # noqa: F401
                              TIMEOUT, XFAIL, Verdict)

if TYPE_CHECKING:
    from ..guest.capture import Frame

MODULE_CHECKS = ("load", "taint", "driverloader", "control")
WRAPPER_CHECKS = ("broken", "install", "bind", "associate", "unload")
NET_CHECKS = ("dhcp", "ping", "tcp")
# Hot-unplug during traffic and replug (devices that can be unplugged).
HOTPLUG_CHECKS = ("hotplug",)
# The associated AP disappears: reassociate to the other one of the SSID.
ROAM_CHECKS = ("roam",)
# Measurements for `ndisbench bench`, not run unless selected.
BENCH_CHECKS = ("udp",)
# The wireless control plane and the air, seen with standard tools.
SCAN_CHECKS = ("scan",)
CAPTURE_CHECKS = ("capture",)
# Two guests on one air (`ndisbench pair`, pair.py): they ping each other.
PEER_CHECKS = ("peer",)
PEER_PINGS = 10             # each way, all must be answered
# The debug kernel's checkers, shown to work on deliberate bugs
# (guest/plant/, the `planted` device row).
PLANTED_CHECKS = ("planted",)
CHECKS = MODULE_CHECKS + WRAPPER_CHECKS[:3] + SCAN_CHECKS + \
    WRAPPER_CHECKS[3:4] + NET_CHECKS + BENCH_CHECKS + CAPTURE_CHECKS + \
    HOTPLUG_CHECKS + ROAM_CHECKS + ("unload",) + PLANTED_CHECKS
DEFAULT_CHECKS = tuple(c for c in CHECKS if c not in BENCH_CHECKS)
# The checks that need the device's interface (the agent's network tests).
IFACE_CHECKS = ("bind", "associate") + SCAN_CHECKS + NET_CHECKS + \
    BENCH_CHECKS + CAPTURE_CHECKS + HOTPLUG_CHECKS + ROAM_CHECKS + \
    PEER_CHECKS
HOTPLUG_PINGS = 10          # the agent's pings after the replug
SIGNAL_TOLERANCE_DB = 3     # the driver's RSSI arithmetic rounds
# The module role each check observes.
CHECK_ROLE = {"load": "ndiswrapper", "taint": "ndiswrapper",
              "driverloader": "driverloader", "control": "control"}
# Load order in the guest: the control first, so a P left behind by a
# special-cased name cannot hide a wrong P from the control.
LOAD_ORDER = ("control", "ndiswrapper", "driverloader")
ENOENT = 2
EACCES = 13
# The malformed messages the agent sends to /dev/<module> as root after a
# load (guest/agent/devnode.c) and the errno the wrapper must answer each
# with (wrapper/include/loader_abi.h, wrapper/loader/msg.c). Judged with
# the root-only open, by the checks that load the module.
IOCTL_EXPECTED = {
    "add_abi_version": "EPROTO", "add_bus": "EINVAL",
    "add_driver_unterminated": "EINVAL", "add_driver_empty": "EINVAL",
    "add_driver_slash": "EINVAL", "add_driver_dotdot": "EINVAL",
    "add_driver_latin1": "EINVAL", "add_bad_pointer": "EFAULT",
    "load_abi_version": "EPROTO", "load_id_abi_version": "EPROTO",
    "load_driver_unterminated": "EINVAL", "load_sys_size_0": "EFBIG",
    "load_sys_size_over_max": "EFBIG", "load_sys_size_huge": "EFBIG",
    "load_num_settings_over_max": "E2BIG",
    "load_num_settings_huge": "E2BIG",
    "load_sys_name_unterminated": "EINVAL", "load_sys_name_slash": "EINVAL",
    "load_sys_name_dotdot": "EINVAL", "load_unrequested": "ESRCH",
    "load_bad_pointer": "EFAULT", "unknown_ioctl": "ENOTTY",
    "unprivileged": "EPERM",
}
# A kernel that oopsed or warned while it handled them.
IOCTL_KERNEL_FAULT_RE = re.compile(
    r"(Kernel panic|BUG: |Oops: |general protection fault|WARNING: CPU:|"
    r"Call Trace:)")

@dataclasses.dataclass(frozen=True)
class ExpectedLoad:
    """What one module load must look like under a policy."""
    module: str
    mode: str               # none / kernel / flagged / module
    errno: int
    tainted_before: int
    tainted_after: int
    module_taint: str       # letters, or "-" when the module is not loaded
    unknown_symbols: List[str]
    license_message: bool


def taint_letters(mask: int, bits: Dict[str, int]) -> str:
    """Letters in the kernel's order (ascending bit), as /sys/module/*/taint
    prints them."""
    return "".join(letter for letter, bit in sorted(bits.items(),
                                                    key=lambda kv: kv[1])
                   if mask & (1 << bit))


def module_base_bits(config: Dict[str, str], bits: Dict[str, int]) -> int:
    """Taint every out-of-tree module brings: O always, E where the kernel
    checks signatures (our modules are never signed)."""
    mask = 1 << bits["O"]
    if config.get("CONFIG_MODULE_SIG") == "y":
        mask |= 1 << bits["E"]
    return mask


def modules_for(checks: Sequence[str]) -> List[str]:
    """Module roles the agent loads for these checks, in load order."""
    roles = {CHECK_ROLE[c] for c in checks if c in CHECK_ROLE}
    return [r for r in LOAD_ORDER if r in roles]


# Modes that give the module its own P: "flagged" (2.6.19-rc1) keeps it
# out of the GPL-only check, "module" does not, so only "module" refuses.
MODULE_P_MODES = ("flagged", "module")


def expected_loads(policy: Policy, exp: Expectations, roles: Sequence[str],
                   base_bits: int, boot_taint: int = 0
                   ) -> Dict[str, ExpectedLoad]:
    """Simulate the kernel's taint state through the loads in order."""
    p_bit = 1 << exp.taint_bits["P"]
    state = boot_taint
    out = {}
    for role in roles:
        mode = policy.modes.get(role, "none")
        after = state | base_bits | (p_bit if mode != "none" else 0)
        loads = mode != "module"
        module_bits = base_bits | (p_bit if mode in MODULE_P_MODES else 0)
        out[role] = ExpectedLoad(
            module=exp.module_names[role], mode=mode,
            errno=0 if loads else ENOENT, tainted_before=state,
            tainted_after=after,
            module_taint=taint_letters(module_bits, exp.taint_bits)
            if loads else "-",
            unknown_symbols=[] if loads else sorted(exp.gpl_imports(role)),
            license_message=mode != "none" and not state & p_bit)
        state = after
    return out


@dataclasses.dataclass
class Observed:
    """What the agent reported for one module load."""
    errno: Optional[int]
    tainted_before: Optional[int]
    tainted_after: Optional[int]
    module_taint: Optional[str]
    kmsg: List[str]
    rmmod_errno: Optional[int]
    # errno of an unprivileged open of /dev/<module> (None: not tried)
    devnode_errno: Optional[int] = None
    # the agent's malformed ioctls: case -> "errno=<NAME>" (or "error=...")
    ioctls: Dict[str, str] = dataclasses.field(default_factory=dict)


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def observe(log: KtapLog, module: str) -> Optional[Observed]:
    test = log.test(f"insmod {module}")
    if test is None:
        return None
    rmmod_errno = None
    rmmod = log.test("rmmod")
    if rmmod is not None:
        for fact in rmmod.all("rmmod"):
            name, _, rest = fact.partition(" errno=")
            if name == module:
                rmmod_errno = _int(rest)
    ioctls = {}
    for fact in test.all("ioctl"):
        case, _, result = fact.partition(" ")
        ioctls[case] = result
    return Observed(_int(test.fact("errno")),
                    _int(test.fact("tainted_before")),
                    _int(test.fact("tainted_after")),
                    test.fact("module_taint"), test.all("kmsg"),
                    rmmod_errno,
                    _int(test.fact("devnode_unprivileged_errno")), ioctls)


def _symbols(kmsg: List[str], module: str, exp: Expectations) -> List[str]:
    pattern = re.escape(exp.messages["unknown_symbol"]).replace(
        re.escape("{module}"), re.escape(module)).replace(
        re.escape("{symbol}"), r"(\S+)")
    found = []
    for line in kmsg:
        match = re.fullmatch(pattern, line)
        if match:
            found.append(match.group(1))
    return sorted(found)


def _compare(what: str, want: object, got: object, problems: List[str]
             ) -> None:
    if want != got:
        problems.append(f"{what}: expected {want!r}, got {got!r}")


def _judge_load(want: ExpectedLoad, got: Observed, exp: Expectations
                ) -> List[str]:
    problems: List[str] = []
    _compare("errno", want.errno, got.errno, problems)
    _compare("Unknown symbol lines", want.unknown_symbols,
             _symbols(got.kmsg, want.module, exp), problems)
    license_line = exp.messages["license_taint"].format(module=want.module)
    # Printed only when P is first set: judged from the observed mask, since
    # an earlier load in the same guest (a malformed-driver test) may have
    # set it; the taint check compares that mask with the simulation.
    p_bit = 1 << exp.taint_bits["P"]
    expect_license = want.license_message
    if got.tainted_before is not None:
        expect_license = want.mode != "none" and \
            not got.tainted_before & p_bit
    _compare(f"'{license_line}' logged", expect_license,
             license_line in got.kmsg, problems)
    if want.errno == 0:
        _compare("rmmod errno", 0, got.rmmod_errno, problems)
    if want.errno == 0 and got.devnode_errno is not None:
        # The node carries driver images into the kernel: root only.
        _compare(f"errno of a non-root open of /dev/{want.module}", EACCES,
                 got.devnode_errno, problems)
        problems += _judge_ioctls(want.module, got, exp.own_loader_abi)
    return problems


def _judge_ioctls(module: str, got: Observed,
                  own_abi: bool = True) -> List[str]:
    """Where the node exists, every malformed message must be refused with
    its exact errno (our ABI; another tree's ioctls differ), and the kernel
    must not oops or warn meanwhile (any tree)."""
    problems: List[str] = []
    if own_abi:
        problems += [f"ioctl on /dev/{module}: unexpected case {case} "
                     f"{result}" for case, result in got.ioctls.items()
                     if case not in IOCTL_EXPECTED]
        for case, name in IOCTL_EXPECTED.items():
            _compare(f"ioctl {case} on /dev/{module}", f"errno={name}",
                     got.ioctls.get(case, "missing"), problems)
    problems += [f"kernel log while /dev/{module} was probed: {line}"
                 for line in got.kmsg if IOCTL_KERNEL_FAULT_RE.search(line)]
    return problems


def _judge_taint(want: ExpectedLoad, got: Observed, boot: Optional[int],
                 exp: Expectations) -> List[str]:
    problems: List[str] = []
    bits = exp.taint_bits

    def show(mask: Optional[int]) -> str:
        if mask is None:
            return "missing"
        return f"{mask} ({taint_letters(mask, bits) or '-'})"

    _compare("tainted at boot", show(0), show(boot), problems)
    _compare("tainted before load", show(want.tainted_before),
             show(got.tainted_before), problems)
    _compare("tainted after load", show(want.tainted_after),
             show(got.tainted_after), problems)
    _compare(f"/sys/module/{want.module}/taint", want.module_taint,
             got.module_taint, problems)
    return problems


def judge(check: str, policy: Policy, exp: Expectations, log: KtapLog,
          roles: Sequence[str], base_bits: int,
          sink_bytes: Optional[int] = None, fixture: str = "",
          native: str = "",
          air: Optional["AirCapture"] = None,
          iw_ssid: str = "",
          config: Optional[Dict[str, str]] = None) -> Verdict:
    """The verdict of one check in one cell. sink_bytes: what the host's
    TCP sink received (tcp check only); fixture: the Windows driver a
    wrapped device runs (its checks are not reached where the policy
    refuses the wrapper); native: the in-tree driver a native cell binds
    (no wrapper involved, so no policy applies); iw_ssid: the SSID the
    agent joins with `iw connect` (associate and roam then need iw to
    have succeeded, not only a link); config: the kernel's .config (the
    planted check)."""
    if check == "planted":
        return judge_planted(log, config or {})
    if check not in CHECK_ROLE:
        refused = policy.modes.get("ndiswrapper") == "module"
        if check == "broken":
            return judge_broken(exp, log, refused)
        if check == "unload":
            return judge_unload(exp, log, refused)
        if fixture and check != "install" and refused:
            return judge_unreached(check, log)
        if check == "scan":
            return judge_scan(log)
        if check == "capture":
            return judge_capture(exp, log, air)
        return judge_net(check, exp, log, sink_bytes, fixture, native,
                         iw_ssid, config)
    role = CHECK_ROLE[check]
    want = expected_loads(policy, exp, roles, base_bits)[role]
    boot_test: Optional[KtapTest] = log.test("boot")
    if boot_test is None or not boot_test.ok:
        return Verdict(ERROR, "guest did not boot to the agent's checks")
    got = observe(log, want.module)
    if got is None:
        return Verdict(ERROR, f"agent printed no result for {want.module}")
    if check == "taint":
        problems = _judge_taint(want, got, _int(boot_test.fact("tainted")),
                                exp)
    else:
        problems = _judge_load(want, got, exp)
        if check in ("driverloader", "control"):
            problems += _judge_taint(want, got,
                                     _int(boot_test.fact("tainted")), exp)
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return _success(check, want)


def _success(check: str, want: ExpectedLoad) -> Verdict:
    if want.mode != "module":
        if check == "taint":
            return Verdict(PASS, f"tainted {want.tainted_after}, module "
                                 f"taint '{want.module_taint}'")
        return Verdict(PASS, f"{want.module} loaded as expected "
                             f"(policy: {want.mode})")
    syms = ", ".join(want.unknown_symbols)
    if check == "taint":
        return Verdict(XFAIL, f"module tainted itself: kernel tainted "
                              f"{want.tainted_after}, module not loaded")
    label = ("regression reproduced" if want.module == "ndiswrapper"
             else "refused as expected")
    return Verdict(XFAIL, f"{label}: {want.module}: Unknown symbol {syms} "
                          f"(err -2)")


# -- network checks -----------------------------------------------------------

def _iface_test(log: KtapLog) -> Optional[KtapTest]:
    """The agent's `iface <ifname>` result, if it printed one."""
    return next((t for t in log.tests if t.name.startswith("iface ")), None)


def _iface_problem(log: KtapLog, need_link: bool = True) -> Optional[str]:
    iface = _iface_test(log)
    if iface is None:
        return "agent printed no interface result"
    if not iface.ok:
        return iface.fact("error") or f"{iface.name} failed"
    if not need_link:
        return None
    link = log.test("link")
    if link is None:
        return "agent printed no link result"
    if not link.ok:
        return link.fact("error") or "no link"
    return None


def judge_unreached(check: str, log: KtapLog) -> Verdict:
    """A check behind a wrapper the policy refuses: the interface must not
    exist, and nothing after it can run."""
    iface = _iface_test(log)
    if iface is None:
        return Verdict(ERROR, "agent printed no interface result")
    if iface.ok:
        return Verdict(FAIL, f"{iface.name} appeared although the policy "
                             f"refuses ndiswrapper")
    return Verdict(XFAIL, "not reached (expected: the policy refuses "
                          "ndiswrapper)")


def _judge_native_bind(log: KtapLog, iface: KtapTest, native: str
                       ) -> Verdict:
    """The in-tree driver owns the interface, and nothing tainted P."""
    problems: List[str] = []
    _compare("ethtool driver", native, iface.fact("driver"), problems)
    boot = log.test("boot")
    tainted = _int(boot.fact("tainted")) if boot else None
    _compare("kernel taint at boot", 0, tainted, problems)
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, f"{iface.name.split()[1]} bound: driver {native}, "
                         f"{iface.fact('bus_info')}")


def _link_bss(link: KtapTest) -> Dict[str, Optional[str]]:
    """BSSID and SSID of the association, from the wrapper's ndis/ sysfs
    attributes or from `iw dev <if> link`."""
    bss: Dict[str, Optional[str]] = {"bssid": link.fact("ndis_bssid"),
                                     "ssid": link.fact("ndis_ssid")}
    for line in (raw.strip() for raw in link.all("iw_link")):
        words = line.split()
        if line.startswith("Connected to ") and len(words) > 2:
            bss["bssid"] = words[2]
        elif line.startswith("SSID: "):
            bss["ssid"] = line[len("SSID: "):]
    return bss


# Each checker of the debug kernel, the option that enables it, and what
# its report of ndisbench_plant's bug looks like (in the agent's klog and
# kmemleak facts). All patterns must match where the option is set; none
# where it is not.
PLANTED_REPORTS = (
    ("lockdep", "CONFIG_PROVE_LOCKING",
     (r"WARNING: possible circular locking dependency detected",
      r"\(plant_lock_[ab]\)")),
    ("atomic sleep", "CONFIG_DEBUG_ATOMIC_SLEEP",
     (r"BUG: sleeping function called from invalid context at "
      r"\S*plant\.c:\d+",)),
    ("KASAN", "CONFIG_KASAN",
     (r"BUG: KASAN: slab-out-of-bounds in ndisbench_plant_oob\b",)),
    ("kmemleak", "CONFIG_DEBUG_KMEMLEAK",
     (r"unreferenced object 0x[0-9a-f]+ \(size 64\)",
      r"(a5 ){16}")),
)


def judge_planted(log: KtapLog, config: Dict[str, str]) -> Verdict:
    """ndisbench_plant.ko loaded; every checker the kernel has reported its
    bug, and no checker it lacks seems to have."""
    boot_test = log.test("boot")
    if boot_test is None or not boot_test.ok:
        return Verdict(ERROR, "guest did not boot to the agent's checks")
    insmod = log.test("insmod ndisbench_plant")
    if insmod is None or not insmod.ok:
        return Verdict(FAIL, "ndisbench_plant.ko did not load")
    lines = [v for t in log.tests for k, v in t.facts
             if k in ("klog", "kmemleak")]
    problems: List[str] = []
    found: List[str] = []
    for name, option, patterns in PLANTED_REPORTS:
        enabled = config.get(option) == "y"
        seen = all(any(re.search(p, line) for line in lines)
                   for p in patterns)
        if enabled and not seen:
            missing = [p for p in patterns
                       if not any(re.search(p, line) for line in lines)]
            problems.append(f"{name} ({option}=y) did not report its "
                            f"planted bug: no line matches {missing[0]!r}")
        elif not enabled and seen:
            problems.append(f"{name} reported although {option} is not set")
        elif enabled:
            found.append(name)
    if problems:
        return Verdict(FAIL, problems[0], problems)
    if not found:
        return Verdict(PASS, "no checker on this kernel; none reported")
    return Verdict(PASS, f"reported by {', '.join(found)}")


def _iw_connect_problem(test: KtapTest, ssid: str) -> Optional[str]:
    """The join must be iw's: its last `iw connect` exited 0 (an earlier
    EALREADY, the driver already associated on its own, is followed by a
    disconnect and a second connect)."""
    statuses = test.all("iw_connect_status")
    if not statuses:
        return f"agent never ran iw connect {ssid}"
    if statuses[-1] != "0":
        return (f"iw connect {ssid} exited {statuses[-1]}: "
                f"{'; '.join(test.all('iw_connect')) or 'no output'}")
    return None


def _wext_problem(test: KtapTest, config: Dict[str, str], ssid: str,
                  bssid: str) -> Optional[str]:
    """iwconfig on the joined link: the ESSID and AP where the kernel has
    cfg80211's wireless-extensions emulation, a plain refusal where not."""
    lines = test.all("iwconfig")
    text = " ".join(line.strip() for line in lines)
    if not lines:
        return "agent printed no iwconfig output"
    if config.get("CONFIG_CFG80211_WEXT") != "y":
        if "no wireless extensions" not in text:
            return (f"iwconfig answered without CONFIG_CFG80211_WEXT: "
                    f"{text}")
        return None
    if f'ESSID:"{ssid}"' not in text:
        return f'iwconfig shows no ESSID:"{ssid}": {text}'
    if f"ACCESS POINT: {bssid.upper()}" not in text.upper():
        return f"iwconfig shows no Access Point: {bssid}: {text}"
    return None


def _judge_wrapper(check: str, exp: Expectations, log: KtapLog,
                   fixture: str, native: str = "",
                   iw_ssid: str = "",
                   config: Optional[Dict[str, str]] = None) -> Verdict:
    net = exp.network
    if check == "install":
        test = log.test("install")
        if test is None:
            return Verdict(ERROR, "agent printed no install result")
        problems: List[str] = []
        _compare("ndiswrapper -i exit status", "0", test.fact("status"),
                 problems)
        if not any(fixture in line for line in test.all("list")):
            problems.append(f"ndiswrapper -l does not list {fixture}")
        if problems:
            return Verdict(FAIL, problems[0], problems)
        return Verdict(PASS, f"{fixture} installed: "
                             f"{'; '.join(test.all('list'))}")
    problem = _iface_problem(log, need_link=check == "associate")
    if problem:
        return Verdict(FAIL, problem)
    iface = _iface_test(log)
    assert iface is not None
    if check == "bind" and native:
        return _judge_native_bind(log, iface, native)
    if check == "bind":
        problems = []
        _compare("ethtool driver", "ndiswrapper", iface.fact("driver"),
                 problems)
        # Loading a Windows binary taints the kernel P (add_taint), whatever
        # the module loader's policy did with the module's name.
        insmod = log.test(f"insmod {exp.module_names['ndiswrapper']}")
        after = _int(insmod.fact("tainted_after")) if insmod else None
        p_bit = 1 << exp.taint_bits["P"]
        _compare("kernel tainted P after the Windows driver loaded", True,
                 after is not None and bool(after & p_bit), problems)
        if fixture not in (iface.fact("fw_version") or ""):
            problems.append(f"ethtool does not name {fixture}: "
                            f"fw_version {iface.fact('fw_version')!r}")
        if problems:
            return Verdict(FAIL, problems[0], problems)
        return Verdict(PASS, f"{iface.name.split()[1]} bound: driver "
                             f"ndiswrapper, {iface.fact('fw_version')}, "
                             f"{iface.fact('bus_info')}")
    link = log.test("link")
    assert link is not None
    problems = []
    bss = _link_bss(link)
    _compare("BSSID the driver reports", net["ap_bssid"], bss["bssid"],
             problems)
    if bss["ssid"] is not None:
        _compare("SSID the driver reports", net["ap_ssid"], bss["ssid"],
                 problems)
    iw_problem = _iw_connect_problem(link, iw_ssid) if iw_ssid else None
    if iw_problem:
        problems.append(iw_problem)
    wext = None
    if iw_ssid and config is not None:
        wext = _wext_problem(link, config, net["ap_ssid"], net["ap_bssid"])
        if wext:
            problems.append(wext)
    if problems:
        return Verdict(FAIL, problems[0], problems)
    how = f" with iw connect {iw_ssid}" if iw_ssid else ""
    if iw_ssid and config is not None:
        how += (", iwconfig agrees" if config.get("CONFIG_CFG80211_WEXT")
                == "y" else ", no wireless extensions here")
    return Verdict(PASS, f"associated to {net['ap_bssid']} "
                         f"({net['ap_ssid']}) in "
                         f"{link.fact('carrier_ms')} ms{how}")


def judge_net(check: str, exp: Expectations, log: KtapLog,
              sink_bytes: Optional[int], fixture: str = "",
              native: str = "", iw_ssid: str = "",
              config: Optional[Dict[str, str]] = None) -> Verdict:
    boot_test = log.test("boot")
    if boot_test is None or not boot_test.ok:
        return Verdict(ERROR, "guest did not boot to the agent's checks")
    if check in WRAPPER_CHECKS:
        return _judge_wrapper(check, exp, log, fixture, native, iw_ssid,
                              config)
    problem = _iface_problem(log)
    if problem:
        return Verdict(FAIL, problem)
    test = log.test(check)
    if test is None:
        return Verdict(ERROR, f"agent printed no {check} result")
    net = exp.network
    problems: List[str] = []
    if check == "hotplug":
        return _judge_hotplug(exp, test, sink_bytes)
    if check == "roam":
        return _judge_roam(test, iw_ssid)
    if check == "udp":
        return _judge_udp(test, sink_bytes)
    if check == "peer":
        return judge_peer(test)
    if check == "dhcp":
        _compare("address", net["address"], test.fact("address"), problems)
        summary = (f"lease {test.fact('address')} in "
                   f"{test.fact('dhcp_ms')} ms")
    elif check == "ping":
        count = int(net["ping_count"])
        _compare("echo requests sent", count, _int(test.fact("transmitted")),
                 problems)
        _compare("echo replies", count, _int(test.fact("received")),
                 problems)
        summary = (f"{test.fact('received')}/{count} replies from "
                   f"{net['gateway']}, rtt p50 {test.fact('rtt_p50_us')} us "
                   f"p99 {test.fact('rtt_p99_us')} us")
    else:
        want = int(net["tcp_bytes"])
        _compare("bytes sent by the guest", want,
                 _int(test.fact("bytes_sent")), problems)
        _compare("sink's reply", f"received={want}",
                 test.fact("sink_reply"), problems)
        _compare("bytes counted by the host sink", want, sink_bytes,
                 problems)
        summary = (f"{want} bytes, counted on both ends, in "
                   f"{test.fact('seconds')} s")
    if not test.ok and not problems:
        problems.append(f"agent reported {check} failed: "
                        f"{test.fact('error') or 'see the serial log'}")
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, summary)


def _judge_udp(test: KtapTest, arrived: Optional[int]) -> Verdict:
    """Small datagrams: some must arrive, never more than were sent; the
    rate is a measurement for `ndisbench bench`, not a pass mark."""
    sent = _int(test.fact("udp_sent"))
    seconds = float(test.fact("seconds") or 0)
    if not test.ok or not sent or not seconds:
        return Verdict(FAIL, test.fact("error") or "no datagram sent")
    if not arrived or arrived > sent:
        return Verdict(FAIL, f"host counted {arrived} of {sent} datagrams")
    return Verdict(PASS, f"{arrived / seconds:.0f} datagrams/s arrived "
                         f"({arrived}/{sent}, {test.fact('udp_payload')} "
                         f"bytes each, {seconds:.1f} s)")


def judge_peer(test: KtapTest, count: int = PEER_PINGS) -> Verdict:
    """The other guest on the air answered every echo, and it pinged this
    guest at least as often (Icmp InEchos since boot: only the peer sends
    echo requests to a guest)."""
    problems: List[str] = []
    peer = test.fact("peer")
    if test.fact("peer_answered_ms") is None:
        problems.append(test.fact("error") or f"{peer} never answered")
    else:
        _compare(f"echo requests sent to {peer}", count,
                 _int(test.fact("transmitted")), problems)
        _compare(f"echo replies from {peer}", count,
                 _int(test.fact("received")), problems)
        in_echos = _int(test.fact("in_echos"))
        if in_echos is None or in_echos < count:
            problems.append(f"{peer} pinged this guest {in_echos} times, "
                            f"want at least {count}")
    if not test.ok and not problems:
        problems.append(test.fact("error") or "agent reported peer failed")
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, f"{test.fact('received')}/{count} replies from "
                         f"{peer}, rtt p50 {test.fact('rtt_p50_us')} us "
                         f"p99 {test.fact('rtt_p99_us')} us; it pinged "
                         f"us {test.fact('in_echos')} times")


def _after_the_change(check: str, test: KtapTest, problems: List[str],
                      summary: str) -> Verdict:
    """The end of hotplug and roam: the counted pings after the change,
    then the verdict."""
    _compare(f"echo replies after the {check}", HOTPLUG_PINGS,
             _int(test.fact("received")), problems)
    if not test.ok and not problems:
        problems.append(f"agent reported {check} failed")
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, summary)


def _judge_roam(test: KtapTest, iw_ssid: str = "") -> Verdict:
    """The AP went away: link lost, then the station is associated to the
    other AP of the SSID and reaches the gateway through it."""
    problems: List[str] = []
    if test.fact("lost_ms") is None:
        problems.append(test.fact("error") or "the link never went down")
    iw_problem = _iw_connect_problem(test, iw_ssid) if iw_ssid else None
    if iw_problem:
        problems.append(iw_problem)
    bss = _link_bss(test)
    _compare("BSSID after the roam", ROAM_TO.bssid, bss["bssid"], problems)
    return _after_the_change(
        "roam", test, problems, f"{ROAM_FROM.bssid} removed: link lost "
        f"after {test.fact('lost_ms')} ms, associated to {ROAM_TO.bssid} "
        f"after {test.fact('carrier_ms')} ms, {HOTPLUG_PINGS}/"
        f"{HOTPLUG_PINGS} pings")


def _judge_hotplug(exp: Expectations, test: KtapTest,
                   streamed: Optional[int]) -> Verdict:
    """Unplugged while a stream ran, the interface went away; replugged,
    it came back and reached the gateway again."""
    problems: List[str] = []
    if not streamed:
        problems.append("no traffic reached the host before the unplug")
    if test.fact("unplug_ms") is None:
        problems.append(test.fact("error") or "interface not removed")
    elif test.fact("replug_ms") is None:
        problems.append(test.fact("error") or "interface not back")
    _compare("address after the replug", exp.network["address"],
             test.fact("address"), problems)
    return _after_the_change(
        "hotplug", test, problems, f"unplugged during a stream ({streamed} "
        f"bytes arrived): gone in {test.fact('unplug_ms')} ms, back in "
        f"{test.fact('replug_ms')} ms, {HOTPLUG_PINGS}/{HOTPLUG_PINGS} "
        f"pings after")


# -- the air: scan results and the capture -------------------------------------

def scan_results(lines: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """`iw dev <if> scan` output as BSSID -> {freq, signal, ssid}."""
    found: Dict[str, Dict[str, str]] = {}
    current: Optional[Dict[str, str]] = None
    for raw in lines:
        line = raw.strip()
        match = re.match(r"BSS ([0-9a-f:]{17})", line)
        if match:
            current = found.setdefault(match.group(1), {})
        elif current is not None and ":" in line:
            key, _, value = line.partition(":")
            if key in ("freq", "signal", "SSID"):
                current[key.lower()] = value.strip()
    return found


def judge_scan(log: KtapLog) -> Verdict:
    """Every AP on the air is listed, except that a hidden one shows no
    SSID, on its channel, with the signal level the air model gives it."""
    test = log.test("scan")
    if test is None:
        return Verdict(ERROR, "agent printed no scan result")
    found = scan_results(test.all("iw_scan"))
    problems: List[str] = []
    for ap in ACCESS_POINTS:
        bss = found.get(ap.bssid)
        if bss is None:
            problems.append(f"{ap.bssid} ({ap.ssid}) not in the scan")
            continue
        _compare(f"{ap.bssid} frequency", str(ap.freq_mhz),
                 bss.get("freq", "").split(".")[0], problems)
        signal = (bss.get("signal") or "").split()
        try:
            dbm = float(signal[0])
        except (IndexError, ValueError):
            dbm = None
        if dbm is None or abs(dbm - ap.rssi_dbm) > SIGNAL_TOLERANCE_DB:
            problems.append(f"{ap.bssid} signal {bss.get('signal')!r}, the "
                            f"air gives {ap.rssi_dbm} dBm")
        want_ssid = "" if ap.hidden else ap.ssid
        ssid = bss.get("ssid", "")
        if ap.hidden and ssid == ap.ssid:
            problems.append(f"{ap.bssid}: hidden SSID revealed by the scan")
        elif not ap.hidden and ssid != want_ssid:
            problems.append(f"{ap.bssid} SSID {ssid!r}, want {want_ssid!r}")
    if not test.ok and not problems:
        problems.append(test.fact("error") or "scan failed")
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, f"{len(ACCESS_POINTS)} APs listed with channel and "
                         f"signal (one hidden, SSID not shown)")


@dataclasses.dataclass(frozen=True)
class AirCapture:
    """The host's reading of a cell's air.pcap (capture.py)."""
    frames: Sequence["Frame"] = ()
    file_problems: Sequence[str] = ()
    error: str = ""
    path: str = ""


def judge_capture(exp: Expectations, log: KtapLog,
                  air: Optional[AirCapture]) -> Verdict:
    from ..guest.capture import sequence_problems
    if air is None or air.error:
        return Verdict(ERROR, air.error if air else "no capture read")
    iface = _iface_test(log)
    station = iface.fact("mac") if iface else None
    if not station:
        return Verdict(FAIL, "no interface, so no station to follow")
    problems = list(air.file_problems)
    problems += sequence_problems(list(air.frames), station,
                                  str(exp.network["ap_bssid"]))
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, f"{len(air.frames)} frames, no warnings: beacon, "
                         f"probe, auth, assoc, data in order ({air.path})")


# -- malformed drivers and unloading ------------------------------------------

def _rmmod_errno(test: KtapTest, module: str) -> Optional[int]:
    for fact in test.all("rmmod"):
        name, _, rest = fact.partition(" errno=")
        if name == module:
            return _int(rest)
    return None


def judge_broken(exp: Expectations, log: KtapLog, refused: bool) -> Verdict:
    """Every fixtures/broken driver refused with its own clear line."""
    problems: List[str] = []
    module = exp.module_names["ndiswrapper"]
    for name, pattern in exp.broken.items():
        test = log.test(f"broken {name}")
        if test is None:
            problems.append(f"{name}: agent printed no result")
            continue
        if refused:
            _compare(f"{name}: insmod errno", ENOENT, _int(test.fact("errno")),
                     problems)
            continue
        _compare(f"{name}: install status", "0", test.fact("install_status"),
                 problems)
        _compare(f"{name}: insmod errno", 0, _int(test.fact("errno")),
                 problems)
        kmsg = test.all("kmsg")
        if not any(re.search(pattern, line) for line in kmsg):
            problems.append(f"{name}: no kernel line matches /{pattern}/")
        _compare(f"{name}: wlan interface present", "0",
                 test.fact("wlan_present"), problems)
        _compare(f"{name}: rmmod errno", 0, _rmmod_errno(test, module),
                 problems)
        if any(exp.leak_message in line for line in kmsg):
            problems.append(f"{name}: Windows allocations leaked")
        _compare(f"{name}: ndiswrapper -r status", "0",
                 test.fact("remove_status"), problems)
    if problems:
        return Verdict(FAIL, problems[0], problems)
    if refused:
        return Verdict(XFAIL, "not reached (expected: the policy refuses "
                              "ndiswrapper)")
    return Verdict(PASS, f"{len(exp.broken)} malformed drivers refused, "
                         f"each with its own line, nothing leaked")


def judge_unload(exp: Expectations, log: KtapLog, refused: bool) -> Verdict:
    """rmmod of the wrapper after the traffic: clean, nothing leaked."""
    module = exp.module_names["ndiswrapper"]
    insmod = log.test(f"insmod {module}")
    rmmod = log.test("rmmod")
    if insmod is None or rmmod is None:
        return Verdict(ERROR, "agent printed no insmod/rmmod result")
    if refused:
        if insmod.ok:
            return Verdict(FAIL, f"{module} loaded although the policy "
                                 f"refuses it")
        return Verdict(XFAIL, "not reached (expected: the policy refuses "
                              "ndiswrapper)")
    problems: List[str] = []
    _compare("rmmod errno", 0, _rmmod_errno(rmmod, module), problems)
    leaks = [line for line in rmmod.all("kmsg")
             if exp.leak_message in line]
    if leaks:
        problems.append(leaks[0])
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(PASS, "rmmod clean, no Windows allocation leaked")
