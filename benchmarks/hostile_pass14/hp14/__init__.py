# ruff: noqa: E501, SIM105, SIM115, RUF005  (attack code: long report lines, files opened in one-line probes)
"""Hostile strategies of a fourteenth independent pass on ``--isolate`` (benchmarks/hostile_pass14).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``); the ``Bad*``
classes answer one malformed action at their first chance (class 3, run both ways by
``protocol.sh``)."""

from __future__ import annotations

import ctypes
import os
import re
import signal
import stat
import struct
import sys
import threading
import time

from cardgame import actions as A
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


def _try(what: str, call) -> str:
    try:
        return f"{what}: ok {call()!r}"[:300]
    except BaseException as exc:  # what the sandbox refused
        return f"{what}: {type(exc).__name__} {exc}"[:300]


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


# ------------------------------------------------------------------ (7) honest strategies
class Honest14(Once):
    """numpy (linalg, random), threads and a pool, tempfile, sqlite3 and the usual modules."""

    NAME = "Honest14"

    def attack(self, view):
        import concurrent.futures
        import importlib
        import tempfile

        def check(label, fn):
            t0 = time.perf_counter()
            try:
                say(self.NAME, f"ok {label}: {fn()} ({(time.perf_counter() - t0) * 1e3:.1f} ms)")
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
            c = np.linalg.cholesky(a @ a.T + 200 * np.eye(200))
            return f"solve residual {np.abs(a @ x - b).max():.1e}, det(inv) {np.linalg.det(np.linalg.inv(a[:20, :20])):.3g}, eig {len(w)}, svd max {s[0]:.3g}, qr {q.shape}, chol {c.shape}, lstsq {np.linalg.lstsq(a[:, :5], b, rcond=None)[0].shape}, matmul 400x400 {float((rng.standard_normal((400, 400)) @ rng.standard_normal((400, 400))).std()):.3g}"

        def nprandom():
            import numpy as np

            g = np.random.Generator(np.random.PCG64(7))
            return f"{g.integers(0, 100, 3).tolist()} perm {np.random.default_rng(3).permutation(5).tolist()} legacy {np.random.RandomState(2).randint(0, 9, 3).tolist()} choice {g.choice(10, 3, replace=False).tolist()} normal {g.normal(size=2).round(3).tolist()}"

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
                    return f"{os.path.getsize(p)} bytes in {d}; named {g.name}; cwd {os.getcwd()}"

        def modules():
            names = "json collections itertools functools dataclasses statistics fractions decimal heapq bisect math cmath re hashlib hmac pickle copy typing enum random struct array queue sqlite3 csv io zlib gzip bz2 lzma base64 datetime shelve dbm textwrap operator contextlib abc weakref secrets uuid ctypes pathlib string difflib pprint numpy.fft numpy.polynomial numpy.linalg numpy.random".split()
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
            return f"{r.random():.4f} {r.sample(range(10), 3)} mean {statistics.mean([1, 2, 3, 4])} sysrand {random.SystemRandom().randint(0, 1) in (0, 1)} own rng {self.rng.random():.4f}"

        def sqlite():
            import sqlite3

            c = sqlite3.connect(":memory:")
            c.execute("create table t(x)")
            c.executemany("insert into t values (?)", [(k,) for k in range(100)])
            m = c.execute("select sum(x) from t").fetchone()[0]

            def on_file(uri):
                try:
                    d = sqlite3.connect(uri, uri=True)
                    d.execute("create table if not exists u(y)")
                    d.execute("insert into u values (1)")
                    d.commit()
                    return f"ok {d.execute('select count(*) from u').fetchone()[0]}"
                except Exception as exc:
                    return f"{type(exc).__name__} {exc}"

            return f"memory {m}; file /tmp/game/a.db: {on_file('file:/tmp/game/a.db')}; with nolock=1: {on_file('file:/tmp/game/b.db?nolock=1')}"

        def files():
            import dbm
            import logging
            import pickle
            import shelve
            import tarfile
            import zipfile

            out = []
            for label, fn in (
                ("dbm", lambda: dbm.open("/tmp/game/d", "c").close()),
                ("dbm.dumb", lambda: __import__("dbm.dumb").dumb.open("/tmp/game/dd", "c").close()),
                ("shelve", lambda: shelve.open("/tmp/game/s").close()),
                ("pickle", lambda: pickle.dump({"a": 1}, open("/tmp/game/p.pkl", "wb"))),
                ("zipfile", lambda: zipfile.ZipFile("/tmp/game/z.zip", "w").writestr("a", "b")),
                ("tarfile", lambda: tarfile.open("/tmp/game/t.tar", "w").close()),
                (
                    "logging file",
                    lambda: logging.FileHandler("/tmp/game/log.txt").emit(
                        logging.makeLogRecord({"msg": "x"})
                    ),
                ),
                (
                    "shutil.copy",
                    lambda: __import__("shutil").copy("/tmp/game/p.pkl", "/tmp/game/q.pkl"),
                ),
                (
                    "shutil.copyfile",
                    lambda: __import__("shutil").copyfile("/tmp/game/p.pkl", "/tmp/game/r.pkl"),
                ),
                (
                    "Path.touch twice",
                    lambda: [__import__("pathlib").Path("/tmp/game/t").touch() for _ in range(2)],
                ),
            ):
                try:
                    fn()
                    out.append(f"{label} ok")
                except BaseException as exc:
                    out.append(f"{label} {type(exc).__name__}: {exc}")
            return "; ".join(out)

        def queue_threads():
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
            ("sqlite3", sqlite),
            ("files", files),
            ("queue between threads", queue_threads),
        ):
            check(label, fn)


# ------------------------------------------------------------------ (1) the deal
class SeedHunt(Planner):
    """The deal through the seat's random stream and the public seeding: the RNG it is
    handed against ``random.Random(seat_stream_seed(public seed, seat, identity))``, and its
    own opening hand and offer against the games that the public seeds deal (root 2026, the
    ad-hoc default, and roots 0..63; deals 0..31 of ``deal_key(2)`` and of the cell's key).
    The default mode (``ISOLATE=``) is the control: the same search finds the seed there."""

    NAME = "SeedHunt"

    def __init__(self, rng, knobs=None):
        self._state0 = rng.getstate()
        super().__init__(rng, knobs)

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.hunt(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def hunt(self, view) -> None:
        import random

        from cardgame.game import Game
        from sims.seeding import deal_key, game_seed

        t0 = time.perf_counter()
        own_hand, own_offer = tuple(view.hand), tuple(view.offer_ids)
        keys = [deal_key(2), "base/2p/hp14:SeedHunt+planner", "base/2p/planner+hp14:SeedHunt"]
        roots = [2026, *range(64)]
        tried = 0
        found = []
        rng_found = []
        identity = "hp14:SeedHunt"
        for root in roots:
            for key in keys:
                for k in range(32):
                    seed = game_seed(root, key, k)
                    tried += 1
                    state = Game(2, seed).new_state()
                    v = state.view(view.seat)
                    if tuple(v.hand) == own_hand and tuple(v.offer_ids) == own_offer:
                        rival = state.view(1 - view.seat)
                        found.append((root, key, k, seed, list(rival.hand), list(rival.offer)))
                    if root == 2026:
                        for seat in (0, 1):
                            if (
                                random.Random(f"{seed}:seat{seat}:{identity}").getstate()
                                == self._state0
                            ):
                                rng_found.append((root, key, k, seat))
        say(
            self.NAME,
            f"seat {view.seat}: {tried} public seeds dealt in {time.perf_counter() - t0:.1f} s; "
            f"deals matching its own hand and offer: {found[:2] if found else 'none'}; "
            f"its RNG state equal to a public seat stream: {rng_found or 'none'}",
        )


# ------------------------------------------------------------------ (2) a process of the user
def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "pipe"), (stat.S_ISREG, "file"), (stat.S_ISCHR, "chr"),
                       (stat.S_ISSOCK, "sock"), (stat.S_ISDIR, "dir")):  # fmt: skip
        if test(mode):
            return name
    return "other"


