#!/usr/bin/env bash
# Eighteenth hostile pass (the results seal): ./run.sh makes its own sealed runs of
# planner,rusher (4 games, one worker, records) under /tmp/hp18, with a seal key of its own
# (XDG_CONFIG_HOME=/tmp/hp18/config, never the user's), and runs every attack against
# copies of them. About 3 minutes on 2 shared cores. SPARSE=1 adds misc18.py's 20 s sparse try.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp18}"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
study=(--strategies planner,rusher --players 2 --games 4 --workers 1 --records --no-progress)
cardgame simulate "${study[@]}" --out "$out/run" >/dev/null 2>&1
cardgame simulate "${study[@]}" --seed 7 --out "$out/run-seed7" >/dev/null 2>&1
echo "== resume18.py: a change made while a resume plays is sealed"
for mode in seats remove manifest add crash kill; do python resume18.py "$out/run" "$mode"; done
echo "== open18.py: a killed run's open manifest put into a sealed folder"
python open18.py "$out/run"
echo "== nomanifest18.py: view and replay of a folder whose manifest.json is gone"
python nomanifest18.py "$out/run"
echo "== swap18.py: another sealed folder moved into a folder's place"
python swap18.py "$out/run" "$out/run-seed7"
echo "== tracebacks18.py: manifests that make the check raise"
python tracebacks18.py "$out/run"
echo "== misc18.py"
python misc18.py "$out/run" longpath emptydir selfreport manyfiles
if [ "${SPARSE:-0}" = 1 ]; then python misc18.py "$out/run" sparse; fi
echo "== blocked18.py: what the seal holds"
python blocked18.py "$out/run"
