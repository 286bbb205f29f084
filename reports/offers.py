"""Destination offers reduced to sums per (variant, players, card), a chunk of whole games at
a time: all that the card statistics need (keep rate, completion and net points with the game
as the cluster; the win share of the seats that completed or failed a card), without holding a
million games' 46 million offer rows.

Why sums suffice: a game-clustered mean and its variance (the ratio estimator, CR1)
need, per group, only the games' totals y_g and counts n_g through n, G, sum y_g, sum y_g^2,
sum y_g n_g and sum n_g^2, since sum (y_g - m n_g)^2 expands into them; a game lies in one
chunk, so the sums of chunks add up. Every total here is a sum of whole numbers (win shares
aside), exact in float64 far beyond a billion games.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sims.errors import ResultsError

GROUP = ["variant", "players", "destination_id"]
# what a chunk must hold; a frame of one's own may lack the game keys, players, variant or
# net points (each row is then its own game, player count 0, one variant, no net points)
COLUMNS = """
    variant cell game_index players seat destination_id kept reached net_points points cards
""".split()
# per group; with c, k, r, t a game's offers, kept cards, kept cards reached and net points
# of kept cards: sums of c, 1 (games), k, k^2, k c, c^2, [k > 0], r, r^2, r k, t, t^2, t k,
# and the holders' win shares over kept cards reached and failed
SUMS = """
    offered games kept kept_sq kept_offered offered_sq kept_games reached reached_sq reached_kept
    net net_sq net_kept won_reached won_failed
""".split()


def offer_sums(
    chunks: Iterable[Chunk],
    seats: pd.DataFrame | SeatShares | None = None,
    stop: threading.Event | None = None,
) -> pd.DataFrame:
    """One row per (variant, players, destination_id) with the card's ``points`` and
    ``cards`` and the ``SUMS`` over every chunk of offer rows (each chunk whole games).
    ``seats`` (with ``cell``, ``game_index``, ``seat``, ``win_share``, or their
    ``SeatShares``) gives the win shares; without it they are NaN. ``stop``, once set, ends
    the reading at the next chunk (the result is then incomplete: for a caller that gave up)."""
    shares = SeatShares(seats) if isinstance(seats, pd.DataFrame) else seats
    parts = []
    for chunk in chunks:
        if stop is not None and stop.is_set():
            break
        if _rows(chunk):
            parts.append(_chunk_sums(chunk, shares))
    if not parts:
        return pd.DataFrame(columns=[*GROUP, "points", "cards", *SUMS])
    return pooled(pd.concat(parts, ignore_index=True), GROUP)


def _rows(chunk: Chunk) -> int:
    return chunk.num_rows if isinstance(chunk, pa.Table) else len(chunk)


def pooled(sums: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The sums added up over the rows that share ``by`` (one group's chunks; the variants
    of a player count): they hold different games, so their sums add."""
    grouped = sums.groupby(by, sort=True)
    return grouped[["points", "cards"]].first().join(grouped[SUMS].sum(min_count=1)).reset_index()


