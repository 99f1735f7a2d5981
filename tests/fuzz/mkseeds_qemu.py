#!/usr/bin/env python3
"""Seed inputs for the qemu-bcm43xx and qemu-rtl8187-uhci generic-fuzz
configs (ndisbench fuzz).

usage: mkseeds_qemu.py [CORPUS]   (default: tests/fuzz/corpus; writes
                                   CORPUS/qemu-bcm43xx/, .../qemu-rtl8187-uhci/)

QEMU's generic-fuzz reads its input as commands separated by "FUZZ": an
opcode byte (modulo the number of opcodes) and that opcode's packed
arguments (tests/qtest/fuzz/generic_fuzz.c in the QEMU tree). A register
is only reached by a 17-byte write and a DMA engine only by a sequence of
them, which random inputs seldom are in minutes: these seeds bring the
hardware up as a driver would (values from qemu-devices/include/) and the
fuzzer mutates from there.

Every DMA read of guest RAM is filled from a DMA pattern, the patterns
taken in turn, one per read, from the first again at each input. So for
the chip one pattern holding one descriptor is every descriptor of a
ring (and, for TX, the frame too); for UHCI a frame's reads come in a
fixed order (frame list entry, TD, its SETUP or OUT data, next TD...),
one pattern each, and the turn is back at the first for the next frame.
"""
import pathlib
import re
import struct
import sys
from typing import Dict, List, Tuple

REPO = pathlib.Path(__file__).resolve().parents[2]
INCLUDE = REPO / "qemu-devices" / "include"
CORPUS = REPO / "tests" / "fuzz" / "corpus"
SEPARATOR = b"FUZZ"
OP_IN, OP_OUT, OP_READ, OP_WRITE = 0, 1, 2, 3
OP_ADD_DMA_PATTERN, OP_CLEAR_DMA_PATTERNS, OP_CLOCK_STEP = 7, 8, 9
WORD, LONG = 1, 2           # generic-fuzz access sizes: byte, word, long
MMIO = 0                    # the first (only) MMIO or PIO region matched
RX_RING, TX_RING, BUFFER = 0x100000, 0x200000, 0x300000  # guest RAM


def constants(header: pathlib.Path = INCLUDE / "bcm43xx_regs.h",
              prefix: str = "BCM43XX_") -> Dict[str, int]:
    """#define NAME value for numbers, (1u << n) and (NAME + number)."""
    out: Dict[str, int] = {}
    for m in re.finditer(r"^#define\s+(" + prefix + r"\w+)\s+([^/\n]+)",
                         header.read_text(), re.M):
        value = m.group(2).strip()
        shift = re.fullmatch(r"\((\d+)u? << (\d+)\)", value)
        plus = re.fullmatch(r"\((" + prefix + r"\w+) \+ (0x[0-9a-fA-F]+)\)",
                            value)
        if shift:
            out[m.group(1)] = int(shift.group(1)) << int(shift.group(2))
        elif plus and plus.group(1) in out:
            out[m.group(1)] = out[plus.group(1)] + int(plus.group(2), 16)
        elif re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)u?", value):
            out[m.group(1)] = int(value.rstrip("u"), 0)
    return out


def write(offset: int, value: int) -> bytes:
    # struct { uint8_t size, base; uint32_t offset; uint64_t value; }
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", LONG, MMIO, offset,
                                           value)


def read(offset: int) -> bytes:
    # struct { uint8_t size, base; uint32_t offset; }
    return bytes([OP_READ]) + struct.pack("<BBxxI", LONG, MMIO, offset)


def outw(port: int, value: int, size: int = WORD) -> bytes:
    # struct { uint8_t size, base; uint16_t offset; uint32_t value; }
    return bytes([OP_OUT]) + struct.pack("<BBHI", size, MMIO, port, value)


def inw(port: int) -> bytes:
    # struct { uint8_t size, base; uint16_t offset; }
    return bytes([OP_IN]) + struct.pack("<BBH", WORD, MMIO, port)


def pattern(data: bytes) -> bytes:
    # struct { uint8_t index, stride; } then the pattern, repeated
    return bytes([OP_ADD_DMA_PATTERN]) + struct.pack("<BB", 0, 0) + data


def clear() -> bytes:
    return bytes([OP_CLEAR_DMA_PATTERNS])


def clock() -> bytes:
    return bytes([OP_CLOCK_STEP])


