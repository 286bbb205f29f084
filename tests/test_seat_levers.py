"""The levers designers use against a seat edge (docs/rules.md "Levers
against a seat edge"): extra train cards and extra locomotives at setup by seat, and a first
turn limited to one train card for the first seat. Rule settings, off by default, on both
engines."""

from __future__ import annotations

import json
import pickle

import pytest

from cardgame import (
    LOCO,
    Game,
    IllegalActionError,
    KeepDestinations,
    Phase,
    Rules,
    RulesError,
)
from cardgame import actions as A
from cardgame.cards import KIND_INDEX
from cardgame.errors import RecordError
from cardgame.knowledge import KnowledgeTracker, sample_world
from cardgame.randomplay import play_random
from cardgame.record import replay, to_record
from cardgame.record_schema import rules_dict, validate
from cardgame.state import NO_CARD
from sims.errors import StudyError
from sims.match import GameSpec, play_game
from sims.study import from_dict

from .helpers import quick_spec, started

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

ONE_CARD = Rules(first_turn="one_card")


# ------------------------------------------------------------------ the settings
def test_the_levers_are_off_by_default_and_round_trip():
    rules = Rules()
    assert rules.seat_extra_cards == rules.seat_extra_locomotives == (0, 0, 0, 0)
    assert rules.first_turn == "full"
    data = {
        "seat_extra_cards": [0, 1],
        "seat_extra_locomotives": {"3": 2},
        "first_turn": "one_card",
    }
    rules = Rules.from_dict(data)
    assert rules.seat_extra_cards == (0, 1, 0, 0)  # a shorter list: zeros for the other seats
    assert rules.seat_extra_locomotives == (0, 0, 0, 2)  # a table by seat
    assert rules.to_dict()["seat_extra_cards"] == [0, 1, 0, 0]
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert pickle.loads(pickle.dumps(rules)) == rules and hash(rules) == hash(
        Rules(**rules._asdict())
    )
    assert rules.differences() == {
        "seat_extra_cards": [0, 1, 0, 0],
        "seat_extra_locomotives": [0, 0, 0, 2],
        "first_turn": "one_card",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seat_extra_cards": [0, -1]}, "seat_extra_cards.1: must be between 0 and 20, got -1"),
        ({"seat_extra_cards": [21]}, "rules.seat_extra_cards.0: must be between 0 and 20"),
        ({"seat_extra_cards": [0, 1.5]}, "seat_extra_cards.1: must be a whole number, got 1.5"),
        ({"seat_extra_cards": [True]}, "rules.seat_extra_cards.0: must be a whole number"),
        ({"seat_extra_cards": [0, 0, 0, 0, 1]}, "seat_extra_cards: 5 seats, a game has at most 4"),
        ({"seat_extra_cards": 2}, "rules.seat_extra_cards: must list a count per seat"),
        ({"seat_extra_locomotives": {"4": 1}}, "rules.seat_extra_locomotives.4: not a seat (0-3)"),
        ({"seat_extra_locomotives": {"x": 1}}, "rules.seat_extra_locomotives.x: not a seat"),
        ({"seat_extra_locomotives": [41]}, "rules.seat_extra_locomotives.0: must be between 0 and"),
        ({"first_turn": "none"}, "rules.first_turn: must be one of 'full', 'one_card', got 'none'"),
        ({"first_turn": 1}, "rules.first_turn: must be one of 'full', 'one_card', got 1"),
        # "²" is a digit to str.isdigit, not to int; one seat or count twice: not the last wins
        ({"seat_extra_cards": {"\u00b2": 1}}, "rules.seat_extra_cards.\u00b2: not a seat"),
        ({"seat_extra_cards": {"1": 1, "01": 2}}, "seat 1 is given twice ('1' and '01')"),
        ({"rounds": {"4": 2, "04": 1}}, "rules.rounds: player count 4 is given twice"),
    ],
)
def test_a_bad_lever_is_one_line_naming_its_key(data, message):
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_rules_as_json_refuse_a_key_given_twice():
    assert Rules.from_json('{"rounds": {"4": 1}}') == Rules.from_dict({"rounds": {"4": 1}})
    with pytest.raises(RulesError, match="rules: the key 'face_up' is given twice"):
        Rules.from_json('{"face_up": 5, "face_up": 6}')
    with pytest.raises(RulesError, match="rules: the key '4' is given twice"):
        Rules.from_json('{"rounds": {"4": 1, "4": 2}}')
    with pytest.raises(RulesError, match="must be a JSON object"):
        Rules.from_json("[1]")


