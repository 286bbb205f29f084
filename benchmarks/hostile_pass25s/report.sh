#!/usr/bin/env bash
# Hostile pass 25s: ./report.sh [COLS] plays hp25s:ReportForged against the planner under
# --isolate into the default folder, then runs `cardgame report` on a pseudo-terminal of
# COLS columns (80) and shows its rows as the terminal draws them.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
cols="${1:-80}"
echo "$cols" >hp25s/key.txt
rm -rf results/adhoc-hp25s-ReportForged+planner-2p
cardgame simulate --strategies hp25s:ReportForged,planner --players 2 --games 2 --isolate \
  --workers 1 --no-progress >/dev/null 2>&1
script -q -c "stty cols $cols rows 200; cardgame report results/adhoc-hp25s-ReportForged+planner-2p" \
  /tmp/hp25s/report-forged.raw >/dev/null
python render.py /tmp/hp25s/report-forged.raw "$cols" | grep -v '^|Script ' | sed 's/\xe2\xa0\x80/ /g'
echo "U+2800 characters written to the terminal: $(grep -o $'\u2800' /tmp/hp25s/report-forged.raw | wc -l)"
