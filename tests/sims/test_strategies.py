"""Every strategy's contract, and each one's signature behaviour."""

from collections import Counter
from statistics import mean

import pytest

from cardgame import Rules
from sims.errors import UnknownStrategyError
from sims.match import GameSpec, play_game
from sims.strategy import StrategySpec, make_knobs, registered, spec, strategy_class
from tests.helpers import quick_spec

ALL = list(registered())


def play(lineup, index, rules=None, record=False, specs=None):
    seats = specs or tuple(quick_spec(s) for s in lineup)
    return play_game(
        GameSpec("test", "cell", "base", rules or Rules(), len(seats), seats, index, 1000 + index),
        None,
        record=record,
    )


def test_there_are_at_least_seven_strategies_with_intent_and_traits():
    assert {"random", "hoarder", "rusher", "ticket_hunter", "big_city", "thief", "planner"} <= set(
        ALL
    )
    for name, cls in registered().items():
        assert cls.name == name and cls.intent and cls.traits


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("players", [2, 4])
def test_contract_legal_play_and_same_seed_same_game(name, players):
    lineup = (name,) + ("planner",) * (players - 1)
    for index in range(3):
        first = play(lineup, index, record=True)
        assert not first.game["failed"], first.game["failure_error"]
        again = play(lineup, index, record=True)
        assert first.record == again.record


def test_unknown_strategy_lists_close_matches():
    with pytest.raises(UnknownStrategyError, match="did you mean planner"):
        strategy_class("planer")


def test_user_strategy_loads_as_module_colon_class():
    cls = strategy_class("tests.sims.broken:Raises")
    assert cls.__name__ == "Raises"
    with pytest.raises(UnknownStrategyError, match="cannot load"):
        strategy_class("tests.sims.broken:Nope")


def test_knobs_are_configurable_and_checked():
    cls = strategy_class("planner")
    assert make_knobs(cls, {"min_useful": 3}, "x").min_useful == 3
    with pytest.raises(UnknownStrategyError, match="has no knob 'bogus'"):
        make_knobs(cls, {"bogus": 1}, "x")
    with pytest.raises(UnknownStrategyError, match="must be int"):
        make_knobs(cls, {"min_useful": "high"}, "x")
    # NaN compares false with everything, and 0 x inf is NaN: no strategy to follow
    for value in ("nan", "inf", "-inf"):
        with pytest.raises(UnknownStrategyError, match="'card_share' of 'planner' must be a fin"):
            make_knobs(cls, {"card_share": float(value)}, "x")


def _many(lineup, games=60):
    outcomes = []
    for index in range(games):
        k = index % len(lineup)
        seats = lineup[k:] + lineup[:k]
        outcomes.append(play(seats, index, record=True))
    return outcomes


def _by_strategy(outcomes, column):
    values = {}
    for outcome in outcomes:
        for row in outcome.seats:
            values.setdefault(row["strategy"], []).append(row[column])
    return values


def _actions(outcomes, label):
    counts = Counter()
    for outcome in outcomes:
        seats = outcome.record["strategies"]
        for turn in outcome.record["turns"]:
            if seats[turn["seat"]] == label:
                counts[turn["action"]["type"]] += 1
                counts["step1_cards"] += len(turn["step1"])
                if turn["action"]["type"] == "place_column":
                    a = turn["action"]
                    counts["column_cards"] += a["wagons"] + a["locos"]
        counts["turns"] += sum(1 for t in outcome.record["turns"] if seats[t["seat"]] == label)
    return counts


def test_planner_beats_random_in_well_over_90_percent_of_two_player_games():
    outcomes = _many(("planner", "random"), games=200)
    wins = mean(_by_strategy(outcomes, "win_share")["planner"])
    assert wins > 0.9


def test_random_uses_every_kind_of_action():
    counts = _actions(_many(("random", "planner"), 20), "random")
    for kind in ("draw_deck", "draw_face_up", "place_column", "place_three", "draw_destinations"):
        assert counts[kind] > 0, kind


def test_hoarder_builds_longer_columns_than_planner():
    outcomes = _many(("hoarder", "planner"))
    hoarder, planner = _actions(outcomes, "hoarder"), _actions(outcomes, "planner")
    assert (
        hoarder["column_cards"] / hoarder["place_column"]
        > planner["column_cards"] / planner["place_column"] + 0.5
    )
    assert hoarder["place_three"] <= planner["place_three"]


def test_rusher_keeps_fewer_cards_idle_in_hand_than_planner():
    outcomes = _many(("rusher", "planner"))
    # it keeps little idle in hand: every card it can place (locomotives too) goes out
    assert mean(_hand_sizes(outcomes, "rusher")) < mean(_hand_sizes(outcomes, "planner")) * 0.8


def _hand_sizes(outcomes, label):
    """The seat's hand size at the start of each of its turns, rebuilt from the records."""
    sizes = []
    for outcome in outcomes:
        record = outcome.record
        seat = record["strategies"].index(label)
        rounds = {r["round"]: len(r["hands"][seat]) for r in record["rounds"]}
        hand, current = None, None
        for turn in record["turns"]:
            if turn["round"] != current:
                current, hand = turn["round"], rounds[turn["round"]]
            if turn["seat"] != seat:
                continue
            sizes.append(hand)
            action = turn["action"]
            hand += len(turn.get("picks", []))
            if action["type"] == "place_column":
                hand -= action["wagons"] + action["locos"]
            elif action["type"] == "place_three":
                hand -= 3
    return sizes


def test_ticket_hunter_draws_destinations_more_often_than_planner():
    outcomes = _many(("ticket_hunter", "planner"))
    hunter, planner = _actions(outcomes, "ticket_hunter"), _actions(outcomes, "planner")
    assert hunter["draw_destinations"] > planner["draw_destinations"] * 1.3
    kept = _by_strategy(outcomes, "kept")
    assert mean(kept["ticket_hunter"]) > mean(kept["planner"])


def test_big_city_wins_more_big_city_bonuses_than_planner():
    outcomes = _many(("big_city", "planner"), 100)
    bonuses = _by_strategy(outcomes, "n_big_cities")
    assert mean(bonuses["big_city"]) > mean(bonuses["planner"])


def test_thief_steals_more_than_planner():
    outcomes = _many(("thief", "planner"))
    steals = _by_strategy(outcomes, "steals_made")
    assert mean(steals["thief"]) > mean(steals["planner"]) * 1.5
    assert sum(steals["thief"]) > 0


def test_configured_variant_changes_behaviour():
    cautious = StrategySpec("planner-no-tickets", "planner", (("ticket_turns", 99),))
    outcomes = [play(None, i, record=True, specs=(cautious, spec("random"))) for i in range(10)]
    counts = _actions(outcomes, "planner-no-tickets")
    assert counts["draw_destinations"] == 0


def test_a_users_strategy_module_in_the_current_folder_loads(tmp_path, monkeypatch):
    (tmp_path / "mystrategies.py").write_text(
        "from sims.strategies.planner import Planner\n\n"
        "class NoNewTickets(Planner):\n"
        "    def wants_destinations(self, situation):\n"
        "        return False\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".")])
    cls = strategy_class("mystrategies:NoNewTickets")
    assert cls.__name__ == "NoNewTickets"
