"""A strategy module with a long ASCII name (63 letters): its mark fills 80 columns."""

from hp25s import Wide


class W(Wide):
    """Plays as a planner; see ``hp25s.Wide``."""

    fragments = ("1 game(s) failed", "  seat 0 (planne", "r): decision too", "k over 10 s")
