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
  scans, joins and roams with iwlist and iwconfig. `rtl8187-wext` /
  ndiswrapper is the same for the USB radio, whose fixture does WPA2:
  the WPA2 checks run `wpa_supplicant -Dwext` on it.
- `rtl8187` / native: the same emulated device driven by Linux's in-tree
  rtl8187 (mac80211, connected with `iw`): the independent reference.
- `rtl8139` / ndiswrapper: QEMU's stock RTL8139 on slirp, driven by our
  wired rtl8139nd fixture (port I/O) through the wrapper; `rtl8139` /
  native: the same NIC driven by Linux's 8139cp (QEMU's chip is an
  RTL8139C+, which 8139too refuses), its reference (on the kernels that
  ship 8139cp: Debian's).
- `virtio-net` / native: QEMU's virtio-net as a legacy device driven by
  Linux's virtio_net (Debian's kernels), not in the default matrix: the
  reference of a user's virtio-net driver (NetKVM, docs/netkvm.md).
- A user's driver (`run --driver PATH.inf`, userdriver.py) is a row made
  at run time on the NIC its .inf names, running the checks of the
  matrix row it is `like`.

MODELS is the one table of the QEMU models a guest gets: each row is a
model crossed with a driver (a wrapper, the native driver, a variant),
and every other list of models (the QEMU build test, USB ids, the fuzz
configs, the user-driver NIC map) reads it.
"""
import dataclasses
from typing import Callable, Dict, List, Optional, Tuple

from .guest import air
from .errors import BenchError

WRAPPERS = ("ndiswrapper", "native")


@dataclasses.dataclass(frozen=True)
class Model:
    """One QEMU model the bench puts in a guest (a device, a USB host
    controller, or one of our air objects)."""
    qemu: str               # the -device (-object) type name
    kconfig: str            # the symbol that builds it (ours: qemu-devices/)
    row: str = ""           # the device rows' name ("": rows use none)
    own: bool = False       # ours (qemu-devices/), not stock QEMU
    # "pci", "usb", "usb-host" (a controller a USB model plugs into) or
    # "object" (-object: the air and its access points)
    bus: str = "pci"
    # vvvv:dddd (PCI) or vendor:product (USB) the guest sees; more: ids
    # the model also answers to (its device-id property)
    ids: Tuple[str, ...] = ()
    mac: str = ""           # the rows' -device mac=
    user_mac: str = ""      # a user's driver's row on it, when not mac
    radio: bool = False     # on the air: a WLAN interface (wlan0)
    native: str = ""        # Linux's in-tree driver for it
    native_sources: Tuple[str, ...] = ()   # kernels that have it; (): all
    # in-tree modules its native driver needs first that are not that
    # driver's module dependencies (a bus driver: virtio_pci)
    native_needs: Tuple[str, ...] = ()
    props: str = ""         # more -device properties every row gives it
    host_id: str = ""       # usb-host: its id= (xhci.0 is its bus)
    host_module: str = ""   # usb-host: its guest module on Debian's kernels
    # usb: the host controllers it is fuzzed behind (the first also carries
    # it in the rows)
    hosts: Tuple[str, ...] = ()


# In this order a user's driver's error lists the ids it knows.
MODELS: Tuple[Model, ...] = (
    # QEMU's rtl8139 is revision 0x20, an RTL8139C+: 8139too refuses it
    # ("an enhanced 8139C+ chip, use 8139cp"), 8139cp drives it; only
    # Debian's kernels have 8139cp.
    Model("rtl8139", "RTL8139_PCI", row="rtl8139", ids=("10ec:8139",),
          mac="52:54:00:12:34:59", native="8139cp",
          native_sources=("debian",)),
    # Stock NICs only a user's driver (run --driver) runs on, and the
    # reference NIC (a user's driver on it gets its own MAC).
    Model("pcnet", "PCNET_PCI", row="pcnet", ids=("1022:2000",),
          mac="52:54:00:12:34:5a"),
    Model("e1000", "E1000_PCI", row="e1000", ids=("8086:100e",),
          mac="52:54:00:12:34:56", user_mac="52:54:00:12:34:5b",
          native="e1000"),
    Model("ne2k_pci", "NE2000_PCI", row="ne2k_pci", ids=("10ec:8029",),
          mac="52:54:00:12:34:5c"),
    # virtio-net as a legacy device (1af4:1000, subsystem 1af4:0001, the
    # I/O BAR), the one NetKVM's NDIS 5 miniport drives; legacy kept on
    # whatever bus QEMU puts it, no modern interface. The source kernels
    # have no virtio: the reference runs on Debian's (virtio_pci takes the
    # PCI device, virtio_net the virtio device it makes). ioeventfd=off:
    # a queue notify is served inside the guest's port write, not later
    # from QEMU's main loop (its default even under TCG); NetKVM's NDIS 5
    # control queue reads the device's answer right after the kick.
    Model("virtio-net-pci", "VIRTIO_NET", row="virtio-net",
          ids=("1af4:1000",), mac="52:54:00:12:34:5d",
          props="disable-legacy=off,disable-modern=on,ioeventfd=off",
          native="virtio_net",
          native_sources=("debian",), native_needs=("virtio_pci",)),
    # Our radios; bcm43xx answers to the four ids bcmwl.inf names.
    Model("bcm43xx", "BCM43XX", row="bcm43xx", own=True,
          ids=("14e4:4318", "14e4:4311", "14e4:4312", "14e4:4320"),
          mac="52:54:00:12:34:57", radio=True),
    Model("usb-rtl8187", "USB_RTL8187", row="rtl8187", own=True, bus="usb",
          ids=("0bda:8187",), mac="52:54:00:12:34:58", radio=True,
          native="rtl8187", hosts=("qemu-xhci", "usb-ehci",
                                   "piix3-usb-uhci")),
    # xhci_pci is a module on Debian's kernels (built into the source ones).
    Model("qemu-xhci", "USB_XHCI_PCI", bus="usb-host", host_id="xhci",
          host_module="xhci_pci"),
    Model("usb-ehci", "USB_EHCI_PCI", bus="usb-host", host_id="ehci"),
    Model("piix3-usb-uhci", "USB_UHCI", bus="usb-host", host_id="uhci"),
    Model("wlan-air", "WLAN_AIR", own=True, bus="object"),
    Model("wlan-ap", "WLAN_AP", own=True, bus="object"),
)
MODEL: Dict[str, Model] = {m.qemu: m for m in MODELS}
# Our USB device models, by QEMU driver name: their vendor:product.
USB_IDS = {m.qemu: m.ids[0] for m in MODELS if m.bus == "usb"}
OUR_MODELS = frozenset(m.qemu for m in MODELS if m.own)

# The air (captured to the cell's air.pcap) and its access points, the
# first bridged to the slirp network (air.py).
AIR_ARGS = air.qemu_args()
# The *-faults rows: the same radios on a faulty air (wlan-air's fault
# properties, qemu-devices/README.md): 2% of the frames lost, 1% with bit
# errors (bad FCS), 1% duplicated, 2 to 3 ms of delay, a fixed PRNG seed.
# The driver, the wrapper and TCP must recover; no ping (loss expected).
AIR_FAULTS = ("drop=200,corrupt=100,duplicate=100,delay-us=2000,"
              "jitter-us=1000,seed=1")
FAULTY_AIR_ARGS = tuple(a.replace("wlan-air,id=air0",
                                  "wlan-air,id=air0," + AIR_FAULTS)
                        for a in AIR_ARGS)
SSID = "ndisbench"          # the air's SSID the rows join


def wired_args(model: Model, mac: str = "") -> Tuple[str, ...]:
    """A stock Ethernet NIC on the slirp network."""
    props = f",{model.props}" if model.props else ""
    return ("-netdev", "user,id=net0", "-device",
            f"{model.qemu},netdev=net0,mac={mac or model.mac}{props}")


def usb_device(model: Model) -> str:
    """The USB model's -device text on its first host controller, with the
    id the hotplug check removes and re-adds it by."""
    host = MODEL[model.hosts[0]]
    return (f"{model.qemu},id=wlan0,bus={host.host_id}.0,air=air0,"
            f"mac={model.mac}")


def model_args(model: Model, faulty_air: bool = False) -> Tuple[str, ...]:
    """The QEMU arguments of a guest with this model (its air, slirp, its
    host controller)."""
    if not model.radio:
        return wired_args(model)
    args = FAULTY_AIR_ARGS if faulty_air else AIR_ARGS
    if model.bus == "usb":
        host = MODEL[model.hosts[0]]
        return args + ("-device", f"{host.qemu},id={host.host_id}",
                       "-device", usb_device(model))
    return args + ("-device", f"{model.qemu},air=air0,mac={model.mac}")


def guest_modules(model: Model, native: bool) -> Tuple[str, ...]:
    """The in-tree modules a guest loads for the model: its USB host
    controller's, and its own driver when that drives it."""
    hosts = [MODEL[model.hosts[0]].host_module] if model.hosts else []
    own = [*model.native_needs, model.native] if native else []
    return tuple(m for m in hosts + own if m)


