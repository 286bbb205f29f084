#!/usr/bin/env bash
# Hostile pass 26s: ./stall.sh plays PopStall (KEY MiB, 512) then GapControl against the
# planner under steady decisions (0.3 s), and prints their gaps and each game's failure row.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp26s
echo "${KEY:-512}" >hp26s/key.txt
for h in ${TARGETS:-PopStall GapControl}; do
  rm -rf "/tmp/hp26s/out-stall-$h"
  echo "== $h (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  cardgame simulate "stall-$h.toml" --workers 1 --no-progress >/tmp/hp26s/stall-$h.out 2>&1
  printf '  exit %s after %.1f s\n' "$?" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a HOSTILE /tmp/hp26s/stall-$h.out | cut -c1-300
  python ../hostile_pass3/summary.py "/tmp/hp26s/out-stall-$h" | cut -c1-300
  python -c "
import pyarrow.parquet as pq, sys
t = pq.read_table('/tmp/hp26s/out-stall-$h/games/compact.parquet').to_pydict()
print('  turns:', t.get('turns'))" 2>/dev/null
done
