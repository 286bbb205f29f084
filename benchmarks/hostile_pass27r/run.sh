#!/usr/bin/env bash
# Hostile pass 27r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp27r (HP27R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP27R/config, never the user's), and runs every attack against them,
# then pass 26r's key attacks (under $HP27R/r26). About 10 minutes on 2 shared cores. The
# only signals sent go to the scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP27R:-/tmp/hp27r}"
export HP27R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== checkhide27.py: a check hidden from the study's report"; python checkhide27.py
echo "== hugerace27.py: a sealed file swapped for 8 TiB while it is checked"; python hugerace27.py
echo "== grow27.py: a sealed file grown in place after its check"; python grow27.py
echo "== growrun27.py: a part grown in place while its run plays"; python growrun27.py
echo "== oddname27.py: odd names, tar and cp -al copies"; python oddname27.py
echo "== decoy27.py: a decoy in front of a forgery"; python decoy27.py
echo "== leftout27.py: names the seal leaves out, as record files"; python leftout27.py
echo "== honest27.py: Ctrl-C at several moments, then resumed"; python honest27.py
echo "== pass 26r reruns"
cd ../hostile_pass26r
export HP26R="$out/r26"
mkdir -p "$HP26R"
export XDG_CONFIG_HOME="$HP26R/config"
for v in removed runid fifo resume; do echo "== unseal26.py $v"; python unseal26.py "$v"; done
for s in huge26 odd26 check26 honest26; do echo "== $s.py"; python "$s.py"; done
