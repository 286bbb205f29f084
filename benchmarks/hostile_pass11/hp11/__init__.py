# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of an eleventh independent pass on ``--isolate`` (benchmarks/hostile_pass11).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import re
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.sbrk.restype = ctypes.c_void_p
LIBC.sbrk.argtypes = [ctypes.c_long]
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = 4096


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


class Once(Planner):
    """Runs ``attack(view)`` once, at the first decision, then plays as a planner."""

    NAME = "Once"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.attack(view)
            except Exception as exc:
                say(self.NAME, f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)

    def attack(self, view) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


# ------------------------------------------------ the host's heap, inherited by each game
def _mapped(address: int) -> bool:
    """Whether a page is mapped: madvise(MADV_NORMAL) is allowed and says ENOMEM if not."""
    return LIBC.madvise(address, PAGE, 0) == 0


def heap() -> tuple[int, bytes]:
    """The brk heap this process inherited from its host (the fork copies all of it)."""
    top = LIBC.sbrk(0) // PAGE * PAGE
    low = top
    while low - PAGE > 0 and top - low < (1 << 30) and _mapped(low - PAGE):
        low -= PAGE
    return low, ctypes.string_at(low, top - low)


MARK = b"HP11" + b"NOTE="  # built at run time, so the code's own constant never matches
NOTE = re.compile(re.escape(MARK) + rb"([0-9a-f]{8}):([0-9,]+)=E")


class HeapNote(Once):
    """Memory across games of one host: what a game writes on stderr its host reads into
    its own heap (``guest._copy_stderr``: ``os.pread`` of the game's memory file) and frees;
    the next game's process is a fork of that host, so it finds the freed buffer in its own
    memory. Each game reads the notes left before it, then leaves its hand and a token."""

    NAME = "HeapNote"

    def attack(self, view) -> None:
        start = time.perf_counter()
        low, data = heap()
        found = sorted({(m.group(1).decode(), m.group(2).decode()) for m in NOTE.finditer(data)})
        took = time.perf_counter() - start
        token = os.urandom(4).hex()
        hand = ",".join(str(c) for c in view.hand)
        say(
            self.NAME,
            f"seat {view.seat} token {token} hand [{hand}]; heap {len(data) >> 10} KiB scanned in {took:.2f} s; "
            f"notes of earlier games found: {found if found else 'none'}",
        )
        # many copies, over several of the host's 64 KiB reads: a freed buffer below the top
        # of the heap is not given back, and the next reads overwrite only their start
        line = MARK + f"{token}:{hand}=E\n".encode()
        os.write(2, line * (self.COPIES // len(line) + 1))

    COPIES = 200_000


def regions(around: list[int], span: int = 1 << 26) -> list[tuple[int, int]]:
    """Mapped runs of pages within ``span`` of each address (no /proc: probed by madvise)."""
    out: list[tuple[int, int]] = []
    seen: set[int] = set()
    for centre in around:
        base = centre // PAGE * PAGE
        for start in range(max(base - span, PAGE), base + span, PAGE):
            if start in seen:
                continue
            seen.add(start)
            if LIBC.madvise(start, PAGE, 0) == 0 and readable(start, PAGE):
                out.append((start, PAGE))
    return out


_SINK: list[int] = []


def readable(address: int, size: int) -> bool:
    """Whether memory can be read: write(2) of it to a file says EFAULT, never a crash."""
    if not _SINK:
        _SINK.append(os.open("/tmp/game/.sink" if os.path.isdir("/tmp/game") else "/tmp/.sink", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600))
    os.lseek(_SINK[0], 0, 0)
    return LIBC.write(_SINK[0], ctypes.c_void_p(address), ctypes.c_size_t(size)) == size


class HeapDebug(Once):
    """Where the host's data lies in a game's memory: the brk heap and 64 KiB blocks near it."""

    NAME = "HeapDebug"

    def attack(self, view) -> None:
        low, data = heap()
        probes = [b"HOSTILE " + b"HeapDebug: seat", b'"op": ' + b'"game"', b'"op": "' + b'decide', b"game-" + b"stderr"]
        say(self.NAME, f"heap at {low:#x} {len(data) >> 10} KiB: " + ", ".join(f"{p[:12]!r}: {data.count(p)}" for p in probes))
        say(self.NAME, f"seat {view.seat} marker line for the next game")
