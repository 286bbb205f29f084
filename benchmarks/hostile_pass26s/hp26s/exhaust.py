"""Resource exhaustion the limits might miss (``hp26s.exhaust``): each takes what it can of
one resource at its first decision and holds it for ``HOLD`` seconds (``KEY``, default 3),
reporting what it got; the machine's side is sampled by ``SAMPLE=1 ./run.sh``."""

from __future__ import annotations

import os
import select
import tempfile
import threading
import time

from . import Once, err, key, say


def _hold() -> float:
    return float(key()) if key().replace(".", "", 1).isdigit() else 3.0


class Exhaust(Once):
    """Threads, descriptors, epoll watches nested, its /tmp's bytes and inodes, its
    /dev/shm, all at once."""

    def probe(self) -> None:
        n = "Exhaust"
        stop = threading.Event()
        threads = 0
        try:
            while threads < 200:
                threading.Thread(target=stop.wait, daemon=True).start()
                threads += 1
        except RuntimeError as e:
            say(n, f"threads: {threads} more, then {e}")
        for where in ("/tmp", "/dev/shm"):
            d = tempfile.mkdtemp(dir=where)
            size, files, last = 0, 0, ""
            try:
                with open(os.path.join(d, "big"), "wb") as f:
                    while True:
                        f.write(b"x" * (1 << 20))
                        f.flush()
                        size += 1 << 20
            except OSError as e:
                last = err(e.errno)
            try:
                while files < 10_000:
                    os.mkdir(os.path.join(d, f"d{files}"))
                    files += 1
            except OSError as e:
                last += " / " + err(e.errno)
            say(n, f"{where}: {size >> 20} MiB in one file, {files} folders ({last})")
        eps: list[select.epoll] = []
        try:
            while len(eps) < 1000:
                eps.append(select.epoll())
        except OSError as e:
            say(n, f"epoll descriptors: {len(eps)}, then {err(e.errno)}")
        watches = 0
        for i, ep in enumerate(eps):  # every epoll watches every later one: n*(n-1)/2 items
            for other in eps[i + 1 :]:
                try:
                    ep.register(other.fileno(), select.EPOLLIN)
                    watches += 1
                except OSError:
                    pass
        say(n, f"epoll watches: {watches}")
        time.sleep(_hold())
        stop.set()
        for ep in eps:
            ep.close()
