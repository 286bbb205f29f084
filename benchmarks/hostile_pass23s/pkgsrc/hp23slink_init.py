import os
import sys

from sims.strategies.planner import Planner


class Plain(Planner):
    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            here = os.path.dirname(__file__)
            for name in ("abs", "rel", "dirlink/secret.txt"):
                p = os.path.join(here, name)
                try:
                    with open(p) as f:
                        said = f.read().strip()
                except OSError as exc:
                    said = f"{type(exc).__name__}: {exc}"
                link = os.readlink(p) if os.path.islink(p) else "-"
                sys.stderr.write(f"HOSTILE Link: {name} -> {link}: {said}\n")
        return super().decide(view)
