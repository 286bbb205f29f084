"""Build game states in exact situations for rule tests."""

from __future__ import annotations

from cardgame import COLOURS, LOCO, Game, GameState, KeepDestinations, Phase
from cardgame.state import CARD_KINDS, NO_CARD

C = {name: i for i, name in enumerate(COLOURS)}
C["loco"] = LOCO


def counts(**cards: int) -> list[int]:
    """A 9-count pile: counts(red=2, loco=1)."""
    out = [0] * CARD_KINDS
    for name, n in cards.items():
        out[C[name]] += n
    return out


def started(players: int = 2, seed: int = 0, **game_kwargs) -> GameState:
    """A state after setup in which every seat kept all its destinations."""
    state = Game(players, seed, **game_kwargs).new_state(record=True)
    while state.phase == Phase.SETUP_KEEP:
        state.apply(KeepDestinations(tuple(state.offers[state.seat])))
    return state


def arrange(
    state: GameState,
    hands: dict[int, list[int]] | None = None,
    deck: list[int] | None = None,
    face_up: list[int] | None = None,
    yards: dict[int, tuple[int, int, int]] | None = None,
    held: dict[int, list[int]] | None = None,
) -> GameState:
    """Put the cards where a test wants them; the rest go to the discard so the deck holds.

    ``yards`` maps colour -> (owner, wagons, locos).
    """
    n = state.players
    if hands is not None:
        for seat in range(n):
            state.hands[seat] = list(hands.get(seat, [0] * CARD_KINDS))
    if deck is not None:
        state.deck = list(deck)
    if face_up is not None:
        state.face_up = list(face_up)
    if yards is not None:
        for c in range(len(COLOURS)):
            owner, wagons, locos = yards.get(c, (-1, 0, 0))
            state.yard_owner[c] = owner
            state.yard_wagons[c] = wagons
            state.yard_locos[c] = locos
    if held is not None:
        for seat, ids in held.items():
            state.held[seat] = list(ids)
    state.circulation = [[0] * CARD_KINDS for _ in range(n)]
    _balance(state)
    return state


def _balance(state: GameState) -> None:
    """Make the discard pile hold exactly the cards not placed elsewhere (the whole deck)."""
    placed = [0] * CARD_KINDS
    for card in state.deck:
        placed[card] += 1
    for card in state.face_up:
        if card != NO_CARD:
            placed[card] += 1
    for pile in state.hands + state.circulation:
        for k in range(CARD_KINDS):
            placed[k] += pile[k]
    for c in range(len(COLOURS)):
        placed[c] += state.yard_wagons[c]
        placed[LOCO] += state.yard_locos[c]
    full = list(state.game.catalogue.deck)  # R1: the game's deck (96 printed)
    state.discard = [full[k] - placed[k] for k in range(CARD_KINDS)]
    assert min(state.discard) >= 0, f"test arranges too many cards: {state.discard}"


# Knobs that keep a costly strategy's games short in tests that loop over every registered
# strategy: a search budget changes how well it plays, not the contract being tested.
QUICK_KNOBS: dict[str, tuple[tuple[str, object], ...]] = {"ismcts": (("iterations", 4),)}


def quick_spec(name: str, label: str | None = None, **knobs: object):  # -> StrategySpec
    """A strategy spec by registered name, with QUICK_KNOBS for a costly one."""
    from sims.strategy import StrategySpec

    merged = dict(QUICK_KNOBS.get(name, ()))
    merged.update(knobs)
    return StrategySpec(label or name, name, tuple(sorted(merged.items())))


# The reports' tables from raw rows, as the tests plant them: the report itself builds them from
# offer sums read in chunks. Imported when called, so the rules tests need no pandas.
def card_summary(destinations):  # -> pd.DataFrame
    """``destinations.card_summary_of`` the offer rows' sums."""
    from reports.destinations import card_summary_of
    from reports.offers import offer_sums

    return card_summary_of(offer_sums([destinations]))


def card_balance(destinations, **options):  # -> pd.DataFrame
    """``destinations.card_balance_of`` the offer rows' sums."""
    from reports.destinations import card_balance_of
    from reports.offers import offer_sums

    return card_balance_of(offer_sums([destinations]), **options)


def card_contribution(destinations, seats, **options):  # -> pd.DataFrame
    """``designer.card_contribution_of`` the offer rows' sums, with the seats' win shares."""
    from reports.designer import card_contribution_of
    from reports.offers import offer_sums

    return card_contribution_of(offer_sums([destinations], seats), **options)
