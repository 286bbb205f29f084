# ruff: noqa: E501, SIM115, RUF005
# The kernel work of MADV_POPULATE_WRITE goes on after SIGSTOP (outside the sandbox): python popstop.py
import ctypes
import mmap
import os
import signal
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    m = mmap.mmap(-1, 900 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    os.write(w, b"x")
    t = time.time()
    rc = libc.madvise(addr, 900 << 20, 23)  # MADV_POPULATE_WRITE
    os.write(
        2,
        f"child: madvise rc {rc} errno {ctypes.get_errno()} after {time.time() - t:.3f} s\n".encode(),
    )
    os._exit(0)
os.read(r, 1)
time.sleep(0.01)
os.kill(pid, signal.SIGSTOP)
t0 = time.time()


def cpu():
    f = open(f"/proc/{pid}/stat").read().split(")")[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"), f[0]


samples = []
for _ in range(8):
    samples.append((round(time.time() - t0, 2),) + cpu())
    time.sleep(0.1)
print("after SIGSTOP (s, cpu s, state):", samples)
os.kill(pid, signal.SIGCONT)
os.waitpid(pid, 0)
