# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The result rows of a game the native loop finished, written straight from its C state
into a batch's columns.

Building a row as a Python dict and handing the batch's dicts to Arrow cost a worker more
than the game itself. ``add_finished`` writes each value of the games, seats and
destinations rows into ``Columns``: one growable block of 64-bit slots per table, a row at a
time, text as a code into the column's dictionary (its values in order of first appearance,
as Arrow's own dictionary builder orders them). ``sims.rows`` turns a block into an Arrow
table in the results schema; the tables equal those Arrow builds from the Python path's
dict rows, so the Parquet files stay byte for byte the same (tests/sims/test_native_rows.py).
"""

from libc.stdint cimport int64_t, INT64_MIN
from libc.stdlib cimport calloc, free, malloc, realloc
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.string cimport memcpy

from cardgame._native._core cimport (
    CCatalogue,
    CScore,
    CState,
    MAX_DEST_ID,
    MAX_SEATS,
    NativeState,
    PH_OVER,
    score_c,
    winners_c,
)
from sims._native._offers cimport (
    OFFER_DESTINATION,
    OFFER_FIELDS,
    OFFER_KEPT,
    OFFER_ROUND,
    OFFER_SEAT,
    OFFER_TURN,
)

# the slot of a missing whole number (Arrow null); no count of the game comes near it
NULL_SLOT = INT64_MIN

# each column's position by name (GAMES_TURNS, SEATS_SCORE ...) and each table's names
# (COLUMNS), generated from the results schema: python -m sims.columns (sims/columns.py)
include "_columns.pxi"


def compiled_columns():
    """The column positions this module was compiled with (tests/test_contract.py compares
    them with the schema's: a stale build writes values under the wrong names)."""
    return column_values()


cdef class Columns:
    """One table's rows of a batch, column by column: ``rows`` rows of ``len(names)``
    64-bit slots (a whole number, a bool as 0/1, a float's bits, a text's code, or
    ``NULL_SLOT``), and each text column's dictionary. Pickles as its bytes (a batch
    replayed in another process sends its result back)."""

    cdef readonly tuple names
    cdef readonly Py_ssize_t rows
    cdef Py_ssize_t width, capacity
    cdef int64_t* data
    cdef list dictionaries  # per column: its texts by code, or None
    cdef list codes         # per column: text -> code, or None
    cdef Py_ssize_t* sizes  # per column: how many texts its dictionary holds
    cdef Py_ssize_t* saved  # ``save``'s rows, then each column's size then

    def __cinit__(self, tuple names):
        if not names:  # realloc of no bytes frees the block: a table has columns
            raise ValueError("a block of rows needs at least one column")
        self.names = names
        self.width = len(names)
        self.rows = self.capacity = 0
        self.data = NULL
        self.dictionaries = [None] * self.width
        self.codes = [None] * self.width
        self.sizes = <Py_ssize_t*>calloc(2 * self.width + 1, sizeof(Py_ssize_t))
        if self.sizes == NULL:
            raise MemoryError()
        self.saved = self.sizes + self.width

    def __dealloc__(self):
        free(self.data)
        free(self.sizes)

    cdef int64_t* new_row(self) except NULL:
        """The slots of one more row (the block grows by half when full)."""
        cdef Py_ssize_t capacity
        cdef int64_t* grown
        if self.rows == self.capacity:
            capacity = self.capacity + self.capacity // 2 + 64
            grown = <int64_t*>realloc(self.data, capacity * self.width * sizeof(int64_t))
            if grown == NULL:
                raise MemoryError()
            self.data, self.capacity = grown, capacity
        self.rows += 1
        return self.data + (self.rows - 1) * self.width

    cdef int64_t text(self, Py_ssize_t column, str value) except -1:
        """The code of ``value`` in the column's dictionary, added when new."""
        cdef dict codes = self.codes[column]
        if codes is None:
            codes = self.codes[column] = {}
            self.dictionaries[column] = []
        code = codes.get(value)
        if code is None:
            code = codes[value] = len(codes)
            (<list>self.dictionaries[column]).append(value)
            self.sizes[column] += 1
        return code

    def dictionary(self, Py_ssize_t column):
        """The texts of a text column by code (empty for a column with no row)."""
        texts = self.dictionaries[column]
        return [] if texts is None else list(texts)

    def mark(self):
        """Where the block stands: ``rollback`` returns to it."""
        return self.rows, tuple([self.sizes[column] for column in range(self.width)])

    def rollback(self, mark):
        """Forget the rows and texts added since ``mark``: a game that failed while its
        rows were written leaves nothing behind (its failure row takes their place)."""
        cdef Py_ssize_t column
        rows, sizes = mark
        if not 0 <= rows <= self.rows or len(sizes) != self.width:
            raise ValueError(f"no mark at {rows} rows in a block of {self.rows}")
        for column in range(self.width):
            if not 0 <= sizes[column] <= self.sizes[column]:
                raise ValueError(f"no mark at {sizes[column]} texts in column {column}")
        self.saved[self.width] = rows
        for column in range(self.width):
            self.saved[column] = sizes[column]
        self.restore()

    cdef void save(self) noexcept:
        """``mark`` in C, kept in the block: ``restore`` returns to it."""
        memcpy(self.saved, self.sizes, self.width * sizeof(Py_ssize_t))
        self.saved[self.width] = self.rows

    cdef int restore(self) except -1:
        """``rollback`` to where ``save`` left the block."""
        cdef Py_ssize_t column, size
        self.rows = self.saved[self.width]
        for column in range(self.width):
            size = self.saved[column]
            if size < self.sizes[column]:
                texts = <list>self.dictionaries[column]
                for value in texts[size:]:
                    del self.codes[column][value]
                del texts[size:]
                self.sizes[column] = size
        return 0

    def slots(self):
        """The rows' slots as bytes, row after row."""
        return (<char*>self.data)[:self.rows * self.width * sizeof(int64_t)]

    def column_slots(self):
        """The rows' slots as bytes, column after column: what an Arrow table is built
        from (a strided copy in numpy cost about three times as much)."""
        cdef Py_ssize_t row, column, rows = self.rows, width = self.width
        cdef bytes out = PyBytes_FromStringAndSize(NULL, rows * width * sizeof(int64_t))
        cdef int64_t* to = <int64_t*>PyBytes_AS_STRING(out)
        cdef const int64_t* source = self.data
        for row in range(rows):  # read in order; each column's writes are in order too
            for column in range(width):
                to[column * rows + row] = source[column]
            source += width
        return out

    def __reduce__(self):
        return (_restored, (self.names, self.rows, self.slots(), self.dictionaries))


def _restored(tuple names, Py_ssize_t rows, bytes slots, list dictionaries):
    cdef Columns columns = Columns(names)
    cdef Py_ssize_t i
    if rows < 0 or len(slots) != rows * columns.width * <Py_ssize_t>sizeof(int64_t):
        raise ValueError(f"{len(slots)} bytes are not {rows} rows of {columns.width} slots")
    if len(dictionaries) != columns.width:
        raise ValueError(f"{len(dictionaries)} dictionaries for {columns.width} columns")
    for i in range(rows):
        columns.new_row()
    if rows:
        memcpy(columns.data, <char*>slots, len(slots))
    for i, texts in enumerate(dictionaries):
        if texts is not None:
            for value in texts:
                columns.text(i, value)
    return columns


cdef inline int64_t float_slot(double value) noexcept:
    cdef int64_t slot
    memcpy(&slot, &value, sizeof(double))
    return slot


cdef int base_slots(Columns table, tuple base, int64_t* slots) except -1:
    """The slots every row of ``table`` starts with (the ``BASE_`` columns, ``base`` their
    values in that order): study, cell, variant as text codes; worked out once per game and
    table, copied into each of its rows."""
    slots[BASE_STUDY] = table.text(BASE_STUDY, base[BASE_STUDY])
    slots[BASE_CELL] = table.text(BASE_CELL, base[BASE_CELL])
    slots[BASE_VARIANT] = table.text(BASE_VARIANT, base[BASE_VARIANT])
    slots[BASE_PLAYERS] = base[BASE_PLAYERS]
    slots[BASE_GAME_INDEX] = base[BASE_GAME_INDEX]
    slots[BASE_SEED] = base[BASE_SEED]
    return 0


cdef inline void put_base(int64_t* row, const int64_t* slots) noexcept:
    """A row's ``BASE_`` columns: every table's first ``BASE_SLOTS`` (sims/columns.py)."""
    memcpy(row, slots, BASE_SLOTS * sizeof(int64_t))


cdef object _names_of = None  # the catalogue whose big-city names _names holds (kept alive)
cdef tuple _names = ()


cdef tuple big_city_names(object catalogue):
    """``catalogue.big_city_names`` (a tuple built per call), kept for the last catalogue."""
    global _names_of, _names
    if catalogue is not _names_of:
        _names = tuple(catalogue.big_city_names)
        _names_of = catalogue
    return _names


cdef int scored(NativeState state, CScore* sc, int* won, long long* total) noexcept:
    """Score a finished game: each seat's ``CScore`` and final total, the winners (R22) in
    ``won``; returns how many."""
    cdef int seat
    score_c(&state.s, &state.cat, sc)
    for seat in range(state.s.players):
        total[seat] = sc[seat].destination_points - sc[seat].penalties + sc[seat].bonus_points
    return winners_c(sc, state.s.players, won)


def final_scores(NativeState state):
    """The winners and each seat's final total of a finished game (what ``quality_row``
    reads), as ``add_finished`` scores it."""
    cdef CScore sc[MAX_SEATS]
    cdef int won[MAX_SEATS]
    cdef long long total[MAX_SEATS]
    cdef int n_won, seat
    if state.s.phase != PH_OVER:
        raise ValueError("the game is not over: no scores yet")
    n_won = scored(state, sc, won, total)
    return [won[seat] for seat in range(n_won)], [total[seat] for seat in range(state.s.players)]


def add_finished(
    Columns games, Columns seats, Columns destinations, NativeState state, tuple base,
    labels, bytes offers, double minutes,
):
    """Write the games row, seat rows and destination rows of a game played to its end
    without a failure, the values ``sims.match`` gives for it (``game_row``, ``_seat_rows``,
    ``_destination_rows``): all of them, or, if anything fails on the way, none (the blocks
    are as they were, their texts included).

    ``base``: (study, cell, variant, players, game index, seed); ``labels``: each seat's
    strategy label; ``offers``: ``play_native``'s packed offers (``offer_rows`` False:
    ``OFFER_FIELDS`` C ints each, sims/_native/_offers.pxd); ``minutes``: the table clock's
    (nan without one).
    """
    if state.s.phase != PH_OVER:
        raise ValueError("the game is not over: no result rows yet")
    if len(labels) != state.s.players:
        raise ValueError(f"{len(labels)} labels for {state.s.players} seats")
    if len(base) != BASE_SLOTS:
        raise ValueError(f"a base of {len(base)} values, not {BASE_SLOTS}")
    if games.names != COLUMNS["games"] or seats.names != COLUMNS["seats"] or (
        destinations.names != COLUMNS["destinations"]
    ):
        raise ValueError("columns of other tables than games, seats, destinations")
    if len(offers) % (OFFER_FIELDS * sizeof(int)):
        raise ValueError(f"{len(offers)} bytes of offers: not whole offers")
    games.save()
    seats.save()
    destinations.save()
    try:
        write_rows(games, seats, destinations, state, base, list(labels), offers, minutes)
    except BaseException:
        games.restore()
        seats.restore()
        destinations.restore()
        raise


cdef int write_rows(
    Columns games, Columns seats, Columns destinations, NativeState state, tuple base,
    list labels, bytes offers, double minutes,
) except -1:
    """``add_finished``'s rows, written in order (a failure leaves some)."""
    cdef CState* s = &state.s
    cdef CCatalogue* cat = &state.cat
    cdef CScore sc[MAX_SEATS]
    cdef int won[MAX_SEATS]
    cdef long long total[MAX_SEATS]
    cdef bint is_winner[MAX_SEATS]
    cdef int64_t seat_code[MAX_SEATS]
    cdef int players = s.players, n_won, seat, i, b, k, rank, hand, circulation, steals = 0
    cdef int64_t* row
    cdef int64_t base_row[BASE_SLOTS]
    cdef Py_ssize_t n_offers = len(offers) // (OFFER_FIELDS * sizeof(int)), o
    cdef const int* packed = <const int*><const char*>offers
    cdef Py_ssize_t* order
    n_won = scored(state, sc, won, total)
    for seat in range(players):
        is_winner[seat] = False
        steals += s.steals[seat]
    for i in range(n_won):
        is_winner[won[i]] = True
    winners = [won[i] for i in range(n_won)]

    row = games.new_row()
    base_slots(games, base, base_row)
    put_base(row, base_row)
    row[GAMES_SEATS] = games.text(GAMES_SEATS, "|".join(labels))
    row[GAMES_WINNERS] = games.text(GAMES_WINNERS, "|".join([str(w) for w in winners]))
    row[GAMES_WINNER_STRATEGIES] = games.text(
        GAMES_WINNER_STRATEGIES, "|".join([labels[w] for w in winners]))
    row[GAMES_N_WINNERS] = n_won
    row[GAMES_TURNS] = s.turn
    row[GAMES_ROUNDS] = s.round
    row[GAMES_SIM_MINUTES] = float_slot(minutes)
    row[GAMES_STEALS] = steals
    row[GAMES_FAILED] = False
    row[GAMES_FAILURE_SEAT] = -1
    row[GAMES_FAILURE_STRATEGY] = games.text(GAMES_FAILURE_STRATEGY, "")
    row[GAMES_FAILURE_ERROR] = games.text(GAMES_FAILURE_ERROR, "")

    names = big_city_names(state.game.catalogue)
    share = 1.0 / n_won
    base_slots(seats, base, base_row)
    for seat in range(players):
        seat_code[seat] = seats.text(SEATS_STRATEGY, labels[seat])
    for seat in range(players):
        rank = 1
        for i in range(players):
            rank += total[i] > total[seat]
        hand = circulation = 0
        for k in range(s.colours + 1):
            hand += s.hands[seat][k]
            circulation += s.circulation[seat][k]
        big = [names[b] for b in range(cat.n_big) if sc[seat].big[b]]
        row = seats.new_row()
        put_base(row, base_row)
        row[SEATS_SEAT] = seat
        row[SEATS_STRATEGY] = seat_code[seat]
        row[SEATS_SCORE] = total[seat]
        row[SEATS_DESTINATION_POINTS] = sc[seat].destination_points
        row[SEATS_PENALTIES] = sc[seat].penalties
        row[SEATS_BONUS_POINTS] = sc[seat].bonus_points
        row[SEATS_BIG_CITIES] = seats.text(SEATS_BIG_CITIES, "|".join(big))
        row[SEATS_N_BIG_CITIES] = len(big)
        row[SEATS_KEPT] = s.reached_n[seat] + s.held_n[seat]
        row[SEATS_REACHED] = s.reached_n[seat]
        row[SEATS_UNREACHED] = s.held_n[seat]
        row[SEATS_IS_WINNER] = is_winner[seat]
        row[SEATS_WIN_SHARE] = float_slot(share if is_winner[seat] else 0.0)
        row[SEATS_RANK] = rank
        row[SEATS_HAND_LEFT] = hand
        row[SEATS_CIRCULATION_END] = circulation
        row[SEATS_STEALS_MADE] = s.steals[seat]
        row[SEATS_STEALS_SUFFERED] = s.stolen_from[seat]
        # GameState.round_points holds the rounds played: all of them once the game is over
        row[SEATS_ROUND1_POINTS] = s.round_points[seat][0] if s.round >= 1 else 0
        row[SEATS_ROUND2_POINTS] = s.round_points[seat][1] if s.round >= 2 else INT64_MIN

    for seat in range(players):
        seat_code[seat] = -1  # a label enters the dictionary with its seat's first offer
    if n_offers:  # no text enters a dictionary without a row
        base_slots(destinations, base, base_row)
    order = <Py_ssize_t*>malloc((n_offers + 1) * sizeof(Py_ssize_t))
    if order == NULL:
        raise MemoryError()
    try:
        for o in range(n_offers):  # C reads what they index: refuse what is not this game's
            seat = packed[o * OFFER_FIELDS + OFFER_SEAT]
            i = packed[o * OFFER_FIELDS + OFFER_DESTINATION]
            if not (0 <= seat < players and 1 <= i <= MAX_DEST_ID):
                raise ValueError(f"an offer of destination {i} to seat {seat}: not this game's")
        key_order(packed, order, n_offers)
        for o in range(n_offers):
            write_offer(destinations, packed + order[o] * OFFER_FIELDS, s, cat, base_row,
                        labels, seat_code)
    finally:
        free(order)
    return 0


cdef int key_order(const int* offers, Py_ssize_t* order, Py_ssize_t n) except -1:
    """The offers in the destinations table's key order within a game (seat, turn offered,
    destination id: ``sims.schema.SORT_KEYS``), so the compaction finds a batch's rows
    sorted and copies nothing; insertion sort, the offers being few and nearly sorted."""
    cdef int64_t* keys = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    cdef Py_ssize_t i, j, moving
    cdef int64_t key
    cdef const int* offer
    if keys == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            offer = offers + i * OFFER_FIELDS
            # seat < 2**15, turn < 2**32, destination id < 2**16: one ordered number
            keys[i] = ((<int64_t>offer[OFFER_SEAT]) << 48) | (
                (<int64_t>offer[OFFER_TURN]) << 16) | offer[OFFER_DESTINATION]
            order[i] = i
        for i in range(1, n):
            moving = order[i]
            key = keys[moving]
            j = i
            while j > 0 and keys[order[j - 1]] > key:
                order[j] = order[j - 1]
                j -= 1
            order[j] = moving
    finally:
        free(keys)
    return 0


cdef int write_offer(
    Columns destinations, const int* offer, CState* s, CCatalogue* cat, const int64_t* base_row,
    list labels, int64_t* seat_code,
) except -1:
    """One destination row: an offered card, whether it was kept and reached."""
    cdef int seat, dest, offered_turn, offered_round, points, i
    cdef bint kept, reached
    cdef int64_t* row
    seat, dest = offer[OFFER_SEAT], offer[OFFER_DESTINATION]
    offered_turn, offered_round, kept = offer[OFFER_TURN], offer[OFFER_ROUND], offer[OFFER_KEPT]
    points = cat.dest[dest].points
    # GameState.reached_round names a destination some seat reached, in a round played
    reached = False
    if kept and 1 <= s.reached_round[dest] <= s.round:
        for i in range(s.reached_n[seat]):
            if s.reached[seat][i] == dest:
                reached = True
                break
    row = destinations.new_row()
    put_base(row, base_row)
    row[DESTINATIONS_SEAT] = seat
    row[DESTINATIONS_DESTINATION_ID] = dest
    row[DESTINATIONS_OFFERED_TURN] = offered_turn
    row[DESTINATIONS_OFFERED_ROUND] = offered_round
    row[DESTINATIONS_KEPT] = kept
    if seat_code[seat] < 0:
        seat_code[seat] = destinations.text(DESTINATIONS_STRATEGY, labels[seat])
    row[DESTINATIONS_STRATEGY] = seat_code[seat]
    row[DESTINATIONS_POINTS] = points
    row[DESTINATIONS_CARDS] = cat.dest[dest].ncolours
    row[DESTINATIONS_REACHED] = reached
    row[DESTINATIONS_REACHED_ROUND] = s.reached_round[dest] if reached else INT64_MIN
    row[DESTINATIONS_NET_POINTS] = (points if reached else -points) if kept else 0
    return 0
