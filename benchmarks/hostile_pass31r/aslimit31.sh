#!/usr/bin/env bash
# An honest record read with no seal in force (loose records, --accept-changes, an open
# folder) under an address-space limit (ulimit -v, as batch schedulers set): read_record_file
# asks for 1 GiB + 1 at once (file.read(MAX_RECORD_FILE + 1)) whatever the file's size. The
# same record read through its folder's seal is read fine.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="${HP31R:-/tmp/hp31r}"
export XDG_CONFIG_HOME="$root/config"
cd "$here"
[ -d "$root/bigman/records" ] || python bigman31.py 30 >/dev/null
rm -rf "$root/loose"; mkdir -p "$root/loose"; cp -a "$root/bigman/records" "$root/loose/"
rec=records/part-c0000-g0000000.jsonl
echo "record: $(stat -c %s "$root/loose/$rec") bytes"
cd "$root"
for v in 1500000 1200000; do
  echo "== ulimit -v $v (KiB)"
  (
    ulimit -v "$v"
    out=$(cardgame replay "bigman/$rec" 2>&1); echo "  replay, sealed folder: exit $?: $(tail -1 <<<"$out" | cut -c1-120)"
    out=$(cardgame replay "loose/$rec" 2>&1); echo "  replay, loose records: exit $?: $(tail -1 <<<"$out" | cut -c1-120)"
    grep -q Traceback <<<"$out" && echo "    traceback ends: $(grep -B3 MemoryError <<<"$out" | head -3 | tr -s ' ' | tr '\n' '|')"
    out=$(cardgame view loose 2>&1); echo "  view, loose records: exit $?: $(tail -1 <<<"$out" | cut -c1-120)"
    out=$(python -c "import pyarrow, sims.results; b = bytearray(200 << 20); print('200 MiB more: fine')" 2>&1); echo "  the same process, 200 MiB more: $(tail -1 <<<"$out")"
  )
done
rm -f "$root"/loose-seed*.html
