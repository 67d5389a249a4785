//! CPython's `random.Random` (Mersenne Twister MT19937), bit-for-bit.
//!
//! Source of behaviour: CPython 3.11 `Modules/_randommodule.c` and `Lib/random.py`.

use md5::{Digest as _, Md5};
use sha2::Sha512;

use crate::error::{Error, Result};
use crate::py::repr::repr;
use crate::value::Value;

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The default global seed of Unitxt's settings (`settings.seed`).
pub const UNITXT_SEED: u64 = 42;

static GLOBAL_SEED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(UNITXT_SEED);

/// The global seed in use (Unitxt's `settings.seed`): [`UNITXT_SEED`] unless changed with
/// [`set_global_seed`]. It seeds every random choice of a recipe and the bootstrap of
/// confidence intervals.
pub fn global_seed() -> u64 {
    GLOBAL_SEED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets the global seed for the whole process (as setting Unitxt's `settings.seed` does).
pub fn set_global_seed(seed: u64) {
    GLOBAL_SEED.store(seed, std::sync::atomic::Ordering::Relaxed)
}

/// A CPython-compatible `random.Random`.
#[derive(Clone)]
pub struct PyRandom {
    /// MT19937's state; words below `index` are already twisted for the current round.
    state: [u32; N],
    /// Words drawn in the current round (N: the round is over and the next draw starts one).
    index: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRandom").field("index", &self.index).finish_non_exhaustive()
    }
}

/// MT19937's `init_genrand(s)` state, computable at compile time.
const fn init_genrand(s: u32) -> [u32; N] {
    let mut state = [0u32; N];
    state[0] = s;
    let mut i = 1;
    while i < N {
        state[i] = 1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        i += 1;
    }
    state
}

/// The state `init_by_array` starts from (`init_genrand(19650218)`), computed once at build time.
static INIT_BY_ARRAY_START: [u32; N] = init_genrand(19_650_218);

impl PyRandom {
    /// CPython's `Random.choices(population, weights, k=1)[0]`, as an index, given the
    /// accumulated weights (see [`accumulate`]): `random() * total` bisected (right) in `cum`.
    /// Errors as CPython's `ValueError`s: an empty population, a total that is not positive or
    /// not finite.
    pub fn weighted_choice_index(&mut self, cum: &[f64]) -> Result<usize> {
        let n = cum.len();
        if n == 0 {
            return Err(Error::invalid("cannot choose from an empty population"));
        }
        let total = cum[n - 1];
        if total <= 0.0 {
            return Err(Error::invalid("Total of weights must be greater than zero"));
        }
        if !total.is_finite() {
            return Err(Error::invalid("Total of weights must be finite"));
        }
        let x = self.random() * total;
        let (mut lo, mut hi) = (0usize, n - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if x < cum[mid] {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }

    /// Seeds from a key of 32-bit words (least significant word first), like CPython's
    /// `init_by_array`, which `random.seed(int)` uses with the int's absolute value.
    pub fn from_key(key: &[u32]) -> Self {
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut r = PyRandom { state: INIT_BY_ARRAY_START, index: 0 };
        let mt = &mut r.state;
        let klen = key.len();
        // Each step adds key word `j` plus `j`: summed here, off the chain of dependent steps
        // (one add less per step on it).
        let key_plus_index: Vec<u32> = key.iter().zip(0u32..).map(|(&k, j)| k.wrapping_add(j)).collect();
        let (mut i, mut j) = (1usize, 0usize);
        // Runs of steps between wrap-arounds (of `i` past N, of `j` past the key's end), so that
        // the step itself has no wrap test.
        let mut left = N.max(klen);
        while left > 0 {
            let run = left.min(N - i).min(klen - j);
            let mut prev = mt[i - 1];
            for (m, &add) in mt[i..i + run].iter_mut().zip(&key_plus_index[j..j + run]) {
                prev = (*m ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525)).wrapping_add(add);
                *m = prev;
            }
            i += run;
            j += run;
            left -= run;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= klen {
                j = 0;
            }
        }
        let mut left = N - 1;
        while left > 0 {
            let run = left.min(N - i);
            let mut prev = mt[i - 1];
            for (c, m) in (i as u32..).zip(mt[i..i + run].iter_mut()) {
                prev = (*m ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(c);
                *m = prev;
            }
            i += run;
            left -= run;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        r
    }

    /// `random.Random(n)` for a non-negative integer given as big-endian bytes (leading zero
    /// bytes allowed).
    pub fn from_be_bytes(bytes: &[u8]) -> Self {
        let mut key: Vec<u32> = bytes
            .rchunks(4)
            .map(|chunk| chunk.iter().fold(0u32, |acc, &b| (acc << 8) | b as u32))
            .collect();
        while key.len() > 1 && key.last() == Some(&0) {
            key.pop();
        }
        Self::from_key(&key)
    }

    /// `random.Random(s)` for a `str` seed (version 2 seeding: the seed is the str's UTF-8
    /// bytes followed by their SHA-512 digest, read as a big integer).
    pub fn from_str_seed(s: &str) -> Self {
        let mut bytes = s.as_bytes().to_vec();
        bytes.extend_from_slice(&Sha512::digest(s.as_bytes()));
        Self::from_be_bytes(&bytes)
    }

    /// `random.Random(n)` for an int seed (the sign is ignored, as in CPython).
    pub fn from_int_seed(n: i64) -> Self {
        Self::from_be_bytes(&n.unsigned_abs().to_be_bytes())
    }

    fn genrand_u32(&mut self) -> u32 {
        if self.index >= N {
            self.index = 0;
        }
        let k = self.index;
        // The twist, one word at a time as outputs are drawn: word `k` of the next state mixes
        // words `k` and `k + 1` of the current state with word `k + M` (all mod N). Done in
        // increasing `k`, each word reads exactly the values the whole-array twist would
        // (later words still old, earlier ones already new), so the outputs are the same, and
        // a generator that draws a few numbers does not twist all 624 words.
        let mt = &mut self.state;
        let y = (mt[k] & UPPER_MASK) | (mt[(k + 1) % N] & LOWER_MASK);
        let mut y = mt[(k + M) % N] ^ (y >> 1) ^ if y & 1 == 1 { MATRIX_A } else { 0 };
        mt[k] = y;
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: a float in [0, 1).
    pub fn random(&mut self) -> f64 {
        let a = (self.genrand_u32() >> 5) as f64;
        let b = (self.genrand_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for k <= 64 (larger `k` is treated as 64; see [`Self::getrandbits_words`]).
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        let k = k.min(64);
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return (self.genrand_u32() >> (32 - k)) as u64;
        }
        let words = self.getrandbits_words(k);
        words.iter().rev().fold(0u64, |acc, &w| (acc << 32) | w as u64)
    }

    /// `getrandbits(k)` for any `k`: the result's 32-bit words, least significant first.
    pub fn getrandbits_words(&mut self, k: u32) -> Vec<u32> {
        let mut left = k;
        let mut words = Vec::with_capacity(k.div_ceil(32) as usize);
        while left > 0 {
            let mut r = self.genrand_u32();
            if left < 32 {
                r >>= 32 - left;
            }
            words.push(r);
            left = left.saturating_sub(32);
        }
        words
    }

    /// `_randbelow(n)`: an int in [0, n) by rejection sampling on `getrandbits(n.bit_length())`.
    /// For `n == 0` (an error or endless loop in Python) returns 0 without consuming state.
    pub fn randbelow(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `randrange(start, stop)` (step 1). Errors on an empty range, like Python's ValueError.
    pub fn randrange(&mut self, start: i64, stop: i64) -> Result<i64> {
        let width = stop as i128 - start as i128;
        if width <= 0 {
            return Err(Error::invalid(format!("empty range for randrange({start}, {stop})")));
        }
        Ok((start as i128 + self.randbelow(width as u64) as i128) as i64)
    }

    /// `randint(a, b)`: an int in [a, b]. Errors when `b < a`.
    pub fn randint(&mut self, a: i64, b: i64) -> Result<i64> {
        let width = b as i128 - a as i128 + 1;
        if width <= 0 {
            return Err(Error::invalid(format!("empty range for randint({a}, {b})")));
        }
        Ok((a as i128 + self.randbelow(width as u64) as i128) as i64)
    }

    /// `shuffle(x)` in place.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i as u64 + 1) as usize;
            x.swap(i, j);
        }
    }

    /// `sample(range(n), k)`: the indices CPython's `sample(population, k)` picks, in order.
    /// `k > n` (a ValueError in Python) is clamped to `n`; use [`Self::try_sample_indices`] to
    /// get the error instead.
    pub fn sample_indices(&mut self, n: usize, k: usize) -> Vec<usize> {
        self.sample_impl(n, k.min(n))
    }

    /// Like [`Self::sample_indices`] but errors when `k > n`, as Python does.
    pub fn try_sample_indices(&mut self, n: usize, k: usize) -> Result<Vec<usize>> {
        if k > n {
            return Err(Error::invalid(format!("sample larger than population: k={k} > n={n}")));
        }
        Ok(self.sample_impl(n, k))
    }

    fn sample_impl(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut result = Vec::with_capacity(k);
        let mut setsize: f64 = 21.0;
        if k > 5 {
            // Python: 4 ** ceil(log(k * 3, 4)), where log(x, b) is ln(x) / ln(b).
            let e = (((k * 3) as f64).ln() / 4f64.ln()).ceil();
            setsize += 4f64.powf(e);
        }
        if (n as f64) <= setsize {
            let mut pool: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = self.randbelow((n - i) as u64) as usize;
                result.push(pool[j]);
                pool[j] = pool[n - i - 1];
            }
        } else {
            let mut selected = std::collections::HashSet::with_capacity(k);
            for _ in 0..k {
                let mut j = self.randbelow(n as u64) as usize;
                while selected.contains(&j) {
                    j = self.randbelow(n as u64) as usize;
                }
                selected.insert(j);
                result.push(j);
            }
        }
        result
    }

    /// `choice(seq)` for a sequence of length `n`: the index picked. `n == 0` (an IndexError
    /// in Python) returns 0 without consuming state.
    pub fn choice_index(&mut self, n: usize) -> usize {
        self.randbelow(n as u64) as usize
    }
}

/// The modulus of CPython's numeric hash, `2**61 - 1`.
const HASH_MODULUS: u64 = (1 << 61) - 1;
const HASH_BITS: i32 = 61;

/// Python's `hash(n)` of an int.
pub fn py_hash_int(n: i128) -> i64 {
    let m = (n.unsigned_abs() % HASH_MODULUS as u128) as i64;
    let h = if n < 0 { -m } else { m };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// Python's `hash(f)` of a float (CPython 3.11 `_Py_HashDouble`). NaN hashes by object
/// identity in Python; here it is 0 (which is what Python 3.9 and older gave).
pub fn py_hash_float(f: f64) -> i64 {
    if f.is_nan() {
        return 0;
    }
    if f.is_infinite() {
        return if f > 0.0 { 314_159 } else { -314_159 };
    }
    if f == 0.0 {
        return 0;
    }
    // frexp: f = m * 2**e with 0.5 <= |m| < 1.
    let bits = f.to_bits();
    let neg = f < 0.0;
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, mut e) = if raw_exp == 0 {
        // subnormal: value = frac * 2**-1074
        let lz = frac.leading_zeros() as i32 - 11; // shift so that bit 52 is set
        (frac << lz, -1074 - lz + 53)
    } else {
        (frac | (1u64 << 52), raw_exp - 1075 + 53)
    };
    let mut m = mant as f64 / (1u64 << 53) as f64; // in [0.5, 1)
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & HASH_MODULUS) | (x >> (HASH_BITS - 28));
        m *= 268_435_456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= HASH_MODULUS {
            x -= HASH_MODULUS;
        }
    }
    let e = if e >= 0 { e % HASH_BITS } else { HASH_BITS - 1 - ((-1 - e) % HASH_BITS) };
    x = ((x << e) & HASH_MODULUS) | (x >> (HASH_BITS - e));
    let h = if neg { -(x as i64) } else { x as i64 };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// The sub-seed string Unitxt's `new_random_generator` derives from `sub_seed` (the part
/// after `"42/"`): dicts and lists give the decimal value of the first 8 hex digits of the md5
/// of their Python `str()`; strings are taken as is; numbers and booleans give `str(hash(x))`.
/// `None` hashes by identity in Python 3.11 (not reproducible); we use `str(hash(0))`, "0".
pub fn sub_seed_string(sub_seed: &Value) -> String {
    match sub_seed {
        Value::Array(_) | Value::Object(_) => md5_sub_seed(&repr(sub_seed)),
        Value::String(s) => s.as_str().to_owned(),
        Value::Bool(b) => (*b as i64).to_string(),
        Value::Null => "0".to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                py_hash_int(i as i128).to_string()
            } else if let Some(u) = n.as_u64() {
                py_hash_int(u as i128).to_string()
            } else {
                py_hash_float(n.as_f64().unwrap_or(f64::NAN)).to_string()
            }
        }
    }
}

