#!/usr/bin/env bash
# Hostile pass 27s: ./locktalk.sh [free|steady ...] plays LockSend and LockRecv in two
# games at once (two workers) and prints what LockRecv read of LockSend's bits.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp27s
for mode in "${@:-free steady}"; do
  rm -rf "/tmp/hp27s/out-locktalk-$mode"
  echo "== $mode (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  cardgame simulate "locktalk-$mode.toml" --workers 2 --no-progress >/tmp/hp27s/locktalk-$mode.out 2>&1
  printf '  exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a HOSTILE /tmp/hp27s/locktalk-$mode.out | cut -c1-300
  python ../hostile_pass3/summary.py "/tmp/hp27s/out-locktalk-$mode" | cut -c1-300
done
