"""One line per game of a hostile run, from sims.results.load_results: failure and scores."""

import sys

from sims.results import load_results

res = load_results(sys.argv[1])
seats = res.seats
for g in res.games.to_dict("records"):
    scores = seats[seats["game_index"] == g["game_index"]]["score"].tolist()
    print(
        f"  game {g['game_index']}: {g['seats']} failed={g['failed']} "
        f"seat={g['failure_seat']} strategy={g['failure_strategy']!r} "
        f"error={str(g['failure_error'])[:160]!r} scores={scores}"
    )
