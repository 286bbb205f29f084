#!/usr/bin/env bash
# Twentieth hostile pass (the results seal): ./run.sh makes its own sealed runs of
# planner,rusher under /tmp/hp20, with a seal key of its own
# (XDG_CONFIG_HOME=/tmp/hp20/config, never the user's), and runs every attack against
# them. About 3 minutes on 2 shared cores. The scripts never read any key.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP20:-/tmp/hp20}"
export HP20="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
study=(--strategies planner,rusher --players 2 --games 4 --workers 1 --records --no-progress)
cardgame simulate "${study[@]}" --out "$out/run" >/dev/null 2>&1
echo "== forked20.py: a big run's forked compaction merges parts forged after they landed"
python forked20.py 80
python forked20.py 40   # the control: the parent's own compaction (threads) checks them
echo "== temp20.py: a compact file's temporary file renamed over before it lands"
python temp20.py small
python temp20.py forked
echo "== ctrlc20.py: no attacker: a run stopped by Ctrl-C blames its own last batch"
python ctrlc20.py 5 2
echo "== resume20.py: a resume merges a part renamed over a sealed one, removes it, seals"
python resume20.py keep
python resume20.py ctrlc
python resume20.py plant
echo "== settled20.py: a study played until settled takes planted parts as batches played"
python settled20.py
echo "== check20.py: a check's folder sealed over what it holds"
python check20.py
echo "== shapes20.py: legitimate run shapes, no attacker (no false refusal expected)"
python shapes20.py
echo "== tracebacks20.py: a name past the file system's limit"
python tracebacks20.py "$out/run"
echo "== misc20.py: false refusals of legitimate paths"
python misc20.py "$out/run"
