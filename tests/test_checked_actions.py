"""Issue 9 item 3: the checked path refuses badly typed or out-of-range actions, and any
object at all, with IllegalActionError; the state is unchanged after a refusal."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgame import GameState, IllegalActionError, Phase, Rules
from cardgame import actions as A
from cardgame.actions import (
    DrawDeck,
    DrawFaceUp,
    KeepDestinations,
    PlaceColumn,
    PlaceThree,
)
from cardgame.state import CARD_KINDS

from .helpers import arrange, counts, started
from .test_view import random_state

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

RED, GREEN, WHITE, BLUE = 6, 7, 1, 2


def fingerprint(state: GameState) -> dict[str, object]:
    """Everything that can change in a state, deep-copied, with the RNG's position."""
    out = {
        name: copy.deepcopy(getattr(state, name))
        for name in GameState.__slots__
        if name not in ("game", "rules", "_shuffles", "_view_table", "_view_rules", "_big")
    }
    rng = getattr(state._shuffles, "_rng", None)
    out["rng"] = rng.getstate() if rng is not None else None
    return out


def turn_state() -> GameState:
    return arrange(
        started(2),
        hands={0: counts(red=3, green=2, white=1, blue=1, loco=2)},
        deck=[GREEN] * 5,
        face_up=[WHITE, RED, GREEN, BLUE, WHITE],
    )


class Sneaky(DrawDeck):
    """A subclass could override anything: it is not an action."""


class Hostile:
    """An object whose every dunder raises: the check must never call into it."""

    def __str__(self) -> str:
        raise RuntimeError("str")

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")


MALFORMED_TURN = [
    (PlaceColumn(RED, 1.5, 0.5), "PlaceColumn.wagons"),  # type: ignore[arg-type]
    (PlaceColumn(RED, 2, 0.0), "PlaceColumn.locos"),  # type: ignore[arg-type]
    (PlaceColumn(True, 2, 0), "PlaceColumn.colour"),  # type: ignore[arg-type]
    (PlaceColumn(-1, 2, 0), "PlaceColumn.colour"),
    (PlaceColumn(8, 2, 0), "PlaceColumn.colour"),
    (PlaceColumn(RED, True, True), "PlaceColumn.wagons"),  # type: ignore[arg-type]
    (PlaceColumn(RED, 10**30, 0), "PlaceColumn.wagons"),
    (PlaceColumn(RED, 2, -(10**4000)), "PlaceColumn.locos"),
    (DrawFaceUp(True), "DrawFaceUp.slot"),  # type: ignore[arg-type]
    (DrawFaceUp("0"), "DrawFaceUp.slot"),  # type: ignore[arg-type]
    (DrawFaceUp(1.0), "DrawFaceUp.slot"),  # type: ignore[arg-type]
    (DrawFaceUp(-1), "DrawFaceUp.slot"),
    (DrawFaceUp(10**5000), "DrawFaceUp.slot"),
    (DrawFaceUp(None), "DrawFaceUp.slot"),  # type: ignore[arg-type]
    (PlaceThree((0, 1, 99)), "PlaceThree.colours"),
    (PlaceThree((0, 1, -1)), "PlaceThree.colours"),
    (PlaceThree((0, 1, True)), "PlaceThree.colours"),  # type: ignore[arg-type]
    (PlaceThree([RED, GREEN, WHITE]), "PlaceThree.colours"),  # type: ignore[arg-type]
    (PlaceThree((RED, GREEN)), "PlaceThree.colours"),  # type: ignore[arg-type]
    (PlaceThree(7), "PlaceThree.colours"),  # type: ignore[arg-type]
    (KeepDestinations(None), "KeepDestinations.ids"),  # type: ignore[arg-type]
    (KeepDestinations(("a",)), "KeepDestinations.ids"),  # type: ignore[arg-type]
    (KeepDestinations([1, 2]), "KeepDestinations.ids"),  # type: ignore[arg-type]
    (KeepDestinations((True,)), "KeepDestinations.ids"),  # type: ignore[arg-type]
    (KeepDestinations(([1],)), "KeepDestinations.ids"),  # type: ignore[arg-type]
    (None, "not an action"),
    ("draw_deck", "not an action"),
    ({"type": "draw_deck"}, "not an action"),
    (3, "not an action"),
    (DrawDeck, "not an action"),  # the class, not an instance
    (Sneaky(), "not an action"),
    (Hostile(), "not an action"),
    # an exact class of too few (or many) fields: its fields are never read
    (tuple.__new__(DrawFaceUp, ()), "DrawFaceUp must have 1 field, got 0"),
    (tuple.__new__(PlaceColumn, (0,)), "PlaceColumn must have 3 fields, got 1"),
    (tuple.__new__(PlaceThree, ()), "PlaceThree must have 1 field, got 0"),
    (tuple.__new__(KeepDestinations, ()), "KeepDestinations must have 1 field, got 0"),
    (tuple.__new__(DrawFaceUp, (0, 1)), "DrawFaceUp must have 1 field, got 2"),
]


