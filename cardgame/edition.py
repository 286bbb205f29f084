"""An edition: a folder of card files a designer makes, checks and compares.

``cardgame edition new NAME [--from printed|FOLDER]`` writes a folder with the three card
files (``destinations.csv``, ``big_cities.csv``, ``deck.csv``) and a README saying how to
edit them; ``check`` validates a folder in one pass (every problem, one line each, exit 2)
and prints its shape: tickets by circles, the colours the tickets ask for against what the
deck holds, each big city's tickets, and the player counts the deck can deal;
``diff`` lists what differs between two editions. An edition is identified by its content
(``Catalogue.digest``): the name is a label, the folder's own.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from .cards import COLOURS
from .catalogue import (
    BIG_CITY_COLUMNS,
    DECK_COLUMNS,
    DECK_FILE,
    DESTINATION_COLUMNS,
    PRINTED_NAME,
    Catalogue,
    csv_text,
    default_catalogue,
    load_catalogue,
)
from .errors import CardgameError
from .layout import (
    MAX_BIG_CITIES,
    MAX_CIRCLES,
    MAX_COLOURS,
    MAX_DESTINATIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
)
from .rules import DEFAULT_RULES

README = """# Edition: {name}

A card edition of Ticket to Ride: The Card Game, made with `cardgame edition new`
(from {source}). Edit the three files, then check them:

    cardgame edition check {folder}

- `destinations.csv`: one ticket a line: a unique `id` (1-{max_dest}; gaps are fine), two
  different cities (`city_a`, `city_b`; one at least a big city), `points` (1-99) and its
  `colors`: 1 to {max_circles} circles joined by `-` (e.g. `red-red-blue`).
- `big_cities.csv`: one big city a line (1-{max_big}): its name, its bonus `points` (1-50)
  and its `home_color`.
- `deck.csv`: how many train cards of each kind the deck holds (0-20 of a colour,
  0-40 locomotives). Its colours are the edition's: drop a row to leave a colour out, add
  a row to add one (a name of letters, digits and `_`; 1 to {max_colours} colours); the
  tickets' circles and the home colours name them. The rules deal from it (R1, R3): a deck
  too small for a player count is refused at that count.

