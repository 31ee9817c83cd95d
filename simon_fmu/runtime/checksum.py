"""FNV-1a 64, the checksum of the project's binary files: the native FMU's resources file
(simon_fmu.native.resources, simon_native.c) and the FMI library's serialised FMU states
(simon_fmu.vehicle.slave, fmi2_state.c). An integrity check, not a signature."""
from __future__ import annotations

#: the published 64-bit offset basis (the native FMU's resources file)
FNV_BASIS = 0xcbf29ce484222325
#: the FMI library's basis, 1469598103934665603: the published 14695981039346656037 without
#: its last digit, as fmi2_state.c has it (a checksum only has to agree with itself)
STATE_BASIS = 1469598103934665603
FNV_PRIME = 0x100000001b3
_MASK = (1 << 64) - 1


def fnv1a64(data: bytes, basis: int = FNV_BASIS) -> int:
    """The FNV-1a 64-bit hash of ``data`` from offset ``basis``."""
    h = basis
    for byte in bytes(data):     # a few hundred KB at most: fast enough where it is used
        h = ((h ^ byte) * FNV_PRIME) & _MASK
    return h
