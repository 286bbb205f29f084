# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""A finished game's record written as JSON by C, from the core's own log (``record="log"``).

``record_line(ns, strategies)`` is ``json.dumps(to_record(ns, strategies), separators=(",",
":"))`` encoded, byte for byte, with no dict made: the record's fields are written from the
state's log of events (``EV_*``, ``_core.pxd``) and its final state, twice, as the JSONL line
writes them (the order ``record._content`` makes them in) and as the canonical text its digest
hashes (keys sorted, ``record.digest_of``). ``record.to_record`` stays the reference
(tests/sims/test_record_writer.py compares the two over many games).

Every string of a record (card, colour and big-city names, edition and strategy names, the
fields ``record.record_head`` gives) is written by ``json.dumps`` itself, once per game's
cards or per strategy name: any Unicode is escaped exactly as there. The C code writes only
whole numbers, ``true``/``false``/``null`` and the keys below, all ASCII. A record holds no
float but in ``record_head``'s fields (``rules``), which are json's text too.
"""

import json as _json
from hashlib import sha256 as _sha256

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, strlen

from cardgame._native._core cimport (
    CScore,
    CState,
    EV_ACTION,
    EV_DEALT,
    EV_DESTINATIONS,
    EV_KEPT,
    EV_PICK,
    EV_RESOLUTION,
    EV_ROUND,
    EV_SHUFFLE,
    EV_STEAL,
    EV_TURN,
    EV_TURN_END,
    EV_WIPE,
    K_COLUMN,
    K_DRAW_DECK,
    K_DRAW_DESTINATIONS,
    K_FACE_UP,
    K_THREE,
    MAX_BIG_CITIES,
    MAX_CARD_KINDS,
    MAX_SEATS,
    NO_CARD,
    NativeState,
    PH_OVER,
    score_c,
    winners_c,
)

from cardgame.errors import RecordError as _RecordError
from cardgame.record import record_head as _record_head
from cardgame.record_schema import DIGEST_PREFIX as _DIGEST_PREFIX
from cardgame.record_schema import SHUFFLE_KINDS as _SHUFFLE_KINDS


# ---------------------------------------------------------------------------- the text
cdef struct Text:
    char* p
    Py_ssize_t n
    Py_ssize_t cap


cdef int grow(Text* t, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap = t.cap if t.cap else 1 << 15
    cdef char* grown
    while cap < t.n + more:
        cap *= 2
    grown = <char*>realloc(t.p, cap)
    if grown == NULL:
        raise MemoryError()
    t.p = grown
    t.cap = cap
    return 0


cdef inline int put(Text* t, const char* s, Py_ssize_t n) except -1:
    if t.n + n > t.cap:
        grow(t, n)
    memcpy(t.p + t.n, s, n)
    t.n += n
    return 0


cdef inline int put_s(Text* t, const char* s) except -1:
    return put(t, s, strlen(s))


cdef inline int put_c(Text* t, char c) except -1:
    if t.n + 1 > t.cap:
        grow(t, 1)
    t.p[t.n] = c
    t.n += 1
    return 0


cdef int put_int(Text* t, long long v) except -1:
    """``v`` as ``repr`` writes a whole number."""
    cdef char digits[24]
    cdef int k = 24
    cdef unsigned long long u = <unsigned long long>(-v) if v < 0 else <unsigned long long>v
    while True:
        k -= 1
        digits[k] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if v < 0:
        k -= 1
        digits[k] = b'-'
    return put(t, digits + k, 24 - k)


cdef inline int put_bool(Text* t, bint v) except -1:
    return put(t, "true", 4) if v else put(t, "false", 5)


cdef int put_ints(Text* t, const int* x, int n) except -1:
    cdef int i
    put_c(t, b'[')
    for i in range(n):
        if i:
            put_c(t, b',')
        put_int(t, x[i])
    return put_c(t, b']')


# ---------------------------------------------------------------------------- a game's form
cdef class Form:
    """What a record's text takes from its game's rules, players and cards: its head fields'
    text (``record_head``, both orders) and each name's JSON text."""

    cdef object rules, catalogue
    cdef int players
    cdef list keep          # the bytes the pointers below point into
    # each field as ``"key":`` and its JSON text (None: written from the game), in the
    # record's order and sorted by key
    cdef list line_fields
    cdef list canonical_fields
    cdef const char* card[MAX_CARD_KINDS]
    cdef Py_ssize_t card_n[MAX_CARD_KINDS]
    cdef int kinds
    cdef const char* colour[MAX_CARD_KINDS]
    cdef Py_ssize_t colour_n[MAX_CARD_KINDS]
    cdef const char* big[MAX_BIG_CITIES]
    cdef Py_ssize_t big_n[MAX_BIG_CITIES]
    cdef const char* shuffle[4]
    cdef Py_ssize_t shuffle_n[4]
    cdef dict labels        # strategy name -> its JSON text

    def __init__(self, game):
        cdef int i
        catalogue = game.catalogue
        self.rules, self.catalogue, self.players = game.rules, catalogue, game.players
        self.keep = []
        head = _record_head(game)
        line = {k: _json.dumps(v, separators=(",", ":")) for k, v in head.items()}
        canonical = {
            k: _json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
            for k, v in head.items()
        }
        self.line_fields = [field(k, line.get(k)) for k in [*head, *PLAYED]]
        self.canonical_fields = [field(k, canonical.get(k)) for k in sorted([*head, *PLAYED])]
        names = catalogue.card_names
        colours = catalogue.colours
        bigs = catalogue.big_city_names
        if len(names) > MAX_CARD_KINDS or len(bigs) > MAX_BIG_CITIES or len(_SHUFFLE_KINDS) != 4:
            raise ValueError("cards outside the record writer's arrays")
        self.kinds = len(names)
        for i, name in enumerate(names):
            self.text(name, &self.card[i], &self.card_n[i])
        for i, name in enumerate(colours):
            self.text(name, &self.colour[i], &self.colour_n[i])
        for i, name in enumerate(bigs):
            self.text(name, &self.big[i], &self.big_n[i])
        for i, name in enumerate(_SHUFFLE_KINDS):
            self.text(name, &self.shuffle[i], &self.shuffle_n[i])
        self.labels = {}

    cdef int text(self, object value, const char** out, Py_ssize_t* n) except -1:
        """``value``'s JSON text, kept alive by the form, at ``out``."""
        cdef bytes data = _json.dumps(value).encode("ascii")
        self.keep.append(data)
        out[0] = PyBytes_AS_STRING(data)
        n[0] = PyBytes_GET_SIZE(data)
        return 0

    cdef bint fits(self, object game):
        return (
            game.rules is self.rules
            and game.catalogue is self.catalogue
            and game.players == self.players
        )

    cdef bytes label(self, object name):
        cdef bytes text = self.labels.get(name)
        if text is None:
            text = _json.dumps(name).encode("ascii")
            if len(self.labels) < 1024:
                self.labels[name] = text
        return text

    cdef inline int put_card(self, Text* t, int card) except -1:
        """A card's name; an empty slot (-1) reads the last kind's name, as Python indexes
        ``card_names[-1]`` (``_core.card_name``)."""
        if card < 0:
            card += self.kinds
        return put(t, self.card[card], self.card_n[card])

    cdef int put_slot(self, Text* t, int card) except -1:
        """A face-up slot's card, ``null`` when empty."""
        if card == NO_CARD:
            return put(t, "null", 4)
        return self.put_card(t, card)

    cdef int put_cards(self, Text* t, const int* cards, int n) except -1:
        cdef int i
        put_c(t, b'[')
        for i in range(n):
            if i:
                put_c(t, b',')
            self.put_card(t, cards[i])
        return put_c(t, b']')

    cdef int put_hand(self, Text* t, const int* counts) except -1:
        """A hand of counts as its cards' names, in card order."""
        cdef int card, i
        cdef bint first = True
        put_c(t, b'[')
        for card in range(self.kinds):
            for i in range(counts[card]):
                if not first:
                    put_c(t, b',')
                first = False
                put(t, self.card[card], self.card_n[card])
        return put_c(t, b']')


