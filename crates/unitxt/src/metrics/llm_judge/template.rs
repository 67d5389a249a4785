//! Template judges (Unitxt's `llm_as_judge_from_template.py`): metrics that verbalize each
//! instance as an instance of a judge *task* with a judge *template*, *format* and *system
//! prompt* (a recipe without data), ask the judge's engine, and score with the answer after
//! the template's postprocessors.
//!
//! - `llm_as_judge` (`LLMAsJudge`): the judge task is one of
//!   `tasks.response_assessment.{rating.single_turn, rating.single_turn_with_reference,
//!   pairwise_comparative_rating.single_turn}`; the question is the evaluated instance's input
//!   as its own template renders it (without system prompt and format, by default), the answer
//!   is the prediction (and the first reference the reference answer, or the baseline).
//! - `task_based_ll_mas_judge` (`TaskBasedLLMasJudge`): any judge task; its input fields are
//!   taken from the evaluated instance's task data (renamed by
//!   `judge_to_generator_fields_mapping`), the prediction put in `prediction_field`; the answer
//!   may be read as log probabilities (`infer_log_probs`), and the engine's meta data is kept
//!   in the scores.
//!
//! The judge's recipe is built with the metric, through the [`BuildContext`], as a
//! `dataset_recipe` of the judge task (no card): the recipe layer, above the metrics,
//! gives it as a [`Produce`] (Unitxt's `produce`). Requests go out in one call of the
//! [`ModelClient`] evaluation gives ([`crate::evaluate::EvaluateOptions::model_client`]).

use indexmap::IndexMap;
use serde::Deserialize;

use super::{engine_id, engine_label, request_failed};
use crate::artifact::{Art, BuildContext, BuildFn};
use crate::catalog::Catalog;
use crate::error::{Error, Need, Result, ResultExt};
use crate::formats::Format;
use crate::inference::{InferOptions, InferenceEngine, ModelClient};
use crate::metrics::{Metric, MetricInput, MetricKind, Scores};
use crate::operators::Operator;
use crate::processors::post_process::{delete_target_prefix, Postprocessors};
use crate::templates::Template;
use crate::value::{Instance, Map, Value};

/// What a template judge needs of a recipe (Unitxt's `DatasetRecipe.produce`): task instances
/// (dicts of the task's input fields) in, model-ready instances out (`source`, `task_data`,
/// `postprocessors`, `data_classification_policy`, ...; no `target` or `references`), in
/// order. The recipe layer implements it.
pub trait Produce: Send + Sync {
    /// Verbalizes `instances`. Errors: those of the task, template and format, naming the
    /// instance.
    fn produce(&self, instances: Vec<Instance>) -> Result<Vec<Instance>>;
}

impl crate::artifact::ArtifactKind for dyn Produce {
    const KIND: &'static str = "recipe";
}

fn yes() -> bool {
    true
}

/// The catalog fields of Unitxt's `LLMAsJudgeBase` (and the `BulkInstanceMetric` settings the
/// catalog's judges set), shared by both template judges.
#[derive(Deserialize, Debug, Clone)]
pub struct TemplateJudgeConfig {
    /// The engine that answers the judge's prompts.
    pub inference_model: Value,
    /// The judge task: `rating.single_turn`, `rating.single_turn_with_reference` or
    /// `pairwise_comparative_rating.single_turn` (`llm_as_judge`); a catalog task
    /// (`task_based_ll_mas_judge`).
    pub task: String,
    /// The judge template (a catalog name or an inline template).
    pub template: Value,
    /// The judge's system prompt (absent or `null`: none).
    #[serde(default)]
    pub system_prompt: Option<Value>,
    /// The judge's format (absent: a default `system_format`, as Unitxt's class default;
    /// `null`: none for `llm_as_judge`, chosen by the engine for `task_based_ll_mas_judge`).
    #[serde(default, deserialize_with = "super::super::present")]
    pub format: Option<Value>,
    /// The main score's name (default `llm_as_judge`).
    #[serde(default)]
    pub main_score: Option<String>,
    /// How instance scores reduce to global ones: `{"mean": [names]}` or
    /// `{"weighted_win_rate": [names]}` (default: the mean of the main score; pairwise
    /// `llm_as_judge`: its weighted win rate).
    #[serde(default)]
    pub reduction_map: Option<IndexMap<String, Vec<String>>>,
    /// Unitxt's bulk size (instances are sent in one call here; accepted, unused).
    #[serde(default)]
    pub batch_size: Option<Value>,
    /// Accepted as Unitxt's metrics accept it (references are lists).
    #[serde(default)]
    pub single_reference_per_prediction: Option<Value>,
    /// Bootstrap resamples of the main score's interval (default 1000; `null`: none).
    #[serde(default, deserialize_with = "super::super::present")]
    pub n_resamples: Option<Value>,
}

