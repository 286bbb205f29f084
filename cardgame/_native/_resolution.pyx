# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Exact R16 resolution in C: a line-by-line port of ``cardgame/resolution.py``.

The same items in the same order, the same two searches (cheap, then deep), the same float
arithmetic in the same order (including how CPython's ``sum()`` adds floats), so it returns
the same set *and* visits the same number of nodes as the Python engine. The Python module
stays the reference; read it for the why of each step.

Fixed-size C arrays hold the problem: at most ``MAXN`` feasible destinations, up to
MAX_COLOURS colours (a problem's own: ``ncol``, its locomotives the last count) and card
counts up to ``MAXCOUNT`` (memo states are packed 6 bits a count into 64 bits, the colours
past the eighth into a second word). ``resolve_counted`` returns None
for anything outside that (or not plain ints), and the caller falls back to Python.
Not re-entrant: the scratch is module-global C state, used under the GIL.
"""

import sys

from libc.math cimport fabs, isfinite, INFINITY
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free


# MAX_COLOURS, MAX_CARD_KINDS: generated from cardgame/layout.py by the build (setup.py)
include "_layout.pxi"

cdef enum:
    NCOL = MAX_COLOURS  # the arrays' colours; a problem's own are ``ncol``
    KINDS = MAX_CARD_KINDS
    PACKED_COLOURS = 8  # colours packed with the item and locomotives in a memo key's low word
    MAXN = 62
    MAXCOUNT = 63
    COUNT_WEIGHT = 128
    POINTS_WEIGHT = 8192
    MAXPOINTS = 1000000
    PRICE_STEPS_PER_ITEM = 2
    HEURISTIC_EVERY = 10
    STALL_STEPS = 5
    CHEAP_NODES = 150

cdef double SLACK = 0.5
# CPython 3.12 made sum() of floats compensated (Neumaier); bounds must add up the same
cdef bint NEUMAIER = sys.version_info >= (3, 12)

# the problem, items in the engine's order; its colours 0..ncol-1, its locomotives ncol
cdef int ncol = 0
cdef int n_items
cdef long long have[KINDS]
cdef long long needs[MAXN][NCOL]
cdef long long values[MAXN]
cdef long long sizes[MAXN]
cdef long long item_ids[MAXN]
cdef uint64_t lexbit[MAXN]

# the incumbent (the engine's _Best) and the work count
cdef long long best_value
cdef uint64_t best_key
cdef bint best_greedy
cdef long long nodes


cdef inline double pysum(const double* x, int n) noexcept:
    """``sum(x)`` over floats exactly as this CPython computes it (start: the int 0)."""
    cdef double total, t, v
    cdef double comp = 0.0
    cdef int i
    if n == 0:
        return 0.0
    total = 0.0 + x[0]
    if not NEUMAIER:
        for i in range(1, n):
            total += x[i]
        return total
    for i in range(1, n):
        v = x[i]
        t = total + v
        if fabs(total) >= fabs(v):
            comp += (total - t) + v
        else:
            comp += (v - t) + total
        total = t
    if comp != 0.0 and isfinite(comp):
        total += comp
    return total


cdef inline bint take(const long long* rem, const long long* need, long long* out) noexcept:
    """out = cards left after covering need (own colours first); False if short."""
    cdef long long locos = rem[ncol]
    cdef long long n
    cdef int c
    for c in range(ncol):
        n = need[c]
        if n == 0:
            out[c] = rem[c]
        elif rem[c] >= n:
            out[c] = rem[c] - n
        else:
            locos -= n - rem[c]
            out[c] = 0
    out[ncol] = locos
    return locos >= 0


cdef inline void offer(long long value, uint64_t key) noexcept:
    global best_value, best_key, best_greedy
    if value > best_value or (value == best_value and not best_greedy and key > best_key):
        best_value = value
        best_key = key
        best_greedy = False


# ---------------------------------------------------------------------------------------
# the memo: open addressing over packed states, cleared by bumping a stamp

ctypedef struct Slot:
    uint64_t state
    uint64_t state_hi  # the colours past PACKED_COLOURS (0 for the printed eight)
    uint32_t stamp
    long long value
    uint64_t key

cdef Slot* table = NULL
cdef uint64_t table_mask = 0
cdef uint64_t table_used = 0
cdef uint32_t table_stamp = 1


cdef inline uint64_t pack(long long i, const long long* clipped, long long locos) noexcept:
    """A memo state's low word: the item, the first PACKED_COLOURS colours' counts and the
    locomotives, 6 bits each (``pack_hi`` holds the other colours')."""
    cdef uint64_t state = <uint64_t>i
    cdef int c
    for c in range(ncol if ncol < PACKED_COLOURS else PACKED_COLOURS):
        state = (state << 6) | <uint64_t>clipped[c]
    return (state << 6) | <uint64_t>locos


cdef inline uint64_t pack_hi(const long long* clipped) noexcept:
    """A memo state's high word: the counts of the colours past PACKED_COLOURS (up to
    MAX_COLOURS - PACKED_COLOURS of 6 bits); 0 for a game of at most eight colours."""
    cdef uint64_t state = 0
    cdef int c
    for c in range(PACKED_COLOURS, ncol):
        state = (state << 6) | <uint64_t>clipped[c]
    return state


cdef void memo_clear() noexcept:
    global table_stamp, table_used
    cdef uint64_t i
    table_used = 0
    table_stamp += 1
    if table_stamp == 0:  # wrapped: forget every old stamp
        for i in range(table_mask + 1):
            table[i].stamp = 0
        table_stamp = 1


cdef inline Slot* memo_find(uint64_t state, uint64_t state_hi) noexcept:
    """The slot holding the state, or the free slot where it would go."""
    cdef uint64_t h = (state ^ state_hi * <uint64_t>0xC2B2AE3D27D4EB4F) * <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t i = (h ^ (h >> 29)) & table_mask
    while table[i].stamp == table_stamp and (
        table[i].state != state or table[i].state_hi != state_hi
    ):
        i = (i + 1) & table_mask
    return &table[i]


cdef bint memo_grow() noexcept:
    """Double the table (keeps the live entries); False if memory ran out."""
    global table, table_mask
    cdef uint64_t old_size = table_mask + 1
    cdef Slot* old = table
    cdef Slot* fresh = <Slot*>calloc(old_size * 2, sizeof(Slot))
    cdef uint64_t i
    cdef Slot* slot
    if fresh == NULL:
        return False
    table = fresh
    table_mask = old_size * 2 - 1
    for i in range(old_size):
        if old[i].stamp == table_stamp:
            slot = memo_find(old[i].state, old[i].state_hi)
            slot[0] = old[i]
    free(old)
    return True


cdef inline Slot* memo_new(uint64_t state, uint64_t state_hi) noexcept:
    """A free slot for the state (not yet stored), or NULL: then it is not memoised."""
    global table_used
    if 2 * (table_used + 1) > table_mask + 1 and not memo_grow():
        return NULL
    cdef Slot* slot = memo_find(state, state_hi)
    slot.state = state
    slot.state_hi = state_hi
    slot.stamp = table_stamp
    table_used += 1
    return slot


# ---------------------------------------------------------------------------------------
# the cheap search: branch and bound in the lexicographic order, within a budget

cdef long long suffix_need[MAXN + 1][NCOL]
cdef int chosen[MAXN]
cdef int chosen_len
cdef int best_set[MAXN]
cdef int best_len
cdef long long budget
cdef bint over


cdef long long size_before[MAXN + 1]   # sizes of the items before j, summed
cdef long long value_before[MAXN + 1]  # and their values


cdef inline double cheap_bound(int i, long long capacity) noexcept:
    """Fractional knapsack on the useful cards (``capacity`` of them): the items from ``i``
    on while they fit whole, then a share of the next. The whole ones are summed as integers:
    the engine adds them as floats one by one, exactly, as every partial sum is a whole
    number below 2**53."""
    cdef long long left
    cdef int j = i
    while j < n_items and size_before[j + 1] - size_before[i] <= capacity:
        j += 1
    left = capacity - (size_before[j] - size_before[i])
    if j == n_items or left <= 0:
        return <double>(value_before[j] - value_before[i])
    return <double>(value_before[j] - value_before[i]) + (
        <double>(values[j] * left) / <double>sizes[j]
    )


cdef void cheap(int i, const long long* rem, long long current) noexcept:
    global nodes, over, best_value, best_len, best_greedy, chosen_len
    cdef long long clipped[NCOL]
    cdef long long after[KINDS]
    cdef long long locos, capacity
    cdef int c
    cdef Slot* slot
    cdef uint64_t state, state_hi
    nodes += 1
    if nodes > budget:
        over = True
        return
    if current > best_value:
        best_value = current
        for c in range(chosen_len):
            best_set[c] = chosen[c]
        best_len = chosen_len
        best_greedy = False
    if i == n_items:
        return
    locos = rem[ncol]
    capacity = locos  # summed as clipped is written: a reload from memory would stall
    for c in range(ncol):
        clipped[c] = rem[c] if rem[c] < suffix_need[i][c] else suffix_need[i][c]
        capacity += clipped[c]
    if <double>current + cheap_bound(i, capacity) <= <double>best_value:
        return
    state = pack(i, clipped, locos)
    state_hi = pack_hi(clipped)
    slot = memo_find(state, state_hi)
    if slot.stamp == table_stamp:
        if slot.value >= current:
            return
        slot.value = current
    else:
        slot = memo_new(state, state_hi)
        if slot != NULL:
            slot.value = current
    if take(rem, needs[i], after):
        chosen[chosen_len] = i
        chosen_len += 1
        cheap(i + 1, after, current + values[i])
        chosen_len -= 1
        if over:
            return
    cheap(i + 1, rem, current)


cdef void cheap_search(long long cheap_budget) noexcept:
    """Runs from the greedy incumbent; ``over`` says it gave up."""
    global budget, over, chosen_len
    cdef int i, c
    for c in range(ncol):
        suffix_need[n_items][c] = 0
    for i in range(n_items - 1, -1, -1):
        for c in range(ncol):
            suffix_need[i][c] = suffix_need[i + 1][c] + needs[i][c]
    size_before[0] = 0
    value_before[0] = 0
    for i in range(n_items):
        size_before[i + 1] = size_before[i] + sizes[i]
        value_before[i + 1] = value_before[i] + values[i]
    budget = cheap_budget
    over = False
    chosen_len = 0
    memo_clear()
    cheap(0, have, 0)


# ---------------------------------------------------------------------------------------
# the deep search: Held-Karp prices, then branch and bound by |reduced cost|

cdef double prices[NCOL]
cdef double top
cdef double red[MAXN]
cdef int order[MAXN]
cdef long long o_needs[MAXN][NCOL]
cdef long long o_values[MAXN]
cdef uint64_t o_bits[MAXN]
cdef bint o_take_first[MAXN]
cdef double gain[MAXN + 1]
cdef long long usable[MAXN + 1][NCOL]
cdef long long usable_total[MAXN + 1]
cdef uint64_t open_bits[MAXN + 1]


cdef void round_heuristic(const double* reduced) noexcept:
    """Greedy pass by reduced cost per card; the set found is offered to the incumbent."""
    cdef int by_ratio[MAXN]
    cdef double ratio[MAXN]
    cdef long long rem[KINDS]
    cdef long long after[KINDS]
    cdef long long value = 0
    cdef uint64_t key = 0
    cdef int i, j, k, t, c
    for j in range(n_items):
        ratio[j] = -reduced[j] / <double>sizes[j]
    for i in range(n_items):  # insertion sort: stable, ties by index
        t = i
        k = i - 1
        while k >= 0 and ratio[t] < ratio[by_ratio[k]]:
            by_ratio[k + 1] = by_ratio[k]
            k -= 1
        by_ratio[k + 1] = t
    for c in range(ncol + 1):
        rem[c] = have[c]
    for i in range(n_items):
        j = by_ratio[i]
        if take(rem, needs[j], after):
            for c in range(ncol + 1):
                rem[c] = after[c]
            value += values[j]
            key |= lexbit[j]
    offer(value, key)


cdef int need_n[MAXN]               # each item's colours needed, for the price loop
cdef int need_colour[MAXN][NCOL]


cdef void tune_prices(double* best_prices) noexcept:
    """Held-Karp subgradient descent on the Lagrangian dual of the per-colour limits."""
    cdef double ratios[MAXN]
    cdef double reduced[MAXN]
    cdef double prod[NCOL]
    cdef long long used[NCOL]
    cdef long long gradient[NCOL]
    cdef double start, r, bound, move, x, top_price
    cdef double best_bound = INFINITY
    cdef double step_scale = 2.0
    cdef long long norm
    cdef int stall = 0
    cdef int step, i, j, k, c, star
    for j in range(n_items):  # insertion sort of the value per card
        r = <double>values[j] / <double>sizes[j]
        k = j - 1
        while k >= 0 and ratios[k] > r:
            ratios[k + 1] = ratios[k]
            k -= 1
        ratios[k + 1] = r
    start = ratios[n_items // 2]
    for j in range(n_items):
        need_n[j] = 0
        for c in range(ncol):
            if needs[j][c]:
                need_colour[j][need_n[j]] = c
                need_n[j] += 1
    for c in range(ncol):
        prices[c] = start
        best_prices[c] = start
    for step in range(PRICE_STEPS_PER_ITEM * n_items):
        top_price = prices[0]
        star = 0
        for c in range(1, ncol):
            if prices[c] > top_price:
                top_price = prices[c]
                star = c
        for c in range(ncol):
            prod[c] = prices[c] * <double>have[c]
            used[c] = 0
        bound = pysum(prod, ncol) + top_price * <double>have[ncol]
        for j in range(n_items):
            r = <double>values[j]
            for k in range(need_n[j]):  # the colours it needs, in order
                c = need_colour[j][k]
                r -= prices[c] * <double>needs[j][c]
            reduced[j] = r
            if r > 0:
                bound += r
                for k in range(need_n[j]):
                    c = need_colour[j][k]
                    used[c] += needs[j][c]
        if bound < best_bound:
            best_bound = bound
            for c in range(ncol):
                best_prices[c] = prices[c]
            stall = 0
        else:
            stall += 1
            if stall >= STALL_STEPS:
                step_scale /= 2
                stall = 0
        if step % HEURISTIC_EVERY == 0:
            round_heuristic(reduced)
        if best_bound - <double>best_value < 1:
            break
        norm = 0
        for c in range(ncol):
            gradient[c] = have[c] - used[c]
        gradient[star] += have[ncol]
        for c in range(ncol):
            norm += gradient[c] * gradient[c]
        if norm == 0:
            break
        move = step_scale * (bound - <double>best_value) / <double>norm
        for c in range(ncol):
            x = prices[c] - move * <double>gradient[c]
            prices[c] = x if x > 0.0 else 0.0


cdef void deep(int k, const long long* rem, long long current, uint64_t key) noexcept:
    global nodes
    cdef long long clipped[NCOL]
    cdef long long after[KINDS]
    cdef double prod[NCOL]
    cdef long long locos, total = 0
    cdef double bound, floor
    cdef int c
    cdef Slot* slot
    cdef uint64_t state, state_hi
    nodes += 1
    offer(current, key)
    if k == n_items:
        return
    for c in range(ncol):
        clipped[c] = rem[c] if rem[c] < usable[k][c] else usable[k][c]
        total += clipped[c]
    locos = rem[ncol]
    if usable_total[k] - total < locos:
        locos = usable_total[k] - total
    for c in range(ncol):
        prod[c] = prices[c] * <double>clipped[c]
    bound = <double>current + gain[k] + pysum(prod, ncol) + top * <double>locos
    floor = <double>best_value + (SLACK if best_greedy else -SLACK)
    if bound < floor:
        return
    if bound < <double>best_value + SLACK and (key | open_bits[k]) <= best_key:
        return
    state = pack(k, clipped, locos)
    state_hi = pack_hi(clipped)
    slot = memo_find(state, state_hi)
    if slot.stamp == table_stamp:
        if current < slot.value or (current == slot.value and key <= slot.key):
            return
    else:
        slot = memo_new(state, state_hi)
    if slot != NULL:
        slot.value = current
        slot.key = key
    if not take(rem, o_needs[k], after):
        deep(k + 1, rem, current, key)
    elif o_take_first[k]:
        deep(k + 1, after, current + o_values[k], key | o_bits[k])
        deep(k + 1, rem, current, key)
    else:
        deep(k + 1, rem, current, key)
        deep(k + 1, after, current + o_values[k], key | o_bits[k])


cdef void deep_search() noexcept:
    global top
    cdef double best_prices[NCOL]
    cdef double prod[NCOL]
    cdef double size_of[MAXN]
    cdef int i, j, k, t, c
    cdef long long row_total
    tune_prices(best_prices)
    for c in range(ncol):
        prices[c] = best_prices[c]
    top = prices[0]
    for c in range(1, ncol):
        if prices[c] > top:
            top = prices[c]
    for j in range(n_items):
        for c in range(ncol):
            prod[c] = prices[c] * <double>needs[j][c]
        red[j] = <double>values[j] - pysum(prod, ncol)
        size_of[j] = -fabs(red[j])
    for i in range(n_items):  # insertion sort by (-|reduced|, index)
        t = i
        k = i - 1
        while k >= 0 and size_of[t] < size_of[order[k]]:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = t
    for k in range(n_items):
        j = order[k]
        for c in range(ncol):
            o_needs[k][c] = needs[j][c]
        o_values[k] = values[j]
        o_bits[k] = lexbit[j]
        o_take_first[k] = red[j] > 0
    gain[n_items] = 0.0
    open_bits[n_items] = 0
    for c in range(ncol):
        usable[n_items][c] = 0
    for k in range(n_items - 1, -1, -1):
        gain[k] = gain[k + 1] + (red[order[k]] if red[order[k]] > 0.0 else 0.0)
        for c in range(ncol):
            usable[k][c] = usable[k + 1][c] + o_needs[k][c]
        open_bits[k] = open_bits[k + 1] | o_bits[k]
    for k in range(n_items + 1):
        row_total = 0
        for c in range(ncol):
            row_total += usable[k][c]
        usable_total[k] = row_total
    memo_clear()
    deep(0, have, 0, 0)


# ---------------------------------------------------------------------------------------
# the entry point


cdef bint comes_first(int a, int b) noexcept:
    """The engine's item order: key (-value/size, -value, id)."""
    cdef double ka = <double>(-values[a]) / <double>sizes[a]
    cdef double kb = <double>(-values[b]) / <double>sizes[b]
    if ka != kb:
        return ka < kb
    if values[a] != values[b]:
        return values[a] > values[b]
    return item_ids[a] < item_ids[b]


def resolve_counted(circulation, destinations, big_cities, long long cheap_nodes=1000):
    """``(ids, nodes)`` exactly as ``cardgame.resolution.resolve_counted``; None when the
    input is outside this kernel's fixed arrays (the caller then resolves in Python)."""
    cdef long long pile[KINDS]
    cdef long long need[NCOL]
    cdef long long out[MAXN]
    cdef long long deficit, points, value, dest_id, size
    cdef long long tmp_needs[MAXN][NCOL]
    cdef long long tmp_values[MAXN]
    cdef long long tmp_sizes[MAXN]
    cdef long long tmp_ids[MAXN]
    cdef int m = 0
    cdef int c, i, n
    global ncol
    try:
        if not 2 <= len(circulation) <= KINDS:
            return None
        ncol = len(circulation) - 1
        for c in range(ncol + 1):
            item = circulation[c]
            if not isinstance(item, int):  # C would truncate a float silently
                return None
            pile[c] = item
            if pile[c] < 0 or pile[c] > MAXCOUNT:
                return None
    except (TypeError, OverflowError):
        return None
    for dest in destinations:
        for c in range(ncol):
            need[c] = 0
        size = 0
        try:
            for colour in dest.colours:
                if not isinstance(colour, int):
                    return None
                c = colour
                if c < 0 or c >= ncol:
                    return None
                need[c] += 1
                size += 1
            if not isinstance(dest.points, int) or not isinstance(dest.id, int):
                return None
            points = dest.points
            dest_id = dest.id
        except (TypeError, OverflowError):
            return None
        if size == 0 or points < 0 or points > MAXPOINTS:
            return None
        deficit = 0
        for c in range(ncol):
            if need[c] > pile[c]:
                deficit += need[c] - pile[c]
        if deficit > pile[ncol]:
            continue
        if m == MAXN:
            return None
        value = points * POINTS_WEIGHT + COUNT_WEIGHT
        value += (dest.city_a in big_cities) + (dest.city_b in big_cities)
        for c in range(ncol):
            tmp_needs[m][c] = need[c]
        tmp_values[m] = value
        tmp_sizes[m] = size
        tmp_ids[m] = dest_id
        m += 1
    if m == 0:
        return (), 0
    n = solve(pile, m, tmp_needs, tmp_values, tmp_sizes, tmp_ids, cheap_nodes, out)
    return tuple([out[i] for i in range(n)]), nodes


cdef int solve(
    const long long* pile, int m, long long (*tmp_needs)[NCOL], const long long* tmp_values,
    const long long* tmp_sizes, const long long* tmp_ids, long long cheap_nodes,
    long long* out,
) noexcept:
    """The search over ``m`` staged feasible items (1 <= m <= MAXN): writes the ids of the
    chosen set to ``out``, sorted, and returns how many; ``nodes`` holds the work."""
    global n_items, best_value, best_key, best_greedy, nodes, best_len
    cdef long long rem[KINDS]
    cdef long long after[KINDS]
    cdef int order_in[MAXN]
    cdef int greedy_len = 0
    cdef int c, i, k, t, n
    cdef long long x
    cdef uint64_t one = 1
    # the engine's order, by a stable insertion sort over the staged items
    n_items = m
    for i in range(m):
        values[i] = tmp_values[i]
        sizes[i] = tmp_sizes[i]
        item_ids[i] = tmp_ids[i]
    for i in range(m):
        t = i
        k = i - 1
        while k >= 0 and comes_first(t, order_in[k]):
            order_in[k + 1] = order_in[k]
            k -= 1
        order_in[k + 1] = t
    for i in range(m):
        t = order_in[i]
        values[i] = tmp_values[t]
        sizes[i] = tmp_sizes[t]
        item_ids[i] = tmp_ids[t]
        for c in range(ncol):
            needs[i][c] = tmp_needs[t][c]
        lexbit[i] = one << (m - 1 - i)
    for c in range(ncol + 1):
        have[c] = pile[c]
        rem[c] = pile[c]
    # the greedy pass
    best_value = 0
    best_key = 0
    nodes = 0
    for i in range(m):
        if take(rem, needs[i], after):
            for c in range(ncol + 1):
                rem[c] = after[c]
            best_value += values[i]
            best_key |= lexbit[i]
            best_set[greedy_len] = i
            greedy_len += 1
    n = 0
    if greedy_len == m:
        for i in range(m):
            out[i] = item_ids[i]
        n = m
    else:
        best_len = greedy_len
        best_greedy = True
        cheap_search(cheap_nodes)
        if not over:
            for i in range(best_len):
                out[i] = item_ids[best_set[i]]
            n = best_len
        else:
            best_key = 0
            for i in range(best_len):
                best_key |= lexbit[best_set[i]]
            deep_search()
            for i in range(m):
                if best_key & lexbit[i]:
                    out[n] = item_ids[i]
                    n += 1
    for i in range(1, n):  # sorted ids, as ``tuple(sorted(...))``
        x = out[i]
        k = i - 1
        while k >= 0 and out[k] > x:
            out[k + 1] = out[k]
            k -= 1
        out[k + 1] = x
    return n


cdef int resolve_held(
    const int* pile, int n, const int* ids, const int* need, const int* points,
    const int* big_names, int* out, int colours,
) noexcept:
    """``resolve`` for the native core: ``n`` destinations by id, with their colour needs
    (``need[NCOL * i + c]``), points and big-city names, in a game of ``colours`` colours
    (``pile``: their counts, then the locomotives). Writes the sorted ids reached to
    ``out`` and returns how many, or -1 when the input is outside this kernel's arrays (the
    caller then resolves in Python)."""
    global ncol
    cdef long long have_[KINDS]
    cdef long long tmp_needs[MAXN][NCOL]
    cdef long long tmp_values[MAXN]
    cdef long long tmp_sizes[MAXN]
    cdef long long tmp_ids[MAXN]
    cdef long long got[MAXN]
    cdef long long deficit, size
    cdef int m = 0
    cdef int c, i, k
    if not 1 <= colours <= NCOL:
        return -1
    ncol = colours
    for c in range(ncol + 1):
        if pile[c] < 0 or pile[c] > MAXCOUNT:
            return -1
        have_[c] = pile[c]
    for i in range(n):
        size = 0
        deficit = 0
        for c in range(ncol):
            size += need[NCOL * i + c]
            if need[NCOL * i + c] > pile[c]:
                deficit += need[NCOL * i + c] - pile[c]
        if size == 0 or points[i] < 0 or points[i] > MAXPOINTS:
            return -1
        if deficit > pile[ncol]:
            continue
        if m == MAXN:
            return -1
        for c in range(ncol):
            tmp_needs[m][c] = need[NCOL * i + c]
        tmp_values[m] = <long long>points[i] * POINTS_WEIGHT + COUNT_WEIGHT + big_names[i]
        tmp_sizes[m] = size
        tmp_ids[m] = ids[i]
        m += 1
    if m == 0:
        return 0
    k = solve(have_, m, tmp_needs, tmp_values, tmp_sizes, tmp_ids, CHEAP_NODES, got)
    for i in range(k):
        out[i] = <int>got[i]
    return k


def search_settings():
    """The search's budgets and steps as compiled: tests/test_contract.py holds them equal to
    ``cardgame/resolution.py``'s, so that both engines visit the same nodes."""
    return {
        "cheap_nodes": CHEAP_NODES,
        "price_steps_per_item": PRICE_STEPS_PER_ITEM,
        "heuristic_every": HEURISTIC_EVERY,
        "stall_steps": STALL_STEPS,
        "slack": SLACK,
    }


def resolve(circulation, destinations, big_cities):
    """Ids of the best reachable set (R16), sorted; None outside the fixed arrays."""
    got = resolve_counted(circulation, destinations, big_cities)
    return None if got is None else got[0]


table = <Slot*>calloc(1 << 12, sizeof(Slot))
if table == NULL:
    raise MemoryError("cardgame native resolution: no memory for the memo table")
table_mask = (1 << 12) - 1
