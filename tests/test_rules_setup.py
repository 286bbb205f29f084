"""Setup rulings R3-R6 and the R4 wipe variant."""

import pytest

from cardgame import LOCO, Game, IllegalActionError, KeepDestinations, Phase, Rules
from cardgame.shuffling import RecordedShuffles, SeededShuffles

from .helpers import started

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r3_setup_deals_one_locomotive_seven_cards_and_five_face_up(players):
    state = Game(players, 3).new_state()
    for hand in state.hands:
        assert sum(hand) == 8
        assert hand[LOCO] >= 1
    assert len(state.face_up) == 5
    assert len(state.deck) == 96 - 8 * players - 5
    assert state.card_total() == 96
    # the deck holds the 16 - n locomotives not given out
    locos = sum(h[LOCO] for h in state.hands) + state.deck.count(LOCO) + state.face_up.count(LOCO)
    assert locos == 16


class _LocoRow:
    """Shuffles that put three locomotives in the face-up row."""

    def __init__(self):
        self.inner = SeededShuffles(1)

    def shuffle(self, kind, cards):
        order = self.inner.shuffle(kind, cards)
        if kind == "train_setup":
            locos = [c for c in order if c == LOCO][:3]
            rest = list(order)
            for _ in locos:
                rest.remove(LOCO)
            # top of deck is the end: after 2 x 7 dealt, the next 5 are the row
            order = rest[: len(rest) - 14 - 2] + locos + rest[len(rest) - 14 - 2 :]
        return order


def test_r4_no_wipe_with_three_face_up_locomotives():
    state = Game(2, 1).new_state(shuffles=_LocoRow())
    assert state.face_up.count(LOCO) >= 3


def test_r4_board_game_wipe_is_a_variant():
    rules = Rules(three_locomotive_wipe=True)
    state = Game(2, 1, rules).new_state(shuffles=_LocoRow())
    assert state.face_up.count(LOCO) < 3
    assert sum(state.discard) >= 5
    assert state.card_total() == 96


def test_r5_each_seat_is_dealt_six_and_must_keep_one():
    state = Game(3, 5).new_state()
    assert state.phase == Phase.SETUP_KEEP
    assert all(len(o) == 6 for o in state.offers)
    with pytest.raises(IllegalActionError, match=r"seat 0: .*must keep at least 1 \(R5\)"):
        state.apply(KeepDestinations(()))
    with pytest.raises(IllegalActionError, match="R5"):
        state.apply(KeepDestinations((999,)))


def test_r5_rejected_destinations_are_shuffled_back():
    state = Game(2, 5).new_state(record=True)
    first = state.offers[0]
    state.apply(KeepDestinations(tuple(first[:1])))
    state.apply(KeepDestinations(tuple(state.offers[1])))
    assert len(state.dest_deck) == 46 - 1 - 6
    assert set(first[1:]) <= set(state.dest_deck)
    kinds = [s["kind"] for s in state.record["shuffles"]]
    assert kinds == ["train_setup", "destination_setup", "destination_reshuffle"]


def test_r5_rejected_destinations_are_reshuffled_not_just_put_back():
    orders = []

    class Spy(SeededShuffles):
        def shuffle(self, kind, cards):
            out = super().shuffle(kind, cards)
            orders.append((kind, list(cards), out))
            return out

    state = Game(2, 9).new_state(shuffles=Spy(9))
    state.apply(KeepDestinations(tuple(state.offers[0][:2])))
    state.apply(KeepDestinations(tuple(state.offers[1][:2])))
    kind, before, after = orders[-1]
    assert kind == "destination_reshuffle" and sorted(before) == sorted(after)
    assert state.dest_deck == after


def test_r6_seat_zero_starts_and_play_goes_in_seat_order():
    state = started(3, seed=2)
    seats = []
    while len(seats) < 7:
        seats.append(state.seat)
        turn = state.turn
        while state.turn == turn:
            state.apply(state.legal_actions()[0])
    assert seats == [0, 1, 2, 0, 1, 2, 0]


def test_replayed_shuffles_must_hold_the_same_cards():
    bad = RecordedShuffles([("train_setup", [0] * 94)])
    with pytest.raises(Exception, match="does not hold the cards"):
        Game(2, 1).new_state(shuffles=bad)
