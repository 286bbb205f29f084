"""MADV_COLLAPSE outside the sandbox: `python hugeoutside.py FILE-ON-A-TMPFS 1,3` times each 2 MiB
region of a fresh mapping, collapses regions 1 and 3, times again; run it again without the
regions to see that another process finds them collapsed."""

import ctypes
import os
import statistics
import sys
import time

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
H = 2 << 20
path = sys.argv[1]
fd = os.open(path, os.O_RDONLY)
size = os.fstat(fd).st_size
regions = size // H


def mapped():
    res = LIBC.mmap(None, size + H, 0, 0x22, -1, 0)
    a = (res + H - 1) & ~(H - 1)
    got = LIBC.mmap(a, regions * H, 1, 0x12, fd, 0)  # MAP_PRIVATE|MAP_FIXED
    assert got == a, (got, a, ctypes.get_errno())
    return res, a


_code = bytes.fromhex("8a074881c70010000048ffce75f2c3")
_mem = LIBC.mmap(None, 4096, 7, 0x22, -1, 0)
ctypes.memmove(_mem, _code, len(_code))
TOUCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_long)(_mem)


def region_time(k):
    res, a = mapped()
    s = time.perf_counter_ns()
    TOUCH(a + k * H, H // 4096)
    t = time.perf_counter_ns() - s
    LIBC.munmap(res, size + H)
    return t / 1000


print("regions", regions)
print(
    "before", [round(statistics.median(region_time(k) for _ in range(3))) for k in range(regions)]
)
if len(sys.argv) > 2:
    res, a = mapped()
    for k in map(int, sys.argv[2].split(",")):
        r = LIBC.madvise(a + k * H, H, 25)
        print("collapse", k, r, os.strerror(ctypes.get_errno()) if r else "")
    LIBC.munmap(res, size + H)
print(
    "after ", [round(statistics.median(region_time(k) for _ in range(3))) for k in range(regions)]
)
