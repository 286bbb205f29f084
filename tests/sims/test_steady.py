"""Steady decisions (``[limits] steady = true``): in a game with a strategy of one's own in
its sandbox, every decision takes its whole limit and a guest's process runs only while its
seat decides, so colluding seats cannot talk by how long they think, or by the load they
put on the machine while another decides (hostile pass 12's DelayTalk)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time

import pytest

from cardgame import Rules
from sims import guest, sandbox
from sims.batch import plan_batches
from sims.deadline import Guard
from sims.errors import StudyError
from sims.match import GameSpec, play_game
from sims.plan import Plan
from sims.strategy import StrategySpec
from sims.study import load_study

MISSING = sandbox.unavailable()
needs_sandbox = pytest.mark.skipif(MISSING is not None, reason=f"no guest sandbox: {MISSING}")


def _one_game(target: str, rival: str = "planner", **options) -> dict:
    """The record row of one game of the guest ``target`` (seat 0) against ``rival``, under
    ``--isolate``, every host closed before and after."""
    guest.close_hosts()
    seats = (StrategySpec("g", target), StrategySpec("r", rival))
    spec = GameSpec("t", "c", "base", Rules(), 2, seats, 3, 3, "process")
    try:
        return play_game(spec, **options).game
    finally:
        guest.close_hosts()


def test_a_steady_decision_waits_out_its_limit_and_one_past_it_is_over():
    guard = Guard(0.2, steady=True)
    guard.enter()
    assert guard.hold()
    assert time.monotonic() - guard.start >= 0.2
    guard.enter()
    guard.start -= 0.3  # past its limit, between two of the watchdog's ticks
    assert not guard.hold()


STUDY = "pool = ['planner', 'random']\nplayers = [2]\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "isolation = 'process'\n[limits]\ndecision_seconds = 0\nsteady = true",
            r"limits.steady: needs a decision limit \(limits.decision_seconds > 0\)",
        ),
        (
            "[limits]\nsteady = true",
            r"limits.steady: paces strategies of one\'s own in their sandboxes: needs "
            r'isolation = "process" \(--isolate\)',
        ),
        ("[limits]\nsteady = 1", "limits.steady: must be true or false: 1"),
    ],
)
def test_steady_is_refused_in_one_line_where_it_cannot_hold(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(STUDY + text + "\n")
    with pytest.raises(StudyError, match=message) as info:
        load_study(path)
    assert "bad.toml" in str(info.value) and "\n" not in str(info.value)


def test_the_plan_keeps_steady_only_when_it_is_on(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        STUDY + "isolation = 'process'\n[limits]\ndecision_seconds = 2\nsteady = true\n"
    )
    plan = load_study(path).plan
    assert plan.steady and plan.to_dict()["steady"] is True
    assert Plan.from_dict(plan.to_dict()).steady
    path.write_text(STUDY + "isolation = 'process'\n")
    plain = load_study(path).plan
    assert not plain.steady and "steady" not in plain.to_dict()
    assert not Plan.from_dict(plain.to_dict()).steady
    assert all(batch.steady for batch in plan_batches(plan))  # what each worker plays by
    assert not any(batch.steady for batch in plan_batches(plain))


@needs_sandbox
def test_a_guest_runs_only_while_its_seat_decides():
    from tests.sims.guests import Ticker

    game = _one_game("tests.sims.guests:Ticker", decision_seconds=Ticker.LIMIT, steady=True)
    error = game["failure_error"]
    assert game["failed"] and "checked: four waits" in error, error


@needs_sandbox
def test_a_guest_runs_only_while_its_seat_decides_wherever_decisions_have_a_limit():
    """Hostile pass 26s's Spin: threads of its own, busy while its rival decided, halved the
    rival's speed (autogroup or not) and its seat failed on time. A guest's process is
    stopped between its decisions wherever decisions have a limit, steady or not."""
    game = _one_game("tests.sims.guests:Ponders", "tests.sims.guests:Slow", decision_seconds=5.0)
    error = game["failure_error"]
    assert game["failed"] and "checked: four waits" in error, error


@needs_sandbox
def test_a_games_process_is_a_scheduling_group_apart_from_its_host():
    """Hostile pass 27s's Lag: threads of its own, busy when it answered, pushed back its
    host's wake-up (one session, so one autogroup), and ran on up to 0.2 s while a rival
    decided. A game's process leads a session of its own."""
    game = _one_game("tests.sims.guests:SaysItsSession", decision_seconds=5.0)
    assert "a session of its own: True" in game["failure_error"], game["failure_error"]


@needs_sandbox
def test_a_threads_name_of_any_bytes_never_ends_its_host():
    """Hostile pass 28s's BadName and Sore: a thread named with bytes that are no UTF-8 made
    the host's steady stop fail to read its state (UnicodeDecodeError): the host ended, and
    the game was voided as the machine's, one a losing seat chose."""
    game = _one_game("tests.sims.guests:NamesItsThread", decision_seconds=0.05, steady=True)
    error = game["failure_error"]
    assert game["failure_seat"] == 0 and "still playing" in error, error


