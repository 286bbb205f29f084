# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The decision loop of sims/match.py in C, for line-ups of native twins.

``play_native`` plays a ``NativeState`` to the end: the view of the seat to move, its twin's
decision, the offer rows of each keep, the state's step; it stops where ``play_game`` would
fail (over MAX_TURNS turns, or an illegal action) and keeps the table clock of
sims/clock.py (``play_on_clock``) draw for draw, so minutes match to the last bit.
"""

from libc.math cimport exp, NAN
from libc.stdlib cimport free, realloc

from cardgame._native._core cimport (
    Act,
    CState,
    CView,
    MT,
    NativeState,
    MAX_OFFER,
    PH_SETUP_KEEP,
    PH_TURN,
    PH_SECOND_PICK,
    PH_KEEP_DRAWN,
    PH_OVER,
    K_DRAW_DECK,
    K_FACE_UP,
    K_COLUMN,
    K_THREE,
    K_DRAW_DESTINATIONS,
    K_KEEP,
    K_PASS,
    act_ruling,
    fill_view,
    mt_gauss,
    mt_load,
    mt_seed,
    mt_state,
    new_state,
    view_from_seatview,
)
from cardgame._native._core import trimmed_view as _trimmed_view
from sims._native._offers cimport (
    OFFER_DESTINATION,
    OFFER_FIELDS,
    OFFER_KEPT,
    OFFER_ROUND,
    OFFER_SEAT,
    OFFER_TURN,
)
from sims._native._scripted cimport NativeStrategy, act_to_action
from sims._native._standing cimport Standings, standing_rows

# sims.match.MAX_TURNS (tests check they agree)
TURN_LIMIT = 2000
cdef int MAX_TURNS = TURN_LIMIT


cdef inline bint is_legal(const CView* v, const Act* a) noexcept:
    """Whether the twin's act is legal for the seat to move: the core's legality
    (``act_ruling``, ``actions.problem``'s twin), not a copy of it. Only odd knobs make a
    scripted strategy answer an illegal action; the Python engine then names the ruling."""
    return act_ruling(v, a) == 0


cdef double turn_mean(const double* means, const Act* a) noexcept:
    """clock._TURN_FIELDS: the mean think time of a turn's action."""
    if a.kind == K_DRAW_DECK or a.kind == K_FACE_UP:
        return means[0]
    if a.kind == K_COLUMN or a.kind == K_THREE:
        return means[1]
    if a.kind == K_DRAW_DESTINATIONS:
        return means[2]
    return means[3]  # pass


cdef class ClockRng:
    """A game's clock generator, seeded in C with its deal's (``new_timed``)."""

    cdef MT mt


def new_timed(game, clock_seed, record=False):
    """``(NativeState.new(game, record), clock)``: the fresh state and its table clock's
    generator, ``random.Random(clock_seed)`` exactly, the two seeded together in the time of
    one (a seeding is one long chain of dependent multiplies). ``play_native`` takes the
    clock as it takes the seed."""
    cdef ClockRng clock = ClockRng()
    state = new_state(game, record, None, &clock.mt, clock_seed)
    return state, clock


def play_native(NativeState state, twins, clock=None, positions=None, bint offer_rows=True):
    """Play ``state`` to its end with one ``NativeStrategy`` per seat.

    ``clock`` is None (no clock: minutes nan) or ``(times, rng)``: a ``ThinkTimes`` and the
    game's clock ``random.Random`` (left as ``play_on_clock`` leaves it), or instead of the
    Random its seed (an int or str: seeded in C, as ``random.Random(seed)``) or the
    ``ClockRng`` ``new_timed`` seeded (a copy is drawn from: it is left as it was). Returns
    ``(state, offers, minutes, failure)``: the offer rows of every keep decision as
    ``play_game`` collects them, and None or ``(seat, error)`` where ``play_game`` would
    fail (the error text is the Python engine's; minutes are nan then, as there).
    ``positions``: a list that gets each seat's standing (sims/standing.py) after setup and
    after each turn, as ``sims.match.Positions`` notes them on the Python engine; or a
    ``_standing.Standings`` that gets them in C (a batch's games one after another).
    ``offer_rows`` False: the offers packed in bytes instead of dicts, ``OFFER_FIELDS``
    C ints each (seat, destination_id, offered_turn, offered_round, kept): what
    ``_rows.add_finished`` reads, with no Python object per offer.
    """
    cdef CState* s = &state.s
    cdef int players = s.players, seat, phase, i, turn, round_number, before_round
    cdef CView v
    cdef Act act
    cdef NativeStrategy twin
    cdef list seats = list(twins)
    cdef object offers = []  # dicts, or (offer_rows False) the packed bytes
    cdef int* packed = NULL  # offer_rows False: the offers, OFFER_FIELDS ints each
    cdef int* grown
    cdef int* row
    cdef Py_ssize_t packed_n = 0, packed_capacity = 0
    cdef int offered[MAX_OFFER]
    cdef int offered_n, offered_turn, offered_round
    cdef bint timed = clock is not None
    cdef MT clock_rng
    cdef double means[4]
    cdef double setup_keep = 0, draw_second = 0, keep_destinations = 0, resolution = 0
    cdef double sigma = 0, shift = 0, mean = 0, now = 0.0, delay
    if len(seats) != players:
        raise ValueError(f"{len(seats)} twins for {players} seats")
    for i in range(players):
        if not isinstance(seats[i], NativeStrategy):
            raise TypeError(f"seat {i}: {seats[i]!r} is not a NativeStrategy")
    if timed:
        times, rng = clock
        means[0] = times.draw_first
        means[1] = times.place
        means[2] = times.draw_destinations
        means[3] = times.pass_turn
        setup_keep = times.setup_keep
        draw_second = times.draw_second
        keep_destinations = times.keep_destinations
        resolution = times.resolution
        sigma = times.sigma
        shift = -sigma * sigma / 2
        if isinstance(rng, (int, str)):
            mt_seed(&clock_rng, rng)
            rng = None
        elif type(rng) is ClockRng:
            clock_rng = (<ClockRng>rng).mt
            rng = None
        else:
            mt_load(&clock_rng, rng.getstate())
    failure = None
    round_number = s.round
    turn = s.turn
    cdef bint noting = positions is not None
    cdef bint buffered = type(positions) is Standings
    cdef int noted_turn = s.turn
    try:
        while s.phase != PH_OVER:
            seat = s.seat
            phase = s.phase
            if s.turn > MAX_TURNS:
                failure = (seat, f"no end in sight: over {MAX_TURNS} turns")
                break
            fill_view(s, seat, &v)
            twin = <NativeStrategy>seats[seat]
            try:
                twin.decide(&v, &state.cat, &act)
            except Exception as exc:  # what play_game makes of a strategy that raises
                kind = type(exc).__name__
                failure = (seat, f"{kind}: {exc}" if str(exc) else kind)
                break
            if not is_legal(&v, &act):
                error = _illegal(state, act_to_action(&act, &v))
                if error is not None:
                    failure = (seat, error)
                    break
            if phase == PH_SETUP_KEEP or phase == PH_KEEP_DRAWN:
                offered_n = s.offer_n[seat]
                for i in range(offered_n):
                    offered[i] = s.offers[seat][i]
                offered_turn, offered_round = s.turn, s.round
            state.apply_act(&act)
            if noting and (s.turn != noted_turn or s.phase == PH_OVER):
                noted_turn = s.turn
                if buffered:
                    (<Standings>positions).note(s, &state.cat)
                else:
                    positions.append(standing_rows(s, &state.cat))
            if (phase == PH_SETUP_KEEP or phase == PH_KEEP_DRAWN) and not offer_rows:
                if packed_n + offered_n > packed_capacity:
                    packed_capacity = 2 * packed_capacity + 64
                    grown = <int*>realloc(packed, packed_capacity * OFFER_FIELDS * sizeof(int))
                    if grown == NULL:
                        raise MemoryError()
                    packed = grown
                for i in range(offered_n):
                    row = packed + packed_n * OFFER_FIELDS
                    row[OFFER_SEAT] = seat
                    row[OFFER_DESTINATION] = offered[i]
                    row[OFFER_TURN] = offered_turn
                    row[OFFER_ROUND] = offered_round
                    row[OFFER_KEPT] = (act.a >> i) & 1
                    packed_n += 1
            elif phase == PH_SETUP_KEEP or phase == PH_KEEP_DRAWN:
                for i in range(offered_n):
                    offers.append(
                        {
                            "seat": seat,
                            "destination_id": offered[i],
                            "offered_turn": offered_turn,
                            "offered_round": offered_round,
                            "kept": bool((act.a >> i) & 1),
                        }
                    )
            if not timed:
                continue
            # clock.play_on_clock: a turn's decisions add their means; one draw per turn block
            if phase == PH_TURN:
                mean += turn_mean(means, &act)
            elif phase == PH_SECOND_PICK:
                mean += draw_second
            elif phase == PH_KEEP_DRAWN:
                mean += keep_destinations
            else:
                mean += setup_keep
            if s.turn != turn or s.phase == PH_OVER or s.phase == PH_SETUP_KEEP:
                if s.round != round_number or s.phase == PH_OVER:
                    round_number = s.round
                    mean += resolution
                delay = mean * exp(mt_gauss(&clock_rng, shift, sigma)) if mean > 0 else 0.0
                now = now + delay
                mean = 0.0
                turn = s.turn
        if not offer_rows:
            offers = (<char*>packed)[:packed_n * OFFER_FIELDS * sizeof(int)] if packed else b""
    finally:
        free(packed)
    minutes = NAN
    if timed:
        if rng is not None:
            rng.setstate(mt_state(&clock_rng))
        if failure is None:
            minutes = now / 60.0
    return state, offers, minutes, failure


def _illegal(NativeState state, action):
    """The Python engine's words for an illegal action (what play_game reports), or None
    if the engine's checked path finds it legal after all (its word is the rule)."""
    from cardgame import IllegalActionError

    try:
        state.check(action)
    except IllegalActionError as exc:
        return str(exc)
    return None


def native_view_dict(NativeState state, int seat):
    """The CView the native loop gives ``seat`` now (``fill_view``), as a dict: tests hold
    it against ``cview_dict(state.to_state().view(seat))``, what the twins get in Python."""
    cdef CView v
    if not 0 <= seat < state.s.players:
        raise ValueError(f"no seat {seat} at a table of {state.s.players}")
    fill_view(&state.s, seat, &v)
    fields = v
    return _trimmed_view(fields)


# sims.search.rollout.MAX_PLAYOUT_TURNS (tests check they agree)
PLAYOUT_TURN_LIMIT = 2000


def play_out(NativeState state, twins, until_turn=None):
    """``sims.search.rollout.play_out`` on the native core: play ``state`` to its end with
    one twin per seat, or only until turn ``until_turn`` (twins from ``native_twins`` of
    the rollout policies, so random seats share one RNG as the Python policies do)."""
    cdef CState* s = &state.s
    cdef int players = s.players, seat, i
    cdef long long limit = PLAYOUT_TURN_LIMIT
    cdef CView v
    cdef Act act
    cdef list seats = list(twins)
    if len(seats) != players:
        raise ValueError(f"{len(seats)} twins for {players} seats")
    for i in range(players):
        if not isinstance(seats[i], NativeStrategy):
            raise TypeError(f"seat {i}: {seats[i]!r} is not a NativeStrategy")
    if until_turn is not None and until_turn < limit:
        limit = until_turn if until_turn > -1 else -1  # no turn is below 0
    while s.phase != PH_OVER:
        if s.turn > limit:
            return
        seat = s.seat
        fill_view(s, seat, &v)
        (<NativeStrategy>seats[seat]).decide(&v, &state.cat, &act)
        if not is_legal(&v, &act):  # never for the rollout policies: no memory corrupted
            raise ValueError(f"seat {seat}: illegal action {act_to_action(&act, &v)!r}")
        state.apply_act(&act)


def loop_finds_legal(view, action):
    """Whether the native loop's legality test passes ``action`` in ``view`` (a SeatView of
    the seat to move); tests hold it against ``actions.problem``. Keeps name offer ids."""
    from cardgame import actions as A

    cdef CView v
    cdef Act act
    view_from_seatview(view, &v)
    kind = type(action)
    act.a = act.b = act.c = 0
    if kind is A.DrawDeck:
        act.kind = K_DRAW_DECK
    elif kind is A.DrawFaceUp:
        act.kind, act.a = K_FACE_UP, action.slot
    elif kind is A.PlaceColumn:
        act.kind, act.a, act.b, act.c = K_COLUMN, action.colour, action.wagons, action.locos
    elif kind is A.PlaceThree:
        act.kind = K_THREE
        act.a, act.b, act.c = action.colours
    elif kind is A.DrawDestinations:
        act.kind = K_DRAW_DESTINATIONS
    elif kind is A.Pass:
        act.kind = K_PASS
    else:
        offer = list(view.offer_ids)
        act.kind = K_KEEP
        act.a = sum(1 << offer.index(d) for d in action.ids)
    return is_legal(&v, &act)
