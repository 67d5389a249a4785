//! Bootstrap confidence intervals exactly as Unitxt 1.26.10 obtains them from
//! `scipy.stats.bootstrap` (scipy 1.17) driven by `numpy.random.default_rng` (numpy 2.4).
//!
//! Pieces, each reproducing the reference bit for bit where that is feasible:
//! - [`SeedSequence`]: numpy's entropy pool hashing and `generate_state`.
//! - [`Pcg64Generator`]: numpy's default bit generator (PCG64, XSL-RR output) with the
//!   buffered 32-bit draws and `Generator.integers` (Lemire bounded integers) on top.
//! - [`ndtr`] / [`ndtri`]: the Cephes normal CDF and its inverse, as used by `scipy.special`.
//! - [`bootstrap`]: percentile, basic and BCa intervals over a statistic of instance indices,
//!   drawing resamples as `rng.integers(0, n, (n_resamples, n))`.
//! - [`unitxt_confidence_intervals`]: Unitxt's `ConfidenceIntervalMixin.bootstrap`, i.e. the
//!   above plus the fallback that turns a NaN interval into the mean when every statistic
//!   value seen was identical.
//!
//! Statistics are given instance indices (one resample, with repetitions), so metrics re-reduce
//! their stored per-instance records instead of recomputing anything from text.

use crate::error::{Error, Result};

// ---------------------------------------------------------------------------------------------
// SeedSequence
// ---------------------------------------------------------------------------------------------

const SS_INIT_A: u32 = 0x43b0_d7e5;
const SS_MULT_A: u32 = 0x931e_8875;
const SS_INIT_B: u32 = 0x8b51_f9dd;
const SS_MULT_B: u32 = 0x58f3_8ded;
const SS_MIX_L: u32 = 0xca01_f9dd;
const SS_MIX_R: u32 = 0x4973_f715;
const SS_POOL_SIZE: usize = 4;

/// numpy's `SeedSequence` for a non-negative integer entropy and no spawn key.
///
/// Holds the 4-word mixed pool; [`SeedSequence::generate_state_u64`] produces the words that
/// seed a bit generator (numpy's `generate_state(n, np.uint64)`).
#[derive(Debug, Clone)]
pub struct SeedSequence {
    pool: [u32; SS_POOL_SIZE],
}

impl SeedSequence {
    /// Mixes `entropy` (split into little-endian 32-bit words, at least one word) into the pool.
    pub fn new(entropy: u128) -> Self {
        let mut words = Vec::new();
        let mut rest = entropy;
        loop {
            words.push(rest as u32);
            rest >>= 32;
            if rest == 0 {
                break;
            }
        }
        let mut hash_const = SS_INIT_A;
        let mut hashmix = |value: u32| -> u32 {
            let mut v = value ^ hash_const;
            hash_const = hash_const.wrapping_mul(SS_MULT_A);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> 16)
        };
        let mix = |x: u32, y: u32| -> u32 {
            let r = SS_MIX_L.wrapping_mul(x).wrapping_sub(SS_MIX_R.wrapping_mul(y));
            r ^ (r >> 16)
        };
        let mut pool = [0u32; SS_POOL_SIZE];
        for (i, slot) in pool.iter_mut().enumerate() {
            *slot = hashmix(words.get(i).copied().unwrap_or(0));
        }
        for src in 0..SS_POOL_SIZE {
            for dst in 0..SS_POOL_SIZE {
                if src != dst {
                    let h = hashmix(pool[src]);
                    pool[dst] = mix(pool[dst], h);
                }
            }
        }
        for &w in words.iter().skip(SS_POOL_SIZE) {
            for dst in 0..SS_POOL_SIZE {
                let h = hashmix(w);
                pool[dst] = mix(pool[dst], h);
            }
        }
        SeedSequence { pool }
    }

    /// `n_words` 64-bit words of state (pairs of 32-bit outputs, low word first).
    pub fn generate_state_u64(&self, n_words: usize) -> Vec<u64> {
        let mut hash_const = SS_INIT_B;
        let mut out32 = Vec::with_capacity(2 * n_words);
        for i in 0..2 * n_words {
            let mut v = self.pool[i % SS_POOL_SIZE] ^ hash_const;
            hash_const = hash_const.wrapping_mul(SS_MULT_B);
            v = v.wrapping_mul(hash_const);
            out32.push(v ^ (v >> 16));
        }
        out32
            .chunks(2)
            .map(|c| (c[0] as u64) | ((c[1] as u64) << 32))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// PCG64 + Generator
// ---------------------------------------------------------------------------------------------

const PCG_MULT: u128 = (0x2360_ed05_1fc6_5da4u128 << 64) | 0x4385_df64_9fcc_f645u128;

/// numpy's `np.random.default_rng(seed)`: a PCG64 bit generator (128-bit LCG, XSL-RR 64-bit
/// output) with numpy's one-word buffer for 32-bit draws, and the `Generator` methods that
/// scipy's bootstrap and Unitxt use.
#[derive(Debug, Clone)]
pub struct Pcg64Generator {
    state: u128,
    inc: u128,
    buffered: Option<u32>,
}

impl Pcg64Generator {
    /// `np.random.default_rng(seed)` for a non-negative integer seed.
    pub fn default_rng(seed: u128) -> Self {
        let words = SeedSequence::new(seed).generate_state_u64(4);
        let init_state = ((words[0] as u128) << 64) | words[1] as u128;
        let init_seq = ((words[2] as u128) << 64) | words[3] as u128;
        let mut g = Pcg64Generator {
            state: 0,
            inc: (init_seq << 1) | 1,
            buffered: None,
        };
        g.step();
        g.state = g.state.wrapping_add(init_state);
        g.step();
        g
    }

    /// The generator Unitxt's metrics use for confidence intervals:
    /// `default_rng(hash(seed) & 0xFFFFFFFF)` with Unitxt's integer `seed` setting (42 by default).
    pub fn for_unitxt_seed(seed: i64) -> Self {
        Self::default_rng((python_int_hash(seed) as u64 & 0xFFFF_FFFF) as u128)
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let hi = (self.state >> 64) as u64;
        let lo = self.state as u64;
        (hi ^ lo).rotate_right((self.state >> 122) as u32)
    }

    /// The next 32-bit output: the low half of a fresh 64-bit output, its high half kept for
    /// the following call.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(v) = self.buffered.take() {
            return v;
        }
        let v = self.next_u64();
        self.buffered = Some((v >> 32) as u32);
        v as u32
    }

    /// A value in `0..=rng` (inclusive range width minus one), numpy's unmasked bounded draw
    /// for 64-bit integer output (32-bit Lemire draws when `rng` fits in 32 bits).
    fn bounded_u64(&mut self, rng: u64) -> u64 {
        if rng == 0 {
            0
        } else if rng < 0xFFFF_FFFF {
            let excl = rng as u32 + 1;
            let mut m = self.next_u32() as u64 * excl as u64;
            let mut left = m as u32;
            if left < excl {
                let threshold = (u32::MAX - rng as u32) % excl;
                while left < threshold {
                    m = self.next_u32() as u64 * excl as u64;
                    left = m as u32;
                }
            }
            m >> 32
        } else if rng == 0xFFFF_FFFF {
            self.next_u32() as u64
        } else if rng == u64::MAX {
            self.next_u64()
        } else {
            let excl = rng + 1;
            let mut m = self.next_u64() as u128 * excl as u128;
            let mut left = m as u64;
            if left < excl {
                let threshold = (u64::MAX - rng) % excl;
                while left < threshold {
                    m = self.next_u64() as u128 * excl as u128;
                    left = m as u64;
                }
            }
            (m >> 64) as u64
        }
    }

    /// `Generator.integers(low, high, size=count)` with the default int64 dtype (high
    /// exclusive), in row-major order. Errors when `low >= high`.
    pub fn integers(&mut self, low: i64, high: i64, count: usize) -> Result<Vec<i64>> {
        if low >= high {
            return Err(Error::invalid(format!(
                "integers: low ({low}) must be below high ({high})"
            )));
        }
        let rng = (high as i128 - 1 - low as i128) as u64;
        Ok((0..count)
            .map(|_| (low as i128 + self.bounded_u64(rng) as i128) as i64)
            .collect())
    }

    /// `count` indices in `0..n` drawn as `Generator.integers(0, n, count)` (no draws when
    /// `n <= 1`, all zero).
    pub fn indices(&mut self, n: usize, count: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(count);
        self.fill_indices(n, count, &mut out);
        out
    }

    /// Appends `count` indices to `out`, continuing the same stream as [`Self::indices`]
    /// (drawing a big array in several calls gives the same values).
    pub fn fill_indices(&mut self, n: usize, count: usize, out: &mut Vec<usize>) {
        let rng = n.saturating_sub(1) as u64;
        out.extend((0..count).map(|_| self.bounded_u64(rng) as usize));
    }
}

