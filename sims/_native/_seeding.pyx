# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""``sims.seeding.game_seed``'s hashing in C: numpy's ``SeedSequence(root, spawn_key=(token,
index)).generate_state(2, dtype=np.uint32)`` word for word (its entropy pool of four 32-bit
words, ``hashmix`` and ``mix``), without making numpy objects: tens of microseconds a game
in a worker, against well under one here. tests/sims/test_seeding.py holds it to numpy's.
"""

from libc.stdint cimport uint32_t, uint64_t

cdef enum:
    POOL_SIZE = 4           # SeedSequence's default pool_size
    MOST_WORDS = 8          # a 64-bit root (padded to the pool), a token, a 64-bit index
    STATE_WORDS = 2         # generate_state(2): the two words of a game's seed

cdef uint32_t INIT_A = 0x43B0D7E5
cdef uint32_t MULT_A = 0x931E8875
cdef uint32_t INIT_B = 0x8B51F9DD
cdef uint32_t MULT_B = 0x58F38DED
cdef uint32_t MIX_MULT_L = 0xCA01F9DD
cdef uint32_t MIX_MULT_R = 0x4973F715


cdef inline uint32_t hashmix(uint32_t value, uint32_t* hash_const) noexcept nogil:
    value ^= hash_const[0]
    hash_const[0] *= MULT_A
    value *= hash_const[0]
    value ^= value >> 16
    return value


cdef inline uint32_t mix(uint32_t x, uint32_t y) noexcept nogil:
    cdef uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y
    result ^= result >> 16
    return result


cdef inline int put_words(uint64_t n, uint32_t* out) noexcept nogil:
    """numpy's ``_int_to_uint32_array``: little-endian 32-bit words, one word for 0."""
    out[0] = <uint32_t>n
    if n >> 32:
        out[1] = <uint32_t>(n >> 32)
        return 2
    return 1


def seed_words(uint64_t root, uint32_t token, uint64_t index):
    """``SeedSequence(root, spawn_key=(token, index)).generate_state(2, np.uint32)`` as two
    Python ints (high word first)."""
    cdef uint32_t entropy[MOST_WORDS]
    cdef uint32_t pool[POOL_SIZE]
    cdef uint32_t hash_const = INIT_A, value
    cdef int n, i, src, dst
    n = put_words(root, entropy)
    while n < POOL_SIZE:  # a spawned sequence pads its run entropy to the pool size
        entropy[n] = 0
        n += 1
    n += put_words(token, &entropy[n])
    n += put_words(index, &entropy[n])
    for i in range(POOL_SIZE):
        pool[i] = hashmix(entropy[i], &hash_const)
    for src in range(POOL_SIZE):
        for dst in range(POOL_SIZE):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src], &hash_const))
    for src in range(POOL_SIZE, n):
        for dst in range(POOL_SIZE):
            pool[dst] = mix(pool[dst], hashmix(entropy[src], &hash_const))
    cdef uint32_t out[STATE_WORDS]
    hash_const = INIT_B
    for i in range(STATE_WORDS):
        value = pool[i] ^ hash_const
        hash_const *= MULT_B
        value *= hash_const
        value ^= value >> 16
        out[i] = value
    return out[0], out[1]
