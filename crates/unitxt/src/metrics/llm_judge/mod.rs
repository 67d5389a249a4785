//! LLM judges (Unitxt's `llm_as_judge.py`): metrics that score predictions by asking a model.
//!
//! A judge is a metric whose `inference_engine` is built, like any nested artifact, into an
//! [`InferenceEngine`]. It never does HTTP: its [`crate::metrics::Metric::map_batch`] builds
//! the prompts of one stage for all instances, has the engine turn them into request bodies,
//! and hands them in one call to the [`ModelClient`] evaluation received
//! ([`crate::evaluate::EvaluateOptions::model_client`]), which sends them (concurrently) and
//! returns the answers. Without a client, evaluating a judge is an error with
//! [`crate::error::Reason::Needs`]; a request that fails is an error naming the judge, the
//! endpoint and the instance, never a guessed score.
//!
//! - this file: what the judge families share (`LLMJudge`: the common fields, the engine's
//!   label and id, criteria from the task data, contexts, one inference stage);
//! - `direct.rs`: `llm_judge_direct` (`LLMJudgeDirect`);
//! - `pairwise.rs`: `llm_judge_pairwise` (`LLMJudgePairwise`).

pub mod direct;
pub mod pairwise;
pub mod template;

use std::sync::Arc;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::criteria::Criteria;
use crate::artifact::{Art, BuildContext, BuildFn};
use crate::catalog::Catalog;
use crate::error::{Error, Need, Result};
use crate::inference::{InferenceEngine, ModelClient};
use crate::value::{Instance, Value};

/// The field that holds the engine of an LLM judge of `__type__` `type_name`
/// (`inference_engine` for Unitxt's `llm_as_judge.py` judges, `inference_model` for the
/// template judges); `None` for a type that is not a judge.
pub fn engine_field(type_name: &str) -> Option<&'static str> {
    match type_name {
        "llm_judge_direct" | "llm_judge_pairwise" => Some("inference_engine"),
        "llm_as_judge" | "task_based_ll_mas_judge" => Some("inference_model"),
        _ => None,
    }
}

/// The catalog fields of Unitxt's `LLMJudge`, shared by the judge families (and the
/// `BulkInstanceMetric` settings judges accept).
#[derive(Deserialize, Debug, Clone)]
pub struct JudgeConfig {
    /// The engine that answers the judge's prompts (a catalog name or an inline engine).
    pub inference_engine: Value,
    /// The evaluator's name, used in score names; absent: the engine's id.
    #[serde(default)]
    pub evaluator_name: Option<String>,
    /// Whether each evaluation is run again with the options (direct) or responses (pairwise)
    /// in reverse order, to detect positional bias (doubles the requests). Default true.
    #[serde(default = "yes")]
    pub check_positional_bias: bool,
    /// The task data fields shown as context: a name, a list of names, or a dict of prompt
    /// name → field path. Absent: `["context"]`; `null` or empty: the criteria's own.
    #[serde(default, deserialize_with = "super::present")]
    pub context_fields: Option<Value>,
    /// Whether a summary of each assessment is asked for too. Default false.
    #[serde(default)]
    pub generate_summaries: bool,
    /// The format of the judge's prompts: only `formats.chat_api`.
    #[serde(default)]
    pub format: Option<String>,
    /// Whether the prompts sent are kept in the instance scores. Default true.
    #[serde(default = "yes")]
    pub include_prompts_in_result: bool,
    /// The task data field that holds each instance's criteria (when `criteria` is not set).
    #[serde(default)]
    pub criteria_field: Option<String>,
    /// The criteria of every instance (a catalog name or an inline criteria).
    #[serde(default)]
    pub criteria: Option<Value>,
    /// The main score's name when several criteria are used (default `llm_as_judge` direct).
    #[serde(default)]
    pub main_score: Option<String>,
    /// Unitxt's `reduction_map` (only the mean of the main score is computed).
    #[serde(default)]
    pub reduction_map: Option<Value>,
    /// Bootstrap resamples of the main score's interval (default 1000; `null`: none).
    #[serde(default, deserialize_with = "super::present")]
    pub n_resamples: Option<Value>,
}

/// Unitxt's `str(EmptyPrediction())`: the prediction of an instance evaluated without one.
pub const EMPTY_PREDICTION: &str = "<__empty_prediction__>";

fn yes() -> bool {
    true
}

