#!/usr/bin/env bash
# The task bound of a run not as root (RLIMIT_NPROC, counted per user in the sandbox's user
# namespace): run as root, it plays hp4-style thread exhaustion as uid 65534 in a private
# mount namespace where the Python install under /root is reachable (nothing of the
# machine's mounts changes). Usage: sudo ./nonroot.sh [ATTACK]  (default Tasks10k)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
attack="${1:-Tasks10k}"
python="$(python -c 'import sys; print(sys.base_prefix)')"
work="$(mktemp -d /tmp/nonroot-XXXXXX)"
chmod 777 "$work"
exec unshare -m bash -c '
  set -eu
  mount --make-rprivate /
  python="$1"; work="$2"; here="$3"; attack="$4"
  if [ "${python#/root/}" != "$python" ]; then  # /root is not for others: show only Python
    mkdir -p "$work/python"
    mount --bind "$python" "$work/python"
    mount -t tmpfs -o mode=755 tmpfs /root
    mkdir -p "$python"
    mount --bind "$work/python" "$python"
  fi
  cd "$here"
  setpriv --reuid 65534 --regid 65534 --clear-groups env -i HOME="$work" PATH="$PATH" \
    cardgame simulate --strategies "hp4:$attack,planner" --players 2 --games 2 --isolate \
    --workers 1 --out "$work/out" --no-progress 2>&1 | grep -a -e HOSTILE -e Error | cut -c1-300
' nonroot "$python" "$work" "$here" "$attack"
