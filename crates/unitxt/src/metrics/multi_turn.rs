//! `multi_turn_metric` (Unitxt's `MultiTurnMetric`, a `GroupMetric` map/reduce metric): an
//! inner map/reduce metric's per-instance scores grouped by conversation.

use indexmap::IndexMap;
use serde::Deserialize;

use super::{record_scores, scores_record, Metric, MetricKind, Scores};
use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// How one conversation's turn scores become the conversation's score.
#[derive(Debug, Clone, Copy, PartialEq)]
enum InGroup {
    /// `group_mean`: the NaN-omitting mean.
    Mean,
    /// `sequential_success`: the share of turns, in turn-id order (as strings), that score above
    /// the threshold before the first that does not.
    SequentialSuccess(f64),
}

/// `multi_turn_metric`: each instance is one assistant turn of a conversation
/// (`task_data["conversation"]["id"]`; the turn is `assistant_turn_<len(dialog) // 2>` of
/// `task_data["conversation"]["dialog"]`). The inner `metric` scores each turn (its instance
/// scores; a later instance of the same turn replaces an earlier one); `in_group_reduction`
/// (`group_mean` by default, or `sequential_success` with its `threshold`, 0.5) makes one
/// score per conversation and score name, and the global scores are the NaN-omitting means over
/// conversations. Instance scores are the inner metric's. No confidence intervals (Unitxt's
/// `n_resamples = None`).
///
/// Errors: task data without the conversation fields, an unknown reduction type.
///
/// `M` is what `metric` holds: its JSON (a catalog name or an inline metric) as the catalog
/// gives it, the built metric once [`MultiTurnMetric::build`] built it.
#[derive(Deserialize)]
pub struct MultiTurnMetric<M = Art<dyn Metric>> {
    /// The metric that scores each turn.
    pub metric: M,
    #[serde(default)]
    in_group_reduction: Option<Value>,
    #[serde(default)]
    cross_group_reduction: Option<Value>,
    #[serde(skip, default = "default_in_group")]
    in_group: InGroup,
}

fn default_in_group() -> InGroup {
    InGroup::Mean
}

fn reduction_of(v: &Option<Value>, what: &str) -> Result<InGroup> {
    let Some(v) = v else { return Ok(InGroup::Mean) };
    match v.get("__type__").and_then(Value::as_str) {
        Some("group_mean") => Ok(InGroup::Mean),
        Some("sequential_success") => {
            let t = match v.get("threshold") {
                None => 0.5,
                Some(x) => super::as_float(x, "`sequential_success` threshold")?,
            };
            Ok(InGroup::SequentialSuccess(t))
        }
        _ => Err(Error::invalid(format!(
            "`multi_turn_metric` {what}: expected a `group_mean` or `sequential_success` reduction, got {}",
            crate::artifact::short(v)
        ))),
    }
}

impl MultiTurnMetric {
    /// Builds the metric from its JSON, the inner metric in `cx`.
    pub fn build(t: &str, v: &Value, cx: &crate::artifact::BuildContext<'_>) -> Result<MultiTurnMetric> {
        let c: MultiTurnMetric<Value> = crate::artifact::from_value(t, v)?;
        let metric = cx.build(&c.metric)?;
        let in_group = reduction_of(&c.in_group_reduction, "in_group_reduction")?;
        if reduction_of(&c.cross_group_reduction, "cross_group_reduction")? != InGroup::Mean {
            return Err(Error::invalid("`multi_turn_metric`: only `group_mean` is supported as cross_group_reduction"));
        }
        Ok(MultiTurnMetric { metric, in_group_reduction: c.in_group_reduction, cross_group_reduction: c.cross_group_reduction, in_group })
    }

    fn parts(record: &Value) -> Result<(&Value, &str, &str)> {
        let bad = || Error::invalid("multi_turn_metric record is malformed");
        let o = record.as_object().ok_or_else(bad)?;
        Ok((
            o.get("inner").ok_or_else(bad)?,
            o.get("group").and_then(Value::as_str).ok_or_else(bad)?,
            o.get("item").and_then(Value::as_str).ok_or_else(bad)?,
        ))
    }
}

impl Metric for MultiTurnMetric {
    fn main_score(&self) -> &str {
        self.metric.main_score()
    }
    fn kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn n_resamples(&self) -> Option<usize> {
        None
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let group = crate::py::dict_path::dict_get(task_data, "conversation/id")?;
        let dialog = crate::py::dict_path::dict_get(task_data, "conversation/dialog")?;
        let turns = match dialog.as_ref() {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            Value::String(s) => s.chars().count(),
            other => {
                return Err(Error::invalid(format!(
                    "`multi_turn_metric`: conversation/dialog has no length: {}",
                    crate::artifact::short(other)
                )))
            }
        };
        let inner = self.metric.map(prediction, references, task_data)?;
        let mut o = Instance::new();
        o.insert("inner".into(), scores_record(&self.metric.instance_scores(&inner)?));
        o.insert("group".into(), Value::String(super::py_str(&group).into()));
        o.insert("item".into(), Value::String(format!("assistant_turn_{}", turns / 2).into()));
        Ok(Value::Object(o))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        record_scores(Self::parts(record)?.0)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let mut data: IndexMap<&str, IndexMap<&str, Scores>> = IndexMap::new();
        for r in records {
            let (inner, g, i) = Self::parts(r)?;
            data.entry(g).or_default().insert(i, record_scores(inner)?);
        }
        // Per conversation: score name → turn scores.
        let mut per_name: IndexMap<String, Vec<f64>> = IndexMap::new();
        for turns in data.values() {
            let mut lists: IndexMap<&str, Vec<(&str, f64)>> = IndexMap::new();
            for (item, scores) in turns {
                for (k, v) in scores {
                    lists.entry(k.as_str()).or_default().push((item, *v));
                }
            }
            for (k, mut l) in lists {
                let v = match self.in_group {
                    InGroup::Mean => super::bootstrap::nan_mean(&l.iter().map(|x| x.1).collect::<Vec<_>>()),
                    InGroup::SequentialSuccess(t) => {
                        l.sort_by(|a, b| a.0.cmp(b.0));
                        let ok = l.iter().take_while(|x| x.1 > t).count();
                        ok as f64 / l.len() as f64
                    }
                };
                per_name.entry(k.to_string()).or_default().push(v);
            }
        }
        Ok(per_name.into_iter().map(|(k, v)| (k, super::bootstrap::nan_mean(&v))).collect())
    }
}