/// CPython's `hash(int)` for a machine integer (modulus 2**61 - 1, `-1` mapped to `-2`).
pub fn python_int_hash(value: i64) -> i64 {
    const MODULUS: i128 = (1i128 << 61) - 1;
    let v = value as i128;
    let mut h = v.abs() % MODULUS;
    if v < 0 {
        h = -h;
    }
    if h == -1 {
        h = -2;
    }
    h as i64
}

// ---------------------------------------------------------------------------------------------
// numpy summation
// ---------------------------------------------------------------------------------------------

/// `np.sum` of a contiguous float64 array: numpy's pairwise summation (8 accumulators for
/// blocks of up to 128 values, halving above that), so results agree to the last bit.
pub fn numpy_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in values {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += values[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += values[i];
            i += 1;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        numpy_sum(&values[..half]) + numpy_sum(&values[half..])
    }
}

/// `np.nanmean`: NaN values omitted (NaN when none remain).
pub fn nan_mean(values: &[f64]) -> f64 {
    let zeroed: Vec<f64> = values.iter().map(|v| if v.is_nan() { 0.0 } else { *v }).collect();
    let count = values.iter().filter(|v| !v.is_nan()).count();
    numpy_sum(&zeroed) / count as f64
}

/// `np.nanstd` (ddof 0): NaN values omitted (NaN when none remain).
pub fn nan_std(values: &[f64]) -> f64 {
    let avg = nan_mean(values);
    let count = values.iter().filter(|v| !v.is_nan()).count();
    let squares: Vec<f64> = values
        .iter()
        .map(|v| {
            if v.is_nan() {
                0.0
            } else {
                let d = v - avg;
                d * d
            }
        })
        .collect();
    (numpy_sum(&squares) / count as f64).sqrt()
}

// ---------------------------------------------------------------------------------------------
// Normal distribution (Cephes, as in scipy.special)
// ---------------------------------------------------------------------------------------------

fn polevl(x: f64, coef: &[f64]) -> f64 {
    let mut ans = coef[0];
    for c in &coef[1..] {
        ans = ans * x + c;
    }
    ans
}

fn p1evl(x: f64, coef: &[f64]) -> f64 {
    let mut ans = x + coef[0];
    for c in &coef[1..] {
        ans = ans * x + c;
    }
    ans
}

const ERFC_P: [f64; 9] = [
    2.461_969_814_735_305_125_24E-10,
    5.641_895_648_310_688_219_77E-1,
    7.463_210_564_422_699_126_87E0,
    4.863_719_709_856_813_666_14E1,
    1.965_208_329_560_770_982_42E2,
    5.264_451_949_954_773_586_31E2,
    9.345_285_271_719_576_075_40E2,
    1.027_551_886_895_157_102_72E3,
    5.575_353_353_693_993_275_26E2,
];
const ERFC_Q: [f64; 8] = [
    1.322_819_511_547_449_925_08E1,
    8.670_721_408_859_897_423_29E1,
    3.549_377_788_878_198_910_62E2,
    9.757_085_017_432_054_897_53E2,
    1.823_909_166_879_097_362_89E3,
    2.246_337_608_187_109_817_92E3,
    1.656_663_091_941_613_501_82E3,
    5.575_353_408_177_276_755_46E2,
];
const ERFC_R: [f64; 6] = [
    5.641_895_835_477_550_739_84E-1,
    1.275_366_707_599_781_044_16E0,
    5.019_050_422_511_804_774_14E0,
    6.160_210_979_930_535_851_95E0,
    7.409_742_699_504_489_391_60E0,
    2.978_866_653_721_002_406_70E0,
];
const ERFC_S: [f64; 6] = [
    2.260_528_632_201_172_765_90E0,
    9.396_035_249_380_014_346_73E0,
    1.204_895_398_080_966_566_05E1,
    1.708_144_507_475_658_972_22E1,
    9.608_968_090_632_858_781_98E0,
    3.369_076_451_000_815_160_50E0,
];
const ERF_T: [f64; 5] = [
    9.604_973_739_870_516_387_49E0,
    9.002_601_972_038_426_892_17E1,
    2.232_005_345_946_843_192_26E3,
    7.003_325_141_128_050_754_73E3,
    5.559_230_130_103_949_627_68E4,
];
const ERF_U: [f64; 5] = [
    3.356_171_416_475_030_996_47E1,
    5.213_579_497_801_526_797_95E2,
    4.594_323_829_709_801_279_87E3,
    2.262_900_006_138_909_342_46E4,
    4.926_739_426_086_359_210_86E4,
];
const MAXLOG: f64 = 7.097_827_128_933_839_968_43E2;

fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x > 1.0 {
        return 1.0 - erfc(x);
    }
    let z = x * x;
    x * polevl(z, &ERF_T) / p1evl(z, &ERF_U)
}

fn erfc(a: f64) -> f64 {
    if a.is_nan() {
        return f64::NAN;
    }
    let x = a.abs();
    if x < 1.0 {
        return 1.0 - erf(a);
    }
    let z = -a * a;
    let underflow = if a < 0.0 { 2.0 } else { 0.0 };
    if z < -MAXLOG {
        return underflow;
    }
    let z = z.exp();
    let (p, q) = if x < 8.0 {
        (polevl(x, &ERFC_P), p1evl(x, &ERFC_Q))
    } else {
        (polevl(x, &ERFC_R), p1evl(x, &ERFC_S))
    };
    let mut y = (z * p) / q;
    if a < 0.0 {
        y = 2.0 - y;
    }
    if y != 0.0 {
        y
    } else {
        underflow
    }
}

/// The standard normal CDF (`scipy.special.ndtr`, Cephes algorithm); NaN for NaN.
pub fn ndtr(a: f64) -> f64 {
    if a.is_nan() {
        return f64::NAN;
    }
    let x = a * std::f64::consts::FRAC_1_SQRT_2;
    let z = x.abs();
    if z < 1.0 {
        0.5 + 0.5 * erf(x)
    } else {
        let y = 0.5 * erfc(z);
        if x > 0.0 {
            1.0 - y
        } else {
            y
        }
    }
}

