#!/usr/bin/env bash
# Twenty-second hostile pass (the results seal): ./run.sh makes its own runs of
# planner,rusher under /tmp/hp22, with a seal key of its own
# (XDG_CONFIG_HOME=/tmp/hp22/config, never the user's), and runs every attack against
# them. About 1.5 minutes on 2 shared cores. The scripts never read any key.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP22:-/tmp/hp22}"
export HP22="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== inplace22.py: a compact file's temporary file written in place before it lands"
python inplace22.py 24   # the compaction in the parent's threads
python inplace22.py 80   # a big run: its compaction forked
python inplace22.py check   # a check's folder (checks/search)
echo "== hardlink22.py: a part the resume removed, linked back, is sealed as found"
python hardlink22.py
echo "== shapes22.py: legitimate shapes, no attacker (no false refusal expected)"
python shapes22.py
