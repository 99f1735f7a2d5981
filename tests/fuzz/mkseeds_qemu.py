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


def descriptor(c: Dict[str, int], byte_count: int, extra: int = 0) -> bytes:
    ctl0 = (c["BCM43XX_DCTL0_FRAMESTART"] | c["BCM43XX_DCTL0_FRAMEEND"] |
            c["BCM43XX_DCTL0_IRQ"] | extra)
    return struct.pack("<IIII", ctl0, byte_count, BUFFER, 0)


def key(c: Dict[str, int], slot: int) -> List[bytes]:
    """A CCMP key in a key table slot (peer 02:00:00:00:00:01)."""
    base = c["BCM43XX_KEY_BASE"] + slot * c["BCM43XX_KEY_STRIDE"]
    return [write(base + c["BCM43XX_KEY_ADDR_LO"], 0x00000002),
            write(base + c["BCM43XX_KEY_ADDR_HI"], 0x0100),
            *[write(base + c["BCM43XX_KEY_TK"] + 4 * i, 0x03020100 + i)
              for i in range(4)],
            write(base + c["BCM43XX_KEY_CTL"], c["BCM43XX_KEY_CIPHER_CCMP"])]


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
        # the same frame sealed by the key table: ctl0's low bytes, which
        # the chip ignores, make the pattern a ToDS data frame (08 01)
        "tx-sealed": [pattern(descriptor(
            c, 60, 0x0108 | c["BCM43XX_DCTL0_ENCRYPT"] |
            c["BCM43XX_KEY_PAIRWISE_FIRST"] << c["BCM43XX_DCTL0_KEY_SHIFT"])),
            *up, *key(c, c["BCM43XX_KEY_PAIRWISE_FIRST"]),
            *ring(c, rx, RX_RING, 3), *ring(c, tx, TX_RING, 1),
            *[clock()] * 2, read(c["BCM43XX_REG_INT_STATUS"]),
            read(c["BCM43XX_KEY_BASE"] + c["BCM43XX_KEY_PAIRWISE_FIRST"] *
                 c["BCM43XX_KEY_STRIDE"] + c["BCM43XX_KEY_TXPN_LO"])],
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


def probe_tx(r: Dict[str, int]) -> bytes:
    """A wildcard probe request to broadcast after the chip's 12-byte TX
    header: the AP answers it."""
    probe = (bytes([0x40, 0, 0, 0]) + b"\xff" * 6 +
             bytes([2, 0, 0, 0, 0x55, 1]) + b"\xff" * 6 + bytes([0, 0]) +
             bytes([0, 0, 1, 1, 0x82]))
    return struct.pack("<I", len(probe)) + bytes(8) + probe


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
    tx = probe_tx(r)
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


# xHCI (the xHCI 1.2 spec; QEMU's hw/usb/hcd-xhci.c): the controller's
# registers are separate memory regions, matched in address order
XHCI_OPER, XHCI_PORT5, XHCI_RUNTIME, XHCI_DOORBELL = 1, 6, 10, 11
XHCI_USBCMD, XHCI_CRCR, XHCI_DCBAAP, XHCI_CONFIG = 0, 0x18, 0x30, 0x38
XHCI_IR0 = 0x20                     # interrupter 0 in the runtime space
XHCI_ERSTSZ, XHCI_ERSTBA, XHCI_ERDP = 0x08, 0x10, 0x18
XHCI_CMD_RS, XHCI_CMD_HCRST = 1 << 0, 1 << 1
XHCI_PORT_PR, XHCI_PORT_PP = 1 << 4, 1 << 9
XHCI_ROOT_PORT = 5                  # usb-rtl8187's: the first USB 2 port
TRB_NORMAL, TRB_SETUP, TRB_DATA, TRB_STATUS = 1, 2, 3, 4
TRB_ENABLE_SLOT, TRB_ADDRESS_DEV, TRB_CONFIG_EP = 9, 11, 12
TRB_CYCLE, TRB_ISP, TRB_IOC, TRB_IDT = 1 << 0, 1 << 2, 1 << 5, 1 << 6
SLOT = 1                            # what Enable Slot gives the first time
XHCI_DCBAA, XHCI_CMD_RING, XHCI_EVT_RING = 0x700000, 0x701000, 0x702000
XHCI_ERST, XHCI_IN_CTX, XHCI_DEV_CTX = 0x703000, 0x704000, 0x705000
XHCI_TR_EP0, XHCI_TR_IN, XHCI_TR_OUT = 0x706000, 0x707000, 0x708000
XHCI_BUF = 0x709000


