#!/usr/bin/env bash
# Rerun the third hostile pass: ./run.sh Attack [...]. Each plays hp3:<Attack> against
# planner under --isolate, 2 players, GAMES games (default 2), one worker; prints its HOSTILE
# lines, the run's wall time, and each game's failure row (summary.py).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp3}"
games="${GAMES:-2}"
mkdir -p "$out"
for a in "$@"; do
  rm -rf "$out/out-$a"
  echo "== $a"
  start=$(date +%s.%N)
  timeout "${LIMIT:-600}" cardgame simulate --strategies "hp3:$a,planner" --players 2 \
    --games "$games" --isolate --workers 1 --out "$out/out-$a" --no-progress \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  rc=$?
  printf '  exit %s after %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-600 | sort | uniq -c | head -12
  [ -d "$out/out-$a/games" ] && python summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -4 | cut -c1-300
done
