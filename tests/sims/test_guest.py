"""Tournament mode: a strategy of one's own in a process of its own.

Well-behaved guests play the same games isolated or not; broken ones fail only their own
seat's game; the gc, frame, seed, module-state and import-time tricks that work in process
find nothing to work on (tests/sims/guests.py, tests/sims/guests_patch.py).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from cardgame import Rules
from sims import guest, sandbox
from sims.errors import UnknownStrategyError
from sims.match import GameSpec, play_game
from sims.strategy import StrategySpec

ROOT = Path(__file__).resolve().parents[2]
MISSING = sandbox.unavailable()  # --isolate runs its guests in it, or refuses
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"no guest sandbox: {MISSING}")


def _spec(name: str, seed: int, isolation: str, players: int = 2, knobs=()) -> GameSpec:
    base = name if name == "planner" else f"tests.sims.guests:{name}"
    seats = (StrategySpec("guest", base, knobs),) + (StrategySpec("planner", "planner"),) * (
        players - 1
    )
    return GameSpec("t", "c", "base", Rules(), players, seats, seed, seed, isolation)


def _play(name: str, seed: int, isolation: str, players: int = 2, seconds: float = 10.0):
    out = play_game(_spec(name, seed, isolation, players), record=True, decision_seconds=seconds)
    return out


def _same(a, b) -> bool:
    keys = ("game", "seats", "destinations", "record")
    return repr([getattr(a, k) for k in keys]) == repr([getattr(b, k) for k in keys])


@pytest.mark.parametrize("players", [2, 3])
def test_a_guest_plays_the_same_games_isolated_or_not(players):
    for seed in range(4):
        inside = _play("Plain", seed, "none", players)
        isolated = _play("Plain", seed, "process", players)
        assert not isolated.game["failed"], isolated.game["failure_error"]
        assert _same(inside, isolated)


def test_prints_do_not_disturb_the_protocol():
    outcome = _play("Chatty", 3, "process")
    assert not outcome.game["failed"], outcome.game["failure_error"]
    assert _same(outcome, _play("Plain", 3, "process"))


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Raises", "RuntimeError: guest blew up"),
        ("Junk", "seat 0: illegal action: bad action: not an action: 'draw a card please'"),
        ("Exits", "ended (exit code 3)"),
        ("Scribbles", ""),
        ("Floods", ""),
    ],
)
def test_a_broken_guest_fails_its_own_game_only(name, error):
    outcome = _play(name, 4, "process")
    game = outcome.game
    assert game["failed"] and game["failure_seat"] == 0 and game["failure_strategy"] == "guest"
    assert error in game["failure_error"]
    after = _play("Plain", 5, "process")  # its host was replaced: the next game is clean
    assert not after.game["failed"], after.game["failure_error"]
    assert _same(after, _play("Plain", 5, "none"))


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Short", "bad action: DrawFaceUp must have 1 field, got 0"),
        ("LongKeep", "bad action: KeepDestinations.ids must be a whole number, got 'x'"),
    ],
)
def test_a_malformed_action_is_refused_in_the_same_words_isolated_or_not(name, words):
    for isolation in ("none", "process"):
        game = _play(name, 4, isolation).game
        assert game["failed"] and game["failure_seat"] == 0
        assert words in game["failure_error"], game["failure_error"]


def test_a_hanging_guest_fails_its_game_at_the_decision_limit():
    outcome = _play("Hangs", 4, "process", seconds=0.5)
    game = outcome.game
    assert game["failed"] and game["failure_seat"] == 0
    assert "decision took over 0.5 s" in game["failure_error"]
    assert not _play("Plain", 5, "process").game["failed"]


def test_the_state_and_the_run_are_out_of_a_guests_reach():
    for name in ("FindsTheState", "LooksForTheRun"):
        inside = _play(name, 6, "none")
        assert inside.game["failed"], f"{name} should find something in process"
        isolated = _play(name, 6, "process")
        assert not isolated.game["failed"], isolated.game["failure_error"]
        assert _same(isolated, _play("Plain", 6, "process"))


def test_module_state_does_not_carry_from_game_to_game():
    for seed in range(3):
        outcome = _play("Remembers", seed, "process")
        assert not outcome.game["failed"], outcome.game["failure_error"]


CHILD = """
import json, sys
from cardgame import Rules
from sims.match import GameSpec, play_game
from sims.strategy import StrategySpec
target, isolation = sys.argv[1], sys.argv[2]
seats = (StrategySpec("guest", target), StrategySpec("planner", "planner"))
out = play_game(GameSpec("t", "c", "base", Rules(), 2, seats, 7, 7, isolation))
builtin = (StrategySpec("planner", "planner"), StrategySpec("thief", "thief"))
later = play_game(GameSpec("t", "c", "base", Rules(), 2, builtin, 8, 8))
print(json.dumps({"guest": [s["score"] for s in out.seats], "failed": out.game["failed"],
                  "builtin": [s["score"] for s in later.seats],
                  "imported": sorted(m for m in sys.modules if m.startswith("tests.sims"))}))
