"""Tournament mode: a strategy of one's own plays in a sandbox of its own (``isolation``).

In the default mode a strategy runs in the worker's process, where Python lets code reach
anything: the engine's state through ``gc`` or stack frames, the run's seeds, the modules the
engine runs on. Under ``isolation = "process"`` (``--isolate``) each strategy given as
``module:Class`` gets a *host* (one per seat of a game): a fresh interpreter (``python -I``,
an empty environment, no argument but its module name and its control pipes' numbers)
inside the operating-system sandbox of sims/sandbox.py.
The host is the simulator's code only: it imports, checks and plays the strategy's module in a
process forked for the purpose and confined first (limits, seccomp), one per game, so nothing
a game's code does reaches the host, a later game, or anything outside that process. Those
processes are forked from the host's zygote (``_Zygote``), made before its first game, so none
inherits what the host learned of an earlier game. The
worker never imports the module. The host's own start is the machine's time (``START_SECONDS``);
the strategy's start after it (its import and class check, in a child) is held to the decision
limit (``start_seconds``) and to its CPU time for a start, past which its seat's game fails.

The game's process receives what its seat may know as JSON (the catalogue, rules and big
cities once, then a view per decision) and its RNG as a state, seeded by the run's secret key
(``match.guest_rng``: nothing in it leads back to the deal), and answers each view as JSON: a
well-formed action in its one written form (``canonical_action``), anything else as its shape
(``shape``, ``rebuilt``), which the engine's checked path then refuses exactly as in the
default mode. Nothing the guest sends is unpickled or executed. The game's process holds
only the game pipes; how it ended is the host's own report on pipes it never holds (``Host``).
A guest that raises, answers junk, an oversized or malformed message, passes a limit, hangs
past the decision limit, or dies in any way (a signal it raised itself included) fails its own
seat's game; only the host's own end, which nothing in the sandbox can cause, is the machine's
(``GuestLost``: the game is played again). After any failure its host is killed and a new one
started for the next game. At a game's end the host kills the game's process (no code of the
strategy runs past its last answer) and its stderr is shown bounded and marked as the
strategy's (``Host.relay_stderr``).

Well-behaved strategies play the same games with and without the sandbox (tests/sims/
test_sandbox.py), and in process as isolated when they do not read their RNG
(tests/sims/test_guest.py).
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import fcntl
import itertools
import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
from importlib import util as import_util
from pathlib import Path
from typing import Any, NoReturn

from cardgame import actions as A
from cardgame.cards import BigCity, Destination
from cardgame.catalogue import Catalogue
from cardgame.errors import one_line, terminal_rows, terminal_width
from cardgame.layout import SEAT_VIEW_FIELDS
from cardgame.observation import SeatView
from cardgame.rules import Rules

from . import runtime, sandbox
from .deadline import DecisionTimeout
from .errors import UnknownStrategyError, describe_error, unique_keys
from .strategy import Strategy, StrategySpec, registered

SV_RULES = SEAT_VIEW_FIELDS.index("rules")  # the view's fields from here on: the game's

SANDBOX = True  # False only to compare a game with and without it (tests/sims/test_sandbox.py)
MAX_MESSAGE = 1 << 20  # bytes of one message either way: a view is about 1 KB, an action less
MAX_ANSWER = MAX_MESSAGE // 2  # a well-formed action longer than this crosses as its shape
STDERR_KEEP = 4096  # bytes of a child's stderr shown per game (the rest counted, not shown)
START_SECONDS = 60.0  # a host's interpreter must start within this (a loaded machine is slow)
START_FLOOR = 10.0  # a strategy's start may take this whatever the decision limit (cold caches)
START = "its start"  # a load or check child's task: the strategy's import and class check
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PR_SET_DUMPABLE = 4
M_ARENA_MAX = -8  # mallopt's
GAME_ENVIRONMENT = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "USER": "guest",  # getpass.getuser() (there is no passwd file)
    "HOME": sandbox.WORKDIR,  # Path.home(), expanduser: its game's own folder
}


class GuestError(Exception):
    """The guest broke the protocol: died, hung up, or sent something that is not an answer."""


class SandboxUnavailable(UnknownStrategyError):
    """``--isolate`` on a machine that cannot build the sandbox: refused, never run weaker."""


class GuestLost(GuestError):
    """A guest's host was ended from outside (nothing in its sandbox may signal it, so its
    end is the machine's: the game is played again, sims/match.py)."""


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
    """One host process: a strategy module loaded, forking a child per game.

    Two channels, so that a game's code can never speak for its host: the *control* pipes
    (two descriptors passed to the host alone, never a standard stream) carry the worker's
    orders and the host's own reports of how each child ended, from its ``wait4``; the
    *game* pipes carry views and answers between the worker and the child. A child holds the
    game pipes only (the host closes the control ones in it before any of the strategy's
    code runs), so whatever it writes is an answer, checked as one, and its death, however
    caused, is reported by the host: the seat's failure. Only the host's own end (its pipes
    closing, a write refused) is the machine's (``GuestLost``): nothing in the sandbox may
    signal it."""

    def __init__(self, target: str, decision_seconds: float) -> None:
        self.target = target
        self.sandboxed = SANDBOX
        root = _module_root(target)
        if self.sandboxed:
            missing = sandbox.unavailable()
            if missing is not None:
                raise SandboxUnavailable(f"--isolate: {missing}")
        _close_at_exit()
        self.folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        wrap: list[str] = []
        self.view: runtime.View | None = None  # what its sandbox shows
        code = _module_code(root, target)
        if self.sandboxed:
            try:
                self.view = sandbox.view(code)
            except sandbox.CodeRefused as exc:
                shutil.rmtree(self.folder, ignore_errors=True)
                raise UnknownStrategyError(f"cannot load strategy {target!r}: {exc}") from None
            except (runtime.CopyUnavailable, OSError) as exc:
                shutil.rmtree(self.folder, ignore_errors=True)
                raise GuestLost(f"its sandbox's files could not be copied ({exc})") from None
            wrap = sandbox.command(self.view)
        # the bound on a game's tasks: a pids cgroup of this sandbox's own for a run as root,
        # else RLIMIT_NPROC in each game's process (``confine``)
        kind = sandbox.task_bound_kind() if self.sandboxed else None
        self.group = None
        if kind == "cgroup":
            try:
                self.group = sandbox.TaskGroup(
                    sandbox.group_limit(sandbox.LIMITS), sandbox.group_memory(sandbox.LIMITS)
                )
            except (OSError, sandbox.SandboxFault) as exc:
                shutil.rmtree(self.folder, ignore_errors=True)
                raise GuestLost(f"its sandbox's pids cgroup could not be made ({exc})") from None
            wrap = self.group.wrap(wrap)
        confine = sandbox.game_limits(sandbox.LIMITS, kind) if self.sandboxed else None
        if confine is not None:  # its own files: mounted so that none runs as machine code
            shown = {bound for _, bound in runtime.held_python_copy().binds}  # the project's
            confine["code"] = [p for p in code if p not in shown]
        game_in, self.game_in = os.pipe()  # the worker writes views, a child reads them
        os.set_blocking(self.game_in, False)  # so a view's write waits where a raise lands
        self.game_out, game_out = os.pipe()  # a child writes answers, the worker reads them
        # the control pipes are neither end's standard streams: bwrap gets /dev/null there
        # and passes other descriptors to the host only, so nothing else in the sandbox
        # holds them (sims/sandbox.py)
        orders, self.orders = os.pipe()  # the worker's orders, read by the host
        self.reports_fd, reports = os.pipe()  # the host's reports, read by the worker
        host = [sys.executable, "-I", "-X", "utf8", "-m", "sims.guest", str(orders), str(reports)]
        log = os.path.join(self.folder, "stderr")  # unlinked at once: only the fds remain
        self.log = os.open(log, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        os.unlink(log)
        try:
            self.process = subprocess.Popen(
                [*wrap, *host],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                pass_fds=(game_in, game_out, orders, reports),
                cwd=self.folder,
                env={},
                start_new_session=True,  # Ctrl-C reaches the run, which ends its hosts itself
            )
        except BaseException:
            for fd in (self.game_in, self.game_out, self.orders, self.reports_fd, self.log):
                os.close(fd)
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.group is not None:
                self.group.close()
            raise
        finally:
            for fd in (game_in, game_out, orders, reports):
                os.close(fd)
        self.buffer = b""  # of the game pipe
        self.reports = b""  # of the control pipe
        self.stopping = False  # a stop ordered, its report not read yet (``pause``)
        try:
            self.send(
                {
                    "op": "load",
                    "target": target,
                    "path": [root] if root else [],
                    "confine": confine,
                    "fds": [game_in, game_out],
                }
            )
            # the host's own start (the machine's time), then the strategy's: its import in
            # a child, held to the decision limit (``start_seconds``) and to its CPU time for
            # a start (sandbox.Limits)
            ready = self.report(START_SECONDS, late=GuestLost)  # too slow: the machine's
            if ready.get("ready") is not True:
                raise GuestError(f"did not start ({_brief(ready)})")
            answer = self.receive(start_seconds(decision_seconds), START)
            self.end()
        except GuestLost:  # ended from outside while it loaded: the machine's, as in a game
            self.close()
            raise
        except GuestError as exc:
            self.close()
            raise UnknownStrategyError(f"cannot load strategy {target!r}: its host {exc}") from None
        if "error" in answer:
            self.close()
            error = str(answer["error"])
            if not error.startswith("cannot load strategy"):
                error = f"cannot load strategy {target!r}: {error}"
            raise UnknownStrategyError(error)

    # ------------------------------------------------------------ the control pipes
    def send(self, message: dict[str, Any]) -> None:
        """An order to the host. Refused only when the host is gone (it holds the pipe's
        other end while it lives): the machine's."""
        data = json.dumps(message).encode() + b"\n"
        try:
            while data:
                data = data[os.write(self.orders, data) :]
        except OSError:
            raise self.lost() from None

    def report(self, seconds: float, late: type[GuestError] = GuestError) -> dict[str, Any]:
        """The host's next report (that it is ready, or how a child ended), within
        ``seconds`` (else ``late``); the child's stderr of that run is shown, bounded and
        marked as its own (``relay_stderr``). The game pipe is left as it is: by the time
        the host's "ready" is read, a fast start's child may have answered there."""
        fd = self.reports_fd
        waited = 0.0
        while b"\n" not in self.reports:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                self._alive()
                waited += 0.05
                if waited > seconds:
                    raise late(f"its host reported nothing within {seconds:g} s")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self.lost()
            self.reports += chunk
        self._alive()
        line, _, self.reports = self.reports.partition(b"\n")
        try:  # only the host holds its end of the pipe: still, a bad line is refused
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if type(message) is not dict:
            self.relay_stderr()
            raise GuestError(f"its host sent a malformed report: {_brief(_text(line))}")
        self.relay_stderr()
        return message

    def pause(self, wait: bool = True) -> None:
        """The child in play is stopped until its next view, so nothing of it runs while
        another seat decides: to take the processor from that seat (hostile pass 26s's
        Spin), and with ``wait`` (steady decisions) to time it or to be timed, for its host
        then says every thread is stopped before this returns (a thread in a long call runs
        to its end first). Without ``wait`` the host's word is read at the next order
        (``settle``)."""
        self.send({"op": "stop", "wait": wait})
        self.stopping = True
        if wait:
            self.settle()

    def settle(self) -> None:
        """Read the host's word on a stop ordered before (``pause``), if any."""
        if not self.stopping:
            return
        self.stopping = False
        said = self.report(START_SECONDS)
        if said.get("stopped") is not True:
            self._drain()
            raise GuestError(f"its process for the game ended ({self._how(said)})")

    def end(self) -> dict[str, Any]:
        """End the child in play (the host kills it: nothing of its code runs past what was
        asked of it, so it cannot stall the run) and read how it ended."""
        self.settle()
        self.send({"op": "end"})
        ended = self.report(START_SECONDS)
        self._drain()
        return ended

    def _how(self, ended: dict[str, Any]) -> str:
        """How the child ended, as its host said, and whether the kernel killed it for its
        sandbox's memory (``sandbox.TaskGroup``): its own use, never the machine's."""
        how = str(ended.get("exit"))
        if self.group is not None and self.group.out_of_memory():
            how += f", out of its sandbox's memory ({(self.group.memory_bytes or 0) >> 20} MiB)"
        return how

    def _alive(self) -> None:
        """Raise ``lost`` once the sandbox's own process (bwrap; the host itself without the
        sandbox) has ended, whatever its pipes say: killed from outside while the sandbox was
        being built, bwrap's child may outlive it, hung in its set-up with the pipes open, or
        serving on without the link that ends it with its worker. Only the machine ends it
        (this worker forgets a host before it kills it), so a word read after it is no
        guest's."""
        if self.process.poll() is not None:
            raise self.lost()

    def lost(self) -> GuestLost:
        """The host's end (its pipes closed, a write refused), not caused by this worker,
        which forgets a host it kills: a game's code cannot signal it, so it was ended from
        outside. Its exit status, where already known, only says how."""
        code = self.process.poll()
        how = f" ({_status_code(code)})" if code is not None else ""
        return GuestLost(f"its host process was ended from outside{how}")

    # ------------------------------------------------------------ the game pipes
    def tell(self, message: dict[str, Any]) -> None:
        """A message to the child in play, written as fast as the child reads it, in slices
        short enough for the decision limit's raise to land: the pipe's size is the
        kernel's (8 KiB for a user holding many pipes), so a child that reads no view must
        not hold the worker (hostile pass 30s's PreFill filled the pipe with views it never
        read, and the blocking write waited for good). The host holds the pipe's reading
        end while it lives, so a refused write means the host is gone; its report first
        means the child ended."""
        data = json.dumps(message).encode() + b"\n"
        while data:
            try:
                data = data[os.write(self.game_in, data) :]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise self.lost() from None
            ready, _, _ = select.select([self.reports_fd], [self.game_in], [], 0.05)
            if self.reports_fd in ready or b"\n" in self.reports:
                self._ended("the game")
            self._alive()

    def unread(self) -> int:
        """How many bytes of what was told the child in play it has not read yet."""
        count = array.array("i", [0])
        fcntl.ioctl(self.game_in, termios.FIONREAD, count)
        return count[0]

    def receive(self, seconds: float = 0.0, task: str = "the game") -> dict[str, Any]:
        """The child's next answer; waits at most ``seconds`` (0: as long as it takes, in
        slices short enough for the decision limit's raise to land). A report of the host
        first means the child ended without answering: its own failure, however it died.
        ``task``: what the child is doing, for the failure's words."""
        fd, control = self.game_out, self.reports_fd
        waited = 0.0
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_MESSAGE:
                raise GuestError(f"a message over {MAX_MESSAGE} bytes")
            ready, _, _ = select.select([fd, control], [], [], 0.05)
            if fd in ready:  # an answer written before its writer ended still counts
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self.lost()
                self.buffer += chunk
            elif ready or b"\n" in self.reports:
                self._ended(task)
            else:
                self._alive()
                waited += 0.05
                if seconds and waited > seconds:
                    raise GuestError(f"no answer within {seconds:g} s for {task}")
        self._alive()
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > MAX_MESSAGE:
            raise GuestError(f"a message over {MAX_MESSAGE} bytes")
        try:
            message = json.loads(line, object_pairs_hook=unique_keys)
        except (ValueError, RecursionError):
            raise GuestError("an answer that is not JSON") from None
        if type(message) is not dict:
            raise GuestError("an answer that is not a JSON object")
        return message

    def _ended(self, task: str) -> NoReturn:
        """The host's report that the child ended before its answer: its own failure."""
        ended = self.report(START_SECONDS)
        self._drain()
        raise GuestError(f"its process for {task} ended ({self._how(ended)})")

    def _drain(self) -> None:
        """Forget what an ended child left unread in the game pipe (its writer is gone, so
        this is all of it): nothing of one run of its code is read in the next."""
        self.buffer = b""
        while select.select([self.game_out], [], [], 0)[0]:
            if not os.read(self.game_out, 65536):
                return

    def relay_stderr(self) -> None:
        """Show what the host and its child wrote on stderr since the last report: at most
        ``STDERR_KEEP`` bytes, each line marked with the strategy's name and its control
        characters escaped, so nothing of it can pose as the run's own output."""
        size = os.fstat(self.log).st_size
        if not size:
            return
        data = os.pread(self.log, STDERR_KEEP, 0)
        os.ftruncate(self.log, 0)
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")  # only there: a carriage return is escaped, never a break
        if lines[-1] == "":
            lines.pop()
        if size > len(data):
            lines.append(f"... {size - len(data)} more bytes of its stderr not shown")
        mark = f"[guest {one_line(self.target)}] "
        width = terminal_width(sys.stderr)  # on a terminal, every row of it marked
        if width is None:
            shown = [mark + one_line(line) for line in lines]
        else:
            shown = [row for line in lines for row in terminal_rows(line, mark, mark, width)]
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write("".join(row + "\n" for row in shown))
            sys.stderr.flush()

    def close(self) -> None:
        """Kill the host and its game child (one process group) and remove its folder."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.wait(timeout=5)
        with contextlib.suppress(Exception):
            self.relay_stderr()
        for fd in (self.game_in, self.game_out, self.orders, self.reports_fd, self.log):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.folder, ignore_errors=True)
        if self.group is not None:  # whatever of the sandbox outlived bwrap, then the group
            self.group.close()


def start_seconds(decision_seconds: float) -> float:
    """The wall-clock limit of a strategy's start (its import and class check): the decision
    limit, as its import and constructor have in each game's process, but at least
    ``START_FLOOR``; ``START_SECONDS`` where decisions have none (0)."""
    return max(decision_seconds, START_FLOOR) if decision_seconds > 0 else START_SECONDS


def _status_code(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"exit code {code}"


# hosts by key: a target's first host under its own name, more (``target#n``) where one
# game seats the same module:Class more than once: a host plays one game's seat at a time
_hosts: dict[str, Host] = {}
_busy: set[str] = set()  # the keys of hosts playing a seat of the game being built or played


def _free_key(target: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """The key of the target's first host that plays no seat of the game in hand (nor is
    ``taken`` by an earlier seat's start)."""
    for slot in itertools.count():
        key = target if slot == 0 else f"{target}#{slot}"
        if key not in _busy and key not in taken:
            return key
    raise AssertionError  # unreachable


def prepare(seat: StrategySpec, decision_seconds: float, taken: set[str] | None = None) -> None:
    """Start the host the seat will play in if it is not running (outside the decision
    limit: starting an interpreter on a loaded machine is not the strategy's time).
    ``taken``: the hosts started for the game's earlier seats, to which this one's is added
    (the seats are then built in the same order, each on its own host)."""
    target = guest_target(seat)
    key = _free_key(target, taken or frozenset())
    if taken is not None:
        taken.add(key)
    _host(key, target, decision_seconds)


def _host(key: str, target: str, decision_seconds: float) -> Host:
    found = _hosts.get(key)
    if found is None or found.process.poll() is not None:
        if found is not None:
            found.close()
        found = _hosts[key] = Host(target, decision_seconds)
    return found


def _drop(key: str) -> None:
    found = _hosts.pop(key, None)
    if found is not None:
        found.close()


def close_hosts() -> None:
    """End every host of this process (at the end of a run, and at exit)."""
    for target in list(_hosts):
        _drop(target)


FOLDER_PREFIX = "cardgame-guest-"  # then the pid of the process whose host it is
_closing: list[int] = []  # the process that asked to close its hosts at its exit


def _close_at_exit() -> None:
    """Close this process's hosts when it ends, once a process: at the interpreter's exit
    (``atexit``, below) and at a pool worker's, which leaves through multiprocessing's own
    exit (``os._exit`` after its finalizers: no ``atexit``). A worker killed outright leaves
    its hosts' folders, which the next process to start a host removes."""
    if _closing and _closing[0] == os.getpid():
        return
    from multiprocessing import util

    _closing[:] = [os.getpid()]
    util.Finalize(None, close_hosts, exitpriority=0)
    util.Finalize(None, runtime.release_copies, exitpriority=-1)  # after its hosts
    _sweep_folders()


def _sweep_folders() -> None:
    """Remove hosts' folders whose process is gone (a worker killed before its exit)."""
    for folder in sandbox.left_by_gone(Path(tempfile.gettempdir()), FOLDER_PREFIX):
        shutil.rmtree(folder, ignore_errors=True)


if sys.platform != "emscripten":
    import atexit

    atexit.register(runtime.release_copies)  # runs after close_hosts (registered later)
    atexit.register(close_hosts)


def check_guest(seat: StrategySpec, where: str, decision_seconds: float = 0.0) -> None:
    """Fail before any game, in one line, when a guest's class or knobs are refused: checked
    in a host, so the run's process never imports the module. Its start, as in a game, is
    held to the decision limit (``start_seconds``; 0: none given)."""
    target = guest_target(seat)
    seconds = start_seconds(decision_seconds)
    try:
        host = _host(target, target, seconds)
        host.send({"op": "check", "knobs": dict(seat.knobs), "label": seat.label})
        answer = host.receive(seconds, START)
        host.end()
    except GuestLost as exc:  # ended from outside: the machine's, not the strategy's
        _drop(target)
        raise UnknownStrategyError(
            f"{where}: strategy {seat.label!r} could not be checked: {exc} (a fault of the "
            "machine, not the strategy's)"
        ) from None
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
        paused: bool = False,
        steady: bool = False,
    ) -> None:
        super().__init__(rng)
        # its process stopped but while its seat decides (``Host.pause``): threads of its own
        # cannot take the processor from a rival deciding near its limit (hostile pass 26s's
        # Spin halved a rival's speed, autogroup or not, and its seat failed on time)
        self.paused = paused
        self.steady = steady  # and said stopped before another seat decides
        self.target = guest_target(seat)
        self.colours = catalogue.colours  # the game's: how its actions name them
        self.seconds = decision_seconds
        self.key = _free_key(self.target)
        self.host: Host | None = _host(self.key, self.target, decision_seconds)
        start = {
            "op": "game",
            "label": seat.label,
            "knobs": dict(seat.knobs),
            "rng": _rng_state(rng),
            "rules": rules.to_dict(),
            "destinations": [list(d) for d in catalogue.destinations],
            "big_cities": [list(b) for b in catalogue.big_cities],
            "deck": list(catalogue.deck),
            "colours": list(catalogue.colours),
            "big_city_set": sorted(big_cities),
        }
        _busy.add(self.key)
        try:
            self._ask(start, Host.send)
        except BaseException:  # never a seat of the game: finish is not called
            _busy.discard(self.key)
            raise

    def _ask(self, message: dict[str, Any], how: Any = Host.tell) -> dict[str, Any]:
        """``message`` to the host (``Host.send``) or its child, and the child's answer."""
        host = self.host
        if host is None:
            raise GuestError("its process failed earlier in this game")
        try:
            if self.paused and message.get("op") == "decide":
                host.settle()
                host.send({"op": "go"})
            how(host, message)
            answer = host.receive()
            # one answer a view, after it (hostile pass 30s's PreFill)
            ahead = how is Host.tell and host.unread() > 0
            if self.paused and not ahead:
                host.pause(wait=self.steady)
        except BaseException as exc:  # a protocol fault, the decision limit, Ctrl-C
            # a game past its limit still runs: ended first, so that its stderr is shown
            self._let_go(host, end=isinstance(exc, DecisionTimeout))
            raise
        if ahead or "error" in answer:
            self._let_go(host)
            if ahead:
                raise GuestError("an answer written before it read its view")
            raise GuestError(str(answer["error"])[:300])
        return answer

    def _let_go(self, host: Host, end: bool = True) -> None:
        """Drop ``host`` for this game, its child left in an unknown state; with ``end``,
        its host ends the game first, so that the game's stderr is shown."""
        self.host = None
        try:
            if end:
                with contextlib.suppress(GuestError, OSError):
                    host.end()
        finally:
            _drop(self.key)

    def decide(self, view: SeatView) -> A.Action:
        # the fields that change: the rest (rules, cards) the child was given with the game
        answer = self._ask({"op": "decide", "view": list(view[:SV_RULES])})
        if "shape" in answer:  # not a well-formed action: the engine's check refuses it
            return rebuilt(answer["shape"])  # type: ignore[return-value]
        action = answer.get("action")
        if type(action) is not dict:
            raise GuestError(f"an answer without an action: {_brief(answer)}")
        return canonical_action(action, self.colours)

    def finish(self) -> None:
        """The game is over: its child is ended by the host, which waits for the next
        game. The game stands whatever the end says; a host that fails it is replaced."""
        host, self.host = self.host, None
        _busy.discard(self.key)
        if host is None:
            return
        try:
            host.end()
        except GuestError:
            _drop(self.key)


