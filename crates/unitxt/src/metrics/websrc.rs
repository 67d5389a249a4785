//! `websrc_squad_f1` (Unitxt's `WebsrcSquadF1`, a `GlobalMetric`): token-set F1 of WebSRC
//! answers, averaged per domain and then weighted by the domains' sizes.

use indexmap::IndexMap;
use serde::Deserialize;

use super::{first_reference, py_str, score_value, value_score, CiSettings, Metric, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `websrc_squad_f1`: each instance's F1 between the token sets of `str(prediction)` and
/// `str(first reference)` (lowercased, stripped, tokens `\w+|[^\w\s]`; 0 when either is
/// empty); per `task_data["domain"]` the mean F1; the score `websrc_squad_f1` is the mean over
/// instances computed as the size-weighted mean of the domain means, rounded to 3 decimals
/// (Python's `round`). Errors: an instance without `domain`, no references.
#[derive(Deserialize)]
pub struct WebsrcSquadF1 {
    #[serde(flatten)]
    ci: CiSettings,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `re.findall(r"\w+|[^\w\s]", text)` as a set.
fn token_set(text: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_word(c) {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.insert(std::mem::take(&mut word));
        }
        if !crate::py::ops::is_py_space(c) {
            out.insert(c.to_string());
        }
    }
    if !word.is_empty() {
        out.insert(word);
    }
    out
}

fn normalize(s: &str) -> String {
    crate::py::ops::py_strip(&s.to_lowercase()).to_string()
}

/// The F1 of one (reference, prediction) pair.
fn f1(reference: &str, prediction: &str) -> f64 {
    let a = token_set(&normalize(reference));
    let b = token_set(&normalize(prediction));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common = a.intersection(&b).count() as f64;
    let prec = common / b.len() as f64;
    let rec = common / a.len() as f64;
    if prec + rec > 0.0 {
        2.0 * prec * rec / (prec + rec)
    } else {
        0.0
    }
}

/// Python's `round(x, 3)` (correctly rounded, ties to even on the exact binary value).
fn round3(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.3}").parse().unwrap_or(x)
}

impl Metric for WebsrcSquadF1 {
    fn main_score(&self) -> &str {
        "websrc_squad_f1"
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let domain = task_data
            .get("domain")
            .ok_or_else(|| Error::invalid("`websrc_squad_f1` needs `domain` in the task data"))?;
        let r = py_str(first_reference(references, "websrc_squad_f1")?);
        let score = f1(&r, &py_str(prediction));
        Ok(Value::Array(vec![Value::String(format!("{domain}").into()), score_value(score)]))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let bad = || Error::invalid("websrc_squad_f1 record is malformed");
        let mut by_domain: IndexMap<&str, Vec<f64>> = IndexMap::new();
        for r in records {
            let a = r.as_array().filter(|a| a.len() == 2).ok_or_else(bad)?;
            let d = a[0].as_str().ok_or_else(bad)?;
            by_domain.entry(d).or_default().push(value_score(&a[1])?);
        }
        let weighted: Vec<f64> = by_domain
            .values()
            .map(|v| super::bootstrap::numpy_sum(v) / v.len() as f64 * v.len() as f64)
            .collect();
        let n: usize = by_domain.values().map(Vec::len).sum();
        let mut out = Scores::new();
        out.insert("websrc_squad_f1".into(), round3(super::bootstrap::numpy_sum(&weighted) / n as f64));
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["websrc_squad_f1".into()])
    }
}
