#!/usr/bin/env bash
# Class 5 (every failure has an owner): an honest, slow guest (hp14:Slow, 0.15 s a decision)
# against planner, 2 games, one worker; 3 s in (mid-game), kill14.sh acts from outside on
# one process of the run's tree, found by walking the tree from the run's own pid (never by
# name), then prints each game's row. ./kill14.sh CASE...  CASE: host bwrap leader game
# stop-host stop-game sigint-run kill-run
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp14k}"
mkdir -p "$out"
kids() { [ -n "$1" ] && ps -o pid= --ppid "$1" | tr -d ' '; }
tree() {  # the run's processes: pid, parent, command (first 90 characters)
  ps -e -o pid=,ppid=,stat=,args= | awk -v root="$1" '
    { pid[$1]=$2; line[$1]=$0 }
    END { for (p in pid) { q=p; while (q in pid && q!=root && q>1) q=pid[q]; if (q==root) print substr(line[p],1,110) } }'
}
for case in "$@"; do
  rm -rf "$out/$case"
  echo "== $case"
  cardgame simulate --strategies hp14:Slow,planner --players 2 --games 2 --isolate --workers 1 \
    --out "$out/$case" --no-progress >"$out/$case.stdout" 2>"$out/$case.stderr" &
  run=$!
  sleep "${WAIT:-6}"
  # the host: python -m sims.guest; bwrap: its parent; the leader: the host's child; the
  # game: the leader's child
  bw=$(tree "$run" | awk '$4 ~ /bwrap$/ {print $1}' | head -1)
  host=$(kids "$bw" | head -1)
  # with a zygote (main after be8537d): host -> zygote -> leader -> game; before: host ->
  # leader -> game. The zygote is the host's child whose child has a child
  zygote=""
  for c in $(kids "$host"); do
    for g in $(kids "$c"); do [ -n "$(kids "$g")" ] && zygote=$c; done
  done
  top=${zygote:-$host}
  leader=$(kids "$top" | head -1)
  game=$(kids "$leader" | head -1)
  echo "  zygote ${zygote:-none}"
  tree "$run" | sed 's/^/    /'
  echo "  run $run bwrap $bw host $host leader $leader game $game"
  case $case in
    host) kill -KILL "$host" ;;
    bwrap) kill -KILL "$bw" ;;
    leader) kill -KILL "$leader" ;;
    game) kill -KILL "$game" ;;
    stop-host) kill -STOP "$host"; sleep 20; kill -CONT "$host" ;;
    stop-game) kill -STOP "$game"; sleep 12; kill -CONT "$game" ;;
    sigint-run) kill -INT "$run" ;;
    kill-run) kill -KILL "$run" ;;
    stop-host-between)  # the host stopped as game 0 ends, so the next game's start waits on it
      while kill -0 "$leader" 2>/dev/null; do sleep 0.02; done
      kill -STOP "$host"; sleep 15; kill -CONT "$host" ;;
    kill-zygote) kill -KILL "$zygote" ;;
    stop-zygote) kill -STOP "$zygote"; sleep "${STOP:-15}"; kill -CONT "$zygote" ;;
    kill-worker) kill -KILL "$(ps -o ppid= -p "$bw" | tr -d " ")" ;;
  esac
  start=$(date +%s)
  wait "$run"; rc=$?
  echo "  run exit $rc, $(( $(date +%s) - start )) s after the act; its last lines:"
  grep -av '^\[guest ' "$out/$case.stderr" | tail -3 | cut -c1-250 | sed 's/^/    /'
  sleep 2
  echo "  still alive 2 s after the run's end, of worker/bwrap/host/leader/game: $(ps -o pid= -p "$(ps -o ppid= -p "$bw" 2>/dev/null | tr -d ' ')" -p "$bw" -p "$host" -p "$leader" -p "$game" 2>/dev/null | tr -d ' ' | tr '\n' ' ')"
  [ -d "$out/$case/games" ] && python ../hostile_pass3/summary.py "$out/$case" --accept-changes 2>&1 | cut -c1-250
done
