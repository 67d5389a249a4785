//! NER F1 with similarity matching of entities: `fuzzy_ner` and `metric_based_ner` (Unitxt's
//! `FuzzyNer` and `MetricBasedNer`, `CustomF1Fuzzy` global metrics).

use serde::Deserialize;

use super::generation::Ner;
use super::text::ner;
use super::{CiSettings, Metric, MetricKind, Scores};
use crate::artifact::{short, Art};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// How two entity strings are compared.
enum Matcher {
    /// fuzzywuzzy's `fuzz.ratio / 100` (on difflib).
    Fuzzy,
    /// Another metric's global score on (entity, [other entity]).
    Metric(Art<dyn Metric>),
}

/// `fuzzy_ner` and `metric_based_ner`: as `ner` (F1 over `(entity, type)` pairs grouped by type
/// against the single reference: `f1_<type>` for the reference types, macro and micro F1,
/// precision, recall, `in_classes_support`; main score `f1_micro`), but an entity matches the
/// entity of the same type on the other side that scores best, at least `min_score_for_match`
/// (`fuzzy_ner`: fuzzywuzzy's ratio over 100, at least 0.750001; `metric_based_ner`: the global
/// score of `metric` on the pair, task data `{"ground_truth": .., "reference": ..}`, at least
/// 0.75).
///
/// Errors: predictions or references that are not lists of two-string pairs, more or fewer
/// than one reference, the inner metric's errors.
#[derive(Deserialize)]
pub struct FuzzyNer {
    #[serde(default)]
    zero_division: f64,
    /// The similarity an entity needs to match.
    #[serde(default)]
    min_score_for_match: Option<f64>,
    /// `metric_based_ner`'s comparison metric (a catalog name or an inline metric).
    #[serde(default)]
    metric: Option<Value>,
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip, default = "fuzzy")]
    matcher: Matcher,
}

fn fuzzy() -> Matcher {
    Matcher::Fuzzy
}

fn pairs(v: &Value, what: &str) -> Result<Vec<(String, String)>> {
    let bad = || Error::invalid(format!("NER metrics expect a list of (entity, type) pairs as {what}, got {}", short(v)));
    v.as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|p| match p.as_array().map(|a| a.as_slice()) {
            Some([Value::String(e), Value::String(t)]) => Ok((e.to_string(), t.to_string())),
            _ => Err(bad()),
        })
        .collect()
}

impl FuzzyNer {
    /// Builds `fuzzy_ner` (`metric_based = false`) or `metric_based_ner` from its JSON, its
    /// `metric` in `cx`.
    pub fn build(t: &str, v: &Value, cx: &crate::artifact::BuildContext<'_>, metric_based: bool) -> Result<FuzzyNer> {
        let mut m: FuzzyNer = crate::artifact::from_value(t, v)?;
        let metric = cx.build_opt::<dyn Metric>(m.metric.as_ref())?;
        if metric_based {
            let inner = metric.ok_or_else(|| Error::invalid("`metric_based_ner` needs a `metric`"))?;
            m.matcher = Matcher::Metric(inner);
        }
        Ok(m)
    }

    fn min_score(&self) -> f64 {
        self.min_score_for_match.unwrap_or(match self.matcher {
            Matcher::Fuzzy => 0.750001,
            Matcher::Metric(_) => 0.75,
        })
    }
}

impl Metric for FuzzyNer {
    fn main_score(&self) -> &str {
        "f1_micro"
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["f1_micro".into()])
    }
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        match &self.matcher {
            Matcher::Metric(m) => m.unavailable(),
            Matcher::Fuzzy => None,
        }
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let p = pairs(prediction, "prediction")?;
        if references.len() != 1 {
            return Err(Error::invalid(format!("NER metrics expect one reference per prediction, got {}", references.len())));
        }
        let r = pairs(&references[0], "reference")?;
        let mut score = |a: &str, b: &str| -> Result<f64> {
            match &self.matcher {
                Matcher::Fuzzy => Ok(ner::fuzz_ratio(a, b)),
                Matcher::Metric(m) => {
                    let mut td = Instance::new();
                    td.insert("ground_truth".into(), Value::String(b.into()));
                    td.insert("reference".into(), Value::String(b.into()));
                    let rec = m.map(&Value::String(a.into()), &[Value::String(b.into())], &td)?;
                    let s = m.reduce(&[&rec])?;
                    s.get(m.main_score())
                        .copied()
                        .ok_or_else(|| Error::invalid(format!("the inner metric gives no `{}`", m.main_score())))
                }
            }
        };
        // Its records have the shape of `ner`'s, and reduce as `ner`'s do.
        Ok(Ner::record(&ner::ner_stats_fuzzy(&p, &r, &mut score, self.min_score())?))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        Ner::reduce_records(records, self.zero_division)
    }
}
