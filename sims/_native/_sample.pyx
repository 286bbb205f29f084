# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""``cardgame.knowledge.sample_world`` in C, straight into a ``NativeState``.

An ISMCTS search samples thousands of worlds from one ``Knowledge``: in Python the two
shuffles and the state's build cost several play-outs on the native core. What does not
change from world to world (the public state, the unseen cards and destinations before
their shuffle) is worked out once; each world then draws exactly what ``sample_world``
draws from ``random.Random(seed)``, in the same order, and tests hold the two equal.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy

from cardgame._native._core cimport (
    MT,
    Act,
    CView,
    NativeState,
    MAX_CARD_KINDS,
    MAX_ACTIONS,
    PH_OVER,
    MAX_DEST_ID,
    MAX_OFFER,
    MAX_SEATS,
    MAX_TRAIN_CARDS,
    mt_next,
    mt_seed,
    mt_shuffle,
    mt_state,
    fill_view,
    legal_from_view,
)
from sims._native._scripted cimport NativeStrategy


cdef class SampledRandom:
    """The sampler's ``random.Random`` state after a world's draws: what the play-out's
    random policies go on from (``getstate()``, all that their native twins read)."""

    cdef MT mt

    def getstate(self):
        return mt_state(&self.mt)


cdef class WorldSampler:
    """Worlds ``knowledge``'s seat cannot rule out, as ``sample_world(knowledge, rng,
    own_unknown)`` builds them, one per ``world(seed)`` with ``rng = random.Random(seed)``."""

    cdef NativeState base
    cdef int seat, players, own_unknown
    cdef int pool[MAX_TRAIN_CARDS]
    cdef int pool_n
    cdef int ids[MAX_DEST_ID]
    cdef int ids_n
    cdef int missing[MAX_SEATS]           # unknown hand cards of each rival
    cdef int hands[MAX_SEATS][MAX_CARD_KINDS]  # own hand; rivals' known cards
    cdef int circulation[MAX_SEATS][MAX_CARD_KINDS]
    cdef int held_n[MAX_SEATS]
    cdef int offer_n[MAX_SEATS]
    cdef int own_held[MAX_DEST_ID]
    cdef int own_offer[MAX_OFFER]
    cdef int fixed[MAX_DEST_ID]           # destination deck position -> known id, or 0
    cdef int dest_size

    def __init__(self, knowledge, int own_unknown=0):
        from cardgame.knowledge import unseen_destinations, sample_world, unseen_cards

        import random

        v = knowledge.view
        n = v.players
        self.seat = knowledge.seat
        self.players = n
        self.own_unknown = own_unknown
        # everything but the sampled parts, from one world sampled in Python (and checked)
        self.base = NativeState.from_state(sample_world(knowledge, random.Random(0), own_unknown))
        pool = unseen_cards(knowledge)
        if len(pool) - own_unknown - sum(
            v.hand_sizes[r] - sum(knowledge.known_cards[r]) for r in range(n) if r != self.seat
        ) != v.deck_size:
            raise ValueError("knowledge does not fit the deck's size")
        self.pool_n = len(pool)
        for i, card in enumerate(pool):
            self.pool[i] = card
        ids = unseen_destinations(knowledge)
        self.ids_n = len(ids)
        for i, d in enumerate(ids):
            self.ids[i] = d
        for r in range(n):
            own = r == self.seat
            hand = v.hand if own else knowledge.known_cards[r]
            for c in range(len(v.hand)):
                self.hands[r][c] = hand[c]
                self.circulation[r][c] = v.circulations[r][c]
            self.missing[r] = 0 if own else v.hand_sizes[r] - sum(knowledge.known_cards[r])
            self.held_n[r] = len(v.held_ids) if own else v.held_counts[r]
            self.offer_n[r] = len(v.offer_ids) if own else knowledge.offer_sizes[r]
        for i, d in enumerate(v.held_ids):
            self.own_held[i] = d
        for i, d in enumerate(v.offer_ids):
            self.own_offer[i] = d
        self.dest_size = v.destination_deck_size
        for i in range(self.dest_size):
            self.fixed[i] = 0
        for position, d in knowledge.bottom:
            self.fixed[position] = d

    def world(self, seed):
        """``(state, rng)``: the world of ``random.Random(seed)`` as a new ``NativeState``,
        and that Random's state after sampling as a ``SampledRandom``."""
        cdef SampledRandom rng = SampledRandom.__new__(SampledRandom)
        cdef MT* mt = &rng.mt
        cdef NativeState world = self.base.copy()
        cdef int pool[MAX_TRAIN_CARDS]
        cdef int ids[MAX_DEST_ID]
        cdef int n, m, r, i, c
        cdef uint64_t bits
        mt_seed(mt, seed)
        memcpy(pool, self.pool, self.pool_n * sizeof(int))
        n = self.pool_n
        mt_shuffle(mt, pool, n)
        memcpy(world.s.circulation, self.circulation, sizeof(self.circulation))
        memcpy(world.s.hands, self.hands, sizeof(self.hands))
        for i in range(self.own_unknown):
            n -= 1
            world.s.circulation[self.seat][pool[n]] += 1
        for r in range(self.players):
            for i in range(self.missing[r]):
                n -= 1
                world.s.hands[r][pool[n]] += 1
        memcpy(world.s.deck, pool, n * sizeof(int))
        world.s.deck_n = n
        memcpy(ids, self.ids, self.ids_n * sizeof(int))
        m = self.ids_n
        mt_shuffle(mt, ids, m)
        for r in range(self.players):
            world.s.held_n[r] = self.held_n[r]
            world.s.offer_n[r] = self.offer_n[r]
            if r == self.seat:
                memcpy(world.s.held[r], self.own_held, self.held_n[r] * sizeof(int))
                memcpy(world.s.offers[r], self.own_offer, self.offer_n[r] * sizeof(int))
                continue
            for i in range(self.held_n[r]):
                m -= 1
                world.s.held[r][i] = ids[m]
            for i in range(self.offer_n[r]):
                m -= 1
                world.s.offers[r][i] = ids[m]
        for i in range(self.dest_size):
            if self.fixed[i]:
                world.s.dest_deck[i] = self.fixed[i]
            else:
                m -= 1
                world.s.dest_deck[i] = ids[m]
        world.s.dest_n = self.dest_size
        # the world's own shuffles: SeededShuffles(rng.getrandbits(64))
        bits = mt_next(mt)
        bits |= (<uint64_t>mt_next(mt)) << 32
        use_seed(world, bits)
        return world, rng


