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
cdef enum:
    INT_TEXT = 24        # a long long's digits and sign, with room
    SHUFFLE_KINDS = 4    # record_schema.SHUFFLE_KINDS


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


cdef inline int put_int(Text* t, long long v) except -1:
    """``v`` as ``repr`` writes a whole number."""
    if 0 <= v < 10:
        return put_c(t, <char>(48 + v))
    if 10 <= v < 100:
        if t.n + 2 > t.cap:
            grow(t, 2)
        t.p[t.n] = <char>(48 + v // 10)
        t.p[t.n + 1] = <char>(48 + v % 10)
        t.n += 2
        return 0
    return put_long(t, v)


cdef int put_long(Text* t, long long v) except -1:
    cdef char digits[INT_TEXT]
    cdef int k = INT_TEXT
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
    return put(t, digits + k, INT_TEXT - k)


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


# ---------------------------------------------------------------------------- the log
cdef struct Events:
    const int** at      # each event of the log, where it starts, in order
    Py_ssize_t n
    const CState* s


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
    cdef const char* shuffle[SHUFFLE_KINDS]
    cdef Py_ssize_t shuffle_n[SHUFFLE_KINDS]
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
        if len(names) > MAX_CARD_KINDS or len(bigs) > MAX_BIG_CITIES or len(_SHUFFLE_KINDS) != SHUFFLE_KINDS:
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
    """A field of ``Form``: ``"key":``, its number in ``PLAYED`` (-1 for a head field) and
    its text (None: written from the game)."""
    number = PLAYED.index(key) if text is None else -1
    return (f"{_json.dumps(key)}:").encode("ascii"), number, None if text is None else text.encode("ascii")


cdef dict forms = {}  # (id(rules), id(catalogue), players) -> its Form (which holds both)


cdef Form form_of(object game):
    """The game's form, made once for its rules, cards and players (a study's cells share a
    few of them)."""
    key = (id(game.rules), id(game.catalogue), game.players)
    cdef Form f = forms.get(key)
    if f is None or not f.fits(game):
        if len(forms) >= 64:
            forms.clear()
        f = forms[key] = Form(game)
    return f


# ---------------------------------------------------------------------------- the fields
cdef int put_shuffles(Text* t, const Events* ev, Form f) except -1:
    cdef const int* e
    cdef bint first = True
    cdef int n
    cdef Py_ssize_t k
    put_c(t, b'[')
    for k in range(ev.n):
        e = ev.at[k]
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
    return put_c(t, b']')


cdef int put_setup(Text* t, const Events* ev) except -1:
    cdef const int* e
    cdef const int* x
    cdef bint first = True
    cdef int seat
    cdef Py_ssize_t k
    put_s(t, "{\"dealt\":[")
    for k in range(ev.n):
        e = ev.at[k]
        if e[0] == EV_DEALT:
            x = e + 1
            for seat in range(ev.s.players):
                if seat:
                    put_c(t, b',')
                put_ints(t, x + 1, x[0])
                x += 1 + x[0]
            break
    put_s(t, "],\"kept\":[")
    for k in range(ev.n):
        e = ev.at[k]
        if e[0] == EV_KEPT:
            if not first:
                put_c(t, b',')
            first = False
            put_ints(t, e + 2, e[1])
    return put_s(t, "]}")


cdef int put_rounds(Text* t, const Events* ev, Form f, bint canonical) except -1:
    cdef const int* e
    cdef const CState* s = ev.s
    cdef int width = s.rules.face_up, kinds = s.colours + 1
    cdef bint first = True
    cdef int seat, i
    cdef const int* hands
    cdef int deck
    cdef Py_ssize_t k
    put_c(t, b'[')
    for k in range(ev.n):
        e = ev.at[k]
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
    return put_c(t, b']')


cdef int put_action(Text* t, const int* a, Form f, bint canonical) except -1:
    """``actions.to_dict`` of a turn's action (kind, a, b, c)."""
    cdef int i
    cdef int kind
    kind = a[0]
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
    cdef int n, mask, i
    cdef bint first = True
    n = p[0]
    mask = p[n + 1]
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


cdef int put_events(Text* t, const Events* ev, Py_ssize_t start, Py_ssize_t end, int tag,
                    Form f, bint canonical) except -1:
    """``,"picks":[...]`` or ``,"wipes":[...]``: a turn's events ``tag`` among the log's
    ``start`` to ``end``."""
    cdef const int* e
    cdef bint first = True
    cdef Py_ssize_t k
    for k in range(start, end):
        e = ev.at[k]
        if e[0] != tag:
            continue
        if first:
            put_s(t, ",\"picks\":[" if tag == EV_PICK else ",\"wipes\":[")
        else:
            put_c(t, b',')
        first = False
        if tag == EV_PICK:
            put_pick(t, e + 1, f, canonical)
        else:
            f.put_cards(t, e + 1, ev.s.rules.face_up)
    return put_c(t, b']')


cdef int put_turn(Text* t, const Events* ev, Py_ssize_t start, Py_ssize_t end, Form f,
                  bint canonical) except -1:
    """One turn: the log's events ``start`` (its EV_TURN) to ``end`` (its EV_TURN_END). Its
    action is the first EV_ACTION (a second pick logs one too)."""
    cdef const int* e = ev.at[start]
    cdef const int* x
    cdef const int* action = NULL
    cdef const int* steal = NULL
    cdef const int* drawn = NULL
    cdef bint picks = False, wipes = False
    cdef Py_ssize_t k
    for k in range(start + 1, end):
        x = ev.at[k]
        if x[0] == EV_ACTION:
            if action == NULL:
                action = x
        elif x[0] == EV_PICK:
            picks = True
        elif x[0] == EV_WIPE:
            wipes = True
        elif x[0] == EV_STEAL:
            steal = x
        elif x[0] == EV_DESTINATIONS:
            drawn = x
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
        if picks:
            put_events(t, ev, start, end, EV_PICK, f, True)
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
        if wipes:
            put_events(t, ev, start, end, EV_WIPE, f, True)
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
    if picks:
        put_events(t, ev, start, end, EV_PICK, f, False)
    if wipes:
        put_events(t, ev, start, end, EV_WIPE, f, False)
    if steal != NULL:
        put_s(t, ",\"steal\":")
        put_steal(t, steal + 1, f, False)
    if drawn != NULL:
        put_s(t, ",\"destinations\":")
        put_destinations(t, drawn + 1)
    return put_c(t, b'}')


cdef int put_turns(Text* t, const Events* ev, Form f, bint canonical) except -1:
    """The turns; a wipe outside one (the row turned up at a round's start) is in none, as
    the dicts have it."""
    cdef Py_ssize_t k, start = -1
    cdef int tag
    cdef bint first = True
    put_c(t, b'[')
    for k in range(ev.n):
        tag = ev.at[k][0]
        if tag == EV_TURN:
            start = k
        elif tag == EV_TURN_END and start >= 0:
            if not first:
                put_c(t, b',')
            first = False
            put_turn(t, ev, start, k, f, canonical)
            start = -1
    return put_c(t, b']')


cdef int put_resolutions(Text* t, const Events* ev, bint canonical) except -1:
    cdef const int* e
    cdef const int* x
    cdef bint first = True
    cdef int seat
    cdef Py_ssize_t k
    put_c(t, b'[')
    for k in range(ev.n):
        e = ev.at[k]
        if e[0] != EV_RESOLUTION:
            continue
        if not first:
            put_c(t, b',')
        first = False
        put_s(t, "{\"round\":")
        put_int(t, e[1])
        put_s(t, ",\"seats\":[")
        x = e + 2
        for seat in range(ev.s.players):
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


cdef inline const int* next_event(const int* e, const CState* s) noexcept:
    """The event after ``e`` (EV_*: each one's ints, _core.pxd)."""
    cdef int tag, seat
    cdef int kinds = s.colours + 1
    cdef const int* x
    tag = e[0]
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

# the fields after ``record_head``'s, in ``record._content``'s order; a field's number is
# its index here (``Form``'s fields: -1 for a head field's text)
cdef tuple PLAYED = (
    "seed", "players", "strategies", "shuffles", "rounds", "setup", "turns", "resolutions",
    "final", "result",
)
cdef enum:
    F_SEED, F_PLAYERS, F_STRATEGIES, F_SHUFFLES, F_ROUNDS, F_SETUP, F_TURNS, F_RESOLUTIONS
    F_FINAL, F_RESULT, F_FIELDS
# the fields whose text has no key order to differ in: the canonical text copies the line's
cdef bint SAME[F_FIELDS]
SAME[:] = [True, True, True, True, False, True, False, False, True, False]


cdef int put_field(Text* t, int field, const Events* ev, NativeState ns, Form f, bytes seed,
                   list labels, bint canonical) except -1:
    cdef int i
    cdef bytes label
    if field == F_SEED:
        return put(t, PyBytes_AS_STRING(seed), PyBytes_GET_SIZE(seed))
    if field == F_PLAYERS:
        return put_int(t, ns.s.players)
    if field == F_STRATEGIES:
        put_c(t, b'[')
        for i, name in enumerate(labels):
            if i:
                put_c(t, b',')
            label = f.label(name)
            put(t, PyBytes_AS_STRING(label), PyBytes_GET_SIZE(label))
        return put_c(t, b']')
    if field == F_SHUFFLES:
        return put_shuffles(t, ev, f)
    if field == F_ROUNDS:
        return put_rounds(t, ev, f, canonical)
    if field == F_SETUP:
        return put_setup(t, ev)
    if field == F_TURNS:
        return put_turns(t, ev, f, canonical)
    if field == F_RESOLUTIONS:
        return put_resolutions(t, ev, canonical)
    if field == F_FINAL:
        return put_final(t, ns, f)
    return put_result(t, ns, f, canonical)


cdef int put_fields(Text* t, list fields, const Events* ev, NativeState ns, Form f,
                    bytes seed, list labels, const Text* line, Py_ssize_t* spans) except -1:
    """``{`` and every field of ``fields`` (``Form``'s), no closing brace. Writing the line
    (``line`` NULL), each field's place in it goes to ``spans`` (start, end by field);
    writing the canonical text, a field the same in both is copied from ``line``."""
    cdef bytes key, text
    cdef bint first = True
    cdef int field
    cdef Py_ssize_t start
    put_c(t, b'{')
    for key, field, text in fields:
        if not first:
            put_c(t, b',')
        first = False
        put(t, PyBytes_AS_STRING(key), PyBytes_GET_SIZE(key))
        if text is not None:
            put(t, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text))
        elif line != NULL and SAME[field]:
            put(t, line.p + spans[2 * field], spans[2 * field + 1] - spans[2 * field])
        else:
            start = t.n
            put_field(t, field, ev, ns, f, seed, labels, line != NULL)
            spans[2 * field] = start
            spans[2 * field + 1] = t.n
    return 0


