"""The device and wrapper axes of the matrix: what QEMU adds to the guest,
how the guest drives it (which wrapper, or the native in-tree driver), the
in-tree modules it loads for it. Which checks apply to a row each check
says itself (checks/*.py, `devices`), by the groups named below.

- `none`: a q35 guest without network hardware: the load and taint checks.
- `e1000`: QEMU's e1000 on the slirp user network: the reference NIC the
  network checks (and the wrapped WLAN devices) are measured against.
- `bcm43xx` / ndiswrapper: our Broadcom-class PCI WLAN model on an emulated
  air with an access point bridged to slirp, driven by the bcmwl fixture
  driver through ndiswrapper: the whole chain from `ndiswrapper -i` to TCP.
- `rtl8187` / ndiswrapper: our RTL8187-class USB WLAN model on xHCI, driven
  by the rtlwl NDIS-WDM fixture through the wrapper's USB layer.
- `bcm43xx-wext` / ndiswrapper: bcm43xx/ndiswrapper with our wrapper
  asked for no cfg80211 wiphy (its `wiphy=0` parameter): the interface
  offers wireless extensions only, as ndiswrapper always did, and the agent
  scans, joins and roams with iwlist and iwconfig.
- `rtl8187` / native: the same emulated device driven by Linux's in-tree
  rtl8187 (mac80211, connected with `iw`): the independent reference.
- `rtl8139` / ndiswrapper: QEMU's stock RTL8139 on slirp, driven by our
  wired rtl8139nd fixture (port I/O) through the wrapper; `rtl8139` /
  native: the same NIC driven by Linux's 8139cp (QEMU's chip is an
  RTL8139C+, which 8139too refuses), its reference (on the kernels that
  ship 8139cp: Debian's).
- A user's driver (`run --driver PATH.inf`, userdriver.py) is a row made
  at run time on the NIC its .inf names, running the checks of the
  matrix row it is `like`.
"""
import dataclasses
from typing import Dict, List, Optional, Tuple

from .guest import air
from .errors import BenchError

WRAPPERS = ("ndiswrapper", "native")
# Our USB device models, by QEMU driver name: their vendor:product.
USB_IDS = {"usb-rtl8187": "0bda:8187"}

# The air (captured to the cell's air.pcap) and its access points, the
# first bridged to the slirp network (air.py).
AIR_ARGS = air.qemu_args()
# The USB device, with the id the hotplug check removes and re-adds it by.
RTL8187_DEVICE = ("usb-rtl8187,id=wlan0,bus=xhci.0,air=air0,"
                  "mac=52:54:00:12:34:58")
# xhci_pci is a module on Debian's kernels (built into the source ones).
RTL8187_ARGS = AIR_ARGS + ("-device", "qemu-xhci,id=xhci",
                           "-device", RTL8187_DEVICE)
# The *-faults rows: the same radios on a faulty air (wlan-air's fault
# properties, qemu-devices/README.md): 2% of the frames lost, 1% with bit
# errors (bad FCS), 1% duplicated, 2 to 3 ms of delay, a fixed PRNG seed.
# The driver, the wrapper and TCP must recover; no ping (loss expected).
AIR_FAULTS = ("drop=200,corrupt=100,duplicate=100,delay-us=2000,"
              "jitter-us=1000,seed=1")
FAULTY_AIR_ARGS = tuple(a.replace("wlan-air,id=air0",
                                  "wlan-air,id=air0," + AIR_FAULTS)
                        for a in AIR_ARGS)
FAULTY_RTL8187_ARGS = FAULTY_AIR_ARGS + RTL8187_ARGS[len(AIR_ARGS):]

# The rows by what they are, for the checks' `devices`. A new row joins
# the groups it belongs to here; the checks that name a group follow.
BARE = ("none",)                            # no network device
REFERENCE_NIC = ("e1000",)
# Our radios on the air, our fixture drivers in ndiswrapper: they join
# with `iw connect` through the wrapper's cfg80211 (bcm43xx-wext: with
# iwconfig through the wrapper's own wireless extensions) and run the same
# scan and roam checks as the native driver.
WEXT_ROW = "bcm43xx-wext/ndiswrapper"
WRAPPED = ("bcm43xx/ndiswrapper", "rtl8187/ndiswrapper", WEXT_ROW)
NATIVE = ("rtl8187/native",)                # Linux's own driver: reference
RADIOS = WRAPPED + NATIVE
UNPLUGGABLE = ("rtl8187/ndiswrapper", "rtl8187/native")   # USB: hotplug
# A fixture that hangs once (bcmwl.sys as bcmwlhang, its INF's HangTxAfter
# knob): the wrapper's CheckForHang and Reset must bring it back.
HUNG = ("bcm43xx-hang/ndiswrapper",)
# bcmwl.sys as a serialized miniport (bcmwlserial, its INF's Serialized
# knob) that answers sends NDIS_STATUS_RESOURCES: the wrapper must queue
# them again.
SERIAL = ("bcm43xx-serial/ndiswrapper",)
# The same radios on a faulty air, and the two fixture variants above: the
# driver, the wrapper and TCP must recover (no ping: loss is expected).
FAULTY_WRAPPED = ("bcm43xx-faults/ndiswrapper",
                  "rtl8187-faults/ndiswrapper") + HUNG + SERIAL
