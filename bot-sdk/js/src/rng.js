// A seedable random generator that draws exactly what the Rust SDK's `Rng`
// draws: ChaCha8 seeded as Rust's `ChaCha8Rng::seed_from_u64` seeds it, and
// `randomRange(n)` sampling 0..n as Rust's `rng.random_range(0..n as u32)`.
// The house bots use that generator, so a bot drawing the same numbers plays
// the same games (Math.random would work too, but could not be compared).

const M64 = (1n << 64n) - 1n;

function pcg32Words(seed, count) {
  // rand_core's seed_from_u64: a PCG32 stream expands the u64 into the key.
  let state = BigInt.asUintN(64, BigInt(seed));
  const words = [];
  for (let i = 0; i < count; i++) {
    state = (state * 6364136223846793005n + 11634580027462260723n) & M64;
    const xorshifted = Number((((state >> 18n) ^ state) >> 27n) & 0xffffffffn);
    const rot = Number(state >> 59n);
    words.push(((xorshifted >>> rot) | (xorshifted << ((32 - rot) & 31))) >>> 0);
  }
  return words;
}

const rotl = (x, n) => ((x << n) | (x >>> (32 - n))) >>> 0;

/** ChaCha8 with a 64-bit block counter and stream 0, as rand_chacha has it. */
export class Rng {
  /** `seed`: the game's seed (a BigInt, as the arena sends it) or a number. */
  constructor(seed) {
    this.key = pcg32Words(seed, 8);
    this.counter = 0n;
    this.buffer = [];
    this.index = 0;
  }

  block() {
    const c = this.counter;
    const s = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...this.key,
      Number(c & 0xffffffffn), Number(c >> 32n), 0, 0];
    const x = s.slice();
    const qr = (a, b, cc, d) => {
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 16);
      x[cc] = (x[cc] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[cc], 12);
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 8);
      x[cc] = (x[cc] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[cc], 7);
    };
    for (let i = 0; i < 4; i++) { // 8 rounds: 4 double rounds
      qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
      qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
    }
    this.counter = (c + 1n) & M64;
    this.buffer = x.map((v, i) => (v + s[i]) >>> 0);
    this.index = 0;
  }

  /** The next 32 random bits, as a number. */
  nextU32() {
    if (this.index >= this.buffer.length) this.block();
    return this.buffer[this.index++];
  }

  /** A uniform integer in 0..n (n from 1 to 2**32 - 1). */
  randomRange(n) {
    if (!(n > 0 && n <= 0xffffffff)) throw new RangeError(`randomRange needs 0 < n < 2**32, got ${n}`);
    const m = BigInt(this.nextU32()) * BigInt(n);
    let result = Number(m >> 32n);
    const low = m & 0xffffffffn;
    if (low > (1n << 32n) - BigInt(n)) {
      // Rust's rand reduces the bias with one more draw; so must we.
      if (low + ((BigInt(this.nextU32()) * BigInt(n)) >> 32n) > 0xffffffffn) result += 1;
    }
    return result;
  }

  /** A uniformly chosen element of a non-empty array. */
  choice(items) {
    return items[this.randomRange(items.length)];
  }
}
