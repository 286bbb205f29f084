#!/usr/bin/env bash
# HOLD=1 ./fifotalk.sh [STUDY]: fifotalk.toml (FifoTalk: 16 bits, two workers)
# workers, so each pair's two games play at once; prints the HOSTILE lines, each game's row,
# and every record's dealt hands (the first four counts) to check what was read.
set -u
# HOLD=1: pipepages.py holds the run user near its pipe-page limit meanwhile (see README)
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out=/tmp/hp19/c
study="${1:-fifotalk.toml}"
name=$(basename "$study" .toml)
rm -rf "$out/out-$name"; mkdir -p "$out"
if [ -n "${HOLD:-}" ]; then python pipepages.py "${HOLD_S:-400}" "${MARGIN:-30}" &
  holder=$!; sleep 5; fi
timeout 300 cardgame simulate "$study" --isolate --workers "${WORKERS:-2}" --records --no-progress \
  >"$out/$name.stdout" 2>"$out/$name.stderr"
echo "exit $?"
[ -n "${HOLD:-}" ] && kill "$holder" 2>/dev/null
grep -a HOSTILE "$out/$name.stderr" | sed 's/fast-load rates per half-slot \[[^]]*\]; //' | cut -c1-400
python ../hostile_pass3/summary.py "$out/out-$name"
python - "$name" <<'PY'
import glob, json
from cardgame.game import Game
import sys
for f in sorted(glob.glob(f"/tmp/hp19/c/out-{sys.argv[1]}/records/*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        s = Game(2, r["seed"]).new_state()
        print(f"  record {r['strategies']}: seat 0 dealt {list(s.view(0).hand)}, kept {r['setup']['kept'][0]}; seat 1 dealt {list(s.view(1).hand)}")
PY