const NDTRI_P0: [f64; 5] = [
    -5.996_335_010_141_078_952_67E1,
    9.800_107_541_859_996_615_36E1,
    -5.667_628_574_690_702_934_39E1,
    1.393_126_093_872_796_795_03E1,
    -1.239_165_838_673_812_580_16E0,
];
const NDTRI_Q0: [f64; 8] = [
    1.954_488_583_381_417_598_34E0,
    4.676_279_128_988_815_384_53E0,
    8.636_024_213_908_905_905_75E1,
    -2.254_626_878_541_193_705_27E2,
    2.002_602_123_800_606_603_59E2,
    -8.203_722_561_683_333_399_12E1,
    1.590_562_251_262_116_955_15E1,
    -1.183_316_211_213_300_031_42E0,
];
const NDTRI_P1: [f64; 9] = [
    4.055_448_923_059_624_199_23E0,
    3.152_510_945_998_938_661_54E1,
    5.716_281_922_464_212_881_62E1,
    4.408_050_738_932_008_347_00E1,
    1.468_495_619_288_580_240_14E1,
    2.186_633_068_507_902_675_39E0,
    -1.402_560_791_713_544_958_75E-1,
    -3.504_246_268_278_482_034_18E-2,
    -8.574_567_851_546_854_136_11E-4,
];
const NDTRI_Q1: [f64; 8] = [
    1.577_998_832_564_667_497_31E1,
    4.539_076_351_288_792_105_84E1,
    4.131_720_382_546_720_304_40E1,
    1.504_253_856_929_075_034_08E1,
    2.504_649_462_083_094_159_79E0,
    -1.421_829_228_547_877_885_74E-1,
    -3.808_064_076_915_782_771_94E-2,
    -9.332_594_808_954_574_273_72E-4,
];
const NDTRI_P2: [f64; 9] = [
    3.237_748_917_769_460_359_70E0,
    6.915_228_890_689_842_116_95E0,
    3.938_810_252_924_744_434_15E0,
    1.333_034_608_158_075_423_89E0,
    2.014_853_895_491_790_815_38E-1,
    1.237_166_348_178_200_213_58E-2,
    3.015_815_535_082_354_160_07E-4,
    2.658_069_746_867_375_508_32E-6,
    6.239_745_391_849_832_937_30E-9,
];
const NDTRI_Q2: [f64; 8] = [
    6.024_270_393_647_420_142_55E0,
    3.679_835_638_561_608_594_03E0,
    1.377_020_994_890_813_302_71E0,
    2.162_369_935_944_966_358_90E-1,
    1.342_040_060_885_431_890_37E-2,
    3.280_144_646_821_277_391_04E-4,
    2.892_478_647_453_806_839_36E-6,
    6.790_194_080_099_812_744_25E-9,
];
const EXP_MINUS_2: f64 = 0.135_335_283_236_612_691_89;
const SQRT_2PI: f64 = 2.506_628_274_631_000_502_42;

/// The standard normal quantile (`scipy.special.ndtri`, Cephes algorithm): `-inf` at 0,
/// `inf` at 1, NaN outside `[0, 1]` or for NaN.
pub fn ndtri(y0: f64) -> f64 {
    if y0 == 0.0 {
        return f64::NEG_INFINITY;
    }
    if y0 == 1.0 {
        return f64::INFINITY;
    }
    if !(0.0..=1.0).contains(&y0) {
        return f64::NAN;
    }
    let mut negate = true;
    let mut y = y0;
    if y > 1.0 - EXP_MINUS_2 {
        y = 1.0 - y;
        negate = false;
    }
    if y > EXP_MINUS_2 {
        let y = y - 0.5;
        let y2 = y * y;
        let x = y + y * (y2 * polevl(y2, &NDTRI_P0) / p1evl(y2, &NDTRI_Q0));
        return x * SQRT_2PI;
    }
    let x = (-2.0 * y.ln()).sqrt();
    let x0 = x - x.ln() / x;
    let z = 1.0 / x;
    let x1 = if x < 8.0 {
        z * polevl(z, &NDTRI_P1) / p1evl(z, &NDTRI_Q1)
    } else {
        z * polevl(z, &NDTRI_P2) / p1evl(z, &NDTRI_Q2)
    };
    let x = x0 - x1;
    if negate {
        -x
    } else {
        x
    }
}

// ---------------------------------------------------------------------------------------------
// Quantile
// ---------------------------------------------------------------------------------------------

/// `scipy.stats.quantile(values, p)` with the default `linear` method (numpy's default
/// percentile interpolation): NaN when any value is NaN, or when `p` is NaN or outside [0, 1].
pub fn quantile_linear(values: &[f64], p: f64) -> f64 {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_sorted(&sorted, p)
}

fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len() as f64;
    let jg = p * n + (1.0 - p);
    let jp1 = jg.floor();
    let j = jp1 - 1.0;
    let mut g = jg - jp1;
    if j < 0.0 {
        g = 0.0;
    }
    let j = j.clamp(0.0, n - 1.0) as usize;
    let jp1 = jp1.clamp(0.0, n - 1.0) as usize;
    (1.0 - g) * sorted[j] + g * sorted[jp1]
}

// ---------------------------------------------------------------------------------------------
// Bootstrap
// ---------------------------------------------------------------------------------------------

/// How the interval is read off the bootstrap distribution (`scipy.stats.bootstrap`'s `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CiMethod {
    /// Percentiles `alpha`, `1 - alpha` of the distribution.
    Percentile,
    /// The percentile interval reflected about the observed statistic.
    Basic,
    /// Bias-corrected and accelerated percentiles (scipy's and Unitxt's default).
    Bca,
}

impl CiMethod {
    /// Parses Unitxt's `ci_method` (case-insensitive `BCa`, `percentile`, `basic`).
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "bca" => Ok(CiMethod::Bca),
            "percentile" => Ok(CiMethod::Percentile),
            "basic" => Ok(CiMethod::Basic),
            other => Err(Error::invalid(format!(
                "ci_method must be one of 'BCa', 'percentile', 'basic', got '{other}'"
            ))),
        }
    }
}

/// The outcome of [`bootstrap`] for a statistic with `k` components.
#[derive(Debug, Clone)]
pub struct BootstrapResult {
    /// `(low, high)` per component; NaN where scipy gives NaN (e.g. a degenerate distribution
    /// under BCa).
    pub intervals: Vec<(f64, f64)>,
    /// Every statistic value computed, in the order scipy computes them: the resamples, then
    /// (BCa only) the full sample and the `n` leave-one-out samples. One row per call.
    pub history: Vec<Vec<f64>>,
}

/// A bootstrap statistic: sample indices (a resample, or a leave-one-out sample) → one value
/// per score. It must not depend on call order: resamples are evaluated in parallel.
pub type Statistic<'a> = dyn Fn(&[usize]) -> Result<Vec<f64>> + Sync + 'a;

/// A shortcut for the jackknife of a [`Statistic`]: position `i` → the statistic of the sample
/// without `i`, computed by updating the full sample's sums instead of recomputing (equal up
/// to float rounding).
pub type Jackknife<'a> = dyn Fn(usize) -> Result<Vec<f64>> + Sync + 'a;

/// `scipy.stats.bootstrap((np.arange(n),), statistic, n_resamples=.., confidence_level=..,
/// method=.., random_state=rng)` for a statistic of instance indices returning `k` values
/// (a non-vectorized statistic returning a vector, as Unitxt's `Statistic`).
///
/// Resamples are `rng.integers(0, n, (n_resamples, n))`, row by row. `statistic` receives a
/// slice of indices (the resample, or the full/leave-one-out sample for BCa) and must return
/// exactly `k` values. Errors: `n < 2`, `n_resamples == 0`, a confidence level outside (0, 1),
/// a statistic returning the wrong number of values, or any error of `statistic`.
pub fn bootstrap(
    n: usize,
    k: usize,
    statistic: &Statistic<'_>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    rng: &mut Pcg64Generator,
) -> Result<BootstrapResult> {
    bootstrap_with_fix(n, k, statistic, None, n_resamples, confidence_level, method, rng, None)
}

