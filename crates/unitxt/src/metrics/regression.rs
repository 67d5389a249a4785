//! Regression metrics over float predictions and a single float reference: mean squared error,
//! its root, and Spearman / Pearson / Kendall tau-b correlations. Mirrors Unitxt's
//! `MeanSquaredError`, `RootMeanSquaredError`, `Spearmanr`, `Pearsonr`, `KendallTauMetric`
//! (which call numpy / scipy), with the p-values scipy reports alongside the correlations.

use serde::Deserialize;

use super::{
    nan_mean, score_value, value_score, CiSettings, Metric, MetricKind, Scores,
};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `mean_squared_error` and `root_mean_squared_error` (Unitxt's `MeanSquaredError`,
/// `RootMeanSquaredError`): the record is `(reference − prediction)²`; the global score is
/// the NaN-ignoring mean (and its square root); instance scores are the same on one record.
#[derive(Deserialize)]
pub struct MeanSquaredError {
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip)]
    root: bool,
}

impl MeanSquaredError {
    /// Builds `mean_squared_error` or, with `root`, `root_mean_squared_error`.
    pub fn build(t: &str, v: &Value, root: bool) -> Result<Self> {
        let mut m: MeanSquaredError = crate::artifact::from_value(t, v)?;
        m.root = root;
        Ok(m)
    }
}

impl Metric for MeanSquaredError {
    fn kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::MapReduce)
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        self.ci.ci_score_names.clone()
    }
    fn main_score(&self) -> &str {
        if self.root {
            "root_mean_squared_error"
        } else {
            "mean_squared_error"
        }
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let (p, r) = super::float_pair(prediction, references, self.main_score())?;
        Ok(score_value((r - p).powi(2)))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let xs = records
            .iter()
            .map(|r| value_score(r))
            .collect::<Result<Vec<_>>>()?;
        let m = nan_mean(xs);
        let mut out = Scores::new();
        out.insert(
            self.main_score().to_string(),
            if self.root { m.sqrt() } else { m },
        );
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main_score().to_string()])
    }
}

/// Which correlation a [`Correlation`] computes.
#[derive(Clone, Copy, PartialEq)]
pub enum CorrelationKind {
    /// `spearmanr`: Pearson correlation of average ranks.
    Spearman,
    /// `pearsonr`.
    Pearson,
    /// `kendalltau_b`.
    KendallB,
}

/// `spearmanr`, `pearsonr`, `kendall_tau_metric` (Unitxt's `Spearmanr`, `Pearsonr`,
/// `KendallTauMetric`): the record is `[prediction, reference]`; the global score is the
/// correlation (NaN for constant input or fewer than 2 records); instance scores are NaN.
/// Each also reports its two-sided p-value as scipy computes it: `spearmanr_p_value` and
/// `pearsonr_p_value` (Student's t with n − 2 degrees of freedom, equal to scipy's beta form for
/// Pearson), `kendalltau_b_p_val` (exact null distribution without ties for n ≤ 33, else the
/// tie-corrected normal approximation, as `scipy.stats.kendalltau(method="auto")`).
#[derive(Deserialize)]
pub struct Correlation {
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip, default = "spearman")]
    kind: CorrelationKind,
}

fn spearman() -> CorrelationKind {
    CorrelationKind::Spearman
}

impl Correlation {
    /// Builds one of the correlation metrics.
    pub fn build(kind: CorrelationKind, t: &str, v: &Value) -> Result<Self> {
        let mut m: Correlation = crate::artifact::from_value(t, v)?;
        m.kind = kind;
        Ok(m)
    }
}

/// Pearson correlation as scipy's `pearsonr` computes it (NaN for fewer than two values or a
/// constant input).
pub(crate) fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    if n < 2 {
        return f64::NAN;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let xm: Vec<f64> = x.iter().map(|v| v - mx).collect();
    let ym: Vec<f64> = y.iter().map(|v| v - my).collect();
    let nx = xm.iter().map(|v| v * v).sum::<f64>().sqrt();
    let ny = ym.iter().map(|v| v * v).sum::<f64>().sqrt();
    if nx == 0.0 || ny == 0.0 {
        return f64::NAN;
    }
    let r: f64 = xm.iter().zip(&ym).map(|(a, b)| (a / nx) * (b / ny)).sum();
    r.clamp(-1.0, 1.0)
}

