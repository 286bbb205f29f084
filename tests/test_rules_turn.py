"""Turn rulings: step 1 (R7, R8), drawing (R10, R11), placing (R12), destinations (R13),
passing (R14), what a seat may see (R9)."""

import pytest

from cardgame import (
    DrawDeck,
    DrawDestinations,
    DrawFaceUp,
    IllegalActionError,
    KeepDestinations,
    Pass,
    Phase,
    PlaceColumn,
    PlaceThree,
)
from cardgame.layout import SEAT_VIEW_FIELDS
from cardgame.state import NO_CARD

from .helpers import C, arrange, counts, started

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

RED, BLUE, GREEN, WHITE, LOCO = C["red"], C["blue"], C["green"], C["white"], C["loco"]


def finish_turn(state):
    """Play the first legal action until the seat to move changes."""
    turn = state.turn
    while state.turn == turn and not state.is_over:
        state.apply(state.legal_actions()[0])


# ---------------------------------------------------------------- step 1
def test_r7_step_one_moves_one_card_from_each_column_locomotives_first():
    state = arrange(
        started(2),
        hands={0: counts(purple=2), 1: counts(purple=3)},
        deck=[BLUE] * 5,
        face_up=[WHITE] * 5,
        yards={RED: (1, 2, 1), GREEN: (1, 1, 0), BLUE: (0, 2, 0)},
    )
    state.apply(PlaceColumn(C["purple"], 2, 0))  # seat 0's turn ends; seat 1 begins
    assert state.seat == 1
    assert state.circulation[1][LOCO] == 1  # the red column gave its locomotive first
    assert state.circulation[1][RED] == 0
    assert state.circulation[1][GREEN] == 1
    assert state.yard_locos[RED] == 0 and state.yard_wagons[RED] == 2
    assert state.circulation[0] == [0] * 9  # seat 0's column untouched on seat 1's turn
    assert state._turn_record["step1"] == ["locomotive", "green"]  # red column, then green


def test_r8_an_emptied_column_frees_its_colour():
    state = arrange(
        started(2),
        hands={0: counts(purple=2), 1: counts(green=2)},
        deck=[BLUE] * 10,
        face_up=[WHITE] * 5,
        yards={GREEN: (1, 1, 0)},
    )
    state.apply(PlaceColumn(C["purple"], 2, 0))
    assert state.yard_owner[GREEN] == -1
    state.apply(PlaceColumn(GREEN, 2, 0))  # legal again: the colour is free (R8)
    assert state.yard_owner[GREEN] == 1


def test_r7_step_one_happens_even_when_the_seat_passes():
    state = arrange(
        started(2),
        hands={0: counts(purple=2), 1: counts()},
        deck=[],
        face_up=[NO_CARD] * 5,
        yards={RED: (1, 2, 0)},
    )
    state.dest_deck = []
    state.final_turns_left = 99  # keep the round going for this test
    state.apply(PlaceColumn(C["purple"], 2, 0))
    assert state.circulation[1][RED] == 1
    assert state.legal_actions() == [Pass()]


# ---------------------------------------------------------------- R9
def test_r9_view_shows_own_hand_public_piles_never_deck_or_rival_hand():
    state = started(3, seed=4)
    view = state.view(1)
    assert view.hand == tuple(state.hands[1])
    assert len(view.circulations) == 3
    assert view.deck_size == len(state.deck)
    assert not hasattr(view, "deck")
    fields = set(SEAT_VIEW_FIELDS)
    assert "hands" not in fields and "dest_deck" not in fields and "deck" not in fields
    assert view.hand_sizes == tuple(sum(h) for h in state.hands)
    assert [d.id for d in view.held] == state.held[1]


# ---------------------------------------------------------------- R10, R11
def test_r10_face_up_card_is_replaced_before_the_next_pick():
    state = arrange(
        started(2),
        hands={0: counts(), 1: counts()},
        deck=[GREEN, BLUE],
        face_up=[RED, WHITE, WHITE, WHITE, WHITE],
    )
    state.apply(DrawFaceUp(0))
    assert state.face_up[0] == BLUE  # refilled from the top of the deck at once
    assert state.phase == Phase.SECOND_PICK
    state.apply(DrawFaceUp(0))  # the refilled card can be the second pick
    assert state.hands[0][RED] == 1 and state.hands[0][BLUE] == 1
    assert state.seat == 1


def test_r10_face_up_locomotive_counts_two_and_ends_the_action():
    state = arrange(
        started(2),
        hands={0: counts(), 1: counts()},
        deck=[GREEN] * 5,
        face_up=[LOCO, WHITE, WHITE, WHITE, WHITE],
    )
    state.apply(DrawFaceUp(0))
    assert state.hands[0][LOCO] == 1 and sum(state.hands[0]) == 1
    assert state.seat == 1 and state.phase == Phase.TURN