/// [`bootstrap`] where `fix` may rewrite each batch of statistic values of one component (the
/// resample values, then the leave-one-out values) before use, as Unitxt's vectorized
/// statistics do with `resample_from_non_nan`.
#[allow(clippy::too_many_arguments)]
#[allow(clippy::too_many_arguments)]
fn bootstrap_with_fix(
    n: usize,
    k: usize,
    statistic: &Statistic<'_>,
    jackknife: Option<&Jackknife<'_>>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    rng: &mut Pcg64Generator,
    fix: Option<&dyn Fn(&mut Vec<f64>)>,
) -> Result<BootstrapResult> {
    if n < 2 {
        return Err(Error::invalid(
            "bootstrap: the sample must contain two or more observations",
        ));
    }
    if n_resamples == 0 {
        return Err(Error::invalid("bootstrap: n_resamples must be positive"));
    }
    use rayon::prelude::*;
    let check = |out: Vec<f64>| -> Result<Vec<f64>> {
        if out.len() != k {
            return Err(Error::invalid(format!(
                "bootstrap: statistic returned {} values, expected {k}",
                out.len()
            )));
        }
        Ok(out)
    };
    // Statistic values in call order (resamples, the full sample, the jackknife samples).
    let mut history: Vec<Vec<f64>> = Vec::new();

    // The resample indices are the rows of one (n_resamples, n) array drawn row after row;
    // they are drawn a batch of rows at a time into two alternating buffers (no
    // n_resamples * n array). The statistic runs on a batch's rows in parallel, results kept in
    // resample order, while the next batch is drawn (the generator is sequential).
    const ROWS_PER_BATCH: usize = 64;
    let mut dist: Vec<Vec<f64>> = vec![Vec::with_capacity(n_resamples); k];
    let draw = |rng: &mut Pcg64Generator, drawn: usize, rows: &mut Vec<usize>| -> usize {
        let batch = ROWS_PER_BATCH.min(n_resamples - drawn);
        rows.clear();
        rng.fill_indices(n, batch * n, rows);
        batch
    };
    let mut rows = Vec::with_capacity(ROWS_PER_BATCH.min(n_resamples) * n);
    let mut next_rows = Vec::new();
    let mut drawn = draw(rng, 0, &mut rows);
    loop {
        let more = drawn < n_resamples;
        let (outs, next) = rayon::join(
            || rows.par_chunks(n).map(statistic).collect::<Vec<Result<Vec<f64>>>>(),
            || if more { draw(rng, drawn, &mut next_rows) } else { 0 },
        );
        for out in outs {
            let out = check(out?)?;
            for (c, v) in out.iter().enumerate() {
                dist[c].push(*v);
            }
            history.push(out);
        }
        if !more {
            break;
        }
        drawn += next;
        std::mem::swap(&mut rows, &mut next_rows);
    }
    if let Some(fix) = fix {
        dist.iter_mut().for_each(fix);
    }

    let alpha = (1.0 - confidence_level) / 2.0;
    let mut probs: Vec<(f64, f64)> = vec![(alpha, 1.0 - alpha); k];
    let mut theta_hat: Option<Vec<f64>> = None;
    if method != CiMethod::Percentile {
        let full: Vec<usize> = (0..n).collect();
        let out = check(statistic(&full)?)?;
        history.push(out.clone());
        theta_hat = Some(out);
    }
    if method == CiMethod::Bca {
        let theta = theta_hat.clone().unwrap_or_default();
        // Leave-one-out samples, in parallel, one reusable index buffer per worker.
        let outs: Vec<Result<Vec<f64>>> = (0..n)
            .into_par_iter()
            .map_init(
                || Vec::with_capacity(n - 1),
                |sample: &mut Vec<usize>, left_out| {
                    if let Some(j) = jackknife {
                        return j(left_out);
                    }
                    sample.clear();
                    sample.extend(0..left_out);
                    sample.extend(left_out + 1..n);
                    statistic(sample)
                },
            )
            .collect();
        let mut jack: Vec<Vec<f64>> = vec![Vec::with_capacity(n); k];
        for out in outs {
            let out = check(out?)?;
            for (c, v) in out.iter().enumerate() {
                jack[c].push(*v);
            }
            history.push(out);
        }
        if let Some(fix) = fix {
            jack.iter_mut().for_each(fix);
        }
        let z_alpha = ndtri(alpha);
        for c in 0..k {
            probs[c] = bca_probabilities(&dist[c], theta[c], &jack[c], z_alpha);
        }
    }

    let mut intervals = Vec::with_capacity(k);
    for c in 0..k {
        let has_nan = dist[c].iter().any(|v| v.is_nan());
        let mut sorted = dist[c].clone();
        sorted.sort_by(f64::total_cmp);
        let q = |p: f64| {
            if has_nan || !(0.0..=1.0).contains(&p) {
                f64::NAN
            } else {
                quantile_sorted(&sorted, p)
            }
        };
        let (mut low, mut high) = (q(probs[c].0), q(probs[c].1));
        if method == CiMethod::Basic {
            let t = theta_hat.as_ref().map(|t| t[c]).unwrap_or(f64::NAN);
            (low, high) = (2.0 * t - high, 2.0 * t - low);
        }
        intervals.push((low, high));
    }
    Ok(BootstrapResult { intervals, history })
}

/// The BCa percentiles `(alpha_1, alpha_2)` of one component (scipy's `_bca_interval`).
fn bca_probabilities(dist: &[f64], theta_hat: f64, jack: &[f64], z_alpha: f64) -> (f64, f64) {
    let b = dist.len();
    let below = dist.iter().filter(|&&v| v < theta_hat).count();
    let at_or_below = dist.iter().filter(|&&v| v <= theta_hat).count();
    let percentile = (below + at_or_below) as f64 / (2 * b) as f64;
    let z0 = ndtri(percentile);

    let n = jack.len() as f64;
    let mean = numpy_sum(jack) / n;
    let u: Vec<f64> = jack.iter().map(|t| (n - 1.0) * (mean - t)).collect();
    let cubes: Vec<f64> = u.iter().map(|v| v.powf(3.0)).collect();
    let squares: Vec<f64> = u.iter().map(|v| v * v).collect();
    let num = numpy_sum(&cubes) / n.powf(3.0);
    let den = numpy_sum(&squares) / n.powf(2.0);
    let a_hat = 1.0 / 6.0 * num / den.powf(1.5);

    let z_1alpha = -z_alpha;
    let num1 = z0 + z_alpha;
    let alpha_1 = ndtr(z0 + num1 / (1.0 - a_hat * num1));
    let num2 = z0 + z_1alpha;
    let alpha_2 = ndtr(z0 + num2 / (1.0 - a_hat * num2));
    (alpha_1, alpha_2)
}

/// A single-valued statistic's interval: [`bootstrap`] with `k = 1` and an infallible
/// statistic. Returns `(low, high)` (NaN where scipy gives NaN); errors as [`bootstrap`].
pub fn confidence_interval(
    n: usize,
    statistic: &(dyn Fn(&[usize]) -> f64 + Sync),
    confidence_level: f64,
    n_resamples: usize,
    method: CiMethod,
    rng: &mut Pcg64Generator,
) -> Result<(f64, f64)> {
    let stat = |idx: &[usize]| -> Result<Vec<f64>> { Ok(vec![statistic(idx)]) };
    let res = bootstrap(n, 1, &stat, n_resamples, confidence_level, method, rng)?;
    Ok(res.intervals[0])
}

/// Unitxt's `ConfidenceIntervalMixin.bootstrap` (used by `MapReduceMetric.reduce_and_bootstrap`):
/// one bootstrap over `n` records with a fresh `default_rng(hash(seed) & 0xFFFFFFFF)`, the
/// statistic returning one value per score name; when both ends of an interval are NaN and the
/// values of that score over every statistic call have zero (nan-)standard deviation, both ends
/// become their (nan-)mean.
///
/// Returns `(low, high)` per score, in the statistic's order. Errors as [`bootstrap`].
/// `jackknife`, when given, replaces the leave-one-out recomputations of BCa's acceleration.
#[allow(clippy::too_many_arguments)]
pub fn unitxt_confidence_intervals(
    n: usize,
    k: usize,
    statistic: &Statistic<'_>,
    jackknife: Option<&Jackknife<'_>>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    seed: i64,
) -> Result<Vec<(f64, f64)>> {
    let mut rng = Pcg64Generator::for_unitxt_seed(seed);
    let res = bootstrap_with_fix(n, k, statistic, jackknife, n_resamples, confidence_level, method, &mut rng, None)?;
    let mut out = Vec::with_capacity(k);
    for (c, &(low, high)) in res.intervals.iter().enumerate() {
        if low.is_nan() && high.is_nan() {
            let column: Vec<f64> = res.history.iter().map(|row| row[c]).collect();
            if nan_std(&column) == 0.0 {
                let m = nan_mean(&column);
                out.push((m, m));
                continue;
            }
        }
        out.push((low, high));
    }
    Ok(out)
}

