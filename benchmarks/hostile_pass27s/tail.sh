#!/usr/bin/env bash
# Hostile pass 27s: ./tail.sh [Tail Lag Idle ...] plays NearLimit against each, without
# steady decisions (tail-$mode-*.toml); prints each run's HOSTILE lines, the rival's heavy
# decisions (wall over CPU time) and the failures. KEY: THREADS,MIB (default 16,640).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp27s
echo "${KEY:-16,640}" >hp27s/key.txt
mode="${MODE:-free}"
for h in "${@:-Tail Lag Idle}"; do
  rm -rf "/tmp/hp27s/out-tail-$mode-$h"
  echo "== $mode $h (key $(cat hp27s/key.txt); load: $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  cardgame simulate "tail-$mode-$h.toml" --workers 1 --no-progress >/tmp/hp27s/tail-$mode-$h.out 2>&1
  printf '  exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a HOSTILE /tmp/hp27s/tail-$mode-$h.out | grep -v heavy | cut -c1-300
  grep -a "heavy decision" /tmp/hp27s/tail-$mode-$h.out | python -c "import sys,statistics as s; r=[float(l.split(\"wall/cpu \")[1]) for l in sys.stdin]; print(f\"  rival heavy decisions: {len(r)}, wall/cpu median {s.median(r):.2f} max {max(r):.2f}\") if r else print(\"  rival heavy decisions: none\")"
  python ../hostile_pass3/summary.py "/tmp/hp27s/out-tail-$mode-$h" | cut -c1-300
done
