"""One protocol, differentially: each answer below is given to a game both ways, as a
strategy's return value in the default mode (``state.apply`` on the checked path) and as an
isolated guest's (its side in sims/guest.py ``_play``, JSON across, the worker's side in
``GuestStrategy.decide``), and the two verdicts are compared. Forms not tried by the earlier
passes: subclasses, numpy and ``int``-subclass fields, lists for tuples, frozensets, extra and
missing fields, an ``other`` shape named as an action class, a float that is whole."""

from __future__ import annotations

import json
import sys

import numpy as np

from cardgame import actions as A
from cardgame.game import Game
from cardgame.rules import Rules
from sims import guest
from sims.match import StrategyFailure, _apply


class Face(A.DrawFaceUp):
    __slots__ = ()


class Whole(int):
    pass


def states(kind: str):
    """A fresh state where ``kind`` of action is asked for (setup keep, or a turn)."""
    state = Game(2, 11, Rules()).new_state()
    if kind == "turn":
        while state.phase == A.SETUP_KEEP:
            offers = state.view(state.seat)[9]
            state.apply(A.KeepDestinations(tuple(offers[:2])))
    return state


def cases():
    keep = lambda s: tuple(s.view(s.seat)[9][:2])  # noqa: E731
    return [
        ("DrawFaceUp(1)", "turn", lambda s: A.DrawFaceUp(1)),
        ("DrawFaceUp(np.int64(1))", "turn", lambda s: A.DrawFaceUp(np.int64(1))),
        ("DrawFaceUp(Whole(1))", "turn", lambda s: A.DrawFaceUp(Whole(1))),
        ("DrawFaceUp(True)", "turn", lambda s: A.DrawFaceUp(True)),
        ("DrawFaceUp(1.0)", "turn", lambda s: A.DrawFaceUp(1.0)),
        ("subclass Face(1)", "turn", lambda s: Face(1)),
        ("DrawFaceUp extra field", "turn", lambda s: tuple.__new__(A.DrawFaceUp, (1, 9))),
        ("DrawFaceUp no field", "turn", lambda s: tuple.__new__(A.DrawFaceUp, ())),
        ("DrawDeck extra field", "turn", lambda s: tuple.__new__(A.DrawDeck, ("x",))),
        ("plain tuple (1,)", "turn", lambda s: (1,)),
        ("None", "turn", lambda s: None),
        ("Keep(tuple)", "keep", lambda s: A.KeepDestinations(keep(s))),
        ("Keep(list)", "keep", lambda s: A.KeepDestinations(list(keep(s)))),
        ("Keep(frozenset)", "keep", lambda s: A.KeepDestinations(frozenset(keep(s)))),
        ("Keep(np ids)", "keep", lambda s: A.KeepDestinations(tuple(np.int64(i) for i in keep(s)))),
        ("Keep(dup ids)", "keep", lambda s: A.KeepDestinations((keep(s)[0], keep(s)[0]))),
        ("Keep(bool ids)", "keep", lambda s: A.KeepDestinations((True, False))),
        ("Keep(Whole ids)", "keep", lambda s: A.KeepDestinations(tuple(Whole(i) for i in keep(s)))),
        ("PlaceColumn(np)", "turn", lambda s: A.PlaceColumn(np.int64(0), 1, 0)),
        ("PlaceThree(list)", "turn", lambda s: A.PlaceThree([0, 1, 2])),
    ]


class _Seat:
    label = "seat"


class _Spec:
    """What ``_apply`` reads of a game's spec: its seats' labels."""

    seats = (_Seat(), _Seat())


SPEC = _Spec()


def default_mode(state, action) -> str:
    try:
        _apply(SPEC, state, state.seat, action)  # type: ignore[arg-type]
    except StrategyFailure as exc:
        return "fails: " + exc.error[:90]
    return "played"


def isolated(state, action) -> str:
    colours = A.COLOURS
    try:  # the guest's side (_play)
        if A.malformed(action, len(colours)) is None:
            answer = {"action": A.to_dict(action, colours)}
        else:
            try:
                found = guest.shape(action)
            except Exception:
                found = ["other", "object"]
            answer = {"shape": found}
    except BaseException as exc:
        return f"fails (its process raised {type(exc).__name__})"
    answer = json.loads(json.dumps(answer))
    try:  # the worker's side (GuestStrategy.decide)
        if "shape" in answer:
            rebuilt = guest.rebuilt(answer["shape"])
        else:
            rebuilt = guest.canonical_action(answer["action"], colours)
    except guest.GuestError as exc:
        return "fails: " + str(exc)[:90]
    return default_mode(state, rebuilt)


def main() -> int:
    differ = 0
    for name, kind, make in cases():
        a, b = states(kind), states(kind)
        d = default_mode(a, make(a))
        i = isolated(b, make(b))
        same = (d == "played") == (i == "played")
        differ += not same
        print(f"{'SAME ' if same else 'DIFFER'} {name:26} default: {d[:60]:60} isolated: {i[:70]}")
    print(f"{differ} of {len(cases())} answers judged differently")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