cdef int index_events(NativeState ns, Events* ev) except -1:
    """Where each event of the log starts."""
    cdef const int* e = ns.log
    cdef const int* end = ns.log + ns.log_n
    ev.s = &ns.s
    ev.n = 0
    ev.at = <const int**>malloc(max(ns.log_n, 1) * sizeof(int*))
    if ev.at == NULL:
        raise MemoryError()
    while e < end:
        ev.at[ev.n] = e
        ev.n += 1
        e = next_event(e, &ns.s)
    return 0


def record_line(NativeState ns, strategies):
    """``json.dumps(to_record(ns, strategies), separators=(",", ":"))`` as bytes (ASCII), for
    a finished game played with ``record="log"``: its JSONL line without the newline."""
    return record_texts(ns, strategies)[0]


def record_texts(NativeState ns, strategies):
    """``record_line``'s bytes and the canonical text its digest hashes (``digest_of``'s)."""
    cdef Text line
    cdef Text canonical
    cdef Events ev
    cdef Py_ssize_t spans[2 * F_FIELDS]
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
    ev.at = NULL
    try:
        index_events(ns, &ev)
        grow(&line, 1 << 15)
        grow(&canonical, 1 << 15)
        put_fields(&line, f.line_fields, &ev, ns, f, seed, labels, NULL, spans)
        put_fields(&canonical, f.canonical_fields, &ev, ns, f, seed, labels, &line, spans)
        put_c(&canonical, b'}')
        canonical_text = PyBytes_FromStringAndSize(canonical.p, canonical.n)
        digest = _sha256(canonical_text).digest()
        put_s(&line, ",\"digest\":\"")
        put_s(&line, DIGEST_PREFIX)
        put_hex(&line, digest)
        put_s(&line, "\"}")
        return PyBytes_FromStringAndSize(line.p, line.n), canonical_text
    finally:
        free(ev.at)
        free(line.p)
        free(canonical.p)
