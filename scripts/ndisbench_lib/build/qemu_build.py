"""QEMU with our device models: Debian's qemu source package (7.2 with
Debian's patches) in a persistent build tree, qemu-devices/ linked in as
hw/ndisbench.

The tree lives in <cache>/trees/<key>/ (key: source version, configure
arguments, compiler) and is never rebuilt from scratch once configured. It
is shared by every clone on the machine (CI runs in a fresh clone each
time): under the tree's lock, hw/ndisbench and the qtest links are pointed
at the calling clone and ninja rebuilds what differs, so after a device .c
edit it recompiles that file and relinks (seconds). Each binary is
published as <cache>/qemu/<key>/ keyed by the tree and the contents of
qemu-devices/, so an unchanged device folder costs nothing at all.
"""
import fcntl
import json
import os
import pathlib
import re
import shutil
from typing import Dict, List, Optional, Sequence, Tuple

from .. import paths
from .cache import (COMPLETE, Cache, WorkTree, compiler_id, digest_inputs,
                    file_digest, tree_digest)
from ..errors import BenchError
from ..progress import Step, say
from ..proc import capture, run_logged

PACKAGE = "qemu"
TARGET = "qemu-system-x86_64"
# hw/<SUBDIR> in the tree, configs/devices/x86_64-softmmu/<SUBDIR>.mak
SUBDIR = "ndisbench"
BUILD_TIMEOUT = 3 * 3600.0
KEEP_BINARIES = 4               # published binaries kept per tree
FIRMWARE_DIRS = ("/usr/share/seabios", "/usr/share/qemu",
                 "/usr/lib/ipxe/qemu")

CONFIGURE_ARGS = (
    "--target-list=x86_64-softmmu",
    "--without-default-features",
    "--without-default-devices",
    f"--with-devices-x86_64={SUBDIR}",
    "--enable-slirp",
    "--enable-kvm",
    "--enable-seccomp",         # -sandbox (guest/sandbox.py)
    "--enable-nettle",          # qcrypto_pbkdf2 etc. (qemu-devices/wlan-rsn.c)
    "--disable-docs",
    "--disable-werror",
    "--with-git-submodules=ignore",
)

# Devices every bench guest may use besides ours. --without-default-devices
# turns every `imply` off, so the machines' own needs are listed too.
BASE_DEVICES = (
    "I440FX", "Q35",            # -M pc, -M q35
    "PARALLEL",                 # pc/q35 always create an LPT port
    "SERIAL_ISA",               # the guest console
    "VGA_PCI",                  # the default VGA when -nodefaults is absent
    "ISA_DEBUG",                # isa-debug-exit
    "E1000_PCI",
    # the stock NICs `run --driver` emulates for a user's driver
    # (userdriver.py), rtl8139 also for the rtl8139 rows
    "RTL8139_PCI", "PCNET_PCI", "NE2000_PCI",
    # virtio-net-pci: the NIC of NetKVM, a public NDIS 5.1 miniport
    "VIRTIO_PCI", "VIRTIO_NET",
    "USB_EHCI_PCI", "USB_XHCI_PCI", "USB_UHCI",
)

LATE_OBJECTS_MARK = "Reason: wlan-ap property \"netdev\" (ndisbench)"
LATE_OBJECTS_ANCHOR = ("    /*\n"
                       "     * Reason: filter-* property \"netdev\" etc.\n"
                       "     */\n")
LATE_OBJECTS_CODE = ("    /* " + LATE_OBJECTS_MARK + " */\n"
                     "    if (g_str_equal(type, \"wlan-ap\")) {\n"
                     "        return false;\n"
                     "    }\n\n")

