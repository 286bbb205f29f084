# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of an twelfth independent pass on ``--isolate`` (benchmarks/hostile_pass12).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import re
import sys
import threading
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


MARK = b"HP12" + b"NOTE="  # built at run time, so the code's own constant never matches
NOTE = re.compile(re.escape(MARK) + rb"([0-9a-f]{8}):([0-9,]+)=E")


class HeapNote(Once):
    """Memory across games of one host: what a game writes on stderr its host reads into
    its own heap (``guest._copy_stderr``: ``os.pread`` of the game's memory file) and frees;
    the next game's process is a fork of that host, so it finds the freed buffer in its own
    memory. Each game reads the notes left before it, then leaves its hand and a token."""

    NAME = "HeapNote"

    def attack(self, view) -> None:
        start = time.perf_counter()
        _low, data = heap()
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
        _SINK.append(
            os.open(
                "/tmp/game/.sink" if os.path.isdir("/tmp/game") else "/tmp/.sink",
                os.O_RDWR | os.O_CREAT | os.O_TRUNC,
                0o600,
            )
        )
    os.lseek(_SINK[0], 0, 0)
    return LIBC.write(_SINK[0], ctypes.c_void_p(address), ctypes.c_size_t(size)) == size


class HeapDebug(Once):
    """Where the host's data lies in a game's memory: the brk heap and 64 KiB blocks near it."""

    NAME = "HeapDebug"

    def attack(self, view) -> None:
        low, data = heap()
        probes = [
            b"HOSTILE " + b"HeapDebug: seat",
            b'"op": ' + b'"game"',
            b'"op": "' + b"decide",
            b"game-" + b"stderr",
        ]
        say(
            self.NAME,
            f"heap at {low:#x} {len(data) >> 10} KiB: "
            + ", ".join(f"{p[:12]!r}: {data.count(p)}" for p in probes),
        )
        say(self.NAME, f"seat {view.seat} marker line for the next game")


