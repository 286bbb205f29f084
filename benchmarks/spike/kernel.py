"""Spike kernel: a simplified turn loop and exact R16 resolution over flat int64 arrays.

ONE source, run three ways (see run.py): as plain CPython, JIT-compiled by numba (every
function wrapped in ``numba.njit``) and compiled by Cython in pure-Python mode (the
``cython.*`` annotations give C types; build.py). Not part of the installed package.

Simplified rules: R3 deal (a locomotive each, 7 cards, 5 face up), R5 keep a random non-empty
part of 6 destinations, R7-R8 yard to circulation, R10 draws (deck pair, or one face-up card
then a blind one; a face-up locomotive ends the draw), R12(a) columns with rival steals (no
three-colour option), R13 destination draws, R15 end (every seat one more turn), R16 exact
resolution (the engine's answer: the greedy set if optimal, else the lexicographically first
optimum), R20 score without big-city bonuses. Two rounds, face-up refills past the deck end
and the three-colour placement are left out. Players pick uniformly among legal actions.

The random numbers come from a 32-bit xorshift in a one-cell array, so all three ways give
the same games bit for bit (numba's and numpy's generators differ from each other).

Arrays are allocated once per batch (play_games, resolve_many) and passed down as scratch:
under Cython every np.zeros is a Python call (~1 us), which at first cost it half its speed.
"""

from __future__ import annotations

import cython
import numpy as np

# C globals under Cython (a plain module global would be a Python object looked up and
# converted at every use); plain ints and floats for CPython and numba
NCOL = cython.declare(cython.longlong, 8)
LOCO = cython.declare(cython.longlong, 8)
KINDS = cython.declare(cython.longlong, 9)
MASK32 = cython.declare(cython.longlong, 0xFFFFFFFF)
PRICE_STEPS = cython.declare(cython.longlong, 150)
HEURISTIC_EVERY = cython.declare(cython.longlong, 5)
STALL_STEPS = cython.declare(cython.longlong, 5)
SLACK = cython.declare(cython.double, 0.5)


@cython.cfunc
@cython.exceptval(check=False)
def rand(rng: cython.longlong[:], n: cython.longlong) -> cython.longlong:
    """A number in [0, n) from the xorshift32 state rng[0]."""
    x: cython.longlong = rng[0]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    rng[0] = x
    return x % n


# ---------------------------------------------------------------------------------------
# R16 resolution (the engine's deep search, iterative, without the memo)


@cython.cfunc
@cython.exceptval(check=False)
def take(
    rem: cython.longlong[:],
    need: cython.longlong[:, :],
    i: cython.longlong,
    out: cython.longlong[:],
) -> cython.longlong:
    """out = rem after covering need[i] (own colours first); 0 if locomotives run short."""
    locos: cython.longlong = rem[LOCO]
    c: cython.longlong
    n: cython.longlong
    for c in range(NCOL):
        n = need[i, c]
        if rem[c] >= n:
            out[c] = rem[c] - n
        else:
            locos -= n - rem[c]
            out[c] = 0
    out[LOCO] = locos
    return 1 if locos >= 0 else 0


@cython.cfunc
@cython.exceptval(check=False)
def comes_first(
    a: cython.longlong,
    b: cython.longlong,
    val: cython.longlong[:],
    size: cython.longlong[:],
    ids: cython.longlong[:],
) -> cython.longlong:
    """Whether item a precedes b: value per card, then value, then id, as the engine."""
    left: cython.longlong = val[a] * size[b]
    right: cython.longlong = val[b] * size[a]
    if left != right:
        return 1 if left > right else 0
    if val[a] != val[b]:
        return 1 if val[a] > val[b] else 0
    return 1 if ids[a] < ids[b] else 0


