"""Line-up swaps on common deals (reports/swaps.py): reference values and planted effects."""

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.swaps import lineup_swaps


def _table(rng, deals, effect, contexts=("x",)):
    """Two-player games: line-up (a, ctx) and (b, ctx) on the same deals (seeds); a's score
    is b's plus ``effect`` plus noise, its win share follows the score."""
    rows = []
    for ctx in contexts:
        for deal in range(deals):
            base = rng.normal(100, 20)
            for who, score in (
                ("a", base + effect + rng.normal(0, 10)),
                ("b", base + rng.normal(0, 10)),
            ):
                rival = base + rng.normal(0, 10)
                cell = f"base/2p/{who}+{ctx}"
                win = 1.0 if score > rival else 0.0
                rows.append(
                    {
                        "players": 2,
                        "cell": cell,
                        "game_index": deal,
                        "seed": 1000 + deal,
                        "seat": 0,
                        "strategy": who,
                        "score": score,
                        "win_share": win,
                    }
                )
                rows.append(
                    {
                        "players": 2,
                        "cell": cell,
                        "game_index": deal,
                        "seed": 1000 + deal,
                        "seat": 1,
                        "strategy": ctx,
                        "score": rival,
                        "win_share": 1 - win,
                    }
                )
    return pd.DataFrame(rows)


def test_one_context_equals_scipys_paired_t_test():
    seats = _table(np.random.default_rng(1), deals=40, effect=3.0)
    row = lineup_swaps(seats, "deals").set_index("metric").loc["score"]
    a = seats[seats["strategy"] == "a"].sort_values("seed")["score"].to_numpy()
    b = seats[seats["strategy"] == "b"].sort_values("seed")["score"].to_numpy()
    reference = sps.ttest_rel(a, b)  # scipy.stats.ttest_rel(a, b): the paired t-test
    low, high = reference.confidence_interval()
    assert row["n_deals"] == 40 and row["n_contexts"] == 1
    assert np.isclose(row["difference"], (a - b).mean())
    assert np.isclose(row["p_value"], reference.pvalue)
    assert np.isclose(row["ci_low"], low) and np.isclose(row["ci_high"], high)


def test_contexts_are_averaged_per_deal():
    seats = _table(np.random.default_rng(2), deals=30, effect=0.0, contexts=("x", "y"))
    table = lineup_swaps(seats, "deals")
    row = table[table["strategy"] == "a"].set_index("metric").loc["score"]
    assert (
        row["opponent"] == "b"
        and row["n_contexts"] == 2
        and row["n_deals"] == 30
        and row["n_pairs"] == 60
    )


def test_a_planted_swap_effect_is_found_and_the_null_rejects_about_5_percent():
    rng = np.random.default_rng(3)
    found = lineup_swaps(_table(rng, deals=60, effect=8.0), "deals")
    assert found.set_index("metric").loc["score", "significant"]
    rejections = [
        lineup_swaps(_table(rng, deals=30, effect=0.0), "deals")
        .set_index("metric")
        .loc["score", "p_value"]
        < 0.05
        for _ in range(120)
    ]
    assert 0.01 <= np.mean(rejections) <= 0.11  # nominal 5%: 120 draws, sd about 2 points


def test_an_unpaired_study_has_no_swap_comparison():
    seats = _table(np.random.default_rng(4), deals=10, effect=0.0)
    assert lineup_swaps(seats, "none").empty


def test_a_paired_round_robin_reports_its_swaps(tmp_path):
    from reports.analysis import analyse
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    study = {
        "name": "swaps",
        "seed": 3,
        "players": [2],
        "games_per_cell": 12,
        "pool": ["planner", "thief", "random"],
        "pairing": "deals",
    }
    run(from_dict(study, "test"), workers=1, out=tmp_path / "r", progress=False)
    swaps = analyse(load_results(tmp_path / "r")).tables["lineup_swaps"]
    # (planner, random) against (thief, random), and so on: 3 pairs, on the same 12 deals
    assert set(zip(swaps["strategy"], swaps["opponent"], strict=True)) == {
        ("planner", "random"),
        ("planner", "thief"),
        ("random", "thief"),
    }
    assert (swaps["n_deals"] == 12).all()
