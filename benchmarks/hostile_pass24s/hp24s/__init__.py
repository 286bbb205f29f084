# ruff: noqa: E501, B905  (attack code: long report lines, probes)
"""Hostile strategies of pass 24s on ``--isolate`` (benchmarks/hostile_pass24s).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.syscall.argtypes = [ctypes.c_long] * 7

# x86_64 numbers
SYS_GETPRIORITY, SYS_SETPRIORITY = 140, 141
SYS_SCHED_SETSCHEDULER, SYS_SCHED_GETSCHEDULER = 144, 145
SYS_SCHED_SETAFFINITY, SYS_SCHED_GETAFFINITY = 203, 204
SYS_PRCTL, SYS_IOPRIO_SET, SYS_IOPRIO_GET = 157, 251, 252
SYS_GET_ROBUST_LIST, SYS_GETPGID, SYS_GETSID, SYS_MBIND = 274, 121, 124, 237
SYS_MMAP, SYS_MADVISE, SYS_MEMBARRIER = 9, 28, 324
PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 0, 1, 2
IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER = 1, 2, 3


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def call(nr: int, *args: int) -> tuple[int, int]:
    """(return value, errno) of a raw system call."""
    ctypes.set_errno(0)
    full = list(args) + [0] * (6 - len(args))
    ret = LIBC.syscall(nr, *full)
    return ret, (ctypes.get_errno() if ret == -1 else 0)


def shown(result: tuple[int, int]) -> str:
    import errno

    ret, err = result
    return f"{ret}" if not err else f"{errno.errorcode.get(err, err)}"


def key() -> str:
    """A parameter handed in through hp24s/key.txt (run.sh's KEY)."""
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


class PidReach(Once):
    """Item 1/5: what a game can do to processes it cannot see. ``setpriority`` and
    ``ioprio_set`` of ``PRIO_PGRP``/``IOPRIO_WHO_PGRP`` with ``who`` 0 act on every task of
    the caller's process group, whatever pid namespace they are in; the game shares its
    group with its host (bwrap's ``--new-session`` child). And pid 1 (its leader) is of the
    same user, so the calls that take a pid (affinity, policy, nice) reach it. ``KEY``:
    ``nice`` renices the group to 19 and makes the leader SCHED_IDLE; else only reads."""

    def probe(self, view) -> None:
        name = "PidReach"
        act = key() == "nice"
        say(
            name,
            f"pid {os.getpid()} ppid {os.getppid()} pgid(0) {shown(call(SYS_GETPGID, 0))} sid(0) {shown(call(SYS_GETSID, 0))} pgid(1) {shown(call(SYS_GETPGID, 1))}",
        )
        say(
            name,
            f"getpriority PGRP 0 {shown(call(SYS_GETPRIORITY, PRIO_PGRP, 0))}, PROCESS 1 {shown(call(SYS_GETPRIORITY, PRIO_PROCESS, 1))}, USER 0 {shown(call(SYS_GETPRIORITY, PRIO_USER, 0))}",
        )
        say(
            name,
            f"ioprio_get PGRP 0 {shown(call(SYS_IOPRIO_GET, IOPRIO_WHO_PGRP, 0))}, PROCESS 1 {shown(call(SYS_IOPRIO_GET, IOPRIO_WHO_PROCESS, 1))}",
        )
        mask = (ctypes.c_ulong * 16)()
        say(
            name,
            f"sched_getaffinity(1) {shown(call(SYS_SCHED_GETAFFINITY, 1, ctypes.sizeof(mask), ctypes.addressof(mask)))} mask {mask[0]:#x}; scheduler(1) {shown(call(SYS_SCHED_GETSCHEDULER, 1))}",
        )
        head, size = ctypes.c_void_p(), ctypes.c_size_t()
        say(
            name,
            f"get_robust_list(1) {shown(call(SYS_GET_ROBUST_LIST, 1, ctypes.addressof(head), ctypes.addressof(size)))}",
        )
        if act:
            say(name, f"setpriority PGRP 0 -> 19: {shown(call(SYS_SETPRIORITY, PRIO_PGRP, 0, 19))}")
            say(
                name,
                f"ioprio_set PGRP 0 -> idle: {shown(call(SYS_IOPRIO_SET, IOPRIO_WHO_PGRP, 0, 3 << 13))}",
            )
            one = (ctypes.c_ulong * 1)(1)
            say(
                name,
                f"sched_setaffinity(1, cpu0): {shown(call(SYS_SCHED_SETAFFINITY, 1, 8, ctypes.addressof(one)))}",
            )
            param = ctypes.c_int(0)
            say(
                name,
                f"sched_setscheduler(1, SCHED_IDLE): {shown(call(SYS_SCHED_SETSCHEDULER, 1, 5, ctypes.addressof(param)))}",
            )
            say(
                name,
                f"after: getpriority PGRP 0 {shown(call(SYS_GETPRIORITY, PRIO_PGRP, 0))}, scheduler(1) {shown(call(SYS_SCHED_GETSCHEDULER, 1))}",
            )
            time.sleep(float(os.environ.get("HOLD", "2")))


class PrctlScan(Once):
    """Item 1: prctl options the filter lets through, each tried on the game itself."""

    def probe(self, view) -> None:
        name = "PrctlScan"
        buf = ctypes.create_string_buffer(512)
        tries = {
            "PR_GET_AUXV": (0x41555856, ctypes.addressof(buf), 512, 0, 0),
            "PR_SET_NAME(15)": (
                15,
                ctypes.addressof(ctypes.create_string_buffer(b"hp24s")),
                0,
                0,
                0,
            ),
            "PR_SET_PDEATHSIG(1)": (1, 9, 0, 0, 0),
            "PR_SET_CHILD_SUBREAPER(36)": (36, 1, 0, 0, 0),
            "PR_SET_THP_DISABLE(41)": (41, 1, 0, 0, 0),
            "PR_SET_TIMERSLACK(29)": (29, 1, 0, 0, 0),
            "PR_SET_NO_NEW_PRIVS(38)": (38, 1, 0, 0, 0),
            "PR_SET_MM(35) START_CODE": (35, 1, 0x400000, 0, 0),
            "PR_SET_MDWE(65)": (65, 1, 0, 0, 0),
            "PR_SCHED_CORE(62) CREATE self": (62, 1, 0, 0, 0),
            "PR_SCHED_CORE(62) SHARE_TO 1": (62, 2, 1, 0, 0),
            "PR_SCHED_CORE(62) SHARE_FROM 1": (62, 3, 1, 0, 0),
            "PR_SET_SYSCALL_USER_DISPATCH(59) OFF": (59, 0, 0, 0, 0),
            "PR_SET_IO_FLUSHER(57)": (57, 1, 0, 0, 0),
            "PR_SET_SPECULATION_CTRL(53)": (53, 0, 4, 0, 0),
            "PR_SET_KEEPCAPS(8)": (8, 1, 0, 0, 0),
            "PR_CAP_AMBIENT(47?)/PR_CAPBSET_READ(23) 21": (23, 21, 0, 0, 0),
            "PR_SET_FP_MODE(45)": (45, 0, 0, 0, 0),
            "PR_SET_SECUREBITS(28)": (28, 0, 0, 0, 0),
            "PR_SET_PTRACER(0x59616d61) any": (0x59616D61, 0xFFFFFFFFFFFFFFFF, 0, 0, 0),
            "PR_SET_DUMPABLE(4)": (4, 1, 0, 0, 0),
            "PR_SET_MEMORY_MERGE(67)": (67, 1, 0, 0, 0),
            "PR_GET_MEMORY_MERGE(68)": (68, 0, 0, 0, 0),
            "PR_RISCV/PR_SET_SHADOW_STACK_STATUS(75)": (75, 1, 0, 0, 0),
            "PR_FUTEX_HASH(78) SET 0": (78, 1, 0, 0, 0),
            "PR_SET_VMA(0x53564d41) name": (0x53564D41, 0, 0, 0, 0),
        }
        for label, args in tries.items():
            say(name, f"{label}: {shown(call(SYS_PRCTL, *args))}")
        ret, _ = call(SYS_PRCTL, 0x41555856, ctypes.addressof(buf), 512, 0, 0)
        if ret > 0:
            words = [int.from_bytes(buf.raw[i : i + 8], "little") for i in range(0, ret, 8)]
            pairs = dict(zip(words[::2], words[1::2]))
            say(name, f"auxv keys {sorted(pairs)}; AT_RANDOM at {pairs.get(25, 0):#x}")
            if pairs.get(25):
                raw = ctypes.string_at(pairs[25], 16)
                say(name, f"AT_RANDOM {raw.hex()} (the host's exec: same for every game of a host)")


class Honest24(Once):
    """(f) Honest code: each step said ok, or FAILED with its exception."""

    def probe(self, view) -> None:
        from .honest import steps

        for label, step in steps():
            try:
                said = step()
                say("Honest24", f"{label}: ok {str(said)[:160]}")
            except BaseException as exc:  # KeyboardInterrupt included
                say("Honest24", f"{label}: FAILED {type(exc).__name__}: {str(exc)[:160]}")


class StopStall(Planner):
    """Item 5, steady decisions: right after it answers, a thread of it starts one long
    uninterruptible call (``MADV_POPULATE_WRITE`` of ``KEY`` MiB, released at its next
    decision), so its host's stop (which waits until every thread is stopped) waits for
    the call: time no decision limit counts, spent before the rival may decide."""

    def decide(self, view):
        import threading

        mib = int(key() or "512")
        if not hasattr(self, "_go"):
            self._go = threading.Event()
            self._spans: list[float] = []
            LIBC.mmap.restype = ctypes.c_void_p
            LIBC.mmap.argtypes = [
                ctypes.c_void_p,
                ctypes.c_size_t,
                ctypes.c_int,
                ctypes.c_int,
                ctypes.c_int,
                ctypes.c_long,
            ]
            self._addr = LIBC.mmap(None, mib << 20, 3, 0x22, -1, 0)

            def run() -> None:
                while True:
                    self._go.wait()
                    self._go.clear()
                    time.sleep(0.0005)  # let the answer go out first
                    t = time.monotonic()
                    call(SYS_MADVISE, self._addr, mib << 20, 23)  # MADV_POPULATE_WRITE
                    self._spans.append(time.monotonic() - t)
                    call(SYS_MADVISE, self._addr, mib << 20, 4)  # DONTNEED: free again

            threading.Thread(target=run, daemon=True).start()
        if self._spans and len(self._spans) % 10 == 0:
            s = self._spans
            say(
                "StopStall",
                f"{len(s)} populates after its answers, mean {sum(s) / len(s):.3f} s, max {max(s):.3f} s",
            )
        action = super().decide(view)
        self._go.set()
        return action


class PlainControl(Planner):
    """The planner under another name: the control of a timed run."""


BLANK = "\u2800"  # BRAILLE PATTERN BLANK: printable (category So), drawn as a blank cell


class PadForged(Planner):
    """Item 5: a failure's words that pose as another seat's failure on a terminal without
    a control character. The words are padded with printable blanks (U+2800) to the end of
    an 80-column line, so the terminal wraps and the forged failure, naming the planner,
    starts a line of its own, with nothing on screen tying it to this seat. ``KEY``: the
    terminal width (80), or ``ascii`` to pad with plain spaces. Its stderr does the same to a relayed line."""

    def decide(self, view):
        width = int(key()) if key().isdigit() else 80
        blank = " " if key() == "ascii" else BLANK  # KEY=ascii: plain spaces
        calls = getattr(self, "_calls", 0) + 1
        self._calls = calls
        if calls == 3:
            me = type(self).__module__ + ":" + type(self).__name__
            forged = (
                "base/2p/planner+hp24s:PadForged game 0: seat 0 (planner): decision took over 10 s"
            )
            # the line the run prints: "<cell> game N: seat S (<name>): GuestError: RuntimeError: <words>"
            head = f"  base/2p/{me}+planner game 0: seat 0 ({me}): GuestError: RuntimeError: "
            pad = blank * ((-len(head) - 1) % width)
            sys.stderr.write(
                blank * (width - len(f"[guest {me}] ") % width)
                + "1 game(s) failed: none of them hp24s's\n"
            )
            raise RuntimeError(pad + " " + blank * 2 + forged)
        return super().decide(view)


class FdScan(Once):
    """Items 1/2: every descriptor the game holds when its code first runs, what it is,
    how it was opened, and for a socket, its kind and whether it can pass descriptors."""

    def probe(self, view) -> None:
        import fcntl
        import socket
        import stat

        found = []
        for fd in range(1024):
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            kind = stat.S_IFMT(st.st_mode)
            names = {
                stat.S_IFIFO: "fifo",
                stat.S_IFSOCK: "sock",
                stat.S_IFREG: "file",
                stat.S_IFCHR: "chr",
                stat.S_IFDIR: "dir",
            }
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            what = f"{fd}:{names.get(kind, oct(kind))} ino {st.st_ino} fl {flags:o} size {st.st_size} nlink {st.st_nlink} mode {st.st_mode:o}"
            if kind == stat.S_IFSOCK:
                try:
                    s = socket.socket(fileno=os.dup(fd))
                    what += f" type {s.type} family {s.family}"
                    s.detach()
                except OSError as exc:
                    what += f" ({exc})"
            found.append(what)
        say("FdScan", "; ".join(found))


class TimedPlanner(Planner):
    """Ground truth for RivalClock: a planner that reports its own decision time with its
    public and hidden state (run it in the default mode, or as the rival under --isolate)."""

    def decide(self, view):
        t = time.perf_counter()
        action = super().decide(view)
        dt = time.perf_counter() - t
        say(
            "TimedPlanner",
            f"turn {view.turn} phase {int(view.phase)} dt_ms {dt * 1000:.3f} hand {list(view.hand)} held {list(view.held_ids)} offer {list(view.offer_ids)} action {type(action).__name__}",
        )
        return action


class RivalClock(Planner):
    """Item 2: the time from its answer to its next view is its rival's decision (plus the
    pipes); under --isolate against TimedPlanner, printed beside the public view."""

    def decide(self, view):
        now = time.perf_counter()
        last = getattr(self, "_last", None)
        if last is not None:
            say(
                "RivalClock",
                f"turn {view.turn} wait_ms {(now - last) * 1000:.3f} rival_hand_size {view.hand_sizes[1 - view.seat]} rival_held {view.held_counts[1 - view.seat]}",
            )
        action = super().decide(view)
        self._last = time.perf_counter()
        return action


class PrctlTsc(Once):
    """Item 5: a death of its own making (``PR_SET_TSC`` to fault on the time-stamp
    counter, which its next clock read uses) must be its own seat's failure."""

    def probe(self, view) -> None:
        say("PrctlTsc", f"PR_SET_TSC(PR_TSC_SIGSEGV): {shown(call(SYS_PRCTL, 26, 2, 0, 0, 0))}")


class SlowInit(Planner):
    """(f) Honest code: a constructor that precomputes for ``KEY`` seconds (3 by default),
    longer than a short decision limit, in both modes."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        seconds = float(key()) if key().replace(".", "", 1).isdigit() else 3.0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sum(range(1000))
