//! Small templates: `yes_no_template`, `key_val_template` and `null_template` (Unitxt's
//! `YesNoTemplate`, `KeyValTemplate`, `NullTemplate`).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::py::repr::str as py_str;
use crate::templates::base::{Fields, TemplateBase, TemplateKind};
use crate::value::Value;

fn yes() -> String {
    "Yes".into()
}
fn no() -> String {
    "No".into()
}

/// `yes_no_template`: asks whether the input is of class `class_field`; the target is
/// `yes_answer` when that class is among the gold classes in `label_field`, else `no_answer`.
/// The gold classes are read after serialization, where Unitxt requires them to still be a
/// list (the default serializer turns lists into text, which Unitxt rejects; so do we).
#[derive(Deserialize)]
pub struct YesNoTemplate {
    #[serde(flatten)]
    pub base: TemplateBase,
    #[serde(default)]
    pub input_format: Option<String>,
    #[serde(default)]
    pub class_field: Option<String>,
    #[serde(default)]
    pub label_field: Option<String>,
    #[serde(default = "yes")]
    pub yes_answer: String,
    #[serde(default = "no")]
    pub no_answer: String,
}

impl TemplateKind for YesNoTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "YesNoTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", self.input_format.as_deref(), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let keys = || refs.keys().cloned().collect::<Vec<_>>();
        let label_field = self.label_field.clone().unwrap_or_default();
        let gold = refs.get(&label_field).ok_or_else(|| {
            Error::invalid(format!(
                "available reference_fields are {:?}, missing required label field: {label_field:?}",
                keys()
            ))
        })?;
        let gold = gold.as_array().ok_or_else(|| {
            Error::invalid(format!("unexpected value for gold_class_names: '{}'; expecting a list", py_str(gold)))
        })?;
        let class_field = self.class_field.clone().unwrap_or_default();
        let queried = refs.get(&class_field).ok_or_else(|| {
            Error::invalid(format!(
                "available reference_fields are {:?}, missing required class field: {class_field:?}",
                keys()
            ))
        })?;
        match queried {
            Value::String(s) if !s.is_empty() => {}
            other => {
                return Err(Error::invalid(format!(
                    "unexpected value for queried_class_names: '{}'; expected a string",
                    py_str(other)
                )))
            }
        }
        let answer = if gold.iter().any(|g| g == queried) { &self.yes_answer } else { &self.no_answer };
        Ok((answer.clone(), vec![answer.clone()]))
    }
}

fn pairs_sep() -> String {
    ", ".into()
}
fn kv_sep() -> String {
    ": ".into()
}
fn default_true() -> bool {
    true
}

/// `key_val_template`: `source` lists the serialized input fields as `key: value` pairs
/// joined by `pairs_separator`; the target lists the reference fields' values (with keys when
/// `use_keys_for_outputs`). As in Unitxt, outputs use `key_val_separator`, not
/// `outputs_key_val_separator`.
#[derive(Deserialize)]
pub struct KeyValTemplate {
    #[serde(flatten)]
    pub base: TemplateBase,
    #[serde(default = "pairs_sep")]
    pub pairs_separator: String,
    #[serde(default = "kv_sep")]
    pub key_val_separator: String,
    #[serde(default = "default_true")]
    pub use_keys_for_inputs: bool,
    #[serde(default = "kv_sep")]
    pub outputs_key_val_separator: String,
    #[serde(default)]
    pub use_keys_for_outputs: bool,
}

impl KeyValTemplate {
    fn process_dict(&self, data: &Fields, use_keys: bool) -> String {
        let pairs: Vec<String> = data
            .iter()
            .map(|(k, v)| if use_keys { format!("{k}{}{}", self.key_val_separator, py_str(v)) } else { py_str(v) })
            .collect();
        pairs.join(&self.pairs_separator)
    }
}

impl TemplateKind for KeyValTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "KeyValTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        Ok(self.process_dict(input, self.use_keys_for_inputs))
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.process_dict(refs, self.use_keys_for_outputs);
        Ok((t.clone(), vec![t]))
    }
}

/// `null_template`: empty `source` and `target`, no references, no postprocessors.
#[derive(Deserialize)]
pub struct NullTemplate {
    #[serde(flatten)]
    pub base: TemplateBase,
}

impl TemplateKind for NullTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "NullTemplate"
    }
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![]
    }
    fn input_fields_to_source(&self, _input: &Fields) -> Result<String> {
        Ok(String::new())
    }
    fn reference_fields_to_target_and_references(&self, _refs: &Fields) -> Result<(String, Vec<String>)> {
        Ok((String::new(), vec![]))
    }
}
