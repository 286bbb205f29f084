"""A game's set-up facts (the deal check, the big cities, the default rules) are worked out
once per (rules, catalogue, player count) and shared: a game stays a pure function of its
rules, cards and seed, and an edited catalogue never gets the printed one's facts."""

from __future__ import annotations

import pytest

from cardgame import Catalogue, Game, RulesError, default_catalogue
from cardgame.edits import CardEdits
from cardgame.randomplay import play_random
from cardgame.record import to_record
from cardgame.rules import DEFAULT_RULES, Rules

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

PRINTED = default_catalogue()


def played(game: Game) -> dict:
    """A recorded random game's record: the whole game, every shuffle and decision."""
    return to_record(play_random(game, record=True))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_games_made_from_the_same_inputs_play_the_same(players):
    rules = Rules(three_locomotive_wipe=True, seat_extra_cards=(0, 1, 1, 2))
    for seed in range(5):
        first, second = Game(players, seed, rules), Game(players, seed, Rules(**rules._asdict()))
        assert first == second and first.big_city_set == second.big_city_set
        assert played(first) == played(second) == played(Game(players, seed, rules, PRINTED))
    assert played(Game(players, 9)) == played(Game(players, 9, Rules(), PRINTED))


def test_the_default_rules_are_one_shared_printed_value():
    assert Game(2, 1).rules is Game(3, 2).rules is DEFAULT_RULES
    assert Rules() == DEFAULT_RULES


def test_an_edited_catalogue_is_never_served_the_printed_ones_facts():
    Game(4, 1, DEFAULT_RULES, PRINTED)  # the printed facts worked out first
    few = CardEdits.from_dict({"deck": {"locomotive": 3}}, PRINTED, "variants.few")
    with pytest.raises(RulesError, match="deck.locomotive"):
        Game(4, 1, DEFAULT_RULES, few.apply(PRINTED))
    Game(2, 1, DEFAULT_RULES, few.apply(PRINTED))  # two players start with 2: it deals
    fewer_cities = Catalogue(PRINTED.destinations, PRINTED.big_cities[:3], PRINTED.deck)
    assert Game(4, 1, DEFAULT_RULES, fewer_cities).big_city_set == frozenset(
        b.city for b in PRINTED.big_cities[:3]
    )
    assert Game(4, 1, DEFAULT_RULES, PRINTED).big_city_set == frozenset(PRINTED.big_city_names)


def test_an_edited_catalogue_plays_its_own_cards():
    points = CardEdits.from_dict(
        {"destinations": {str(i): 30 for i in range(1, 47)}}, PRINTED, "variants.points"
    ).apply(PRINTED)
    for seed in range(3):
        printed, edited = play_random(Game(2, seed)), play_random(Game(2, seed, catalogue=points))
        assert play_random(Game(2, seed)).scores == printed.scores
        reached = [len(r) for r in edited.reached]
        assert [s.destination_points for s in edited.scores] == [30 * n for n in reached]