def canonical_action(data: dict[str, Any], colours: tuple[str, ...] = A.COLOURS) -> A.Action:
    """The action of a well-formed answer, held to its one written form (``to_dict``): a
    slot as a string or a float, an id as a bool, an extra field are all refused, never
    coerced. Anything else a guest means to answer comes as a ``shape`` (``rebuilt``)."""
    try:
        action = A.from_dict(data, colours)
        same = _canonical(A.to_dict(action, colours)) == _canonical(data)
    except (ValueError, TypeError) as exc:
        raise GuestError(f"a malformed action: {exc}") from None
    if not same:
        raise GuestError(f"a malformed action: {_brief(data)} is not as to_dict writes it")
    return action


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, allow_nan=True)


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
        return [kind.__name__, [shape(v, depth + 1) for v in _kept(items)]]
    if depth < SHAPE_DEPTH and ACTION_CLASSES.get(kind.__name__) is kind:
        fields = list(tuple.__iter__(item))
        return ["action", kind.__name__, [shape(v, depth + 1) for v in fields]]
    return ["other", str(kind.__name__)[:SHAPE_TEXT]]


def _kept(items: list[Any]) -> list[Any]:
    """The items of a long tuple or list that a ``shape`` keeps: its first ``SHAPE_ITEMS``,
    the last of them replaced by the first later item that is no whole number in the
    check's range, so the check refuses it in the words the default mode uses (it names
    the first bad item, not where it stands)."""
    if len(items) <= SHAPE_ITEMS:
        return items
    head, rest = items[: SHAPE_ITEMS - 1], items[SHAPE_ITEMS - 1 :]
    bad = next((v for v in rest if type(v) is not int or not -A.BIG <= v <= A.BIG), rest[0])
    return [*head, bad]


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