cdef tuple field(str key, object text):
    return (f"{_json.dumps(key)}:").encode("ascii"), key, None if text is None else text.encode("ascii")


cdef Form last_form = None


cdef Form form_of(object game):
    global last_form
    if last_form is None or not last_form.fits(game):
        last_form = Form(game)
    return last_form


# ---------------------------------------------------------------------------- the fields
cdef int put_shuffles(Text* t, NativeState ns, Form f) except -1:
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    cdef bint first = True
    cdef int n
    put_c(t, b'[')
    while e < end:
        if e[0] == EV_SHUFFLE:
            if not first:
                put_c(t, b',')
            first = False
            put_s(t, "{\"kind\":")
            put(t, f.shuffle[e[1]], f.shuffle_n[e[1]])
            put_s(t, ",\"order\":")
            n = e[3]
            if e[2]:
                f.put_cards(t, e + 4, n)
            else:
                put_ints(t, e + 4, n)
            put_c(t, b'}')
        e = next_event(e, &ns.s)
    return put_c(t, b']')


cdef int put_setup(Text* t, NativeState ns) except -1:
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    cdef const int* x
    cdef bint first = True
    cdef int seat
    put_s(t, "{\"dealt\":[")
    while e < end:
        if e[0] == EV_DEALT:
            x = e + 1
            for seat in range(ns.s.players):
                if seat:
                    put_c(t, b',')
                put_ints(t, x + 1, x[0])
                x += 1 + x[0]
            break
        e = next_event(e, &ns.s)
    put_s(t, "],\"kept\":[")
    e = ns.log
    while e < end:
        if e[0] == EV_KEPT:
            if not first:
                put_c(t, b',')
            first = False
            put_ints(t, e + 2, e[1])
        e = next_event(e, &ns.s)
    return put_s(t, "]}")


