"""bind: the device's interface appears. Wrapped: ethtool says the
interface is the wrapper's and names the Windows driver (ours, exactly:
driver `ndiswrapper`, the .sys as fw_version; another wrapper tree in its
own form, such as the classic `ndiswrapper+<driver>`), and the
kernel is tainted P (loading a Windows binary does add_taint, whatever the
module loader's policy did with the module's name). Native: ethtool names
the in-tree driver and nothing tainted the kernel.

The wrapper names the interface: where the expected name (eth0, wlan0)
does not appear but an interface with the NIC's MAC does (1.63 calls
every one `wlan%d`), the agent renames it, as udev would by MAC, and
bind says so (`renamed from wlan0`)."""
from typing import List

from .. import devices
from ..report.ktap import KtapTest
from ..report.verdict import PASS, Verdict
from .check import CellFacts, Check
from .facts import compare, iface_first, iface_test, own_wrapper, to_int, \
    verdict


def judge_native(facts: CellFacts, iface: KtapTest) -> Verdict:
    """The in-tree driver owns the interface, and nothing tainted P."""
    problems: List[str] = []
    compare("ethtool driver", facts.native, iface.fact("driver"), problems)
    boot = facts.log.test("boot")
    tainted = to_int(boot.fact("tainted")) if boot else None
    compare("kernel taint at boot", 0, tainted, problems)
    return verdict(problems, f"{iface.name.split()[1]} bound: driver "
                             f"{facts.native}, {iface.fact('bus_info')}")


def ethtool_names(facts: CellFacts, iface: KtapTest,
                  problems: List[str]) -> str:
    """ethtool names the wrapper and the Windows driver. Ours: driver
    `ndiswrapper` and the .sys as fw_version, exactly. Another wrapper
    tree in its own form (the classic ndiswrapper: `ndiswrapper+<its
    installed name>` and no fw_version): the driver is the wrapper's and
    the Windows driver's name is in driver or fw_version. Returns how it
    named them."""
    driver = iface.fact("driver") or ""
    fw_version = iface.fact("fw_version") or ""
    sys_name = facts.fixture_sys or f"{facts.fixture}.sys"
    if own_wrapper(facts):
        if driver != "ndiswrapper":
            problems.append(f"ethtool driver: expected 'ndiswrapper', got "
                            f"{driver or None!r}")
        elif sys_name.lower() != fw_version.lower():
            problems.append(f"ethtool does not name {sys_name}: "
                            f"fw_version {fw_version or None!r}")
        return f"ndiswrapper, {fw_version}"
    if not driver.lower().startswith("ndiswrapper"):
        problems.append(f"not bound to the wrapper: ethtool driver "
                        f"{driver or None!r}")
    names = {n.lower() for n in (facts.fixture, sys_name,
                                 sys_name.rsplit(".", 1)[0]) if n}
    said = f"{driver} {fw_version}".lower()
    if not any(n in said for n in names):
        problems.append(f"ethtool does not name {facts.fixture or sys_name}: "
                        f"driver {driver or None!r}, fw_version "
                        f"{fw_version or None!r}")
    return ", ".join(p for p in (driver, fw_version) if p)


def judge(facts: CellFacts) -> Verdict:
    first = iface_first(facts, need_link=False)
    if first:
        return first
    iface = iface_test(facts.log)
    assert iface is not None
    if facts.native:
        return judge_native(facts, iface)
    exp = facts.exp
    problems: List[str] = []
    named = ethtool_names(facts, iface, problems)
    insmod = facts.log.test(f"insmod {exp.module_names['ndiswrapper']}")
    after = to_int(insmod.fact("tainted_after")) if insmod else None
    p_bit = 1 << exp.taint_bits["P"]
    compare("kernel tainted P after the Windows driver loaded", True,
            after is not None and bool(after & p_bit), problems)
    taken = ""
    if facts.unbinds:
        boot = facts.log.test("boot")
        unbinds = boot.all("unbind") if boot else []
        if any(u.endswith(f" from {facts.unbinds}") for u in unbinds):
            taken = f", taken from {facts.unbinds}"
        else:
            problems.append(f"not unbound from {facts.unbinds} (unbind: "
                            f"{'; '.join(unbinds) or 'nothing said'})")
    renamed = iface.fact("renamed")
    if renamed:
        taken += f", renamed from {renamed.split()[0]} (its MAC)"
    return verdict(problems, f"{iface.name.split()[1]} bound: driver "
                             f"{named}, {iface.fact('bus_info')}{taken}",
                   PASS)


CHECK = Check(
    name="bind", order=70,
    reads=("insmod ndiswrapper", "bind"),
    doc="the interface appears, owned by the expected driver",
    devices=devices.RADIOS + devices.FAULTY + devices.WIRED, judge=judge,
    needs_iface=True,
    seconds=5)
