"""Strategies of one's own for the isolation tests (tests/sims/test_guest.py): well-behaved,
broken, and cheating ones. Used as ``tests.sims.guests:Name``."""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import sys
import time

from cardgame import GameState
from sims.strategies.planner import Planner

games_built = 0


class Plain(Planner):
    """A planner of one's own: isolated or not, the same games."""


class Chatty(Planner):
    """Prints on every decision: the protocol must not notice."""

    def decide(self, view):
        print("thinking about", view)
        sys.stdout.write("{not json\n")
        return super().decide(view)


class Raises(Planner):
    def turn(self, view):
        raise RuntimeError("guest blew up")


class Junk(Planner):
    def turn(self, view):
        return "draw a card please"


class Short(Planner):
    """An exact action class with too few fields (``tuple.__new__``): refused with the same
    words in process and isolated (hostile pass 14: its guest's process died reading it)."""

    def turn(self, view):
        from cardgame import actions as A

        return tuple.__new__(A.DrawFaceUp, ())


class LongKeep(Planner):
    """A keep of 64 whole numbers and then a word: past what a shape keeps of a tuple, and
    refused in the same words isolated or not (hostile pass 14's protocol.sh)."""

    def keep_setup(self, view):
        from cardgame import actions as A

        return A.KeepDestinations((*range(1, 65), "x"))


class Hangs(Planner):
    def turn(self, view):
        while True:
            time.sleep(0.01)


class Exits(Planner):
    def turn(self, view):
        os._exit(3)


def _other_fds() -> list[int]:
    """Its open descriptors past the standard three, found without /proc (a sandboxed game
    has none)."""
    return [fd for fd in range(3, 1024) if _is_open(fd)]


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


class Scribbles(Planner):
    """Finds the protocol's descriptors and writes junk on all of them."""

    def turn(self, view):
        for fd in _other_fds():
            with contextlib.suppress(OSError):
                os.write(fd, b'{"action": {"type": "pass"}, "x": 1}\n{"action": 7}\n')
        return super().turn(view)


class Floods(Planner):
    """Writes an endless message, no newline, on every descriptor it finds."""

    def turn(self, view):
        for fd in _other_fds():
            try:
                with contextlib.suppress(OSError):  # the sandbox refuses it: a blocking write
                    os.set_blocking(fd, False)
                os.write(fd, b"[" * (3 << 20))
            except OSError:
                pass
        return super().turn(view)


class FindsTheState(Planner):
    """The gc and frame tricks: fails its game if it can see any game state at all."""

    def decide(self, view):
        if any(isinstance(o, GameState) for o in gc.get_objects()):
            raise RuntimeError("found a GameState through gc")
        frame = sys._getframe()
        while frame is not None:
            if any(isinstance(v, GameState) for v in frame.f_locals.values()):
                raise RuntimeError("found a GameState in a frame")
            frame = frame.f_back
        return super().decide(view)