class RunProbe(Once):
    """What of the run and the machine a game reaches: command line, environment, folder,
    the worker's memory, files, processes, signals, pipes, network, a process of its own."""

    NAME = "RunProbe"

    def attack(self, view) -> None:
        n = self.NAME
        say(
            n,
            f"argv {sys.argv!r}; orig_argv {getattr(sys, 'orig_argv', None)!r}; env {dict(os.environ)!r}; cwd {os.getcwd()!r}; pid {os.getpid()} ppid {os.getppid()} uid {os.getuid()} pgid {os.getpgid(0)} sid {os.getsid(0)}",
        )
        say(n, f"sys.path {sys.path!r}")
        fds = []
        for fd in range(256):
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            fds.append(f"{fd}:{_kind(st.st_mode)}")
        say(n, f"fds {fds}")
        for path in (
            "/",
            "/proc",
            "/tmp",
            "/tmp/game",
            "/dev",
            "/dev/shm",
            "/dev/pts",
            "/sys",
            "/home",
            "/root",
            "/work",
            "/run",
            "/etc",
            "/var",
        ):
            say(n, _try(f"listdir {path}", lambda p=path: sorted(os.listdir(p))[:25]))
        for path in (
            "/proc/self/environ",
            "/proc/1/cmdline",
            "/proc/1/mem",
            "/etc/passwd",
            "/etc/hostname",
            os.path.expanduser("~/.config/cardgame/seal.key"),
            "/root/.config/cardgame/seal.key",
        ):
            say(n, _try(f"read {path}", lambda p=path: open(p, "rb").read(80)))
        # the results folder: every place the run may live
        hits = []
        for top in ("/", "/tmp", "/work", "/root", "/home"):
            try:
                for folder, names, files in os.walk(top):
                    names[:] = [x for x in names if x not in ("site-packages", "lib", ".pyenv")]
                    if "manifest.json" in files:
                        hits.append(folder)
                    if len(hits) > 5:
                        break
            except OSError:
                pass
        say(n, f"folders holding a manifest.json (outside Python's own): {hits or 'none'}")


class CallProbe(Once):
    """The calls a process of the user could make on the run: the worker's memory,
    signals to anyone (SIGINT to the run), a process or a daemon of its own, sockets, a
    rival's pipe (it holds only its own game's), and its limits."""

    NAME = "CallProbe"

    def attack(self, view) -> None:
        n = self.NAME
        fds = []
        for fd in range(256):
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            fds.append(f"{fd}:{_kind(st.st_mode)}")
        # the worker's memory and other processes: without /proc, by the calls
        say(
            n,
            _try(
                "process_vm_readv pid 1",
                lambda: (
                    LIBC.process_vm_readv(1, None, 0, None, 0, 0),
                    os.strerror(ctypes.get_errno()),
                ),
            ),
        )
        say(
            n,
            _try(
                "ptrace(PTRACE_ATTACH, 1)",
                lambda: (LIBC.ptrace(16, 1, 0, 0), os.strerror(ctypes.get_errno())),
            ),
        )
        say(
            n,
            "; ".join(
                _try(f"kill({pid},{int(sig)})", lambda p=pid, s=sig: os.kill(p, s))[:60]
                for pid, sig in (
                    (1, signal.SIGINT),
                    (1, signal.SIGKILL),
                    (-1, signal.SIGKILL),
                    (0, signal.SIGTERM),
                    (2, 0),
                    (3, 0),
                )
            ),
        )
        say(n, _try("killpg(0, SIGINT)", lambda: os.killpg(0, signal.SIGINT)))
        say(n, _try("pidfd_open(1)", lambda: os.pidfd_open(1)))
        say(
            n,
            _try(
                "pthread_kill(self, SIGUSR1) handled",
                lambda: (
                    signal.signal(signal.SIGUSR1, lambda *a: None),
                    signal.pthread_kill(threading.get_ident(), signal.SIGUSR1),
                ),
            ),
        )
        say(n, _try("setsid", os.setsid))
        say(n, _try("fork", os.fork))
        say(
            n,
            _try(
                "posix_spawn /bin/sh", lambda: os.posix_spawn("/bin/sh", ["sh", "-c", "true"], {})
            ),
        )
        import subprocess

        say(
            n,
            _try(
                "subprocess.run(['true'])", lambda: subprocess.run(["true"], check=False).returncode
            ),
        )
        import socket

        for fam in (socket.AF_INET, socket.AF_UNIX, socket.AF_NETLINK):
            say(n, _try(f"socket({fam})", lambda f=fam: socket.socket(f, socket.SOCK_DGRAM)))
        # writing into a pipe: the only pipes it holds are its own game's
        for entry in fds:
            fd, kind = entry.split(":")
            if kind == "pipe":
                say(n, _try(f"write junk into fd {fd}", lambda f=int(fd): os.write(f, b"")))
        say(
            n,
            _try(
                "open fd 0 path again for writing via /dev/fd/0",
                lambda: os.open("/dev/fd/0", os.O_WRONLY),
            ),
        )
        say(n, _try("write /tmp/../results", lambda: open("/results-hp14", "w")))
        say(n, _try("mknod /tmp/game/fifo", lambda: os.mkfifo("/tmp/game/fifo")))
        say(
            n,
            _try(
                "resource limits",
                lambda: {
                    k: __import__("resource").getrlimit(getattr(__import__("resource"), k))
                    for k in (
                        "RLIMIT_AS",
                        "RLIMIT_CPU",
                        "RLIMIT_NOFILE",
                        "RLIMIT_FSIZE",
                        "RLIMIT_NPROC",
                    )
                },
            ),
        )


class Alloc2G(Once):
    """2 GiB of memory, at once and step by step (touched), then plays on."""

    NAME = "Alloc2G"

    def attack(self, view) -> None:
        say(self.NAME, _try("bytearray(2 GiB)", lambda: len(bytearray(2 << 30))))
        held = []
        try:
            for _ in range(64):
                block = bytearray(32 << 20)
                block[::4096] = b"x" * len(block[::4096])
                held.append(block)
        except MemoryError:
            pass
        say(self.NAME, f"held {len(held) * 32} MiB touched before MemoryError")
        held.clear()
        try:
            import numpy as np

            a = np.ones(2 << 30, dtype=np.uint8)
            say(self.NAME, f"numpy 2 GiB: {a.nbytes}")
        except MemoryError as exc:
            say(self.NAME, f"numpy 2 GiB: MemoryError {exc}")
        say(
            self.NAME,
            _try(
                "/dev/shm 200 MiB",
                lambda: [open(f"/dev/shm/f{k}", "wb").write(b"x" * (15 << 20)) for k in range(14)],
            ),
        )
        say(
            self.NAME,
            _try(
                "/tmp 200 MiB",
                lambda: [open(f"/tmp/game/f{k}", "wb").write(b"x" * (15 << 20)) for k in range(14)],
            ),
        )


