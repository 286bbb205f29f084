# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""sims/quality.py's metrics of a whole batch of games in one call: the very numbers
``quality`` computes game by game with numpy, bit for bit (tests/sims/test_quality_native.py).

Floats are summed in numpy's own order (``pairwise``: its pairwise summation of a
contiguous float64 reduction), every other step is one IEEE operation numpy does too, so no
value differs in its last bit from the game-by-game path's.
"""

from libc.math cimport NAN, fabs
from libc.stdlib cimport free, malloc

import numpy as np

cdef enum:
    PW_BLOCKSIZE = 128  # numpy's (loops_utils.h.src): the pairwise sum's leaf


cdef double pairwise(const double* a, Py_ssize_t n) noexcept:
    """numpy's pairwise summation of ``n`` contiguous doubles (the order ``ndarray.sum``
    and ``ndarray.mean`` add them in)."""
    cdef Py_ssize_t i, n2
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= PW_BLOCKSIZE:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise(a, n2) + pairwise(a + n2, n - n2)


def numpy_sum(double[::1] values):
    """``pairwise`` over ``values`` plus numpy's 0.0 start (tests hold it to ``ndarray.sum``)."""
    return 0.0 + pairwise(&values[0], values.shape[0]) if values.shape[0] else 0.0


cdef long long lead_changes(const double* rows, Py_ssize_t positions, int seats) noexcept:
    """sims.quality._lead_changes on ``positions`` rows of ``seats`` values."""
    cdef Py_ssize_t t
    cdef int s, leader, previous = -1, top
    cdef double best
    cdef long long changes = 0
    cdef bint have = False
    for t in range(positions):
        best = rows[t * seats]
        for s in range(1, seats):
            if rows[t * seats + s] > best:
                best = rows[t * seats + s]
        top = 0
        leader = -1
        for s in range(seats):
            if rows[t * seats + s] == best:
                top += 1
                if leader < 0:
                    leader = s
        if top != 1:
            continue
        if have and leader != previous:
            changes += 1
        previous = leader
        have = True
    return changes


def shift_scores(
    double[:, ::1] scores,
    const double[:, :, ::1] x,
    const double[:, :, ::1] terms,
    const long long[::1] ends,
    int progress,
):
    """``StandingModel.chances_many``'s steps before its ``exp``, in place, on a batch's
    positions (``scores`` their ``x @ weights``): each seat's strength and its change with
    ``progress`` added (``terms``: each game's, seats x 2), then each position's best score
    taken away, in numpy's order of operations."""
    cdef Py_ssize_t games, g, t, start = 0
    cdef int seats, s
    cdef double best
    games = ends.shape[0]
    seats = scores.shape[1]
    if x.shape[0] != scores.shape[0] or x.shape[1] != seats or terms.shape[0] != games:
        raise ValueError("shift_scores: shapes differ")
    if games and ends[games - 1] != scores.shape[0]:
        raise ValueError("shift_scores: the last game must end at the last row")
    for g in range(games):
        for t in range(start, ends[g]):
            for s in range(seats):
                scores[t, s] = (scores[t, s] + terms[g, s, 0]) + terms[g, s, 1] * x[t, s, progress]
            best = scores[t, 0]
            for s in range(1, seats):
                if scores[t, s] > best:
                    best = scores[t, s]
            for s in range(seats):
                scores[t, s] = scores[t, s] - best
        start = ends[g]


def normalise(double[:, ::1] odds):
    """``odds / odds.sum(axis=-1, keepdims=True)`` in place (each row summed left to right,
    as numpy sums a few values)."""
    cdef Py_ssize_t t
    cdef int s, seats
    cdef double total
    seats = odds.shape[1]
    for t in range(odds.shape[0]):
        total = 0.0
        for s in range(seats):
            total += odds[t, s]
        for s in range(seats):
            odds[t, s] = odds[t, s] / total


