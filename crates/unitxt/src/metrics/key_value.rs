//! Key-value extraction metrics: `key_value_extraction` and `tool_call_key_value_extraction`
//! (Unitxt's `KeyValueExtraction` and `ToolCallKeyValueExtraction`, `GlobalMetric`s).

use indexmap::IndexMap;
use serde::Deserialize;

use super::{first_reference, score_value, value_score, CiSettings, Metric, MetricKind, Scores};
use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `key_value_extraction` (Unitxt's `KeyValueExtraction`): predictions and (first) references
/// are dicts of key to value; for every key of any reference in the evaluated instances, each
/// instance whose prediction or reference has the key contributes the inner `metric`'s score of
/// the prediction's value against the reference's (its global score on that one pair), or 0
/// when only one side has the key. Scores, named after the inner metric's main score `M`:
/// `M_<key>` (the key's mean), `M_micro` (mean over all contributions, the main score),
/// `M_macro` (mean over keys) and `M_legal_keys_in_predictions` (share of predicted keys that
/// some reference has; 0 without predicted keys).
///
/// With `tool_call` (`tool_call_key_value_extraction`), predictions and references are tool
/// calls (`{"name": .., "arguments": {..}}`), first flattened into dotted keys
/// (`arguments.address.street`); a list of dicts is flattened by index
/// (`arguments.items.0.id`), or by their keys when each has one key and the keys differ.
///
/// Errors: a prediction or reference of the wrong shape (values must be strings for
/// `key_value_extraction`), no reference key at all (Unitxt divides by zero).
///
/// `M` is what `metric` holds: its JSON (a catalog name or an inline metric) as the catalog
/// gives it, the built metric once [`KeyValueExtraction::build`] built it.
#[derive(Deserialize)]
pub struct KeyValueExtraction<M = Art<dyn Metric>> {
    /// The metric applied to each (predicted value, reference value) pair.
    pub metric: M,
    #[serde(flatten)]
    ci: CiSettings,
    /// Set for `tool_call_key_value_extraction`.
    #[serde(skip)]
    pub tool_call: bool,
    #[serde(skip)]
    main: String,
}

impl KeyValueExtraction {
    /// Builds the metric from its JSON (`tool_call` for `tool_call_key_value_extraction`).
    /// The inner metric is built in `cx`.
    pub fn build(t: &str, v: &Value, cx: &crate::artifact::BuildContext<'_>, tool_call: bool) -> Result<KeyValueExtraction> {
        let c: KeyValueExtraction<Value> = crate::artifact::from_value(t, v)?;
        let metric: Art<dyn Metric> = cx.build(&c.metric)?;
        let main = format!("{}_micro", metric.main_score());
        Ok(KeyValueExtraction { metric, ci: c.ci, tool_call, main })
    }

    /// The key → value dict of a prediction or reference (`what` names it in errors).
    fn dict(&self, v: &Value, what: &str) -> Result<IndexMap<String, Value>> {
        let o = v.as_object();
        if self.tool_call {
            let ok = o.is_some_and(|o| {
                matches!(o.get("name"), Some(Value::String(_))) && matches!(o.get("arguments"), Some(Value::Object(_)))
            });
            let o = o.filter(|_| ok).ok_or_else(|| {
                Error::invalid(format!(
                    "each {what} of `tool_call_key_value_extraction` must be a tool call \
                     ({{\"name\": str, \"arguments\": dict}}), got {}",
                    crate::artifact::short(v)
                ))
            })?;
            let mut out = IndexMap::new();
            flatten(o, "", &mut out);
            Ok(out)
        } else {
            match o {
                Some(o) if o.values().all(Value::is_string) => {
                    Ok(o.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
                }
                _ => Err(Error::invalid(format!(
                    "each {what} of `key_value_extraction` must be a dict of strings to strings, got {}",
                    crate::artifact::short(v)
                ))),
            }
        }
    }

    /// The inner metric's global main score on one (prediction, reference) pair.
    fn inner(&self, prediction: &Value, reference: &Value) -> Result<f64> {
        let m = &self.metric;
        let rec = m.map(prediction, std::slice::from_ref(reference), &Instance::new())?;
        let s = m.reduce(&[&rec])?;
        s.get(m.main_score())
            .copied()
            .ok_or_else(|| Error::invalid(format!("the inner metric gives no `{}`", m.main_score())))
    }
}

/// `ToolCallKeyValueExtraction.flatten_dict`.
fn flatten(d: &crate::value::Map, parent: &str, out: &mut IndexMap<String, Value>) {
    for (k, v) in d {
        let key = if parent.is_empty() { k.to_string() } else { format!("{parent}.{k}") };
        match v {
            Value::Array(items) if items.iter().all(Value::is_object) => {
                let dicts: Vec<&crate::value::Map> = items.iter().filter_map(Value::as_object).collect();
                if dicts.iter().all(|d| d.len() == 1) {
                    let keys: Vec<&str> = dicts.iter().filter_map(|d| d.keys().next().map(|k| k.as_str())).collect();
                    let mut uniq = keys.clone();
                    uniq.sort_unstable();
                    uniq.dedup();
                    if uniq.len() == keys.len() {
                        for d in &dicts {
                            flatten(d, &key, out);
                        }
                        continue;
                    }
                }
                for (i, d) in dicts.iter().enumerate() {
                    flatten(d, &format!("{key}.{i}"), out);
                }
            }
            Value::Object(o) => flatten(o, &key, out),
            other => {
                out.insert(key, other.clone());
            }
        }
    }
}

impl Metric for KeyValueExtraction {
    fn main_score(&self) -> &str {
        &self.main
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    /// Record: `{"ref": [keys], "pred": [keys], "score": {key: inner score}}` (scores for the
    /// keys both sides have).
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        for r in references {
            self.dict(r, "reference")?;
        }
        let reference = self.dict(first_reference(references, "key_value_extraction")?, "reference")?;
        let prediction = self.dict(prediction, "prediction")?;
        let mut scores = crate::value::Map::new();
        for (k, rv) in &reference {
            if let Some(pv) = prediction.get(k) {
                scores.insert(k.as_str().into(), score_value(self.inner(pv, rv)?));
            }
        }
        let keys = |d: &IndexMap<String, Value>| Value::Array(d.keys().map(|k| Value::String(k.as_str().into())).collect());
        let mut o = Instance::new();
        o.insert("ref".into(), keys(&reference));
        o.insert("pred".into(), keys(&prediction));
        o.insert("score".into(), Value::Object(scores));
        Ok(Value::Object(o))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let bad = || Error::invalid("key_value_extraction record is malformed");
        let strs = |v: Option<&Value>| -> Result<Vec<String>> {
            v.and_then(Value::as_array)
                .ok_or_else(bad)?
                .iter()
                .map(|k| k.as_str().map(String::from).ok_or_else(bad))
                .collect()
        };
        let rows = records
            .iter()
            .map(|r| {
                let o = r.as_object().ok_or_else(bad)?;
                Ok((strs(o.get("ref"))?, strs(o.get("pred"))?, o.get("score").and_then(Value::as_object).ok_or_else(bad)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut stats: IndexMap<&str, Vec<f64>> = IndexMap::new();
        for (refs, _, _) in &rows {
            for k in refs {
                stats.entry(k.as_str()).or_default();
            }
        }
        let (mut n_pred, mut illegal) = (0usize, 0usize);
        for (refs, preds, scores) in &rows {
            for (k, list) in stats.iter_mut() {
                let (in_r, in_p) = (refs.iter().any(|x| x == k), preds.iter().any(|x| x == k));
                if in_r && in_p {
                    list.push(value_score(scores.get(*k).ok_or_else(bad)?)?);
                } else if in_r || in_p {
                    list.push(0.0);
                }
            }
            for k in preds {
                n_pred += 1;
                if !stats.contains_key(k.as_str()) {
                    illegal += 1;
                }
            }
        }
        let name = self.metric.main_score();
        let mut out = Scores::new();
        let (mut average, mut total, mut weighted) = (0.0, 0usize, 0.0);
        for (k, list) in &stats {
            let mean = super::bootstrap::numpy_sum(list) / list.len() as f64;
            total += list.len();
            average += mean;
            weighted += mean * list.len() as f64;
            out.insert(format!("{name}_{k}"), mean);
        }
        if total == 0 {
            return Err(Error::invalid("key_value_extraction: no reference has any key (division by zero)"));
        }
        out.insert(format!("{name}_micro"), weighted / total as f64);
        out.insert(format!("{name}_macro"), average / stats.len() as f64);
        let legal = if n_pred == 0 { 0.0 } else { 1.0 - illegal as f64 / n_pred as f64 };
        out.insert(format!("{name}_legal_keys_in_predictions"), legal);
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main.clone()])
    }
}