class _Control:
    """The host's end of the control pipes: descriptors the worker passed it (closed in
    every child), never its standard streams, which bwrap's own process holds too. Its own
    prints go to stderr, its reads of stdin find nothing."""

    def __init__(self, reader: int, writer: int) -> None:
        self.reader = reader
        self.writer = writer
        self.buffer = b""
        self.closed = False
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def pending(self) -> bool:
        return b"\n" in self.buffer

    def fill(self) -> None:
        chunk = os.read(self.reader, 65536)
        self.buffer += chunk
        self.closed = not chunk

    def read(self) -> dict[str, Any] | None:
        """The worker's next order; None once it is gone."""
        while not self.pending():
            if self.closed:
                return None
            self.fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            order = json.loads(line)
        except (ValueError, RecursionError):
            order = None
        if type(order) is not dict:  # refused, in one report, never a traceback
            return {"op": "malformed", "line": _brief(_text(line))}
        return order

    def write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\n"
        while data:
            data = data[os.write(self.writer, data) :]


def _text(line: bytes) -> str:
    return line[:200].decode("utf-8", "replace")


class _Channel:
    """A child's end of the game pipes: views in, answers out."""

    def __init__(self, game_in: int, game_out: int) -> None:
        self.reader = os.fdopen(game_in, "rb", closefd=False)
        self.writer = os.fdopen(game_out, "wb", closefd=False)

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
    outside its game's process. Each order (load, check, game) starts one child; the
    worker's ``end`` kills it; the host reports how it ended."""
    _die_with_parent()
    # nothing may end the host but its worker's SIGKILL: a SIGINT it ignores itself, never
    # by what its parent left it (as pid 1 of its sandbox, an ignored signal never lands)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):  # no one of the same user may read its memory
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.environ.clear()  # what the interpreter itself set (a coerced locale): nothing of the run
    # within a game's memory limit on any machine: one BLAS thread (OpenBLAS would start one,
    # with its buffer, per core), and few malloc arenas (each thread's own would reserve 64
    # MiB of it: pass 17 found 14 threads' worth in 1 GiB); the same for every game
    os.environ.update(GAME_ENVIRONMENT)
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).mallopt(M_ARENA_MAX, 2)
    try:
        control = _Control(int(sys.argv[1]), int(sys.argv[2]))
    except (IndexError, ValueError):
        sys.exit("sims.guest: usage: python -m sims.guest ORDERS_FD REPORTS_FD")
    del sys.argv[1:]  # nothing of how it was started is shown to a strategy's code
    load = control.read()
    if load is None:
        return
    if load.get("op") != "load":
        control.write(
            {"exit": f"its host refused a first order that is not a load: {_brief(load)}"}
        )
        return
    # the strategy's folder goes on the path of a game's process only, once it is confined:
    # the host never imports from it (a module named as one the host imports late)
    _CODE_PATH[:] = [p for p in load.get("path", []) if isinstance(p, str)]
    limits = load.get("confine")
    if limits is not None:
        import pyseccomp  # noqa: F401  (loaded here: a confined child cannot open libraries)
    with contextlib.suppress(ImportError):
        import sims.strategies  # noqa: F401  (the built-ins a strategy builds on, once)
    target = str(load.get("target"))
    game_in, game_out = (int(fd) for fd in load["fds"])
    zygote = _Zygote(control, target, limits, (game_in, game_out))
    control.write({"ready": True})  # the host's own start is done: the strategy's begins
    message: dict[str, Any] | None = load
    while message is not None and message.get("op") != "quit":
        op = message.get("op")
        if op in ("load", "check", "game"):
            task = "the game" if op == "game" else START
            control.write(zygote.run(control, op, message, game_in, task))
        elif op == "malformed":
            control.write({"exit": f"its host refused a malformed order {message['line']}"})
        elif op == "stop":  # its child ended before: the worker reads that end first
            control.write({"stopped": True})
        elif op not in ("end", "go"):  # an end after its child ended by itself: nothing to do
            control.write({"exit": f"unexpected {_brief(op)}"})
        message = None if control.closed else control.read()


