# cython: language_level=3
"""The built-in strategies' decision rules in C: what the native match loop
cimports. ``_scripted.pyx`` mirrors sims/strategies/*.py decision for decision."""

from cardgame._native._core cimport (
    Act,
    CCatalogue,
    CView,
    MAX_CARD_KINDS,
    MAX_COLOURS,
    MAX_DEST_ID,
    MT,
)

# families: one class with a kind switch (each overrides a few hooks of Scripted)
cdef enum:
    F_PLANNER = 0
    F_THIEF = 1
    F_HOARDER = 2
    F_RUSHER = 3
    F_TICKET_HUNTER = 4
    F_BIG_CITY = 5
    F_RANDOM = 6


ctypedef struct Sit:
    # sims.strategies.common.Situation: the seat's position for one decision
    int colours               # the game's colours; hand[colours] holds the locomotives
    int seat
    long long future          # future_turns
    int need[MAX_COLOURS]
    int supply[MAX_COLOURS]
    int rival[MAX_COLOURS]
    int owner[MAX_COLOURS]
    int deficit[MAX_COLOURS]
    long long locos_coming
    long long missing
    int hand[MAX_CARD_KINDS]


cdef class RngBox:
    # one random.Random's state, shared by the twins of strategies sharing that Random
    cdef MT mt


cdef class NativeStrategy:
    cdef readonly int family
    cdef readonly str name
    # knobs (ScriptedKnobs and the families' own)
    cdef double card_share, future_cards, steal_bonus, city_weight, hunt_value, column_value
    cdef long long min_useful, extra_cards, min_column, loco_pick_missing, ticket_turns
    cdef long long ticket_margin, ticket_pause, slack
    # per-seat memory
    cdef long long pause_until
    cdef int need_key[MAX_DEST_ID]    # Scripted._need_key: the held ids the need is for
    cdef int need_key_n               # -1: none yet
    cdef int need[MAX_COLOURS]        # Scripted._need
    cdef Sit first_pick
    cdef bint has_first_pick
    cdef long long first_pick_turn
    cdef MT* rng                      # RandomStrategy's rng: in rng_box, maybe shared
    cdef RngBox rng_box
    # decide_view's catalogue, built from the views' shared destination table (on first use)
    cdef CCatalogue* view_cat
    cdef object view_table
    cdef object view_big

    cdef int decide(self, const CView* v, const CCatalogue* cat, Act* out) except -1
    # the hooks of sims.strategies.common.Scripted, with the families' overrides
    cdef void situation(self, Sit* s, const CView* v, const CCatalogue* cat) noexcept
    cdef int keep_setup(self, const CView* v, const CCatalogue* cat, Act* out) except -1
    cdef int keep_drawn(self, const CView* v, const CCatalogue* cat, Act* out) except -1
    cdef bint wants_destinations(self, const Sit* s, const CView* v) noexcept
    cdef double placement_value(self, const Sit* s, int colour, long long wagons,
                                long long locos) noexcept
    cdef double best_placement(self, const Sit* s, Act* out) noexcept
    cdef double rusher_placement(self, const Sit* s, Act* out) noexcept
    cdef double card_value(self, const Sit* s, int card) noexcept
    cdef bint pick(self, const Sit* s, const CView* v, bint first, Act* out) noexcept
    cdef int turn(self, const CView* v, const CCatalogue* cat, Act* out) except -1
    cdef int second_pick(self, const CView* v, const CCatalogue* cat, Act* out) except -1
    cdef int fallback(self, const CView* v, Act* out) except -1
    cdef int random_choice(self, const CView* v, Act* out) except -1


cdef int catalogue_from_view(object view, CCatalogue* cat) except -1
cdef object act_to_action(const Act* a, const CView* v)
