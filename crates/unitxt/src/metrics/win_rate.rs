//! `weighted_win_rate_correlation` (Unitxt's `WeightedWinRateCorrelation`, a `GlobalMetric`):
//! how well predicted pairwise preferences reproduce the models' win rates.

use indexmap::IndexMap;
use serde::Deserialize;

use super::{as_float, first_reference, score_value, value_score, CiSettings, Metric, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `weighted_win_rate_correlation`: each instance is a battle of `task_data["model_a"]` against
/// `task_data["model_b"]`; a positive prediction `x` counts `x` wins for model A, a negative one
/// `-x` wins for model B, 0 one win each; the reference (its `int()`) counts the same way. Per
/// model, the win rate is its wins over its battles' total wins; the scores are the Pearson
/// (`pearson_corr`) and Spearman (`spearman_corr`, the main score) correlations between the
/// predicted and the reference win rates over the models.
///
/// An instance alone gets no score (`None`; Unitxt's one-instance computation fails). Errors: a
/// prediction or reference that is not a number, task data without `model_a` / `model_b`.
#[derive(Deserialize)]
pub struct WeightedWinRateCorrelation {
    #[serde(flatten)]
    ci: CiSettings,
}

/// Wins of (model A, model B) for one battle outcome.
fn wins(x: f64) -> (f64, f64) {
    if x > 0.0 {
        (x, 0.0)
    } else if x < 0.0 {
        (0.0, -x)
    } else {
        (1.0, 1.0)
    }
}

/// Win rate by model (sorted by name, as pandas' `groupby` sorts them).
fn win_rates(battles: &[(String, String, f64)]) -> std::collections::BTreeMap<String, f64> {
    // Per sorted pair: (wins of the first, wins of the second, total).
    let mut pairs: IndexMap<(String, String), (f64, f64, f64)> = IndexMap::new();
    for (a, b, x) in battles {
        let (mut wa, mut wb) = wins(*x);
        let (mut a, mut b) = (a.clone(), b.clone());
        if b < a {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut wa, &mut wb);
        }
        let e = pairs.entry((a, b)).or_insert((0.0, 0.0, 0.0));
        e.0 += wa;
        e.1 += wb;
        e.2 += wa + wb;
    }
    let mut per: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    for ((a, b), (wa, wb, t)) in &pairs {
        let ea = per.entry(a.clone()).or_insert((0.0, 0.0));
        ea.0 += wa;
        ea.1 += t;
        let eb = per.entry(b.clone()).or_insert((0.0, 0.0));
        eb.0 += wb;
        eb.1 += t;
    }
    per.into_iter().map(|(m, (w, t))| (m, w / t)).collect()
}

impl Metric for WeightedWinRateCorrelation {
    fn main_score(&self) -> &str {
        "spearman_corr"
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let p = as_float(prediction, "`weighted_win_rate_correlation` prediction")?;
        let r = as_float(first_reference(references, "weighted_win_rate_correlation")?, "`weighted_win_rate_correlation` reference")?;
        let model = |k: &str| -> Result<Value> {
            match task_data.get(k) {
                Some(Value::String(s)) => Ok(Value::String(s.clone())),
                _ => Err(Error::invalid(format!("`weighted_win_rate_correlation` needs the model name `{k}` in the task data"))),
            }
        };
        Ok(Value::Array(vec![score_value(p), score_value(r.trunc()), model("model_a")?, model("model_b")?]))
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Err(Error::invalid("`weighted_win_rate_correlation` has no score for one instance"))
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let bad = || Error::invalid("weighted_win_rate_correlation record is malformed");
        if records.len() == 1 {
            return Err(Error::invalid("`weighted_win_rate_correlation` has no score for one instance"));
        }
        let (mut pred, mut gold) = (Vec::new(), Vec::new());
        for r in records {
            let a = r.as_array().filter(|a| a.len() == 4).ok_or_else(bad)?;
            let (ma, mb) = (a[2].as_str().ok_or_else(bad)?.to_string(), a[3].as_str().ok_or_else(bad)?.to_string());
            pred.push((ma.clone(), mb.clone(), value_score(&a[0])?));
            gold.push((ma, mb, value_score(&a[1])?));
        }
        let (p, g) = (win_rates(&pred), win_rates(&gold));
        let x: Vec<f64> = p.values().copied().collect();
        let y: Vec<f64> = g.values().copied().collect();
        let mut out = Scores::new();
        out.insert("pearson_corr".into(), super::regression::pearson(&x, &y));
        out.insert("spearman_corr".into(), spearman(&x, &y));
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["spearman_corr".into()])
    }
}

/// scipy's `spearmanr(x, y).statistic`, to the last bit: NaN for fewer than two values or a
/// constant input, else `np.corrcoef` of the average ranks (covariances scaled by `1 / (n - 1)`,
/// then divided by each standard deviation in turn, clipped to [-1, 1]).
fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let constant = |v: &[f64]| v.iter().all(|a| *a == v[0]);
    if n <= 1 || constant(x) || constant(y) {
        return f64::NAN;
    }
    let (rx, ry) = (super::regression::ranks(x), super::regression::ranks(y));
    let centered = |r: &[f64]| -> Vec<f64> {
        let m = super::bootstrap::numpy_sum(r) / n as f64;
        r.iter().map(|v| v - m).collect()
    };
    let (cx, cy) = (centered(&rx), centered(&ry));
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).fold(0.0, |s, (p, q)| s + p * q);
    let f = 1.0 / (n - 1) as f64;
    let (sxy, sxx, syy) = (dot(&cx, &cy) * f, dot(&cx, &cx) * f, dot(&cy, &cy) * f);
    (sxy / sxx.sqrt() / syy.sqrt()).clamp(-1.0, 1.0)
}