# -sandbox elevateprivileges=deny with -runas (see
# QemuTree.defer_privileged_filter): (file, anchor, text, before the anchor?)
SECCOMP_MARK = "ndisbench: see qemu_seccomp_start_deferred"
SECCOMP_EDITS = (
    ("include/sysemu/seccomp.h",
     "int parse_sandbox(void *opaque, QemuOpts *opts, Error **errp);\n",
     "/* " + SECCOMP_MARK + " */\n"
     "void qemu_seccomp_start_deferred(void);\n", False),
    ("softmmu/qemu-seccomp.c",
     "int parse_sandbox(void *opaque, QemuOpts *opts, Error **errp)\n",
     "/*\n"
     " * ndisbench: -runas drops privileges in os_setup_post(), long after\n"
     " * the sandbox is loaded, and elevateprivileges=deny traps its\n"
     " * setgid()/setuid(). The set*id rules are a second filter, loaded\n"
     " * right after the drop (before the main loop lets the guest reach\n"
     " * any device).\n"
     " */\n"
     "static uint32_t seccomp_deferred_opts;\n\n"
     "void qemu_seccomp_start_deferred(void)\n"
     "{\n"
     "    Error *err = NULL;\n\n"
     "    if (seccomp_deferred_opts &&\n"
     "        seccomp_start(seccomp_deferred_opts, &err) < 0) {\n"
     "        error_report_err(err);\n"
     "        exit(1);\n"
     "    }\n"
     "    seccomp_deferred_opts = 0;\n"
     "}\n\n", True),
    ("softmmu/qemu-seccomp.c",
     "        if (seccomp_start(seccomp_opts, errp) < 0) {\n",
     "        /* " + SECCOMP_MARK + " */\n"
     "        seccomp_deferred_opts = seccomp_opts &\n"
     "                                QEMU_SECCOMP_SET_PRIVILEGED;\n"
     "        seccomp_opts &= ~QEMU_SECCOMP_SET_PRIVILEGED;\n", True),
    ("softmmu/vl.c",
     "    os_setup_post();\n",
     "#ifdef CONFIG_SECCOMP\n"
     "    /* " + SECCOMP_MARK + " */\n"
     "    qemu_seccomp_start_deferred();\n"
     "#endif\n", False),
)

# Our own fixes to QEMU itself (qemu-patches/*.patch, applied in name
# order with `patch -p1`; see QemuTree.apply_patches). They may not touch
# the files the bench edits in place above and below.
PATCH_DIR = paths.REPO / "qemu-patches"
PATCHED_BY_US = ("softmmu/vl.c", "softmmu/qemu-seccomp.c",
                 "include/sysemu/seccomp.h", "qapi/qom.json", "meson.build",
                 "hw/meson.build", "hw/Kconfig", "tests/qtest/meson.build")
PATCH_TARGET_RE = re.compile(r"^\+\+\+ (\S+)", re.M)


def patch_files() -> List[pathlib.Path]:
    """qemu-patches/*.patch in the order they apply."""
    return sorted(PATCH_DIR.glob("*.patch")) if PATCH_DIR.is_dir() else []


def patch_targets(patch: pathlib.Path) -> List[str]:
    """The files a -p1 patch changes (its +++ lines, a/ b/ stripped)."""
    names = []
    for name in PATCH_TARGET_RE.findall(patch.read_text(errors="replace")):
        rel = name.split("/", 1)[1] if "/" in name else ""
        if (not rel or rel.startswith("/") or ".." in rel.split("/")):
            raise BenchError(f"{patch}: `+++ {name}` is not a path inside "
                             f"the QEMU tree (a -p1 patch names b/<path>)")
        if rel not in names:
            names.append(rel)
    if not names:
        raise BenchError(f"{patch}: changes no file (no `+++ b/<path>` "
                         f"line)")
    return names


def patches_digest() -> str:
    """What the binary key holds of qemu-patches/."""
    return (tree_digest(PATCH_DIR) if PATCH_DIR.is_dir() else "none")


# qapi/qom.json hooks (see QemuTree.add_qapi_objects)
QAPI_MARK = "# ndisbench"
QAPI_BEGIN = "# ndisbench: begin qemu-devices/qom.json"
QAPI_END = "# ndisbench: end qemu-devices/qom.json"
QAPI_BLOCK_RE = re.compile(re.escape(QAPI_BEGIN) + r"\n.*?" +
                           re.escape(QAPI_END) + r"\n\n", re.S)
QAPI_ENTRY_RE = re.compile(r"^ +'[a-z0-9-]+'(?:,|: *'\w+',) *" +
                           re.escape(QAPI_MARK) + r"\n", re.M)