/// Unitxt's `MetricWithConfidenceInterval.score_based_confidence_interval` for one score of
/// an instance metric (`InstanceMetric`, e.g. `metrics.accuracy`): `instance_scores` holds the
/// score of every instance; `aggregate` maps a resample (instance indices) to the global score
/// (`None`: the NaN-omitting mean of the instance scores).
///
/// Returns `None` where Unitxt adds no interval: fewer than two instances, `n_resamples < 2`,
/// or all non-NaN instance scores equal. NaN aggregates within a batch of resamples are replaced
/// by draws from the batch's non-NaN aggregates (`resample_from_non_nan`, a fresh generator each
/// time). Errors as [`bootstrap`].
pub fn unitxt_instance_metric_ci(
    instance_scores: &[f64],
    aggregate: Option<&(dyn Fn(&[usize]) -> f64 + Sync)>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    seed: i64,
) -> Result<Option<(f64, f64)>> {
    // Fewer than two scores or resamples: `unitxt_score_based_ci` gives `None`.
    let mut distinct: Vec<f64> = instance_scores.iter().copied().filter(|v| !v.is_nan()).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() == 1 {
        return Ok(None);
    }
    unitxt_score_based_ci(instance_scores, aggregate, n_resamples, confidence_level, method, seed)
}

/// [`unitxt_instance_metric_ci`] without its test for equal scores (for callers that decide it
/// themselves, like the group metrics): `None` only for fewer than two scores or
/// `n_resamples < 2`. Errors as [`bootstrap`].
pub fn unitxt_score_based_ci(
    instance_scores: &[f64],
    aggregate: Option<&(dyn Fn(&[usize]) -> f64 + Sync)>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    seed: i64,
) -> Result<Option<(f64, f64)>> {
    let n = instance_scores.len();
    if n <= 1 || n_resamples <= 1 {
        return Ok(None);
    }
    let mean_of = |idx: &[usize]| -> f64 {
        let vals: Vec<f64> = idx.iter().map(|&i| instance_scores[i]).collect();
        nan_mean(&vals)
    };
    let stat = |idx: &[usize]| -> Result<Vec<f64>> {
        Ok(vec![match aggregate {
            Some(f) => f(idx),
            None => mean_of(idx),
        }])
    };
    let fix = |values: &mut Vec<f64>| {
        let errors = values.iter().filter(|v| v.is_nan()).count();
        if values.len() > 1 && errors > 0 && errors < values.len() {
            let good: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
            let picks = Pcg64Generator::for_unitxt_seed(seed).indices(good.len(), errors);
            let mut picks = picks.into_iter();
            for v in values.iter_mut().filter(|v| v.is_nan()) {
                if let Some(p) = picks.next() {
                    *v = good[p];
                }
            }
        }
    };
    let mut rng = Pcg64Generator::for_unitxt_seed(seed);
    let res = bootstrap_with_fix(
        n,
        1,
        &stat,
        None,
        n_resamples,
        confidence_level,
        method,
        &mut rng,
        Some(&fix),
    )?;
    Ok(Some(res.intervals[0]))
}

/// Unitxt's `MetricWithConfidenceInterval.compute_global_confidence_intervals` for one score of
/// a global metric (`GlobalMetric`, e.g. `metrics.kendalltau_b`): `aggregate` maps a resample
/// (instance indices) to the global score recomputed on it (NaN when it cannot be computed).
///
/// Returns `None` where Unitxt adds no interval: fewer than two instances or `n_resamples < 2`.
/// Unlike [`unitxt_instance_metric_ci`] there is no shortcut for constant scores. NaN aggregates
/// within a batch are replaced as there (`resample_from_non_nan`). Errors as [`bootstrap`].
pub fn unitxt_global_metric_ci(
    n: usize,
    aggregate: &(dyn Fn(&[usize]) -> f64 + Sync),
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    seed: i64,
) -> Result<Option<(f64, f64)>> {
    if n <= 1 || n_resamples <= 1 {
        return Ok(None);
    }
    let stat = |idx: &[usize]| -> Result<Vec<f64>> { Ok(vec![aggregate(idx)]) };
    let fix = |values: &mut Vec<f64>| {
        let errors = values.iter().filter(|v| v.is_nan()).count();
        if values.len() > 1 && errors > 0 && errors < values.len() {
            let good: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
            let picks = Pcg64Generator::for_unitxt_seed(seed).indices(good.len(), errors);
            let mut picks = picks.into_iter();
            for v in values.iter_mut().filter(|v| v.is_nan()) {
                if let Some(p) = picks.next() {
                    *v = good[p];
                }
            }
        }
    };
    let mut rng = Pcg64Generator::for_unitxt_seed(seed);
    let res =
        bootstrap_with_fix(n, 1, &stat, None, n_resamples, confidence_level, method, &mut rng, Some(&fix))?;
    Ok(Some(res.intervals[0]))
}

#[cfg(test)]
mod tests {
    // Every expected value below was produced by running numpy 2.4.6 / scipy 1.17.1 /
    // Unitxt 1.26.10 in /work/venv on the same inputs (f64 values given as IEEE bit patterns).
    use super::*;

    fn bits(v: f64) -> u64 {
        v.to_bits()
    }

    #[test]
    fn seed_sequence_matches_numpy() {
        // SeedSequence(42).generate_state(4, np.uint64)
        assert_eq!(
            SeedSequence::new(42).generate_state_u64(4),
            vec![
                11465652750463011511,
                15382171918060459190,
                9018504550953525431,
                3703499796004394495
            ]
        );
    }

