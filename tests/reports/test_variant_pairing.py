"""Paired variant effects: per-game differences on shared deals, with power.

Reference values come from scipy.stats.ttest_rel (interval and p-value) and
statsmodels.stats.power.TTestPower().solve_power (the smallest detectable effect)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.power import TTestPower

from reports import differences, variants
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict


def test_paired_difference_matches_scipy_ttest_rel():
    rng = np.random.default_rng(7)
    base = rng.normal(80, 10, 60)
    variant = base + rng.normal(1.5, 3, 60)
    got = differences.paired_difference(variant - base)
    ref = sps.ttest_rel(variant, base)
    low, high = ref.confidence_interval(0.95)
    assert got["n_pairs"] == 60
    assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high), rel=1e-9)


@pytest.mark.parametrize("n", [20, 60, 400])
def test_the_detectable_effect_matches_statsmodels_power(n):
    rng = np.random.default_rng(n)
    diffs = rng.normal(0, 4, n)
    got = differences.paired_difference(diffs)
    # TTestPower: one-sample (paired) t-test; effect size in SDs of the differences
    d = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    assert got["detectable"] == pytest.approx(d * got["sd_difference"], rel=0.03)


def planted(n: int, effect: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired games whose deal explains most of the variance; ``effect`` turns added."""
    rng = np.random.default_rng(seed)
    deal = rng.normal(80, 10, n)
    rows = []
    for variant, shift in (("base", 0.0), ("v", effect)):
        for i in range(n):
            rows.append(
                {
                    "cell": f"{variant}/2p/a+b",
                    "variant": variant,
                    "players": 2,
                    "game_index": i,
                    "seed": 1000 + i,
                    "failed": False,
                    "turns": deal[i] + shift + rng.normal(0, 1),
                    "sim_minutes": 10.0,
                    "steals": 0,
                }
            )
    games = pd.DataFrame(rows)
    columns = ["cell", "variant", "players", "game_index", "seat", "score", "win_share"]
    seats = pd.concat(
        [games.assign(seat=s, score=games["turns"] + s, win_share=float(s == 0)) for s in (0, 1)],
        ignore_index=True,
    )[columns].assign(unreached=0)
    return games, seats


def test_a_planted_effect_is_found_paired_and_its_interval_is_narrower_than_welch():
    games, seats = planted(40, 1.0, 3)
    paired = variants.variant_effects(games, seats).set_index("metric")
    assert paired.loc["turns", "method"] == "paired t"
    assert paired.loc["turns", "n_pairs"] == 40
    assert paired.loc["turns", "significant"]
    assert paired.loc["turns", "correction"].startswith("Bonferroni")
    assert paired.loc["turns", "verdict"] == "different"
    unpaired = variants.variant_effects(games.drop(columns="seed"), seats).set_index("metric")
    assert unpaired.loc["turns", "method"] == "Welch t"
    assert not unpaired.loc["turns", "significant"]
    width = paired.loc["turns", "ci_high"] - paired.loc["turns", "ci_low"]
    welch = unpaired.loc["turns", "ci_high"] - unpaired.loc["turns", "ci_low"]
    assert width < 0.3 * welch


def test_paired_tests_reject_at_about_the_nominal_rate_under_no_effect():
    rejected = sum(
        differences.paired_difference(np.random.default_rng(s).normal(0, 3, 30))["p_value"] < 0.05
        for s in range(600)
    )
    assert 0.025 < rejected / 600 < 0.08


def test_games_whose_seeds_differ_are_compared_as_independent_samples():
    games, seats = planted(30, 0.0, 4)
    games.loc[games["variant"] == "v", "seed"] += 1  # not the same deals
    table = variants.variant_effects(games, seats)
    assert set(table["method"]) == {"Welch t"}
    assert (table["n_pairs"] == 0).all()


def test_every_row_states_the_smallest_detectable_effect():
    games, seats = planted(30, 0.0, 5)
    table = variants.variant_effects(games, seats).set_index("metric")
    assert table.loc["turns", "detectable"] > 0
    assert not table.loc["turns", "significant"]


# ------------------------------------------------------------------ on simulated games
STUDY = {
    "name": "paired-report",
    "seed": 3,
    "players": [2, 4],
    "lineups": [["planner", "thief"], ["planner", "thief", "hoarder", "random"]],
    "games_per_cell": 24,
    "batch_size": 24,
    "pairing": "deals",
    "variants": {
        "base": {},
        "one-round": {"players": [4], "rounds": {"4": 1}},
        "wipe": {"three_locomotive_wipe": True},
    },
}


@pytest.fixture(scope="module")
def paired_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paired") / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    return load_results(folder)


