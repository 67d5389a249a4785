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
    /// Whether the engine lets its answers be cached (Unitxt's `use_cache`, default true): a
    /// client with an answer cache keeps this endpoint's answers there only when it is set,
    /// unless told to cache every answer (the CLI's `--cache`).
    pub use_cache: bool,
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
            .field("use_cache", &self.use_cache)
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

    /// Sends each body `bodies` yields, as it yields them (it is pulled from the client's
    /// worker threads), and hands each outcome to `on_answer(index, answer or failure)` as it
    /// arrives, in any order, keeping nothing. Returns the run's counts. Errors: as
    /// [`complete`](Self::complete). The default collects the bodies and calls `complete`.
    fn complete_each(
        &self,
        endpoint: &Endpoint,
        bodies: &mut (dyn Iterator<Item = Value> + Send),
        on_answer: &mut dyn FnMut(usize, std::result::Result<&Value, &FailedRequest>),
    ) -> Result<RequestCounts> {
        let bodies: Vec<Value> = bodies.collect();
        let got = self.complete(endpoint, &bodies)?;
        if got.answers.len() != bodies.len() {
            return Err(Error::invalid(format!("the model client returned {} answers for {} requests", got.answers.len(), bodies.len())));
        }
        for (i, answer) in got.answers.iter().enumerate() {
            if let Some(a) = answer {
                on_answer(i, Ok(a));
            }
        }
        for f in &got.failed {
            on_answer(f.index, Err(f));
        }
        Ok(got.counts)
    }
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
/// (`return_meta_data`). Every instance is checked against the engine's data classification
/// policy before anything is sent. Errors: those of [`infer_each`].
pub fn infer_with(engine: &dyn InferenceEngine, client: &dyn ModelClient, instances: &[Instance], opts: InferOptions) -> Result<Inferred> {
    verify_data_classification(engine, instances)?;
    let n = instances.len();
    let mut out = Inferred { predictions: vec![None; n], meta_data: if opts.meta_data { vec![None; n] } else { Vec::new() }, ..Inferred::default() };
    out.counts = infer_each(engine, client, instances.iter().cloned().map(Ok), opts, &mut |i, result| match result {
        Ok(p) => {
            out.predictions[i] = Some(p.prediction);
            if let Some(m) = p.meta_data {
                out.meta_data[i] = Some(m);
            }
        }
        Err(f) => out.failed.push(f),
    })?;
    out.failed.sort_by_key(|f| f.index);
    out.failed.dedup_by_key(|f| f.index);
    Ok(out)
}

/// One instance's result of [`infer_each`].
#[derive(Debug, Clone)]
pub struct Predicted {
    /// The prediction (see [`Inferred::predictions`]).
    pub prediction: Value,
    /// With [`InferOptions::meta_data`], its `TextGenerationInferenceOutput` object.
    pub meta_data: Option<Value>,
}

