"""A strategy is a guest: whatever it mutates of what it can reach in process, rivals, scores
and later games stay as they were.

The vandal below plays exactly like the planner, but before each decision it tries to change
every object reachable from its view, the public catalogue, the rules and the action
constants: ``object.__setattr__`` on every field, ``clear()`` on every container. Its games
must equal the plain planner's, row for row, and games played after it in the same process
must equal games played before it.
"""

from __future__ import annotations

import types
from typing import Any

import pytest

from cardgame import Rules, default_catalogue
from cardgame import actions as A
from cardgame import cards as C
from cardgame import catalogue as K
from cardgame import rules as R
from cardgame.observation import SeatView
from sims.match import GameSpec, play_game
from sims.strategies.planner import Planner
from sims.strategy import StrategySpec

_ATOMS = (str, bytes, int, float, bool, complex, type(None), range)
_CODE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _public_values() -> list[Any]:
    """What any in-process code reaches through the engine's public names."""
    return [
        default_catalogue(),
        Rules(),
        R.DEFAULT_RULES,
        R.DEFAULT_ROUNDS,
        C.COLOUR_INDEX,
        K.POINT_BANDS,
        K.SHIPPED_CIRCLES,
        A.DRAW_DECK,
        A.DRAW_DESTINATIONS,
        A.PASS,
        A.DRAW_FACE_UP,
        A.COLUMNS,
        A.THREES,
    ]


def vandalise(roots: list[Any], limit: int = 20_000) -> int:
    """Try to change every object reachable from ``roots``; return how many attempts landed."""
    landed = 0
    seen: set[int] = set()
    stack = list(roots)
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (*_ATOMS, *_CODE)):
            continue
        seen.add(id(obj))
        if isinstance(obj, (tuple, list, set, frozenset)):
            stack.extend(obj)
        if isinstance(obj, (dict, types.MappingProxyType)):
            stack.extend(obj.values())
        names = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ())]
        names += list(getattr(type(obj), "_fields", ()))
        names += list(getattr(obj, "__dict__", {}))
        for name in names:
            try:
                stack.append(getattr(obj, name))
            except Exception:
                continue
            for junk in (99, None):
                try:
                    object.__setattr__(obj, name, junk)
                    landed += 1
                except Exception:
                    pass
        for wreck in ("clear", "popitem", "pop"):
            try:
                getattr(obj, wreck)()
                landed += 1
            except Exception:
                pass
        try:
            obj[0] = 99  # type: ignore[index]
            landed += 1
        except Exception:
            pass
    return landed


class Vandal(Planner):
    """The planner, after trying to wreck everything it can reach."""

    landed = 0

    def decide(self, view: SeatView) -> Any:
        legal = view.legal_actions()
        Vandal.landed += vandalise([view, *legal, *_public_values()])
        return super().decide(view)


class PlainGuest(Planner):
    """The same planner without the vandalism: what the vandal's games must equal."""


def _outcome(guest: str, seed: int, players: int = 2) -> Any:
    seats = [StrategySpec("guest", f"{__name__}:{guest}")]
    seats += [StrategySpec("planner", "planner")] * (players - 1)
    spec = GameSpec("t", "c", "base", Rules(), players, tuple(seats), seed, seed)
    out = play_game(spec, record=True)
    return out.game, out.seats, out.destinations, out.record


def _builtin(seed: int, engine: str) -> Any:
    seats = (StrategySpec("planner", "planner"), StrategySpec("thief", "thief"))
    out = play_game(GameSpec("t", "c", "base", Rules(), 2, seats, seed, seed), engine=engine)
    return out.game, out.seats, out.destinations


@pytest.mark.parametrize("players", [2, 3])
def test_a_vandal_changes_nothing_but_its_own_mind(players):
    later = {(s, e): _builtin(s, e) for s in (1, 2) for e in ("python", "auto")}
    points = [d.points for d in default_catalogue().destinations]
    for seed in (5, 6):
        plain = _outcome("PlainGuest", seed, players)
        Vandal.landed = 0
        vandal = _outcome("Vandal", seed, players)
        assert not vandal[0]["failed"], vandal[0]["failure_error"]
        assert Vandal.landed == 0, "some shared object yielded to the vandal"
        assert repr(vandal) == repr(plain)  # rivals, scores, offers, record (repr: nan)
    assert [d.points for d in default_catalogue().destinations] == points
    assert Rules() == Rules(rounds={4: 2})
    for (seed, engine), before in later.items():
        assert repr(_builtin(seed, engine)) == repr(before)  # later games, either engine


def test_the_vandal_would_notice_a_mutable_shared_object():
    """The walk is not blind: a frozen dataclass and a dict it reaches are changed."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Frozen:
        points: int

    box = {"k": Frozen(12)}
    frozen = box["k"]
    assert vandalise([box, frozen]) > 0
    assert frozen.points != 12 and "k" not in box
