"""A strategy module named in CJK (30 ideographs, each two columns wide on a terminal)."""

from hp25s import Wide


class W(Wide):
    """Plays as a planner; see ``hp25s.Wide``."""
