# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""sims/standing.py in C: each seat's standing at a position of a game the core plays, the
very numbers ``sims.standing.standing`` computes from a ``GameState`` (tests/sims/
test_standing.py holds them equal at every position)."""

from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memset

from cardgame._native._core cimport (
    CCatalogue,
    CDest,
    CState,
    MAX_SEATS,
    NativeState,
    PH_OVER,
)


cdef bint covered_alone(const int* circulation, const CDest* d, int colours) noexcept:
    """cardgame.resolution.covers for one ticket: the pile (``colours`` colours, then the
    locomotives) covers it on its own (R16)."""
    cdef int colour, deficit = 0, locos = circulation[colours]
    for colour in range(colours):
        if d.need[colour] > circulation[colour]:
            deficit += d.need[colour] - circulation[colour]
            if deficit > locos:
                return False
    return True


cdef enum:
    FEATURE_COUNT = 10  # sims.standing.FEATURES (tests/sims/test_quality_native.py)


cdef void standing_into(
    const CState* s, const CCatalogue* cat, double* out, SeatCache* cache
) noexcept:
    """sims.standing.standing: each seat's FEATURES, the same numbers in the same order,
    seat after seat into ``out`` (players x FEATURE_COUNT). ``cache`` (one per seat, or
    NULL): each seat's covered and uncovered points, kept while its pile and tickets stay
    the same (they change in few of a game's turns)."""
    cdef SeatCache* kept
    cdef int seat, i, colour, covered, uncovered, yard, total = 0, banked, cards, hand
    cdef const CDest* d
    cdef double late, progress
    cdef double* row
    for i in range(s.colours + 1):
        total += cat.deck[i]
    late = 1.0 - (<double>s.deck_n) / total
    if s.phase == PH_OVER:
        progress = 1.0
    else:
        progress = (s.round - 1 + late) / s.rules.rounds_total
    for seat in range(s.players):
        kept = &cache[seat] if cache != NULL else NULL
        if (
            kept != NULL and kept.valid and kept.held_n == s.held_n[seat]
            and memcmp(kept.circulation, s.circulation[seat], (s.colours + 1) * sizeof(int)) == 0
            and memcmp(kept.held, s.held[seat], s.held_n[seat] * sizeof(int)) == 0
        ):
            covered = kept.covered
            uncovered = kept.uncovered
        else:
            covered = 0
            uncovered = 0
            for i in range(s.held_n[seat]):
                d = &cat.dest[s.held[seat][i]]
                if covered_alone(s.circulation[seat], d, s.colours):
                    covered += d.points
                else:
                    uncovered += d.points
            if kept != NULL:
                kept.valid = True
                memcpy(kept.circulation, s.circulation[seat], (s.colours + 1) * sizeof(int))
                kept.held_n = s.held_n[seat]
                memcpy(kept.held, s.held[seat], s.held_n[seat] * sizeof(int))
                kept.covered = covered
                kept.uncovered = uncovered
        yard = 0
        for colour in range(s.colours):
            if s.yard_owner[colour] == seat:
                yard += s.yard_wagons[colour] + s.yard_locos[colour]
        banked = 0
        for i in range(s.round - (1 if s.phase != PH_OVER else 0)):
            banked += s.round_points[seat][i]
        cards = 0
        for i in range(s.colours + 1):
            cards += s.circulation[seat][i]
        hand = 0
        for i in range(s.colours + 1):
            hand += s.hands[seat][i]
        row = out + seat * FEATURE_COUNT
        row[0] = <double>banked
        row[1] = <double>covered
        row[2] = <double>uncovered
        row[3] = covered * late
        row[4] = uncovered * late
        row[5] = <double>cards
        row[6] = <double>hand
        row[7] = <double>yard
        row[8] = 1.0 if seat == s.seat else 0.0
        row[9] = progress


cdef list standing_rows(const CState* s, const CCatalogue* cat):
    """sims.standing.standing as lists (one per seat)."""
    cdef double out[MAX_SEATS * FEATURE_COUNT]
    cdef int seat, i
    standing_into(s, cat, out, NULL)
    return [
        [out[seat * FEATURE_COUNT + i] for i in range(FEATURE_COUNT)]
        for seat in range(s.players)
    ]


cdef class Standings:
    """Every noted position's standing of a batch's games in one growing C array
    (positions x players x FEATURE_COUNT doubles): what ``play_native`` notes when handed
    one instead of a list, with no Python object per position."""

    def __cinit__(self, int players):
        if not 0 < players <= MAX_SEATS:
            raise ValueError(f"no table of {players} players")
        self.players = players
        self.data = NULL
        self.rows = self.capacity = 0
        self.cache_cat = NULL
        memset(self.cache, 0, sizeof(self.cache))

    def __dealloc__(self):
        free(self.data)

    cdef int note(self, const CState* s, const CCatalogue* cat) except -1:
        """The standing at this position, after the ones noted before."""
        cdef Py_ssize_t width = self.players * FEATURE_COUNT
        cdef double* grown
        if s.players != self.players:
            raise ValueError(f"a {s.players}-player game noted in a {self.players}-player batch")
        if self.rows == self.capacity:
            self.capacity = 2 * self.capacity + 256
            grown = <double*>realloc(self.data, self.capacity * width * sizeof(double))
            if grown == NULL:
                raise MemoryError()
            self.data = grown
        if cat != self.cache_cat:  # other tickets: nothing kept holds
            memset(self.cache, 0, sizeof(self.cache))
            self.cache_cat = cat
        standing_into(s, cat, self.data + self.rows * width, self.cache)
        self.rows += 1
        return 0

    @property
    def positions(self):
        """How many positions are noted."""
        return self.rows

    def truncate(self, Py_ssize_t rows):
        """Forget every position from ``rows`` on (a game that failed has no quality row)."""
        if 0 <= rows < self.rows:
            self.rows = rows

    def features(self):
        """The noted standings as bytes of doubles (positions x players x FEATURE_COUNT)."""
        return (<char*>self.data)[:self.rows * self.players * FEATURE_COUNT * sizeof(double)] \
            if self.rows else b""


FEATURES_NOTED = FEATURE_COUNT


def standing_of(NativeState state):
    """Each seat's standing now (what ``play_native`` notes at every position)."""
    return standing_rows(&state.s, &state.cat)
