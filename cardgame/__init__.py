"""Rules engine for Ticket to Ride: The Card Game (Days of Wonder, 2008).

Standard library only: the layers above (sims, reports) import this, never the reverse.
"""

from . import startup

if startup.is_command():  # before the imports below: a Ctrl-C now is one line, not a traceback
    startup.quiet_interrupts()

from .actions import (
    Action,
    DrawDeck,
    DrawDestinations,
    DrawFaceUp,
    KeepDestinations,
    Pass,
    PlaceColumn,
    PlaceThree,
)
from .cards import COLOURS, LOCO, NUM_COLOURS, BigCity, Destination
from .catalogue import Catalogue, default_catalogue, load_catalogue
from .errors import CardgameError, DataError, IllegalActionError, RecordError, RulesError
from .game import Game
from .rules import Rules
from .state import GameState, Phase

__all__ = [
    "COLOURS",
    "LOCO",
    "NUM_COLOURS",
    "Action",
    "BigCity",
    "CardgameError",
    "Catalogue",
    "DataError",
    "Destination",
    "DrawDeck",
    "DrawDestinations",
    "DrawFaceUp",
    "Game",
    "GameState",
    "IllegalActionError",
    "KeepDestinations",
    "Pass",
    "Phase",
    "PlaceColumn",
    "PlaceThree",
    "RecordError",
    "Rules",
    "RulesError",
    "default_catalogue",
    "load_catalogue",
]
