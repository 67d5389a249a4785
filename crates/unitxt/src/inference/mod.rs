//! Inference engines (Unitxt's `unitxt.inference`): the catalog's `*_inference_engine`
//! artifacts, which turn prepared instances into chat-completion requests and answers into
//! predictions.
//!
//! An engine never talks to the network itself. It says where its requests go (an
//! [`Endpoint`]) and what they are (one JSON body per instance, as Unitxt's engine sends it);
//! a [`ModelClient`], which the caller implements (the CLI does it with `unitxt-inference`),
//! sends them. Engines whose models cannot be called from here (watsonx, AWS, Vertex AI,
//! Replicate, local Hugging Face or vLLM weights) build, and asking them for requests is an
//! error with [`Reason::Needs`](crate::error::Reason::Needs) that says what to serve instead.
//!
//! - `openai.rs`: `open_ai_inference_engine` and its subclasses (Azure, remote vLLM, RITS)
//!   and `together_ai_inference_engine`;
//! - `cross_provider.rs`: `cross_provider_inference_engine`, `lite_llm_inference_engine`,
//!   `ollama_inference_engine`;
//! - `local.rs`: `mock_inference_engine`, `generic_inference_engine`, the watsonx
//!   (`wml_inference_engine*`) and Hugging Face engines.

pub mod cross_provider;
pub mod local;
pub mod openai;

use std::fmt;

use crate::error::{Error, Need, Result};
use crate::value::{Instance, Value};

/// Where an engine's requests go: an OpenAI-compatible `/chat/completions` endpoint and how
/// to call it. `Debug` never shows the API key.
#[derive(Clone, PartialEq)]
pub struct Endpoint {
    /// Base URL, up to and including the version (`https://api.openai.com/v1`); requests go
    /// to `{base_url}{completions_path}`.
    pub base_url: String,
    /// The path of chat completions under `base_url` ([`CHAT_COMPLETIONS`] but for Azure's
    /// deployments, `/chat/completions/?api-version=...`).
    pub completions_path: String,
    /// The key sent as `Authorization: Bearer <key>`; `None` sends none. Never printed.
    pub api_key: Option<String>,
    /// Extra HTTP headers Unitxt's engine sends (`default_headers`; RITS sends its key in
    /// `RITS_API_KEY`). Values may be secrets: `Debug` shows only the names.
    pub headers: Vec<(String, String)>,
    /// Requests in flight at once (Unitxt's `num_parallel_requests`).
    pub num_parallel_requests: usize,
    /// Requests started per second at most (LiteLLM's `max_requests_per_second`); `None`:
    /// unlimited.
    pub max_requests_per_second: Option<f64>,
    /// Retries of a failed request (LiteLLM's `max_retries`); `None`: the client's default.
    pub max_retries: Option<u32>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("completions_path", &self.completions_path)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("headers", &self.headers.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
            .field("num_parallel_requests", &self.num_parallel_requests)
            .field("max_requests_per_second", &self.max_requests_per_second)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// The path of chat completions of an OpenAI-compatible API.
pub const CHAT_COMPLETIONS: &str = "/chat/completions";

/// One request that got no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedRequest {
    /// Its position in the bodies given to [`ModelClient::complete`].
    pub index: usize,
    /// What went wrong, for people (never contains the API key).
    pub detail: String,
}

/// What a run cost, as the [`ModelClient`] counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestCounts {
    /// HTTP requests sent, retries included.
    pub sent: u64,
    /// Attempts beyond the first.
    pub retries: u64,
    /// Bodies answered from the client's cache, without sending anything.
    pub cached: u64,
    /// Sum of the answers' `usage.prompt_tokens` (answers received in this run).
    pub prompt_tokens: u64,
    /// Sum of the answers' `usage.completion_tokens` (answers received in this run).
    pub completion_tokens: u64,
}

/// What a [`ModelClient`] got back for a list of request bodies.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// One slot per body, in order: the answer's JSON (an OpenAI chat completion), or `None`
    /// when that request failed.
    pub answers: Vec<Option<Value>>,
    /// The requests that failed, each once.
    pub failed: Vec<FailedRequest>,
    /// Requests and tokens of the run.
    pub counts: RequestCounts,
}

