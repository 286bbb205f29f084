#!/usr/bin/env bash
# Hostile pass 29r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp29r (HP29R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP29R/config, never the user's), runs every attack against them, then
# pass 28r's key attacks (under $HP29R/r28). About 20 minutes on 2 shared cores. The only
# signals sent go to the scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP29R:-/tmp/hp29r}"
export HP29R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== special29.py: links, pipes, folders and left-out names in a sealed folder"; python special29.py
echo "== accept29.py: hostile files read with --accept-changes"; python accept29.py
echo "== honest29.py: copies, moves and interrupted resumes"; python honest29.py
echo "== openpipe29.py: a pipe swapped into an open folder while it is read"; python openpipe29.py
echo "== dask29.py: the Dask backend"; python dask29.py
echo "== daskrace29.py: a writer during a Dask run, then a local one"; python daskrace29.py; BACKEND=local python daskrace29.py
echo "== badname29.py: file names that are not UTF-8"; python badname29.py
echo "== pass 28r reruns"
./rerun28.sh vanish28.py checkvanish28.py shadow28.py dupkey28.py odd28.py
