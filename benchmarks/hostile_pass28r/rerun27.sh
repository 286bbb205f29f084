#!/usr/bin/env bash
# Reruns pass 27r's key attacks against this tree, under $HP28R/r27 (default /tmp/hp28r/r27),
# with a seal key of their own (XDG_CONFIG_HOME=$HP28R/config), never the user's.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="${HP28R:-/tmp/hp28r}"
export HP27R="$root/r27"
export XDG_CONFIG_HOME="$root/config"
rm -rf "$HP27R"; mkdir -p "$HP27R"
cd "$here/../hostile_pass27r"
for s in "$@"; do echo "== $s"; timeout 600 python "$s"; echo "(exit $?)"; done
