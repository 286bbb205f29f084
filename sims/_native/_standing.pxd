"""What the decision loop (_match.pyx) cimports of the standing's C twin."""

from cardgame._native._core cimport CCatalogue, CState, MAX_CARD_KINDS, MAX_DEST_ID, MAX_SEATS

cdef list standing_rows(const CState* s, const CCatalogue* cat)


ctypedef struct SeatCache:
    # a seat's covered and uncovered points for this circulation pile and these tickets
    bint valid
    int circulation[MAX_CARD_KINDS]
    int held_n
    int held[MAX_DEST_ID]
    int covered, uncovered


cdef class Standings:
    cdef double* data
    cdef SeatCache cache[MAX_SEATS]
    cdef const CCatalogue* cache_cat
    cdef Py_ssize_t rows, capacity
    cdef readonly int players
    cdef int note(self, const CState* s, const CCatalogue* cat) except -1
