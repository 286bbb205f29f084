#!/usr/bin/env bash
# ./cachetalk.sh [STUDY]: cachetalk.toml (CacheTalk: 16 bits, two workers) or
# cachetalk-steady.toml (CacheTalkSteady: the same under 0.5-s steady decisions); seatings-paired, batches of one game, under --isolate with two
# workers, so each pair's two games play at once; prints the HOSTILE lines, each game's row,
# and every record's dealt hands (the first four counts) to check what was read.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out=/tmp/hp17c
study="${1:-cachetalk.toml}"
name=$(basename "$study" .toml)
rm -rf "$out/out-$name"; mkdir -p "$out"
timeout 300 cardgame simulate "$study" --isolate --workers 2 --records --no-progress \
  >"$out/$name.stdout" 2>"$out/$name.stderr"
echo "exit $?"
grep -a HOSTILE "$out/$name.stderr" | sed 's/fast-load rates per half-slot \[[^]]*\]; //' | cut -c1-400
python ../hostile_pass3/summary.py "$out/out-$name"
python - "$name" <<'PY'
import glob, json
from cardgame.game import Game
import sys
for f in sorted(glob.glob(f"/tmp/hp17c/out-{sys.argv[1]}/records/*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        s = Game(2, r["seed"]).new_state()
        print(f"  record {r['strategies']}: seat 0 dealt {list(s.view(0).hand)}, kept {r['setup']['kept'][0]}; seat 1 dealt {list(s.view(1).hand)}")
PY
