"""Players adapted to each candidate design (``tune --adapt GAMES``): every design the tune
plays, the current one, each candidate and the hold-out's, is played by strategies whose
knobs were fitted to that design (sims/adapt.py), so that the tune judges a design by how
players who noticed its edits do in it.

A design's adaptation is a function of the design alone: one study with the design as its
only variant, the tune's line-ups and root seed, the study's adapt budget and strategies; so
two arms that resolve to the same rules and cards (in any step, in a resumed tune) share it.
It is searched once and kept in the tune's folder (``adapted/DIGEST.json``, the digest of the
design's rules and cards); a design's strategies are searched side by side in the tune's
worker processes, each search in one process from its own seeds, so the knobs are the same
whatever the number of workers.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardgame.catalogue import catalogue_rows

from ..errors import TuneError, TuneInterrupted
from ..files import write_atomic
from ..study import BASE, Study, from_dict
from .space import Design

if TYPE_CHECKING:
    from ..adapt import Adaptation
    from ..plan import Plan
    from .tuner import Tuner

FOLDER = "adapted"


@dataclass(frozen=True)
class DesignPlayers:
    """The adaptations of one design: each strategy's search and whether it is used."""

    digest: str
    adaptations: tuple[Mapping[str, Any], ...]

    def knobs(self) -> dict[str, dict[str, Any]]:
        """label -> the knobs adapted to this design, where the adaptation is used."""
        return {a["label"]: dict(a["adapted"]) for a in self.adaptations if a["used"]}

    @property
    def games(self) -> int:
        return sum(int(a["games"]) for a in self.adaptations)