def descriptor(c: Dict[str, int], byte_count: int) -> bytes:
    ctl0 = (c["BCM43XX_DCTL0_FRAMESTART"] | c["BCM43XX_DCTL0_FRAMEEND"] |
            c["BCM43XX_DCTL0_IRQ"])
    return struct.pack("<IIII", ctl0, byte_count, BUFFER, 0)


def ring(c: Dict[str, int], base: int, at: int, index: int) -> List[bytes]:
    return [write(base + c["BCM43XX_DMA_RINGLO"], at),
            write(base + c["BCM43XX_DMA_RINGHI"], 0),
            write(base + c["BCM43XX_DMA_RINGSIZE"], 4),
            write(base + c["BCM43XX_DMA_CTL"], c["BCM43XX_DMA_CTL_ENABLE"]),
            write(base + c["BCM43XX_DMA_INDEX"], index)]


def seeds(c: Dict[str, int]) -> Dict[str, List[bytes]]:
    up = [write(c["BCM43XX_REG_CTRL"], c["BCM43XX_CTRL_RESET"]),
          write(c["BCM43XX_REG_INT_MASK"], c["BCM43XX_INT_ALL"]),
          write(c["BCM43XX_REG_CHANNEL"], 6),
          write(c["BCM43XX_REG_CTRL"], c["BCM43XX_CTRL_ENABLE"])]
    rx = c["BCM43XX_DMA_RX_BASE"]
    tx = c["BCM43XX_DMA_TX_BASE"]
    return {
        # RX ring of 2400-byte buffers, then beacons arrive on the clock
        "rx-ring": [pattern(descriptor(c, c["BCM43XX_RX_BUF_MIN"])), *up,
                    *ring(c, rx, RX_RING, 3), *[clock()] * 4,
                    read(c["BCM43XX_REG_INT_STATUS"]),
                    read(rx + c["BCM43XX_DMA_STATUS"])],
        # one 60-byte TX frame: its bytes are the pattern too, so the AP
        # sees a management frame (frame control 0x0000: assoc request)
        "tx-frame": [pattern(descriptor(c, 60)), *up,
                     *ring(c, rx, RX_RING, 3), *ring(c, tx, TX_RING, 1),
                     *[clock()] * 2, read(c["BCM43XX_REG_INT_STATUS"]),
                     write(c["BCM43XX_REG_INT_STATUS"], c["BCM43XX_INT_ALL"]),
                     read(tx + c["BCM43XX_DMA_ERROR"])],
        # every register read once, the SPROM's revision and MAC
        "registers": [read(c[n]) for n in sorted(c) if n.startswith(
            "BCM43XX_REG_")] + [read(c["BCM43XX_SPROM_REV"]),
                                read(c["BCM43XX_SPROM_MAC"])],
    }


# UHCI (the UHCI 1.1 spec; QEMU's include/hw/usb/uhci-regs.h)
USBCMD, USBSTS, USBINTR, FRNUM, FLBASEADD, PORTSC1 = 0, 2, 4, 6, 8, 0x10
CMD_RS, CMD_CF, CMD_MAXP = 1 << 0, 1 << 6, 1 << 7
PORT_EN, PORT_RESET = 1 << 2, 1 << 9
TD_ACTIVE, TD_IOC, TD_ERRORS = 1 << 23, 1 << 24, 3 << 27
TERMINATE = 1
PID_SETUP, PID_IN, PID_OUT = 0x2d, 0x69, 0xe1
FRAME_LIST, TD_BASE, DATA = 0x400000, 0x500000, 0x600000   # guest RAM


def td(link: int, pid: int, endpoint: int, length: int,
       toggle: int = 0) -> bytes:
    """A TD for device address 0 (link, ctrl, token, buffer)."""
    token = (pid | endpoint << 15 | toggle << 19 |
             ((length - 1) & 0x7ff) << 21)
    return struct.pack("<IIII", link, TD_ACTIVE | TD_IOC | TD_ERRORS, token,
                       DATA)


def frame(*stages: Tuple[int, int, int, bytes]) -> List[bytes]:
    """The patterns of one frame: the frame list entry, then each TD
    (pid, endpoint, length, data) linked to the next, and after a SETUP
    or OUT TD its data: the order UHCI reads them in."""
    out = [pattern(struct.pack("<I", TD_BASE))]
    for n, (pid, endpoint, length, data) in enumerate(stages):
        last = n == len(stages) - 1
        link = TERMINATE if last else TD_BASE + 0x20 * (n + 1)
        toggle = 0 if pid == PID_SETUP else 1
        out.append(pattern(td(link, pid, endpoint, length, toggle)))
        if pid != PID_IN:
            out.append(pattern(data))
    return out