class Honest12(Once):
    """What an honest strategy does: numpy (linalg, random), threads and pools, tempfile
    and the usual standard modules; one line a check."""

    NAME = "Honest12"

    def attack(self, view):
        import concurrent.futures
        import importlib
        import tempfile

        def check(label, fn):
            t0 = time.perf_counter()
            try:
                out = fn()
                say(self.NAME, f"ok {label}: {out} ({(time.perf_counter() - t0) * 1e3:.1f} ms)")
            except BaseException as exc:
                say(self.NAME, f"FAILS {label}: {type(exc).__name__} {exc}")

        def linalg():
            import numpy as np

            rng = np.random.default_rng(1)
            a = rng.standard_normal((200, 200))
            b = rng.standard_normal(200)
            x = np.linalg.solve(a, b)
            w = np.linalg.eigvals(a[:50, :50])
            s = np.linalg.svd(a[:80, :80], compute_uv=False)
            q, _r = np.linalg.qr(a[:60, :60])
            return f"solve residual {np.abs(a @ x - b).max():.1e}, inv det {np.linalg.det(np.linalg.inv(a[:20, :20])):.3g}, eig {len(w)}, svd max {s[0]:.3g}, qr {q.shape}, lstsq {np.linalg.lstsq(a[:, :5], b, rcond=None)[0].shape}"

        def nprandom():
            import numpy as np

            g = np.random.Generator(np.random.PCG64(7))
            return f"{g.integers(0, 100, 3).tolist()} {np.random.default_rng(3).permutation(5).tolist()} legacy {np.random.RandomState(2).randint(0, 9, 3).tolist()} choice {g.choice(10, 3, replace=False).tolist()}"

        def threads():
            out = []
            ts = [threading.Thread(target=lambda k=k: out.append(k * k)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return sorted(out)

        def pool():
            with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
                return list(ex.map(lambda k: sum(range(k * 10000)), range(6)))[-1]

        def tmp():
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, "x.bin")
                with open(p, "wb") as f:
                    f.write(os.urandom(1 << 20))
                with tempfile.NamedTemporaryFile() as g:
                    g.write(b"abc")
                    g.flush()
                    return f"{os.path.getsize(p)} bytes in {d}; named {g.name}"

        def modules():
            names = "json collections itertools functools dataclasses statistics fractions decimal heapq bisect math re hashlib pickle copy typing enum random struct array queue sqlite3 csv io zlib gzip bz2 lzma base64 datetime zoneinfo shelve dbm textwrap operator contextlib abc weakref secrets uuid multiprocessing ctypes numpy.fft numpy.polynomial".split()
            bad = []
            for n in names:
                try:
                    importlib.import_module(n)
                except BaseException as exc:
                    bad.append(f"{n}: {type(exc).__name__}")
            return f"{len(names) - len(bad)} of {len(names)} import; failing {bad}"

        def stdrandom():
            import random
            import statistics

            r = random.Random(5)
            return f"{r.random():.4f} {r.sample(range(10), 3)} mean {statistics.mean([1, 2, 3, 4])} sysrand {random.SystemRandom().randint(0, 1) in (0, 1)}"

        def sqlite():
            import sqlite3

            c = sqlite3.connect(":memory:")
            c.execute("create table t(x)")
            c.executemany("insert into t values (?)", [(k,) for k in range(100)])
            return c.execute("select sum(x) from t").fetchone()[0]

        def mp_queue():
            import queue

            q: queue.Queue[int] = queue.Queue()
            threading.Thread(target=lambda: q.put(42)).start()
            return q.get(timeout=2)

        for label, fn in (
            ("numpy linalg", linalg),
            ("numpy random", nprandom),
            ("threads", threads),
            ("ThreadPoolExecutor", pool),
            ("tempfile", tmp),
            ("modules", modules),
            ("random/statistics", stdrandom),
            ("sqlite3 :memory:", sqlite),
            ("queue between threads", mp_queue),
        ):
            check(label, fn)


def _errno(result: int) -> str:
    return f"{result}" if result >= 0 else f"-1 {os.strerror(ctypes.get_errno())}"


def _sys(number: int, *args) -> int:
    ctypes.set_errno(0)
    return LIBC.syscall(number, *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])


SYS = {
    "syslog": 103, "statx": 332, "seccomp": 317, "listmount": 458, "statmount": 457,
    "sched_setscheduler": 144, "setpriority": 141, "landlock_create_ruleset": 444,
    "mbind": 237, "ioprio_set": 251, "acct": 163, "file_setattr": 469, "timerfd_create": 283,
}  # fmt: skip


def mounts() -> list[str]:
    """Every mount of the game's own namespace, by statmount: its root, point, type, source."""
    ids = (ctypes.c_uint64 * 256)()
    req = (ctypes.c_uint64 * 4)()
    req[0] = 32  # size 32, spare 0
    req[1] = 0xFFFFFFFFFFFFFFFF  # LSMT_ROOT
    n = _sys(SYS["listmount"], ctypes.byref(req), ids, 256, 0)
    if n < 0:
        return [f"listmount {_errno(n)}"]
    out = []
    buf = ctypes.create_string_buffer(1 << 16)
    for k in range(n):
        req[1], req[2] = ids[k], 0x8 | 0x10 | 0x20 | 0x80 | 0x200 | 0x40
        r = _sys(SYS["statmount"], ctypes.byref(req), buf, len(buf), 0)
        if r < 0:
            out.append(f"{ids[k]}: statmount {_errno(r)}")
            continue
        raw = buf.raw

        def s(off: int, raw=raw) -> str:
            at = 512 + int.from_bytes(raw[off : off + 4], "little")
            return raw[at : raw.index(b"\0", at)].decode(errors="replace")

        ns = int.from_bytes(raw[112:120], "little")
        out.append(f"{ids[k]}: {s(108)} <- {s(36)} {s(124)} root={s(104)} opts={s(4)} ns={ns}")
    return out


