# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of a thirteenth independent pass on ``--isolate`` (benchmarks/hostile_pass13).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import os
import stat
import sys

from sims.strategies.planner import Planner


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "pipe"),
        (stat.S_ISREG, "file"),
        (stat.S_ISCHR, "chr"),
        (stat.S_ISSOCK, "sock"),
        (stat.S_ISDIR, "dir"),
    ):
        if test(mode):
            return name
    return "other"


def _try(what: str, call) -> str:
    try:
        return f"{what}: ok {call()!r}"[:200]
    except Exception as exc:  # what the sandbox refused
        return f"{what}: {type(exc).__name__} {exc}"[:200]


def _head(path: str, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


class FdProbe(Planner):
    """What a game's process holds and can reach of its leader and host: its descriptors,
    its /proc (the leader is pid 1 there, holding the pipe on which it reports the game's
    end to the host: ``sandbox.fork_game``'s ``tell``), and whether a pipe the host keeps
    for all its games can be opened again through /proc with the other direction."""

    NAME = "FdProbe"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe()
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def probe(self) -> None:
        held = []
        for fd in range(0, 256):
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            held.append(f"{fd}:{_kind(st.st_mode)}:ino{st.st_ino}")
        say(self.NAME, f"fds {held}")
        say(self.NAME, _try("listdir /proc", lambda: sorted(os.listdir("/proc"))[:30]))
        for pid in ("self", "1"):
            say(
                self.NAME,
                _try(f"listdir /proc/{pid}/fd", lambda pid=pid: os.listdir(f"/proc/{pid}/fd")),
            )
            say(
                self.NAME,
                _try(
                    f"readlink /proc/{pid}/fd/*",
                    lambda pid=pid: {
                        n: os.readlink(f"/proc/{pid}/fd/{n}") for n in os.listdir(f"/proc/{pid}/fd")
                    },
                ),
            )
        pipes = [int(h.split(":")[0]) for h in held if ":pipe:" in h]
        for fd in pipes:
            for flag, name in ((os.O_WRONLY, "w"), (os.O_RDONLY, "r")):

                def reopen(fd=fd, flag=flag):
                    new = os.open(f"/proc/self/fd/{fd}", flag | os.O_NONBLOCK)
                    os.close(new)
                    return new

                say(self.NAME, _try(f"reopen /proc/self/fd/{fd} {name}", reopen))
        for n in range(0, 12):

            def leader(n=n):
                new = os.open(f"/proc/1/fd/{n}", os.O_WRONLY | os.O_NONBLOCK)
                os.close(new)
                return new

            say(self.NAME, _try(f"open /proc/1/fd/{n} w", leader))
        for name in (
            "/proc/1/status",
            "/proc/1/maps",
            "/proc/1/mem",
            "/proc/1/environ",
            "/proc/1/cmdline",
            "/proc/self/mountinfo",
        ):
            say(self.NAME, _try(f"read {name}", lambda name=name: _head(name, 120)))
        say(self.NAME, _try("listdir /dev", lambda: sorted(os.listdir("/dev"))))
        say(self.NAME, _try("listdir /dev/pts", lambda: sorted(os.listdir("/dev/pts"))))
        say(self.NAME, _try("stat /dev/pts/ptmx dev", lambda: os.stat("/dev/pts/ptmx").st_dev))
        say(
            self.NAME,
            _try(
                "stat /dev/ptmx",
                lambda: (os.stat("/dev/ptmx").st_dev, os.stat("/dev/ptmx").st_rdev),
            ),
        )
        opened = []

        def ptys():
            for _ in range(3):
                opened.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
            return sorted(os.listdir("/dev/pts"))

        say(self.NAME, _try("open /dev/ptmx x3 then listdir /dev/pts", ptys))
        for fd in opened:
            os.close(fd)
        say(self.NAME, _try("listdir /sys", lambda: sorted(os.listdir("/sys"))))
        say(self.NAME, _try("read /proc/self/cgroup", lambda: _head("/proc/self/cgroup", 300)))


PTMX = "/dev/pts/ptmx"


class PtyTime(Planner):
    """Memory across games of one host through a kernel-set time: writing to a pty master
    makes the kernel set the modification time of the inode it was opened from (the tty
    layer's ``tty_update_time``, at 8-second grain), and that inode is the ptmx node of the
    devpts instance of bwrap's ``/dev``, which lives as long as the host. Each game reads
    the node's times at its first decision; a game whose opening hand holds an odd count of
    its first colour then writes a byte to a new master (``WRITE``: always, never or by the
    hand)."""

    NAME = "PtyTime"
    WRITE = "hand"
    DELAY = 9.0

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def probe(self, view) -> None:
        import time

        st = os.stat(PTMX)
        now = time.time()
        say(
            self.NAME,
            f"ptmx at start: ino {st.st_ino} dev {st.st_dev} ctime {st.st_ctime:.1f}, mtime-ctime {st.st_mtime - st.st_ctime:.1f} s, atime-ctime {st.st_atime - st.st_ctime:.1f} s, now-mtime {now - st.st_mtime:.1f} s; an earlier game wrote: {st.st_mtime > st.st_ctime}",
        )
        bit = view.hand[0] % 2 if self.WRITE == "hand" else int(self.WRITE == "always")
        if bit:
            time.sleep(self.DELAY)  # past the kernel's 8-second grain
            master = os.open(PTMX, os.O_RDWR | os.O_NOCTTY)
            try:
                os.write(master, b"x")
            finally:
                os.close(master)
            after = os.stat(PTMX)
            say(
                self.NAME,
                f"wrote (bit {bit}): mtime now {after.st_mtime - st.st_mtime:+.1f} s from before",
            )
        else:
            say(self.NAME, f"did not write (bit {bit})")


class PtyWrite(PtyTime):
    """``PtyTime`` that always writes."""

    NAME = "PtyWrite"
    WRITE = "always"


class PtyRead(PtyTime):
    """``PtyTime`` that never writes (the control)."""

    NAME = "PtyRead"
    WRITE = "never"


class PtyNote(Planner):
    """``PtyTime`` as a note of 3 bits a game: the kernel sets the ptmx node's
    modification time to the whole second of a write, whenever it differs from the old one
    past its low 3 bits, so a game that writes at a second ``t`` with ``t % 8`` its symbol
    leaves that symbol for the next game of its host. The symbol: its opening hand's count
    of the last colour (capped at 7), which the paired game (the same deal, seats swapped)
    deals to the rival. Sleeps at most 8 s a decision, over its first decisions."""

    NAME = "PtyNote"

    def decide(self, view):
        import time

        if not hasattr(self, "_symbol"):
            st = os.stat(PTMX)
            self._symbol = min(view.hand[-1], 7)
            self._old = int(st.st_mtime)
            note = self._old % 8 if st.st_mtime > st.st_ctime else None
            say(
                self.NAME,
                f"seat {view.seat}: the note of an earlier game: {note}; own opening hand {list(view.hand)}, writing {self._symbol}",
            )
        if self._symbol is not None:
            now = time.time()
            target = int(now) + 1
            while target % 8 != self._symbol or target >> 3 == self._old >> 3:
                target += 1
            wait = target - now + 0.2
            time.sleep(min(wait, 8.0))
            if wait <= 8.0:
                master = os.open(PTMX, os.O_RDWR | os.O_NOCTTY)
                try:
                    os.write(master, b"x")
                finally:
                    os.close(master)
                written = int(os.stat(PTMX).st_mtime)
                say(
                    self.NAME,
                    f"wrote at second {written}: mtime % 8 = {written % 8} (meant {self._symbol})",
                )
                self._symbol = None
        return super().decide(view)


class PtyAtime(Planner):
    """Whether a second, independent time of the ptmx node moves: a master reads back the
    echo of what it wrote (the slave's line discipline echoes input), and the tty layer
    sets the node's access time on a read as it sets its modification time on a write.
    Sleeps 9 s in its first decision, then writes and reads."""

    NAME = "PtyAtime"

    def decide(self, view):
        import time

        if not getattr(self, "_done", False):
            self._done = True
            st = os.stat(PTMX)
            say(
                self.NAME,
                f"at start: mtime-ctime {st.st_mtime - st.st_ctime:.1f} s, atime-ctime {st.st_atime - st.st_ctime:.1f} s",
            )
            time.sleep(9.0)
            master = os.open(PTMX, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                os.write(master, b"x\n")
                time.sleep(0.3)
                try:
                    got = os.read(master, 64)
                except OSError as exc:
                    got = f"{type(exc).__name__} {exc}"
            finally:
                os.close(master)
            after = os.stat(PTMX)
            say(
                self.NAME,
                f"read back {got!r}; mtime {after.st_mtime - st.st_mtime:+.1f} s, atime {after.st_atime - st.st_atime:+.1f} s",
            )
        return super().decide(view)
