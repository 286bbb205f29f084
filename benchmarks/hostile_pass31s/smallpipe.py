"""``cardgame`` as a run whose user is over the kernel's soft limit on pipe buffers
(``/proc/sys/fs/pipe-user-pages-soft``, 16384 pages: about 1024 pipes of 64 KiB held by
the user's processes): there, for a user without CAP_SYS_RESOURCE, every new pipe gets 2
pages (8 KiB) instead of 16. This machine runs as root, which the limit exempts, so the
worker's new pipes are shrunk to 8 KiB by hand (``F_SETPIPE_SZ``); nothing else changes.
``python smallpipe.py simulate STUDY ...`` as ``cardgame simulate STUDY ...``."""

from __future__ import annotations

import fcntl
import os
import sys

F_SETPIPE_SZ = 1031
_pipe = os.pipe


def small_pipe() -> tuple[int, int]:
    ends = _pipe()
    fcntl.fcntl(ends[1], F_SETPIPE_SZ, 8192)
    return ends


os.pipe = small_pipe

if __name__ == "__main__":
    from cardgame.cli import main

    sys.argv[0] = "cardgame"
    sys.exit(main())
