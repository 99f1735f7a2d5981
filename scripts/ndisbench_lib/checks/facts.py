"""What the checks' judges share: reading the agent's facts, comparing
them with what is wanted, and the verdicts that come before a check's own
(the guest did not boot, the policy refuses the wrapper the check stands
behind, the interface never came)."""
import re
from typing import Dict, List, Optional, Sequence, Union

from ..report.ktap import KtapLog, KtapTest
from ..report.verdict import ERROR, FAIL, PASS, XFAIL, Verdict
from .check import CellFacts

ENOENT = 2
EACCES = 13
HOTPLUG_PINGS = 10          # the agent's pings after a replug or a roam
# How the agent drove a wireless interface (its `wireless_api` fact):
# nl80211 with iw where the interface has a cfg80211 wiphy, else the
# wireless extensions with wireless-tools.
NL80211, WEXT = "nl80211", "wext"


def to_int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def compare(what: str, want: object, got: object, problems: List[str]
            ) -> None:
    if want != got:
        problems.append(f"{what}: expected {want!r}, got {got!r}")


def verdict(problems: List[str], summary: str, status: str = PASS
            ) -> Verdict:
    """FAIL with the first problem, else the summary."""
    if problems:
        return Verdict(FAIL, problems[0], problems)
    return Verdict(status, summary)


def own_wrapper(facts: CellFacts) -> bool:
    """The cell ran our wrapper: the repository's own (no --wrapper-src),
    or a tree whose module printed our banner (the table's own_wrapper)
    when it loaded. Its refusals and names are held to our exact words;
    another wrapper's are judged by what it does."""
    if facts.own_loader_abi:
        return True
    banner = re.compile(facts.exp.own_banner)
    return any(banner.search(line) for test in facts.log.tests
               for line in test.all("kmsg"))


def not_booted(log: KtapLog) -> Optional[Verdict]:
    """ERROR where the agent's boot test is missing or failed."""
    boot = log.test("boot")
    if boot is None or not boot.ok:
        return Verdict(ERROR, "guest did not boot to the agent's checks")
    return None


def iface_test(log: KtapLog) -> Optional[KtapTest]:
    """The agent's `bind <ifname>` result (the interface), if it printed
    one."""
    return next((t for t in log.tests if t.name.startswith("bind ")), None)


def iface_name(test: KtapTest) -> str:
    """The interface of the agent's `bind <ifname>` result."""
    return test.name.partition(" ")[2]


def iface_problem(log: KtapLog, need_link: bool = True) -> Optional[str]:
    iface = iface_test(log)
    if iface is None:
        return "agent printed no interface result"
    if not iface.ok:
        return iface.fact("error") or f"iface {iface_name(iface)} failed"
    if not need_link:
        return None
    link = log.test("associate")
    if link is None:
        return "agent printed no link result"
    if not link.ok:
        return link.fact("error") or "no link"
    return None


def unreached(log: KtapLog) -> Verdict:
    """A check behind a wrapper the policy refuses: the interface must not
    exist, and nothing after it can run."""
    iface = iface_test(log)
    if iface is None:
        return Verdict(ERROR, "agent printed no interface result")
    if iface.ok:
        return Verdict(FAIL, f"iface {iface_name(iface)} appeared although "
                             f"the policy refuses ndiswrapper")
    return Verdict(XFAIL, "not reached (expected: the policy refuses "
                          "ndiswrapper)")


def behind_refusal(facts: CellFacts) -> Optional[Verdict]:
    """The verdict of a wrapped device's check where the policy refuses
    the wrapper (None: it does not, or the device is not wrapped)."""
    if facts.fixture and facts.refused:
        return unreached(facts.log)
    return None


def iface_first(facts: CellFacts, need_link: bool) -> Optional[Verdict]:
    """The verdict before a check of the interface's own: not reached, not
    booted, no interface (or, need_link, no link)."""
    first = behind_refusal(facts) or not_booted(facts.log)
    if first:
        return first
    problem = iface_problem(facts.log, need_link=need_link)
    return Verdict(FAIL, problem) if problem else None


def unload_lines(facts: CellFacts, key: str) -> List[str]:
    """The `key` facts (kmsg, klog) of the unload test: a driver's Halt
    line and the wrapper's last counts come while the module goes."""
    unload = facts.log.test("unload")
    return unload.all(key) if unload else []


def first_match(pattern: "re.Pattern[str]",
                lines: Sequence[str]) -> Optional["re.Match[str]"]:
    """The first of the lines' matches of pattern, or None."""
    return next((m for m in map(pattern.search, lines) if m), None)


def net_test(facts: CellFacts, name: str) -> Union[KtapTest, Verdict]:
    """A network check's agent test, or the verdict that comes first:
    not reached, not booted, no interface or link, no result."""
    first = iface_first(facts, need_link=True)
    if first:
        return first
    test = facts.log.test(name)
    if test is None:
        return Verdict(ERROR, f"agent printed no {name} result")
    return test


