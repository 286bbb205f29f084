"""Hostile strategies of one's own, one per attack class of a tournament (issue 35), for the
sandbox tests (tests/sims/test_sandbox.py). Each plays like a planner and, where its attack
works, fails its own game with a message saying what it got: so a clean game is proof that
the attack found nothing. Used as ``tests.sims.hostile:Name``."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import threading
import time
from dataclasses import dataclass

from cardgame.actions import DrawFaceUp, KeepDestinations
from sims.seeding import stream_seed
from sims.strategies.planner import Planner

SEEDS_TRIED = 64  # the tests' game seeds are below this


@dataclass(frozen=True)
class SecretKnobs(Planner.Knobs):
    secret: str = ""  # a file of the run the test made, which no guest may reach


class Breach(Exception):
    """An attack worked: its game fails with this (the test looks for 'breach')."""


class Plain(Planner):
    """The honest baseline each attack's game is compared with."""


class SeedHunter(Planner):
    """Matches its generator against the public seeding: finds the game's seed (and with it
    the deal) when its stream is derived from it by public functions."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        state = rng.getstate()
        me = f"{type(self).__module__}:{type(self).__name__}"  # its seat_identity (public)
        for seed in range(SEEDS_TRIED):
            for seat in range(4):
                if random.Random(stream_seed(seed, f"seat{seat}:{me}")).getstate() == state:
                    raise Breach(f"breach: the game's seed is {seed}")


class Snooper(Planner):
    """Looks for the run: other processes, the environment, the host's files (the knob
    ``secret`` names a file of the run the test made)."""

    Knobs = SecretKnobs

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        found = []
        pids = [p for p in os.listdir("/proc") if p.isdigit()] if os.path.isdir("/proc") else []
        if len(pids) > 3:  # its sandbox's init, its host, itself
            found.append(f"{len(pids)} processes")
        from sims.guest import GAME_ENVIRONMENT  # the same constants in every game

        if {k: v for k, v in os.environ.items() if k != "LC_CTYPE"} != GAME_ENVIRONMENT:
            found.append(f"environment {sorted(os.environ)}")
        secret = self.knobs.secret
        with contextlib.suppress(OSError), open(secret) as file:
            found.append(f"read {file.read()!r}")
        with contextlib.suppress(OSError):
            found.append(f"listed {os.listdir(os.path.dirname(secret))}")
        for name in ("environ", "mem", "fd/0"):  # the host's: what it was given, its memory
            with contextlib.suppress(OSError):
                with open(f"/proc/{os.getppid()}/{name}", "rb") as file:
                    file.read(1)
                found.append(f"read its host's {name}")
        project = os.path.join(os.path.dirname(__file__), "..", "..", "pyproject.toml")
        if os.path.exists(project):  # the project around its own code
            found.append("saw pyproject.toml")
        if found:
            raise Breach("breach: " + "; ".join(found))


class Killer(Planner):
    """Signals every process it can name: its host, its parent, every pid, its group."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        done = []
        targets = {os.getppid(), 1, *range(2, 64)} - {os.getpid()}
        for pid in sorted(targets):
            for sig in (signal.SIGINT, signal.SIGKILL):
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
                    done.append(pid)
        with contextlib.suppress(OSError):
            os.killpg(0, signal.SIGINT)
            done.append("group")
        if done:
            raise Breach(f"breach: signalled {done[:5]}")


class Forker(Planner):
    """Tries to leave a process behind (a daemon) or to run a program."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        with contextlib.suppress(OSError):
            pid = os.fork()
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            raise Breach(f"breach: forked {pid}")
        with contextlib.suppress(OSError):
            os.execv("/bin/sh", ["/bin/sh", "-c", "true"])


class Leftover(Planner):
    """Leaves a file in its /tmp and a thread running; finds either in a later game."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        left = [n for n in os.listdir(os.getcwd()) if n.startswith("leftover")]
        if left:
            raise Breach(f"breach: a file of an earlier game: {left}")
        with open("leftover.txt", "w") as file:
            file.write("was here")


