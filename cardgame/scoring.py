"""Final scoring (R20-R22): a pure function of who reached and who still holds what.

Kept apart from the engine so that a saved game's scores can be recomputed from its record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .catalogue import Catalogue


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's final score and its parts."""

    seat: int
    destination_points: int  # R20: points of every destination reached, all rounds
    penalties: int  # R20: points of destinations still held unreached at the end
    big_cities: tuple[str, ...]  # R21: bonuses won (ties all score)
    bonus_points: int
    reached: int  # number of destinations reached (R22 first tie-break)

    @property
    def total(self) -> int:
        return self.destination_points - self.penalties + self.bonus_points

    def to_dict(self) -> dict:
        return {
            "seat": self.seat,
            "total": self.total,
            "destination_points": self.destination_points,
            "penalties": self.penalties,
            "big_city_bonuses": list(self.big_cities),
            "bonus_points": self.bonus_points,
            "reached": self.reached,
        }


def big_city_winners(
    reached: Sequence[Sequence[int]], catalogue: Catalogue
) -> dict[str, tuple[int, ...]]:
    """For each big city, the seats with the most reached destinations naming it (R21)."""
    names = catalogue.big_city_names
    counts = [dict.fromkeys(names, 0) for _ in reached]
    for seat_counts, ids in zip(counts, reached, strict=True):
        for d in ids:
            for city in set(catalogue.destination(d).cities):  # a destination counts once
                if city in seat_counts:
                    seat_counts[city] += 1
    winners: dict[str, tuple[int, ...]] = {}
    for city in names:
        per_seat = [c[city] for c in counts]
        top = max(per_seat)
        winners[city] = tuple(s for s, n in enumerate(per_seat) if n == top) if top >= 1 else ()
    return winners


def final_scores(
    reached: Sequence[Sequence[int]], held: Sequence[Sequence[int]], catalogue: Catalogue
) -> tuple[SeatScore, ...]:
    """Score every seat from its reached and still-held destination ids (R20, R21)."""
    bonus_of = {b.city: b.points for b in catalogue.big_cities}
    winners = big_city_winners(reached, catalogue)
    scores = []
    for seat, (got, kept) in enumerate(zip(reached, held, strict=True)):
        cities = tuple(c for c in catalogue.big_city_names if seat in winners[c])
        scores.append(
            SeatScore(
                seat=seat,
                destination_points=sum(catalogue.destination(d).points for d in got),
                penalties=sum(catalogue.destination(d).points for d in kept),
                big_cities=cities,
                bonus_points=sum(bonus_of[c] for c in cities),
                reached=len(got),
            )
        )
    return tuple(scores)


def winners(scores: Sequence[SeatScore]) -> tuple[int, ...]:
    """Seats that win (R22): score, then destinations reached, then bonuses; else shared."""

    def key(s: SeatScore) -> tuple[int, int, int]:
        return (s.total, s.reached, len(s.big_cities))

    best = max(key(s) for s in scores)
    return tuple(s.seat for s in scores if key(s) == best)
