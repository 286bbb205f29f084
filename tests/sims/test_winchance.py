"""The play-out oracle (sims/winchance.py): positions of a record, finished or not, the
play-outs' worlds, determinism on both engines, swings against the noise."""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest

from cardgame import Rules
from cardgame.errors import RecordError
from sims._native import BUILT as TWINS_BUILT
from sims.errors import UnknownStrategyError
from sims.human import Person, play_seats
from sims.match import GameSpec, play_game
from sims.strategy import spec
from sims.winchance import (
    Chance,
    Oracle,
    _unseen_destination_count,
    _world,
    check_record,
    estimate,
    is_unfinished,
    playout_policies,
    position_seed,
    positions,
    swings,
    unfinished_record,
)


def win_chances(record: dict, playouts: int, engine: str = "auto") -> list[Chance]:
    """The chances at every position of ``record``, as the oracle gives them one by one."""
    oracle = Oracle(record, playouts, engine=engine)
    return [oracle.at(position) for position in positions(record)]


def played(names: list[str], seed: int) -> dict:
    game = GameSpec("t", "t", "base", Rules(), len(names), tuple(map(spec, names)), 0, seed)
    record = play_game(game, None, True, 0).record
    assert record is not None
    return record


@pytest.fixture(scope="module")
def duel() -> dict:
    return played(["planner", "thief"], 11)


@pytest.fixture(scope="module")
def four() -> dict:
    return played(["planner", "thief", "hoarder", "random"], 3)


def stopped_game(after_inputs: int, seed: int = 2) -> dict:
    """A 3-player game whose person (seat 1) answers "1" ``after_inputs`` times, then the
    input ends (Ctrl-D): the record of an unfinished game."""
    answers = iter(["1"] * after_inputs)

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    from cardgame import Game

    game = Game(3, seed)
    names = ["planner", "human", "thief"]
    person = Person(names, game.catalogue, read, lambda line: None)
    state, finished = play_seats(game, names, 1, person, lambda line: None)
    assert not finished
    return unfinished_record(state, names)


def test_positions_follow_the_record_turn_by_turn(four):
    found = list(positions(four))
    assert [p.index for p in found] == list(range(len(four["turns"]) + 1))
    assert found[0].turn is None and found[-1].state.is_over
    for position in found[1:]:
        assert position.turn is four["turns"][position.index - 1]
        table = position.table
        cards = sum(map(sum, table.hands)) + sum(map(sum, table.circulation))
        cards += sum(table.yard_wagons) + sum(table.yard_locos) + sum(table.discard)
        cards += table.deck_size + sum(1 for c in table.face_up if c >= 0)
        assert cards == 96  # R1, at the end of every turn
    assert {p.table.round for p in found} == {1, 2}  # a 4-player game has two rounds (R19)


def test_a_finished_game_is_its_result_with_no_noise(four):
    last = list(positions(four))[-1]
    chance, error = estimate(last.state, ["planner"] * 4, 8, "x")
    winners = four["result"]["winners"]
    assert chance == tuple(1 / len(winners) if s in winners else 0.0 for s in range(4))
    assert error == (0.0,) * 4


def test_every_position_shares_out_one_win_and_the_figures_repeat(duel):
    first = win_chances(duel, 6)
    assert len(first) == len(duel["turns"]) + 1
    for c in first:
        assert sum(c.chance) == pytest.approx(1.0)
        assert all(0 <= p <= 1 for p in c.chance) and all(e >= 0 for e in c.stderr)
    assert win_chances(duel, 6) == first
    assert position_seed(duel["seed"], 3) != position_seed(duel["seed"], 4)


@pytest.mark.skipif(not TWINS_BUILT, reason="the native core is not built here")
def test_native_and_python_engines_give_the_same_chances(four):
    assert win_chances(four, 4, engine="python") == win_chances(four, 4)


def test_a_world_redraws_only_what_nobody_has_seen(four):
    # a position after destination draws (the destination deck has a known bottom) with
    # train cards left in the deck
    for position in positions(four):
        state = position.state
        if position.turn is not None and "destinations" in position.turn and len(state.deck) > 5:
            last_draw = position.index
            world = _world(state, random.Random(1), _unseen_destination_count(state))
            break
    assert Counter(world.deck) == Counter(state.deck) and world.deck != state.deck
    assert world.hands == state.hands and world.circulation == state.circulation
    assert world.held == state.held and world.face_up == state.face_up
    assert world.reached == state.reached and world.round_points == state.round_points
    assert (world.seat, world.turn, world.phase, world.round) == (
        state.seat,
        state.turn,
        state.phase,
        state.round,
    )
    assert sorted(world.dest_deck) == sorted(state.dest_deck)
    returned = sum(
        len(t["destinations"]["drawn"]) - len(t["destinations"]["kept"])
        for t in four["turns"][:last_draw]
        if "destinations" in t
    )
    known = min(returned, len(state.dest_deck))
    assert known > 0, "the game drew no destination it put back: choose another seed"
    assert world.dest_deck[:known] == state.dest_deck[:known]  # R13: put back underneath
    unseen = _unseen_destination_count(state)
    assert len({tuple(_world(state, random.Random(s), unseen).deck) for s in range(5)}) == 5


def test_play_out_policies_are_the_recorded_built_ins_else_planner():
    names = ["thief", "ismcts", "human", "cautious"]
    assert playout_policies(names) == ["thief", "planner", "planner", "planner"]
    assert playout_policies(names, "rusher") == ["rusher"] * 4
    with pytest.raises(UnknownStrategyError, match="choose a built-in"):
        playout_policies(names, "ismcts")


