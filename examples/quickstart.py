"""Quickstart: run a small study, get the tidy dataframes, compute statistics, draw a figure.

Run: python examples/quickstart.py [OUTPUT_FOLDER]
"""

import sys
import tempfile
from pathlib import Path

from reports import figures, wins
from sims import load_results, load_study, quick_study, run

folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "quickstart"

# 1. A study: the built-in ladder, cut down to two strategies at two players.
study = quick_study(
    load_study("strategy-ladder"),
    games=40,
    players=[2],
    strategies=["planner", "thief"],
    out=str(folder),
)
run(study, workers=1, progress=False)

# 2. The tidy tables (pandas): one row per game, per seat, per destination offered.
results = load_results(folder)
print(results.games[["cell", "game_index", "winner_strategies", "turns"]].head())

# 3. Statistics: every rate with n and a 95% interval.
rates = wins.win_rates(results.seats)
print(rates[["players", "strategy", "n_games", "rate", "ci_low", "ci_high", "significant"]])

# 4. A figure (Plotly): show it in a notebook, or write it to a file. The file carries
#    plotly.js itself (about 4.6 MB) so it opens offline; "cdn" would make it smaller but blank
#    without a network.
figure = figures.win_rates(rates)
figure.write_html(folder / "win_rates.html", include_plotlyjs=True)
print(f"figure written to {folder / 'win_rates.html'}")