cdef int put_rounds(Text* t, NativeState ns, Form f, bint canonical) except -1:
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    cdef const CState* s = &ns.s
    cdef int width = s.rules.face_up, kinds = s.colours + 1
    cdef bint first = True
    cdef int seat, i
    cdef const int* hands
    cdef int deck
    put_c(t, b'[')
    while e < end:
        if e[0] == EV_ROUND:
            if not first:
                put_c(t, b',')
            first = False
            hands = e + 2 + width
            deck = hands[s.players * kinds]
            if canonical:
                put_s(t, "{\"deck_size\":")
                put_int(t, deck)
                put_s(t, ",\"face_up\":[")
            else:
                put_s(t, "{\"round\":")
                put_int(t, e[1])
                put_s(t, ",\"face_up\":[")
            for i in range(width):
                if i:
                    put_c(t, b',')
                f.put_slot(t, e[2 + i])
            put_s(t, "],\"hands\":[")
            for seat in range(s.players):
                if seat:
                    put_c(t, b',')
                f.put_hand(t, hands + seat * kinds)
            if canonical:
                put_s(t, "],\"round\":")
                put_int(t, e[1])
            else:
                put_s(t, "],\"deck_size\":")
                put_int(t, deck)
            put_c(t, b'}')
        e = next_event(e, &ns.s)
    return put_c(t, b']')


cdef int put_action(Text* t, const int* a, Form f, bint canonical) except -1:
    """``actions.to_dict`` of a turn's action (kind, a, b, c)."""
    cdef int kind = a[0], i
    if kind == K_DRAW_DECK:
        return put_s(t, "{\"type\":\"draw_deck\"}")
    if kind == K_FACE_UP:
        if canonical:
            put_s(t, "{\"slot\":")
            put_int(t, a[1])
            return put_s(t, ",\"type\":\"draw_face_up\"}")
        put_s(t, "{\"type\":\"draw_face_up\",\"slot\":")
        put_int(t, a[1])
        return put_c(t, b'}')
    if kind == K_COLUMN:
        if canonical:
            put_s(t, "{\"colour\":")
            put(t, f.colour[a[1]], f.colour_n[a[1]])
            put_s(t, ",\"locos\":")
            put_int(t, a[3])
            put_s(t, ",\"type\":\"place_column\",\"wagons\":")
            put_int(t, a[2])
            return put_c(t, b'}')
        put_s(t, "{\"type\":\"place_column\",\"colour\":")
        put(t, f.colour[a[1]], f.colour_n[a[1]])
        put_s(t, ",\"wagons\":")
        put_int(t, a[2])
        put_s(t, ",\"locos\":")
        put_int(t, a[3])
        return put_c(t, b'}')
    if kind == K_THREE:
        put_s(t, "{\"colours\":[" if canonical else "{\"type\":\"place_three\",\"colours\":[")
        for i in range(3):
            if i:
                put_c(t, b',')
            put(t, f.colour[a[1 + i]], f.colour_n[a[1 + i]])
        return put_s(t, "],\"type\":\"place_three\"}" if canonical else "]}")
    if kind == K_DRAW_DESTINATIONS:
        return put_s(t, "{\"type\":\"draw_destinations\"}")
    return put_s(t, "{\"type\":\"pass\"}")


