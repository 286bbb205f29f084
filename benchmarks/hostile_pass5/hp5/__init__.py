# ruff: noqa: B023  (attack code: short-lived threads and files)
"""Hostile strategies of a fifth independent pass on ``--isolate`` (benchmarks/hostile_pass5).

A package, so that its folder (bound read-only into the sandbox) holds a data file of its own
(``blob.bin``, made by run.sh). Each plays like a planner and reports on stderr
(``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import threading
import time

from sims.strategies.planner import Planner

HERE = os.path.dirname(__file__)
BLOB = os.path.join(HERE, "blob.bin")
PAGE = 4096
MADV_COLD, MADV_PAGEOUT = 20, 21
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
LIBC.syscall.restype = ctypes.c_long


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def errno_text() -> str:
    return os.strerror(ctypes.get_errno())


# ------------------------------------------------------------ page cache: eviction by madvise
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]  # fmt: skip
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def pageout(pages: int, first: int = 0) -> tuple[int, str]:
    """Touch, then MADV_PAGEOUT, pages [first, first+pages) of the blob; (result, error)."""
    fd = os.open(BLOB, os.O_RDONLY)
    length = pages * PAGE
    addr = LIBC.mmap(None, length, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, first * PAGE)
    os.close(fd)
    if addr in (None, ctypes.c_void_p(-1).value):
        return -1, "mmap: " + errno_text()
    for i in range(pages):  # map each page into this process (mapcount 1)
        ctypes.c_char.from_address(addr + i * PAGE).value
    result = LIBC.madvise(addr, length, MADV_PAGEOUT)
    error = "" if result == 0 else errno_text()
    LIBC.munmap(addr, length)
    return result, error


def timed(pages: list[int]) -> list[float]:
    """Microseconds one byte of each page takes to read (pread: no readahead past it with
    small reads? the kernel's readahead is per descriptor, so a fresh one per page)."""
    out = []
    for i in pages:
        fd = os.open(BLOB, os.O_RDONLY)
        t = time.perf_counter()
        os.pread(fd, 1, i * PAGE)
        out.append((time.perf_counter() - t) * 1e6)
        os.close(fd)
    return out


BITS = 32  # pages used as bits, spaced so that readahead of one never reaches the next
SPACING = 64  # pages between two bits (256 KiB > the default 128 KiB readahead window)
MARK = 0b1011  # 4 bits that say "a value was written here"


def cache_bits() -> list[int]:
    """Read the BITS bits (cached = 1), then evict them all again (reading set them)."""
    times = timed([k * SPACING for k in range(BITS)])
    return [int(t < 15.0) for t in times]


def cache_set(bits: list[int]) -> str:
    """Evict every bit page (MADV_PAGEOUT), then read in those of the 1 bits."""
    errors = set()
    for k in range(BITS):
        result, error = pageout(1, k * SPACING)
        if result:
            errors.add(error)
    fd = os.open(BLOB, os.O_RDONLY)
    for k, bit in enumerate(bits):
        if bit:
            os.pread(fd, 1, k * SPACING * PAGE)
    os.close(fd)
    return ",".join(sorted(errors)) or "ok"


def to_bits(value: int, width: int) -> list[int]:
    return [(value >> k) & 1 for k in range(width)]


def from_bits(bits: list[int]) -> int:
    return sum(b << k for k, b in enumerate(bits))


class PageoutMemo(Planner):
    """Memory across games (and runs) through the page cache, read *and* write: eviction by
    ``madvise(MADV_PAGEOUT)`` on a private mapping of its own file (``fadvise64`` and
    ``readahead`` are refused, ``mmap(MAP_PRIVATE)`` and ``madvise`` are not). Each game
    reads a 4-bit mark and a 28-bit value the game before left, and writes value * 3 + 1."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            bits = cache_bits()
            mark, value = from_bits(bits[:4]), from_bits(bits[4:])
            new = (value * 3 + 1) % (1 << 28) if mark == MARK else 1
            how = cache_set(to_bits(MARK, 4) + to_bits(new, 28))
            check = cache_bits()  # reading sets every bit: write again
            cache_set(to_bits(MARK, 4) + to_bits(new, 28))
            said = f"mark {mark:#x} value {value}" if mark == MARK else f"no mark ({mark:#x})"
            say("PageoutMemo", f"seat {view[0]}: the previous game left {said}; leaving {new} "
                f"(pageout {how}; read back {from_bits(check[4:])}, mark {from_bits(check[:4]):#x})")  # fmt: skip
        return super().decide(view)


class EvictProbe(Planner):
    """What a page's read time is before and after MADV_PAGEOUT / MADV_COLD / MADV_DONTNEED,
    on the blob (its own file) and on a file of Python's standard library that every
    sandbox binds."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            fd = os.open(BLOB, os.O_RDONLY)
            os.pread(fd, 1, 5 * PAGE)
            os.close(fd)
            warm = timed([5])[0]
            result, error = pageout(1, 5)
            cold = timed([5])[0]
            say("EvictProbe", f"blob page 5: {warm:.1f} us cached, MADV_PAGEOUT -> {result} "
                f"{error or 'ok'}, then {cold:.1f} us")  # fmt: skip
            import json as stdlib_file

            path = stdlib_file.__file__.replace("__init__.py", "decoder.py")
            fd = os.open(path, os.O_RDONLY)
            size = os.fstat(fd).st_size
            addr = LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
            ctypes.c_char.from_address(addr).value
            t = time.perf_counter()
            os.pread(fd, 1, 0)
            warm = (time.perf_counter() - t) * 1e6
            result = LIBC.madvise(addr, size, MADV_PAGEOUT)
            error = errno_text() if result else "ok"
            LIBC.munmap(addr, size)
            os.close(fd)
            fd = os.open(path, os.O_RDONLY)
            t = time.perf_counter()
            os.pread(fd, 1, 0)
            cold = (time.perf_counter() - t) * 1e6
            os.close(fd)
            st = os.stat(path)
            say("EvictProbe", f"{path} (owner uid {st.st_uid}, I am uid {os.getuid()}): "
                f"{warm:.1f} us cached, MADV_PAGEOUT -> {result} {error}, then {cold:.1f} us")  # fmt: skip
        return super().decide(view)


# ------------------------------------------------------------ the seccomp filter's ABIs
I386_GETPID, I386_FADVISE64 = 20, 250
X32 = 0x40000000


def _code(machine: bytes):
    """``machine`` code in an executable anonymous mapping, as a C function returning int."""
    size = PAGE
    addr = LIBC.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)  # fmt: skip
    if addr in (None, ctypes.c_void_p(-1).value):
        return None, "mmap PROT_EXEC: " + errno_text()
    ctypes.memmove(addr, machine, len(machine))
    return ctypes.CFUNCTYPE(ctypes.c_int)(addr), "ok"


