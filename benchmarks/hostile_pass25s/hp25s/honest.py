"""Honest uses of the standard library and numpy not tried by earlier passes: each
should work in the sandbox as in the default mode (``hp25s.honest:Honest25``)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable

from sims.strategies.planner import Planner


def _deep(n: int) -> int:
    return 0 if n == 0 else 1 + _deep(n - 1)


def _deep_thread() -> object:
    import threading

    out = []
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(60_000)
    threading.stack_size(256 * 1024 * 1024)
    t = threading.Thread(target=lambda: out.append(_deep(50_000)))
    t.start()
    t.join()
    threading.stack_size(0)
    sys.setrecursionlimit(old)
    return out


def _rotating() -> object:
    import logging
    import logging.handlers

    d = tempfile.mkdtemp()
    log = logging.getLogger("hp25s")
    h = logging.handlers.RotatingFileHandler(os.path.join(d, "x.log"), maxBytes=200, backupCount=2)
    log.addHandler(h)
    for i in range(40):
        log.warning("line %d", i)
    h.close()
    log.removeHandler(h)
    return sorted(os.listdir(d))


def _zip_tar() -> object:
    import io
    import tarfile
    import zipfile

    d = tempfile.mkdtemp()
    with zipfile.ZipFile(os.path.join(d, "a.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x", "y" * 1000)
    with tarfile.open(os.path.join(d, "a.tar.xz"), "w:xz") as t:
        info = tarfile.TarInfo("x")
        info.size = 3
        t.addfile(info, io.BytesIO(b"abc"))
    with tarfile.open(os.path.join(d, "a.tar.xz")) as t:
        t.extractall(d, filter="data")
    return sorted(os.listdir(d))


def _atomic_write() -> object:
    d = tempfile.mkdtemp()
    fd, tmp = tempfile.mkstemp(dir=d)
    with os.fdopen(fd, "w") as f:
        f.write("ok")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(d, "final"))
    dfd = os.open(d, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
    return open(os.path.join(d, "final")).read()


def _faulthandler() -> object:
    import faulthandler

    faulthandler.enable()
    faulthandler.dump_traceback_later(30)
    faulthandler.cancel_dump_traceback_later()
    return faulthandler.is_enabled()


def _timer() -> object:
    import threading

    ev = threading.Event()
    threading.Timer(0.01, ev.set).start()
    return ev.wait(5)


def _getsource(self: object) -> object:
    import inspect

    return len(inspect.getsource(type(self)))


def _resources() -> object:
    import importlib.resources

    return len(importlib.resources.files("hp25s").joinpath("honest.py").read_text())


def _thread_pool_many() -> object:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=32) as ex:
        return sum(ex.map(lambda x: x * x, range(1000)))


def _sqlite_threads() -> object:
    import sqlite3
    import threading

    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("create table t(x)")
    lock = threading.Lock()

    def work(i: int) -> None:
        with lock:
            db.execute("insert into t values (?)", (i,))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return db.execute("select count(*) from t").fetchone()


def _scrypt() -> object:
    import hashlib

    return len(hashlib.scrypt(b"pw", salt=b"salt", n=2**14, r=8, p=1))


def _eventfd() -> object:
    fd = os.eventfd(0)
    os.eventfd_write(fd, 3)
    v = os.eventfd_read(fd)
    os.close(fd)
    return v


def _sysconf() -> object:
    return (
        os.sysconf("SC_PHYS_PAGES") > 0,
        os.sysconf("SC_AVPHYS_PAGES") > 0,
        os.sysconf("SC_NPROCESSORS_ONLN"),
    )


def _clocks() -> object:
    import time

    return [
        time.clock_gettime(c) >= 0
        for c in (
            time.CLOCK_MONOTONIC_RAW,
            time.CLOCK_BOOTTIME,
            time.CLOCK_THREAD_CPUTIME_ID,
            time.CLOCK_PROCESS_CPUTIME_ID,
            time.CLOCK_TAI,
        )
    ]


def _uuid1() -> object:
    import uuid

    return (uuid.uuid1().version, uuid.uuid4().version)


def _locale() -> object:
    import locale

    return (locale.setlocale(locale.LC_ALL, ""), locale.getpreferredencoding(False))


def _numpy_misc() -> object:
    import numpy as np

    rng = np.random.default_rng()
    a = rng.permutation(100_000)
    np.random.seed()
    d = tempfile.mkdtemp()
    np.save(os.path.join(d, "a.npy"), a)
    b = np.load(os.path.join(d, "a.npy"))
    a.tofile(os.path.join(d, "a.bin"))
    c = np.fromfile(os.path.join(d, "a.bin"), dtype=a.dtype)
    return (int(np.einsum("i,i->", b[:10], c[:10])) >= 0, np.sort(a)[-1])


def _vectored() -> object:
    fd, path = tempfile.mkstemp()
    os.pwritev(fd, [b"ab", b"cd"], 0)
    buf = [bytearray(2), bytearray(2)]
    os.preadv(fd, buf, 0)
    os.truncate(path, 1)
    os.close(fd)
    return [bytes(b) for b in buf]


def _temporaryfile() -> object:
    with tempfile.TemporaryFile() as f:
        f.write(b"x" * 10)
        f.seek(0)
        return len(f.read())


def _memfd() -> object:
    fd = os.memfd_create("x")
    os.write(fd, b"abc")
    os.close(fd)
    return True


def _poll_file() -> object:
    import select

    fd, _ = tempfile.mkstemp()
    p = select.poll()
    p.register(fd, select.POLLIN)
    r = p.poll(0)
    os.close(fd)
    return r != []


def _hostname() -> object:
    import platform
    import socket

    return (socket.gethostname(), platform.node())


def _disk_which() -> object:
    import shutil

    return (
        shutil.disk_usage("/tmp").total > 0,
        shutil.which("python3"),
        os.path.exists(sys.executable),
    )


def _shared_memory() -> object:
    from multiprocessing import shared_memory

    s = shared_memory.SharedMemory(create=True, size=4096)
    s.buf[0] = 1
    s.close()
    s.unlink()
    return True


def _sigmask() -> object:
    import signal

    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return True


def _email_xml() -> object:
    import email.message
    import xml.etree.ElementTree as ET

    m = email.message.EmailMessage()
    m["Subject"] = "x"
    return (m["Subject"], ET.fromstring("<a><b/></a>").tag)


def _gc_weak() -> object:
    import gc
    import weakref

    class A:
        pass

    a = A()
    got = []
    weakref.finalize(a, got.append, 1)
    del a
    gc.collect()
    gc.freeze()
    gc.unfreeze()
    return got


def steps(self: object) -> list[tuple[str, Callable[[], object]]]:
    return [
        ("deep_recursion_thread", _deep_thread),
        ("rotating_log", _rotating),
        ("zip_tar_xz", _zip_tar),
        ("atomic_write_fsync", _atomic_write),
        ("faulthandler", _faulthandler),
        ("threading_timer", _timer),
        ("inspect_getsource", lambda: _getsource(self)),
        ("importlib_resources", _resources),
        ("thread_pool_32", _thread_pool_many),
        ("sqlite_mem_threads", _sqlite_threads),
        ("hashlib_scrypt", _scrypt),
        ("eventfd", _eventfd),
        ("sysconf_pages", _sysconf),
        ("clocks", _clocks),
        ("uuid1_uuid4", _uuid1),
        ("locale_default", _locale),
        ("numpy_misc", _numpy_misc),
        ("pwritev_preadv", _vectored),
        ("temporaryfile", _temporaryfile),
        ("memfd_create", _memfd),
        ("poll_file", _poll_file),
        ("hostname", _hostname),
        ("disk_usage_which", _disk_which),
        ("shared_memory", _shared_memory),
        ("pthread_sigmask", _sigmask),
        ("email_xml", _email_xml),
        ("gc_weakref", _gc_weak),
    ]


class Honest25(Planner):
    """Runs every step once, at its first decision, and reports each on stderr."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            for name, step in steps(self):
                try:
                    got = step()
                    sys.stderr.write(f"HOSTILE Honest25: {name}: ok {str(got)[:70]}\n")
                except BaseException as exc:
                    sys.stderr.write(
                        f"HOSTILE Honest25: {name}: FAILED {type(exc).__name__}: {str(exc)[:90]}\n"
                    )
            sys.stderr.flush()
        return super().decide(view)
