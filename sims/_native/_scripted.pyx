# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The built-in strategies' decision rules in C, decision for decision the same as
sims/strategies/*.py with perfect memory.

Every float is computed in the order the Python code computes it (compiled without fused
multiply-add), and every sort is a stable insertion sort on the same keys, so ties fall as
Python's ``sorted`` lets them. The Python classes stay the reference: a change there must be
mirrored here, and tests/sims/test_native_strategies.py compares both at every decision.
"""

from libc.math cimport isfinite
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from cardgame._native._core cimport (
    Act,
    CCatalogue,
    CDest,
    CView,
    MT,
    MAX_ACTIONS,
    MAX_DEST_ID,
    MAX_FACE_UP,
    MAX_OFFER,
    MAX_SEATS,
    MAX_CIRCLES,
    MAX_BIG_CITIES,
    MAX_CARD_KINDS,
    MIN_COLUMN,
    NOBODY,
    MAX_COLOURS,
    NO_CARD,
    SV_BIG_CITY_CARDS,
    SV_TRAIN_CARDS,
    SV_DESTINATIONS_BY_ID,
    PH_TURN,
    PH_SECOND_PICK,
    PH_KEEP_DRAWN,
    K_DRAW_DECK,
    K_FACE_UP,
    K_COLUMN,
    K_THREE,
    K_DRAW_DESTINATIONS,
    K_KEEP,
    K_PASS,
    cards_to_beat,
    mt_seed,
    legal_from_view,
    mt_load,
    mt_state,
    mt_randbelow,
    view_from_seatview,
)

from cardgame import KeepDestinations
from cardgame._native._core import trimmed_view as _trimmed_view
from cardgame import actions as A
from sims.strategies import common as _common

# The heuristics' constants, read from sims/strategies/common.py where each is named once
# (what each means is said there); tests/test_contract.py checks that every one reaches C.
cdef double DRAW_RATE = _common.DRAW_RATE
cdef double DECK_VALUE = _common.DECK_VALUE
cdef double NO_DRAW_VALUE = _common.NO_DRAW_VALUE
cdef double ROW_STEP = _common.ROW_STEP
cdef double LOCO_VALUE = _common.LOCO_VALUE
cdef double WANTED_VALUE = _common.WANTED_VALUE
cdef double DEFICIT_STEP = _common.DEFICIT_STEP
cdef long long DEFICIT_CAP = _common.DEFICIT_CAP
cdef double PAIR_VALUE = _common.PAIR_VALUE
cdef long long LATE_TURNS = _common.LATE_TURNS
cdef long long PLACE_TURNS = _common.PLACE_TURNS
cdef long long LATE_MIN_USEFUL = _common.LATE_MIN_USEFUL
cdef double HOARD_VALUE = _common.HOARD_VALUE
cdef double RUSH_PAIR_VALUE = _common.RUSH_PAIR_VALUE
cdef double CERTAIN = _common.CERTAIN
# the legal actions of the decision at hand (fallback and random play): one buffer for all
# twins, since a decision runs to its end holding the GIL before the next one starts
cdef Act legal_buf[MAX_ACTIONS]

# knob values the C types hold exactly, with no overflow anywhere they are used
MAX_FLOAT_KNOB = 1e12
MAX_INT_KNOB = 2 ** 40

_FLOAT_KNOBS = ("card_share", "future_cards", "steal_bonus", "city_weight")
_INT_KNOBS = (
    "min_useful",
    "extra_cards",
    "min_column",
    "loco_pick_missing",
    "ticket_turns",
    "ticket_margin",
    "ticket_pause",
)
# the families' own knobs
_EXTRA_FLOAT = {F_THIEF: ("hunt_value",), F_RUSHER: ("column_value",)}
_EXTRA_INT = {F_TICKET_HUNTER: ("slack",)}


def c_knob_names(int family):
    """The knobs a twin of ``family`` holds in C (floats, then whole numbers)."""
    if family == F_RANDOM:
        return ()
    return (_FLOAT_KNOBS + _EXTRA_FLOAT.get(family, ()) + _INT_KNOBS
            + _EXTRA_INT.get(family, ()))


def heuristics():
    """The heuristics' constants as the twins hold them (``sims.strategies.common``'s
    values, read when this module loaded): tests/test_contract.py checks each reaches C."""
    return {
        "DRAW_RATE": DRAW_RATE,
        "DECK_VALUE": DECK_VALUE,
        "NO_DRAW_VALUE": NO_DRAW_VALUE,
        "ROW_STEP": ROW_STEP,
        "LOCO_VALUE": LOCO_VALUE,
        "WANTED_VALUE": WANTED_VALUE,
        "DEFICIT_STEP": DEFICIT_STEP,
        "DEFICIT_CAP": DEFICIT_CAP,
        "PAIR_VALUE": PAIR_VALUE,
        "LATE_TURNS": LATE_TURNS,
        "PLACE_TURNS": PLACE_TURNS,
        "LATE_MIN_USEFUL": LATE_MIN_USEFUL,
        "HOARD_VALUE": HOARD_VALUE,
        "RUSH_PAIR_VALUE": RUSH_PAIR_VALUE,
        "CERTAIN": CERTAIN,
    }


# knobs type -> whether a twin holds every knob it has (memory knobs aside: a twin plays
# perfect memory only); a knob C does not hold means no twin (the Python engine plays)
cdef dict _knobs_held = {}


cdef bint knobs_held(object kind, int family) except -1:
    key = (kind, family)
    held = _knobs_held.get(key)
    if held is None:
        import dataclasses

        from sims.strategy import MemoryKnobs

        held = True
        if dataclasses.is_dataclass(kind):
            memory = {f.name for f in dataclasses.fields(MemoryKnobs)}
            python = {f.name for f in dataclasses.fields(kind)} - memory
            held = python <= set(c_knob_names(family))
        _knobs_held[key] = held
    return held


# ------------------------------------------------------------------ the situation
cdef inline long long _min(long long a, long long b) noexcept nogil:
    return a if a < b else b


cdef void situation(Sit* s, const CView* v, const int* need) noexcept nogil:
    """Situation(view, need), ``need`` being colour_need(view.held)."""
    cdef int c, seat = v.seat, holder
    cdef long long future, size, flows, from_locos, total = 0
    cdef const int* circ = v.circulation[seat]
    s.colours = v.colours
    s.seat = seat
    for c in range(v.colours + 1):
        s.hand[c] = v.hand[c]
    if v.final_round:
        future = 0
    else:
        future = <long long>(<double>v.deck_size / (DRAW_RATE * v.players)) + 1
    s.future = future
    for c in range(v.colours):
        s.need[c] = need[c]
    s.locos_coming = circ[v.colours]
    for c in range(v.colours):
        s.supply[c] = circ[c]
        s.rival[c] = 0
        holder = v.yard_owner[c]
        s.owner[c] = holder
        if holder == NOBODY:
            continue
        size = v.yard_wagons[c] + v.yard_locos[c]
        if holder != seat:
            s.rival[c] = <int>size
            continue
        flows = size if size < future else future
        from_locos = v.yard_locos[c] if v.yard_locos[c] < flows else flows
        s.locos_coming += from_locos
        s.supply[c] += <int>(flows - from_locos)
    for c in range(v.colours):
        s.deficit[c] = s.need[c] - s.supply[c] if s.need[c] > s.supply[c] else 0
        total += s.deficit[c]
    s.missing = total - s.locos_coming


cdef double at_most(int held, double share, int count) noexcept nogil:
    """common.at_most: the same operations in the same order, so the same number."""
    cdef double miss, term, ratio, total
    cdef int j
    if count >= held or share <= 0.0:
        return CERTAIN
    if share >= CERTAIN:
        return 0.0
    miss = CERTAIN - share
    term = CERTAIN
    for j in range(held):
        term *= miss
    ratio = share / miss
    total = term
    for j in range(count):
        term = term * (held - j) / (j + 1) * ratio
        total += term
    return total


cdef void colour_weights(const int* deck, double* weights, int colours) noexcept nogil:
    """common.colour_weights: a circle's cost in cards of an average colour."""
    cdef int total = 0, c
    cdef double mean
    for c in range(colours):
        total += deck[c]
    if total == 0:
        for c in range(colours):
            weights[c] = CERTAIN
        return
    mean = <double>total / colours
    for c in range(colours):
        weights[c] = mean / (deck[c] if deck[c] > 0 else 1)


cdef double win_chance(const CView* v, int count, double share) noexcept nogil:
    """common.win_chance."""
    cdef double chance = CERTAIN
    cdef int rival
    if count <= 0:
        return 0.0
    for rival in range(v.players):
        if rival != v.seat:
            chance *= at_most(v.held_counts[rival], share, count)
    return chance


cdef double city_value(const CDest* d, const CView* v, const CCatalogue* cat) noexcept nogil:
    """Scripted.city_value: each big city's bonus times what one more ticket naming it adds
    to the chance of winning it."""
    cdef double total = 0.0, share
    cdef int k, i, big, mine, named
    cdef const CDest* other
    for k in range(2):
        big = d.big_index[k]
        if big < 0:
            continue
        named = 0
        for i in range(1, cat.max_id + 1):
            other = &cat.dest[i]
            if other.id and (other.big_index[0] == big or other.big_index[1] == big):
                named += 1
        share = <double>named / cat.n_dest
        mine = 0
        for i in range(v.held_n):
            other = &cat.dest[v.held[i]]
            if other.big_index[0] == big or other.big_index[1] == big:
                mine += 1
        total += cat.big_points[big] * (win_chance(v, mine + 1, share) - win_chance(v, mine, share))
    return total


cdef inline double dest_value(
    const CDest* d, const CView* v, const CCatalogue* cat, double city_weight
) noexcept nogil:
    """Scripted.destination_value: points + city_weight * the bonus its cities may win."""
    if city_weight == 0.0:
        return d.points
    return d.points + city_weight * city_value(d, v, cat)


cdef inline bint covers(const long long* pile, const long long* need, int colours) noexcept nogil:
    """cardgame.resolution.covers."""
    cdef long long deficit = 0
    cdef int c
    for c in range(colours):
        if need[c] > pile[c]:
            deficit += need[c] - pile[c]
    return deficit <= pile[colours]


cdef inline void set_act(Act* out, int kind, int a, int b, int c) noexcept nogil:
    out.kind = kind
    out.a = a
    out.b = b
    out.c = c


cdef inline void sort3(int* x) noexcept nogil:
    cdef int t
    if x[1] < x[0]:
        t = x[0]; x[0] = x[1]; x[1] = t
    if x[2] < x[1]:
        t = x[1]; x[1] = x[2]; x[2] = t
    if x[1] < x[0]:
        t = x[0]; x[0] = x[1]; x[1] = t


cdef class RngBox:
    """A ``random.Random`` state in C, shared by the twins of strategies sharing it."""


cdef class NativeStrategy:
    """The native twin of one built-in strategy instance: its knobs and memory."""

    def __cinit__(self):
        self.family = F_PLANNER
        self.name = ""
        self.pause_until = 0
        self.has_first_pick = False
        self.first_pick_turn = -1
        self.view_table = None
        self.view_big = None
        self.view_cat = NULL
        self.rng = NULL
        self.rng_box = None
        self.need_key_n = -1  # Scripted._need_key None: no key matches

    def __dealloc__(self):
        free(self.view_cat)

    def __repr__(self):
        return f"NativeStrategy({self.name!r})"

    def fresh(self, seed=None):
        """A new twin with this one's family, knobs and memory, for a game of its own: made
        from a twin of a newly built strategy, it is what ``native_twin`` gives for another
        newly built one (a worker makes each spec's twin once, not its strategy per game).
        A random twin's RNG is seeded here as ``random.Random(seed)`` would be."""
        cdef NativeStrategy twin = NativeStrategy()
        twin.family = self.family
        twin.name = self.name
        twin.card_share = self.card_share
        twin.future_cards = self.future_cards
        twin.steal_bonus = self.steal_bonus
        twin.city_weight = self.city_weight
        twin.hunt_value = self.hunt_value
        twin.column_value = self.column_value
        twin.min_useful = self.min_useful
        twin.extra_cards = self.extra_cards
        twin.min_column = self.min_column
        twin.loco_pick_missing = self.loco_pick_missing
        twin.ticket_turns = self.ticket_turns
        twin.ticket_margin = self.ticket_margin
        twin.ticket_pause = self.ticket_pause
        twin.slack = self.slack
        twin.pause_until = self.pause_until
        twin.need_key_n = self.need_key_n
        memcpy(twin.need_key, self.need_key, sizeof(self.need_key))
        memcpy(twin.need, self.need, sizeof(self.need))
        twin.first_pick = self.first_pick
        twin.has_first_pick = self.has_first_pick
        twin.first_pick_turn = self.first_pick_turn
        if self.family == F_RANDOM:
            if seed is None:
                raise ValueError("a random twin needs the seed of its RNG")
            twin.rng_box = RngBox()
            mt_seed(&twin.rng_box.mt, seed)
            twin.rng = &twin.rng_box.mt
        return twin

    cdef void situation(self, Sit* s, const CView* v, const CCatalogue* cat) noexcept:
        """Scripted.situation: the need vector is recomputed only when the destinations
        held change (keyed on their ids, as in Python)."""
        cdef int i, c
        cdef bint same = self.need_key_n == v.held_n
        if same:
            for i in range(v.held_n):
                if self.need_key[i] != v.held[i]:
                    same = False
                    break
        if not same:
            self.need_key_n = v.held_n
            for c in range(v.colours):
                self.need[c] = 0
            for i in range(v.held_n):
                self.need_key[i] = v.held[i]
                for c in range(v.colours):
                    self.need[c] += cat.dest[v.held[i]].need[c]
        situation(s, v, self.need)

    # ------------------------------------------------------------- destinations
    cdef int keep_setup(self, const CView* v, const CCatalogue* cat, Act* out) except -1:
        cdef int n = v.offer_n, i, j, t, pos, kept_n = 0
        cdef int order[MAX_OFFER]
        cdef double keys[MAX_OFFER]
        cdef double costs[MAX_OFFER]
        cdef double weights[MAX_COLOURS]
        cdef int deck_cards = 0
        cdef double budget
        cdef double cards = 0.0
        cdef int mask = 0
        cdef const CDest* d
        for i in range(v.colours + 1):
            deck_cards += v.train_cards[i]  # R1: the game's deck (96 printed)
        budget = self.card_share * deck_cards / v.players
        colour_weights(v.train_cards, weights, v.colours)
        for i in range(n):
            d = &cat.dest[v.offer[i]]
            costs[i] = 0.0
            for j in range(d.ncolours):
                costs[i] += weights[d.colours[j]]
            keys[i] = (-dest_value(d, v, cat, self.city_weight)) / costs[i]
        # sorted by (key, id): insertion sort, stable
        for i in range(n):
            t = i
            j = i
            while j > 0 and (
                keys[t] < keys[order[j - 1]]
                or (keys[t] == keys[order[j - 1]] and v.offer[t] < v.offer[order[j - 1]])
            ):
                order[j] = order[j - 1]
                j -= 1
            order[j] = t
        for i in range(n):
            pos = order[i]
            if cards + costs[pos] <= budget:
                mask |= 1 << pos
                kept_n += 1
                cards += costs[pos]
        for i in range(n):
            if kept_n >= v.min_keep:
                break
            pos = order[i]
            if not (mask >> pos) & 1:
                mask |= 1 << pos
                kept_n += 1
        set_act(out, K_KEEP, mask, 0, 0)
        return 0

    cdef int keep_drawn(self, const CView* v, const CCatalogue* cat, Act* out) except -1:
        cdef Sit s
        cdef long long pile[MAX_CARD_KINDS]
        cdef long long need[MAX_COLOURS]
        cdef long long trial[MAX_COLOURS]
        cdef int n = v.offer_n, i, j, t, c, pos, mask = 0
        cdef int order[MAX_OFFER]
        cdef double keys[MAX_OFFER]
        cdef const CDest* d
        self.situation(&s, v, cat)
        for c in range(v.colours):
            pile[c] = s.supply[c] + s.hand[c]
            need[c] = s.need[c]
        pile[v.colours] = s.locos_coming + s.hand[v.colours]
        pile[v.colours] += <long long>(self.future_cards * s.future) - self.ticket_margin
        for i in range(n):
            keys[i] = -dest_value(&cat.dest[v.offer[i]], v, cat, self.city_weight)
        for i in range(n):  # sorted by -value, stable
            t = i
            j = i
            while j > 0 and keys[t] < keys[order[j - 1]]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = t
        for i in range(n):
            pos = order[i]
            d = &cat.dest[v.offer[pos]]
            for c in range(v.colours):
                trial[c] = need[c] + d.need[c]
            if covers(pile, trial, v.colours):
                for c in range(v.colours):
                    need[c] = trial[c]
                mask |= 1 << pos
        if not mask:
            self.pause_until = v.turn + self.ticket_pause * v.players
        set_act(out, K_KEEP, mask, 0, 0)
        return 0

    cdef bint wants_destinations(self, const Sit* s, const CView* v) noexcept:
        if self.family == F_TICKET_HUNTER:
            return (
                v.dest_deck_size > 0
                and s.missing <= self.slack
                and s.future >= self.ticket_turns
                and v.turn >= self.pause_until
            )
        return (
            s.missing <= 0
            and v.dest_deck_size > 0
            and s.future >= self.ticket_turns
            and v.turn >= self.pause_until
        )

    # ------------------------------------------------------------- placing
    cdef double placement_value(self, const Sit* s, int colour, long long wagons,
                                long long locos) noexcept:
        cdef long long future = s.future, size, arriving, loco_part, wagon_part, deficit
        cdef long long cover, shortage_left
        if future <= 0:
            return 0.0
        size = wagons + locos
        arriving = size if size < future else future
        loco_part = locos if locos < arriving else arriving
        wagon_part = arriving - loco_part
        deficit = s.deficit[colour]
        cover = wagon_part if wagon_part < deficit else deficit
        shortage_left = s.missing - cover
        if shortage_left > 0:
            cover += loco_part if loco_part < shortage_left else shortage_left
        return <double>cover + self.steal_bonus * s.rival[colour]

    cdef double best_placement(self, const Sit* s, Act* out) noexcept:
        """Scripted.best_placement (Hoarder's veto on threes too); out.kind -1 for None."""
        cdef int locos = s.hand[s.colours], c, k, have, nfree = 0, nranked = 0
        cdef int free[MAX_COLOURS]
        cdef int ranked[3]
        cdef long long min_column = self.min_column if s.future > LATE_TURNS else MIN_COLUMN
        cdef long long missing = s.missing, rival, deficit, need_size, wanted, wagons
        cdef long long short_elsewhere, lo_opt, w, lo, extra, beats
        cdef long long best_size = 0, size
        cdef double best_value = 0.0, value
        cdef int n_options
        out.kind = -1
        for c in range(s.colours):
            have = s.hand[c]
            if not have or s.owner[c] == s.seat:
                continue
            rival = s.rival[c]
            if s.owner[c] == NOBODY:
                free[nfree] = c
                nfree += 1
            deficit = s.deficit[c]
            if not deficit and not rival and (not locos or missing <= 0):
                continue
            beats = cards_to_beat(s.rival[c])  # R12 (a free colour: rival 0)
            need_size = beats if beats > min_column else min_column
            wanted = deficit + self.extra_cards if deficit + self.extra_cards > 1 else 1
            wagons = have if have < wanted else wanted
            short_elsewhere = missing - deficit
            lo_opt = locos if locos < short_elsewhere else short_elsewhere
            n_options = 2 if (locos and short_elsewhere > 0) else 1
            for k in range(n_options):
                lo = 0 if k == 0 else lo_opt
                w = wagons
                if w + lo < need_size:
                    w = have if have < need_size - lo else need_size - lo
                    if w + lo < need_size:
                        extra = need_size - w - lo
                        if lo + extra > locos:
                            continue
                        lo += extra
                value = self.placement_value(s, c, w, lo)
                size = w + lo
                if value > best_value or (value == best_value and size > best_size):
                    best_value = value
                    best_size = size
                    set_act(out, K_COLUMN, c, <int>w, <int>lo)
        if nfree >= 3 and s.future > 0:
            # stable sort on deficit <= 0: the needed colours first, lowest first
            for k in range(nfree):
                if nranked < 3 and s.deficit[free[k]] > 0:
                    ranked[nranked] = free[k]
                    nranked += 1
            value = <double>nranked
            for k in range(nfree):
                if nranked < 3 and not s.deficit[free[k]] > 0:
                    ranked[nranked] = free[k]
                    nranked += 1
            if value > best_value or (value == best_value and 3 > best_size):
                best_value = value
                sort3(ranked)
                set_act(out, K_THREE, ranked[0], ranked[1], ranked[2])
        if self.family == F_HOARDER and out.kind == K_THREE and s.future > LATE_TURNS:
            out.kind = -1
            return 0.0
        return best_value

    cdef double rusher_placement(self, const Sit* s, Act* out) noexcept:
        """Rusher.best_placement: the placement that moves the most cards out of the hand."""
        cdef int locos = s.hand[s.colours], c, k, j, t, have, nfree = 0
        cdef int free[MAX_COLOURS]
        cdef int combo[3]
        cdef long long need_size
        cdef double best = 0.0, value
        out.kind = -1
        for c in range(s.colours):
            have = s.hand[c]
            if not have or s.owner[c] == s.seat:
                continue
            if s.owner[c] == NOBODY:
                free[nfree] = c
                nfree += 1
            need_size = cards_to_beat(s.rival[c])  # R12
            if need_size < MIN_COLUMN:
                need_size = MIN_COLUMN
            if have + locos >= need_size:
                value = <double>(have + locos) + self.column_value
                if value > best:
                    best = value
                    set_act(out, K_COLUMN, c, have, locos)
        if nfree >= 3:
            for k in range(1, nfree):  # sorted by -deficit, stable
                t = free[k]
                j = k
                while j > 0 and -s.deficit[t] < -s.deficit[free[j - 1]]:
                    free[j] = free[j - 1]
                    j -= 1
                free[j] = t
            value = 3 + 3 * self.column_value
            if value > best:
                best = value
                combo[0] = free[0]
                combo[1] = free[1]
                combo[2] = free[2]
                sort3(combo)
                set_act(out, K_THREE, combo[0], combo[1], combo[2])
        return best

    # ------------------------------------------------------------- drawing
    cdef double card_value(self, const Sit* s, int card) noexcept:
        cdef double value
        cdef long long deficit
        if card == s.colours:
            value = LOCO_VALUE if s.missing >= self.loco_pick_missing else 0.0
        else:
            deficit = s.deficit[card]
            if deficit <= 0:
                value = 0.0
            else:
                value = (WANTED_VALUE + _min(deficit, DEFICIT_CAP) * DEFICIT_STEP
                         + (PAIR_VALUE if s.hand[card] == 1 else 0.0))
        if self.family == F_THIEF:
            if card < s.colours and s.rival[card] >= 2:
                if self.hunt_value > value:
                    value = self.hunt_value
        elif self.family == F_HOARDER:
            if card != s.colours and s.hand[card] >= 2:
                value += HOARD_VALUE
        elif self.family == F_RUSHER:
            if card < s.colours and s.hand[card] == 1 and value == 0.0:
                value = RUSH_PAIR_VALUE
        return value

    cdef bint pick(self, const Sit* s, const CView* v, bint first, Act* out) noexcept:
        """Scripted.pick; False for None."""
        cdef int deck_size = v.deck_size, slot, card
        cdef double best_value = DECK_VALUE if deck_size else NO_DRAW_VALUE, value, floor
        cdef bint found = deck_size != 0
        if found:
            set_act(out, K_DRAW_DECK, 0, 0, 0)
        for slot in range(v.face_up_n):
            card = v.face_up[slot]
            if card == NO_CARD or (card == v.colours and not first):
                continue
            value = self.card_value(s, card)
            if not deck_size and value <= best_value:
                floor = best_value + ROW_STEP
                if floor > value:
                    value = floor
            if value > best_value:
                best_value = value
                found = True
                set_act(out, K_FACE_UP, slot, 0, 0)
        return found

    # ------------------------------------------------------------- the turn
    cdef int turn(self, const CView* v, const CCatalogue* cat, Act* out) except -1:
        cdef Sit s
        cdef double value
        cdef long long threshold
        self.situation(&s, v, cat)
        if self.family == F_RUSHER:
            self.rusher_placement(&s, out)
            if out.kind != -1 and s.future > 0:
                return 0
            if self.wants_destinations(&s, v):
                set_act(out, K_DRAW_DESTINATIONS, 0, 0, 0)
                return 0
            if self.pick(&s, v, True, out):
                return 0
            return self.fallback(v, out)
        value = self.best_placement(&s, out)
        if out.kind != -1:
            threshold = self.min_useful if s.future > PLACE_TURNS else LATE_MIN_USEFUL
            if value >= threshold:
                return 0
        if self.wants_destinations(&s, v):
            set_act(out, K_DRAW_DESTINATIONS, 0, 0, 0)
            return 0
        if self.pick(&s, v, True, out):
            self.first_pick = s
            self.has_first_pick = True
            self.first_pick_turn = v.turn
            return 0
        return self.fallback(v, out)

    cdef int second_pick(self, const CView* v, const CCatalogue* cat, Act* out) except -1:
        cdef Sit fresh
        cdef Sit* s
        cdef int c
        if self.has_first_pick and self.first_pick_turn == v.turn:
            s = &self.first_pick
            for c in range(v.colours + 1):  # one card more; circulation is unchanged
                s.hand[c] = v.hand[c]
        else:
            self.situation(&fresh, v, cat)
            s = &fresh
        if self.pick(s, v, False, out):
            return 0
        return self.fallback(v, out)

    cdef int fallback(self, const CView* v, Act* out) except -1:
        """Scripted.fallback: any legal action, placements first."""
        cdef int n = legal_from_view(v, legal_buf), i
        for i in range(n):
            if legal_buf[i].kind == K_COLUMN or legal_buf[i].kind == K_THREE:
                out[0] = legal_buf[i]
                return 0
        for i in range(n):
            if legal_buf[i].kind != K_DRAW_DESTINATIONS:
                out[0] = legal_buf[i]
                return 0
        if n == 0:
            raise IndexError("list index out of range")
        out[0] = legal_buf[0]
        return 0

    cdef int random_choice(self, const CView* v, Act* out) except -1:
        """RandomStrategy: legal[rng.randrange(len(legal))]."""
        cdef int n = legal_from_view(v, legal_buf)
        if n == 0:
            raise ValueError("empty range for randrange()")
        out[0] = legal_buf[mt_randbelow(self.rng, n)]
        return 0

    cdef int decide(self, const CView* v, const CCatalogue* cat, Act* out) except -1:
        """Strategy.decide: dispatch on the decision the game waits for."""
        if self.family == F_RANDOM:
            return self.random_choice(v, out)
        if v.phase == PH_TURN:
            return self.turn(v, cat, out)
        if v.phase == PH_SECOND_PICK:
            return self.second_pick(v, cat, out)
        if v.phase == PH_KEEP_DRAWN:
            return self.keep_drawn(v, cat, out)
        return self.keep_setup(v, cat, out)

    # ------------------------------------------------------------- Python API
    def decide_view(self, view):
        """The action for a Python ``SeatView``, as the interned Python action."""
        cdef CView v
        cdef Act act
        view_from_seatview(view, &v)
        table, big = view[SV_DESTINATIONS_BY_ID], view[SV_BIG_CITY_CARDS]
        if self.view_cat is NULL:
            self.view_cat = <CCatalogue*>malloc(sizeof(CCatalogue))
            if self.view_cat is NULL:
                raise MemoryError()
        if table is not self.view_table or big is not self.view_big:
            self.view_table = None  # a half-filled catalogue is never trusted
            catalogue_from_view(view, self.view_cat)
            self.view_table, self.view_big = table, big
        self.decide(&v, self.view_cat, &act)
        return act_to_action(&act, &v)

    def getstate(self):
        """The random strategy's RNG state (``random.Random.setstate`` form), or None for
        a scripted strategy (which never draws)."""
        if self.rng_box is None:
            return None
        return mt_state(self.rng)

    def knob_values(self):
        """The knobs this twin holds in C, by name (tests/test_contract.py)."""
        values = {
            "card_share": self.card_share,
            "future_cards": self.future_cards,
            "steal_bonus": self.steal_bonus,
            "city_weight": self.city_weight,
            "hunt_value": self.hunt_value,
            "column_value": self.column_value,
            "min_useful": self.min_useful,
            "extra_cards": self.extra_cards,
            "min_column": self.min_column,
            "loco_pick_missing": self.loco_pick_missing,
            "ticket_turns": self.ticket_turns,
            "ticket_margin": self.ticket_margin,
            "ticket_pause": self.ticket_pause,
            "slack": self.slack,
        }
        return {name: values[name] for name in c_knob_names(self.family)}

    @property
    def pause_turn(self):
        """The turn before which no destination draw (Scripted._pause_until)."""
        return self.pause_until


# ------------------------------------------------------------------ conversions
cdef int catalogue_from_view(object view, CCatalogue* cat) except -1:
    """The destinations a view names (``destinations_by_id``), the big cities each names and
    each big city's bonus (``big_city_cards``): all the strategies read of the catalogue."""
    cdef int dest_id, c, k, n = 0
    cdef CDest* d
    table, cards = view[SV_DESTINATIONS_BY_ID], view[SV_BIG_CITY_CARDS]
    if len(table) > MAX_DEST_ID + 1:
        raise ValueError(f"view: {len(table) - 1} destinations, at most {MAX_DEST_ID}")
    if len(cards) > MAX_BIG_CITIES:
        raise ValueError(f"view: {len(cards)} big cities, at most {MAX_BIG_CITIES}")
    cat.colours = len(view[SV_TRAIN_CARDS]) - 1
    if not 1 <= cat.colours <= MAX_COLOURS:
        raise ValueError(f"view: {cat.colours} colours, at most {MAX_COLOURS}")
    names = [big.city for big in cards]
    cat.n_big = len(names)
    for k in range(cat.n_big):
        cat.big_points[k] = cards[k].points
    for dest_id in range(MAX_DEST_ID + 1):
        d = &cat.dest[dest_id]
        d.id = 0
        d.points = 0
        d.ncolours = 0
        d.big_names = 0
        d.big_index[0] = d.big_index[1] = -1
        for c in range(MAX_COLOURS):
            d.need[c] = 0
    for dest_id in range(len(table)):
        dest = table[dest_id]
        if dest is None:
            continue
        if dest.id != dest_id or not 1 <= len(dest.colours) <= MAX_CIRCLES or any(
            not 0 <= colour < cat.colours for colour in dest.colours
        ):
            raise ValueError(f"view: destination {dest.id} at index {dest_id}")
        d = &cat.dest[dest_id]
        d.id = dest_id
        d.points = dest.points
        d.ncolours = len(dest.colours)
        for c in range(d.ncolours):
            d.colours[c] = dest.colours[c]
            d.need[dest.colours[c]] += 1
        for k, city in enumerate((dest.city_a, dest.city_b)):
            if city in names:
                d.big_index[k] = names.index(city)
                d.big_names += 1
        n += 1
    cat.n_dest = n
    cat.max_id = len(table) - 1 if len(table) else 0
    return 0


cdef object act_to_action(const Act* a, const CView* v):
    """The interned Python action of ``a`` (keeps: ids in offer order)."""
    cdef int kind = a.kind, i
    if kind == K_DRAW_DECK:
        return A.DRAW_DECK
    if kind == K_FACE_UP:
        return A.DRAW_FACE_UP[a.a]
    if kind == K_COLUMN:
        return A.COLUMNS[a.a][a.b][a.c]
    if kind == K_THREE:
        return A.THREES[(a.a, a.b, a.c)]
    if kind == K_DRAW_DESTINATIONS:
        return A.DRAW_DESTINATIONS
    if kind == K_KEEP:
        return KeepDestinations(tuple([v.offer[i] for i in range(v.offer_n) if (a.a >> i) & 1]))
    if kind == K_PASS:
        return A.PASS
    raise ValueError(f"no such action kind {kind}")


def cview_dict(view):
    """A SeatView as the CView the native strategies read (for tests and debugging)."""
    cdef CView v
    view_from_seatview(view, &v)
    fields = v
    return _trimmed_view(fields)


# ------------------------------------------------------------------ twins
def _knob(knobs, name, bint is_float):
    """A knob value the C field holds exactly, or None when it does not fit."""
    value = getattr(knobs, name, None)
    if type(value) is bool:
        return None
    if is_float and type(value) in (float, int):
        if type(value) is float and not isfinite(value):
            return None
        return float(value) if -MAX_FLOAT_KNOB <= value <= MAX_FLOAT_KNOB else None
    if not is_float and type(value) is int:
        return value if -MAX_INT_KNOB <= value <= MAX_INT_KNOB else None
    return None


_FAMILIES = None


def _families():
    global _FAMILIES
    if _FAMILIES is None:
        _FAMILIES = _family_classes()
    return _FAMILIES


def _family_classes():
    from sims.strategies.builders import Hoarder, Rusher
    from sims.strategies.planner import Planner, Thief
    from sims.strategies.random_play import RandomStrategy
    from sims.strategies.tickets import BigCity, TicketHunter

    return {
        Planner: F_PLANNER,
        Thief: F_THIEF,
        Hoarder: F_HOARDER,
        Rusher: F_RUSHER,
        TicketHunter: F_TICKET_HUNTER,
        BigCity: F_BIG_CITY,
        RandomStrategy: F_RANDOM,
    }


def native_twin(strategy):
    """A native twin of ``strategy`` (exactly one of the 7 built-in classes, perfect memory,
    knobs the C types hold: finite, within +-1e12 / +-2**40), carrying its state; else None.

    The twin decides what the Python strategy would from here on, given the same views."""
    return _twin(strategy, None)


def native_twins(strategies):
    """Twins of several strategies, or None if one has none. Strategies that share one
    ``random.Random`` (as rollout policies do) get twins sharing one copy of its state, so
    their draws interleave as in Python; ``getstate()`` of any of them gives it back."""
    boxes = {}
    twins = []
    for strategy in strategies:
        twin = _twin(strategy, boxes)
        if twin is None:
            return None
        twins.append(twin)
    return twins


cdef object _twin(object strategy, dict boxes):
    cdef RngBox box
    family = _families().get(type(strategy))
    if family is None:
        return None
    knobs = strategy.knobs
    if getattr(knobs, "memory", None) != "perfect" or getattr(strategy, "memory", None) is not None:
        return None
    if not knobs_held(type(knobs), family):
        return None
    cdef NativeStrategy twin = NativeStrategy()
    twin.family = family
    twin.name = type(strategy).name
    if family == F_RANDOM:
        rng = strategy.rng
        box = None if boxes is None else boxes.get(id(rng), (None, None))[1]
        if box is None:
            box = RngBox()
            mt_load(&box.mt, rng.getstate())
            if boxes is not None:
                boxes[id(rng)] = (rng, box)  # the Random kept: its id stays its own
        twin.rng_box = box
        twin.rng = &box.mt
        return twin
    values = {}
    for names, is_float in (
        (_FLOAT_KNOBS + _EXTRA_FLOAT.get(family, ()), True),
        (_INT_KNOBS + _EXTRA_INT.get(family, ()), False),
    ):
        for name in names:
            value = _knob(knobs, name, is_float)
            if value is None:
                return None
            values[name] = value
    twin.card_share = values["card_share"]
    twin.future_cards = values["future_cards"]
    twin.steal_bonus = values["steal_bonus"]
    twin.city_weight = values["city_weight"]
    twin.hunt_value = values.get("hunt_value", 0.0)
    twin.column_value = values.get("column_value", 0.0)
    twin.min_useful = values["min_useful"]
    twin.extra_cards = values["extra_cards"]
    twin.min_column = values["min_column"]
    twin.loco_pick_missing = values["loco_pick_missing"]
    twin.ticket_turns = values["ticket_turns"]
    twin.ticket_margin = values["ticket_margin"]
    twin.ticket_pause = values["ticket_pause"]
    twin.slack = values.get("slack", 0)
    # the Python strategy's memory, so a twin made mid-game goes on as it would
    pause = getattr(strategy, "_pause_until", 0)
    if type(pause) is not int or not -MAX_INT_KNOB <= pause <= MAX_INT_KNOB:
        return None
    twin.pause_until = pause
    first = getattr(strategy, "_first_pick", None)
    if first is not None:
        _load_situation(&twin.first_pick, first)
        twin.has_first_pick = True
        twin.first_pick_turn = strategy._first_pick_turn
    return twin


cdef int _load_situation(Sit* s, object situation) except -1:
    """A Python Situation as the C one (a twin made between a draw's two picks)."""
    cdef int c
    s.colours = len(situation.hand) - 1
    s.seat = situation.seat
    s.future = situation.future_turns
    s.locos_coming = situation.locos_coming
    s.missing = situation.missing
    for c in range(s.colours):
        s.need[c] = situation.need[c]
        s.supply[c] = situation.supply[c]
        s.rival[c] = situation.rival[c]
        s.owner[c] = situation.owner[c]
        s.deficit[c] = situation.deficit[c]
    for c in range(s.colours + 1):
        s.hand[c] = situation.hand[c]
    return 0
