"""Random masked agents in the PettingZoo environment: win shares and mean scores.

Each agent picks uniformly among the legal actions its observation's action mask allows;
no training, a smoke test of the environment from the agents' side (docs/rl.md).

Run: pip install -e ".[rl]" && python examples/rl_random_agents.py [GAMES]
"""

from __future__ import annotations

import sys

import numpy as np

from sims.rl.env import env as make_env


def play(players: int, games: int, seed: int = 0) -> tuple[list[float], list[float]]:
    """Play ``games`` games; each agent's win share ("win" rewards) and mean final score."""
    env = make_env(players=players)
    rng = np.random.default_rng(seed)
    wins = [0.0] * players
    scores = [0.0] * players
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            seat = int(agent.rsplit("_", 1)[1])
            if terminated or truncated:
                wins[seat] += reward  # 1/k for each of k tied winners
                scores[seat] += info["score"]
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(rng.choice(legal)))
    env.close()
    return [w / games for w in wins], [s / games for s in scores]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args and args[0].isdigit() else 20
    if len(args) > 1 or (args and (not args[0].isdigit() or games < 1)):
        print(f"usage: {sys.argv[0]} [GAMES] (a whole number >= 1), got {args}", file=sys.stderr)
        return 2
    for players in (2, 3, 4):
        shares, means = play(players, games)
        print(f"{players} players, {games} games of random masked agents")
        for seat in range(players):
            print(f"  player_{seat}: win share {shares[seat]:.2f}, mean score {means[seat]:+.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
