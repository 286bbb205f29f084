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
    for test, name in ((stat.S_ISFIFO, "pipe"), (stat.S_ISREG, "file"), (stat.S_ISCHR, "chr"), (stat.S_ISSOCK, "sock"), (stat.S_ISDIR, "dir")):
        if test(mode):
            return name
    return "other"


def _try(what: str, call) -> str:
    try:
        return f"{what}: ok {call()!r}"[:200]
    except Exception as exc:  # what the sandbox refused
        return f"{what}: {type(exc).__name__} {exc}"[:200]


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
            say(self.NAME, _try(f"listdir /proc/{pid}/fd", lambda pid=pid: os.listdir(f"/proc/{pid}/fd")))
            say(self.NAME, _try(f"readlink /proc/{pid}/fd/*", lambda pid=pid: {n: os.readlink(f"/proc/{pid}/fd/{n}") for n in os.listdir(f"/proc/{pid}/fd")}))
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
        for name in ("/proc/1/status", "/proc/1/maps", "/proc/1/mem", "/proc/1/environ", "/proc/1/cmdline", "/proc/self/mountinfo"):
            say(self.NAME, _try(f"read {name}", lambda name=name: open(name, "rb").read(120)))