class LooksForTheRun(Planner):
    """The seed trick: fails its game if it can see the run's environment, arguments,
    working directory contents or seeds."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        clues = []
        from sims.guest import GAME_ENVIRONMENT  # the same constants in every game

        if dict(os.environ) != GAME_ENVIRONMENT:
            clues.append(f"environment {sorted(os.environ)[:3]}")
        if sys.argv[1:] or "cardgame" in " ".join(sys.argv) or "pytest" in " ".join(sys.argv):
            clues.append(f"argv {sys.argv}")
        if os.listdir("."):
            clues.append("a working directory with files")
        if clues:
            raise RuntimeError("; ".join(clues))


class Remembers(Planner):
    """Counts its games in module state and plays differently once it has seen one."""

    def __init__(self, rng, knobs=None):
        global games_built
        super().__init__(rng, knobs)
        games_built += 1
        if games_built > 1:
            raise RuntimeError(f"module state from an earlier game: {games_built}")


class Ticker(Planner):
    """Steady decisions: a thread of its own stamps the time every millisecond. Between its
    answer and its next view its process must have been stopped a while (no stamp over a
    quarter of the test's limit, ``LIMIT``: the rest of its own decision's, then the other
    seat's), so nothing of it ran while the other seat decided; after four checks it ends
    its game on purpose, saying so."""

    LIMIT = 0.5  # the test's decision limit

    def __init__(self, rng, knobs=None):
        import threading

        super().__init__(rng, knobs)
        self.stamps: list[float] = []
        self.answered: float | None = None
        self.checked = 0
        threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        while True:
            self.stamps.append(time.monotonic())
            time.sleep(0.001)

    def long_enough(self, pause: float, waited: float) -> bool:
        """Whether its longest pause between its answer and its next view shows it stopped."""
        return pause >= self.LIMIT / 4

    def decide(self, view):
        now = time.monotonic()
        if self.answered is not None:
            since = [t for t in self.stamps if self.answered < t < now]
            edges = [self.answered, *since, now]
            pause = max(b - a for a, b in itertools.pairwise(edges))
            if not self.long_enough(pause, now - self.answered):
                raise RuntimeError(
                    f"breach: it ran while its seat waited ({len(since)} stamps in "
                    f"{now - self.answered:.3f} s, the longest pause {pause:.3f} s)"
                )
            self.checked += 1
            if self.checked == 4:
                raise RuntimeError("checked: four waits, each with its process stopped")
        self.stamps.clear()
        action = super().decide(view)
        self.answered = time.monotonic()
        return action


class Ponders(Ticker):
    """``Ticker`` without steady decisions (pondering between its turns): wherever decisions
    have a limit, its process must have been stopped for most of the time between its
    answer and its next view, which the rival (``Slow``) makes half a second at least: far
    past what its threads may run on after an answer on a loaded machine (about 0.1 s), for
    without steady decisions the next seat does not wait for the stop to land."""

    def long_enough(self, pause: float, waited: float) -> bool:
        return pause >= waited / 2


class Slow(Planner):
    """The planner, half a second a decision."""

    def decide(self, view):
        time.sleep(0.5)
        return super().decide(view)


class MapsItsCode(Planner):
    """Reads its own module through a mapping, shared (refused in the sandbox: a page every
    process mapping the file shares) and private (works everywhere), and ends its game on
    purpose, saying which worked."""

    def __init__(self, rng, knobs=None):
        import mmap

        super().__init__(rng, knobs)
        found = []
        with open(__file__, "rb") as file:
            for access in ("ACCESS_READ", "ACCESS_COPY"):
                try:
                    with mmap.mmap(file.fileno(), 0, access=getattr(mmap, access)) as mapped:
                        same = mapped[:12] == b'"""Strategie'
                        found.append(f"{access} {same}")
                except OSError as exc:
                    found.append(f"{access} {type(exc).__name__}")
        raise RuntimeError("mapped: " + ", ".join(found))


class SaysItsSession(Planner):
    """Ends its game on purpose, saying whether its process leads a session of its own."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        raise RuntimeError(f"a session of its own: {os.getsid(0) == os.getpid()}")


class NamesItsThread(Planner):
    """Names its thread with bytes that are no UTF-8 at its first decision, then plays on;
    at its fourth it ends its game on purpose, saying it still plays (its host lived)."""

    def decide(self, view):
        import ctypes

        self.decided = getattr(self, "decided", 0) + 1
        if self.decided == 1:
            name = ctypes.create_string_buffer(b"\xff\xfe", 16)
            ctypes.CDLL(None).prctl(15, name, 0, 0, 0)  # PR_SET_NAME
        if self.decided == 4:
            raise RuntimeError("still playing after naming its thread")
        return super().decide(view)


def _game_pipe(mode: int) -> int:
    """The game's answer pipe (``mode`` ``os.O_WRONLY``) or view pipe (``os.O_RDONLY``)."""
    import fcntl
    import stat

    for fd in range(3, 64):
        with contextlib.suppress(OSError):
            fifo = stat.S_ISFIFO(os.fstat(fd).st_mode)
            if fifo and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == mode:
                return fd
    raise RuntimeError("no game pipe")


def _answer(fd: int, action) -> None:
    import json

    from cardgame import actions as A

    data = json.dumps({"action": A.to_dict(action)}).encode() + b"\n"
    while data:
        data = data[os.write(fd, data) :]


class AnswersAhead(Planner):
    """Hostile pass 30s's PreFill: at its first decision it writes its answer and 60 more
    ahead of their views, and never reads a view again, so that the worker, one view for each
    answer it finds, fills the pipe."""

    def decide(self, view):
        action = super().decide(view)
        sys.stderr.write("AnswersAhead: a line before its answers\n")
        sys.stderr.flush()
        fd = _game_pipe(os.O_WRONLY)
        _answer(fd, action)
        for _ in range(60):
            os.write(fd, b'{"action": {"type": "draw_deck"}}\n')
        while True:
            time.sleep(1)
