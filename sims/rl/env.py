"""A PettingZoo AEC environment over the rules engine (docs/rl.md).

The environment talks to the engine only through its public API (``Game``, ``new_state``,
``legal_actions``, ``apply``, ``view``, ``scores``, ``winners``) and builds each agent's
observation from that agent's ``Knowledge`` (cardgame.knowledge): what a seat with perfect
recall may know, never the hidden state. Actions are indexes into a fixed table
(``ActionTable``); the observation's ``action_mask`` marks the legal ones.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError as exc:  # the optional extra is missing: say which, in one line
    raise ModuleNotFoundError(
        f"sims.rl needs {exc.name}: install the extra with pip install -e '.[rl]'", name=exc.name
    ) from None

from cardgame.actions import NO_CARD, NOBODY, Phase
from cardgame.cards import CARD_NAMES, COLOURS
from cardgame.errors import RulesError
from cardgame.game import Game
from cardgame.knowledge import KnowledgeTracker
from cardgame.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

from .actions import ActionTable
from .observation import ObservationEncoder

REWARDS = ("win", "score")
_SEED_LIMIT = 2**63  # Game seeds are any whole number >= 0; fresh ones are drawn below this


class TTRCardGameEnv(AECEnv):
    """Ticket to Ride: The Card Game for 2-4 agents ``player_0`` .. ``player_{n-1}``.

    ``reward``: ``"win"`` gives each of the k tied winners 1/k at the end (others 0), so the
    mean reward is the win share; ``"score"`` gives each agent its final score. Rewards
    come only when the game ends. ``max_moves`` (optional) truncates a game after that many
    decisions, with no reward. An illegal (masked-out) action raises ValueError.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ttr_cardgame_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        rules: Rules | Mapping[str, Any] | None = None,
        reward: str = "win",
        max_moves: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be a whole number, got {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if max_moves is not None and (not isinstance(max_moves, int) or max_moves < 1):
            raise ValueError(f"max_moves must be a whole number >= 1, got {max_moves!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.rules = _rules(rules)
        self.players = players
        self.reward_kind = reward
        self.max_moves = max_moves
        self.render_mode = render_mode
        catalogue = Game(players, 0, self.rules).catalogue
        self.action_table = ActionTable(self.rules, catalogue.deck)
        self.encoder = ObservationEncoder(self.rules, catalogue)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.action_table.size
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        self.encoder.low, self.encoder.high, dtype=np.float32
                    ),
                    "action_mask": spaces.MultiBinary(size),
                }
            )
            for a in self.possible_agents
        }
        self._seeder = random.Random()  # replaced by a seeded one on reset(seed=...)
        self._state: Any = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game: ``seed`` is the engine's game seed (``Game(players, seed, rules)``).

        Without a seed the next game seed comes from the last seed given (or from fresh
        entropy if none was). ``options`` is accepted and ignored.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
                raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
            seed = int(seed)
            self._seeder = random.Random(seed)
        else:
            seed = self._seeder.randrange(_SEED_LIMIT)
        self.game_seed = seed
        self._state = Game(self.players, seed, self.rules).new_state()
        self._trackers = [KnowledgeTracker(self._state, s) for s in range(self.players)]
        self._moves = 0
        self._legal: tuple[int, np.ndarray, tuple[int, ...]] | None = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._state.seat]

    @property
    def game_state(self) -> Any:
        """The engine's full state, hidden information included: for tests and tools, never
        for agents (their observations come from ``observe``)."""
        return self._state

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation vector and its action mask (all 0 unless it is to move)."""
        seat = self._seat_of[agent]
        state = self._state
        vector = self.encoder.encode(self._trackers[seat].knowledge(state))
        if state.is_over or state.seat != seat or self.truncations.get(agent, False):
            mask = np.zeros(self.action_table.size, dtype=np.int8)
        else:
            mask = self._legal_mask().copy()
        return {"observation": vector, "action_mask": mask}

    def _legal_mask(self) -> np.ndarray:
        """The mover's legal actions as a 0/1 vector, computed once per decision."""
        if self._legal is None or self._legal[0] != self._moves:
            state = self._state
            view = state.view(state.seat)
            mask = np.zeros(self.action_table.size, dtype=np.int8)
            mask[self.action_table.indexes(view.legal_actions(), view.offer_ids)] = 1
            self._legal = (self._moves, mask, view.offer_ids)
        return self._legal[1]

    def step(self, action: Any) -> None:
        """Apply the selected agent's action (an index); refuses a masked-out one."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._checked_index(agent, action)  # also fills self._legal for this move
        state = self._state
        engine_action = self.action_table.action(index, self._legal[2])  # type: ignore[index]
        for tracker in self._trackers:
            tracker.before(state, engine_action)
        state.apply(engine_action)
        self._moves += 1
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if state.is_over:
            self._finish()
        elif self.max_moves is not None and self._moves >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[state.seat % self.players]
        self._accumulate_rewards()

    def _checked_index(self, agent: str, action: Any) -> int:
        """``action`` as an index, or ValueError with one line saying why it is refused."""
        if isinstance(action, bool | np.bool_):
            raise ValueError(f"{agent}: an action is an integer index, got {action!r}")
        try:
            index = operator.index(action)
        except TypeError:
            raise ValueError(f"{agent}: an action is an integer index, got {action!r}") from None
        mask = self._legal_mask()
        if not 0 <= index < mask.size:
            raise ValueError(f"{agent}: action {index} is outside the space 0..{mask.size - 1}")
        if not mask[index]:
            what = self.action_table.describe(index)
            raise ValueError(f"{agent}: action {index} ({what}) is illegal now (masked out)")
        return index

    def _finish(self) -> None:
        """End of game: rewards from the final scores, every agent terminated."""
        state = self._state
        totals = [s.total for s in state.scores]
        winners = list(state.winners)
        for seat, agent in enumerate(self.possible_agents):
            if self.reward_kind == "win":
                self.rewards[agent] = 1.0 / len(winners) if seat in winners else 0.0
            else:
                self.rewards[agent] = float(totals[seat])
            self.infos[agent] = {"score": totals[seat], "winners": winners}
        self.terminations = dict.fromkeys(self.agents, True)

    # ------------------------------------------------------------------ render
    def render(self) -> str | None:
        """A text picture of the public table (no hidden card), for ``render_mode='ansi'``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi' to draw anything")
            return None
        if self._state is None:
            return "(no game: call reset first)"
        return render_public(self._state.view(0), self._state.seat, self.possible_agents)

    def close(self) -> None:
        """Nothing to release (no window, no process)."""


