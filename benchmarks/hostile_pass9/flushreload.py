"""Flush+Reload between two processes on one page of a tmpfs file (outside the sandbox):
`taskset -c 0 python flushreload.py send & taskset -c 1 python flushreload.py recv`; the sender
loads a line in even 100 ms slots, the receiver times reload-then-flush in each kind of slot."""

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
_code = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)
_mem = LIBC.mmap(None, 4096, 7, 0x22, -1, 0)
ctypes.memmove(_mem, _code, len(_code))
ctypes.memmove(_mem + 512, bytes.fromhex("8b07c3"), 3)
PROBE = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(_mem)
TOUCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_mem + 512)
_fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
_base = LIBC.mmap(None, 65536, 1, 2, _fd, 0)


def line(off):
    return _base + off


a = line(8192 + 64 * 9)
if sys.argv[1] == "send":
    end = time.monotonic() + 3
    while time.monotonic() < end:
        if int(time.monotonic() * 10) % 2 == 0:
            for _ in range(2000):
                TOUCH(a)
elif sys.argv[1] == "self":
    hit, miss = [], []
    for _ in range(2000):
        TOUCH(a)
        hit.append(PROBE(a))
        miss.append(PROBE(a))
    print("one process: hit median", statistics.median(hit), "miss median", statistics.median(miss))
else:
    res = {0: [], 1: []}
    end = time.monotonic() + 3
    while time.monotonic() < end:
        res[1 - int(time.monotonic() * 10) % 2].append(PROBE(a))
    for k, v in res.items():
        v.sort()
        print(
            "sender on" if k else "sender off",
            len(v),
            "cycles at 1/10/50/90/99 %:",
            [v[int(len(v) * q)] for q in (0.01, 0.1, 0.5, 0.9, 0.99)],
        )