/// Sends chat-completion request bodies to an endpoint. The engine defines it; the caller
/// implements it (HTTP never lives in this crate).
pub trait ModelClient: Send + Sync {
    /// Sends each of `bodies` (JSON objects, as the engine built them) to
    /// `{endpoint.base_url}/chat/completions` and returns every answer received, also when
    /// some requests fail. Errors: only what prevents the run as a whole (a bad endpoint, a
    /// cache that cannot be opened).
    fn complete(&self, endpoint: &Endpoint, bodies: &[Value]) -> Result<Answers>;
}

/// A built inference engine artifact (the family trait of the `*_inference_engine` types).
pub trait InferenceEngine: Send + Sync {
    /// The engine's `__type__`, for messages.
    fn type_name(&self) -> &'static str;

    /// Where requests go and the request body of each instance, as Unitxt's engine sends
    /// them. Errors: the engine cannot be called from here (its error says what it needs:
    /// credentials, an endpoint, or a model served behind an OpenAI-compatible server), or an
    /// instance is malformed (no `source`, a `task_data` that is not JSON).
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)>;

    /// The Unitxt class it mirrors (`OpenAiInferenceEngine`): the key of its policy in
    /// `UNITXT_DATA_CLASSIFICATION_POLICY`.
    fn class_name(&self) -> &'static str;

    /// The data classifications it may be sent (its `data_classification_policy`, else the
    /// class's default); `None`: any data.
    fn data_classification_policy(&self) -> Option<Vec<String>>;

    /// Answers computed here without a model (Unitxt's `MockInferenceEngine`); `None` for an
    /// engine that sends requests.
    fn local_predictions(&self, _instances: &[Instance]) -> Option<Vec<Value>> {
        None
    }

    /// Where the requests of `infer_log_probs` go and their bodies (Unitxt's
    /// `LogProbInferenceEngine._infer_log_probs`). Errors: the engine is not a log-probability
    /// engine in Unitxt ([`ErrorKind::Unsupported`](crate::error::ErrorKind::Unsupported)),
    /// and those of [`requests`](Self::requests).
    fn log_prob_requests(&self, _instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Err(Error::new(
            crate::error::ErrorKind::Unsupported,
            format!("`{}` ({}) does not support log probabilities: Unitxt's {} is not a LogProbInferenceEngine", self.type_name(), self.class_name(), self.class_name()),
        ))
    }

    /// The log-probability predictions computed here without a model (Unitxt's
    /// `MockInferenceEngine._infer_log_probs`); `None` for an engine that sends requests.
    fn local_log_probs(&self, _instances: &[Instance]) -> Option<Vec<Value>> {
        None
    }

    /// The model name and the label (`inference_type`) that Unitxt's `get_return_object`
    /// writes into a `TextGenerationInferenceOutput`, given the model's `answer` (LiteLLM
    /// reports the answer's `model`). `(None, None)` by default.
    fn output_model_and_label(&self, _answer: &Value) -> (Option<String>, Option<String>) {
        (None, None)
    }
}

impl crate::artifact::ArtifactKind for dyn InferenceEngine {
    const KIND: &'static str = "inference engine";
}

/// What [`infer_with`] asks the engine for (the flags of Unitxt's `infer`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InferOptions {
    /// Log probabilities of the generated tokens instead of text (Unitxt's
    /// `infer_log_probs`): each prediction is a list of `{"text", "logprob", "top_tokens":
    /// [{"text", "logprob"}, ...]}`, one per generated token.
    pub log_probs: bool,
    /// Also return, per instance, Unitxt's `TextGenerationInferenceOutput` (see
    /// [`text_generation_output`]).
    pub meta_data: bool,
}

/// The predictions of [`infer`] / [`infer_with`].
#[derive(Debug, Clone, Default)]
pub struct Inferred {
    /// One slot per instance: the prediction (a string, or `null` when the model answered
    /// with no content; with [`InferOptions::log_probs`] the list of token dicts), or `None`
    /// when its request failed.
    pub predictions: Vec<Option<Value>>,
    /// With [`InferOptions::meta_data`]: one slot per instance, its
    /// `TextGenerationInferenceOutput` as an object (`None` when its request failed); empty
    /// otherwise.
    pub meta_data: Vec<Option<Value>>,
    /// The instances whose request failed.
    pub failed: Vec<FailedRequest>,
    /// Requests and tokens of the run (zero for an engine that answers here).
    pub counts: RequestCounts,
}