class StallFirst(Planner):
    """Sleeps 12 s at its first decision (the decision limit is 10 s): its own seat fails."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            time.sleep(12)
        return super().decide(view)


class StallInit(Planner):
    """Sleeps 12 s in its constructor (in each game's process): its own seat fails."""

    def __init__(self, rng, knobs=None):
        time.sleep(12)
        super().__init__(rng, knobs)


class StallCatch(Planner):
    """Busy-loops at its first decision, catching everything (a raise in the worker cannot
    reach it: it runs in its own process, and the worker times its answer)."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            end = time.monotonic() + 14
            while time.monotonic() < end:
                try:
                    sum(range(1000))
                except BaseException:
                    pass
        return super().decide(view)


class Daemon(Planner):
    """Leaves work behind: a non-daemon thread sleeping 25 s that then writes a file and
    says so, an atexit handler that sleeps, SIGTERM ignored; each game first says what an
    earlier game left in /tmp and /dev/shm."""

    NAME = "Daemon"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            import atexit

            left = sorted(os.listdir("/tmp/game")) + sorted(os.listdir("/dev/shm"))
            say(
                self.NAME,
                f"seat {view.seat}: left by earlier games: {left or 'nothing'}; t {time.time():.1f}",
            )
            for p in ("/tmp/game/daemon-was-here", "/dev/shm/daemon-was-here"):
                open(p, "w").write("x")

            def late():
                time.sleep(25)
                say(self.NAME, f"the thread outlived the game by 25 s (t {time.time():.1f})")

            threading.Thread(target=late, daemon=False).start()
            atexit.register(lambda: time.sleep(30))
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        return super().decide(view)


# ------------------------------------------------------------------ (3) two protocols
class Bad(Planner):
    """Answers ``bad(view)`` at its first decision of ``PHASE`` (a turn, or a keep)."""

    PHASE = "turn"

    def decide(self, view):
        keep = view.phase in (A.Phase.SETUP_KEEP, A.Phase.KEEP_DRAWN)
        if (self.PHASE == "keep") == keep and not getattr(self, "_done", False):
            self._done = True
            return self.bad(view)
        return super().decide(view)

    def bad(self, view):  # pragma: no cover - overridden
        raise NotImplementedError


def _bad(name: str, phase: str, make) -> type:
    return type(name, (Bad,), {"PHASE": phase, "bad": lambda self, view: make(view)})


class DrawFaceUp(tuple):
    """A look-alike of the action class, not it."""

    __slots__ = ()
    slot = property(lambda self: tuple.__getitem__(self, 0))


def _nested(depth: int):
    x: object = 0
    for _ in range(depth):
        x = (x,)
    return x


BAD = {
    "BadSlotStr": ("turn", lambda v: A.DrawFaceUp("0")),
    "BadSlotFloat": ("turn", lambda v: A.DrawFaceUp(0.0)),
    "BadSlotNaN": ("turn", lambda v: A.DrawFaceUp(float("nan"))),
    "BadSlotBool": ("turn", lambda v: A.DrawFaceUp(True)),
    "BadSlotHuge": ("turn", lambda v: A.DrawFaceUp(10**40)),
    "BadSlotNeg": ("turn", lambda v: A.DrawFaceUp(-1)),
    "BadSlotList": ("turn", lambda v: A.DrawFaceUp([0])),
    "BadSlotNumpy": ("turn", lambda v: A.DrawFaceUp(__import__("numpy").int64(0))),
    "BadSlotLongStr": ("turn", lambda v: A.DrawFaceUp("9" * 5000)),
    "BadNoField": ("turn", lambda v: tuple.__new__(A.DrawFaceUp, ())),
    "BadColumnShort": ("turn", lambda v: tuple.__new__(A.PlaceColumn, (0,))),
    "BadThreeEmpty": ("turn", lambda v: tuple.__new__(A.PlaceThree, ())),
    "BadLookAlike": ("turn", lambda v: DrawFaceUp((0,))),
    "BadDict": ("turn", lambda v: {"type": "draw_deck"}),
    "BadNested": ("turn", lambda v: [[[[{"a": float("nan")}]]]]),
    "BadDeep": ("turn", lambda v: tuple.__new__(A.PlaceThree, (_nested(6), 0, 1))),
    "BadNone": ("turn", lambda v: None),
    "BadKeepList": ("keep", lambda v: A.KeepDestinations(list(v.offer_ids[:2]))),
    "BadKeepBool": ("keep", lambda v: A.KeepDestinations((True, False))),
    "BadKeepFloat": (
        "keep",
        lambda v: A.KeepDestinations(tuple(float(i) for i in v.offer_ids[:2])),
    ),
    "BadKeepNested": ("keep", lambda v: A.KeepDestinations(((v.offer_ids[0],), v.offer_ids[1]))),
    "BadKeepLong": ("keep", lambda v: A.KeepDestinations(tuple([v.offer_ids[0]] * 64) + ("x",))),
    "BadKeepHuge": ("keep", lambda v: A.KeepDestinations((10**40,))),
    "BadKeepEmpty": ("keep", lambda v: tuple.__new__(A.KeepDestinations, ())),
}
for _name, (_phase, _make) in BAD.items():
    globals()[_name] = _bad(_name, _phase, _make)


# ------------------------------------------------------------------ (6) the host's memory
def readable(address: int, size: int) -> bool:
    """Whether memory can be read: write(2) of it to a file says EFAULT, never a crash."""
    if not _SINK:
        _SINK.append(os.open("/tmp/game/.sink", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600))
    os.lseek(_SINK[0], 0, 0)
    return LIBC.write(_SINK[0], ctypes.c_void_p(address), ctypes.c_size_t(size)) == size


_SINK: list[int] = []


def runs(centres: list[int], span: int = 1 << 26) -> list[tuple[int, int]]:
    """Readable runs of pages within ``span`` of each address, merged (probed by madvise:
    MADV_NORMAL is allowed and says ENOMEM where nothing is mapped)."""
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


def words_in(low: int, high: int, centres: list[int]) -> tuple[list[int], int]:
    """Every aligned 8-byte word in [low, high) in the memory near ``centres`` (the host's
    memory this game inherited), with how many bytes were scanned."""
    found: list[int] = []
    scanned = 0
    for start, size in runs(centres):
        data = ctypes.string_at(start, size)
        scanned += size
        for (value,) in struct.iter_unpack("<Q", data):
            if low <= value < high:
                found.append(value)
    return found, scanned


class SizeNote(Planner):
    """Memory across games of one host through what the host computes from a game: the
    size of the game's stderr. ``guest._copy_stderr`` maps the game's memory file
    (``mmap.mmap(log, size)``) and writes it through ``memoryview`` slices: the mmap object,
    its managed buffer and each memoryview hold ``size`` in C fields of objects in the
    host's own heap, freed but not cleared, and the next game's process is a fork of that
    host. A game pads its stderr to ``MARKER << 16 | payload`` bytes (at most its 16 MB
    file limit); the next game scans its memory for 8-byte words in that range. Payload:
    its opening hand's first three colour counts (4 bits each) and a 4-bit check."""

    NAME = "SizeNote"
    MARKER = 0xB7

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.note(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def note(self, view) -> None:
        t0 = time.perf_counter()
        low = self.MARKER << 16
        guest = sys.modules.get("sims.guest")
        centres = [id(sys.modules), id(os.environ), LIBC.sbrk(0), id(int)]
        if guest is not None:
            centres += [id(guest.__dict__), id(guest.serve)]
        centres.append(ctypes.c_void_p.in_dll(LIBC, "environ").value or id(int))
        mm = sys.modules.get("mmap")
        if mm is not None:
            centres.append(id(mm.mmap))
        found, scanned = words_in(low, low + (1 << 16), centres)
        notes = {}
        for v in found:
            p = v - low
            a, b, c, chk = p & 15, p >> 4 & 15, p >> 8 & 15, p >> 12 & 15
            if (a + b + c + 5) & 15 == chk:
                notes[(a, b, c)] = notes.get((a, b, c), 0) + 1
        counts = [min(c, 15) for c in view.hand[:3]]
        payload = counts[0] | counts[1] << 4 | counts[2] << 8 | ((sum(counts) + 5) & 15) << 12
        say(
            self.NAME,
            f"seat {view.seat} own hand {list(view.hand)} writes first three {counts}; "
            f"{scanned >> 10} KiB scanned in {time.perf_counter() - t0:.2f} s; "
            f"notes of earlier games (with copies): {notes or 'none'}; words in range {len(found)}; mmap imported {mm is not None}",
        )
        sys.stderr.flush()
        size = os.fstat(2).st_size
        total = low + payload
        if total > size:
            os.write(2, b" " * (total - size - 1) + b"\n")


# ------------------------------------------------------------------ (5) owners of failures
class Slow(Planner):
    """An honest planner that thinks 0.15 s a decision: time for kill14.sh to act."""

    def decide(self, view):
        time.sleep(0.15)
        return super().decide(view)


# ------------------------------------------------------------------ (6) the host's pipes
class PipeTimes(Planner):
    """The times of the game pipes (the host's for all its games): at construction (before
    this game wrote anything) and after 0.3 s and a write of its own, to see whether the
    kernel sets them at all (the docs list their change times as a residual)."""

    NAME = "PipeTimes"

    def __init__(self, rng, knobs=None):
        self._seen = {fd: self._times(fd) for fd in range(3, 64) if self._is_pipe(fd)}
        super().__init__(rng, knobs)

    @staticmethod
    def _is_pipe(fd: int) -> bool:
        try:
            return stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError:
            return False

    @staticmethod
    def _times(fd: int) -> tuple[int, int, int, int]:
        s = os.fstat(fd)
        return (s.st_ino, s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns)

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            now = time.time_ns()
            later = {fd: self._times(fd) for fd in self._seen}
            say(
                self.NAME,
                f"seat {view.seat} now {now}: pipes at construction (ino, atime, mtime, ctime) {self._seen}; at the first decision {later}",
            )
        return super().decide(view)


# ------------------------------------------------------------------ (6) two sandboxes at once
# Flush+Reload (pass 9's machine code: a load timed with rdtscp, then clflush) on one line
# of a page of the tmpfs copy of Python's view, which every sandbox of the machine maps.
_FR_CODE = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)


class _Line:
    """A cache line of a file of the shared copy, with a timed probe and a touch."""

    def __init__(self) -> None:
        LIBC.mmap.restype = ctypes.c_void_p
        LIBC.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        code = LIBC.mmap(None, 4096, 7, 0x22, -1, 0)  # RWX, private, anonymous
        ctypes.memmove(code, _FR_CODE, len(_FR_CODE))
        ctypes.memmove(code + 512, bytes.fromhex("8b07c3"), 3)
        self.probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(code)
        self.touch = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(code + 512)
        fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
        base = LIBC.mmap(None, 196608, 1, 2, fd, 0)  # read-only, private: the copy's own pages
        self.addr = base + 8192 + 64 * 9

    def threshold(self) -> float:
        """Below this process's own misses (flushed lines): a line another core loaded is
        served from the shared cache, faster than memory but slower than a hit of its own."""
        miss = []
        for _ in range(4000):
            self.probe(self.addr)
            miss.append(self.probe(self.addr))
        miss.sort()
        return miss[len(miss) // 20] - 10


SECONDS_NS = 7_500_000_000  # each seat's first decision: within the 10-s limit
SLOT_NS = 25_000_000  # one half-bit; the two seats' clocks are the machine's one clock
BITS = 16  # the first four colour counts of an opening hand, 4 bits each (capped at 15)


def _bits(hand) -> list[int]:
    out = []
    for count in hand[:4]:
        out += [min(count, 15) >> k & 1 for k in range(4)]
    return out


class CacheTalk(Planner):
    """Two sandboxes at once: games paired by seatings and played at the same time by two
    workers (``cachetalk.toml``: batches of one game, ``--workers 2``). Seat 0 (the pair's
    first game) sends its opening hand for 7.5 s at its first decision: each bit in two
    slots (Manchester), the line touched in a loop in a "1" half, left alone in a "0"
    half, slot i of the frame at wall-clock slot s with s % 32 == i. Seat 1 (the second
    game, whose rival holds that hand) times the line for 7.5 s at its first decision and
    reads each bit from which half had more fast loads."""

    NAME = "CacheTalk"

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._line = None

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self._line = _Line()
                if view.seat == 0:
                    bits = _bits(view.hand)
                    say(
                        self.NAME,
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in view.hand[:4]]} (bits {bits})",
                    )
                    self._send(bits)
                else:
                    self._receive(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def _send(self, bits: list[int]) -> None:
        with _quiet():
            os.sched_setaffinity(0, {0})
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        line, addr = self._line, self._line.addr
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            if frame[now // SLOT_NS % len(frame)]:
                for _ in range(200):
                    line.touch(addr)
            else:
                time.sleep(0.002)

    def _receive(self, view) -> None:
        with _quiet():
            os.sched_setaffinity(0, {1})
        line, addr = self._line, self._line.addr
        n = 2 * BITS
        hist = [[0] * 32 for _ in range(n)]  # probe times in 16-cycle buckets, per half-slot
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            hist[now // SLOT_NS % n][min(line.probe(addr) >> 4, 31)] += 1
        best = None
        for cut in range(8, 24):  # "fast": below cut * 16 cycles; the cut that separates best
            rate = [sum(h[:cut]) / max(sum(h), 1) for h in hist]
            margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(BITS))
            if best is None or margin > best[0]:
                best = (margin, cut, rate)
        margin, cut, rate = best
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(BITS)]
        counts = [sum(bits[4 * c + k] << k for k in range(4)) for c in range(4)]
        say(
            self.NAME,
            f"seat 1 own hand {list(view.hand)}; {sum(map(sum, hist))} probes, fast below {cut * 16} cycles; "
            f"fast-load rates per half-slot {[round(r, 3) for r in rate]}; "
            f"read the pair game's seat-0 (its rival's) first four counts: {counts} (smallest margin {margin:.3f})",
        )


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


class Probe14(Once):
    """Odd kernel objects a game may still make: a hugetlb mapping (a machine-wide pool),
    a FIFO in its /tmp (a pipe charged to the user's pipe buffers), its stderr file's inode
    (from the kernel's shmem counter), an executable anonymous mapping."""

    NAME = "Probe14"

    def attack(self, view) -> None:
        LIBC.mmap.restype = ctypes.c_void_p
        LIBC.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]

        def mm(length, prot, flags):
            ctypes.set_errno(0)
            r = LIBC.mmap(None, length, prot, flags, -1, 0)
            return (
                "ok"
                if r not in (None, ctypes.c_void_p(-1).value)
                else os.strerror(ctypes.get_errno())
            )

        def fifo():
            import fcntl

            os.mkfifo("/tmp/game/f")
            fd = os.open("/tmp/game/f", os.O_RDWR | os.O_NONBLOCK)
            return f"F_GETPIPE_SZ {fcntl.fcntl(fd, 1032)}; ino {os.fstat(fd).st_ino}"

        before = LIBC.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
        r = LIBC.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1
        say(
            self.NAME,
            f"dumpable {before}, PR_SET_DUMPABLE(1) -> {r}, now {LIBC.prctl(3, 0, 0, 0, 0)}; RLIMIT_CORE {__import__('resource').getrlimit(__import__('resource').RLIMIT_CORE)}",
        )
        say(
            self.NAME,
            f"MAP_HUGETLB 2 MiB: {mm(2 << 20, 3, 0x22 | 0x40000)}; RWX anonymous: {mm(4096, 7, 0x22)}; {_try('fifo', fifo)}; stderr ino {os.fstat(2).st_ino} dev {os.fstat(2).st_dev}",
        )


