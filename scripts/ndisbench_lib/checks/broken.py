"""broken: each driver in fixtures/broken/ is installed unchecked and must
be refused by the wrapper (its helper or the module): no wlan interface,
no oops, a clean rmmod, no leaked Windows allocation, the wrapper still
loads. Our own wrapper (facts.own_wrapper) must say so with its own kernel
log line (patterns in tests/e2e/expectations.toml); another wrapper tree
refuses in its own words, and may refuse at install. On a policy that
refuses ndiswrapper each load must fail with ENOENT instead. On an i386
guest the negatives (amd64 images with NTamd64-only .inf files) never
reach the module: each must be refused at install for its architecture,
the installer naming both.

A pattern may be a list: each matches exactly one line (misuse.sys: what
the wrapper must log once, or survive without doing it). A kernel oops
on one is named as such: a crash is no refusal. It runs in a guest of
its own (serial-broken.log, restored from the cell's saved boot), so the
other checks run in a guest that never saw bad input."""
import re
from typing import List, Sequence, Tuple, Union

from .. import devices
from ..build.initramfs import fixture_file
from ..kernels import Expectations
from ..report.verdict import PASS, XFAIL, Verdict
from .check import CellFacts, Check, GuestContext
from .facts import ENOENT, compare, oops_site, own_wrapper, rmmod_errno, \
    to_int, verdict

# A kernel line that says the wrapper crashed on the driver.
OOPS_RE = re.compile(r"^(?:BUG: |Oops: |general protection fault|"
                     r"detected buffer overflow)")


def params(ctx: GuestContext) -> Sequence[str]:
    if not ctx.device.fixture:
        return ()
    return ["ndisbench.broken=" + ",".join(
        "/" + fixture_file("broken", name, ".inf") for name in ctx.exp.broken)]


def guest_files(exp: Expectations) -> Sequence[Tuple[str, str]]:
    return [("broken", name) for name in exp.broken]


# The installer's refusal of an amd64-only .inf on an i386 wrapper.
ARCH_REFUSAL_RE = re.compile(r"no models for NTx86 \(this i386 wrapper\), "
                             r"only for NTamd64")


def judge_i386(facts: CellFacts) -> Verdict:
    problems: List[str] = []
    for name in facts.exp.broken:
        test = facts.log.test(f"broken {name}")
        if test is None:
            problems.append(f"{name}: agent printed no result")
            continue
        if test.fact("install_status") == "0":
            problems.append(f"{name}: installed on an i386 wrapper")
        elif not any(ARCH_REFUSAL_RE.search(line)
                     for line in test.all("out")):
            problems.append(f"{name}: the installer's refusal does not "
                            f"match /{ARCH_REFUSAL_RE.pattern}/")
        # the agent looks for one only after an install it let through
        if test.fact("wlan_present") is not None:
            compare(f"{name}: wlan interface present", "0",
                    test.fact("wlan_present"), problems)
    return verdict(problems, f"{len(facts.exp.broken)} amd64 drivers "
                             f"refused for their architecture at install")


def unmatched(name: str, pattern: Union[str, Tuple[str, ...]],
              kmsg: List[str]) -> List[str]:
    """What the kernel lines lack: a line matching the pattern, or for a
    tuple of patterns, exactly one line matching each (a message the
    wrapper must print once, a line of each step of the driver)."""
    if isinstance(pattern, str):
        if any(re.search(pattern, line) for line in kmsg):
            return []
        return [f"{name}: no kernel line matches /{pattern}/"]
    problems = []
    for each in pattern:
        n = sum(1 for line in kmsg if re.search(each, line))
        if not n:
            problems.append(f"{name}: no kernel line matches /{each}/")
        elif n > 1:
            problems.append(f"{name}: {n} kernel lines match /{each}/ "
                            f"(expected one)")
    return problems


# A kernel line of another wrapper that reads as a refusal.
REFUSAL_RE = re.compile(r"(?i)\b(?:fail|invalid|couldn't|cannot|can't|"
                        r"unable|error|bad|not supported|refus|unknown)")


def refusal_lines(name: str, kmsg: List[str]) -> List[str]:
    """Another wrapper's refusal, as it words it: the lines that read as
    one, those that name the driver first (what the report shows)."""
    lines = [line for line in kmsg if REFUSAL_RE.search(line)]
    return sorted(lines, key=lambda line: name.lower() not in line.lower())


def judge(facts: CellFacts) -> Verdict:
    """Every fixtures/broken driver refused: ours with its own clear line,
    another wrapper in its own words."""
    exp, log, refused = facts.exp, facts.log, facts.refused
    if (facts.config or {}).get("CONFIG_X86_32") == "y":
        # The installer refuses the amd64 images before any insmod, so
        # the kernel's policy never comes into it.
        return judge_i386(facts)
    problems: List[str] = []
    words: List[str] = []       # another wrapper's own refusal lines
    ours = own_wrapper(facts)
    module = exp.module_names["ndiswrapper"]
    for name, pattern in exp.broken.items():
        test = log.test(f"broken {name}")
        if test is None:
            problems.append(f"{name}: agent printed no result")
            continue
        if refused:
            compare(f"{name}: insmod errno", ENOENT,
                    to_int(test.fact("errno")), problems)
            continue
        if not ours and test.fact("install_status") not in (None, "0"):
            # its installer refused the driver: nothing reached the module
            words.append(f"{name}: refused at install "
                         f"(status {test.fact('install_status')})")
            continue
        compare(f"{name}: install status", "0", test.fact("install_status"),
                problems)
        compare(f"{name}: insmod errno", 0, to_int(test.fact("errno")),
                problems)
        kmsg = test.all("kmsg")
        oops = [line for line in kmsg if OOPS_RE.search(line)]
        if oops:
            # Not a refusal: the wrapper crashed on it (where, if told).
            where = oops_site(kmsg[kmsg.index(oops[0]):])
            problems.append(f"{name}: the kernel oopsed instead of refusing "
                            f"it: {oops[0]}" + (f" (in {where})" if where
                                                else ""))
        if ours:
            problems.extend(unmatched(name, pattern, kmsg))
        else:
            words += [f"{name}: {line}" for line in refusal_lines(name,
                                                                 kmsg)[:1]]
        compare(f"{name}: wlan interface present", "0",
                test.fact("wlan_present"), problems)
        compare(f"{name}: rmmod errno", 0, rmmod_errno(test, module),
                problems)
        if any(exp.leak_message in line for line in kmsg):
            problems.append(f"{name}: Windows allocations leaked")
        compare(f"{name}: ndiswrapper -r status", "0",
                test.fact("remove_status"), problems)
    if refused and not problems:
        return Verdict(XFAIL, "not reached (expected: the policy refuses "
                              "ndiswrapper)")
    if not ours and not problems:
        return Verdict(PASS, f"{len(exp.broken)} malformed drivers refused "
                             f"in the wrapper's own words, nothing leaked, "
                             f"rmmod clean", words)
    return verdict(problems, f"{len(exp.broken)} malformed drivers refused, "
                             f"each with its own line, nothing leaked")


CHECK = Check(
    name="broken", order=50,
    reads=("broken",), own_guest=True,
    doc="every fixtures/broken driver refused with its own kernel line, "
        "nothing leaked",
    devices=devices.WRAPPED, judge=judge, params=params,
    guest_files=guest_files, role="ndiswrapper", installs_driver=False,
    seconds=5)
