"""Statistics over deals: several arms' per-deal figures on the same deals, with bootstrap
weights stratified by player count."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from .settings import (
    BOOTSTRAP,
)

# statistics over deals --------------------------------------------------------------------


class Sample:
    """Per-deal statistics of several arms on the same deals, with bootstrap weights."""

    def __init__(self, deals: pd.DataFrame, stats: dict[str, np.ndarray], seed: int) -> None:
        self.deals = deals
        self.stats = stats
        rng = np.random.default_rng(seed)
        n = len(deals)
        weights = np.zeros((BOOTSTRAP, n))
        for _, rows in deals.groupby("players").indices.items():
            counts = rng.multinomial(len(rows), np.full(len(rows), 1.0 / len(rows)), size=BOOTSTRAP)
            weights[:, rows] = counts
        self.weights = weights
        self._sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def agg(self, arm: str) -> tuple[np.ndarray, np.ndarray]:
        """The sums over all deals, and over each bootstrap resample (read-only: made once
        per arm, however often racing, significance and the records ask)."""
        if arm not in self._sums:
            matrix = self.stats[arm]
            total, boot = matrix.sum(axis=0), self.weights @ matrix
            total.setflags(write=False)
            boot.setflags(write=False)
            self._sums[arm] = (total, boot)
        return self._sums[arm]


def normal_z(level: float) -> float:
    return float(st.norm.ppf(level))