/// What a built judge of any family holds: its engine and criteria built, and how to build
/// criteria named in the data later.
pub struct JudgeBase {
    /// The judge's `__type__` (`llm_judge_direct`), for messages.
    pub type_name: &'static str,
    /// The configuration as read.
    pub config: JudgeConfig,
    /// The engine.
    pub engine: Art<dyn InferenceEngine>,
    /// `evaluator_name`, or the engine's id.
    pub evaluator_name: String,
    /// The engine's `label` (Unitxt's class attribute, or the engine's `label` field).
    pub label: String,
    /// The criteria of every instance, when set.
    pub criteria: Option<Art<Criteria>>,
    /// The context fields as prompt name → field path (empty: the criteria's).
    pub context_fields: IndexMap<String, String>,
    catalog: Arc<Catalog>,
    build_fn: BuildFn,
}

impl JudgeBase {
    /// The instance scores of a judge's record (`{"main_score", "scores": {...}}`): its numeric
    /// scores (the texts, prompts and booleans stay in the record).
    pub fn record_scores(record: &Value) -> Result<crate::metrics::Scores> {
        let scores = record.get("scores").and_then(Value::as_object).ok_or_else(|| Error::invalid("not a judge record"))?;
        Ok(scores.iter().filter(|(_, v)| matches!(v, Value::Number(_))).map(|(k, v)| (k.to_string(), crate::metrics::value_score(v).unwrap_or(f64::NAN))).collect())
    }

    /// The global score of judge records: the mean of each record's main score (named by the
    /// records, else `main`), NaNs left out, as Unitxt's `BulkInstanceMetric` reduces.
    pub fn reduce_records(main: &str, records: &[&Value]) -> Result<crate::metrics::Scores> {
        let mut main = main.to_string();
        let mut xs = Vec::with_capacity(records.len());
        for r in records {
            main = r.get("main_score").and_then(Value::as_str).unwrap_or(&main).to_string();
            xs.push(r.get("scores").and_then(|s| s.get(&main)).map(crate::metrics::value_score).transpose()?.unwrap_or(f64::NAN));
        }
        Ok([(main, crate::metrics::nan_mean(xs))].into_iter().collect())
    }

    /// The bootstrap resamples: the judge's `n_resamples`, else Unitxt's 1,000.
    pub fn n_resamples(&self) -> Option<usize> {
        match &self.config.n_resamples {
            None => Some(1000),
            Some(v) => v.as_u64().map(|n| n as usize),
        }
    }

    /// Builds the engine and the criteria of `config` in `cx`. Errors: an engine or criteria
    /// that does not build, a `format` other than `formats.chat_api`, `context_fields` that is
    /// not a name, a list or a dict of names.
    pub fn build(type_name: &'static str, config: JudgeConfig, cx: &BuildContext<'_>) -> Result<JudgeBase> {
        if let Some(f) = config.format.as_deref() {
            if f != "formats.chat_api" {
                return Err(Error::unsupported(format!("`{type_name}`: `format` must be \"formats.chat_api\" (the only format Unitxt's judges allow), got {f:?}")));
            }
        }
        let engine: Art<dyn InferenceEngine> = cx.build(&config.inference_engine).map_err(|e| e.in_field("inference_engine"))?;
        let criteria: Option<Art<Criteria>> = cx.build_opt(config.criteria.as_ref()).map_err(|e| e.in_field("criteria"))?;
        let context_fields = match &config.context_fields {
            None => context_fields_dict(&crate::json!(["context"]))?,
            Some(v) => context_fields_dict(v).map_err(|e| e.in_field("context_fields"))?,
        };
        let label = engine_label(&engine);
        let evaluator_name = match &config.evaluator_name {
            Some(n) => n.clone(),
            None => engine_id(&engine, &label),
        };
        Ok(JudgeBase { type_name, config, engine, evaluator_name, label, criteria, context_fields, catalog: cx.catalog().clone(), build_fn: cx.build_fn() })
    }

    /// A name for messages: the judge's type and evaluator.
    pub fn name(&self) -> String {
        format!("LLM judge `{}` (evaluator {}, engine `{}`)", self.type_name, self.evaluator_name, self.engine.type_name())
    }

    /// The error of a judge evaluated without a model client.
    pub fn no_client(&self) -> Error {
        Error::needs(
            Need::Model,
            format!("{} calls a model: evaluate it with a model client (unitxt-rs evaluate and unitxt_rs.evaluate give one; set the judge engine's endpoint and key)", self.name()),
        )
    }

