"""The skill ladder: how far apart the players are, from random through the scripted
strategies to the search player, and how much of a game is skill.

Shown for the built-in ``skill`` study and for any study that seats a search player (a label
starting with ``ismcts`` or a configured strategy based on it). Four questions, each per
player count with the game as the unit (docs/statistics.md, "The skill ladder"):

- how often the stronger of two strategies finishes ahead of the other (``pair_shares``);
- how much of the spread of seat scores the seated strategy explains (``skill_share``);
- the value of memory: planner with perfect recall against planner-human (``memory_value``);
- whether the scripted strategies rank alike against scripted and against search opponents
  (``search_ranking``, ``ranking_agreement``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import GAME, wilson
from .level import current_alpha
from .numbers import p_text
from .wins import BASELINES, finished_ahead

SKILL_STUDY = "skill"
SEARCH = "ismcts"  # the search player's registered name, and its labels' prefix
PERFECT, HUMAN = "planner", "planner-human"  # the memory comparison's two labels
BOOT_DRAWS = 1000
BOOT_SEED = 2026  # seeded: a report is a pure function of its data
PAIR_COLUMNS = """
    players strategy opponent n_games n_pairs rate ci_low ci_high p_value p_adjusted significant
""".split()
SHARE_COLUMNS = """
    players scope n_games n_seats n_strategies share ci_low ci_high score_sd draws
""".split()
MEMORY_COLUMNS = "players measure unit n value ci_low ci_high p_value method".split()
RANK_COLUMNS = """
    players strategy n_games_scripted rate_scripted scripted_ci_low scripted_ci_high rank_scripted
    n_games_search rate_search search_ci_low search_ci_high rank_search
""".split()
TAU_COLUMNS = ["players", "n_strategies", "tau", "p_value", "n_games_scripted", "n_games_search"]


def search_labels(labels, specs: dict | None) -> set[str]:
    """The seated labels that are search players: ``ismcts``-prefixed or based on it."""
    specs = specs or {}
    return {
        label
        for label in labels
        if str(label).startswith(SEARCH) or (specs.get(label) or {}).get("base") == SEARCH
    }


def applies(study: dict, seats: pd.DataFrame) -> bool:
    """Whether a report shows the skill ladder: the ``skill`` study, or a search player
    seated beside another strategy."""
    labels = set(seats["strategy"].unique())
    return study.get("name") == SKILL_STUDY or (
        bool(search_labels(labels, study.get("strategies"))) and len(labels) > 1
    )


# ------------------------------------------------------------------ pairs
def pair_shares(head_to_head: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of strategies that met and player count, the one finishing ahead
    more often first: ``wins.head_to_head`` (game as unit, Wilson interval, score test of
    50%, Holm over the pairs of a player count) seen from the stronger side."""
    if head_to_head.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    ahead = head_to_head["rate"] > 0.5
    even = (head_to_head["rate"] == 0.5) & (head_to_head["strategy"] < head_to_head["opponent"])
    table = head_to_head[ahead | even][PAIR_COLUMNS]
    return table.sort_values(["players", "rate"], ascending=[True, False]).reset_index(drop=True)


# ------------------------------------------------------------------ skill and luck
def _game_sums(group: pd.DataFrame, labels: list[str]) -> tuple[np.ndarray, ...]:
    """Per game: seats, sum and sum of squares of the scores, and per strategy its seats and
    score sum (games x strategies): enough for any reweighting of the games."""
    game = group.groupby(GAME, sort=True).ngroup().to_numpy()
    code = pd.Categorical(group["strategy"], categories=labels).codes
    y = group["score"].to_numpy(dtype=float)
    n_games, k = game.max() + 1, len(labels)
    count, total = np.zeros((n_games, k)), np.zeros((n_games, k))
    np.add.at(count, (game, code), 1.0)
    np.add.at(total, (game, code), y)
    squares = np.bincount(game, y * y, minlength=n_games)
    return count, total, squares


