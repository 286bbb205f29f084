"""PageTables outside the sandbox, in a cgroup v1 memory group of its own (memcg.sh): does
the group count the page tables? Prints its usage every 10,000 mappings."""

import ctypes
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
cg = sys.argv[1]


def usage():
    return int(open(cg + "/memory.usage_in_bytes").read()) >> 20


print("before", usage(), "MiB", flush=True)
made = 0
for i in range(65000):
    got = libc.mmap(0x100000000000 + i * (1 << 30), 4096, 1, 0x22 | 0x100000, -1, 0)
    if got in (None, ctypes.c_void_p(-1).value):
        break
    ctypes.c_char.from_address(got).value  # noqa: B018  (a read fault: the zero page)
    made += 1
    if i % 10000 == 0:
        print(i, usage(), "MiB", flush=True)
print("made", made, "usage", usage(), "MiB", flush=True)
