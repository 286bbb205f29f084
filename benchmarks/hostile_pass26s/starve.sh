#!/usr/bin/env bash
# Hostile pass 26s: ./starve.sh [free|steady ...] plays NearLimit against Spin, then against
# Idle (the control), for each mode; prints each run's HOSTILE lines and failures.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp26s
echo "${KEY:-8}" >hp26s/key.txt  # Spin's threads
for mode in "${@:-free steady}"; do
  for h in Spin Idle; do
    rm -rf "/tmp/hp26s/out-starve-$mode-$h"
    echo "== $mode $h (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    start=$(date +%s.%N)
    cardgame simulate "starve-$mode-$h.toml" --workers 1 --no-progress >/tmp/hp26s/starve-$mode-$h.out 2>&1
    printf '  exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
    grep -a HOSTILE /tmp/hp26s/starve-$mode-$h.out | grep -v heavy | cut -c1-300
    grep -a "heavy decision" /tmp/hp26s/starve-$mode-$h.out | python -c "import sys,statistics as s; r=[float(l.split(\"wall/cpu \")[1]) for l in sys.stdin]; print(f\"  rival heavy decisions: {len(r)}, wall/cpu median {s.median(r):.2f} max {max(r):.2f}\") if r else print(\"  rival heavy decisions: none\")"
    python ../hostile_pass3/summary.py "/tmp/hp26s/out-starve-$mode-$h" | cut -c1-300
  done
done
