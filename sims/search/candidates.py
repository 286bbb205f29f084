"""The moves a search considers at one of its own decisions, most promising first.

All legal moves would spread a few hundred play-outs over dozens of columns that differ by
one wagon. The search considers the planner's own choice first, then the alternatives a
player would weigh: the other kinds of move (draw blind, a face-up card of each kind, new
destinations), the best column of each colour, the best three-colour play; and, for
destination keeps, the planner's set with one destination added or dropped. Progressive
widening (``sims.search.ismcts``) opens them in this order.
"""

from __future__ import annotations

import random

from cardgame import Action, KeepDestinations
from cardgame import actions as A
from cardgame.observation import SeatView
from cardgame.state import KEEP_DRAWN, SECOND_PICK, SETUP_KEEP, TURN

from ..strategies.common import Situation
from ..strategies.planner import Planner

_SCRATCH_RNG = random.Random(0)  # the planner draws nothing: its rng is never used


def candidates(view: SeatView, legal: list[Action]) -> list[Action]:
    """Candidate moves for the seat to move in ``view``, best prior first, no repeats."""
    if len(legal) <= 1:
        return legal
    advisor = Planner(_SCRATCH_RNG)
    plan = advisor.decide(view)
    phase = view.phase
    if phase == TURN:
        others = _turn_alternatives(advisor, view, legal)
    elif phase == SECOND_PICK:
        others = _pick_alternatives(advisor.situation(view), view, legal, advisor)
    elif phase in (SETUP_KEEP, KEEP_DRAWN):
        others = _keep_alternatives(plan, view, legal)  # type: ignore[arg-type]
    else:
        others = legal
    out: list[Action] = [plan]
    seen = {plan}
    for action in others:
        if action not in seen:
            seen.add(action)
            out.append(action)
    return out


def _pick_alternatives(
    situation: Situation, view: SeatView, legal: list[Action], advisor: Planner
) -> list[Action]:
    """The blind draw and one face-up slot per card kind, by the planner's card value."""
    picks: list[tuple[float, int, Action]] = []
    kinds: set[int] = set()
    for action in legal:
        if type(action) is A.DrawFaceUp:
            card = view.face_up[action.slot]
            if card in kinds:
                continue
            kinds.add(card)
            picks.append((-advisor.card_value(situation, card), action.slot, action))
    picks.sort(key=lambda p: (p[0], p[1]))
    out: list[Action] = [a for a in legal if type(a) is A.DrawDeck]
    out.extend(p[2] for p in picks)
    return out


def _turn_alternatives(advisor: Planner, view: SeatView, legal: list[Action]) -> list[Action]:
    situation = advisor.situation(view)
    best_column: dict[int, tuple[float, int, Action]] = {}
    best_three: tuple[float, Action] | None = None
    for action in legal:
        kind = type(action)
        if kind is A.PlaceColumn:
            c, w, lo = action.colour, action.wagons, action.locos  # type: ignore[union-attr]
            value = advisor.placement_value(situation, c, w, lo)
            key = (value, w + lo)
            held = best_column.get(c)
            if held is None or key > held[:2]:
                best_column[c] = (value, w + lo, action)
        elif kind is A.PlaceThree:
            value = float(sum(situation.deficit[c] > 0 for c in action.colours))  # type: ignore[union-attr]
            if best_three is None or value > best_three[0]:
                best_three = (value, action)
    placements = sorted(best_column.values(), key=lambda p: (-p[0], -p[1]))
    out: list[Action] = [a for a in legal if type(a) is A.DrawDestinations]
    out.extend(p[2] for p in placements[:3])
    out.extend(_pick_alternatives(situation, view, legal, advisor))
    out.extend(p[2] for p in placements[3:])
    if best_three is not None:
        out.append(best_three[1])
    return out


def _keep_alternatives(plan: KeepDestinations, view: SeatView, legal: list[Action]) -> list[Action]:
    """The planner's keep with one destination added or dropped (legal ones only)."""
    allowed = set(legal)
    kept = set(plan.ids)
    offer = view.offer_ids
    out: list[Action] = []
    for dest in offer:
        ids = kept ^ {dest}
        option = KeepDestinations(tuple(d for d in offer if d in ids))
        if option in allowed:
            out.append(option)
    return out


__all__ = ["candidates"]
