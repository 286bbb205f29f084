#!/usr/bin/env bash
# Pass 29r's named pipes by hand, against this tree: a pipe in a table's or a record's place,
# read with --accept-changes, and a pipe as a loose record (no manifest, no --accept-changes).
set -u
out="${HP30R:-/tmp/hp30r}"
export XDG_CONFIG_HOME="${XDG_CONFIG_HOME:-$out/config}"
base="$out/flip30"   # a sealed folder with records (flip30.py makes it)
rec="$(ls "$base/records" | head -1)"
try() { echo "\$ $*"; timeout 20 "$@" >/tmp/hp30r-fifo.out 2>&1; rc=$?; tail -1 /tmp/hp30r-fifo.out | cut -c1-200; echo "  exit $rc"; }
for x in games/compact.parquet seats/compact.parquet destinations/compact.parquet "records/$rec"; do
    rm -rf "$out/fifo30"; cp -a "$base" "$out/fifo30"; rm "$out/fifo30/$x"; mkfifo "$out/fifo30/$x"
    echo "-- a named pipe at $x"
    try cardgame report "$out/fifo30" --accept-changes --format md --out "$out/fifo30.md"
    try cardgame view "$out/fifo30" --accept-changes --playouts 0 --out "$out/fifo30.html"
    try cardgame replay "$out/fifo30/records/$rec" --accept-changes
done
rm -rf "$out/fifo30"; mkdir -p "$out/fifo30"; cp -a "$base/records" "$out/fifo30/"
rm "$out/fifo30/records/$rec"; mkfifo "$out/fifo30/records/$rec"
echo "-- loose records/, $rec a named pipe"
try cardgame replay "$out/fifo30/records/$rec"
try cardgame view "$out/fifo30" --playouts 0 --out "$out/fifo30.html"