class AdaptedPlayers:
    """The tune's cache of adapted players, by design digest (in memory and on disk)."""

    def __init__(self, tuner: Tuner) -> None:
        self.t = tuner
        self.budget = tuner.study.adapt_budget
        self.strategies = tuner.study.adapt_strategies
        self.folder = tuner.out / FOLDER
        self.found: dict[str, DesignPlayers] = {}

    def digest(self, design: Design) -> str:
        """What the design plays: its complete rules and its cards, as a digest."""
        rules, cards = self.t.space.resolve(design)
        text = json.dumps(
            {"rules": rules.to_dict(), "cards": catalogue_rows(cards)},
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def for_designs(self, designs: Mapping[str, Design]) -> dict[str, DesignPlayers]:
        """Each arm's adapted players, searched where no design with its digest was."""
        digests = {arm: self.digest(design) for arm, design in designs.items()}
        missing: dict[str, Design] = {}
        for arm, digest in digests.items():
            if digest not in self.found and not self._read(digest):
                missing.setdefault(digest, designs[arm])
        if missing:
            self._search(missing)
        return {arm: self.found[digest] for arm, digest in digests.items()}

    def _read(self, digest: str) -> bool:
        path = self.folder / f"{digest}.json"
        if not path.is_file():
            return False
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found = DesignPlayers(digest, tuple(data["adaptations"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TuneError(f"{path}: cannot read ({exc})") from None
        self.found[digest] = found
        return True

    def plan(self, design: Design) -> Plan:
        """The study whose one variant is ``design``: what its strategies adapt to."""
        data = copy.deepcopy(self.t.source)
        for key in ("sweeps", "pool"):
            data.pop(key, None)
        data["adapt"] = {
            "budget": self.budget,
            **({"strategies": list(self.strategies)} if self.strategies else {}),
        }
        data["seed"] = self.t.seed
        data["games_per_cell"] = 1
        data["lineups"] = [list(x) for x in self.t.runner.lineups]
        data["players"] = sorted({len(x) for x in self.t.runner.lineups})
        data["output"] = str(self.folder)
        if self.t.cards is not None:
            data["cards"] = self.t.cards
        data["variants"] = {BASE: design.variant_table()}
        study: Study = from_dict(data, "tune: adapted players")
        return study.plan

    def _search(self, designs: dict[str, Design]) -> None:
        from ..adapt import adaptable

        jobs: list[tuple[str, str]] = []
        plans = {digest: self.plan(design) for digest, design in designs.items()}
        for digest, plan in plans.items():
            named = plan.adapt_strategies or tuple(plan.strategies)
            labels = [x for x in named if adaptable(plan.strategies[x])]
            jobs += [(digest, label) for label in labels]
        results: dict[tuple[str, str], Adaptation | None] = {}
        pool = self.t.runner.pool  # the tune's warm workers, between its steps' games
        if min(pool.workers, len(jobs)) <= 1:  # here: a worker would wait on it all the same
            for digest, label in jobs:
                if self.t.stop:
                    raise TuneInterrupted("interrupted")
                results[(digest, label)] = _adapt_one(plans[digest], label)
        else:
            from concurrent.futures import wait

            futures = {pool.submit(_adapt_one, plans[d], x): (d, x) for d, x in jobs}
            pending = set(futures)
            while pending:
                if self.t.stop:
                    pool.close(kill=True)
                    raise TuneInterrupted("interrupted")
                done, pending = wait(pending, timeout=0.5)
                for future in done:
                    results[futures[future]] = future.result()
        for digest, design in designs.items():
            found = tuple(
                a.to_dict()
                for (d, _), a in sorted(results.items())
                if d == digest and a is not None
            )
            players = DesignPlayers(digest, found)
            self.found[digest] = players
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(
                self.folder / f"{digest}.json",
                json.dumps(
                    {"design": design.describe(), "budget": self.budget, "adaptations": found},
                    indent=2,
                    sort_keys=True,
                ),
            )
            self.t.log(f"players adapted to {design.describe()}: {said(players)}")

    def summary(self) -> dict[str, Any]:
        """What tune.json keeps: the settings, and per design digest its adaptations."""
        return {
            "budget": self.budget,
            "strategies": list(self.strategies),
            "designs": {
                digest: list(players.adaptations) for digest, players in sorted(self.found.items())
            },
            "games": sum(p.games for p in self.found.values()),
        }

    def sentence(self) -> str:
        """The tune's players, in words, for its verdict and page."""
        every = [a for p in self.found.values() for a in p.adaptations]
        used = sum(1 for a in every if a["used"])
        who = ", ".join(self.strategies) if self.strategies else "every scripted strategy"
        return (
            f"Players adapted to each design (--adapt {self.budget:,} games a strategy and "
            f"design; {who}): {len(self.found)} design(s), the adapted knobs used in {used} "
            f"of {len(every)} searches (elsewhere they did not beat the study's knobs on "
            "held-out deals, and the study's knobs played)."
        )


def said(players: DesignPlayers) -> str:
    if not players.adaptations:
        return "no strategy meets another to adapt against"
    parts = [
        f"{a['label']} {'adapted' if a['used'] else 'kept its knobs'}" for a in players.adaptations
    ]
    return f"{', '.join(parts)} ({players.games:,} games)"


def _adapt_one(plan: Plan, label: str) -> Adaptation | None:
    from ..adapt import adapt_one

    return adapt_one(plan, BASE, label)


def with_players(
    study: Study,
    players: Mapping[str, DesignPlayers],
    budget: int,
    strategies: tuple[str, ...],
) -> Study:
    """``study`` playing each arm with the players adapted to it (the plan's ``adapted``, as
    a study's own adaptation sets it; the manifest keeps it). A study resolves its plan once
    and keeps it: the plan with the adapted players takes its place."""
    from dataclasses import replace

    adapted = {arm: p.knobs() for arm, p in players.items() if p.knobs()}
    adaptations = tuple({**a, "variant": arm} for arm, p in players.items() for a in p.adaptations)
    plan = replace(
        study.plan,
        adapt_budget=budget,
        adapt_strategies=strategies,
        adapted=adapted,
        adaptations=adaptations,
    )
    vars(study)["plan"] = plan
    return study
