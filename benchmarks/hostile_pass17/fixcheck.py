"""Whether the suggested fixes for MemfdExec hold on this kernel (run outside the sandbox):
a memory file made with MFD_NOEXEC_SEAL, and one handed on write-only, each mapped
read+exec after a write."""

import ctypes
import os

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
MFD_NOEXEC_SEAL, MFD_EXEC = 0x8, 0x10


def try_exec(fd: int, what: str) -> None:
    try:
        os.pwrite(fd, b"\xc3" * 4096, 0)
    except OSError as exc:
        print(f"{what}: write {exc}")
    addr = LIBC.mmap(None, 4096, 5, 2, fd, 0)  # PROT_READ|PROT_EXEC, MAP_PRIVATE
    if addr in (None, ctypes.c_void_p(-1).value):
        print(f"{what}: read+exec mapping refused: {os.strerror(ctypes.get_errno())}")
    else:
        ctypes.CFUNCTYPE(None)(addr)()
        print(f"{what}: read+exec mapping ran")


try_exec(os.memfd_create("plain", os.MFD_CLOEXEC), "memfd_create(MFD_CLOEXEC) (today)")
try_exec(
    os.memfd_create("sealed", os.MFD_CLOEXEC | MFD_NOEXEC_SEAL),
    "memfd_create(MFD_CLOEXEC|MFD_NOEXEC_SEAL)",
)
plain = os.memfd_create("plain2", os.MFD_CLOEXEC)
wonly = os.open(f"/proc/self/fd/{plain}", os.O_WRONLY)
try_exec(wonly, "the same file reopened O_WRONLY")