@pytest.mark.parametrize(("action", "field"), MALFORMED_TURN)
def test_checked_path_refuses_malformed_actions_naming_the_field(action, field):
    state = turn_state()
    before = fingerprint(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(action)
    message = str(info.value)
    assert "bad action: " in message and field in message
    assert "\n" not in message and len(message) < 200
    assert info.value.seat == 0
    assert fingerprint(state) == before  # nothing changed
    assert state.card_total() == 96


@pytest.mark.parametrize("phase", ["setup", "second", "over"])
def test_malformed_actions_are_refused_in_every_phase(phase):
    if phase == "setup":
        from cardgame import Game

        state = Game(3, 4).new_state()
        assert state.phase == Phase.SETUP_KEEP
    else:
        state = turn_state()
        if phase == "second":
            state.apply(A.DRAW_DECK)
            assert state.phase == Phase.SECOND_PICK
        else:
            state.phase = Phase.OVER
    before = fingerprint(state)
    for action, field in MALFORMED_TURN:
        with pytest.raises(IllegalActionError, match="bad action: ") as info:
            state.check(action)
        assert field in str(info.value)
        assert fingerprint(state) == before


def test_huge_but_well_typed_values_get_the_ruling():
    state = turn_state()
    with pytest.raises(IllegalActionError, match=r"face-up slot 9 is empty \(R11\)"):
        state.apply(DrawFaceUp(9))
    with pytest.raises(IllegalActionError, match=r"\(R12\)"):
        state.apply(PlaceColumn(RED, 10**6, 0))
    with pytest.raises(IllegalActionError, match=r"\(R13\)"):
        state.apply(KeepDestinations((10**6,)))


def test_well_formed_actions_still_pass_and_the_unchecked_path_is_untouched():
    state = turn_state()
    assert PlaceColumn(RED, 2, 1) in state.legal_actions()
    state.apply(PlaceColumn(RED, 2, 1))
    assert state.yard_wagons[RED] == 2 and state.yard_locos[RED] == 1
    assert sum(state.hands[0]) == 9 - 3 and len(state.hands[0]) == CARD_KINDS


# ------------------------------------------------------------------ fuzz
_small = st.integers(min_value=-3, max_value=50)
_values = st.one_of(
    _small,
    st.integers(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.none(),
    st.binary(max_size=3),
    st.lists(_small, max_size=4),
    st.dictionaries(st.text(max_size=2), _small, max_size=2),
)
_sequences = st.one_of(
    st.tuples(_small, _small, _small),
    st.lists(_small, max_size=4).map(tuple),
    st.lists(_values, max_size=4).map(tuple),
    st.lists(_small, max_size=4),
    _values,
)
_any_action = st.one_of(
    st.sampled_from([A.DRAW_DECK, A.DRAW_DESTINATIONS, A.PASS, Sneaky()]),
    st.builds(DrawFaceUp, st.one_of(st.integers(-2, 11), _values)),
    st.builds(
        PlaceColumn,
        st.one_of(st.integers(-1, 8), _values),
        st.one_of(st.integers(-1, 11), _values),
        st.one_of(st.integers(-1, 17), _values),
    ),
    st.builds(PlaceThree, _sequences),
    st.builds(KeepDestinations, _sequences),
    _values,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 4),
    steps=st.integers(0, 250),
    rules=st.sampled_from([Rules(), Rules(three_locomotive_wipe=True)]),
    data=st.data(),
)
def test_fuzz_checked_path_only_refuses_or_applies(seed, n, steps, rules, data):
    state = random_state(seed, n, rules, steps)
    rng = random.Random(seed)
    for _ in range(12):
        if state.is_over:
            break
        if rng.random() < 0.3:  # keep the game moving through its phases
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            continue
        action = data.draw(_any_action)
        before = fingerprint(state)
        try:
            state.apply(action)
        except IllegalActionError as error:
            assert "\n" not in str(error)
            assert fingerprint(state) == before
        assert state.card_total() == 96


def test_a_view_answers_is_legal_for_any_object_without_raising():
    state = turn_state()
    view = state.view(0)
    for action, _ in MALFORMED_TURN:
        assert view.is_legal(action) is False
    assert view.is_legal(PlaceColumn(RED, 2, 1)) is True