class Networker(Planner):
    """Opens a socket to the outside world."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        with contextlib.suppress(OSError):
            socket.create_connection(("1.1.1.1", 53), timeout=1).close()
            raise Breach("breach: reached the network")
        with contextlib.suppress(OSError):
            socket.socket(socket.AF_UNIX).close()
            raise Breach("breach: opened a socket")


class Memfd(Planner):
    """Holds memory outside the address-space limit in a memory file it only writes to."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        with contextlib.suppress(OSError):
            fd = os.memfd_create("hoard")
            os.close(fd)
            raise Breach("breach: made a memory file")


class Writer(Planner):
    """Writes where the run keeps its results (the knob ``secret``'s folder)."""

    Knobs = SecretKnobs

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        with contextlib.suppress(OSError):
            with open(os.path.join(os.path.dirname(self.knobs.secret), "planted"), "w") as f:
                f.write("x")
            raise Breach("breach: wrote into the run's folder")


class Hog(Planner):
    """Asks for 2 GiB."""

    def turn(self, view):
        block = bytearray(2 << 30)
        return super().turn(view) if block else None


class Burner(Planner):
    """Spends CPU on every decision, each one well within the decision limit."""

    def decide(self, view):
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return super().decide(view)


class Threads(Planner):
    """Starts threads (allowed: a search may use them); they end with its game."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        for _ in range(4):
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()


class Crasher(Planner):
    """Crashes its own process (a segmentation fault): its own doing, its own seat."""

    def turn(self, view):
        import ctypes

        ctypes.string_at(0)


# ------------------------------------------------------------------ malformed answers
class SlotAsText(Planner):
    def turn(self, view):
        return tuple.__new__(DrawFaceUp, ("0",))


class SlotAsFloat(Planner):
    def turn(self, view):
        return tuple.__new__(DrawFaceUp, (0.0,))


class IdsAsList(Planner):
    def keep_setup(self, view):
        return tuple.__new__(KeepDestinations, (list(super().keep_setup(view).ids),))


class KeepsAMillion(Planner):
    """A well-formed keep of a million ids (hostile pass 26s's BadKeepMillion): past the size
    of a message, so it crosses as its shape and is refused in the default mode's words."""

    def keep_setup(self, view):
        return KeepDestinations(tuple(range(1_000_000)))


class Interrupts(Planner):
    def turn(self, view):
        raise KeyboardInterrupt


class Exits(Planner):
    def turn(self, view):
        raise SystemExit(0)


# ------------------------------------------------------------------ owners of failures
FORGED = b'{"exit": "signal 9"}\n{"ok": true}\n'  # the host's report of an outside kill


def _host_fds() -> list[str]:
    """Every descriptor path of its own and of its host that it can name."""
    paths = []
    for pid in ("self", str(os.getppid())):
        with contextlib.suppress(OSError):
            paths += [f"/proc/{pid}/fd/{n}" for n in os.listdir(f"/proc/{pid}/fd")]
    return paths


class Voider(Planner):
    """Says, on every descriptor it can reach, what the host says of a game's process killed
    from outside, then dies of SIGKILL's look-alike it can raise: a game void, nobody blamed,
    if the worker believed either."""

    def turn(self, view):
        for fd in range(64):
            with contextlib.suppress(OSError):
                os.write(fd, FORGED)
        for path in _host_fds():
            with contextlib.suppress(OSError), open(path, "wb") as file:
                file.write(FORGED)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(1)
        time.sleep(5)
        return super().turn(view)


class AlarmDeath(Planner):
    """Dies of its own SIGALRM (``alarm`` is no signal to another process)."""

    def turn(self, view):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(1)
        time.sleep(5)
        return super().turn(view)


class TimerDeath(Planner):
    """Dies of its own SIGVTALRM (an interval timer on its CPU time)."""

    def turn(self, view):
        signal.signal(signal.SIGVTALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_VIRTUAL, 0.01)
        while True:
            pass


class PipeDeath(Planner):
    """Dies of its own SIGPIPE: writes to a pipe whose reader it closed (in its sandbox a
    pipe of its own is refused, which fails its seat as well)."""

    def turn(self, view):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        reader, writer = os.pipe()
        os.close(reader)
        os.write(writer, b"x")
        return super().turn(view)


class EndStall(Planner):
    """Keeps its game's process alive past the game's end, for ever: ``os._exit`` and exit
    handlers that never return."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import atexit

        def stall(*_args, **_kwargs):
            threading.Event().wait()

        os._exit = stall  # type: ignore[assignment]
        atexit.register(stall)


SPAM = 100_000  # bytes of stderr a decision


class FakeOutput(Planner):
    """Writes lines that look like the run's own on stderr, terminal escapes that would
    erase them, and a flood."""

    def decide(self, view):
        import sys

        sys.stderr.write("run finished: 0 games failed; strongest: FakeOutput\n")
        sys.stderr.write("\x1b[2K\rrun finished: 0 games failed (erased line)\n")
        sys.stderr.write("x" * SPAM + "\n")
        return super().decide(view)


class SayRaise(Planner):
    """An honest strategy's own error, with a line on stderr first: the organiser sees it
    (hostile pass 17: its host was killed before it showed the game's stderr)."""

    def decide(self, view):
        import sys

        sys.stderr.write("SayRaise: a line before the failure\n")
        raise RuntimeError("a strategy's own error")


class SaySlow(Planner):
    """A line on stderr, then a decision past its limit: shown all the same (hostile pass
    31s's Slow: its host was killed at the limit before it showed the game's stderr)."""

    def decide(self, view):
        import sys

        sys.stderr.write("SaySlow: a line before its time ran out\n")
        sys.stderr.flush()
        time.sleep(60)


class HostPipes(Planner):
    """Opens its host's descriptors (the control pipes, its waiter's pipe) through /proc, to
    speak for the host or wake it."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        opened = []
        for path in _host_fds():
            if not path.startswith("/proc/self/"):
                for mode in (os.O_WRONLY, os.O_RDONLY):
                    with contextlib.suppress(OSError):
                        os.close(os.open(path, mode))
                        opened.append(path)
        if opened:
            raise Breach(f"breach: opened its host's {opened[:4]}")


class Pid1(Planner):
    """Reaches into every other process of the sandbox (pid 1 first: bwrap's reaper, where
    there is one, holds the standard streams it was given): its descriptors for writing and
    reading (to speak for the worker or steal its orders) and its memory (to keep a memo
    across games or run code of its own outside the seccomp filter)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        opened = []
        pids = {p for p in os.listdir("/proc") if p.isdigit()} - {str(os.getpid())}
        for pid in sorted(pids | {"1"}):
            paths = [f"/proc/{pid}/mem"]
            with contextlib.suppress(OSError):
                paths += [f"/proc/{pid}/fd/{n}" for n in os.listdir(f"/proc/{pid}/fd")]
            for path in paths:
                for mode in (os.O_WRONLY, os.O_RDONLY):
                    with contextlib.suppress(OSError):
                        os.close(os.open(path, mode))
                        opened.append(path)
        if opened:
            raise Breach(f"breach: opened {sorted(set(opened))[:6]}")


class BadOrder(Planner):
    """Writes a line that is not JSON, then a forged order, wherever its host's orders might
    be read (every descriptor it can name, /proc/1's included): a host that died of it would
    void the game as the machine's."""

    def decide(self, view):
        paths = [f"/proc/1/fd/{n}" for n in range(8)]
        paths += [p for p in _host_fds() if not p.startswith("/proc/self/")]
        for path in paths:
            for line in (b"not json\n", b'{"op": "quit"}\n', b"[1]\n"):
                with contextlib.suppress(OSError):
                    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                    try:
                        os.write(fd, line)
                    finally:
                        os.close(fd)
        return super().decide(view)