# ------------------------------------------------------------------ (6) set-only cache notes
class CacheNote(Planner):
    """Two colluding seats of one game (two sandboxes), taking turns: a cache line's state
    outlives the decision that set it. At the end of each of its decisions a seat leaves
    its opening hand's first four counts (16 bits) in 16 lines of 16 pages of the shared
    copy (a line loaded for 1, flushed for 0), plus a reference pair (one loaded, one
    flushed); at the start of each decision it times one load of each of its rival's lines
    (and flushes them) and votes each bit against the reference pair's midpoint. Nothing
    runs while the rival decides: it is meant for steady decisions, where a seat's process
    is stopped but while it decides."""

    NAME = "CacheNote"
    PAGES = 20  # 16 bits and 2 references, one line a page (no prefetch across pages)

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._line = None
        self._votes = [[0, 0] for _ in range(BITS)]
        self._rounds = 0

    def _lines(self, seat: int) -> list[int]:
        base = self._line.addr - (8192 + 64 * 9)  # the mapping's start
        first = 2 + seat * (self.PAGES + 2)
        return [base + (first + k) * 4096 + 64 * 5 for k in range(BITS + 2)]

    def decide(self, view):
        try:
            if self._line is None:
                self._line = _Line()
            probe, touch = self._line.probe, self._line.touch
            rival = self._lines(1 - view.seat)
            for a in rival:  # the pages' TLB entries warm, by a line 2 KiB away on each
                touch(a + 2048)
            probe(self._line.addr)  # the probe's own code and path warm
            times = [probe(a) for a in rival]
            hot, cold = times[BITS], times[BITS + 1]
            if cold > hot + 40:  # a reference pair that separates: the rival wrote this turn
                cut = (hot + cold) / 2
                self._rounds += 1
                for k in range(BITS):
                    self._votes[k][1 if times[k] < cut else 0] += 1
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        action = super().decide(view)
        try:
            own = self._lines(view.seat)
            bits = _bits(view_hand := self._hand0(view))
            for k, a in enumerate(own[:BITS]):
                (touch if bits[k] else probe)(a)
            touch(own[BITS])
            probe(own[BITS + 1])
            if view.final_round and not getattr(self, "_said", False) and self._rounds >= 5:
                self._said = True
                read = [1 if v[1] > v[0] else 0 for v in self._votes]
                counts = [sum(read[4 * c + k] << k for k in range(4)) for c in range(4)]
                weak = sum(1 for v in self._votes if min(v) * 3 > max(v))
                say(
                    self.NAME,
                    f"seat {view.seat} own first four counts {[min(c, 15) for c in view_hand[:4]]}; read the rival's: {counts} ({self._rounds} turns read, {weak} weak bits)",
                )
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action

    def _hand0(self, view):
        if not hasattr(self, "_opening"):
            self._opening = tuple(view.hand)
        return self._opening


