"""Row 3's primitive outside any sandbox: does ``lseek(SEEK_HOLE)`` on a 24 MiB tmpfs file
wait for another process seeking the same file on two threads (its inode lock)?
``python lockprimitive.py``: median seek alone, with the sender, alone again (us)."""

from __future__ import annotations

import multiprocessing as mp
import os
import statistics
import threading
import time

PATH = "/dev/shm/hp27s-locktest"
SEEK_HOLE = 4


def receive(n: int = 400) -> float:
    fd = os.open(PATH, os.O_RDONLY)
    times = []
    for _ in range(n):
        s = time.perf_counter_ns()
        os.lseek(fd, 0, SEEK_HOLE)
        times.append(time.perf_counter_ns() - s)
    os.close(fd)
    return statistics.median(times) / 1000


def send(seconds: float) -> None:
    end = time.monotonic() + seconds

    def hold(fd: int) -> None:
        while time.monotonic() < end:
            os.lseek(fd, 0, SEEK_HOLE)

    threads = [threading.Thread(target=hold, args=(os.open(PATH, os.O_RDONLY),)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    with open(PATH, "wb") as f:
        f.write(os.urandom(24 << 20))
    try:
        print(f"alone {receive():.1f} us")
        sender = mp.Process(target=send, args=(3.0,))
        sender.start()
        time.sleep(0.3)
        print(f"with the sender {receive():.1f} us")
        sender.join()
        print(f"alone {receive():.1f} us")
    finally:
        os.unlink(PATH)
