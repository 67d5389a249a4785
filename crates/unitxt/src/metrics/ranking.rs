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

/// `rerank_recall` (Unitxt's `RerankRecall`, a `GlobalMetric` computed with pytrec_eval): each
/// instance scores one (query, passage) pair, `task_data[query_id_field]` and
/// `task_data[passage_id_field]` (`query_id`, `passage_id`); the prediction (its `float()`, NaN
/// when that fails on text) is the passage's score, the reference (its `int()`) its relevance
/// (relevant from 1 up). Per query, passages are ranked by score, highest first, ties by
/// passage id in descending byte order (trec_eval's order; NaN scores last), and
/// `recall_at_<k>` for each `k` of `at_k` (1, 2, 5) is the share of the query's relevant
/// passages in the first `k` (0 without relevant passages); the scores are the means over
/// queries, main score `recall_at_5`. No intervals unless `n_resamples` is set.
///
/// Errors: task data without the id fields or with ids that are not strings (pytrec_eval
/// takes strings only), a prediction `float()` rejects with a type error, a reference `int()`
/// rejects.
#[derive(Deserialize)]
pub struct RerankRecall {
    #[serde(default = "default_query_field")]
    query_id_field: String,
    #[serde(default = "default_passage_field")]
    passage_id_field: String,
    #[serde(default = "default_at_k")]
    at_k: Vec<usize>,
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip)]
    main: String,
}

fn default_query_field() -> String {
    "query_id".into()
}
fn default_passage_field() -> String {
    "passage_id".into()
}
fn default_at_k() -> Vec<usize> {
    vec![1, 2, 5]
}

impl RerankRecall {
    /// Builds the metric from its JSON.
    pub fn build(t: &str, v: &Value) -> Result<RerankRecall> {
        let mut m: RerankRecall = crate::artifact::from_value(t, v)?;
        m.main = "recall_at_5".into();
        Ok(m)
    }
}

impl Metric for RerankRecall {
    fn main_score(&self) -> &str {
        &self.main
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    /// Unitxt's class sets `n_resamples = None`: intervals only when the artifact sets a number.
    fn n_resamples(&self) -> Option<usize> {
        self.ci.n_resamples.as_ref().and_then(Value::as_u64).map(|n| n as usize)
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let id = |field: &str| -> Result<Value> {
            match task_data.get(field) {
                Some(v @ Value::String(_)) => Ok(v.clone()),
                Some(other) => Err(Error::invalid(format!(
                    "`rerank_recall`: `{field}` must be a string (pytrec_eval's ids are), got {}",
                    crate::artifact::short(other)
                ))),
                None => Err(Error::invalid(format!("`rerank_recall` needs `{field}` in the task data"))),
            }
        };
        let score = match crate::py::ops::py_float(prediction) {
            Ok(v) => value_score(&v)?,
            Err(crate::py::ops::CastError::Value(_)) => f64::NAN,
            Err(crate::py::ops::CastError::Other(e)) => return Err(Error::invalid(format!("`rerank_recall` prediction: {e}"))),
        };
        let rel = crate::py::ops::py_int(first_reference(references, "rerank_recall")?)
            .map_err(|e| Error::invalid(format!("`rerank_recall` reference: {e:?}")))?;
        let rel = rel.as_i64().ok_or_else(|| Error::invalid("`rerank_recall`: relevance out of range"))?;
        Ok(Value::Array(vec![
            id(&self.query_id_field)?,
            id(&self.passage_id_field)?,
            score_value(score),
            Value::from(rel),
        ]))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let bad = || Error::invalid("rerank_recall record is malformed");
        // query → passage → (score, relevance); a repeated pair keeps its last values.
        let mut queries: indexmap::IndexMap<&str, indexmap::IndexMap<&str, (f64, i64)>> = Default::default();
        for r in records {
            let a = r.as_array().filter(|a| a.len() == 4).ok_or_else(bad)?;
            let (q, p) = (a[0].as_str().ok_or_else(bad)?, a[1].as_str().ok_or_else(bad)?);
            let rel = a[3].as_i64().ok_or_else(bad)?;
            queries.entry(q).or_default().insert(p, (value_score(&a[2])?, rel));
        }
        let mut per_k: Vec<Vec<f64>> = vec![Vec::new(); self.at_k.len()];
        for passages in queries.values() {
            let mut ranked: Vec<(&str, f64, i64)> = passages.iter().map(|(p, (s, r))| (*p, *s, *r)).collect();
            ranked.sort_by(|a, b| match (a.1.is_nan(), b.1.is_nan()) {
                (false, false) => b.1.total_cmp(&a.1).then_with(|| b.0.as_bytes().cmp(a.0.as_bytes())),
                (true, true) => b.0.as_bytes().cmp(a.0.as_bytes()),
                (a_nan, _) => a_nan.cmp(&!a_nan),
            });
            let num_rel = ranked.iter().filter(|x| x.2 >= 1).count();
            for (i, &k) in self.at_k.iter().enumerate() {
                let hit = ranked.iter().take(k).filter(|x| x.2 >= 1).count();
                per_k[i].push(if num_rel == 0 { 0.0 } else { hit as f64 / num_rel as f64 });
            }
        }
        Ok(self
            .at_k
            .iter()
            .zip(per_k)
            .map(|(k, v)| (format!("recall_at_{k}"), bootstrap::numpy_sum(&v) / v.len() as f64))
            .collect())
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main.clone()])
    }
}