class Probe11b(Once):
    """What a game can still reach of the machine: /dev nodes, the kernel log, mounts and
    their unique ids, scheduling, landlock, its own extra seccomp filter (logging)."""

    NAME = "Probe11b"

    def attack(self, view) -> None:
        name = self.NAME
        say(
            name,
            f"/dev: {sorted(os.listdir('/dev'))}; /dev/pts: {sorted(os.listdir('/dev/pts')) if os.path.isdir('/dev/pts') else None}",
        )
        for path, flags in (
            ("/dev/ptmx", os.O_RDWR | os.O_NOCTTY),
            ("/dev/tty", os.O_RDWR),
            ("/dev/urandom", os.O_WRONLY),
            ("/dev/random", os.O_WRONLY),
            ("/dev/full", os.O_WRONLY),
            ("/dev/zero", os.O_WRONLY),
        ):
            try:
                fd = os.open(path, flags)
                try:
                    wrote = os.write(fd, b"hp12" * 8) if path != "/dev/ptmx" else "n/a"
                except OSError as exc:
                    wrote = f"write {exc.strerror}"
                pts = sorted(os.listdir("/dev/pts")) if path == "/dev/ptmx" else ""
                say(name, f"open {path}: ok, write {wrote} {pts}")
                os.close(fd)
            except OSError as exc:
                say(name, f"open {path}: {exc.strerror}")
        buf = ctypes.create_string_buffer(1 << 14)
        say(
            name,
            f"syslog SIZE_BUFFER {_errno(_sys(SYS['syslog'], 10, None, 0))}; READ_ALL {_errno(_sys(SYS['syslog'], 3, buf, len(buf)))}; SIZE_UNREAD {_errno(_sys(SYS['syslog'], 9, None, 0))}",
        )
        sx = ctypes.create_string_buffer(256)
        for path in ("/", "/tmp", "/dev", "/dev/shm", os.path.dirname(__file__)):
            r = _sys(SYS["statx"], -100, path.encode(), 0, 0x4000 | 0x1000, sx)
            say(
                name,
                f"statx {path}: {_errno(r)} mnt_id_unique {int.from_bytes(sx.raw[144:152], 'little')}",
            )
        param = ctypes.c_int(1)
        say(
            name,
            f"SCHED_FIFO {_errno(_sys(SYS['sched_setscheduler'], 0, 1, ctypes.byref(param)))}; nice -5 {_errno(_sys(SYS['setpriority'], 0, 0, -5))}; ioprio RT {_errno(_sys(SYS['ioprio_set'], 1, 0, (1 << 13) | 0))}; acct {_errno(_sys(SYS['acct'], None))}",
        )
        say(
            name,
            f"landlock ABI {_errno(_sys(SYS['landlock_create_ruleset'], None, 0, 1))}; timerfd {_errno(_sys(SYS['timerfd_create'], 1, 0))}",
        )
        # a filter of the game's own that logs each getppid: the kernel's audit line (comm, pid)
        LIBC.prctl(15, b"hp12-seclog", 0, 0, 0)  # PR_SET_NAME: the comm the log line shows
        prog = (ctypes.c_uint64 * 4)()
        insns = [
            (0x20, 0, 0, 0),
            (0x15, 0, 1, 110),
            (0x06, 0, 0, 0x7FFC0000),
            (0x06, 0, 0, 0x7FFF0000),
        ]
        for k, (code, jt, jf, kk) in enumerate(insns):
            prog[k] = code | jt << 16 | jf << 24 | kk << 32
        fprog = (ctypes.c_uint64 * 2)(4, ctypes.addressof(prog))
        r = _sys(SYS["seccomp"], 1, 0, fprog)
        calls = [os.getppid() for _ in range(50)] if r == 0 else []
        say(
            name,
            f"own seccomp filter with SECCOMP_RET_LOG: {_errno(r)}; {len(calls)} logged getppid calls (see the host's dmesg for 'hp12-seclog')",
        )
        found = mounts()
        view = [m for m in found if "root=/cardgame-view-" in m]
        say(
            name,
            f"{len(found)} mounts, {len(view)} of them the view's copy; the others: "
            + " | ".join(m for m in found if m not in view and "devtmpfs" not in m),
        )


