#!/usr/bin/env bash
# An honest run of one cell (1,000 one-game batches) stopped by Ctrl-C (SIGINT) once 300
# parts have landed: the parts of a cell not yet whole are kept, and its seal lists each, so
# the manifest grows with the batches played (bigman31.py: some 535 bytes a batch).
set -um  # job control: a background job then takes SIGINT (else bash ignores it there)
root="${HP31R:-/tmp/hp31r}"
export XDG_CONFIG_HOME="$root/config"
cd "$(dirname "$0")"
[ -f "$root/fds.toml" ] || python -c "from common31 import study_file; study_file('fds', 1000, 1)"
cd "$root"
rm -rf sigint
cardgame simulate fds.toml --out sigint --workers 1 --no-progress >sigint.log 2>&1 &
pid=$!
while [ "$(ls sigint/games/_parts 2>/dev/null | wc -l)" -lt 300 ]; do sleep 0.2; done
kill -INT "$pid"; wait "$pid"; rc=$?
echo "run stopped by SIGINT: exit $rc: $(tail -1 sigint.log | cut -c1-120)"
python - <<'PY'
import json
m = json.load(open("sigint/manifest.json"))
parts = [n for n in m["files"] if "/_parts/" in n]
size = len(open("sigint/manifest.json", "rb").read())
print(f"sealed: {m['seal']['state']}; parts listed in the seal: {len(parts)}; "
      f"manifest {size:,} bytes ({size / max(1, len(parts) / 3):.0f} a batch kept)")
PY
out=$(cardgame simulate fds.toml --out sigint --workers 1 --no-progress --resume 2>&1)
echo "resume: exit $?: $(tail -1 <<<"$out" | cut -c1-120)"
