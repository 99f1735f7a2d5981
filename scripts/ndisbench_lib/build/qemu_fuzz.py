"""The fuzzing QEMU: the same Debian source and qemu-devices/ as the bench's
QEMU (qemu_build.py), configured with clang, --enable-fuzzing and
--enable-sanitizers (ASan, UBSan) in a tree of its own, built as
qemu-fuzz-x86_64 (QEMU's libFuzzer binary: tests/qtest/fuzz/) and
published as <cache>/qemu-fuzz/<key>/, keyed like the bench's binary (the
tree and the contents of qemu-devices/). The bench's own tree and binary
are never touched.

The device configs (one per devices.fuzz_setups() entry, made in
commands/fuzz.py) are QEMU's generic-fuzz target configured through
QEMU_FUZZ_ARGS (the machine) and QEMU_FUZZ_OBJECTS (which memory regions
and PCI devices it drives), the way tests/qtest/fuzz/generic_fuzz_configs.h
declares its named configs, but without editing QEMU.
"""
import dataclasses
import pathlib
from typing import Dict, List

from . import qemu_build
from .cache import Cache

FUZZ_TARGET = "qemu-fuzz-x86_64"
KIND = "qemu-fuzz"
FUZZ_CONFIGURE_ARGS = qemu_build.CONFIGURE_ARGS + (
    "--cc=clang", "--cxx=clang++",     # libFuzzer is clang's
    "--enable-fuzzing", "--enable-sanitizers")


class FuzzQemuTree(qemu_build.QemuTree):
    variant = "fuzz"
    configure_args = FUZZ_CONFIGURE_ARGS
    cc = "clang"
    target = FUZZ_TARGET


def build_fuzz_qemu(cache: Cache) -> pathlib.Path:
    """qemu-fuzz-x86_64 with qemu-devices/ (incremental, like the bench's
    QEMU: a device .c edit recompiles that file)."""
    return qemu_build.build_binary(cache, FuzzQemuTree(cache), KIND)


@dataclasses.dataclass(frozen=True)
class GenericConfig:
    """One generic-fuzz config: name, QEMU_FUZZ_ARGS, QEMU_FUZZ_OBJECTS
    (space-separated globs of QOM type names and memory region names)."""
    name: str
    args: str
    objects: str
    max_len: int = 512              # libFuzzer's -max_len (see below)

    def env(self) -> Dict[str, str]:
        firmware = " ".join(qemu_build.firmware_args())
        return {"QEMU_FUZZ_ARGS": f"{firmware} {self.args}",
                "QEMU_FUZZ_OBJECTS": self.objects,
                "UBSAN_OPTIONS": UBSAN_OPTIONS}

    def argv(self, binary: pathlib.Path) -> List[str]:
        return [str(binary), "--fuzz-target=generic-fuzz"]

    def flags(self) -> List[str]:
        return [*LIBFUZZER_FLAGS, f"-max_len={self.max_len}"]


# libFuzzer grows its input length slowly by default (-len_control), but
# a generic-fuzz write is a 17-byte command: in a share of minutes at a
# few hundred forks a second the models' registers were barely written.
# Full-length inputs from the start, capped at 512 bytes for the chip (30 s
# of qemu-bcm43xx, seed 1: cov 760 at 512, 713 at 4096). The USB configs
# take 4096: libFuzzer cuts corpus inputs to -max_len, and enumerating the
# device through xHCI or EHCI takes 0.8 to 3.8 KB of commands (their
# seeds). cov: counts every instrumented edge (hw/, net/, slirp/):
# -print_coverage=1 lists each function's edges at the end, from which
# fuzz.py counts our models'.
LIBFUZZER_FLAGS = ("-len_control=0", "-print_coverage=1")
# UBSan only prints by default: its report was a finding without an input
# (the forked child went on). Fatal, the child dies like on an assertion
# and libFuzzer keeps the input that did it.
UBSAN_OPTIONS = "halt_on_error=1:abort_on_error=1:print_stacktrace=1"
USB_MAX_LEN = 4096
# Where our models' sources are in the tree (hw/ndisbench -> qemu-devices/)
MODEL_DIR = f"/hw/{qemu_build.SUBDIR}/"


def generic_config(name: str, args: str, objects: str,
                   usb: bool) -> GenericConfig:
    """One of devices.fuzz_setups() as a generic-fuzz config (commands/
    fuzz.py: this stage does not read the device table)."""
    return GenericConfig(name, args, objects,
                         USB_MAX_LEN if usb else GenericConfig.max_len)
