#!/usr/bin/env bash
# Hostile pass 27s: ./run.sh Attack [...] plays hp27s:<Attack> against RIVAL (planner by
# default) under --isolate, 2 players, GAMES games (default 2), one worker; prints its
# HOSTILE lines, the wall time and each game's failure row (../hostile_pass3/summary.py).
# KEY names the channel (hp27s/key.txt, read by the strategies in the sandbox): a fresh
# one by default, so each experiment starts on names no one looked up.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp27s}"
games="${GAMES:-1}"
rival="${RIVAL:-planner}"
mkdir -p "$out"
echo "${KEY:-hp27s-$(date +%s%N)}" >hp27s/key.txt
for t in "$@"; do
  case "$t" in *:*) target="$t" ;; *) target="hp27s:$t" ;; esac
  a="$(echo "$t" | tr -c 'A-Za-z0-9\n' _)"
  rm -rf "$out/out-$a"
  echo "== $a (vs $rival; key $(cat hp27s/key.txt))"
  start=$(date +%s.%N)
  if [ -n "${SAMPLE:-}" ]; then  # the machine's page tables and free memory while it plays
    (while :; do awk '/^(PageTables|MemAvailable|Slab):/ {printf "%s %s ", $1, $2} END {print ""}' /proc/meminfo; sleep 0.2; done) >"$out/$a.meminfo" &
    sampler=$!
  fi
  if [ -n "${PS:-}" ]; then  # the nice, policy and state of every guest process while it plays
    (while :; do ps -eo pid,pgid,ni,cls,stat,args --no-headers | grep -a 'sims.guest' | grep -v grep | awk '{print $1, $2, $3, $4, $5}' | tr '\n' ';'; echo; sleep 0.2; done) >"$out/$a.ps" &
    psampler=$!
  fi
  timeout "${LIMIT:-600}" cardgame simulate --strategies "$target,$rival" --players 2 \
    --games "$games" ${ISOLATE---isolate} --workers 1 --out "$out/out-$a" --no-progress ${EXTRA:-} \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  rc=$?
  if [ -n "${PS:-}" ]; then
    kill "$psampler"
    echo "  guest processes (pid pgid nice class state), distinct samples:"; sort -u "$out/$a.ps" | grep . | head -${PSROWS:-8} | cut -c1-300
  fi
  if [ -n "${SAMPLE:-}" ]; then
    kill "$sampler"
    python - "$out/$a.meminfo" <<'PY'
import sys
rows = [dict(zip(l.split()[::2], map(int, l.split()[1::2]))) for l in open(sys.argv[1]) if l.strip()]
for k in ("PageTables:", "MemAvailable:", "Slab:"):
    v = [r[k] for r in rows if k in r]
    print(f"  {k} first {v[0]} kB, min {min(v)}, max {max(v)} kB over {len(v)} samples")
PY
  fi
  printf '  exit %s after %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-${WIDTH:-900} | sort | uniq -c | head -${SHOW:-40}
  [ -d "$out/out-$a/games" ] && python ../hostile_pass3/summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -4 | cut -c1-300
done