# The fuzzing QEMU's air (build/qemu_fuzz.py): one access point on slirp,
# as the bench's WLAN rows have (the AP answers the radio's probe requests
# and authentication, and beacons on the virtual clock that generic-fuzz
# steps).
FUZZ_AIR = ("-object wlan-air,id=air0 -netdev user,id=net0 "
            "-object wlan-ap,id=ap0,air=air0,netdev=net0")


@dataclasses.dataclass(frozen=True)
class FuzzSetup:
    """One of our models as QEMU's generic-fuzz drives it: the machine
    (QEMU_FUZZ_ARGS) and the QOM types and memory regions it writes
    (QEMU_FUZZ_OBJECTS globs); usb: behind a host controller."""
    name: str
    args: str
    objects: str
    usb: bool = False


def fuzz_setups() -> Tuple[FuzzSetup, ...]:
    """Our PCI models on q35 each, our USB models behind each of their host
    controllers. A USB model has no memory region of its own: the fuzzer
    drives the controller's registers, and the controller's DMA
    (descriptors, TDs, TRBs, buffers) reads what the fuzzer puts there, so
    the model sees every kind of control, bulk IN and bulk OUT transfer."""
    out = []
    machine = f"-M q35 -nodefaults {FUZZ_AIR}"
    for m in MODELS:
        if m.own and m.bus == "pci":
            out.append(FuzzSetup(f"qemu-{m.row}",
                                 f"{machine} -device {m.qemu},air=air0",
                                 m.qemu))
        for host in (MODEL[h] for h in m.hosts if m.own):
            out.append(FuzzSetup(
                f"qemu-{m.row}-{host.host_id}",
                f"{machine} -device {host.qemu},id={host.host_id} "
                f"-device {m.qemu},bus={host.host_id}.0,air=air0",
                f"*{host.host_id}* {m.qemu}", usb=True))
    return tuple(out)


