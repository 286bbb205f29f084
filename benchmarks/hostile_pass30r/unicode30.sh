#!/usr/bin/env bash
# Honest: a results folder whose path holds spaces and non-ASCII letters, run, reported,
# replayed, viewed, resumed, then moved to another such name and reported.
set -u
out="${HP30R:-/tmp/hp30r}"
export XDG_CONFIG_HOME="${XDG_CONFIG_HOME:-$out/config}"
d="$out/rés ults ü"
rm -rf "$d" "$out/ü2"
step() { "$@" >/tmp/hp30r-u.out 2>&1; rc=$?; echo "\$ ${*:1:3} ...: exit $rc: $(tail -1 /tmp/hp30r-u.out | cut -c1-150)"; }
step cardgame simulate "$out/flip30.toml" --workers 1 --no-progress --records --out "$d"
step cardgame report "$d" --format md --out "$out/u.md"
step cardgame replay "$d/records/$(ls "$d/records" | head -1)"
step cardgame view "$d" --playouts 0 --out "$out/u.html"
step cardgame simulate "$out/flip30.toml" --workers 1 --no-progress --records --out "$d" --resume
mv "$d" "$out/ü2"
step cardgame report "$out/ü2" --format md --out "$out/u.md"
