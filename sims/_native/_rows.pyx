# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The result rows of a game the native loop finished, read straight from its C state.

``sims.match`` builds a game's rows from a Python ``GameState`` (``game_row``,
``_seat_rows``, ``_destination_rows``); rebuilding that state from the core costs more than
the game itself. ``finished_rows`` builds the same dicts from the ``CState``: the same keys
in the same order, the same values of the same Python types (int, bool, float, None, str),
so the Parquet files stay byte for byte the same (tests/sims/test_native_rows.py).
"""

from cardgame._native._core cimport (
    CARD_KINDS,
    CCatalogue,
    CScore,
    CState,
    MAX_SEATS,
    NativeState,
    PH_OVER,
    score_c,
    winners_c,
)


# the keys each row adds to ``sims.match._base``, in the order sims/match.py writes them
cdef dict _SEAT_KEYS = dict.fromkeys((
    "seat", "strategy", "score", "destination_points", "penalties", "bonus_points",
    "big_cities", "n_big_cities", "kept", "reached", "unreached", "is_winner", "win_share",
    "rank", "hand_left", "circulation_end", "steals_made", "steals_suffered", "round1_points",
    "round2_points",
))
cdef dict _DESTINATION_KEYS = dict.fromkeys((
    "seat", "destination_id", "offered_turn", "offered_round", "kept", "strategy", "points",
    "cards", "reached", "reached_round", "net_points",
))


cdef object _names_of = None  # the catalogue whose big-city names _names holds (kept alive)
cdef tuple _names = ()


cdef tuple big_city_names(object catalogue):
    """``catalogue.big_city_names`` (a tuple built per call), kept for the last catalogue."""
    global _names_of, _names
    if catalogue is not _names_of:
        _names = tuple(catalogue.big_city_names)
        _names_of = catalogue
    return _names


def finished_rows(NativeState state, dict base, labels, list offers, minutes):
    """The games row, seat rows and destination rows of a game played to its end without
    a failure, and its winners and final totals (what ``quality_row`` reads).

    ``base``: ``sims.match._base(spec)``; ``labels``: each seat's strategy label;
    ``offers``: ``play_native``'s offer tuples ``(seat, destination id, turn, round,
    kept)``; ``minutes``: the table clock's (nan without one). Returns
    ``(game, seats, destinations, winners, totals)``.
    """
    cdef CState* s = &state.s
    cdef CCatalogue* cat = &state.cat
    cdef CScore sc[MAX_SEATS]
    cdef int won[MAX_SEATS]
    cdef long long total[MAX_SEATS]
    cdef bint is_winner[MAX_SEATS]
    cdef int players = s.players, n_won, seat, i, b, k, rank, hand, circulation, steals = 0
    cdef int dest, points, reached_in
    cdef bint kept, reached
    cdef dict game, row, seat_template, dest_template
    cdef list seats, destinations
    cdef tuple offer
    if s.phase != PH_OVER:
        raise ValueError("the game is not over: no result rows yet")
    if len(labels) != players:
        raise ValueError(f"{len(labels)} labels for {players} seats")
    score_c(s, cat, sc)
    n_won = winners_c(sc, players, won)
    for seat in range(players):
        total[seat] = sc[seat].destination_points - sc[seat].penalties + sc[seat].bonus_points
        is_winner[seat] = False
        steals += s.steals[seat]
    for i in range(n_won):
        is_winner[won[i]] = True
    winners = [won[i] for i in range(n_won)]
    totals = [total[seat] for seat in range(players)]
    labels = list(labels)

    game = base.copy()
    game["seats"] = "|".join(labels)
    game["winners"] = "|".join([str(w) for w in winners])
    game["winner_strategies"] = "|".join([labels[w] for w in winners])
    game["n_winners"] = n_won
    game["turns"] = s.turn
    game["rounds"] = s.round
    game["sim_minutes"] = minutes
    game["steals"] = steals
    game["failed"] = False
    game["failure_seat"] = -1
    game["failure_strategy"] = ""
    game["failure_error"] = ""

    # each row a copy of a template holding every key in order: copying a dict of the
    # final size and overwriting its values never resizes it (a third of the cost)
    names = big_city_names(state.game.catalogue)
    share = 1.0 / n_won
    seat_template = base.copy()
    seat_template.update(_SEAT_KEYS)
    dest_template = base.copy()
    dest_template.update(_DESTINATION_KEYS)
    seats = []
    for seat in range(players):
        rank = 1
        for i in range(players):
            rank += total[i] > total[seat]
        hand = circulation = 0
        for k in range(CARD_KINDS):
            hand += s.hands[seat][k]
            circulation += s.circulation[seat][k]
        big = [names[b] for b in range(cat.n_big) if sc[seat].big[b]]
        row = seat_template.copy()
        row["seat"] = seat
        row["strategy"] = labels[seat]
        row["score"] = total[seat]
        row["destination_points"] = sc[seat].destination_points
        row["penalties"] = sc[seat].penalties
        row["bonus_points"] = sc[seat].bonus_points
        row["big_cities"] = "|".join(big)
        row["n_big_cities"] = len(big)
        row["kept"] = s.reached_n[seat] + s.held_n[seat]
        row["reached"] = s.reached_n[seat]
        row["unreached"] = s.held_n[seat]
        row["is_winner"] = is_winner[seat]
        row["win_share"] = share if is_winner[seat] else 0.0
        row["rank"] = rank
        row["hand_left"] = hand
        row["circulation_end"] = circulation
        row["steals_made"] = s.steals[seat]
        row["steals_suffered"] = s.stolen_from[seat]
        # GameState.round_points holds the rounds played: all of them once the game is over
        row["round1_points"] = s.round_points[seat][0] if s.round >= 1 else 0
        row["round2_points"] = s.round_points[seat][1] if s.round >= 2 else None
        seats.append(row)

    destinations = []
    for offer in offers:
        seat, dest, offered_turn, offered_round, kept = offer
        points = cat.dest[dest].points
        # GameState.reached_round names a destination some seat reached, in a round played
        reached = False
        if kept and 1 <= s.reached_round[dest] <= s.round:
            for i in range(s.reached_n[seat]):
                if s.reached[seat][i] == dest:
                    reached = True
                    break
        row = dest_template.copy()
        row["seat"] = seat
        row["destination_id"] = dest
        row["offered_turn"] = offered_turn
        row["offered_round"] = offered_round
        row["kept"] = kept
        row["strategy"] = labels[seat]
        row["points"] = points
        row["cards"] = cat.dest[dest].ncolours
        row["reached"] = reached
        row["reached_round"] = s.reached_round[dest] if reached else None
        row["net_points"] = (points if reached else -points) if kept else 0
        destinations.append(row)
    return game, seats, destinations, winners, totals