/// The fields only `llm_as_judge` (Unitxt's `LLMAsJudge`) has.
#[derive(Deserialize, Debug, Clone)]
pub struct LlmAsJudgeFields {
    /// Whether the evaluated instance's input is rendered again by its own template without
    /// system prompt and format (default true); false: its `source` as the model got it
    /// (evaluation copies it into the task data).
    #[serde(default = "yes")]
    pub strip_system_prompt_and_format_from_inputs: bool,
}

impl Default for LlmAsJudgeFields {
    fn default() -> Self {
        LlmAsJudgeFields { strip_system_prompt_and_format_from_inputs: true }
    }
}

/// The fields only `task_based_ll_mas_judge` (Unitxt's `TaskBasedLLMasJudge`) has.
#[derive(Deserialize, Debug, Clone)]
pub struct TaskBasedFields {
    /// Read the answer's log probabilities instead of its text (the template's postprocessors
    /// turn them into a score).
    #[serde(default)]
    pub infer_log_probs: bool,
    /// Judge task field → the evaluated task's field it is read from (default: the same name).
    #[serde(default)]
    pub judge_to_generator_fields_mapping: IndexMap<String, String>,
    /// The judge task field the prediction is put in (a dict prediction: its value under that
    /// name).
    #[serde(default)]
    pub prediction_field: Option<String>,
    /// Whether the engine's meta data (tokens, model name, ...) is kept in the instance scores,
    /// as `<main>_<key>` (default true).
    #[serde(default = "yes")]
    pub include_meta_data: bool,
}

impl Default for TaskBasedFields {
    fn default() -> Self {
        TaskBasedFields { infer_log_probs: false, judge_to_generator_fields_mapping: IndexMap::new(), prediction_field: None, include_meta_data: true }
    }
}

/// Which of Unitxt's template judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `llm_as_judge` (`LLMAsJudge`).
    LlmAsJudge,
    /// `task_based_ll_mas_judge` (`TaskBasedLLMasJudge`).
    TaskBased,
}

/// The judge tasks `llm_as_judge` supports.
const LLM_AS_JUDGE_TASKS: [&str; 3] = ["rating.single_turn", "rating.single_turn_with_reference", "pairwise_comparative_rating.single_turn"];

/// How the instance scores reduce.
#[derive(Debug, Clone, PartialEq)]
enum Reduction {
    /// The mean of each named score (NaNs left out), with an interval for the main score.
    Mean(Vec<String>),
    /// Unitxt's `weighted_win_rate` of each named score, no interval.
    WeightedWinRate(Vec<String>),
}

/// A built template judge. Each instance's record is `{"main_score", "scores", "mean" or
/// "weighted_win_rate"}` ([`MetricKind::BulkInstance`]); the scores are the main score (the
/// judge's answer after the template's postprocessors), `<main>_judge_raw_output` (the answer
/// as received; with log probabilities, their JSON text), `<main>_judge_raw_input` (the
/// prompt sent: text, or chat messages) and, for `task_based_ll_mas_judge` with meta data,
/// `<main>_<key>` for each key of the engine's `TextGenerationInferenceOutput` but the
/// prediction. `task_based_ll_mas_judge` prefixes every score with `<engine id>_`.
pub struct TemplateJudge {
    family: Family,
    config: TemplateJudgeConfig,
    llm: LlmAsJudgeFields,
    task: TaskBasedFields,
    engine: Art<dyn InferenceEngine>,
    /// The judge's recipe: the judge task, template, system prompt and format.
    recipe: Art<dyn Produce>,
    /// The judge template's JSON (for its `target_prefix`).
    template_json: Value,
    /// The template's postprocessors, built.
    postprocessors: Postprocessors,
    /// `task_based_ll_mas_judge`: the judge task's input field names.
    task_inputs: Vec<String>,
    reduction: Reduction,
    include_meta_data: bool,
    /// The metric's JSON with the score prefix the type sets (`task_based_ll_mas_judge`).
    settings: Option<Value>,
    /// `prediction_type` when the JSON sets one: predictions and references must be of it.
    prediction_type: Option<crate::task::Type>,
    catalog: std::sync::Arc<Catalog>,
    build_fn: BuildFn,
}

