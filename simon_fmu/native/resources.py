"""The native FMU's resources file, ``resources/native.bin``: every array the C runtime needs.

Layout (little-endian; docs/native.md)::

    offset 0   8 bytes   magic b"SIMONNAT"
           8   u32       format version (1)
          12   u32       number of arrays
          16   u64       FNV-1a 64-bit digest of every byte from offset 32 to the end
          24   u64       total file size in bytes
          32   the arrays, one after the other, each starting at a multiple of 8:
               u32 name length, the name (ASCII, no NUL), zero padding to a multiple of 8
               u32 dtype (1 float64, 2 int64, 3 uint8), u32 ndim (0..4)
               u64 shape[ndim]
               u64 byte count, then the bytes (C order), zero padding to a multiple of 8

The names of the kernels' arguments follow ``simon_fmu.native.kernels.flatten`` (``y``,
``work``, ``U.u_unit``, ``P.P_UNIT``, ``Y.y_tire``, ``W.scratch`` ...); the tables the runtime
reads (variables, input checks, messages) are described in docs/native.md.
"""
from __future__ import annotations

import struct
from typing import Iterable

import numpy as np

from ..runtime.checksum import fnv1a64

#: its name in the FMU's resources/ (simon_native.c's SN_FILE)
RESOURCE_FILE = "native.bin"
MAGIC = b"SIMONNAT"
VERSION = 1
#: what the runtime does with a parameter, the items of its ``tune.kind`` array
#: (simon_fmu.native.tuning): keep its start value, apply its rows, the step, only zero
FIXED, TUNABLE, STEP, ZERO_ONLY = 0, 1, 2, 3
_DTYPES = {np.dtype(np.float64): 1, np.dtype(np.int64): 2, np.dtype(np.uint8): 3}
_HEADER = struct.Struct("<8sIIQQ")
#: a serialised FMU state of a native FMU (simon_native.c, ``sn_state_header``, in the byte
#: order of the platform that wrote it): magic, its size in bytes, its checksum, the clocks
#: (start, communication, time, grid), the grid's steps, phase, failed, the last step's status,
#: the step, the failure text, the GUID of the FMU whose state it is;
#: then the arrays an FMU state holds, in the resources file's order, ``y`` first
STATE_MAGIC = b"SIMONSTA"
_STATE_HEADER = struct.Struct("=8sQQ4d4qd1024s128s")


def _pad(n: int) -> bytes:
    return b"\0" * (-n % 8)


def texts(strings: Iterable[str]) -> np.ndarray:
    """Strings as one uint8 array, each ended by a NUL."""
    return np.frombuffer(b"".join(s.encode() + b"\0" for s in strings), np.uint8).copy()


def pack(arrays: dict) -> bytes:
    """The file holding ``arrays`` ({name: numpy array of float64, int64 or uint8})."""
    body = bytearray()
    for name, value in arrays.items():
        a = np.ascontiguousarray(value)
        if a.dtype not in _DTYPES:
            raise TypeError(f"{name}: dtype {a.dtype} cannot be stored")
        if a.ndim > 4:
            raise ValueError(f"{name}: at most 4 dimensions")
        raw = name.encode("ascii")
        body += struct.pack("<I", len(raw)) + raw
        body += _pad(4 + len(raw))
        body += struct.pack("<II", _DTYPES[a.dtype], a.ndim)
        body += struct.pack(f"<{a.ndim}Q", *a.shape)
        data = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        body += struct.pack("<Q", len(data)) + data + _pad(len(data))
    size = _HEADER.size + len(body)
    return _HEADER.pack(MAGIC, VERSION, len(arrays), fnv1a64(bytes(body)), size) + bytes(body)


def unpack(blob: bytes) -> dict:
    """The arrays of a file :func:`pack` wrote (checks its magic, version, size and digest)."""
    magic, version, count, digest, size = _HEADER.unpack_from(blob)
    if magic != MAGIC or version != VERSION or size != len(blob):
        raise ValueError("not a native FMU resources file of version 1")
    if fnv1a64(blob[_HEADER.size:]) != digest:
        raise ValueError("the resources file is corrupt (digest)")
    out, at = {}, _HEADER.size
    codes = {v: k for k, v in _DTYPES.items()}
    for _ in range(count):
        (n,) = struct.unpack_from("<I", blob, at)
        name = blob[at + 4:at + 4 + n].decode()
        at += 4 + n + (-(4 + n) % 8)
        dtype, ndim = struct.unpack_from("<II", blob, at)
        shape = struct.unpack_from(f"<{ndim}Q", blob, at + 8)
        at += 8 + 8 * ndim
        (nbytes,) = struct.unpack_from("<Q", blob, at)
        at += 8
        out[name] = np.frombuffer(blob[at:at + nbytes], codes[dtype]).reshape(shape)
        at += nbytes + (-nbytes % 8)
    return out


def state_vector(blob: bytes, arrays: dict) -> np.ndarray:
    """The engine's state vector y (engine.layout) in a serialised FMU state of the native FMU
    whose resources file holds ``arrays`` (:func:`unpack`): the first array after the state's
    header (docs/native.md, "FMU state"). ValueError saying why when the bytes are not one."""
    blob = bytes(blob)
    names = list(arrays)
    if not names or names[0] != "y":
        raise ValueError("the resources file does not hold the state y first")
    y = arrays["y"]
    if len(blob) < _STATE_HEADER.size or blob[:len(STATE_MAGIC)] != STATE_MAGIC:
        raise ValueError("not a serialised FMU state of a native FMU")
    size = _STATE_HEADER.unpack_from(blob)[1]
    if size != len(blob) or size < _STATE_HEADER.size + y.nbytes:
        raise ValueError(f"a serialised FMU state of {len(blob)} bytes whose header says "
                         f"{size}: cut short or extended, or not of this FMU")
    return np.frombuffer(blob, y.dtype, y.size, _STATE_HEADER.size).reshape(y.shape).copy()
