//! The criteria of LLM-judge metrics (Unitxt's `Criteria`, `CriteriaWithOptions` and
//! `CriteriaOption` in `llm_as_judge_constants.py`): plain data that judge metrics name, e.g.
//! `metrics.llm_as_judge.direct.criteria.conciseness`. The judges of `metrics/llm_judge/` read
//! them (direct judges need the options and option map).

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::value::Value;

/// One option a direct judge chooses between (`criteria_option`).
#[derive(Deserialize, Debug, Clone)]
pub struct CriteriaOption {
    /// The option's name (e.g. `Yes`).
    pub name: String,
    /// What the option means.
    pub description: String,
    #[serde(default, rename = "__type__")]
    _type: Option<String>,
}

/// `criteria` (pairwise judges) and `criteria_with_options` (direct judges; `options` given).
#[derive(Deserialize, Debug, Clone)]
pub struct Criteria {
    /// The criteria's name.
    pub name: String,
    /// What is judged.
    pub description: String,
    /// The prediction field the criteria refers to (e.g. `response`).
    #[serde(default)]
    pub prediction_field: Option<String>,
    /// The context fields it expects: a name, a list of names, or a dict of names.
    #[serde(default)]
    pub context_fields: Option<Value>,
    /// The options of a `criteria_with_options`.
    #[serde(default)]
    pub options: Option<Vec<CriteriaOption>>,
    /// Option name → score, for `criteria_with_options`.
    #[serde(default)]
    pub option_map: Option<IndexMap<String, f64>>,
}

/// The fields of a plain `criteria` (Unitxt's `Criteria`, which has no options): read apart, so
/// that `options` there is an unknown field and the type's fields are Unitxt's.
#[derive(Deserialize)]
pub(crate) struct PlainCriteria {
    name: String,
    description: String,
    #[serde(default)]
    prediction_field: Option<String>,
    #[serde(default)]
    context_fields: Option<Value>,
}

impl Criteria {
    /// Builds the criteria of type `t` (`criteria` or `criteria_with_options`, which needs
    /// `options`) from its JSON. Errors: missing `name`/`description`/`options`, fields of the
    /// wrong type (`context_fields` must be a string, a list or a dict of strings).
    pub fn build(t: &str, v: &Value) -> Result<Criteria> {
        let c: Criteria = if t == "criteria" {
            let p: PlainCriteria = crate::artifact::from_value(t, v)?;
            Criteria { name: p.name, description: p.description, prediction_field: p.prediction_field, context_fields: p.context_fields, options: None, option_map: None }
        } else {
            crate::artifact::from_value(t, v)?
        };
        if t == "criteria_with_options" && c.options.is_none() {
            return Err(Error::invalid("`criteria_with_options` needs `options`"));
        }
        let ok = match &c.context_fields {
            None | Some(Value::Null) | Some(Value::String(_)) => true,
            Some(Value::Array(a)) => a.iter().all(Value::is_string),
            Some(Value::Object(o)) => o.values().all(Value::is_string),
            Some(_) => false,
        };
        if !ok {
            return Err(Error::invalid(format!(
                "`{t}`: `context_fields` must be a string, a list or a dict of strings, got {}",
                crate::artifact::short(c.context_fields.as_ref().unwrap_or(&Value::Null))
            )));
        }
        Ok(c)
    }
}

impl crate::artifact::ArtifactKind for Criteria {
    const KIND: &'static str = "criteria";
}