    /// What `catalog check` reports: a judge needs its engine's model endpoint to score (one
    /// reason per judge type and engine type, so that `catalog check` groups them).
    pub fn unavailable(&self) -> crate::error::Unavailable {
        crate::error::Unavailable {
            need: Need::Model,
            reason: format!("LLM judge `{}` scores by calling its engine's model (`{}`): evaluate it with an endpoint", self.type_name, self.engine.type_name()),
        }
    }

    /// Each instance's criteria (Unitxt's `LLMJudge.get_criteria`): the judge's own for all,
    /// else built from each instance's `criteria_field` (a catalog name, a JSON string or an
    /// object). Errors: neither is set; the field is missing (naming the closest field of the
    /// first instance); a criteria that does not build (naming the instance).
    pub fn criteria_list(&self, task_data: &[&Instance]) -> Result<Vec<Art<Criteria>>> {
        if let Some(c) = &self.criteria {
            return Ok(vec![c.clone(); task_data.len()]);
        }
        let Some(field) = self.config.criteria_field.as_deref() else {
            return Err(Error::invalid(format!(
                "{}: set either its `criteria` (one criteria for all instances) or its `criteria_field` (the task data field that holds each instance's criteria)",
                self.name()
            )));
        };
        if let Some(first) = task_data.first() {
            if !first.contains_key(field) {
                let keys: Vec<String> = first.keys().map(|k| k.to_string()).collect();
                let close = crate::splitters::difflib::get_close_matches(field, &keys, 1, 0.0);
                return Err(Error::invalid(format!(
                    "{}: the criteria field `{field}` is not in the instance's task data{}",
                    self.name(),
                    close.first().map(|c| format!("; perhaps you meant '{c}'?")).unwrap_or_default()
                )));
            }
        }
        let cx = BuildContext::new(&self.catalog, self.build_fn);
        let mut built: IndexMap<String, Art<Criteria>> = IndexMap::new();
        let mut out = Vec::with_capacity(task_data.len());
        for (i, td) in task_data.iter().enumerate() {
            let v = td.get(field).cloned().unwrap_or(Value::Null);
            let key = v.to_string();
            if let Some(c) = built.get(&key) {
                out.push(c.clone());
                continue;
            }
            let c: Art<Criteria> = cx
                .build(&v)
                .map_err(|e| e.context(format!("reading the criteria of instance {i} from task data field `{field}` of {}", self.name())))?;
            built.insert(key, c.clone());
            out.push(c);
        }
        Ok(out)
    }

    /// The predictions to judge (Unitxt's `LLMJudge.get_predictions`): those given, unless
    /// there are none or all are Unitxt's empty prediction (`<__empty_prediction__>`); then
    /// each instance's task data field named by its criteria's `prediction_field`. Errors: a
    /// criteria without `prediction_field`, or a task data without that field.
    pub fn predictions(&self, task_data: &[&Instance], criteria: &[Art<Criteria>], given: Vec<Value>) -> Result<Vec<Value>> {
        if !given.iter().all(|p| p.as_str() == Some(EMPTY_PREDICTION)) {
            return Ok(given);
        }
        task_data
            .iter()
            .zip(criteria)
            .map(|(td, c)| match c.prediction_field.as_deref() {
                Some(f) if td.contains_key(f) => crate::py::dict_path::dict_get(td, f).map(|v| v.into_owned()),
                _ => Err(Error::invalid(format!(
                    "{}: give the predictions to evaluate, or name the task data field that holds them in the criteria's `prediction_field`",
                    self.name()
                ))),
            })
            .collect()
    }