FAULTY = FAULTY_WRAPPED + ("rtl8187-faults/native",)
PLANTED = ("planted",)
# Stock QEMU Ethernet NICs with a Windows driver in the wrapper (the kernel
# driver for the NIC unbound first) and their in-tree references.
WIRED_WRAPPED = ("rtl8139/ndiswrapper",)
WIRED_NATIVE = ("rtl8139/native",)
WIRED = WIRED_WRAPPED + WIRED_NATIVE

# QEMU's stock rtl8139 on the slirp network (in our build: BASE_DEVICES).
RTL8139_ARGS = ("-netdev", "user,id=net0", "-device",
                "rtl8139,netdev=net0,mac=52:54:00:12:34:59")


@dataclasses.dataclass(frozen=True)
class Device:
    """One device of the matrix as one wrapper (or none) drives it."""
    name: str
    description: str
    wrapper: str = ""                       # "", or one of WRAPPERS
    qemu_args: Tuple[str, ...] = ()
    guest_modules: Tuple[str, ...] = ()     # in-tree, unless built in
    ifname: str = ""                        # interface the net checks use
    own_qemu: bool = False                  # needs our device models
    fixture: str = ""                       # Windows driver it is wrapped with
    native_driver: str = ""                 # in-tree driver name (native)
    connect_ssid: str = ""                  # joined with `iw connect`
    hotplug: str = ""                       # -device text QMP re-adds
    default: bool = True                    # in the matrix without --device
    # The kernel's own driver for this PCI id (vvvv:dddd) lets go of the
    # device before the wrapper loads (the agent's ndisbench.unbind).
    unbind: str = ""
    # That driver, loaded at boot where the kernel has it as a module (or
    # bound already, built in), so the unbind really takes the device
    # from it; the bind check then wants the agent's unbind from it.
    native_first: str = ""
    # Only on kernels of these sources (kernels.toml `source`); (): all.
    kernel_sources: Tuple[str, ...] = ()
    # A user's driver (run --driver): the .inf and the files beside it
    # (guest file name, host path), and the matrix row whose checks it runs.
    driver_files: Tuple[Tuple[str, str], ...] = ()
    like: str = ""
    # <module>.<param>=<value> words every load of that module gets (the
    # agent's ndisbench.modparams).
    module_params: Tuple[str, ...] = ()

    @property
    def usb_id(self) -> str:
        """vendor:product of the USB device QEMU plugs in, if any: the
        agent waits for it to enumerate before loading the wrapper."""
        drivers = [self.qemu_args[i + 1].split(",")[0]
                   for i, arg in enumerate(self.qemu_args[:-1])
                   if arg == "-device"]
        return next((USB_IDS[d] for d in drivers if d in USB_IDS), "")

    @property
    def mac(self) -> str:
        """The MAC address QEMU gives the device (its -device mac=), or
        ""."""
        for i, arg in enumerate(self.qemu_args[:-1]):
            if arg == "-device":
                for option in self.qemu_args[i + 1].split(",")[1:]:
                    if option.startswith("mac="):
                        return option[len("mac="):]
        return ""

    @property
    def sys_name(self) -> str:
        """The Windows driver's .sys file name (ethtool's fw_version)."""
        sys_files = [g for g, _ in self.driver_files
                     if g.lower().endswith(".sys")]
        return sys_files[0] if sys_files else f"{self.fixture}.sys"

    @property
    def checks_row(self) -> str:
        """The matrix row whose checks apply: its own, or the one a
        user's driver is like."""
        return self.like or self.label

    @property
    def label(self) -> str:
        """Row name in matrices and cell folders: device[/wrapper]."""
        return f"{self.name}/{self.wrapper}" if self.wrapper else self.name


