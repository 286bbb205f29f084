#!/usr/bin/env bash
# Rerun the hostile pass: ./run.sh [Attack ...] (default: all). Each attack plays
# hp_attacks:<Attack> against planner under --isolate, 2 players, GAMES games, one worker;
# prints its HOSTILE lines (what it found), the run's wall time, and each game's failure.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hostile}"
games="${GAMES:-4}"
attacks=("$@")
[ ${#attacks[@]} -eq 0 ] && attacks=(Probe Persist ShmHog VoidLosses VoidAll AlarmDeath
  PipeDeath EndStall Ponder ManyThreads FakeProgress Steal OddAnswer OddException Silent Huge)
mkdir -p "$out"
for a in "${attacks[@]}"; do
  rm -rf "$out/out-$a"
  echo "== $a"
  start=$(date +%s)
  timeout "${LIMIT:-600}" cardgame simulate --strategies "hp_attacks:$a,planner" --players 2 \
    --games "$games" --isolate --workers 1 --out "$out/out-$a" --no-progress \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  echo "  exit $? after $(($(date +%s) - start)) s"
  # a guest's stderr reaches the run's marked "[guest hp_attacks:NAME] ", 4 KiB a game
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-400 | sort | uniq -c | head -8
  [ -f "$out/out-$a/games/compact.parquet" ] && python summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -3 | cut -c1-300
done
