#!/usr/bin/env bash
# A strategy package holding symlinks to a file outside it (absolute, relative, a folder):
# does the sandbox's copy of its code show the file? Builds the package under $OUT/pkg.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-/tmp/hp23s}"
pkg="$out/pkg/hp23slink"
mkdir -p "$pkg"
echo "the organiser's secret" >"$out/secret.txt"
cp "$here/pkgsrc/hp23slink_init.py" "$pkg/__init__.py"
ln -sfn "$out/secret.txt" "$pkg/abs"
ln -sfn ../../secret.txt "$pkg/rel"
ln -sfn "$out" "$pkg/dirlink"
rm -rf "$out/out-link"
PYTHONPATH="$out/pkg" cardgame simulate --strategies hp23slink:Plain,planner --players 2 --games 1 \
  --isolate --workers 1 --out "$out/out-link" --no-progress 2>&1 | grep -a HOSTILE | sort | uniq -c