    /// The context of each instance as the prompt shows it (Unitxt's `LLMJudge.get_contexts`
    /// and `get_parsed_context`): `name: value` lines (values as Python's `str`), or the bare
    /// value when the only field is named `context`. The judge's context fields, else the
    /// criteria's. Errors: a field missing from the task data (naming the instance).
    pub fn contexts(&self, task_data: &[&Instance], criteria: &[Art<Criteria>]) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(task_data.len());
        for (i, (td, c)) in task_data.iter().zip(criteria).enumerate() {
            let from_criteria;
            let fields = if self.context_fields.is_empty() {
                match c.context_fields.as_ref().filter(|v| truthy(v)) {
                    Some(v) => {
                        from_criteria = context_fields_dict(v)?;
                        &from_criteria
                    }
                    None => &self.context_fields,
                }
            } else {
                &self.context_fields
            };
            let mut values: Vec<(&str, Value)> = Vec::with_capacity(fields.len());
            for (name, path) in fields {
                let v = crate::py::dict_path::dict_get(td, path)
                    .map_err(|e| e.context(format!("{}: context field `{path}` of instance {i}", self.name())))?;
                values.push((name, v.into_owned()));
            }
            let bare = values.len() == 1 && values[0].0.to_lowercase() == "context";
            out.push(if bare {
                crate::py::repr::str(&values[0].1)
            } else {
                values.iter().map(|(k, v)| format!("{k}: {}", crate::py::repr::str(v))).collect::<Vec<_>>().join("\n")
            });
        }
        Ok(out)
    }

    /// Runs one stage: each of `prompts` (a list of chat messages) goes to the engine as one
    /// instance, all in one call of `client`; returns each answer's text (`None` for an
    /// answer without content). Errors: the engine cannot build requests; a request failed
    /// (naming the judge, the stage, the endpoint and the instance, `instance_of` mapping a
    /// request's position to its instance).
    pub fn run_stage(&self, client: &dyn ModelClient, stage: &str, prompts: &[Value], instance_of: impl Fn(usize) -> usize) -> Result<Vec<Option<String>>> {
        let instances: Vec<Instance> = prompts
            .iter()
            .map(|p| {
                let mut inst = Instance::new();
                inst.insert("source".into(), p.clone());
                inst.insert("data_classification_policy".into(), crate::json!(["public"]));
                inst
            })
            .collect();
        let inferred = crate::inference::infer(&*self.engine, client, &instances).map_err(|e| e.context(format!("{}, {stage} stage", self.name())))?;
        if !inferred.failed.is_empty() {
            return Err(request_failed(&self.name(), &*self.engine, stage, &inferred.failed, prompts.len(), instance_of));
        }
        Ok(inferred
            .predictions
            .into_iter()
            .map(|p| match p {
                Some(Value::String(s)) => Some(s.to_string()),
                Some(Value::Null) | None => None,
                Some(other) => Some(crate::py::repr::str(&other)),
            })
            .collect())
    }
}

/// The error of a judge stage whose requests failed: the judge (`name`), the stage, the
/// engine's endpoint, the first failed request's instance (`instance_of` maps a request's
/// position to its instance) and what went wrong, and how many of `total` requests failed.
pub fn request_failed(name: &str, engine: &dyn InferenceEngine, stage: &str, failed: &[crate::inference::FailedRequest], total: usize, instance_of: impl Fn(usize) -> usize) -> Error {
    let endpoint = engine.requests(&[]).map(|(e, _)| e.base_url).unwrap_or_else(|_| "its endpoint".to_string());
    let Some(f) = failed.first() else { return Error::invalid(format!("{name}: no request of the {stage} stage failed")) };
    Error::io(format!(
        "{name}: the {stage} request of instance {} to {endpoint} failed: {} ({} of {total} requests of this stage failed)",
        instance_of(f.index),
        f.detail,
        failed.len(),
    ))
}

/// Python truthiness of a `context_fields` value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    }
}

/// Unitxt's `get_context_fields_as_dict`: a name → `{name: name}`, a list of names → each to
/// itself, a dict as is; `null` or empty → empty. Errors: anything else.
pub fn context_fields_dict(v: &Value) -> Result<IndexMap<String, String>> {
    let bad = || Error::invalid(format!("`context_fields` must be a name, a list of names or a dict of names, got {}", crate::artifact::short(v)));
    match v {
        Value::Null => Ok(IndexMap::new()),
        Value::String(s) if s.is_empty() => Ok(IndexMap::new()),
        Value::String(s) => Ok([(s.to_string(), s.to_string())].into_iter().collect()),
        Value::Array(a) => a.iter().map(|x| x.as_str().map(|s| (s.to_string(), s.to_string())).ok_or_else(bad)).collect(),
        Value::Object(o) => o.iter().map(|(k, x)| x.as_str().map(|s| (k.to_string(), s.to_string())).ok_or_else(bad)).collect(),
        _ => Err(bad()),
    }
}

