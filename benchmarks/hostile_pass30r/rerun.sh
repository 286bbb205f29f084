#!/usr/bin/env bash
# Earlier passes' attacks, as they wrote them, against this tree, with this pass's seal key:
# ./rerun.sh 29 accept29.py openpipe29.py ... (under $HP30R/r29), ./rerun.sh 28 vanish28.py ...
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${HP30R:-/tmp/hp30r}"
export XDG_CONFIG_HOME="${XDG_CONFIG_HOME:-$out/config}"
pass="$1"
shift
export "HP${pass}R=$out/r$pass"
mkdir -p "$out/r$pass"
cd "$here/../hostile_pass${pass}r"
for script in "$@"; do
    echo "-- $script"
    case "$script" in
        vanish28.py) python "$script" 2 ;;
        *) python "$script" ;;
    esac
done
