"""Hostile strategies of pass 31s on ``--isolate`` (benchmarks/hostile_pass31s).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.syscall.argtypes = [ctypes.c_long] * 7
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
LIBC.munmap.restype = ctypes.c_int
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIBC.prctl.restype = ctypes.c_int
LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def say(name: str, text: str) -> None:
    """A report line on stderr, which the run relays marked as the guest's."""
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def key() -> str:
    """The run's parameter (hp31s/key.txt, written by run.sh)."""
    try:
        return (Path(__file__).parent / "key.txt").read_text().strip()
    except OSError:
        return ""


def call(nr: int, *args: int) -> tuple[int, int]:
    """(return value, errno) of a raw system call."""
    ctypes.set_errno(0)
    full = list(args) + [0] * (6 - len(args))
    ret = LIBC.syscall(nr, *full)
    return ret, (ctypes.get_errno() if ret == -1 else 0)