    #[test]
    fn pcg64_raw_and_integers_match_numpy() {
        // default_rng(7).bit_generator.random_raw(3)
        let mut g = Pcg64Generator::default_rng(7);
        let raw: Vec<u64> = (0..3).map(|_| g.next_u64()).collect();
        assert_eq!(
            raw,
            vec![11530976094092348043, 16550673365885938325, 14308875409591826786]
        );
        // default_rng(42).integers(0, 10, (3, 10))
        let v = Pcg64Generator::default_rng(42).integers(0, 10, 30).unwrap();
        assert_eq!(
            v,
            vec![0, 7, 6, 4, 4, 8, 0, 6, 2, 0, 5, 9, 7, 7, 7, 7, 5, 1, 8, 4, 5, 3, 1, 9, 7, 6, 4, 8, 5, 4]
        );
    }
    #[test]
    fn integers_many_seeds_and_ranges_match_numpy() {
        // default_rng(seed).integers(0, n, 25)
        let cases: &[(u128, i64, [i64; 25])] = &[
            (
                0,
                1,
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                0,
                2,
                [
                    1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0,
                ],
            ),
            (
                0,
                3,
                [
                    2, 1, 1, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 1, 2, 2, 1, 1, 1, 2, 0, 2, 2, 0, 1,
                ],
            ),
            (
                0,
                7,
                [
                    5, 4, 3, 1, 2, 0, 0, 0, 1, 5, 4, 6, 3, 4, 6, 5, 4, 3, 3, 6, 1, 5, 4, 0, 2,
                ],
            ),
            (
                0,
                10,
                [
                    8, 6, 5, 2, 3, 0, 0, 0, 1, 8, 6, 9, 5, 6, 9, 7, 6, 5, 5, 9, 2, 8, 6, 0, 3,
                ],
            ),
            (
                0,
                100,
                [
                    85, 63, 51, 26, 30, 4, 7, 1, 17, 81, 64, 91, 50, 60, 97, 72, 63, 54, 55, 93, 27, 81, 67,
                    0, 39,
                ],
            ),
            (
                0,
                1000,
                [
                    850, 636, 511, 269, 307, 40, 75, 16, 175, 813, 649, 912, 503, 606, 970, 729, 632, 543,
                    559, 935, 277, 815, 670, 2, 394,
                ],
            ),
            (
                0,
                2147483653,
                [
                    1826701619, 1367864810, 661058653, 87989972, 161576974, 1302740411, 1357791202,
                    1752032170, 846428921, 1841261667, 72124473, 1033071482, 907713897, 60816030, 266896304,
                    1440154967, 552547097, 1728701091, 2106327855, 1472190204, 2040324899, 835202399,
                    290117535, 1815655713, 806201101,
                ],
            ),
            (
                0,
                8589934593,
                [
                    5471459232, 2317450225, 351959890, 141971308, 6985938161, 7840510708, 5210961635,
                    6266327744, 4669703119, 8032210960, 7008128667, 23523537, 7365046655, 288497895,
                    6267692560, 1508870291, 7414650485, 4651116466, 2574505536, 3630855583, 243264122,
                    1067585216, 5760619858, 5559315573, 5286117857,
                ],
            ),
            (
                1,
                1,
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                1,
                2,
                [
                    0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1,
                ],
            ),
            (
                1,
                3,
                [
                    1, 1, 2, 2, 0, 0, 2, 2, 0, 0, 2, 1, 0, 2, 0, 1, 1, 1, 0, 0, 2, 2, 2, 1, 2,
                ],
            ),
            (
                1,
                7,
                [
                    3, 3, 5, 6, 0, 1, 5, 6, 1, 2, 6, 2, 1, 5, 1, 2, 4, 3, 0, 0, 6, 5, 5, 3, 5,
                ],
            ),
            (
                1,
                10,
                [
                    4, 5, 7, 9, 0, 1, 8, 9, 2, 3, 8, 4, 2, 8, 2, 4, 6, 5, 0, 0, 8, 7, 8, 5, 8,
                ],
            ),
            (
                1,
                100,
                [
                    47, 51, 75, 95, 3, 14, 82, 94, 24, 31, 86, 42, 27, 82, 25, 40, 64, 54, 8, 2, 86, 75, 83,
                    53, 81,
                ],
            ),
            (
                1,
                1000,
                [
                    473, 511, 755, 950, 34, 144, 822, 948, 249, 311, 869, 423, 273, 827, 256, 409, 643, 549,
                    85, 27, 865, 753, 837, 538, 817,
                ],
            ),
            (
                1,
                2147483653,
                [
                    1016164993, 1621709878, 74845286, 309580411, 2037209179, 535214421, 669652945, 909086628,
                    1777477789, 1180243459, 1858836766, 1618157082, 1155653967, 708093470, 1693137751,
                    651105939, 267191831, 865678548, 1078591224, 42568569, 133188514, 602173223, 1041939685,
                    1608686211, 2065143102,
                ],
            ),
            (
                1,
                8589934593,
                [
                    4396514279, 8164420984, 1238321644, 8148836702, 2678611776, 3636346508, 7109911143,
                    3514993816, 4720973829, 236730980, 6472628318, 4622615862, 2832373877, 6772550993,
                    2604423752, 3895517208, 1151409412, 3462714187, 1747667210, 2253254437, 6445583458,
                    2408692890, 4167758735, 8424468399, 8260572394,
                ],
            ),
            (
                42,
                1,
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                42,
                2,
                [
                    0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1,
                ],
            ),
            (
                42,
                3,
                [
                    0, 2, 1, 1, 1, 2, 0, 2, 0, 0, 1, 2, 2, 2, 2, 2, 1, 0, 2, 1, 1, 1, 0, 2, 2,
                ],
            ),
            (
                42,
                7,
                [
                    0, 5, 4, 3, 3, 6, 0, 4, 1, 0, 3, 6, 5, 5, 5, 5, 3, 0, 5, 3, 3, 2, 1, 6, 5,
                ],
            ),
            (
                42,
                10,
                [
                    0, 7, 6, 4, 4, 8, 0, 6, 2, 0, 5, 9, 7, 7, 7, 7, 5, 1, 8, 4, 5, 3, 1, 9, 7,
                ],
            ),
            (
                42,
                100,
                [
                    8, 77, 65, 43, 43, 85, 8, 69, 20, 9, 52, 97, 73, 76, 71, 78, 51, 12, 83, 45, 50, 37, 18,
                    92, 78,
                ],
            ),
            (
                42,
                1000,
                [
                    89, 773, 654, 438, 433, 858, 85, 697, 201, 94, 526, 975, 735, 761, 717, 786, 513, 128,
                    839, 450, 500, 370, 182, 926, 781,
                ],
            ),
            (
                42,
                2147483653,
                [
                    1405681635, 942484274, 184566854, 432652534, 202244314, 1130605000, 1540770723,
                    275121931, 967196438, 1990212663, 1678403334, 1382689819, 1766867114, 1906728923,
                    137046513, 761338720, 145857092, 1917963007, 1631871627, 417983442, 1002275725,
                    1068999198, 94067870, 1173749074, 331334161,
                ],
            ),
            (
                42,
                8589934593,
                [
                    6648231834, 3769937091, 7375299973, 5990345756, 808977258, 8380532188, 6538140256,
                    6752240968, 1100487725, 3868785748, 3185130775, 7960850637, 5530759268, 7067468443,
                    3808898965, 1951965757, 4763847046, 548186055, 7109297634, 5425955873, 6511924103,
                    3045354877, 8338232539, 7671852015, 6686263328,
                ],
            ),
            (
                4294967295,
                1,
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                4294967295,
                2,
                [
                    0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0,
                ],
            ),
            (
                4294967295,
                3,
                [
                    0, 0, 2, 0, 2, 0, 0, 1, 2, 2, 0, 0, 2, 1, 1, 0, 1, 2, 2, 2, 1, 2, 2, 2, 0,
                ],
            ),
            (
                4294967295,
                7,
                [
                    1, 1, 5, 1, 6, 2, 1, 4, 4, 6, 0, 2, 5, 3, 3, 1, 3, 5, 5, 5, 3, 5, 5, 6, 2,
                ],
            ),
            (
                4294967295,
                10,
                [
                    1, 2, 7, 2, 9, 2, 2, 6, 7, 9, 1, 2, 8, 5, 5, 2, 4, 7, 7, 7, 5, 7, 7, 8, 2,
                ],
            ),
            (
                4294967295,
                100,
                [
                    19, 25, 72, 21, 90, 28, 21, 61, 70, 93, 13, 29, 84, 52, 56, 27, 43, 75, 77, 77, 52, 71,
                    72, 86, 28,
                ],
            ),
            (
                4294967295,
                1000,
                [
                    190, 251, 724, 219, 909, 287, 213, 618, 707, 935, 131, 295, 844, 520, 565, 275, 439, 758,
                    771, 776, 525, 719, 724, 869, 287,
                ],
            ),
            (
                4294967295,
                2147483653,
                [
                    541044693, 1555309572, 458179211, 1329252228, 1518744820, 1814241269, 1213919518,
                    1628977991, 1668494453, 1545453171, 1556247576, 1867989862, 617824962, 99059498,
                    206706721, 2050029618, 1847806540, 511742151, 744262918, 1278792798, 951718768,
                    184608422, 541645534, 1214914038, 1143752080,
                ],
            ),
            (
                4294967295,
                8589934593,
                [
                    2164178770, 1881760861, 2467756958, 5317008903, 8031694424, 2542334420, 4470766048,
                    2365303461, 6515911953, 6673977802, 6181812673, 7471959436, 396237994, 826826887,
                    8200118457, 4177125798, 5702415424, 1235157582, 2528813196, 3806875067, 738433690,
                    394319256, 6407815422, 4859656145, 8205801536,
                ],
            ),
            (
                123456789,
                1,
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                123456789,
                2,
                [
                    1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1,
                ],
            ),
            (
                123456789,
                3,
                [
                    2, 0, 1, 2, 1, 2, 0, 1, 0, 2, 0, 2, 1, 2, 0, 1, 0, 2, 2, 2, 1, 1, 1, 0, 1,
                ],
            ),
            (
                123456789,
                7,
                [
                    6, 0, 4, 6, 2, 6, 2, 4, 0, 5, 1, 5, 2, 5, 0, 3, 1, 6, 5, 6, 4, 3, 2, 0, 3,
                ],
            ),
            (
                123456789,
                10,
                [
                    9, 0, 5, 9, 3, 8, 2, 6, 1, 7, 1, 8, 4, 8, 0, 4, 2, 9, 8, 9, 6, 5, 3, 0, 5,
                ],
            ),
            (
                123456789,
                100,
                [
                    90, 2, 58, 90, 34, 88, 29, 62, 12, 79, 19, 82, 41, 84, 6, 47, 24, 95, 82, 94, 65, 52, 38,
                    8, 51,
                ],
            ),
            (
                123456789,
                1000,
                [
                    900, 27, 585, 906, 340, 881, 292, 624, 128, 790, 193, 825, 414, 841, 60, 471, 243, 957,
                    822, 946, 652, 529, 381, 83, 510,
                ],
            ),
            (
                123456789,
                2147483653,
                [
                    1934850210, 1341956683, 275891305, 1698047130, 416156537, 1773623959, 889412875,
                    2055633156, 1765708292, 2032789842, 1400509704, 179615814, 83498844, 115534270,
                    1727089743, 375685334, 40625531, 441036493, 1930111098, 231492924, 516294558, 1534814331,
                    1300590710, 1590810968, 2029624335,
                ],
            ),
            (
                123456789,
                8589934593,
                [
                    238050617, 7788494172, 7571112985, 5367826723, 6792188509, 7094495823, 7230198077,
                    4052112216, 8222532609, 8131159354, 4551460315, 718463258, 2317944517, 462137082,
                    4867215768, 162502126, 1764145970, 2141941677, 7720444379, 925971697, 6431096019,
                    6139257312, 6363243861, 8118497325, 3946738833,
                ],
            ),
        ];
        for (seed, n, expected) in cases {
            let got = Pcg64Generator::default_rng(*seed).integers(0, *n, 25).unwrap();
            assert_eq!(&got[..], &expected[..], "seed {seed} n {n}");
        }
    }
    #[test]
    fn ndtr_ndtri_match_scipy_bits() {
        let ndtr_cases: &[(f64, u64)] = &[
            (-40.0, 0),
            (-38.0, 0),
            (-10.0, 4261087451110420711),
            (-8.5, 4352126210272240820),
            (-5.0, 4509014322471712805),
            (-3.0, 4563868128777713105),
            (-1.5, 4589478386851006447),
            (-1.0, 4594884178230424076),
            (-0.7, 4597885679602447712),
            (-0.3, 4600554715824515343),
            (0.0, 4602678819172646912),
            (0.001, 4602682412524658736),
            (0.4, 4604078733767849971),
            (0.99, 4605731475557643034),
            (1.0, 4605753379315045245),
            (1.2, 4606145963352153146),
            (2.5, 4607126487107122886),
            (6.0, 4607182418791131016),
            (9.0, 4607182418800017408),
            (30.0, 4607182418800017408),
            (40.0, 4607182418800017408),
        ];
        for &(x, b) in ndtr_cases {
            assert_eq!(bits(ndtr(x)), b, "ndtr({x})");
        }
        let ndtri_cases: &[(f64, u64)] = &[
            (1e-300, 13853782769448305262),
            (1e-20, 13844775888831658573),
            (1e-15, 13843999215245104746),
            (1e-10, 13842220288411574612),
            (1e-05, 13839859895429735385),
            (0.001, 13837513040186066032),
            (0.025, 13834877749097856902),
            (0.1, 13831822451180465458),
            (0.13, 13831123670696435295),
            (0.2, 13829127906547864371),
            (0.5, 0),
            (0.6, 4598235515595017049),
            (0.8, 4605755869693088564),
            (0.86, 4607544144953382287),
            (0.9, 4608450414325689650),
            (0.975, 4611505712243081092),
            (0.999, 4614141003331290224),
            (0.999999999999, 4619606146584096420),
        ];
        for &(p, b) in ndtri_cases {
            assert_eq!(bits(ndtri(p)), b, "ndtri({p})");
        }
    }

