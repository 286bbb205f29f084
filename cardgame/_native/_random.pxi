# CPython's random generator (MT19937) rebuilt in C: seeding from a ``random.Random``'s
# state, ``random``, ``randrange``, ``shuffle`` and ``gauss`` draw for draw as the standard
# library does, so the native core shuffles and plays exactly as the Python engine.
# Included by _core.pyx (one generator, kept apart from the rules).

cdef enum:
    MT_N = 624
    MT_M = 397
    SEED_WORDS = 64  # a longer seed is left to CPython

# constants the C compiler sees (folded into the instructions, not loaded from memory), and
# the count of leading zeros for ``int.bit_length``
cdef extern from *:
    """
    #define CG_MT_MATRIX_A 0x9908b0dfU
    #define CG_MT_UPPER_MASK 0x80000000U
    #define CG_MT_LOWER_MASK 0x7fffffffU
    #define CG_MT_TEMPER_B 0x9d2c5680U
    #define CG_MT_TEMPER_C 0xefc60000U
    #define CG_BIT_LENGTH(n) (32 - __builtin_clz(n))
    """
    const uint32_t MATRIX_A "CG_MT_MATRIX_A"
    const uint32_t UPPER_MASK "CG_MT_UPPER_MASK"
    const uint32_t LOWER_MASK "CG_MT_LOWER_MASK"
    const uint32_t TEMPER_B "CG_MT_TEMPER_B"
    const uint32_t TEMPER_C "CG_MT_TEMPER_C"
    int bit_length "CG_BIT_LENGTH"(uint32_t n) noexcept nogil  # n > 0
cdef double TWOPI = 6.283185307179586   # 2.0 * math.pi, as random.TWOPI


# ---------------------------------------------------------------------------- the RNG

cdef void mt_load(MT* mt, object random_state) except *:
    """Load a ``random.Random`` (or its ``getstate()`` tuple) into ``mt``."""
    if hasattr(random_state, "getstate"):
        random_state = random_state.getstate()
    version, internal, gauss_next = random_state
    if version != 3 or len(internal) != MT_N + 1:
        raise ValueError("not a random.Random state (version 3, 625 words)")
    cdef int i
    for i in range(MT_N):
        mt.key[i] = <uint32_t>internal[i]
    mt.pos = internal[MT_N]
    mt.lazy = False
    if gauss_next is None:
        mt.has_gauss_next = False
        mt.gauss_next = 0.0
    else:
        mt.has_gauss_next = True
        mt.gauss_next = gauss_next


cdef object mt_state(const MT* mt):
    """The ``random.Random.getstate()`` tuple of ``mt``."""
    cdef uint32_t key[MT_N]
    cdef int i
    memcpy(key, mt.key, sizeof(uint32_t) * MT_N)
    if mt.lazy:  # the block's words not drawn yet, as CPython holds them: twisted
        for i in range(mt.pos, MT_N):
            mt_twist_word(key, i)
    internal = tuple([key[i] for i in range(MT_N)] + [mt.pos])
    return (3, internal, mt.gauss_next if mt.has_gauss_next else None)


cdef inline void mt_twist_word(uint32_t* key, int kk) noexcept nogil:
    """Word ``kk`` of the next block, in place: CPython's whole-block twist, one word at a
    time in the same order (each word reads words after it still old, before it new)."""
    cdef uint32_t y
    if kk < MT_N - MT_M:
        y = (key[kk] & UPPER_MASK) | (key[kk + 1] & LOWER_MASK)
        key[kk] = key[kk + MT_M] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    elif kk < MT_N - 1:
        y = (key[kk] & UPPER_MASK) | (key[kk + 1] & LOWER_MASK)
        key[kk] = key[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    else:
        y = (key[MT_N - 1] & UPPER_MASK) | (key[0] & LOWER_MASK)
        key[MT_N - 1] = key[MT_M - 1] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)


cdef uint32_t mt_next(MT* mt) noexcept nogil:
    """genrand_uint32 of CPython's _randommodule.c. A block is twisted word by word as it
    is drawn (``lazy``): a game draws a few hundred of a block's 624 words."""
    cdef uint32_t y
    if mt.pos >= MT_N:
        mt.pos = 0
        mt.lazy = True
    if mt.lazy:
        mt_twist_word(mt.key, mt.pos)
    y = mt.key[mt.pos]
    mt.pos += 1
    y ^= y >> 11
    y ^= (y << 7) & TEMPER_B
    y ^= (y << 15) & TEMPER_C
    y ^= y >> 18
    return y


