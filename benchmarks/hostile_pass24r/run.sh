#!/usr/bin/env bash
# Hostile pass 24r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp24r (HP24R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP24R/config, never the user's), and runs every attack against them.
# About 15 minutes on 2 shared cores. dask24.py needs setpriv, the user nobody and
# /usr/bin/python3.11 (the other user's interpreter); the only signals sent go to the
# scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP24R:-/tmp/hp24r}"
export HP24R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== dask24.py: another user runs code in a local Dask cluster's workers and takes the key"
python dask24.py
echo "== link24.py: a link in a run's folder: tracebacks"
python link24.py run
python link24.py accept
echo "== bigint24.py: a manifest with a 5,000-digit integer: tracebacks"
python bigint24.py
echo "== sparse24.py: a manifest grown to 8 TiB in place: MemoryError; a part grown to 2 GiB"
python sparse24.py
echo "== stall24.py: a seal stalled by a grown file, cut short by the watchdog"
python stall24.py
python stall24.py term
echo "== records24.py: an empty records/ misdirects a resume"
python records24.py
echo "== checkopen24.py: a check's open mark outlives its failed run"
python checkopen24.py
echo "== odd24.py: odd manifests read with --accept-changes"
python odd24.py
echo "== honest24.py: no attacker (chmod, touch, mv, cp -a to tmpfs, cp -al, SIGTERM stops)"
python honest24.py
echo "== older24.py: folders sealed by older commits, read now"
python older24.py
echo "== pass 23r reruns (HP23R under $out/p23)"
mkdir -p "$out/p23"
(cd ../hostile_pass23r && export HP23R="$out/p23" && for a in "sealfail23.py 24" "sealfail23.py 80" "sealfail23.py manifest" deep23.py loose23.py sparse23.py fifo23.py dirparts23.py "dirparts23.py quality"; do echo "== python $a"; python $a; done)
