#!/usr/bin/env bash
# The page-cache eviction of a run not as root: as root, plays hp5:<ATTACK> (default
# EvictProbe, then PageoutMemo) as uid 65534, from a copy of the hp5 package that uid owns
# (as an organiser's own entries folder would be), in a private mount namespace where the
# Python install under /root is reachable. Usage: ./nonroot.sh [ATTACK ...]
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
python="$(python -c 'import sys; print(sys.base_prefix)')"
work="$(mktemp -d "$here/.nonroot-XXXXXX")"  # on the disk, as entries would be (not /tmp: a tmpfs here)
[ -f "$here/hp5/blob.bin" ] || { echo "run ./run.sh EvictProbe once first (makes hp5/blob.bin)"; exit 2; }
mkdir -p "$work/pkg" && cp -r "$here/hp5" "$work/pkg/" && rm -rf "$work/pkg/hp5/__pycache__"
chown -R 65534:65534 "$work" && chmod 777 "$work" && sync  # clean pages: a dirty one is written back, not evicted
attacks="${*:-EvictProbe PageoutMemo}"
exec unshare -m bash -c '
  set -eu
  mount --make-rprivate /
  python="$1"; work="$2"; attacks="$3"
  if [ "${python#/root/}" != "$python" ]; then  # /root is not for others: show only Python
    mkdir -p "$work/python"
    mount --bind "$python" "$work/python"
    mount -t tmpfs -o mode=755 tmpfs /root
    mkdir -p "$python"
    mount --bind "$work/python" "$python"
  fi
  cd "$work/pkg"
  for attack in $attacks; do
    echo "== $attack as uid 65534"
    setpriv --reuid 65534 --regid 65534 --clear-groups env -i HOME="$work" PATH="$PATH" \
      cardgame simulate --strategies "hp5:$attack,planner" --players 2 --games 4 --isolate \
      --workers 1 --out "$work/out-$attack" --no-progress 2>&1 | grep -a -e HOSTILE -e Error | cut -c1-300
  done
' nonroot "$python" "$work" "$attacks"