@cython.cfunc
@cython.exceptval(check=False)
def resolve(
    have: cython.longlong[:],
    needs: cython.longlong[:, :],
    values: cython.longlong[:],
    ids: cython.longlong[:],
    n: cython.longlong,
    chosen: cython.longlong[:],
    stats: cython.longlong[:],
    wi: cython.longlong[:, :],
    wf: cython.double[:, :],
    w3: cython.longlong[:, :, :],
) -> cython.longlong:
    """Set chosen[j] = 1 for the destinations j < n the engine would take; return how many.

    stats[0] accumulates search nodes."""
    m: cython.longlong = 0
    i: cython.longlong
    j: cython.longlong
    k: cython.longlong
    c: cython.longlong
    t: cython.longlong
    t_tmp: cython.longlong[:] = wi[0]
    idx: cython.longlong[:] = wi[1]
    size: cython.longlong[:] = wi[2]
    for j in range(n):
        chosen[j] = 0
        size[j] = 0
        for c in range(NCOL):
            size[j] += needs[j, c]
        if take(have, needs, j, t_tmp):
            idx[m] = j
            m += 1
    if m == 0:
        return 0
    # insertion sort of the feasible items into the engine's order
    for i in range(1, m):
        t = idx[i]
        k = i - 1
        while k >= 0 and comes_first(t, idx[k], values, size, ids):
            idx[k + 1] = idx[k]
            k -= 1
        idx[k + 1] = t
    need: cython.longlong[:, :] = w3[0]
    val: cython.longlong[:] = wi[3]
    sz: cython.longlong[:] = wi[4]
    one: cython.longlong = 1
    bit: cython.longlong[:] = wi[5]
    for i in range(m):
        val[i] = values[idx[i]]
        sz[i] = size[idx[i]]
        bit[i] = one << (m - 1 - i)  # a C int 1 would overflow past 31
        for c in range(NCOL):
            need[i, c] = needs[idx[i], c]
    # greedy pass
    rem: cython.longlong[:] = wi[6]
    for c in range(KINDS):
        rem[c] = have[c]
    b: cython.longlong[:] = wi[7]  # value, key, greedy flag
    b[0] = 0
    b[1] = 0
    taken: cython.longlong = 0
    for i in range(m):
        if take(rem, need, i, t_tmp):
            for c in range(KINDS):
                rem[c] = t_tmp[c]
            b[0] += val[i]
            b[1] |= bit[i]
            taken += 1
    b[2] = 1
    if taken < m:
        deep_search(have, need, val, sz, bit, m, b, stats, wi, wf, w3)
    t = 0
    for i in range(m):
        if b[1] & bit[i]:
            chosen[idx[i]] = 1
            t += 1
    return t