QAPI_STRUCT_RE = re.compile(r"^\{ *'struct': *'(\w+)Properties'", re.M)
QAPI_STRUCTS_ANCHOR = "##\n# @ObjectType:\n"
QAPI_ENUM_ANCHOR = "{ 'enum': 'ObjectType',\n  'data': [\n"
QAPI_UNION_ANCHOR = "  'discriminator': 'qom-type',\n  'data': {\n"


def kebab(camel: str) -> str:
    """WlanAp -> wlan-ap: the qom-type of a FooBarProperties struct."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", camel).lower()


# tests/qtest/meson.build hooks (see QemuTree.add_qtests)
QTEST_DIR = paths.REPO / "tests" / "qtest"
QTEST_ANCHOR = "qtests_x86_64 = qtests_i386\n"
QTEST_ENTRY_RE = re.compile(r"^qtests_x86_64 \+= \['[\w-]+'\] *" +
                            re.escape(QAPI_MARK) + r"\n", re.M)
QTEST_TIMEOUT = 600.0
# What a qtest needs besides libqtest, as its entry in the `qtests` dict of
# QEMU's tests/qtest/meson.build (sources and dependencies): the crypto
# test is a host program of wlan-rsn.c on QEMU's crypto library; the
# bcm43xx test seals and opens frames with it to check the device's CCMP.
QTEST_EXTRAS = {
    "ndisbench-bcm43xx-test":
        "[crypto, files('../../hw/ndisbench/wlan-rsn.c')]",
    "ndisbench-rsn-test": "[crypto, files('../../hw/ndisbench/wlan-rsn.c')]",
}
QTEST_EXTRAS_ANCHOR = "foreach dir : target_dirs\n"
QTEST_EXTRA_RE = re.compile(r"^qtests \+= \{'[\w-]+': .*\} *" +
                            re.escape(QAPI_MARK) + r"\n", re.M)


def qtest_names() -> List[str]:
    """The repository's qtests: tests/qtest/<name>.c, name ending -test."""
    return sorted(p.stem for p in QTEST_DIR.glob("*-test.c"))


KCONFIG_SYMBOL_RE = re.compile(r"^config\s+([A-Z0-9_]+)\s*$", re.M)


def source_version() -> str:
    """The version `apt-get source qemu` would fetch (Debian's candidate,
    named by the .dsc apt-get prints), with its epoch (from apt-cache
    showsrc) so that `apt-get source qemu=<version>` pins exactly it."""
    what = f"apt-get source {PACKAGE}"
    out = capture(["apt-get", "source", "--print-uris", "-q", PACKAGE],
                  timeout=120, what=what)
    dsc = ""
    for line in out.splitlines():
        fields = line.split()
        if (len(fields) >= 2 and fields[1].startswith(f"{PACKAGE}_")
                and fields[1].endswith(".dsc")):
            dsc = fields[1][len(PACKAGE) + 1:-len(".dsc")]
    if not dsc:
        raise BenchError(f"{what}: no source package known (run "
                         f"`scripts/ndisbench setup`: it writes the deb-src "
                         f"entry and refreshes the package lists)")
    out = capture(["apt-cache", "showsrc", "--only-source", PACKAGE],
                  timeout=120, what=f"apt-cache showsrc {PACKAGE}")
    for line in out.splitlines():
        if line.startswith("Version:"):
            version = line.split(":", 1)[1].strip()
            if version.split(":", 1)[-1] == dsc:
                return version
    return dsc


def device_symbols(devices: pathlib.Path) -> List[str]:
    """Every `config X` declared in qemu-devices/Kconfig, in order."""
    kconfig = devices / "Kconfig"
    if not kconfig.exists():
        return []
    return KCONFIG_SYMBOL_RE.findall(kconfig.read_text())


def devices_mak(devices: pathlib.Path) -> str:
    lines = ["# Generated by scripts/ndisbench_lib/qemu_build.py: QEMU's "
             "machines and the", "# bench's devices (qemu-devices/Kconfig)."]
    lines += [f"CONFIG_{name}=y" for name in BASE_DEVICES]
    lines += [f"CONFIG_{name}=y" for name in device_symbols(devices)]
    return "\n".join(lines) + "\n"


