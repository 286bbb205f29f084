# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The native core (issue 10): the game state and rules of ``cardgame/state.py`` in C.

The Python engine is the reference; everything here gives the same results bit for bit:
the same RNG (CPython's MT19937, loaded from ``random.Random.getstate()``), the same legal
actions in the same order, the same shuffles, records, scores. ``_core.pxd`` is the C-level
interface that native strategies cimport.
"""

from libc.math cimport cos, log, sin, sqrt
from libc.stdint cimport uint32_t
from libc.string cimport memcpy, memset

from cardgame import actions as _A

cdef enum:
    MT_N = 624
    MT_M = 397

cdef uint32_t MATRIX_A = 0x9908b0df
cdef uint32_t UPPER_MASK = 0x80000000
cdef uint32_t LOWER_MASK = 0x7fffffff
cdef uint32_t TEMPER_B = 0x9d2c5680
cdef uint32_t TEMPER_C = 0xefc60000
cdef double TWOPI = 6.283185307179586   # 2.0 * math.pi, as random.TWOPI


# ---------------------------------------------------------------------------- the RNG

cdef void mt_load(MT* mt, object random_state) except *:
    """Load a ``random.Random`` (or its ``getstate()`` tuple) into ``mt``."""
    if hasattr(random_state, "getstate"):
        random_state = random_state.getstate()
    version, internal, gauss_next = random_state
    if version != 3 or len(internal) != MT_N + 1:
        raise ValueError("not a random.Random state (version 3, 625 words)")
    cdef int i
    for i in range(MT_N):
        mt.key[i] = <uint32_t>internal[i]
    mt.pos = internal[MT_N]
    if gauss_next is None:
        mt.has_gauss_next = False
        mt.gauss_next = 0.0
    else:
        mt.has_gauss_next = True
        mt.gauss_next = gauss_next


cdef object mt_state(const MT* mt):
    """The ``random.Random.getstate()`` tuple of ``mt``."""
    cdef int i
    internal = tuple([mt.key[i] for i in range(MT_N)] + [mt.pos])
    return (3, internal, mt.gauss_next if mt.has_gauss_next else None)


cdef uint32_t mt_next(MT* mt) noexcept nogil:
    """genrand_uint32 of CPython's _randommodule.c."""
    cdef uint32_t y
    cdef int kk
    cdef uint32_t* key = mt.key
    if mt.pos >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (key[kk] & UPPER_MASK) | (key[kk + 1] & LOWER_MASK)
            key[kk] = key[kk + MT_M] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (key[kk] & UPPER_MASK) | (key[kk + 1] & LOWER_MASK)
            key[kk] = key[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        y = (key[MT_N - 1] & UPPER_MASK) | (key[0] & LOWER_MASK)
        key[MT_N - 1] = key[MT_M - 1] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        mt.pos = 0
    y = key[mt.pos]
    mt.pos += 1
    y ^= y >> 11
    y ^= (y << 7) & TEMPER_B
    y ^= (y << 15) & TEMPER_C
    y ^= y >> 18
    return y


cdef int mt_randbelow(MT* mt, int n) noexcept nogil:
    """``Random._randbelow(n)``: getrandbits(n.bit_length()) until it falls below n."""
    cdef int k = 0
    cdef uint32_t m = <uint32_t>n
    cdef uint32_t r
    while m:
        k += 1
        m >>= 1
    r = mt_next(mt) >> (32 - k)
    while r >= <uint32_t>n:
        r = mt_next(mt) >> (32 - k)
    return <int>r


cdef void mt_shuffle(MT* mt, int* x, int n) noexcept nogil:
    """``Random.shuffle``: for i in reversed(range(1, n)), swap x[i] with x[randbelow(i+1)]."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = mt_randbelow(mt, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


cdef double mt_random(MT* mt) noexcept nogil:
    """``Random.random()``: 53 bits from two words."""
    cdef uint32_t a = mt_next(mt) >> 5
    cdef uint32_t b = mt_next(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef double mt_gauss(MT* mt, double mu, double sigma) noexcept nogil:
    """``Random.gauss``, with its cached second value (``gauss_next``)."""
    cdef double z, x2pi, g2rad
    if mt.has_gauss_next:
        z = mt.gauss_next
        mt.has_gauss_next = False
    else:
        x2pi = mt_random(mt) * TWOPI
        g2rad = sqrt(-2.0 * log(1.0 - mt_random(mt)))
        z = cos(x2pi) * g2rad
        mt.gauss_next = sin(x2pi) * g2rad
        mt.has_gauss_next = True
    return mu + z * sigma


cdef class NativeRandom:
    """``random.Random``'s sequence from C (tests prove it equal; native players use MT)."""

    cdef MT mt

    def __init__(self, seed_or_random=None):
        import random

        if not hasattr(seed_or_random, "getstate"):
            seed_or_random = random.Random(seed_or_random)
        mt_load(&self.mt, seed_or_random)

    def getstate(self):
        return mt_state(&self.mt)

    def randrange(self, int n):
        if n < 1:
            raise ValueError("empty range for randrange()")
        return mt_randbelow(&self.mt, n)

    def random(self):
        return mt_random(&self.mt)

    def gauss(self, double mu=0.0, double sigma=1.0):
        return mt_gauss(&self.mt, mu, sigma)

    def shuffle(self, list x):
        """Shuffle a list of ints in place, as ``random.Random.shuffle`` does."""
        cdef int n = len(x)
        cdef int i
        cdef int buf[1024]
        if n > 1024:
            raise ValueError("at most 1024 items")
        for i in range(n):
            buf[i] = x[i]
        mt_shuffle(&self.mt, buf, n)
        for i in range(n):
            x[i] = buf[i]


# ---------------------------------------------------------------------------- legality

cdef inline void put(Act* out, int kind, int a, int b, int c) noexcept nogil:
    out.kind = kind
    out.a = a
    out.b = b
    out.c = c


cdef int placements_core(
    int seat, const int* hand, const int* owner, const int* yard_wagons,
    const int* yard_locos, Act* out,
) noexcept nogil:
    """``actions.placements``: columns (R12a) then three-colour plays (R12b)."""
    cdef int locos = hand[LOCO]
    cdef int n = 0
    cdef int free[NUM_COLOURS]
    cdef int n_free = 0
    cdef int c, have, holder, need, w, start, lo, i, j, k
    for c in range(NUM_COLOURS):
        have = hand[c]
        if not have:
            continue
        holder = owner[c]
        if holder == seat:
            continue
        if holder == NOBODY:
            free[n_free] = c
            n_free += 1
            need = 2
        else:
            need = yard_wagons[c] + yard_locos[c] + 1
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


cdef int keep_subsets_core(int offer_n, int minimum, Act* out) noexcept nogil:
    """``actions.keep_subsets`` as offer-position masks: by size, largest first, each size in
    ``itertools.combinations`` order."""
    cdef int n = 0
    cdef int idx[MAX_OFFER]
    cdef int size, i, j, mask
    if minimum < 0:
        minimum = 0
    for size in range(offer_n, minimum - 1, -1):
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


cdef int legal_core(
    int phase, int seat, const int* hand, const int* owner, const int* yard_wagons,
    const int* yard_locos, const int* face_up, int face_up_n, int deck_n, int dest_n,
    int offer_n, int min_keep, Act* out,
) noexcept nogil:
    """``actions.legal_actions`` from the fields legality depends on."""
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
        n += placements_core(seat, hand, owner, yard_wagons, yard_locos, &out[n])
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
            if card != NO_CARD and card != LOCO:
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
        v.face_up_n, v.deck_size, v.dest_deck_size, v.offer_n, v.min_keep, out,
    )


cdef void fill_view(const CState* s, int seat, CView* v) noexcept nogil:
    """``GameState.view(seat)``: what ``seat`` may know (R9)."""
    cdef int i, k, total
    v.seat = seat
    v.to_move = s.seat == seat
    v.players = s.players
    v.phase = s.phase
    v.round = s.round
    v.rounds_total = s.rules.rounds_total
    v.turn = s.turn
    memcpy(v.hand, s.hands[seat], sizeof(int) * CARD_KINDS)
    v.held_n = s.held_n[seat]
    memcpy(v.held, s.held[seat], sizeof(int) * v.held_n)
    v.offer_n = s.offer_n[seat]
    memcpy(v.offer, s.offers[seat], sizeof(int) * v.offer_n)
    v.face_up_n = s.rules.face_up
    memcpy(v.face_up, s.face_up, sizeof(int) * v.face_up_n)
    memcpy(v.yard_owner, s.yard_owner, sizeof(int) * NUM_COLOURS)
    memcpy(v.yard_wagons, s.yard_wagons, sizeof(int) * NUM_COLOURS)
    memcpy(v.yard_locos, s.yard_locos, sizeof(int) * NUM_COLOURS)
    for i in range(s.players):
        memcpy(v.circulation[i], s.circulation[i], sizeof(int) * CARD_KINDS)
        total = 0
        for k in range(CARD_KINDS):
            total += s.hands[i][k]
        v.hand_sizes[i] = total
    v.deck_size = s.deck_n
    v.dest_deck_size = s.dest_n
    v.final_round = s.final_turns_left != -1 or s.deck_n == 0
    v.min_keep = s.rules.destinations_min_keep


cdef void load_catalogue(CCatalogue* cat, object catalogue) except *:
    """The printed destinations and big-city bonuses as C arrays (ids index ``dest``)."""
    memset(cat, 0, sizeof(CCatalogue))
    names = list(catalogue.big_city_names)
    if len(names) > 6:
        raise ValueError("the native core holds at most 6 big cities")
    cat.n_big = len(names)
    cdef int i, k
    cdef CDest* d
    for i, big in enumerate(catalogue.big_cities):
        cat.big_points[i] = big.points
    cat.n_dest = 0
    for dest in catalogue.destinations:
        if not 1 <= dest.id <= MAX_DEST_ID or len(dest.colours) > 5:
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


cdef void view_from_seatview(object view, CView* v) except *:
    """A ``CView`` holding what a ``SeatView`` holds (for tests and Python callers)."""
    cdef int i, k
    memset(v, 0, sizeof(CView))
    v.seat = view.seat
    v.to_move = view.to_move
    v.players = view.players
    v.phase = view.phase
    v.round = view.round
    v.rounds_total = view.rounds_total
    v.turn = view.turn
    for k in range(CARD_KINDS):
        v.hand[k] = view.hand[k]
    v.held_n = len(view.held_ids)
    for i, d in enumerate(view.held_ids):
        v.held[i] = d
    v.offer_n = len(view.offer_ids)
    for i, d in enumerate(view.offer_ids):
        v.offer[i] = d
    v.face_up_n = len(view.face_up)
    for i, card in enumerate(view.face_up):
        v.face_up[i] = card
    for i in range(NUM_COLOURS):
        v.yard_owner[i] = view.yard_owner[i]
        v.yard_wagons[i] = view.yard_wagons[i]
        v.yard_locos[i] = view.yard_locos[i]
    for i, circ in enumerate(view.circulations):
        for k in range(CARD_KINDS):
            v.circulation[i][k] = circ[k]
    for i, size in enumerate(view.hand_sizes):
        v.hand_sizes[i] = size
    v.deck_size = view.deck_size
    v.dest_deck_size = view.destination_deck_size
    v.final_round = view.final_round
    v.min_keep = view.rules.destinations_min_keep


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


cdef class NativeState:
    """One game on the native core (the rules come in the next step)."""

    cdef int legal(self, Act* out) noexcept:
        cdef CState* s = &self.s
        cdef int seat = s.seat
        return legal_core(
            s.phase, seat, s.hands[seat], s.yard_owner, s.yard_wagons, s.yard_locos,
            s.face_up, s.rules.face_up, s.deck_n, s.dest_n, s.offer_n[seat],
            s.rules.destinations_min_keep, out,
        )

    cdef int apply_act(self, const Act* a) except -1:
        raise NotImplementedError("NativeState.apply_act comes with the rules")
