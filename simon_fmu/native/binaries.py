"""What a shared library needs, read from the file itself (no binutils): the libraries an ELF
file names in its dynamic section (DT_NEEDED) and the DLLs a PE file imports, with its machine.
``doctor`` uses it to list a native FMU's binaries and their dependencies, and the
instruction-set levels each one carries its kernels at (:func:`kernel_levels`)."""
from __future__ import annotations

import struct
from pathlib import Path

#: what the text in a native library that names its kernels' levels starts with (the build
#: writes it, simon_fmu/native/build.py, kernel_entry_c)
LEVELS_TAG = "simon-native-levels:"

_ELF_MACHINES = {0x3E: "x86-64", 0xB7: "ARM64", 0x03: "x86", 0x28: "ARM"}
_PE_MACHINES = {0x8664: "x86-64", 0xAA64: "ARM64", 0x14C: "x86"}


def _elf(data: bytes) -> tuple[str, list[str]]:
    if data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    needed = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 6:                                  # SHT_DYNAMIC
            continue
        strtab = sections[link][4]
        for at in range(offset, offset + size, entsize or 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == 0:
                break
            if tag == 1:                               # DT_NEEDED
                end = data.index(b"\0", strtab + value)
                needed.append(data[strtab + value:end].decode())
    return _ELF_MACHINES.get(machine, f"machine {machine:#x}"), needed


def _pe(data: bytes) -> tuple[str, list[str]]:
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("not a PE file")
    machine, nsections = struct.unpack_from("<HH", data, pe + 4)
    opt_size = struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise ValueError("not a PE32+ (64-bit) file")
    import_rva = struct.unpack_from("<I", data, opt + 112 + 8)[0]   # data directory 1
    sections = [struct.unpack_from("<8sIIII", data, opt + opt_size + 40 * i)
                for i in range(nsections)]

    def offset(rva):
        for _, vsize, vaddr, rawsize, rawptr in sections:
            if vaddr <= rva < vaddr + max(vsize, rawsize):
                return rva - vaddr + rawptr
        raise ValueError(f"RVA {rva:#x} outside the sections")

    needed = []
    if import_rva:
        at = offset(import_rva)
        while True:
            name_rva = struct.unpack_from("<5I", data, at)[3]
            if name_rva == 0:
                break
            start = offset(name_rva)
            needed.append(data[start:data.index(b"\0", start)].decode())
            at += 20
    return _PE_MACHINES.get(machine, f"machine {machine:#x}"), needed


def dependencies(path) -> tuple[str, str, list[str]]:
    """(format, machine, the libraries it needs) of the shared library at ``path``."""
    data = Path(path).read_bytes()
    if data[:4] == b"\x7fELF":
        return ("ELF", *_elf(data))
    if data[:2] == b"MZ":
        return ("PE", *_pe(data))
    raise ValueError("neither an ELF nor a PE file")


def kernel_levels(path) -> list[str] | None:
    """The instruction-set levels a native library carries its kernels at, in the order it
    tries them (the widest one the processor runs is chosen, docs/native.md), from the text
    the build writes into it; None for a library without one (built before the levels)."""
    data = Path(path).read_bytes()
    at = data.find(LEVELS_TAG.encode())
    if at < 0:
        return None
    end = data.find(b"\0", at)
    return data[at + len(LEVELS_TAG):end].decode(errors="replace").split()