/// Runs `engine` on `instances` through `client` (Unitxt's `InferenceEngine.infer`, without its
/// disk cache: the client keeps one). Each answer's prediction is read as Unitxt reads it:
/// `choices[0].message.content`, or for an instance with tools the first tool call as
/// `{"name": "...", "arguments": ...}` text. Errors: those of [`InferenceEngine::requests`]
/// and of the client; an answer without `choices[0].message` is a failed instance.
pub fn infer(engine: &dyn InferenceEngine, client: &dyn ModelClient, instances: &[Instance]) -> Result<Inferred> {
    infer_with(engine, client, instances, InferOptions::default())
}

/// [`infer`] with Unitxt's flags: `log_probs` (Unitxt's `infer_log_probs`, read from
/// `choices[0].logprobs.content` as Unitxt's OpenAI engine reads it) and `meta_data`
/// (`return_meta_data`). Errors: those of [`infer`]; an engine without log probabilities
/// when they are asked for ([`InferenceEngine::log_prob_requests`]).
pub fn infer_with(engine: &dyn InferenceEngine, client: &dyn ModelClient, instances: &[Instance], opts: InferOptions) -> Result<Inferred> {
    verify_data_classification(engine, instances)?;
    let local = if opts.log_probs { engine.local_log_probs(instances) } else { engine.local_predictions(instances) };
    if let Some(p) = local {
        let meta_data = if opts.meta_data {
            let (model, label) = engine.output_model_and_label(&Value::Null);
            p.iter()
                .zip(instances)
                .map(|(p, inst)| {
                    let source_len = match inst.get("source") {
                        Some(Value::String(s)) => s.chars().count(),
                        Some(Value::Array(l)) => l.len(),
                        _ => 0,
                    };
                    let generated = if p.is_string() { p.clone() } else { Value::Null };
                    let len = match p {
                        Value::String(s) => s.chars().count(),
                        Value::Array(l) => l.len(),
                        _ => 0,
                    };
                    Some(crate::json!({
                        "prediction": p.clone(), "generated_text": generated, "input_tokens": source_len, "output_tokens": len,
                        "stop_reason": "", "seed": 111, "input_text": inst.get("source").cloned().unwrap_or(Value::Null),
                        "model_name": model.clone(), "inference_type": label.clone(),
                    }))
                })
                .collect()
        } else {
            Vec::new()
        };
        return Ok(Inferred { predictions: p.into_iter().map(Some).collect(), meta_data, failed: Vec::new(), counts: RequestCounts::default() });
    }
    let (endpoint, bodies) = if opts.log_probs { engine.log_prob_requests(instances)? } else { engine.requests(instances)? };
    let got = client.complete(&endpoint, &bodies)?;
    if got.answers.len() != bodies.len() {
        return Err(Error::invalid(format!("the model client returned {} answers for {} requests", got.answers.len(), bodies.len())));
    }
    let mut failed = got.failed;
    let mut predictions = Vec::with_capacity(bodies.len());
    let mut meta_data = Vec::new();
    for (i, (answer, body)) in got.answers.iter().zip(&bodies).enumerate() {
        let with_tools = body.get("tools").is_some_and(|t| !t.is_null());
        let read = if opts.log_probs { log_probs_of } else if with_tools { tool_prediction_of } else { text_prediction_of };
        match answer.as_ref().map(|a| (a, read(a))) {
            Some((a, Ok(p))) => {
                if opts.meta_data {
                    let (model, label) = engine.output_model_and_label(a);
                    meta_data.push(Some(text_generation_output(p.clone(), a, model.as_deref(), label.as_deref())));
                }
                predictions.push(Some(p));
            }
            Some((_, Err(detail))) => {
                failed.push(FailedRequest { index: i, detail });
                predictions.push(None);
                if opts.meta_data {
                    meta_data.push(None);
                }
            }
            None => {
                predictions.push(None);
                if opts.meta_data {
                    meta_data.push(None);
                }
            }
        }
    }
    failed.sort_by_key(|f| f.index);
    failed.dedup_by_key(|f| f.index);
    Ok(Inferred { predictions, meta_data, failed, counts: got.counts })
}

