"""run --driver PATH.inf (scripts/ndisbench_lib/userdriver.py): a user's
.inf mapped to the QEMU NIC its hardware id names, the .sys beside it
checked, one clear line for every bad input; and the wired rows it joins
(the rtl8139 fixture and its 8139cp reference). Both files are read by
the wrapper's own loader (`ndisconf --describe`, build/hosttool.py): the
messages about their contents are the loader's."""
import dataclasses
import pathlib
import resource
import tempfile
import unittest

from helpers import REPO
from peimage import AMD64, I386, pe_image
from ndisbench_lib import devices, kernels, userdriver
from ndisbench_lib.build import hosttool
from ndisbench_lib.commands import cli
from ndisbench_lib.checks import registry
from ndisbench_lib import cell
from ndisbench_lib.cell import runner
from ndisbench_lib.errors import BenchError

EXP = kernels.load_expectations()
# The caps of the wrapper's .inf parser (wrapper/loader/inf.h), the one
# place they are kept: these tests only name them.
INF_MAX_FILE_SIZE = 8 << 20
INF_MAX_HWIDS = 8192
FIXTURE_INF = REPO / "fixtures/drivers/rtl8139nd/rtl8139nd.inf"

INF = """[Version]
Signature = "$Windows NT$"
Class = Net

[Manufacturer]
%Vendor% = Models, NTamd64

[Models.NTamd64]
%Desc% = Install.ndi, {hwid}

[Install.ndi.NTamd64]
CopyFiles = Install.Files ; the driver

[Install.Files]
{sys},,,2

[Strings]
Vendor = "someone"
Desc = "a NIC"
"""

# The same with models for both architectures (one .sys name for both, as
# a driver package's per-architecture folders have it).
INF_BOTH = INF.replace("Models, NTamd64", "Models, NTamd64, NTx86") + \
    "\n[Models.NTx86]\n%Desc% = Install.ndi, {hwid}\n" \
    "\n[Install.ndi.NTx86]\nCopyFiles = Install.Files\n"


class UserDriverTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def driver(self, hwid: str, sys: str = "nic.sys", text: str = INF,
               sys_bytes: bytes = None, name: str = "MyNic.inf",
               encoding: str = "utf-8") -> pathlib.Path:
        inf = self.dir / name
        body = text.format(hwid=hwid, sys=sys)
        inf.write_bytes(b"\xff\xfe" + body.encode("utf-16-le")
                        if encoding == "utf-16" else body.encode())
        if sys_bytes is not False:
            (self.dir / sys.upper()).write_bytes(
                sys_bytes if sys_bytes is not None else pe_image())
        return inf

    # ---- the mapping ----

    def test_an_id_two_models_answer_to_stays_with_the_first(self):
        """A later model with an id an earlier one answers to (a subtype
        with its own default id) leaves that id's NIC as it was."""
        bcm = devices.MODEL["bcm43xx"]
        subtype = dataclasses.replace(bcm, qemu="bcm4311", row="bcm4311",
                                      ids=("14e4:4311",))
        nics = userdriver.nics((bcm, subtype))
        self.assertEqual(sorted(nics), [("pci", "14e4", i) for i in
                                        ("4311", "4312", "4318", "4320")])
        nic = nics[("pci", "14e4", "4311")]
        self.assertEqual(nic.name, "bcm43xx")
        self.assertTrue(any(a.startswith("bcm43xx,device-id=0x4311")
                            for a in nic.qemu_args), nic.qemu_args)
        self.assertEqual(userdriver.nics(devices.MODELS), userdriver.NICS)

    def test_each_emulated_id_gets_its_nic(self):
        table = {
            r"PCI\VEN_10EC&DEV_8139": ("rtl8139", "rtl8139,", "10ec:8139",
                                       "eth0"),
            r"PCI\VEN_1022&DEV_2000&SUBSYS_20001022": ("pcnet", "pcnet,",
                                                       "1022:2000", "eth0"),
            r"PCI\VEN_8086&DEV_100E": ("e1000", "e1000,", "8086:100e",
                                       "eth0"),
            r"pci\ven_10ec&dev_8029": ("ne2k_pci", "ne2k_pci,", "10ec:8029",
                                       "eth0"),
            r"PCI\VEN_14E4&DEV_4318": ("bcm43xx", "bcm43xx,air=air0", "",
                                       "wlan0"),
            r"PCI\VEN_14E4&DEV_4311": ("bcm43xx", "bcm43xx,device-id=0x4311",
                                       "", "wlan0"),
            r"USB\VID_0BDA&PID_8187": ("rtl8187", "usb-rtl8187,", "",
                                       "wlan0"),
            # NetKVM's NDIS 5 .inf: the legacy (transitional) virtio-net id
            r"PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4": (
                "virtio-net", "virtio-net-pci,", "1af4:1000", "eth0"),
        }
        for hwid, (nic, arg, unbind, ifname) in table.items():
            with self.subTest(hwid=hwid):
                row = userdriver.device(self.driver(hwid))
                self.assertEqual(row.name, f"mynic@{nic}")
                self.assertEqual(row.wrapper, "ndiswrapper")
                self.assertTrue(any(a.startswith(arg) for a in row.qemu_args),
                                row.qemu_args)
                self.assertEqual(row.unbind, unbind)
                self.assertEqual(row.ifname, ifname)
                self.assertEqual(row.fixture, "mynic")
                self.assertEqual(row.sys_name, "nic.sys")
                self.assertEqual([g for g, _ in row.driver_files],
                                 ["MyNic.inf", "nic.sys"])

    def test_wlan_rows_run_on_our_qemu_and_join(self):
        usb = userdriver.device(self.driver(r"USB\VID_0BDA&PID_8187"))
        self.assertTrue(usb.own_qemu)
        self.assertEqual(usb.usb_id, "0bda:8187")
        self.assertEqual(usb.guest_modules, ("xhci_pci",))
        self.assertEqual(usb.connect_ssid, "ndisbench")
        self.assertEqual(usb.like, "rtl8187/ndiswrapper")
        wired = userdriver.device(self.driver(r"PCI\VEN_1022&DEV_2000"))
        self.assertFalse(wired.own_qemu)
        self.assertEqual(wired.like, "rtl8139/ndiswrapper")

    def test_first_emulated_id_wins(self):
        text = INF.replace("{hwid}", r"PCI\VEN_1234&DEV_0001, "
                           r"PCI\VEN_8086&DEV_100E")
        row = userdriver.device(self.driver("", text=text))
        self.assertEqual(row.name, "mynic@e1000")

    def test_utf16_inf_and_source_disks_files(self):
        text = INF.replace("CopyFiles = Install.Files ; the driver", "") + \
            "\n[SourceDisksFiles]\nnic.sys = 1,,\n"
        row = userdriver.device(self.driver(r"PCI\VEN_10EC&DEV_8139",
                                            text=text, encoding="utf-16"))
        self.assertEqual(row.sys_name, "nic.sys")

    def test_the_fixture_and_its_reference(self):
        row = userdriver.device(FIXTURE_INF.parent / "rtl8139nd.inf") \
            if (FIXTURE_INF.parent / "rtl8139nd.sys").exists() else None
        if row is None:     # the source folder has no .sys: copy it with one
            inf = self.dir / "rtl8139nd.inf"
            inf.write_bytes(FIXTURE_INF.read_bytes())
            (self.dir / "rtl8139nd.sys").write_bytes(pe_image())
            row = userdriver.device(inf)
        self.assertEqual(row.name, "rtl8139nd@rtl8139")
        self.assertEqual(row.unbind, "10ec:8139")
        self.assertEqual(userdriver.reference(row).label, "rtl8139/native")
        pcnet = userdriver.device(self.driver(r"PCI\VEN_1022&DEV_2000"))
        self.assertIsNone(userdriver.reference(pcnet))
        e1000 = userdriver.device(self.driver(r"PCI\VEN_8086&DEV_100E"))
        self.assertEqual(userdriver.reference(e1000).label, "e1000")

    def test_its_checks_and_what_the_agent_is_told(self):
        row = userdriver.device(self.driver(r"PCI\VEN_10EC&DEV_8139"))
        self.assertEqual(registry.for_device(row, list(userdriver.CHECKS)),
                         list(userdriver.CHECKS))
        plan = cell.plan.CellPlan(kernels.load_kernels(exp=EXP)[0], row,
                                  tuple(userdriver.CHECKS), EXP)
        words = cell.compose.kernel_cmdline(plan, {"tcp": 4000}).split()
        self.assertIn("ndisbench.install=/lib/ndisbench/fixtures/mynic/"
                      "MyNic.inf", words)
        self.assertIn("ndisbench.unbind=10ec:8139", words)
        self.assertIn("ndisbench.net=eth0", words)
        self.assertIn("ndisbench.load=ndiswrapper", words)

    # ---- bad input: one line naming the cause ----

    def assertRefused(self, inf: pathlib.Path, pattern: str):
        with self.assertRaisesRegex(BenchError, pattern) as ctx:
            userdriver.device(inf)
        self.assertNotIn("\n", str(ctx.exception))
        self.assertIn(str(inf), str(ctx.exception))

    def test_no_id_the_bench_can_emulate(self):
        self.assertRefused(self.driver(r"PCI\VEN_1234&DEV_5678"),
                           r"no hardware id the bench can emulate "
                           r"\(pci:1234:5678; known: .*10ec:8139 \(rtl8139\)")

    def test_no_hardware_id_at_all(self):
        self.assertRefused(self.driver(r"ROOT\SOMETHING"),
                           r"MyNic\.inf:\d+: no PCI or USB hardware ids in "
                           r"the models sections$")

    def test_no_manufacturer(self):
        self.assertRefused(self.driver("", text="[Version]\nClass=Net\n"),
                           r"no \[Manufacturer\] section")

    def test_sys_missing(self):
        self.assertRefused(self.driver(r"PCI\VEN_10EC&DEV_8139",
                                       sys_bytes=False),
                           "driver file nic.sys is not beside it")

    def test_no_sys_named(self):
        text = INF.replace("{sys},,,2", "readme.txt")
        self.assertRefused(self.driver(r"PCI\VEN_10EC&DEV_8139", text=text),
                           r"MyNic\.inf:\d+: no \.sys file for install "
                           r"section \[Install\.ndi\.NTamd64\] \(no "
                           r"ServiceBinary in \[Install\.ndi\.NTamd64"
                           r"\.Services\], no \.sys in CopyFiles or "
                           r"SourceDisksFiles\)$")

    def test_malformed_sys(self):
        cases = {b"garbage" * 20: "not a PE file: no 'MZ' signature$",
                 b"MZ" + b"\0" * 0x100: r"not a PE file: no 'PE\\0\\0' "
                                         r"signature at 0x0 ",
                 pe_image(machine=I386): r"not an amd64 PE32\+ driver "
                                         r"\(machine 0x014c, PE32\); the "
                                         r"wrapper loads x86-64 drivers$",
                 pe_image(subsystem=2): r"subsystem 2 \(Windows GUI\) is "
                                        r"not native \(1\): not a "
                                        r"kernel-mode driver$"}
        for data, pattern in cases.items():
            with self.subTest(pattern=pattern):
                inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=data)
                with self.assertRaisesRegex(BenchError, pattern) as ctx:
                    userdriver.device(inf)
                self.assertTrue(str(ctx.exception).startswith(
                    f"{self.dir / 'NIC.SYS'}: "), str(ctx.exception))
                self.assertNotIn("\n", str(ctx.exception))

    def test_the_whole_image_is_checked(self):
        """The loader's checks, not the headers alone: an import table the
        wrapper would refuse is refused before a guest boots."""
        data = bytearray(pe_image())
        data[0x400 + 12:0x400 + 16] = (0x7000).to_bytes(4, "little")
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=bytes(data))
        with self.assertRaisesRegex(BenchError, r"NIC\.SYS: import "
                                    r"descriptor 0: DLL name at RVA 0x7000 "
                                    r"missing, unterminated or not "
                                    r"printable$"):
            userdriver.device(inf)

    # ---- what the user brought: one line each, before any guest boots ----

    def refusal(self, data: bytes, **kwargs) -> str:
        """The one line device() refuses NIC.SYS with."""
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=data,
                          text=kwargs.pop("text", INF))
        with self.assertRaises(BenchError) as ctx:
            userdriver.device(inf, **kwargs)
        line = str(ctx.exception)
        self.assertNotIn("\n", line)
        prefix = f"{self.dir / 'NIC.SYS'}: "
        self.assertTrue(line.startswith(prefix), line)
        return line[len(prefix):]

    def test_an_ndis6_miniport_is_named(self):
        """The NDIS 6 imports it has, in import order, as the installer
        says them (ndisconf --describe's ndis6_line)."""
        img = pe_image(imports={
            "ntoskrnl.exe": ["KeSetEvent"],
            "NDIS.SYS": ["NdisMRegisterMiniportDriver", "NdisMSleep",
                         "NdisAllocateNetBufferListPool",
                         "NdisMOidRequestComplete"]})
        self.assertEqual(self.refusal(img),
                         "an NDIS 6 miniport (imports "
                         "NdisMRegisterMiniportDriver, "
                         "NdisAllocateNetBufferListPool, "
                         "NdisMOidRequestComplete); NDIS wrappers load "
                         "NDIS 5.x miniports")
        # any NDIS wrapper: a --wrapper-src tree's too
        self.assertEqual(self.refusal(img, own_wrapper=False),
                         "an NDIS 6 miniport (imports "
                         "NdisMRegisterMiniportDriver, "
                         "NdisAllocateNetBufferListPool, "
                         "NdisMOidRequestComplete); NDIS wrappers load "
                         "NDIS 5.x miniports")

    def test_unknown_imports_are_named_all_at_once(self):
        img = pe_image(imports={
            "ntoskrnl.exe": ["KeSetEvent", "KeBugCheckEx"],
            "NDIS.SYS": ["NdisMSleep", "NdisBogusFunction"],
            "WDFLDR.SYS": ["WdfVersionBind"]})
        self.assertEqual(self.refusal(img),
                         "imports 3 functions this wrapper does not "
                         "provide: ntoskrnl.exe!KeBugCheckEx, "
                         "NDIS.SYS!NdisBogusFunction, "
                         "WDFLDR.SYS!WdfVersionBind")
        img = pe_image(imports={"ntoskrnl.exe": ["KeBugCheckEx"]})
        self.assertEqual(self.refusal(img),
                         "imports 1 function this wrapper does not provide: "
                         "ntoskrnl.exe!KeBugCheckEx")
        # the export tables are this tree's module's: a --wrapper-src
        # tree's module may have them, its own load says
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=img)
        row = userdriver.device(inf, own_wrapper=False)
        self.assertEqual(row.sys_name, "nic.sys")

    def test_the_guest_arch_decides_the_machine(self):
        """An i386 kernel's guest loads PE32 (i386) drivers from the
        .inf's NTx86 models; an amd64 one PE32+ from NTamd64."""
        both = INF_BOTH
        i386 = pe_image(machine=I386)
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=i386,
                          text=both)
        row = userdriver.device(inf, guests={"i386": ["debian-6.1-686"]})
        self.assertEqual(row.name, "mynic@rtl8139")
        self.assertEqual([g for g, _ in row.driver_files],
                         ["MyNic.inf", "nic.sys"])
        self.assertEqual(
            self.refusal(pe_image(machine=AMD64), text=both,
                         guests={"i386": ["debian-6.1-686",
                                          "src-6.1-i386"]}),
            "not an i386 PE32 driver (machine 0x8664, PE32+); the wrapper "
            "loads i386 drivers in an i386 guest (kernels debian-6.1-686, "
            "src-6.1-i386)")
        # a mixed --kernel list: one .sys suits one architecture only
        self.assertEqual(
            self.refusal(i386, text=both,
                         guests={"amd64": ["debian-6.1"],
                                 "i386": ["debian-6.1-686"]}),
            "not an amd64 PE32+ driver (machine 0x014c, PE32); the wrapper "
            "loads x86-64 drivers (kernel debian-6.1)")
        # an .inf without models for the guest's architecture
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139")
        with self.assertRaisesRegex(
                BenchError, r"/MyNic\.inf:\d+: no models for NTx86 \(this "
                r"i386 wrapper\), only for NTamd64 \(a 64-bit x86_64 "
                r"driver\) \(kernel debian-6\.1-686\)$"):
            userdriver.device(inf, guests={"i386": ["debian-6.1-686"]})

    def test_run_driver_checks_it_for_the_kernels_it_runs_on(self):
        """run --driver refuses before any build or boot, for the guest
        architectures of its --kernel list, and with --wrapper-src does
        not judge by this tree's export tables."""
        img = pe_image(imports={"ntoskrnl.exe": ["KeBugCheckEx"]})
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", sys_bytes=img,
                          text=INF_BOTH)
        args = cli.parser().parse_args(
            ["run", "--driver", str(inf), "--kernel",
             "debian-6.1,debian-6.1-686"])
        with self.assertRaisesRegex(
                BenchError, r"NIC\.SYS: imports 1 function this wrapper "
                r"does not provide: ntoskrnl\.exe!KeBugCheckEx$"):
            cli._matrix(args)
        tree = self.dir / "tree"      # the classic layout, as checked
        for need in ("driver/Makefile", "utils/Makefile"):
            (tree / need).parent.mkdir(parents=True, exist_ok=True)
            (tree / need).write_text("all:\n")
        args = cli.parser().parse_args(
            ["run", "--driver", str(inf), "--kernel",
             "debian-6.1,debian-6.1-686", "--wrapper-src", str(tree)])
        with self.assertRaisesRegex(
                BenchError, r"NIC\.SYS: not an i386 PE32 driver \(machine "
                r"0x8664, PE32\+\); the wrapper loads i386 drivers in an "
                r"i386 guest \(kernel debian-6\.1-686\)$"):
            cli._matrix(args)

    # ---- hostile .inf files: caps as the wrapper's own parser has ----

    def test_many_manufacturers_of_one_models_section_are_linear(self):
        # The review's 82 KB file: every [Manufacturer] line names the
        # same models section, whose every line names the same id.
        text = INF.replace("%Vendor% = Models, NTamd64",
                           "\n".join(["%Vendor% = Models, NTamd64"] * 2500))
        text = text.replace("%Desc% = Install.ndi, {hwid}",
                            "\n".join(["%Desc% = Install.ndi, {hwid}"] *
                                      1200))
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", text=text)
        self.assertGreater(inf.stat().st_size, 80_000)
        hosttool.ndisconf()     # built before the clock starts
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        row = userdriver.device(inf)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the reading is ndisconf's: its CPU time, not this process's
        self.assertLess(after.ru_utime + after.ru_stime -
                        before.ru_utime - before.ru_stime, 2.0)
        self.assertEqual(row.name, "mynic@rtl8139")
        self.assertEqual(len(hosttool.describe(inf)["ids"]), 1)

    def test_the_models_walk_is_linear_in_the_file(self):
        """The wrapper's parser reads each models section once however
        many [Manufacturer] lines name it: 20 000 x 20 000 lines would be
        400 million visits otherwise."""
        text = INF.replace("%Vendor% = Models, NTamd64",
                           "\n".join(["%Vendor% = Models, NTamd64"] *
                                     20_000))
        text = text.replace("%Desc% = Install.ndi, {hwid}",
                            "\n".join(["%Desc% = Install.ndi, {hwid}"] *
                                      20_000))
        inf = self.driver(r"PCI\VEN_10EC&DEV_8139", text=text)
        hosttool.ndisconf()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.assertEqual(userdriver.device(inf).name, "mynic@rtl8139")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.assertLess(after.ru_utime + after.ru_stime -
                        before.ru_utime - before.ru_stime, 2.0)

    def test_more_hardware_ids_than_the_wrapper_takes(self):
        ids = "\n".join(f"%Desc% = Install.ndi, PCI\\VEN_{v:04X}&DEV_0001"
                        for v in range(INF_MAX_HWIDS + 1))
        text = INF.replace("%Desc% = Install.ndi, {hwid}", ids)
        inf = self.driver("", text=text)
        self.assertRefused(inf, r"MyNic\.inf:\d+: more than 8192 hardware "
                                r"ids$")

    def test_a_file_over_the_size_cap_is_not_read(self):
        inf = self.dir / "big.inf"
        with open(inf, "wb") as out:
            out.truncate(INF_MAX_FILE_SIZE + 1)
        self.assertRefused(inf, r"big\.inf: larger than 8 MiB \(8388609 "
                                r"bytes\), the wrapper's limit for an "
                                r"\.inf$")

    def test_string_substitution_is_capped(self):
        long = "x" * 60_000
        per_line = INF.replace('Desc = "a NIC"', f'Desc = "{long}"').replace(
            "%Desc% = Install.ndi, {hwid}",
            "%Desc% = Install.ndi, {hwid}, %Desc%, %Desc%")
        self.assertRefused(self.driver(r"PCI\VEN_10EC&DEV_8139",
                                       text=per_line),
                           r"MyNic\.inf:\d+: line longer than 65536 bytes "
                           r"after %strkey% substitution$")
        lines = "\n".join(["%Desc% = Install.ndi, {hwid}, %Desc%"] * 300)
        # each line under the line cap (the key counts too: 2 x 30 KB),
        # 300 of them over the file's
        half = "x" * 30_000
        whole = INF.replace('Desc = "a NIC"', f'Desc = "{half}"').replace(
            "%Desc% = Install.ndi, {hwid}", lines)
        self.assertRefused(self.driver(r"PCI\VEN_10EC&DEV_8139",
                                       text=whole),
                           r"MyNic\.inf:\d+: more than 16777216 bytes "
                           r"after %strkey% substitution in all$")

    def test_not_an_inf(self):
        self.assertRefused(self.dir / "driver.sys", "takes the driver's .inf")
        self.assertRefused(self.dir / "absent.inf",
                           r"absent\.inf: No such file or directory$")
        self.assertRefused(self.driver("", text="\0\1\2", name="bin.inf"),
                           r"bin\.inf:1: NUL byte in a text file$")