cdef int put_pick(Text* t, const int* p, Form f, bint canonical) except -1:
    """A pick (from, slot, card, refill)."""
    if p[0] == 0:
        if canonical:
            put_s(t, "{\"card\":")
            f.put_card(t, p[2])
            return put_s(t, ",\"from\":\"deck\"}")
        put_s(t, "{\"from\":\"deck\",\"card\":")
        f.put_card(t, p[2])
        return put_c(t, b'}')
    if canonical:
        put_s(t, "{\"card\":")
        f.put_card(t, p[2])
        put_s(t, ",\"from\":\"face_up\",\"refill\":")
        f.put_slot(t, p[3])
        put_s(t, ",\"slot\":")
        put_int(t, p[1])
        return put_c(t, b'}')
    put_s(t, "{\"from\":\"face_up\",\"slot\":")
    put_int(t, p[1])
    put_s(t, ",\"card\":")
    f.put_card(t, p[2])
    put_s(t, ",\"refill\":")
    f.put_slot(t, p[3])
    return put_c(t, b'}')


cdef int put_steal(Text* t, const int* p, Form f, bint canonical) except -1:
    """A steal (victim, colour, wagons, locos)."""
    if canonical:
        put_s(t, "{\"colour\":")
        f.put_card(t, p[1])
        put_s(t, ",\"discarded\":{\"locos\":")
        put_int(t, p[3])
        put_s(t, ",\"wagons\":")
        put_int(t, p[2])
        put_s(t, "},\"victim\":")
        put_int(t, p[0])
        return put_c(t, b'}')
    put_s(t, "{\"victim\":")
    put_int(t, p[0])
    put_s(t, ",\"colour\":")
    f.put_card(t, p[1])
    put_s(t, ",\"discarded\":{\"wagons\":")
    put_int(t, p[2])
    put_s(t, ",\"locos\":")
    put_int(t, p[3])
    return put_s(t, "}}")


cdef int put_destinations(Text* t, const int* p) except -1:
    """The destinations drawn and kept (n, n ids, the kept mask)."""
    cdef int n = p[0], mask = p[n + 1], i
    cdef bint first = True
    put_s(t, "{\"drawn\":")
    put_ints(t, p + 1, n)
    put_s(t, ",\"kept\":[")
    for i in range(n):
        if mask >> i & 1:
            if not first:
                put_c(t, b',')
            first = False
            put_int(t, p[1 + i])
    return put_s(t, "]}")


cdef int put_events(Text* t, const int* e, const int* end, int tag, NativeState ns, Form f,
                    bint canonical) except -1:
    """``,"key":[...]`` of a turn's events ``tag`` (picks, wipes) when it has any; the key
    is written by the caller's first event."""
    cdef bint first = True
    while e < end:
        if e[0] == tag:
            if first:
                put_s(t, ",\"picks\":[" if tag == EV_PICK else ",\"wipes\":[")
            else:
                put_c(t, b',')
            first = False
            if tag == EV_PICK:
                put_pick(t, e + 1, f, canonical)
            else:
                f.put_cards(t, e + 1, ns.s.rules.face_up)
        e = next_event(e, &ns.s)
    if not first:
        put_c(t, b']')
    return 0


cdef const int* find(const int* e, const int* end, int tag, const CState* s) noexcept:
    """The first event ``tag`` from ``e`` on, or NULL."""
    while e < end:
        if e[0] == tag:
            return e
        e = next_event(e, s)
    return NULL