class LandFlood(Once):
    """Kernel memory outside every limit of a game: landlock rulesets (allowed: landlock is
    the game's own restriction) hold one rule per TCP port, each a kernel allocation the
    address-space limit does not count; ``landlock_restrict_self`` copies them into the
    thread's domain (up to 16 layers a thread). Held for ``HOLD`` s, then released."""

    NAME = "LandFlood"
    RULESETS = 4  # each of 65,536 rules
    LAYERS = 2  # restrict_self with the first rulesets: the domain copies their rules
    HOLD = 4.0

    def attack(self, view) -> None:
        attr = (ctypes.c_uint64 * 3)(0, 3, 0)  # handled: BIND_TCP | CONNECT_TCP
        port = (ctypes.c_uint64 * 2)(3, 0)
        start = time.perf_counter()
        fds, rules = [], 0
        for _ in range(self.RULESETS):
            fd = _sys(SYS["landlock_create_ruleset"], ctypes.byref(attr), 24, 0)
            if fd < 0:
                say(self.NAME, f"create_ruleset {_errno(fd)}")
                break
            fds.append(fd)
            for p in range(65536):
                port[1] = p
                if _sys(445, fd, 2, ctypes.byref(port), 0) < 0:
                    say(self.NAME, f"add_rule port {p}: {_errno(-1)}")
                    break
                rules += 1
        built = time.perf_counter() - start
        layers = 0
        for fd in fds[: self.LAYERS]:
            if _sys(446, fd, 0) == 0:
                layers += 1
        say(
            self.NAME,
            f"{len(fds)} rulesets, {rules} port rules in {built:.2f} s; {layers} layers enforced on the game's first thread; holding {self.HOLD} s",
        )
        time.sleep(self.HOLD)
        for fd in fds:
            os.close(fd)


class LandThreads(Planner):
    """LandFlood's kind of rules, in ``THREADS`` threads that each enforce one ruleset of
    65,536 port rules 16 times (landlock's most layers): each thread's domain is a copy of
    its rules with 16 layers each, held by that thread's credentials until it ends. Built
    in the background while the game goes on (each decision waits at most 8 s for it)."""

    NAME = "LandThreads"
    THREADS = 8
    HOLD = 4.0

    def decide(self, view):
        if not hasattr(self, "_flood"):
            self._flood = threading.Thread(target=self.flood, daemon=True)
            self._flood.start()
        self._flood.join(8.0)
        return super().decide(view)

    def flood(self) -> None:
        threading.stack_size(1 << 18)
        attr = (ctypes.c_uint64 * 3)(0, 3, 0)
        fd = _sys(SYS["landlock_create_ruleset"], ctypes.byref(attr), 24, 0)
        port = (ctypes.c_uint64 * 2)(3, 0)
        for p in range(65536):
            port[1] = p
            _sys(445, fd, 2, ctypes.byref(port), 0)
        done, layers = threading.Event(), []

        def hold() -> None:
            k = 0
            while k < 16 and _sys(446, fd, 0) == 0:
                k += 1
            layers.append(k)
            done.wait(30)

        start = time.perf_counter()
        threads = [threading.Thread(target=hold) for _ in range(self.THREADS)]
        for t in threads:
            t.start()
        while len(layers) < len(threads) and time.perf_counter() - start < 60:
            time.sleep(0.05)
        say(
            self.NAME,
            f"{len(threads)} threads, layers each {layers} in {time.perf_counter() - start:.2f} s; holding {self.HOLD} s",
        )
        time.sleep(self.HOLD)
        done.set()
        for t in threads:
            t.join()
        os.close(fd)
        say(self.NAME, "released")


