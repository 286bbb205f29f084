#!/usr/bin/env bash
# Fourth hostile pass: ./run.sh Attack [...] plays hp4:<Attack> against RIVAL (planner by
# default) under --isolate, 2 players, GAMES games (default 2), one worker; prints its
# HOSTILE lines, the wall time and each game's failure row (../hostile_pass3/summary.py).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp4}"
games="${GAMES:-2}"
rival="${RIVAL:-planner}"
mkdir -p "$out"
if [ ! -f hp4/blob.bin ]; then  # CacheMemo's memory: 2 MiB on disk, clean in the page cache
  head -c $((512 * 4096)) /dev/urandom >hp4/blob.bin && sync hp4/blob.bin
fi
for a in "$@"; do
  rm -rf "$out/out-$a"
  echo "== $a (vs $rival)"
  start=$(date +%s.%N)
  timeout "${LIMIT:-600}" cardgame simulate --strategies "hp4:$a,$rival" --players 2 \
    --games "$games" --isolate --workers 1 --out "$out/out-$a" --no-progress \
    >"$out/$a.stdout" 2>"$out/$a.stderr"
  rc=$?
  printf '  exit %s after %.1f s\n' "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  grep -a 'HOSTILE' "$out/$a.stderr" | cut -c1-600 | sort | uniq -c | head -12
  [ -d "$out/out-$a/games" ] && python ../hostile_pass3/summary.py "$out/out-$a"
  grep -av '^\[guest ' "$out/$a.stderr" | tail -4 | cut -c1-300
done
