//! Span labeling (Unitxt's `span_lableing_operators.py`): `iob_extractor`.

use serde::Deserialize;

use super::InstanceOperator;
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// `iob_extractor` (Unitxt's `IobExtractor`): from the instance's `labels` (IOB tags),
/// `tokens` and `text`, adds `spans`: one `{"start", "label", "end", "text"}` per entity. Each
/// token is looked for in `text` from the end of the previous one (offsets count characters,
/// as Python's do); a tag in `begin_labels` starts a span labeled with the `labels` entry at
/// the same position, a tag in `inside_labels` extends the last span, any other tag is
/// outside. Tags and tokens are paired up to the shorter list. Errors when a field is missing
/// or not as described, or a token is not found.
#[derive(Debug, Deserialize)]
pub struct IobExtractor {
    /// `labels`: the entity label of each begin tag (same order as `begin_labels`).
    pub labels: Vec<String>,
    /// `begin_labels`: the tags that start an entity (`B-PER`, ...).
    pub begin_labels: Vec<String>,
    /// `inside_labels`: the tags that continue one (`I-PER`, ...).
    pub inside_labels: Vec<String>,
    /// `outside_label`: accepted; any tag in neither list is outside.
    #[serde(default)]
    pub outside_label: Option<Value>,
}

impl InstanceOperator for IobExtractor {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let list = |k: &str| -> Result<&Vec<Value>> {
            instance
                .get(k)
                .ok_or_else(|| Error::not_found(format!("iob_extractor: the instance has no field {k:?}")))?
                .as_array()
                .ok_or_else(|| Error::invalid(format!("iob_extractor: field {k:?} must be a list")))
        };
        let text = instance
            .get("text")
            .and_then(|t| t.as_str())
            .ok_or_else(|| Error::invalid("iob_extractor: the instance needs a string field \"text\""))?;
        // Byte offset of every character (and of the end), for character offsets.
        let starts: Vec<usize> = text.char_indices().map(|(b, _)| b).chain(std::iter::once(text.len())).collect();
        let char_at = |byte: usize| starts.partition_point(|&b| b < byte);
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        let mut current = 0usize; // a character offset
        for (label, token) in list("labels")?.iter().zip(list("tokens")?) {
            let token = token.as_str().ok_or_else(|| Error::invalid("iob_extractor: tokens must be strings"))?;
            let from = starts[current.min(starts.len() - 1)];
            let found = text[from..].find(token).map(|b| char_at(from + b)).ok_or_else(|| {
                Error::invalid(format!("Token '{token}' not found in text '{text}' starting from position {current}"))
            })?;
            let end = found + token.chars().count();
            let label = label.as_str();
            if let Some(i) = self.begin_labels.iter().position(|b| Some(b.as_str()) == label) {
                let name = self.labels.get(i).ok_or_else(|| Error::invalid("iob_extractor: fewer labels than begin_labels"))?;
                spans.push((found, end, name.clone()));
            } else if self.inside_labels.iter().any(|b| Some(b.as_str()) == label) {
                if let Some(last) = spans.last_mut() {
                    last.1 = end;
                }
            }
            current = end;
        }
        let spans = spans
            .into_iter()
            .map(|(start, end, label)| {
                let mut m = Instance::with_capacity(4);
                m.push_new("start".into(), Value::from(start));
                m.push_new("label".into(), Value::String(label.into()));
                m.push_new("end".into(), Value::from(end));
                let piece = &text[starts[start.min(starts.len() - 1)]..starts[end.min(starts.len() - 1)]];
                m.push_new("text".into(), Value::from(piece));
                Value::Object(m)
            })
            .collect();
        instance.insert("spans".into(), Value::Array(spans));
        Ok(instance)
    }
}
