"""`cardgame play --human SEAT --strategies ...`: a seat for a person at the terminal.

The engine's `cardgame play` seats random players and cannot import this layer; given
``--human`` or ``--strategies`` it hands the game to the ``play`` hook this module registers
in the ``cardgame.play`` entry-point group (pyproject.toml). The other seats are scripted
strategies, seeded as `cardgame watch` seeds them, so a game without a human seat is the
game `cardgame watch` plays.

Before each of the person's decisions the terminal shows what the seat may know: its own
hand and destinations, everything public, the rivals' turns as the table saw them (no card
drawn blind, no destination drawn), and every circulation pile as a face-down count (R9: a
pile is hidden from its owner too; remembering it is the player's job). The moves are grouped (the
draws, each colour's columns, the three singles, the destinations) so that a turn is one
short list, and a group of several moves asks which next; ``?`` prints a rules primer at any
prompt. ``q`` or Ctrl-D stops the game; the record of the turns played so far is saved
(``--save``) and opens in `cardgame view`. Without ``--seed`` a person's game is dealt from a
fresh seed (``os.urandom``), printed so that the game can be replayed.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgame import Game, GameState, KeepDestinations, Rules
from cardgame import actions as A
from cardgame.cards import CARD_NAMES
from cardgame.catalogue import Catalogue
from cardgame.cli import cards_of
from cardgame.knowledge import KnowledgeTracker
from cardgame.narrate import destination, narrate, pile_text, plural, resolution_lines, turn_line
from cardgame.record import save, to_record
from cardgame.state import KEEP_DRAWN, SECOND_PICK, SETUP_KEEP

from .errors import StudyError
from .match import GameSpec, seat_rng
from .strategy import Strategy, spec
from .winchance import unfinished_record

HUMAN = "human"  # the strategy name a person's seat gets in the record
DEFAULT_RIVAL = "planner"
PASS_TEXT = "passes (no legal action)"  # the narration's words for a pass
FINAL_HEAD = "--- Final scores"  # the narration's last section
MAX_DIGITS = 4  # a choice is at most this long: longer input is no choice, and never int()
SHOWN_INPUT = 24  # characters of a rejected answer echoed back
SEED_BITS = 31  # a fresh seed: os.urandom, below 2**31 so that it is easy to type again
PRIMER = """\
Rules in brief (docs/rules/rulings.md has them all):
- Each turn, step 1 (R7): one card from EACH column of your rail yard goes onto your
  face-down circulation pile. Step 2: exactly one action (R10-R13):
  * draw 2 train cards, blind from the deck or face up; a face-up locomotive is a whole
    draw (R10);
  * place a column of 2 or more cards of one colour (locomotives may join; R12a), or
    three singles of three different colours (R12b). A colour in a rival's yard needs
    strictly more cards than their column, which is then discarded (a steal, R12);
  * draw destinations: the top 4, keep any number (R13).
- When the deck runs out, everybody plays one more turn (R15); then each seat's
  circulation pile is matched against its destinations, exactly (R16).
- Score (R20-R22): reached destinations count, unreached ones are subtracted; each big
  city's bonus goes to whoever reached most destinations naming it; ties: most reached,
  then most bonuses.