/// Runs `engine` on the instances `instances` yields, as it yields them, and hands each
/// instance's result to `on_result(index, result)` as its answer arrives (in any order), keeping
/// nothing: memory does not grow with the number of instances (Unitxt's `infer` /
/// `infer_log_probs`, streamed). Each instance is checked against the engine's data
/// classification policy when it is taken, and its body built as
/// [`InferenceEngine::requests`] builds it.
///
/// Errors: the first instance that cannot be read, is refused by the policy or has no request
/// (the run stops taking instances; results so far were handed on); the engine cannot be
/// called; the client's errors. A request that failed, or an answer without a prediction, is
/// not an error: it is handed on as a [`FailedRequest`].
pub fn infer_each<I>(
    engine: &dyn InferenceEngine,
    client: &dyn ModelClient,
    instances: I,
    opts: InferOptions,
    on_result: &mut dyn FnMut(usize, std::result::Result<Predicted, FailedRequest>),
) -> Result<RequestCounts>
where
    I: Iterator<Item = Result<Instance>> + Send,
{
    let policy = classification_policy(engine)?;
    let body_of = |i: usize, instance: &Instance| -> Result<(Endpoint, Value, bool)> {
        check_classification(engine, policy.as_deref(), i, instance)?;
        let one = std::slice::from_ref(instance);
        let (endpoint, mut bodies) = if opts.log_probs { engine.log_prob_requests(one)? } else { engine.requests(one)? };
        let body = bodies.pop().ok_or_else(|| Error::invalid(format!("`{}` made no request for instance {i}", engine.type_name())))?;
        let with_tools = body.get("tools").is_some_and(|t| !t.is_null());
        Ok((endpoint, body, with_tools))
    };
    let mut instances = instances.enumerate();
    let Some((_, first)) = instances.next() else { return Ok(RequestCounts::default()) };
    let first = first?;
    let local = |instance: &Instance| if opts.log_probs { engine.local_log_probs(std::slice::from_ref(instance)) } else { engine.local_predictions(std::slice::from_ref(instance)) };
    if local(&first).is_some() {
        // An engine that answers here (Unitxt's `MockInferenceEngine`).
        for (i, instance) in std::iter::once((0, Ok(first))).chain(instances) {
            let instance = instance?;
            check_classification(engine, policy.as_deref(), i, &instance)?;
            let prediction = local(&instance).and_then(|mut p| p.pop()).unwrap_or(Value::Null);
            let meta_data = opts.meta_data.then(|| local_output(engine, &prediction, &instance));
            on_result(i, Ok(Predicted { prediction, meta_data }));
        }
        return Ok(RequestCounts::default());
    }
    let (endpoint, first_body, first_tools) = body_of(0, &first)?;
    drop(first);
    // Instances whose request carries tools (their prediction is the tool call), while in flight.
    let with_tools = std::sync::Mutex::new(std::collections::HashSet::new());
    if first_tools {
        with_tools.lock().map_err(|_| Error::invalid("poisoned"))?.insert(0);
    }
    let stopped: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
    let rest = instances.map_while(|(i, instance)| {
        let built = instance.and_then(|inst| body_of(i, &inst));
        match built {
            Ok((_, body, tools)) => {
                if tools {
                    if let Ok(mut w) = with_tools.lock() {
                        w.insert(i);
                    }
                }
                Some(body)
            }
            Err(e) => {
                if let Ok(mut s) = stopped.lock() {
                    s.get_or_insert(e);
                }
                None
            }
        }
    });
    let mut bodies = std::iter::once(first_body).chain(rest);
    let counts = client.complete_each(&endpoint, &mut bodies, &mut |i, answer| {
        let tools = with_tools.lock().map(|mut w| w.remove(&i)).unwrap_or(false);
        let answer = match answer {
            Ok(a) => a,
            Err(f) => return on_result(i, Err(f.clone())),
        };
        let read = if opts.log_probs { log_probs_of } else if tools { tool_prediction_of } else { text_prediction_of };
        match read(answer) {
            Ok(prediction) => {
                let meta_data = opts.meta_data.then(|| {
                    let (model, label) = engine.output_model_and_label(answer);
                    text_generation_output(prediction.clone(), answer, model.as_deref(), label.as_deref())
                });
                on_result(i, Ok(Predicted { prediction, meta_data }))
            }
            Err(detail) => on_result(i, Err(FailedRequest { index: i, detail })),
        }
    })?;
    drop(bodies);
    match stopped.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(counts),
    }
}

/// The `TextGenerationInferenceOutput` of an engine that answers here (what Unitxt's
/// `MockInferenceEngine.get_return_object` would make: the source's length as input tokens).
fn local_output(engine: &dyn InferenceEngine, prediction: &Value, instance: &Instance) -> Value {
    let (model, label) = engine.output_model_and_label(&Value::Null);
    let len = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.chars().count(),
        Some(Value::Array(l)) => l.len(),
        _ => 0,
    };
    crate::json!({
        "prediction": prediction.clone(),
        "generated_text": if prediction.is_string() { prediction.clone() } else { Value::Null },
        "input_tokens": len(instance.get("source")),
        "output_tokens": len(Some(prediction)),
        "stop_reason": "",
        "seed": 111,
        "input_text": instance.get("source").cloned().unwrap_or(Value::Null),
        "model_name": model,
        "inference_type": label,
    })
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
    let policy = classification_policy(engine)?;
    instances.iter().enumerate().try_for_each(|(i, instance)| check_classification(engine, policy.as_deref(), i, instance))
}

/// The data classifications `engine` may be sent (see [`verify_data_classification`]);
/// `None`: any.
fn classification_policy(engine: &dyn InferenceEngine) -> Result<Option<Vec<String>>> {
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
    Ok(from_env.filter(|p| !p.is_empty()).or_else(|| engine.data_classification_policy()).filter(|p| !p.is_empty()))
}

/// Refuses instance `i` when `policy` shares no entry with its `data_classification_policy`.
fn check_classification(engine: &dyn InferenceEngine, policy: Option<&[String]>, i: usize, instance: &Instance) -> Result<()> {
    let Some(policy) = policy else { return Ok(()) };
    let Some(Value::Array(classes)) = instance.get("data_classification_policy") else { return Ok(()) };
    if classes.is_empty() || classes.iter().any(|c| c.as_str().is_some_and(|c| policy.iter().any(|p| p == c))) {
        return Ok(());
    }
    let have: Vec<&str> = classes.iter().filter_map(Value::as_str).collect();
    Err(Error::invalid(format!(
        "instance {i} has data classification policy {have:?}, but `{}` may only be sent data classified {policy:?}; change the engine's `data_classification_policy` or set UNITXT_DATA_CLASSIFICATION_POLICY",
        engine.class_name()
    )))
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