Colours: {colours}. Play, simulate, report and tune with it: `--cards {folder}`
(cardgame play, simulate and tune; a study file's `cards = "..."`, relative to the file).
Records of its games carry its name, content digest and cards: they replay without it.
"""


# the colours ``synthetic`` adds past the printed eight (tests, benchmarks)
EXTRA_COLOURS = ("pink", "brown", "grey", "teal")


class EditionCommandError(CardgameError):
    """A bad ``cardgame edition`` argument (a folder that exists, a name with a slash)."""


def source_catalogue(source: str) -> Catalogue:
    """``--from``: ``printed`` or a folder of card files."""
    if source == PRINTED_NAME:
        return default_catalogue()
    return load_catalogue(Path(source))


def write_edition(folder: Path, catalogue: Catalogue, source: str) -> list[Path]:
    """Write ``catalogue`` as an edition folder (refused if the folder holds anything);
    the files written."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise EditionCommandError(f"{folder}: exists and is not an empty folder")
    files = {
        "destinations.csv": csv_text(
            [
                [
                    d.id,
                    d.city_a,
                    d.city_b,
                    d.points,
                    "-".join(catalogue.colours[c] for c in d.colours),
                ]
                for d in catalogue.destinations
            ],
            DESTINATION_COLUMNS,
        ),
        "big_cities.csv": csv_text(
            [[b.city, b.points, b.home_colour] for b in catalogue.big_cities], BIG_CITY_COLUMNS
        ),
        DECK_FILE: csv_text(
            [[catalogue.card_names[k], n] for k, n in enumerate(catalogue.deck)], DECK_COLUMNS
        ),
        "README.md": README.format(
            name=folder.name,
            source=source,
            folder=folder,
            max_dest=MAX_DESTINATIONS,
            max_circles=MAX_CIRCLES,
            max_big=MAX_BIG_CITIES,
            colours=", ".join(catalogue.colours),
            max_colours=MAX_COLOURS,
        ),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise EditionCommandError(f"{folder}: cannot write: {exc.strerror or exc}") from None
    return [folder / name for name in files]


def shape(catalogue: Catalogue) -> list[str]:
    """What a designer checks of an edition, as lines: its identity, tickets by circles,
    colour demand against deck supply, each big city's tickets, the deals it allows."""
    tickets = catalogue.destinations
    ids = sorted(d.id for d in tickets)
    lines = [
        f"edition {catalogue.name}: {catalogue.digest}",
        f"{len(tickets)} tickets (ids {ids[0]}-{ids[-1]}), {len(catalogue.big_cities)} big "
        f"cities, {sum(catalogue.deck)} train cards",
        "",
        "tickets by circles:",
    ]
    by_circles: dict[int, list[int]] = {}
    for d in tickets:
        by_circles.setdefault(len(d.colours), []).append(d.points)
    for n in sorted(by_circles):
        points = by_circles[n]
        lines.append(
            f"  {n} circle{'s' if n > 1 else ' '}: {len(points):3d} tickets, points "
            f"{min(points)}-{max(points)}, mean {sum(points) / len(points):.1f}"
        )
    lines += ["", "colour demand (circles on tickets) against deck supply (cards):"]
    circles = Counter(c for d in tickets for c in d.colours)
    total_circles = sum(circles.values())
    wagons = sum(catalogue.deck[: catalogue.loco])
    for c, colour in enumerate(catalogue.colours):
        demand = circles[c] / total_circles if total_circles else 0.0
        supply = catalogue.deck[c] / wagons if wagons else 0.0
        lines.append(
            f"  {colour:<7} {circles[c]:4d} circles ({demand:5.1%})  {catalogue.deck[c]:3d} "
            f"cards ({supply:5.1%})"
        )
    lines.append(f"  locomotives {catalogue.deck[catalogue.loco]} cards (wild, any colour)")
    lines += ["", "big cities (bonus, home colour: tickets naming it):"]
    for big in catalogue.big_cities:
        named = [d for d in tickets if big.city in d.cities]
        lines.append(
            f"  {big.city} {big.points}, {big.home_colour}: {len(named)} tickets, "
            f"{sum(d.points for d in named)} points"
        )
    lines += ["", "deals (the default rules):"]
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        problem = DEFAULT_RULES.deal_problem(players, catalogue.deck, len(tickets))
        lines.append(f"  {players} players: {problem or 'ok'}")
    return lines


def differences(a: Catalogue, b: Catalogue) -> list[str]:
    """What differs from edition ``a`` to ``b``, a line each (none: the same cards)."""
    out = []
    old = {d.id: d for d in a.destinations}
    new = {d.id: d for d in b.destinations}
    for i in sorted(old.keys() | new.keys()):
        if i not in new:
            out.append(f"- ticket {old[i].label(a.colours)}")
        elif i not in old:
            out.append(f"+ ticket {new[i].label(b.colours)}")
        elif old[i].label(a.colours) != new[i].label(b.colours):
            out.append(f"~ ticket {old[i].label(a.colours)} -> {new[i].label(b.colours)}")
    old_big = {c.city: c for c in a.big_cities}
    new_big = {c.city: c for c in b.big_cities}
    for city in [*old_big, *(c for c in new_big if c not in old_big)]:
        if city not in new_big:
            out.append(f"- big city {city} {old_big[city].points} ({old_big[city].home_colour})")
        elif city not in old_big:
            out.append(f"+ big city {city} {new_big[city].points} ({new_big[city].home_colour})")
        elif old_big[city] != new_big[city]:
            was, now = old_big[city], new_big[city]
            out.append(
                f"~ big city {city} {was.points} ({was.home_colour}) -> {now.points} "
                f"({now.home_colour})"
            )
    old_deck = dict(zip(a.card_names, a.deck, strict=True))
    new_deck = dict(zip(b.card_names, b.deck, strict=True))
    for kind in [*old_deck, *(k for k in new_deck if k not in old_deck)]:
        if kind not in new_deck:
            out.append(f"- deck {kind} {old_deck[kind]}")
        elif kind not in old_deck:
            out.append(f"+ deck {kind} {new_deck[kind]}")
        elif old_deck[kind] != new_deck[kind]:
            out.append(f"~ deck {kind} {old_deck[kind]} -> {new_deck[kind]}")
    return out


# ------------------------------------------------------------------ the command
def _new(args: argparse.Namespace) -> int:
    folder = Path(args.name)
    if not folder.name or folder.name in (".", ".."):
        raise EditionCommandError(f"{args.name!r}: not a folder name")
    catalogue = source_catalogue(args.source)
    written = write_edition(folder, catalogue, args.source)
    print(f"wrote {folder}/: {', '.join(p.name for p in written)} (from {args.source})")
    print(f"check it with: cardgame edition check {folder}")
    return 0


def _check(args: argparse.Namespace) -> int:
    catalogue = source_catalogue(args.folder)
    for line in shape(catalogue):
        print(line)
    return 0


def _diff(args: argparse.Namespace) -> int:
    a, b = source_catalogue(args.a), source_catalogue(args.b)
    lines = differences(a, b)
    print(f"{args.a} ({a.digest[:19]}) -> {args.b} ({b.digest[:19]}): {len(lines)} differences")
    for line in lines:
        print(line)
    return 0


def add_command(sub: argparse._SubParsersAction) -> None:
    """``cardgame edition new|check|diff``."""
    edition = sub.add_parser(
        "edition",
        help="make, check and compare an edition of your own (card files)",
        description="An edition is a folder of card files: tickets, big cities, the deck.",
    )
    verbs = edition.add_subparsers(dest="verb", required=True, metavar="VERB")
    new = verbs.add_parser("new", help="write a new edition folder to edit")
    new.add_argument("name", help="the folder to write (its name is the edition's)")
    new.add_argument(
        "--from",
        dest="source",
        default=PRINTED_NAME,
        metavar="printed|FOLDER",
        help="start from the printed cards (default) or another edition's folder",
    )
    new.set_defaults(run=_new)
    check = verbs.add_parser("check", help="validate an edition and print its shape")
    check.add_argument("folder", help="an edition's folder (or printed)")
    check.set_defaults(run=_check)
    diff = verbs.add_parser("diff", help="list what differs between two editions")
    diff.add_argument("a", help="printed or a folder")
    diff.add_argument("b", help="printed or a folder")
    diff.set_defaults(run=_diff)


def synthetic(
    tickets: int,
    big_cities: int,
    seed: int = 0,
    deck: tuple[int, ...] | None = None,
    name: str | None = None,
    colours: int | None = None,
) -> Catalogue:
    """A random edition of a given shape (tests, benchmarks): ``tickets`` tickets of 1-5
    circles over the colours, points in the printed bands, each naming one big city at least
    (of ``big_cities``, bonuses 6-15), and the printed deck unless ``deck`` is given.
    ``colours``: a deck of that many colours (the printed ones first, then ``EXTRA_COLOURS``),
    10 cards each and 16 locomotives unless ``deck`` is given; else the printed colours."""
    import random

    from .cards import BigCity, Destination
    from .catalogue import POINT_BANDS, SHIPPED_DECK

    names = COLOURS if colours is None else (*COLOURS, *EXTRA_COLOURS)[:colours]
    if colours is not None and deck is None:
        deck = (10,) * len(names) + (16,)
    rng = random.Random(seed)
    bigs = tuple(
        BigCity(f"Big {i + 1}", rng.randint(6, 15), names[i % len(names)])
        for i in range(big_cities)
    )
    dests = []
    for i in range(1, tickets + 1):
        n = rng.choice((1, 2, 2, 2, 3, 3, 3, 4, 4, 5))
        low, high = POINT_BANDS[n]
        city_a = bigs[rng.randrange(big_cities)].city
        other = rng.randrange(big_cities + 8)
        city_b = bigs[other].city if other < big_cities else f"Town {other}"
        if city_b == city_a:
            city_b = f"Town {i}"
        circles = tuple(sorted(rng.randrange(len(names)) for _ in range(n)))
        dests.append(Destination(i, city_a, city_b, rng.randint(low, high), circles))
    label = name or f"synthetic-{tickets}x{big_cities}"
    if colours is not None and name is None:
        label += f"x{len(names)}"
    return Catalogue(tuple(dests), bigs, deck or SHIPPED_DECK, label, names)