def render_public(view: Any, to_move: int, agents: list[str]) -> str:
    """The public facts of a seat view as a few lines of text."""
    phase = Phase(view.phase).name.lower().replace("_", " ")
    head = f"round {view.round}/{view.rounds_total}, turn {view.turn}, {phase}"
    if view.phase != Phase.OVER:
        head += f", {agents[to_move]} to move"
    faces = ", ".join(CARD_NAMES[c] if c != NO_CARD else "-" for c in view.face_up)
    yards = "; ".join(
        f"{COLOURS[c]}: {agents[o]} {view.yard_wagons[c]}+{view.yard_locos[c]}L"
        for c, o in enumerate(view.yard_owner)
        if o != NOBODY
    )
    lines = [
        head,
        f"face up: {faces}",
        f"yards: {yards or 'none'}",
        f"deck {view.deck_size}, destination deck {view.destination_deck_size}",
    ]
    for seat, agent in enumerate(agents):
        lines.append(
            f"{agent}: {view.hand_sizes[seat]} cards, {view.held_counts[seat]} destinations "
            f"held, {len(view.reached[seat])} reached, circulation {sum(view.circulations[seat])}"
        )
    return "\n".join(lines)


def _rules(rules: Rules | Mapping[str, Any] | None) -> Rules:
    """Rules from an object, a mapping (as in a study file) or the printed defaults."""
    if rules is None or isinstance(rules, Rules):
        return rules or Rules()
    try:
        return Rules.from_dict(dict(rules))
    except RulesError as exc:
        raise ValueError(str(exc)) from None


def raw_env(**kwargs: Any) -> TTRCardGameEnv:
    """The environment without wrappers (``TTRCardGameEnv(**kwargs)``)."""
    return TTRCardGameEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment behind PettingZoo's order-enforcing wrapper (step before reset
    raises, as in PettingZoo's own environments)."""
    return wrappers.OrderEnforcingWrapper(TTRCardGameEnv(**kwargs))
