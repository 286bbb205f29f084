"""What the decision loop (_match.pyx) cimports of the standing's C twin."""

from cardgame._native._core cimport CCatalogue, CState

cdef list standing_rows(const CState* s, const CCatalogue* cat)
