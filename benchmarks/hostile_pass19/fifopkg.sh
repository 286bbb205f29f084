#!/usr/bin/env bash
# ./fifopkg.sh: a strategy package that holds a named pipe (made here, not in git): its
# sandbox's copy of its files fails, which the run reads as the machine's fault.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
rm -rf /tmp/hp19/pkg && mkdir -p /tmp/hp19/pkg/hp19fifo
printf 'from sims.strategies.planner import Planner\n\n\nclass Plain(Planner):\n    """An honest planner whose package holds a FIFO."""\n' >/tmp/hp19/pkg/hp19fifo/__init__.py
mkfifo /tmp/hp19/pkg/hp19fifo/pipe
cd /tmp/hp19/pkg
start=$(date +%s.%N)
timeout 300 cardgame simulate --strategies hp19fifo:Plain,planner --players 2 --games "${GAMES:-2}" \
  --isolate --workers 1 --out /tmp/hp19/pkg/out --no-progress ${EXTRA:-}
printf 'exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
[ -d /tmp/hp19/pkg/out/games ] && python "$here/../hostile_pass3/summary.py" /tmp/hp19/pkg/out
