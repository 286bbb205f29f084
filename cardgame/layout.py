"""The contract between the two engines, in one place: card kinds and colours, every
array bound, the phases and the order of a ``SeatView``'s fields.

The Python engine imports these names (``cardgame.cards``, ``actions``, ``rules``,
``catalogue``, ``observation``, ``state``); the native core reads them from
``cardgame/_native/_layout.pxi``, which the build (``setup.py``) writes from this module
before Cython runs, so no number is typed twice. ``tests/test_contract.py`` holds the two
sides together (the compiled module's values included) and docs/architecture.md says how to
change something here.

Standard library only, and no import of the rest of ``cardgame``: the build loads this file
by its path, before the package can be imported (a wheel is built without its dependencies).
Regenerate the include by hand with ``python cardgame/layout.py`` (``--check`` only compares).
"""

from __future__ import annotations

import sys
from pathlib import Path

# ------------------------------------------------------------------ cards (R1)
# The printed colours, in the printed order: an edition's deck names its own colours (up to
# MAX_COLOURS; cardgame/catalogue.py), the printed ones it names first in this order, then
# its new ones in its file's order. A game's card kinds are its colours 0..colours-1 and the
# locomotive, kind ``colours`` (last): the printed game's 0-7 and 8, as always.
COLOURS: tuple[str, ...] = (
    "purple",
    "white",
    "blue",
    "yellow",
    "orange",
    "black",
    "red",
    "green",
)
NUM_COLOURS = len(COLOURS)  # the printed game's colours: kinds 0-7 ...
LOCO = NUM_COLOURS  # ... and its locomotive, kind 8 (an edition's is Catalogue.loco)
CARD_KINDS = NUM_COLOURS + 1  # a printed hand is this many counts (an edition's: colours + 1)
CARD_NAMES: tuple[str, ...] = (*COLOURS, "locomotive")
LOCOMOTIVE = "locomotive"
# The most colours an edition's deck may hold: the engines' arrays hold MAX_CARD_KINDS
# counts, and only a game's own colours + 1 are used.
MAX_COLOURS = 12
MAX_CARD_KINDS = MAX_COLOURS + 1
# How many cards of each kind the train deck holds is card data (cardgame/data/deck.csv: the
# printed 10 of each colour and 16 locomotives; a study may edit it): these are only the
# largest counts a deck may have, the size of the engines' arrays.
MAX_WAGONS_PER_COLOUR = 20
MAX_LOCOMOTIVES = 40
MAX_TRAIN_CARDS = MAX_COLOURS * MAX_WAGONS_PER_COLOUR + MAX_LOCOMOTIVES  # 280
# An edition's cards are data (cardgame/catalogue.py): the printed one has 46 tickets and 6
# big cities; these are the most an edition may have, the size of the engines' arrays.
MAX_DESTINATIONS = 200  # destination ids are 1..MAX_DESTINATIONS (R1, R2), gaps allowed
MAX_CIRCLES = 5  # colour circles on one destination (R2: 1-5)
MAX_BIG_CITIES = 16  # big-city bonus cards (R1, R21)

# ------------------------------------------------------------------ the table
MIN_PLAYERS = 2
MAX_PLAYERS = 4
MIN_COLUMN = 2  # R12a: a column holds 2 or more cards of one colour (locomotives included)
NO_CARD = -1  # an empty face-up slot
NOBODY = -1  # a yard colour nobody holds

# ------------------------------------------------------------------ bounds of the rule settings
# (cardgame.rules refuses larger values; the native core's arrays are this big)
MAX_FACE_UP = 10  # Rules.face_up
MAX_OFFER = 10  # Rules.destinations_dealt and destinations_drawn: an offer at a time
MAX_ROUNDS = 10  # Rules.rounds, for any player count
# more than any legal list: a turn's columns (at most every wagon x every locomotive + 1),
# threes, face-up slots and draws; or an offer's keeps (2 ** MAX_OFFER)
MAX_ACTIONS = 10240

# ------------------------------------------------------------------ decisions
# cardgame.actions.Phase, by value
PHASES: tuple[str, ...] = ("SETUP_KEEP", "TURN", "SECOND_PICK", "KEEP_DRAWN", "OVER")

# The fields of cardgame.observation.SeatView in tuple order: GameState.view and
# NativeState.view build them in this order, and the native core reads a Python view by
# these positions (SV_<NAME> in C).
SEAT_VIEW_FIELDS: tuple[str, ...] = (
    "seat",
    "to_move",
    "players",
    "phase",
    "round",
    "rounds_total",
    "turn",
    "hand",
    "held_ids",
    "offer_ids",
    "reached",
    "face_up",
    "yard_owner",
    "yard_wagons",
    "yard_locos",
    "circulations",
    "hand_sizes",
    "held_counts",
    "discard",
    "deck_size",
    "destination_deck_size",
    "final_round",
    "round_points",
    "rules",
    "big_cities",
    "destinations_by_id",
    "train_cards",
    "big_city_cards",
)

# ------------------------------------------------------------------ the C side
# The printed game's kinds are no bound: C reads a game's colours from its catalogue.
PRINTED_ONLY = frozenset({"NUM_COLOURS", "LOCO", "CARD_KINDS"})
PXI = Path(__file__).parent / "_native" / "_layout.pxi"


def c_constants() -> dict[str, int]:
    """Every whole-number constant the C side gets, by its C name: the module's integer
    constants under their own names, ``PH_<PHASE>`` and ``SV_<FIELD>`` (and ``SV_FIELDS``)."""
    out = {
        name: value
        for name, value in globals().items()
        if name.isupper() and type(value) is int and name not in PRINTED_ONLY
    }
    out.update({f"PH_{name}": value for value, name in enumerate(PHASES)})
    out.update({f"SV_{name.upper()}": i for i, name in enumerate(SEAT_VIEW_FIELDS)})
    out["SV_FIELDS"] = len(SEAT_VIEW_FIELDS)
    return out


def pxi_text() -> str:
    """The Cython include the native core is compiled with (``_layout.pxi``)."""
    constants = c_constants()
    lines = [
        "# Generated from cardgame/layout.py by the build (setup.py); do not edit: change",
        "# cardgame/layout.py, then rebuild (pip install -e .) or run python cardgame/layout.py.",
        "",
        "cdef enum:",
        *(f"    {name} = {value}" for name, value in constants.items()),
        "",
        "",
        "cdef inline dict layout_values():",
        '    """The constants as this module was compiled with them (tests/test_contract.py)."""',
        "    return {",
        *(f'        "{name}": {name},' for name in constants),
        "    }",
        "",
    ]
    return "\n".join(lines)


def write_pxi(path: Path = PXI) -> bool:
    """Write the include if it is missing or stale; whether it was written."""
    return write_generated(path, pxi_text())


def write_generated(path: Path, text: str) -> bool:
    """Write a generated file if it is missing or stale; whether it was written (an
    unchanged file keeps its time stamp, so Cython does not recompile for nothing)."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def generated_main(argv: list[str] | None, path: Path, text: str, usage: str) -> int:
    """The command of a generated file: write it, or ``--check`` whether it is current."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        current = path.exists() and path.read_text(encoding="utf-8") == text
        print(f"{path}: {'up to date' if current else 'stale or missing'}")
        return 0 if current else 1
    if args:
        print(f"usage: {usage} [--check]", file=sys.stderr)
        return 2
    print(f"{path}: {'written' if write_generated(path, text) else 'up to date'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return generated_main(argv, PXI, pxi_text(), "python cardgame/layout.py")


if __name__ == "__main__":
    raise SystemExit(main())
