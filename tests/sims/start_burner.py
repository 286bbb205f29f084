"""A strategy whose module's import never ends, burning CPU (tests/sims/test_sandbox.py): its
start must fail its seat at its CPU time for a start, never stall the run. It burns only in
a host's child (``python -I``), so no other import of it (a test's) hangs."""

import sys

from sims.strategies.planner import Planner

while sys.flags.isolated:
    pass


class StartBurner(Planner):
    """Never loads in a host."""