/// The sub-seed string of a list or dict whose `repr` is `text`: the first four bytes of its
/// md5 digest as a big-endian integer, in decimal.
fn md5_sub_seed(text: &str) -> String {
    let digest = Md5::digest(text.as_bytes());
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]).to_string()
}

/// [`new_random_generator`] for a list or dict sub-seed whose Python `str()` is `text`
/// (for values that hold Python objects the engine keeps in another form).
pub fn new_random_generator_for_repr(text: &str) -> PyRandom {
    PyRandom::from_str_seed(&format!("{}/{}", global_seed(), md5_sub_seed(text)))
}

/// [`new_random_generator`] for a dict sub-seed given by its items (in order), without
/// building the dict.
pub fn new_random_generator_for_dict<'a>(items: impl IntoIterator<Item = (&'a str, &'a Value)>) -> PyRandom {
    thread_local! {
        // Not a cache: a scratch buffer for the repr's text, reused: an instance's repr is
        // kilobytes with demos, which a fresh string would reach by several reallocations,
        // once per instance. Its room is kept up to `TEXT_KEEP` bytes per thread.
        static TEXT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    /// The scratch buffer's room kept between calls, at most.
    const TEXT_KEEP: usize = 1 << 20;
    let seed = TEXT.with(|t| {
        let mut text = t.borrow_mut();
        text.clear();
        crate::py::repr::write_dict_repr(items, &mut text);
        let seed = md5_sub_seed(&text);
        if text.capacity() > TEXT_KEEP {
            *text = String::new();
        }
        seed
    });
    PyRandom::from_str_seed(&format!("{}/{}", global_seed(), seed))
}