def in_thread(call, seconds: float = 3.0) -> str:
    """``call()`` in a thread of its own (a seccomp kill takes that thread only)."""
    box: list[str] = []

    def run():
        try:
            box.append(repr(call()))
        except BaseException as exc:
            box.append(f"raised {exc!r}")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else "the thread never returned (killed by the filter?)"


class AbiProbe(Planner):
    """Syscalls through the other ABIs of x86-64: i386 (``int 0x80``) and x32 (number |
    0x40000000). A filter built for the native ABI only would let them all through
    (fork, kill, fadvise64, mount ...)."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            say("AbiProbe", f"native getpid {os.getpid()}")
            # mov eax, 20 ; int 0x80 ; ret
            getpid32, how = _code(b"\xb8" + I386_GETPID.to_bytes(4, "little") + b"\xcd\x80\xc3")
            if getpid32 is None:
                say("AbiProbe", how)
            else:
                say("AbiProbe", f"i386 int 0x80 getpid: {in_thread(getpid32)}")
            x32 = in_thread(lambda: (LIBC.syscall(X32 | 39), errno_text()))
            say("AbiProbe", f"x32 getpid (0x40000027): {x32}")
            # the native fadvise64 for comparison (refused: EPERM)
            fd = os.open(BLOB, os.O_RDONLY)
            native = LIBC.syscall(221, fd, 0, 0, 4)
            say("AbiProbe", f"native fadvise64 DONTNEED -> {native} {errno_text()}")
            os.close(fd)
        return super().decide(view)


# ------------------------------------------------------------ /proc of its own pid namespace
PROC_FILES = (
    "/proc/loadavg", "/proc/stat", "/proc/meminfo", "/proc/self/cgroup", "/proc/1/cgroup",
    "/proc/1/status", "/proc/1/maps", "/proc/1/environ", "/proc/1/cmdline", "/proc/1/stack",
    "/proc/1/root", "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/random/boot_id",
    "/proc/sys/kernel/pid_max", "/proc/sys/kernel/ns_last_pid", "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr", "/proc/pressure/cpu", "/proc/pressure/io", "/proc/diskstats",
    "/proc/schedstat", "/proc/sched_debug", "/proc/timer_list", "/proc/kallsyms",
    "/proc/self/mountinfo", "/proc/self/attr/current", "/proc/self/loginuid",
    "/proc/vmstat", "/proc/interrupts", "/proc/key-users", "/proc/sysvipc/shm",
    "/proc/sys/vm/drop_caches", "/proc/self/setgroups", "/proc/self/uid_map",
    "/proc/self/status",
)  # fmt: skip


class ProcScan(Planner):
    """What its own /proc shows of the machine, its host and the run (a pid namespace of its
    own hides processes, not the kernel's machine-wide files)."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            say("ProcScan", f"pids: {sorted(p for p in os.listdir('/proc') if p.isdigit())}")
            for path in PROC_FILES:
                try:
                    with open(path, "rb") as f:
                        data = f.read(4000)
                    lines = data.decode(errors="replace").splitlines()
                    keep = [ln for ln in lines if any(k in ln for k in (
                        "processes", "procs_running", "MemFree", "Threads", "Cap", "Seccomp",
                        "NoNewPrivs", "cpu ", "cardgame", "/work", "some", "guest", "0 ",
                    ))][:4] or lines[:2]  # fmt: skip
                    say("ProcScan", f"{path}: read {len(data)} bytes: {keep}"[:400])
                except OSError as exc:
                    say("ProcScan", f"{path}: {exc.strerror}")
            try:
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("1")
                say("ProcScan", "drop_caches WRITTEN")
            except OSError as exc:
                say("ProcScan", f"drop_caches write: {exc.strerror}")
        return super().decide(view)


# ------------------------------------------------------------ the deal from public seeds
ROOTS = (2026, 0, 1, 2, 3, 7, 42, 1234, 12345, 2024, 2025, 31337, *range(4, 42))


class SeedPeek(Planner):
    """Learn the deal without the RNG: the game's seed is (root seed, "deals/<n>p", deal
    index) through public functions, and the root of an ad-hoc run is the default study's
    (2026), of a study its file's. Deal each candidate with the engine the sandbox binds
    (``cardgame``), keep the one whose view of this seat matches its own opening hand and
    ticket offer: that one's rival hands and deck order are the game's."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            self._peek(view)
        return super().decide(view)

    def _peek(self, view):
        from cardgame.game import Game
        from sims.seeding import deal_key, game_seed

        seat, players, hand, offers = view[0], view[2], tuple(view[7]), tuple(view[9])
        rules = view[23]
        start = time.perf_counter()
        tried = 0
        for root in ROOTS:
            for index in range(200):
                seed = game_seed(root, deal_key(players), index)
                state = Game(players, seed, rules).new_state()
                mine = state.view(seat)
                tried += 1
                if tuple(mine[7]) == hand and tuple(mine[9]) == offers:
                    rivals = [(s, list(state.view(s)[7]), list(state.view(s)[9]))
                              for s in range(players) if s != seat]  # fmt: skip
                    say("SeedPeek", f"seat {seat}: the game's seed is {seed} (root {root}, deal "
                        f"{index}) after {tried} deals in {time.perf_counter() - start:.2f} s; "
                        f"rivals' opening hands and offers: {rivals}")  # fmt: skip
                    return
        say("SeedPeek", f"seat {seat}: no match in {tried} deals")