_CODE_PATH: list[str] = []  # the strategy's folder (``serve``): put on a child's path only


def _task_limits(limits: Any, op: Any) -> Any:
    """A child's limits: a game's CPU time for the whole game, a load's or a check's its
    CPU time for a start."""
    if limits is None or op == "game":
        return limits
    return {**limits, "game_cpu_seconds": limits["start_cpu_seconds"]}


class _Zygote:
    """The process every game's process is forked from (through a leader of its own, which
    waits for it): forked from the host before its first game, it never hears of one. The
    host learns how each game ended, its stderr, its CPU time, what its worker sent and left
    unread; a game forked from the host itself would inherit all that of the games before it
    in its memory (hostile passes 11 to 13 found three such notes, each closed where it was
    read). The zygote learns only each task's kind; the descriptors of its game come by
    ``SCM_RIGHTS``; its order (its seat's start, a load's or check's knobs) is in a memory
    file it never reads; and it forks and reaps each leader without ever holding its pid or
    status (``sandbox.fork_leader``): in the sandbox the leader is pid 1 of a namespace of
    its own, so no process of a game learns a pid that earlier games' tasks moved."""

    def __init__(
        self, control: _Control, target: str, limits: Any, game_fds: tuple[int, int]
    ) -> None:
        self.target = target
        self.limits = limits
        self.socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if os.fork() == 0:  # (the zygote's own pid: the host's second process, always)
            try:
                self.socket.close()
                os.close(control.reader)
                os.close(control.writer)
                self._serve(theirs, game_fds)
            finally:
                os._exit(0)
        theirs.close()

    def _serve(self, orders: socket.socket, game_fds: tuple[int, int]) -> NoReturn:
        """The zygote's loop: a leader per task, reaped before the host hears that it is
        gone (so that a game's bound on tasks never counts the last game's leader)."""
        _die_with_parent()
        own = os.open("/proc/self/ns/pid", os.O_RDONLY) if self.limits is not None else None
        while True:
            try:
                kind, fds, _, _ = socket.recv_fds(orders, 16, 8)
            except OSError:
                os._exit(0)
            if not kind:
                os._exit(0)
            try:
                leader = sandbox.fork_leader(own)
            except sandbox.SandboxFault:  # no leader: its host hears nothing, and ends
                leader = False
            if leader:
                orders.close()
                if own is not None:
                    os.close(own)
                _lead(kind.decode(), fds, self.target, self.limits, game_fds)
            for fd in fds:
                os.close(fd)
            sandbox.reap_child()
            try:
                orders.send(b"reaped")
            except OSError:
                os._exit(0)

    def run(self, control: _Control, op: str, message: dict[str, Any], game_in: int,
            task: str) -> dict[str, Any]:  # fmt: skip
        """Play one task (a load, a check or a game) in a process of its own, until it ends
        or the worker's ``end`` (or its going) has the host kill it; the host's report of how
        it ended."""
        limits = _task_limits(self.limits, op)
        _forget(game_in)  # what the worker sent a child that ended before reading it
        # in the sandbox a child writes its stdout and stderr to a file of its own game (the
        # host's stderr is a file every game would share, with its times, mode and offset)
        log = os.memfd_create("game-stderr", os.MFD_CLOEXEC) if limits is not None else -1
        # the child's end of it is write-only: a file it could read, it could map to run
        # (pass 17's MemfdExec: code written there with pwrite, mapped read+exec)
        given = _write_only(log) if log >= 0 else -1
        order = os.memfd_create("game-order", os.MFD_CLOEXEC)
        data = json.dumps(message).encode()
        while data:
            data = data[os.write(order, data) :]
        confined, done = os.pipe()  # a byte once the child is confined, before the strategy
        ends, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sent = [order, done, theirs.fileno()] + ([given] if given >= 0 else [])
        try:
            socket.send_fds(self.socket, [op.encode()], sent)
        except OSError:  # the zygote is gone: the machine's
            sys.stderr.write("sims.guest: its zygote is gone\n")
            os._exit(70)
        finally:
            os.close(order)
            os.close(done)
            theirs.close()
            if given >= 0:
                os.close(given)
        leader, game = _started(ends)
        killed = False
        ended: tuple[int, bool] | None = None
        while ended is None:
            if not control.pending() and not control.closed:
                ready, _, _ = select.select([ends.fileno(), control.reader], [], [])
                if ends.fileno() in ready:
                    ended = _ended(ends, killed)
                    break
                control.fill()
            if control.closed or control.pending():
                asked = {"op": "end"} if control.closed else control.read()
                if asked is not None and asked.get("op") in ("stop", "go") and not killed:
                    _pace(game, asked["op"], control, asked.get("wait") is not False)
                elif asked is not None and asked.get("op") in ("end", "quit"):
                    if not killed:
                        with contextlib.suppress(ProcessLookupError):
                            signal.pidfd_send_signal(leader, signal.SIGKILL)
                        killed = True
                    if control.closed or asked.get("op") == "quit":
                        control.closed = True
                        ended = _ended(ends, killed)
        os.close(leader)
        os.close(game)
        ends.close()
        if self.socket.recv(16) != b"reaped":  # the zygote is gone: the machine's
            sys.stderr.write("sims.guest: its zygote is gone\n")
            os._exit(70)
        status, over = ended
        if log >= 0:
            _copy_stderr(log)
        ran = bool(select.select([confined], [], [], 0)[0] and os.read(confined, 1))
        os.close(confined)
        if not ran and not killed:  # the machine could not confine it: never the seat's fault
            sys.stderr.write(f"sims.guest: cannot confine a game ({_status(status)})\n")
            os._exit(70)  # the host's end: the machine's (GuestLost), the game played again
        if over:
            how = f"over its CPU time for {task} ({limits['game_cpu_seconds']} s)"
        else:
            how = _status(status)
        return {"exit": how, "by": "host" if killed else "itself"}


