"""Every kind of strategy misbehaviour is a failed game naming seat, strategy and error;
a game whose cards or scores do not add up is never a result; a decision has a time limit."""

import subprocess
import sys
import threading

import pytest

from cardgame import Rules
from sims.clock import ThinkTimes
from sims.match import GameSpec, play_game
from sims.results import load_results
from sims.strategy import spec

BROKEN = "tests.sims.broken:"

MISBEHAVIOURS = [  # the engine's checked path names the field and the value it refuses
    ("FaceUpText", "bad action: DrawFaceUp.slot must be a whole number, got '0'"),
    ("FaceUpFloat", "bad action: DrawFaceUp.slot must be a whole number, got 1.0"),
    ("FaceUpBool", "bad action: DrawFaceUp.slot must be a whole number, got True"),
    ("KeepNone", "bad action: KeepDestinations.ids must be a tuple of destination ids, got None"),
    ("ThreeOutOfRange", "bad action: PlaceThree.colours must be in 0..7, got 99"),
    ("ReturnsNone", "bad action: not an action: None"),
    ("ReturnsJunk", "bad action: not an action: 'draw from the deck'"),
    ("BadInit", "ValueError: no knobs for me"),
    ("Exits", "SystemExit: 3"),
    ("ClosesGenerator", "GeneratorExit: closed"),
    ("RaisesBase", "Odd: odd"),
]


def game(*names, seed=5, players=None):
    seats = tuple(spec(n) for n in names)
    return GameSpec("s", "c", "base", Rules(), players or len(seats), seats, 0, seed)


@pytest.mark.parametrize(("name", "error"), MISBEHAVIOURS)
@pytest.mark.parametrize("clock", [None, ThinkTimes()])
def test_each_misbehaviour_is_a_failed_game_naming_seat_strategy_and_error(name, error, clock):
    outcome = play_game(game("planner", BROKEN + name), clock)
    row = outcome.game
    assert row["failed"], row
    assert row["failure_seat"] == 1
    assert row["failure_strategy"] == BROKEN + name
    assert error in row["failure_error"]
    assert "\n" not in row["failure_error"]
    assert outcome.seats == [] and outcome.destinations == []


def test_keyboard_interrupt_inside_a_strategy_is_the_users_ctrl_c():
    class Interrupts(type(spec("planner").build(__import__("random").Random(0)))):
        def turn(self, view):
            raise KeyboardInterrupt

    from sims.strategy import StrategySpec

    seats = (spec("planner"), StrategySpec("interrupts", f"{__name__}:Interrupts"))
    globals()["Interrupts"] = Interrupts
    with pytest.raises(KeyboardInterrupt):
        play_game(GameSpec("s", "c", "base", Rules(), 2, seats, 0, 5), ThinkTimes())


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Cheater", "invariant broken: 102 train cards on the table, expected 96"),
        ("ScoreForger", "invariant broken: seat 1's round points do not add up"),
    ],
)
def test_a_strategy_that_reaches_the_state_and_changes_it_gets_a_failed_game(name, error):
    outcome = play_game(game("planner", BROKEN + name), ThinkTimes())
    assert outcome.game["failed"]
    assert outcome.game["failure_error"].startswith(error), outcome.game["failure_error"]
    assert outcome.game["failure_seat"] == -1  # found at the end: not blamed on a seat
    assert outcome.seats == []


def test_honest_games_pass_the_invariant_checks():
    for seed in range(6):
        for names in (("planner", "thief"), ("random", "planner", "thief", "big_city")):
            assert not play_game(game(*names, seed=seed), None).game["failed"]


def test_a_decision_that_loops_forever_is_stopped_at_the_time_limit():
    outcome = play_game(game("planner", BROKEN + "LoopsForever"), ThinkTimes(), False, 0.3)
    assert outcome.game["failed"] and outcome.game["failure_seat"] == 1
    assert outcome.game["failure_error"] == "decision took over 0.3 s"
    # the thread goes on normally afterwards: no stray exception left pending
    assert not play_game(game("planner", "thief"), ThinkTimes(), False, 0.3).game["failed"]


def test_the_time_limit_works_in_a_worker_thread_as_on_dask():
    found = {}

    def work():
        found["outcome"] = play_game(game(BROKEN + "LoopsForever", "planner"), None, False, 0.3)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert found["outcome"].game["failure_error"] == "decision took over 0.3 s"
    assert found["outcome"].game["failure_seat"] == 0


def test_a_slow_constructor_is_stopped_too():
    outcome = play_game(game("planner", BROKEN + "SlowInit"), None, False, 0.3)
    assert outcome.game["failure_error"] == "decision took over 0.3 s"