# ------------------------------------------------------------------ extra cards, locomotives
def expected_table(state, rules: Rules):
    """The hands, row and deck R3 and the levers make of the recorded setup shuffle: the
    locomotives by seat first, then the hands seat by seat, then each seat's extra cards
    seat by seat, then the row; the deck is what is left."""
    deck = [KIND_INDEX[name] for name in state.record["shuffles"][0]["order"]]
    n = state.players
    hands = [[0] * 9 for _ in range(n)]
    for seat in range(n):
        hands[seat][LOCO] = rules.starting_locomotives + rules.seat_extra_locomotives[seat]
    for count in ([rules.starting_hand] * n, rules.seat_extra_cards[:n]):
        for seat in range(n):
            for _ in range(count[seat]):
                hands[seat][deck.pop()] += 1
    row = [deck.pop() for _ in range(rules.face_up)]
    return hands, row, deck


@pytest.mark.parametrize("players", [2, 3, 4])
def test_extra_cards_are_dealt_after_the_hands_seat_by_seat(players):
    rules = Rules(seat_extra_cards=(0, 1, 2, 3))
    for seed in range(3):
        state = Game(players, seed, rules).new_state(record=True)
        hands, row, deck = expected_table(state, rules)
        assert state.hands == hands and state.face_up == row and state.deck == deck
        assert [sum(h) for h in state.hands] == [8 + s for s in range(players)]
        assert state.record["rounds"][0]["deck_size"] == 96 - 8 * players - sum(range(players)) - 5
        assert state.card_total() == 96


@pytest.mark.parametrize("players", [2, 3, 4])
def test_extra_locomotives_come_from_the_locomotives_before_the_shuffle(players):
    rules = Rules(seat_extra_locomotives=(0, 2, 0, 1), seat_extra_cards=(1, 0, 0, 0))
    state = Game(players, 4, rules).new_state(record=True)
    given = players + sum(rules.seat_extra_locomotives[:players])
    assert state.record["shuffles"][0]["order"].count("locomotive") == 16 - given
    assert len(state.record["shuffles"][0]["order"]) == 96 - given
    hands, row, deck = expected_table(state, rules)
    assert state.hands == hands and state.face_up == row and state.deck == deck
    for seat, hand in enumerate(state.hands):
        assert hand[LOCO] >= 1 + rules.seat_extra_locomotives[seat]
    assert state.card_total() == 96


def test_extra_cards_are_only_a_setup_lever():
    rules = Rules(seat_extra_cards=(0, 3, 3, 3))
    state = play_random(Game(4, 2, rules), record=True)
    assert [len(h) for h in state.record["rounds"][0]["hands"]] == [8, 11, 11, 11]
    # R19 deals round_two_deal (4) to every seat alike, none extra: 16 + 5 face up
    shuffle = state.record["shuffles"][-1]
    assert shuffle["kind"] == "train_round"
    assert len(shuffle["order"]) - 4 * 4 - 5 == state.record["rounds"][1]["deck_size"]


def test_a_rival_knows_the_extra_locomotives_it_saw_handed_out():
    rules = Rules(seat_extra_locomotives=(1, 0, 2, 0))
    state = Game(3, 8, rules).new_state()
    tracker = KnowledgeTracker(state, 1)
    knowledge = tracker.knowledge(state)
    assert [k[LOCO] for k in knowledge.known_cards] == [2, 0, 3]
    world = sample_world(knowledge, __import__("random").Random(1))
    assert world.card_total() == 96 and world.hands[1] == state.hands[1]


