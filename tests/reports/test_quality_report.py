"""The report's game-quality section: per player count with intervals over games, and each
variant paired by deal against the base game."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports.analysis import analyse
from reports.markdown import render as markdown
from reports.quality import QUALITY_METRICS, quality_effects, quality_summary
from reports.sections import build
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "quality-report",
    "seed": 5,
    "players": [2, 3],
    "lineups": [["planner", "thief"], ["planner", "thief", "rusher"]],
    "games_per_cell": 30,
    "batch_size": 30,
    "pairing": "deals",
    "variants": {"base": {}, "open-five": {"face_up": 6}},
    "metrics": {"quality": True},
}


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quality") / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    return analyse(load_results(folder))


def test_the_summary_is_a_t_interval_over_the_base_games_per_player_count(analysis):
    summary = analysis.tables["quality"]
    quality = analysis.results.quality
    assert set(summary["metric"]) == set(QUALITY_METRICS)
    assert sorted(summary["players"].unique()) == [2, 3]
    row = summary[(summary["players"] == 3) & (summary["metric"] == "drama")].iloc[0]
    values = quality[(quality["players"] == 3) & (quality["variant"] == "base")]["drama"]
    low, high = stats.t.interval(0.95, len(values) - 1, values.mean(), stats.sem(values))
    assert row["n_games"] == len(values) == 30
    assert row["mean"] == pytest.approx(values.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))


def test_a_variant_is_compared_with_the_base_game_deal_by_deal(analysis):
    effects = analysis.tables["quality_variants"]
    assert set(effects["variant"]) == {"open-five"}
    assert set(effects["method"]) == {"paired t"}
    row = effects[(effects["players"] == 2) & (effects["metric"] == "excitement")].iloc[0]
    quality = analysis.results.quality
    at = quality[quality["players"] == 2].set_index(["variant", "seed"])["excitement"]
    differences = (at["open-five"] - at["base"]).dropna()
    assert row["n_deals"] == len(differences) == 30
    assert row["difference"] == pytest.approx(differences.mean())
    low, high = stats.t.interval(
        0.95, len(differences) - 1, differences.mean(), stats.sem(differences)
    )
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert set(effects["verdict"]) <= {"different", "practically equal", "not yet known"}


def test_the_report_has_a_quality_section_in_words_and_tables(analysis):
    report = build(analysis)
    section = next(s for s in report.sections if s.key == "quality")
    assert [t.name for t in section.tables] == ["quality", "quality_variants"]
    assert len(section.charts) == 2 and all(c.figure.data for c in section.charts)
    text = markdown(analysis)
    assert "## Are the games close?" in text
    assert "At 2 players (30 games) the favourite changes" in text


def test_quality_effects_drop_failed_games_and_need_a_base():
    games = pd.DataFrame(
        {
            "cell": ["base/2p/a+b", "base/2p/a+b"],
            "game_index": [0, 1],
            "failed": [False, True],
            "variant": "base",
            "players": 2,
            "seed": [1, 2],
        }
    )
    quality = pd.DataFrame(
        {
            "cell": ["base/2p/a+b"],
            "game_index": [0],
            "variant": "base",
            "players": 2,
            "seed": [1],
            **{m: [1.0] for m in QUALITY_METRICS},
        }
    )
    assert quality_effects(games, quality).empty
    summary = quality_summary(games, quality)
    assert (summary["n_games"] == 1).all() and np.isnan(summary["ci_low"]).all()


def test_the_summary_shows_each_verdict_beside_the_interval_it_was_read_from(analysis):
    """The verdicts are read off the family's Bonferroni interval (or, practically equal,
    the equivalence interval): the summary's table shows that one, not the plain 95%."""
    from reports.document import Table

    section = next(s for s in build(analysis).sections if s.key == "quality")
    tables = [b for b in section.summary if isinstance(b, Table)]
    assert tables  # open-five moves some quality metric at these sizes
    for block in tables:
        assert "verdict" in block.columns
        assert {"family_low", "family_high"} <= set(block.columns)
        assert not {"ci_low", "ci_high"} & set(block.columns)