/// The engine's `label`: its `label` field when it sets one, else Unitxt's class default.
pub fn engine_label(engine: &Art<dyn InferenceEngine>) -> String {
    if let Some(l) = engine.raw.get("label").and_then(Value::as_str) {
        return l.to_string();
    }
    match engine.type_name() {
        "open_ai_inference_engine" => "openai",
        "azure_open_ai_inference_engine" => "azure_openai",
        "vllm_remote_inference_engine" => "vllm-remote",
        "rits_inference_engine" => "rits",
        "together_ai_inference_engine" => "together",
        "cross_provider_inference_engine" => "cross_provider",
        "lite_llm_inference_engine" => "litellm",
        "ollama_inference_engine" => "ollama",
        "mock_inference_engine" => "mock_inference_engine",
        "hf_auto_model_inference_engine" => "hf_auto_model",
        "hf_llava_inference_engine" => "hf_lava",
        "hf_peft_inference_engine" => "hf_peft_auto_model",
        "hf_pipeline_based_inference_engine" => "hf_pipeline_inference_engine",
        "vllm_inference_engine" => "vllm",
        t if t.starts_with("wml_inference_engine") => "wml",
        other => other,
    }
    .to_string()
}

/// Unitxt's `get_model_and_label_id`: the model's last path part, `-` → `_`, `.` → `,`,
/// lowercased, then `_<label>`.
fn model_and_label_id(model: &str, label: &str) -> String {
    let id = model.rsplit('/').next().unwrap_or(model).replace('-', "_").replace('.', ",").to_lowercase();
    format!("{id}_{label}")
}

/// The engine's `get_engine_id()` (the judge's evaluator name when none is given).
pub fn engine_id(engine: &Art<dyn InferenceEngine>, label: &str) -> String {
    let raw = &engine.raw;
    let s = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_string);
    match engine.type_name() {
        "cross_provider_inference_engine" => {
            let provider = s("provider").or_else(|| std::env::var("UNITXT_DEFAULT_PROVIDER").ok().filter(|v| !v.is_empty())).unwrap_or_else(|| "watsonx".into());
            let model = s("model").unwrap_or_default();
            let mapped = crate::inference::cross_provider::provider_model_map().get(&provider).and_then(|m| m.get(&model)).cloned().unwrap_or(model);
            model_and_label_id(&mapped, &provider)
        }
        "mock_inference_engine" => model_and_label_id(&s("model_name").unwrap_or_default(), "mock"),
        "hf_pipeline_based_inference_engine" => model_and_label_id(&s("model_name").unwrap_or_default(), "hf_pipeline"),
        "generic_inference_engine" => "generic_inference_engine".into(),
        _ => {
            let model = s("model_name").or_else(|| s("model")).or_else(|| s("deployment_id")).unwrap_or_default();
            model_and_label_id(&model, label)
        }
    }
}

/// Unitxt's `Artifact.to_json()` of a criteria: `{"__type__": .., the fields as given}` (for
/// nested artifacts too), indented by 4, non-ASCII kept.
pub fn artifact_json(raw: &Value) -> String {
    fn type_first(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut out = crate::value::Map::new();
                if let Some(t) = o.get("__type__") {
                    out.insert("__type__".into(), t.clone());
                }
                for (k, x) in o {
                    if k.as_str() != "__type__" {
                        out.insert(k.clone(), type_first(x));
                    }
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(type_first).collect()),
            other => other.clone(),
        }
    }
    crate::py::json::dumps(&type_first(raw), crate::py::json::DumpOptions { ensure_ascii: false, sort_keys: false, indent: Some(4) })
}

/// A chat message `{"role": role, "content": content}`.
pub fn message(role: &str, content: &str) -> Value {
    crate::json!({"role": role, "content": content})
}

/// An answer as a JSON value (`null` when the model gave no content).
pub fn text_or_null(t: &Option<String>) -> Value {
    t.as_deref().map(Value::from).unwrap_or(Value::Null)
}

/// Inserts `v` into a score dict unless it is `null` or an empty list or object (Unitxt's
/// `clean_results`).
pub fn put(m: &mut crate::value::Map, k: &str, v: Value) {
    let empty = match &v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if !empty {
        m.insert(k.into(), v);
    }
}

/// Python's `str(x)` of a prediction shown in a prompt (strings unchanged).
pub fn shown(v: &Value) -> String {
    crate::py::repr::str(v)
}

#[cfg(test)]
mod tests;