class Probe618(Once):
    """Calls newer than the filter's list: open_tree_attr, file_setattr on the copy and on
    its own /tmp, mseal, lsm_set_self_attr; seccomp's user-notification listener."""

    NAME = "Probe618"

    def attack(self, view) -> None:
        name = self.NAME
        code = os.path.dirname(__file__).encode()
        r = _sys(467, -100, code, 1 | 0x80000, None, 0)  # open_tree_attr(OPEN_TREE_CLONE)
        say(name, f"open_tree_attr CLONE of its code folder: {_errno(r)}")
        attr = (ctypes.c_uint8 * 24)()
        for path in (os.path.join(os.path.dirname(__file__), "__init__.py"), "/tmp"):
            r = _sys(468, -100, path.encode(), attr, 24, 0)  # file_getattr
            flags = int.from_bytes(bytes(attr)[0:4], "little")
            attr[0] = (flags | 0x10) & 0xFF  # FS_XFLAG_APPEND
            w = _sys(469, -100, path.encode(), attr, 24, 0)  # file_setattr
            say(
                name,
                f"file_getattr {path}: {_errno(r)} flags {flags:#x}; file_setattr append-only: {_errno(w)}",
            )
        buf = ctypes.create_string_buffer(1 << 12)
        r = _sys(462, 0, 0, 0, 0)  # mseal of nothing: whether the call exists
        say(
            name,
            f"mseal(0, 0): {_errno(r)}; lsm_list_modules {_errno(_sys(461, buf, ctypes.byref(ctypes.c_uint32(len(buf))), 0))}",
        )


# ------------------------------------------- pass 12: what the host computes from a game
def runs(centres: list[int], span: int = 1 << 26) -> list[tuple[int, int]]:
    """Readable runs of pages within ``span`` of each address, merged (probed by madvise)."""
    pages: set[int] = set()
    for centre in centres:
        base = centre // PAGE * PAGE
        for start in range(max(base - span, PAGE), base + span, PAGE):
            if start not in pages and LIBC.madvise(start, PAGE, 0) == 0 and readable(start, PAGE):
                pages.add(start)
    out: list[tuple[int, int]] = []
    for page in sorted(pages):
        if out and out[-1][0] + out[-1][1] == page:
            out[-1] = (out[-1][0], out[-1][1] + PAGE)
        else:
            out.append((page, PAGE))
    return out


def freed_ints(low: int, high: int) -> tuple[list[int], int]:
    """Values in [low, high) of one-digit int objects (live or freed: a freed block keeps its
    type and size fields) in the memory this game inherited from its host."""
    import struct

    guest = sys.modules.get("sims.guest")
    centres = [id(sys.modules), id(os.environ), LIBC.sbrk(0)]
    if guest is not None:
        centres += [id(guest.__dict__), id(guest.serve)]
    head = re.compile(re.escape(struct.pack("<Qq", id(int), 1)) + rb"(.{4})", re.S)
    found: list[int] = []
    scanned = 0
    for start, size in runs(centres):
        data = ctypes.string_at(start, size)
        scanned += size
        for m in head.finditer(data):
            value = int.from_bytes(m.group(1), "little")
            if low <= value < high:
                found.append(value)
    return found, scanned


class IntNote(Once):
    """Memory across games of one host without a forfeit: the host reads the size of the
    game's stderr (``guest._copy_stderr``: ``os.fstat(log).st_size``, and ``os.write``'s
    count) into int objects of its own heap, freed but not cleared, which the next game's
    process inherits. A game writes ``MARKER * 65536 + payload`` bytes on stderr (its own,
    allowed, at most 16 MB); the next game scans its memory for freed ints in that range.
    The payload is the game's opening hand's first four colour counts (4 bits each)."""

    NAME = "IntNote"
    MARKER = 0xB7

    def attack(self, view) -> None:
        start = time.perf_counter()
        low = self.MARKER << 16
        found, scanned = freed_ints(low, low + (1 << 16))
        took = time.perf_counter() - start
        counts = [min(c, 15) for c in view.hand[:4]]
        payload = counts[0] | counts[1] << 4 | counts[2] << 8 | counts[3] << 12
        decoded = sorted({tuple((v - low) >> s & 15 for s in (0, 4, 8, 12)) for v in found})
        say(
            self.NAME,
            f"seat {view.seat} hand {list(view.hand)} first four {counts}; "
            f"{scanned >> 10} KiB scanned in {took:.2f} s; ints of earlier games: {decoded or 'none'} ({len(found)} copies)",
        )
        sys.stderr.flush()
        size = os.fstat(2).st_size
        total = low + payload
        if total > size:
            os.write(2, b" " * (total - size - 1) + b"\n")


