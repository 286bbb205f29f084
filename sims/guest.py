"""Tournament mode: a strategy of one's own plays in a sandbox of its own (``isolation``).

In the default mode a strategy runs in the worker's process, where Python lets code reach
anything: the engine's state through ``gc`` or stack frames, the run's seeds, the modules the
engine runs on. Under ``isolation = "process"`` (``--isolate``) each strategy given as
``module:Class`` gets a *host*: a fresh interpreter (``python -I``, an empty environment, no
argument but its own module name) inside the operating-system sandbox of sims/sandbox.py.
The host is the simulator's code only: it imports, checks and plays the strategy's module in a
process forked for the purpose and confined first (limits, seccomp), one per game, so nothing
a game's code does reaches the host, a later game, or anything outside that process. The
worker never imports the module.

The game's process receives what its seat may know as JSON (the catalogue, rules and big
cities once, then a view per decision) and its RNG as a state, seeded by the run's secret key
(``match.guest_rng``: nothing in it leads back to the deal), and answers each view as JSON: a
well-formed action in its one written form (``canonical_action``), anything else as its shape
(``shape``, ``rebuilt``), which the engine's checked path then refuses exactly as in the
default mode. Nothing the guest sends is unpickled or executed. A guest that raises, answers
junk, an oversized or malformed message, passes a limit, crashes, or hangs past the decision
limit fails its own seat's game; one ended from outside its own code is the machine's
(``GuestLost``: the game is played again). After any failure its host is killed and a new one
started for the next game.

Well-behaved strategies play the same games with and without the sandbox (tests/sims/
test_sandbox.py), and in process as isolated when they do not read their RNG
(tests/sims/test_guest.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from functools import partial
from importlib import util as import_util
from pathlib import Path
from typing import Any

from cardgame import actions as A
from cardgame.cards import BigCity, Destination
from cardgame.catalogue import Catalogue
from cardgame.layout import SEAT_VIEW_FIELDS
from cardgame.observation import SeatView
from cardgame.rules import Rules

from . import sandbox
from .errors import UnknownStrategyError, describe_error
from .strategy import Strategy, StrategySpec, registered

SV_RULES = SEAT_VIEW_FIELDS.index("rules")  # the view's fields from here on: the game's

SANDBOX = True  # False only to compare a game with and without it (tests/sims/test_sandbox.py)
MAX_MESSAGE = 1 << 20  # bytes of one message either way: a view is about 1 KB, an action less
START_SECONDS = 60.0  # a host must load its module within this (a loaded machine is slow)
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PR_SET_DUMPABLE = 4


class GuestError(Exception):
    """The guest broke the protocol: died, hung up, or sent something that is not an answer."""


class SandboxUnavailable(UnknownStrategyError):
    """``--isolate`` on a machine that cannot build the sandbox: refused, never run weaker."""


class GuestLost(GuestError):
    """The guest was ended from outside its own code (its sandbox forbids it to signal, so a
    kill it did not cause is the machine's: the game is played again, sims/match.py)."""


# the signals a process's own code raises by faulting or by passing a limit: its own doing
OWN_SIGNALS = frozenset(
    int(s)
    for s in (
        signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT,
        signal.SIGSYS, signal.SIGXCPU, signal.SIGXFSZ, signal.SIGTRAP,
    )
)  # fmt: skip


# ------------------------------------------------------------------ which seats are guests
def is_guest(seat: StrategySpec) -> bool:
    """Whether a seat's strategy is a user's (played in a host under isolation).

    Decided without importing the user's module: ``module:Class`` is a user's class; a name
    is a built-in unless a user's module imported into this process registered it."""
    if ":" in seat.base:
        return True
    cls = registered().get(seat.base)
    return cls is not None and not cls.__module__.startswith("sims.")


def guest_target(seat: StrategySpec) -> str:
    """The ``module:Class`` a host imports for a guest seat."""
    if ":" in seat.base:
        return seat.base
    cls = registered()[seat.base]
    return f"{cls.__module__}:{cls.__qualname__}"


def _module_code(root: str | None, target: str) -> list[str]:
    """What the sandbox shows of the strategy's own code: its top-level module's file or
    package folder, never the folder around it (which may hold results)."""
    if root is None:
        return []
    top = target.partition(":")[0].split(".")[0]
    return [p for p in (os.path.join(root, top), os.path.join(root, top + ".py")) if
            os.path.exists(p)]  # fmt: skip


def _module_root(target: str) -> str | None:
    """The folder to put on the host's path so that it finds the module (found here without
    importing it: ``find_spec`` of a top-level module does not run its code)."""
    module = target.partition(":")[0]
    top = module.split(".")[0]
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as the in-process loader does
    try:
        found = import_util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None or found.origin in (None, "built-in", "frozen"):
        return None
    origin = Path(found.origin)
    root = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    return str(root)


# ------------------------------------------------------------------ the worker's side
class Host:
    """One host process: a strategy module loaded, forking a child per game."""

    def __init__(self, target: str, decision_seconds: float) -> None:
        self.target = target
        self.sandboxed = SANDBOX
        root = _module_root(target)
        if self.sandboxed:
            missing = sandbox.unavailable()
            if missing is not None:
                raise SandboxUnavailable(f"--isolate: {missing}")
        self.folder = tempfile.mkdtemp(prefix="cardgame-guest-")
        host = [sys.executable, "-I", "-X", "utf8", "-m", "sims.guest"]
        wrap = sandbox.command(_module_code(root, target)) if self.sandboxed else []
        self.process = subprocess.Popen(
            [*wrap, *host],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=self.folder,
            env={},
            start_new_session=True,  # Ctrl-C reaches the run, which ends its hosts itself
        )
        self.buffer = b""
        self.send(
            {
                "op": "load",
                "target": target,
                "path": [root] if root else [],
                "confine": sandbox.LIMITS.to_dict() if self.sandboxed else None,
            }
        )
        answer = self.receive(max(START_SECONDS, decision_seconds))
        if "error" in answer:
            self.close()
            error = str(answer["error"])
            if not error.startswith("cannot load strategy"):
                error = f"cannot load strategy {target!r}: {error}"
            raise UnknownStrategyError(error)

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError):
            raise GuestError("its process is gone") from None

    def receive(self, seconds: float = 0.0) -> dict[str, Any]:
        """The next message; waits at most ``seconds`` (0: as long as it takes, in slices
        short enough for the decision limit's raise to land)."""
        fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        waited = 0.0
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_MESSAGE:
                raise GuestError(f"a message over {MAX_MESSAGE} bytes")
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                waited += 0.05
                if seconds and waited > seconds:
                    raise GuestError(f"no answer within {seconds:g} s")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self.died()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > MAX_MESSAGE:
            raise GuestError(f"a message over {MAX_MESSAGE} bytes")
        try:
            message = json.loads(line, object_pairs_hook=_unique)
        except (ValueError, RecursionError):
            raise GuestError("an answer that is not JSON") from None
        if type(message) is not dict:
            raise GuestError("an answer that is not a JSON object")
        return message

    def died(self) -> GuestError:
        """What the end of the host's output means: in a sandbox, where nothing the guest
        runs may signal, a host killed by a signal that is not its own fault was ended
        from outside (``GuestLost``)."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return GuestError("its process closed its output")
        if self.sandboxed and code < 0 and -code not in OWN_SIGNALS:
            return GuestLost(f"its process was killed (signal {-code})")
        return GuestError("its process died")

    def close(self) -> None:
        """Kill the host and its game child (one process group) and remove its folder."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]
        shutil.rmtree(self.folder, ignore_errors=True)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