def test_a_paired_study_gives_paired_effects_only_where_a_variant_is_played(paired_results):
    table = variants.variant_effects(paired_results.games, paired_results.seats)
    assert set(table["method"]) == {"paired t"}
    assert (table["n_pairs"] == table["n_games"]).all()
    assert set(table[table["variant"] == "one-round"]["players"]) == {4}
    assert set(table[table["variant"] == "wipe"]["players"]) == {2, 4}


def test_an_unpaired_study_keeps_the_welch_route(analysis):
    table = analysis.tables["variants"]
    assert set(table["method"]) == {"Welch t"}
    # its one-round variant changes 4-player games only, so it is neither played nor shown
    # at 2 players
    assert set(table["players"]) == {4}


def test_findings_name_the_paired_method_and_what_the_study_could_detect(paired_results):
    from reports.analysis import analyse
    from reports.findings import variants as variant_lines
    from reports.markdown import blocks
    from reports.variant_sections import variants_summary

    analysis = analyse(paired_results)
    lines = variant_lines(analysis)
    main = [line for line in lines if "against the printed game" in line]
    assert len(main) == 2 and all("paired t on" in line for line in main)
    assert all("Bonferroni over the variants and player counts" in line for line in main)
    assert all("**not yet known**" not in line or "would decide at" in line for line in main)
    one_round = next(line for line in main if "one-round" in line)
    assert "at 2p" not in one_round  # played at 4 players only
    text = "\n".join(blocks(variants_summary(analysis.tables["variants"], analysis.tables)))
    assert "detectable" in text and "paired t" in text
    assert "| deals |" in text  # the unit of a paired test is the deal, not the game


def test_pairing_narrows_a_real_interval_at_equal_games(paired_results, tmp_path):
    # three-locomotive-wipe vs base, planner against thief, turns: the same games each way
    unpaired_study = {**STUDY, "pairing": "none"}
    run(from_dict(unpaired_study, "test"), workers=1, out=tmp_path / "u", progress=False)
    unpaired = load_results(tmp_path / "u")
    widths = {}
    for name, results in (("paired", paired_results), ("unpaired", unpaired)):
        table = variants.variant_effects(results.games, results.seats).set_index(
            ["variant", "players", "metric"]
        )
        row = table.loc[("wipe", 2, "turns")]
        widths[name] = row["ci_high"] - row["ci_low"]
    assert widths["paired"] < 0.7 * widths["unpaired"]


def test_a_variant_that_changes_no_game_is_said_to_in_words():
    from types import SimpleNamespace

    from reports.findings import variants as variant_lines

    games, seats = planted(20, 0.0, 6)
    v = games["variant"] == "v"
    games.loc[v, "turns"] = games.loc[~v, "turns"].to_numpy()
    seats = seats.copy()
    for variant in ("v",):
        mine = seats["variant"] == variant
        seats.loc[mine, ["score", "win_share", "unreached"]] = seats.loc[
            ~mine, ["score", "win_share", "unreached"]
        ].to_numpy()
    table = variants.variant_effects(games, seats)
    (line,) = variant_lines(SimpleNamespace(tables={"variants": table}))
    assert "every game pair played out identically" in line


def test_line_ups_sharing_a_deal_count_it_once():
    games, seats = planted(30, 1.0, 8)
    other = games.assign(cell=games["cell"].str.replace("a+b", "c+d", regex=False))
    other["turns"] += np.random.default_rng(9).normal(0, 1, len(other))
    seats2 = seats.assign(cell=seats["cell"].str.replace("a+b", "c+d", regex=False))
    both = pd.concat([games, other], ignore_index=True)
    table = variants.variant_effects(both, pd.concat([seats, seats2])).set_index("metric")
    row = table.loc["turns"]
    assert (row["n_pairs"], row["n_deals"]) == (60, 30)
    # per deal: the mean over the two line-ups of (variant - base)
    per_deal = both.assign(d=np.where(both["variant"] == "v", 1, -1) * both["turns"])
    expected = differences.paired_difference(per_deal.groupby("seed")["d"].sum() / 2)
    assert row["difference"] == pytest.approx(expected["difference"])
    assert row["ci_low"] == pytest.approx(expected["ci_low"])


def test_old_results_show_no_noise_where_a_variant_equals_base():
    games, seats = planted(20, 0.0, 10)  # 2 players only
    rules = {"base": {}, "v": {"rounds": {"4": 1}}}  # as an old manifest lists it
    assert variants.variant_effects(games, seats, rules=rules).empty
    rules["v"]["three_locomotive_wipe"] = True
    assert not variants.variant_effects(games, seats, rules=rules).empty
