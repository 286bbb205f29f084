# ruff: noqa: SIM115  (attack code: short-lived files)
"""Hostile strategies for the third pass's attack classes (benchmarks/hostile_pass3), for
tests/sims/test_sandbox_pass3.py. Each plays like a planner and, where its attack works,
fails its own game with a ``Breach`` saying what it found: a clean game means nothing.
Used as ``tests.sims.hostile3:Name``."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import random
import signal
import stat
import time

from sims.strategies.planner import Planner

F_SETSIG, F_GETSIG = 10, 11  # linux/fcntl.h
IPC_CREAT, IPC_RMID = 0o1000, 0
MEMO_KEY = 0x5EED3  # a System V key of this module's own
MARK = 0o641  # a mode no file of the sandbox has
ATIME = 123456789  # an access time no file of the machine has
SIG = 37  # a realtime signal as a pipe's F_SETSIG


class Breach(Exception):
    """An attack worked: its game fails with this (the test looks for 'breach')."""


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _quiet(fn) -> None:
    with contextlib.suppress(Exception):
        fn()


def _deep(top: str, depth: int, name: str = "d" * 200) -> str:
    """A chain of folders ``depth`` deep (past PATH_MAX with long names), made through
    descriptors; its deepest folder's path relative to ``top``."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            deeper = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        os.close(os.open("memo", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    finally:
        os.close(fd)
    return "/".join([name] * depth)


