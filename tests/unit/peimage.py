"""Small valid PE driver images for the host tests, built by hand: what
the wrapper's loader (wrapper/loader/pe.c, through `ndisconf --describe`)
accepts, with an import table of the given DLLs and names.

Layout (as tests/unit/c/pe_build.h, without relocations):
  headers  file 0x000, RVA 0x0000, 0x200 bytes
  .text    file 0x200, RVA 0x1000, 0x200 bytes (the entry point)
  .idata   file 0x400, RVA 0x2000, 0x1000 bytes: descriptors, DLL names,
           lookup tables, address tables, hint/name entries
  size of image 0x3000, image base 0x10000
"""
import struct
from typing import Dict, List, Optional

AMD64 = 0x8664
I386 = 0x14C

_IDATA_RVA, _IDATA_FILE, _IDATA_SIZE = 0x2000, 0x400, 0x1000


def _import_table(imports: Dict[str, List[str]], step: int) -> bytes:
    """The .idata section: every part at its own offset (the loader
    refuses an address table overlapping anything else)."""
    out = bytearray(_IDATA_SIZE)
    at = 20 * (len(imports) + 1)        # after the descriptors and their 0

    def take(size: int) -> int:
        nonlocal at
        start = at
        at = (at + size + 7) & ~7
        if at > _IDATA_SIZE:
            raise ValueError("imports do not fit the test image's .idata")
        return start

    for i, (dll, names) in enumerate(imports.items()):
        name_at = take(len(dll) + 1)
        out[name_at:name_at + len(dll)] = dll.encode()
        ilt = take(step * (len(names) + 1))
        iat = take(step * (len(names) + 1))
        for j, name in enumerate(names):
            hint = take(2 + len(name) + 1)
            out[hint + 2:hint + 2 + len(name)] = name.encode()
            for table in (ilt, iat):
                struct.pack_into("<Q" if step == 8 else "<I", out,
                                 table + j * step, _IDATA_RVA + hint)
        struct.pack_into("<IIIII", out, 20 * i, _IDATA_RVA + ilt, 0, 0,
                         _IDATA_RVA + name_at, _IDATA_RVA + iat)
    return bytes(out)


def pe_image(machine: int = AMD64,
             imports: Optional[Dict[str, List[str]]] = None,
             subsystem: int = 1, magic: Optional[int] = None) -> bytes:
    """A driver image of machine (PE32+ for amd64, PE32 for i386 unless
    magic says otherwise) importing imports ({dll: [names]})."""
    imports = ({"ntoskrnl.exe": ["KeSetEvent"]} if imports is None
               else imports)
    pe64 = machine != I386
    fixed = 112 if pe64 else 96
    optsize = fixed + 16 * 8
    data = bytearray(_IDATA_FILE + _IDATA_SIZE)
    data[0:2] = b"MZ"
    struct.pack_into("<I", data, 0x3C, 0x80)
    data[0x80:0x84] = b"PE\0\0"
    # machine, 2 sections, optional header size, EXECUTABLE_IMAGE
    # (+ 32BIT_MACHINE on i386)
    struct.pack_into("<HHIIIHH", data, 0x84, machine, 2, 0, 0, 0, optsize,
                     0x0022 if pe64 else 0x0102)
    opt = 0x98
    struct.pack_into("<H", data, opt,
                     magic if magic is not None else
                     (0x20B if pe64 else 0x10B))
    struct.pack_into("<I", data, opt + 16, 0x1000)      # entry point
    if pe64:
        struct.pack_into("<Q", data, opt + 24, 0x10000)
    else:
        struct.pack_into("<I", data, opt + 28, 0x10000)
    struct.pack_into("<II", data, opt + 32, 0x1000, 0x200)  # alignments
    struct.pack_into("<II", data, opt + 56, 0x3000, 0x200)  # sizes
    struct.pack_into("<H", data, opt + 68, subsystem)
    struct.pack_into("<I", data, opt + fixed - 4, 16)
    struct.pack_into("<II", data, opt + fixed + 8, _IDATA_RVA,
                     20 * (len(imports) + 1))
    sect = opt + optsize
    for i, (name, rva, raw, size, flags) in enumerate((
            (b".text", 0x1000, 0x200, 0x200, 0x60000020),
            (b".idata", _IDATA_RVA, _IDATA_FILE, _IDATA_SIZE, 0xC0000040))):
        s = sect + 40 * i
        data[s:s + 8] = name.ljust(8, b"\0")
        struct.pack_into("<IIII", data, s + 8, size, rva, size, raw)
        struct.pack_into("<I", data, s + 36, flags)
    data[0x200] = 0xC3                                   # ret
    data[_IDATA_FILE:] = _import_table(imports, 8 if pe64 else 4)
    return bytes(data)
