#!/usr/bin/env bash
# Hostile pass 26s, class 3 (one protocol): each hp26s.protocol:Bad* strategy answers one malformed action at its first
# chance; played in the default mode and under --isolate (2 games each, seats swapped, one
# worker), and each game's failure (seat, message) compared. ./protocol.sh [Bad...]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp26sp}"
mkdir -p "$out"
names="$*"
[ -z "$names" ] && names=$(python -c 'import hp26s.protocol as p; print(" ".join(p.BAD))')
for a in $names; do
  for mode in default isolate; do
    flag=""; [ "$mode" = isolate ] && flag=--isolate
    rm -rf "$out/$a-$mode"
    cardgame simulate --strategies "hp26s.protocol:$a,planner" --players 2 --games 2 $flag --workers 1 \
      --out "$out/$a-$mode" --no-progress >"$out/$a-$mode.stdout" 2>"$out/$a-$mode.stderr"
  done
  python - "$out/$a-default" "$out/$a-isolate" "$a" <<'PY'
import sys
from sims.results import load_results
rows = []
for folder in sys.argv[1:3]:
    g = load_results(folder).games.sort_values("game_index")
    rows.append([(int(r.failure_seat), str(r.failure_error)) for r in g.itertuples()])
same = "same" if rows[0] == rows[1] else "DIFFERENT"
print(f"{sys.argv[3]:16} {same:9} default: {rows[0][0]}")
if rows[0] != rows[1]:
    print(f"{'':26} isolate: {rows[1][0]}")
PY
done