_hosts: dict[str, Host] = {}


def prepare(seat: StrategySpec, decision_seconds: float) -> None:
    """Start the seat's host if it is not running (outside the decision limit: starting an
    interpreter on a loaded machine is not the strategy's time)."""
    _host(guest_target(seat), decision_seconds)


def _host(target: str, decision_seconds: float) -> Host:
    found = _hosts.get(target)
    if found is None or found.process.poll() is not None:
        if found is not None:
            found.close()
        found = _hosts[target] = Host(target, decision_seconds)
    return found


def _drop(target: str) -> None:
    found = _hosts.pop(target, None)
    if found is not None:
        found.close()


def close_hosts() -> None:
    """End every host of this process (at the end of a run, and at exit)."""
    for target in list(_hosts):
        _drop(target)


if sys.platform != "emscripten":
    import atexit

    atexit.register(close_hosts)


def check_guest(seat: StrategySpec, where: str) -> None:
    """Fail before any game, in one line, when a guest's class or knobs are refused: checked
    in a host, so the run's process never imports the module."""
    target = guest_target(seat)
    try:
        host = _host(target, 0.0)
        host.send({"op": "check", "knobs": dict(seat.knobs), "label": seat.label})
        answer = host.receive(START_SECONDS)
    except GuestError as exc:
        _drop(target)
        raise UnknownStrategyError(f"{where}: strategy {seat.label!r}: its host {exc}") from None
    if "error" in answer:
        raise UnknownStrategyError(f"{where}: {answer['error']}")