cdef int mt_randbelow(MT* mt, int n) noexcept nogil:
    """``Random._randbelow(n)``: getrandbits(n.bit_length()) until it falls below n (n > 0,
    as every caller's range has a member)."""
    cdef int k = bit_length(<uint32_t>n)
    cdef uint32_t r
    r = mt_next(mt) >> (32 - k)
    while r >= <uint32_t>n:
        r = mt_next(mt) >> (32 - k)
    return <int>r


cdef void mt_shuffle(MT* mt, int* x, int n) noexcept nogil:
    """``Random.shuffle``: for i in reversed(range(1, n)), swap x[i] with x[randbelow(i+1)]."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = mt_randbelow(mt, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


cdef double mt_random(MT* mt) noexcept nogil:
    """``Random.random()``: 53 bits from two words."""
    cdef uint32_t a = mt_next(mt) >> 5
    cdef uint32_t b = mt_next(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef double mt_gauss(MT* mt, double mu, double sigma) noexcept nogil:
    """``Random.gauss``, with its cached second value (``gauss_next``)."""
    cdef double z, x2pi, g2rad
    if mt.has_gauss_next:
        z = mt.gauss_next
        mt.has_gauss_next = False
    else:
        x2pi = mt_random(mt) * TWOPI
        g2rad = sqrt(-2.0 * log(1.0 - mt_random(mt)))
        z = cos(x2pi) * g2rad
        mt.gauss_next = sin(x2pi) * g2rad
        mt.has_gauss_next = True
    return mu + z * sigma


cdef void mt_init_genrand(MT* mt, uint32_t seed) noexcept nogil:
    """init_genrand of CPython's _randommodule.c."""
    cdef int i
    mt.key[0] = seed
    for i in range(1, MT_N):
        mt.key[i] = <uint32_t>(1812433253 * (mt.key[i - 1] ^ (mt.key[i - 1] >> 30)) + i)
    mt.pos = MT_N


cdef MT genrand_base
cdef bint genrand_ready = False


cdef inline void genrand_copy(MT* mt) noexcept nogil:
    """init_genrand(19650218), the start of every init_by_array: the same every time, so
    computed once and copied."""
    global genrand_ready
    if not genrand_ready:
        mt_init_genrand(&genrand_base, 19650218)
        genrand_ready = True
    memcpy(mt.key, genrand_base.key, sizeof(uint32_t) * MT_N)
    mt.pos = MT_N
    mt.lazy = False
    mt.has_gauss_next = False
    mt.gauss_next = 0.0


cdef inline uint32_t mix_key(uint32_t word, uint32_t prev, uint32_t key, int j) noexcept nogil:
    """A step of init_by_array's first loop: the word mixed with the one before and the key."""
    return (word ^ ((prev ^ (prev >> 30)) * <uint32_t>1664525)) + (key + <uint32_t>j)


cdef inline uint32_t mix_again(uint32_t word, uint32_t prev, int i) noexcept nogil:
    """A step of its second loop."""
    return (word ^ ((prev ^ (prev >> 30)) * <uint32_t>1566083941)) - <uint32_t>i


cdef void mt_init_by_array(MT* mt, const uint32_t* key, int n) noexcept nogil:
    """init_by_array of CPython's _randommodule.c."""
    cdef int i = 1
    cdef int j = 0
    cdef int k
    cdef uint32_t prev
    cdef uint32_t* m = mt.key
    genrand_copy(mt)
    k = MT_N if MT_N > n else n
    prev = m[0]  # the chain runs in a register: a reload would add a store's latency
    while k:
        prev = mix_key(m[i], prev, key[j], j)
        m[i] = prev
        i += 1
        j += 1
        if i >= MT_N:
            m[0] = prev
            i = 1
        if j >= n:
            j = 0
        k -= 1
    k = MT_N - 1
    while k:
        prev = mix_again(m[i], prev, i)
        m[i] = prev
        i += 1
        if i >= MT_N:
            m[0] = prev
            i = 1
        k -= 1
    m[0] = UPPER_MASK


cdef void mt_init_by_arrays(
    MT* a, const uint32_t* key_a, int n_a, MT* b, const uint32_t* key_b, int n_b,
) noexcept nogil:
    """``mt_init_by_array`` of two generators at once (keys of at most 624 words): each
    seeding is one long chain of dependent multiplies, so two interleaved take the time of
    one."""
    cdef int i = 1
    cdef int j_a = 0
    cdef int j_b = 0
    cdef int k
    cdef uint32_t prev_a, prev_b
    cdef uint32_t* m_a = a.key
    cdef uint32_t* m_b = b.key
    genrand_copy(a)
    genrand_copy(b)
    prev_a = m_a[0]
    prev_b = m_b[0]
    for k in range(MT_N):
        prev_a = mix_key(m_a[i], prev_a, key_a[j_a], j_a)
        prev_b = mix_key(m_b[i], prev_b, key_b[j_b], j_b)
        m_a[i] = prev_a
        m_b[i] = prev_b
        i += 1
        j_a += 1
        j_b += 1
        if i >= MT_N:
            m_a[0] = prev_a
            m_b[0] = prev_b
            i = 1
        if j_a >= n_a:
            j_a = 0
        if j_b >= n_b:
            j_b = 0
    for k in range(MT_N - 1):
        prev_a = mix_again(m_a[i], prev_a, i)
        prev_b = mix_again(m_b[i], prev_b, i)
        m_a[i] = prev_a
        m_b[i] = prev_b
        i += 1
        if i >= MT_N:
            m_a[0] = prev_a
            m_b[0] = prev_b
            i = 1
    m_a[0] = UPPER_MASK
    m_b[0] = UPPER_MASK