/// Unitxt's `TextGenerationInferenceOutput` of one answer, as an object with its nine fields
/// in Unitxt's order: `prediction`, `generated_text` (`choices[0].message.content`),
/// `input_tokens` / `output_tokens` (`usage.prompt_tokens` / `usage.completion_tokens`, `null`
/// when the answer has no `usage`), `stop_reason`, `seed`, `input_text` (`null`, as Unitxt's
/// API engines leave them), `model_name` and `inference_type` (the engine's label).
pub fn text_generation_output(prediction: Value, answer: &Value, model_name: Option<&str>, inference_type: Option<&str>) -> Value {
    let usage = |k: &str| answer.get("usage").and_then(|u| u.get(k)).cloned().unwrap_or(Value::Null);
    let content = answer.get("choices").and_then(|c| c.get(0)).and_then(|c| c.get("message")).and_then(|m| m.get("content")).cloned().unwrap_or(Value::Null);
    crate::json!({
        "prediction": prediction,
        "generated_text": content,
        "input_tokens": usage("prompt_tokens"),
        "output_tokens": usage("completion_tokens"),
        "stop_reason": Value::Null,
        "seed": Value::Null,
        "input_text": Value::Null,
        "model_name": model_name.map(Value::from).unwrap_or(Value::Null),
        "inference_type": inference_type.map(Value::from).unwrap_or(Value::Null),
    })
}

fn text_prediction_of(answer: &Value) -> std::result::Result<Value, String> {
    prediction_of(answer, false)
}

fn tool_prediction_of(answer: &Value) -> std::result::Result<Value, String> {
    prediction_of(answer, true)
}

/// The log probabilities in a chat-completion answer, as Unitxt's OpenAI engine reads them
/// (`_get_logprobs`): for each entry of `choices[0].logprobs.content`, `{"text": token,
/// "logprob": logprob, "top_tokens": [{"text", "logprob"} of its top_logprobs]}`. Errors: the
/// answer has no such list (the server ignored `logprobs`).
pub fn log_probs_of(answer: &Value) -> std::result::Result<Value, String> {
    let content = answer
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("logprobs"))
        .and_then(|l| l.get("content"))
        .and_then(Value::as_array)
        .ok_or_else(|| "the answer has no choices[0].logprobs.content (did the server ignore `logprobs`?)".to_string())?;
    let entry = |t: &Value| -> std::result::Result<(Value, Value), String> {
        let text = t.get("token").cloned().ok_or("a log-probability entry has no `token`")?;
        let logprob = t.get("logprob").cloned().ok_or("a log-probability entry has no `logprob`")?;
        Ok((text, logprob))
    };
    let mut out = Vec::with_capacity(content.len());
    for token in content {
        let (text, logprob) = entry(token)?;
        let mut top = Vec::new();
        for t in token.get("top_logprobs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            let (text, logprob) = entry(t)?;
            top.push(crate::json!({"text": text, "logprob": logprob}));
        }
        out.push(crate::json!({"text": text, "logprob": logprob, "top_tokens": top}));
    }
    Ok(Value::Array(out))
}

/// Refuses instances the engine may not be sent (Unitxt's `Artifact.verify_instance`): the
/// engine's policy is `UNITXT_DATA_CLASSIFICATION_POLICY[class name]` when that variable (a
/// JSON object of lists) names it, else [`InferenceEngine::data_classification_policy`]; an
/// instance whose `data_classification_policy` shares no entry with it is an error naming the
/// instance. An instance without a policy passes (Unitxt warns). Errors: the variable is not a
/// JSON object of lists of strings.
pub fn verify_data_classification(engine: &dyn InferenceEngine, instances: &[Instance]) -> Result<()> {
    let name = engine.class_name();
    let from_env = match env("UNITXT_DATA_CLASSIFICATION_POLICY") {
        None => None,
        Some(text) => {
            let bad = || Error::invalid("UNITXT_DATA_CLASSIFICATION_POLICY must be a JSON object of lists of strings (artifact name -> classifications)");
            let v: Value = crate::py::json::loads(&text, false).map_err(|_| bad())?;
            let map = v.as_object().ok_or_else(bad)?;
            match map.get(name) {
                None => None,
                Some(Value::Array(l)) => Some(l.iter().map(|x| x.as_str().map(str::to_string).ok_or_else(bad)).collect::<Result<Vec<_>>>()?),
                Some(_) => return Err(bad()),
            }
        }
    };
    let Some(policy) = from_env.filter(|p| !p.is_empty()).or_else(|| engine.data_classification_policy()).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    for (i, instance) in instances.iter().enumerate() {
        let Some(Value::Array(classes)) = instance.get("data_classification_policy") else { continue };
        if classes.is_empty() {
            continue;
        }
        if !classes.iter().any(|c| c.as_str().is_some_and(|c| policy.iter().any(|p| p == c))) {
            let have: Vec<&str> = classes.iter().filter_map(Value::as_str).collect();
            return Err(Error::invalid(format!(
                "instance {i} has data classification policy {have:?}, but `{name}` may only be sent data classified {policy:?}; change the engine's `data_classification_policy` or set UNITXT_DATA_CLASSIFICATION_POLICY"
            )));
        }
    }
    Ok(())
}