# ------------------------------------------------------------------ a one-card first turn
def test_the_first_seat_s_first_turn_is_one_train_card():
    state = started(3, 5, rules=ONE_CARD)
    assert (state.seat, state.turn, state.phase) == (0, 1, Phase.SECOND_PICK)
    row = state.face_up
    legal = state.legal_actions()
    assert legal == [A.DRAW_DECK] + [
        A.DRAW_FACE_UP[s] for s, card in enumerate(row) if card not in (NO_CARD, LOCO)
    ]
    assert state.view(0).legal_actions() == legal
    before = list(state.hands[0])
    state.apply(A.DRAW_DECK)
    assert sum(state.hands[0]) == sum(before) + 1  # one card, and the turn is over
    assert (state.seat, state.turn, state.phase) == (1, 2, Phase.TURN)
    turn = state.record["turns"][0]
    assert turn["action"] == {"type": "draw_deck"} and len(turn["picks"]) == 1


def test_the_one_card_turn_refuses_every_other_action_naming_r10():
    state = started(2, 1, rules=ONE_CARD)
    hand = list(state.hands[0])
    colour = max(range(8), key=lambda c: hand[c])
    for action in (
        A.DRAW_DESTINATIONS,
        A.COLUMNS[colour][1][1],  # legal in a normal turn: one wagon and a locomotive
        A.PASS,
    ):
        with pytest.raises(IllegalActionError, match="seat 0: .*one train card is expected.*R10"):
            state.apply(action)
    state.face_up[2] = LOCO  # a face-up locomotive counts as two: not a one-card turn
    with pytest.raises(IllegalActionError, match="locomotive can only be the first pick.*R10"):
        state.apply(A.DRAW_FACE_UP[2])
    state.face_up[3] = 4
    state.apply(A.DRAW_FACE_UP[3])  # a face-up wagon is one card
    assert state.hands[0][4] == hand[4] + 1 and state.phase == Phase.TURN and state.seat == 1


def test_only_the_first_seat_and_only_its_first_turn_are_limited():
    printed = started(2, 3)
    assert printed.phase == Phase.TURN  # off by default: the printed turn
    state = started(2, 3, rules=ONE_CARD)
    state.apply(A.DRAW_DECK)
    assert state.phase == Phase.TURN  # seat 1's first turn is a whole one
    assert A.DRAW_DESTINATIONS in state.legal_actions()
    state.apply(A.DRAW_DESTINATIONS)
    state.apply(KeepDestinations(()))
    assert state.seat == 0 and state.phase == Phase.TURN  # seat 0's second turn too


def test_with_no_card_to_draw_the_first_turn_is_a_whole_one():
    state = Game(2, 6, ONE_CARD).new_state()
    state.apply(KeepDestinations(tuple(state.offers[0])))
    state.deck = []
    state.face_up = [LOCO, LOCO, NO_CARD, LOCO, NO_CARD]
    state.apply(KeepDestinations(tuple(state.offers[1])))
    assert state.phase == Phase.TURN and A.DRAW_DESTINATIONS in state.legal_actions()


