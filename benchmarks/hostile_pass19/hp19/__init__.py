# ruff: noqa: E501, SIM105  (attack code: long report lines, probes)
"""Hostile strategies of a nineteenth independent pass on ``--isolate`` (benchmarks/hostile_pass19).

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
LIBC.syscall.restype = ctypes.c_long
MAP_FAILED = ctypes.c_void_p(-1).value
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_PRIVATE = 2
ST_RDONLY, ST_NOEXEC = 1, 8
F_GETFL, F_GETPIPE_SZ = 3, 1032


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def key() -> str:
    """A parameter handed in through hp19/key.txt (run.sh's KEY): the sandbox clears the
    environment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip()
    except OSError:
        return ""


def map_exec(fd: int, size: int = 4096) -> str:
    """Whether a read+exec private mapping of ``fd`` is allowed (then unmapped)."""
    addr = LIBC.mmap(None, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)
    if addr in (None, MAP_FAILED):
        return f"refused {os.strerror(ctypes.get_errno())}"
    LIBC.munmap(addr, size)
    return "MAPPED r-x"


def mount_flags(path: str) -> str:
    try:
        flags = os.statvfs(path).f_flag
    except OSError as exc:
        return f"statvfs {exc.strerror}"
    return ("ro" if flags & ST_RDONLY else "rw") + (",noexec" if flags & ST_NOEXEC else ",EXEC")


class Once(Planner):
    """A planner that runs ``probe`` once, at its first decision."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe(view)
            except Exception as exc:
                say(type(self).__name__, f"probe raised {type(exc).__name__}: {exc}")
        return super().decide(view)

    def probe(self, view) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class Scan19(Once):
    """Items 1, 5: every descriptor a game holds (what it is, its access mode, its mount's
    flags, whether it maps read+exec), every folder of the sandbox it can write or make a
    file in and whether that mount runs code, every /dev node it can map read+exec, FIFOs
    (``mknod``), its environment and what it inherits (maxrss, parent)."""

    def probe(self, view) -> None:
        name = "Scan19"
        say(
            name,
            f"pid {os.getpid()} ppid {os.getppid()} uid {os.getuid()} environ {dict(os.environ)}",
        )
        import resource

        say(
            name,
            f"maxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} kB, threads {__import__('threading').active_count()}",
        )
        held = []
        for fd in range(1024):
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            fl = LIBC.fcntl(fd, F_GETFL)
            try:
                vfs = os.fstatvfs(fd).f_flag
                where = ("ro" if vfs & ST_RDONLY else "rw") + (
                    ",noexec" if vfs & ST_NOEXEC else ",EXEC"
                )
            except OSError as exc:
                where = exc.strerror
            held.append(
                f"fd {fd}: {stat.filemode(st.st_mode)} dev {st.st_dev:x} ino {st.st_ino} size {st.st_size} fl {fl:o} mount {where} map r-x: {map_exec(fd)}"
            )
        for line in held:
            say(name, line)
        # the mounts a game sees, and which of them it can write and run
        points = [
            "/",
            "/dev",
            "/dev/shm",
            "/dev/pts",
            "/tmp",
            "/tmp/game",
            "/proc",
            "/.game-tmp",
            "/usr",
            "/etc",
            os.path.dirname(os.__file__),
            os.path.dirname(__file__),
            sys.prefix,
            os.path.dirname(sys.executable),
        ]
        say(name, "mounts: " + "; ".join(f"{p} {mount_flags(p)}" for p in points))
        say(name, f"/ holds {sorted(os.listdir('/'))}; /dev holds {sorted(os.listdir('/dev'))}")
        writable = []
        seen = 0
        for root, _dirs, _files in os.walk("/"):
            seen += 1
            if seen > 3000:
                break
            try:
                fd = os.open(
                    os.path.join(root, ".hp19probe"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700
                )
            except OSError:
                continue
            os.close(fd)
            os.unlink(os.path.join(root, ".hp19probe"))
            writable.append(f"{root} ({mount_flags(root)})")
        say(name, f"folders ({seen} walked) it can make a file in: {writable}")
        for node in sorted(os.listdir("/dev")):
            path = "/dev/" + node
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError as exc:
                say(name, f"{path}: open {exc.strerror}")
                continue
            try:
                say(name, f"{path}: read+exec private mapping {map_exec(fd)}")
            finally:
                os.close(fd)
        # its own code, and a library of the view
        for path in (__file__, os.path.join(os.path.dirname(os.__file__), "lib-dynload")):
            target = path
            if os.path.isdir(path):
                target = os.path.join(path, sorted(os.listdir(path))[0])
            fd = os.open(target, os.O_RDONLY)
            say(name, f"{target}: read+exec private mapping {map_exec(fd)}")
            os.close(fd)
        # a FIFO in its own /tmp: a pipe the filter's pipe/pipe2 refusal does not cover
        for folder in ("/tmp", "/dev/shm"):
            path = os.path.join(folder, "hp19.fifo")
            try:
                os.mkfifo(path)
                fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
                os.write(fd, b"x" * 100)
                size = LIBC.fcntl(fd, F_GETPIPE_SZ)
                say(
                    name,
                    f"mkfifo {path}: ok, opened read+write, pipe size {size}, wrote and read back {len(os.read(fd, 4096))} bytes, map r-x: {map_exec(fd)}",
                )
                os.close(fd)
            except OSError as exc:
                say(name, f"mkfifo {path}: {exc}")


class FifoPages(Once):
    """A FIFO (``mkfifo`` in its own /tmp) is a pipe whose buffers the kernel charges to
    the run's user, counted across every process of that user on the machine (``pipe-
    user-pages-soft``, 16384 pages): once past it, a new pipe gets 2 pages instead of 16,
    which ``F_GETPIPE_SZ`` (allowed) reads. How many pages one game can hold, and what a
    fresh FIFO reads now."""

    def probe(self, view) -> None:
        name = "FifoPages"
        fds = []
        sizes = {}
        try:
            for i in range(200):
                path = f"/tmp/p{i}"
                os.mkfifo(path)
                fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
                fds.append(fd)
                size = LIBC.fcntl(fd, F_GETPIPE_SZ)
                sizes[size] = sizes.get(size, 0) + 1
        except OSError as exc:
            say(name, f"stopped at {len(fds)} FIFOs: {exc}")
        filled = 0
        for fd in fds:
            try:
                while True:
                    filled += os.write(fd, b"\0" * 65536)
            except BlockingIOError:
                pass
        say(
            name,
            f"{len(fds)} FIFOs held, pipe sizes {sizes}, {filled >> 10} KiB of pipe buffers filled (not counted in its address space)",
        )
        for fd in fds:
            os.close(fd)


class StallEnd(Planner):
    """Item 5: a seat that fails (its strategy raises) after filling its stderr file (16
    MiB) and starting threads that spin and allocate: what does the host's end of its game,
    before its host is dropped, cost the run?"""

    def decide(self, view):
        count = getattr(self, "_n", 0) + 1
        self._n = count
        if count == 3:
            import threading

            def spin() -> None:
                blocks = []
                while True:
                    try:
                        blocks.append(bytearray(1 << 20))
                    except MemoryError:
                        blocks.clear()

            what = key() or "threads,stderr"
            for _ in range(60 if "threads" in what else 0):
                try:
                    threading.Thread(target=spin, daemon=True).start()
                except RuntimeError:
                    break
            line = b"y" * 4095 + b"\n"
            try:
                for _ in range(5000 if "stderr" in what else 0):
                    os.write(2, line)
            except OSError:
                pass
            raise RuntimeError("StallEnd's own error")
        return super().decide(view)


class Honest19(Once):
    """Item (f): what an honest strategy does, each step timed: numpy, threads, tempfile,
    shelve, sqlite, json, re, collections, concurrent.futures, queue with timeouts,
    threading.Condition, gzip, pickle, logging, decimal, statistics."""

    def probe(self, view) -> None:
        name = "Honest19"

        def step(what, fn):
            start = time.perf_counter()
            try:
                out = fn()
                say(
                    name,
                    f"{what}: ok {out if out is not None else ''} ({time.perf_counter() - start:.3f} s)",
                )
            except BaseException as exc:
                say(
                    name,
                    f"{what}: FAILED {type(exc).__name__} {exc} ({time.perf_counter() - start:.3f} s)",
                )

        def numpy_work():
            import numpy as np

            rng = np.random.default_rng()
            a = rng.random((400, 400))
            b = np.linalg.solve(a + 400 * np.eye(400), rng.random(400))
            w = np.linalg.eigvals(rng.random((100, 100)))
            f = np.fft.fft(rng.random(1024))
            return f"solve {b.shape}, eig {w.shape}, fft {f.shape}, matmul {(a @ a).sum():.0f}"

        def threads():
            import threading

            out = []
            lock = threading.Lock()

            def work(i):
                s = sum(range(20000))
                with lock:
                    out.append(i + s * 0)

            ts = [threading.Thread(target=work, args=(i,)) for i in range(16)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return f"16 threads joined, {len(out)} results"

        def futures():
            from concurrent.futures import ThreadPoolExecutor, as_completed, wait

            with ThreadPoolExecutor() as pool:
                fs = [pool.submit(pow, 3, i) for i in range(200)]
                total = sum(f.result() for f in as_completed(fs))
                done, _ = wait([pool.submit(time.sleep, 0.01) for _ in range(8)], timeout=5)
                mapped = list(pool.map(abs, range(-50, 50)))
            return f"default pool, sum {total % 1000}, {len(done)} waits, map {len(mapped)}"

        def process_pool():
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(2) as pool:
                return pool.submit(pow, 2, 5).result(timeout=5)

        def queues():
            import queue
            import threading

            q: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [q.put(i) for i in range(100)]).start()
            got = [q.get(timeout=2) for _ in range(100)]
            try:
                q.get(timeout=0.05)
            except queue.Empty:
                pass
            cond = threading.Condition()
            with cond:
                cond.wait(timeout=0.02)
            ev = threading.Event()
            threading.Timer(0.01, ev.set).start()
            return f"{len(got)} items, empty after timeout, condition timed out, timer fired {ev.wait(2)}"

        def temp():
            import tempfile

            with tempfile.TemporaryDirectory() as d, tempfile.NamedTemporaryFile(dir=d) as f:
                f.write(b"x" * 100000)
                f.flush()
                fd, p = tempfile.mkstemp()
                os.close(fd)
                os.unlink(p)
                with tempfile.SpooledTemporaryFile(max_size=10) as s:
                    s.write(b"y" * 100)
                return f"{tempfile.gettempdir()}, {os.path.getsize(f.name)} bytes"

        def shelve_work():
            import shelve

            with shelve.open("/tmp/shelf") as db:
                db["k"] = {"a": [1, 2, 3]}
                for i in range(300):
                    db[str(i)] = i
            with shelve.open("/tmp/shelf", flag="r") as db:
                return f"{db['k']}, {len(db)} keys, dbm {__import__('dbm').whichdb('/tmp/shelf')}"

        def sqlite_work():
            import sqlite3

            con = sqlite3.connect(":memory:")
            con.execute("create table t (a int)")
            con.executemany("insert into t values (?)", [(i,) for i in range(1000)])
            mem = con.execute("select sum(a) from t").fetchone()[0]
            out = [f"memory {mem}"]
            try:
                con2 = sqlite3.connect("/tmp/db.sqlite")
                con2.execute("create table t (a int)")
                con2.commit()
                out.append("file: ok")
            except sqlite3.Error as exc:
                out.append(f"file: {exc}")
            con3 = sqlite3.connect("file:/tmp/db2.sqlite?nolock=1", uri=True)
            con3.execute("create table t (a int)")
            con3.commit()
            out.append("nolock file: ok")
            return ", ".join(out)

        def text_work():
            import collections
            import decimal
            import gzip
            import json
            import logging
            import pickle
            import re
            import statistics

            data = json.loads(json.dumps({"a": list(range(100)), "b": {"c": 1.5}}))
            words = re.findall(r"\w+", "the quick brown fox " * 100)
            c = collections.Counter(words)
            d = collections.deque(maxlen=5)
            d.extend(range(10))
            od = collections.OrderedDict(a=1)
            dd = collections.defaultdict(list)
            dd["x"].append(1)
            with gzip.open("/tmp/g.gz", "wb") as g:
                g.write(pickle.dumps(data))
            with gzip.open("/tmp/g.gz", "rb") as g:
                back = pickle.loads(g.read())
            logging.basicConfig(filename="/tmp/log.txt")
            logging.getLogger("x").warning("hello")
            decimal.getcontext().prec = 50
            return f"json {len(data['a'])}, re {len(words)}, Counter {c.most_common(1)}, deque {list(d)}, {od}, {dict(dd)}, pickle {back == data}, {decimal.Decimal(1) / 7}, median {statistics.median([1, 3, 2])}"

        def misc():
            import random
            import secrets
            import uuid

            return f"cpu_count {os.cpu_count()}, affinity {len(os.sched_getaffinity(0))}, random {random.random() < 1}, secrets {len(secrets.token_hex(8))}, uuid4 {uuid.uuid4().version}, time {time.strftime('%Y')}"

        step("numpy (default_rng, solve, eigvals, fft, matmul)", numpy_work)
        step("threading: 16 threads", threads)
        step("concurrent.futures.ThreadPoolExecutor()", futures)
        step(
            "concurrent.futures.ProcessPoolExecutor(2) (expected refused: no process)", process_pool
        )
        step("queue/Condition/Event/Timer with timeouts", queues)
        step("tempfile (TemporaryDirectory, NamedTemporaryFile, mkstemp, Spooled)", temp)
        step("shelve", shelve_work)
        step("sqlite3", sqlite_work)
        step("json, re, collections, gzip, pickle, logging, decimal, statistics", text_work)
        step("os.cpu_count, random, secrets, uuid, time", misc)


# ------------------------------------------------------------------ FIFOs: the run's user's pipe pages
SLOT_NS = 100_000_000  # one half-bit; both games read the machine's one clock
BITS = 16  # the first four colour counts of an opening hand, 4 bits each (capped at 15)
TALK_NS = 7_500_000_000  # within a first decision's 10 s


def _bits(hand) -> list[int]:
    return [min(count, 15) >> k & 1 for count in hand[:4] for k in range(4)]


class FifoTalk(Planner):
    """Two seatings-paired games played at once by two workers (``fifotalk.toml``): seat 0
    sends its opening hand's first four counts by holding 59 FIFOs (944 pipe pages, charged
    to the run's user, machine-wide) in each '1' half-slot; seat 1 of the pair game (whose
    rival holds that hand) makes a FIFO every few ms and reads its size (``F_GETPIPE_SZ``):
    8192 while the user is past ``pipe-user-pages-soft``, 65536 under it."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                if view.seat == 0:
                    say(
                        "FifoTalk",
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in view.hand[:4]]}",
                    )
                    self._send(_bits(view.hand))
                else:
                    self._receive(view)
            except Exception as exc:
                say("FifoTalk", f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def _send(self, bits: list[int]) -> None:
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        paths = []
        for i in range(59):
            paths.append(f"/tmp/s{i}")
            os.mkfifo(paths[-1])
        held: list[int] = []
        end = time.time_ns() + TALK_NS
        while (now := time.time_ns()) < end:
            if frame[now // SLOT_NS % len(frame)]:
                while len(held) < len(paths):
                    held.append(os.open(paths[len(held)], os.O_RDWR | os.O_NONBLOCK))
            else:
                while held:
                    os.close(held.pop())
            time.sleep(0.002)
        while held:
            os.close(held.pop())

    def _receive(self, view) -> None:
        os.mkfifo("/tmp/r")
        n = 2 * BITS
        small = [0] * n
        total = [0] * n
        end = time.time_ns() + TALK_NS
        while (now := time.time_ns()) < end:
            fd = os.open("/tmp/r", os.O_RDWR | os.O_NONBLOCK)
            size = LIBC.fcntl(fd, F_GETPIPE_SZ)
            os.close(fd)
            slot = now // SLOT_NS % n
            total[slot] += 1
            small[slot] += size < 65536
            time.sleep(0.003)
        rate = [s / max(t, 1) for s, t in zip(small, total, strict=True)]
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(BITS)]
        counts = [sum(bits[4 * c + k] << k for k in range(4)) for c in range(4)]
        margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(BITS))
        say(
            "FifoTalk",
            f"seat 1 own hand {list(view.hand)}; {sum(total)} probes, {sum(small)} small; read the pair game's seat-0 (its rival's) first four counts: {counts} (smallest margin {margin:.2f})",
        )


