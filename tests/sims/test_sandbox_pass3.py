"""The third hostile pass's attack classes under --isolate (benchmarks/hostile_pass3): each
game's process gets namespaces, a /tmp and a /dev/shm of its own, and a seccomp filter that
refuses whatever would outlive it or reach another sandbox, so nothing of a game survives it.

Each attack is a strategy of tests/sims/hostile3.py that fails its own game saying what it
found when its attack works: a clean game means it found nothing. Skipped, with the reason,
where the machine cannot build the sandbox (no unprivileged namespaces).
"""

from __future__ import annotations

import pytest

from cardgame import Rules
from sims import guest, sandbox
from sims.match import GameSpec, play_game
from sims.seeding import new_guest_key
from sims.strategy import StrategySpec

MISSING = sandbox.unavailable()
needs_sandbox = pytest.mark.skipif(MISSING is not None, reason=f"no guest sandbox: {MISSING}")
KEY = new_guest_key()


def _play(names: list[str], seed: int = 3):
    seats = tuple(
        StrategySpec(f"s{i}", f"tests.sims.hostile3:{n}" if n[0].isupper() else n)
        for i, n in enumerate(names)
    )
    rules = Rules()
    spec = GameSpec("t", "c", "base", rules, len(seats), seats, seed, seed, "process",
                    guest_key=KEY)  # fmt: skip
    return play_game(spec, record=False, decision_seconds=10.0)


def _clean(outcome) -> None:
    assert not outcome.game["failed"], outcome.game["failure_error"]


@pytest.fixture(autouse=True)
def _fresh_hosts():
    guest.close_hosts()
    yield
    guest.close_hosts()


# ------------------------------------------------------------------ 1: memory across games
@needs_sandbox
def test_nothing_a_game_writes_or_marks_reaches_the_next_game_of_its_host():
    """/tmp (a mode-000 folder, a path past PATH_MAX), /dev, /dev/shm, System V memory, the
    hostname, the inherited stderr's mode, times and offset, a game pipe's signal."""
    for seed in range(3):
        _clean(_play(["Memo", "planner"], seed))


@needs_sandbox
def test_a_game_cannot_steer_the_page_cache_that_every_sandbox_shares():
    """Evicting a shared file's pages (posix_fadvise) or reading ahead writes bits another
    game reads back by timing reads: refused. Reading alone still warms pages (a slower,
    one-way channel that docs/strategies.md lists among what the sandbox does not stop)."""
    _clean(_play(["CacheEvict", "planner"]))


# ------------------------------------------------------------------ 2: collusion
@needs_sandbox
def test_two_sandboxes_cannot_meet_through_locks_on_a_file_both_bind():
    for seed in range(2):
        _clean(_play(["Colluder", "Colluder", "planner"], seed))


# ------------------------------------------------------------------ 3: memory past limits
@needs_sandbox
@pytest.mark.parametrize("name", ["IpcHog", "DevHog", "InodeFlood"])
def test_a_game_cannot_hold_memory_outside_its_limits(name):
    _clean(_play([name, "planner"]))


# ------------------------------------------------------------------ 4: stalls and voids
@needs_sandbox
def test_what_a_game_leaves_costs_its_host_nothing():
    """A 1,200-deep chain of folders: a host that walked it after the game stalled past the
    decision limit or died; now the game's /tmp ends with its process."""
    for seed in range(2):
        _clean(_play(["DeepLeftover", "planner"], seed))


@needs_sandbox
def test_a_game_ended_after_leaving_a_deep_chain_is_its_own_end_at_once():
    game = _play(["DeepExit", "planner"]).game
    assert game["failed"] and game["failure_seat"] == 0, game
    assert "its process for the game ended (exit code 0)" in game["failure_error"], game


@needs_sandbox
def test_a_guest_cannot_signal_its_host_through_sigio():
    """In a process that keeps Python's SIGINT handler (the library, not the CLI)."""
    for seed in range(2):
        outcome = _play(["SigioHost", "planner"], seed)
        _clean(outcome)


# ------------------------------------------------------------------ honest strategies
@needs_sandbox
def test_an_honest_strategy_keeps_files_threads_and_numpy():
    for seed in range(2):
        _clean(_play(["Honest", "planner"], seed))


def test_the_filters_command_blocks_cover_exactly_what_is_not_allowed():
    import random

    def refused(value: int, allowed) -> bool:
        return any(value & mask == want for mask, want in sandbox._outside(allowed))

    for allowed in (sandbox.FCNTL_ALLOWED, sandbox.IOCTL_ALLOWED):
        values = [*allowed, *(a + 1 for a in allowed), *(a - 1 for a in allowed if a)]
        values += [0xFFFFFFFF, 1 << 31, *random.Random(1).sample(range(1 << 32), 2000)]
        for value in values:
            assert refused(value, allowed) is (value not in allowed), hex(value)


@needs_sandbox
def test_a_strategy_under_the_hosts_tmp_is_seen_through_each_games_new_tmp(tmp_path, monkeypatch):
    """Code (or a virtual environment) under /tmp is bound read-only into each game's new
    /tmp: the game finds it, cannot change it, and what it writes beside it is in its own
    /tmp (the host's folder is untouched), which the next game does not find."""
    assert str(tmp_path).startswith("/tmp/")
    (tmp_path / "tmpstrategy3.py").write_text(
        "import os\n"
        "from sims.strategies.planner import Planner\n"
        "class InTmp(Planner):\n"
        "    def __init__(self, rng, knobs=None):\n"
        "        super().__init__(rng, knobs)\n"
        "        assert os.path.isfile(__file__)\n"
        "        if os.path.exists('/tmp/game/mark'):\n"
        "            raise RuntimeError('breach: a mark of an earlier game')\n"
        "        open('/tmp/game/mark', 'w').close()\n"
        "        open(__file__ + '.x', 'w').close()  # in its own /tmp: not the host's folder\n"
        "        try:\n"
        "            open(__file__, 'a')\n"
        "        except OSError:\n"
        "            pass\n"
        "        else:\n"
        "            raise RuntimeError('breach: wrote into its module')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for seed in range(2):
        _clean(_play(["tmpstrategy3:InTmp", "planner"], seed))
    assert not (tmp_path / "tmpstrategy3.py.x").exists()


@needs_sandbox
def test_a_game_process_that_cannot_be_confined_is_the_machines_fault(monkeypatch, capfd):
    """It never runs the strategy, and its host ends: never the seat's failure."""
    from dataclasses import replace

    monkeypatch.setattr(sandbox, "LIMITS", replace(sandbox.LIMITS, tmp_files="many"))
    game = _play(["Honest", "planner"]).game
    assert game["failed"] and game["failure_seat"] == -1, game
    assert "fault of the machine" in game["failure_error"]
    assert "cannot confine a game" in capfd.readouterr().err


@needs_sandbox
def test_a_host_lost_during_the_check_is_not_blamed_on_the_strategy(monkeypatch):
    from dataclasses import replace

    from sims.errors import UnknownStrategyError

    monkeypatch.setattr(sandbox, "LIMITS", replace(sandbox.LIMITS, tmp_files="many"))
    seat = StrategySpec("honest", "tests.sims.hostile3:Honest")
    with pytest.raises(UnknownStrategyError) as refused:
        guest.check_guest(seat, "command line")
    text = str(refused.value)
    assert "a fault of the machine, not the strategy's" in text, text
    assert "its host its host" not in text
