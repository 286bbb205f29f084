"""The ISMCTS search player: plugs in like any strategy, sees only what its seat may know,
and is a pure function of its seed."""

from __future__ import annotations

import random

import pytest

from cardgame import Game, Rules
from cardgame.knowledge import KnowledgeTracker, sample_world
from sims.errors import UnknownStrategyError
from sims.match import GameSpec, play_game
from sims.search.candidates import candidates
from sims.search.ismcts import SearchSettings, search
from sims.strategies.planner import Planner
from sims.strategy import StrategySpec, registered, spec


def fast_ismcts(iterations: int = 6, **knobs: object) -> StrategySpec:
    return StrategySpec("ismcts", "ismcts", (("iterations", iterations), *knobs.items()))


def table(players: int, seed: int, **knobs: object) -> GameSpec:
    seats = (fast_ismcts(**knobs), *tuple(spec("planner") for _ in range(players - 1)))
    return GameSpec("t", "t", "base", Rules(), players, seats, 0, seed)


def test_registered_with_its_knobs() -> None:
    cls = registered()["ismcts"]
    knobs = cls.Knobs()
    assert knobs.iterations > 0 and knobs.rollout == "planner" and knobs.exploration > 0


@pytest.mark.parametrize(
    "knobs",
    [{"iterations": 0}, {"rollout": "oracle"}, {"exploration": -1.0}, {"root": "best"}],
)
def test_bad_knobs_are_one_line(knobs: dict) -> None:
    bad = StrategySpec("ismcts", "ismcts", tuple(knobs.items()))
    with pytest.raises(UnknownStrategyError) as info:
        bad.check()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("root", ["halving", "uct"])
def test_plays_whole_games(players: int, root: str) -> None:
    outcome = play_game(table(players, 11 + players, root=root), decision_seconds=0)
    assert not outcome.game["failed"], outcome.game["failure_error"]
    assert len(outcome.seats) == players


def test_same_seed_same_game() -> None:
    a = play_game(table(2, 5), record=True, decision_seconds=0)
    b = play_game(table(2, 5), record=True, decision_seconds=0)
    assert a.record == b.record


def _knowledge_midgame(seed: int, moves: int):  # type: ignore[no-untyped-def]
    state = Game(2, seed).new_state()
    tracker = KnowledgeTracker(state, 0)
    policies = [Planner(random.Random(0)), Planner(random.Random(0))]
    for _ in range(moves):
        action = policies[state.seat].decide(state.view(state.seat))
        tracker.before(state, action)
        state.apply(action)
    while state.seat != 0:
        action = policies[state.seat].decide(state.view(state.seat))
        tracker.before(state, action)
        state.apply(action)
    return state, tracker


@pytest.mark.parametrize("root", ["halving", "uct"])
def test_search_depends_only_on_what_the_seat_may_know(root: str) -> None:
    """Two worlds the seat cannot tell apart give the same search, move for move."""
    state, tracker = _knowledge_midgame(3, 9)
    knowledge = tracker.knowledge(state)
    other = sample_world(knowledge, random.Random(99))  # same knowledge, other hidden cards
    assert other.hands[1] != state.hands[1] or other.deck != state.deck
    other_knowledge = tracker.knowledge(other)  # what the seat would know in that world
    assert other_knowledge == knowledge
    settings = SearchSettings(12, 0.35, "planner", 1.0, 0.5, root=root)
    first = search(knowledge, settings, random.Random(1))
    second = search(other_knowledge, settings, random.Random(1))
    assert first == second


def test_candidates_are_legal_distinct_and_start_with_the_plan() -> None:
    state, _ = _knowledge_midgame(8, 14)
    view = state.view(0)
    legal = view.legal_actions()
    options = candidates(view, legal)
    assert options[0] == Planner(random.Random(0)).decide(view)
    assert len(set(options)) == len(options)
    assert set(options) <= set(legal)


def test_human_memory_with_full_recall_plays_the_perfect_game() -> None:
    perfect = play_game(table(2, 21), record=True, decision_seconds=0)
    full = play_game(table(2, 21, memory="human", recall=1.0), record=True, decision_seconds=0)
    assert perfect.record["turns"] == full.record["turns"]


@pytest.mark.parametrize("players", [2, 4])
def test_human_memory_plays_whole_games_and_differs(players: int) -> None:
    forgetful = play_game(
        table(players, 9, memory="human", recall=0.2), record=True, decision_seconds=0
    )
    perfect = play_game(table(players, 9), record=True, decision_seconds=0)
    assert not forgetful.game["failed"], forgetful.game["failure_error"]
    assert forgetful.record["turns"] != perfect.record["turns"]


@pytest.mark.parametrize("root", ["halving", "uct"])
def test_a_time_budget_stops_the_search_early(root: str) -> None:
    """``seconds`` caps a search whose play-out budget would take far longer."""
    import time

    state, tracker = _knowledge_midgame(4, 12)
    knowledge = tracker.knowledge(state)
    settings = SearchSettings(100_000, 0.35, "planner", 1.0, 0.5, root=root, seconds=0.05)
    began = time.perf_counter()
    result = search(knowledge, settings, random.Random(2))
    assert time.perf_counter() - began < 5
    assert 1 <= result.iterations < 100_000
    assert result.action in knowledge.view.legal_actions()


def test_a_cut_off_search_plays_whole_games_and_refuses_a_negative_horizon() -> None:
    outcome = play_game(table(2, 17, horizon=6), record=True, decision_seconds=0)
    assert not outcome.game["failed"], outcome.game["failure_error"]
    again = play_game(table(2, 17, horizon=6), record=True, decision_seconds=0)
    assert outcome.record == again.record
    with pytest.raises(UnknownStrategyError, match="horizon must be >= 0"):
        StrategySpec("ismcts", "ismcts", (("horizon", -1),)).check()


def test_estimated_totals_count_reached_and_coverable_destinations() -> None:
    """A cut-off scores reached points plus held destinations the seat's circulation, yard
    and hand cover together, minus those they cannot; at the end of a game with nothing
    held, that is the destination points."""
    from sims.search.rollout import estimated_totals, reward

    state, _ = _knowledge_midgame(5, 30)
    totals = estimated_totals(state)
    assert len(totals) == 2
    points = {d.id: d.points for d in state.game.catalogue.destinations}
    for seat in range(2):
        reached = sum(points[d] for d in state.reached[seat])
        held = sum(points[d] for d in state.held[seat])
        assert reached - held <= totals[seat] <= reached + held
    state.held = [[], []]  # nothing left to cover: the estimate is what was reached
    assert estimated_totals(state) == [
        sum(points[d] for d in state.reached[seat]) for seat in range(2)
    ]
    assert 0.0 <= reward(state, 0, 0.5) <= 1.0