def _pace(game: int, op: str, control: _Control, wait: bool = True) -> None:
    """Steady decisions (``Host.pause``): stop the game's process (every thread of it; a
    game can signal nothing, so it cannot continue itself), said once every thread is seen
    stopped; or let it go on. A thread stops on its way back from the kernel, so one in a
    long call (hostile pass 14's LoadProbe: a quarter of a second of ``MADV_POPULATE_WRITE``
    after the signal) would load the machine while the next seat decides."""
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(game, signal.SIGSTOP if op == "stop" else signal.SIGCONT)
    if op == "stop":
        if wait:
            _until_stopped(game)
        control.write({"stopped": True})


def _until_stopped(game: int) -> None:
    """Wait until every thread of the process ``game`` (a pidfd) is stopped or gone: its
    pid here from the pidfd's information, each thread's state from this sandbox's /proc."""
    try:
        with open(f"/proc/self/fdinfo/{game}") as info:
            pid = next(line.split()[1] for line in info if line.startswith("Pid:"))
    except (OSError, StopIteration, IndexError):
        return
    if not pid.isdigit() or int(pid) <= 0:  # 0 or -1: gone, or not in this namespace
        return
    tasks = f"/proc/{pid}/task"
    while True:
        try:
            states = [_state(f"{tasks}/{task}/stat") for task in os.listdir(tasks)]
        except FileNotFoundError:  # the process is gone
            return
        if all(state in b"TtZX" for state in states):
            return
        time.sleep(0.0002)


