#!/usr/bin/env bash
# Honest copies of a sealed folder made with --records: tar (through a pipe), rsync -a where
# there is one, cp -a onto tmpfs, cp -r (new time stamps); each reported, replayed, viewed and
# resumed; then the tar copy's files made read-only (as root: says nothing of permissions).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="${HP31R:-/tmp/hp31r}"
export XDG_CONFIG_HOME="$root/config"
cd "$here"
[ -d "$root/bigman" ] || python bigman31.py 30 >/dev/null
src="$root/bigman"
shm="/dev/shm/hp31r-$$"
copies=("$root/c-tar" "$root/c-cpr" "$shm/c-cpa")
rm -rf "${copies[@]}" "$root/c-rsync"; mkdir -p "$root/c-tar" "$shm"
(cd "$src" && tar cf - .) | (cd "$root/c-tar" && tar xf -)
cp -r "$src" "$root/c-cpr"
cp -a "$src" "$shm/c-cpa"
if command -v rsync >/dev/null; then rsync -a "$src/" "$root/c-rsync/"; copies+=("$root/c-rsync"); fi
refused=0
for c in "${copies[@]}"; do
  for cmd in "report $c --out $root/c-report" "replay $c/records/part-c0000-g0000003.jsonl" \
             "view $c --playouts 0 --out $root/c-view.html"; do
    # shellcheck disable=SC2086
    out=$(cardgame $cmd 2>&1); rc=$?
    [ $rc -ne 0 ] && refused=$((refused + 1))
    echo "  ${c#"$root/"}: ${cmd%% *}: exit $rc: $(tail -1 <<<"$out" | cut -c1-110)"
  done
  out=$(cardgame simulate "$root/bigman.toml" --out "$c" --resume --records --keep-parts --workers 1 --no-progress 2>&1); rc=$?
  [ $rc -ne 0 ] && refused=$((refused + 1))
  echo "  ${c#"$root/"}: resume (the same study): exit $rc: $(tail -1 <<<"$out" | cut -c1-110)"
done
chmod -R a-w "$root/c-tar"
out=$(cardgame report "$root/c-tar" --out "$root/c-report2" 2>&1); rc=$?
[ $rc -ne 0 ] && refused=$((refused + 1))
echo "  c-tar read-only: report: exit $rc: $(tail -1 <<<"$out" | cut -c1-110)"
chmod -R u+w "$root/c-tar"
echo "honest commands refused (exit not 0): $refused"
rm -rf "$shm"
