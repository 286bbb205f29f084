"""How long a write-locked memory call holds mmap_lock (outside the sandbox): the bound on
a steady stop delayed by threads queued on the lock (README, "Tried and blocked")."""

import ctypes
import time

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
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
n = 900 << 20
a = libc.mmap(None, n, 3, 0x22, -1, 0)
t = time.perf_counter()
libc.madvise(a, n, 23)
p = time.perf_counter() - t
t = time.perf_counter()
b = libc.mmap(a, n, 3, 0x22 | 0x10, -1, 0)
r = time.perf_counter() - t
print(f"populate 900 MiB {p:.3f} s; MAP_FIXED over it (write-locked unmap) {r:.3f} s")
# many VMAs: 60000 alternating one-page mappings, then one mprotect merging them all
base = libc.mmap(None, 60000 * 4096, 1, 0x22, -1, 0)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
for i in range(0, 60000, 2):
    libc.mprotect(base + i * 4096, 4096, 0)
t = time.perf_counter()
libc.mprotect(base, 60000 * 4096, 1)
m = time.perf_counter() - t
print(f"mprotect merging 60000 mappings {m:.3f} s")
