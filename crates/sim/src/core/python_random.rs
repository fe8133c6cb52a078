//! A port of the parts of CPython's `random` module that the Blox and ElasticFlow workload
//! generators use.
//!
//! Blox draws every duration and arrival from Python's global `random` (MT19937) right after
//! `random.seed(1)`, and ElasticFlow's trace generator from four seeded `random.Random` streams,
//! so reproducing their workloads bit for bit needs the same generator, the same seeding and the
//! same float/integer conversions. This follows CPython 3.11
//! (`Modules/_randommodule.c` and `Lib/random.py`); the tests compare against values printed by
//! `python3`.

const STATE_WORDS: usize = 624;
const SHIFT_WORDS: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The state of one `random.Random` instance.
pub struct PyRandom {
    state: [u32; STATE_WORDS],
    /// Index of the next word to temper; `STATE_WORDS` means the block must be regenerated.
    next: usize,
}

impl PyRandom {
    /// `random.seed(seed)` for a non-negative integer: `init_by_array` over the integer's
    /// 32-bit words, least significant first (one word for seeds below 2^32, including 0).
    pub fn seed(seed: u64) -> Self {
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        if high == 0 { Self::init_by_array(&[low]) } else { Self::init_by_array(&[low, high]) }
    }

    fn init_genrand(seed: u32) -> Self {
        let mut state = [0u32; STATE_WORDS];
        state[0] = seed;
        for i in 1..STATE_WORDS {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        Self { state, next: STATE_WORDS }
    }

    fn init_by_array(key: &[u32]) -> Self {
        let mut rng = Self::init_genrand(19_650_218);
        let mt = &mut rng.state;
        let mut i = 1;
        let mut j = 0;
        for _ in 0..STATE_WORDS.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525)).wrapping_add(key[j]).wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= STATE_WORDS {
                mt[0] = mt[STATE_WORDS - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..STATE_WORDS - 1 {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= STATE_WORDS {
                mt[0] = mt[STATE_WORDS - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        rng
    }

    /// `genrand_uint32`: the next tempered 32-bit output.
    fn next_u32(&mut self) -> u32 {
        if self.next >= STATE_WORDS {
            self.regenerate();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn regenerate(&mut self) {
        let mt = &mut self.state;
        for k in 0..STATE_WORDS {
            let y = (mt[k] & UPPER_MASK) | (mt[(k + 1) % STATE_WORDS] & LOWER_MASK);
            let twist = if y & 1 == 1 { MATRIX_A } else { 0 };
            mt[k] = mt[(k + SHIFT_WORDS) % STATE_WORDS] ^ (y >> 1) ^ twist;
        }
        self.next = 0;
    }

    /// `random.random()`: a float in [0, 1) built from 27 + 26 bits of two consecutive outputs.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `random.uniform(a, b)`, evaluated as Python does: `a + (b - a) * random()`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }

    /// `random.getrandbits(bits)` for `1 <= bits <= 32`: the top `bits` bits of one output.
    pub fn getrandbits(&mut self, bits: u32) -> u32 {
        assert!((1..=32).contains(&bits), "getrandbits supports 1..=32 bits, got {bits}");
        self.next_u32() >> (32 - bits)
    }

    /// `random.randint(low, high)` for ranges of fewer than 2^32 values: `low + _randbelow(span)`.
    pub fn randint(&mut self, low: i64, high: i64) -> i64 {
        assert!(low <= high, "empty range for randint({low}, {high})");
        low + self.randbelow(high.abs_diff(low) + 1) as i64
    }

    /// `random.choice(items)`: `items[_randbelow(len(items))]`.
    ///
    /// # Panics
    /// If `items` is empty (Python raises `IndexError`) or has 2^32 items or more.
    pub fn choice<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        assert!(!items.is_empty(), "cannot choose from an empty sequence");
        &items[self.randbelow(items.len() as u64) as usize]
    }

    /// `random.sample(items, 2)` for a list: below 22 items from a pool where the first pick's
    /// slot takes the last item, otherwise by redrawing an index equal to the first.
    ///
    /// # Panics
    /// If `items` has fewer than 2 items (Python raises `ValueError`).
    pub fn sample_two<T: Copy>(&mut self, items: &[T]) -> [T; 2] {
        let n = items.len() as u64;
        assert!(n >= 2, "sample larger than population");
        let first = self.randbelow(n);
        if n <= 21 {
            let mut second = self.randbelow(n - 1);
            if second == first {
                second = n - 1;
            }
            [items[first as usize], items[second as usize]]
        } else {
            let mut second = self.randbelow(n);
            while second == first {
                second = self.randbelow(n);
            }
            [items[first as usize], items[second as usize]]
        }
    }

    /// Python's `_randbelow_with_getrandbits(n)` for `n >= 1`: draws `bit_length(n)` bits and
    /// rejects values `>= n`. The rejection loop is why one `randint` or `choice` can consume
    /// several outputs, and why even `n = 1` consumes one.
    pub fn randbelow(&mut self, n: u64) -> u64 {
        assert!(n >= 1, "randbelow needs n >= 1");
        let bits = u64::BITS - n.leading_zeros();
        loop {
            let r = self.getrandbits_wide(bits);
            if r < n {
                return r;
            }
        }
    }

    /// `random.getrandbits(bits)` for `1 <= bits <= 64`: above 32 bits CPython fills 32-bit words
    /// least significant first, the last word keeping the top bits of its output.
    fn getrandbits_wide(&mut self, bits: u32) -> u64 {
        if bits <= 32 {
            return u64::from(self.getrandbits(bits));
        }
        let low = u64::from(self.next_u32());
        low | u64::from(self.getrandbits(bits - 32)) << 32
    }
}

/// numpy's legacy `RandomState` (MT19937) as far as `pandas.DataFrame.sample` uses it: seeded
/// with one integer through `init_genrand` (not Python's `init_by_array`), and
/// `choice(n, size, replace=False)`, which is the first `size` entries of `permutation(n)`.
pub struct NumpyRandomState(PyRandom);

impl NumpyRandomState {
    /// `numpy.random.RandomState(seed)`; numpy refuses seeds above 2^32 - 1, and so does the type.
    pub fn new(seed: u32) -> Self {
        Self(PyRandom::init_genrand(seed))
    }

    /// `permutation(n)`: `arange(n)` shuffled by Fisher-Yates from the last position down, each
    /// position's partner drawn by `random_interval` (masked 32-bit draws, rejected above it).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.random_interval(i as u64) as usize;
            items.swap(i, j);
        }
        items
    }

    /// numpy's `random_interval(max)`: uniform in `0..=max`, drawing `value & mask` (the mask
    /// the smallest all-ones word covering `max`) until it is at most `max`; 64-bit draws (two
    /// outputs, high word first) above 2^32 - 1.
    fn random_interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        loop {
            let value = if max <= u64::from(u32::MAX) {
                u64::from(self.0.next_u32()) & mask
            } else {
                (u64::from(self.0.next_u32()) << 32 | u64::from(self.0.next_u32())) & mask
            };
            if value <= max {
                return value;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by numpy 1.19.2 (`RandomState(seed).permutation(n)`, and `choice(1000, 5,
    /// replace=False)`, its first five) and CPython (`Random(seed).randint(0, 1 << 32)`, 33 bits
    /// drawn from two outputs).
    #[test]
    fn numpy_permutations_and_wide_randint_match_numpy_and_cpython() {
        assert_eq!(NumpyRandomState::new(12345).permutation(10), [0, 7, 3, 9, 6, 4, 1, 8, 5, 2]);
        assert_eq!(NumpyRandomState::new(u32::MAX).permutation(82_247)[..6], [40643, 11441, 73081, 58512, 3578, 74791]);
        assert_eq!(NumpyRandomState::new(0).permutation(1000)[..5], [993, 859, 298, 553, 672]);
        for (seed, expected) in [(1, 3_280_387_012), (2, 242_886_303), (8, 973_694_259)] {
            assert_eq!(PyRandom::seed(seed).randint(0, 1 << 32), expected, "seed {seed}");
        }
    }

    #[test]
    fn random_matches_cpython_for_seed_1() {
        let mut rng = PyRandom::seed(1);
        assert_eq!(rng.random(), 0.13436424411240122);
        assert_eq!(rng.random(), 0.8474337369372327);
        assert_eq!(rng.random(), 0.763774618976614);
    }

    #[test]
    fn getrandbits_matches_cpython_for_seed_1() {
        let mut rng = PyRandom::seed(1);
        let words: Vec<u32> = (0..3).map(|_| rng.getrandbits(32)).collect();
        assert_eq!(words, [577090037, 2444712010, 3639700191]);
        let mut rng = PyRandom::seed(1);
        // Python: [random.getrandbits(k) for k in (1, 4, 7, 16, 31)]
        let small: Vec<u32> = [1, 4, 7, 16, 31].into_iter().map(|k| rng.getrandbits(k)).collect();
        assert_eq!(small, [0, 9, 108, 52577, 1640193506]);
    }

    #[test]
    fn randint_matches_cpython_including_rejections() {
        let mut rng = PyRandom::seed(1);
        let classes: Vec<i64> = (0..5).map(|_| rng.randint(0, 8)).collect();
        assert_eq!(classes, [2, 1, 4, 1, 7]);
        // Python: random.seed(1); [random.randint(36000, 86400) for _ in range(5)]
        let mut rng = PyRandom::seed(1);
        let long: Vec<i64> = (0..5).map(|_| rng.randint(36000, 86400)).collect();
        assert_eq!(long, [44805, 73303, 86054, 40135, 52716]);
        // Python: random.seed(1); [random.randint(-3, 3) for _ in range(8)]
        let mut rng = PyRandom::seed(1);
        let signed: Vec<i64> = (0..8).map(|_| rng.randint(-3, 3)).collect();
        assert_eq!(signed, [-2, 1, 3, 3, 3, -3, -1, -3]);
        // Python: random.seed(1); random.randint(5, 5), random.random()
        let mut rng = PyRandom::seed(1);
        assert_eq!(rng.randint(5, 5), 5);
        assert_eq!(rng.random(), 0.5692038748222122, "randint(5, 5) still consumes one output");
    }

    #[test]
    fn choice_matches_cpython_including_rejections() {
        // Python: random.seed(1); [random.choice(range(14)) for _ in range(10)]
        let mut rng = PyRandom::seed(1);
        let items: Vec<u32> = (0..14).collect();
        let picks: Vec<u32> = (0..10).map(|_| *rng.choice(&items)).collect();
        assert_eq!(picks, [2, 9, 13, 12, 12, 1, 4, 1, 7, 12]);
        // Python: random.seed(3); [random.choice('abcde') for _ in range(8)]
        let mut rng = PyRandom::seed(3);
        let letters: String = (0..8).map(|_| *rng.choice(&['a', 'b', 'c', 'd', 'e'])).collect();
        assert_eq!(letters, "beebcede");
        // Python: random.seed(2); [random.choice(range(1000)) for _ in range(6)]
        let mut rng = PyRandom::seed(2);
        let wide: Vec<u32> = (0..1000).collect();
        let picks: Vec<u32> = (0..6).map(|_| *rng.choice(&wide)).collect();
        assert_eq!(picks, [978, 883, 970, 869, 57, 93]);
        // Python: random.seed(1); random.choice([7]); random.random()
        let mut rng = PyRandom::seed(1);
        assert_eq!(*rng.choice(&[7]), 7);
        assert_eq!(rng.random(), 0.5692038748222122, "choice of one item still consumes one output");
    }

    #[test]
    fn seeds_zero_and_above_2_pow_32_match_cpython() {
        // Python: random.seed(s); [random.random() for _ in range(2)]
        let cases: [(u64, [f64; 2]); 4] = [
            (0, [0.8444218515250481, 0.7579544029403025]),
            (42, [0.6394267984578837, 0.025010755222666936]),
            (1 << 32, [0.11299430095636409, 0.41782886486292836]),
            (u64::MAX, [0.021825695401270107, 0.3380953268613758]),
        ];
        for (seed, expected) in cases {
            let mut rng = PyRandom::seed(seed);
            assert_eq!([rng.random(), rng.random()], expected, "seed {seed}");
        }
    }

    #[test]
    fn stream_stays_in_step_across_state_regeneration() {
        // Python: random.seed(7); [random.random() for _ in range(1000)][-1], then getrandbits(32)
        let mut rng = PyRandom::seed(7);
        let last = (0..1000).map(|_| rng.random()).last().unwrap();
        assert_eq!(last, 0.37786262968738116);
        assert_eq!(rng.getrandbits(32), 4083946869);
    }

    #[test]
    fn uniform_follows_python_evaluation_order() {
        // Python: random.seed(1); [random.uniform(1.5, 3) for _ in range(3)]
        let mut rng = PyRandom::seed(1);
        let draws: Vec<f64> = (0..3).map(|_| rng.uniform(1.5, 3.0)).collect();
        assert_eq!(draws, [1.7015463661686019, 2.771150605405849, 2.645661928464921]);
    }

    /// Values from CPython 3.11: `r = random.Random(3)`, four `r.sample(range(10), 2)` (pool
    /// branch) then four `r.sample(range(40), 2)` (set branch).
    #[test]
    fn sample_two_matches_cpython_in_both_branches() {
        let mut rng = PyRandom::seed(3);
        let small: Vec<u32> = (0..10).collect();
        let large: Vec<u32> = (0..40).collect();
        let picks: Vec<[u32; 2]> = (0..4).map(|_| rng.sample_two(&small)).collect();
        assert_eq!(picks, [[3, 8], [2, 5], [9, 7], [9, 1]]);
        let picks: Vec<[u32; 2]> = (0..4).map(|_| rng.sample_two(&large)).collect();
        assert_eq!(picks, [[38, 0], [30, 16], [35, 14], [12, 30]]);
    }
}