def xwrite(region: int, offset: int, value: int) -> bytes:
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", LONG, region, offset,
                                           value)


def trb(param: int, status: int, control: int) -> bytes:
    return struct.pack("<QII", param, status, control | TRB_CYCLE)


NO_TRB = bytes(16)                  # cycle bit clear: the ring ends here


def ep_ctx(ep_type: int, mps: int, ring: int) -> bytes:
    """The first five words of an endpoint context (state 0, CErr 3)."""
    return struct.pack("<IIIII", 0, 3 << 1 | ep_type << 3 | mps << 16,
                       ring | 1, 0, 8)


def xhci_seeds(r: Dict[str, int]) -> Dict[str, List[bytes]]:
    """Each command or doorbell below is preceded by the patterns of the
    DMA reads it makes, in QEMU's order (a command TRB, then what the
    command reads, then the next TRB, which ends the ring); the transfer
    ring is read twice (its length, then its TRBs), then the data stage's
    buffer is mapped (a read, IN or OUT), the endpoint context read before
    and after."""
    erst = struct.pack("<QII", XHCI_EVT_RING, 256, 0)
    start = [xwrite(XHCI_OPER, XHCI_USBCMD, XHCI_CMD_HCRST),
             xwrite(XHCI_OPER, XHCI_CONFIG, 8),
             xwrite(XHCI_OPER, XHCI_DCBAAP, XHCI_DCBAA),
             xwrite(XHCI_OPER, XHCI_DCBAAP + 4, 0),
             xwrite(XHCI_OPER, XHCI_CRCR, XHCI_CMD_RING | 1),
             xwrite(XHCI_OPER, XHCI_CRCR + 4, 0),
             xwrite(XHCI_RUNTIME, XHCI_IR0 + XHCI_ERSTSZ, 1),
             xwrite(XHCI_RUNTIME, XHCI_IR0 + XHCI_ERDP, XHCI_EVT_RING),
             xwrite(XHCI_RUNTIME, XHCI_IR0 + XHCI_ERDP + 4, 0),
             pattern(erst),
             xwrite(XHCI_RUNTIME, XHCI_IR0 + XHCI_ERSTBA, XHCI_ERST),
             xwrite(XHCI_RUNTIME, XHCI_IR0 + XHCI_ERSTBA + 4, 0), clear(),
             xwrite(XHCI_OPER, XHCI_USBCMD, XHCI_CMD_RS),
             xwrite(XHCI_PORT5, 0, XHCI_PORT_PP | XHCI_PORT_PR), clock()]

    def command(control: int, param: int, reads: List[bytes]) -> List[bytes]:
        return [*[pattern(p) for p in [trb(param, 0, control), *reads,
                                       NO_TRB]],
                xwrite(XHCI_DOORBELL, 0, 0), clear()]

    slot_ctx = struct.pack("<IIII", 1 << 27, XHCI_ROOT_PORT << 16, 0, 0)
    addressed = struct.pack("<IIII", 1 << 27, XHCI_ROOT_PORT << 16, 0,
                            2 << 27 | SLOT)
    up = [*start,
          *command(TRB_ENABLE_SLOT << 10, 0, []),
          *command(TRB_ADDRESS_DEV << 10 | SLOT << 24, XHCI_IN_CTX,
                   [struct.pack("<Q", XHCI_DEV_CTX),
                    struct.pack("<II", 0, 3), slot_ctx,
                    ep_ctx(4, 64, XHCI_TR_EP0)])]

    def control(setup_packet: bytes, data: bytes = b"", length: int = 0,
                ) -> List[bytes]:
        """A control TD on EP0: setup, an IN data stage of length or an
        OUT one of data, status."""
        request_type = setup_packet[0]
        n = len(data) or length
        trt = (3 if request_type & 0x80 else 2) if n else 0
        tds = [trb(struct.unpack("<Q", setup_packet)[0], 8,
                   TRB_SETUP << 10 | TRB_IDT | trt << 16)]
        if n:
            tds.append(trb(XHCI_BUF, n, TRB_DATA << 10 |
                           (1 << 16 if request_type & 0x80 else 0)))
        tds.append(trb(0, 0, TRB_STATUS << 10 | TRB_IOC |
                       (0 if request_type & 0x80 and n else 1 << 16)))
        # the data stage's buffer is mapped, IN or OUT: one read
        reads = [ep_ctx(4, 64, XHCI_TR_EP0), *tds, *tds,
                 *([data or bytes(n)] if n else [])]
        reads += [ep_ctx(4, 64, XHCI_TR_EP0), NO_TRB]
        return [*[pattern(p) for p in reads],
                xwrite(XHCI_DOORBELL, 4 * SLOT, 1), clock(), clear()]

    rx_dci, tx_dci = r["RTL8187_EP_RX"] * 2 + 1, r["RTL8187_EP_TX"] * 2
    configured = [
        *up, *control(setup(0, 9, 1, 0, 0)),
        *command(TRB_CONFIG_EP << 10 | SLOT << 24, XHCI_IN_CTX,
                 [struct.pack("<II", 0, 1 | 1 << rx_dci | 1 << tx_dci),
                  struct.pack("<IIII", max(rx_dci, tx_dci) << 27, 0, 0, 0),
                  addressed, ep_ctx(6, 512, XHCI_TR_IN),
                  ep_ctx(2, 512, XHCI_TR_OUT)])]
    reg = r["RTL8187_REG_BASE"]
    channel_6 = r["RTL8225_CHAN_BASE"] + 5 * r["RTL8225_CHAN_STEP"]
    tx = probe_tx(r)

    def bulk(ring: int, ep_type: int, data: bytes = b"",
             length: int = 0) -> List[bytes]:
        """The reads of a bulk TD: one TRB, OUT data or IN length."""
        td = trb(XHCI_BUF, len(data) or length,
                 TRB_NORMAL << 10 | TRB_IOC | TRB_ISP)
        return [ep_ctx(ep_type, 512, ring), td, td, data or bytes(length),
                ep_ctx(ep_type, 512, ring), NO_TRB]

    return {
        # enumerated up to Address Device, then the device descriptor
        "xhci-device-descriptor": [*up, *control(setup(0x80, 6, 0x0100, 0,
                                                       18), length=18)],
        # configured, a register read (the MAC, as the driver does)
        "xhci-register-read": [*configured, *control(setup(
            r["RTL8187_REQT_READ"], r["RTL8187_REQ_GET_REG"],
            reg | r["RTL8187_REG_MAC"], 0, 4), length=4)],
        # tune to channel 6, radio on, a probe request out (the AP
        # answers), the air read
        "xhci-tx-rx": [
            *configured,
            *control(setup(r["RTL8187_REQT_WRITE"], r["RTL8187_REQ_SET_REG"],
                           r["RTL8225_REG_CHANNEL"],
                           r["RTL8187_INDEX_RF8225"], 2),
                     struct.pack("<H", channel_6)),
            *control(setup(r["RTL8187_REQT_WRITE"], r["RTL8187_REQ_SET_REG"],
                           reg | r["RTL8187_REG_CMD"], 0, 1),
                     bytes([r["RTL8187_CMD_TX_ENABLE"] |
                            r["RTL8187_CMD_RX_ENABLE"]])),
            # the TX TD; then, when the AP's answer is queued, the device
            # wakes its bulk IN endpoint and the controller reads the RX TD
            *[pattern(p) for p in [*bulk(XHCI_TR_OUT, 2, tx),
                                   *bulk(XHCI_TR_IN, 6, length=1024)]],
            xwrite(XHCI_DOORBELL, 4 * SLOT, tx_dci),
            xwrite(XHCI_DOORBELL, 4 * SLOT, rx_dci), *[clock()] * 4],
    }