# The variants of a row beyond its model and driver: "wext" (no cfg80211
# wiphy), the recovery rows "faults" (a faulty air), "hang" and "serial"
# (fixture variants), the send-rule rows "resources", "txlost" and
# "offload" (rtl8139nd knobs).
RECOVERY = ("faults", "hang", "serial")
SEND_RULE_VARIANTS = ("resources", "txlost", "offload")
WEXT_ROW = "bcm43xx-wext/ndiswrapper"


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
    model: str = ""                         # MODELS' qemu name, or ""
    # "", or wext, RECOVERY, SEND_RULE_VARIANTS
    variant: str = ""

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


def row(model: str, wrapper: str, description: str, variant: str = "",
        fixture: str = "", default: bool = True,
        module_params: Tuple[str, ...] = ()) -> Device:
    """A matrix row: the model driven by the wrapper (or by its own driver:
    "native", or "" for a reference NIC), every other field following from
    the model and the variant."""
    m = MODEL[model]
    clean = variant in ("", "wext")
    native = wrapper in ("native", "")
    wrapped_stock = wrapper == "ndiswrapper" and not m.own
    return Device(
        m.row + (f"-{variant}" if variant else ""),
        description, wrapper=wrapper,
        qemu_args=model_args(m, faulty_air=variant == "faults"),
        guest_modules=guest_modules(m, native), own_qemu=m.own,
        ifname="wlan0" if m.radio else "eth0", fixture=fixture,
        native_driver=m.native if wrapper == "native" else "",
        connect_ssid=SSID if m.radio and (clean or native) else "",
        hotplug=usb_device(m) if m.bus == "usb" and clean else "",
        default=default, unbind=m.ids[0] if wrapped_stock else "",
        native_first=m.native if wrapped_stock else "",
        kernel_sources=m.native_sources if wrapper == "native" else (),
        module_params=module_params, model=m.qemu, variant=variant)


