"""Strategies that remember the game get the seat's Knowledge from the runner, and nothing
they return or raise breaks the study."""

from __future__ import annotations

from typing import ClassVar

from cardgame import Rules
from cardgame import actions as A
from cardgame.knowledge import Knowledge
from sims.match import GameSpec, play_game
from sims.strategies.planner import Planner
from sims.strategy import StrategySpec, spec


class Remembering(Planner):
    """Plays like planner from the Knowledge's view, and keeps every Knowledge it got."""

    remembers_game: ClassVar[bool] = True
    seen: ClassVar[list[Knowledge]] = []

    def decide_knowing(self, knowledge: Knowledge):  # type: ignore[no-untyped-def]
        Remembering.seen.append(knowledge)
        return self.decide(knowledge.view)


class JunkWhenRemembering(Planner):
    remembers_game: ClassVar[bool] = True

    def decide_knowing(self, knowledge: Knowledge):  # type: ignore[no-untyped-def]
        if knowledge.view.turn > 6:
            return A.DrawFaceUp(99)  # out of range: the tracker must not choke on it first
        return self.decide(knowledge.view)


class RaisingWhenRemembering(Planner):
    remembers_game: ClassVar[bool] = True

    def decide_knowing(self, knowledge: Knowledge):  # type: ignore[no-untyped-def]
        raise RuntimeError("lost the thread")


def _game(first: StrategySpec, players: int = 3, seed: int = 4) -> GameSpec:
    seats = (first, *tuple(spec("planner") for _ in range(players - 1)))
    return GameSpec("t", "t", "base", Rules(), players, seats, 0, seed)


def _custom(cls: type) -> StrategySpec:
    return StrategySpec(cls.__name__, f"{__name__}:{cls.__name__}")


def test_knowledge_is_given_and_the_game_is_the_planners() -> None:
    Remembering.seen.clear()
    remembered = play_game(_game(_custom(Remembering)), record=True, decision_seconds=0)
    plain = play_game(_game(spec("planner")), record=True, decision_seconds=0)
    assert not remembered.game["failed"]
    assert remembered.record["turns"] == plain.record["turns"]  # same decisions
    assert Remembering.seen and all(k.seat == 0 and k.to_move == 0 for k in Remembering.seen)
    # the public history grows: rivals' kept destination batches are recorded
    assert len(Remembering.seen[-1].dest_batches[1]) >= 1


def test_junk_from_a_remembering_strategy_is_a_failed_game() -> None:
    outcome = play_game(_game(_custom(JunkWhenRemembering)), decision_seconds=0)
    assert outcome.game["failed"] and outcome.game["failure_seat"] == 0
    assert "slot 99" in outcome.game["failure_error"]


def test_a_raising_remembering_strategy_is_a_failed_game() -> None:
    outcome = play_game(_game(_custom(RaisingWhenRemembering)), decision_seconds=0)
    assert outcome.game["failed"]
    assert "lost the thread" in outcome.game["failure_error"]
