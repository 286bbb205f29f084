"""A search player: information-set Monte Carlo tree search over sampled worlds."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from cardgame import Action
from cardgame.knowledge import Knowledge
from cardgame.observation import SeatView

from ..memory import Memory, with_own_pile
from ..strategy import MemoryKnobs, Strategy
from .ismcts import SearchResult, SearchSettings, search
from .rollout import ROLLOUT_POLICIES


@dataclass(frozen=True)
class IsmctsKnobs(MemoryKnobs):
    iterations: int = 64  # play-outs per decision: the budget (reproducible)
    exploration: float = 0.35  # UCT constant on rewards in [0, 1]
    rollout: str = "planner"  # policy of every seat in play-outs: planner or random
    widening: float = 1.0  # candidates open at a node: 1 + widening * sqrt(visits)
    margin_weight: float = 0.5  # reward = (1 - w) * win + w * squashed score margin
    root: str = "halving"  # halving: common-world sequential halving at the root; uct: UCT
    max_root: int = 8  # candidate moves sequential halving starts from
    confidence: float = 1.0  # halving: standard errors a move must beat planner's move by
    horizon: int = 0  # > 0: cut play-outs off after this many turns, score estimated totals
    seconds: float = 0.0  # > 0: also stop a search after this many seconds (not reproducible)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        if self.exploration < 0:
            raise ValueError(f"exploration must be >= 0, got {self.exploration}")
        if self.rollout not in ROLLOUT_POLICIES:
            raise ValueError(
                f"rollout must be one of {', '.join(ROLLOUT_POLICIES)}, got {self.rollout!r}"
            )
        if self.widening < 0:
            raise ValueError(f"widening must be >= 0, got {self.widening}")
        if not 0.0 <= self.margin_weight <= 1.0:
            raise ValueError(f"margin_weight must be in [0, 1], got {self.margin_weight}")
        if self.root not in ("halving", "uct"):
            raise ValueError(f"root must be halving or uct, got {self.root!r}")
        if self.max_root < 2:
            raise ValueError(f"max_root must be at least 2, got {self.max_root}")
        if self.confidence < 0:
            raise ValueError(f"confidence must be >= 0, got {self.confidence}")
        if self.horizon < 0:
            raise ValueError(f"horizon must be >= 0 turns (0: play to the end), got {self.horizon}")
        if self.seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {self.seconds}")


class Ismcts(Strategy):
    name = "ismcts"
    intent = (
        "Searches: samples worlds consistent with what it has seen, tries planner's move and "
        "its alternatives in the same worlds by playing the games out with planner, and "
        "plays an alternative only when it is clearly better."
    )
    traits = frozenset({"searches", "remembers_game"})
    Knobs = IsmctsKnobs
    knobs: IsmctsKnobs
    remembers_game: ClassVar[bool] = True  # the runner passes Knowledge to decide_knowing

    def decide_knowing(self, knowledge: Knowledge) -> Action:
        view = knowledge.view
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        forgotten, advice = 0, None
        memory = self.memory
        if isinstance(memory, Memory):
            # human memory: the worlds hold the cards it recalls, and the forgotten ones'
            # kinds are sampled in each like any unseen card; its candidate moves come from
            # its estimate of the pile, as a human planner's would
            belief = memory.belief(view)
            forgotten, advice = belief.forgotten, memory.recall(view)
            knowledge = dataclasses.replace(knowledge, view=with_own_pile(view, belief.recalled))
        self.last_search = self._search(knowledge, forgotten, advice)
        return self.last_search.action

    def _search(
        self, knowledge: Knowledge, forgotten: int, advice: SeatView | None
    ) -> SearchResult:
        k = self.knobs
        settings = SearchSettings(
            iterations=k.iterations,
            exploration=k.exploration,
            rollout=k.rollout,
            widening=k.widening,
            margin_weight=k.margin_weight,
            root=k.root,
            max_root=k.max_root,
            confidence=k.confidence,
            horizon=k.horizon,
            seconds=k.seconds,
        )
        return search(knowledge, settings, self.rng, forgotten, advice)

    def decide(self, view: SeatView) -> Action:
        raise TypeError(
            "ismcts needs the game's public history: play it through sims (play_game, a study "
            "or cardgame watch), which calls decide_knowing"
        )