def _eta_squared(weights: np.ndarray, count, total, squares) -> np.ndarray:
    """Between-strategy sum of squares over total sum of squares of the seat scores, with
    every game weighted by ``weights`` (rows: bootstrap draws; a game drawn twice counts
    twice). One matrix product gives every weighted sum."""
    k = count.shape[1]
    sums = weights @ np.column_stack([count, total, squares])
    n_s, sum_s, sum_sq = sums[:, :k], sums[:, k : 2 * k], sums[:, -1]
    n, s = n_s.sum(axis=1), sum_s.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        between = np.where(n_s > 0, sum_s**2 / np.where(n_s > 0, n_s, 1), 0).sum(axis=1)
        return (between - s**2 / n) / (sum_sq - s**2 / n)


def _share_row(group: pd.DataFrame, scope: str, draws: int, rng) -> dict:
    labels = sorted(group["strategy"].unique())
    count, total, squares = _game_sums(group, labels)
    n_games = len(squares)
    point = float(_eta_squared(np.ones((1, n_games)), count, total, squares)[0])
    boot = []
    for start in range(0, draws, 100):  # chunks keep memory small at thousands of games
        size = min(100, draws - start)
        drawn = rng.integers(0, n_games, (size, n_games)) + n_games * np.arange(size)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=size * n_games).reshape(size, n_games)
        boot.append(_eta_squared(weights.astype(float), count, total, squares))
    values = np.concatenate(boot) if boot else np.array([])
    values = values[np.isfinite(values)]
    low, high = np.percentile(values, [2.5, 97.5]) if len(values) else (np.nan, np.nan)
    return {
        "players": int(group["players"].iloc[0]),
        "scope": scope,
        "n_games": n_games,
        "n_seats": len(group),
        "n_strategies": len(labels),
        "share": point,
        "ci_low": float(low),
        "ci_high": float(high),
        "score_sd": float(group["score"].std(ddof=0)),
        "draws": draws,
    }


def skill_share(
    seats: pd.DataFrame, draws: int = BOOT_DRAWS, seed: int = BOOT_SEED
) -> pd.DataFrame:
    """Per player count: the share of the variance of seat scores explained by the seated
    strategy (eta squared of a one-way decomposition: between-strategy over total sum of
    squares), with a 95% percentile bootstrap interval resampling whole games (``draws``
    draws, numpy Generator seeded with ``seed``). Scope "all strategies", and "without
    random" (the random baseline alone can make skill look large): the seats of random are
    left out, the rest of their games kept."""
    rows = []
    rng = np.random.default_rng(seed)
    for _, group in seats.groupby("players", sort=True):
        scopes = [("all strategies", group)]
        rest = group[~group["strategy"].isin(BASELINES)]
        if len(rest) and rest["strategy"].nunique() > 1 and len(rest) < len(group):
            scopes.append(("without random", rest))
        for scope, part in scopes:
            if part["strategy"].nunique() > 1 and part["score"].nunique() > 1:
                rows.append(_share_row(part, scope, draws, rng))
    return pd.DataFrame(rows, columns=SHARE_COLUMNS)


def share_sentence(row: pd.Series) -> str:
    """The skill share of one player count and scope in plain words."""
    share = row["share"]
    return (
        f"At {int(row['players'])} players ({row['scope']}), the seated strategy explains "
        f"{share:.0%} of the spread of seat scores (95% interval {row['ci_low']:.0%} to "
        f"{row['ci_high']:.0%}, {int(row['n_games']):,} games); the other {1 - share:.0%} "
        "comes from the deal, the seat order and the other seats' play: luck, from the "
        "seat's point of view."
    )