"""


def _child(target: str, isolation: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, target, isolation],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_import_time_patch_reaches_nothing_under_isolation():
    clean = _child("tests.sims.guests:Plain", "process")
    inside = _child("tests.sims.guests_patch:Patcher", "none")
    assert inside["failed"]  # in process the patch reached the engine (the score check saw it)
    isolated = _child("tests.sims.guests_patch:Patcher", "process")
    assert not isolated["failed"]
    assert isolated["guest"] == clean["guest"] and isolated["builtin"] == clean["builtin"]
    assert isolated["imported"] == [] and clean["imported"] == []  # never imported here


def test_a_guest_that_cannot_load_is_one_line():
    with pytest.raises(UnknownStrategyError, match="cannot load strategy 'tests.sims.nope:X'"):
        guest.check_guest(StrategySpec("x", "tests.sims.nope:X"), "study")
    with pytest.raises(UnknownStrategyError, match="has no knob 'speed'"):
        guest.check_guest(StrategySpec("x", "tests.sims.guests:Plain", (("speed", 1),)), "study")
    guest.check_guest(StrategySpec("x", "tests.sims.guests:Plain"), "study")
    guest.close_hosts()


def test_a_start_answered_before_its_host_is_heard_still_loads(monkeypatch):
    """On a busy machine the worker may read the host's "ready" only after the start's child
    has answered and ended: that answer is the start's, never left unread."""
    first = guest.Host.report

    def late(self, *args, **kwargs):
        if not hasattr(self, "heard"):
            self.heard = True  # wait for the event: the child's answer in the game pipe
            assert select.select([self.game_out], [], [], 60)[0], "the start never answered"
        return first(self, *args, **kwargs)

    monkeypatch.setattr(guest.Host, "report", late)
    host = guest.Host("tests.sims.guests:Plain", 10.0)
    host.close()


def test_a_host_runs_with_nothing_of_the_run():
    host = guest.Host("tests.sims.guests:Plain", 10.0)
    try:
        environ = Path(f"/proc/{host.process.pid}/environ").read_bytes()
        argv = Path(f"/proc/{host.process.pid}/cmdline").read_bytes().split(b"\0")
        assert environ == b""
        # its module and the numbers of its control pipes' descriptors, nothing else
        assert argv[-5:-3] == [b"-m", b"sims.guest"] and argv[-1] == b""
        assert all(n.isdigit() for n in argv[-3:-1])
        assert os.listdir(host.folder) == [] and host.folder != os.getcwd()
    finally:
        host.close()
    assert not os.path.exists(host.folder)


def _simulate(tmp_path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["cardgame", "simulate", "--strategies", "tests.sims.guests:Plain,planner",
         "--players", "2", "--games", "6", "--no-progress", "--workers", "1", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_simulate_isolate_plays_the_same_games_and_refuses_a_bad_guest_in_one_line(tmp_path):
    """An isolated run deals from seeds keyed by its secret (a guest that knows the root
    seed cannot deal its games itself); on those deals the default mode plays the very same
    games, every table equal."""
    from dataclasses import replace

    import pyarrow as pa

    from sims.batch import plan_batches, run_batch
    from sims.parts import batch_tables
    from sims.plan import Isolation
    from sims.results import load_results

    assert _simulate(tmp_path, "--isolate", "--out", str(tmp_path / "a")).returncode == 0
    assert _simulate(tmp_path, "--out", str(tmp_path / "b")).returncode == 0
    a, b = load_results(tmp_path / "a"), load_results(tmp_path / "b")
    assert a.study["isolation"] == "process" and "isolation" not in b.study
    assert not set(a.games["seed"]) & set(b.games["seed"])  # the public seeds: not dealt
    key = json.loads((tmp_path / "a" / "manifest.json").read_text())["guest_key"]
    parts: dict[str, list[pa.Table]] = {}
    for batch in plan_batches(a.plan, guest_key=key):
        assert batch.deal_key == key
        plain = replace(batch, isolation=Isolation.NONE, guest_key="")  # the same deals
        for table, arrow in batch_tables(plain.id, run_batch(plain).tables).items():
            parts.setdefault(table, []).append(arrow)
    for table in ("games", "seats", "destinations"):
        played = pa.concat_tables(parts[table]).to_pandas().astype(str)
        assert played.equals(getattr(a, table).astype(str).reset_index(drop=True)), table
    done = subprocess.run(
        ["cardgame", "simulate", "--strategies", "tests.sims.nope:X,planner", "--isolate",
         "--players", "2", "--games", "2", "--out", str(tmp_path / "c")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2 and not (tmp_path / "c").exists()
    assert done.stderr.count("cannot load strategy") == 1 and len(done.stderr.splitlines()) == 1


def test_a_run_leaves_no_host_folder_and_sweeps_those_of_killed_workers(tmp_path):
    """A pool worker leaves through multiprocessing's exit (no ``atexit``): its hosts are
    closed there, and a folder whose process is gone (a worker killed outright) is removed
    by the next process that starts a host."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = scratch / f"{guest.FOLDER_PREFIX}{gone}-abc"
    stale.mkdir()
    kept = scratch / "cardgame-guest-not-a-pid"  # not a host folder of this version
    kept.mkdir()
    for workers in ("1", "2"):
        done = subprocess.run(
            ["cardgame", "simulate", "--strategies", "tests.sims.guests:Plain,planner",
             "--players", "2", "--games", "4", "--no-progress", "--workers", workers,
             "--isolate", "--out", str(tmp_path / f"out-{workers}")],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
            env={**os.environ, "TMPDIR": str(scratch)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in scratch.iterdir()) == [kept.name], workers