cdef int put_turn(Text* t, const int* e, const int* end, NativeState ns, Form f,
                  bint canonical) except -1:
    """One turn from its EV_TURN ``e`` to its EV_TURN_END ``end``."""
    cdef const int* action = find(e, end, EV_ACTION, &ns.s)
    cdef const int* steal = find(e, end, EV_STEAL, &ns.s)
    cdef const int* drawn = find(e, end, EV_DESTINATIONS, &ns.s)
    if canonical:
        put_c(t, b'{')
        if action != NULL:
            put_s(t, "\"action\":")
            put_action(t, action + 1, f, True)
            put_c(t, b',')
        if drawn != NULL:
            put_s(t, "\"destinations\":")
            put_destinations(t, drawn + 1)
            put_c(t, b',')
        put_s(t, "\"final_round\":")
        put_bool(t, e[4])
        put_events(t, e, end, EV_PICK, ns, f, True)
        put_s(t, ",\"round\":")
        put_int(t, e[3])
        put_s(t, ",\"seat\":")
        put_int(t, e[2])
        if steal != NULL:
            put_s(t, ",\"steal\":")
            put_steal(t, steal + 1, f, True)
        put_s(t, ",\"step1\":")
        f.put_cards(t, e + 6, e[5])
        put_s(t, ",\"turn\":")
        put_int(t, e[1])
        put_events(t, e, end, EV_WIPE, ns, f, True)
        return put_c(t, b'}')
    put_s(t, "{\"turn\":")
    put_int(t, e[1])
    put_s(t, ",\"seat\":")
    put_int(t, e[2])
    put_s(t, ",\"round\":")
    put_int(t, e[3])
    put_s(t, ",\"final_round\":")
    put_bool(t, e[4])
    put_s(t, ",\"step1\":")
    f.put_cards(t, e + 6, e[5])
    if action != NULL:
        put_s(t, ",\"action\":")
        put_action(t, action + 1, f, False)
    put_events(t, e, end, EV_PICK, ns, f, False)
    put_events(t, e, end, EV_WIPE, ns, f, False)
    if steal != NULL:
        put_s(t, ",\"steal\":")
        put_steal(t, steal + 1, f, False)
    if drawn != NULL:
        put_s(t, ",\"destinations\":")
        put_destinations(t, drawn + 1)
    return put_c(t, b'}')


cdef int put_turns(Text* t, NativeState ns, Form f, bint canonical) except -1:
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    cdef const int* start = NULL
    cdef bint first = True
    put_c(t, b'[')
    while e < end:
        if e[0] == EV_TURN:
            start = e
        elif e[0] == EV_TURN_END and start != NULL:
            if not first:
                put_c(t, b',')
            first = False
            put_turn(t, start, e, ns, f, canonical)
            start = NULL
        e = next_event(e, &ns.s)
    return put_c(t, b']')


cdef int put_resolutions(Text* t, NativeState ns, bint canonical) except -1:
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    cdef const int* x
    cdef bint first = True
    cdef int seat
    put_c(t, b'[')
    while e < end:
        if e[0] == EV_RESOLUTION:
            if not first:
                put_c(t, b',')
            first = False
            put_s(t, "{\"round\":")
            put_int(t, e[1])
            put_s(t, ",\"seats\":[")
            x = e + 2
            for seat in range(ns.s.players):
                if seat:
                    put_c(t, b',')
                if canonical:
                    put_s(t, "{\"reached\":")
                    put_ints(t, x + 1, x[0])
                    put_s(t, ",\"seat\":")
                    put_int(t, seat)
                else:
                    put_s(t, "{\"seat\":")
                    put_int(t, seat)
                    put_s(t, ",\"reached\":")
                    put_ints(t, x + 1, x[0])
                x += 1 + x[0]
                put_s(t, ",\"unreached\":")
                put_ints(t, x + 1, x[0])
                x += 1 + x[0]
                put_c(t, b'}')
            put_s(t, "]}")
        e = next_event(e, &ns.s)
    return put_c(t, b']')


cdef int put_final(Text* t, NativeState ns, Form f) except -1:
    cdef const CState* s = &ns.s
    cdef int i
    put_s(t, "{\"face_up\":[")
    for i in range(s.rules.face_up):
        if i:
            put_c(t, b',')
        f.put_slot(t, s.face_up[i])
    put_s(t, "],\"hands\":[")
    for i in range(s.players):
        if i:
            put_c(t, b',')
        f.put_hand(t, s.hands[i])
    return put_s(t, "]}")