class GuestStrategy(Strategy):
    """A seat's strategy played by a host's child: what the game loop calls."""

    def __init__(
        self,
        seat: StrategySpec,
        rng: random.Random,
        rules: Rules,
        catalogue: Catalogue,
        big_cities: frozenset[str],
        decision_seconds: float,
    ) -> None:
        super().__init__(rng)
        self.target = guest_target(seat)
        self.seconds = decision_seconds
        self.host: Host | None = _host(self.target, decision_seconds)
        self._ask(
            {
                "op": "game",
                "label": seat.label,
                "knobs": dict(seat.knobs),
                "rng": _rng_state(rng),
                "rules": rules.to_dict(),
                "destinations": [list(d) for d in catalogue.destinations],
                "big_cities": [list(b) for b in catalogue.big_cities],
                "deck": list(catalogue.deck),
                "big_city_set": sorted(big_cities),
            }
        )

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        host = self.host
        if host is None:
            raise GuestError("its process failed earlier in this game")
        try:
            host.send(message)
            answer = host.receive()
        except BaseException:  # a protocol fault, the decision limit, Ctrl-C: host unusable
            self.host = None
            _drop(self.target)
            raise
        if "error" in answer or "exit" in answer:
            self.host = None
            sandboxed = host.sandboxed
            _drop(self.target)  # its child is gone or in an unknown state
            if "exit" in answer:
                ended = answer["exit"]
                text = f"its process for the game ended ({ended})"
                killed = type(ended) is str and ended.startswith("signal ")
                if sandboxed and killed and _signal_number(ended) not in OWN_SIGNALS:
                    raise GuestLost(text)
                raise GuestError(text)
            raise GuestError(str(answer["error"])[:300])
        return answer

    def decide(self, view: SeatView) -> A.Action:
        # the fields that change: the rest (rules, cards) the child was given with the game
        answer = self._ask({"op": "decide", "view": list(view[:SV_RULES])})
        if "shape" in answer:  # not a well-formed action: the engine's check refuses it
            return rebuilt(answer["shape"])  # type: ignore[return-value]
        action = answer.get("action")
        if type(action) is not dict:
            raise GuestError(f"an answer without an action: {_brief(answer)}")
        return canonical_action(action)

    def finish(self) -> None:
        """The game is over: the child leaves; the host waits for the next game."""
        host, self.host = self.host, None
        if host is None:
            return
        try:
            host.send({"op": "end"})
            answers = [host.receive(START_SECONDS), host.receive(START_SECONDS)]
        except GuestError:
            _drop(self.target)
            return
        if answers[0].get("ok") is not True or "exit" not in answers[1]:
            _drop(self.target)