TARGETS: Tuple[Device, ...] = (
    Device("none", "no network device: module load and taint checks"),
    row("e1000", "", "QEMU e1000 on -netdev user (slirp): reference NIC"),
    row("bcm43xx", "ndiswrapper", "our PCI WLAN model + AP on the air, "
        "wrapped: bcmwl.sys in ndiswrapper", fixture="bcmwl"),
    row("bcm43xx", "ndiswrapper", "bcm43xx/ndiswrapper without a cfg80211 "
        "wiphy (ndiswrapper.wiphy=0): the wrapper's own wireless "
        "extensions, driven with iwlist and iwconfig", variant="wext",
        fixture="bcmwl", default=False,
        module_params=("ndiswrapper.wiphy=0",)),
    row("usb-rtl8187", "ndiswrapper", "our USB WLAN model on xHCI + AP, "
        "wrapped: rtlwl.sys (NDIS-WDM) in ndiswrapper", fixture="rtlwl"),
    row("usb-rtl8187", "ndiswrapper", "rtl8187/ndiswrapper without a "
        "cfg80211 wiphy (ndiswrapper.wiphy=0): the wrapper's own wireless "
        "extensions (iwconfig, wpa_supplicant -Dwext)", variant="wext",
        fixture="rtlwl", default=False,
        module_params=("ndiswrapper.wiphy=0",)),
    row("usb-rtl8187", "native", "the same USB WLAN model driven by "
        "Linux's in-tree rtl8187 (mac80211, iw connect): the reference"),
    row("bcm43xx", "ndiswrapper", "bcm43xx/ndiswrapper on a faulty air "
        "(lost, corrupted, duplicated, delayed frames)", variant="faults",
        fixture="bcmwl", default=False),
    row("bcm43xx", "ndiswrapper", "bcm43xx/ndiswrapper with bcmwl.sys's TX "
        "hanging once (its INF's HangTxAfter): CheckForHang and Reset must "
        "bring it back", variant="hang", fixture="bcmwlhang", default=False),
    row("bcm43xx", "ndiswrapper", "bcm43xx/ndiswrapper with bcmwl.sys as a "
        "serialized miniport answering sends NDIS_STATUS_RESOURCES (its "
        "INF's Serialized): the wrapper queues them again", variant="serial",
        fixture="bcmwlserial", default=False),
    row("usb-rtl8187", "ndiswrapper", "rtl8187/ndiswrapper on a faulty air",
        variant="faults", fixture="rtlwl", default=False),
    row("usb-rtl8187", "native", "rtl8187/native on a faulty air",
        variant="faults", default=False),
    row("rtl8139", "ndiswrapper", "QEMU's stock RTL8139 on -netdev user, "
        "wrapped: our rtl8139nd.sys (NDIS 5.1, port I/O) in ndiswrapper",
        fixture="rtl8139nd"),
    row("rtl8139", "native", "the same RTL8139 driven by Linux's in-tree "
        "8139cp: the reference (Debian's kernels; the source kernels have "
        "no 8139cp)"),
    row("rtl8139", "ndiswrapper", "rtl8139/ndiswrapper with rtl8139nd.sys as "
        "a serialized miniport answering NDIS_STATUS_RESOURCES, also with "
        "nothing in flight, and never calling NdisMSendResourcesAvailable "
        "(its INF's SendResources): the wrapper must send the held packets "
        "again on its own", variant="resources", fixture="rtl8139ndres"),
    row("rtl8139", "ndiswrapper", "rtl8139/ndiswrapper with rtl8139nd.sys "
        "keeping one send, and the sends behind it, uncompleted until a "
        "reset (its INF's LoseSendAfter): the wrapper's transmit watchdog "
        "must reset it",
        variant="txlost", fixture="rtl8139ndlost"),
    row("rtl8139", "ndiswrapper", "rtl8139/ndiswrapper with rtl8139nd.sys "
        "offering IPv4 transmit checksum offload (its INF's TaskOffload) and "
        "checking each send's TcpIpChecksumPacketInfo against what was set",
        variant="offload", fixture="rtl8139ndoffload"),
    row("virtio-net-pci", "native", "QEMU's virtio-net (legacy) driven by "
        "Linux's in-tree virtio_net: the reference of a user's NetKVM "
        "(run --driver; Debian's kernels, the source kernels have no "
        "virtio)", default=False),
)


