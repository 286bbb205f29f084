"""A strategy module that stalls its host's start: importing it in the host's load and
check children (outside the decision limit, within the host's 60 s to start) sleeps 55 s
each, while the import in a game's child is quick. Nothing is failed or blamed."""

import sys
import time

from sims.strategies.planner import Planner

_frame = sys._getframe()
_names = set()
while _frame is not None:
    _names.add(_frame.f_code.co_name)
    _frame = _frame.f_back
if _names & {"_load", "_check"}:
    sys.stderr.write(
        f"HOSTILE LoadStall: stalling the host's {sorted(_names & {'_load', '_check'})}\n"
    )
    time.sleep(55)


class LoadStall(Planner):
    """A planner whose module stalls every start of its host."""
