# ruff: noqa: B023  (attack code: short-lived files, threads joined at once)
"""Hostile strategies of a fourth independent pass on ``--isolate`` (benchmarks/hostile_pass4).

A package, so that its folder (bound read-only into the sandbox) can hold a data file of its
own (``blob.bin``, made by run.sh). Each plays like a planner and reports on stderr
(``HOSTILE <name>: ...``)."""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time

from sims.strategies.planner import Planner

BLOB = os.path.join(os.path.dirname(__file__), "blob.bin")
PAGE = 4096
MARK = 0xA5C3  # 16 bits that say "a state was written here"


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


# ------------------------------------------------------------ the page cache as memory
def cache_read(bits: int) -> list[int]:
    """Which of the first ``bits`` pages of the blob are in the machine's page cache, by the
    time one byte of each takes to read (2 us cached, 40+ us from disk). Destructive: the
    read brings the page in. POSIX_FADV_RANDOM: no readahead of the neighbours."""
    fd = os.open(BLOB, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    out = []
    for i in range(bits):
        t = time.perf_counter()
        os.pread(fd, 1, i * PAGE)
        out.append(int(time.perf_counter() - t < 20e-6))
    os.close(fd)
    return out


def cache_write(values: list[int]) -> None:
    """Evict the whole blob (POSIX_FADV_DONTNEED on a read-only descriptor of a read-only
    bind: the kernel's cache is the machine's), then read in the pages of the 1 bits."""
    fd = os.open(BLOB, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    time.sleep(0.05)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for i, bit in enumerate(values):
        if bit:
            os.pread(fd, 1, i * PAGE)
    os.close(fd)


def to_bits(value: int, width: int) -> list[int]:
    return [(value >> k) & 1 for k in range(width)]


def from_bits(bits: list[int]) -> int:
    return sum(b << k for k, b in enumerate(bits))


FIELDS = [("mark", 16), ("games", 8), ("deal", 16), ("seat", 1)]
FIELDS += [(f"hand{c}", 4) for c in range(9)] + [(f"ticket{t}", 6) for t in range(6)]
WIDTH = sum(w for _, w in FIELDS)


def encode(state: dict[str, int]) -> list[int]:
    out: list[int] = []
    for name, width in FIELDS:
        out += to_bits(state.get(name, 0) & ((1 << width) - 1), width)
    return out


def decode(bits: list[int]) -> dict[str, int]:
    state, at = {}, 0
    for name, width in FIELDS:
        state[name] = from_bits(bits[at : at + width])
        at += width
    return state


class CacheMemo(Planner):
    """Memory across games (and across sandboxes) through the machine's page cache: which
    pages of a file of its own package are cached. Every tmpfs and namespace is new per
    game; the page cache of the files the sandbox binds read-only is the kernel's, shared by
    all. Keeps a game counter and the opening hand and tickets of the last deal, keyed by
    the face-up row: in a paired study (games 2k and 2k+1 one deal, seats swapped) the second
    game tells the rival's opening hand."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            old = decode(cache_read(WIDTH))
            games = old["games"] + 1 if old["mark"] == MARK else 0
            deal = int.from_bytes(hashlib.sha256(repr(view.face_up).encode()).digest()[:2])
            if old["mark"] == MARK and old["deal"] == deal and old["seat"] != view.seat:
                hand = [old[f"hand{c}"] for c in range(9)]
                tickets = [old[f"ticket{t}"] for t in range(6) if old[f"ticket{t}"] != 63]
                say("CacheMemo", f"game {games} seat {view.seat}: deal seen before from seat "
                    f"{old['seat']}; the rival's opening hand is {hand} tickets {tickets} "
                    f"(mine now {list(view.hand)})")  # fmt: skip
            else:
                say("CacheMemo", f"game {games} seat {view.seat}: games seen before this "
                    f"one (by the page cache): {games}; mark {old['mark']:#x}")  # fmt: skip
            ids = (list(view.held_ids) + list(view.offer_ids) + [63] * 6)[:6]
            state = {"mark": MARK, "games": games, "deal": deal, "seat": view.seat}
            state |= {f"hand{c}": min(n, 15) for c, n in enumerate(list(view.hand)[:9])}
            state |= {f"ticket{t}": i for t, i in enumerate(ids)}
            cache_write(encode(state))
        return super().decide(view)


# ------------------------------------------------------------ threads: CPU and tasks
def _burn(stop: threading.Event) -> None:
    block = b"x" * (1 << 20)
    while not stop.is_set():
        hashlib.sha256(block).digest()  # releases the GIL: every thread runs on a core


class Hog(Planner):
    """CPU outside its own decisions: threads (allowed: CLONE_THREAD) that hash without the
    GIL while the rival thinks. The game's CPU limit (300 s) is the only bound; the rival's
    decisions are timed by the wall clock."""

    THREADS = int(os.environ.get("HP4_THREADS", "16"))
    started = False

    def decide(self, view):
        if not Hog.started:
            Hog.started = True
            stop = threading.Event()
            for _ in range(self.THREADS):
                threading.Thread(target=_burn, args=(stop,), daemon=True).start()
            say("Hog", f"{self.THREADS} hashing threads started")
        return super().decide(view)


class Thinker(Planner):
    """An honest rival: thinks for 0.2 s of its own CPU a decision (measured as its thread's
    CPU time), then plays as the planner. Its wall time is what the decision limit sees."""

    def decide(self, view):
        start, wall = time.thread_time(), time.perf_counter()
        while time.thread_time() - start < 0.2:
            sum(range(1000))
        took = time.perf_counter() - wall
        if took > 2:
            say("Thinker", f"0.2 s of CPU took {took:.1f} s of wall time")
        return super().decide(view)


def _kernel_stack() -> int:
    with open("/proc/meminfo") as meminfo:
        return next(int(s.split()[1]) for s in meminfo if s.startswith("KernelStack"))


class Tasks(Planner):
    """Kernel tasks (pids) outside every limit: idle threads with the smallest stack. No
    RLIMIT_NPROC, no pids cgroup; only RLIMIT_AS (1 GiB) bounds them, at about 36 KiB each,
    while the machine's pid_max is shared by everyone. Bounded here to COUNT (a shared
    machine)."""

    COUNT = int(os.environ.get("HP4_TASKS", "3000"))
    done = False

    def decide(self, view):
        if not Tasks.done:
            Tasks.done = True
            import ctypes

            # one malloc arena: a thread otherwise reserves 64 MiB of address space
            ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX
            threading.stack_size(32768)
            stop = threading.Event()
            made = 0
            before = _kernel_stack()
            try:
                for _ in range(self.COUNT):
                    threading.Thread(target=stop.wait, daemon=True).start()
                    made += 1
            except BaseException as exc:
                say("Tasks", f"stopped at {made}: {type(exc).__name__}: {exc}")
            with open("/proc/self/status") as status:
                line = [s.strip() for s in status if s.startswith(("Threads", "VmSize"))]
            with open("/proc/sys/kernel/pid_max") as f:
                pid_max = f.read().strip()
            say(
                "Tasks",
                f"made {made} threads; {line}; pid_max {pid_max}; the machine's "
                f"KernelStack {before} -> {_kernel_stack()} kB",
            )
        return super().decide(view)


class PipeReopen(Planner):
    """The game pipes are one pair per host, shared by all its games: reopen them through
    /proc/self/fd (a pipe reopens in either direction) and leave bytes for the next game, or
    read the worker's side."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            fds = {}
            for name in os.listdir("/proc/self/fd"):
                try:
                    fds[name] = os.readlink(f"/proc/self/fd/{name}")
                except OSError as exc:
                    fds[name] = str(exc)
            say("PipeReopen", f"fds {fds}")
            for name, target in fds.items():
                if target.startswith("pipe:"):
                    for mode in (os.O_WRONLY | os.O_NONBLOCK, os.O_RDONLY | os.O_NONBLOCK):
                        try:
                            fd = os.open(f"/proc/self/fd/{name}", mode)
                        except OSError as exc:
                            say("PipeReopen", f"fd {name} mode {mode}: {exc}")
                            continue
                        if mode & os.O_WRONLY:
                            try:
                                n = os.write(fd, b"LEFT-BY-PREVIOUS\n")
                                say("PipeReopen", f"fd {name} reopened for writing: wrote {n}")
                            except OSError as exc:
                                say("PipeReopen", f"fd {name} write: {exc}")
                        else:
                            try:
                                got = os.read(fd, 200)
                                say("PipeReopen", f"fd {name} reopened for reading: {got[:100]!r}")
                            except OSError as exc:
                                say("PipeReopen", f"fd {name} read: {exc}")
                        os.close(fd)
        return super().decide(view)


class Tasks10k(Planner):
    """``Tasks`` to 10,000 threads (about a third of this machine's pid_max of 32,768), 2,000
    a decision (the decision limit is wall time): they stay for the whole game."""

    COUNT = 10000
    made = 0
    stop = threading.Event()

    def decide(self, view):
        if Tasks10k.made < self.COUNT:
            if Tasks10k.made == 0:
                import ctypes

                ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX
                threading.stack_size(32768)
                Tasks10k.before = _kernel_stack()
            try:
                for _ in range(2000):
                    threading.Thread(target=Tasks10k.stop.wait, daemon=True).start()
                    Tasks10k.made += 1
            except BaseException as exc:
                say("Tasks10k", f"stopped at {Tasks10k.made}: {type(exc).__name__}: {exc}")
                Tasks10k.made = self.COUNT
            if Tasks10k.made >= self.COUNT:
                with open("/proc/self/status") as status:
                    line = [s.strip() for s in status if s.startswith(("Threads", "VmSize"))]
                say("Tasks10k", f"{line}; the machine's KernelStack {Tasks10k.before} -> "
                    f"{_kernel_stack()} kB")  # fmt: skip
        return super().decide(view)


class CacheColluder(Planner):
    """Two seats of this module (two labels: two hosts, two sandboxes) pass a hand through
    the page cache of ``blob.bin``, which both bind read-only (one inode, one cache): the
    first to decide writes its hand and the time, the other reads them (fresh: within 5 s)."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            now = int(time.time() * 10) & 0xFFFF
            old = decode(cache_read(WIDTH))
            if (
                old["mark"] == MARK
                and (now - old["deal"]) % 65536 < 50
                and old["seat"] != view.seat
            ):
                hand = [old[f"hand{c}"] for c in range(9)]
                say("CacheColluder", f"seat {view.seat} read its partner's (seat {old['seat']}) "
                    f"hand: {hand}")  # fmt: skip
            else:
                state = {"mark": MARK, "deal": now, "seat": view.seat}
                state |= {f"hand{c}": min(n, 15) for c, n in enumerate(list(view.hand)[:9])}
                cache_write(encode(state))
                say("CacheColluder", f"seat {view.seat} published its hand {list(view.hand)}")
        return super().decide(view)


def _heap_hits(needle: bytes) -> list[bytes]:
    """Every copy of ``needle`` (and the 60 bytes after it) in this process's writable
    private memory: the game's process is a fork of its host, so this is the host's memory
    as the fork found it, freed blocks included."""
    import ctypes
    import re

    hits = []
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        low, high = (int(x, 16) for x in fields[0].split("-"))
        name = fields[5] if len(fields) > 5 else ""
        if not fields[1].startswith("rw") or name.startswith("/") or high - low > 256 << 20:
            continue
        try:
            data = ctypes.string_at(low, high - low)
        except Exception:
            continue
        hits += [
            data[m.start() : m.start() + len(needle) + 60]
            for m in re.finditer(re.escape(needle), data)
        ]
    return hits


class HeapMemo(Planner):
    """Memory across games through the host's heap: each game's start order (with the
    seat's random state) passes through the host, which forks the next game's process from
    the same memory. Counts the distinct random states of earlier games left there."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            hits = _heap_hits(b'"op": "game", "label": ')
            hits = [h for h in hits if b"hits" not in h]  # not this code's own text
            distinct = {h for h in hits}
            say("HeapMemo", f"game seat {view.seat}: {len(hits)} copies of a start order's "
                f"random state in memory, {len(distinct)} distinct: "
                f"{sorted(d[:30] for d in distinct)}")  # fmt: skip
        return super().decide(view)


class PidMemo(Planner):
    """Memory across games through the sandbox's pid namespace, which all of a host's games
    share: thread ids come from the same counter as the next game's process id. A game ends
    its turn with the counter at a value of its choosing (start and join threads until the
    last one's id is right); the next game reads it as its own pid. Ten bits a game here
    (1,023 short threads at most); a chain 1, 3, 7, 15, ... shows it is chosen, not counted."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            pid = os.getpid()
            left = (pid - 1) % 1024  # the next child's pid is the last thread id + 1
            write = (left * 2 + 1) % 1024
            last = 0
            for _ in range(1100):
                if last % 1024 == write:
                    break
                box = []
                thread = threading.Thread(target=lambda: box.append(threading.get_native_id()))
                thread.start()
                thread.join()
                last = box[0]
            say("PidMemo", f"seat {view.seat} pid {pid}: the previous game left {left}; "
                f"leaving {write} (last thread id {last})")  # fmt: skip
        return super().decide(view)
