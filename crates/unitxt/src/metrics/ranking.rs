//! Ranking metrics over groups of instances: `ndcg` (Unitxt's `NDCG`, a `GlobalMetric` computed
//! with scikit-learn's `ndcg_score`).

use serde::Deserialize;

use super::{bootstrap, first_reference, score_value, value_score, CiSettings, Metric, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `ndcg` (Unitxt's `NDCG`): instances are grouped by `task_data["query"]` (absent: one group);
/// each group of two or more instances gets scikit-learn's `ndcg_score` of the references'
/// first values (relevance) against the predicted scores (only their order counts; ties share
/// the average gain); the score `nDCG` is the NaN-omitting mean over the groups (NaN when no
/// group has two instances). Predictions that are `null` (a failed cast) rank last; a group
/// with at most one numeric prediction scores 0.
///
/// A global metric: an instance alone scores NaN. Errors (as scikit-learn raises): a negative,
/// NaN or infinite relevance, a NaN or infinite predicted score, a prediction or reference that
/// is not a float (an integer is not; Unitxt's type check), not one reference per prediction.
#[derive(Deserialize)]
pub struct Ndcg {
    #[serde(flatten)]
    ci: CiSettings,
}

/// One instance: (predicted score or `None`, relevance, query key).
type Row = (Option<f64>, f64, String);

/// The dict key of a query value: Python's dict keys compare numbers by value (`1 == 1.0 ==
/// True`), everything else by type and text.
fn query_key(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "none".into(),
        Some(Value::Bool(b)) => format!("num:{}", if *b { 1.0 } else { 0.0 }),
        Some(Value::Number(n)) => format!("num:{}", n.as_f64().unwrap_or(f64::NAN)),
        Some(Value::String(s)) => format!("str:{s}"),
        Some(other) => format!("json:{other}"),
    }
}

fn read_row(record: &Value) -> Result<Row> {
    let bad = || Error::invalid("ndcg record is malformed");
    let a = record.as_array().filter(|a| a.len() == 3).ok_or_else(bad)?;
    let p = match &a[0] {
        Value::Null => None,
        v => Some(value_score(v)?),
    };
    Ok((p, value_score(&a[1])?, a[2].as_str().ok_or_else(bad)?.to_string()))
}

/// scikit-learn's `ndcg_score([relevance], [scores])` for one query (ties in `scores` averaged).
fn ndcg_one(relevance: &[f64], scores: &[f64]) -> Result<f64> {
    if relevance.iter().chain(scores).any(|x| !x.is_finite()) {
        return Err(Error::invalid("ndcg: Input contains NaN or infinity"));
    }
    if relevance.iter().any(|&x| x < 0.0) {
        return Err(Error::invalid("ndcg_score should not be used on negative y_true values."));
    }
    let n = relevance.len();
    let discount: Vec<f64> = (0..n).map(|i| 1.0 / (((i + 2) as f64).ln() / 2f64.ln())).collect();
    let mut cumsum = Vec::with_capacity(n);
    let mut acc = 0.0;
    for d in &discount {
        acc += d;
        cumsum.push(acc);
    }
    // Tie groups of the scores, highest first (`np.unique(-scores)`).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut sums: Vec<f64> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut last: Option<f64> = None;
    let mut members: Vec<Vec<usize>> = Vec::new();
    for &i in &order {
        if last != Some(scores[i]) {
            members.push(Vec::new());
            last = Some(scores[i]);
        }
        members.last_mut().expect("pushed").push(i);
    }
    for m in &mut members {
        // `np.add.at` adds in index order.
        m.sort_unstable();
        sums.push(m.iter().fold(0.0, |s, &i| s + relevance[i]));
        counts.push(m.len());
    }
    let mut end = 0usize;
    let mut prev = 0.0;
    let terms: Vec<f64> = sums
        .iter()
        .zip(&counts)
        .enumerate()
        .map(|(g, (s, &c))| {
            end += c;
            let here = cumsum[end - 1];
            let d = if g == 0 { here } else { here - prev };
            prev = here;
            (s / c as f64) * d
        })
        .collect();
    let gain = bootstrap::numpy_sum(&terms);
    // The ideal ranking: relevance sorted descending.
    let mut ideal = relevance.to_vec();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let best: f64 = discount.iter().zip(&ideal).map(|(d, r)| d * r).sum();
    Ok(if best == 0.0 { 0.0 } else { gain / best })
}

impl Ndcg {
    fn compute(rows: &[Row]) -> Result<f64> {
        let mut groups: indexmap::IndexMap<&str, (Vec<Option<f64>>, Vec<f64>)> = Default::default();
        for (p, r, q) in rows {
            let e = groups.entry(q.as_str()).or_default();
            e.0.push(*p);
            e.1.push(*r);
        }
        let mut scores = Vec::new();
        for (preds, refs) in groups.values() {
            if refs.len() == 1 {
                continue;
            }
            let numeric: Vec<f64> = preds.iter().flatten().copied().collect();
            let preds: Vec<f64> = if numeric.len() < preds.len() {
                if numeric.len() <= 1 {
                    scores.push(0.0);
                    continue;
                }
                let min = numeric.iter().copied().fold(f64::INFINITY, f64::min);
                preds.iter().map(|p| p.map(|x| 1.0 + (x - min)).unwrap_or(0.0)).collect()
            } else {
                numeric
            };
            scores.push(ndcg_one(refs, &preds)?);
        }
        Ok(if scores.is_empty() { f64::NAN } else { bootstrap::nan_mean(&scores) })
    }
}

impl Metric for Ndcg {
    fn main_score(&self) -> &str {
        "nDCG"
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        // Unitxt checks the type `Optional[float]` of the prediction and of each reference: an
        // integer is not a float.
        let check = |v: &Value, what: &str| -> Result<()> {
            match v {
                Value::Null => Ok(()),
                Value::Number(n) if n.is_f64() => Ok(()),
                other => Err(Error::invalid(format!(
                    "each {what} of `ndcg` must be a float or None, got {}",
                    crate::artifact::short(other)
                ))),
            }
        };
        check(prediction, "prediction")?;
        if references.len() != 1 {
            return Err(Error::invalid(format!("`ndcg` expects one reference per prediction, got {}", references.len())));
        }
        check(&references[0], "reference")?;
        let r = match first_reference(references, "ndcg")? {
            // scikit-learn reads None as NaN, an error once the query is scored.
            Value::Null => f64::NAN,
            v => super::as_float(v, "`ndcg` reference")?,
        };
        Ok(Value::Array(vec![prediction.clone(), score_value(r), Value::String(query_key(task_data.get("query")).into())]))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let rows = records.iter().map(|r| read_row(r)).collect::<Result<Vec<_>>>()?;
        let mut out = Scores::new();
        out.insert("nDCG".into(), Self::compute(&rows)?);
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["nDCG".into()])
    }
}
