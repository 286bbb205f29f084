"""One game between configured strategies, played on the table clock, as tidy rows.

A strategy that raises or returns an illegal action does not stop the study: the game is
returned as failed, naming the seat, the strategy and the error.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from cardgame import Action, Game, GameState, IllegalActionError, KeepDestinations, Phase, Rules
from cardgame.record import to_record
from cardgame.state import KEEP_DRAWN, SETUP_KEEP

from .clock import ThinkTimes, play_on_clock
from .seeding import stream_seed
from .strategy import Strategy, StrategySpec

# Only train draws bring the end nearer: strategies that never draw could play forever.
MAX_TURNS = 2000


@dataclass(frozen=True)
class GameSpec:
    """Everything that fixes one game of a study."""

    study: str
    cell: str
    variant: str
    rules: Rules
    players: int
    seats: tuple[StrategySpec, ...]  # in seat order
    index: int
    seed: int


@dataclass
class GameOutcome:
    game: dict[str, Any]
    seats: list[dict[str, Any]] = field(default_factory=list)
    destinations: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None


class StrategyFailure(Exception):
    """A seat's strategy raised or chose an illegal action (args kept: SimPy re-raises)."""

    def __init__(self, seat: int, label: str, error: str) -> None:
        super().__init__(seat, label, error)
        self.seat, self.label, self.error = seat, label, error

    def __str__(self) -> str:
        return self.error


def play_game(spec: GameSpec, times: ThinkTimes | None = None, record: bool = False) -> GameOutcome:
    """Play one game; ``times=None`` plays without the clock (for measuring its overhead)."""
    game = Game(spec.players, spec.seed, spec.rules)
    state = game.new_state(record=record)
    strategies: list[Strategy] = []
    for seat, seat_spec in enumerate(spec.seats):
        rng = random.Random(stream_seed(spec.seed, f"seat{seat}:{seat_spec.label}"))
        strategies.append(seat_spec.build(rng))
    offers: list[dict[str, Any]] = []

    def step() -> tuple[Phase, Action]:
        seat = state.seat
        phase = state.phase
        if state.turn > MAX_TURNS:
            raise StrategyFailure(
                seat, spec.seats[seat].label, f"no end in sight: over {MAX_TURNS} turns"
            )
        try:
            action = strategies[seat].decide(state.view(seat))  # a fresh copy each decision
        except Exception as exc:  # a strategy's bug must not stop the study
            raise StrategyFailure(
                seat, spec.seats[seat].label, f"{type(exc).__name__}: {exc}"
            ) from exc
        if phase in (SETUP_KEEP, KEEP_DRAWN):
            offered = list(state.offers[seat])
            turn, round_number = state.turn, state.round
        try:
            state.apply(action)
        except IllegalActionError as exc:
            raise StrategyFailure(seat, spec.seats[seat].label, str(exc)) from None
        if phase in (SETUP_KEEP, KEEP_DRAWN):
            kept = set(action.ids) if isinstance(action, KeepDestinations) else set()
            for dest_id in offered:
                offers.append(
                    {
                        "seat": seat,
                        "destination_id": dest_id,
                        "offered_turn": turn,
                        "offered_round": round_number,
                        "kept": dest_id in kept,
                    }
                )
        return phase, action

    minutes = float("nan")
    try:
        if times is None:
            while not state.is_over:
                step()
        else:
            clock_rng = random.Random(stream_seed(spec.seed, "clock"))
            minutes = play_on_clock(state, step, times, clock_rng)
    except StrategyFailure as failure:
        return GameOutcome(game=_game_row(spec, state, minutes, failure))
    outcome = GameOutcome(
        game=_game_row(spec, state, minutes, None),
        seats=_seat_rows(spec, state),
        destinations=_destination_rows(spec, state, offers),
    )
    if record:
        outcome.record = to_record(state, [s.label for s in spec.seats])
    return outcome


def _base(spec: GameSpec) -> dict[str, Any]:
    return {
        "study": spec.study,
        "cell": spec.cell,
        "variant": spec.variant,
        "players": spec.players,
        "game_index": spec.index,
        "seed": spec.seed,
    }


def _game_row(
    spec: GameSpec, state: GameState, minutes: float, failure: StrategyFailure | None
) -> dict[str, Any]:
    labels = [s.label for s in spec.seats]
    winners = list(state.winners)
    return {
        **_base(spec),
        "seats": "|".join(labels),
        "winners": "|".join(str(w) for w in winners),
        "winner_strategies": "|".join(labels[w] for w in winners),
        "n_winners": len(winners),
        "turns": state.turn,
        "rounds": state.round,
        "sim_minutes": minutes,
        "steals": sum(state.steals),
        "failed": failure is not None,
        "failure_seat": failure.seat if failure else -1,
        "failure_strategy": failure.label if failure else "",
        "failure_error": failure.error if failure else "",
    }


def _seat_rows(spec: GameSpec, state: GameState) -> list[dict[str, Any]]:
    winners = state.winners
    rows = []
    for score in state.scores:
        seat = score.seat
        points = state.round_points[seat]
        rows.append(
            {
                **_base(spec),
                "seat": seat,
                "strategy": spec.seats[seat].label,
                "score": score.total,
                "destination_points": score.destination_points,
                "penalties": score.penalties,
                "bonus_points": score.bonus_points,
                "big_cities": "|".join(score.big_cities),
                "n_big_cities": len(score.big_cities),
                "kept": len(state.reached[seat]) + len(state.held[seat]),
                "reached": len(state.reached[seat]),
                "unreached": len(state.held[seat]),
                "is_winner": seat in winners,
                "win_share": 1.0 / len(winners) if seat in winners else 0.0,
                "rank": 1 + sum(1 for s in state.scores if s.total > score.total),
                "hand_left": sum(state.hands[seat]),
                "circulation_end": sum(state.circulation[seat]),
                "steals_made": state.steals[seat],
                "steals_suffered": state.stolen_from[seat],
                "round1_points": points[0] if points else 0,
                "round2_points": points[1] if len(points) > 1 else None,
            }
        )
    return rows


def _destination_rows(
    spec: GameSpec, state: GameState, offers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    catalogue = state.game.catalogue
    rows = []
    for offer in offers:
        dest = catalogue.destination(offer["destination_id"])
        seat = offer["seat"]
        reached_round = state.reached_round.get(dest.id) if offer["kept"] else None
        reached = reached_round is not None and dest.id in state.reached[seat]
        rows.append(
            {
                **_base(spec),
                **offer,
                "strategy": spec.seats[seat].label,
                "points": dest.points,
                "cards": len(dest.colours),
                "reached": reached,
                "reached_round": reached_round if reached else None,
                "net_points": (dest.points if reached else -dest.points) if offer["kept"] else 0,
            }
        )
    return rows
