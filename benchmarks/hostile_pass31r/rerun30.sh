#!/usr/bin/env bash
# Pass 30r's attacks as that pass wrote them, rerun on this code, under $HP31R/r30 (its own
# seal key: XDG_CONFIG_HOME=$HP31R/r30/config). Short counts: 2 shared cores.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${HP31R:-/tmp/hp31r}/r30"
rm -rf "$out"; mkdir -p "$out"
export HP30R="$out" XDG_CONFIG_HOME="$out/config"
cd "$here/../hostile_pass30r"
echo "== flip30.py 4"; timeout 900 python flip30.py 4
echo "== grow30.py 10 manifest.json grown"; timeout 600 python grow30.py 10 "manifest.json grown"
echo "== growsealed30.py 8"; timeout 600 python growsealed30.py 8
echo "== amp30.py"; timeout 600 python amp30.py
echo "== fifo30.sh"; timeout 300 ./fifo30.sh