cdef int seed_words(object seed, uint32_t* words) except -2:
    """The key ``random.seed`` (version 2) makes of an int or str seed: at most SEED_WORDS
    words written, their count returned; -1 for a seed to leave to CPython (another type, or
    a huge int)."""
    cdef bytes data
    cdef const unsigned char* raw
    cdef int n, i
    if isinstance(seed, str):
        data = seed.encode()
        seed = int.from_bytes(data + _sha512(data).digest(), "big")
    elif type(seed) is not int:
        return -1
    seed = abs(seed)
    n = (seed.bit_length() + 31) // 32
    if n == 0:
        n = 1
    if n > SEED_WORDS:
        return -1
    data = seed.to_bytes(4 * n, "little")
    raw = data
    for i in range(n):
        words[i] = (
            <uint32_t>raw[4 * i]
            | (<uint32_t>raw[4 * i + 1] << 8)
            | (<uint32_t>raw[4 * i + 2] << 16)
            | (<uint32_t>raw[4 * i + 3] << 24)
        )
    return n


cdef void seed_from(MT* mt, object seed, const uint32_t* words, int n) except *:
    """``mt`` seeded from ``seed``'s key (``seed_words``), or by CPython where it has none."""
    if n < 0:
        mt_load(mt, _random.Random(seed))
    else:
        mt_init_by_array(mt, words, n)


cdef void mt_seed(MT* mt, object seed) except *:
    """``random.Random(seed)`` for an int or str seed (version 2), without building one."""
    cdef uint32_t words[SEED_WORDS]
    seed_from(mt, seed, words, seed_words(seed, words))


cdef void mt_seed_two(MT* a, object seed_a, MT* b, object seed_b) except *:
    """``mt_seed`` of two generators, their chains interleaved (``mt_init_by_arrays``)."""
    cdef uint32_t words_a[SEED_WORDS]
    cdef uint32_t words_b[SEED_WORDS]
    cdef int n_a = seed_words(seed_a, words_a)
    cdef int n_b = seed_words(seed_b, words_b)
    if n_a < 0 or n_b < 0:
        seed_from(a, seed_a, words_a, n_a)
        seed_from(b, seed_b, words_b, n_b)
    else:
        mt_init_by_arrays(a, words_a, n_a, b, words_b, n_b)


cdef class NativeRandom:
    """``random.Random``'s sequence from C (tests prove it equal; native players use MT)."""

    cdef MT mt

    def __init__(self, seed_or_random=None):
        """A seed (seeded in C for an int or str) or a ``random.Random`` to continue."""
        if hasattr(seed_or_random, "getstate"):
            mt_load(&self.mt, seed_or_random)
        else:
            mt_seed(&self.mt, seed_or_random)

    @staticmethod
    def two(seed_a, seed_b):
        """Two generators seeded together (``mt_seed_two``), as a pair."""
        cdef NativeRandom a = NativeRandom.__new__(NativeRandom)
        cdef NativeRandom b = NativeRandom.__new__(NativeRandom)
        mt_seed_two(&a.mt, seed_a, &b.mt, seed_b)
        return a, b

    def getstate(self):
        return mt_state(&self.mt)

    def randrange(self, int n):
        if n < 1:
            raise ValueError("empty range for randrange()")
        return mt_randbelow(&self.mt, n)

    def random(self):
        return mt_random(&self.mt)

    def gauss(self, double mu=0.0, double sigma=1.0):
        return mt_gauss(&self.mt, mu, sigma)

    def shuffle(self, list x):
        """Shuffle a list of ints in place, as ``random.Random.shuffle`` does."""
        cdef int n = len(x)
        cdef int i
        cdef int buf[1024]
        if n > 1024:
            raise ValueError("at most 1024 items")
        for i in range(n):
            buf[i] = x[i]
        mt_shuffle(&self.mt, buf, n)
        for i in range(n):
            x[i] = buf[i]
