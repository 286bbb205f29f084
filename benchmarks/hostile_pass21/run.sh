#!/usr/bin/env bash
# Twenty-first hostile pass: ./run.sh Attack [...] plays hp21:<Attack> against RIVAL (planner by
# default) under --isolate, 2 players, GAMES games (default 2), one worker; prints its
# HOSTILE lines, the wall time and each game's failure row (../hostile_pass3/summary.py).
# KEY names the channel (hp21/key.txt, read by the strategies in the sandbox): a fresh
# one by default, so each experiment starts on names no one looked up.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp21}"
games="${GAMES:-1}"
rival="${RIVAL:-planner}"
mkdir -p "$out"
echo "${KEY:-hp21-$(date +%s%N)}" >hp21/key.txt
for a in "$@"; do
  rm -rf "$out/out-$a"
  echo "== $a (vs $rival; key $(cat hp21/key.txt))"
  start=$(date +%s.%N)
  timeout "${LIMIT:-600}" cardgame simulate --strategies "hp21:$a,$rival" --players 2 \
    --games "$games" ${ISOLATE---isolate} --workers 1 --out "$out/out-$a" --no-progress ${EXTRA:-} \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  rc=$?
  printf '  exit %s after %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-${WIDTH:-900} | sort | uniq -c | head -${SHOW:-40}
  [ -d "$out/out-$a/games" ] && python ../hostile_pass3/summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -4 | cut -c1-300
done