TARGETS: Tuple[Device, ...] = (
    Device("none", "no network device: module load and taint checks"),
    Device("e1000", "QEMU e1000 on -netdev user (slirp): reference NIC",
           qemu_args=("-netdev", "user,id=net0", "-device",
                      "e1000,netdev=net0,mac=52:54:00:12:34:56"),
           guest_modules=("e1000",), ifname="eth0"),
    Device("bcm43xx", "our PCI WLAN model + AP on the air, wrapped: bcmwl.sys "
           "in ndiswrapper", wrapper="ndiswrapper",
           qemu_args=AIR_ARGS + ("-device", "bcm43xx,air=air0,"
                                 "mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwl",
           connect_ssid="ndisbench"),
    Device("bcm43xx-wext", "bcm43xx/ndiswrapper without a cfg80211 wiphy "
           "(ndiswrapper.wiphy=0): the wrapper's own wireless extensions, "
           "driven with iwlist and iwconfig", wrapper="ndiswrapper",
           qemu_args=AIR_ARGS + ("-device", "bcm43xx,air=air0,"
                                 "mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwl",
           connect_ssid="ndisbench", default=False,
           module_params=("ndiswrapper.wiphy=0",)),
    Device("rtl8187", "our USB WLAN model on xHCI + AP, wrapped: rtlwl.sys "
           "(NDIS-WDM) in ndiswrapper", wrapper="ndiswrapper",
           qemu_args=RTL8187_ARGS, guest_modules=("xhci_pci",),
           ifname="wlan0", own_qemu=True, fixture="rtlwl",
           connect_ssid="ndisbench", hotplug=RTL8187_DEVICE),
    Device("rtl8187", "the same USB WLAN model driven by Linux's in-tree "
           "rtl8187 (mac80211, iw connect): the reference",
           wrapper="native", qemu_args=RTL8187_ARGS,
           guest_modules=("xhci_pci", "rtl8187"), ifname="wlan0",
           own_qemu=True,
           native_driver="rtl8187", connect_ssid="ndisbench",
           hotplug=RTL8187_DEVICE),
    Device("bcm43xx-faults", "bcm43xx/ndiswrapper on a faulty air (lost, "
           "corrupted, duplicated, delayed frames)", wrapper="ndiswrapper",
           qemu_args=FAULTY_AIR_ARGS + ("-device", "bcm43xx,air=air0,"
                                        "mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwl", default=False),
    Device("bcm43xx-hang", "bcm43xx/ndiswrapper with bcmwl.sys's TX hanging "
           "once (its INF's HangTxAfter): CheckForHang and Reset must bring "
           "it back", wrapper="ndiswrapper",
           qemu_args=AIR_ARGS + ("-device", "bcm43xx,air=air0,"
                                 "mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwlhang", default=False),
    Device("bcm43xx-serial", "bcm43xx/ndiswrapper with bcmwl.sys as a "
           "serialized miniport answering sends NDIS_STATUS_RESOURCES (its "
           "INF's Serialized): the wrapper queues them again",
           wrapper="ndiswrapper",
           qemu_args=AIR_ARGS + ("-device", "bcm43xx,air=air0,"
                                 "mac=52:54:00:12:34:57"),
           ifname="wlan0", own_qemu=True, fixture="bcmwlserial",
           default=False),
    Device("rtl8187-faults", "rtl8187/ndiswrapper on a faulty air",
           wrapper="ndiswrapper",
           qemu_args=FAULTY_RTL8187_ARGS, guest_modules=("xhci_pci",),
           ifname="wlan0", own_qemu=True, fixture="rtlwl", default=False),
    Device("rtl8187-faults", "rtl8187/native on a faulty air",
           wrapper="native", qemu_args=FAULTY_RTL8187_ARGS,
           guest_modules=("xhci_pci", "rtl8187"), ifname="wlan0",
           own_qemu=True, native_driver="rtl8187",
           connect_ssid="ndisbench", default=False),
    Device("rtl8139", "QEMU's stock RTL8139 on -netdev user, wrapped: our "
           "rtl8139nd.sys (NDIS 5.1, port I/O) in ndiswrapper",
           wrapper="ndiswrapper", qemu_args=RTL8139_ARGS, ifname="eth0",
           fixture="rtl8139nd", unbind="10ec:8139", native_first="8139cp"),
    # QEMU's rtl8139 is revision 0x20, an RTL8139C+: 8139too refuses it
    # ("an enhanced 8139C+ chip, use 8139cp"), 8139cp drives it.
    Device("rtl8139", "the same RTL8139 driven by Linux's in-tree 8139cp: "
           "the reference (Debian's kernels; the source kernels have no "
           "8139cp)", wrapper="native", qemu_args=RTL8139_ARGS,
           guest_modules=("8139cp",), ifname="eth0",
           native_driver="8139cp", kernel_sources=("debian",)),
    Device("planted", "no device: a module with four deliberate bugs "
           "(guest/plant/); the debug kernel's checkers must report each",
           default=False),
)
DEVICES: Dict[str, Device] = {d.label: d for d in TARGETS}
NAMES = tuple(dict.fromkeys(d.name for d in TARGETS))


def select(names: Optional[List[str]],
           wrappers: Optional[List[str]] = None) -> List[Device]:
    """Devices by name (a name selects all its wrappers; `name/wrapper`
    one of them), narrowed to the given wrappers (devices without a
    wrapper stay when named explicitly)."""
    bad = [n for n in names or [] if n not in NAMES and n not in DEVICES]
    if bad:
        known = list(NAMES) + [d.label for d in TARGETS if d.wrapper]
        raise BenchError(f"unknown device(s) {', '.join(bad)} (known: "
                         f"{', '.join(known)})")
    bad = [w for w in wrappers or [] if w not in WRAPPERS]
    if bad:
        raise BenchError(f"unknown wrapper(s) {', '.join(bad)} (known: "
                         f"{', '.join(WRAPPERS)})")
    if names:
        chosen = [d for d in TARGETS if d.name in names or d.label in names]
    else:
        chosen = [d for d in TARGETS if d.default]
    if wrappers:
        chosen = [d for d in chosen if d.wrapper in wrappers or
                  (not d.wrapper and names and d.name in names)]
    if not chosen:
        raise BenchError("no device is driven by the selected wrapper(s)")
    return chosen