cdef void use_seed(NativeState world, uint64_t seed) except *:
    """Shuffles seeded in C as ``SeededShuffles(seed)`` seeds them."""
    mt_seed(&world.shuffle_rng, seed)


def load_rng(twins, SampledRandom rng):
    """Give the random-policy twins among ``twins`` (from ``native_twins``, sharing one RNG
    state) ``rng``'s state: a play-out's random seats go on from the world's draws. Cheaper
    than new twins from a ``random.Random`` (no 625-word state through Python)."""
    cdef NativeStrategy twin
    for item in twins:
        twin = <NativeStrategy?>item
        if twin.rng_box is not None:
            memcpy(&twin.rng_box.mt, &rng.mt, sizeof(MT))


def legal_count(NativeState state):
    """``len(state.legal_actions())`` without building the actions (0 once over)."""
    cdef CView v
    cdef Act buf[MAX_ACTIONS]
    if state.s.phase == PH_OVER:
        return 0
    fill_view(&state.s, state.s.seat, &v)
    return legal_from_view(&v, buf)


def move(NativeState state, twins):
    """The seat to move makes its twin's move (``state`` not over): a rival's move in the
    search tree, decided on the state's own view and catalogue in C, as the play-out's."""
    cdef CView v
    cdef Act act
    cdef int seat = state.s.seat
    cdef NativeStrategy twin = <NativeStrategy?>twins[seat]
    fill_view(&state.s, seat, &v)
    twin.decide(&v, &state.cat, &act)
    state.apply_act(&act)
