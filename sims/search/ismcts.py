"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012).

Each iteration samples a world the observer cannot tell from the real one
(``cardgame.knowledge.sample_world``), walks the observer's tree in it with UCT, adds one
node, plays the rest of the game out with the rollout policy and backs the reward up.

Nodes are the observer's own decisions, reached by its moves since the root. Rivals'
moves between them are made in each sampled world by the rollout policy (an opponent
model): at a few hundred iterations per decision, branching on every rival move as well
would leave each node a visit or two. A child's UCT term uses its availability count (how
often it was legal when its parent was visited), as in ISMCTS, since which moves are legal
deeper in the tree depends on the sampled world. Progressive widening opens the candidates
(``sims.search.candidates``) in prior order: ``1 + widening * sqrt(visits)`` of them.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from cardgame import Action
from cardgame.knowledge import Knowledge
from cardgame.layout import SEAT_VIEW_FIELDS
from cardgame.observation import SeatView

from .candidates import candidates
from .rollout import Engine, Sampler, engine_for, reward


@dataclass(frozen=True)
class SearchSettings:
    iterations: int
    exploration: float
    rollout: str
    widening: float
    margin_weight: float
    root: str = "halving"  # halving: sequential halving on common worlds; uct: plain ISMCTS
    max_root: int = 8  # candidates sequential halving starts from
    confidence: float = 1.0  # standard errors an alternative must beat the baseline by
    horizon: int = 0  # > 0: cut play-outs off this many turns on and score estimated totals
    seconds: float = 0.0  # > 0: also stop when this much time has passed (not reproducible)


Priors = dict[tuple[Any, ...], list[Action]]  # candidates by the observer's view
# a SeatView's last fields, from the rules on (the game's rules and cards): the same in all
# worlds
_GAME_FIELDS = len(SEAT_VIEW_FIELDS) - SEAT_VIEW_FIELDS.index("rules")


class Node:
    __slots__ = ("available", "children", "order", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, Node] = {}
        self.order: dict[Action, int] = {}  # prior rank of each candidate seen here
        self.visits = 0
        self.total = 0.0
        self.available = 0


@dataclass(frozen=True)
class SearchResult:
    action: Action
    iterations: int
    visits: tuple[tuple[Action, int, float], ...]  # (move, visits, mean reward), most visited first


def search(
    knowledge: Knowledge,
    settings: SearchSettings,
    rng: random.Random,
    forgotten: int = 0,
    advice: SeatView | None = None,
    engine: Engine | None = None,
) -> SearchResult:
    """The move chosen at the root after the budget is spent.

    ``forgotten``: cards of its own pile the seat does not recall (``knowledge.view`` holds
    the recalled ones); each sampled world draws their kinds from the unseen cards.
    ``advice``: the view the root's candidate moves are drawn from (default the knowledge's).
    ``engine``: where the worlds are played (``rollout.engine_for``: by default the native
    core when in use); the search and its result are the same on either.
    """
    engine = engine or engine_for()
    sample = engine.sampler(knowledge, forgotten)
    if settings.root == "halving":
        return _search_halving(knowledge, sample, settings, rng, advice or knowledge.view, engine)
    observer = knowledge.seat
    root = Node()
    deadline = time.perf_counter() + settings.seconds if settings.seconds > 0 else None
    done = 0
    priors: Priors = {}
    while done < settings.iterations:
        if deadline is not None and done and time.perf_counter() > deadline:
            break
        world, world_rng = sample(rng.getrandbits(64))()
        _iterate(root, world, observer, settings, engine, world_rng, priors=priors)
        done += 1
    ranked = sorted(
        root.children.items(),
        key=lambda item: (-item[1].visits, -item[1].total, root.order[item[0]]),
    )
    return SearchResult(ranked[0][0], done, _stats(ranked))


def _stats(ranked: list[tuple[Action, Node]]) -> tuple[tuple[Action, int, float], ...]:
    return tuple((a, n.visits, n.total / n.visits if n.visits else 0.0) for a, n in ranked)


