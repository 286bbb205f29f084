"""Invariants over many seeds and player counts (hypothesis)."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Game, Phase, Rules, default_catalogue
from cardgame import actions as A
from cardgame.cards import LOCO, NUM_COLOURS
from cardgame.edits import CardEdits
from cardgame.record import recompute_scores, replay, to_record
from cardgame.state import NOBODY

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

seeds = st.integers(min_value=0, max_value=2**32 - 1)
players = st.integers(min_value=2, max_value=4)
variants = st.sampled_from(
    [
        Rules(),
        Rules(three_locomotive_wipe=True),
        Rules(rounds={2: 2, 3: 2}),
        Rules(destinations_drawn=2, round_two_deal=6),
        # the levers against a seat edge, all on
        Rules(
            seat_extra_cards=(0, 1, 2, 1),
            seat_extra_locomotives=(0, 1, 0, 2),
            first_turn="one_card",
            three_locomotive_wipe=True,
        ),
    ]
)
# the printed deck, and edited ones (R1: the deck is card data)
decks = st.sampled_from(
    [
        {},
        {"red": 14, "blue": 3, "locomotive": 24},
        {"purple": 0, "white": 20, "locomotive": 8},
    ]
)


def game(n: int, seed: int, rules: Rules, deck: dict[str, int]) -> Game:
    base = default_catalogue()
    return Game(n, seed, rules, CardEdits.from_dict({"deck": deck}, base).apply(base))


def every_candidate(state):
    """Every action object that could possibly be proposed now, legal or not."""
    if state.phase in (Phase.SETUP_KEEP, Phase.KEEP_DRAWN):
        offer = state.offers[state.seat]
        return [
            A.KeepDestinations(c) for n in range(len(offer) + 1) for c in combinations(offer, n)
        ]
    out = [A.DRAW_DECK, A.DRAW_DESTINATIONS, A.PASS]
    out += [A.DRAW_FACE_UP[s] for s in range(len(state.face_up))]
    deck = state.game.catalogue.deck  # columns up to the game's deck (R1)
    out += [
        A.COLUMNS[c][w][lo]
        for c in range(NUM_COLOURS)
        for w in range(max(deck[:NUM_COLOURS]) + 1)
        for lo in range(deck[LOCO] + 1)
    ]
    out += list(A.THREES.values())
    return out


def check_invariants(state):
    assert state.card_total() == sum(state.game.catalogue.deck)  # no card created or lost
    for c in range(NUM_COLOURS):  # each colour in at most one yard, columns never empty
        size = state.yard_wagons[c] + state.yard_locos[c]
        assert (state.yard_owner[c] == NOBODY) == (size == 0)
        if size:
            assert state.yard_wagons[c] >= 1
    ids = [
        d
        for seat in range(state.players)
        for d in state.held[seat] + state.reached[seat] + state.offers[seat]
    ]
    assert sorted(ids + state.dest_deck) == list(range(1, 47))  # no destination lost


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=players, rules=variants, deck=decks)
def test_only_legal_actions_are_enumerated_and_all_are_accepted(seed, n, rules, deck):
    import random

    state = game(n, seed, rules, deck).new_state()
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if step % 7 == 0:  # the full cross-check is slow: sample the steps
            accepted = {a for a in every_candidate(state) if state._problem(a) is None}
            assert accepted == set(legal)
        state.apply(legal[rng.randrange(len(legal))])  # apply() re-checks legality
        check_invariants(state)
        step += 1
    assert state.scores and state.winners


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=players, rules=variants, deck=decks)
def test_every_saved_game_replays_to_the_same_scores(seed, n, rules, deck):
    from cardgame.randomplay import play_random

    state = play_random(game(n, seed, rules, deck), record=True)
    record = to_record(state, ["random"] * n)
    result = replay(record)
    assert result.ok, result.divergence
    assert list(result.scores) == [s.total for s in state.scores]
    scores, winners = recompute_scores(record)
    assert scores == [s.total for s in state.scores]
    assert winners == list(state.winners)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=players)
def test_same_seed_same_game(seed, n):
    from cardgame.randomplay import play_random

    a = to_record(play_random(Game(n, seed), record=True))
    b = to_record(play_random(Game(n, seed), record=True))
    assert a == b