impl TemplateJudge {
    /// Builds a template judge of `family` from its catalog JSON `raw` (the shared fields and
    /// the family's own) in `cx`: its engine, and a recipe of the judge task, template, system prompt and format.
    /// Errors: the parts do not build; `llm_as_judge` with a task it does not support; an
    /// OpenAI-family engine with a format other than `formats.chat_api`/`formats.empty` (a
    /// format left to the engine excepted) or with a system prompt (Unitxt refuses them); an
    /// unknown reduction.
    pub fn build(family: Family, raw: &Value, cx: &BuildContext<'_>) -> Result<TemplateJudge> {
        let type_name = family.type_name();
        let config: TemplateJudgeConfig = crate::artifact::from_value(type_name, raw)?;
        let (llm, task_fields) = match family {
            Family::LlmAsJudge => (crate::artifact::from_value::<LlmAsJudgeFields>(type_name, raw)?, TaskBasedFields::default()),
            Family::TaskBased => (LlmAsJudgeFields::default(), crate::artifact::from_value::<TaskBasedFields>(type_name, raw)?),
        };
        let engine: Art<dyn InferenceEngine> = cx.build(&config.inference_model).map_err(|e| e.in_field("inference_model"))?;
        let label = engine_label(&engine);
        let id = engine_id(&engine, &label);
        let main = config.main_score.clone().unwrap_or_else(|| "llm_as_judge".to_string());
        let (task, format) = match family {
            Family::LlmAsJudge => {
                if !LLM_AS_JUDGE_TASKS.contains(&config.task.as_str()) {
                    return Err(Error::invalid(format!(
                        "`{type_name}`: task {:?} is not supported; use one of {}",
                        config.task,
                        LLM_AS_JUDGE_TASKS.join(", ")
                    ))
                    .in_field("task"));
                }
                let format = match &config.format {
                    None => crate::json!({"__type__": "system_format"}),
                    Some(Value::Null) => Value::Null,
                    Some(f) => f.clone(),
                };
                (Value::from(format!("tasks.response_assessment.{}", config.task)), format)
            }
            Family::TaskBased => {
                // Absent, Unitxt's class default (a `SystemFormat`) stays; `null` lets the
                // engine choose.
                let format = match &config.format {
                    None => crate::json!({"__type__": "system_format"}),
                    Some(Value::Null) => Value::from(format_for_engine(&id)),
                    Some(f) => f.clone(),
                };
                (Value::from(config.task.as_str()), format)
            }
        };
        let mut recipe_json = crate::json!({"__type__": "dataset_recipe", "task": task, "template": config.template.clone()});
        if let Some(m) = recipe_json.as_object_mut() {
            if !format.is_null() {
                m.insert("format".into(), format.clone());
            }
            if let Some(sp) = config.system_prompt.as_ref().filter(|v| !v.is_null()) {
                m.insert("system_prompt".into(), sp.clone());
            }
        }
        let recipe: Art<dyn Produce> = cx.build(&recipe_json).ctx(format!("the judge recipe of `{type_name}` (its task, template, format and system prompt)"))?;
        let template: Art<dyn Template> = cx.build(&config.template).map_err(|e| e.in_field("template"))?;
        // Unitxt's `LLMAsJudgeBase.verify`, for both families; the format an engine chooses
        // (`null`) is never checked.
        if is_openai_family(engine.type_name()) {
            if !matches!(config.format, Some(Value::Null)) {
                let f: Art<dyn Format> = cx.build(&format).map_err(|e| e.in_field("format"))?;
                let chat_api = f.raw.get("__type__").and_then(Value::as_str) == Some("chat_api_format");
                let empty = f.id.as_deref() == Some("formats.empty");
                if !chat_api && !empty {
                    return Err(Error::invalid(format!(
                        "`{type_name}` with engine `{}`: the OpenAI chat API formats the prompts itself; set `format` to \"formats.chat_api\" or \"formats.empty\" (Unitxt refuses other formats)",
                        engine.type_name()
                    ))
                    .in_field("format"));
                }
            }
            let sp_type = config.system_prompt.as_ref().filter(|v| !v.is_null()).map(|sp| -> Result<String> {
                let built: Art<dyn crate::system_prompts::SystemPrompt> = cx.build(sp).map_err(|e| e.in_field("system_prompt"))?;
                Ok(built.raw.get("__type__").and_then(Value::as_str).unwrap_or_default().to_string())
            });
            if let Some(t) = sp_type.transpose()? {
                if t != "empty_system_prompt" {
                    return Err(Error::invalid(format!(
                        "`{type_name}` with engine `{}`: a system prompt is not supported with the OpenAI chat API engines (as in Unitxt); remove `system_prompt`",
                        engine.type_name()
                    ))
                    .in_field("system_prompt"));
                }
            }
        }
        // An engine without log probabilities refuses `infer_log_probs` when the judge runs
        // (its `log_prob_requests`), naming itself.
        let template_json = resolve_json(&template.raw, cx)?;
        let names: Vec<String> = template_json
            .get("postprocessors")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        let postprocessors = Postprocessors::fetch(&names, |name| cx.build::<dyn Operator>(&Value::from(name)));
        let task_inputs = match family {
            Family::LlmAsJudge => Vec::new(),
            Family::TaskBased => {
                let t: Art<crate::task::Task> = cx.build(&Value::from(config.task.as_str())).map_err(|e| e.in_field("task"))?;
                t.input_fields.keys().cloned().collect()
            }
        };
        let reduction = match (&config.reduction_map, family) {
            (_, Family::LlmAsJudge) if config.task == "pairwise_comparative_rating.single_turn" => Reduction::WeightedWinRate(vec![main.clone()]),
            (_, Family::TaskBased) | (None, _) => Reduction::Mean(vec![main.clone()]),
            (Some(map), _) => {
                let mut it = map.iter();
                match (it.next(), it.next()) {
                    (Some((k, fields)), None) if k == "mean" => Reduction::Mean(fields.clone()),
                    (Some((k, fields)), None) if k == "weighted_win_rate" => Reduction::WeightedWinRate(fields.clone()),
                    _ => {
                        return Err(Error::invalid(format!("`{type_name}`: `reduction_map` must be {{\"mean\": [...]}} or {{\"weighted_win_rate\": [...]}}")).in_field("reduction_map"))
                    }
                }
            }
        };
        // Unitxt's engines without `get_return_object` give no meta data.
        let include_meta_data = family == Family::TaskBased && task_fields.include_meta_data && engine.type_name() != "generic_inference_engine";
        let settings = match family {
            Family::TaskBased => {
                let mut s = raw.clone();
                if let Some(m) = s.as_object_mut() {
                    m.insert("score_prefix".into(), Value::from(format!("{id}_")));
                }
                Some(s)
            }
            Family::LlmAsJudge => None,
        };
        let prediction_type = match raw.get("prediction_type") {
            Some(Value::String(t)) => Some(crate::task::Type::parse(t).map_err(|e| e.in_field("prediction_type"))?),
            _ => None,
        };
        Ok(TemplateJudge {
            prediction_type,
            family,
            config,
            llm,
            task: task_fields,
            engine,
            recipe,
            template_json,
            postprocessors,
            task_inputs,
            reduction,
            include_meta_data,
            settings,
            catalog: cx.catalog().clone(),
            build_fn: cx.build_fn(),
        })
    }

