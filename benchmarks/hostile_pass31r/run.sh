#!/usr/bin/env bash
# Hostile pass 31r (the results seal, final short pass): ./run.sh makes its own runs of
# planner,rusher under /tmp/hp31r (HP31R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP31R/config, never the user's), runs this pass's attacks, then pass
# 30r's (rerun30.sh, under $HP31R/r30). About 25 minutes on 2 shared cores. The only
# signals sent go to the scripts' own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP31R:-/tmp/hp31r}"
export HP31R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== bigman31.py: an honest manifest's bytes a batch kept, against the 64 MiB bound"; python bigman31.py 30
echo "== pad31.py: a manifest past 64 MiB, with and without --accept-changes, --resume"; python pad31.py
echo "== aslimit31.sh: a loose record read under ulimit -v"; ./aslimit31.sh
echo "== fds31.py: an open folder's parts read under ulimit -n"; python fds31.py
echo "== lowfd31.sh: a killed run resumed under ulimit -n 64"; ./lowfd31.sh
echo "== sigint31.sh: an honest run stopped by Ctrl-C seals its parts"; ./sigint31.sh
echo "== copies31.sh: tar, rsync, cp -a copies, read-only"; ./copies31.sh
echo "== badname31.py: names not UTF-8, a newline, 255 bytes"; python badname31.py
echo "== pass 30r reruns"; ./rerun30.sh
