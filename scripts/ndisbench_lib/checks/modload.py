"""The module checks' shared part (load, taint, driverloader, control):
the kernel's taint state simulated through the agent's loads under the
kernel's taint policy, and each load judged against it.

The agent loads the control first, then ndiswrapper, then driverloader;
the expected masks are simulated through that order."""
import dataclasses
import re
from typing import Dict, List, Mapping, Optional, Sequence

from ..kernels import Expectations, Policy
from ..report.ktap import KtapLog
from ..report.verdict import ERROR, PASS, XFAIL, Verdict
from .check import CellFacts
from .facts import EACCES, ENOENT, compare, not_booted, to_int, verdict

# Load order in the guest: the control first, so a P left behind by a
# special-cased name cannot hide a wrong P from the control.
LOAD_ORDER = ("control", "ndiswrapper", "driverloader")
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
# Modes that give the module its own P: "flagged" (2.6.19-rc1) keeps it
# out of the GPL-only check, "module" does not, so only "module" refuses.
MODULE_P_MODES = ("flagged", "module")


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


def expected_loads(policy: Policy, exp: Expectations, roles: Sequence[str],
                   base_bits: int, boot_taint: int = 0,
                   gpl_imports: Optional[Mapping[str, Sequence[str]]] = None
                   ) -> Dict[str, ExpectedLoad]:
    """Simulate the kernel's taint state through the loads in order.
    gpl_imports: per role, the built module's GPL-only imports (a role not
    named: the table's)."""
    p_bit = 1 << exp.taint_bits["P"]
    state = boot_taint
    out = {}
    for role in roles:
        mode = policy.modes.get(role, "none")
        after = state | base_bits | (p_bit if mode != "none" else 0)
        loads = mode != "module"
        module_bits = base_bits | (p_bit if mode in MODULE_P_MODES else 0)
        imports = (gpl_imports or {}).get(role, exp.gpl_only_imports)
        out[role] = ExpectedLoad(
            module=exp.module_names[role], mode=mode,
            errno=0 if loads else ENOENT, tainted_before=state,
            tainted_after=after,
            module_taint=taint_letters(module_bits, exp.taint_bits)
            if loads else "-",
            unknown_symbols=[] if loads else sorted(imports),
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


def observe(log: KtapLog, module: str) -> Optional[Observed]:
    test = log.test(f"insmod {module}")
    if test is None:
        return None
    rmmod_errno = None
    unload = log.test("unload")
    if unload is not None:
        for fact in unload.all("rmmod"):
            name, _, rest = fact.partition(" errno=")
            if name == module:
                rmmod_errno = to_int(rest)
    ioctls = {}
    for fact in test.all("ioctl"):
        case, _, result = fact.partition(" ")
        ioctls[case] = result
    return Observed(to_int(test.fact("errno")),
                    to_int(test.fact("tainted_before")),
                    to_int(test.fact("tainted_after")),
                    test.fact("module_taint"), test.all("kmsg"),
                    rmmod_errno,
                    to_int(test.fact("devnode_unprivileged_errno")), ioctls)


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


def judge_load(want: ExpectedLoad, got: Observed, exp: Expectations,
               own_loader_abi: bool = True) -> List[str]:
    problems: List[str] = []
    compare("errno", want.errno, got.errno, problems)
    compare("Unknown symbol lines", want.unknown_symbols,
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
    compare(f"'{license_line}' logged", expect_license,
            license_line in got.kmsg, problems)
    if want.errno == 0:
        compare("rmmod errno", 0, got.rmmod_errno, problems)
    if want.errno == 0 and got.devnode_errno is not None:
        # The node carries driver images into the kernel: root only.
        compare(f"errno of a non-root open of /dev/{want.module}", EACCES,
                got.devnode_errno, problems)
        problems += judge_ioctls(want.module, got, own_loader_abi)
    return problems


def judge_ioctls(module: str, got: Observed,
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
            compare(f"ioctl {case} on /dev/{module}", f"errno={name}",
                    got.ioctls.get(case, "missing"), problems)
    problems += [f"kernel log while /dev/{module} was probed: {line}"
                 for line in got.kmsg if IOCTL_KERNEL_FAULT_RE.search(line)]
    return problems


def judge_taint(want: ExpectedLoad, got: Observed, boot: Optional[int],
                exp: Expectations) -> List[str]:
    problems: List[str] = []
    bits = exp.taint_bits

    def show(mask: Optional[int]) -> str:
        if mask is None:
            return "missing"
        return f"{mask} ({taint_letters(mask, bits) or '-'})"

    compare("tainted at boot", show(0), show(boot), problems)
    compare("tainted before load", show(want.tainted_before),
            show(got.tainted_before), problems)
    compare("tainted after load", show(want.tainted_after),
            show(got.tainted_after), problems)
    compare(f"/sys/module/{want.module}/taint", want.module_taint,
            got.module_taint, problems)
    return problems


def judge_module(check: str, role: str, facts: CellFacts,
                 taint_only: bool = False, with_taint: bool = False
                 ) -> Verdict:
    """One module check: the load of `role`'s module against the policy's
    simulation. taint_only: only the masks (taint); with_taint: the load
    and the masks (driverloader, control)."""
    want = expected_loads(facts.policy, facts.exp, facts.roles,
                          facts.base_bits,
                          gpl_imports=facts.gpl_imports)[role]
    first = not_booted(facts.log)
    if first:
        return first
    boot = facts.log.test("boot")
    assert boot is not None
    got = observe(facts.log, want.module)
    if got is None:
        return Verdict(ERROR, f"agent printed no result for {want.module}")
    boot_taint = to_int(boot.fact("tainted"))
    if taint_only:
        problems = judge_taint(want, got, boot_taint, facts.exp)
    else:
        problems = judge_load(want, got, facts.exp, facts.own_loader_abi)
        if with_taint:
            problems += judge_taint(want, got, boot_taint, facts.exp)
    if problems:
        return verdict(problems, "")
    return success(check, want)


def success(check: str, want: ExpectedLoad) -> Verdict:
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


def modules_for(roles: Sequence[str]) -> List[str]:
    """These roles in load order."""
    return [r for r in LOAD_ORDER if r in roles]
