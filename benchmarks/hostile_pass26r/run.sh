#!/usr/bin/env bash
# Hostile pass 26r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp26r (HP26R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP26R/config, never the user's), and runs every attack against them.
# About 10 minutes on 2 shared cores. dask24.py needs setpriv, the user nobody and
# /usr/bin/python3.11 (the other user's interpreter); the only signals sent go to the
# scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP26R:-/tmp/hp26r}"
export HP26R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== unseal26.py removed: the manifest removed before the seal"; python unseal26.py removed
echo "== unseal26.py runid: a manifest naming another run id"; python unseal26.py runid
echo "== unseal26.py fifo: a named pipe in the manifest's place"; python unseal26.py fifo
echo "== unseal26.py resume: the manifest removed while a resume plays"; python unseal26.py resume
echo "== pass 25r and 24r reruns"
echo "== shape25.py"; python shape25.py
echo "== odd25.py"; python odd25.py
echo "== dask24.py"; python dask24.py
echo "== stall24.py"; python stall24.py
echo "== stall24.py term"; python stall24.py term
echo "== odd26.py: unsealed records grown to 8 TiB"; python odd26.py
echo "== check26.py: a check's manifest removed while it plays"; python check26.py
echo "== huge26.py: a sealed file grown to 8 TiB"; python huge26.py
echo "== honest26.py: no attacker"; python honest26.py