def share_summary(share: pd.DataFrame) -> str:
    """Every player count's skill share in one sentence (the section's opening)."""
    if share.empty:
        return ""
    parts = []
    for scope, rows in share.groupby("scope", sort=False):
        shown = ", ".join(
            f"{r['share']:.0%} ({r['ci_low']:.0%}-{r['ci_high']:.0%}) at {int(r['players'])} "
            "players"
            for _, r in rows.sort_values("players").iterrows()
        )
        parts.append(f"{shown} ({scope})")
    return (
        "The seated strategy explains " + "; ".join(parts) + " of the spread of seat scores "
        "(bootstrap 95% intervals over games); the rest comes from the deal, the seat order and "
        "the other seats' play: luck, from the seat's point of view."
    )


def tau_summary(agreement: pd.DataFrame) -> str:
    """Every player count's ranking agreement in one sentence (the section's opening)."""
    rows = [r for _, r in agreement.iterrows() if int(r["n_strategies"]) >= 2]
    rows = [r for r in rows if np.isfinite(r["tau"])]
    if not rows:
        return ""
    shown = ", ".join(
        f"{r['tau']:.2f} at {int(r['players'])} players ({p_text(r['p_value'])}, "
        f"{int(r['n_games_search']):,} strategy-games against search)"
        for r in rows
    )
    held = [int(r["players"]) for r in rows if r["tau"] > 0 and r["p_value"] < current_alpha()]
    verdict = (
        f"the ranking holds at {', '.join(map(str, held))} players"
        if held
        else "the data cannot say the ranking holds"
    )
    return (
        "Kendall's tau between the scripted strategies' ranking against scripted opponents "
        f"and against search opponents (1 = the same order, 0 = unrelated): {shown}: {verdict}."
    )


# ------------------------------------------------------------------ memory
def memory_pair(labels, specs: dict | None) -> tuple[str, str] | None:
    """(perfect, human): planner and planner-human when both are seated, else a label whose
    knobs ask for human memory and the label of its base strategy."""
    labels = set(labels)
    if {PERFECT, HUMAN} <= labels:
        return PERFECT, HUMAN
    for label, spec in sorted((specs or {}).items()):
        knobs = dict(spec.get("knobs") or {}) if isinstance(spec, dict) else {}
        base = spec.get("base") if isinstance(spec, dict) else None
        if label in labels and knobs.get("memory") == "human" and base in labels:
            return str(base), label
    return None


def memory_value(
    head_to_head: pd.DataFrame, swaps: pd.DataFrame, pair: tuple[str, str] | None
) -> pd.DataFrame:
    """Per player count, perfect against human-like memory: the share of the games where
    they met that the perfect one finished ahead (Wilson over games), and, in a paired study,
    perfect minus human win share and score in the same seat of line-ups that differ only by
    that swap, on the same deals (``swaps.lineup_swaps``: paired t over deals)."""
    if pair is None:
        return pd.DataFrame(columns=MEMORY_COLUMNS)
    perfect, human = pair
    rows = []
    met = head_to_head[(head_to_head["strategy"] == perfect) & (head_to_head["opponent"] == human)]
    for _, row in met.iterrows():
        rows.append(
            {
                "players": int(row["players"]),
                "measure": "finished ahead",
                "unit": "games",
                "n": int(row["n_games"]),
                "value": row["rate"],
                "ci_low": row["ci_low"],
                "ci_high": row["ci_high"],
                "p_value": row["p_value"],
                "method": "share of the games they met, Wilson; test of 50%",
            }
        )
    for _, row in swaps.iterrows() if not swaps.empty else ():
        if {row["strategy"], row["opponent"]} != {perfect, human}:
            continue
        sign = 1.0 if row["strategy"] == perfect else -1.0
        low, high = sorted((sign * row["ci_low"], sign * row["ci_high"]))
        rows.append(
            {
                "players": int(row["players"]),
                "measure": f"{row['metric']} difference",
                "unit": "deals",
                "n": int(row["n_deals"]),
                "value": sign * row["difference"],
                "ci_low": low,
                "ci_high": high,
                "p_value": row["p_value"],
                "method": f"perfect minus human, same seat and opponents, paired t over deals "
                f"({int(row['n_contexts'])} line-ups)",
            }
        )
    table = pd.DataFrame(rows, columns=MEMORY_COLUMNS)
    return table.sort_values(["players", "measure"]).reset_index(drop=True)


