"""Hostile strategies for the fourth pass's attack classes (benchmarks/hostile_pass4), for
tests/sims/test_sandbox_pass4.py. Each plays like a planner and, where its attack works,
fails its own game with a ``Breach`` saying what it found: a clean game means nothing.
Used as ``tests.sims.hostile4:Name``."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import threading

from sims.strategies.planner import Planner

M_ARENA_MAX = -8  # malloc.h


class Breach(Exception):
    """An attack worked: its game fails with this (the test looks for 'breach')."""


def _thread_id() -> int:
    """The kernel's id of a new thread: the next value of the pid counter."""
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(threading.get_native_id()))
    thread.start()
    thread.join()
    return seen[0]


def _move_counter(count: int) -> None:
    """Start and join ``count`` short threads: the pid counter moves by as many."""
    for _ in range(count):
        thread = threading.Thread(target=int)
        thread.start()
        thread.join()


class PidMemo(Planner):
    """Reads where the pid counter stands at its start (its pid, a new thread's id, the pids
    a /proc would show) and moves it by a number of its own choosing for the next game: where
    games share a pid namespace, the next game's values tell what this one chose."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        seen = (os.getpid(), _thread_id(), sorted(p for p in os.listdir("/proc") if p.isdigit()))
        if seen != (2, 3, []):  # after its namespace's leader, itself, its next thread; no /proc
            raise Breach(f"breach: the pid counter shows an earlier game: {seen}")
        _move_counter(20 + rng.randrange(200))


class PidReader(Planner):
    """Says what it sees of the pid counter, for a test without the sandbox (where the
    attack works): its game fails with the values."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        seen = (os.getpid(), _thread_id())
        _move_counter(20 + rng.randrange(200))
        raise Breach(f"breach: pid and thread id {seen}")


class Tasks(Planner):
    """Starts idle threads until one is refused (each a kernel task out of the machine's
    pid_max), holds them through its first decision, then plays on: more than its game's
    bound (sandbox.Limits.tasks, its first thread included) is a breach, and so is never
    being refused."""

    MOST = 2000

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        from sims.sandbox import LIMITS

        # small stacks and one malloc arena: the address space allows thousands of threads
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1)
        threading.stack_size(64 << 10)
        self.gate = threading.Event()
        self.held: list[threading.Thread] = []
        refused = False
        while len(self.held) < self.MOST and not refused:
            thread = threading.Thread(target=self.gate.wait, daemon=True)
            try:
                thread.start()
            except RuntimeError:
                refused = True
            else:
                self.held.append(thread)
        if not refused or len(self.held) + 1 > LIMITS.tasks:
            raise Breach(f"breach: {len(self.held)} threads, refused: {refused}")
        if len(self.held) + 1 < LIMITS.tasks - 2:  # refused by something else first
            raise RuntimeError(f"stopped short of the bound: {len(self.held)} threads")

    def decide(self, view):
        self.gate.set()
        return super().decide(view)


