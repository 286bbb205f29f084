"""The built-in strategies in C (sims/_native) decide what the Python ones decide, at every
decision: same views in, same actions out, over mixed line-ups, player counts, rule variants
and knob values. Skipped where the extension is not built, except in CI
(REQUIRE_NATIVE=1), where a missing build fails."""

from __future__ import annotations

import dataclasses
import os
import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Catalogue, Game, IllegalActionError, Rules, default_catalogue
from sims import _native
from sims.match import MAX_TURNS
from sims.search.player import Ismcts
from sims.strategies.builders import Hoarder, Rusher
from sims.strategies.common import Scripted
from sims.strategies.planner import Planner, Thief
from sims.strategies.random_play import RandomStrategy
from sims.strategies.tickets import BigCity, TicketHunter
from sims.strategy import Strategy

NOT_BUILT = (
    "the native strategies are not built here, so there is nothing to compare "
    f"({_native.NOT_BUILT}); `pip install -e .` with a C compiler builds them"
)
needs_native = pytest.mark.skipif(not _native.BUILT, reason=NOT_BUILT)

FAMILIES: dict[str, type[Strategy]] = {
    "planner": Planner,
    "thief": Thief,
    "hoarder": Hoarder,
    "rusher": Rusher,
    "ticket_hunter": TicketHunter,
    "big_city": BigCity,
    "random": RandomStrategy,
}
NAMES = list(FAMILIES)
VARIANTS = {
    "printed": Rules(),
    "wipe": Rules(three_locomotive_wipe=True),
    "more_rounds": Rules(rounds={2: 2, 3: 3, 4: 2}),
    "keep_none": Rules(destinations_min_keep=0, destinations_drawn=6),
    "big_offers": Rules(destinations_dealt=10, destinations_min_keep=4, destinations_drawn=10),
    "small_table": Rules(face_up=2, starting_hand=2, starting_locomotives=0, round_two_deal=0),
    "no_row": Rules(face_up=0, starting_hand=12, starting_locomotives=4),
    # the levers against a seat edge: a one-card first turn, extra cards by seat
    "levers": Rules(
        seat_extra_cards=(0, 1, 2, 1), seat_extra_locomotives=(0, 1, 0, 1), first_turn="one_card"
    ),
}


@dataclass
class Played:
    decisions: int = 0
    illegal: int = 0  # games stopped by an illegal action (odd knobs can make one)


def compare_game(
    strategies: list[Strategy],
    seed: int,
    rules: Rules,
    played: Played,
    limit: int = 10**6,
    catalogue: Catalogue | None = None,
) -> None:
    """Play a game on the Python engine; at every decision the seat's twin, given the same
    view, must answer what its Python strategy answers."""
    twins = [_native.native_twin(s) for s in strategies]
    assert all(t is not None for t in twins), strategies
    state = Game(len(strategies), seed, rules, catalogue or default_catalogue()).new_state()
    steps = 0
    while not state.is_over and state.turn <= MAX_TURNS and steps < limit:
        seat = state.seat
        view = state.view(seat)
        expected = strategies[seat].decide(view)
        got = twins[seat].decide_view(view)
        assert got == expected, (seed, seat, type(strategies[seat]).name, view, expected, got)
        steps += 1
        try:
            state.apply(expected)
        except IllegalActionError:
            played.illegal += 1
            break
    played.decisions += steps


def lineup(names: list[str], seed: int) -> list[Strategy]:
    return [FAMILIES[n](random.Random(seed * 31 + i)) for i, n in enumerate(names)]


def test_the_native_strategies_are_built_where_required():
    # CI sets REQUIRE_NATIVE=1: a failed build is red there, never a skipped comparison
    if os.environ.get("REQUIRE_NATIVE") == "1":
        assert _native.BUILT, _native.NOT_BUILT


@needs_native
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_decision_matches_in_mixed_lineups(players):
    rng = random.Random(players)
    played = Played()
    for seed in range(150 if players < 4 else 100):
        names = [rng.choice(NAMES) for _ in range(players)]
        compare_game(lineup(names, seed), seed, Rules(), played)
    assert played.decisions > 10_000


