"""What a game can do to the two pipes of its game, the only descriptors it shares with
the worker (``hp31s.probe``): pipe size, flags, owner, splice, tee, vmsplice, and how many
bytes each holds. Each is tried once at the first decision, with return and errno; the
seat then plays as the planner."""

from __future__ import annotations

import array
import ctypes
import fcntl
import os
import termios

from sims.strategies.planner import Planner

from . import LIBC, call, say
from .fill import _pipe

F_SETPIPE_SZ, F_GETPIPE_SZ, F_SETOWN, F_SETSIG = 1031, 1032, 8, 10
SPLICE, TEE, VMSPLICE = 275, 276, 278


def _fcntl(fd: int, cmd: int, arg: int) -> str:
    ctypes.set_errno(0)
    ret = LIBC.syscall(72, fd, cmd, arg, 0, 0, 0, 0)
    return f"{ret} errno {ctypes.get_errno() if ret == -1 else 0}"


def _held(fd: int) -> int:
    buf = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return buf[0]


class Probe31(Planner):
    """Probe: calls on the game's own pipes (see the module)."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        views, answers = _pipe(0), _pipe(1)
        say("Probe31", f"view fd {views}, answer fd {answers}")
        say("Probe31", f"FIONREAD views {_held(views)} answers {_held(answers)}")
        for name, fd in (("views", views), ("answers", answers)):
            say("Probe31", f"{name} F_GETPIPE_SZ {_fcntl(fd, F_GETPIPE_SZ, 0)}")
            say("Probe31", f"{name} F_SETPIPE_SZ 4096 {_fcntl(fd, F_SETPIPE_SZ, 4096)}")
            say("Probe31", f"{name} F_SETPIPE_SZ 1MiB {_fcntl(fd, F_SETPIPE_SZ, 1 << 20)}")
            say("Probe31", f"{name} F_SETOWN {_fcntl(fd, F_SETOWN, os.getpid())}")
            say("Probe31", f"{name} F_SETSIG {_fcntl(fd, F_SETSIG, 10)}")
            say("Probe31", f"{name} F_SETFL O_NONBLOCK {_fcntl(fd, 4, os.O_NONBLOCK)}")
            say("Probe31", f"{name} F_SETFL O_ASYNC {_fcntl(fd, 4, 0o20000)}")
        say("Probe31", f"tee views->answers {call(TEE, views, answers, 16, 2)}")
        say("Probe31", f"splice views->answers {call(SPLICE, views, 0, answers, 0, 16, 2)}")
        buf = ctypes.create_string_buffer(b"{}\n")
        iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 0)
        say("Probe31", f"vmsplice 0 bytes {call(VMSPLICE, answers, ctypes.addressof(iov), 1, 1)}")
        try:
            fd = os.open(f"/proc/self/fd/{views}", os.O_WRONLY)
            say("Probe31", f"reopen view pipe for writing: fd {fd}")
        except OSError as exc:
            say("Probe31", f"reopen view pipe for writing: {exc.errno} {exc.strerror}")
        try:
            fd = os.dup(answers)
            say("Probe31", f"dup answers {fd}; close {os.close(fd)}")
        except OSError as exc:
            say("Probe31", f"dup answers: {exc}")
        return action