class CacheNoteB(CacheNote):
    """The same, under a second name (a second label, so a second host and sandbox)."""


class CacheTalk2(CacheTalk):
    """CacheTalk for every hidden fact of a seat at its setup: its whole opening hand (9
    counts, 3 bits each, capped at 7) and the destinations it keeps (up to 6 ids, 6 bits
    each, 63 for none): 63 bits, in 10-ms half-slots. The sender decides its keep first,
    then sends it; the receiver reads before it decides its own keep."""

    NAME = "CacheTalk2"
    HALF_NS = 10_000_000
    NBITS = 63

    def decide(self, view):
        if getattr(self, "_done", False):
            return Planner.decide(self, view)
        self._done = True
        action = Planner.decide(self, view)
        try:
            self._line = _Line()
            if view.seat == 0:
                kept = list(getattr(action, "ids", ()))[:6]
                bits = self._encode(view.hand, kept)
                say(
                    self.NAME,
                    f"seat 0 sends its hand {[min(c, 7) for c in view.hand]} and keeps {kept}",
                )
                self._send2(bits)
            else:
                self._receive2(view)
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action

    def _encode(self, hand, kept) -> list[int]:
        out = []
        for count in list(hand)[:9]:
            out += [min(count, 7) >> k & 1 for k in range(3)]
        for j in range(6):
            v = kept[j] if j < len(kept) and 0 <= kept[j] < 63 else 63
            out += [v >> k & 1 for k in range(6)]
        return out

    def _decode(self, bits):
        hand = [sum(bits[3 * c + k] << k for k in range(3)) for c in range(9)]
        ids = [sum(bits[27 + 6 * j + k] << k for k in range(6)) for j in range(6)]
        return hand, [i for i in ids if i != 63]

    def _send2(self, bits) -> None:
        with _quiet():
            os.sched_setaffinity(0, {0})
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        line, addr = self._line, self._line.addr
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            if frame[now // self.HALF_NS % len(frame)]:
                for _ in range(100):
                    line.touch(addr)
            else:
                time.sleep(0.001)

    def _receive2(self, view) -> None:
        with _quiet():
            os.sched_setaffinity(0, {1})
        line, addr = self._line, self._line.addr
        n = 2 * self.NBITS
        hist = [[0] * 32 for _ in range(n)]
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            hist[now // self.HALF_NS % n][min(line.probe(addr) >> 4, 31)] += 1
        best = None
        for cut in range(8, 24):
            rate = [sum(h[:cut]) / max(sum(h), 1) for h in hist]
            margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(self.NBITS))
            if best is None or margin > best[0]:
                best = (margin, cut, rate)
        margin, cut, rate = best
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(self.NBITS)]
        hand, kept = self._decode(bits)
        say(
            self.NAME,
            f"seat 1 own hand {list(view.hand)}; {sum(map(sum, hist))} probes, fast below {cut * 16} cycles, smallest margin {margin:.3f}; read the pair game's seat 0 (its rival): hand {hand}, keeps {kept}",
        )


