#!/usr/bin/env bash
# Pass 28r's attacks, as that pass wrote them, against this tree: ./rerun28.sh SCRIPT...
# (under $HP29R/r28, with this pass's seal key).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${HP29R:-/tmp/hp29r}"
export XDG_CONFIG_HOME="${XDG_CONFIG_HOME:-$out/config}"
export HP28R="$out/r28"
mkdir -p "$HP28R"
cd "$here/../hostile_pass28r"
for script in "$@"; do
    echo "-- $script"
    case "$script" in
        vanish28.py) python "$script" 2 ;;
        *) python "$script" ;;
    esac
done