# EHCI (the EHCI 1.0 spec; QEMU's hw/usb/hcd-ehci.c): capabilities,
# operational registers and ports are three memory regions
EHCI_OPREG, EHCI_PORTS = 1, 2
EHCI_USBCMD, EHCI_ASYNCLISTADDR, EHCI_CONFIGFLAG = 0x00, 0x18, 0x40
EHCI_CMD_RS, EHCI_CMD_HCRESET, EHCI_CMD_ASE = 1 << 0, 1 << 1, 1 << 5
EHCI_PORT_PR, EHCI_PORT_PP = 1 << 8, 1 << 12
QTD_ACTIVE, QTD_IOC, QTD_DT = 1 << 7, 1 << 15, 1 << 31
QTD_OUT, QTD_IN, QTD_SETUP = 0, 1, 2
EHCI_QH, EHCI_QTD, EHCI_BUF = 0x800000, 0x801000, 0x802000
TERMINATE_PTR = 1


def ehci_qh(endpoint: int, max_packet: int) -> bytes:
    """A queue head, alone on the async list (its own next, H set), for
    device address 0, high speed, the toggle from each qTD, its overlay
    idle and pointing at the first qTD."""
    epchar = (endpoint << 8 | 2 << 12 | 1 << 14 | 1 << 15 |
              max_packet << 16)
    return struct.pack("<12I", EHCI_QH | 2, epchar, 1 << 30, 0, EHCI_QTD,
                       TERMINATE_PTR, 0, 0, 0, 0, 0, 0)