class CacheMemo(Planner):
    """Memory across games played one after another (one worker, one host): set-only cache
    lines of the shared copy outlive a game. At the end of every decision a game leaves its
    opening hand's first four counts in 16 lines of 16 pages (loaded for 1, flushed for 0)
    and a reference pair; the next game, in its constructor (before it has run much), times
    one load of each line and reads the bits against the pair's midpoint. In a study paired
    by seatings the next game's rival holds that hand."""

    NAME = "CacheMemo"
    FIRST_PAGE = 4

    def __init__(self, rng, knobs=None):
        self._read = None
        try:
            self._line = _Line()
            lines = self._lines()
            probe, touch = self._line.probe, self._line.touch
            for a in lines:
                touch(a + 2048)
            probe(self._line.addr)
            times = [probe(a) for a in lines]
            self._read = times
        except Exception as exc:
            self._line = None
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        super().__init__(rng, knobs)

    def _lines(self) -> list[int]:
        base = self._line.addr - (8192 + 64 * 9)
        return [base + (self.FIRST_PAGE + k) * 4096 + 64 * 7 for k in range(BITS + 2)]

    def decide(self, view):
        action = super().decide(view)
        if self._line is None:
            return action
        if self._read is not None:
            times, self._read = self._read, None
            hot, cold = times[BITS], times[BITS + 1]
            cut = (hot + cold) / 2
            bits = [1 if t < cut else 0 for t in times[:BITS]]
            counts = [sum(bits[4 * c + k] << k for k in range(4)) for c in range(4)]
            say(
                self.NAME,
                f"seat {view.seat} own first four counts {[min(c, 15) for c in view.hand[:4]]}; the earlier game's note: {counts} (reference hit {hot}, miss {cold} cycles; times {times[:BITS]})",
            )
            self._opening = tuple(view.hand)
        probe, touch = self._line.probe, self._line.touch
        lines = self._lines()
        for k, b in enumerate(_bits(self._opening)):
            (touch if b else probe)(lines[k])
        touch(lines[BITS])
        probe(lines[BITS + 1])
        return action


class HeapCount(Planner):
    """What a game's process inherits of earlier games: in the memory near its parent's
    objects it counts the worker's start orders (one is its own), views, and reports of how
    a game ended, and says the rng states of the orders it finds (an earlier game's seat's
    stream is its own stream's sibling)."""

    NAME = "HeapCount"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                guest = sys.modules.get("sims.guest")
                centres = [id(sys.modules), id(os.environ), LIBC.sbrk(0), id(int)]
                if guest is not None:
                    centres += [id(guest.__dict__), id(guest.serve)]
                data = b"".join(ctypes.string_at(s, n) for s, n in runs(centres))
                q = bytes([34])  # built at run time: a folded constant would match itself
                keys = {
                    "start orders": q + b'op": ' + q + b"game" + q,
                    "views": b"{" + q + b'op": ' + q + b"decide",
                    "reports by itself": q + b'by": ' + q + b"itself",
                    "reports by host": q + b'by": ' + q + b"host",
                    "labels": q + b'label": ' + q + b"hp14:",
                }
                found = {k: data.count(v) for k, v in keys.items()}
                rngs = sorted(
                    {m.group(1)[:40] for m in re.finditer(rb'"rng": \[3, \[(\d+, \d+)', data)}
                )
                say(
                    self.NAME,
                    f"seat {view.seat} turn {view.turn}: {len(data) >> 10} KiB scanned; {found}; rng heads {rngs}",
                )
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)


# ------------------------------------------------------------------ no machine code of its own
def _elf_vaddr(data: bytes, offset: int) -> int:
    """The virtual address (from the library's base) of a file offset, from its LOAD segments."""
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for k in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _pa, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + k * phentsize
        )
        if p_type == 1 and p_offset <= offset < p_offset + p_filesz:
            return p_vaddr + offset - p_offset
    raise ValueError("offset in no LOAD segment")


class _LibLine:
    """A flush and a clock from instructions that lie in a library of the view, never code
    of the game's own: OpenSSL's ``OPENSSL_rdtsc`` (rdtsc) and ``OPENSSL_instrument_bus``
    (clflush of its output word, then a locked add to it), both in libcrypto's text, found
    by their bytes and called through ctypes. The flush needs a writable word at the shared
    line: a private, writable mapping of the copy's file, whose page is the shared one until
    the add copies it (``MADV_DONTNEED`` drops the copy before each flush)."""

    RDTSC = bytes.fromhex("f30f1efa0f3148c1e2204809d0")
    BUS = bytes.fromhex("f30f1efa4989fa4889f14989f30f31")

    def __init__(self) -> None:
        import ctypes.util

        LIBC.mmap.restype = ctypes.c_void_p
        LIBC.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        name = ctypes.util.find_library("crypto") or "libcrypto.so.3"
        lib = ctypes.CDLL(name)
        path = None
        for folder in (
            "/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu",
            "/lib64",
            "/usr/lib64",
        ):
            if os.path.exists(os.path.join(folder, name)):
                path = os.path.join(folder, name)
                break
        data = open(path, "rb").read()
        cleanse_file = None
        # the exported OPENSSL_cleanse gives the base: its address less its own vaddr

        here = ctypes.cast(lib.OPENSSL_cleanse, ctypes.c_void_p).value
        # OPENSSL_cleanse's vaddr: the symbol table is not parsed; its code opens with these bytes
        found = data.find(bytes.fromhex("f30f1efa4831c04883fe0f7323"))
        if found < 0:
            raise ValueError("OPENSSL_cleanse not found by its bytes")
        cleanse_file = _elf_vaddr(data, found)
        base = here - cleanse_file
        self.rdtsc = ctypes.CFUNCTYPE(ctypes.c_uint64)(
            base + _elf_vaddr(data, data.find(self.RDTSC))
        )
        self.bus = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t)(
            base + _elf_vaddr(data, data.find(self.BUS))
        )
        fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
        ro = LIBC.mmap(None, 65536, 1, 2, fd, 0)  # read-only, private
        rw = LIBC.mmap(None, 65536, 3, 2, fd, 0)  # writable, private: the shared page until written
        self.addr = ro + 8192 + 64 * 9
        self.rw_page = rw + 8192
        self.rw_line = rw + 8192 + 64 * 9
        self.byte = ctypes.c_char.from_address(self.addr)

    def flush(self) -> None:
        LIBC.madvise(self.rw_page, PAGE, 4)  # MADV_DONTNEED: the shared page again
        self.bus(self.rw_line, 1)

    def timed(self) -> int:
        rdtsc, byte = self.rdtsc, self.byte
        t0 = rdtsc()
        byte.value  # noqa: B018  (the load timed)
        return rdtsc() - t0


class CacheTalk3(CacheTalk2):
    """CacheTalk2 (the rival's whole hand and kept destinations, 63 bits) with no machine code
    of its own and no executable memory: the flush and the clock are OpenSSL's, in
    libcrypto's text (``_LibLine``); the sender loads the line from Python."""

    NAME = "CacheTalk3"
    HALF_NS = 20_000_000

    def decide(self, view):
        if getattr(self, "_done", False):
            return Planner.decide(self, view)
        self._done = True
        action = Planner.decide(self, view)
        try:
            self._lib = _LibLine()
            if view.seat == 0:
                kept = list(getattr(action, "ids", ()))[:6]
                bits = self._encode(view.hand, kept)
                say(
                    self.NAME,
                    f"seat 0 sends its hand {[min(c, 7) for c in view.hand]} and keeps {kept}",
                )
                self._send3(bits)
            else:
                self._receive3(view)
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action

    def _send3(self, bits) -> None:
        with _quiet():
            os.sched_setaffinity(0, {0})
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        byte = self._lib.byte
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            if frame[now // self.HALF_NS % len(frame)]:
                for _ in range(200):
                    byte.value  # noqa: B018
            else:
                time.sleep(0.001)

    def _receive3(self, view) -> None:
        with _quiet():
            os.sched_setaffinity(0, {1})
        lib = self._lib
        flush, timed = lib.flush, lib.timed
        n = 2 * self.NBITS
        hist = [[0] * 64 for _ in range(n)]  # load times in 32-cycle buckets, per half-slot
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            flush()
            hist[now // self.HALF_NS % n][min(timed() >> 5, 63)] += 1
        best = None
        for cut in range(4, 60):
            rate = [sum(h[:cut]) / max(sum(h), 1) for h in hist]
            margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(self.NBITS))
            if best is None or margin > best[0]:
                best = (margin, cut, rate)
        margin, cut, rate = best
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(self.NBITS)]
        hand, kept = self._decode(bits)
        total = [sum(h) for h in hist]
        say(
            self.NAME,
            f"seat 1 own hand {list(view.hand)}; {sum(total)} probes, fast below {cut * 32} cycles, smallest margin {margin:.3f}; read the pair game's seat 0 (its rival): hand {hand}, keeps {kept}",
        )