    fn mean_ci(data: &[f64], method: CiMethod) -> (f64, f64) {
        let stat = |idx: &[usize]| -> f64 {
            let v: Vec<f64> = idx.iter().map(|&i| data[i]).collect();
            numpy_sum(&v) / v.len() as f64
        };
        let mut rng = Pcg64Generator::default_rng(42);
        confidence_interval(data.len(), &stat, 0.95, 1000, method, &mut rng).unwrap()
    }

    fn close(a: f64, expected_bits: u64) -> bool {
        let e = f64::from_bits(expected_bits);
        (a - e).abs() <= 1e-12 * e.abs().max(1.0)
    }
    #[test]
    fn scipy_bootstrap_mean_acc10() {
        // scipy.stats.bootstrap((data,), np.mean, n_resamples=1000, method=m,
        //     random_state=np.random.default_rng(42))
        let data: Vec<f64> = vec![1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0];
        let (lo, hi) = mean_ci(&data, CiMethod::Bca);
        assert!(
            close(lo, 4599075939470750515) && close(hi, 4606281698874543309),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Percentile);
        assert!(
            close(lo, 4599075939470750515) && close(hi, 4606281698874543309),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Basic);
        assert!(
            close(lo, 4599075939470750514) && close(hi, 4606281698874543308),
            "{lo} {hi}"
        );
    }
    #[test]
    fn scipy_bootstrap_mean_acc100() {
        // scipy.stats.bootstrap((data,), np.mean, n_resamples=1000, method=m,
        //     random_state=np.random.default_rng(42))
        let data: Vec<f64> = vec![
            0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0,
            0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0,
            0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0,
            0.0, 1.0, 1.0, 1.0, 0.0,
        ];
        let (lo, hi) = mean_ci(&data, CiMethod::Bca);
        assert!(
            close(lo, 4600156803381319434) && close(hi, 4603129179135383962),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Percentile);
        assert!(
            close(lo, 4600156803381319434) && close(hi, 4603219251127931372),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Basic);
        assert!(
            close(lo, 4600156803381319434) && close(hi, 4603219251127931372),
            "{lo} {hi}"
        );
    }
    #[test]
    fn scipy_bootstrap_mean_acc1000() {
        // scipy.stats.bootstrap((data,), np.mean, n_resamples=1000, method=m,
        //     random_state=np.random.default_rng(42))
        let data: Vec<f64> = vec![
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
            1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0,
            0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0,
            1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
            1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0,
            0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0,
            0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0,
            1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0,
        ];
        let (lo, hi) = mean_ci(&data, CiMethod::Bca);
        assert!(
            close(lo, 4605218849362483872) && close(hi, 4605624173328947216),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Percentile);
        assert!(
            close(lo, 4605218849362483872) && close(hi, 4605633180528201957),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Basic);
        assert!(
            close(lo, 4605236863760993355) && close(hi, 4605651194926711440),
            "{lo} {hi}"
        );
    }
    #[test]
    fn scipy_bootstrap_mean_float50() {
        // scipy.stats.bootstrap((data,), np.mean, n_resamples=1000, method=m,
        //     random_state=np.random.default_rng(42))
        let data: Vec<f64> = vec![
            0.6487676490317394,
            0.6257861601475303,
            0.871042067771418,
            0.29743782857860557,
            0.13760614891946477,
            0.5438104744418806,
            0.8579273865036554,
            0.12025338337348213,
            0.20704168789270805,
            0.1049626243465327,
            0.9872876470342654,
            0.760351762807439,
            0.09269005421506338,
            0.8479945303124032,
            0.4367812905067936,
            0.024191978935730996,
            0.06124110873146771,
            0.24839045617701083,
            0.03864709483327067,
            0.16855265789433016,
            0.06343715843402575,
            0.1411219193139056,
            0.09875699713922248,
            0.4248726814959809,
            0.8260631250344754,
            0.7836119278457871,
            0.5298687568730072,
            0.062138727253466586,
            0.9478930252639053,
            0.06606059929124286,
            0.012564381124777424,
            0.7486502246622635,
            0.6257892573027651,
            0.7578016403522745,
            0.2747998961560717,
            0.8929201835209746,
            0.871746863375472,
            0.04413966811507508,
            0.9566487230383727,
            0.7690048102862341,
            0.8535796925733649,
            0.47904574914857734,
            0.7949654161492566,
            0.9113995250675576,
            0.8971056765071039,
            0.2768645685959187,
            0.1709753838767959,
            0.6483513551251145,
            0.4446756771983299,
            0.8590442868174929,
        ];
        let (lo, hi) = mean_ci(&data, CiMethod::Bca);
        assert!(
            close(lo, 4600758329672853315) && close(hi, 4603357834351084338),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Percentile);
        assert!(
            close(lo, 4600860748199290201) && close(hi, 4603386697848970249),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Basic);
        assert!(
            close(lo, 4600769223666472274) && close(hi, 4603340935582561286),
            "{lo} {hi}"
        );
    }
    #[test]
    fn scipy_bootstrap_mean_float7() {
        // scipy.stats.bootstrap((data,), np.mean, n_resamples=1000, method=m,
        //     random_state=np.random.default_rng(42))
        let data: Vec<f64> = vec![1.669, -0.242, 0.0, -1.858, -0.489, 0.377, 0.31];
        let (lo, hi) = mean_ci(&data, CiMethod::Bca);
        assert!(
            close(lo, 13828689965409061831) && close(hi, 4604872715562551682),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Percentile);
        assert!(
            close(lo, 13828692442388856883) && close(hi, 4604872715562551682),
            "{lo} {hi}"
        );
        let (lo, hi) = mean_ci(&data, CiMethod::Basic);
        assert!(
            close(lo, 13828844374539143105) && close(hi, 4604720783412265460),
            "{lo} {hi}"
        );
    }