cdef int put_score(Text* t, const CScore* sc, int seat, int n_big, Form f,
                   bint canonical) except -1:
    """``SeatScore.to_dict``."""
    cdef int b
    cdef bint first = True
    cdef int total = sc.destination_points - sc.penalties + sc.bonus_points
    if not canonical:
        put_s(t, "{\"seat\":")
        put_int(t, seat)
        put_s(t, ",\"total\":")
        put_int(t, total)
        put_s(t, ",\"destination_points\":")
        put_int(t, sc.destination_points)
        put_s(t, ",\"penalties\":")
        put_int(t, sc.penalties)
        put_s(t, ",")
    else:
        put_c(t, b'{')
    put_s(t, "\"big_city_bonuses\":[")
    for b in range(n_big):
        if sc.big[b]:
            if not first:
                put_c(t, b',')
            first = False
            put(t, f.big[b], f.big_n[b])
    put_s(t, "],\"bonus_points\":")
    put_int(t, sc.bonus_points)
    if canonical:
        put_s(t, ",\"destination_points\":")
        put_int(t, sc.destination_points)
        put_s(t, ",\"penalties\":")
        put_int(t, sc.penalties)
    put_s(t, ",\"reached\":")
    put_int(t, sc.reached)
    if canonical:
        put_s(t, ",\"seat\":")
        put_int(t, seat)
        put_s(t, ",\"total\":")
        put_int(t, total)
    return put_c(t, b'}')


cdef int put_result(Text* t, NativeState ns, Form f, bint canonical) except -1:
    cdef const CState* s = &ns.s
    cdef CScore sc[MAX_SEATS]
    cdef int won[MAX_SEATS]
    cdef int seat, i, n_won
    score_c(s, &ns.cat, sc)
    n_won = winners_c(sc, s.players, won)
    put_s(t, "{\"round_points\":[" if canonical else "{\"scores\":[")
    for seat in range(s.players):
        if seat:
            put_c(t, b',')
        if canonical:
            put_ints(t, s.round_points[seat], s.round)
        else:
            put_score(t, &sc[seat], seat, ns.cat.n_big, f, False)
    put_s(t, "],\"scores\":[" if canonical else "],\"round_points\":[")
    for seat in range(s.players):
        if seat:
            put_c(t, b',')
        if canonical:
            put_score(t, &sc[seat], seat, ns.cat.n_big, f, True)
        else:
            put_ints(t, s.round_points[seat], s.round)
    if canonical:
        put_s(t, "],\"steals\":")
        put_ints(t, s.steals, s.players)
        put_s(t, ",\"stolen_from\":")
        put_ints(t, s.stolen_from, s.players)
        put_s(t, ",\"turns\":")
        put_int(t, s.turn)
        put_s(t, ",\"winners\":")
        put_ints(t, won, n_won)
        return put_c(t, b'}')
    put_s(t, "],\"winners\":")
    put_ints(t, won, n_won)
    put_s(t, ",\"turns\":")
    put_int(t, s.turn)
    put_s(t, ",\"steals\":")
    put_ints(t, s.steals, s.players)
    put_s(t, ",\"stolen_from\":")
    put_ints(t, s.stolen_from, s.players)
    return put_c(t, b'}')


cdef const int* next_event(const int* e, const CState* s) noexcept:
    """The event after ``e`` (EV_*: each one's ints, _core.pxd)."""
    cdef int tag = e[0], seat, kinds = s.colours + 1
    cdef const int* x
    if tag == EV_SHUFFLE:
        return e + 4 + e[3]
    if tag == EV_DEALT:
        x = e + 1
        for seat in range(s.players):
            x += 1 + x[0]
        return x
    if tag == EV_KEPT:
        return e + 2 + e[1]
    if tag == EV_ROUND:
        return e + 3 + s.rules.face_up + s.players * kinds
    if tag == EV_TURN:
        return e + 6 + e[5]
    if tag == EV_ACTION or tag == EV_PICK or tag == EV_STEAL:
        return e + 5
    if tag == EV_WIPE:
        return e + 1 + s.rules.face_up
    if tag == EV_DESTINATIONS:
        return e + 3 + e[1]
    if tag == EV_RESOLUTION:
        x = e + 2
        for seat in range(s.players):
            x += 1 + x[0]
            x += 1 + x[0]
        return x
    return e + 1  # EV_TURN_END


# ---------------------------------------------------------------------------- the record
cdef bytes DIGEST_PREFIX_TEXT = _DIGEST_PREFIX.encode("ascii")
cdef const char* DIGEST_PREFIX = DIGEST_PREFIX_TEXT