/// An engine's policy: its `data_classification_policy` field when set, else `default`
/// (`None`: the class has none).
pub(crate) fn policy(field: &Option<Value>, default: Option<&[&str]>) -> Option<Vec<String>> {
    match field {
        Some(Value::Array(l)) => Some(l.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        _ => default.map(|d| d.iter().map(|s| s.to_string()).collect()),
    }
}

/// The prediction in a chat-completion answer, as Unitxt's OpenAI engine reads it.
pub fn prediction_of(answer: &Value, with_tools: bool) -> std::result::Result<Value, String> {
    let message = answer
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .ok_or_else(|| "the answer has no choices[0].message".to_string())?;
    let content = message.get("content").cloned().unwrap_or(Value::Null);
    if !with_tools {
        return Ok(content);
    }
    let call = message.get("tool_calls").and_then(|t| t.get(0)).and_then(|t| t.get("function"));
    match call.and_then(|f| Some((f.get("name")?.as_str()?, f.get("arguments")?.as_str()?))) {
        Some((name, arguments)) => Ok(Value::from(format!("{{\"name\": \"{name}\", \"arguments\": {arguments}}}"))),
        None => Ok(if content.is_null() { Value::from("") } else { content }),
    }
}

/// The chat messages of an instance (Unitxt's `InferenceEngine.to_messages`): a `source`
/// string becomes one user message; a list of messages is sent as is, except that tool-call
/// arguments that are not strings are written as JSON text.
pub fn to_messages(instance: &Instance) -> Result<Value> {
    match instance.get("source") {
        Some(Value::Array(list)) => {
            let mut out = list.clone();
            for m in out.iter_mut() {
                let Some(calls) = m.as_object_mut().and_then(|o| o.get_mut("tool_calls")) else { continue };
                if let Value::Array(calls) = calls {
                    for c in calls.iter_mut() {
                        if let Some(args) = c.as_object_mut().and_then(|c| c.get_mut("function")).and_then(|f| f.as_object_mut()).and_then(|f| f.get_mut("arguments")) {
                            if !matches!(args, Value::String(_)) {
                                *args = Value::from(crate::py::json::dumps(args, Default::default()));
                            }
                        }
                    }
                }
            }
            Ok(Value::Array(out))
        }
        Some(s @ Value::String(_)) => Ok(crate::json!([{"role": "user", "content": s}])),
        Some(other) => Err(Error::invalid(format!("an instance's `source` must be a string or a list of messages, got {}", crate::artifact::short(other)))),
        None => Err(Error::invalid("an instance has no `source`")),
    }
}

/// The tools of an instance (Unitxt's `InferenceEngine.to_tools`): `__tools__` of its
/// `task_data` (a JSON string or an object), or `None`.
pub fn to_tools(instance: &Instance) -> Result<Option<Value>> {
    let parsed;
    let task_data = match instance.get("task_data") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => {
            parsed = crate::py::json::loads(s, false).map_err(|e| Error::invalid(format!("an instance's `task_data` is not JSON: {e}")))?;
            &parsed
        }
        Some(v) => v,
    };
    Ok(task_data.get("__tools__").cloned())
}

/// The value of environment variable `name`, when set and not empty.
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The error of an engine that cannot be called from here: [`Need::Model`], saying `what`.
pub(crate) fn cannot_call(type_name: &str, what: impl fmt::Display) -> Error {
    Error::needs(Need::Model, format!("`{type_name}` cannot be called from unitxt-rs: {what}"))
}

#[cfg(test)]
mod tests;
