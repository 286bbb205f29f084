"""The control of hp17:BlasCores and hp17:BlasStep outside the sandbox: the same 1-GiB
address space and data limits, OpenBLAS set to K threads (``python blas_outside.py K``),
then the same products; with ``exhaust``, first threads started until refused and joined
(BlasStep)."""

import ctypes
import glob
import os
import resource
import sys
import threading
import time

import numpy as np

k = int(sys.argv[1])
for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
    resource.setrlimit(which, (1 << 30, 1 << 30))
libs = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
lib = ctypes.CDLL(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so"))[0])
lib.scipy_openblas_set_num_threads64_(ctypes.c_int(k))
got = lib.scipy_openblas_get_num_threads64_()
if "exhaust" in sys.argv[2:]:
    gate, started = threading.Event(), []
    try:
        while len(started) < 80:
            thread = threading.Thread(target=gate.wait)
            thread.start()
            started.append(thread)
    except RuntimeError:
        pass
    gate.set()
    for thread in started:
        thread.join()
    print(f"K={k}: {len(started)} threads started until refused, joined", flush=True)
for n in (200, 800, 1500):
    a = np.ones((n, n))
    t = time.monotonic()
    float((a @ a).sum())
    took = time.monotonic() - t
    print(f"K={k}: matmul {n} with {got} BLAS threads: ok in {took:.2f} s", flush=True)