def setup(request_type: int, request: int, value: int, index: int,
          length: int) -> bytes:
    return struct.pack("<BBHHH", request_type, request, value, index, length)


def uhci_seeds(r: Dict[str, int]) -> Dict[str, List[bytes]]:
    start = [outw(PORTSC1, PORT_RESET), outw(PORTSC1, PORT_EN),
             outw(FLBASEADD, FRAME_LIST, LONG), outw(FRNUM, 0),
             outw(USBINTR, 0xf), outw(USBCMD, CMD_RS | CMD_CF | CMD_MAXP)]
    reg = r["RTL8187_REG_BASE"]

    def control_in(request_type: int, request: int, value: int, index: int,
                   length: int) -> List[bytes]:
        return frame((PID_SETUP, 0, 8, setup(request_type, request, value,
                                             index, length)),
                     (PID_IN, 0, length, b""))

    def control_out(request: int, value: int, index: int, data: bytes
                    ) -> List[bytes]:
        return frame((PID_SETUP, 0, 8, setup(r["RTL8187_REQT_WRITE"],
                                             request, value, index,
                                             len(data))),
                     (PID_OUT, 0, len(data), data),
                     # the status stage: QEMU's USB core hands a request
                     # with OUT data to the device only then
                     (PID_IN, 0, 0, b""))

    channel_6 = r["RTL8225_CHAN_BASE"] + 5 * r["RTL8225_CHAN_STEP"]
    # a wildcard probe request to broadcast, after the 12-byte TX header
    probe = (bytes([0x40, 0, 0, 0]) + b"\xff" * 6 +
             bytes([2, 0, 0, 0, 0x55, 1]) + b"\xff" * 6 + bytes([0, 0]) +
             bytes([0, 0, 1, 1, 0x82]))
    tx = struct.pack("<I", len(probe)) + bytes(8) + probe
    return {
        # the first register, as the driver reads the MAC
        "uhci-register-read": [*control_in(r["RTL8187_REQT_READ"],
                                           r["RTL8187_REQ_GET_REG"],
                                           reg | r["RTL8187_REG_MAC"], 0, 4),
                               *start, *[clock()] * 3, inw(USBSTS)],
        "uhci-device-descriptor": [*control_in(0x80, 6, 0x0100, 0, 18),
                                   *start, *[clock()] * 3, inw(USBSTS)],
        # configure, tune to channel 6, radio on, send a probe request
        # (the AP answers) and read the air
        "uhci-tx-rx": [*frame((PID_SETUP, 0, 8, setup(0, 9, 1, 0, 0)),
                              (PID_IN, 0, 0, b"")), *start, clock(),
                       clear(), *control_out(
                           r["RTL8187_REQ_SET_REG"], r["RTL8225_REG_CHANNEL"],
                           r["RTL8187_INDEX_RF8225"],
                           struct.pack("<H", channel_6)), clock(),
                       clear(), *control_out(
                           r["RTL8187_REQ_SET_REG"],
                           reg | r["RTL8187_REG_CMD"], 0,
                           bytes([r["RTL8187_CMD_TX_ENABLE"] |
                                  r["RTL8187_CMD_RX_ENABLE"]])), clock(),
                       clear(), *frame((PID_OUT, r["RTL8187_EP_TX"],
                                        len(tx), tx)), clock(), clock(),
                       clear(), *frame((PID_IN, r["RTL8187_EP_RX"], 1024,
                                        b"")), *[clock()] * 4],
    }


def main(argv: List[str]) -> int:
    corpus = pathlib.Path(argv[1]) if len(argv) > 1 else CORPUS
    rtl = {**constants(INCLUDE / "rtl8187_regs.h", "RTL8187_"),
           **constants(INCLUDE / "rtl8187_regs.h", "RTL8225_")}
    for config, found in (("qemu-bcm43xx", seeds(constants())),
                          ("qemu-rtl8187-uhci", uhci_seeds(rtl))):
        out = corpus / config
        out.mkdir(parents=True, exist_ok=True)
        for name, commands in found.items():
            (out / name).write_bytes(SEPARATOR.join(commands))
            print(f"{out / name}: {len(commands)} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
