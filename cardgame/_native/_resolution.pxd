# cython: language_level=3
"""The R16 kernel's C entry, for the native core (``_core.pyx``) to call without Python."""

cdef int resolve_held(
    const int* pile, int n, const int* ids, const int* need, const int* points,
    const int* big_names, int* out, int colours,
) noexcept
