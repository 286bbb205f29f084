#!/usr/bin/env bash
# Hostile pass 26s: ./loadtalk.sh [free|steady ...] plays LoadSend and LoadRecv in two
# games at once (two workers) and prints what LoadRecv read of LoadSend's bits.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp26s
for mode in "${@:-free steady}"; do
  rm -rf "/tmp/hp26s/out-loadtalk-$mode"
  echo "== $mode (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  cardgame simulate "loadtalk-$mode.toml" --workers 2 --no-progress >/tmp/hp26s/loadtalk-$mode.out 2>&1
  printf '  exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a HOSTILE /tmp/hp26s/loadtalk-$mode.out | cut -c1-300
  python ../hostile_pass3/summary.py "/tmp/hp26s/out-loadtalk-$mode" | cut -c1-300
done
