#!/usr/bin/env bash
# The suggested fix, tried by hand (root, a cgroup v1 memory hierarchy): pagetables_memcg.py's
# 65,000 mappings in a memory group limited to LIMIT MiB (256 by default). The group counts
# their page tables (8 KiB a mapping) and its OOM killer ends the process at the limit.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cg=/sys/fs/cgroup/memory/hp23s-memcg-$$
mkdir "$cg" || exit 1
echo $(( ${LIMIT:-256} << 20 )) >"$cg/memory.limit_in_bytes"
sh -c "echo \$\$ >$cg/cgroup.procs && exec python3 $here/pagetables_memcg.py $cg"
echo "exit $?; max usage $(cat "$cg/memory.max_usage_in_bytes") bytes; failcnt $(cat "$cg/memory.failcnt")"
sleep 0.5
rmdir "$cg"
