"""The tuner: search the printed numbers and rule settings for a design that meets a target.

``tune(study, objective, ...)`` changes what an edit set allows (a ticket's points, a big
city's bonus, a rule setting; names as in sweeps, sims/sweep.py) to bring an objective to its
target, and confirms the result on deals the search never saw. docs/design-loop.md walks
through it; the method in brief:

* **Objectives** (a weighted sum of them): each is a list of *items* with a band, and a loss,
  the mean over its items of (deviation / band)^2 (1: every item at the edge of its band).
  ``seat``: every seat's win share minus its fair share 1/players, per player count (band
  1.5 points). ``strategies``: every non-random strategy's win rate minus what the field would
  win (reports/stats.py's ``vs_field``), only the excess counts (band 5 points).
  ``destinations``: every ticket's deal value against what a ticket of its cost gets, in
  robust z units (band 2.5): for how often it is kept when offered (logit), and its holders'
  winning margin and win share (each minus the mean of its cell and seat), that is, what
  keeping it does for its holder, the residual from a Huber fit across the deck on its
  circles and named bonus points; the mean of the three in robust z units (MAD).
* **Evaluation on common deals**: every step plays, for each line-up of the study, a study
  whose variants are the current design (``base``) and the candidate edits
  (``PARAMETER=VALUE``), paired by deals (for ``seat``: by seatings, each deal in every seat
  order), so each candidate is compared with the current design deal by deal; each line-up
  has deals of its own (see ``Runner``). Statistics are per deal (players, seed), intervals
  from a bootstrap over deals (stratified by player count), normal with the bootstrap's
  standard error.
* **Screen**: the current design alone (10% of the budget): is the target already met? For the
  ``destinations`` objective it fixes each ticket's expected deal value for its cost and the
  z-scales, and names the suspects: the tickets (and big cities) furthest out of line, whose
  values are then tried (points only in the direction that brings the ticket back in line).
  A ticket is out of line by its deal value and by its points against the edition's price
  list (``prices``: what its same-cost mates share, else the deck's points fitted on cost),
  the two counted once each.
* **Racing** (per round): the arms are played in increments of deals; an arm is dropped once it
  is worse than the best arm (the current design included) at 99% (one-sided), or once it
  cannot improve on the current design by the indifference margin (2% of the current loss)
  at 99%. A round ends when one arm is left and it beats the current design, when none is
  left, or when its budget is spent (a round that has found nothing significant goes on with
  the rest of the search's budget: there is no later round to keep it for).
* **Greedy combination**: of the surviving arms, those that beat the current design at 95%
  (one-sided, Bonferroni over the survivors) are significant; the best is applied (for
  ``destinations``: the ticket furthest out of line, its points set to its price: where its
  deal value crosses zero in the round, weighed against its price list by how far apart
  tickets of one cost play and are priced), and the
  next round re-evaluates the other significant parameters (and, for ``destinations``, the
  new design's suspects) from the new design. The search stops at ``max_edits`` edits,
  when the target is met, when nothing significant is left or when the budget is spent.
* **Hold-out confirmation**: the starting and the tuned design are played on ``holdout`` games
  each with a different root seed (deals never used in the search); the report's before/after
  intervals and the verdict come from those deals only.

* **Adapted players** (``adapt``, ``--adapt GAMES``, or the study's ``adapt`` table): every
  design played, current, candidate or held out, is played by strategies whose knobs were
  fitted to it (sims/adapt.py), searched once per design (a digest of its rules and cards) and
  kept in the tune's folder (sims/tune/adapted.py).

A step's games are one run of batches on the tune's pool of worker processes, started once and
kept for the whole tune (sims/pool.py ``WarmPool``), its players' adaptations searched on the
same workers: no results folder, manifest or compaction per step, so a tune plays at the pace
of a plain simulate. Each step's per-deal sums are one table under the tune's folder
(``evaluations/STEP.parquet``), so a rerun of the same tune (or ``resume``) replays the
decisions from the steps already there and plays only the steps that are missing; results
are the same whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import TuneError, TuneInterrupted
from ..study import BASE, Study
from .evaluation import margins, per_deal
from .objectives import (
    Context,
    DestinationsObjective,
    Mix,
    expected_values,
    parse_bands,
    parse_objective,
    robust_scales,
)
from .sample import Sample
from .settings import DEFAULT_BUDGET, DEFAULT_HOLDOUT, DEFAULT_MAX_EDITS
from .space import Design, parse_edits
from .study_file import to_toml
from .tuner import Tuner, TuneResult
from .verdict import shown_item

__all__ = [
    "BASE",
    "DEFAULT_BUDGET",
    "DEFAULT_HOLDOUT",
    "Context",
    "Design",
    "DestinationsObjective",
    "Mix",
    "Sample",
    "TuneError",
    "TuneInterrupted",
    "TuneResult",
    "Tuner",
    "expected_values",
    "margins",
    "parse_bands",
    "parse_edits",
    "parse_objective",
    "per_deal",
    "robust_scales",
    "shown_item",
    "to_toml",
    "tune",
]


def tune(
    study: Study | str | Path,
    objective: str | Mapping[str, float] = "seat",
    edits: str | Path | Mapping[str, Any] | None = None,
    max_edits: int = DEFAULT_MAX_EDITS,
    budget: int = DEFAULT_BUDGET,
    holdout: int = DEFAULT_HOLDOUT,
    cards: str | None = None,
    workers: int | None = None,
    out: str | Path = "tune",
    resume: bool = False,
    **options: Any,
) -> TuneResult:
    """Tune ``study`` for ``objective`` (see the module docstring); returns the edits and a
    frame of evaluations (``TuneResult.edits``, ``TuneResult.evaluations``). ``options``:
    players, seed, bands, suspects, progress, stop, log, adapt (games a strategy and design,
    or an adapt table ``{"budget": GAMES, "strategies": [...]}``)."""
    if not isinstance(study, Study):
        from ..study import load_study

        study = load_study(study)
    return Tuner(
        study, objective, edits, max_edits, budget, holdout, cards, workers, out, **options
    ).run(resume)