def test_time_limit_zero_is_no_limit():
    outcome = play_game(game("planner", BROKEN + "Sleepy"), None, False, 0)
    assert not outcome.game["failed"]
    outcome = play_game(game("planner", BROKEN + "Sleepy"), None, False, 0.05)
    assert outcome.game["failure_error"] == "decision took over 0.05 s"


POOL = ["FaceUpText", "KeepNone", "ReturnsNone", "BadInit", "Exits", "RaisesBase", "Cheater"]


def study_file(tmp_path, pool, limit=10):
    path = tmp_path / "broken.toml"
    names = ", ".join(f'"{BROKEN}{n}"' for n in pool)
    path.write_text(
        f'name = "broken"\nseed = 1\nplayers = [2]\npool = ["planner", {names}]\n'
        f"games_per_cell = 2\nbatch_size = 2\n[limits]\ndecision_seconds = {limit}\n"
    )
    return path


def simulate(path, out, workers):
    command = [sys.executable, "-m", "cardgame.cli", "simulate", str(path), "--no-progress"]
    command += ["--workers", str(workers), "--out", str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_study_of_misbehaving_strategies_completes_with_every_failure_in_the_games_table(
    tmp_path, workers
):
    out = tmp_path / "out"
    result = simulate(study_file(tmp_path, [*POOL, "LoopsForever"], limit=0.1), out, workers)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    games = load_results(out).games
    cells = (len(POOL) + 2) * (len(POOL) + 1) // 2
    assert len(games) == 2 * cells  # every game of every cell is a row
    failed = games[games["failed"]]
    blamed = set(failed["failure_strategy"])
    for name in POOL:
        if name != "Cheater":
            assert BROKEN + name in blamed
    errors = " ".join(failed["failure_error"])
    assert "invariant broken" in errors and "decision took over 0.1 s" in errors
    assert "SystemExit: 3" in errors
    assert not games[games["seats"] == "planner|planner"]["failed"].any()


def test_watch_with_a_misbehaving_strategy_is_one_line_exit_2(capsys):
    from cardgame.cli import main

    assert main(["watch", "--strategies", f"planner,{BROKEN}ReturnsNone"]) == 2
    err = capsys.readouterr().err
    assert "seat 1" in err and "not an action: None" in err and err.count("\n") == 1


def test_watch_stops_a_strategy_that_loops_forever(capsys):
    from cardgame.cli import main

    names = f"planner,{BROKEN}LoopsForever"
    assert main(["watch", "--strategies", names, "--decision-seconds", "0.2"]) == 2
    err = capsys.readouterr().err
    assert "seat 1" in err and "decision took over 0.2 s" in err and err.count("\n") == 1


@pytest.mark.parametrize("engine", ["python", "auto"])
def test_a_simulator_bug_in_one_game_is_a_failed_row_not_a_dead_worker(monkeypatch, engine):
    """Game by game (``play_game``) or a batch played whole on the native core."""
    import sims.batch as batch_module
    from sims.match import native_loop
    from sims.study import from_dict

    document = {"players": [2], "pool": ["planner", "random"], "games_per_cell": 2}
    study = from_dict({**document, "engine": engine})
    loop = native_loop()
    if engine == "python":

        def flaky(spec, *args):
            if spec.index == 0:
                raise RuntimeError("engine bug")
            return play_game(spec, *args)

        monkeypatch.setattr(batch_module, "play_game", flaky)
    elif loop is None:
        pytest.skip("the native core is not built")
    else:
        real, games = loop.play_native, []

        def flaky_native(*args, **kwargs):
            games.append(args)
            if len(games) == 1:
                raise RuntimeError("engine bug")
            return real(*args, **kwargs)

        monkeypatch.setattr(loop, "play_native", flaky_native)
    # a lazy plan
    result = batch_module.run_batch(next(iter(batch_module.plan_batches(study.plan))))
    games = result.tables["games"].rows()
    assert [g["failed"] for g in games] == [True, False]
    assert games[0]["failure_error"] == "internal error: RuntimeError: engine bug"
    assert len(result.failures) == 1


@pytest.mark.parametrize("engine", ["python", "auto"])
@pytest.mark.parametrize("raises", [1, 3])
def test_running_out_of_memory_is_the_machines_fault_not_the_games(
    tmp_path, monkeypatch, engine, raises
):
    """A MemoryError in a game is the machine's, not the game's: its batch is played again
    alone (the same bytes as a run that never ran short), and only a game that runs out of
    memory each time it is played alone is recorded as failed. Raises are counted in files:
    the batch is played in one worker, then each of its games alone in fresh ones."""
    import sims.batch as batch_module
    from sims.match import native_loop
    from sims.pool import OUT_OF_MEMORY
    from sims.runner import run
    from sims.study import from_dict

    document = {"players": [2], "pool": ["planner", "random"], "games_per_cell": 4}
    study = from_dict({**document, "engine": engine, "batch_size": 4})
    clean = tmp_path / "clean"
    run(study, workers=1, out=clean, progress=False)
    unlucky = int(load_results(clean).games.query("game_index == 2")["seed"].iloc[0])

    def short_of_memory(seed):
        if seed == unlucky and len(list(tmp_path.glob("raised-*"))) < raises:
            (tmp_path / f"raised-{len(list(tmp_path.glob('raised-*')))}").touch()
            raise MemoryError()

    loop = native_loop()
    if engine == "python":

        def flaky(spec, *args):
            short_of_memory(spec.seed)
            return play_game(spec, *args)

        monkeypatch.setattr(batch_module, "play_game", flaky)
    elif loop is None:
        pytest.skip("the native core is not built")
    else:
        real = loop.start

        def flaky_start(game, *args, **kwargs):
            short_of_memory(game.seed)
            return real(game, *args, **kwargs)

        monkeypatch.setattr(loop, "start", flaky_start)
    short = tmp_path / "short"
    summary = run(study, workers=1, out=short, progress=False)
    games = load_results(short).games
    assert len(list(tmp_path.glob("raised-*"))) == raises
    if raises == 1:  # played again alone: as if it never happened
        assert not games["failed"].any() and summary.failures == []
        for path in sorted(clean.rglob("*.parquet")):
            assert (short / path.relative_to(clean)).read_bytes() == path.read_bytes()
    else:  # the batch, then the game alone twice
        failed = games[games["failed"]]
        assert list(failed["game_index"]) == [2]
        assert list(failed["failure_error"]) == [OUT_OF_MEMORY]
        assert games["failed"].sum() == 1


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"decision_seconds": -1}, "limits.decision_seconds: must be a number of seconds >= 0"),
        ({"decision_seconds": "10"}, "limits.decision_seconds"),
        ({"seconds": 3}, "limits.seconds: unknown key"),
        (5, "limits: must be a table"),
    ],
)
def test_bad_time_limits_in_a_study_are_one_line(limits, message):
    from sims.errors import StudyError
    from sims.study import from_dict

    with pytest.raises(StudyError, match=message):
        from_dict({"pool": ["planner", "random"], "limits": limits})