class FifoNote(Planner):
    """Two colluding seats of one game under steady decisions and one worker (``fifonote.toml``),
    which the docs say keeps them from talking by time or load: seat 0, at its k-th turn,
    holds 59 FIFOs or none for bit k of a mark (1, 0) and its opening hand's first four
    counts, and keeps them held while its host stops it; seat 1, at its own k-th turn, makes
    a FIFO and reads its size. A note in a machine-wide count, left for the next seat, not
    a timing."""

    def _new_turn(self, view) -> int | None:
        """The index of this seat's own turn at its first decision of a turn, else None."""
        if view.turn <= 0 or view.turn == getattr(self, "_turn", None):
            return None
        self._turn = view.turn
        self._k = getattr(self, "_k", -1) + 1
        return self._k

    def decide(self, view):
        k = self._new_turn(view)
        try:
            if k is None:
                pass
            elif view.seat == 0:
                if k == 0:
                    self._bits = [1, 0, *_bits(view.hand)]
                    self._held: list[int] = []
                    self._paths = []
                    for i in range(59):
                        self._paths.append(f"/tmp/s{i}")
                        os.mkfifo(self._paths[-1])
                    say(
                        "FifoNote",
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in view.hand[:4]]}",
                    )
                if k < len(self._bits) and self._bits[k]:
                    while len(self._held) < len(self._paths):
                        self._held.append(
                            os.open(self._paths[len(self._held)], os.O_RDWR | os.O_NONBLOCK)
                        )
                else:
                    while self._held:
                        os.close(self._held.pop())
            else:
                if k == 0:
                    self._read: list[int] = []
                    os.mkfifo("/tmp/r")
                    say("FifoNote", f"seat 1 own hand {list(view.hand)}")
                if k < BITS + 4:
                    fd = os.open("/tmp/r", os.O_RDWR | os.O_NONBLOCK)
                    self._read.append(int(LIBC.fcntl(fd, F_GETPIPE_SZ) < 65536))
                    os.close(fd)
                if k == BITS + 3:  # the hand follows the first 1, 0 (who moves first)
                    at = next((i for i in range(3) if self._read[i : i + 2] == [1, 0]), 0) + 2
                    got = self._read[at : at + BITS]
                    counts = [sum(got[4 * c + j] << j for j in range(4)) for c in range(4)]
                    say(
                        "FifoNote",
                        f"seat 1 read seat 0's first four counts: {counts} (bits {self._read})",
                    )
        except Exception as exc:
            say("FifoNote", f"failed at turn {k}: {type(exc).__name__} {exc}")
        return super().decide(view)