def group(test: Callable[[Device], bool]) -> Tuple[str, ...]:
    """The labels of the rows a predicate holds for, in matrix order."""
    return tuple(d.label for d in TARGETS if test(d))


def _radio(d: Device) -> bool:
    return bool(d.model) and MODEL[d.model].radio


# The rows by what they are, for the checks' `devices` (membership only).
# A new row joins the groups its model and variant put it in.
BARE = group(lambda d: not d.model)     # no network device
REFERENCE_NIC = group(lambda d: bool(d.model) and not d.wrapper)
# Our radios on the air, our fixture drivers in ndiswrapper: they join
# with `iw connect` through the wrapper's cfg80211 (bcm43xx-wext: with
# iwconfig through the wrapper's own wireless extensions) and run the same
# scan and roam checks as the native driver.
WRAPPED = group(lambda d: _radio(d) and d.wrapper == "ndiswrapper" and
                d.variant in ("", "wext"))
NATIVE = group(lambda d: _radio(d) and d.wrapper == "native" and
               not d.variant)               # Linux's own driver: reference
RADIOS = WRAPPED + NATIVE
UNPLUGGABLE = group(lambda d: bool(d.hotplug))          # USB: hotplug
# A fixture that hangs once (bcmwl.sys as bcmwlhang, its INF's HangTxAfter
# knob): the wrapper's CheckForHang and Reset must bring it back.
HUNG = group(lambda d: d.variant == "hang")
# bcmwl.sys as a serialized miniport (bcmwlserial, its INF's Serialized
# knob) that answers sends NDIS_STATUS_RESOURCES: the wrapper must queue
# them again.
SERIAL = group(lambda d: d.variant == "serial")
# The same radios on a faulty air, and the two fixture variants above: the
# driver, the wrapper and TCP must recover (no ping: loss is expected).
FAULTY_WRAPPED = group(lambda d: d.variant in RECOVERY and
                       d.wrapper == "ndiswrapper")
FAULTY = group(lambda d: d.variant in RECOVERY)
# rtl8139nd.sys with a send-rule knob: a serialized miniport that answers
# NDIS_STATUS_RESOURCES and never says when to send again (the wrapper's
# retry timer must), one that keeps a send until a reset (the wrapper's
# transmit watchdog must reset it), and one offering checksum offload (the
# wrapper must set it and ask it per packet, as the driver allows). Each
# runs its own check over the tcp stream, not the wired rows' whole set.
RESOURCES = group(lambda d: d.variant == "resources")
TXLOST = group(lambda d: d.variant == "txlost")
OFFLOAD = group(lambda d: d.variant == "offload")
SEND_RULES = group(lambda d: d.variant in SEND_RULE_VARIANTS)
# Stock QEMU Ethernet NICs with a Windows driver in the wrapper (the kernel
# driver for the NIC unbound first) and their in-tree references.
WIRED_WRAPPED = group(lambda d: bool(d.model) and not _radio(d) and
                      d.wrapper == "ndiswrapper" and not d.variant)
WIRED_NATIVE = group(lambda d: bool(d.model) and not _radio(d) and
                     d.wrapper == "native" and not d.variant)
WIRED = WIRED_WRAPPED + WIRED_NATIVE
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