def _deep_found(top: str, depth: int, name: str = "d" * 200) -> bool:
    try:
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        for _ in range(depth):
            deeper = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        os.stat("memo", dir_fd=fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _pipes() -> list[int]:
    """The pipes this process holds (the game's pipes, shared with its host)."""
    out = []
    for fd in range(1024):  # found without /proc: a sandboxed game has none
        with contextlib.suppress(OSError):
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                out.append(fd)
    return out


class Memo(Planner):
    """Leaves a mark in every place that might outlive its game, and looks for the marks of
    an earlier game of its host: files in /tmp (also in a mode-000 folder and past PATH_MAX),
    /dev and /dev/shm, a System V segment, the hostname, and the state of the open files it
    inherits (stderr's mode and times, a pipe's signal)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        found = [name for name, seen in self._look() if seen]
        if found:
            raise Breach(f"breach: marks of an earlier game in {', '.join(found)}")
        self._leave()

    @staticmethod
    def _look():
        libc = _libc()
        yield "/tmp", os.path.exists("/tmp/memo")
        yield "a mode-000 folder", os.path.exists("/tmp/locked")
        yield "a path past PATH_MAX", _deep_found("/tmp", 25)
        yield "/dev", os.path.exists("/dev/memo")
        yield "/dev/shm", os.path.exists("/dev/shm/memo")
        yield "a System V segment", libc.shmget(MEMO_KEY, 4096, 0) >= 0
        yield "the hostname", os.uname().nodename == "memo"
        info = os.fstat(2)
        yield "stderr's mode", info.st_mode & 0o777 == MARK
        yield "stderr's access time", int(info.st_atime) == ATIME
        yield "stderr's offset", os.lseek(2, 0, os.SEEK_CUR) == ATIME
        signals = []
        for fd in _pipes():
            with contextlib.suppress(OSError):
                signals.append(fcntl.fcntl(fd, F_GETSIG))
        yield "a pipe's signal", SIG in signals

    @staticmethod
    def _leave():
        libc = _libc()
        _quiet(lambda: open("/tmp/memo", "w").write("x"))

        def locked():
            os.mkdir("/tmp/locked", 0o700)
            open("/tmp/locked/memo", "w").write("x")
            os.chmod("/tmp/locked", 0)

        _quiet(locked)
        _quiet(lambda: _deep("/tmp", 25))
        _quiet(lambda: open("/dev/memo", "w").write("x"))
        _quiet(lambda: open("/dev/shm/memo", "w").write("x"))
        libc.shmget(MEMO_KEY, 4096, IPC_CREAT | 0o600)
        _quiet(lambda: open("/proc/sys/kernel/hostname", "w").write("memo"))
        _quiet(lambda: os.fchmod(2, MARK))
        _quiet(lambda: os.utime(2, (ATIME, ATIME + 10**6)))
        _quiet(lambda: os.lseek(2, ATIME, os.SEEK_SET))
        for fd in _pipes():
            _quiet(lambda fd=fd: fcntl.fcntl(fd, F_SETSIG, SIG))


class Colluder(Planner):
    """Two seats of this class in one game, in two sandboxes: the first publishes a record
    lock (and a flock) on its module file, which both bind; the second looks for them."""

    BASE = 1 << 40

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self.file = open(__file__, "rb")
        fd = self.file.fileno()
        seen = []
        with contextlib.suppress(OSError):
            probe = fcntl.fcntl(fd, fcntl.F_GETLK, _flock(fcntl.F_WRLCK, self.BASE, 1 << 20))
            if _flock_type(probe) != fcntl.F_UNLCK:
                seen.append("a record lock (F_GETLK)")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            seen.append("a flock")
        except OSError:
            pass
        if seen:
            raise Breach(f"breach: its partner's {' and '.join(seen)} on a shared file")
        offset = self.BASE + random.SystemRandom().randrange(1 << 16)
        _quiet(lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, offset))
        _quiet(lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))


def _flock(kind: int, start: int, length: int) -> bytes:
    import struct

    return struct.pack("hhqqi", kind, 0, start, length, 0)


def _flock_type(data: bytes) -> int:
    import struct

    return struct.unpack("hhqqi", data)[0]


class IpcHog(Planner):
    """Memory outside its address-space limit: a System V segment, filled and detached."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        libc = _libc()
        libc.shmat.restype = ctypes.c_void_p
        size = 64 << 20
        ident = libc.shmget(0, size, IPC_CREAT | 0o600)  # IPC_PRIVATE
        if ident >= 0:
            address = libc.shmat(ident, None, 0)
            if address not in (None, ctypes.c_void_p(-1).value):
                ctypes.memset(address, 1, size)
                libc.shmdt(ctypes.c_void_p(address))
                raise Breach(f"breach: {size >> 20} MiB of System V memory outside its limits")


class DevHog(Planner):
    """Memory in /dev: a tmpfs outside every limit of its own."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        try:
            with open("/dev/hog", "wb") as out:
                out.write(b"x" * (1 << 20))
        except OSError:
            return
        raise Breach("breach: wrote 1 MiB into /dev")


class InodeFlood(Planner):
    """Kernel memory through empty files, which a tmpfs's size in bytes does not count."""

    FILES = 20000

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        for where in ("/tmp", "/dev/shm"):
            fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
            made = 0
            try:
                for i in range(self.FILES):
                    os.close(os.open(f"f{i}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
                    made += 1
            except OSError:
                pass
            finally:
                os.close(fd)
            if made == self.FILES:
                raise Breach(f"breach: {made} empty files in {where}, no limit met")


class DeepLeftover(Planner):
    """Leaves a 1,200-deep chain of folders (and 2,000 files) for its host to clean up: a
    host that walks it stalls, or dies, after the game, outside every limit."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        bottom = os.path.join("/tmp", _deep("/tmp", 1200, "a"))
        fd = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
        try:
            sub = os.open(bottom[len("/tmp/") :], os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            for i in range(2000):
                os.close(os.open(f"f{i}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=sub))
            os.close(sub)
        finally:
            os.close(fd)


class DeepExit(DeepLeftover):
    """The same chain, then its process ends in its first decision: a host that walked the
    chain first reported the end only past the decision limit (or died), so the game read as
    the seat's timeout or a fault of the machine, not as what it was."""

    def decide(self, view):
        os._exit(0)


class SigioHost(Planner):
    """SIGINT to its host (the sandbox's pid 1) through a pipe's SIGIO owner and signal: a
    host that handles SIGINT dies, and the game is voided as the machine's."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        try:
            read, write = os.pipe()
        except OSError:  # no pipe of its own (the filter): the game's, which its host holds
            for fd in _pipes():
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETOWN, 1)
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, F_SETSIG, signal.SIGINT)
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
            return
        with contextlib.suppress(OSError):
            fcntl.fcntl(read, fcntl.F_SETOWN, 1)
            fcntl.fcntl(read, F_SETSIG, signal.SIGINT)
            fcntl.fcntl(read, fcntl.F_SETFL, fcntl.fcntl(read, fcntl.F_GETFL) | os.O_ASYNC)
            os.write(write, b"x")
            time.sleep(0.5)
        with contextlib.suppress(OSError):  # the same through ioctl
            fcntl.ioctl(read, 0x8901, ctypes.c_int(1))  # FIOSETOWN
            fcntl.ioctl(read, 0x5452, ctypes.c_int(1))  # FIOASYNC
            os.write(write, b"x")
            time.sleep(0.5)


class Honest(Planner):
    """What an honest strategy may do in its sandbox: write, read and remove files of its own
    in /tmp (tempfile too), use threads, numpy, and descriptors' close-on-exec flags, shelve
    and dbm.dumb, shutil.copy (chmod answers success: hostile pass 14's Honest14)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import tempfile
        import threading

        import numpy

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "notes.json")
            with open(path, "w") as out:
                out.write("{}")
            numpy.save(os.path.join(folder, "a.npy"), numpy.arange(10))
            assert numpy.load(os.path.join(folder, "a.npy")).sum() == 45
        with tempfile.NamedTemporaryFile() as named:
            named.write(b"x")
            os.set_inheritable(named.fileno(), False)
        worker = threading.Thread(target=lambda: None)
        worker.start()
        worker.join()
        os.makedirs("notes/deeper", exist_ok=True)  # its working folder
        import shelve
        import shutil

        with shelve.open("notes/shelf") as shelf:
            shelf["hand"] = [1, 2, 3]
        with shelve.open("notes/shelf") as shelf:
            assert shelf["hand"] == [1, 2, 3]
        shutil.copy(os.path.join("notes", "shelf.dat"), "notes/copy.dat")


class CacheEvict(Planner):
    """Evicts its own module's pages from the page cache every sandbox shares, and asks for
    read-ahead: the writing half of a channel read back by timing reads (hostile pass 4)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        done = []
        with open(__file__, "rb") as code:
            with contextlib.suppress(OSError):
                os.posix_fadvise(code.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                done.append("posix_fadvise")
            libc = _libc()
            if libc.readahead(code.fileno(), ctypes.c_int64(0), ctypes.c_size_t(4096)) == 0:
                done.append("readahead")
        if done:
            raise Breach(f"breach: the shared page cache steered with {', '.join(done)}")