/// Unitxt's `random_utils.new_random_generator(sub_seed)` with the global seed 42: for a dict
/// or list sub-seed, the md5 of Python's `str()` of it; for a str, the str itself; for other
/// values `str(hash(value))` (see [`sub_seed_string`]). The generator is seeded with the str
/// `"42/" + sub_seed`.
pub fn new_random_generator(sub_seed: &Value) -> PyRandom {
    PyRandom::from_str_seed(&format!("{}/{}", global_seed(), sub_seed_string(sub_seed)))
}

/// `itertools.accumulate(weights)`, as `Random.choices` accumulates them (the first weight as
/// it is, then running sums).
pub fn accumulate(weights: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            acc = if i == 0 { *w } else { acc + w };
            acc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    // Expected values come from CPython 3.11.7 (/work/venv/bin/python) and Unitxt 1.26.10's
    // `unitxt.random_utils.new_random_generator` on the same inputs.
    use super::*;
    use crate::json;

    #[test]
    fn str_seed_random_sample_getrandbits() {
        let mut r = PyRandom::from_str_seed("42/abc");
        assert_eq!(r.random(), 0.19406768379790074);
        assert_eq!(r.sample_indices(30, 3), vec![9, 29, 25]);
        assert_eq!(r.getrandbits(64), 8973478470689282283);
    }

    #[test]
    fn shuffle_matches() {
        let mut r = PyRandom::from_str_seed("42/abc");
        let mut x: Vec<u32> = (0..10).collect();
        r.shuffle(&mut x);
        assert_eq!(x, vec![6, 1, 0, 5, 8, 7, 9, 2, 4, 3]);
    }

    #[test]
    fn int_seeds() {
        assert_eq!(PyRandom::from_int_seed(0).getrandbits(64), 7106521602475165645);
        assert_eq!(PyRandom::from_int_seed(0).random(), 0.8444218515250481);
        assert_eq!(PyRandom::from_int_seed(-5).random(), 0.6229016948897019);
        assert_eq!(PyRandom::from_int_seed((1 << 40) + 3).random(), 0.21978710637116716);
        assert_eq!(PyRandom::from_str_seed("").random(), 0.9602256525641875);
    }

    #[test]
    fn keys_longer_than_the_state() {
        // Keys of more than 624 words, where seeding wraps around both the state and the key:
        // a 3,000-character str (Random(s) with s[i] = chr(97 + i * 7 % 26)), a str of
        // two-byte characters, and the int 2**20000 + 12345.
        let s: String = (0..3000u32).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let mut r = PyRandom::from_str_seed(&s);
        assert_eq!(r.random(), 0.718952509072168);
        assert_eq!(r.getrandbits(64), 8521949690732728396);
        assert_eq!(PyRandom::from_str_seed(&format!("42/{}", "\u{e9}".repeat(700))).random(), 0.7428845725764871);
        let mut big = vec![0u8; 2501];
        big[0] = 1; // 2**20000 is bit 0 of byte 0 (big-endian, 2,501 bytes)
        big[2499] = (12345 >> 8) as u8;
        big[2500] = (12345 & 0xff) as u8;
        assert_eq!(PyRandom::from_be_bytes(&big).random(), 0.37548879893399734);
    }

    #[test]
    fn sample_both_algorithms_choice_randint_bits() {
        let mut r = PyRandom::from_str_seed("42/x");
        // n=100 > setsize 85: selected-set algorithm
        assert_eq!(r.sample_indices(100, 10), vec![94, 34, 64, 33, 83, 53, 15, 32, 52, 89]);
        let big = vec![
            217, 967, 625, 538, 754, 887, 171, 723, 203, 188, 154, 53, 787, 686, 768, 561, 517, 230, 313, 876, 387,
            472, 346, 61, 396, 532, 541, 124, 655, 645,
        ];
        assert_eq!(r.sample_indices(1000, 30), big);
        assert_eq!(r.choice_index(7), 2);
        assert_eq!(r.randint(3, 9).ok(), Some(7));
        let w = r.getrandbits_words(100);
        let v = w.iter().rev().fold(0u128, |acc, &x| (acc << 32) | x as u128);
        assert_eq!(v, 1164322142889238288906797443951);
        // n=40 <= setsize 85 with k=6: pool algorithm
        assert_eq!(r.sample_indices(40, 6), vec![22, 30, 17, 12, 16, 6]);
        assert_eq!(r.randrange(-5, 5).ok(), Some(-2));
        assert!(r.try_sample_indices(3, 4).is_err());
    }

    #[test]
    fn unitxt_new_random_generator() {
        let mut r = new_random_generator(&json!({"a": 1}));
        assert_eq!(r.random(), 0.41869109803624815);
        assert_eq!(r.random(), 0.10096503402345725);
        assert_eq!(r.sample_indices(50, 5), vec![5, 32, 42, 6, 24]);
        assert_eq!(new_random_generator(&json!(["x", 1.5, null, true])).random(), 0.7362544924119033);
        assert_eq!(new_random_generator(&json!("abc")).random(), 0.19406768379790074);
        assert_eq!(new_random_generator(&json!(7)).random(), 0.7176418083113791);
        assert_eq!(new_random_generator(&json!(-1)).random(), 0.21489071910141766);
        assert_eq!(new_random_generator(&json!(1.5)).random(), 0.4743160597129602);
        assert_eq!(new_random_generator(&json!(true)).random(), 0.8958656529140007);
    }

    #[test]
    fn python_hashes() {
        assert_eq!(py_hash_float(1.5), 1152921504606846977);
        assert_eq!(py_hash_float(-2.75), -1729382256910270466);
        assert_eq!(py_hash_float(1e300), 1224995262755759164);
        assert_eq!(py_hash_float(5e-324), 16777216);
        assert_eq!(py_hash_float(0.1), 230584300921369408);
        assert_eq!(py_hash_float(-1.0), -2);
        assert_eq!(py_hash_int((1i128 << 61) + 5), 6);
        assert_eq!(py_hash_int(-(1i128 << 62)), -2);
        assert_eq!(py_hash_int(-1), -2);
    }
}
