"""A strategy whose module's import sleeps for ever (tests/sims/test_sandbox.py): its start
must fail its seat at the decision limit, never stall the run. It sleeps only in a host's
child (``python -I``), so no other import of it (a test's) hangs."""

import sys
import time

from sims.strategies.planner import Planner

while sys.flags.isolated:
    time.sleep(3600)


class StartSleeper(Planner):
    """Never loads in a host."""
