#!/usr/bin/env bash
# Hostile pass 25r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp25r (HP25R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP25R/config, never the user's), and runs every attack against them.
# About 8 minutes on 2 shared cores. dask24.py needs setpriv, the user nobody and
# /usr/bin/python3.11 (the other user's interpreter); the only signals sent go to the
# scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP25R:-/tmp/hp25r}"
export HP25R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== pass 24r reruns"
echo "== dask24.py"; python dask24.py
echo "== stall24.py"; python stall24.py
echo "== stall24.py term"; python stall24.py term
echo "== checkopen24.py"; python checkopen24.py
echo "== records24.py"; python records24.py
echo "== shape25.py: odd shapes, an immutable folder"; python shape25.py
echo "== odd25.py: entries the seal does not list"; python odd25.py
echo "== manifest25.py: the manifest replaced while its run plays"; python manifest25.py
echo "== honest25.py: cp -r, tar, Ctrl-C at several points"
python honest25.py
