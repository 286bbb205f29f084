# cython: language_level=3
"""The native core's C-level interface: the state, actions, views and RNG that
``_core.pyx`` implements and native strategies (``sims/_native``) cimport.

Layout mirrors ``cardgame/state.py`` field by field; the Python engine stays the reference.
Destination ids index the catalogue arrays directly (ids are 1..MAX_DESTINATIONS, R1).
Card arrays hold MAX_CARD_KINDS counts; a game uses its edition's ``colours`` of them and
the locomotive, kind ``colours`` (CCatalogue, CState and CView carry it).
"""

from libc.stdint cimport uint32_t

# Array bounds (MAX_COLOURS, MAX_CARD_KINDS, MAX_TRAIN_CARDS, MAX_FACE_UP,
# MAX_OFFER, MAX_ROUNDS, MAX_ACTIONS, ...), the phases PH_* (cardgame.actions.Phase) and the
# SeatView field positions SV_*: generated from cardgame/layout.py by the build (setup.py).
include "_layout.pxi"

cdef enum:
    MAX_SEATS = MAX_PLAYERS
    MAX_DEST_ID = MAX_DESTINATIONS     # ids 1..MAX_DESTINATIONS (gaps allowed)


# ---------------------------------------------------------------- rule R12, stated once in C
cdef inline int cards_to_beat(int column) noexcept nogil:
    """R12: the fewest cards that beat a rival's column of ``column`` cards (its locomotives
    count): strictly more. ``cardgame.actions.cards_to_beat``'s twin; the core's legality
    and the native strategies (sims/_native/_scripted.pyx) ask it."""
    return column + 1


# action kinds
cdef enum:
    K_DRAW_DECK = 0
    K_FACE_UP = 1          # a = slot
    K_COLUMN = 2           # a = colour, b = wagons, c = locos
    K_THREE = 3            # a < b < c: the three colours
    K_DRAW_DESTINATIONS = 4
    K_KEEP = 5             # a = bit mask over offer positions kept (bit i: offer[i])
    K_PASS = 6


ctypedef struct Act:
    int kind
    int a
    int b
    int c


ctypedef struct MT:
    # Python's random.Random (MT19937) state, loaded from ``Random.getstate()``.
    uint32_t key[624]
    int pos
    bint lazy              # words pos..623 still await this block's twist (mt_next)
    bint has_gauss_next
    double gauss_next


ctypedef struct CDest:
    int id
    int points
    int ncolours
    int colours[MAX_CIRCLES]
    int need[MAX_COLOURS]
    int big_names          # how many of its two cities are big cities (0-2)
    int big_index[2]       # index into the catalogue's big cities of city_a, city_b, or -1


ctypedef struct CCatalogue:
    CDest dest[MAX_DEST_ID + 1]   # by id; dest[0] unused
    int n_dest
    int max_id                    # the largest id (loops over dest stop there)
    int colours                   # the deck's colours; the locomotive is kind ``colours``
    int n_big
    int big_points[MAX_BIG_CITIES]
    int deck[MAX_CARD_KINDS]          # R1: the train deck, cards of each kind (Catalogue.deck)


ctypedef struct CRules:
    int rounds_total          # for this game's player count
    int starting_hand
    int starting_locomotives
    int face_up
    int destinations_dealt
    int destinations_min_keep
    int destinations_drawn
    int round_two_deal
    bint three_locomotive_wipe
    # levers against a seat edge (off: zeros, and first_turn 0 = "full")
    int seat_extra_cards[MAX_SEATS]
    int seat_extra_locomotives[MAX_SEATS]
    int first_turn            # the index of Rules.first_turn in cardgame.rules.FIRST_TURNS


ctypedef struct CState:
    int colours               # the edition's colours (kinds 0..colours-1); locomotive: colours
    int players
    int phase
    int seat
    int round
    int turn
    int final_turns_left      # -1 for None
    int last_seat
    int deck[MAX_TRAIN_CARDS]     # last element is the top, like the Python list
    int deck_n
    int face_up[MAX_FACE_UP]  # rules.face_up slots, NO_CARD for empty
    int discard[MAX_CARD_KINDS]
    int hands[MAX_SEATS][MAX_CARD_KINDS]
    int circulation[MAX_SEATS][MAX_CARD_KINDS]
    int yard_owner[MAX_COLOURS]
    int yard_wagons[MAX_COLOURS]
    int yard_locos[MAX_COLOURS]
    int dest_deck[MAX_DEST_ID]   # last element is the top
    int dest_n
    int held[MAX_SEATS][MAX_DEST_ID]
    int held_n[MAX_SEATS]
    int reached[MAX_SEATS][MAX_DEST_ID]
    int reached_n[MAX_SEATS]
    int round_points[MAX_SEATS][MAX_ROUNDS]
    int offers[MAX_SEATS][MAX_OFFER]
    int offer_n[MAX_SEATS]
    int steals[MAX_SEATS]
    int stolen_from[MAX_SEATS]
    int reached_round[MAX_DEST_ID + 1]   # by id; 0: not reached
    int train_cards[MAX_CARD_KINDS]          # the game's train deck (R1), what views show
    CRules rules


