#!/usr/bin/env bash
# Hostile pass 25s: ./tty.sh TARGET [COLS] plays TARGET (module:Class) against the planner
# under --isolate on a pseudo-terminal of COLS columns (80), 2 games, one worker, and
# shows the terminal's rows as it draws them (render.py) into /tmp/hp25s/tty-NAME.txt.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
cols="${2:-80}"
out=/tmp/hp25s; mkdir -p "$out"
name="$(echo "$1" | tr -c 'A-Za-z0-9\n' _)"
echo "${KEY:-$cols}" >hp25s/key.txt
module="${1%%:*}"; file="${module/./\/}.py"  # a module named in CJK is made here, not kept in git
case "$module" in hp25s.s*) [ -e "$file" ] || printf '%s\n' \
  '"""A strategy module with a name of wide characters (made by tty.sh, not kept in git)."""' '' \
  'from hp25s import Wide' '' '' 'class W(Wide):' '    """Plays as a planner; see ``hp25s.Wide``."""' >"$file" ;; esac
case "$1" in hp24s*) echo "${KEY:-$cols}" >../hostile_pass24s/hp24s/key.txt; cd ../hostile_pass24s ;; esac
rm -rf "$out/tty-out-$name"
script -q -c "stty cols $cols rows 200; cardgame simulate --strategies '$1,planner' --players 2 --games 2 --isolate --workers 1 --out $out/tty-out-$name --no-progress" "$out/tty-$name.raw" >/dev/null
python "$here/render.py" "$out/tty-$name.raw" "$cols" | tee "$out/tty-$name.txt"