class UserNs(Planner):
    """Looks for a way to a user namespace of its own (where it would hold every capability
    again): the sandbox's count of them is set to none before the game's code runs (its
    process checks it, or never runs the strategy), and a game sees no /proc/sys to read or
    raise it."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        if os.path.exists("/proc/sys"):
            raise Breach("breach: a game sees /proc/sys")
        try:
            with open("/proc/sys/user/max_user_namespaces", "w") as count:
                count.write("9")
        except OSError:
            return
        raise Breach("breach: /proc/sys/user/max_user_namespaces is writable")


CLONE_THREAD_FLAGS = 0x003D0F00  # pthread_create's
CLONE_PIDFD = 0x00001000
SYS_CLONE_X86_64 = 56


class MachineCounters(Planner):
    """Looks for machine-wide counters a game could move and another sandbox read back
    (hostile passes 5 and 6): the machine's /proc files, pipe and eventfd inode numbers and
    ids, ``sysinfo``'s count of processes, a thread's pidfd (whose inode counts the
    machine's tasks). Each must be out of reach; a refused call fails nothing."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import platform

        found = [p for p in ("/proc/stat", "/proc/loadavg", "/proc/meminfo") if os.path.exists(p)]
        if found:
            raise Breach(f"breach: a game reads {', '.join(found)}")
        # hostile pass 7: every entry of a process procfs makes (/proc/self/fd/N) takes its
        # inode number from the machine's one get_next_ino(), so any /proc is a counter
        if os.listdir("/proc"):
            raise Breach(f"breach: a game sees /proc {sorted(os.listdir('/proc'))[:6]}")
        fd = os.open("/dev/null", os.O_RDONLY)
        try:
            for name in (f"/proc/self/fd/{fd}", "/proc/self/fdinfo/0", "/proc/thread-self"):
                with contextlib.suppress(OSError):
                    raise Breach(f"breach: a game stats {name} (inode {os.stat(name).st_ino})")
        finally:
            os.close(fd)
        for name, make in (("a pipe", os.pipe), ("an eventfd", lambda: os.eventfd(0))):
            try:
                made = make()
            except OSError:
                continue
            raise Breach(f"breach: a game made {name} ({made})")
        libc = ctypes.CDLL(None, use_errno=True)
        info = ctypes.create_string_buffer(256)
        if libc.sysinfo(info) == 0:
            raise Breach("breach: sysinfo counts the machine's processes")
        if platform.machine() == "x86_64":
            # refused before any thread is made; were it allowed, the thread without a stack
            # of its own would crash this game, which the test sees as well
            pidfd = ctypes.c_int(-1)
            flags = CLONE_THREAD_FLAGS | CLONE_PIDFD
            done = libc.syscall(SYS_CLONE_X86_64, ctypes.c_ulong(flags), None,
                                ctypes.byref(pidfd), None, None)  # fmt: skip
            if done != -1:
                raise Breach(f"breach: a thread with CLONE_PIDFD ({done}, pidfd {pidfd.value})")


class ViewProbe(Planner):
    """Looks for cold pages to set (hostile pass 7's CacheHand wrote a hand into cold pages
    of rarely read files under /usr): the machine's other files must be out of view, the
    standard library's test suite hidden, and what an honest strategy imports still there."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import importlib.util

        outside = ("/usr/share", "/usr/include", "/usr/bin/env", "/usr/local/bin", "/etc/passwd",
                   "/usr/lib/python3/dist-packages")  # fmt: skip
        seen = [p for p in outside if os.path.exists(p)]
        tests = os.path.join(os.path.dirname(os.__file__), "test")
        if os.path.isdir(tests) and os.listdir(tests):
            seen.append(tests)
        seen += [name for name in ("scipy", "pandas", "pytest") if importlib.util.find_spec(name)]
        if seen:
            raise Breach(f"breach: a game sees {seen}")
        import decimal, fractions, heapq, json, re, statistics  # noqa: E401, F401, I001

        import numpy

        if int(numpy.arange(10).sum()) != 45:
            raise Breach("numpy does not work in a game")


class SignalCount(Planner):
    """Hostile pass 8's SigColluder: POSIX timers, each holding a queued signal charged to a
    count of pending signals every sandbox shares (root's), filled by one game and read back
    by another. Refused; reading its own limits (resource.getrlimit) still works, changing
    them or reading another process's does not."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import resource

        libc = ctypes.CDLL(None, use_errno=True)
        timer = ctypes.c_void_p()
        if libc.timer_create(1, None, ctypes.byref(timer)) == 0:  # CLOCK_MONOTONIC
            raise Breach("breach: a game made a POSIX timer")
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft <= 0 or hard < soft:
            raise Breach(f"getrlimit gave {soft, hard}")
        for attempt in (
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)),
            lambda: resource.prlimit(1, resource.RLIMIT_NOFILE),
            lambda: resource.prlimit(0, resource.RLIMIT_NOFILE, (soft, hard)),
        ):
            try:
                attempt()
            except (OSError, ValueError):
                continue
            raise Breach("breach: a game changed or read limits that are not its own to")


