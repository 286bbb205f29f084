# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The native core: the game state and rules of ``cardgame/state.py`` in C.

The Python engine is the reference; everything here gives the same results bit for bit:
the same RNG (CPython's MT19937, loaded from ``random.Random.getstate()``), the same legal
actions in the same order, the same shuffles, records, scores. ``_core.pxd`` is the C-level
interface that native strategies cimport.

Python API (tests/test_native_core.py proves each part equal to the Python engine):

* ``NativeState.new(game, record=False, shuffles=None)``, like ``game.new_state``. Shuffles
  are seeded in C when ``shuffles`` is None or a ``SeededShuffles`` (its RNG state is written
  back by ``write_to``/``to_state``); any other source (``RecordedShuffles``, a test spy) is
  called as the Python engine calls it. ``record="log"``: the record kept as C ints (``EV_*``
  events, ``_core.pxd``) instead of dicts, for ``_record.record_line`` to write as JSON.
* ``NativeState.from_state(gs)``, ``ns.write_to(gs)``, ``ns.to_state()``: to and from a
  ``GameState``, every slot (a record's dicts are shared, so the record goes on).
* ``ns.legal_actions()``, ``ns.apply(action)`` (the Python rulings), ``ns.apply_unchecked``,
  ``ns.is_legal``, ``ns.view(seat)``, ``ns.copy()``, and ``GameState``'s fields as read-only
  properties (fresh lists), so ``record.to_record(ns)`` works as on a ``GameState``.
* ``play_random(game, record=False)``: ``randomplay.play_random``, all in C.
"""

from libc.math cimport cos, log, sin, sqrt
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import random as _random
from hashlib import sha512 as _sha512

from cardgame import actions as _A
from cardgame import resolution as _resolution
from cardgame.errors import IllegalActionError as _IllegalActionError
from cardgame.observation import SeatView as _SeatView
from cardgame.rules import FIRST_TURNS as _FIRST_TURNS
from cardgame.scoring import SeatScore as _SeatScore
from cardgame.shuffling import SeededShuffles as _SeededShuffles
from cardgame.state import GameState as _GameState, empty_record as _empty_record

from cardgame._native._resolution cimport resolve_held

include "_random.pxi"


# ---------------------------------------------------------------------------- legality

cdef inline void put(Act* out, int kind, int a, int b, int c) noexcept nogil:
    out.kind = kind
    out.a = a
    out.b = b
    out.c = c


cdef int placements_core(
    int seat, const int* hand, const int* owner, const int* yard_wagons,
    const int* yard_locos, Act* out, int colours,
) noexcept nogil:
    """``actions.placements``: columns (R12a) then three-colour plays (R12b), in a game of
    ``colours`` colours (the locomotives: ``hand[colours]``)."""
    cdef int locos = hand[colours]
    cdef int n = 0
    cdef int free[MAX_COLOURS]
    cdef int n_free = 0
    cdef int c, have, holder, need, w, start, lo, i, j, k
    for c in range(colours):
        have = hand[c]
        if not have:
            continue
        holder = owner[c]
        if holder == seat:
            continue
        if holder == NOBODY:
            free[n_free] = c
            n_free += 1
            need = MIN_COLUMN
        else:
            need = cards_to_beat(yard_wagons[c] + yard_locos[c])
        for w in range(1, have + 1):
            start = need - w if need > w else 0
            if start <= locos:
                for lo in range(start, locos + 1):
                    put(&out[n], K_COLUMN, c, w, lo)
                    n += 1
    if n_free >= 3:
        for i in range(n_free - 2):
            for j in range(i + 1, n_free - 1):
                for k in range(j + 1, n_free):
                    put(&out[n], K_THREE, free[i], free[j], free[k])
                    n += 1
    return n


cdef int list_keep_subsets(int offer_n, Act* out) noexcept nogil:
    """``actions.keep_subsets`` of an offer with no minimum, as offer-position masks (R5,
    R13): by size, largest first, each size in ``itertools.combinations`` order."""
    cdef int n = 0
    cdef int idx[MAX_OFFER]
    cdef int size, i, j, mask
    for size in range(offer_n, -1, -1):
        for i in range(size):
            idx[i] = i
        while True:
            mask = 0
            for i in range(size):
                mask |= 1 << idx[i]
            put(&out[n], K_KEEP, mask, 0, 0)
            n += 1
            i = size - 1
            while i >= 0 and idx[i] == offer_n - size + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, size):
                idx[j] = idx[j - 1] + 1
    return n


# every offer's keeps, listed once: with a minimum, an offer's keeps are a prefix of its list
cdef Act keep_lists[2 << MAX_OFFER]
cdef int keep_start[MAX_OFFER + 1]
cdef int keep_prefix[MAX_OFFER + 1][MAX_OFFER + 2]  # keeps of at least k cards


cdef inline int binomial(int n, int k) noexcept nogil:
    cdef int out = 1, i
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


cdef void list_every_offer() noexcept nogil:
    cdef int offer_n, k, start = 0
    for offer_n in range(MAX_OFFER + 1):
        keep_start[offer_n] = start
        start += list_keep_subsets(offer_n, &keep_lists[start])
        keep_prefix[offer_n][offer_n + 1] = 0
        for k in range(offer_n, -1, -1):
            keep_prefix[offer_n][k] = keep_prefix[offer_n][k + 1] + binomial(offer_n, k)


list_every_offer()


cdef int keep_subsets_core(int offer_n, int minimum, Act* out) noexcept nogil:
    """``actions.keep_subsets`` as offer-position masks (R5, R13): by size, largest first,
    each size in ``itertools.combinations`` order (copied from the lists made at import)."""
    cdef int n
    if minimum < 0:
        minimum = 0
    if minimum > offer_n:
        return 0
    n = keep_prefix[offer_n][minimum]
    memcpy(out, &keep_lists[keep_start[offer_n]], n * sizeof(Act))
    return n


cdef int legal_core(
    int phase, int seat, const int* hand, const int* owner, const int* yard_wagons,
    const int* yard_locos, const int* face_up, int face_up_n, int deck_n, int dest_n,
    int offer_n, int min_keep, Act* out, int colours,
) noexcept nogil:
    """``actions.legal_actions`` from the fields legality depends on (R5, R10-R14), in a
    game of ``colours`` colours."""
    cdef int n = 0
    cdef int slot, card
    if phase == PH_TURN:
        if deck_n:
            put(&out[n], K_DRAW_DECK, 0, 0, 0)
            n += 1
        for slot in range(face_up_n):
            if face_up[slot] != NO_CARD:
                put(&out[n], K_FACE_UP, slot, 0, 0)
                n += 1
        n += placements_core(seat, hand, owner, yard_wagons, yard_locos, &out[n], colours)
        if dest_n:
            put(&out[n], K_DRAW_DESTINATIONS, 0, 0, 0)
            n += 1
        if n == 0:
            put(&out[n], K_PASS, 0, 0, 0)
            n += 1
        return n
    if phase == PH_SECOND_PICK:
        if deck_n:
            put(&out[n], K_DRAW_DECK, 0, 0, 0)
            n += 1
        for slot in range(face_up_n):
            card = face_up[slot]
            if card != NO_CARD and card != colours:
                put(&out[n], K_FACE_UP, slot, 0, 0)
                n += 1
        return n
    if phase == PH_SETUP_KEEP:
        return keep_subsets_core(offer_n, min_keep, out)
    if phase == PH_KEEP_DRAWN:
        return keep_subsets_core(offer_n, 0, out)
    return 0


cdef int legal_from_view(const CView* v, Act* out) noexcept nogil:
    """``SeatView.legal_actions``: nothing unless the seat is to move."""
    if not v.to_move:
        return 0
    return legal_core(
        v.phase, v.seat, v.hand, v.yard_owner, v.yard_wagons, v.yard_locos, v.face_up,
        v.face_up_n, v.deck_size, v.dest_deck_size, v.offer_n, v.min_keep, out, v.colours,
    )


cdef inline bint malformed(const Act* a, int colours) noexcept nogil:
    """``actions.malformed`` for what a C action can get wrong: a colour or slot out of range
    (a keep's mask only names offer positions, checked as the ruling does)."""
    if a.kind == K_FACE_UP:
        return a.a < 0
    if a.kind == K_COLUMN:
        return not 0 <= a.a < colours
    if a.kind == K_THREE:
        return not (0 <= a.a < colours and 0 <= a.b < colours and 0 <= a.c < colours)
    return False


cdef inline int placement_ruling(
    int seat, const int* hand, const int* owner, const int* yard_wagons,
    const int* yard_locos, const Act* a, int n_colours,
) noexcept nogil:
    """``actions.placement_problem`` on a well-formed placement: 12 if it breaks R12, else 0
    (``hand[n_colours]``: the locomotives)."""
    cdef int c, w, lo, i
    cdef int colours[3]
    if a.kind == K_THREE:
        colours[0] = a.a
        colours[1] = a.b
        colours[2] = a.c
        if a.a == a.b or a.b == a.c or a.a == a.c:
            return 12
        for i in range(3):
            c = colours[i]
            if hand[c] < 1 or owner[c] != NOBODY:  # one card beats no column
                return 12
        return 0
    c, w, lo = a.a, a.b, a.c
    if w < 1 or lo < 0 or w + lo < MIN_COLUMN:
        return 12
    if hand[c] < w or hand[n_colours] < lo or owner[c] == seat:
        return 12
    if owner[c] != NOBODY and w + lo < cards_to_beat(yard_wagons[c] + yard_locos[c]):
        return 12
    return 0


cdef int act_ruling(const CView* v, const Act* a) noexcept nogil:
    """``actions.problem`` for the seat to move, on a C action: 0 when legal, else the number
    of the ruling the Python engine names (12 for R12), -1 where it finds the action
    malformed. The checks come in ``problem``'s order (R5, R10-R14, R17); the words stay in
    Python (``NativeState.check`` asks ``actions.problem``)."""
    cdef int kind = a.kind, phase = v.phase, card, n, i, kept
    cdef Act buf[MAX_ACTIONS]
    if malformed(a, v.colours):
        return -1
    if phase == PH_TURN:
        if kind == K_DRAW_DECK:
            return 0 if v.deck_size > 0 else 11
        if kind == K_COLUMN or kind == K_THREE:
            return placement_ruling(
                v.seat, v.hand, v.yard_owner, v.yard_wagons, v.yard_locos, a, v.colours
            )
        if kind == K_FACE_UP:
            if a.a >= v.face_up_n or v.face_up[a.a] == NO_CARD:
                return 11
            return 0
        if kind == K_DRAW_DESTINATIONS:
            return 0 if v.dest_deck_size > 0 else 13
        if kind == K_PASS:  # R14: only when nothing else is legal
            n = legal_from_view(v, buf)
            return 0 if n == 1 and buf[0].kind == K_PASS else 14
        return 13  # a keep: no destinations are on offer
    if phase == PH_SECOND_PICK:
        if kind == K_DRAW_DECK:
            return 0 if v.deck_size > 0 else 11
        if kind == K_FACE_UP:
            if a.a >= v.face_up_n:
                return 11
            card = v.face_up[a.a]
            if card == NO_CARD:
                return 11
            return 10 if card == v.colours else 0
        return 10  # one train card is expected (a second pick, or a one-card first turn)
    if phase == PH_OVER:
        return 17
    # a keep (R5 at setup, R13 after a draw): offered ids only; at setup, enough of them
    if kind != K_KEEP or a.a < 0 or a.a >= (1 << v.offer_n):
        return 5 if phase == PH_SETUP_KEEP else 13
    if phase == PH_KEEP_DRAWN:
        return 0
    kept = 0
    for i in range(v.offer_n):
        kept += (a.a >> i) & 1
    return 0 if kept >= v.min_keep else 5


cdef void fill_view(const CState* s, int seat, CView* v) noexcept nogil:
    """``GameState.view(seat)``: what ``seat`` may know (R9)."""
    cdef int i, k, total
    v.colours = s.colours
    v.seat = seat
    v.to_move = s.seat == seat
    v.players = s.players
    v.phase = s.phase
    v.round = s.round
    v.rounds_total = s.rules.rounds_total
    v.turn = s.turn
    memcpy(v.hand, s.hands[seat], sizeof(int) * MAX_CARD_KINDS)
    v.held_n = s.held_n[seat]
    memcpy(v.held, s.held[seat], sizeof(int) * v.held_n)
    v.offer_n = s.offer_n[seat]
    memcpy(v.offer, s.offers[seat], sizeof(int) * v.offer_n)
    v.face_up_n = s.rules.face_up
    memcpy(v.face_up, s.face_up, sizeof(int) * v.face_up_n)
    memcpy(v.yard_owner, s.yard_owner, sizeof(int) * MAX_COLOURS)
    memcpy(v.yard_wagons, s.yard_wagons, sizeof(int) * MAX_COLOURS)
    memcpy(v.yard_locos, s.yard_locos, sizeof(int) * MAX_COLOURS)
    for i in range(s.players):
        memcpy(v.circulation[i], s.circulation[i], sizeof(int) * MAX_CARD_KINDS)
        total = 0
        for k in range((s.colours + 1)):
            total += s.hands[i][k]
        v.hand_sizes[i] = total
        v.held_counts[i] = s.held_n[i]
    for i in range(s.players, MAX_SEATS):
        v.held_counts[i] = 0
    v.deck_size = s.deck_n
    v.dest_deck_size = s.dest_n
    v.final_round = s.final_turns_left != -1 or s.deck_n == 0
    v.min_keep = s.rules.destinations_min_keep
    memcpy(v.train_cards, s.train_cards, sizeof(int) * MAX_CARD_KINDS)


cdef void load_catalogue(CCatalogue* cat, object catalogue) except *:
    """The destinations, big-city bonuses and train deck (R1) of ``catalogue`` as C arrays
    (ids index ``dest``)."""
    memset(cat, 0, sizeof(CCatalogue))
    cdef int i, k
    deck = catalogue.deck
    colours = len(catalogue.colours)
    if not 1 <= colours <= MAX_COLOURS or len(deck) != colours + 1:
        raise ValueError(f"{colours} colours: the native core holds 1 to {MAX_COLOURS}")
    if sum(deck) > MAX_TRAIN_CARDS or min(deck) < 0:
        raise ValueError(f"a deck of {deck} is outside the native core's arrays")
    cat.colours = colours
    for k in range(colours + 1):
        cat.deck[k] = deck[k]
    names = list(catalogue.big_city_names)
    if len(names) > MAX_BIG_CITIES:
        raise ValueError(f"the native core holds at most {MAX_BIG_CITIES} big cities")
    cat.n_big = len(names)
    cdef CDest* d
    for i, big in enumerate(catalogue.big_cities):
        cat.big_points[i] = big.points
    cat.n_dest = 0
    for dest in catalogue.destinations:
        if not 1 <= dest.id <= MAX_DEST_ID or len(dest.colours) > MAX_CIRCLES or any(
            not 0 <= c < colours for c in dest.colours
        ):
            raise ValueError(f"destination #{dest.id}: outside the native core's arrays")
        d = &cat.dest[dest.id]
        d.id = dest.id
        d.points = dest.points
        d.ncolours = len(dest.colours)
        for k, c in enumerate(dest.colours):
            d.colours[k] = c
            d.need[c] += 1
        d.big_names = 0
        for k, city in enumerate((dest.city_a, dest.city_b)):
            d.big_index[k] = names.index(city) if city in names else -1
            if city in names:
                d.big_names += 1
        cat.n_dest += 1
        if dest.id > cat.max_id:
            cat.max_id = dest.id


# ---------------------------------------------------------------------------- Python glue

cdef object act_to_action(const Act* a, const int* offer, int offer_n):
    """The interned ``cardgame.actions`` object for ``a`` (ids in offer order for a keep)."""
    cdef int i
    if a.kind == K_DRAW_DECK:
        return _A.DRAW_DECK
    if a.kind == K_FACE_UP:
        return _A.DRAW_FACE_UP[a.a]
    if a.kind == K_COLUMN:
        return _COLUMNS[a.a][a.b][a.c]
    if a.kind == K_THREE:
        return _THREES[(a.a, a.b, a.c)]
    if a.kind == K_DRAW_DESTINATIONS:
        return _A.DRAW_DESTINATIONS
    if a.kind == K_KEEP:
        return _A.KeepDestinations(tuple([offer[i] for i in range(offer_n) if a.a >> i & 1]))
    return _A.PASS


cdef int _fill(int* out, object values, int limit, str what) except -1:
    cdef int n = len(values), i
    if n > limit:
        raise ValueError(f"view.{what}: {n} entries, at most {limit}")
    for i in range(n):
        out[i] = values[i]
    return n


cdef int view_from_seatview(object view, CView* v) except -1:
    """A ``CView`` holding what a Python ``SeatView`` holds (cardgame/observation.py field
    order), every length checked against the C arrays: any view may come in."""
    cdef int seat, players, i, c
    seat, players = view[SV_SEAT], view[SV_PLAYERS]
    if not 0 < players <= MAX_SEATS or not 0 <= seat < players:
        raise ValueError(f"view: seat {seat} of {players} players")
    v.seat = seat
    v.to_move = bool(view[SV_TO_MOVE])
    v.players = players
    v.phase = int(view[SV_PHASE])
    v.round = view[SV_ROUND]
    v.rounds_total = view[SV_ROUNDS_TOTAL]
    v.turn = view[SV_TURN]
    kinds = len(view[SV_TRAIN_CARDS])
    if not 2 <= kinds <= MAX_CARD_KINDS:
        raise ValueError(f"view.train_cards: {kinds} counts, expected 2 to {MAX_CARD_KINDS}")
    v.colours = kinds - 1
    if len(view[SV_HAND]) != kinds:
        raise ValueError(f"view.hand: expected {kinds} counts")
    _fill(v.hand, view[SV_HAND], kinds, "hand")
    v.held_n = _fill(v.held, view[SV_HELD_IDS], MAX_DEST_ID, "held_ids")
    v.offer_n = _fill(v.offer, view[SV_OFFER_IDS], MAX_OFFER, "offer_ids")
    v.face_up_n = _fill(v.face_up, view[SV_FACE_UP], MAX_FACE_UP, "face_up")
    _fill(v.yard_owner, view[SV_YARD_OWNER], v.colours, "yard_owner")
    _fill(v.yard_wagons, view[SV_YARD_WAGONS], v.colours, "yard_wagons")
    _fill(v.yard_locos, view[SV_YARD_LOCOS], v.colours, "yard_locos")
    circulations = view[SV_CIRCULATIONS]
    for i in range(players):
        _fill(v.circulation[i], circulations[i], kinds, "circulations")
    for i in range(players, MAX_SEATS):
        for c in range(kinds):
            v.circulation[i][c] = 0
    _fill(v.hand_sizes, view[SV_HAND_SIZES], MAX_SEATS, "hand_sizes")
    for i in range(players, MAX_SEATS):
        v.hand_sizes[i] = 0
    if len(view[SV_HELD_COUNTS]) != players:
        raise ValueError(f"view.held_counts: expected {players} counts")
    _fill(v.held_counts, view[SV_HELD_COUNTS], MAX_SEATS, "held_counts")
    for i in range(players, MAX_SEATS):
        v.held_counts[i] = 0
    v.deck_size = view[SV_DECK_SIZE]
    v.dest_deck_size = view[SV_DESTINATION_DECK_SIZE]
    v.final_round = bool(view[SV_FINAL_ROUND])
    v.min_keep = view[SV_RULES].destinations_min_keep
    _fill(v.train_cards, view[SV_TRAIN_CARDS], kinds, "train_cards")
    return 0


def view_legal_actions(view):
    """``view.legal_actions()`` computed by ``legal_from_view`` (tests prove them equal)."""
    cdef CView v
    cdef Act out[MAX_ACTIONS]
    cdef int n, i
    view_from_seatview(view, &v)
    n = legal_from_view(&v, out)
    return [act_to_action(&out[i], v.offer, v.offer_n) for i in range(n)]


_COLUMNS = _A.COLUMNS
_THREES = _A.THREES



cdef object _PHASES = tuple(_A.Phase)
cdef object _TRAIN_SETUP = "train_setup"
cdef object _DESTINATION_SETUP = "destination_setup"
cdef object _DESTINATION_RESHUFFLE = "destination_reshuffle"
cdef object _TRAIN_ROUND = "train_round"
# a shuffle's kind in a record's log: its index here (record_schema.SHUFFLE_KINDS)
cdef tuple _SHUFFLE_KINDS = (_TRAIN_SETUP, _DESTINATION_SETUP, _DESTINATION_RESHUFFLE, _TRAIN_ROUND)
cdef object _new_view = tuple.__new__
cdef object _deepcopy = __import__("copy").deepcopy


cdef inline object card_name(tuple names, int card):
    """``names[card]`` (the game's card names) as Python indexes it (an empty slot, -1,
    reads "locomotive")."""
    return names[card if card >= 0 else card + len(names)]


cdef list names_of(tuple names, const int* cards, int n):
    cdef int i
    return [card_name(names, cards[i]) for i in range(n)]


cdef list expand_names(tuple names, const int* counts):
    """``_names(_expand(counts))``: each card kind as many times as counted."""
    cdef list out = []
    cdef int card, i
    for card in range(len(names)):
        for i in range(counts[card]):
            out.append(names[card])
    return out


cdef list int_list(const int* x, int n):
    cdef int i
    return [x[i] for i in range(n)]


# --------------------------------------------------------------- catalogue and rules, cached

cdef CCatalogue cached_cat
cdef int cached_order[MAX_DEST_ID]
cdef object cached_catalogue = None
cdef CRules cached_rules
cdef object cached_rules_of = None
cdef int cached_players = 0


cdef void use_catalogue(NativeState ns, object catalogue) except *:
    global cached_catalogue
    cdef int i
    if catalogue is not cached_catalogue:
        load_catalogue(&cached_cat, catalogue)
        if len(catalogue.destinations) > MAX_DEST_ID:
            raise ValueError(f"the native core holds at most {MAX_DEST_ID} destinations")
        for i, dest in enumerate(catalogue.destinations):
            cached_order[i] = dest.id
        cached_catalogue = catalogue
    memcpy(&ns.cat, &cached_cat, sizeof(CCatalogue))
    memcpy(ns.dest_order, cached_order, sizeof(int) * MAX_DEST_ID)


cdef void use_rules(CRules* out, object rules, int players) except *:
    global cached_rules_of, cached_players
    cdef int i
    if rules is not cached_rules_of or players != cached_players:
        if rules.face_up > MAX_FACE_UP or rules.destinations_dealt > MAX_OFFER:
            raise ValueError("rules outside the native core's arrays")
        if rules.destinations_drawn > MAX_OFFER or rules.rounds_for(players) > MAX_ROUNDS:
            raise ValueError("rules outside the native core's arrays")
        cached_rules.rounds_total = rules.rounds_for(players)
        cached_rules.starting_hand = rules.starting_hand
        cached_rules.starting_locomotives = rules.starting_locomotives
        cached_rules.face_up = rules.face_up
        cached_rules.destinations_dealt = rules.destinations_dealt
        cached_rules.destinations_min_keep = rules.destinations_min_keep
        cached_rules.destinations_drawn = rules.destinations_drawn
        cached_rules.round_two_deal = rules.round_two_deal
        cached_rules.three_locomotive_wipe = rules.three_locomotive_wipe
        for i in range(MAX_SEATS):
            cached_rules.seat_extra_cards[i] = rules.seat_extra_cards[i]
            cached_rules.seat_extra_locomotives[i] = rules.seat_extra_locomotives[i]
        cached_rules.first_turn = _FIRST_TURNS.index(rules.first_turn)
        cached_rules_of = rules
        cached_players = players
    out[0] = cached_rules


# --------------------------------------------------------------- a record's log

cdef int* room(NativeState ns, Py_ssize_t more) except NULL:
    """``more`` ints at the end of the log; where they go."""
    cdef Py_ssize_t need = ns.log_n + more
    cdef Py_ssize_t capacity = ns.log_cap
    cdef int* grown
    if need > capacity:
        while capacity < need:
            capacity *= 2
        grown = <int*>realloc(ns.log, capacity * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        ns.log = grown
        ns.log_cap = capacity
    grown = ns.log + ns.log_n
    ns.log_n = need
    return grown


cdef inline int* logged(NativeState ns, int tag, Py_ssize_t more) except NULL:
    """An event ``tag`` at the end of the log with room for ``more`` ints after it; where
    they go."""
    cdef int* out = room(ns, 1 + more)
    out[0] = tag
    return out + 1


cdef int log_ints(NativeState ns, int tag, const int* x, int n) except -1:
    """An event of ``n`` and the ``n`` ints of ``x``."""
    cdef int* out = logged(ns, tag, 1 + n)
    out[0] = n
    memcpy(out + 1, x, n * sizeof(int))
    return 0


# --------------------------------------------------------------- the rules (state.py)

cdef int do_shuffle(NativeState ns, object kind, int* cards, int n, bint names) except -1:
    """``GameState._shuffle``: seeded in C, or by the Python source; recorded."""
    cdef int i
    cdef int* out
    if ns.seeded_in_c:
        mt_shuffle(&ns.shuffle_rng, cards, n)
    else:
        order = ns.shuffles.shuffle(kind, [cards[i] for i in range(n)])
        if len(order) != n:
            raise ValueError(f"the {kind} shuffle returned {len(order)} cards, not {n}")
        for i in range(n):
            cards[i] = order[i]
    if ns.record is not None:
        ns.record["shuffles"].append(
            {"kind": kind, "order": names_of(ns.card_names, cards, n) if names else int_list(cards, n)}
        )
    if ns.log != NULL:
        out = logged(ns, EV_SHUFFLE, 3 + n)
        out[0] = _SHUFFLE_KINDS.index(kind)
        out[1] = names
        out[2] = n
        memcpy(out + 3, cards, n * sizeof(int))
    return 0


cdef int setup(NativeState ns) except -1:
    """R3-R6: hands, the train deck (the catalogue's, R1), the face-up row, the
    destinations dealt; seat 0 keeps first (and starts, R6). The seat levers (extra
    locomotives and cards by seat) as ``GameState._setup`` applies them."""
    cdef CState* s = &ns.s
    cdef int n = s.players
    cdef int seat, c, i, k, given = 0
    cdef bint extra = False
    cdef int* out
    for seat in range(n):
        s.hands[seat][s.colours] = s.rules.starting_locomotives + s.rules.seat_extra_locomotives[seat]
        given += s.hands[seat][s.colours]
        extra = extra or s.rules.seat_extra_cards[seat] != 0
    k = 0
    for c in range(s.colours):
        for i in range(ns.cat.deck[c]):
            s.deck[k] = c
            k += 1
    for i in range(ns.cat.deck[s.colours] - given):
        s.deck[k] = s.colours
        k += 1
    s.deck_n = k
    do_shuffle(ns, _TRAIN_SETUP, s.deck, k, True)
    deal(s, s.rules.starting_hand)
    if extra:
        deal_extra(s)
    turn_face_up(ns)
    s.dest_n = ns.cat.n_dest
    memcpy(s.dest_deck, ns.dest_order, sizeof(int) * s.dest_n)
    do_shuffle(ns, _DESTINATION_SETUP, s.dest_deck, s.dest_n, False)
    for seat in range(n):
        for i in range(s.rules.destinations_dealt):
            s.dest_n -= 1
            s.offers[seat][i] = s.dest_deck[s.dest_n]
        s.offer_n[seat] = s.rules.destinations_dealt
    if ns.record is not None:
        ns.record["setup"]["dealt"] = [int_list(s.offers[seat], s.offer_n[seat])
                                       for seat in range(n)]
    if ns.log != NULL:
        k = 0
        for seat in range(n):
            k += 1 + s.offer_n[seat]
        out = logged(ns, EV_DEALT, k)
        for seat in range(n):
            out[0] = s.offer_n[seat]
            memcpy(out + 1, s.offers[seat], s.offer_n[seat] * sizeof(int))
            out += 1 + s.offer_n[seat]
    note_round_start(ns)
    s.phase = PH_SETUP_KEEP
    s.seat = 0
    return 0


cdef void deal(CState* s, int count) noexcept nogil:
    """Deal ``count`` cards to each seat, seat by seat, as many as the deck allows (R3, R19)."""
    cdef int seat, i
    for seat in range(s.players):
        for i in range(count):
            if not s.deck_n:
                return
            s.deck_n -= 1
            s.hands[seat][s.deck[s.deck_n]] += 1


cdef void deal_extra(CState* s) noexcept nogil:
    """A lever (R3): after the hands, each seat in order gets its extra cards."""
    cdef int seat, i
    for seat in range(s.players):
        for i in range(s.rules.seat_extra_cards[seat]):
            if not s.deck_n:
                return
            s.deck_n -= 1
            s.hands[seat][s.deck[s.deck_n]] += 1


cdef int turn_face_up(NativeState ns) except -1:
    cdef CState* s = &ns.s
    cdef int slot
    for slot in range(s.rules.face_up):
        if s.deck_n:
            s.deck_n -= 1
            s.face_up[slot] = s.deck[s.deck_n]
        else:
            s.face_up[slot] = NO_CARD
    if s.rules.three_locomotive_wipe:
        maybe_wipe(ns)
    return 0


cdef int maybe_wipe(NativeState ns) except -1:
    """R4 variant: three face-up locomotives wipe the row (while the deck lasts)."""
    cdef CState* s = &ns.s
    cdef int slot, locos, card
    cdef int width = s.rules.face_up
    if not s.rules.three_locomotive_wipe:
        return 0
    while s.deck_n:
        locos = 0
        for slot in range(width):
            if s.face_up[slot] == s.colours:
                locos += 1
        if locos < 3:
            break
        for slot in range(width):
            card = s.face_up[slot]
            if card != NO_CARD:
                s.discard[card] += 1
        for slot in range(width):
            if s.deck_n:
                s.deck_n -= 1
                s.face_up[slot] = s.deck[s.deck_n]
            else:
                s.face_up[slot] = NO_CARD
        if ns.turn_record is not None:
            ns.turn_record.setdefault("wipes", []).append(names_of(ns.card_names, s.face_up, width))
        if ns.log != NULL:  # the writer keeps those inside a turn, as the dicts do
            memcpy(logged(ns, EV_WIPE, width), s.face_up, width * sizeof(int))
    return 0


cdef int note_round_start(NativeState ns) except -1:
    cdef CState* s = &ns.s
    cdef int slot, seat
    cdef int kinds = s.colours + 1
    cdef int* out
    if ns.log != NULL:
        out = logged(ns, EV_ROUND, 2 + s.rules.face_up + s.players * kinds)
        out[0] = s.round
        memcpy(out + 1, s.face_up, s.rules.face_up * sizeof(int))
        out += 1 + s.rules.face_up
        for seat in range(s.players):
            memcpy(out + seat * kinds, s.hands[seat], kinds * sizeof(int))
        out[s.players * kinds] = s.deck_n
    if ns.record is None:
        return 0
    ns.record["rounds"].append(
        {
            "round": s.round,
            "face_up": [card_name(ns.card_names, s.face_up[slot]) if s.face_up[slot] != NO_CARD else None
                        for slot in range(s.rules.face_up)],
            "hands": [expand_names(ns.card_names, s.hands[seat]) for seat in range(s.players)],
            "deck_size": s.deck_n,
        }
    )
    return 0


cdef int keep_setup(NativeState ns, int mask) except -1:
    """R5: the seat keeps the offered destinations in ``mask``, the rest go on the deck."""
    cdef CState* s = &ns.s
    cdef int seat = s.seat
    cdef int i, d
    cdef int kept[MAX_OFFER]
    cdef int n_kept = 0
    for i in range(s.offer_n[seat]):
        d = s.offers[seat][i]
        if mask >> i & 1:
            s.held[seat][s.held_n[seat]] = d
            s.held_n[seat] += 1
            kept[n_kept] = d
            n_kept += 1
    for i in range(s.offer_n[seat]):
        if not mask >> i & 1:
            s.dest_deck[s.dest_n] = s.offers[seat][i]
            s.dest_n += 1
    s.offer_n[seat] = 0
    if ns.record is not None:
        ns.record["setup"]["kept"].append(int_list(kept, n_kept))
    if ns.log != NULL:
        log_ints(ns, EV_KEPT, kept, n_kept)
    if seat + 1 < s.players:
        s.seat = seat + 1
        return 0
    do_shuffle(ns, _DESTINATION_RESHUFFLE, s.dest_deck, s.dest_n, False)
    s.seat = 0
    return begin_turn(ns)


cdef int pick(NativeState ns, const Act* a, bint first) except -1:
    """One pick of a train draw (R10, R11)."""
    cdef CState* s = &ns.s
    cdef int* hand = s.hands[s.seat]
    cdef int card, slot, refill
    cdef int* out
    if a.kind == K_DRAW_DECK:
        s.deck_n -= 1
        card = s.deck[s.deck_n]
        hand[card] += 1
        if ns.log != NULL:
            out = logged(ns, EV_PICK, 4)
            out[0] = 0
            out[1] = -1
            out[2] = card
            out[3] = NO_CARD
        if ns.turn_record is not None:
            ns.turn_record.setdefault("picks", []).append(
                {"from": "deck", "card": ns.card_names[card]}
            )
    else:
        slot = a.a
        card = s.face_up[slot]
        hand[card] += 1
        if s.deck_n:
            s.deck_n -= 1
            s.face_up[slot] = s.deck[s.deck_n]
        else:
            s.face_up[slot] = NO_CARD
        if ns.log != NULL:
            out = logged(ns, EV_PICK, 4)
            out[0] = 1
            out[1] = slot
            out[2] = card
            out[3] = s.face_up[slot]
        if ns.turn_record is not None:
            refill = s.face_up[slot]
            ns.turn_record.setdefault("picks", []).append(
                {
                    "from": "face_up",
                    "slot": slot,
                    "card": card_name(ns.card_names, card),
                    "refill": card_name(ns.card_names, refill) if refill != NO_CARD else None,
                }
            )
        if s.rules.three_locomotive_wipe:
            maybe_wipe(ns)
        if card == s.colours:  # R10: a face-up locomotive counts as two
            return end_turn(ns)
    if first and can_pick_second(s):
        s.phase = PH_SECOND_PICK
        return 0
    return end_turn(ns)


cdef bint can_pick_second(const CState* s) noexcept nogil:
    """Whether any second pick exists (R10, R11)."""
    cdef int slot, card
    if s.deck_n:
        return True
    for slot in range(s.rules.face_up):
        card = s.face_up[slot]
        if card != NO_CARD and card != s.colours:
            return True
    return False


cdef int place_column(NativeState ns, int colour, int wagons, int locos) except -1:
    """R12a: a column into the yard, beating a rival's column if it stood there."""
    cdef CState* s = &ns.s
    cdef int seat = s.seat
    steal_if_needed(ns, colour)
    s.hands[seat][colour] -= wagons
    s.hands[seat][s.colours] -= locos
    s.yard_owner[colour] = seat
    s.yard_wagons[colour] = wagons
    s.yard_locos[colour] = locos
    return end_turn(ns)


cdef int place_three(NativeState ns, int a, int b, int c) except -1:
    """R12b: three wagons of three free colours, three columns of one."""
    cdef CState* s = &ns.s
    cdef int seat = s.seat
    cdef int colours[3]
    cdef int i, colour
    colours[0] = a
    colours[1] = b
    colours[2] = c
    for i in range(3):
        colour = colours[i]
        s.hands[seat][colour] -= 1
        s.yard_owner[colour] = seat
        s.yard_wagons[colour] = 1
        s.yard_locos[colour] = 0
    return end_turn(ns)


cdef int steal_if_needed(NativeState ns, int colour) except -1:
    """R12: the rival whose column was beaten discards it whole."""
    cdef CState* s = &ns.s
    cdef int victim = s.yard_owner[colour]
    cdef int wagons, locos
    cdef int* out
    if victim == NOBODY:
        return 0
    wagons = s.yard_wagons[colour]
    locos = s.yard_locos[colour]
    s.discard[colour] += wagons
    s.discard[s.colours] += locos
    s.steals[s.seat] += 1
    s.stolen_from[victim] += 1
    if ns.log != NULL:
        out = logged(ns, EV_STEAL, 4)
        out[0] = victim
        out[1] = colour
        out[2] = wagons
        out[3] = locos
    if ns.turn_record is not None:
        ns.turn_record["steal"] = {
            "victim": victim,
            "colour": ns.card_names[colour],
            "discarded": {"wagons": wagons, "locos": locos},
        }
    return 0


cdef void draw_destinations(CState* s) noexcept nogil:
    """R13: the top destinations (fewer if the deck has fewer) are offered to keep."""
    cdef int seat = s.seat
    cdef int count = s.rules.destinations_drawn
    cdef int i
    if count > s.dest_n:
        count = s.dest_n
    for i in range(count):
        s.dest_n -= 1
        s.offers[seat][i] = s.dest_deck[s.dest_n]
    s.offer_n[seat] = count
    s.phase = PH_KEEP_DRAWN


cdef int keep_drawn(NativeState ns, int mask) except -1:
    """R13: keep the drawn destinations in ``mask``; the rest go to the bottom."""
    cdef CState* s = &ns.s
    cdef int seat = s.seat
    cdef int n = s.offer_n[seat]
    cdef int* offer = s.offers[seat]
    cdef int returned[MAX_OFFER]
    cdef int n_returned = 0
    cdef int i
    cdef int* out
    for i in range(n):
        if mask >> i & 1:
            s.held[seat][s.held_n[seat]] = offer[i]
            s.held_n[seat] += 1
        else:
            returned[n_returned] = offer[i]
            n_returned += 1
    if n_returned:
        for i in range(s.dest_n - 1, -1, -1):
            s.dest_deck[i + n_returned] = s.dest_deck[i]
        for i in range(n_returned):
            s.dest_deck[i] = returned[i]
        s.dest_n += n_returned
    if ns.log != NULL:
        out = logged(ns, EV_DESTINATIONS, n + 2)
        out[0] = n
        memcpy(out + 1, offer, n * sizeof(int))
        out[n + 1] = mask
    if ns.turn_record is not None:
        ns.turn_record["destinations"] = {
            "drawn": int_list(offer, n),
            "kept": [offer[i] for i in range(n) if mask >> i & 1],
        }
    s.offer_n[seat] = 0
    return end_turn(ns)


cdef int begin_turn(NativeState ns) except -1:
    """Start the turn of the seat to move: step 1 is mandatory and automatic (R7, R8)."""
    cdef CState* s = &ns.s
    cdef int seat = s.seat
    cdef int moved[MAX_COLOURS]
    cdef int n_moved = 0
    cdef int c
    cdef int* out
    s.phase = PH_TURN
    s.turn += 1
    for c in range(s.colours):
        if s.yard_owner[c] != seat:
            continue
        if s.yard_locos[c]:  # R7: locomotives sit on top
            s.yard_locos[c] -= 1
            s.circulation[seat][s.colours] += 1
            moved[n_moved] = s.colours
        else:
            s.yard_wagons[c] -= 1
            s.circulation[seat][c] += 1
            moved[n_moved] = c
        n_moved += 1
        if not s.yard_wagons[c] and not s.yard_locos[c]:
            s.yard_owner[c] = NOBODY  # R8
    if ns.log != NULL:
        out = logged(ns, EV_TURN, 5 + n_moved)
        out[0] = s.turn
        out[1] = seat
        out[2] = s.round
        out[3] = s.final_turns_left != -1
        out[4] = n_moved
        memcpy(out + 5, moved, n_moved * sizeof(int))
    if ns.record is not None:
        ns.turn_record = {
            "turn": s.turn,
            "seat": seat,
            "round": s.round,
            "final_round": s.final_turns_left != -1,
            "step1": names_of(ns.card_names, moved, n_moved),
        }
    if s.turn == 1 and s.rules.first_turn != 0 and can_pick_second(s):
        # a lever (R6, R10): first_turn = "one_card" makes seat 0's first turn a single
        # train card, the decision a draw's second pick is (no other action)
        s.phase = PH_SECOND_PICK
    return 0


cdef int end_turn(NativeState ns) except -1:
    """Finish the turn; the next seat plays (R6); the final round starts once the deck is
    empty (R15)."""
    cdef CState* s = &ns.s
    if ns.turn_record is not None:
        ns.record["turns"].append(ns.turn_record)
        ns.turn_record = None
    if ns.log != NULL:
        logged(ns, EV_TURN_END, 0)
    s.last_seat = s.seat
    if s.final_turns_left == -1:
        if not s.deck_n:
            s.final_turns_left = s.players
    else:
        s.final_turns_left -= 1
        if s.final_turns_left <= 0:
            return end_round(ns)
    s.seat = (s.seat + 1) % s.players
    return begin_turn(ns)


cdef int resolve_seat(NativeState ns, int seat, int* got) except -1:
    """R16 for one seat: the ids reached, sorted, into ``got``; how many."""
    cdef CState* s = &ns.s
    cdef int n = s.held_n[seat]
    cdef int need[MAX_DEST_ID * MAX_COLOURS]
    cdef int points[MAX_DEST_ID]
    cdef int names[MAX_DEST_ID]
    cdef int i, c, d, k
    for i in range(n):
        d = s.held[seat][i]
        for c in range(s.colours):
            need[MAX_COLOURS * i + c] = ns.cat.dest[d].need[c]
        points[i] = ns.cat.dest[d].points
        names[i] = ns.cat.dest[d].big_names
    k = resolve_held(s.circulation[seat], n, s.held[seat], need, points, names, got, s.colours)
    if k >= 0:
        return k
    # outside the kernel's arrays: the Python engine's resolution
    catalogue = ns.game.catalogue
    ids = _resolution.resolve(
        int_list(s.circulation[seat], (s.colours + 1)),
        [catalogue.destination(s.held[seat][i]) for i in range(n)],
        ns.game.big_city_set,
    )
    for i, d in enumerate(ids):
        got[i] = d
    return len(ids)


cdef int end_round(NativeState ns) except -1:
    """Resolve destinations (R16); start another round (R18, R19) or end the game (R17)."""
    cdef CState* s = &ns.s
    cdef int got[MAX_DEST_ID]
    cdef int seat, n, i, j, d, total, left
    cdef bint reached
    cdef int* out
    resolution = [] if ns.record is not None else None
    if ns.log != NULL:
        logged(ns, EV_RESOLUTION, 1)[0] = s.round
    for seat in range(s.players):
        n = resolve_seat(ns, seat, got)
        total = 0
        for i in range(n):
            d = got[i]
            s.reached[seat][s.reached_n[seat]] = d
            s.reached_n[seat] += 1
            s.reached_round[d] = s.round
            total += ns.cat.dest[d].points
        left = 0
        for i in range(s.held_n[seat]):
            d = s.held[seat][i]
            reached = False
            for j in range(n):
                if got[j] == d:
                    reached = True
                    break
            if not reached:
                s.held[seat][left] = d
                left += 1
        s.held_n[seat] = left
        s.round_points[seat][s.round - 1] = total
        if ns.log != NULL:  # the seat's part of the round's EV_RESOLUTION
            out = room(ns, n + 2 + left)
            out[0] = n
            memcpy(out + 1, got, n * sizeof(int))
            out[n + 1] = left
            memcpy(out + n + 2, s.held[seat], left * sizeof(int))
        if resolution is not None:
            resolution.append({
                "seat": seat,
                "reached": int_list(got, n),
                "unreached": int_list(s.held[seat], left),
            })
    if resolution is not None:
        ns.record["resolutions"].append({"round": s.round, "seats": resolution})
    if s.round < s.rules.rounds_total:
        return start_next_round(ns)
    s.phase = PH_OVER
    return 0


cdef int start_next_round(NativeState ns) except -1:
    """R19: all train cards but the hands form a new deck; deal, turn the row, resume."""
    cdef CState* s = &ns.s
    cdef int counts[MAX_CARD_KINDS]
    cdef int n = s.deck_n
    cdef int slot, c, k, seat, i
    for slot in range(s.rules.face_up):
        if s.face_up[slot] != NO_CARD:
            s.deck[n] = s.face_up[slot]
            n += 1
    memcpy(counts, s.discard, sizeof(counts))
    for c in range(s.colours):
        counts[c] += s.yard_wagons[c]
        counts[s.colours] += s.yard_locos[c]
    for seat in range(s.players):
        for k in range((s.colours + 1)):
            counts[k] += s.circulation[seat][k]
    for k in range((s.colours + 1)):
        for i in range(counts[k]):
            s.deck[n] = k
            n += 1
    s.deck_n = n
    memset(s.discard, 0, sizeof(s.discard))
    memset(s.circulation, 0, sizeof(s.circulation))
    for c in range(s.colours):
        s.yard_owner[c] = NOBODY
        s.yard_wagons[c] = 0
        s.yard_locos[c] = 0
    s.round += 1
    do_shuffle(ns, _TRAIN_ROUND, s.deck, n, True)
    deal(s, s.rules.round_two_deal)
    turn_face_up(ns)
    note_round_start(ns)
    s.final_turns_left = -1 if s.deck_n else s.players
    s.seat = (s.last_seat + 1) % s.players
    return begin_turn(ns)


cdef int apply_core(NativeState ns, const Act* a) except -1:
    """``GameState.apply_unchecked`` on a C action."""
    cdef CState* s = &ns.s
    cdef int phase = s.phase
    cdef int kind = a.kind
    cdef int* out
    if ns.log != NULL and (phase == PH_TURN or phase == PH_SECOND_PICK):
        # the writer takes a turn's first as its action (a one-card first turn has no other)
        out = logged(ns, EV_ACTION, 4)
        out[0] = kind
        out[1] = a.a
        out[2] = a.b
        out[3] = a.c
    if phase == PH_TURN:
        if ns.turn_record is not None:
            ns.turn_record["action"] = _A.to_dict(
                act_to_action(a, s.offers[s.seat], s.offer_n[s.seat]), ns.game.catalogue.colours
            )
        if kind == K_DRAW_DECK or kind == K_FACE_UP:
            return pick(ns, a, True)
        if kind == K_COLUMN:
            return place_column(ns, a.a, a.b, a.c)
        if kind == K_THREE:
            return place_three(ns, a.a, a.b, a.c)
        if kind == K_DRAW_DESTINATIONS:
            draw_destinations(s)
            return 0
        return end_turn(ns)  # Pass
    if phase == PH_SECOND_PICK:
        if ns.turn_record is not None and "action" not in ns.turn_record:
            # a one-card first turn (the lever first_turn): its pick is the turn's action
            ns.turn_record["action"] = _A.to_dict(
                act_to_action(a, NULL, 0), ns.game.catalogue.colours
            )
        return pick(ns, a, False)
    if phase == PH_KEEP_DRAWN:
        return keep_drawn(ns, a.a)
    if phase == PH_SETUP_KEEP:
        return keep_setup(ns, a.a)
    return 0


cdef bint within_arrays(const CState* s, const Act* a) noexcept nogil:
    """Whether applying ``a`` unchecked keeps every index inside the C arrays (an illegal
    action may still break the rules; the Python engine would raise or misindex too)."""
    cdef int phase = s.phase
    if phase != PH_TURN and phase != PH_SECOND_PICK:
        return True
    if a.kind == K_DRAW_DECK:
        return s.deck_n > 0
    if phase == PH_SECOND_PICK or a.kind == K_FACE_UP:
        return 0 <= a.a < s.rules.face_up and s.face_up[a.a] != NO_CARD
    if a.kind == K_COLUMN:
        return 0 <= a.a < s.colours
    if a.kind == K_THREE:
        return 0 <= a.a < s.colours and 0 <= a.b < s.colours and 0 <= a.c < s.colours
    return True


cdef int act_from_action(object action, const int* offer, int offer_n, Act* out) except -1:
    """The C action for a ``cardgame.actions`` object (a keep: the mask of offered ids)."""
    kind = type(action)
    cdef int i, mask
    if kind is _A.DrawDeck:
        put(out, K_DRAW_DECK, 0, 0, 0)
    elif kind is _A.DrawFaceUp:
        put(out, K_FACE_UP, action.slot, 0, 0)
    elif kind is _A.PlaceColumn:
        put(out, K_COLUMN, action.colour, action.wagons, action.locos)
    elif kind is _A.PlaceThree:
        a, b, c = action.colours
        put(out, K_THREE, a, b, c)
    elif kind is _A.DrawDestinations:
        put(out, K_DRAW_DESTINATIONS, 0, 0, 0)
    elif kind is _A.KeepDestinations:
        ids = action.ids
        mask = 0
        for i in range(offer_n):
            if offer[i] in ids:
                mask |= 1 << i
        put(out, K_KEEP, mask, 0, 0)
    else:
        put(out, K_PASS, 0, 0, 0)
    return 0


cdef void score_c(const CState* s, const CCatalogue* cat, CScore* out) noexcept nogil:
    """``scoring.final_scores`` (R20, R21) into ``out``, one per seat."""
    cdef int counts[MAX_SEATS][MAX_BIG_CITIES]
    cdef int seat, i, d, b, top
    memset(counts, 0, sizeof(counts))
    memset(out, 0, sizeof(CScore) * s.players)
    for seat in range(s.players):
        for i in range(s.reached_n[seat]):
            d = s.reached[seat][i]
            out[seat].destination_points += cat.dest[d].points
            b = cat.dest[d].big_index[0]
            if b >= 0:
                counts[seat][b] += 1
            if cat.dest[d].big_index[1] >= 0 and cat.dest[d].big_index[1] != b:
                counts[seat][cat.dest[d].big_index[1]] += 1  # a destination counts once
        for i in range(s.held_n[seat]):
            out[seat].penalties += cat.dest[s.held[seat][i]].points
        out[seat].reached = s.reached_n[seat]
    for b in range(cat.n_big):
        top = 0
        for seat in range(s.players):
            if counts[seat][b] > top:
                top = counts[seat][b]
        if top < 1:
            continue
        for seat in range(s.players):
            if counts[seat][b] == top:  # ties all score (R21)
                out[seat].big[b] = True
                out[seat].n_big += 1
                out[seat].bonus_points += cat.big_points[b]


cdef int winners_c(const CScore* sc, int players, int* out) noexcept nogil:
    """``scoring.winners`` (R22): best (total, reached, big cities); ties share."""
    cdef int seat, n = 0
    cdef long long key, top = -(1 << 62)
    for seat in range(players):
        key = score_key(&sc[seat])
        if key > top:
            top = key
    for seat in range(players):
        if score_key(&sc[seat]) == top:
            out[n] = seat
            n += 1
    return n


cdef inline long long score_key(const CScore* sc) noexcept nogil:
    cdef long long total = sc.destination_points - sc.penalties + sc.bonus_points
    return (total * 1024 + sc.reached) * 16 + sc.n_big


cdef class NativeState:
    """One game on the native core: ``GameState``'s fields in C and its rules as C functions.

    Make one with ``NativeState.new(game)`` or ``NativeState.from_state(gs)``; ``write_to``
    and ``to_state`` give the Python engine's state back, field for field.
    """

    def __init__(self):
        raise TypeError("use NativeState.new(game) or NativeState.from_state(state)")

    def __dealloc__(self):
        free(self.log)

    cdef int legal(self, Act* out) noexcept:
        cdef CState* s = &self.s
        cdef int seat = s.seat
        return legal_core(
            s.phase, seat, s.hands[seat], s.yard_owner, s.yard_wagons, s.yard_locos,
            s.face_up, s.rules.face_up, s.deck_n, s.dest_n, s.offer_n[seat],
            s.rules.destinations_min_keep, out, s.colours,
        )

    cdef int apply_act(self, const Act* a) except -1:
        return apply_core(self, a)

    # ------------------------------------------------------------------ making one
    @staticmethod
    def new(game, record=False, shuffles=None):
        """A fresh state after setup (R3-R5), as ``game.new_state(record, shuffles)``;
        ``record="log"``: the record kept as C ints, for ``_record.record_line``, instead of
        the dicts (``record`` stays None)."""
        return new_state(game, record, shuffles, NULL, None)

    @staticmethod
    def from_state(gs):
        """A native copy of the Python ``GameState`` ``gs`` (its record dicts shared)."""
        cdef NativeState ns = blank(gs.game)
        cdef CState* s = &ns.s
        cdef int seat, i, k
        use_source(ns, gs._shuffles)
        s.phase = int(gs.phase)
        s.seat = gs.seat
        s.round = gs.round
        s.turn = gs.turn
        s.final_turns_left = -1 if gs.final_turns_left is None else gs.final_turns_left
        s.last_seat = gs.last_seat
        fill(s.deck, &s.deck_n, gs.deck, MAX_TRAIN_CARDS, "deck")
        if len(gs.face_up) != s.rules.face_up:
            raise ValueError(f"face_up holds {len(gs.face_up)} slots, not {s.rules.face_up}")
        for i, card in enumerate(gs.face_up):
            s.face_up[i] = card
        for k in range((s.colours + 1)):
            s.discard[k] = gs.discard[k]
        for seat in range(s.players):
            for k in range((s.colours + 1)):
                s.hands[seat][k] = gs.hands[seat][k]
                s.circulation[seat][k] = gs.circulation[seat][k]
            fill(s.held[seat], &s.held_n[seat], gs.held[seat], MAX_DEST_ID, "held")
            fill(s.reached[seat], &s.reached_n[seat], gs.reached[seat], MAX_DEST_ID, "reached")
            fill(s.offers[seat], &s.offer_n[seat], gs.offers[seat], MAX_OFFER, "offer")
            for i, points in enumerate(gs.round_points[seat]):
                s.round_points[seat][i] = points
            s.steals[seat] = gs.steals[seat]
            s.stolen_from[seat] = gs.stolen_from[seat]
        for c in range(s.colours):
            s.yard_owner[c] = gs.yard_owner[c]
            s.yard_wagons[c] = gs.yard_wagons[c]
            s.yard_locos[c] = gs.yard_locos[c]
        fill(s.dest_deck, &s.dest_n, gs.dest_deck, MAX_DEST_ID, "dest_deck")
        for d, r in gs.reached_round.items():
            s.reached_round[d] = r
        ns.record = gs.record
        ns.turn_record = gs._turn_record
        return ns

    def copy(self):
        """An independent copy to play on (search): the record, if any, deep-copied; a
        Python shuffle source is shared (a recorded one cannot be replayed twice)."""
        return copy_state(self)

    def write_to(self, gs):
        """Write every field into the Python ``GameState`` ``gs`` (fresh lists), so that
        ``gs`` holds exactly what the Python engine would."""
        cdef CState* s = &self.s
        cdef int seat, n = s.players
        gs.deck = int_list(s.deck, s.deck_n)
        gs.face_up = int_list(s.face_up, s.rules.face_up)
        gs.discard = int_list(s.discard, (s.colours + 1))
        gs.hands = [int_list(s.hands[seat], (s.colours + 1)) for seat in range(n)]
        gs.circulation = [int_list(s.circulation[seat], (s.colours + 1)) for seat in range(n)]
        gs.yard_owner = int_list(s.yard_owner, s.colours)
        gs.yard_wagons = int_list(s.yard_wagons, s.colours)
        gs.yard_locos = int_list(s.yard_locos, s.colours)
        gs.dest_deck = int_list(s.dest_deck, s.dest_n)
        gs.held = self.held
        gs.reached = self.reached
        gs.round_points = self.round_points
        gs.offers = self.offers
        gs.phase = _PHASES[s.phase]
        gs.seat = s.seat
        gs.round = s.round
        gs.turn = s.turn
        gs.final_turns_left = None if s.final_turns_left == -1 else s.final_turns_left
        gs.last_seat = s.last_seat
        gs.steals = int_list(s.steals, n)
        gs.stolen_from = int_list(s.stolen_from, n)
        gs.reached_round = self.reached_round
        gs._round_facts = gs._freeze_round_facts()
        gs.scores = self.scores
        gs.winners = self.winners
        gs.record = self.record
        gs._turn_record = self.turn_record
        gs._shuffles = self._shuffles

    def to_state(self):
        """A new Python ``GameState`` equal to this one."""
        gs = _GameState(self.game, self._shuffles, deal=False)
        self.write_to(gs)
        return gs

    # ------------------------------------------------------------------ playing
    def legal_actions(self):
        """Every action the seat to move may take, in the Python engine's order."""
        cdef Act out[MAX_ACTIONS]
        cdef int n = self.legal(out)
        cdef int i
        cdef int seat = self.s.seat
        return [act_to_action(&out[i], self.s.offers[seat], self.s.offer_n[seat])
                for i in range(n)]

    def _legality_fields(self):
        cdef CState* s = &self.s
        cdef int seat = s.seat
        return (
            _PHASES[s.phase],
            seat,
            int_list(s.hands[seat], (s.colours + 1)),
            int_list(s.yard_owner, s.colours),
            int_list(s.yard_wagons, s.colours),
            int_list(s.yard_locos, s.colours),
            int_list(s.face_up, s.rules.face_up),
            s.deck_n,
            s.dest_n,
            int_list(s.offers[seat], s.offer_n[seat]),
            s.rules.destinations_min_keep,
        )

    def is_legal(self, action):
        """Whether ``action`` is legal now for the seat to move; any object may be asked."""
        return _A.problem(action, *self._legality_fields()) is None

    def check(self, action):
        """Raise IllegalActionError as ``GameState.check`` does."""
        problem = _A.problem(action, *self._legality_fields())
        if problem is not None:
            raise _IllegalActionError(self.s.seat, action, *problem)

    def apply(self, action):
        """Apply ``action`` after checking it (raises IllegalActionError if illegal)."""
        self.check(action)
        self.apply_unchecked(action)

    def apply_unchecked(self, action):
        """Apply an action known to be legal."""
        cdef Act a
        cdef int seat = self.s.seat
        act_from_action(action, self.s.offers[seat], self.s.offer_n[seat], &a)
        if not within_arrays(&self.s, &a):
            raise ValueError(
                f"apply_unchecked({action!r}): the action reaches outside the native core's "
                "arrays (an illegal action: apply() names the ruling)"
            )
        apply_core(self, &a)

    def view(self, int seat):
        """What ``seat`` may know now: a ``SeatView`` equal to ``GameState.view(seat)``."""
        cdef CState* s = &self.s
        cdef int i
        cdef int n = s.players
        cdef list f = [None] * SV_FIELDS   # the SeatView's fields, by their layout positions
        game = self.game
        f[SV_SEAT] = seat
        f[SV_TO_MOVE] = s.seat == seat
        f[SV_PLAYERS] = n
        f[SV_PHASE] = _PHASES[s.phase]
        f[SV_ROUND] = s.round
        f[SV_ROUNDS_TOTAL] = s.rules.rounds_total
        f[SV_TURN] = s.turn
        f[SV_HAND] = tuple(int_list(s.hands[seat], (s.colours + 1)))
        f[SV_HELD_IDS] = tuple(int_list(s.held[seat], s.held_n[seat]))
        f[SV_OFFER_IDS] = tuple(int_list(s.offers[seat], s.offer_n[seat]))
        f[SV_REACHED] = tuple([tuple(int_list(s.reached[i], s.reached_n[i])) for i in range(n)])
        f[SV_FACE_UP] = tuple(int_list(s.face_up, s.rules.face_up))
        f[SV_YARD_OWNER] = tuple(int_list(s.yard_owner, s.colours))
        f[SV_YARD_WAGONS] = tuple(int_list(s.yard_wagons, s.colours))
        f[SV_YARD_LOCOS] = tuple(int_list(s.yard_locos, s.colours))
        f[SV_CIRCULATIONS] = tuple([tuple(int_list(s.circulation[i], (s.colours + 1)))
                                    for i in range(n)])
        f[SV_HAND_SIZES] = tuple([sum(int_list(s.hands[i], (s.colours + 1))) for i in range(n)])
        f[SV_HELD_COUNTS] = tuple([s.held_n[i] for i in range(n)])
        f[SV_DISCARD] = tuple(int_list(s.discard, (s.colours + 1)))
        f[SV_DECK_SIZE] = s.deck_n
        f[SV_DESTINATION_DECK_SIZE] = s.dest_n
        f[SV_FINAL_ROUND] = s.final_turns_left != -1 or s.deck_n == 0
        f[SV_ROUND_POINTS] = tuple(map(tuple, self.round_points))
        f[SV_RULES] = game.rules
        f[SV_BIG_CITIES] = game.big_city_set
        f[SV_DESTINATIONS_BY_ID] = game.catalogue.view_table
        f[SV_TRAIN_CARDS] = game.catalogue.deck
        f[SV_BIG_CITY_CARDS] = game.catalogue.big_cities
        return _new_view(_SeatView, f)

    # ------------------------------------------------------------------ fields
    @property
    def players(self):
        return self.s.players

    @property
    def rules(self):
        return self.game.rules

    @property
    def phase(self):
        return _PHASES[self.s.phase]

    @property
    def is_over(self):
        return self.s.phase == PH_OVER

    @property
    def seat(self):
        return self.s.seat

    @property
    def round(self):
        return self.s.round

    @property
    def turn(self):
        return self.s.turn

    @property
    def final_turns_left(self):
        return None if self.s.final_turns_left == -1 else self.s.final_turns_left

    @property
    def last_seat(self):
        return self.s.last_seat

    @property
    def deck(self):
        return int_list(self.s.deck, self.s.deck_n)

    @property
    def face_up(self):
        return int_list(self.s.face_up, self.s.rules.face_up)

    @property
    def discard(self):
        return int_list(self.s.discard, self.s.colours + 1)

    @property
    def hands(self):
        cdef int i
        return [int_list(self.s.hands[i], self.s.colours + 1) for i in range(self.s.players)]

    @property
    def circulation(self):
        cdef int i
        return [int_list(self.s.circulation[i], self.s.colours + 1) for i in range(self.s.players)]

    @property
    def yard_owner(self):
        return int_list(self.s.yard_owner, self.s.colours)

    @property
    def yard_wagons(self):
        return int_list(self.s.yard_wagons, self.s.colours)

    @property
    def yard_locos(self):
        return int_list(self.s.yard_locos, self.s.colours)

    @property
    def dest_deck(self):
        return int_list(self.s.dest_deck, self.s.dest_n)

    @property
    def held(self):
        cdef int i
        return [int_list(self.s.held[i], self.s.held_n[i]) for i in range(self.s.players)]

    @property
    def reached(self):
        cdef int i
        return [int_list(self.s.reached[i], self.s.reached_n[i]) for i in range(self.s.players)]

    @property
    def offers(self):
        cdef int i
        return [int_list(self.s.offers[i], self.s.offer_n[i]) for i in range(self.s.players)]

    @property
    def round_points(self):
        """Points per resolved round: rounds before this one, and this one once it is over."""
        cdef int i
        cdef int done = self.s.round if self.s.phase == PH_OVER else self.s.round - 1
        return [int_list(self.s.round_points[i], done) for i in range(self.s.players)]

    @property
    def steals(self):
        return int_list(self.s.steals, self.s.players)

    @property
    def stolen_from(self):
        return int_list(self.s.stolen_from, self.s.players)

    @property
    def reached_round(self):
        """Destination id -> round reached, in the order the Python engine inserts them."""
        cdef CState* s = &self.s
        cdef int r, seat, i, d
        out = {}
        for r in range(1, s.round + 1):
            for seat in range(s.players):
                for i in range(s.reached_n[seat]):
                    d = s.reached[seat][i]
                    if s.reached_round[d] == r:
                        out[d] = r
        return out

    @property
    def scores(self):
        """The final scores (R20-R22) once the game is over, else (): ``SeatScore``s equal
        to ``scoring.final_scores``, computed in C."""
        cdef CScore sc[MAX_SEATS]
        cdef int seat, b
        if self.s.phase != PH_OVER:
            return ()
        if self.scores_cache is None:
            score_c(&self.s, &self.cat, sc)
            names = self.game.catalogue.big_city_names
            self.scores_cache = tuple([
                _SeatScore(
                    seat=seat,
                    destination_points=sc[seat].destination_points,
                    penalties=sc[seat].penalties,
                    big_cities=tuple([names[b] for b in range(self.cat.n_big)
                                      if sc[seat].big[b]]),
                    bonus_points=sc[seat].bonus_points,
                    reached=sc[seat].reached,
                )
                for seat in range(self.s.players)
            ])
        return self.scores_cache

    @property
    def winners(self):
        """Seats that win (R22), as ``scoring.winners``."""
        cdef CScore sc[MAX_SEATS]
        cdef int out[MAX_SEATS]
        cdef int i, n
        if self.s.phase != PH_OVER:
            return ()
        score_c(&self.s, &self.cat, sc)
        n = winners_c(sc, self.s.players, out)
        return tuple([out[i] for i in range(n)])

    @property
    def _turn_record(self):
        return self.turn_record

    @property
    def _shuffles(self):
        """The shuffle source as the Python engine would hold it now."""
        if not self.seeded_in_c:
            return self.shuffles
        source = self.source
        if source is None:
            source = _SeededShuffles(self.game.seed)
        source._rng.setstate(mt_state(&self.shuffle_rng))
        return source

    def card_total(self):
        """All train cards on the table: the deck's (96 printed) at every step (R1)."""
        cdef CState* s = &self.s
        cdef int total = s.deck_n
        cdef int i, k
        for i in range(s.rules.face_up):
            total += s.face_up[i] != NO_CARD
        for k in range((s.colours + 1)):
            total += s.discard[k]
            for i in range(s.players):
                total += s.hands[i][k] + s.circulation[i][k]
        for k in range(s.colours):
            total += s.yard_wagons[k] + s.yard_locos[k]
        return total


cdef NativeState copy_state(NativeState ns):
    """A copy of ``ns`` that shares nothing mutable with it (but a Python shuffle source)."""
    cdef NativeState out = NativeState.__new__(NativeState)
    memcpy(&out.s, &ns.s, sizeof(CState))
    memcpy(&out.cat, &ns.cat, sizeof(CCatalogue))
    memcpy(&out.shuffle_rng, &ns.shuffle_rng, sizeof(MT))
    memcpy(out.dest_order, ns.dest_order, sizeof(ns.dest_order))
    out.seeded_in_c = ns.seeded_in_c
    out.shuffles = ns.shuffles
    out.game = ns.game
    out.card_names = ns.card_names
    if ns.record is not None:
        out.record, out.turn_record = _deepcopy((ns.record, ns.turn_record))
    if ns.log != NULL:
        out.log = <int*>malloc(ns.log_cap * sizeof(int))
        if out.log == NULL:
            raise MemoryError()
        memcpy(out.log, ns.log, ns.log_n * sizeof(int))
        out.log_n = ns.log_n
        out.log_cap = ns.log_cap
    return out


cdef NativeState blank(object game):
    """An empty state for ``game`` (no cards dealt), its catalogue and rules loaded."""
    cdef NativeState ns = NativeState.__new__(NativeState)
    cdef CState* s = &ns.s
    cdef int i
    ns.game = game
    use_catalogue(ns, game.catalogue)
    ns.card_names = game.catalogue.card_names
    s.colours = ns.cat.colours
    s.players = game.players
    use_rules(&s.rules, game.rules, game.players)
    memcpy(s.train_cards, ns.cat.deck, sizeof(int) * MAX_CARD_KINDS)
    s.round = 1
    s.final_turns_left = -1
    s.last_seat = NOBODY
    s.phase = PH_SETUP_KEEP
    for i in range(s.colours):
        s.yard_owner[i] = NOBODY
    for i in range(MAX_FACE_UP):
        s.face_up[i] = NO_CARD
    return ns


cdef NativeState new_state(object game, object record, object shuffles, MT* other,
                           object other_seed):
    """``NativeState.new``: a fresh state after setup (R3-R5); ``other``, when given, is
    seeded from ``other_seed`` with the game's own generator, the two chains interleaved."""
    cdef NativeState ns = blank(game)
    if shuffles is not None:
        use_source(ns, shuffles)
        if other != NULL:
            mt_seed(other, other_seed)
    else:
        if other != NULL:
            mt_seed_two(&ns.shuffle_rng, game.seed, other, other_seed)
        else:
            mt_seed(&ns.shuffle_rng, game.seed)
        ns.seeded_in_c = True
    if isinstance(record, str) and record == "log":
        ns.log_cap = 4096
        ns.log = <int*>malloc(ns.log_cap * sizeof(int))
        if ns.log == NULL:
            raise MemoryError()
    elif record:
        ns.record = _empty_record()
    setup(ns)
    return ns


cdef void use_source(NativeState ns, object shuffles) except *:
    """Seed in C from a ``SeededShuffles`` (its RNG is written back later), else keep the
    Python source to call."""
    if type(shuffles) is _SeededShuffles:
        mt_load(&ns.shuffle_rng, shuffles._rng)
        ns.seeded_in_c = True
        ns.source = shuffles
    else:
        ns.shuffles = shuffles
        ns.seeded_in_c = False


cdef void fill(int* out, int* n, object values, int capacity, str what) except *:
    if len(values) > capacity:
        raise ValueError(f"{what} holds {len(values)} items, more than {capacity}")
    cdef int i
    for i, v in enumerate(values):
        out[i] = v
    n[0] = len(values)


def play_random(game, record=False, checked=True):
    """``cardgame.randomplay.play_random`` on the native core: the same game, in C.
    (``checked`` is for the same signature: the random player only takes legal actions.)"""
    cdef MT rng
    cdef NativeState ns = new_state(game, record, None, &rng, f"random-player:{game.seed}")
    cdef Act out[MAX_ACTIONS]
    cdef int n
    while ns.s.phase != PH_OVER:
        n = ns.legal(out)
        if n == 0:
            raise ValueError("empty range for randrange()")
        apply_core(ns, &out[mt_randbelow(&rng, n)])
    return ns


def keep_masks(int offer_n, int minimum):
    """The keeps ``legal_core`` lists for an offer of ``offer_n`` with ``minimum``, as masks
    (tests hold them to ``actions.keep_subsets``)."""
    cdef Act out[2 << MAX_OFFER]
    if not 0 <= offer_n <= MAX_OFFER:
        raise ValueError(f"an offer of 0 to {MAX_OFFER} destinations, not {offer_n}")
    return [out[i].a for i in range(keep_subsets_core(offer_n, minimum, out))]


def trimmed_view(fields):
    """A ``CView`` as a dict (Cython's conversion of the struct) with its card arrays cut to
    the game's own kinds (``colours`` + 1) and colours: the arrays hold MAX_CARD_KINDS."""
    n = fields["colours"]
    for key in ("hand", "train_cards"):
        fields[key] = fields[key][: n + 1]
    fields["circulation"] = [row[: n + 1] for row in fields["circulation"]]
    for key in ("yard_owner", "yard_wagons", "yard_locos"):
        fields[key] = fields[key][:n]
    return fields


def c_view(NativeState ns, int seat):
    """The ``CView`` that ``fill_view`` gives native strategies, as a dict (for tests) and
    the legal actions ``legal_from_view`` finds in it."""
    cdef CView v
    cdef Act out[MAX_ACTIONS]
    cdef int i, n
    fill_view(&ns.s, seat, &v)
    n = legal_from_view(&v, out)
    fields = {
        "seat": v.seat,
        "to_move": bool(v.to_move),
        "players": v.players,
        "phase": v.phase,
        "round": v.round,
        "rounds_total": v.rounds_total,
        "turn": v.turn,
        "hand": tuple(int_list(v.hand, v.colours + 1)),
        "held_ids": tuple(int_list(v.held, v.held_n)),
        "offer_ids": tuple(int_list(v.offer, v.offer_n)),
        "face_up": tuple(int_list(v.face_up, v.face_up_n)),
        "yard_owner": tuple(int_list(v.yard_owner, v.colours)),
        "yard_wagons": tuple(int_list(v.yard_wagons, v.colours)),
        "yard_locos": tuple(int_list(v.yard_locos, v.colours)),
        "circulations": tuple([tuple(int_list(v.circulation[i], v.colours + 1))
                               for i in range(v.players)]),
        "hand_sizes": tuple(int_list(v.hand_sizes, v.players)),
        "deck_size": v.deck_size,
        "destination_deck_size": v.dest_deck_size,
        "final_round": bool(v.final_round),
        "min_keep": v.min_keep,
        "train_cards": tuple(int_list(v.train_cards, v.colours + 1)),
    }
    return fields, [act_to_action(&out[i], v.offer, v.offer_n) for i in range(n)]


# ------------------------------------------------------------------ the contract

def compiled_layout():
    """The constants of cardgame/layout.py as this module was compiled with them
    (``_layout.pxi``): tests/test_contract.py holds them equal to the Python module's."""
    return layout_values()


def c_rules(rules, int players):
    """The ``CRules`` the core plays ``rules`` with at a table of ``players``, as a dict:
    tests/test_contract.py checks that every ``Rules`` field reaches it."""
    cdef CRules out
    use_rules(&out, rules, players)
    return out


def act_ruling_of(view, int kind, int a=0, int b=0, int c=0):
    """``act_ruling`` on a Python ``SeatView`` and a C action (``K_*`` kind, fields a-c):
    0 legal, else the ruling's number, -1 malformed (tests hold it to ``actions.problem``)."""
    cdef CView v
    cdef Act act
    view_from_seatview(view, &v)
    put(&act, kind, a, b, c)
    return act_ruling(&v, &act)


ACTION_KINDS = {
    "DrawDeck": K_DRAW_DECK,
    "DrawFaceUp": K_FACE_UP,
    "PlaceColumn": K_COLUMN,
    "PlaceThree": K_THREE,
    "DrawDestinations": K_DRAW_DESTINATIONS,
    "KeepDestinations": K_KEEP,
    "Pass": K_PASS,
}
