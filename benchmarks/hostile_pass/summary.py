"""One line per game of a hostile run: seats, failure (seat, error), scores."""

import sys

import pyarrow.parquet as pq

folder = sys.argv[1]
games = pq.read_table(f"{folder}/games/compact.parquet").to_pylist()
seats = pq.read_table(f"{folder}/seats/compact.parquet").to_pylist()
for g in games:
    scores = [s["score"] for s in seats if s["game_index"] == g["game_index"]]
    print(
        f"  game {g['game_index']}: {g['seats']} failed={g['failed']} "
        f"seat={g['failure_seat']} strategy={g['failure_strategy']!r} "
        f"error={g['failure_error'][:150]!r} scores={scores}"
    )