/// Average ranks (1-based), ties sharing their mean rank (scipy's `rankdata`).
pub(crate) fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap_or(std::cmp::Ordering::Equal));
    let mut out = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && x[idx[j + 1]] == x[idx[i]] {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            out[k] = r;
        }
        i = j + 1;
    }
    out
}

/// Kendall's tau-b of `x` (references) and `y` (predictions).
fn kendall_b(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let (mut s, mut xtie, mut ytie) = (0i64, 0i64, 0i64);
    for i in 0..n {
        for j in (i + 1)..n {
            let dx = x[i].partial_cmp(&x[j]);
            let dy = y[i].partial_cmp(&y[j]);
            use std::cmp::Ordering::Equal;
            match (dx, dy) {
                (Some(Equal), Some(Equal)) => {
                    xtie += 1;
                    ytie += 1;
                }
                (Some(Equal), _) => xtie += 1,
                (_, Some(Equal)) => ytie += 1,
                (Some(a), Some(b)) => s += if a == b { 1 } else { -1 },
                _ => {}
            }
        }
    }
    let tot = (n * n.saturating_sub(1) / 2) as i64;
    if xtie == tot || ytie == tot {
        return f64::NAN;
    }
    s as f64 / ((tot - xtie) as f64).sqrt() / ((tot - ytie) as f64).sqrt()
}

impl Metric for Correlation {
    fn kind(&self) -> MetricKind {
        match self.kind {
            CorrelationKind::KendallB => MetricKind::Global,
            _ => MetricKind::MapReduce,
        }
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(self.kind())
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        Some(self.ci.ci_score_names.clone().unwrap_or_else(|| vec![self.main_score().to_string()]))
    }
    fn main_score(&self) -> &str {
        match self.kind {
            CorrelationKind::Spearman => "spearmanr",
            CorrelationKind::Pearson => "pearsonr",
            CorrelationKind::KendallB => "kendalltau_b",
        }
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let (p, r) = super::float_pair(prediction, references, self.main_score())?;
        Ok(Value::Array(vec![score_value(p), score_value(r)]))
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        let mut s = Scores::new();
        s.insert(self.main_score().to_string(), f64::NAN);
        Ok(s)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let (mut p, mut r) = (Vec::new(), Vec::new());
        for rec in records {
            match rec.as_array().map(|a| a.as_slice()) {
                Some([a, b]) => {
                    p.push(value_score(a)?);
                    r.push(value_score(b)?);
                }
                _ => return Err(Error::invalid("bad correlation record")),
            }
        }
        // scipy's `nan_policy="propagate"`: a NaN value (a prediction a postprocessor cast to
        // `nan`) makes the correlation and its p-value NaN.
        let has_nan = p.iter().chain(&r).any(|x| x.is_nan());
        let v = match self.kind {
            _ if has_nan => f64::NAN,
            CorrelationKind::Pearson => pearson(&p, &r),
            CorrelationKind::Spearman => pearson(&ranks(&p), &ranks(&r)),
            CorrelationKind::KendallB => kendall_b(&r, &p),
        };
        let mut out = Scores::new();
        out.insert(self.main_score().to_string(), v);
        match self.kind {
            CorrelationKind::Spearman => {
                out.insert("spearmanr_p_value".into(), spearman_p_value(v, p.len()));
            }
            CorrelationKind::Pearson => {
                out.insert("pearsonr_p_value".into(), spearman_p_value(v, p.len()));
            }
            CorrelationKind::KendallB => {
                let pv = if has_nan { f64::NAN } else { kendall_p_value(&r, &p) };
                out.insert("kendalltau_b_p_val".into(), pv);
            }
        }
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main_score().to_string()])
    }
}

/// scipy's two-sided p-value of a Spearman correlation `rs` over `n` pairs: the t statistic
/// `rs * sqrt(dof / ((rs + 1)(1 - rs)))` with `dof = n - 2` against Student's t.
fn spearman_p_value(rs: f64, n: usize) -> f64 {
    if rs.is_nan() || n < 3 {
        return f64::NAN;
    }
    let dof = (n - 2) as f64;
    let t = rs * (dof / ((rs + 1.0) * (1.0 - rs))).max(0.0).sqrt();
    2.0 * student_t_sf(dof, t.abs())
}