def canonical_action(data: dict[str, Any]) -> A.Action:
    """The action of a well-formed answer, held to its one written form (``to_dict``): a
    slot as a string or a float, an id as a bool, an extra field are all refused, never
    coerced. Anything else a guest means to answer comes as a ``shape`` (``rebuilt``)."""
    try:
        action = A.from_dict(data)
        same = _canonical(A.to_dict(action)) == _canonical(data)
    except (ValueError, TypeError) as exc:
        raise GuestError(f"a malformed action: {exc}") from None
    if not same:
        raise GuestError(f"a malformed action: {_brief(data)} is not as to_dict writes it")
    return action


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, allow_nan=True)


def _signal_number(ended: str) -> int:
    try:
        return int(ended.split()[1])
    except (IndexError, ValueError):
        return 0


# ------------------------------------------------------------------ answers' shapes
# A strategy's answer that is not a well-formed action crosses as its shape: the exact action
# class (or the name of whatever type it is) with its fields as typed values, so the worker
# rebuilds an object that the engine's checked path refuses with the message the default
# mode gives (one protocol: the same check, the same failure, tests/sims/test_sandbox.py).
ACTION_CLASSES = {
    cls.__name__: cls
    for cls in (
        A.DrawDeck, A.DrawFaceUp, A.PlaceColumn, A.PlaceThree, A.DrawDestinations,
        A.KeepDestinations, A.Pass,
    )
}  # fmt: skip
SHAPE_ITEMS = 64  # items of a tuple or list kept: the check reads the first bad one
SHAPE_DEPTH = 3
SHAPE_TEXT = 200
HUGE = 10 * A.BIG  # a whole number past the check's range stands for any larger one


def shape(value: object, depth: int = 0) -> list[Any]:
    """``value`` as typed JSON (the guest's side); never calls the value's own methods."""
    kind = type(value)
    item: Any = value
    if kind is bool or value is None:
        return ["const", value]
    if kind is int:
        return ["int", max(-HUGE, min(HUGE, item))]
    if kind is float:
        return ["float", float.__repr__(item)]
    if kind is str:
        return ["str", str.__getitem__(item, slice(SHAPE_TEXT))]
    if depth < SHAPE_DEPTH and kind in (tuple, list):
        items = list(tuple.__iter__(item) if kind is tuple else list.__iter__(item))
        return [kind.__name__, [shape(v, depth + 1) for v in items[:SHAPE_ITEMS]]]
    if depth < SHAPE_DEPTH and ACTION_CLASSES.get(kind.__name__) is kind:
        fields = list(tuple.__iter__(item))
        return ["action", kind.__name__, [shape(v, depth + 1) for v in fields]]
    return ["other", str(kind.__name__)[:SHAPE_TEXT]]


def rebuilt(data: Any, depth: int = 0) -> object:
    """The object a ``shape`` describes (the worker's side): only plain values, the exact
    action classes, and for anything else an empty object of a class of the same name."""
    if type(data) is not list or not data or depth > SHAPE_DEPTH + 1:
        raise GuestError(f"an answer of no known shape: {_brief(data)}")
    tag, *rest = data
    try:
        if tag == "const" and rest[0] in (None, True, False):
            return rest[0]
        if tag == "int" and type(rest[0]) is int and -HUGE <= rest[0] <= HUGE:
            return rest[0]
        if tag == "float" and type(rest[0]) is str:
            return float(rest[0])
        if tag == "str" and type(rest[0]) is str:
            return rest[0][:SHAPE_TEXT]
        if tag in ("tuple", "list") and type(rest[0]) is list:
            items = [rebuilt(v, depth + 1) for v in rest[0][:SHAPE_ITEMS]]
            return tuple(items) if tag == "tuple" else items
        if tag == "action" and type(rest[1]) is list:
            cls = ACTION_CLASSES[rest[0]]
            return tuple.__new__(cls, [rebuilt(v, depth + 1) for v in rest[1][:SHAPE_ITEMS]])
        if tag == "other" and type(rest[0]) is str and rest[0].isidentifier():
            return type(rest[0][:SHAPE_TEXT], (), {"__slots__": ()})()
    except (IndexError, KeyError, TypeError, ValueError):
        pass
    raise GuestError(f"an answer of no known shape: {_brief(data)}")