def _state(path: str) -> bytes:
    """A thread's state letter from its ``stat``, read as bytes (its name, the game's to set,
    may be any bytes: hostile pass 28s's BadName named one b"\\xff" and ended the host in a
    UnicodeDecodeError); b"X" for a thread gone meanwhile (pass 28s's ExitRace: a read of a
    thread reaped after its file was opened gave ESRCH, and ended the host too)."""
    try:
        with open(path, "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0][:1]
    except (OSError, IndexError):
        return b"X"


def _started(ends: socket.socket) -> tuple[int, int]:
    """The game's leader and its process as pidfds (signalled through them, never by a pid
    that may be reused), from the leader; the host's end where it could not start them."""
    try:
        word, fds, _, _ = socket.recv_fds(ends, 256, 2)
    except OSError:
        word, fds = b"", []
    if word == b"started" and len(fds) == 2:
        return fds[0], fds[1]
    for fd in fds:
        os.close(fd)
    sys.stderr.write(f"sims.guest: cannot start a game's process ({_text(word) or 'gone'})\n")
    os._exit(70)  # the host's end: the machine's (GuestLost), the game played again


def _ended(ends: socket.socket, killed: bool) -> tuple[int, bool]:
    """The game's wait status and whether it used up its CPU time, from its leader; a kill's
    where the host killed the leader first; the host's end where something else did (only
    from outside: nothing in a game may signal it)."""
    with contextlib.suppress(OSError):
        fields = ends.recv(64).split()
        if len(fields) == 2 and all(field.isdigit() for field in fields):
            return int(fields[0]), fields[1] == b"1"
    if killed:
        return signal.SIGKILL, False
    sys.stderr.write("sims.guest: a game's leader ended without its word\n")
    os._exit(70)


def _lead(op: str, fds: list[int], target: str, limits: Any, game_fds: tuple[int, int]) -> NoReturn:
    """A task's leader, forked from the zygote (in the sandbox pid 1 of a namespace of its
    own): forks the task's process, hands its host pidfds of both, waits for it and says
    its wait status and whether it used up its CPU time. Its memory, which alone learns
    them, is no later process's."""
    ends = socket.socket(fileno=fds[2])
    try:
        _die_with_parent()
        order, done = fds[0], fds[1]
        log = fds[3] if len(fds) == 4 else -1
        limits = _task_limits(limits, op)
        works = {"load": _load, "check": _check, "game": _play}
        if op not in works or (limits is None) != (log < 0):
            raise ValueError(f"a task it does not know: {op!r}")

        def game() -> NoReturn:  # the task's process
            try:
                os.close(ends.detach())
                _die_with_parent()  # its parent, the leader, outlives it
                message = json.loads(os.pread(order, 4 * MAX_MESSAGE, 0))
                os.close(order)
                if limits is not None:
                    from .sandbox import confine

                    os.dup2(log, 1)
                    os.dup2(log, 2)
                    os.close(log)
                    try:
                        confine(limits)
                    except Exception as exc:  # said on its stderr; the host ends
                        os.write(2, f"sims.guest: cannot confine a game: {exc}\n".encode())
                        raise
                os.write(done, b"x")
                os.close(done)
                sys.path[:0] = _CODE_PATH
                works[op](target, message, _Channel(*game_fds))
            except BaseException as exc:  # past the game's own reports: said on its stderr
                with contextlib.suppress(Exception):
                    os.write(2, f"sims.guest: a game's process failed: {exc!r}\n".encode())
                os._exit(1)
            finally:
                os._exit(0)

        def started(pid: int) -> None:
            for fd in (order, done, log):
                if fd >= 0:
                    os.close(fd)
            own = os.pidfd_open(os.getpid())
            socket.send_fds(ends, [b"started"], [own, os.pidfd_open(pid)])

        cpu = float(limits["game_cpu_seconds"]) if limits is not None else None
        status, over = sandbox.lead(game, started, cpu)
        ends.send(f"{status} {int(over)}".encode())
    except BaseException as exc:
        with contextlib.suppress(Exception):
            ends.send(f"failed: {exc!r}".encode()[:200])
    finally:
        os._exit(0)


def _forget(fd: int) -> None:
    """Discard what is left in a pipe without reading it into the host's heap, which the
    next game's process inherits: the view a game left unread (hostile pass 12's ViewNote
    found its own hidden destinations there in the next game, which, paired by seatings,
    its rival then held). The kernel moves it to /dev/null; where it cannot, one buffer
    takes it and is zeroed."""
    null = os.open(os.devnull, os.O_WRONLY)
    buffer = bytearray(1 << 16)
    try:
        while select.select([fd], [], [], 0)[0]:
            try:
                moved = os.splice(fd, null, 1 << 20)
            except OSError:
                moved = os.readv(fd, [buffer])
                buffer[:] = bytes(len(buffer))
            if not moved:
                return
    finally:
        os.close(null)


def _write_only(fd: int) -> int:
    """A new write-only descriptor of the memory file ``fd`` (reopened through /proc)."""
    return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_CLOEXEC)