REPORT = re.compile(rb'"exit": "' + rb"exit code (\d+)" + rb'", "by": "itself"')


def host_memory() -> tuple[bytes, int]:
    """The host's memory this game inherited: its brk heap and the runs of pages near the
    host's own objects (pymalloc's arenas), joined."""
    guest = sys.modules.get("sims.guest")
    centres = [id(sys.modules), id(os.environ)]
    if guest is not None:
        centres += [id(guest.__dict__), id(guest.serve)]
    parts = [heap()[1]] + [ctypes.string_at(s, n) for s, n in runs(centres)]
    return b"".join(parts), sum(len(p) for p in parts)


class ExitNote(Planner):
    """Memory across games of one host without a forfeit: a game that ends itself right
    after its last answer has its exit code in its host's report ("exit code N", "by":
    "itself"), which the host builds in its own heap; the game stands (``Guest.finish``:
    "the game stands whatever the end says"), and the next game's process, a fork of that
    host, finds the report's freed text. The code is the opening hand's first two colour
    counts (4 bits each). The last answer: the first decision of a turn of its own that
    starts with ``final_round`` set (R15: each seat plays exactly one more turn), and in
    it the decision that ends the turn."""

    NAME = "ExitNote"

    def decide(self, view):
        if not hasattr(self, "_code"):
            start = time.perf_counter()
            data, scanned = host_memory()
            found = sorted({int(m.group(1)) for m in REPORT.finditer(data)})
            decoded = [(c & 15, c >> 4) for c in found]
            probes = [
                b"exit " + b"code",
                b'"by": ' + b'"itself"',
                b'"by": ' + b'"host"',
                b"signal" + b" 9",
            ]
            say(
                self.NAME,
                "diag "
                + ", ".join(f"{p!r}: {data.count(p)}" for p in probes)
                + f"; exit-code texts {sorted(set(re.findall(rb'exit code [0-9]+', data)))[:20]}",
            )
            self._code = min(view.hand[0], 15) | min(view.hand[1], 15) << 4
            say(
                self.NAME,
                f"seat {view.seat} hand {list(view.hand)} -> code {self._code}; {scanned >> 10} KiB in "
                f"{time.perf_counter() - start:.2f} s; earlier games' exit codes: {found or 'none'} "
                f"= first two counts {decoded or 'none'}",
            )
            self._turn, self._last = None, False
            import gc

            # the host runs as ``python -m sims.guest``: its _Channel is ``__main__``'s
            kind = next(type(o) for o in gc.get_objects() if type(o).__name__ == "_Channel")
            if not hasattr(kind, "_hp12"):
                plain = kind.write
                me = self

                def write(channel, message):
                    plain(channel, message)
                    if getattr(me, "_exit_now", False):
                        os._exit(me._code)

                kind.write = write
                kind._hp12 = True
        if view.phase == 1 and view.turn != self._turn:
            self._turn = view.turn
            self._last = bool(view.final_round) and view.round == view.rounds_total
        action = super().decide(view)
        kind = type(action).__name__
        if self._last and (view.phase in (2, 3) or (view.phase == 1 and "Draw" not in kind)):
            say(
                self.NAME,
                f"last answer ({kind}, phase {view.phase}, turn {view.turn}): exit {self._code}",
            )
            self._exit_now = True
        return action


VIEW = re.compile(rb'\{"op": "' + rb'decide", "view": (\[[^\n]*\])\}')