def finish_guests(strategies: list[Strategy]) -> None:
    for strategy in strategies:
        if type(strategy) is GuestStrategy:
            strategy.finish()


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _brief(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------------ the host's side
def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if type(value) is list else value


class _Channel:
    """The host's end of the protocol, on private copies of the standard streams: the
    guest's own prints go to stderr, its reads of stdin find nothing."""

    def __init__(self) -> None:
        self.reader = os.fdopen(os.dup(0), "rb")
        self.writer = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def read(self) -> dict[str, Any] | None:
        line = self.reader.readline(MAX_MESSAGE + 1)
        if not line:
            return None
        return json.loads(line)

    def write(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")
        self.writer.flush()


def serve() -> None:
    """The host (``python -m sims.guest``): the simulator's code only. A strategy's module is
    imported, checked and played only in a process forked for the purpose and confined
    first (sims/sandbox.py): so nothing it does reaches the host, a later game, or anything
    outside its game's process."""
    _die_with_parent()
    with contextlib.suppress(Exception):  # no one of the same user may read its memory
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.environ.clear()  # what the interpreter itself set (a coerced locale): nothing of the run
    channel = _Channel()
    load = channel.read()
    if load is None:
        return
    sys.path[:0] = [p for p in load.get("path", []) if isinstance(p, str)]
    limits = load.get("confine")
    if limits is not None:
        import pyseccomp  # noqa: F401  (loaded here: a confined child cannot open libraries)
    with contextlib.suppress(ImportError):
        import sims.strategies  # noqa: F401  (the built-ins a strategy builds on, once)
    target = str(load.get("target"))
    code, said = _in_child(channel, limits, partial(_load, target, channel))
    if code != 0:
        if not said:
            channel.write({"error": f"cannot load strategy {target!r}: its process ended"})
        return
    while True:
        message = channel.read()
        if message is None or message.get("op") == "quit":
            return
        if message.get("op") == "check":
            code, said = _in_child(channel, limits, partial(_check, target, message, channel))
            if not said:
                channel.write({"error": f"strategy {message.get('label')!r}: its process ended"})
            continue
        if message.get("op") != "game":
            channel.write({"error": f"unexpected {message.get('op')!r}"})
            continue
        play = partial(_play, target, message, channel)
        _, ended = _in_child(channel, limits, play, ended=True)
        _empty_tmp(limits)
        # always said: after a clean end the worker expects it; mid-game it is the answer
        # the worker waits for, and fails the seat's game
        channel.write({"exit": ended})


def _in_child(channel: _Channel, limits: Any, work: Any, ended: bool = False) -> Any:
    """Run ``work`` in a forked, confined child; (exit status, whether it answered), or
    with ``ended`` (status, how it ended as the worker reads it)."""
    child = os.fork()
    if child == 0:
        code = 1
        try:
            _die_with_parent()
            if limits is not None:
                from .sandbox import confine

                confine(limits)
            code = 0 if work() else 1
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    _, status, usage = os.wait4(child, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if limits is not None and _over_cpu(status, cpu, float(limits["game_cpu_seconds"])):
        how = f"over its CPU time for the game ({limits['game_cpu_seconds']} s)"
    else:
        how = _status(status)
    if ended:
        return status, how
    return status, os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _over_cpu(status: int, cpu: float, limit: float) -> bool:
    """Whether a game's process used up its CPU time: the kernel's SIGXCPU at the limit (no
    one else can send it: a game's process may signal nothing), or its SIGKILL past it for
    one that ignored SIGXCPU."""
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
        return True
    return cpu >= limit


def _empty_tmp(limits: Any) -> None:
    """Remove what a game left in the sandbox's private /tmp and /dev/shm (the next game
    finds them empty)."""
    if limits is None:
        return
    folders = []
    for root, dirs, files in itertools.chain(os.walk("/tmp"), os.walk("/dev/shm")):
        for name in list(dirs):  # a read-only bind (Python or code under /tmp) stays whole
            path = os.path.join(root, name)
            if os.path.islink(path) or os.path.ismount(path):
                dirs.remove(name)
                if os.path.islink(path):
                    files.append(name)
        for name in files:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
        folders.append(root)
    for folder in reversed(folders):  # deepest first; a bind's parents and the mounts stay
        if folder != sandbox.WORKDIR:  # the working directory stays, empty
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def _strategy(target: str) -> type[Strategy]:
    from .strategy import strategy_class

    cls = strategy_class(target)
    if getattr(cls, "remembers_game", False) is True:
        raise UnknownStrategyError(
            "a strategy that remembers the game (remembers_game) cannot "
            "be isolated yet: run it without isolation"
        )
    return cls


def _load(target: str, channel: _Channel) -> bool:
    """Whether the strategy loads (said to the worker either way)."""
    try:
        _strategy(target)
    except BaseException as exc:
        channel.write(
            {"error": str(exc) if isinstance(exc, UnknownStrategyError) else describe_error(exc)}
        )
        return True
    channel.write({"ok": True})
    return True


def _check(target: str, message: dict[str, Any], channel: _Channel) -> bool:
    from .strategy import make_knobs

    try:
        make_knobs(_strategy(target), message["knobs"], f"strategy {message['label']!r}")
        channel.write({"ok": True})
    except BaseException as exc:
        channel.write({"error": str(exc) if isinstance(exc, UnknownStrategyError) else
                       describe_error(exc)})  # fmt: skip
    return True


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"


def _play(target: str, start: dict[str, Any], channel: _Channel) -> bool:
    """One game in the forked child: build the strategy, answer views until the end."""
    from .strategy import make_knobs

    try:
        cls = _strategy(target)
        knobs = make_knobs(cls, start["knobs"], f"strategy {start['label']!r}")
        rng = random.Random()
        version, internal, gauss = start["rng"]
        rng.setstate((version, tuple(internal), gauss))
        rules = Rules.from_dict(start["rules"])
        destinations = tuple(Destination(*_tuples(d)) for d in start["destinations"])
        big = tuple(BigCity(*d) for d in start["big_cities"])
        deck = tuple(start["deck"])
        table = Catalogue(destinations, big, deck).view_table
        tail = (rules, frozenset(start["big_city_set"]), table, deck, big)
        strategy = cls(rng, knobs)
    except BaseException as exc:
        channel.write({"error": describe_error(exc)})
        return True
    channel.write({"ok": True})
    while True:
        message = channel.read()
        if message is None:
            return True
        if message.get("op") == "end":
            channel.write({"ok": True})
            return True
        fields = _tuples(message["view"])
        view = tuple.__new__(SeatView, (*fields[:3], A.Phase(fields[3]), *fields[4:], *tail))
        try:
            action = strategy.decide(view)
        except BaseException as exc:
            channel.write({"error": describe_error(exc)})
            continue
        if A.malformed(action) is None:
            channel.write({"action": A.to_dict(action)})
        else:
            try:
                found = shape(action)
            except Exception:
                found = ["other", "object"]
            channel.write({"shape": found})


if __name__ == "__main__":
    serve()