    // Unitxt: list(Accuracy().process(instances)) / list(AccuracyFast().process(instances)),
    // global accuracy_ci_low / accuracy_ci_high.
    const P200: &str =
        "20000221000111002200112111110222200112202002200002110102100211001112201100120210122102022122\
021012112110022012001111012020020201221002102221211212122011000020121000110212220021222002110102220101200110";
    const R200: &str =
        "21212211201100022121020101211100010221220202220222201121101110110120112102200011112100002210\
200011001112202122022200110200210022220110000122100221002210211211020110010211021011022201112222110111101201";

    fn exact_match(preds: &str, refs: &str) -> Vec<f64> {
        preds
            .chars()
            .zip(refs.chars())
            .map(|(p, r)| if p == r { 1.0 } else { 0.0 })
            .collect()
    }

    fn fast_ci(scores: &[f64]) -> (f64, f64) {
        let stat = |idx: &[usize]| -> Result<Vec<f64>> {
            let v: Vec<f64> = idx.iter().map(|&i| scores[i]).collect();
            Ok(vec![nan_mean(&v)])
        };
        let full = unitxt_confidence_intervals(scores.len(), 1, &stat, None, 1000, 0.95, CiMethod::Bca, 42).unwrap()[0];
        // The jackknife shortcut (leave-one-out means from the total) gives the same interval
        // up to float rounding.
        let (sum, n) = (scores.iter().sum::<f64>(), scores.len() as f64);
        let jack = |i: usize| -> Result<Vec<f64>> { Ok(vec![(sum - scores[i]) / (n - 1.0)]) };
        let short = unitxt_confidence_intervals(scores.len(), 1, &stat, Some(&jack), 1000, 0.95, CiMethod::Bca, 42).unwrap()[0];
        assert!((full.0 - short.0).abs() < 1e-12 && (full.1 - short.1).abs() < 1e-12, "{full:?} vs {short:?}");
        full
    }

    #[test]
    fn unitxt_accuracy_ci_12() {
        let scores = exact_match("abacabbacaab", "aaacbbaaccab");
        let expected = (4599676419421066581u64, 4606431818862122325u64);
        let inst = unitxt_instance_metric_ci(&scores, None, 1000, 0.95, CiMethod::Bca, 42)
            .unwrap()
            .unwrap();
        assert_eq!((bits(inst.0), bits(inst.1)), expected);
        let fast = fast_ci(&scores);
        assert_eq!((bits(fast.0), bits(fast.1)), expected);
    }

    #[test]
    fn unitxt_accuracy_ci_200() {
        let scores = exact_match(P200, R200);
        let expected = (4598625579508013466u64, 4600984543109559532u64);
        let inst = unitxt_instance_metric_ci(&scores, None, 1000, 0.95, CiMethod::Bca, 42)
            .unwrap()
            .unwrap();
        assert_eq!((bits(inst.0), bits(inst.1)), expected);
        let fast = fast_ci(&scores);
        assert_eq!((bits(fast.0), bits(fast.1)), expected);
    }

    #[test]
    fn unitxt_degenerate_scores() {
        // Accuracy (instance metric) adds no interval when all scores are equal; AccuracyFast
        // (map/reduce) reports the mean, 1.0, for both ends (5 and 3 instances).
        let ones = vec![1.0; 5];
        assert_eq!(
            unitxt_instance_metric_ci(&ones, None, 1000, 0.95, CiMethod::Bca, 42).unwrap(),
            None
        );
        assert_eq!(fast_ci(&ones), (1.0, 1.0));
        assert_eq!(fast_ci(&[1.0; 3]), (1.0, 1.0));
    }

    #[test]
    fn two_score_statistic_matches_scipy() {
        // scipy.stats.bootstrap((np.arange(15),), stat -> [mean(a[i]), mean(b[i])], n_resamples=500,
        //     confidence_level=0.9, paired=True, vectorized=False, method="BCa",
        //     random_state=np.random.default_rng(42))
        let a = [
            1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0,
        ];
        let b = [
            0.2, 0.5, 0.9, 0.1, 0.4, 0.8, 0.3, 0.3, 0.6, 0.7, 0.2, 0.9, 0.5, 0.4, 0.1,
        ];
        let stat = |idx: &[usize]| -> Result<Vec<f64>> {
            let pick =
                |xs: &[f64]| numpy_sum(&idx.iter().map(|&i| xs[i]).collect::<Vec<_>>()) / idx.len() as f64;
            Ok(vec![pick(&a), pick(&b)])
        };
        let mut rng = Pcg64Generator::default_rng(42);
        let res = bootstrap(15, 2, &stat, 500, 0.9, CiMethod::Bca, &mut rng).unwrap();
        let got: Vec<u64> = res
            .intervals
            .iter()
            .flat_map(|&(l, h)| [bits(l), bits(h)])
            .collect();
        assert_eq!(
            got,
            vec![
                4602979059147804945,
                4605981458899385276,
                4600034088865138969,
                4603279299122962978
            ]
        );
        // 500 resamples + the full sample + 15 leave-one-out samples
        assert_eq!(res.history.len(), 516);
    }

    #[test]
    fn quantile_and_errors() {
        // np.quantile([3, 1, 2, 10], 0.3) == 1.9 (linear); NaN data or p outside [0, 1] -> NaN
        assert!((quantile_linear(&[3.0, 1.0, 2.0, 10.0], 0.3) - 1.9).abs() < 1e-15);
        assert!(quantile_linear(&[1.0, f64::NAN], 0.5).is_nan());
        assert!(quantile_linear(&[1.0, 2.0], 1.5).is_nan());
        let mut rng = Pcg64Generator::default_rng(42);
        assert!(confidence_interval(1, &|_| 0.0, 0.95, 10, CiMethod::Bca, &mut rng).is_err());
        assert!(Pcg64Generator::default_rng(1).integers(5, 5, 1).is_err());
        assert_eq!(CiMethod::parse("BCa").unwrap(), CiMethod::Bca);
        assert!(CiMethod::parse("bogus").is_err());
        assert_eq!(python_int_hash(42), 42);
        assert_eq!(python_int_hash(-1), -2);
    }
}