class ViewNote(Planner):
    """Memory across games of one host without a forfeit: a view the worker sent that the
    game never read is read by its host at the next game's start (``guest._forget``:
    ``os.read(game_in, 65536)``, a buffer of the host's own heap, freed but not cleared),
    and the next game's process, a fork of that host, finds it. The game leaves its last
    view unread by answering it ahead: in its last turn (the first turn of its own that
    starts with ``final_round``), when its first pick is a face-up card, it writes that
    answer and a second pick of another face-up card (known: the final round has no deck
    to refill from) at once, then waits to be ended. The worker plays both; the game
    stands."""

    NAME = "ViewNote"

    def decide(self, view):
        if not hasattr(self, "_turn"):
            start = time.perf_counter()
            data, scanned = host_memory()
            found = []
            for m in VIEW.finditer(data):
                try:
                    fields = __import__("json").loads(m.group(1))
                except ValueError:
                    continue
                if fields[6] != view.turn or fields[7] != list(view.hand):
                    found.append(
                        f"turn {fields[6]} phase {fields[3]} hand {fields[7]} held {fields[8]} reached {fields[10]} final_round {fields[-2]}"
                    )
            say(
                self.NAME,
                f"seat {view.seat} hand {list(view.hand)}; {scanned >> 10} KiB in {time.perf_counter() - start:.2f} s; "
                f"views of earlier games: {sorted(set(found)) or 'none'}",
            )
            self._turn, self._last = None, False
        if view.phase == 1 and view.turn != self._turn:
            self._turn = view.turn
            self._last = bool(view.final_round)
        action = super().decide(view)
        loco = len(view.hand) - 1
        if self._last and view.phase == 1 and type(action).__name__ == "DrawFaceUp":
            taken = action.slot
            others = [j for j, c in enumerate(view.face_up) if j != taken and 0 <= c < loco]
            if view.face_up[taken] != loco and others:
                import gc

                from cardgame import actions as A

                channel = next(o for o in gc.get_objects() if type(o).__name__ == "_Channel")
                channel.write({"action": A.to_dict(action)})
                channel.write({"action": {"type": "draw_face_up", "slot": others[0]}})
                say(
                    self.NAME,
                    f"answered turn {view.turn} ahead (slots {taken}, {others[0]}); hand now {list(view.hand)}; left the next view unread",
                )
                time.sleep(120)
        return action


class DelayTalk(Planner):
    """A channel between the two seats of one game: a seat's decision time, wall-clock, is
    what its rival waits between its answer and its next view. Each seat spends
    ``UNIT * symbol + UNIT / 2`` on each of its first ``len(hand)`` turns, a symbol its
    opening hand's count of one colour (at most 7), and measures the gap before each of its
    own turns: the rival's turn. Both seats play ``hp12:DelayTalk``."""

    NAME = "DelayTalk"
    UNIT = 0.05

    def decide(self, view):
        now = time.monotonic()
        if not hasattr(self, "_gaps"):
            self._gaps, self._turns, self._left = [], 0, None
            self._hand = [min(c, 7) for c in view.hand]
        if view.phase == 1:
            if self._left is not None:
                self._gaps.append(now - self._left)
            if self._turns < len(self._hand):
                time.sleep(self.UNIT * self._hand[self._turns] + self.UNIT / 2)
            self._turns += 1
            n = len(self._hand)
            gaps = self._gaps[1:] if view.seat == 0 else self._gaps
            if len(gaps) == n and not getattr(self, "_said", False):
                self._said = True
                decoded = [max(0, int((g - self.UNIT / 2) / self.UNIT + 0.5)) for g in gaps]
                say(
                    self.NAME,
                    f"seat {view.seat} own opening hand (capped at 7) {self._hand}; the rival's, from its delays: {decoded}",
                )
        action = super().decide(view)
        self._left = time.monotonic()
        return action


class DelayTalkB(DelayTalk):
    """``DelayTalk`` under a second name: a pool lists a strategy once."""