    /// A name for messages: the judge's type and main score.
    fn name(&self) -> String {
        format!("LLM judge `{}` ({}, engine `{}`)", self.family.type_name(), self.main(), self.engine.type_name())
    }

    fn main(&self) -> &str {
        self.config.main_score.as_deref().unwrap_or("llm_as_judge")
    }

    /// Unitxt's `_validate_references_and_prediction` of these metrics: one reference per
    /// prediction (`single_reference_per_prediction`, true unless set false), and predictions
    /// and references of the `prediction_type` the JSON sets. Errors name the instance.
    fn check_inputs(&self, inputs: &[MetricInput<'_>]) -> Result<()> {
        let single = !matches!(self.config.single_reference_per_prediction, Some(Value::Bool(false)));
        for (i, input) in inputs.iter().enumerate() {
            if single && input.references.len() != 1 {
                return Err(Error::invalid(format!(
                    "{}: instance {i}: expected exactly one reference per prediction, got {}: {}",
                    self.name(),
                    input.references.len(),
                    crate::py::repr::repr(&Value::Array(input.references.to_vec()))
                )));
            }
            if let Some(t) = &self.prediction_type {
                let bad = std::iter::once(("prediction", input.prediction)).chain(input.references.iter().map(|r| ("reference", r))).find(|(_, v)| !t.check(v));
                if let Some((what, v)) = bad {
                    return Err(Error::invalid(format!("{}: instance {i}: the {what} {} is not of the metric's prediction_type {t}", self.name(), crate::artifact::short(v))));
                }
            }
        }
        Ok(())
    }

    /// `llm_as_judge`: the judge task instances (Unitxt's `LLMAsJudge.prepare_instances`).
    fn rating_instances(&self, inputs: &[MetricInput<'_>]) -> Result<Vec<Instance>> {
        let questions = self.questions(inputs)?;
        let mut out = Vec::with_capacity(inputs.len());
        for (i, (input, question)) in inputs.iter().zip(questions).enumerate() {
            let mut inst = Instance::new();
            inst.insert("question".into(), question);
            let first_reference = || {
                input.references.first().cloned().ok_or_else(|| Error::invalid(format!("{}: instance {i} has no reference (the judge task needs one)", self.name())))
            };
            match self.config.task.as_str() {
                "rating.single_turn" => {
                    inst.insert("answer".into(), input.prediction.clone());
                }
                "rating.single_turn_with_reference" => {
                    inst.insert("answer".into(), input.prediction.clone());
                    inst.insert("reference_answer".into(), first_reference()?);
                }
                _ => {
                    inst.insert("answer_a".into(), input.prediction.clone());
                    inst.insert("answer_b".into(), first_reference()?);
                    inst.insert("model_a".into(), Value::from("input_model"));
                    inst.insert("model_b".into(), Value::from("baseline_model"));
                }
            }
            inst.insert("data_classification_policy".into(), policy_of(input.task_data));
            out.push(inst);
        }
        Ok(out)
    }

    /// The question of each instance (Unitxt's `_get_input_instances` and the text it makes of
    /// each in `_get_instance_for_judge_model`): the instance's input rendered by its own
    /// template (named in `task_data.metadata.template`) from all its task data, then
    /// `formats.empty`; without stripping, the instance's `source`. Errors: a task data
    /// without a template, one that does not build or render (naming the instance); without
    /// stripping, a task data without `source`.
    fn questions(&self, inputs: &[MetricInput<'_>]) -> Result<Vec<Value>> {
        let mut sources = Vec::with_capacity(inputs.len());
        if !self.llm.strip_system_prompt_and_format_from_inputs {
            for (i, input) in inputs.iter().enumerate() {
                sources.push(input.task_data.get("source").cloned().ok_or_else(|| {
                    Error::invalid(format!("{}: instance {i}: the task data has no `source` (evaluation puts it there; set `strip_system_prompt_and_format_from_inputs` to true to render the input from the task data)", self.name()))
                })?);
            }
        } else {
            let cx = BuildContext::new(&self.catalog, self.build_fn);
            let empty: Art<dyn Format> = cx.build(&Value::from("formats.empty"))?;
            let mut templates: IndexMap<String, Art<dyn Template>> = IndexMap::new();
            for (i, input) in inputs.iter().enumerate() {
                let at = |e: Error| e.context(format!("{}: rendering the input of instance {i} with its template", self.name()));
                let name = input.task_data.get("metadata").and_then(|m| m.get("template")).cloned().ok_or_else(|| {
                    Error::invalid(format!("{}: instance {i}: `task_data.metadata.template` is missing (the judge renders the input with it)", self.name()))
                })?;
                let key = name.to_string();
                let template = match templates.get(&key) {
                    Some(t) => t.clone(),
                    None => {
                        let t: Art<dyn Template> = cx.build(&name).map_err(at)?;
                        templates.insert(key, t.clone());
                        t
                    }
                };
                let td = Value::Object(input.task_data.clone());
                let mut inst = Instance::new();
                inst.insert("input_fields".into(), td.clone());
                inst.insert("reference_fields".into(), td);
                let inst = template.process_instance(inst, "").map_err(at)?;
                let inst = crate::formats::format_instance(&*empty.inner, inst, "").map_err(at)?;
                sources.push(inst.get("source").cloned().unwrap_or(Value::Null));
            }
        }
        Ok(question_texts(sources))
    }

    /// `task_based_ll_mas_judge`: the judge task instances (Unitxt's
    /// `TaskBasedLLMasJudge.prepare_instances`): each judge task input field from the task data
    /// (or a dict prediction), the prediction in `prediction_field`.
    fn task_instances(&self, inputs: &[MetricInput<'_>]) -> Result<Vec<Instance>> {
        let mut out = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.iter().enumerate() {
            let td = input.task_data;
            let mut inst = Instance::new();
            for field in &self.task_inputs {
                let from = self.task.judge_to_generator_fields_mapping.get(field).unwrap_or(field);
                let mut v = td.get(from.as_str()).cloned().filter(|v| !v.is_null());
                if v.is_none() {
                    if let Value::Object(p) = input.prediction {
                        v = p.get(from.as_str()).cloned().filter(|v| !v.is_null());
                    }
                }
                if let Some(v) = v {
                    inst.insert(field.as_str().into(), v);
                }
            }
            if let Some(f) = &self.task.prediction_field {
                let p = input.prediction;
                if !p.is_null() {
                    let v = match p {
                        Value::Object(m) => m.get(f.as_str()).cloned().ok_or_else(|| {
                            Error::not_found(format!("{}: instance {i}: the prediction (a dict) has no key {f:?} (`prediction_field`)", self.name()))
                        })?,
                        other => other.clone(),
                    };
                    inst.insert(f.as_str().into(), v);
                }
            }
            inst.insert("data_classification_policy".into(), policy_of(td));
            out.push(inst);
        }
        Ok(out)
    }
}

impl Family {
    fn type_name(self) -> &'static str {
        match self {
            Family::LlmAsJudge => "llm_as_judge",
            Family::TaskBased => "task_based_ll_mas_judge",
        }
    }
}

/// Unitxt's `isinstance(engine, OpenAiInferenceEngine)`: the OpenAI engine and its subclasses.
fn is_openai_family(type_name: &str) -> bool {
    matches!(type_name, "open_ai_inference_engine" | "azure_open_ai_inference_engine" | "vllm_remote_inference_engine" | "rits_inference_engine")
}

/// Unitxt's `TaskBasedLLMasJudge.set_format_for_inference_engine`: a watsonx engine (`_wml` in
/// its id) gets Llama 3's or Mixtral's format by model, else `formats.empty`; any other engine
/// `formats.chat_api`.
fn format_for_engine(engine_id: &str) -> &'static str {
    if !engine_id.contains("_wml") {
        return "formats.chat_api";
    }
    static LLAMA3: std::sync::LazyLock<fancy_regex::Regex> = std::sync::LazyLock::new(|| fancy_regex::Regex::new(r"llama.?3.*instruct").expect("valid regex"));
    if LLAMA3.is_match(engine_id).unwrap_or(false) {
        "formats.llama3_instruct"
    } else if engine_id.contains("mixtral") {
        "formats.models.mistral.instruction"
    } else {
        "formats.empty"
    }
}

/// `task_data.metadata.data_classification_policy` (`null` when absent), copied into the
/// judge's instances as Unitxt copies it.
fn policy_of(td: &Instance) -> Value {
    td.get("metadata").and_then(|m| m.get("data_classification_policy")).cloned().unwrap_or(Value::Null)
}

/// The question texts of `sources` as Unitxt's `LLMAsJudge._get_instance_for_judge_model`
/// makes them: a text as is; a chat of one message its content, of two the two contents on
/// two lines, else `role: content` lines. (Unitxt appends the `role: content` text for a
/// one-message chat too, and nothing for other values; the list is then cut to the number of
/// instances, as its `zip` does.)
fn question_texts(sources: Vec<Value>) -> Vec<Value> {
    let n = sources.len();
    let mut out = Vec::with_capacity(n);
    for s in sources {
        match s {
            Value::String(_) => out.push(s),
            Value::Array(turns) => {
                let content = |t: &Value| crate::py::repr::str(t.get("content").unwrap_or(&Value::Null));
                if turns.len() == 1 {
                    out.push(Value::from(content(&turns[0])));
                }
                if turns.len() == 2 {
                    out.push(Value::from(format!("{}\n{}", content(&turns[0]), content(&turns[1]))));
                } else {
                    let lines: Vec<String> = turns
                        .iter()
                        .map(|t| format!("{}: {}", crate::py::repr::str(t.get("role").unwrap_or(&Value::Null)), content(t)))
                        .collect();
                    out.push(Value::from(lines.join("\n")));
                }
            }
            _ => {}
        }
    }
    out.truncate(n);
    out
}

/// The JSON an artifact reference resolves to (following catalog names), for reading a
/// template's own fields.
fn resolve_json(raw: &Value, cx: &BuildContext<'_>) -> Result<Value> {
    let mut v = raw.clone();
    for _ in 0..crate::artifact::MAX_ARTIFACT_DEPTH {
        match &v {
            Value::String(name) => {
                let (name, _) = crate::query::split_name_and_overwrites(name)?;
                v = (*cx.catalog().get_json(&name)?).clone();
            }
            _ => return Ok(v),
        }
    }
    Ok(v)
}

impl Metric for TemplateJudge {
    fn main_score(&self) -> &str {
        self.main()
    }
    fn map(&self, _prediction: &Value, _references: &[Value], _task_data: &Instance) -> Result<Value> {
        Err(Error::invalid(format!("{} judges all instances of a stream at once (map_batch), not one by one", self.name())))
    }
    fn map_batch(&self, inputs: &[MetricInput<'_>], client: Option<&dyn ModelClient>) -> Result<Vec<Value>> {
        let client = client.ok_or_else(|| {
            Error::needs(
                Need::Model,
                format!("{} calls a model: evaluate it with a model client (unitxt-rs evaluate and unitxt_rs.evaluate give one; set the judge engine's endpoint and key)", self.name()),
            )
        })?;
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        self.check_inputs(inputs)?;
        let instances = match self.family {
            Family::LlmAsJudge => self.rating_instances(inputs)?,
            Family::TaskBased => self.task_instances(inputs)?,
        };
        let produced = self.recipe.produce(instances).ctx(format!("{}: verbalizing the judge's prompts", self.name()))?;
        let opts = InferOptions { log_probs: self.task.infer_log_probs, meta_data: self.include_meta_data };
        let inferred = crate::inference::infer_with(&*self.engine, client, &produced, opts).ctx(self.name())?;
        if !inferred.failed.is_empty() {
            return Err(request_failed(&self.name(), &*self.engine, "judge", &inferred.failed, produced.len(), |i| i));
        }
        let main = self.main().to_string();
        let mut records = Vec::with_capacity(produced.len());
        for (i, (inst, raw)) in produced.iter().zip(inferred.predictions).enumerate() {
            let raw = raw.unwrap_or(Value::Null);
            let raw = if self.task.infer_log_probs {
                Value::from(crate::py::json::dumps(&raw, crate::py::json::DumpOptions { ensure_ascii: true, sort_keys: false, indent: None }))
            } else {
                raw
            };
            let task_data = match inst.get("task_data") {
                Some(Value::Object(m)) => m.clone(),
                Some(Value::String(s)) => match crate::py::json::loads(s, false).map_err(Error::invalid)? {
                    Value::Object(m) => m,
                    _ => Instance::new(),
                },
                _ => Instance::new(),
            };
            let prediction = delete_target_prefix(&self.template_json, raw.clone(), &task_data)
                .and_then(|p| self.postprocessors.apply(p, Vec::new(), Value::Object(task_data.clone())))
                .map(|(p, _)| p)
                .map_err(|e| e.context(format!("{}: processing the judge's answer for instance {i}", self.name())))?;
            let mut scores = Map::new();
            scores.insert(main.as_str().into(), prediction);
            scores.insert(format!("{main}_judge_raw_output").into(), raw);
            scores.insert(format!("{main}_judge_raw_input").into(), inst.get("source").cloned().unwrap_or(Value::Null));
            if self.include_meta_data {
                if let Some(Some(Value::Object(meta))) = inferred.meta_data.get(i) {
                    for (k, v) in meta {
                        if k.as_str() != "prediction" {
                            scores.insert(format!("{main}_{k}").into(), v.clone());
                        }
                    }
                }
            }
            let mut r = Map::new();
            r.insert("main_score".into(), Value::from(main.as_str()));
            r.insert("scores".into(), Value::Object(scores));
            let (key, fields) = match &self.reduction {
                Reduction::Mean(f) => ("mean", f),
                Reduction::WeightedWinRate(f) => ("weighted_win_rate", f),
            };
            r.insert(key.into(), Value::Array(fields.iter().map(|f| Value::from(f.as_str())).collect()));
            records.push(Value::Object(r));
        }
        Ok(records)
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        crate::metrics::llm_judge::JudgeBase::record_scores(record)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        match &self.reduction {
            Reduction::Mean(_) => crate::metrics::llm_judge::JudgeBase::reduce_records(self.main(), records),
            Reduction::WeightedWinRate(_) => {
                let main = self.main();
                let xs = records.iter().map(|r| r.get("scores").and_then(|s| s.get(main)).and_then(Value::as_f64).unwrap_or(f64::NAN));
                Ok([(main.to_string(), crate::metrics::weighted_win_rate(xs))].into_iter().collect())
            }
        }
    }
    fn kind(&self) -> MetricKind {
        MetricKind::BulkInstance
    }
    fn n_resamples(&self) -> Option<usize> {
        if matches!(self.reduction, Reduction::WeightedWinRate(_)) {
            return None;
        }
        match &self.config.n_resamples {
            None => Some(1000),
            Some(v) => v.as_u64().map(|n| n as usize),
        }
    }
    fn settings_raw(&self) -> Option<&Value> {
        self.settings.as_ref()
    }
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        Some(crate::error::Unavailable {
            need: Need::Model,
            reason: format!("LLM judge `{}` scores by calling its engine's model (`{}`): evaluate it with an endpoint", self.family.type_name(), self.engine.type_name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    /// Texts pass; a two-message chat is its two contents on two lines, a longer one
    /// `role: content` lines; a one-message chat gives its content and also its `role: content`
    /// text (Unitxt's `if`/`if`/`else`), the list cut to the number of sources.
    #[test]
    fn question_texts_follow_unitxt() {
        let one = json!([{"role": "user", "content": "Q1"}]);
        let two = json!([{"role": "system", "content": "S"}, {"role": "user", "content": "Q2"}]);
        let three = json!([{"role": "system", "content": "S"}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]);
        assert_eq!(
            question_texts(vec![json!("plain"), two, three]),
            vec![json!("plain"), json!("S\nQ2"), json!("system: S\nuser: a\nassistant: b")]
        );
        assert_eq!(question_texts(vec![one, json!("next")]), vec![json!("Q1"), json!("user: Q1")]);
    }

    /// A watsonx engine's id picks Llama 3's or Mixtral's format, else `formats.empty`; any
    /// other engine the chat API.
    #[test]
    fn format_by_engine_id() {
        assert_eq!(format_for_engine("llama_3_3_70b_instruct_wml"), "formats.llama3_instruct");
        assert_eq!(format_for_engine("mixtral_8x7b_instruct_v01_wml"), "formats.models.mistral.instruction");
        assert_eq!(format_for_engine("granite_3_8b_instruct_wml"), "formats.empty");
        assert_eq!(format_for_engine("gpt_4o_2024_08_06_azure_openai"), "formats.chat_api");
    }
}