def qualities(
    const double[:, ::1] chances,
    const double[:, ::1] points,
    const long long[::1] ends,
    const long long[:, ::1] winners,
    const long long[:, ::1] scores,
    double threshold,
    double floor,
):
    """Each game's metrics (``sims.quality.quality``) of a batch: ``chances`` and ``points``
    are every game's positions one game after another (positions x seats, the last row of a
    game its result), ``ends`` where each game's rows end, ``winners`` each game's winning
    seats in order (-1 after them), ``scores`` each seat's final total. Returns a dict of
    columns (``decisive_at`` -1 and ``decisive_fraction`` nan where ``quality`` has None)."""
    cdef Py_ssize_t games, g, t, start = 0, end, n, i, total
    cdef int seats, s, k, w
    games = ends.shape[0]
    seats = chances.shape[1]
    total = chances.shape[0]
    if points.shape[0] != total or points.shape[1] != seats:
        raise ValueError("qualities: points and chances differ in shape")
    if winners.shape[0] != games or scores.shape[0] != games:
        raise ValueError("qualities: one winners and one scores row per game")
    if games and (ends[games - 1] != total):
        raise ValueError("qualities: the last game must end at the last row")
    out_positions = np.empty(games, np.int64)
    out_chance = np.empty(games, np.int64)
    out_points = np.empty(games, np.int64)
    out_drama = np.empty(games, np.float64)
    out_at = np.empty(games, np.int64)
    out_fraction = np.empty(games, np.float64)
    out_excitement = np.empty(games, np.float64)
    out_comeback = np.empty(games, np.float64)
    out_lowest = np.empty(games, np.float64)
    out_margin = np.empty(games, np.int64)
    cdef long long[::1] positions_v = out_positions, chance_v = out_chance
    cdef long long[::1] points_v = out_points, at_v = out_at, margin_v = out_margin
    cdef double[::1] drama_v = out_drama, fraction_v = out_fraction
    cdef double[::1] excitement_v = out_excitement, comeback_v = out_comeback
    cdef double[::1] lowest_v = out_lowest
    cdef double* win = <double*>malloc((total + 1) * sizeof(double))
    cdef double* work = <double*>malloc((total * seats + 1) * sizeof(double))
    cdef double rival, value, lowest, gap
    cdef bint is_winner, any_rival
    cdef long long best_winner, best_rival, at
    if win == NULL or work == NULL:
        free(win)
        free(work)
        raise MemoryError()
    try:
        for g in range(games):
            end = ends[g]
            n = end - start
            if n < 1 or winners[g, 0] < 0:
                raise ValueError(f"qualities: game {g} has no positions or no winner")
            # the winner's chance (the side's summed in the winners' order) and the best rival's
            for t in range(n):
                value = 0.0
                for k in range(seats):
                    w = winners[g, k]
                    if w < 0:
                        break
                    value += chances[start + t, w]
                win[t] = value
                any_rival = False
                rival = 0.0
                for s in range(seats):
                    is_winner = False
                    for k in range(seats):
                        if winners[g, k] == s:
                            is_winner = True
                            break
                    if is_winner:
                        continue
                    if not any_rival or chances[start + t, s] > rival:
                        rival = chances[start + t, s]
                        any_rival = True
                gap = rival - win[t]
                work[t] = gap if gap > 0.0 else 0.0  # np.maximum(0.0, gap)
            drama_v[g] = (0.0 + pairwise(work, n - 1)) / (n - 1) if n > 1 else 0.0
            at = -1
            if win[n - 1] > threshold:
                at = 0
                for t in range(n - 1, -1, -1):
                    if not win[t] > threshold:
                        at = t + 1
                        break
            at_v[g] = at
            if at < 0:
                fraction_v[g] = NAN
            else:
                fraction_v[g] = (<double>at) / (n - 1) if n > 1 else 0.0
            lowest = win[0]
            for t in range(1, n):
                if win[t] < lowest:
                    lowest = win[t]
            lowest_v[g] = lowest
            comeback_v[g] = 1.0 / (floor if floor > lowest else lowest)
            i = 0
            for t in range(1, n):
                for s in range(seats):
                    value = chances[start + t, s] - chances[start + t - 1, s]
                    work[i] = fabs(value)
                    i += 1
            excitement_v[g] = (0.0 + pairwise(work, i)) / 2 if i else 0.0
            positions_v[g] = n
            chance_v[g] = lead_changes(&chances[start, 0], n, seats)
            points_v[g] = lead_changes(&points[start, 0], n, seats)
            best_winner = scores[g, winners[g, 0]]
            for k in range(1, seats):
                w = winners[g, k]
                if w < 0:
                    break
                if scores[g, w] > best_winner:
                    best_winner = scores[g, w]
            any_rival = False
            best_rival = 0
            for s in range(seats):
                is_winner = False
                for k in range(seats):
                    if winners[g, k] == s:
                        is_winner = True
                        break
                if not is_winner and (not any_rival or scores[g, s] > best_rival):
                    best_rival = scores[g, s]
                    any_rival = True
            margin_v[g] = best_winner - best_rival if any_rival else 0
            start = end
    finally:
        free(win)
        free(work)
    return {
        "positions": out_positions,
        "lead_changes_chance": out_chance,
        "lead_changes_points": out_points,
        "drama": out_drama,
        "decisive_at": out_at,
        "decisive_fraction": out_fraction,
        "excitement": out_excitement,
        "comeback": out_comeback,
        "lowest_chance": out_lowest,
        "final_margin": out_margin,
    }