/// Group sizes of equal values among `x` (only groups of two or more).
fn tie_groups(x: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[i] {
            j += 1;
        }
        if j > i {
            out.push((j - i + 1) as f64);
        }
        i = j + 1;
    }
    out
}

/// scipy's two-sided p-value of Kendall's tau (`method="auto"`) for references `x` and
/// predictions `y`: NaN when either side is constant or the input has fewer than 2 pairs.
fn kendall_p_value(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    if n < 2 {
        return f64::NAN;
    }
    let (mut con, mut dis) = (0i64, 0i64);
    for i in 0..n {
        for j in (i + 1)..n {
            let d = (x[i] - x[j]) * (y[i] - y[j]);
            if d > 0.0 {
                con += 1;
            } else if d < 0.0 {
                dis += 1;
            }
        }
    }
    let (tx, ty) = (tie_groups(x), tie_groups(y));
    let pairs = |t: &[f64]| t.iter().map(|c| c * (c - 1.0) / 2.0).sum::<f64>();
    let (xtie, ytie) = (pairs(&tx), pairs(&ty));
    let tot = (n * (n - 1) / 2) as f64;
    if xtie == tot || ytie == tot {
        return f64::NAN;
    }
    let s = (con - dis) as f64;
    if xtie == 0.0 && ytie == 0.0 && (n <= 33 || dis.min(tot as i64 - dis) <= 1) {
        return kendall_exact_p(n, tot as i64 - dis);
    }
    let nf = n as f64;
    let m = nf * (nf - 1.0);
    let sum_of = |t: &[f64], f: &dyn Fn(f64) -> f64| t.iter().map(|&c| f(c)).sum::<f64>();
    let x0 = sum_of(&tx, &|c| c * (c - 1.0) * (c - 2.0));
    let y0 = sum_of(&ty, &|c| c * (c - 1.0) * (c - 2.0));
    let x1 = sum_of(&tx, &|c| c * (c - 1.0) * (2.0 * c + 5.0));
    let y1 = sum_of(&ty, &|c| c * (c - 1.0) * (2.0 * c + 5.0));
    let var = (m * (2.0 * nf + 5.0) - x1 - y1) / 18.0 + (2.0 * xtie * ytie) / m + x0 * y0 / (9.0 * m * (nf - 2.0));
    let z = s / var.sqrt();
    2.0 * super::bootstrap::ndtr(-z.abs())
}

/// scipy's exact two-sided p-value of Kendall's tau without ties: `n` pairs, `c` concordant.
fn kendall_exact_p(n: usize, c: i64) -> f64 {
    let half = (n * (n - 1) / 2) as i64;
    let c = c.min(half - c);
    let fact = |k: usize| (1..=k).fold(1.0f64, |a, b| a * b as f64);
    let p = if n <= 2 {
        1.0
    } else if c == 0 {
        if n < 171 { 2.0 / fact(n) } else { 0.0 }
    } else if c == 1 {
        if n < 172 { 2.0 / fact(n - 1) } else { 0.0 }
    } else if 4 * c == (n * (n - 1)) as i64 {
        1.0
    } else {
        let c = c as usize;
        let mut new = vec![0.0f64; c + 1];
        new[0] = 1.0;
        new[1] = 1.0;
        for j in 3..=n {
            let mut acc = 0.0;
            for v in new.iter_mut() {
                acc += *v;
                *v = acc;
            }
            if j <= c {
                let old = new.clone();
                for k in j..=c {
                    new[k] -= old[k - j];
                }
            }
        }
        let total: f64 = new.iter().sum();
        2.0 * total / fact(n)
    };
    p.clamp(0.0, 1.0)
}

/// Student's t survival function `P(T > t)` for `t >= 0`.
fn student_t_sf(dof: f64, t: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    0.5 * incomplete_beta(dof / 2.0, 0.5, dof / (dof + t * t))
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms; about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function `I_x(a, b)` (continued fraction, modified Lentz).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}
