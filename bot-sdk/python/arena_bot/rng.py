"""A seedable random generator that draws exactly what the Rust SDK's `Rng` draws.

`Rng(seed)` is ChaCha8 seeded the way Rust's `ChaCha8Rng::seed_from_u64`
seeds it, and `random_range(n)` samples 0..n the way Rust's
`rng.random_range(0..n as u32)` does. The house bots use that generator, so
a Python bot that draws the same numbers plays the same games; plain
`random` would work too, but could not be compared move for move.
"""

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def _rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & _M32


def _pcg32_words(state, count):
    # rand_core's seed_from_u64: a PCG32 stream expands the u64 into the key.
    words = []
    for _ in range(count):
        state = (state * 6364136223846793005 + 11634580027462260723) & _M64
        xorshifted = (((state >> 18) ^ state) >> 27) & _M32
        rot = state >> 59
        words.append(((xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))) & _M32)
    return words


class Rng:
    """ChaCha8 with a 64-bit block counter and stream 0, as rand_chacha has it."""

    def __init__(self, seed):
        self._key = _pcg32_words(seed & _M64, 8)
        self._counter = 0
        self._buffer = []
        self._index = 0

    def _block(self):
        c = self._counter
        s = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + self._key + [c & _M32, c >> 32, 0, 0]
        x = list(s)
        for _ in range(4):  # 8 rounds: 4 double rounds
            for a, b, cc, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                                (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
                x[a] = (x[a] + x[b]) & _M32
                x[d] = _rotl(x[d] ^ x[a], 16)
                x[cc] = (x[cc] + x[d]) & _M32
                x[b] = _rotl(x[b] ^ x[cc], 12)
                x[a] = (x[a] + x[b]) & _M32
                x[d] = _rotl(x[d] ^ x[a], 8)
                x[cc] = (x[cc] + x[d]) & _M32
                x[b] = _rotl(x[b] ^ x[cc], 7)
        self._counter = (c + 1) & _M64
        self._buffer = [(x[i] + s[i]) & _M32 for i in range(16)]
        self._index = 0

    def next_u32(self):
        """The next 32 random bits."""
        if self._index >= len(self._buffer):
            self._block()
        value = self._buffer[self._index]
        self._index += 1
        return value

    def random_range(self, n):
        """A uniform integer in 0..n (n from 1 to 2**32 - 1)."""
        if not 0 < n <= _M32:
            raise ValueError(f"random_range needs 0 < n < 2**32, got {n}")
        m = self.next_u32() * n
        result, low = m >> 32, m & _M32
        if low > ((1 << 32) - n):
            # Rust's rand reduces the bias with one more draw; so must we.
            if low + ((self.next_u32() * n) >> 32) > _M32:
                result += 1
        return result

    def choice(self, items):
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.random_range(len(items))]