TMPFS_MAGIC = 0x01021994


class FolderProbe(Planner):
    """Hostile pass 8's DentHand looked up names that do not exist in the standard library's
    folder: each left a negative dentry on the disk's filesystem, shared by every sandbox, so
    a later lookup of the name was twice as fast. Every folder a game can look a name up in
    must be a tmpfs, which caches no such name (its /dev aside: device nodes)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        libc = ctypes.CDLL(None, use_errno=True)
        buffer = ctypes.create_string_buffer(256)  # struct statfs: f_type first
        other = []
        for folder, names, _ in os.walk("/"):
            if folder in ("/proc", "/dev"):
                names[:] = []
                continue
            if libc.statfs(folder.encode(), buffer) != 0:
                continue
            kind = ctypes.c_long.from_buffer(buffer).value
            if kind != TMPFS_MAGIC:
                other.append(f"{folder} ({kind:#x})")
        if other:
            raise Breach(f"breach: folders not on a tmpfs: {other[:5]} of {len(other)}")


SYS_FUTEX, SYS_FUTEX_WAITV, SYS_SET_TID_ADDRESS, SYS_SET_ROBUST_LIST = 202, 449, 218, 273
FUTEX_WAIT, FUTEX_WAKE, FUTEX_PRIVATE = 0, 1, 128
MADV_HUGEPAGE, MADV_COLLAPSE, PR_SET_MEMORY_MERGE = 14, 25, 67
PR_SET_VMA, PR_SET_VMA_ANON_NAME = 0x53564D41, 0
PR_SCHED_CORE, PR_FUTEX_HASH = 62, 78
SYS_MEMBARRIER = 324


class SharedKernelState(Planner):
    """Hostile pass 9: state the kernel keeps for a file every sandbox maps, not for the
    process. MADV_COLLAPSE (or MADV_HUGEPAGE) made a 2 MiB region of the shared copy one
    huge page for every process, read back by timing page faults; a futex in a file's page
    is keyed by the file, so sandboxes met on it; KSM merges pages across processes. Each
    refused, while a private futex (every lock a thread takes) still works."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long)  # fmt: skip
        libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        libc.syscall.restype = ctypes.c_long
        private = ctypes.c_uint32(0)
        path = max((os.path.join(os.path.dirname(os.__file__), n) for n in
                    os.listdir(os.path.dirname(os.__file__))), key=lambda p: os.path.getsize(p)
                   if os.path.isfile(p) else 0)  # fmt: skip
        size = os.path.getsize(path) // 4096 * 4096
        fd = os.open(path, os.O_RDONLY)
        address = libc.mmap(None, size, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
        os.close(fd)
        found = []
        for advice in (MADV_HUGEPAGE, MADV_COLLAPSE):
            if libc.madvise(address, size, advice) == 0:
                found.append(f"madvise {advice} on a file of the copy")
        word = ctypes.c_uint32.from_address(address)  # a futex keyed by the file
        if libc.syscall(SYS_FUTEX, ctypes.byref(word), FUTEX_WAKE, 1, 0, 0, 0) >= 0:
            found.append("a shared futex")
        if libc.syscall(SYS_FUTEX_WAITV, 0, 0, 0, 0, 0) == 0 or ctypes.get_errno() == 22:
            found.append("futex_waitv")
        timeout = (ctypes.c_long * 2)(0, 10_000_000)  # 10 ms, should it wait
        value = word.value
        if libc.syscall(SYS_FUTEX, ctypes.byref(word), FUTEX_WAIT, value, timeout, 0, 0) == 0:
            found.append("a shared futex wait that was woken")
        elif ctypes.get_errno() != errno.EAGAIN:
            found.append(f"a shared futex wait that waited (errno {ctypes.get_errno()})")
        if libc.syscall(SYS_SET_ROBUST_LIST, ctypes.byref(private), 24) == 0:
            found.append("set_robust_list (its pending word is woken, shared, at a thread's end)")
        if libc.syscall(SYS_SET_TID_ADDRESS, ctypes.byref(word)) >= 0:
            found.append("set_tid_address (a thread's exit wakes that word, shared)")
        if libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) == 0:
            found.append("KSM for the process")
        # hostile pass 26s's VmaNames: each name is kernel memory no limit counts (EINVAL
        # where the kernel has no names; the filter's EPERM either way)
        name = ctypes.c_char_p(b"note")
        if libc.prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, address, 4096, name) == 0 or (
            ctypes.get_errno() != errno.EPERM
        ):
            found.append(f"a name for a mapping (errno {ctypes.get_errno()})")
        # pass 27s's Probe27: core-scheduling cookies (a sibling hardware thread kept idle)
        # and a futex hash of its own (kernel memory): EINVAL or ENOSYS where the kernel
        # has neither, the filter's EPERM either way
        for option in (PR_SCHED_CORE, PR_FUTEX_HASH):
            if libc.prctl(option, 0, 0, 0, 0) == 0 or ctypes.get_errno() != errno.EPERM:
                found.append(f"prctl {option} (errno {ctypes.get_errno()})")
        # pass 29s: a machine-wide barrier (every processor interrupted, or a grace period)
        if libc.syscall(SYS_MEMBARRIER, 0, 0) >= 0 or ctypes.get_errno() != errno.EPERM:
            found.append(f"membarrier (errno {ctypes.get_errno()})")
        if libc.syscall(SYS_FUTEX, ctypes.byref(private), FUTEX_WAKE | FUTEX_PRIVATE, 1, 0, 0, 0):
            raise Breach(f"a private futex is refused (errno {ctypes.get_errno()})")
        if found:
            raise Breach(f"breach: {found}")