cdef int put_hex(Text* t, bytes digest) except -1:
    """``digest`` in lower-case hex (``hexdigest``)."""
    cdef const unsigned char* d = <const unsigned char*>PyBytes_AS_STRING(digest)
    cdef const char* hex = "0123456789abcdef"
    cdef Py_ssize_t i
    for i in range(PyBytes_GET_SIZE(digest)):
        put_c(t, hex[d[i] >> 4])
        put_c(t, hex[d[i] & 15])
    return 0

# the fields after ``record_head``'s, in ``record._content``'s order
cdef tuple PLAYED = (
    "seed", "players", "strategies", "shuffles", "rounds", "setup", "turns", "resolutions",
    "final", "result",
)


cdef int put_field(Text* t, str key, NativeState ns, Form f, bytes seed, list labels,
                   bint canonical) except -1:
    cdef int i
    cdef bytes label
    if key == "seed":
        return put(t, PyBytes_AS_STRING(seed), PyBytes_GET_SIZE(seed))
    if key == "players":
        return put_int(t, ns.s.players)
    if key == "strategies":
        put_c(t, b'[')
        for i, name in enumerate(labels):
            if i:
                put_c(t, b',')
            label = f.label(name)
            put(t, PyBytes_AS_STRING(label), PyBytes_GET_SIZE(label))
        return put_c(t, b']')
    if key == "shuffles":
        return put_shuffles(t, ns, f)
    if key == "rounds":
        return put_rounds(t, ns, f, canonical)
    if key == "setup":
        return put_setup(t, ns)
    if key == "turns":
        return put_turns(t, ns, f, canonical)
    if key == "resolutions":
        return put_resolutions(t, ns, canonical)
    if key == "final":
        return put_final(t, ns, f)
    return put_result(t, ns, f, canonical)


cdef int put_fields(Text* t, list fields, NativeState ns, Form f, bytes seed, list labels,
                    bint canonical) except -1:
    """``{`` and every field of ``fields`` (``Form``'s); no closing brace."""
    cdef bytes key, text
    cdef bint first = True
    put_c(t, b'{')
    for key, name, text in fields:
        if not first:
            put_c(t, b',')
        first = False
        put(t, PyBytes_AS_STRING(key), PyBytes_GET_SIZE(key))
        if text is not None:
            put(t, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text))
        else:
            put_field(t, name, ns, f, seed, labels, canonical)
    return 0


def record_line(NativeState ns, strategies):
    """``json.dumps(to_record(ns, strategies), separators=(",", ":"))`` as bytes (ASCII), for
    a finished game played with ``record="log"``: its JSONL line without the newline."""
    return record_texts(ns, strategies)[0]


def record_texts(NativeState ns, strategies):
    """``record_line``'s bytes and the canonical text its digest hashes (``digest_of``'s)."""
    cdef Text line
    cdef Text canonical
    cdef Form f
    cdef bytes digest, canonical_text
    if ns.log == NULL:
        raise _RecordError("this game was played without a record log (record=\"log\")")
    if ns.s.phase != PH_OVER:
        raise _RecordError("the game is not over yet")
    labels = list(strategies)
    if len(labels) != ns.s.players:
        raise ValueError(f"{len(labels)} strategy names for {ns.s.players} seats")
    f = form_of(ns.game)
    seed = int.__repr__(ns.game.seed).encode("ascii")
    line.p = canonical.p = NULL
    line.n = line.cap = canonical.n = canonical.cap = 0
    try:
        grow(&line, 1 << 15)
        grow(&canonical, 1 << 15)
        put_fields(&line, f.line_fields, ns, f, seed, labels, False)
        put_fields(&canonical, f.canonical_fields, ns, f, seed, labels, True)
        put_c(&canonical, b'}')
        canonical_text = PyBytes_FromStringAndSize(canonical.p, canonical.n)
        digest = _sha256(canonical_text).digest()
        put_s(&line, ",\"digest\":\"")
        put_s(&line, DIGEST_PREFIX)
        put_hex(&line, digest)
        put_s(&line, "\"}")
        return PyBytes_FromStringAndSize(line.p, line.n), canonical_text
    finally:
        free(line.p)
        free(canonical.p)
