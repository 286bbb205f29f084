"""Built-in strategy families; importing this package registers them by name."""

from . import (
    builders,
    ismcts,
    planner,
    random_play,
    tickets,
)

__all__ = ["builders", "ismcts", "planner", "random_play", "tickets"]