def _copy_stderr(log: int) -> None:
    """What a game's process wrote (at most its file-size limit) onto the host's stderr,
    which the worker shows marked as the strategy's (``Host.relay_stderr``). Never read
    into the host's memory (no game inherits it: ``_Zygote``; and none should hold it)."""
    with contextlib.suppress(OSError, ValueError):
        size = os.fstat(log).st_size
        if size:  # written from a mapping of the file: no copy of it in the host's heap
            import mmap  # (sendfile and splice refuse the host's stderr, opened to append)

            with mmap.mmap(log, size, prot=mmap.PROT_READ) as mapped:
                view, offset = memoryview(mapped), 0
                try:
                    while offset < size:
                        offset += os.write(2, view[offset:])
                finally:
                    view.release()
    os.close(log)


def _strategy(target: str) -> type[Strategy]:
    from .strategy import strategy_class

    cls = strategy_class(target)
    if getattr(cls, "remembers_game", False) is True:
        raise UnknownStrategyError(
            "a strategy that remembers the game (remembers_game) cannot "
            "be isolated yet: run it without isolation"
        )
    return cls


def _load(target: str, message: dict[str, Any], channel: _Channel) -> None:
    """Whether the strategy loads (said to the worker either way)."""
    try:
        _strategy(target)
    except BaseException as exc:
        channel.write(
            {"error": str(exc) if isinstance(exc, UnknownStrategyError) else describe_error(exc)}
        )
        return
    channel.write({"ok": True})