def test_a_threads_state_is_read_as_bytes_and_a_thread_gone_is_stopped(tmp_path):
    """Pass 28s's ExitRace: a thread reaped between the listing and the read of its state
    gave ESRCH, which ended the host; its name may hold any bytes."""
    stat = tmp_path / "stat"
    stat.write_bytes(b"7 (\xff) x) S 1 1 1 0")
    assert guest._state(str(stat)) == b"S"
    assert guest._state(str(tmp_path / "gone")) == b"X"


def _states(pid: int) -> list[str]:
    tasks = f"/proc/{pid}/task"
    out = []
    for task in os.listdir(tasks):
        with open(f"{tasks}/{task}/stat") as stat:
            out.append(stat.read().rsplit(")", 1)[1].split()[0])
    return out


def test_a_stop_is_said_only_once_every_thread_is_stopped():
    """A thread stops on its way back from the kernel: hostile pass 14's LoadProbe kept a
    quarter of a second of ``MADV_POPULATE_WRITE`` running after the stop, loading the
    machine while the next seat decided. The host says "stopped" only once every thread is
    seen stopped (here a process in such a call, on a thread of its own)."""
    ready, told = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                  ctypes.c_int, ctypes.c_int, ctypes.c_long)  # fmt: skip
            libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            size = 1 << 30

            def fill() -> None:
                while True:
                    page = libc.mmap(None, size, 3, 0x22, -1, 0)
                    libc.madvise(page, size, 23)  # MADV_POPULATE_WRITE: long, in the kernel
                    libc.munmap(ctypes.c_void_p(page), ctypes.c_size_t(size))

            threading.Thread(target=fill, daemon=True).start()
            os.write(told, b"x")
            while True:
                pass
        finally:
            os._exit(0)
    os.read(ready, 1)
    said = []

    class Control:
        def write(self, message):
            said.append((message, _states(child)))

    game = os.pidfd_open(child)
    try:
        guest._pace(game, "stop", Control())  # type: ignore[arg-type]
        assert said and said[0][0] == {"stopped": True}
        assert all(state == "T" for state in said[0][1]), said[0][1]
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        os.close(game)
        os.close(ready)
        os.close(told)


_PIPE = os.pipe


def _small_pipe() -> tuple[int, int]:
    """A pipe of two pages, as Linux gives a user over its soft limit on pipe buffers
    (``/proc/sys/fs/pipe-user-pages-soft``): a run's pipes are the kernel's to size."""
    import fcntl

    ends = _PIPE()
    fcntl.fcntl(ends[1], 1031, 8192)  # F_SETPIPE_SZ
    return ends


@needs_sandbox
@pytest.mark.parametrize("steady", [False, True])
@pytest.mark.timeout(120)
def test_an_answer_ahead_of_its_view_fails_its_seat(steady, monkeypatch, capfd):
    """Hostile pass 30s's PreFill: answers written ahead of their views, and none read after,
    made the worker write a view for each answer it found until the pipe was full (two pages
    for a user over the kernel's soft limit; 64 KiB with a rival stalling the game), and its
    blocking write held the run for good, nobody blamed."""
    monkeypatch.setattr(os, "pipe", _small_pipe)
    capfd.readouterr()
    game = _one_game("tests.sims.guests:AnswersAhead", decision_seconds=0.3, steady=steady)
    error = game["failure_error"]
    assert game["failure_seat"] == 0 and "before it read its view" in error, error
    err = capfd.readouterr().err  # and its stderr shown (hostile pass 31s)
    assert "AnswersAhead: a line before its answers" in err, err


@pytest.mark.timeout(60)
def test_a_view_its_child_does_not_read_waits_where_the_decision_limit_lands():
    """Past what the answers-ahead check sees (a view larger than the pipe, bytes that came
    after the check): a view is written in slices, so the decision limit's raise lands and
    the seat fails on time, never holding the worker for good."""
    from types import SimpleNamespace

    from sims import deadline

    host = object.__new__(guest.Host)
    reader, host.game_in = _PIPE()
    os.set_blocking(host.game_in, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(host.game_in, b"x" * 4096)
    host.reports_fd, reports = _PIPE()
    host.reports = b""
    host.process = SimpleNamespace(poll=lambda: None)
    watch = deadline.guard(0.2)
    assert watch is not None
    watch.enter()
    try:
        with pytest.raises(deadline.DecisionTimeout):
            host.tell({"op": "decide", "view": []})
    finally:
        assert watch.leave()
        for fd in (reader, host.game_in, host.reports_fd, reports):
            os.close(fd)