# ------------------------------------------------------------------ ranking against search
def _pairs_ahead(seats: pd.DataFrame) -> pd.DataFrame:
    """Every ordered pair of seats of different strategies at one table, with ``ahead``
    (1, 0, or 0.5 on a full tie: R22 order, as in ``wins.head_to_head``)."""
    columns = [*GAME, "players", "strategy", "score", "reached", "n_big_cities"]
    left = seats[columns + [c for c in ("_with_search",) if c in seats]]
    right = left.drop(columns=["_with_search"], errors="ignore")
    pairs = left.merge(right, on=[*GAME, "players"], suffixes=("", "_other"))
    pairs = pairs[pairs["strategy"] != pairs["strategy_other"]]
    return pairs.assign(ahead=finished_ahead(pairs))


def _rates(pairs: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """Per player count and strategy: the share of its games' seat pairs it won, averaged
    over games (the game as unit), with a Wilson interval over games and the rank."""
    per_game = pairs.groupby(["players", "strategy", *GAME])["ahead"].mean().reset_index()
    out = (
        per_game.groupby(["players", "strategy"])["ahead"]
        .agg(["size", "sum"])
        .rename(columns={"size": f"n_games_{prefix}"})
    )
    out[f"rate_{prefix}"] = out["sum"] / out[f"n_games_{prefix}"]
    low, high = wilson(out["sum"], out[f"n_games_{prefix}"])
    out[f"{prefix}_ci_low"], out[f"{prefix}_ci_high"] = low, high
    return out.drop(columns="sum")


def search_ranking(seats: pd.DataFrame, specs: dict | None) -> pd.DataFrame:
    """Per player count, each strategy that is neither a search player nor random: the share
    of head-to-head comparisons it won against scripted opponents (games without a search
    seat) and against search opponents (only its comparisons with the search seats of
    games that had one), each over games, and its rank by each (1 = best)."""
    search = search_labels(set(seats["strategy"].unique()), specs)
    if not search or seats.empty:
        return pd.DataFrame(columns=RANK_COLUMNS)
    flagged = seats.assign(_search=seats["strategy"].isin(search))
    flagged["_with_search"] = flagged.groupby(GAME)["_search"].transform("max")
    pairs = _pairs_ahead(flagged)
    with_search = pairs["_with_search"].astype(bool)
    mine = ~pairs["strategy"].isin(search | BASELINES)
    scripted = pairs[mine & ~with_search]
    against = pairs[mine & with_search & pairs["strategy_other"].isin(search)]
    if scripted.empty or against.empty:
        return pd.DataFrame(columns=RANK_COLUMNS)
    table = _rates(scripted, "scripted").join(_rates(against, "search"), how="inner")
    table = table.reset_index()
    for prefix in ("scripted", "search"):
        rank = table.groupby("players")[f"rate_{prefix}"].rank(ascending=False, method="min")
        table[f"rank_{prefix}"] = rank.astype(int)
    return table[RANK_COLUMNS].sort_values(["players", "rank_scripted"]).reset_index(drop=True)


def ranking_agreement(ranking: pd.DataFrame) -> pd.DataFrame:
    """Per player count: Kendall's tau-b between the two rankings (scipy kendalltau, its
    two-sided p), with the number of strategies and of games behind each side."""
    rows = []
    for players, group in ranking.groupby("players", sort=True):
        if len(group) >= 2:
            tau, p = sps.kendalltau(group["rate_scripted"], group["rate_search"])
        else:
            tau, p = np.nan, np.nan
        rows.append(
            {
                "players": int(players),
                "n_strategies": len(group),
                "tau": float(tau),
                "p_value": float(p),
                "n_games_scripted": int(group["n_games_scripted"].sum()),
                "n_games_search": int(group["n_games_search"].sum()),
            }
        )
    return pd.DataFrame(rows, columns=TAU_COLUMNS)


def tau_sentence(row: pd.Series) -> str:
    """One player count's ranking agreement in plain words."""
    players, n = int(row["players"]), int(row["n_strategies"])
    if n < 2:
        return f"At {players} players too few strategies ({n}) met both kinds of opponent."
    if not np.isfinite(row["tau"]):
        return (
            f"At {players} players the {n} strategies tie on one side (equal shares won): "
            "no order to compare."
        )
    verdict = (
        "the ranking holds"
        if row["tau"] > 0 and row["p_value"] < current_alpha()
        else "the data cannot say the ranking holds"
    )
    return (
        f"At {players} players, {n} strategies: Kendall's tau = {row['tau']:.2f} between the "
        f"ranking against scripted opponents and against search opponents "
        f"({p_text(row['p_value'])}; 1 = the same order, 0 = unrelated, -1 = reversed): {verdict}. "
        f"Sample: {int(row['n_games_search']):,} strategy-games against search, "
        f"{int(row['n_games_scripted']):,} against scripted opponents."
    )


# ------------------------------------------------------------------ all of it
def skill_tables(
    seats: pd.DataFrame, study: dict, head_to_head: pd.DataFrame, swaps: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """The skill ladder's tables, or none when the study is not a skill study."""
    if seats.empty or not applies(study, seats):
        return {}
    specs = study.get("strategies")
    ranking = search_ranking(seats, specs)
    return {
        "skill_pairs": pair_shares(head_to_head),
        "skill_share": skill_share(seats),
        "memory_value": memory_value(
            head_to_head, swaps, memory_pair(set(seats["strategy"].unique()), specs)
        ),
        "skill_ranking": ranking,
        "skill_agreement": ranking_agreement(ranking),
    }


def memory_sentence(table: pd.DataFrame, pair: tuple[str, str] | None = None) -> str:
    """The value of memory in plain words (or why it cannot be given)."""
    perfect, human = pair or (PERFECT, HUMAN)
    if table.empty:
        return (
            f"The value of memory needs {perfect} and {human} in the same study: not measured here."
        )
    parts = []
    for players, group in table.groupby("players", sort=True):
        bits = []
        for _, row in group.iterrows():
            if row["measure"] == "finished ahead":
                bits.append(
                    f"{perfect} finished ahead of {human} in {row['value']:.0%} of the "
                    f"{int(row['n'])} games they met ({row['ci_low']:.0%} to {row['ci_high']:.0%})"
                )
            else:
                share = row["measure"].startswith("win_share")
                what = "win share" if share else "score"
                scale, unit = (100, " percentage points") if share else (1, " points")
                bits.append(
                    f"on the same {int(row['n'])} deals, in the same seat against the same "
                    f"opponents, {perfect}'s {what} minus {human}'s is "
                    f"{row['value'] * scale:+.1f}{unit} ({row['ci_low'] * scale:+.1f} to "
                    f"{row['ci_high'] * scale:+.1f})"
                )
        parts.append(f"At {int(players)} players " + "; ".join(bits) + ".")
    return " ".join(parts)


def pair_sentence(table: pd.DataFrame) -> str:
    """How many pairs of each player count are told apart after Holm's correction."""
    parts = []
    for players, group in table.groupby("players", sort=True):
        parts.append(
            f"at {int(players)} players {int(group['significant'].sum())} of {len(group)} pairs"
        )
    return (
        "The stronger of a pair finishes ahead more often than a coin toss (Holm-adjusted "
        f"p < {current_alpha():.2g}) " + ", ".join(parts) + "."
        if parts
        else "No two strategies met."
    )
