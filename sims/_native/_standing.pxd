"""What the decision loop (_match.pyx) cimports of the standing's C twin."""

from cardgame._native._core cimport CCatalogue, CState

cdef list standing_rows(const CState* s, const CCatalogue* cat)


cdef class Standings:
    cdef double* data
    cdef Py_ssize_t rows, capacity
    cdef readonly int players
    cdef int note(self, const CState* s, const CCatalogue* cat) except -1
