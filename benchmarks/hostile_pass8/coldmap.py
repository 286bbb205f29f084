# ruff: noqa: E501
"""Outside the sandbox: how many pages of the files a guest's sandbox shows are not in the
page cache (mincore), by file; with --warm, after the host's own warm (runtime.warm)."""

import ctypes
import mmap
import os
import sys
import time

from sims import runtime, sandbox

LIBC = ctypes.CDLL(None, use_errno=True)
PAGE = 4096


def resident(path: str) -> tuple[int, int]:
    """(pages, pages in the page cache) of a file: mapped, never touched, asked mincore."""
    size = os.path.getsize(path)
    if size == 0:
        return 0, 0
    LIBC.mmap.restype = ctypes.c_void_p
    LIBC.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        n = (size + PAGE - 1) // PAGE
        vec = (ctypes.c_ubyte * n)()
        try:
            if LIBC.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore")
        finally:
            LIBC.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
        return n, sum(1 for b in vec if b & 1)
    finally:
        os.close(fd)


def main() -> None:
    view = sandbox.view([os.path.join(os.path.dirname(os.path.abspath(__file__)), "hp8")])
    files = view.files()
    if "--warm" in sys.argv:
        t = time.perf_counter()
        runtime.warm(view)
        print(f"warm: {time.perf_counter() - t:.2f} s")
        time.sleep(float(os.environ.get("SETTLE", "2")))
    total = cold = 0
    by: list[tuple[int, int, str]] = []
    for p in files:
        try:
            n, r = resident(p)
        except (OSError, ValueError):
            continue
        total += n
        cold += n - r
        if n - r:
            by.append((n - r, n, p))
    by.sort(reverse=True)
    print(
        f"{len(files)} files, {total} pages ({total * PAGE >> 20} MiB), {cold} not in the page cache in {len(by)} files"
    )
    for c, n, p in by[: int(os.environ.get("TOP", "12"))]:
        print(f"  {c:6d} of {n:6d} pages cold: {p}")


if __name__ == "__main__":
    main()