- Your circulation pile is face down, even to you (R9): remembering it is your job.
Type the number of a choice, b to go back, ? for this primer, q to stop."""


class Stop(Exception):
    """The person ended the game (``q`` or end of input)."""


# ------------------------------------------------------------------ what the table saw


def public_line(turn: dict[str, Any], catalogue: Catalogue) -> str:
    """A turn as the other seats saw it: the narration's line with the cards drawn blind
    and the destinations drawn hidden (their counts are not)."""
    kind = turn["action"]["type"]
    if kind in ("draw_deck", "draw_face_up"):
        picks = [{**p, "card": "a card"} if p["from"] == "deck" else p for p in turn["picks"]]
        return turn_line({**turn, "picks": picks}, catalogue)
    if kind == "draw_destinations":
        head = turn_line({**turn, "action": {"type": "pass"}}, catalogue)
        drawn, kept = turn["destinations"]["drawn"], turn["destinations"]["kept"]
        return head.removesuffix(PASS_TEXT) + (
            f"draws {plural(len(drawn), 'destination')} and keeps {len(kept)}"
        )
    return turn_line(turn, catalogue)


def seen_line(turn: dict[str, Any], catalogue: Catalogue, seat: int | None) -> str:
    """A turn as ``seat`` saw it: its own turns whole, the others' as ``public_line``;
    ``seat`` None sees everything."""
    if seat is None or turn["seat"] == seat:
        return turn_line(turn, catalogue)
    return public_line(turn, catalogue)


# ------------------------------------------------------------------ describing choices


def describe(action: A.Action, view: Any, names: Sequence[str] = CARD_NAMES) -> str:
    """One legal action in words, with what it does to a rival where it steals (R12);
    ``names``: the game's card kinds (``Catalogue.card_names``)."""
    if isinstance(action, A.DrawDeck):
        verb = "take the top card of" if view.phase == SECOND_PICK else "draw from"
        return f"{verb} the deck (blind; {view.deck_size} left)"
    if isinstance(action, A.DrawFaceUp):
        card = names[view.face_up[action.slot]]
        note = " (counts as both cards, R10)" if card == "locomotive" else ""
        return f"take face-up {card} (slot {action.slot}){note}"
    if isinstance(action, A.PlaceColumn):
        locos = f" + {plural(action.locos, 'locomotive')}" if action.locos else ""
        text = f"place a column of {action.wagons} {names[action.colour]}{locos}"
        owner = view.yard_owner[action.colour]
        if owner >= 0 and owner != view.seat:
            size = view.yard_wagons[action.colour] + view.yard_locos[action.colour]
            text += f" (beats seat {owner}'s column of {size}: discarded, R12)"
        return text
    if isinstance(action, A.PlaceThree):
        return "place three singles: " + ", ".join(names[c] for c in action.colours)
    if isinstance(action, A.DrawDestinations):
        drawn = min(view.rules.destinations_drawn, view.destination_deck_size)
        return f"draw destinations (the top {drawn} of {view.destination_deck_size}, R13)"
    if isinstance(action, A.Pass):
        return "pass (no legal action, R14)"
    return repr(action)


@dataclass
class Choice:
    """One line of the menu: a move, or a group of moves asked for next."""

    label: str
    actions: list[A.Action]
    question: str = ""  # what the second menu asks, for a group of several moves


def choices_of(
    actions: Sequence[A.Action], view: Any, names: Sequence[str] = CARD_NAMES
) -> list[Choice]:
    """The legal moves as a short menu: each draw on its own line, a colour's columns as one
    line, the three singles as one line (each group asks which next), then the
    destinations and the pass; the engine's order within a group."""
    draws: list[Choice] = []
    columns: dict[int, list[A.Action]] = {}
    singles: list[A.Action] = []
    rest: list[Choice] = []
    for action in actions:
        if isinstance(action, A.PlaceColumn):
            columns.setdefault(action.colour, []).append(action)
        elif isinstance(action, A.PlaceThree):
            singles.append(action)
        elif isinstance(action, A.DrawDeck | A.DrawFaceUp):
            draws.append(Choice(describe(action, view, names), [action]))
        else:
            rest.append(Choice(describe(action, view, names), [action]))
    placed: list[Choice] = []
    for colour, mine in columns.items():
        if len(mine) == 1:
            placed.append(Choice(describe(mine[0], view, names), mine))
            continue
        sizes = sorted({a.wagons + a.locos for a in mine if isinstance(a, A.PlaceColumn)})
        placed.append(
            Choice(
                f"place a column of {names[colour]} ({len(mine)} ways, "
                f"{sizes[0]}-{sizes[-1]} cards)",
                mine,
                f"Which {names[colour]} column?",
            )
        )
    if len(singles) == 1:
        placed.append(Choice(describe(singles[0], view, names), singles))
    elif singles:
        placed.append(
            Choice(f"place three singles ({len(singles)} ways)", singles, "Which three singles?")
        )
    return draws + placed + rest


def number_of(answer: str, size: int) -> int | None:
    """The choice ``answer`` names among 1..size, or None: a short run of ASCII digits only
    (a very long one would exceed Python's int digit limit, and is no choice anyway)."""
    if answer.isascii() and answer.isdigit() and len(answer) <= MAX_DIGITS:
        number = int(answer)
        return number if 1 <= number <= size else None
    return None


def shown(answer: str) -> str:
    """A rejected answer as echoed back: quoted, and cut short when long."""
    if len(answer) <= SHOWN_INPUT:
        return repr(answer)
    return f"{answer[:SHOWN_INPUT]!r}... ({len(answer):,} characters)"


