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
        out32.chunks(2).map(|c| (c[0] as u64) | ((c[1] as u64) << 32)).collect()
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
        let mut g = Pcg64Generator { state: 0, inc: (init_seq << 1) | 1, buffered: None };
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
            return Err(Error::invalid(format!("integers: low ({low}) must be below high ({high})")));
        }
        let rng = (high as i128 - 1 - low as i128) as u64;
        Ok((0..count).map(|_| (low as i128 + self.bounded_u64(rng) as i128) as i64).collect())
    }

    /// `count` indices in `0..n` drawn as `Generator.integers(0, n, count)` (no draws when
    /// `n <= 1`, all zero).
    pub fn indices(&mut self, n: usize, count: usize) -> Vec<usize> {
        let rng = n.saturating_sub(1) as u64;
        (0..count).map(|_| self.bounded_u64(rng) as usize).collect()
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
    statistic: &mut dyn FnMut(&[usize]) -> Result<Vec<f64>>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    rng: &mut Pcg64Generator,
) -> Result<BootstrapResult> {
    if n < 2 {
        return Err(Error::invalid("bootstrap: the sample must contain two or more observations"));
    }
    if n_resamples == 0 {
        return Err(Error::invalid("bootstrap: n_resamples must be positive"));
    }
    let mut history: Vec<Vec<f64>> = Vec::new();
    let mut call = |idx: &[usize], history: &mut Vec<Vec<f64>>| -> Result<Vec<f64>> {
        let out = statistic(idx)?;
        if out.len() != k {
            return Err(Error::invalid(format!(
                "bootstrap: statistic returned {} values, expected {k}",
                out.len()
            )));
        }
        history.push(out.clone());
        Ok(out)
    };

    // All resample indices are drawn first, as one (n_resamples, n) array.
    let all = rng.indices(n, n_resamples * n);
    let mut dist: Vec<Vec<f64>> = vec![Vec::with_capacity(n_resamples); k];
    for row in all.chunks(n) {
        let out = call(row, &mut history)?;
        for (c, v) in out.into_iter().enumerate() {
            dist[c].push(v);
        }
    }

    let alpha = (1.0 - confidence_level) / 2.0;
    let mut probs: Vec<(f64, f64)> = vec![(alpha, 1.0 - alpha); k];
    let mut theta_hat: Option<Vec<f64>> = None;
    if method != CiMethod::Percentile {
        let full: Vec<usize> = (0..n).collect();
        theta_hat = Some(call(&full, &mut history)?);
    }
    if method == CiMethod::Bca {
        let theta = theta_hat.clone().unwrap_or_default();
        let mut jack: Vec<Vec<f64>> = vec![Vec::with_capacity(n); k];
        let mut sample = Vec::with_capacity(n - 1);
        for left_out in 0..n {
            sample.clear();
            sample.extend((0..n).filter(|&i| i != left_out));
            let out = call(&sample, &mut history)?;
            for (c, v) in out.into_iter().enumerate() {
                jack[c].push(v);
            }
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
    statistic: &dyn Fn(&[usize]) -> f64,
    confidence_level: f64,
    n_resamples: usize,
    method: CiMethod,
    rng: &mut Pcg64Generator,
) -> Result<(f64, f64)> {
    let mut stat = |idx: &[usize]| -> Result<Vec<f64>> { Ok(vec![statistic(idx)]) };
    let res = bootstrap(n, 1, &mut stat, n_resamples, confidence_level, method, rng)?;
    Ok(res.intervals[0])
}

/// Unitxt's `ConfidenceIntervalMixin.bootstrap` (used by `MapReduceMetric.reduce_and_bootstrap`):
/// one bootstrap over `n` records with a fresh `default_rng(hash(seed) & 0xFFFFFFFF)`, the
/// statistic returning one value per score name; when both ends of an interval are NaN and the
/// values of that score over every statistic call have zero (nan-)standard deviation, both ends
/// become their (nan-)mean.
///
/// Returns `(low, high)` per score, in the statistic's order. Errors as [`bootstrap`].
pub fn unitxt_confidence_intervals(
    n: usize,
    k: usize,
    statistic: &mut dyn FnMut(&[usize]) -> Result<Vec<f64>>,
    n_resamples: usize,
    confidence_level: f64,
    method: CiMethod,
    seed: i64,
) -> Result<Vec<(f64, f64)>> {
    let mut rng = Pcg64Generator::for_unitxt_seed(seed);
    let res = bootstrap(n, k, statistic, n_resamples, confidence_level, method, &mut rng)?;
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

#[cfg(test)]
mod scratch {
    use super::*;
    #[test]
    fn dump_ints() {
        let mut s = String::new();
        s += &format!("{:?}\n", SeedSequence::new(42).generate_state_u64(4));
        let mut g = Pcg64Generator::default_rng(42);
        let v = g.integers(0, 10, 30).unwrap();
        s += &format!("{:?}\n", v.chunks(10).map(|c| c.to_vec()).collect::<Vec<_>>());
        let mut g = Pcg64Generator::default_rng(7);
        s += &format!("{:?}\n", (0..3).map(|_| g.next_u64()).collect::<Vec<_>>());
        for seed in [0u128, 1, 42, (1 << 32) - 1, 123456789] {
            for n in [1i64, 2, 3, 7, 10, 100, 1000, (1 << 31) + 5, (1 << 33) + 1] {
                let v = Pcg64Generator::default_rng(seed).integers(0, n, 25).unwrap();
                s += &format!("{seed} {n} {:?}\n", v);
            }
        }
        std::fs::write("/tmp/rs1.txt", s).unwrap();
    }
}