def ehci_qtds(*stages: Tuple[int, int, bytes]) -> List[bytes]:
    """The reads of a chain of qTDs (pid, length, OUT data) at EHCI_QTD,
    each 0x20 after the last, in QEMU's order: token, next, alternate
    next, the five buffer pointers (one dword each), then the buffer,
    mapped (a read, IN or OUT)."""
    out = []
    for n, (pid, length, data) in enumerate(stages):
        last = n == len(stages) - 1
        toggle = 0 if pid == QTD_SETUP or n == 0 else QTD_DT
        if n and n == len(stages) - 1 and len(stages) > 1:
            toggle = QTD_DT         # the status stage
        token = (QTD_ACTIVE | pid << 8 | 3 << 10 |
                 (QTD_IOC if last else 0) | length << 16 | toggle)
        nxt = TERMINATE_PTR if last else EHCI_QTD + 0x20 * (n + 1)
        out += [struct.pack("<I", v) for v in
                (token, nxt, TERMINATE_PTR, EHCI_BUF, 0, 0, 0, 0)]
        if length:
            out.append(data or bytes(length))
    return out


def ehci_seeds(r: Dict[str, int]) -> Dict[str, List[bytes]]:
    """Each frame reads the queue head twice (looking for the list's
    head, then fetching it; a dword at a time), then its qTDs: the
    patterns of one frame, so each frame repeats the transfer until the
    schedule is turned off."""
    start = [xwrite(EHCI_OPREG, EHCI_USBCMD, EHCI_CMD_HCRESET),
             xwrite(EHCI_OPREG, EHCI_CONFIGFLAG, 1),
             xwrite(EHCI_PORTS, 0, EHCI_PORT_PP | EHCI_PORT_PR),
             xwrite(EHCI_PORTS, 0, EHCI_PORT_PP),
             xwrite(EHCI_OPREG, EHCI_ASYNCLISTADDR, EHCI_QH)]

    def frame_of(endpoint: int, max_packet: int, reads: List[bytes]
                 ) -> List[bytes]:
        qh = ehci_qh(endpoint, max_packet)
        dwords = [qh[i:i + 4] for i in range(0, len(qh), 4)]
        return [*[pattern(p) for p in [*dwords, *dwords, *reads]],
                xwrite(EHCI_OPREG, EHCI_USBCMD, EHCI_CMD_RS | EHCI_CMD_ASE),
                clock(), clock(), xwrite(EHCI_OPREG, EHCI_USBCMD,
                                         EHCI_CMD_RS), clock(), clear()]

    def control_in(setup_packet: bytes, length: int) -> List[bytes]:
        return frame_of(0, 64, ehci_qtds((QTD_SETUP, 8, setup_packet),
                                         (QTD_IN, length, b""),
                                         (QTD_OUT, 0, b"")))

    def control_out(setup_packet: bytes, data: bytes) -> List[bytes]:
        return frame_of(0, 64, ehci_qtds((QTD_SETUP, 8, setup_packet),
                                         (QTD_OUT, len(data), data),
                                         (QTD_IN, 0, b"")))

    reg = r["RTL8187_REG_BASE"]
    channel_6 = r["RTL8225_CHAN_BASE"] + 5 * r["RTL8225_CHAN_STEP"]
    return {
        "ehci-device-descriptor": [*start, *control_in(
            setup(0x80, 6, 0x0100, 0, 18), 18)],
        "ehci-register-read": [*start, *control_in(setup(
            r["RTL8187_REQT_READ"], r["RTL8187_REQ_GET_REG"],
            reg | r["RTL8187_REG_MAC"], 0, 4), 4)],
        # configure, tune to channel 6, radio on, a probe request out
        # (the AP answers), the air read
        "ehci-tx-rx": [
            *start, *frame_of(0, 64, ehci_qtds(
                (QTD_SETUP, 8, setup(0, 9, 1, 0, 0)), (QTD_IN, 0, b""))),
            *control_out(setup(r["RTL8187_REQT_WRITE"],
                               r["RTL8187_REQ_SET_REG"],
                               r["RTL8225_REG_CHANNEL"],
                               r["RTL8187_INDEX_RF8225"], 2),
                         struct.pack("<H", channel_6)),
            *control_out(setup(r["RTL8187_REQT_WRITE"],
                               r["RTL8187_REQ_SET_REG"],
                               reg | r["RTL8187_REG_CMD"], 0, 1),
                         bytes([r["RTL8187_CMD_TX_ENABLE"] |
                                r["RTL8187_CMD_RX_ENABLE"]])),
            *frame_of(r["RTL8187_EP_TX"], 512, ehci_qtds(
                (QTD_OUT, len(probe_tx(r)), probe_tx(r)))),
            *frame_of(r["RTL8187_EP_RX"], 512, ehci_qtds(
                (QTD_IN, 1024, b""))), *[clock()] * 2],
    }


def main(argv: List[str]) -> int:
    corpus = pathlib.Path(argv[1]) if len(argv) > 1 else CORPUS
    rtl = {**constants(INCLUDE / "rtl8187_regs.h", "RTL8187_"),
           **constants(INCLUDE / "rtl8187_regs.h", "RTL8225_")}
    for config, found in (("qemu-bcm43xx", seeds(constants())),
                          ("qemu-rtl8187-uhci", uhci_seeds(rtl)),
                          ("qemu-rtl8187-xhci", xhci_seeds(rtl)),
                          ("qemu-rtl8187-ehci", ehci_seeds(rtl))):
        out = corpus / config
        out.mkdir(parents=True, exist_ok=True)
        for name, commands in found.items():
            (out / name).write_bytes(SEPARATOR.join(commands))
            print(f"{out / name}: {len(commands)} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