def clustered(
    n: Any, games: Any, total: Any, sq: Any, cross: Any, count_sq: Any
) -> tuple[Any, Any]:
    """The mean total / n and its cluster-robust variance with the game as the cluster (CR1
    factor G/(G-1), as statsmodels OLS on a constant with cov_type="cluster"), from a group's
    sums: the games' totals squared (``sq``), totals times counts (``cross``), counts
    squared (``count_sq``)."""
    n, games = np.asarray(n, float), np.asarray(games, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.asarray(total, float) / n
        e2 = np.asarray(sq, float) - 2 * mean * np.asarray(cross, float)
        e2 = np.maximum(e2 + mean**2 * np.asarray(count_sq, float), 0.0)
        var = np.where(games > 1, games / (games - 1), np.nan) * e2 / n**2
    return mean, var


# a frame of one's own, or a chunk read from a folder
Chunk: TypeAlias = pd.DataFrame | pa.Table


def _has(chunk: Chunk, name: str) -> bool:
    return name in (chunk.column_names if isinstance(chunk, pa.Table) else chunk.columns)


def _numbers(chunk: Chunk, name: str, dtype: Any) -> np.ndarray:
    if isinstance(chunk, pa.Table):
        return np.asarray(chunk.column(name).to_numpy(), dtype=dtype)
    return chunk[name].to_numpy(dtype)


def _text(chunk: Chunk, name: str) -> tuple[np.ndarray, list[str]]:
    """A text column as integer codes and the texts they stand for."""
    if isinstance(chunk, pa.Table):
        column = chunk.column(name).combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        codes = column.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        return codes, [str(text) for text in column.dictionary.to_pylist()]
    codes, uniques = pd.factorize(chunk[name], sort=False)
    return codes.astype(np.int64), [str(text) for text in uniques]


def _game_keys(chunk: Chunk) -> np.ndarray:
    """An integer per row naming its game (cell and index; variant too, if there is one)."""
    key = _numbers(chunk, "game_index", np.int64)
    for name in ("cell", "variant"):
        if _has(chunk, name) and len(key):
            codes, _ = _text(chunk, name)
            key = codes * (int(key.max()) + 1) + key
    return key


def _game_codes(chunk: Chunk, rows: int) -> np.ndarray:
    """A code per row for its game, 0 to games - 1 (each row its own game without
    ``game_index``): found from where the key changes when each game's rows are together, as
    a results folder holds them."""
    if not _has(chunk, "game_index"):
        return np.arange(rows, dtype=np.int64)
    key = _game_keys(chunk)
    change = np.ones(rows, bool)
    change[1:] = key[1:] != key[:-1]
    starts = key[change]
    if len(np.unique(starts)) == len(starts):
        return np.cumsum(change, dtype=np.int64) - 1
    return pd.factorize(key, sort=False)[0].astype(np.int64)


class SeatShares:
    """Each seat's win share, found by (cell, game, seat) for the rows of a chunk (made once,
    then only read: a thread summing offers can use it while others read the seats)."""

    def __init__(self, seats: pd.DataFrame) -> None:
        codes, cells = _text(seats, "cell")
        self.code = {cell: i for i, cell in enumerate(cells)}
        self.span = int(seats["game_index"].max()) + 1 if len(seats) else 1
        keys = self._keys(codes, seats["game_index"].to_numpy(np.int64), seats["seat"])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.share = seats["win_share"].to_numpy(float)[order]

    def _keys(self, cell: np.ndarray, game: np.ndarray, seat: Any) -> np.ndarray:
        return (cell * self.span + game) * 16 + np.asarray(seat, np.int64)

    def of(self, chunk: Chunk, rows: np.ndarray) -> np.ndarray:
        """The win shares of the seats holding ``rows`` (a boolean mask) of ``chunk``."""
        codes, cells = _text(chunk, "cell")
        cell = np.array([self.code.get(c, -1) for c in cells], np.int64)[codes[rows]]
        game = _numbers(chunk, "game_index", np.int64)[rows]
        keys = self._keys(cell, game, _numbers(chunk, "seat", np.int64)[rows])
        at = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        if not len(self.keys) or not (self.keys[at] == keys).all() or (cell < 0).any():
            raise ResultsError(
                "destination rows of a seat the seats table does not hold (a results folder "
                "whose tables do not match: run the study again into another --out)"
            )
        return self.share[at]


def _chunk_sums(chunk: Chunk, shares: SeatShares | None) -> pd.DataFrame:
    """The ``SUMS`` of one chunk of whole games, per group: each (game, card) pair's totals
    by one ``bincount`` over a dense pair index (games x card ids, about as many as rows),
    then each group's sums by another over the pairs."""
    rows = _rows(chunk)
    game = _game_codes(chunk, rows)
    n_games = int(game.max()) + 1
    if _has(chunk, "variant"):
        variant, variants = _text(chunk, "variant")
    else:
        variant, variants = np.zeros(rows, np.int64), [""]
    players = (
        _numbers(chunk, "players", np.int64) if _has(chunk, "players") else np.zeros(rows, np.int64)
    )
    of_game = np.zeros(n_games, np.int64)  # a game's variant and player count, as one code
    of_game[game] = variant * 64 + players
    kind, kinds = pd.factorize(of_game, sort=False)
    card_ids = _numbers(chunk, "destination_id", np.int64)
    card, cards = pd.factorize(card_ids, sort=True)
    width = len(cards)
    pair = game * width + card  # dense: games x cards
    n_pairs = n_games * width
    groups = len(kinds) * width
    pair_group = (kind[:, None] * width + np.arange(width)[None, :]).ravel()

    def per_pair(weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(pair, weights=weights, minlength=n_pairs)

    def per_group(values: np.ndarray) -> np.ndarray:
        return np.bincount(pair_group, weights=values, minlength=groups)

    kept = _numbers(chunk, "kept", bool)
    reached = kept & _numbers(chunk, "reached", bool)
    if _has(chunk, "net_points"):
        net = np.where(kept, _numbers(chunk, "net_points", float), 0.0)
    else:
        net = np.full(rows, np.nan)
    c, k, r = (
        per_pair().astype(float),
        per_pair(kept.astype(float)),
        per_pair(reached.astype(float)),
    )
    t = per_pair(net)
    won_reached = won_failed = np.full(groups, np.nan)
    if shares is not None:
        share = np.zeros(rows)
        share[kept] = shares.of(chunk, kept)
        won_reached = per_group(per_pair(np.where(reached, share, 0.0)))
        won_failed = per_group(per_pair(np.where(kept & ~reached, share, 0.0)))
    row_group = kind[game] * width + card
    points = np.zeros(groups, np.int64)
    points[row_group] = _numbers(chunk, "points", np.int64)
    trains = np.zeros(groups, np.int64)
    trains[row_group] = _numbers(chunk, "cards", np.int64)
    offered = per_group(c)
    seen = offered > 0
    kind_of_group = np.asarray(kinds, np.int64)[np.arange(groups) // width]
    table = pd.DataFrame(
        {
            "variant": np.asarray(variants, dtype=object)[kind_of_group // 64],
            "players": kind_of_group % 64,
            "destination_id": np.asarray(cards, np.int64)[np.arange(groups) % width],
            "points": points,
            "cards": trains,
            "offered": offered,
            "games": per_group((c > 0).astype(float)),
            "kept": per_group(k),
            "kept_sq": per_group(k * k),
            "kept_offered": per_group(k * c),
            "offered_sq": per_group(c * c),
            "kept_games": per_group((k > 0).astype(float)),
            "reached": per_group(r),
            "reached_sq": per_group(r * r),
            "reached_kept": per_group(r * k),
            "net": per_group(t),
            "net_sq": per_group(t * t),
            "net_kept": per_group(t * k),
            "won_reached": won_reached,
            "won_failed": won_failed,
        }
    )
    return table[seen]