def _row(face_up: Sequence[int], names: Sequence[str]) -> str:
    return "  ".join(
        f"[{slot}] {names[c] if c >= 0 else 'empty'}" for slot, c in enumerate(face_up)
    )


def table_lines(view: Any, names: Sequence[str], catalogue: Catalogue) -> list[str]:
    """What the seat may know, as lines: the table, its hand and destinations, the rest."""
    me = view.seat
    lines = [
        f"Round {view.round} of {view.rounds_total}, turn {view.turn}"
        + (" - final round (R15)" if view.final_round else ""),
        f"Deck {plural(view.deck_size, 'card')}, discard {plural(sum(view.discard), 'card')}, "
        f"destination deck {view.destination_deck_size}",
        f"Face-up: {_row(view.face_up, catalogue.card_names)}",
    ]
    for seat in range(view.players):
        who = "you" if seat == me else f"seat {seat} ({names[seat]})"
        yard = [
            f"{catalogue.colours[c]} {view.yard_wagons[c]}"
            + (f"+{view.yard_locos[c]} loco" if view.yard_locos[c] else "")
            for c in range(len(view.yard_owner))
            if view.yard_owner[c] == seat
        ]
        hand = (
            f"hand {pile_text(list(view.hand), catalogue.card_names)} "
            f"({plural(sum(view.hand), 'card')})"
            if seat == me
            else f"hand {plural(view.hand_sizes[seat], 'card')}"
        )
        pile = plural(sum(view.circulations[seat]), "card")
        lines.append(
            f"  {who}: {hand}; yard {', '.join(yard) or 'empty'}; "
            f"circulation pile {pile} (face down); destinations held {view.held_counts[seat]}"
            + (f", reached {len(view.reached[seat])}" if view.reached[seat] else "")
        )
    lines.append("Your destinations: " + _destinations(view.held_ids, catalogue))
    if view.reached[me]:
        lines.append("Reached (set aside): " + _destinations(view.reached[me], catalogue))
    return lines


def _destinations(ids: Sequence[int], catalogue: Catalogue) -> str:
    return "; ".join(_destination(d, catalogue) for d in ids) or "none"


def _destination(dest_id: int, catalogue: Catalogue) -> str:
    """``#24 Miami-Boston (12) [blue orange red]``: the narration's name and the cards."""
    cards = " ".join(catalogue.colours[c] for c in catalogue.destination(dest_id).colours)
    return f"{destination(dest_id, catalogue)} [{cards}]"


# ------------------------------------------------------------------ the person's seat