@needs_native
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_decision_matches_under_rule_variants(variant):
    rng = random.Random(variant)
    played = Played()
    for seed in range(30):
        names = [rng.choice(NAMES) for _ in range(2 + seed % 3)]
        compare_game(lineup(names, seed), seed, VARIANTS[variant], played)
    assert played.decisions > 1500


@needs_native
@pytest.mark.parametrize("deck", [(12, 8, 10, 10, 14, 10, 10, 6, 24), (6,) * 8 + (8,)])
def test_every_decision_matches_with_an_edited_deck(deck):
    """The twins read the game's deck from the view (R1: ``train_cards``) as the Python
    strategies do (the setup keep's budget is a share of the deck)."""
    base = default_catalogue()
    catalogue = Catalogue(base.destinations, base.big_cities, deck)
    rng = random.Random(sum(deck))
    played = Played()
    for seed in range(24):
        names = [rng.choice(NAMES) for _ in range(2 + seed % 3)]
        rules = VARIANTS["levers"] if seed % 2 else Rules()
        compare_game(lineup(names, seed), seed, rules, played, catalogue=catalogue)
    assert played.decisions > 1000


@needs_native
@pytest.mark.parametrize("name", NAMES)
def test_each_family_matches_against_each_other(name):
    played = Played()
    for seed, other in enumerate(NAMES * 4):
        names = [name, other] if seed % 2 else [other, name, "planner", other][: 3 + seed % 4 // 2]
        compare_game(lineup(names, seed + 100), seed, Rules(), played)
    assert played.decisions > 2000


# ---------------------------------------------------------------- knobs
FLOAT_EDGES = [0.0, -0.0, 1e-9, -1.0, 0.5, 1.0, 2.5, 1e6, -1e6, 1e12, -1e12]
INT_EDGES = [0, 1, -1, 2, 3, 5, 10, 100, 2**40, -(2**40)]


def knob_values(knobs_class: type) -> st.SearchStrategy[dict[str, object]]:
    """Any values of the class's float and int knobs (the memory knobs stay perfect)."""
    fields = {}
    for f in dataclasses.fields(knobs_class):
        if f.name in ("memory", "recall", "capacity", "guess"):
            continue
        if f.type in ("float", float):
            fields[f.name] = st.one_of(
                st.sampled_from(FLOAT_EDGES),
                st.floats(-50, 50, allow_nan=False),
                st.floats(-1e12, 1e12, allow_nan=False),
            )
        else:
            fields[f.name] = st.one_of(st.sampled_from(INT_EDGES), st.integers(-20, 20))
    return st.fixed_dictionaries(fields)


@needs_native
@pytest.mark.parametrize("name", [n for n in NAMES if n != "random"])
@settings(max_examples=60)
@given(
    data=st.data(),
    seed=st.integers(0, 2**31),
    players=st.sampled_from([2, 3, 4]),
    rules=st.sampled_from(list(VARIANTS.values())),
)
def test_any_knob_values_give_the_same_decisions(name, data, seed, players, rules):
    cls = FAMILIES[name]
    strategies = []
    for seat in range(players):
        family = cls if seat == 0 else FAMILIES[data.draw(st.sampled_from(NAMES))]
        values = data.draw(knob_values(family.Knobs)) if family is not RandomStrategy else {}
        strategies.append(family(random.Random(seed + seat), family.Knobs(**values)))
    compare_game(strategies, seed, rules, Played(), limit=400)


@needs_native
def test_a_twin_made_mid_game_carries_the_strategy_memory_and_rng():
    played = Played()
    for seed in range(28):
        names = [NAMES[(seed + i) % len(NAMES)] for i in range(3)]
        strategies = lineup(names, seed)
        state = Game(3, seed, Rules()).new_state()
        cut = 20 + 5 * seed  # decisions made by the Python strategies alone
        while not state.is_over and cut:
            state.apply(strategies[state.seat].decide(state.view(state.seat)))
            cut -= 1
        twins = [_native.native_twin(s) for s in strategies]
        while not state.is_over and state.turn <= MAX_TURNS:
            view = state.view(state.seat)
            expected = strategies[state.seat].decide(view)
            assert twins[state.seat].decide_view(view) == expected, (seed, state.seat)
            state.apply(expected)
            played.decisions += 1
        for strategy, twin in zip(strategies, twins, strict=True):
            if isinstance(strategy, RandomStrategy):
                assert twin.getstate() == strategy.rng.getstate()
            else:
                assert twin.pause_turn == strategy._pause_until
    assert played.decisions > 500


@needs_native
def test_the_twin_of_a_draw_between_its_two_picks_reuses_the_first_situation():
    for seed in range(20):
        strategies = lineup(["planner", "thief"], seed)
        state = Game(2, seed, Rules()).new_state()
        while not state.is_over and int(state.phase) != 2:  # SECOND_PICK
            state.apply(strategies[state.seat].decide(state.view(state.seat)))
        if state.is_over:
            continue
        strategy = strategies[state.seat]
        view = state.view(state.seat)
        assert _native.native_twin(strategy).decide_view(view) == strategy.decide(view)


class PlannerOfMyOwn(Planner):
    name = "planner_of_my_own_for_native_tests"


@needs_native
def test_no_twin_for_other_classes_human_memory_or_knobs_c_cannot_hold():
    rng = random.Random(0)
    assert _native.native_twin(PlannerOfMyOwn(rng)) is None
    assert _native.native_twin(Ismcts(rng)) is None
    assert _native.native_twin(Scripted(rng)) is None
    assert _native.native_twin(Planner(rng, Planner.Knobs(memory="human"))) is None
    assert _native.native_twin(RandomStrategy(rng, RandomStrategy.Knobs(memory="human"))) is None
    for knobs in (
        {"card_share": float("nan")},
        {"city_weight": float("inf")},
        {"future_cards": 1e13},
        {"min_column": 2**41},
        {"min_column": 2.0},
        {"ticket_pause": True},
        {"card_share": "0.4"},
    ):
        assert _native.native_twin(Planner(rng, Planner.Knobs(**knobs))) is None, knobs
    # a knob its family reads but its knobs lack: the Python strategy would fail too
    assert _native.native_twin(Thief(rng, Planner.Knobs())) is None
    assert _native.native_twin(Planner(rng, Planner.Knobs(card_share=1))) is not None


@needs_native
def test_the_view_converter_copies_every_field_the_strategies_read():
    from sims._native._scripted import cview_dict

    state = Game(3, 5, Rules()).new_state()
    strategies = lineup(["planner", "rusher", "random"], 5)
    for _ in range(60):
        state.apply(strategies[state.seat].decide(state.view(state.seat)))
    for seat in range(3):
        view = state.view(seat)
        c = cview_dict(view)
        assert (c["seat"], c["players"], c["phase"], c["turn"]) == (
            seat,
            3,
            int(view.phase),
            view.turn,
        )
        assert c["to_move"] == view.to_move and c["round"] == view.round
        assert tuple(c["hand"]) == view.hand
        assert tuple(c["held"][: c["held_n"]]) == view.held_ids
        assert tuple(c["offer"][: c["offer_n"]]) == view.offer_ids
        assert tuple(c["face_up"][: c["face_up_n"]]) == view.face_up
        assert tuple(c["yard_owner"]) == view.yard_owner
        assert tuple(c["yard_wagons"]) == view.yard_wagons
        assert tuple(c["yard_locos"]) == view.yard_locos
        assert tuple(map(tuple, c["circulation"][:3])) == view.circulations
        assert tuple(c["hand_sizes"][:3]) == view.hand_sizes
        assert (c["deck_size"], c["dest_deck_size"]) == (
            view.deck_size,
            view.destination_deck_size,
        )
        assert c["final_round"] == view.final_round
        assert c["min_keep"] == view.rules.destinations_min_keep
        assert c["rounds_total"] == view.rounds_total


@needs_native
@pytest.mark.slow
def test_a_larger_sweep_of_games_matches_decision_for_decision():
    rng = random.Random(2026)
    played = Played()
    variants = list(VARIANTS.values())
    for seed in range(1500):
        names = [rng.choice(NAMES) for _ in range(rng.choice([2, 3, 4]))]
        compare_game(lineup(names, seed), seed, variants[seed % len(variants)], played)
    assert played.decisions > 150_000


def _naming(city: str, every: bool) -> Catalogue:
    """The printed cards with ``city`` on every ticket (its share 1.0) or on none (0.0)."""
    base = default_catalogue()
    names = [b.city for b in base.big_cities if b.city != city]
    tickets = []
    for d in base.destinations:
        if every and city not in (d.city_a, d.city_b):
            d = d._replace(city_a=city)
        elif not every and city in (d.city_a, d.city_b):
            other = d.city_b if d.city_a == city else d.city_a
            d = d._replace(**{"city_a" if d.city_a == city else "city_b": next(
                n for n in names if n != other)})  # fmt: skip
        tickets.append(d)
    return Catalogue(tuple(tickets), base.big_cities, base.deck)


def _extreme(name: str) -> Catalogue:
    base = default_catalogue()
    bonus = {"bonus_1": 1, "bonus_50": 50}.get(name)
    if bonus is not None:
        cities = tuple(b._replace(points=bonus) for b in base.big_cities)
        return Catalogue(base.destinations, cities, base.deck)
    decks = {"no_red": (0,) + (12,) * 7 + (14,), "locomotives_only": (0,) * 8 + (40,),
             "one_colour": (20,) + (0,) * 7 + (40,)}  # fmt: skip
    if name in decks:
        return Catalogue(base.destinations, base.big_cities, decks[name])
    return _naming("Chicago", every=name == "chicago_on_every_ticket")


@needs_native
@pytest.mark.parametrize(
    "name",
    ["bonus_1", "bonus_50", "no_red", "locomotives_only", "one_colour",
     "chicago_on_every_ticket", "chicago_on_none"],
)  # fmt: skip
def test_every_decision_matches_on_extreme_cards(name):
    """The big-city odds and a colour's scarcity (common.city_value, colour_weights) at their
    edges: bonuses of 1 or 50, colours with no cards, a city every ticket or none names; two
    to four players, four players over two rounds. Nothing raises on either side."""
    catalogue = _extreme(name)
    rng = random.Random(name)
    played = Played()
    for seed in range(6):
        names = [rng.choice(NAMES) for _ in range(2 + seed % 3)]
        rules = Rules(rounds={2: 2, 3: 2, 4: 2}) if seed % 2 else Rules()
        compare_game(lineup(names, seed), seed, rules, played, catalogue=catalogue)
    assert played.decisions > 100


@needs_native
@pytest.mark.parametrize(("tickets", "bigs"), [(12, 2), (60, 8), (200, 16)])
def test_every_decision_matches_on_editions_of_other_shapes(tickets, bigs):
    """Editions of fewer and more tickets and big cities than printed (issue 36): the twins
    read the tickets and bonuses from the view as the Python strategies do."""
    from cardgame.edition import synthetic

    catalogue = synthetic(tickets, bigs, seed=tickets)
    rng = random.Random(tickets)
    played = Played()
    for seed in range(8):
        players = 2 if tickets < 18 else 2 + seed % 3
        names = [rng.choice(NAMES) for _ in range(players)]
        compare_game(lineup(names, seed), seed, Rules(), played, catalogue=catalogue)
    assert played.decisions > 200


@needs_native
@pytest.mark.parametrize("colours", [6, 9, 12])
def test_every_decision_matches_on_decks_of_other_colours(colours):
    """Decks of fewer and more colours than printed (issue 36): the twins read the game's
    colours from the view (its hand's length, the locomotive last) as the Python ones do."""
    from cardgame.edition import synthetic

    catalogue = synthetic(60, 8, seed=colours, colours=colours)
    rng = random.Random(colours)
    played = Played()
    for seed in range(8):
        names = [rng.choice(NAMES) for _ in range(2 + seed % 3)]
        rules = Rules(rounds={2: 3, 3: 3, 4: 2})
        compare_game(lineup(names, seed), seed, rules, played, catalogue=catalogue)
    assert played.decisions > 200