def test_r10_face_up_locomotive_is_not_a_second_pick():
    state = arrange(
        started(2),
        hands={0: counts(), 1: counts()},
        deck=[GREEN] * 5,
        face_up=[WHITE, LOCO, WHITE, WHITE, WHITE],
    )
    state.apply(DrawDeck())
    assert DrawFaceUp(1) not in state.legal_actions()
    with pytest.raises(
        IllegalActionError, match="seat 0: .*locomotive can only be the first pick.*R10"
    ):
        state.apply(DrawFaceUp(1))


def test_r10_a_blind_locomotive_counts_one():
    state = arrange(
        started(2), hands={0: counts(), 1: counts()}, deck=[GREEN] * 5 + [LOCO], face_up=[WHITE] * 5
    )
    state.apply(DrawDeck())
    assert state.phase == Phase.SECOND_PICK
    state.apply(DrawDeck())
    assert state.hands[0][LOCO] == 1 and state.hands[0][GREEN] == 1


def test_r11_only_one_card_left_is_a_whole_action():
    state = arrange(
        started(2),
        hands={0: counts(), 1: counts()},
        deck=[],
        face_up=[NO_CARD, NO_CARD, RED, NO_CARD, NO_CARD],
    )
    state.final_turns_left = 5
    state.apply(DrawFaceUp(2))
    assert state.hands[0][RED] == 1
    assert state.face_up[2] == NO_CARD  # empty slots stay empty
    assert state.seat == 1


def test_r11_deck_empties_after_first_pick_second_comes_from_the_row():
    state = arrange(
        started(2),
        hands={0: counts(), 1: counts()},
        deck=[GREEN],
        face_up=[RED, NO_CARD, NO_CARD, NO_CARD, LOCO],
    )
    state.apply(DrawDeck())
    assert state.legal_actions() == [DrawFaceUp(0)]  # not the deck, not the locomotive
    state.apply(DrawFaceUp(0))
    assert state.face_up[0] == NO_CARD


def test_r11_no_draw_from_an_empty_deck():
    state = arrange(started(2), hands={0: counts(), 1: counts()}, deck=[], face_up=[RED] * 5)
    with pytest.raises(IllegalActionError, match="train deck is empty.*R11"):
        state.apply(DrawDeck())


# ---------------------------------------------------------------- R12
def test_r12_column_of_two_or_more_with_locomotives_on_top():
    state = arrange(
        started(2), hands={0: counts(red=1, loco=2)}, deck=[GREEN] * 5, face_up=[WHITE] * 5
    )
    assert PlaceColumn(RED, 1, 1) in state.legal_actions()
    state.apply(PlaceColumn(RED, 1, 2))
    assert (state.yard_owner[RED], state.yard_wagons[RED], state.yard_locos[RED]) == (0, 1, 2)


def test_r12_a_column_needs_a_wagon_and_two_cards():
    state = arrange(
        started(2), hands={0: counts(red=3, loco=3)}, deck=[GREEN] * 5, face_up=[WHITE] * 5
    )
    with pytest.raises(IllegalActionError, match="2 or more cards.*R12"):
        state.apply(PlaceColumn(RED, 1, 0))
    with pytest.raises(IllegalActionError, match="R12"):
        state.apply(PlaceColumn(RED, 0, 2))


def test_r12_three_colours_exactly_three_wagons_no_locomotive():
    state = arrange(
        started(2),
        hands={0: counts(red=1, blue=1, green=1, loco=2)},
        deck=[GREEN] * 5,
        face_up=[WHITE] * 5,
    )
    threes = [a for a in state.legal_actions() if isinstance(a, PlaceThree)]
    assert threes == [PlaceThree(tuple(sorted((RED, BLUE, GREEN))))]
    state.apply(threes[0])
    for c in (RED, BLUE, GREEN):
        assert (state.yard_owner[c], state.yard_wagons[c], state.yard_locos[c]) == (0, 1, 0)
    assert state.hands[0][LOCO] == 2


def test_r12_own_colour_cannot_be_played_again():
    state = arrange(
        started(2),
        hands={0: counts(red=3, blue=1, green=1)},
        deck=[GREEN] * 5,
        face_up=[WHITE] * 5,
        yards={RED: (0, 2, 0)},
    )
    assert not any(getattr(a, "colour", None) == RED for a in state.legal_actions())
    with pytest.raises(IllegalActionError, match="own yard.*R12"):
        state.apply(PlaceColumn(RED, 3, 0))
    with pytest.raises(IllegalActionError, match="own yard.*R12"):
        state.apply(PlaceThree(tuple(sorted((RED, BLUE, GREEN)))))


def test_r12_steal_needs_strictly_more_cards():
    state = arrange(
        started(2),
        hands={0: counts(red=3, loco=1), 1: counts()},
        deck=[GREEN] * 5,
        face_up=[WHITE] * 5,
        yards={RED: (1, 2, 1)},
    )
    legal = state.legal_actions()
    assert PlaceColumn(RED, 3, 0) not in legal  # 3 is not strictly more than 3
    assert PlaceColumn(RED, 2, 1) not in legal
    assert PlaceColumn(RED, 3, 1) in legal
    with pytest.raises(IllegalActionError, match="strictly more.*R12"):
        state.apply(PlaceColumn(RED, 3, 0))


