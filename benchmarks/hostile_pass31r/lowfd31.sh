#!/usr/bin/env bash
# An honest resume of a killed run (an open folder, some 300 parts) under a low limit of open
# files (ulimit -n 64): the resume holds a handle on each file it found (Reading._hold) where
# room is left; fds31.py first makes the study file.
set -u
root="${HP31R:-/tmp/hp31r}"
export XDG_CONFIG_HOME="$root/config"
cd "$root"
sed -i "s|^output = .*|output = \"$root/lowfd\"|" fds.toml
rm -rf lowfd
cardgame simulate fds.toml --workers 1 --no-progress >/dev/null 2>&1 &
pid=$!
while [ "$(ls lowfd/games/_parts 2>/dev/null | wc -l)" -lt 300 ]; do sleep 0.2; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
echo "killed at $(ls lowfd/games/_parts | wc -l) parts"
out=$(bash -c 'ulimit -n 64; cardgame simulate fds.toml --workers 1 --no-progress --resume' 2>&1)
echo "resume, ulimit -n 64: exit $?, tracebacks $(grep -c Traceback <<<"$out"): $(tail -1 <<<"$out" | cut -c1-200)"
out=$(bash -c 'ulimit -n 64; cardgame report lowfd --out lowfd-report' 2>&1)
echo "report after, ulimit -n 64: exit $?: $(tail -1 <<<"$out" | cut -c1-200)"
