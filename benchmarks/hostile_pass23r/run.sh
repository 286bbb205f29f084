#!/usr/bin/env bash
# Hostile pass 23r (the results seal): ./run.sh makes its own runs of planner,rusher under
# /tmp/hp23r (HP23R to move them), with a seal key of its own
# (XDG_CONFIG_HOME=$HP23R/config, never the user's), and runs every attack against them.
# About 11 minutes on 2 shared cores (fifo23 and sparse23 each wait 60 s on purpose).
# The scripts never read any key; the only signals they send go to their own runs.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${HP23R:-/tmp/hp23r}"
export HP23R="$out"
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"
echo "== sealfail23.py: a seal made to fail leaves the folder open; the resume seals a forgery"
python sealfail23.py 24        # a folder at the manifest's temporary name
python sealfail23.py 80        # the same, a big run (forked compaction)
python sealfail23.py manifest  # the manifest rewritten with the same content
echo "== deep23.py: a folder tree past the recursion limit"
python deep23.py
echo "== loose23.py: a folder stripped of manifest and games/ read as loose records"
python loose23.py
echo "== sparse23.py: an added 8 TiB sparse file keeps the run's seal hashing"
python sparse23.py
echo "== fifo23.py: a named pipe swapped in after the check hangs the report"
python fifo23.py
echo "== dirparts23.py: folders named like parts skip their batches on a resume"
python dirparts23.py
python dirparts23.py quality
echo "== honest23.py: copies, Ctrl-C stops, a manifest rewritten: no false refusal expected"
python honest23.py
echo "== dask23.py: parts forged as a Dask run lands them (blocked expected)"
python dask23.py
echo "== names23.py: names with control characters in a refusal (blocked expected)"
python names23.py
echo "== older23.py: folders sealed by older commits, read now"
python older23.py
echo "== pass 22 reruns (HP22 under $out/p22)"
mkdir -p "$out/p22"
(cd ../hostile_pass22 && for a in 24 80 check; do HP22="$out/p22" python inplace22.py $a; done; HP22="$out/p22" python hardlink22.py)