def _append_line(path: pathlib.Path, line: str) -> None:
    text = path.read_text()
    if line in text.splitlines():
        return
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n")


def _write_if_changed(path: pathlib.Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


class QemuTree(WorkTree):
    """Debian's QEMU source, configured for x86_64-softmmu, with
    qemu-devices/ wired in. Callers hold lock() while using it. A variant
    (qemu_fuzz.FuzzQemuTree) is its own tree: other configure arguments,
    compiler and target, so it never disturbs this one."""
    variant = ""
    configure_args: Tuple[str, ...] = CONFIGURE_ARGS
    cc = "gcc"
    target = TARGET

    def __init__(self, cache: Cache) -> None:
        self.who = f"QEMU ({PACKAGE} source" + (
            f", {self.variant} build)" if self.variant else ")")
        self.version = source_version()
        self.devices = paths.REPO / "qemu-devices"
        super().__init__(cache, {
            "kind": "qemu-tree", "package": PACKAGE,
            "version": self.version, "configure": list(self.configure_args),
            "cc": compiler_id(self.cc)})
        self.build = self.src / "build"

    @property
    def binary(self) -> pathlib.Path:
        return self.build / self.target

    def fetch(self) -> None:
        """apt-get source into a scratch folder (dpkg-source unpacks it and
        applies Debian's patches), then rename it into place."""
        if (self.src / ".ndisbench-extracted").exists():
            return
        scratch = self.root / "fetch.tmp"
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(self.src, ignore_errors=True)
        scratch.mkdir(parents=True)
        with Step("build", f"{PACKAGE} {self.version}: apt-get source"):
            run_logged(["apt-get", "source", "-q",
                        f"{PACKAGE}={self.version}"], self.log,
                       f"{self.who}: apt-get source", cwd=scratch,
                       timeout=1800)
        unpacked = [d for d in scratch.iterdir()
                    if d.is_dir() and (d / "configure").exists()]
        if len(unpacked) != 1:
            raise BenchError(f"{self.who}: apt-get source left no single "
                             f"source folder in {scratch} (log: {self.log})")
        (unpacked[0] / ".ndisbench-extracted").write_text(self.version + "\n")
        os.rename(unpacked[0], self.src)
        shutil.rmtree(scratch, ignore_errors=True)

    def integrate(self) -> None:
        """hw/ndisbench -> qemu-devices/, its meson and Kconfig hooks, and the
        device list. Idempotent; ninja notices what changed."""
        if not (self.devices / "meson.build").exists():
            raise BenchError(f"{self.who}: {self.devices}/meson.build "
                             f"missing")
        link = self.src / "hw" / SUBDIR
        if link.is_symlink() and os.readlink(link) != str(self.devices):
            link.unlink()
        if not link.is_symlink():
            if link.exists():
                raise BenchError(f"{self.who}: {link} exists and is not our"
                                 f" symlink")
            link.symlink_to(self.devices)
        _append_line(self.src / "hw" / "meson.build", f"subdir('{SUBDIR}')")
        _append_line(self.src / "hw" / "Kconfig", f"source {SUBDIR}/Kconfig")
        self.apply_patches()
        self.add_trace_subdir()
        self.make_late_objects()
        self.defer_privileged_filter()
        self.add_qapi_objects()
        self.add_qtests()
        mak = (self.src / "configs" / "devices" / "x86_64-softmmu" /
               f"{SUBDIR}.mak")
        _write_if_changed(mak, devices_mak(self.devices))
        self.touch_changed()

    def touch_changed(self) -> None:
        """ninja goes by mtimes, but the tree is shared by every checkout
        that builds here, through symlinks: after another checkout built,
        an older file of this one with other contents would look up to
        date (a stale object, a stale generated trace header, a binary
        published under the wrong key). So every linked file whose contents
        differ from what the tree last saw gets a fresh mtime."""
        manifest = self.root / "linked-files.json"
        try:
            seen = json.loads(manifest.read_text())
        except (OSError, ValueError):
            seen = {}
        files = {f"devices/{p.relative_to(self.devices)}": p
                 for p in self.devices.rglob("*") if p.is_file()}
        files.update({f"qtest/{p.name}": p
                      for p in QTEST_DIR.glob("ndisbench-*") if p.is_file()})
        now = {name: file_digest(path) for name, path in files.items()}
        for name, digest in now.items():
            if seen.get(name) != digest:
                os.utime(files[name])
        manifest.write_text(json.dumps(now, indent=1, sort_keys=True))

    def apply_patches(self) -> None:
        """qemu-patches/ applied to Debian's source. The tree is shared by
        every checkout, each with its own patch set: every file a patch
        ever touched keeps its unpatched copy in <root>/pristine/, the
        calling checkout's patches are applied to copies of those in a
        scratch folder, and a file of the tree is rewritten only where the
        result differs (a file no patch of this checkout touches gets its
        pristine contents back), so ninja recompiles just those."""
        patches = patch_files()
        pristine = self.root / "pristine"
        wanted: Dict[str, pathlib.Path] = {}
        for patch in patches:
            for rel in patch_targets(patch):
                if rel in PATCHED_BY_US:
                    raise BenchError(f"{patch}: patches {rel}, which "
                                     f"qemu_build.py edits itself")
                if not (self.src / rel).is_file():
                    raise BenchError(f"{patch}: {rel} is not a file of "
                                     f"{self.who} {self.version}")
                wanted[rel] = patch
        for rel in wanted:
            saved = pristine / rel
            if not saved.exists():
                saved.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.src / rel, saved.with_name(
                    saved.name + ".tmp"))
                os.rename(saved.with_name(saved.name + ".tmp"), saved)
        scratch = self.root / "patch.tmp"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            for rel in wanted:
                (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(pristine / rel, scratch / rel)
            for patch in patches:
                run_logged(["patch", "-p1", "--batch", "--forward",
                            "--no-backup-if-mismatch", "-d", str(scratch),
                            "-i", str(patch)], self.log,
                           f"{self.who}: patch {patch.name} (does it apply"
                           f" to {PACKAGE} {self.version}?)", timeout=120)
            known = [p.relative_to(pristine).as_posix()
                     for p in pristine.rglob("*") if p.is_file()
                     and not p.name.endswith(".tmp")]
            for rel in sorted(set(known) | set(wanted)):
                text = ((scratch if rel in wanted else pristine) /
                        rel).read_bytes()
                target = self.src / rel
                if target.read_bytes() != text:
                    target.write_bytes(text)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def add_trace_subdir(self) -> None:
        """QEMU lists the folders with a trace-events file in its top
        meson.build (trace_events_subdirs, read by subdir('trace')); ours
        joins just before that. The generated header is
        trace/trace-hw_ndisbench.h, included by qemu-devices/trace.h."""
        meson = self.src / "meson.build"
        text = meson.read_text()
        line = f"trace_events_subdirs += [ 'hw/{SUBDIR}' ]"
        if line in text.splitlines():
            return
        anchor = "\nsubdir('trace')\n"
        if anchor not in text:
            raise BenchError(f"{self.who}: {meson}: no subdir('trace') line"
                             f" to hook the trace events into")
        meson.write_text(text.replace(anchor, f"\n{line}{anchor}", 1))

    def make_late_objects(self) -> None:
        """QEMU creates -object options before -netdev ones, except those
        object_create_early() in softmmu/vl.c lists as delayed (filter-*,
        for their netdev property). wlan-ap joins them for the same reason:
        it finds its netdev when created (a missing one is an error on its
        own option line) and peers with it before QEMU warns about netdevs
        without a peer."""
        vl = self.src / "softmmu" / "vl.c"
        text = vl.read_text()
        if LATE_OBJECTS_MARK in text:
            return
        if LATE_OBJECTS_ANCHOR not in text:
            raise BenchError(f"{self.who}: {vl}: object_create_early() has "
                             f"no filter-* entry to add wlan-ap next to")
        vl.write_text(text.replace(LATE_OBJECTS_ANCHOR, LATE_OBJECTS_CODE +
                                   LATE_OBJECTS_ANCHOR, 1))

    def defer_privileged_filter(self) -> None:
        """-sandbox elevateprivileges=deny and -runas together: QEMU 7.2
        loads the whole filter in qemu_process_early_options() and drops
        privileges at the end of qemu_init(), so the drop's setgid() dies
        of SIGSYS. The set*id rules become a second filter loaded just
        after the drop (guest/sandbox.py). Each file is edited once
        (SECCOMP_MARK)."""
        for name in dict.fromkeys(f for f, _, _, _ in SECCOMP_EDITS):
            path = self.src / name
            text = path.read_text()
            if SECCOMP_MARK in text:
                continue
            for _, anchor, code, before in (e for e in SECCOMP_EDITS
                                            if e[0] == name):
                if text.count(anchor) != 1:
                    raise BenchError(f"{self.who}: {path}: no single "
                                     f"`{anchor.strip()}` line to hook the "
                                     f"deferred seccomp filter to")
                text = text.replace(anchor, code + anchor if before
                                    else anchor + code, 1)
            path.write_text(text)

    def add_qapi_objects(self) -> None:
        """-object and object-add only accept types of qapi/qom.json's
        ObjectType enum, with the properties of their ObjectOptions branch.
        Copy qemu-devices/qom.json's structs there (between markers, so an
        edit replaces them) and list each as an object type."""
        schema = self.src / "qapi" / "qom.json"
        text = schema.read_text()
        frag = self.devices / "qom.json"
        structs = frag.read_text() if frag.exists() else ""
        objects = [(kebab(m), m + "Properties")
                   for m in QAPI_STRUCT_RE.findall(structs)]
        block = (f"{QAPI_BEGIN}\n{structs.strip()}\n{QAPI_END}\n\n"
                 if structs else "")
        new = QAPI_BLOCK_RE.sub("", text)
        new = QAPI_ENTRY_RE.sub("", new)
        for anchor, entry in (
                (QAPI_ENUM_ANCHOR, "    '{0}',  {1}\n"),
                (QAPI_UNION_ANCHOR, "      '{0}': '{2}',  {1}\n")):
            if anchor not in new:
                raise BenchError(f"{self.who}: {schema}: no `{anchor.strip()}`"
                                 f" line to add our object types to")
            lines = "".join(entry.format(qom, QAPI_MARK, struct)
                            for qom, struct in objects)
            new = new.replace(anchor, anchor + lines, 1)
        if QAPI_STRUCTS_ANCHOR not in new:
            raise BenchError(f"{self.who}: {schema}: no ObjectType section "
                             f"to put our structs before")
        new = new.replace(QAPI_STRUCTS_ANCHOR, block + QAPI_STRUCTS_ANCHOR, 1)
        if new != text:
            schema.write_text(new)

    def add_qtests(self) -> None:
        """Each tests/qtest/<name>.c of the repository becomes a qtest of
        the tree (a symlink in its tests/qtest/, a qtests_x86_64 entry);
        the ndisbench-*.h helpers they include are linked beside them."""
        qdir = self.src / "tests" / "qtest"
        meson = qdir / "meson.build"
        text = meson.read_text()
        new = QTEST_ENTRY_RE.sub("", text)
        if QTEST_ANCHOR not in new:
            raise BenchError(f"{self.who}: {meson}: no `{QTEST_ANCHOR.strip()}"
                             f"` line to add our qtests after")
        names = qtest_names()
        lines = "".join(f"qtests_x86_64 += ['{n}']  {QAPI_MARK}\n"
                        for n in names)
        new = new.replace(QTEST_ANCHOR, QTEST_ANCHOR + lines, 1)
        # Their sources and dependencies beyond libqtest.
        new = QTEST_EXTRA_RE.sub("", new)
        orphans = sorted(set(QTEST_EXTRAS) - set(names))
        if orphans:
            raise BenchError(f"qemu_build.QTEST_EXTRAS names "
                             f"{', '.join(orphans)}, not a tests/qtest/ test")
        if QTEST_EXTRAS and QTEST_EXTRAS_ANCHOR not in new:
            raise BenchError(f"{self.who}: {meson}: no `"
                             f"{QTEST_EXTRAS_ANCHOR.strip()}` line to put "
                             f"our qtests' dependencies before")
        extras = "".join(f"qtests += {{'{n}': {deps}}}  {QAPI_MARK}\n"
                         for n, deps in sorted(QTEST_EXTRAS.items()))
        new = new.replace(QTEST_EXTRAS_ANCHOR, extras + QTEST_EXTRAS_ANCHOR, 1)
        # The tests and the helper headers they share.
        files = [f"{n}.c" for n in names] + sorted(
            p.name for p in QTEST_DIR.glob("ndisbench-*.h"))
        for file in files:
            target = QTEST_DIR / file
            link = qdir / file
            if link.is_symlink() and os.readlink(link) != str(target):
                link.unlink()
            if not link.is_symlink():
                link.symlink_to(target)
        if new != text:
            meson.write_text(new)

    def configure(self) -> None:
        stamp = self.root / "configured"
        args = "\n".join(self.configure_args) + "\n"
        if ((self.build / "build.ninja").exists() and stamp.exists()
                and stamp.read_text() == args):
            return
        stamp.unlink(missing_ok=True)
        shutil.rmtree(self.build, ignore_errors=True)
        with Step("build", f"{PACKAGE} {self.version}: configure"):
            run_logged([str(self.src / "configure"), *self.configure_args],
                       self.log, f"{self.who}: configure", cwd=self.src,
                       timeout=1800)
        stamp.write_text(args)

    def prepare(self) -> None:
        self.fetch()
        self.integrate()
        self.configure()

    def ninja(self, *targets: str, what: str) -> None:
        run_logged(["ninja", "-C", str(self.build),
                    f"-j{os.cpu_count() or 1}", *targets],
                   self.log, f"{self.who}: {what}", timeout=BUILD_TIMEOUT)


def firmware_args() -> List[str]:
    """-L options a binary from the DFSG source needs (no firmware in it)."""
    args: List[str] = []
    for fw in FIRMWARE_DIRS:
        if os.path.isdir(fw):
            args += ["-L", fw]
    return args


def _binary_inputs(tree: QemuTree, kind: str = "qemu") -> Dict[str, str]:
    return {"kind": kind, "tree": tree.key,
            "devices": tree_digest(tree.devices),
            "device_list": devices_mak(tree.devices),
            "patches": patches_digest()}


# A process using a binary holds a shared flock on <entry>/IN_USE until it
# exits; pruning skips entries it cannot lock exclusively. (A run of the
# test command once lost its QEMU midway to a build of another checkout.)
IN_USE = ".in-use"
_held: List[object] = []         # the shared locks of this process


def _hold(entry: pathlib.Path) -> None:
    fd = open(entry / IN_USE, "a")
    fcntl.flock(fd, fcntl.LOCK_SH)
    _held.append(fd)


def _remove_unused(entry: pathlib.Path) -> bool:
    """rmtree entry unless a process holds it; True if removed."""
    try:
        fd = open(entry / IN_USE, "a")
    except OSError:
        return False
    with fd:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        shutil.rmtree(entry, ignore_errors=True)
    return True


def _prune_binaries(cache: Cache, tree_key: str, keep: pathlib.Path,
                    kind: str = "qemu") -> None:
    """Every device edit publishes a ~40 MB binary: keep only the newest
    KEEP_BINARIES of this tree (and `keep`), and any a running process
    uses. The caller holds the tree lock."""
    root = cache.root / kind
    entries = []
    for entry in root.iterdir() if root.is_dir() else []:
        if entry == keep or cache.lookup(kind, entry.name) is None:
            continue
        try:
            if cache.meta(entry).get("tree") == tree_key:
                entries.append(((entry / COMPLETE).stat().st_mtime, entry))
        except (OSError, ValueError):
            continue
    entries.sort(reverse=True)
    for _, entry in entries[KEEP_BINARIES - 1:]:
        _remove_unused(entry)


def build_qemu(cache: Cache) -> pathlib.Path:
    """Path of a qemu-system-x86_64 containing qemu-devices/, built (or
    rebuilt incrementally) if the cache has none for the current sources."""
    return build_binary(cache, QemuTree(cache))


def build_binary(cache: Cache, tree: QemuTree, kind: str = "qemu"
                 ) -> pathlib.Path:
    """tree's target with qemu-devices/, published as <cache>/<kind>/<key>/
    (key: the tree and the contents of qemu-devices/)."""
    target = tree.target
    inputs = _binary_inputs(tree, kind)
    key = digest_inputs(inputs)
    entry = cache.lookup(kind, key)
    if entry is None:
        with tree.lock():
            entry = cache.lookup(kind, key)
            if entry is None:
                tree.prepare()
                with Step("build", f"{target} with qemu-devices/ "
                                   f"({PACKAGE} {tree.version})"):
                    for _ in range(3):
                        tree.ninja(target, what=f"ninja {target}")
                        # qemu-devices/ edited while ninja ran: the binary
                        # may hold either version, so build again.
                        after = _binary_inputs(tree, kind)
                        if after == inputs:
                            break
                        inputs = after
                        tree.integrate()
                    else:
                        raise BenchError(f"{tree.devices}: keeps changing "
                                         f"during the build, try again")
                    key = digest_inputs(inputs)
                    with cache.publish(kind, key, inputs) as tmp:
                        shutil.copy2(tree.binary, tmp / target)
                entry = cache.path(kind, key)
                _hold(entry)
                _prune_binaries(cache, tree.key, entry, kind)
            else:
                _hold(entry)
    else:
        # Pruned between the lookup and the lock (another checkout's build
        # finishing just then): the check below says so.
        _hold(entry)
    binary = entry / target
    if not binary.exists():
        raise BenchError(f"{entry}: cache entry has no {target}")
    say("build", f"{kind}: {binary}")
    return binary


def _qtest_wrapper(tree: QemuTree) -> pathlib.Path:
    """libqtest runs $QTEST_QEMU_BINARY through sh and takes the target
    from its name: a script named qemu-system-x86_64 that adds the
    firmware folders (the DFSG source ships none)."""
    wrapper = tree.root / "qtest-bin" / TARGET
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    args = " ".join(firmware_args())
    text = f'#!/bin/sh\nexec "{tree.binary}" {args} "$@"\n'
    _write_if_changed(wrapper, text)
    wrapper.chmod(0o755)
    return wrapper


def run_qtests(cache: Cache, names: Optional[Sequence[str]] = None
               ) -> Dict[str, bool]:
    """Build and run the repository's qtests (all, or those named) in the
    QEMU tree against its qemu-system-x86_64. name -> passed; each test's
    TAP output goes to <tree>/qtest-<name>.log."""
    tree = QemuTree(cache)
    known = qtest_names()
    selected = list(names) if names else known
    bad = [n for n in selected if n not in known]
    if bad:
        raise BenchError(f"unknown qtest(s) {', '.join(bad)} (known: "
                         f"{', '.join(known) or 'none'})")
    results: Dict[str, bool] = {}
    with tree.lock():
        tree.prepare()
        with Step("build", f"{TARGET} and {len(selected)} qtest(s)"):
            tree.ninja(TARGET, *(f"tests/qtest/{n}" for n in selected),
                       what="ninja qtests")
        env = {"QTEST_QEMU_BINARY": str(_qtest_wrapper(tree))}
        for name in selected:
            log = tree.root / f"qtest-{name}.log"
            log.unlink(missing_ok=True)
            try:
                with Step("qtest", name):
                    run_logged([str(tree.build / "tests" / "qtest" / name),
                                "--tap", "-k"], log, f"qtest {name}",
                               cwd=tree.build, env=env,
                               timeout=QTEST_TIMEOUT, tag="qtest")
                results[name] = True
            except BenchError as exc:
                say("qtest", f"FAIL: {exc}")
                results[name] = False
    return results


def qtest_cases(cache: Cache, results: Dict[str, bool]
                ) -> Dict[str, List[str]]:
    """The TAP result lines of each qtest run_qtests() ran; a test that
    failed before printing any result gets one synthetic `not ok` line."""
    tree = QemuTree(cache)
    cases: Dict[str, List[str]] = {}
    for name, passed in results.items():
        log = tree.root / f"qtest-{name}.log"
        lines = log.read_text().splitlines() if log.exists() else []
        cases[name] = [line for line in lines
                       if line.startswith(("ok ", "not ok ", "Bail out!"))]
        if not passed and not any(not c.startswith("ok ")
                                  for c in cases[name]):
            cases[name].append(f"not ok - {name} crashed or timed out "
                               f"(log: {log})")
    return cases