def test_the_study_time_limit_reaches_the_batches():
    from sims.batch import plan_batches
    from sims.study import from_dict

    study = from_dict({"pool": ["planner", "random"], "limits": {"decision_seconds": 0}})
    assert study.decision_seconds == 0.0
    assert all(b.decision_seconds == 0.0 for b in plan_batches(study.plan))
    assert from_dict({"pool": ["planner", "random"]}).decision_seconds == 10.0


def _tamper_score(state):
    from dataclasses import replace

    state.scores = (replace(state.scores[0], bonus_points=99), *state.scores[1:])


TAMPERINGS = [
    (lambda s: s.hands[0].__setitem__(8, s.hands[0][8] + 6), "102 train cards on the table"),
    (lambda s: s.hands[0].__setitem__(0, 0.5), "seat 0's hand holds 0.5 of card 0"),
    (lambda s: s.discard.__setitem__(1, -1), "discard holds -1 of card 1"),
    (lambda s: s.deck.append("x"), "the deck holds 'x'"),
    (lambda s: s.yard_owner.__setitem__(0, 5), "colour 0"),
    (lambda s: s.held[0].append(s.reached[1][0] if s.reached[1] else s.held[1][0]), "both in"),
    (lambda s: s.dest_deck.pop(), "destinations do not add up"),
    (_tamper_score, "seat 0's score does not follow from its destinations"),
    (lambda s: setattr(s, "winners", (9,)), "the winners do not follow from the scores"),
    (lambda s: s.round_points[0].append(5), "seat 0's round points do not add up"),
    (lambda s: setattr(s, "hands", None), "state unreadable (TypeError"),
]


@pytest.mark.parametrize(("tamper", "message"), TAMPERINGS)
def test_every_invariant_is_checked(tamper, message):
    from cardgame import Game
    from cardgame.randomplay import play_random
    from sims.invariants import invariant_problem

    state = play_random(Game(2, 11))
    assert invariant_problem(state) is None
    tamper(state)
    assert message in invariant_problem(state)