class _Clock:
    """OpenSSL's ``OPENSSL_rdtsc`` in libcrypto's text (no code of the game's own), and one
    byte of each line of pages of the shared copy, read through ctypes."""

    def __init__(self) -> None:
        import ctypes.util

        name = ctypes.util.find_library("crypto") or "libcrypto.so.3"
        lib = ctypes.CDLL(name)
        path = next(
            os.path.join(f, name)
            for f in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64")
            if os.path.exists(os.path.join(f, name))
        )
        data = open(path, "rb").read()
        base = ctypes.cast(lib.OPENSSL_cleanse, ctypes.c_void_p).value - _elf_vaddr(
            data, data.find(bytes.fromhex("f30f1efa4831c04883fe0f7323"))
        )
        self.rdtsc = ctypes.CFUNCTYPE(ctypes.c_uint64)(
            base + _elf_vaddr(data, data.find(_LibLine.RDTSC))
        )
        LIBC.mmap.restype = ctypes.c_void_p
        LIBC.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
        self.base = LIBC.mmap(None, 196608, 1, 2, fd, 0)

    def byte(self, page: int, line: int):
        return ctypes.c_char.from_address(self.base + page * 4096 + 64 * line)

    def timed(self, byte) -> int:
        rdtsc = self.rdtsc
        t0 = rdtsc()
        byte.value  # noqa: B018
        return rdtsc() - t0


class CacheNote4(Planner):
    """CacheNote with no machine code of its own and no flush: between two seats of one game
    taking turns (steady decisions), through lines of the shared copy that one seat leaves
    cached. Each decision: time one load of each of the rival's 16 lines and 2 references
    (OpenSSL's rdtsc), then evict everything by sweeping 160 MB with numpy (one byte a
    line), then load its own 1-lines and its hot reference. Votes over the game's turns."""

    NAME = "CacheNote4"
    PAGES = 18
    SWEEP = 160 << 20

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._clock = None
        self._votes = [[0, 0] for _ in range(BITS)]
        self._rounds = 0

    def _bytes(self, seat: int):
        first = 2 + seat * (self.PAGES + 2)
        return [self._clock.byte(first + k, 5) for k in range(BITS + 2)], [
            self._clock.byte(first + k, 40) for k in range(BITS + 2)
        ]

    def decide(self, view):
        import numpy as np

        try:
            if self._clock is None:
                self._clock = _Clock()
                self._buffer = np.ones(self.SWEEP, dtype=np.uint8)
                self._opening = tuple(view.hand)
                with _quiet():  # one core a seat: its sweep empties the core it read on
                    os.sched_setaffinity(0, {view.seat % 2})
            lines, warm = self._bytes(1 - view.seat)
            for b in warm:  # each page's TLB entry, by a line 2 KiB away
                b.value  # noqa: B018
            times = [self._clock.timed(b) for b in lines]
            hot, cold = times[BITS], times[BITS + 1]
            if cold > hot + 60:
                cut = (hot + cold) / 2
                self._rounds += 1
                for k in range(BITS):
                    self._votes[k][1 if times[k] < cut else 0] += 1
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        action = super().decide(view)
        try:
            int(self._buffer[::64].sum())  # every line of 160 MB once: the caches emptied
            own, _ = self._bytes(view.seat)
            for k, bit in enumerate(_bits(self._opening)):
                if bit:
                    own[k].value  # noqa: B018
            own[BITS].value  # noqa: B018
            if view.final_round and not getattr(self, "_said", False):
                self._said = True
                read = [1 if v[1] > v[0] else 0 for v in self._votes]
                counts = [sum(read[4 * c + k] << k for k in range(4)) for c in range(4)]
                weak = sum(1 for v in self._votes if min(v) * 3 > max(v))
                say(
                    self.NAME,
                    f"seat {view.seat} own first four counts {[min(c, 15) for c in self._opening[:4]]}; read the rival's: {counts} ({self._rounds} turns read, {weak} weak bits)",
                )
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action


class CacheNote4B(CacheNote4):
    """The same, under a second name (a second host and sandbox)."""


class HeapWhere(Planner):
    """Where HeapCount's matches lie: 100 bytes around each report or order it finds."""

    NAME = "HeapWhere"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            guest = sys.modules.get("sims.guest")
            centres = [id(sys.modules), id(os.environ), LIBC.sbrk(0), id(int)]
            if guest is not None:
                centres += [id(guest.__dict__), id(guest.serve)]
            data = b"".join(ctypes.string_at(s, n) for s, n in runs(centres))
            for key in (b'"by": "', b'"op": "'):
                for m in list(re.finditer(re.escape(key), data))[:6]:
                    say(
                        self.NAME,
                        f"seat {view.seat} {key!r}: {data[max(m.start() - 60, 0) : m.start() + 60]!r}",
                    )
        return super().decide(view)


class GlobalRandom(Once):
    """What the process-wide generators give an honest strategy that uses them (not its
    own ``self.rng``): the module ``random``'s, numpy's legacy global one, and
    ``os.urandom``, in each game of one host."""

    NAME = "GlobalRandom"

    def attack(self, view) -> None:
        import random

        import numpy as np

        say(
            self.NAME,
            f"seat {view.seat}: random.random() {random.random():.6f}, np.random.random() {np.random.random():.6f}, os.urandom {os.urandom(4).hex()}, own rng {self.rng.random():.6f}",
        )


