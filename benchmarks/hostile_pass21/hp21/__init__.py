# ruff: noqa: E501  (attack code: long report lines, probes)
"""Hostile strategies of a twenty-first independent pass on ``--isolate`` (benchmarks/hostile_pass21).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import errno
import os
import sys

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.syscall.argtypes = [ctypes.c_long] * 7
# never called with junk arguments: they end, pause or block the game, or change its own
# state in ways that break the rest of it (rt_sigreturn, pause, alarm, exit, umask,
# rt_sigsuspend, restart_syscall, exit_group; uretprobe, uprobe: SIGILL outside a probe)
SKIP = {15, 34, 37, 60, 95, 130, 219, 231, 334, 335, 336}


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
    """A parameter handed in through hp21/key.txt (run.sh's KEY): the sandbox clears the
    environment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip()
    except OSError:
        return ""


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


class SysScan(Once):
    """Items 1, 5: every x86_64 system call number 0-470 with junk arguments (all -1),
    except those that would end or stall the game: which answer something other than
    EPERM (the filter) or ENOSYS (absent). A call that answers EINVAL/EBADF/EFAULT passed the
    filter and reached the kernel."""

    def probe(self, view) -> None:
        name = "SysScan"
        passed, denied, absent = [], [], []
        lo, hi = 0, 471
        if key().startswith("range:"):  # KEY=range:LO:HI scans only those numbers
            lo, hi = (int(x) for x in key().split(":")[1:3])
        for nr in range(lo, hi):
            if nr in SKIP:
                continue
            if key().endswith(":trace"):
                say(name, f"calling {nr}")
            ret, err = call(nr, *([-1] * 6))
            if err == errno.EPERM:
                denied.append(nr)
            elif err == errno.ENOSYS:
                absent.append(nr)
            else:
                passed.append(f"{nr}:{errno.errorcode.get(err, 'ok=' + str(ret))}")
        say(name, f"denied(EPERM) {denied}")
        say(name, f"absent(ENOSYS) {absent}")
        say(name, f"reached the kernel {passed}")
        # x32 numbers (bit 30) and the 32-bit entry are other doors a denylist can miss
        for nr in (0x40000000 + 41,) if key() == "x32" else ():
            ret, err = call(nr, 1, 1, 0)
            say(name, f"x32 nr {nr:#x}: ret {ret} {errno.errorcode.get(err, err)}")


class Counts(Once):
    """Item 1: per-user or machine-wide counts a game could move with calls the filter lets
    through: epoll instances and watches, timerfd, signalfd, a pending itimer signal, locked
    memory, a scheduler's affinity and priority, membarrier, pkeys, statmount/listmount."""

    def probe(self, view) -> None:
        name = "Counts"
        import select
        import signal

        try:
            eps = []
            for _ in range(8):
                eps.append(select.epoll())
            watches = 0
            for i, ep in enumerate(eps):
                for other in eps[i + 1 :]:
                    ep.register(other.fileno(), select.EPOLLIN)
                    watches += 1
            inos = sorted({os.fstat(ep.fileno()).st_ino for ep in eps})
            say(
                name,
                f"epoll: {len(eps)} instances, {watches} watches (per-user max_user_watches), inode numbers {inos}",
            )
            for ep in eps:
                ep.close()
        except OSError as exc:
            say(name, f"epoll refused: {exc}")
        for label, nr, args in (
            ("timerfd_create", 283, (1, 0)),
            ("signalfd4", 289, (-1, 0, 8, 0)),
            ("pkey_alloc", 330, (0, 0)),
            ("membarrier query", 324, (0, 0, 0)),
            ("mlock2", 325, (0, 4096, 0)),
            ("getcpu", 309, (0, 0, 0)),
            ("listmount", 458, (0, 0, 0, 0)),
            ("lsm_list_modules", 461, (0, 0, 0)),
            ("ioprio_get", 252, (1, 0)),
            ("set_mempolicy", 238, (0, 0, 0)),
        ):
            buf = ctypes.create_string_buffer(4096)
            a = [
                ctypes.addressof(buf) if x == 0 and label in ("signalfd4", "getcpu") else x
                for x in args
            ]
            if label == "signalfd4":
                a[1] = ctypes.addressof(buf)
            if label == "mlock2":
                a[0] = ctypes.addressof(buf) & ~4095
            ret, err = call(nr, *a)
            detail = ""
            if ret >= 0 and label in ("timerfd_create", "signalfd4"):
                st = os.fstat(ret)
                detail = f" ino {st.st_ino} dev {st.st_dev}"
                os.close(ret)
            say(name, f"{label}: ret {ret} {errno.errorcode.get(err, 'ok')}{detail}")
        # a pending itimer signal is charged to the user's count of pending signals
        old = signal.pthread_sigmask(
            signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF}
        )
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        import time

        time.sleep(0.01)
        pend = signal.sigpending()
        signal.setitimer(signal.ITIMER_REAL, 0)
        say(
            name,
            f"itimer: pending {sorted(int(s) for s in pend)} (one legacy signal, charged to the user's sigpending count)",
        )
        signal.sigtimedwait({signal.SIGALRM}, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        try:
            os.sched_setaffinity(0, {0})
            say(name, f"sched_setaffinity to cpu 0: allowed, now {os.sched_getaffinity(0)}")
        except OSError as exc:
            say(name, f"sched_setaffinity: {exc}")
        try:
            os.setpriority(os.PRIO_PROCESS, 0, 19)
            say(name, f"setpriority 19: allowed, now {os.getpriority(os.PRIO_PROCESS, 0)}")
        except OSError as exc:
            say(name, f"setpriority: {exc}")
        for path in ("/dev/shm", "/tmp", "/"):
            try:
                s = os.statvfs(path)
                say(
                    name,
                    f"statvfs {path}: blocks {s.f_blocks} free {s.f_bfree} files {s.f_files} ffree {s.f_ffree}",
                )
            except OSError as exc:
                say(name, f"statvfs {path}: {exc}")
        try:
            st = os.fstat(2)
            say(name, f"stderr memfd: ino {st.st_ino} size {st.st_size}")
        except OSError as exc:
            say(name, f"fstat 2: {exc}")


def _steps() -> list[tuple[str, object]]:
    """Honest uses of the standard library and numpy that pass 19's Honest19 did not try."""
    import signal
    import tempfile
    import threading

    def selector() -> str:
        import selectors

        with selectors.DefaultSelector() as sel:  # (a regular file cannot be registered)
            return type(sel).__name__ + " made"

    def alarm_budget() -> str:
        hit = []
        old = signal.signal(signal.SIGALRM, lambda *_: hit.append(1))
        signal.setitimer(signal.ITIMER_REAL, 0.02)
        t = __import__("time").monotonic()
        while not hit and __import__("time").monotonic() - t < 1:
            pass
        signal.signal(signal.SIGALRM, old)
        return f"SIGALRM delivered {bool(hit)}"

    def timer() -> str:
        ev = threading.Event()
        threading.Timer(0.01, ev.set).start()
        return f"fired {ev.wait(2)}"

    def big_stack() -> str:
        threading.stack_size(32 << 20)
        out = []
        t = threading.Thread(target=lambda: out.append(sum(range(1000))))
        t.start()
        t.join()
        threading.stack_size(0)
        return f"thread with 32 MiB stack ran {out}"

    def deep() -> str:
        import sys as _s

        _s.setrecursionlimit(20000)

        def f(n):
            return 0 if n == 0 else 1 + f(n - 1)

        return f"depth {f(8000)}"

    def memmap_private() -> str:
        import numpy as np

        with tempfile.NamedTemporaryFile(suffix=".npy") as f:
            np.save(f.name, np.arange(1000))
            a = np.load(f.name, mmap_mode="c")
            a[0] = 5
            return f"mmap_mode='c' sum {int(a.sum())}"

    def faulthandler_on() -> str:
        import faulthandler

        faulthandler.enable()
        faulthandler.disable()
        return "enabled"

    def misc() -> str:
        import getpass
        import locale
        import platform
        import shutil

        bits = [
            platform.platform(),
            locale.getpreferredencoding(),
            str(shutil.disk_usage("/tmp").total),
        ]
        try:
            bits.append(getpass.getuser())
        except Exception as exc:
            bits.append(f"getuser {type(exc).__name__}")
        return " | ".join(bits)

    def numpy_big() -> str:
        import numpy as np

        a = np.ones(40_000_000)  # 320 MB
        return f"{a.nbytes >> 20} MiB sum {a.sum():.0f}"

    def ctypes_libc() -> str:
        return f"libc abs(-3) = {ctypes.CDLL(None).abs(-3)}"

    return [
        ("selectors.DefaultSelector", selector),
        ("setitimer budget", alarm_budget),
        ("threading.Timer", timer),
        ("threading.stack_size", big_stack),
        ("recursion 8000", deep),
        ("np.load mmap_mode='c'", memmap_private),
        ("faulthandler", faulthandler_on),
        ("platform/locale/disk_usage/getuser", misc),
        ("numpy 320 MB", numpy_big),
        ("ctypes libc", ctypes_libc),
    ]


class Honest21(Once):
    """Item 5 and (f): honest code that should work in a sandbox."""

    def probe(self, view) -> None:
        for label, step in _steps():
            try:
                say("Honest21", f"{label}: ok {step()}")
            except BaseException as exc:
                say("Honest21", f"{label}: FAILED {type(exc).__name__} {exc}")


AT_FDCWD, AT_EMPTY_PATH = -100, 0x1000
NR_SETXATTRAT, NR_GETXATTRAT, NR_REMOVEXATTRAT = 463, 464, 466
NR_OPEN_TREE_ATTR, NR_FILE_GETATTR, NR_FILE_SETATTR = 467, 468, 469
FS_XFLAG_NOATIME, FS_XFLAG_NODUMP = 0x40, 0x80


def _err(ret: int, err: int) -> str:
    return f"ok ({ret})" if ret >= 0 else errno.errorcode.get(err, str(err))


class _XattrArgs(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("size", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class _FileAttr(ctypes.Structure):
    _fields_ = [("xflags", ctypes.c_uint64)] + [
        (n, ctypes.c_uint32) for n in ("extsize", "nextents", "projid", "cowextsize")
    ]


def file_getattr(dfd: int, path: bytes, flags: int) -> tuple[str, int]:
    fa = _FileAttr()
    ret, err = call(
        NR_FILE_GETATTR,
        dfd,
        ctypes.cast(ctypes.c_char_p(path), ctypes.c_void_p).value,
        ctypes.addressof(fa),
        ctypes.sizeof(fa),
        flags,
    )
    return _err(ret, err), fa.xflags


def file_setattr(dfd: int, path: bytes, flags: int, xflags: int) -> str:
    fa = _FileAttr(xflags=xflags)
    ret, err = call(
        NR_FILE_SETATTR,
        dfd,
        ctypes.cast(ctypes.c_char_p(path), ctypes.c_void_p).value,
        ctypes.addressof(fa),
        ctypes.sizeof(fa),
        flags,
    )
    return _err(ret, err)


def setxattrat(dfd: int, path: bytes, flags: int, name: bytes, value: bytes) -> str:
    buf = ctypes.create_string_buffer(value)
    args = _XattrArgs(value=ctypes.addressof(buf), size=len(value), flags=0)
    ret, err = call(
        NR_SETXATTRAT,
        dfd,
        ctypes.cast(ctypes.c_char_p(path), ctypes.c_void_p).value,
        flags,
        ctypes.cast(ctypes.c_char_p(name), ctypes.c_void_p).value,
        ctypes.addressof(args),
        ctypes.sizeof(args),
    )
    return _err(ret, err)


class NewCalls(Once):
    """Item 1: calls newer than the filter's libseccomp, named in DENIED or kin of denied
    ones (setxattrat, removexattrat, open_tree_attr, file_setattr): do they reach the kernel,
    and can they leave state on a file that outlives the game (the /dev nodes, its stderr
    file, the view's copy)? KEY=set sets FS_XFLAG_NODUMP on /dev/null, KEY=clear clears it."""

    def probe(self, view) -> None:
        name = "NewCalls"
        with open("/tmp/own", "w") as f:
            f.write("x")
        targets = [
            (AT_FDCWD, b"/tmp/own", 0),
            (AT_FDCWD, b"/dev/null", 0),
            (AT_FDCWD, b"/dev/zero", 0),
            (AT_FDCWD, b"/dev/urandom", 0),
            (AT_FDCWD, os.__file__.encode(), 0),
            (AT_FDCWD, __file__.encode(), 0),
            (AT_FDCWD, b"/dev", 0),
            (2, b"", AT_EMPTY_PATH),
            (0, b"", AT_EMPTY_PATH),
        ]
        for dfd, path, fl in targets:
            label = path.decode() or f"fd {dfd}"
            got, xflags = file_getattr(dfd, path, fl)
            say(name, f"{label}: file_getattr {got} xflags {xflags:#x}")
            say(
                name,
                f"{label}: setxattrat user.hp21 {setxattrat(dfd, path, fl, b'user.hp21', b'1')}, trusted.hp21 {setxattrat(dfd, path, fl, b'trusted.hp21', b'1')}",
            )
        mode = key()
        if mode in ("set", "clear", "probe"):
            for dev in (b"/dev/null", b"/dev/zero"):
                got, before = file_getattr(AT_FDCWD, dev, 0)
                if mode != "probe":
                    new = (
                        (before | FS_XFLAG_NODUMP) if mode == "set" else (before & ~FS_XFLAG_NODUMP)
                    )
                    res = file_setattr(AT_FDCWD, dev, 0, new)
                else:
                    res = "-"
                _, after = file_getattr(AT_FDCWD, dev, 0)
                say(
                    name,
                    f"{dev.decode()}: {mode}: xflags before {before:#x}, file_setattr {res}, after {after:#x}",
                )
        for dfd, path, fl in (
            (AT_FDCWD, b"/tmp/own", 0),
            (2, b"", AT_EMPTY_PATH),
            (AT_FDCWD, os.__file__.encode(), 0),
        ):
            _, x = file_getattr(dfd, path, fl)
            say(
                name,
                f"{path.decode() or f'fd {dfd}'}: file_setattr NOATIME {file_setattr(dfd, path, fl, x | FS_XFLAG_NOATIME)}",
            )
        ret, err = call(
            NR_OPEN_TREE_ATTR,
            AT_FDCWD,
            ctypes.cast(ctypes.c_char_p(b"/tmp"), ctypes.c_void_p).value,
            1,
            0,
            0,
        )
        say(name, f"open_tree_attr(/tmp, OPEN_TREE_CLONE): {_err(ret, err)}")
        ret, err = call(
            NR_REMOVEXATTRAT,
            AT_FDCWD,
            ctypes.cast(ctypes.c_char_p(b"/tmp/own"), ctypes.c_void_p).value,
            0,
            ctypes.cast(ctypes.c_char_p(b"user.hp21"), ctypes.c_void_p).value,
        )
        say(name, f"removexattrat /tmp/own user.hp21: {_err(ret, err)}")


class XattrFlood(Once):
    """Item 1: user extended attributes on its own stderr memory file (fd 2, the kernel's
    internal tmpfs, which has no inode-space limit) through ``setxattrat``, which DENIED
    names but the filter does not hold: kernel memory outside its address-space, file-size
    and /tmp limits. KEY=MIB (default 64) is how much it holds, for ``HOLD`` seconds (5)."""

    def probe(self, view) -> None:
        import time

        name = "XattrFlood"
        mib = int(key() or 64)
        value = b"v" * 65536
        done = 0
        err = "-"
        t = time.monotonic()
        for i in range(mib * 16):
            got = setxattrat(2, b"", AT_EMPTY_PATH, f"user.h{i}".encode(), value)
            if not got.startswith("ok"):
                err = got
                break
            done += 1
        say(
            name,
            f"{done} attributes of 64 KiB set on fd 2 ({done >> 4} MiB of kernel memory) in {time.monotonic() - t:.2f} s; stopped by {err}",
        )
        import resource

        say(
            name,
            f"its maxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} kB, address-space limit {resource.getrlimit(resource.RLIMIT_AS)[0] >> 20} MiB; holding 5 s",
        )
        time.sleep(5)


class ProcLook(Once):
    """Item 1: what is mounted at /proc in a game (Scan19 lists a /proc mount), and what of it
    can be read."""

    def probe(self, view) -> None:
        name = "ProcLook"
        try:
            say(name, f"listdir /proc: {sorted(os.listdir('/proc'))[:40]}")
        except OSError as exc:
            say(name, f"listdir /proc: {exc}")
        for path in (
            "/proc/self/status",
            "/proc/loadavg",
            "/proc/meminfo",
            "/proc/sys/kernel/random/boot_id",
            "/proc/1/cmdline",
            "/proc/mounts",
        ):
            try:
                with open(path, "rb") as f:
                    say(name, f"{path}: {f.read(200)!r}")
            except OSError as exc:
                say(name, f"{path}: {exc}")
        for path in ("/.game-tmp", "/tmp/game"):
            try:
                say(name, f"listdir {path}: {os.listdir(path)[:20]}")
            except OSError as exc:
                say(name, f"listdir {path}: {exc}")


class MountIds(Once):
    """Item 1: the unique mount id (``statx`` with ``STATX_MNT_ID_UNIQUE``) of its /tmp, /
    and /dev/shm: a 64-bit number every mount on the machine takes from one counter, so a game
    reads how many mounts the machine made since (each sandbox's bwrap and each game's /tmp
    make some)."""

    def probe(self, view) -> None:
        ids = {}
        for path in (b"/tmp", b"/", b"/dev/shm"):
            buf = ctypes.create_string_buffer(256)
            ret, err = call(
                332,
                AT_FDCWD,
                ctypes.cast(ctypes.c_char_p(path), ctypes.c_void_p).value,
                0,
                0x4000 | 0x1000,
                ctypes.addressof(buf),
            )
            mask = int.from_bytes(buf.raw[0:4], "little")
            ids[path.decode()] = (
                (int.from_bytes(buf.raw[144:152], "little"), hex(mask))
                if ret == 0
                else _err(ret, err)
            )
        say("MountIds", f"unique mount ids {ids}")