def agent_failed(name: str, test: KtapTest, problems: List[str]) -> None:
    """A failed agent test that no compared fact explains is a problem."""
    if not test.ok and not problems:
        problems.append(f"agent reported {name} failed: "
                        f"{test.fact('error') or 'see the serial log'}")


def wireless_api(test: KtapTest) -> str:
    """NL80211 or WEXT: how the agent drove the interface in this test (an
    agent that does not say drove nl80211)."""
    return WEXT if test.fact("wireless_api") == WEXT else NL80211


def api_words(api: str) -> str:
    """What a verdict summary adds for the wireless extensions' way."""
    return " (wireless extensions)" if api == WEXT else ""


def join_words(api: str, ssid: str) -> str:
    """The agent's join, as a user would type it."""
    return f"iwconfig essid {ssid}" if api == WEXT else f"iw connect {ssid}"


def link_bss(link: KtapTest) -> Dict[str, Optional[str]]:
    """BSSID and SSID of the association, from the wrapper's ndis/ sysfs
    attributes, then from `iw dev <if> link` or the wireless extensions'
    SIOCGIWAP and SIOCGIWESSID (what the interface's API says wins)."""
    bss: Dict[str, Optional[str]] = {"bssid": link.fact("ndis_bssid"),
                                     "ssid": link.fact("ndis_ssid")}
    for line in (raw.strip() for raw in link.all("iw_link")):
        words = line.split()
        if line.startswith("Connected to ") and len(words) > 2:
            bss["bssid"] = words[2]
        elif line.startswith("SSID: "):
            bss["ssid"] = line[len("SSID: "):]
    wext_ap, wext_essid = link.all("wext_ap"), link.all("wext_essid")
    if wext_ap:
        bss["bssid"] = wext_ap[-1].lower()
    if wext_essid:
        bss["ssid"] = wext_essid[-1]
    return bss


def join_problem(test: KtapTest, ssid: str) -> Optional[str]:
    """The join must be the agent's: its last `iwconfig essid` (wireless
    extensions) or `iw connect` (nl80211) exited 0 (with iw, an earlier
    EALREADY, the driver already associated on its own, is followed by a
    disconnect and a second connect)."""
    if wireless_api(test) == WEXT:
        return last_run_problem(test, "iwconfig_essid",
                                f"iwconfig essid {ssid}")
    return last_run_problem(test, "iw_connect", f"iw connect {ssid}")


def last_run_problem(test: KtapTest, key: str, command: str
                     ) -> Optional[str]:
    """The agent's last run of a command (facts <key>_status and <key>,
    its output) must have exited 0."""
    statuses = test.all(f"{key}_status")
    if not statuses:
        return f"agent never ran {command}"
    if statuses[-1] != "0":
        return (f"{command} exited {statuses[-1]}: "
                f"{'; '.join(test.all(key)) or 'no output'}")
    return None


def after_the_change(check: str, test: KtapTest, problems: List[str],
                     summary: str) -> Verdict:
    """The end of hotplug and roam: the counted pings after the change,
    then the verdict."""
    compare(f"echo replies after the {check}", HOTPLUG_PINGS,
            to_int(test.fact("received")), problems)
    if not test.ok and not problems:
        problems.append(f"agent reported {check} failed")
    return verdict(problems, summary)


def rmmod_errno(test: KtapTest, module: str) -> Optional[int]:
    for fact in test.all("rmmod"):
        name, _, rest = fact.partition(" errno=")
        if name == module:
            return to_int(rest)
    return None


# A call trace frame ("[ 1.2]  ? nvmalloc+0x1b/0x63 [ndiswrapper]") and
# the RIP line ("RIP: 0010:__memcpy+0x12/0x20"), kernel timestamp or not.
_FRAME_RE = re.compile(r"^(?:\[[^]]*\])?\s*(?:\? )?([\w.]+)\+0x[0-9a-f]+/"
                       r"0x[0-9a-f]+(?: \[(\w+)\])?")
# the agent's copy of a kernel line ("# kmsg: ...")
_AGENT_PREFIX_RE = re.compile(r"^# k(?:msg|log): ")
_RIP_RE = re.compile(r"RIP: [0-9a-f]{4}:([\w.]+)\+0x")


def oops_site(lines: Sequence[str]) -> str:
    """Where an oops happened: the first call trace frame inside a module
    ("nvmalloc [ndiswrapper]"), else the RIP's function, else ""."""
    for line in lines:
        match = _FRAME_RE.match(_AGENT_PREFIX_RE.sub("", line))
        if match and match.group(2):
            return f"{match.group(1)} [{match.group(2)}]"
    for line in lines:
        match = _RIP_RE.search(line)
        if match:
            return match.group(1)
    return ""
