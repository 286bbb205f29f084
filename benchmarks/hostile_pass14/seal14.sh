#!/usr/bin/env bash
# Class 4 (results that cannot change unseen): one isolated run with records, then each
# change below made to a fresh copy of its folder, and report / view / replay / --resume
# run on it (each should refuse in one line, exit 2); --accept-changes reads it.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
out="${OUT:-/tmp/hp14s}"
rm -rf "$out"; mkdir -p "$out"
cardgame simulate --strategies hp14:Honest14,planner --players 2 --games 2 --isolate \
  --workers 1 --records --out "$out/run" --no-progress >/dev/null 2>&1 || echo "run failed"
rec() { ls "$1"/records/*.jsonl | head -1; }
try() {  # try NAME: run each reader on $out/$1
  f="$out/$1"
  for cmd in "report $f --out $out/$1.html" "view $(rec "$f") -o $out/$1-view.html --playouts 0" \
             "replay $(rec "$f")" "simulate --strategies hp14:Honest14,planner --players 2 --games 2 --isolate --workers 1 --records --out $f --resume --no-progress"; do
    # shellcheck disable=SC2086
    cardgame $cmd >"$out/o" 2>"$out/e"; rc=$?
    printf '  %-8s exit %s, %s stderr line(s): %s\n' "${cmd%% *}" "$rc" "$(grep -c '' "$out/e")" "$(head -c 230 "$out/e" | head -1)"
  done
}
change() {  # change NAME 'shell on $d'
  rm -rf "$out/$1"; cp -a "$out/run" "$out/$1"; d="$out/$1"
  eval "$2"
  echo "== $1: $2"
  try "$1"
}
echo "== unchanged"; rm -rf "$out/same"; cp -a "$out/run" "$out/same"; try same
change edit-parquet 'printf x >>"$d/seats/compact.parquet"'
change scores-500 'python -c "import pyarrow.parquet as pq, pyarrow.compute as pc, sys; p=sys.argv[1]; t=pq.read_table(p); i=t.schema.get_field_index(\"score\"); pq.write_table(t.set_column(i, \"score\", pc.add(t[\"score\"], 500)), p)" "$d/seats/compact.parquet"'
change add-file 'echo x >"$d/games/extra.txt"'
change remove-file 'rm "$d/destinations/compact.parquet"'
change edit-record 'sed -i "0,/\"seed\":[0-9]*/s//\"seed\":1/" "$(rec "$d")"'
change edit-manifest 'python -c "import json,sys; p=sys.argv[1]; m=json.load(open(p)); m[\"plan\"][\"description\"]=\"changed\"; json.dump(m, open(p,\"w\"))" "$d/manifest.json"'
change drop-seal 'python -c "import json,sys; p=sys.argv[1]; m=json.load(open(p)); [m.pop(k,None) for k in (\"seal\",\"files\")]; json.dump(m, open(p,\"w\"))" "$d/manifest.json"'
change tmp-file 'cp "$d/seats/compact.parquet" "$d/seats/compact.parquet.tmp"'
echo "== scores-500 with --accept-changes"
cardgame report "$out/scores-500" --out "$out/acc.md" --format md --accept-changes >/dev/null 2>"$out/e"; echo "  report exit $?"
cardgame view "$(rec "$out/scores-500")" -o "$out/acc.html" --playouts 0 --accept-changes >/dev/null 2>"$out/e"; echo "  view exit $?"
cardgame replay "$(rec "$out/scores-500")" --accept-changes >/dev/null 2>"$out/e"; echo "  replay exit $?"
cardgame simulate --strategies hp14:Honest14,planner --players 2 --games 2 --isolate --workers 1 --records \
  --out "$out/scores-500" --resume --accept-changes --no-progress >/dev/null 2>"$out/e"; echo "  simulate --resume exit $? $(tail -1 "$out/e" | cut -c1-150)"
python -c "from sims.results import load_results; r=load_results('$out/scores-500', accept_changes=True); print('  mean score read with accept_changes:', r.seats.groupby('strategy')['score'].mean().round(1).to_dict())"
