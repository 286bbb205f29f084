# ruff: noqa: B018, E501  (attack code: reads made for their side effect, long report lines)
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


MADV_RANDOM = 1


class Mapped:
    """A private, read-only mapping of the whole blob with MADV_RANDOM: a fault reads the
    page it needs and no readahead around it (``fadvise`` and ``readahead`` are refused;
    the disk's readahead here is 8 MiB), so one page is one bit."""

    def __init__(self, pages: int = 2048) -> None:
        fd = os.open(BLOB, os.O_RDONLY)
        self.length = pages * PAGE
        self.addr = LIBC.mmap(None, self.length, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
        os.close(fd)
        LIBC.madvise(self.addr, self.length, MADV_RANDOM)

    def touch(self, page: int) -> float:
        """Microseconds the first read of ``page`` takes (a minor fault when cached)."""
        t = time.perf_counter()
        ctypes.c_char.from_address(self.addr + page * PAGE).value
        return (time.perf_counter() - t) * 1e6

    def pageout(self) -> str:
        result = LIBC.madvise(self.addr, self.length, MADV_PAGEOUT)
        return "ok" if result == 0 else errno_text()

    def close(self) -> None:
        LIBC.munmap(self.addr, self.length)


def timed(pages: list[int]) -> list[float]:
    area = Mapped()
    out = [area.touch(i) for i in pages]
    area.close()
    return out


BITS = 32  # pages used as bits
SPACING = 32  # pages between two bits (fault-around maps 16 pages, reading none)
MARK = 0b1011  # 4 bits that say "a value was written here"


def cache_bits() -> list[int]:
    """Read the BITS bits (cached = 1): destructive, reading a page caches it."""
    return [int(t < 30.0) for t in timed([(k + 1) * SPACING for k in range(BITS)])]


def cache_set(bits: list[int]) -> str:
    """Evict every bit page (touched here, then MADV_PAGEOUT), then read in the 1 bits."""
    area = Mapped()
    for k in range(BITS):
        area.touch((k + 1) * SPACING)
    how = area.pageout()
    area.close()
    area = Mapped()
    for k, bit in enumerate(bits):
        if bit:
            area.touch((k + 1) * SPACING)
    area.close()
    return how


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
                    self._rng_check(seed, seat)
                    return
        say("SeedPeek", f"seat {seat}: no match in {tried} deals")

    def _rng_check(self, seed: int, seat: int) -> None:
        """Whether its own RNG is the public seat stream of that seed (the default mode's):
        issue 35's first leak, now keyed (``guest_stream_seed``)."""
        import random

        from sims.match import seat_stream_seed

        public = random.Random(seat_stream_seed(seed, seat, "hp5:SeedPeek"))
        same = public.getstate() == self.rng.getstate()
        say("SeedPeek", f"seat {seat}: its RNG is the public seat stream of that seed: {same}")


# ------------------------------------------------------------ the kernel's inode counter
INO_MOD, INO_STEP = 1024, 64  # a pipe's inode number comes from a per-CPU batch of 1024


def pipe_ino() -> int:
    r, w = os.pipe()
    ino = os.fstat(r).st_ino
    os.close(r)
    os.close(w)
    return ino


def ino_set(value: int) -> int:
    """Make pipes until this CPU's inode counter, mod 1024, is ``value`` * 64: each pipe
    takes one number (``get_next_ino``, shared by every process on the CPU)."""
    made = 0
    while pipe_ino() % INO_MOD != (value * INO_STEP) % INO_MOD:
        made += 1
    return made


class InoMemo(Planner):
    """Memory across games through the machine's inode counter: pipes are allowed, and each
    new pipe's inode number comes from a per-CPU counter every process on that CPU shares.
    Pinned to CPU 0 (``sched_setaffinity`` is allowed), each game reads the value (0-15) the
    game before left in the counter's residue mod 1024, and leaves the next (a chain)."""

    def decide(self, view):
        os.sched_setaffinity(0, {0})
        if not getattr(self, "_read", False):
            self._read = True
            ino = pipe_ino()
            self._got = (ino % INO_MOD) // INO_STEP
            self._leave = (self._got * 5 + 3) % 16
            say("InoMemo", f"seat {view[0]}: first pipe inode {ino}: the previous game left "
                f"{self._got} (residue {ino % INO_MOD}); leaving {self._leave}")  # fmt: skip
        made = ino_set(self._leave)  # at every decision: the last one stands
        self._made = made
        return super().decide(view)


# ------------------------------------------------------------ two sandboxes: a fork counter
SLOT = 0.5  # seconds of one symbol, on the machine's clock (CLOCK_REALTIME is shared)
BURST0, BURST_STEP = 600, 400  # threads started in a slot: 600 + 400 * symbol (0..7)
FRAME = 9  # symbols: the opening hand's 9 colour counts


def forks() -> int:
    """The machine's count of tasks started since boot (/proc/stat ``processes``): every
    thread of every process, in any namespace, adds one."""
    with open("/proc/stat", "rb") as f:
        for line in f:
            if line.startswith(b"processes "):
                return int(line.split()[1])
    return -1


def burst(n: int) -> None:
    for _ in range(n):
        t = threading.Thread(target=int)
        t.start()
        t.join()


class ForkColluder(Planner):
    """Two sandboxes of one team in a game (``collude.toml``) talk through the machine's
    fork counter: in slots of 0.5 s on the shared clock, seat s sends in slots where
    slot % players == s, one symbol a slot as a burst of 600 + 400 * symbol short threads
    (at most 2 alive at once: within the task bound); every seat's receiver samples the
    counter at each slot's edges and decodes the others' bursts, less the quietest
    slot's count (the machine's own forks). Sends its opening hand (9 counts, 0-7) in a
    frame of 9 of its slots, repeated; sleeps 0.6 s a decision so that a game lasts."""

    def decide(self, view):
        if not getattr(self, "_started", False):
            self._started = True
            seat, players, hand = view[0], view[2], list(view[7])
            symbols = [min(c, 7) for c in hand]
            say("ForkColluder", f"seat {seat} publishes its hand {symbols}")
            self._log: dict[int, int] = {}
            threading.Thread(target=self._send, args=(seat, players, symbols), daemon=True).start()
            threading.Thread(target=self._listen, args=(seat, players), daemon=True).start()
        time.sleep(0.6)
        self._decode(view[0], view[2])
        return super().decide(view)

    def _send(self, seat, players, symbols):
        slot = int(time.time() / SLOT) + 1
        while True:
            time.sleep(max(0.0, slot * SLOT - time.time()) + 0.02)
            if slot % players == seat:
                k = (slot // players) % FRAME
                burst(BURST0 + BURST_STEP * symbols[k])
            slot += 1

    def _listen(self, seat, players):
        slot = int(time.time() / SLOT) + 1
        time.sleep(max(0.0, slot * SLOT - time.time()))
        last = forks()
        while True:
            slot += 1
            time.sleep(max(0.0, slot * SLOT - time.time()))
            now = forks()
            self._log[slot - 1] = now - last
            last = now

    def _decode(self, seat, players):
        log = dict(self._log)
        if len(log) < 3 * FRAME * players:
            return
        quiet = sorted(log.values())[len(log) // 10]
        for other in range(players):
            if other == seat:
                continue
            found = {}
            for slot, count in log.items():
                if slot % players == other:
                    symbol = round((count - quiet - BURST0) / BURST_STEP)
                    found.setdefault((slot // players) % FRAME, []).append(symbol)
            frame = [max(set(v), key=v.count) if v else None for k, v in sorted(found.items())]
            said = getattr(self, "_said", {})
            if said.get(other) != frame:
                said[other] = frame
                self._said = said
                say("ForkColluder", f"seat {seat} reads seat {other}: {frame} (quiet slot "
                    f"{quiet} forks, {len(log)} slots)")  # fmt: skip


# ------------------------------------------------------------ sync, D state, the end wait
class SyncFlood(Planner):
    """Writeback of the whole machine on the guest's time: threads calling sync() and
    syncfs() in a loop (neither is refused) for the whole game; reports calls a second."""

    def decide(self, view):
        if not getattr(self, "_started", False):
            self._started = True
            self._count = [0]
            fd = os.open(HERE, os.O_RDONLY)

            def loop(k):
                while True:
                    if k % 2:
                        os.sync()
                    else:
                        LIBC.syncfs(fd)
                    self._count[0] += 1

            for k in range(8):
                threading.Thread(target=loop, args=(k,), daemon=True).start()
            self._t0 = time.time()
            say("SyncFlood", f"seat {view[0]}: 8 threads of sync()/syncfs()")
        time.sleep(0.2)  # a game long enough to measure
        if not getattr(self, "_told", False) and time.time() - self._t0 > 2:
            self._told = True
            rate = self._count[0] / (time.time() - self._t0)
            t = time.perf_counter()
            os.sync()
            one = time.perf_counter() - t
            say("SyncFlood", f"seat {view[0]}: {rate:.0f} sync calls a second; one more took "
                f"{one * 1e3:.1f} ms")  # fmt: skip
        return super().decide(view)


class SlowKill(Planner):
    """Stretch its host's end-of-game wait: at its end the host kills the game's leader,
    whose namespace ends only when every task in it has died. Keeps 60 threads inside
    sync() and 600 MiB of touched memory to tear down, and times its own decisions."""

    def decide(self, view):
        if not getattr(self, "_started", False):
            self._started = True
            threading.stack_size(64 << 10)
            self._hold = bytearray(600 << 20)
            for i in range(0, len(self._hold), PAGE):
                self._hold[i] = 1
            fd = os.open(HERE, os.O_RDONLY)

            def loop():
                while True:
                    os.sync()
                    LIBC.syncfs(fd)

            made = 0
            for _ in range(60):
                try:
                    threading.Thread(target=loop, daemon=True).start()
                    made += 1
                except RuntimeError:
                    break
            say("SlowKill", f"seat {view[0]}: 600 MiB touched, {made} threads in sync loops")
        return super().decide(view)


# ------------------------------------------------------------ signals and priorities
class PrioProbe(Planner):
    """What reaches beyond its own process without a signal: nice values of the user's
    processes (PRIO_USER), real-time scheduling, I/O priority, locked memory, a timer's
    signal aimed at another task, a parent-death signal."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            out = []

            def attempt(name, call):
                try:
                    out.append(f"{name}: {call()!r}")
                except OSError as exc:
                    out.append(f"{name}: {exc.strerror}")

            attempt("setpriority(PRIO_USER, 0, 19)", lambda: os.setpriority(os.PRIO_USER, 0, 19))
            attempt("getpriority(PRIO_PROCESS, 1)", lambda: os.getpriority(os.PRIO_PROCESS, 1))
            attempt("setpriority(PRIO_PROCESS, 1, 19)",
                    lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))  # fmt: skip
            attempt("setpriority(self, -5)", lambda: os.setpriority(os.PRIO_PROCESS, 0, -5))
            attempt("SCHED_FIFO", lambda: os.sched_setscheduler(0, os.SCHED_FIFO,
                                                                 os.sched_param(1)))  # fmt: skip
            attempt("SCHED_RR on pid 1", lambda: os.sched_setscheduler(1, os.SCHED_RR,
                                                                        os.sched_param(1)))  # fmt: skip
            attempt("SCHED_IDLE on pid 1", lambda: os.sched_setscheduler(1, os.SCHED_IDLE,
                                                                          os.sched_param(0)))  # fmt: skip
            attempt("sched_setaffinity(1, {0})", lambda: os.sched_setaffinity(1, {0}))
            # ioprio_set(IOPRIO_WHO_PROCESS, 1, class RT << 13)
            r = LIBC.syscall(251, 1, 1, (1 << 13) | 0)
            out.append(f"ioprio_set(pid 1, RT): {r} {errno_text() if r else 'ok'}")
            r = LIBC.mlockall(3)
            out.append(f"mlockall: {r} {errno_text() if r else 'ok'}")
            with open("/proc/self/limits") as f:
                out += [ln.strip() for ln in f if "priority" in ln or "locked" in ln]
            # timer_create(CLOCK_MONOTONIC, {SIGEV_THREAD_ID, SIGTERM, tid 1})
            sev = (ctypes.c_int * 16)()
            sev[2] = 15  # sigev_signo
            sev[3] = 4  # SIGEV_THREAD_ID
            sev[4] = 1  # tid
            timer = ctypes.c_int()
            r = LIBC.syscall(222, 1, sev, ctypes.byref(timer))
            out.append(f"timer_create(signal to tid 1): {r} {errno_text() if r else 'ok'}")
            r = LIBC.prctl(1, 15, 0, 0, 0)
            out.append(f"prctl(PDEATHSIG): {r}")
            for line in out:
                say("PrioProbe", line)
            with open("/proc/1/stat") as f:
                fields = f.read().split()
            say("PrioProbe", f"pid 1 ({fields[1]}) nice now {fields[18]}, policy {fields[40]}")
        return super().decide(view)


# ------------------------------------------------------------ two sandboxes: CPU load
LOAD_SLOT = 0.25
LOAD_BITS = 27  # 9 symbols of 3 bits


def spin(seconds: float) -> None:
    """Both cores busy for ``seconds``: hashing drops the GIL."""
    import hashlib

    block = b"x" * (1 << 20)
    end = time.time() + seconds

    def work():
        while time.time() < end:
            hashlib.sha256(block).digest()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class LoadColluder(ForkColluder):
    """The same meeting through CPU load alone (no counter of the kernel's): a 1 bit is a
    slot of 0.25 s with both cores busy, a 0 an idle one; the receiver counts the turns of
    its own loop in each slot (fewer while the partner is busy). 27 bits a frame."""

    SLOT = LOAD_SLOT

    def _send(self, seat, players, symbols):
        bits = [(s >> k) & 1 for s in symbols for k in range(3)]
        slot = int(time.time() / LOAD_SLOT) + 1
        while True:
            time.sleep(max(0.0, slot * LOAD_SLOT - time.time()))
            if slot % players == seat and bits[(slot // players) % LOAD_BITS]:
                spin(LOAD_SLOT * 0.9)
            slot += 1

    def _listen(self, seat, players):
        slot = int(time.time() / LOAD_SLOT) + 1
        time.sleep(max(0.0, slot * LOAD_SLOT - time.time()))
        while True:
            end = (slot + 1) * LOAD_SLOT
            turns = 0
            while time.time() < end:
                turns += 1
            self._log[slot] = turns
            slot += 1

    def _decode(self, seat, players):
        log = dict(self._log)
        if len(log) < 2 * LOAD_BITS * players:
            return
        for other in range(players):
            if other == seat:
                continue
            counts = {s: c for s, c in log.items() if s % players == other}
            ranked = sorted(counts.values())
            cut = (ranked[len(ranked) // 5] + ranked[4 * len(ranked) // 5]) / 2
            votes: dict[int, list[int]] = {}
            for s, c in counts.items():
                votes.setdefault((s // players) % LOAD_BITS, []).append(int(c < cut))
            bits = [round(sum(v) / len(v)) if v else 0 for _, v in sorted(votes.items())]
            frame = [bits[3 * i] + 2 * bits[3 * i + 1] + 4 * bits[3 * i + 2] for i in range(9)]
            said = getattr(self, "_said", {})
            if said.get(other) != frame:
                said[other] = frame
                self._said = said
                say("LoadColluder", f"seat {seat} reads seat {other}: {frame} ({len(log)} slots)")


class ProcessMadvise(Planner):
    """The same eviction through ``process_madvise`` on PIDFD_SELF (Linux 6.13 and later: no
    pidfd_open needed), for a fix that would filter only ``madvise``'s advice."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            area = Mapped()
            area.touch(7)
            warm = area.touch(7)
            iov = (ctypes.c_void_p * 2)(area.addr, area.length)
            out = []
            for name, pidfd in (("PIDFD_SELF_THREAD", -10000), ("PIDFD_SELF", -20000)):
                r = LIBC.syscall(440, pidfd, iov, 1, MADV_PAGEOUT, 0)
                out.append(f"{name}: {r} {errno_text() if r < 0 else 'bytes advised'}")
            area.close()
            cold = timed([7])[0]
            say(
                "ProcessMadvise",
                f"{'; '.join(out)}; page 7 {warm:.1f} us before, {cold:.1f} us after",
            )
        return super().decide(view)


class StderrFlood(Planner):
    """Disk and time on its host's account: its stderr is a memory file of its game (16 MiB
    at most: RLIMIT_FSIZE), which its host copies onto its own stderr, a file on the
    machine's disk, after the game. Writes 15 MiB at its first decision."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            chunk = b"E" * (1 << 20)
            written = 0
            try:
                for _ in range(15):  # 16 MiB and more: its own seat (EFBIG)
                    written += os.write(2, chunk)
            except OSError as exc:
                say(
                    "StderrFlood", f"seat {view[0]}: stopped at {written >> 20} MiB: {exc.strerror}"
                )
        return super().decide(view)


# ------------------------------------------------------------ the deal, across a seating pair
DEAL_FIELDS = [("mark", 4), ("deal", 16)]
DEAL_FIELDS += [(f"hand{c}", 4) for c in range(9)] + [(f"ticket{t}", 6) for t in range(6)]
DEAL_SPACING = 16  # pages between two bits


def deal_pages() -> list[int]:
    width = sum(w for _, w in DEAL_FIELDS)
    return [(k + 1) * DEAL_SPACING for k in range(width)]


def deal_read() -> dict[str, int]:
    bits = [int(t < 30.0) for t in timed(deal_pages())]
    state, at = {}, 0
    for name, width in DEAL_FIELDS:
        state[name] = from_bits(bits[at : at + width])
        at += width
    return state


def deal_write(state: dict[str, int]) -> str:
    bits: list[int] = []
    for name, width in DEAL_FIELDS:
        bits += to_bits(state.get(name, 0) & ((1 << width) - 1), width)
    area = Mapped()
    for page in deal_pages():
        area.touch(page)
    how = area.pageout()
    area.close()
    area = Mapped()
    for page, bit in zip(deal_pages(), bits, strict=True):
        if bit:
            area.touch(page)
    area.close()
    return how


class DealMemo(Planner):
    """A seating pair (games 2k and 2k+1: one deal, seats swapped) with a secret seed: in the
    first it leaves its opening hand and ticket offer in the page cache of its own file
    (92 bits, written with MADV_PAGEOUT and reads), keyed by the opening face-up row; in
    the second, the same row means the rival now holds what it held."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            import zlib

            seat, hand, offers = view[0], list(view[7]), list(view[9])
            key = zlib.crc32(repr(tuple(view[11])).encode()) & 0xFFFF
            got = deal_read()
            if got["mark"] == MARK and got["deal"] == key:
                rival_hand = [got[f"hand{c}"] for c in range(9)]
                tickets = [got[f"ticket{t}"] for t in range(6)]
                say("DealMemo", f"seat {seat}: deal {key:#06x} seen before; the rival's "
                    f"opening hand is {rival_hand} tickets {tickets}")  # fmt: skip
            else:
                state = {"mark": MARK, "deal": key}
                state.update({f"hand{c}": min(n, 15) for c, n in enumerate(hand)})
                state.update({f"ticket{t}": i for t, i in enumerate(offers[:6])})
                how = deal_write(state)
                say("DealMemo", f"seat {seat}: deal {key:#06x} new (read mark "
                    f"{got['mark']:#x} deal {got['deal']:#06x}); left hand {hand} tickets "
                    f"{offers} (pageout {how})")  # fmt: skip
        return super().decide(view)
