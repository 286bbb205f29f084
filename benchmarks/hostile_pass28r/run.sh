#!/usr/bin/env bash
# Hostile pass 28r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp28r (HP28R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP28R/config, never the user's), runs every attack against them, then
# pass 27r's key attacks (under $HP28R/r27). About 13 minutes on 2 shared cores. The only
# signals sent go to the scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP28R:-/tmp/hp28r}"
export HP28R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== vanish28.py: a sealed file taken away and put back while the run seals"; python vanish28.py 3
echo "== shadow28.py: a .tmp file (left out of the seal) makes quality a table"; python shadow28.py
echo "== odd28.py: odd manifests read with --accept-changes"; python odd28.py
echo "== dupkey28.py: a duplicate key in the manifest"; python dupkey28.py
echo "== flicker28.py: a file coming and going while the run seals"; python flicker28.py 6
echo "== obstacle28.py: folders where a run lands files"; python obstacle28.py
echo "== readvanish28.py: a sealed file taken away and put back while a reader reads"; python readvanish28.py
echo "== checkvanish28.py: vanish28 during a check's seal"; python checkvanish28.py
echo "== honest28.py: honest commands"; python honest28.py
echo "== pass 27r reruns"
./rerun27.sh checkhide27.py decoy27.py hugerace27.py grow27.py leftout27.py
