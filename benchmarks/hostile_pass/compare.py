"""Mean score and wins of the guest seat in a run's counted games (python compare.py FOLDER)."""

import sys

import pyarrow.parquet as pq

f = sys.argv[1]
g = pq.read_table(f + "/games/compact.parquet").to_pylist()
s = pq.read_table(f + "/seats/compact.parquet").to_pylist()
mine = [r for r in s if r["strategy"].startswith("hp_attacks")]
voided = sum(x["failed"] and x["failure_seat"] == -1 for x in g)
mean = sum(r["score"] for r in mine) / max(1, len(mine))
wins = sum(r["win_share"] for r in mine)
print(
    f"{f}: games {len(g)}, voided as the machine's {voided}, counted {len(mine)}, "
    f"mean score {mean:.1f}, wins {wins:g}"
)
