//! CPython's `random.Random` (Mersenne Twister MT19937), bit-for-bit.
//!
//! Source of behaviour: CPython 3.11 `Modules/_randommodule.c` and `Lib/random.py`.

use crate::value::Value;

/// A CPython-compatible `random.Random`.
pub struct PyRandom {
    // filled in by the implementation
}

impl PyRandom {
    /// `random.Random(s)` for a `str` seed (version 2 seeding: the seed is the str's UTF-8
    /// bytes followed by their SHA-512 digest, read as a big integer).
    pub fn from_str_seed(_s: &str) -> Self {
        unimplemented!("PyRandom::from_str_seed")
    }
    /// `random.Random(n)` for an int seed.
    pub fn from_int_seed(_n: i64) -> Self {
        unimplemented!("PyRandom::from_int_seed")
    }
    /// `random()`: a float in [0, 1).
    pub fn random(&mut self) -> f64 {
        unimplemented!()
    }
    /// `getrandbits(k)` for k <= 64.
    pub fn getrandbits(&mut self, _k: u32) -> u64 {
        unimplemented!()
    }
    /// `_randbelow(n)`: an int in [0, n).
    pub fn randbelow(&mut self, _n: u64) -> u64 {
        unimplemented!()
    }
    /// `shuffle(x)` in place.
    pub fn shuffle<T>(&mut self, _x: &mut [T]) {
        unimplemented!()
    }
    /// `sample(range(n), k)`: the indices CPython's `sample(population, k)` picks, in order.
    pub fn sample_indices(&mut self, _n: usize, _k: usize) -> Vec<usize> {
        unimplemented!()
    }
    /// `choice(seq)` for a sequence of length `n`: the index picked.
    pub fn choice_index(&mut self, _n: usize) -> usize {
        unimplemented!()
    }
}

/// Unitxt's `random_utils.new_random_generator(sub_seed)` with the global seed 42: for a dict
/// or list sub-seed, the md5 of Python's `str()` of it; for a str, the str itself.
pub fn new_random_generator(_sub_seed: &Value) -> PyRandom {
    unimplemented!()
}
