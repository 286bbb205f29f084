"""Built-in strategy families; importing this package registers them by name."""

from . import builders, planner, random_play, tickets

__all__ = ["builders", "planner", "random_play", "tickets"]