# ------------------------------------------------------------------ records
def test_a_record_holds_the_levers_that_apply_and_replays():
    rules = Rules(
        seat_extra_cards=(0, 1, 0, 0), seat_extra_locomotives=(0, 0, 1, 1), first_turn="one_card"
    )
    assert rules_dict(rules, 2)["seat_extra_cards"] == [0, 1]  # the game's seats only
    assert "seat_extra_locomotives" not in rules_dict(rules, 2)  # seats 2, 3: no such seats
    assert rules_dict(rules, 4)["seat_extra_locomotives"] == [0, 0, 1, 1]
    assert rules_dict(rules, 3)["first_turn"] == "one_card"
    assert not {"seat_extra_cards", "first_turn"} & set(rules_dict(Rules(), 4))  # off: absent
    records = {}
    for players in (2, 3, 4):
        state = play_random(Game(players, players, rules), record=True)
        record = records[players] = to_record(state, ["random"] * players)
        assert record["turns"][0]["seat"] == 0 and len(record["turns"][0]["picks"]) == 1
        assert validate(record) == Rules.from_dict(record["rules"])
        result = replay(json.loads(json.dumps(record)))
        assert result.ok, result.divergence
    record = records[2]
    assert record["rules"]["seat_extra_cards"] == [0, 1]
    record["rules"]["seat_extra_cards"] = [0, 1, 0, 0]
    with pytest.raises(RecordError, match="rules.seat_extra_cards: expected one count per seat"):
        replay(record)
    record["rules"]["seat_extra_cards"] = [0, 2]  # an edited lever: another deal
    assert not replay(record).ok
    record["rules"]["seat_extra_cards"] = [0, 1]
    record["rules"]["first_turn"] = "full"
    with pytest.raises(RecordError, match="rules.first_turn: does not apply"):
        replay(record)


# ------------------------------------------------------------------ strategies, studies
@pytest.mark.parametrize(
    "name",
    ["planner", "thief", "hoarder", "rusher", "ticket_hunter", "big_city", "random", "ismcts"],
)
def test_every_strategy_plays_games_with_the_levers_on(name):
    rules = Rules(
        seat_extra_cards=(0, 1, 1, 2), seat_extra_locomotives=(0, 0, 1, 0), first_turn="one_card"
    )
    for players in (2, 4) if name != "ismcts" else (2,):
        seats = tuple(quick_spec(name, f"{name}{s}") for s in range(players))
        outcome = play_game(GameSpec("s", "c", "levers", rules, players, seats, 0, 31), None)
        assert not outcome.game["failed"], outcome.game["failure_error"]


def test_sweeps_name_one_seat_of_a_lever_and_a_variant_plays_only_where_it_applies():
    data = {"name": "l", "players": [2, 4], "pool": ["planner", "thief"], "games_per_cell": 4}
    s = from_dict(
        {**data, "sweeps": {"x": {"parameter": "seat_extra_cards.1", "values": [0, 1, 2]}}},
        "l.toml",
    )
    points = dict(s.sweeps["x"].points)
    assert points[(0,)] == "base" and s.variants[points[(2,)]].seat_extra_cards == (0, 2, 0, 0)
    variants = {"late": {"seat_extra_cards": [0, 0, 1, 1]}, "first": {"first_turn": "one_card"}}
    s = from_dict({**data, "variants": {"base": {}, **variants}}, "l.toml")
    assert s.players_for("late") == (4,)  # no seat 2 or 3 at 2 players: nothing to compare
    assert s.players_for("first") == (2, 4)
    for parameter, message in [
        ("first_turn", "unknown parameter 'first_turn'"),
        ("seat_extra_cards", "unknown parameter 'seat_extra_cards'"),
        ("seat_extra_cards.4", r"seat_extra_cards.4: not a seat \(0-3\)"),
    ]:
        with pytest.raises(StudyError, match=message):
            from_dict({**data, "sweeps": {"x": {"parameter": parameter, "values": [1]}}}, "l")


def test_levers_handing_out_more_than_the_deck_holds_are_refused():
    rules = Rules(seat_extra_locomotives=(4, 4, 4, 4))
    Game(2, 1, rules)  # 2 + 8 of 16 locomotives
    with pytest.raises(
        RulesError, match="deck.locomotive: the deck has 16 locomotives, 4 players start with 20"
    ):
        Game(4, 1, rules)
    data = {
        "name": "l",
        "players": [2, 4],
        "pool": ["planner"],
        "games_per_cell": 2,
        "variants": {"base": {}, "v": {"seat_extra_locomotives": [4, 4, 4, 4]}},
    }
    with pytest.raises(StudyError, match="l.toml: variants.v: deck.locomotive: the deck has 16"):
        from_dict(data, "l.toml")