# ------------------------------------------------------------------ steady decisions' load
class LoadNote(Planner):
    """Two colluding seats of one game under steady decisions, by load: a process is
    stopped once its seat has answered, but a stop lands only when the kernel returns to
    user space, and ``madvise(MADV_POPULATE_WRITE)`` of 700 MB (allowed) keeps the kernel
    busy for a while after it. Seat 0 sends its opening hand's first four counts: for a "1"
    half (Manchester, two of its turns a bit), just before its limit is up it starts a
    thread that populates 700 MB and answers; the populating runs on into seat 1's decision.
    Seat 1 counts a Python loop for 0.1 s at the start of each decision, both pinned to one
    core, and reads each bit from which of its two turns was slower."""

    NAME = "LoadNote"
    LIMIT = 0.4  # the study's decision limit (steady-load.toml)
    SIZE = 700 << 20

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._turns = 0
        self._speeds: list[int] = []
        with _quiet():
            os.sched_setaffinity(0, {0})

    def decide(self, view):
        start = time.monotonic()
        if not hasattr(self, "_opening"):
            self._opening = tuple(view.hand)
            self._frame = [h for b in _bits(self._opening) for h in ((1, 0) if b else (0, 1))]
        if view.seat == 1:
            n, end = 0, start + 0.1
            while time.monotonic() < end:
                n += 1
            self._speeds.append(n)
        action = super().decide(view)
        if view.seat == 0 and self._turns < len(self._frame):
            if self._frame[self._turns]:
                wait = start + self.LIMIT - 0.07 - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                threading.Thread(target=self._populate, daemon=True).start()
                time.sleep(0.005)
            self._turns += 1
        if view.seat == 1 and view.final_round and not getattr(self, "_said", False):
            self._said = True
            s = self._speeds[1:]  # the first is its setup's, before any of the rival's turns
            bits = [1 if s[2 * k] < s[2 * k + 1] else 0 for k in range(min(BITS, len(s) // 2))]
            counts = [
                sum(bits[4 * c + k] << k for k in range(4) if 4 * c + k < len(bits))
                for c in range(4)
            ]
            say(
                self.NAME,
                f"seat 1 own first four counts {[min(c, 15) for c in self._opening[:4]]}; read the rival's: {counts} from {len(s)} turns; loop counts {s[:34]}",
            )
        if view.seat == 0 and not getattr(self, "_said", False):
            self._said = True
            say(
                self.NAME,
                f"seat 0 sends its first four counts {[min(c, 15) for c in self._opening[:4]]}",
            )
        return action

    def _populate(self) -> None:
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
        addr = LIBC.mmap(None, self.SIZE, 3, 0x22, -1, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            return
        LIBC.madvise(addr, self.SIZE, 23)  # MADV_POPULATE_WRITE
        LIBC.munmap(addr, self.SIZE)


class LoadNoteB(LoadNote):
    """The same, under a second name (a second host and sandbox)."""


class LoadNote2(LoadNote):
    """LoadNote measured against itself: the receiver counts its loop in the first 0.12 s of
    its decision (while a fill would run on) and again from 0.22 s to 0.32 s, and keeps the
    ratio; the sender says how its fills went."""

    NAME = "LoadNote2"

    def decide(self, view):
        start = time.monotonic()
        if not hasattr(self, "_opening"):
            self._opening = tuple(view.hand)
            self._frame = [h for b in _bits(self._opening) for h in ((1, 0) if b else (0, 1))]
            self._fills: list[str] = []
        if view.seat == 1:

            def count(until):
                n = 0
                while time.monotonic() < until:
                    n += 1
                return n

            early = count(start + 0.12)
            while time.monotonic() < start + 0.22:
                time.sleep(0.005)
            late = count(start + 0.32)
            self._speeds.append(early / 1.2 / max(late, 1))
        action = Planner.decide(self, view)
        if view.seat == 0 and self._turns < len(self._frame):
            if self._frame[self._turns]:
                wait = start + self.LIMIT - 0.07 - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                threading.Thread(target=self._populate2, daemon=True).start()
                time.sleep(0.005)
            self._turns += 1
        if view.final_round and not getattr(self, "_said", False):
            self._said = True
            if view.seat == 1:
                s = self._speeds[1:]
                bits = [1 if s[2 * k] < s[2 * k + 1] else 0 for k in range(min(BITS, len(s) // 2))]
                counts = [
                    sum(bits[4 * c + k] << k for k in range(4) if 4 * c + k < len(bits))
                    for c in range(4)
                ]
                say(
                    self.NAME,
                    f"seat 1 own first four counts {[min(c, 15) for c in self._opening[:4]]}; read the rival's: {counts} from {len(s)} turns; early/late ratios {[round(x, 2) for x in s[:32]]}",
                )
            else:
                say(
                    self.NAME,
                    f"seat 0 sent its first four counts {[min(c, 15) for c in self._opening[:4]]}; fills {self._fills[:8]}",
                )
        return action

    def _populate2(self) -> None:
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
        t = time.monotonic()
        addr = LIBC.mmap(None, self.SIZE, 3, 0x22, -1, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            self._fills.append("mmap failed")
            return
        rc = LIBC.madvise(addr, self.SIZE, 23)
        self._fills.append(f"rc {rc} {time.monotonic() - t:.2f} s")
        LIBC.munmap(addr, self.SIZE)


class LoadNote2B(LoadNote2):
    """The same, under a second name."""


class RaiseInterrupt(Planner):
    """Raises KeyboardInterrupt at its first decision (in the default mode: its seat's, or
    the user's Ctrl-C?)."""

    def decide(self, view):
        raise KeyboardInterrupt


class RaiseExit(Planner):
    """Raises SystemExit(0) at its first decision."""

    def decide(self, view):
        raise SystemExit(0)


class LoadProbe(LoadNote2):
    """Whether the effect is there at all: seat 0 fills before every other answer (1, 0, 1,
    0, ...); seat 1 says its mean early-to-late ratio after the sender's fill turns and
    after the others."""

    NAME = "LoadProbe"

    def decide(self, view):
        if not hasattr(self, "_opening"):
            self._opening = tuple(view.hand)
            self._fills = []
        self._frame = [1, 0] * 200
        if view.final_round and view.seat == 1 and not getattr(self, "_said2", False):
            self._said2 = True
            s = self._speeds[1:]
            a, b = s[0::2], s[1::2]
            say(
                self.NAME,
                f"seat 1: mean ratio after even sender turns {sum(a) / max(len(a), 1):.3f} (n={len(a)}), after odd {sum(b) / max(len(b), 1):.3f} (n={len(b)}); medians {sorted(a)[len(a) // 2]:.3f} / {sorted(b)[len(b) // 2]:.3f}",
            )
        return super().decide(view)


class LoadProbeB(LoadProbe):
    """The same, under a second name."""


class LoadProbe2(LoadProbe):
    """LoadProbe by memory bandwidth: the fill on the other core (it zeroes 700 MB), the
    receiver timing a numpy pass over 64 MB early and late in its decision."""

    NAME = "LoadProbe2"

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import numpy as np

        self._array = np.ones(64 << 20, dtype=np.uint8)

    def _populate2(self) -> None:
        with _quiet():
            os.sched_setaffinity(0, {1})
        super()._populate2()


def _stream(array) -> float:
    t = time.perf_counter()
    int(array[::64].sum())
    return time.perf_counter() - t


def _load_probe2_decide(self, view):
    start = time.monotonic()
    if not hasattr(self, "_opening"):
        self._opening = tuple(view.hand)
        self._fills = []
    self._frame = [1, 0] * 200
    if view.seat == 1:
        early = min(_stream(self._array) for _ in range(2))
        while time.monotonic() < start + 0.25:
            time.sleep(0.005)
        late = min(_stream(self._array) for _ in range(2))
        self._speeds.append(late / max(early, 1e-9))
    action = Planner.decide(self, view)
    if view.seat == 0 and self._turns < len(self._frame):
        if self._frame[self._turns]:
            wait = start + self.LIMIT - 0.07 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            threading.Thread(target=self._populate2, daemon=True).start()
            time.sleep(0.005)
        self._turns += 1
    if view.final_round and view.seat == 1 and not getattr(self, "_said2", False):
        self._said2 = True
        s = self._speeds[1:]
        a, b = s[0::2], s[1::2]
        say(
            self.NAME,
            f"seat 1: mean late/early after even sender turns {sum(a) / max(len(a), 1):.3f} (n={len(a)}), after odd {sum(b) / max(len(b), 1):.3f} (n={len(b)}); medians {sorted(a)[len(a) // 2]:.3f} / {sorted(b)[len(b) // 2]:.3f}",
        )
    return action


LoadProbe2.decide = _load_probe2_decide


class LoadProbe2B(LoadProbe2):
    """The same, under a second name."""
