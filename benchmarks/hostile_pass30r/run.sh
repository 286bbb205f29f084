#!/usr/bin/env bash
# Hostile pass 30r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp30r (HP30R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP30R/config, never the user's), runs every attack against them, then
# pass 29r's and 28r's key attacks (under $HP30R/r29 and $HP30R/r28). About 30 minutes on
# 2 shared cores. The only signals sent go to the scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP30R:-/tmp/hp30r}"
export HP30R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== flip30.py: a named pipe flipped into a file's place, read unsealed"; python flip30.py 6
python flip30.py 8 loose
echo "== stack30.py: where a hung reader waits"; python stack30.py
echo "== grow30.py: a manifest and a record grown and shrunk while read"; python grow30.py 60 "manifest.json grown"; python grow30.py 40 "replay of records"
echo "== fifo30.sh: pass 29r's pipes by hand"; ./fifo30.sh
echo "== determ30.py: the races made deterministic in-process"; python determ30.py
echo "== growsealed30.py: a sealed table grown while read after its check"; python growsealed30.py 25
echo "== honest30.py: hard-link copies, touched times, tmpfs, read-only"; python honest30.py
echo "== sigseal30.py: Ctrl-C while a run seals"; python sigseal30.py
echo "== unicode30.sh: a path of spaces and non-ASCII letters"; ./unicode30.sh
echo "== amp30.py: a manifest that grows when parsed"; python amp30.py
echo "== pass 29r reruns"
./rerun.sh 29 accept29.py openpipe29.py special29.py daskrace29.py
echo "== pass 28r reruns"
./rerun.sh 28 vanish28.py shadow28.py dupkey28.py