NOTE_HEAD = b"heap-" + b"note:"  # built, so that the module's own constant is no note


class HeapNote(Planner):
    """Hostile pass 11: a game's stderr, copied at its end through its host's memory, was in
    the next game's process (forked from the host) to find. It looks through its heap for
    an earlier game's note, then leaves one of its own, 200 KB of it, on its stderr."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.sbrk.restype = ctypes.c_void_p
        libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        end = libc.sbrk(0)
        start = end
        while end - start < 1 << 30 and libc.madvise(start - 4096, 4096, 0) == 0:
            start -= 4096  # MADV_NORMAL: refused where nothing is mapped
        heap = ctypes.string_at(start, end - start) if end > start else b""
        found = re.findall(re.escape(NOTE_HEAD) + rb"([0-9a-f]{16})!", heap)
        mine = f"{rng.getrandbits(64):016x}".encode()
        if [note for note in found if note != mine]:
            raise Breach(f"breach: an earlier game's note in the heap: {found[0].decode()}")
        os.write(2, (NOTE_HEAD + mine + b"!") * 8000)


class HostHistory(Planner):
    """Nothing of its host's earlier games is in a game's process: each is forked from a
    zygote made before the first, never from the host, whose threads for earlier games
    numbered them (a game forked from one knew its place in its host's history)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        thread = threading.current_thread()
        made = threading._counter() - 1  # threading.Thread objects made before it
        if thread is not threading.main_thread() or made:
            raise Breach(f"breach: forked from {thread.name!r} after {made} threads")


class ExecMemory(Planner):
    """No machine code of its own: hostile pass 14's CacheTalk ran clflush and timed loads
    from executable anonymous memory, pass 15's ExecFile from a private copy of a view file
    mapped writable and executable, and from a file it shipped. Executable memory it could
    write is refused every way: anonymous, writable and executable at once, made executable
    after, a file of its own /tmp or of its own code mapped to run, and its stdout and
    stderr, a memory file no mount makes noexec (hostile pass 17's MemfdExec)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import mmap

        found = []
        try:
            mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            found.append("an anonymous executable mapping")
        except OSError:
            pass
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long)  # fmt: skip
        libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        page = libc.mmap(None, 4096, 3, 0x22, -1, 0)  # read-write, private anonymous
        if libc.mprotect(page, 4096, 5) == 0:  # read and execute
            found.append("mprotect to executable")
        with open("/tmp/game/code.bin", "wb") as out:
            out.write(b"\xc3" * 4096)
        with open("/tmp/game/code.bin", "rb") as code:
            try:
                mmap.mmap(code.fileno(), 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
                found.append("its own file mapped executable")
            except OSError:
                pass
        with open(os.__file__, "rb") as view_file:  # a private copy of a file of the view
            try:
                writable = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
                mmap.mmap(view_file.fileno(), 4096, flags=mmap.MAP_PRIVATE, prot=writable)
                found.append("a view file's private copy writable and executable")
            except OSError:
                pass
        with open(__file__, "rb") as own:  # a file it shipped (pass 15: fr.bin, own.so)
            try:
                mmap.mmap(own.fileno(), 4096, flags=mmap.MAP_PRIVATE,
                          prot=mmap.PROT_READ | mmap.PROT_EXEC)  # fmt: skip
                found.append("a file of its own mapped to run")
            except OSError:
                pass
        for fd in (1, 2):  # its stdout and stderr, a memory file (pass 17's MemfdExec)
            try:
                os.pwrite(fd, b"\xc3" * 4096, 0)
                mmap.mmap(fd, 4096, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC)
                found.append(f"its fd {fd} mapped to run")
            except OSError:
                pass
        os.chmod("/tmp/game/code.bin", 0o777)  # answers success, changes nothing
        if os.stat("/tmp/game/code.bin").st_mode & 0o777 == 0o777:
            found.append("chmod changed a mode")
        if found:
            raise Breach(f"breach: {found}")


class Priority(Planner):
    """No scheduling above its rivals' and no locked memory, whatever the machine grants the
    run's user (hostile pass 17: the limits were inherited, not set)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import resource

        found = []
        for name in ("RLIMIT_RTPRIO", "RLIMIT_NICE", "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE"):
            if resource.getrlimit(getattr(resource, name)) != (0, 0):
                found.append(f"{name} {resource.getrlimit(getattr(resource, name))}")
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            found.append("real-time scheduling")
        except OSError:
            pass
        try:
            os.nice(-1)
            found.append("a lower niceness")
        except OSError:
            pass
        if found:
            raise Breach(f"breach: {found}")


class Arenas(Planner):
    """An honest strategy: threads that allocate, all at once, then numpy's matrix product,
    within the memory limit on any machine (hostile pass 17: each thread's malloc arena
    reserves 64 MiB of the limit, and OpenBLAS a thread and buffer per core)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import threading

        import numpy as np

        together = threading.Barrier(24)

        def work():
            kept = [bytearray(50_000) for _ in range(20)]
            together.wait(timeout=30)
            del kept

        threads = [threading.Thread(target=work) for _ in range(24)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        product = np.ones((400, 400)) @ np.ones((400, 400))
        if float(product[0, 0]) != 400.0 or os.environ.get("OPENBLAS_NUM_THREADS") != "1":
            raise Breach("breach: numpy's threads are not one")


class FifoProbe(Planner):
    """No named pipe (hostile pass 19's FifoTalk: a FIFO in its own /tmp is a pipe whose
    pages count against the run's user, a count of the whole machine)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        for where in ("/tmp/game/fifo", "/dev/shm/fifo"):
            try:
                os.mkfifo(where)
            except OSError:
                continue
            raise Breach(f"breach: a named pipe at {where}")


class NewerCalls(Planner):
    """Calls newer than the filter's library knows by name are refused by number (pass
    21's XattrFlood: setxattrat held 1280 MiB of kernel memory past every limit); and an
    honest getpass.getuser() works."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import errno
        import getpass

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for number in (457, 463, 466, 469, 500):  # statmount, setxattrat, ..., unassigned
            if libc.syscall(ctypes.c_long(number), 2, 0, 0, 0, 0) != -1:
                raise Breach(f"breach: call {number} answered")
            if ctypes.get_errno() != errno.ENOSYS:
                raise Breach(f"breach: call {number}: errno {ctypes.get_errno()}")
        if getpass.getuser() != "guest":
            raise Breach("getpass.getuser() is not the guest")


class DumpProbe(Planner):
    """Nothing of a game's memory reaches the machine by a crash (hostile pass 14: where
    core_pattern pipes to a helper, the kernel runs it as root whatever RLIMIT_CORE says
    but 1, and a game could make itself dumpable again), nor a huge-page pool's count."""

    def __init__(self, rng, knobs=None):
        import mmap
        import resource

        super().__init__(rng, knobs)
        libc = ctypes.CDLL(None, use_errno=True)
        found = []
        if libc.prctl(4, 1, 0, 0, 0) == 0:  # PR_SET_DUMPABLE
            found.append("made itself dumpable")
        if resource.getrlimit(resource.RLIMIT_CORE)[0] not in (0, 1):
            found.append("a core dump limit of its own")
        try:
            mmap.mmap(-1, 2 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000)
            found.append("a huge-page mapping")
        except OSError:
            pass
        if found:
            raise Breach(f"breach: {found}")


class PtyProbe(Planner):
    """Hostile pass 13's PtyNote: the sandbox's one /dev/pts outlived every game of its host,
    and a pty's times, set by writing to it, carried a note to the next game. A game has no
    terminal to open."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        found = [f"/dev/pts holds {os.listdir('/dev/pts')}"] if os.listdir("/dev/pts") else []
        try:
            primary, secondary = os.openpty()
        except OSError:
            pass
        else:
            os.close(primary)
            os.close(secondary)
            found.append("a pty opened")
        if found:
            raise Breach(f"breach: {found}")


class PageTables(Planner):
    """Hostile pass 23's MemoryAll: 64,000 one-page mappings 1 GiB apart (about 0.5 GiB of
    page tables, which no resource limit counts), then its address space and its /tmp and
    /dev/shm filled. With its sandbox's memory counted whole, the kernel kills it first."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import mmap

        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
        libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
        fixed_noreplace = 0x100000
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | fixed_noreplace
        made = 0
        for index in range(64_000):
            address = (16 << 40) + (index << 30)
            got = libc.mmap(address, 4096, mmap.PROT_READ, flags, -1, 0)
            if got in (None, ctypes.c_void_p(-1).value):
                break
            ctypes.c_char.from_address(got).value  # noqa: B018 (a read: its page tables)
            made += 1
        kept = []
        with contextlib.suppress(MemoryError):
            while True:
                kept.append(bytearray(16 << 20))  # written: each page resident
        block = bytes(kept.pop()[: 1 << 20]) if kept else b"x" * (1 << 20)
        for folder in ("/tmp/game", "/dev/shm"):
            for index in range(4):
                with contextlib.suppress(OSError), open(f"{folder}/fill{index}", "wb") as out:
                    for _ in range(15):
                        out.write(block)
        raise Breach(f"breach: {made} mappings and {len(kept) * 16} MiB held, not killed")


class CopyAndHome(Planner):
    """An honest strategy: shutil.copy2 and copytree keep times (utime), Path.home()."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import pathlib
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            source = pathlib.Path(folder, "a")
            source.mkdir()
            (source / "f").write_text("kept")
            shutil.copy2(source / "f", pathlib.Path(folder, "g"))
            shutil.copytree(source, pathlib.Path(folder, "b"))
            if pathlib.Path(folder, "b", "f").read_text() != "kept":
                raise Breach("breach: copytree lost a file")
        home = pathlib.Path.home()
        (home / "note").write_text("mine")
        if os.path.expanduser("~") != str(home):
            raise Breach("breach: expanduser and Path.home() disagree")