class WiredRowsTest(unittest.TestCase):
    def test_the_fixture_row_and_its_reference(self):
        wrapped = devices.DEVICES["rtl8139/ndiswrapper"]
        native = devices.DEVICES["rtl8139/native"]
        self.assertEqual(wrapped.fixture, "rtl8139nd")
        self.assertEqual(wrapped.unbind, "10ec:8139")
        # QEMU's chip is an RTL8139C+ (revision 0x20): 8139cp's, not 8139too's
        self.assertEqual(native.native_driver, "8139cp")
        self.assertEqual(native.guest_modules, ("8139cp",))
        for row in (wrapped, native):
            self.assertIn("rtl8139,netdev=net0,mac=52:54:00:12:34:59",
                          row.qemu_args)
            # not our models: NDISBENCH_QEMU may run it (our build has it)
            self.assertFalse(row.own_qemu)
        self.assertEqual(registry.for_device(wrapped, registry.names()),
                         ["build", "load", "install", "bind", "dhcp", "ping",
                          "mtu", "tcp", "unload", "sandbox"])
        self.assertEqual(registry.for_device(native, registry.names()),
                         ["build", "bind", "dhcp", "ping", "mtu", "tcp",
                          "sandbox"])

    def test_the_reference_runs_only_where_8139cp_is(self):
        table = {k.name: k for k in kernels.load_kernels(exp=EXP)}
        native = devices.DEVICES["rtl8139/native"]
        wrapped = devices.DEVICES["rtl8139/ndiswrapper"]
        self.assertTrue(runner.runs_on(table["debian-6.1"], native))
        self.assertFalse(runner.runs_on(table["src-6.1"], native))
        self.assertTrue(runner.runs_on(table["src-6.1"], wrapped))

    def test_virtio_net_is_legacy_and_virtio_net_its_reference(self):
        # NetKVM's NDIS 5 miniport drives the legacy virtio interface (the
        # I/O BAR): the device must keep it whatever bus QEMU puts it on,
        # and offer nothing else, as the device NetKVM was written for.
        native = devices.DEVICES["virtio-net/native"]
        self.assertIn("virtio-net-pci,netdev=net0,mac=52:54:00:12:34:5d,"
                      "disable-legacy=off,disable-modern=on,ioeventfd=off",
                      native.qemu_args)
        # the queue notify handled in the vCPU's port write, as NetKVM's
        # NDIS 5 control queue expects (it reads the answer right after
        # the kick); QEMU's ioeventfd would answer later from its main loop
        self.assertIn(",ioeventfd=off", native.qemu_args[
            native.qemu_args.index("-device") + 1])
        self.assertEqual(native.native_driver, "virtio_net")
        # virtio_pci takes the PCI device, virtio_net the virtio one;
        # modprobe's dependencies of virtio_net do not bring virtio_pci
        self.assertEqual(native.guest_modules, ("virtio_pci", "virtio_net"))
        self.assertFalse(native.default)
        self.assertIn("virtio-net/native", devices.WIRED_NATIVE)
        table = {k.name: k for k in kernels.load_kernels(exp=EXP)}
        # the source kernels' config has no virtio
        self.assertTrue(runner.runs_on(table["debian-6.1"], native))
        self.assertFalse(runner.runs_on(table["src-6.1"], native))
        self.assertEqual(registry.for_device(native, registry.names()),
                         ["build", "bind", "dhcp", "ping", "mtu", "tcp",
                          "sandbox"])

    def test_a_netkvm_inf_runs_beside_virtio_net(self):
        with tempfile.TemporaryDirectory() as tmp:
            inf = pathlib.Path(tmp) / "netkvm.inf"
            inf.write_text(INF.format(
                hwid=r"PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4",
                sys="netkvm.sys"))
            (pathlib.Path(tmp) / "netkvm.sys").write_bytes(pe_image())
            row = userdriver.device(inf)
        self.assertEqual(row.name, "netkvm@virtio-net")
        self.assertEqual(row.like, "rtl8139/ndiswrapper")
        self.assertEqual(row.unbind, "1af4:1000")
        self.assertEqual(row.native_first, "")
        self.assertIn("virtio-net-pci,netdev=net0,mac=52:54:00:12:34:5d,"
                      "disable-legacy=off,disable-modern=on,ioeventfd=off",
                      row.qemu_args)
        self.assertEqual(userdriver.reference(row).label,
                         "virtio-net/native")

    def test_bind_names_the_sys(self):
        from helpers import judge
        from ndisbench_lib.report import ktap
        policy = EXP.policies["2.6.25-rc4"]
        log = ktap.parse("\n".join([
            "KTAP version 1", "1..3", "# tainted: 0", "ok 1 boot",
            "# tainted_before: 0", "# tainted_after: 1",
            "ok 2 insmod ndiswrapper",
            "# driver: ndiswrapper", "# fw_version: rtl8139nd.sys",
            "# bus_info: 0000:00:02.0", "# carrier: 1",
            "ok 3 bind eth0"]))
        good = judge("bind", policy, EXP, log, ["ndiswrapper"], 0,
                     fixture="rtl8139nd")
        self.assertTrue(good.ok, good.summary)
        other = judge("bind", policy, EXP, log, ["ndiswrapper"], 0,
                      fixture="mynic", fixture_sys="nic.sys")
        self.assertFalse(other.ok)
        self.assertIn("ethtool does not name nic.sys", other.summary)

    def test_bind_needs_the_unbind_from_the_kernels_driver(self):
        # Where the kernel has 8139cp, the cell loads it first: the wrapper
        # gets the device only through the agent's unbind.
        from helpers import judge
        from ndisbench_lib.report import ktap
        policy = EXP.policies["2.6.25-rc4"]

        def log(unbind):
            return ktap.parse("\n".join([
                "KTAP version 1", "1..3", "# tainted: 0",
                "# dep: 8139cp.ko errno=0", f"# unbind: {unbind}",
                "ok 1 boot", "# tainted_before: 0", "# tainted_after: 1",
                "ok 2 insmod ndiswrapper",
                "# driver: ndiswrapper", "# fw_version: rtl8139nd.sys",
                "# bus_info: 0000:00:01.0", "# carrier: 1",
                "ok 3 bind eth0"]))
        good = judge("bind", policy, EXP, log("0000:00:01.0 from 8139cp"),
                     ["ndiswrapper"], 0, fixture="rtl8139nd",
                     unbinds="8139cp")
        self.assertTrue(good.ok, good.summary)
        self.assertIn("taken from 8139cp", good.summary)
        bad = judge("bind", policy, EXP, log("0000:00:01.0 had no driver"),
                    ["ndiswrapper"], 0, fixture="rtl8139nd",
                    unbinds="8139cp")
        self.assertFalse(bad.ok)
        self.assertIn("not unbound from 8139cp (unbind: 0000:00:01.0 had no "
                      "driver)", bad.summary)
        # a kernel without 8139cp: nothing to take it from
        none = judge("bind", policy, EXP, log("0000:00:01.0 had no driver"),
                     ["ndiswrapper"], 0, fixture="rtl8139nd")
        self.assertTrue(none.ok, none.summary)

    def test_the_wrapped_row_loads_8139cp_where_the_kernel_has_it(self):
        wrapped = devices.DEVICES["rtl8139/ndiswrapper"]
        self.assertEqual(wrapped.native_first, "8139cp")
        self.assertEqual(userdriver.NICS[("pci", "10ec", "8139")]
                         .native_first, "8139cp")


class KernelHasTest(unittest.TestCase):
    def test_module_builtin_or_absent(self):
        from ndisbench_lib.build import modules
        with tempfile.TemporaryDirectory() as tmp:
            moddir = pathlib.Path(tmp)
            (moddir / "modules.dep").write_text(
                "kernel/drivers/net/ethernet/realtek/8139cp.ko.xz: "
                "kernel/drivers/net/mii.ko.xz\n"
                "kernel/drivers/net/mii.ko.xz:\n")
            (moddir / "modules.builtin").write_text(
                "kernel/drivers/net/ethernet/intel/e1000/e1000.ko\n")
            self.assertEqual(modules.kernel_has(moddir, "8139cp"), "module")
            self.assertEqual(modules.kernel_has(moddir, "e1000"), "builtin")
            self.assertEqual(modules.kernel_has(moddir, "8139too"), "")


if __name__ == "__main__":
    unittest.main()
