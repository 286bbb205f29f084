# ruff: noqa: E501  (attack code: long report lines, probes)
"""Hostile strategies of pass 23s on ``--isolate`` (benchmarks/hostile_pass23s).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import time

from sims.strategies.planner import Planner

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

PROT_NONE, PROT_READ, PROT_WRITE = 0, 1, 2
MAP_PRIVATE, MAP_ANONYMOUS, MAP_FIXED_NOREPLACE = 0x02, 0x20, 0x100000
MAP_FAILED = ctypes.c_void_p(-1).value


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def call(nr: int, *args: int) -> tuple[int, int]:
    """(return value, errno) of a raw system call."""
    ctypes.set_errno(0)
    full = list(args) + [0] * (6 - len(args))
    ret = LIBC.syscall(nr, *full)
    return ret, (ctypes.get_errno() if ret == -1 else 0)


def key() -> str:
    """A parameter handed in through hp23s/key.txt (run.sh's KEY): the sandbox clears the
    environment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip()
    except OSError:
        return ""


def maxrss_kib() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


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


class PageTables(Once):
    """Item 1: kernel memory that no limit counts. Every one-page mapping read once maps the
    shared zero page (no memory of its own) but needs a page-table page of its own when the
    mappings lie 2 MiB apart, and a middle-level one too when they lie 1 GiB apart. So a
    game holding ``vm.max_map_count`` (65,530) such mappings, 256 MiB of address space, makes
    the kernel hold about 8 KiB of page tables for each: 512 MiB outside RLIMIT_AS.
    KEY=COUNT:STRIDE_MIB:HOLD_SECONDS (default 65000:1024:4)."""

    def probe(self, view) -> None:
        name = type(self).__name__
        parts = [*key().split(":"), "", "", ""][:3]
        count = int(parts[0]) if parts[0].isdigit() else 65000
        stride = (int(parts[1]) if parts[1].isdigit() else 1024) << 20
        hold = float(parts[2]) if parts[2].replace(".", "").isdigit() else 4.0
        base = 0x100000000000  # 16 TiB: far above the heap and below the libraries
        start = time.monotonic()
        made, why = 0, "-"
        total = 0
        for i in range(count):
            addr = base + i * stride
            got = LIBC.mmap(
                addr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0
            )
            if got in (None, MAP_FAILED):
                why = errno.errorcode.get(ctypes.get_errno(), "?")
                break
            total += ctypes.c_char.from_address(got).value[0]  # a read fault: the zero page
            made += 1
        took = time.monotonic() - start
        say(
            name,
            f"{made} one-page mappings {stride >> 20} MiB apart, each read once, in {took:.2f} s (stopped by {why}); "
            f"address space {made * 4096 >> 20} MiB of its 1024; maxrss {maxrss_kib()} kB; "
            f"page tables held about {made * (8 if stride >= 1 << 30 else 4) >> 10} MiB; holding {hold:g} s",
        )
        time.sleep(hold)


class PageTablesB(PageTables):
    """PageTables under another name: two seats of one game (a pool lists a class once)."""


class MemoryAll(Once):
    """Item 1: all the memory one game can hold at once against its 1 GiB address-space
    limit: PageTables' 65,000 mappings (page tables and mapping records outside the limit),
    the rest of its address space touched, its /tmp and /dev/shm filled (64 MiB each),
    held HOLD seconds. KEY=HOLD (default 4)."""

    def probe(self, view) -> None:
        name = "MemoryAll"
        hold = float(key()) if key().replace(".", "").isdigit() else 4.0
        base, stride = 0x100000000000, 1 << 30
        made = 0
        for i in range(65000):
            got = LIBC.mmap(
                base + i * stride,
                4096,
                PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
            if got in (None, MAP_FAILED):
                break
            ctypes.c_char.from_address(got).value  # noqa: B018  (a read fault: the zero page)
            made += 1
        ybuf = b"y" * (1 << 20)  # made before memory runs out
        held, chunks = 0, []
        for size in (64, 16, 4, 1):
            while True:
                try:
                    chunk = bytearray(size << 20)
                except MemoryError:
                    break
                for at in range(0, len(chunk), 4096):  # every page touched
                    chunk[at] = 1
                chunks.append(chunk)
                held += size
        for _ in range(8):  # room for the rest to run
            if chunks:
                held -= len(chunks.pop()) >> 20
        files = 0
        for folder in ("/tmp", "/dev/shm"):
            for n in range(8):  # files of 15 MiB: the file-size limit is 16 MiB
                try:
                    with open(os.path.join(folder, f"fill{n}"), "wb") as f:
                        for _ in range(15):
                            f.write(ybuf)
                            f.flush()
                            files += 1
                except (OSError, MemoryError):
                    break
        say(
            name,
            f"{made} mappings (about {made * 8 >> 10} MiB of page tables), {held} MiB of memory touched, "
            f"{files} MiB in /tmp and /dev/shm; maxrss {maxrss_kib() >> 10} MiB; holding {hold:g} s",
        )
        time.sleep(hold)
        del chunks


class PopulateStall(Planner):
    """(5) Steady decisions: a thread that maps and populates KEY MiB (default 512) in one
    call, over and over, so that most stops land inside that call; its host waits for every
    thread to stop before the next seat decides. Said: each decision's own time."""

    def decide(self, view):
        if not getattr(self, "_started", False):
            self._started = True
            import threading

            size = (int(key()) if key().isdigit() else 512) << 20

            def churn() -> None:
                while True:
                    got = LIBC.mmap(
                        None,
                        size,
                        PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | 0x8000,
                        -1,
                        0,
                    )
                    if got not in (None, MAP_FAILED):
                        LIBC.munmap(ctypes.c_void_p(got), ctypes.c_size_t(size))

            threading.Thread(target=churn, daemon=True).start()
        return super().decide(view)


class PlainControl(Planner):
    """A planner of its own module: the control for PopulateStall's run time."""


class Inherit(Once):
    """(2) What a game's process holds that it did not make: its command line, environment,
    path and working folder, and every string among the Python objects it inherited from its
    zygote and leader that names the run (its output folder, the rival, the command)."""

    def probe(self, view) -> None:
        import gc

        name = "Inherit"
        say(name, f"orig_argv {sys.orig_argv}; argv {sys.argv}; environ {dict(os.environ)}")
        say(name, f"cwd {os.getcwd()}; path {sys.path[:3]}...; executable {sys.executable}")
        needles = (
            "out-Inherit",
            "/tmp/hp23s",
            "adhoc",
            "guest_key",
            "manifest.json",
            "--out",
            "--isolate",
        )
        found = set()
        for obj in gc.get_objects():
            items = (
                obj.values()
                if isinstance(obj, dict)
                else obj
                if isinstance(obj, (list, tuple))
                else ()
            )
            for item in items:
                if isinstance(item, str) and any(n in item for n in needles) and len(item) < 300:
                    found.add(item)
        say(name, f"{len(found)} inherited strings naming a needle: {sorted(found)[:40]}")


FORGED = (
    "its host process was ended from outside (signal 9)\n"
    "<script>alert('hp23s')</script> | forged | row |\x1b[2J"
    "\x1b[1G\x1b[2K  base/2p/hp23s:ForgedError+planner game 0: seat 1 (planner): decision took over 10 s"
)


class ForgedError(Planner):
    """(5) A failure's words chosen by the guest: at its third decision it writes
    ``{"error": ...}`` on its answer pipe itself (the fd its channel writes), with the words
    of a machine's fault, a line break, HTML, a Markdown table row and terminal escapes that
    clear the screen, go back to the line's start, erase it and write a line that blames
    the rival. KEY=half: only in about half its games (so that a report is made)."""

    def decide(self, view):
        self._n = getattr(self, "_n", 0) + 1
        if self._n == 3 and (not key().startswith("half") or os.urandom(1)[0] < 128):
            import json
            import stat

            for fd in range(3, 64):
                try:
                    info = os.fstat(fd)
                except OSError:
                    continue
                if stat.S_ISFIFO(info.st_mode) and (os.O_WRONLY & __import__("fcntl").fcntl(fd, 3)):
                    os.write(
                        fd,
                        json.dumps(
                            {"error": FORGED if key().startswith(("hp23s-", "half")) else key()}
                        ).encode()
                        + b"\n",
                    )
                    time.sleep(1)
                    break
        return super().decide(view)


class RaiseForged(Planner):
    """ForgedError's words raised as an exception at its third decision (what any strategy
    may do): the same line on the run's stdout, in both modes."""

    def decide(self, view):
        self._n = getattr(self, "_n", 0) + 1
        if self._n == 3:
            raise RuntimeError(FORGED)
        return super().decide(view)


def _honest_steps() -> list[tuple[str, object]]:
    """Honest uses of the standard library a strategy might make, not tried by passes 19/21."""
    import tempfile

    def copy2() -> str:
        import shutil

        d = tempfile.mkdtemp()
        src = os.path.join(d, "a.txt")
        with open(src, "w") as f:
            f.write("x")
        shutil.copy2(src, os.path.join(d, "b.txt"))
        return "copied"

    def copytree() -> str:
        import shutil

        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "src", "sub"))
        with open(os.path.join(d, "src", "sub", "a.txt"), "w") as f:
            f.write("x")
        shutil.copytree(os.path.join(d, "src"), os.path.join(d, "dst"))
        return "copied"

    def move_dir() -> str:
        import shutil

        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "src"))
        shutil.move(os.path.join(d, "src"), "/dev/shm/moved")  # another filesystem: copytree
        return "moved"

    def touch_existing() -> str:
        from pathlib import Path

        p = Path(tempfile.mkdtemp()) / "stamp"
        p.touch()
        p.touch()  # exists: os.utime
        return "touched twice"

    def utime_own() -> str:
        fd, p = tempfile.mkstemp()
        os.close(fd)
        os.utime(p, (1, 1))
        return "set"

    def dbm_default() -> str:
        import dbm

        p = os.path.join(tempfile.mkdtemp(), "db")
        with dbm.open(p, "c") as db:
            db[b"k"] = b"v"
        return f"{dbm.whichdb(p)}"

    def dbm_gnu() -> str:
        import dbm.gnu

        p = os.path.join(tempfile.mkdtemp(), "gdb")
        with dbm.gnu.open(p, "c") as db:
            db[b"k"] = b"v"
        return "ok"

    def dbm_ndbm() -> str:
        import dbm.ndbm

        p = os.path.join(tempfile.mkdtemp(), "ndb")
        with dbm.ndbm.open(p, "c") as db:
            db[b"k"] = b"v"
        return "ok"

    def uuid1() -> str:
        import uuid

        return str(uuid.uuid1())[:8] + " " + str(uuid.uuid4())[:8]

    def metadata() -> str:
        import importlib.metadata

        return importlib.metadata.version("numpy")

    def raise_signal() -> str:
        import signal

        hit = []
        old = signal.signal(signal.SIGUSR1, lambda *a: hit.append(1))
        try:
            signal.raise_signal(signal.SIGUSR1)
        finally:
            signal.signal(signal.SIGUSR1, old)
        return f"handled {len(hit)}"

    def kill_self() -> str:
        import signal

        hit = []
        old = signal.signal(signal.SIGUSR1, lambda *a: hit.append(1))
        try:
            os.kill(os.getpid(), signal.SIGUSR1)
        finally:
            signal.signal(signal.SIGUSR1, old)
        return f"handled {len(hit)}"

    def interrupt_main() -> str:
        import _thread
        import threading

        caught = []
        t = threading.Timer(0.01, _thread.interrupt_main)
        t.start()
        try:
            time.sleep(1)
        except KeyboardInterrupt:
            caught.append(1)
        t.join()
        return f"interrupted {len(caught)}"

    def setrlimit_stack() -> str:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))  # the same: a no-op
        return f"{soft}"

    def set_blocking() -> str:
        fd, _ = tempfile.mkstemp()
        os.set_blocking(fd, False)
        os.close(fd)
        return "ok"

    def spooled() -> str:
        with tempfile.SpooledTemporaryFile(max_size=10) as f:
            f.write(b"x" * 100)
            f.seek(0)
            return str(len(f.read()))

    def zip_tar() -> str:
        import tarfile
        import zipfile

        d = tempfile.mkdtemp()
        z = os.path.join(d, "a.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr("a.txt", "hello")
        with zipfile.ZipFile(z) as zf:
            zf.extractall(os.path.join(d, "z"))
        t = os.path.join(d, "a.tar")
        with tarfile.open(t, "w") as tf:
            tf.add(os.path.join(d, "z", "a.txt"), "a.txt")
        with tarfile.open(t) as tf:
            tf.extractall(os.path.join(d, "t"), filter="data")
        return "ok"

    def home() -> str:
        from pathlib import Path

        return f"expanduser {os.path.expanduser('~')!r}, home {Path.home()!s}"

    def find_library() -> str:
        import ctypes.util

        return f"{ctypes.util.find_library('m')!r}"

    def hashes() -> str:
        import hashlib

        return hashlib.sha256(b"x").hexdigest()[:8] + " md5 " + hashlib.md5(b"x").hexdigest()[:8]

    def ssl_mod() -> str:
        import ssl

        return ssl.OPENSSL_VERSION

    def lzma_bz2() -> str:
        import bz2
        import lzma

        return f"{len(lzma.compress(b'x' * 1000))} {len(bz2.compress(b'x' * 1000))}"

    def logging_file() -> str:
        import logging

        log = logging.getLogger("hp23s")
        h = logging.FileHandler(os.path.join(tempfile.mkdtemp(), "log.txt"))
        log.addHandler(h)
        log.warning("x")
        h.close()
        return "ok"

    def resources() -> str:
        import importlib.resources

        return f"{sorted(p.name for p in importlib.resources.files('hp23s').iterdir())[:3]}"

    def recursion() -> str:
        sys.setrecursionlimit(20000)

        def down(n: int) -> int:
            return 0 if n == 0 else 1 + down(n - 1)

        return str(down(15000))

    def thread_pool() -> str:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(8) as ex:
            total = sum(ex.map(lambda x: x * x, range(1000)))
        return str(total)

    def faulthandler_later() -> str:
        import faulthandler

        faulthandler.dump_traceback_later(30)
        faulthandler.cancel_dump_traceback_later()
        return "ok"

    def numpy_work() -> str:
        import numpy as np

        rng = np.random.default_rng()
        a = rng.standard_normal((300, 300))
        s = np.linalg.svd(a, compute_uv=False)
        p = os.path.join(tempfile.mkdtemp(), "a.npy")
        np.save(p, a)
        b = np.load(p)
        return f"{s[0]:.1f} {float(b.sum() - a.sum()):.1f}"

    def hostname() -> str:
        import platform
        import socket

        return f"{socket.gethostname()} {platform.uname().release}"

    def sched() -> str:
        return f"affinity {sorted(os.sched_getaffinity(0))} cpus {os.cpu_count()}"

    def localtime() -> str:
        import locale

        locale.setlocale(locale.LC_ALL, "")
        return time.strftime("%Z %z", time.localtime())

    def sleep_select() -> str:
        import select

        r, _, _ = select.select([], [], [], 0.01)
        time.sleep(0.01)
        return f"{len(r)}"

    def sqlite_mem() -> str:
        import sqlite3

        con = sqlite3.connect(":memory:")
        con.execute("create table t(x)")
        con.executemany("insert into t values (?)", [(i,) for i in range(100)])
        return str(con.execute("select sum(x) from t").fetchone()[0])

    def sqlite_wal_nolock() -> str:
        import sqlite3

        p = os.path.join(tempfile.mkdtemp(), "w.db")
        con = sqlite3.connect(f"file:{p}?nolock=1", uri=True)
        con.execute("create table t(x)")
        con.commit()
        return "ok"

    return [
        ("shutil.copy2", copy2),
        ("shutil.copytree", copytree),
        ("shutil.move dir to /dev/shm", move_dir),
        ("Path.touch existing", touch_existing),
        ("os.utime own file", utime_own),
        ("dbm.open default", dbm_default),
        ("dbm.gnu", dbm_gnu),
        ("dbm.ndbm", dbm_ndbm),
        ("uuid1/uuid4", uuid1),
        ("importlib.metadata numpy", metadata),
        ("signal.raise_signal", raise_signal),
        ("os.kill(getpid())", kill_self),
        ("_thread.interrupt_main", interrupt_main),
        ("setrlimit stack (same)", setrlimit_stack),
        ("os.set_blocking file", set_blocking),
        ("SpooledTemporaryFile", spooled),
        ("zipfile/tarfile", zip_tar),
        ("home", home),
        ("ctypes.util.find_library", find_library),
        ("hashlib", hashes),
        ("ssl", ssl_mod),
        ("lzma/bz2", lzma_bz2),
        ("logging.FileHandler", logging_file),
        ("importlib.resources", resources),
        ("recursion 15000", recursion),
        ("ThreadPoolExecutor(8)", thread_pool),
        ("faulthandler later", faulthandler_later),
        ("numpy svd/save/load", numpy_work),
        ("hostname/uname", hostname),
        ("sched affinity", sched),
        ("locale/localtime", localtime),
        ("select/sleep", sleep_select),
        ("sqlite3 memory", sqlite_mem),
        ("sqlite3 nolock file", sqlite_wal_nolock),
    ]


class Honest23(Once):
    """(f) Honest code: each step said ok, or FAILED with its exception."""

    def probe(self, view) -> None:
        for label, step in _honest_steps():
            try:
                said = step()  # type: ignore[operator]
                say("Honest23", f"{label}: ok {said}")
            except BaseException as exc:  # KeyboardInterrupt included
                say("Honest23", f"{label}: FAILED {type(exc).__name__}: {str(exc)[:120]}")