def test_r12_victim_discards_the_whole_column():
    state = arrange(
        started(2),
        hands={0: counts(red=3, loco=1), 1: counts()},
        deck=[GREEN] * 5,
        face_up=[WHITE] * 5,
        yards={RED: (1, 2, 1)},
    )
    discard_before = list(state.discard)
    state.apply(PlaceColumn(RED, 3, 1))
    assert state.discard[RED] == discard_before[RED] + 2
    assert state.discard[LOCO] == discard_before[LOCO] + 1
    assert state.yard_owner[RED] == 0 and state.yard_wagons[RED] == 3
    assert state.steals == [1, 0]
    steal = state.record["turns"][-1]["steal"]
    assert steal == {"victim": 1, "colour": "red", "discarded": {"wagons": 2, "locos": 1}}
    assert state.card_total() == 96


def test_r12_three_colour_play_cannot_use_a_colour_in_any_yard():
    state = arrange(
        started(2),
        hands={0: counts(red=1, blue=1, green=1)},
        deck=[GREEN] * 5,
        face_up=[WHITE] * 5,
        yards={RED: (1, 1, 0)},
    )
    assert not any(isinstance(a, PlaceThree) for a in state.legal_actions())
    with pytest.raises(IllegalActionError, match="cannot beat.*R12"):
        state.apply(PlaceThree(tuple(sorted((RED, BLUE, GREEN)))))


# ---------------------------------------------------------------- R13
def test_r13_draw_four_keep_any_number_rest_to_the_bottom():
    state = started(2, seed=3)
    state.dest_deck = [1, 2, 3, 4, 5, 6, 7]  # top is the end
    state.apply(DrawDestinations())
    assert state.offers[0] == [7, 6, 5, 4]
    assert KeepDestinations(()) in state.legal_actions()
    before = len(state.held[0])
    state.apply(KeepDestinations((6,)))
    assert state.held[0][before:] == [6]
    assert state.dest_deck == [7, 5, 4, 1, 2, 3]  # returned under the rest
    assert state.record["turns"][-1]["destinations"] == {"drawn": [7, 6, 5, 4], "kept": [6]}


def test_r13_fewer_than_four_and_not_when_empty():
    state = started(2, seed=3)
    state.dest_deck = [8, 9]
    state.apply(DrawDestinations())
    assert state.offers[0] == [9, 8]
    state.apply(KeepDestinations((8, 9)))
    assert state.dest_deck == []
    assert DrawDestinations() not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="destination deck is empty.*R13"):
        state.apply(DrawDestinations())


def test_r13_can_keep_only_what_was_offered():
    state = started(2, seed=3)
    state.dest_deck = [1, 2, 3, 4]
    state.apply(DrawDestinations())
    with pytest.raises(IllegalActionError, match="R13"):
        state.apply(KeepDestinations((40,)))
    with pytest.raises(IllegalActionError, match="keep is expected.*R13"):
        state.apply(DrawDeck())


# ---------------------------------------------------------------- R14
def test_r14_pass_only_when_nothing_is_legal():
    state = arrange(started(2), hands={0: counts(red=1)}, deck=[GREEN], face_up=[WHITE] * 5)
    with pytest.raises(IllegalActionError, match="R14"):
        state.apply(Pass())
    state = arrange(started(2), hands={0: counts(red=1)}, deck=[], face_up=[NO_CARD] * 5)
    state.dest_deck = []
    state.final_turns_left = 3
    assert state.legal_actions() == [Pass()]
    state.apply(Pass())
    assert state.seat == 1


def test_illegal_action_error_names_seat_action_and_ruling():
    state = started(2)
    with pytest.raises(IllegalActionError) as info:
        state.apply(PlaceColumn(RED, 10, 0))
    error = info.value
    assert error.seat == 0 and error.ruling == "R12"
    assert str(error).startswith("seat 0: illegal action place 10 red")


def test_r9_seat_view_is_a_read_only_copy_and_answers_legality():
    state = arrange(
        started(2), hands={0: counts(red=2), 1: counts()}, deck=[GREEN] * 5, face_up=[WHITE] * 5
    )
    view, other = state.view(0), state.view(1)
    assert view.hand == tuple(state.hands[0])
    assert view.is_legal(PlaceColumn(RED, 2, 0))
    assert not view.is_legal(PlaceColumn(RED, 3, 0))
    assert not other.is_legal(DrawDeck())  # not seat 1's turn
    assert other.legal_actions() == []
    state.apply(PlaceColumn(RED, 2, 0))
    # a copy taken at the decision: the old view keeps the old table
    assert view.yard_owner[RED] == -1
    assert state.view(0).yard_owner[RED] == 0
    assert state.view(0).circulation(1) == tuple(state.circulation[1])