def _search_halving(
    knowledge: Knowledge,
    sample: Sampler,
    settings: SearchSettings,
    rng: random.Random,
    advice: SeatView,
    engine: Engine,
) -> SearchResult:
    """Sequential halving at the root on common worlds (Karnin et al. 2013; Cazenave 2014),
    against the rollout policy's own move.

    Every candidate of a round is tried in the same sampled worlds, so two candidates are
    compared on equal luck (common random numbers): the difference of their rewards in a
    world is what the move changes there, not who was dealt what. The first candidate (the
    planner's move, which the play-outs follow afterwards) is the baseline: it is tried in
    every world. The alternatives halve among themselves, round after round; the last one
    replaces the baseline only if its paired advantage is clear (mean difference over the
    common worlds above ``confidence`` standard errors). Picking the best of a few noisy
    estimates favours whichever was lucky; a move made every turn must beat that.
    """
    observer = knowledge.seat
    options = candidates(advice, advice.legal_actions())
    width = _halving_width(len(options), settings)
    baseline, alternatives = options[0], list(options[1:width])
    rewards: dict[Action, dict[int, float]] = {a: {} for a in options[:width]}
    root = Node()
    rounds = _rounds(len(alternatives))
    deadline = time.perf_counter() + settings.seconds if settings.seconds > 0 else None
    done = world_index = 0
    for round_index in range(rounds):
        tried = [baseline, *alternatives]
        worlds = max(1, (settings.iterations - done) // (rounds - round_index) // len(tried))
        for _ in range(worlds):
            if deadline is not None and done and time.perf_counter() > deadline:
                break
            # the same world and play-out luck for every move
            world = sample(rng.getrandbits(64))
            for action in tried:
                state, world_rng = world()
                value = _iterate(root, state, observer, settings, engine, world_rng, action)
                rewards[action][world_index] = value
                done += 1
            world_index += 1
        alternatives.sort(key=lambda a: (-_mean(rewards[a]), options.index(a)))
        alternatives = alternatives[: max(1, (len(alternatives) + 1) // 2)]
    best = alternatives[0]
    clear = _clearly_better(rewards[best], rewards[baseline], settings.confidence)
    choice = best if clear else baseline
    ranked = sorted(
        root.children.items(),
        key=lambda item: (item[0] != choice, -_mean(rewards[item[0]]), options.index(item[0])),
    )
    return SearchResult(choice, done, _stats(ranked))


def _rounds(alternatives: int) -> int:
    """Halving rounds that leave one alternative (one round for one: its comparison)."""
    return max(1, math.ceil(math.log2(max(alternatives, 1))))


def _mean(values: dict[int, float]) -> float:
    return sum(values.values()) / len(values) if values else -math.inf


def _clearly_better(
    challenger: dict[int, float], baseline: dict[int, float], confidence: float
) -> bool:
    """Whether the challenger's mean paired advantage over the common worlds is positive and
    above ``confidence`` standard errors."""
    diffs = [challenger[w] - baseline[w] for w in challenger if w in baseline]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    if mean <= 0:
        return False
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > confidence * math.sqrt(variance / n)


def _halving_width(available: int, settings: SearchSettings) -> int:
    """How many candidates (the baseline included) the budget can compare: each gets at
    least three worlds in the first of the halving rounds (fewer would rank them on noise)."""
    width = 2
    while (
        width < min(available, settings.max_root)
        and 3 * (width + 1) * _rounds(width) <= settings.iterations
    ):
        width += 1
    return min(width, available)


def _iterate(
    root: Node,
    world: Any,
    observer: int,
    settings: SearchSettings,
    engine: Engine,
    rng: random.Random,
    first: Action | None = None,
    priors: Priors | None = None,
) -> float:
    """One play-out in a sampled ``world`` (played on in place); ``first`` forces the root
    move. ``priors``: the search's candidates by view (see ``_select``)."""
    start_turn = world.turn
    seats = engine.seats(settings.rollout, world.players, rng)
    path = [root]
    node = root
    expanded = False
    while not world.is_over and not expanded:
        seat = world.seat
        if seat != observer:
            seats.move(world)
            continue
        if first is not None and engine.legal_count(world) > 1:
            # common-world comparison: then the policy plays on
            action, first, expanded = first, None, True
            node.order.setdefault(action, len(node.order))
            node.children.setdefault(action, Node()).available += 1
        else:
            legal = world.legal_actions()
            if len(legal) == 1:
                world.apply_unchecked(legal[0])
                continue
            action, expanded = _select(node, world, legal, settings, priors)
        node = node.children[action]
        path.append(node)
        world.apply_unchecked(action)
    seats.play_out(world, start_turn + settings.horizon if settings.horizon else None)
    value = reward(world, observer, settings.margin_weight)
    for visited in path:
        visited.visits += 1
        visited.total += value
    return value


def _select(
    node: Node,
    world: Any,
    legal: list[Action],
    settings: SearchSettings,
    priors: Priors | None = None,
) -> tuple[Action, bool]:
    """UCT over the widened candidates legal in this world; an unvisited one first.

    The candidates are a function of the view alone (legal moves too follow from it), and
    the observer's view is the same in many worlds (at the root, in all of them but with a
    forgetful memory): ``priors`` keeps them by view for the search."""
    view = world.view(world.seat)
    if priors is None:
        options = candidates(view, legal)
    else:
        key = view[:-_GAME_FIELDS]  # cheaper to hash than the whole view
        known = priors.get(key)
        if known is None:
            known = priors[key] = candidates(view, legal)
        options = known
    width = 1 + int(settings.widening * math.sqrt(node.visits))
    options = options[:width]
    order = node.order
    children = node.children
    for rank, action in enumerate(options):
        order.setdefault(action, len(order) + rank)
        child = children.get(action)
        if child is None:
            child = children[action] = Node()
        child.available += 1
    for action in options:
        if children[action].visits == 0:
            return action, True
    c = settings.exploration
    best, best_score = options[0], -math.inf
    for action in options:
        child = children[action]
        score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
        if score > best_score:
            best, best_score = action, score
    return best, False