def _check(target: str, message: dict[str, Any], channel: _Channel) -> None:
    from .strategy import make_knobs

    try:
        make_knobs(_strategy(target), message["knobs"], f"strategy {message['label']!r}")
        channel.write({"ok": True})
    except BaseException as exc:
        channel.write({"error": str(exc) if isinstance(exc, UnknownStrategyError) else
                       describe_error(exc)})  # fmt: skip


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"


def _play(target: str, start: dict[str, Any], channel: _Channel) -> None:
    """One game in the forked child: build the strategy, answer views until the host ends
    it (nothing of the strategy's runs after the game: its end is the host's kill)."""
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
        colours = tuple(start["colours"])
        table = Catalogue(destinations, big, deck, colours=colours).view_table
        tail = (rules, frozenset(start["big_city_set"]), table, deck, big)
        strategy = cls(rng, knobs)
    except BaseException as exc:
        channel.write({"error": describe_error(exc)})
        return
    channel.write({"ok": True})
    while True:
        message = channel.read()
        if message is None:
            return
        fields = _tuples(message["view"])
        view = tuple.__new__(SeatView, (*fields[:3], A.Phase(fields[3]), *fields[4:], *tail))
        try:
            action = strategy.decide(view)
        except BaseException as exc:
            channel.write({"error": describe_error(exc)})
            continue
        answer = None
        if A.malformed(action, len(colours)) is None:
            answer = {"action": A.to_dict(action, colours)}
        if answer is not None and len(json.dumps(answer)) <= MAX_ANSWER:
            channel.write(answer)
        else:  # too long to be a message (a keep of a million ids: never legal) goes as its shape
            try:
                found = shape(action)
            except Exception:
                found = ["other", "object"]
            channel.write({"shape": found})


if __name__ == "__main__":
    serve()