class Person:
    """Asks the person for each decision of its seat; input that is no choice is asked
    again, ``q`` or end of input raises ``Stop``."""

    def __init__(
        self,
        names: Sequence[str],
        catalogue: Catalogue,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.names = list(names)
        self.catalogue = catalogue
        self.read = read
        self.write = write

    def decide(self, view: Any) -> A.Action:
        if view.phase in (SETUP_KEEP, KEEP_DRAWN):
            return self._keep(view)
        first_turn = view.turn == 1 and getattr(view.rules, "first_turn", "full") == "one_card"
        if view.phase == SECOND_PICK and first_turn:  # the one-card first turn: a whole turn
            for line in table_lines(view, self.names, self.catalogue):
                self.write(line)
            self.write(f"Your first turn is one card (seat {view.seat}):")
        elif view.phase == SECOND_PICK:  # only the row and the hand changed since the first
            self.write(f"Your hand: {pile_text(list(view.hand), self.catalogue.card_names)}")
            self.write(f"Face-up: {_row(view.face_up, self.catalogue.card_names)}")
            self.write(f"Your second card (seat {view.seat}):")
        else:
            for line in table_lines(view, self.names, self.catalogue):
                self.write(line)
            self.write(f"Your move (seat {view.seat}):")
        menu = choices_of(view.legal_actions(), view, self.catalogue.card_names)
        while True:
            choice = self._choose(menu)
            if len(choice.actions) == 1:
                return choice.actions[0]
            self.write(choice.question)
            which = [
                Choice(describe(a, view, self.catalogue.card_names), [a]) for a in choice.actions
            ]
            picked = self._choose(which, back=True)
            if picked is not None:
                return picked.actions[0]

    def _choose(self, menu: list[Choice], back: bool = False) -> Any:
        """The line the person picks (None: back to the first menu, where ``back``)."""
        for number, choice in enumerate(menu, start=1):
            self.write(f"  {number:>3}  {choice.label}")
        size = len(menu)
        hint = "b back, ? rules, q to stop" if back else "? rules, q to stop"
        while True:
            answer = self._ask(f"Choose 1-{size} ({hint}): ")
            if back and answer.lower() in ("b", "back"):
                return None
            picked = number_of(answer, size)
            if picked is not None:
                return menu[picked - 1]
            self.write(
                f"Not a choice: {shown(answer)}. Type a number from 1 to {size}"
                + (", b" if back else "")
                + ", ? or q."
            )

    def _keep(self, view: Any) -> A.Action:
        offer = list(view.offer_ids)
        minimum = view.rules.destinations_min_keep if view.phase == SETUP_KEEP else 0
        if view.phase == SETUP_KEEP:
            self.write(f"Your hand: {pile_text(list(view.hand))}")
        self.write(f"Destinations on offer to seat {view.seat} (keep at least {minimum}):")
        for number, dest_id in enumerate(offer, start=1):
            self.write(f"  {number:>3}  {_destination(dest_id, self.catalogue)}")
        while True:
            answer = self._ask("Numbers to keep, e.g. 1 3 ('all', 'none'; ? rules, q to stop): ")
            picked = _picked(answer.lower(), len(offer))
            if picked is None:
                self.write(f"Not a choice: {shown(answer)}. Type numbers from 1 to {len(offer)}.")
                continue
            if len(picked) < minimum:
                self.write(f"Keep at least {minimum} (R5).")
                continue
            action = KeepDestinations(tuple(offer[i - 1] for i in sorted(picked)))
            if view.is_legal(action):
                return action
            self.write("Not a legal keep; try again.")

    def _ask(self, prompt: str) -> str:
        """The person's answer; ``?`` prints the rules primer and asks again."""
        while True:
            try:
                answer = self.read(prompt).strip()
            except EOFError:
                raise Stop from None
            if answer.lower() in ("q", "quit"):
                raise Stop
            if answer != "?":
                return answer
            self.write(PRIMER)


def _picked(answer: str, size: int) -> set[int] | None:
    if answer == "all":
        return set(range(1, size + 1))
    if answer in ("none", "0"):
        return set()
    numbers = [number_of(w, size) for w in answer.replace(",", " ").split()]
    if not numbers or None in numbers:
        return None
    return set(numbers)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the game


def seat_names(players: int | None, human: int | None, strategies: str | None) -> list[str]:
    """One strategy name per seat, ``HUMAN`` at the person's seat. ``--strategies`` names
    the other seats in order, or one name for all of them (default planner)."""
    names = [s.strip() for s in (strategies or "").split(",") if s.strip()]
    if strategies is not None and not names:
        raise StudyError("--strategies: name at least one strategy")
    if human is None:
        count = players if players is not None else len(names)
        if len(names) != count:
            raise StudyError(
                f"--strategies: name one strategy per seat ({count}), got {len(names)}"
            )
        seats = names
    else:
        count = players if players is not None else (len(names) + 1 if len(names) > 1 else 3)
        if not 0 <= human < max(count, 1):
            raise StudyError(f"--human: seat {human} is not one of 0-{count - 1}")
        others = names or [DEFAULT_RIVAL]
        if len(others) == 1:
            others = others * (count - 1)
        if len(others) != count - 1:
            raise StudyError(
                f"--strategies: name the {count - 1} other seats (or one name for all), "
                f"got {len(others)}"
            )
        seats = [*others[:human], HUMAN, *others[human:]]
    if not 2 <= len(seats) <= 4:
        raise StudyError(f"--players: 2, 3 or 4 seats, got {len(seats)}")
    return seats


def _rivals(game: Game, names: Sequence[str], human: int | None) -> list[Strategy | None]:
    """Each scripted seat's strategy, with the RNG the simulator (and `cardgame watch`)
    gives that seat in that game."""
    seats = tuple(map(spec, names))
    table = GameSpec(
        "play",
        "play",
        "base",
        game.rules,
        game.players,
        seats,
        0,
        game.seed,
        catalogue=game.catalogue,
    )
    out: list[Strategy | None] = []
    for seat, seat_spec in enumerate(seats):
        if seat == human:
            out.append(None)
            continue
        seat_spec.check()
        out.append(seat_spec.build(seat_rng(table, seat)))
    return out


class Feed:
    """Prints, before each of the person's decisions, what happened since the last one:
    the turns as its seat saw them, and the resolutions (R16) in their place."""

    def __init__(self, seat: int, catalogue: Catalogue, show: Callable[[str], None]) -> None:
        self.seat = seat
        self.catalogue = catalogue
        self.show = show
        self.turns = 0
        self.resolutions = 0

    def update(self, record: dict[str, Any]) -> None:
        resolutions = record["resolutions"]
        for turn in record["turns"][self.turns :]:
            self._resolutions_before(turn["round"], resolutions)
            self.show(seen_line(turn, self.catalogue, self.seat))
        self.turns = len(record["turns"])
        self._resolutions_before(None, resolutions)

    def _resolutions_before(self, round_number: int | None, resolutions: list[Any]) -> None:
        while self.resolutions < len(resolutions) and (
            round_number is None or resolutions[self.resolutions]["round"] < round_number
        ):
            for line in resolution_lines(resolutions[self.resolutions], self.catalogue):
                self.show(line)
            self.resolutions += 1


def play_seats(
    game: Game,
    names: Sequence[str],
    human: int | None,
    person: Person | None,
    show: Callable[[str], None] = print,
) -> tuple[GameState, bool]:
    """Play the game, asking ``person`` at seat ``human``. Returns the state and whether
    the game reached its end (``False``: the person stopped it)."""
    strategies = _rivals(game, names, human)  # an unknown name stops it here
    if human is not None:
        show(
            f"Ticket to Ride: The Card Game - {game.players} players, seed {game.seed}; "
            f"you are seat {human}. Seats: " + ", ".join(f"{s} ({n})" for s, n in enumerate(names))
        )
    state = game.new_state(record=True)
    record: dict[str, Any] = state.record  # type: ignore[assignment]
    trackers = [
        KnowledgeTracker(state, seat) if getattr(type(s), "remembers_game", False) else None
        for seat, s in enumerate(strategies)
    ]
    watching = [t for t in trackers if t is not None]
    feed = Feed(human, game.catalogue, show) if human is not None else None
    try:
        while not state.is_over:
            seat = state.seat
            strategy, tracker = strategies[seat], trackers[seat]
            if strategy is None:
                assert person is not None and feed is not None
                feed.update(record)
                action = person.decide(state.view(seat))
            elif tracker is not None:
                action = strategy.decide_knowing(tracker.knowledge(state))  # type: ignore[attr-defined]
            else:
                action = strategy.decide(state.view(seat))
            for watcher in watching:
                watcher.before(state, action)
            state.apply(action)
    except Stop:
        return state, False
    if feed is not None:
        feed.update(record)
    return state, True


def fresh_seed() -> int:
    """A seed nobody chose: from the operating system's randomness, not a global RNG."""
    return int.from_bytes(os.urandom(4), "big") >> (32 - SEED_BITS)


def play(args: argparse.Namespace) -> int:
    """The ``cardgame.play`` hook: `cardgame play` with ``--human`` or ``--strategies``."""
    names = seat_names(args.players, args.human, args.strategies)
    rules = Rules.from_json(args.rules) if args.rules else Rules()
    human = args.human
    seed = args.seed
    if seed is None:  # a person gets a fresh deal, printed below; scripted seats play seed 0
        seed = fresh_seed() if human is not None else 0
    game = Game(len(names), seed, rules, cards_of(args))
    person = Person(names, game.catalogue) if human is not None else None
    if person is not None and args.seed is None:
        print(f"A fresh deal: seed {seed} (play it again with --seed {seed}); ? prints the rules.")
    state, finished = play_seats(game, names, human, person)
    record = to_record(state, names) if finished else unfinished_record(state, names)
    if not finished:
        print(f"Game stopped after {plural(len(record['turns']), 'turn')}.")
    elif args.quiet:
        result = record["result"]
        print(
            f"seed {game.seed}, {game.players} players: scores "
            f"{[s['total'] for s in result['scores']]}, winners {result['winners']}, "
            f"{result['turns']} turns"
        )
    else:
        lines = list(narrate(record, game.catalogue, verbose=args.verbose))
        if person is not None:  # the turns and resolutions were shown as they happened
            lines = lines[next(i for i, x in enumerate(lines) if x.startswith(FINAL_HEAD)) :]
        for line in lines:
            print(line)
    if args.save:
        try:
            save(record, Path(args.save))
        except OSError as exc:
            raise StudyError(f"{args.save}: cannot write: {exc.strerror or exc}") from None
        print(f"Saved the game record to {args.save} (see it: cardgame view {args.save})")
    return 0
