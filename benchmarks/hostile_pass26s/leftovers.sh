#!/usr/bin/env bash
# Hostile pass 26s: ./leftovers.sh [snap NAME | diff A B | kill TARGET SECONDS]
# snap: what a run may leave on the machine (guest processes, their cgroups, folders,
# /dev/shm copies) into /tmp/hp26s/left-NAME; diff: what changed; kill: plays TARGET
# against the planner and SIGKILLs the whole run (its process group) after SECONDS.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mkdir -p /tmp/hp26s
case "$1" in
snap)
  {
    ps -eo pid,ppid,stat,args --no-headers | grep -a 'sims.guest\|bwrap' | grep -v grep | awk '{print "proc", $3, $4, $5, $6}'
    for c in pids memory; do ls -d /sys/fs/cgroup/$c/cardgame-* 2>/dev/null | sed "s/^/cgroup /"; done
    ls -d "${TMPDIR:-/tmp}"/cardgame-guest-* 2>/dev/null | sed 's/^/folder /'
    ls /dev/shm | grep cardgame | sed 's/^/shm /'
    awk '/^(Slab|PageTables|Shmem):/ {print "meminfo", $1, $2}' /proc/meminfo
  } >"/tmp/hp26s/left-$2"
  grep -c . "/tmp/hp26s/left-$2" ;;
diff)
  diff <(grep -v meminfo "/tmp/hp26s/left-$2") <(grep -v meminfo "/tmp/hp26s/left-$3") && echo "no difference"
  paste <(grep meminfo "/tmp/hp26s/left-$2") <(grep meminfo "/tmp/hp26s/left-$3") ;;
kill)
  echo "${KEY:-30}" >hp26s/key.txt
  setsid cardgame simulate --strategies "$2,planner" --players 2 --games 2 --isolate --workers 1 \
    --out /tmp/hp26s/out-kill --no-progress >/tmp/hp26s/kill.out 2>&1 &
  sleep "$3"
  kill -KILL -- -"$!"
  wait
  echo "killed the run's group $! after $3 s" ;;
esac
