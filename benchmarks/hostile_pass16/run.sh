#!/usr/bin/env bash
# Sixteenth hostile pass: ./run.sh makes a sealed run of planner,rusher (4 games, one worker,
# records) under /tmp/hp16s/run, then runs the results-folder attacks against copies of it:
# mmap16.py (blind), timed16.py (report, view, replay) and resume16.py.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp16s}"
rm -rf "$out"
cardgame simulate --strategies planner,rusher --players 2 --games 4 --workers 1 --records \
  --out "$out/run" --no-progress >/dev/null
python mmap16.py "$out/run" 100
python mmap16.py "$out/run" 12 report
python timed16.py "$out/run" 4 report
python timed16.py "$out/run" 2 view
python timed16.py "$out/run" 2 replay
python resume16.py "$out/run" 4 | grep -v '^report:'
