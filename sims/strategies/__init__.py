"""Built-in scripted strategy families; importing this package registers them by name.

The search player builds on these and lives with the search (``sims.search.player``)."""

from . import (
    builders,
    planner,
    random_play,
    tickets,
)

__all__ = ["builders", "planner", "random_play", "tickets"]
