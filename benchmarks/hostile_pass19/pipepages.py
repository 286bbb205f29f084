"""How near the run's user is to the kernel's pipe-user-pages-soft (16,384 pages), the count
of pipe buffers of every process of that user on the machine, which a game's FIFOs move:
this process holds K pipes (16 pages each; its own are counted though it is exempt), and a
process of the same user without capabilities (as a game is) reads F_GETPIPE_SZ of a new
pipe: 65536 under the limit, 8192 past it. Prints the smallest K that flips it.
Run outside the sandbox as the run's user: python pipepages.py [hold_seconds]"""

import os
import subprocess
import sys
import time

PROBE = "import os,fcntl; r,w=os.pipe(); print(fcntl.fcntl(w, 1032))"
NOCAPS = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", "--", sys.executable, "-c", PROBE]


def probe() -> int:
    return int(subprocess.run(NOCAPS, capture_output=True, text=True, check=True).stdout)


held: list[int] = []


def hold(k: int) -> None:
    while len(held) < 2 * k:
        held.extend(os.pipe())
    while len(held) > 2 * k:
        os.close(held.pop())


lo, hi = 0, 1200
hold(0)
print(f"held 0 pipes: a new pipe without capabilities gets {probe()} bytes")
while lo < hi:
    mid = (lo + hi) // 2
    hold(mid)
    if probe() < 65536:
        hi = mid
    else:
        lo = mid + 1
hold(lo)
print(f"smallest K: {lo} pipes ({16 * lo} pages) -> {probe()} bytes")
if len(sys.argv) > 1:  # keep the user just under the limit, for fifotalk
    hold(max(lo - int(sys.argv[2]) if len(sys.argv) > 2 else lo - 20, 0))
    print(f"holding {len(held) // 2} pipes for {sys.argv[1]} s: {probe()} bytes now", flush=True)
    time.sleep(float(sys.argv[1]))
