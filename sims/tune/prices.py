"""The edition's price list: the designer's principle "same cost, same points" as a prior for
a ticket's points, read from the edition's own other tickets.

A ticket costs the same in play as another when it has the same circles (counted with their
repeats) and names the same big cities: the colours are symmetric (the deck holds as many of
each). Where a ticket's same-cost mates print one shared price (a price within 1 of every
mate's points, the middle of those), that is its price; else the price a robust (Huber) fit of
the other tickets' points on their circles and named bonus points gives it, trusted no closer
than tickets of one cost lie apart. The ticket's own points never enter its price, so a
mispriced ticket cannot pull its yardstick."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from cardgame import Catalogue

from .space import ticket_costs

# the smallest spread a price is trusted to: tickets of one cost printed alike would
# otherwise make the price list certain and the games' evidence worthless
MIN_SPREAD = 0.5


@dataclass(frozen=True)
class Price:
    """A ticket's price by the edition's other tickets; how far apart the edition prices
    tickets of one cost (``spread``, one standard deviation in points); the price's own
    standard error as an estimate of its cost's price (``error``: the spread over the root of
    the number of mates, or the fit's error at the ticket's cost); and where it comes from
    (``mates``: its same-cost tickets' shared price; ``fit``: the deck's points on cost)."""

    value: float
    spread: float
    error: float
    source: str

    @property
    def apart(self) -> float:
        """How far one ticket's points may lie from the price: its cost's spread and the
        price's own error together."""
        return math.sqrt(self.spread**2 + self.error**2)


def cost_class(cards: Catalogue) -> dict[int, tuple[tuple[int, ...], tuple[str, ...]]]:
    """Each ticket's cost in play: its circles' repeats, largest first, and the big cities
    it names (the colours themselves left out: the deck holds as many of each)."""
    big = set(cards.big_city_names)
    out = {}
    for ticket in cards.destinations:
        counts: dict[int, int] = {}
        for colour in ticket.colours:
            counts[colour] = counts.get(colour, 0) + 1
        repeats = tuple(sorted(counts.values(), reverse=True))
        names = tuple(sorted(c for c in (ticket.city_a, ticket.city_b) if c in big))
        out[ticket.id] = (repeats, names)
    return out


def price_list(cards: Catalogue) -> dict[int, Price]:
    """Every ticket's price from the edition's other tickets (see the module docstring)."""
    classes = cost_class(cards)
    points = {d.id: float(d.points) for d in cards.destinations}
    costs = ticket_costs(cards)
    members: dict[tuple, list[int]] = {}
    for card, key in classes.items():
        members.setdefault(key, []).append(card)
    out = {}
    for card, key in classes.items():
        mates = [points[m] for m in members[key] if m != card]
        spread = within_spread(classes, points, leave_out=card)
        low, high = (max(mates) - 1, min(mates) + 1) if mates else (1.0, 0.0)
        if low <= high:
            out[card] = Price((low + high) / 2, spread, spread / math.sqrt(len(mates)), "mates")
        else:
            value, scale, error = _fitted(points, costs, card)
            # the fit cannot know a cost's price closer than the edition's tickets of one
            # cost agree: its robust scale alone would judge a ticket without mates more
            # strictly than one with them
            out[card] = Price(value, max(spread, scale), error, "fit")
    return out


def within_spread(
    classes: dict[int, tuple[tuple[int, ...], tuple[str, ...]]],
    values: dict[int, float],
    leave_out: int,
) -> float:
    """The pooled standard deviation of ``values`` within the classes of tickets of one cost
    (the ticket priced left out): how far apart the edition puts one cost, in points."""
    members: dict[tuple, list[float]] = {}
    for card, key in classes.items():
        if card != leave_out and card in values and math.isfinite(values[card]):
            members.setdefault(key, []).append(values[card])
    squares, freedom = 0.0, 0
    for found in members.values():
        if len(found) > 1:
            mean = sum(found) / len(found)
            squares += sum((v - mean) ** 2 for v in found)
            freedom += len(found) - 1
    return max(MIN_SPREAD, math.sqrt(squares / freedom)) if freedom else 2.0


def _fitted(
    points: dict[int, float], costs: dict[int, tuple[float, float]], card: int
) -> tuple[float, float, float]:
    """The Huber fit of the other tickets' points on [1, circles, named bonus points]: its
    value at the ticket's cost, its residuals' robust scale and its standard error there."""
    import statsmodels.api as sm

    others = [c for c in points if c != card]
    design = np.array([[1.0, *costs[c]] for c in others])
    y = np.array([points[c] for c in others])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sm.RLM(y, design, M=sm.robust.norms.HuberT()).fit()
    at = np.array([1.0, *costs[card]])
    error = float(np.sqrt(max(at @ fit.cov_params() @ at, 0.0)))
    return float(at @ fit.params), float(fit.scale), error
