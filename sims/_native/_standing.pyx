# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""sims/standing.py in C: each seat's standing at a position of a game the core plays, the
very numbers ``sims.standing.standing`` computes from a ``GameState`` (tests/sims/
test_standing.py holds them equal at every position)."""

from cardgame._native._core cimport (
    CCatalogue,
    CDest,
    CState,
    NativeState,
    PH_OVER,
)


cdef bint covered_alone(const int* circulation, const CDest* d, int colours) noexcept:
    """cardgame.resolution.covers for one ticket: the pile (``colours`` colours, then the
    locomotives) covers it on its own (R16)."""
    cdef int colour, deficit = 0
    for colour in range(colours):
        if d.need[colour] > circulation[colour]:
            deficit += d.need[colour] - circulation[colour]
    return deficit <= circulation[colours]


cdef list standing_rows(const CState* s, const CCatalogue* cat):
    """sims.standing.standing: each seat's FEATURES, the same numbers in the same order."""
    cdef int seat, i, colour, covered, uncovered, yard, total = 0, banked, cards, hand
    cdef const CDest* d
    cdef double late, progress
    for i in range(s.colours + 1):
        total += cat.deck[i]
    late = 1.0 - (<double>s.deck_n) / total
    if s.phase == PH_OVER:
        progress = 1.0
    else:
        progress = (s.round - 1 + late) / s.rules.rounds_total
    rows = []
    for seat in range(s.players):
        covered = 0
        uncovered = 0
        for i in range(s.held_n[seat]):
            d = &cat.dest[s.held[seat][i]]
            if covered_alone(s.circulation[seat], d, s.colours):
                covered += d.points
            else:
                uncovered += d.points
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
        rows.append([
            <double>banked, <double>covered, <double>uncovered, covered * late,
            uncovered * late, <double>cards, <double>hand, <double>yard,
            1.0 if seat == s.seat else 0.0, progress,
        ])
    return rows


def standing_of(NativeState state):
    """Each seat's standing now (what ``play_native`` notes at every position)."""
    return standing_rows(&state.s, &state.cat)
