#!/usr/bin/env bash
# Hostile pass 31s: ./run.sh Attack [...] plays hp31s:<Attack> against RIVAL (planner by
# default) under --isolate, PLAYERS players (2), GAMES games (default 2), WORKERS workers
# (1); prints its HOSTILE lines, the wall time and each game's failure row
# (../hostile_pass3/summary.py). KEY (hp31s/key.txt) is the attack's parameter: run one at a
# time. A study file is made in $OUT (/tmp/hp31s): decision limit DECISION (default 0.2 s),
# steady decisions with STEADY=1, seed SEED (30); GAMES games a seating, ROTATION and
# PAIRING as a study's (permutations, seatings); DECK a deck table played as
# [variants.big]; CARDGAME the command (cardgame; "python $PWD/smallpipe.py" for 8 KiB
# pipes); LIMIT the run's wall-clock bound (900 s).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp31s}"
games="${GAMES:-2}"
rival="${RIVAL:-planner}"
mkdir -p "$out"
echo "${KEY:-}" >hp31s/key.txt
for t in "$@"; do
  case "$t" in *:*) target="$t" ;; *) target="hp31s:$t" ;; esac
  a="$(echo "$t" | tr -c 'A-Za-z0-9\n' _)${STEADY:+-steady}"
  rm -rf "$out/out-$a"
  echo "== $a (vs $rival; key '$(cat hp31s/key.txt)'; steady '${STEADY:-}'; load $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  steady=false; [ -n "${STEADY:-}" ] && steady=true
  cat >"$out/$a.toml" <<TOML
name = "hostile31s-$a"
seed = ${SEED:-31}
players = [${PLAYERS:-2}]
games_per_cell = $games
rotation = "${ROTATION:-permutations}"
pairing = "${PAIRING:-seatings}"
isolation = "process"
output = "$out/out-$a"
lineups = [["$target"$(for _ in $(seq 2 "${PLAYERS:-2}"); do printf ', "%s"' "$rival"; done)]]
[limits]
decision_seconds = ${DECISION:-0.2}
steady = $steady
${DECK:+[variants.big]
deck = $DECK}
TOML
  timeout "${LIMIT:-900}" ${CARDGAME:-cardgame} simulate "$out/$a.toml" --workers "${WORKERS:-1}" --no-progress \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  rc=$?
  printf '  exit %s after %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-${WIDTH:-300} | sort | uniq -c | head -${SHOW:-40}
  [ -d "$out/out-$a/games" ] && python ../hostile_pass3/summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -4 | cut -c1-300
  grep -a 'Error\|Traceback' "$out/$a.stderr" | sort | uniq -c | head -6 | cut -c1-300
done