ctypedef struct CView:
    # What one seat may know (R9), as ``SeatView`` has it; what native strategies read.
    int colours               # the game's colours (kinds 0..colours-1); locomotive: colours
    int seat
    bint to_move
    int players
    int phase
    int round
    int rounds_total
    int turn
    int hand[MAX_CARD_KINDS]
    int held[MAX_DEST_ID]
    int held_n
    int offer[MAX_OFFER]
    int offer_n
    int face_up[MAX_FACE_UP]
    int face_up_n
    int yard_owner[MAX_COLOURS]
    int yard_wagons[MAX_COLOURS]
    int yard_locos[MAX_COLOURS]
    int circulation[MAX_SEATS][MAX_CARD_KINDS]
    int hand_sizes[MAX_SEATS]
    int held_counts[MAX_SEATS]    # destinations each seat holds (R9: the count is public)
    int deck_size
    int dest_deck_size
    bint final_round
    int min_keep
    int train_cards[MAX_CARD_KINDS]   # the game's train deck: cards of each kind (R1)


ctypedef struct CScore:
    # scoring.SeatScore of one seat (R20, R21): its total is points - penalties + bonus
    int destination_points
    int penalties
    int bonus_points
    int reached
    int n_big
    bint big[MAX_BIG_CITIES]      # by the catalogue's big-city order


# ---------------------------------------------------------------- RNG (exactly CPython's)
cdef void mt_load(MT* mt, object random_state) except *   # from random.Random.getstate()
cdef object mt_state(const MT* mt)                        # for random.Random.setstate()
cdef uint32_t mt_next(MT* mt) noexcept nogil              # genrand_uint32
cdef int mt_randbelow(MT* mt, int n) noexcept nogil       # Random._randbelow(n), n >= 1
cdef void mt_shuffle(MT* mt, int* x, int n) noexcept nogil   # Random.shuffle
cdef double mt_random(MT* mt) noexcept nogil              # Random.random()
cdef double mt_gauss(MT* mt, double mu, double sigma) noexcept nogil   # Random.gauss
cdef void mt_seed(MT* mt, object seed) except *     # random.Random(seed), int or str (H2: clock)
cdef void mt_seed_two(MT* a, object seed_a, MT* b, object seed_b) except *   # both at once


# ---------------------------------------------------------------- legality (no GIL needed)
cdef int legal_from_view(const CView* v, Act* out) noexcept nogil   # A.legal_actions order
# actions.problem for a C action: 0 if legal, else the number of the ruling it breaks
# (12 for R12), -1 for a malformed action ("bad action" in Python)
cdef int act_ruling(const CView* v, const Act* a) noexcept nogil
cdef void fill_view(const CState* s, int seat, CView* v) noexcept nogil   # GameState.view
cdef void load_catalogue(CCatalogue* cat, object catalogue) except *
# scoring.final_scores (R20, R21), one CScore per seat; scoring.winners (R22): the seats
# in ``out``, their count returned
cdef void score_c(const CState* s, const CCatalogue* cat, CScore* out) noexcept nogil
cdef int winners_c(const CScore* sc, int players, int* out) noexcept nogil
cdef int view_from_seatview(object view, CView* v) except -1   # lengths checked


cdef class NativeState:
    """One game on the native core; Python-facing methods are defined in _core.pyx."""
    cdef CState s
    cdef CCatalogue cat
    cdef MT shuffle_rng          # used when shuffles are seeded in C
    cdef bint seeded_in_c
    cdef object shuffles         # a Python ShuffleSource when not seeded in C, else None
    cdef readonly object record  # None, or the dict GameState.record would hold
    cdef object turn_record
    cdef readonly object game
    cdef tuple card_names            # the game's card kinds by name (Catalogue.card_names)
    # added by _core.pyx (H1): what the Python glue needs besides the state
    cdef object source               # the SeededShuffles whose RNG seeded shuffle_rng, or None
    cdef object scores_cache         # SeatScore tuple once the game is over, else None
    cdef int dest_order[MAX_DEST_ID]  # the catalogue's order of ids (the setup shuffle's input)
    # record="log": the record's events as ints (EV_* below), no dict; _record.pyx writes
    # them as the record's JSON. NULL otherwise.
    cdef int* log
    cdef Py_ssize_t log_n, log_cap
    cdef int legal(self, Act* out) noexcept       # legal actions of the seat to move
    cdef int apply_act(self, const Act* a) except -1   # unchecked, like apply_unchecked


cdef NativeState copy_state(NativeState ns)   # added (H1): an independent copy, for search


# NativeState.new (``record``: False, True for the dicts, or "log"); ``other``, when not NULL, seeded from ``other_seed`` alongside the deal's
# generator (the two seedings interleaved: a study's clock, the random player)
cdef NativeState new_state(object game, object record, object shuffles, MT* other,
                           object other_seed)


# ---------------------------------------------------------------- a record's log (record="log")
# One event: its tag, then its ints. Cards are card indexes (NO_CARD: an empty slot).
cdef enum:
    EV_SHUFFLE = 1     # kind (SHUFFLE_KINDS' index), n, n cards or ids
    EV_DEALT = 2       # per seat: n, n ids
    EV_KEPT = 3        # n, n ids (a setup keep)
    EV_ROUND = 4       # round, face_up (rules.face_up cards), per seat colours + 1 counts, deck size
    EV_TURN = 5        # turn, seat, round, final_round, n, n cards (step 1)
    EV_ACTION = 6      # kind, a, b, c (the Act)
    EV_PICK = 7        # from (0 deck, 1 face-up), slot, card, refill
    EV_WIPE = 8        # rules.face_up cards
    EV_STEAL = 9       # victim, colour, wagons, locos
    EV_DESTINATIONS = 10   # n, n ids drawn, the kept mask
    EV_TURN_END = 11
    EV_RESOLUTION = 12     # round, per seat: n, n ids reached, m, m ids unreached