def test_swings_must_pass_ten_points_and_two_standard_errors():
    def c(i, p, se):
        return Chance(i, (p, 1 - p), (se, se))

    quiet = [c(0, 0.50, 0.0), c(1, 0.58, 0.0)]  # 8 points: too small
    noisy = [c(0, 0.50, 0.06), c(1, 0.65, 0.06)]  # 15 points, noise 2 * 0.085 = 17
    clear = [c(0, 0.50, 0.02), c(1, 0.65, 0.02)]  # 15 points, noise 5.7
    assert swings(quiet) == [] and swings(noisy) == []
    found = swings(clear)
    assert [(s.index, s.seat, round(s.change, 2)) for s in found] == [(1, 0, 0.15), (1, 1, -0.15)]
    assert found[0].noise == pytest.approx(2 * (2 * 0.02**2) ** 0.5)


def test_a_diverging_record_is_refused(duel):
    bad = copy.deepcopy(duel)
    bad["result"]["scores"][0]["total"] += 1
    with pytest.raises(RecordError, match="does not replay"):
        list(positions(bad))


def test_an_unfinished_record_replays_to_where_it_stopped():
    record = stopped_game(12)
    assert is_unfinished(record) and "result" not in record and "final" not in record
    check_record(record)
    found = list(positions(record))
    assert len(found) == len(record["turns"]) + 1 and not found[-1].state.is_over
    chances = win_chances(record, 4)
    assert len(chances) == len(found) and sum(chances[-1].chance) == pytest.approx(1.0)


def test_an_unfinished_record_stopped_during_setup_has_no_position():
    record = stopped_game(0)
    assert record["turns"] == [] and len(record["setup"]["kept"]) == 1  # seat 0 kept
    assert list(positions(record)) == []


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["turns"][2].update(seat=(r["turns"][2]["seat"] + 1) % 3), "digest"),
        (lambda r: r.update(seed=r["seed"] + 1), "digest"),
        (lambda r: r.pop("digest"), "digest: missing"),
    ],
)
def test_an_edited_unfinished_record_is_refused(edit, message):
    record = stopped_game(12)
    edit(record)
    with pytest.raises(RecordError, match=message):
        list(positions(record))


def test_an_unfinished_record_whose_digest_was_redone_still_has_to_replay():
    from cardgame.record import digest_of

    record = stopped_game(12)
    record["seed"] += 1
    record["digest"] = digest_of(record)
    with pytest.raises(RecordError, match="shuffles"):
        list(positions(record))
    record = stopped_game(12)
    record["turns"][3]["step1"] = ["red"]
    record["digest"] = digest_of(record)
    with pytest.raises(RecordError, match=r"turns\[3\]"):
        list(positions(record))


# ------------------------------------------------------------------ the learned model's table


def test_the_chance_table_has_a_row_per_position_and_seat_and_ends_in_the_result(four):
    from sims.winchance import CHANCE_COLUMNS, chance_table

    table = chance_table(four)
    count = len(four["turns"]) + 1
    assert tuple(table.columns) == CHANCE_COLUMNS and len(table) == 4 * count
    assert table["position"].tolist() == [p for p in range(count) for _ in range(4)]
    assert table["seat"].tolist() == [0, 1, 2, 3] * count
    assert table["strategy"].tolist() == four["strategies"] * count
    sums = table.groupby("position")["chance"].sum()
    assert np.allclose(sums, 1.0)
    winners = four["result"]["winners"]
    last = table[table["position"] == count - 1]["chance"].tolist()
    assert last == [1 / len(winners) if s in winners else 0.0 for s in range(4)]
    assert chance_table(four).equals(table)  # a pure function of the record


@pytest.mark.skipif(not TWINS_BUILT, reason="the native core is not built")
def test_the_chance_table_is_the_quality_metrics_chances_whichever_engine_played():
    """The same game played on either engine gives the same record, the same table, and the
    chances the quality metrics compute from the standings the native core notes."""
    from sims.match import native_loop
    from sims.standing import shipped_model
    from sims.winchance import chance_table

    seats = tuple(map(spec, ["random", "planner", "big_city"]))
    game = GameSpec("t", "t", "base", Rules(), 3, seats, 0, 77)
    by_python = play_game(game, None, True, 0, "python").record
    by_native = play_game(game, None, True, 0, "native").record
    assert by_python == by_native
    table = chance_table(by_python)
    assert table.equals(chance_table(by_native))
    loop = native_loop()
    noted: list = []
    twins = [loop.twin(game, seat) for seat in range(3)]
    loop.play_native(loop.NativeState.new(game.game()), twins, None, noted)
    model = shipped_model()
    chances = model.chances_many(np.asarray(noted, dtype=float), model.terms(seats))
    expected = chances[:-1].ravel()
    assert np.array_equal(table["chance"].to_numpy()[: len(expected)], expected)


def test_the_chance_table_knows_who_plays_and_takes_a_study_s_strategies_or_strengths():
    from sims.standing import shipped_model
    from sims.strategy import StrategySpec
    from sims.winchance import chance_table

    mine = StrategySpec("my-planner", "planner", (("card_share", 0.3),))
    game = GameSpec("t", "t", "base", Rules(), 2, (mine, spec("random")), 0, 5)
    record = play_game(game, None, True, 0).record
    model = shipped_model()
    unknown = chance_table(record)  # "my-planner" is not a name the model knows: neutral
    study = chance_table(record, strategies={"my-planner": mine})  # planner's terms
    given = chance_table(record, strengths={"my-planner": 2.0})
    first = [t[t["position"] == 0]["chance"].iloc[0] for t in (unknown, study, given)]
    if model.strengths:
        assert model.known("my-planner") is None and model.known(mine) == "planner"
        assert first[0] != first[1]
    assert first[2] > first[0]