@cython.cfunc
@cython.exceptval(check=False)
def offer(b: cython.longlong[:], value: cython.longlong, key: cython.longlong) -> cython.int:
    if value > b[0] or (value == b[0] and b[2] == 0 and key > b[1]):
        b[0] = value
        b[1] = key
        b[2] = 0
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def round_heuristic(
    have: cython.longlong[:],
    need: cython.longlong[:, :],
    val: cython.longlong[:],
    sz: cython.longlong[:],
    bit: cython.longlong[:],
    m: cython.longlong,
    reduced: cython.double[:],
    b: cython.longlong[:],
    order: cython.longlong[:],
    rem: cython.longlong[:],
    out: cython.longlong[:],
) -> cython.int:
    """Greedy pass by reduced cost per card; the set is offered to the incumbent b.
    order, rem and out are scratch arrays (m, 9, 9), allocated once by the caller."""
    i: cython.longlong
    k: cython.longlong
    t: cython.longlong
    c: cython.longlong
    for i in range(m):
        order[i] = i
    for i in range(1, m):
        t = order[i]
        k = i - 1
        while k >= 0 and reduced[t] / sz[t] > reduced[order[k]] / sz[order[k]]:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = t
    for c in range(KINDS):
        rem[c] = have[c]
    value: cython.longlong = 0
    key: cython.longlong = 0
    for i in range(m):
        if take(rem, need, order[i], out):
            for c in range(KINDS):
                rem[c] = out[c]
            value += val[order[i]]
            key |= bit[order[i]]
    offer(b, value, key)
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def tune_prices(
    have: cython.longlong[:],
    need: cython.longlong[:, :],
    val: cython.longlong[:],
    sz: cython.longlong[:],
    bit: cython.longlong[:],
    m: cython.longlong,
    b: cython.longlong[:],
    best_prices: cython.double[:],
    wi: cython.longlong[:, :],
    wf: cython.double[:, :],
) -> cython.int:
    """Held-Karp subgradient steps on the Lagrangian dual (as the engine's _tune_prices)."""
    i: cython.longlong
    j: cython.longlong
    c: cython.longlong
    star: cython.longlong
    r: cython.double
    top: cython.double
    bound: cython.double
    norm: cython.double
    move: cython.double
    ratios: cython.double[:] = wf[3]
    for j in range(m):  # insertion sort: the median value per card starts the prices
        r = val[j] / sz[j]
        i = j - 1
        while i >= 0 and ratios[i] > r:
            ratios[i + 1] = ratios[i]
            i -= 1
        ratios[i + 1] = r
    start: cython.double = ratios[m // 2]
    prices: cython.double[:] = wf[4]
    reduced: cython.double[:] = wf[5]
    used: cython.double[:] = wf[6]
    order_h: cython.longlong[:] = wi[10]
    rem_h: cython.longlong[:] = wi[11]
    out_h: cython.longlong[:] = wi[12]
    for c in range(NCOL):
        prices[c] = start
        best_prices[c] = start
    best_bound: cython.double = 1e300
    scale: cython.double = 2.0
    stall: cython.longlong = 0
    for i in range(PRICE_STEPS):
        top = 0.0
        star = 0
        for c in range(NCOL):
            if prices[c] > top:
                top = prices[c]
                star = c
        bound = top * have[LOCO]
        for c in range(NCOL):
            bound += prices[c] * have[c]
            used[c] = 0.0
        for j in range(m):
            r = val[j]
            for c in range(NCOL):
                r -= prices[c] * need[j, c]
            reduced[j] = r
            if r > 0:
                bound += r
                for c in range(NCOL):
                    used[c] += need[j, c]
        if bound < best_bound:
            best_bound = bound
            stall = 0
            for c in range(NCOL):
                best_prices[c] = prices[c]
        else:
            stall += 1
            if stall >= STALL_STEPS:
                scale /= 2
                stall = 0
        if i % HEURISTIC_EVERY == 0:
            round_heuristic(have, need, val, sz, bit, m, reduced, b, order_h, rem_h, out_h)
        if best_bound - b[0] < 1:
            break
        norm = 0.0
        for c in range(NCOL):
            used[c] = have[c] - used[c]  # the subgradient
        used[star] += have[LOCO]
        for c in range(NCOL):
            norm += used[c] * used[c]
        if norm == 0:
            break
        move = scale * (bound - b[0]) / norm
        for c in range(NCOL):
            prices[c] = max(0.0, prices[c] - move * used[c])
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def deep_search(
    have: cython.longlong[:],
    need: cython.longlong[:, :],
    val: cython.longlong[:],
    sz: cython.longlong[:],
    bit: cython.longlong[:],
    m: cython.longlong,
    b: cython.longlong[:],
    stats: cython.longlong[:],
    wi: cython.longlong[:, :],
    wf: cython.double[:, :],
    w3: cython.longlong[:, :, :],
) -> cython.int:
    """Branch and bound in |reduced cost| order with an explicit stack."""
    i: cython.longlong
    j: cython.longlong
    k: cython.longlong
    c: cython.longlong
    t: cython.longlong
    d: cython.longlong
    bound: cython.double
    floor: cython.double
    include: cython.bint = False
    prices: cython.double[:] = wf[0]
    tune_prices(have, need, val, sz, bit, m, b, prices, wi, wf)
    top: cython.double = 0.0
    for c in range(NCOL):
        top = max(top, prices[c])
    red: cython.double[:] = wf[1]
    for j in range(m):
        red[j] = val[j]
        for c in range(NCOL):
            red[j] -= prices[c] * need[j, c]
    order: cython.longlong[:] = wi[8]
    for i in range(m):
        order[i] = i
    for i in range(1, m):  # by decreasing |reduced cost|, then position
        t = order[i]
        k = i - 1
        while k >= 0 and abs(red[t]) > abs(red[order[k]]):
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = t
    gain: cython.double[:] = wf[2]
    usable: cython.longlong[:, :] = w3[1]
    open_bits: cython.longlong[:] = wi[9]
    gain[m] = 0.0
    open_bits[m] = 0
    for c in range(NCOL):
        usable[m, c] = 0
    for k in range(m - 1, -1, -1):
        j = order[k]
        gain[k] = gain[k + 1] + max(0.0, red[j])
        for c in range(NCOL):
            usable[k, c] = usable[k + 1, c] + need[j, c]
        open_bits[k] = open_bits[k + 1] | bit[j]
    st_rem: cython.longlong[:, :] = w3[2]
    st_after: cython.longlong[:, :] = w3[3]
    st: cython.longlong[:, :] = w3[4]  # value, key, phase, feasible
    for c in range(4):
        st[0, c] = 0
    for c in range(KINDS):
        st_rem[0, c] = have[c]
    d = 0
    nodes: cython.longlong = 0
    while d >= 0:
        if st[d, 2] == 0:
            nodes += 1
            offer(b, st[d, 0], st[d, 1])
            if d == m:
                d -= 1
                continue
            bound = st[d, 0] + gain[d] + top * st_rem[d, LOCO]
            for c in range(NCOL):
                bound += prices[c] * min(st_rem[d, c], usable[d, c])
            floor = b[0] + (SLACK if b[2] else -SLACK)
            if bound < floor or (bound < b[0] + SLACK and (st[d, 1] | open_bits[d]) <= b[1]):
                d -= 1
                continue
            j = order[d]
            st[d, 3] = take(st_rem[d], need, j, st_after[d])
            st[d, 2] = 1
            include = st[d, 3] == 1 and red[j] > 0
        elif st[d, 2] == 1 and st[d, 3] == 1:
            st[d, 2] = 2
            j = order[d]
            include = not (red[j] > 0)
        else:
            d -= 1
            continue
        for c in range(KINDS):
            st_rem[d + 1, c] = st_after[d, c] if include else st_rem[d, c]
        st[d + 1, 0] = st[d, 0] + (val[j] if include else 0)
        st[d + 1, 1] = st[d, 1] | (bit[j] if include else 0)
        st[d + 1, 2] = 0
        d += 1
    stats[0] += nodes
    return 0


# ---------------------------------------------------------------------------------------
# the simplified game


@cython.cfunc
@cython.exceptval(check=False)
def draw_card(deck: cython.longlong[:], g: cython.longlong[:]) -> cython.longlong:
    """Top card of the deck (g[0] = cards left), -1 if empty; marks the last card drawn."""
    if g[0] == 0:
        return -1
    g[0] -= 1
    if g[0] == 0 and g[2] < 0:
        g[2] = g[3] + 1  # turns left: this one, then every seat once more (R15)
    return deck[g[0]]


@cython.cfunc
@cython.exceptval(check=False)
def play_one(
    seed: cython.longlong,
    players: cython.longlong,
    needs: cython.longlong[:, :],
    values: cython.longlong[:],
    points: cython.longlong[:],
    ids: cython.longlong[:],
    stats: cython.longlong[:],
    wi: cython.longlong[:, :],
    wf: cython.double[:, :],
    w3: cython.longlong[:, :, :],
    gi: cython.longlong[:, :],
    g3: cython.longlong[:, :, :],
) -> cython.longlong:
    """Play one random game; return seat 0's score minus seat 1's (a checksum).

    gi (12 x 256) and g3 (3 x 4 x 46) hold the game state, reset here."""
    rng: cython.longlong[:] = gi[0]
    rng[0] = (seed * 2654435761 + 12345) & MASK32
    if rng[0] == 0:
        rng[0] = 1
    i: cython.longlong
    _i: cython.longlong
    j: cython.longlong
    c: cython.longlong
    s: cython.longlong
    t: cython.longlong
    w: cython.longlong
    lo: cython.longlong
    card: cython.longlong
    deck: cython.longlong[:] = gi[1]
    n: cython.longlong = 0
    for c in range(NCOL):
        for _i in range(10):
            deck[n] = c
            n += 1
    for _i in range(16 - players):
        deck[n] = LOCO
        n += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = rand(rng, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    g: cython.longlong[:] = gi[2]  # cards left in deck, (unused), final turns left, players
    g[0] = n
    g[2] = -1
    g[3] = players
    hand: cython.longlong[:, :] = g3[0]
    circ: cython.longlong[:, :] = g3[1]
    held: cython.longlong[:, :] = g3[2]
    for s in range(players):
        for i in range(46):
            hand[s, i] = 0
            circ[s, i] = 0
            held[s, i] = 0
    for s in range(players):
        hand[s, LOCO] = 1
        for _i in range(7):
            hand[s, draw_card(deck, g)] += 1
    face: cython.longlong[:] = gi[3]
    for i in range(5):
        face[i] = draw_card(deck, g)
    owner: cython.longlong[:] = gi[4]
    yw: cython.longlong[:] = gi[5]
    yl: cython.longlong[:] = gi[6]
    for c in range(NCOL):
        owner[c] = -1
        yw[c] = 0
        yl[c] = 0
    # destinations: a queue over 46 ids (0-based), held flags per seat
    dq: cython.longlong[:] = gi[7]
    for i in range(46):
        dq[i] = i
    for i in range(45, 0, -1):
        j = rand(rng, i + 1)
        t = dq[i]
        dq[i] = dq[j]
        dq[j] = t
    head: cython.longlong = 0
    tail: cython.longlong = 46
    for s in range(players):  # R5: keep a random non-empty part of 6
        t = rand(rng, 63) + 1
        for i in range(6):
            if t & (1 << i):
                held[s, dq[head + i]] = 1
            else:
                dq[tail] = dq[head + i]
                tail += 1
        head += 6
    seat: cython.longlong = 0
    total: cython.longlong
    pick: cython.longlong
    rival: cython.longlong
    while g[2] != 0:
        # R7-R8: one card of each own column to the circulation pile
        for c in range(NCOL):
            if owner[c] == seat:
                if yl[c] > 0:
                    yl[c] -= 1
                    circ[seat, LOCO] += 1
                else:
                    yw[c] -= 1
                    circ[seat, c] += 1
                if yl[c] + yw[c] == 0:
                    owner[c] = -1
        # count legal actions: draws, destination draw, columns
        total = 0
        if g[0] > 0:
            total += 1  # two blind cards
        for i in range(5):
            if face[i] >= 0:
                total += 1
        if tail > head:
            total += 1
        for c in range(NCOL):
            if owner[c] == seat:
                continue
            for w in range(1, hand[seat, c] + 1):
                for lo in range(hand[seat, LOCO] + 1):
                    if w + lo >= 2 and (owner[c] < 0 or w + lo > yw[c] + yl[c]):
                        total += 1
        if total > 0:
            pick = rand(rng, total)
            if g[0] > 0:
                if pick == 0:
                    for _i in range(2):
                        card = draw_card(deck, g)
                        if card >= 0:
                            hand[seat, card] += 1
                pick -= 1
            for i in range(5):
                if face[i] >= 0:
                    if pick == 0:
                        card = face[i]
                        hand[seat, card] += 1
                        face[i] = draw_card(deck, g)
                        if card != LOCO:
                            card = draw_card(deck, g)
                            if card >= 0:
                                hand[seat, card] += 1
                    pick -= 1
            if tail > head:
                if pick == 0:  # R13: draw 4, keep a random part
                    n = min(4, tail - head)
                    t = rand(rng, 1 << n)
                    for i in range(n):
                        if t & (1 << i):
                            held[seat, dq[head + i]] = 1
                        else:
                            dq[tail] = dq[head + i]
                            tail += 1
                    head += n
                pick -= 1
            for c in range(NCOL):
                if owner[c] == seat:
                    continue
                for w in range(1, hand[seat, c] + 1):
                    for lo in range(hand[seat, LOCO] + 1):
                        if w + lo >= 2 and (owner[c] < 0 or w + lo > yw[c] + yl[c]):
                            if pick == 0:
                                rival = owner[c]
                                if rival >= 0:  # the steal: the rival's column is discarded
                                    owner[c] = -1
                                hand[seat, c] -= w
                                hand[seat, LOCO] -= lo
                                owner[c] = seat
                                yw[c] = w
                                yl[c] = lo
                            pick -= 1
        if g[2] > 0:
            g[2] -= 1
        seat = (seat + 1) % players
        if head > 200:  # keep the queue inside its array
            for i in range(tail - head):
                dq[i] = dq[head + i]
            tail -= head
            head = 0
    # R16 and R20 (no big-city bonus)
    chosen: cython.longlong[:] = gi[8]
    have: cython.longlong[:] = gi[9]
    sub_needs: cython.longlong[:, :] = w3[5]
    sub_val: cython.longlong[:] = gi[10]
    sub_ids: cython.longlong[:] = gi[11]
    diff: cython.longlong = 0
    score: cython.longlong
    for s in range(players):
        n = 0
        for i in range(46):
            if held[s, i]:
                for c in range(NCOL):
                    sub_needs[n, c] = needs[i, c]
                sub_val[n] = values[i]
                sub_ids[n] = ids[i]
                n += 1
        for c in range(KINDS):
            have[c] = circ[s, c]
        resolve(have, sub_needs, sub_val, sub_ids, n, chosen, stats, wi, wf, w3)
        stats[1] += 1
        score = 0
        for i in range(n):
            score += points[sub_ids[i] - 1] if chosen[i] else -points[sub_ids[i] - 1]
        if s == 0:
            diff += score
        elif s == 1:
            diff -= score
    return diff


def play_games(
    first_seed: cython.longlong,
    games: cython.longlong,
    players: cython.longlong,
    needs: cython.longlong[:, :],
    values: cython.longlong[:],
    points: cython.longlong[:],
    ids: cython.longlong[:],
    stats: cython.longlong[:],
) -> cython.longlong:
    """Play ``games`` games from ``first_seed``; return the sum of the score checksums.

    stats: [search nodes, resolutions]."""
    total: cython.longlong = 0
    i: cython.longlong
    wi = np.zeros((13, 64), np.int64)  # scratch for the resolution, allocated once
    wf = np.zeros((7, 64), np.float64)
    w3 = np.zeros((6, 48, 9), np.int64)
    gi = np.zeros((12, 256), np.int64)  # the game state, reset by each game
    g3 = np.zeros((3, 4, 46), np.int64)
    for i in range(games):
        total += play_one(
            first_seed + i, players, needs, values, points, ids, stats, wi, wf, w3, gi, g3
        )
    return total


def resolve_many(
    piles: cython.longlong[:, :],
    held: cython.longlong[:, :],
    counts: cython.longlong[:],
    needs: cython.longlong[:, :],
    values: cython.longlong[:],
    ids: cython.longlong[:],
    out: cython.longlong[:, :],
    stats: cython.longlong[:],
) -> cython.longlong:
    """Resolve holding h (pile piles[h], held ids held[h, :counts[h]], 1-based) for each h;
    out[h, j] = 1 if held[h, j] is reached."""
    h: cython.longlong
    i: cython.longlong
    c: cython.longlong
    n: cython.longlong
    sub_needs_a = np.zeros((46, NCOL), np.int64)
    sub_needs: cython.longlong[:, :] = sub_needs_a
    sub_val_a = np.zeros(46, np.int64)
    sub_val: cython.longlong[:] = sub_val_a
    sub_ids_a = np.zeros(46, np.int64)
    sub_ids: cython.longlong[:] = sub_ids_a
    chosen_a = np.zeros(46, np.int64)
    chosen: cython.longlong[:] = chosen_a
    wi = np.zeros((13, 64), np.int64)
    wf = np.zeros((7, 64), np.float64)
    w3 = np.zeros((5, 48, 9), np.int64)
    for h in range(piles.shape[0]):
        n = counts[h]
        for i in range(n):
            for c in range(NCOL):
                sub_needs[i, c] = needs[held[h, i] - 1, c]
            sub_val[i] = values[held[h, i] - 1]
            sub_ids[i] = ids[held[h, i] - 1]
        resolve(piles[h], sub_needs, sub_val, sub_ids, n, chosen, stats, wi, wf, w3)
        for i in range(n):
            out[h, i] = chosen[i]
    return 0
