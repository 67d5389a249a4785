//! Unitxt's `CrossProviderInferenceEngine`, `LiteLLMInferenceEngine` and
//! `OllamaInferenceEngine`: the engines configured by Unitxt's `StandardAPIParamsMixin`.

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Deserialize;

use super::openai::{OpenAiConfig, OpenAiInferenceEngine, OpenAiParams, RitsInferenceEngine};
use super::{cannot_call, env, to_messages, to_tools, Endpoint, InferenceEngine};
use crate::error::{Error, Result};
use crate::value::{Instance, Map, Value};

/// Unitxt's `StandardAPIParamsMixin`: the model and the completion parameters of the
/// LiteLLM-style engines. Values are kept as written; `null` ones are not sent.
#[derive(Debug, Clone, Deserialize)]
pub struct StandardApiParams {
    /// The model (for cross-provider: a portable name, mapped per provider).
    pub model: String,
    /// `frequency_penalty`.
    #[serde(default)]
    pub frequency_penalty: Option<Value>,
    /// `presence_penalty`.
    #[serde(default)]
    pub presence_penalty: Option<Value>,
    /// `max_tokens`.
    #[serde(default)]
    pub max_tokens: Option<Value>,
    /// `seed`.
    #[serde(default)]
    pub seed: Option<Value>,
    /// `stop`.
    #[serde(default)]
    pub stop: Option<Value>,
    /// `temperature`.
    #[serde(default)]
    pub temperature: Option<Value>,
    /// `top_p`.
    #[serde(default)]
    pub top_p: Option<Value>,
    /// `top_logprobs`.
    #[serde(default)]
    pub top_logprobs: Option<Value>,
    /// `logit_bias`.
    #[serde(default)]
    pub logit_bias: Option<Value>,
    /// `logprobs`.
    #[serde(default)]
    pub logprobs: Option<Value>,
    /// `n`.
    #[serde(default)]
    pub n: Option<Value>,
    /// `parallel_tool_calls`.
    #[serde(default)]
    pub parallel_tool_calls: Option<Value>,
    /// `service_tier`.
    #[serde(default)]
    pub service_tier: Option<Value>,
    /// Provider credentials (`api_key`, `api_base`, ...). Never printed.
    #[serde(default)]
    pub credentials: Option<IndexMap<String, String>>,
    /// Extra HTTP headers.
    #[serde(default)]
    pub extra_headers: Option<IndexMap<String, String>>,
    /// Unitxt's cache batch size (unused).
    #[serde(default)]
    pub cache_batch_size: Option<usize>,
    /// Whether Unitxt caches answers (the CLI's `--cache` decides here).
    #[serde(default)]
    pub use_cache: Option<bool>,
    /// Unitxt's data classification policy (not enforced).
    #[serde(default)]
    pub data_classification_policy: Option<Value>,
    /// `label`.
    #[serde(default)]
    pub label: Option<String>,
}

impl StandardApiParams {
    /// The completion parameters (no model, credentials or headers), in Unitxt's order, with
    /// their values (`null` ones included).
    pub fn completion_params(&self) -> Vec<(&'static str, Option<Value>)> {
        vec![
            ("frequency_penalty", self.frequency_penalty.clone()),
            ("presence_penalty", self.presence_penalty.clone()),
            ("max_tokens", self.max_tokens.clone()),
            ("seed", self.seed.clone()),
            ("stop", self.stop.clone()),
            ("temperature", self.temperature.clone()),
            ("top_p", self.top_p.clone()),
            ("top_logprobs", self.top_logprobs.clone()),
            ("logit_bias", self.logit_bias.clone()),
            ("logprobs", self.logprobs.clone()),
            ("n", self.n.clone()),
            ("parallel_tool_calls", self.parallel_tool_calls.clone()),
            ("service_tier", self.service_tier.clone()),
        ]
    }
    /// The headers of `extra_headers`.
    fn headers(&self) -> Vec<(String, String)> {
        self.extra_headers.iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
    /// A credential, else the first of the environment variables `vars` that is set.
    fn credential(&self, key: &str, vars: &[&str]) -> Option<String> {
        self.credentials.as_ref().and_then(|c| c.get(key).cloned()).or_else(|| vars.iter().find_map(|v| env(v)))
    }
}

/// The LiteLLM-style body: `model`, `messages`, `tools` only when the instance has some,
/// and the parameters that are not `null`.
fn litellm_body(model: &str, params: &[(&'static str, Option<Value>)], instance: &Instance) -> Result<Value> {
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    body.insert("messages".into(), to_messages(instance)?);
    if let Some(tools) = to_tools(instance)? {
        body.insert("tools".into(), tools);
    }
    for (k, v) in params {
        if let Some(v) = v.as_ref().filter(|v| !v.is_null()) {
            body.insert((*k).into(), v.clone());
        }
    }
    Ok(Value::Object(body))
}

/// Unitxt's `CrossProviderInferenceEngine.provider_model_map` (provider → portable model name
/// → the provider's name), written by `provider_models_gen.py` from Unitxt 1.26.10.
pub fn provider_model_map() -> &'static IndexMap<String, IndexMap<String, String>> {
    static MAP: OnceLock<IndexMap<String, IndexMap<String, String>>> = OnceLock::new();
    MAP.get_or_init(|| serde_json::from_str(include_str!("provider_models.json")).expect("provider_models.json is valid"))
}

/// The providers of Unitxt 1.26.10's `CrossProviderInferenceEngine`.
pub const PROVIDERS: &[&str] = &["watsonx", "together-ai", "open-ai", "aws", "ollama", "watsonx-sdk", "rits", "azure", "vertex-ai", "replicate", "hf-local"];

/// Unitxt's `CrossProviderInferenceEngine` (`cross_provider_inference_engine`): one model
/// name for many providers. Callable here: `open-ai`, `together-ai` and `ollama` (through
/// their OpenAI-compatible endpoints, as LiteLLM calls them) and `rits`; the others build, and
/// calling them is an error.
#[derive(Debug, Clone, Deserialize)]
pub struct CrossProviderInferenceEngine {
    /// The standard parameters (`model` is the portable name).
    #[serde(flatten)]
    pub params: StandardApiParams,
    /// The provider; `null`: `UNITXT_DEFAULT_PROVIDER`, else `watsonx` (Unitxt's default).
    #[serde(default)]
    pub provider: Option<String>,
    /// Per provider, arguments that replace the engine's (`{"watsonx": {"max_requests_per_second": 4}}`).
    #[serde(default)]
    pub provider_specific_args: Option<IndexMap<String, IndexMap<String, Value>>>,
    /// Replaces Unitxt's map of model names, when given.
    #[serde(default)]
    pub provider_model_map: Option<IndexMap<String, IndexMap<String, String>>>,
}

/// The fields of [`CrossProviderInferenceEngine`] besides the standard parameters (for the
/// registry's field check).
#[derive(Deserialize)]
pub struct CrossProviderFields {
    /// See [`CrossProviderInferenceEngine::provider`].
    pub provider: Option<String>,
    /// See [`CrossProviderInferenceEngine::provider_specific_args`].
    pub provider_specific_args: Option<Value>,
    /// See [`CrossProviderInferenceEngine::provider_model_map`].
    pub provider_model_map: Option<Value>,
}

impl CrossProviderInferenceEngine {
    /// The provider in use.
    pub fn provider(&self) -> String {
        self.provider.clone().or_else(|| env("UNITXT_DEFAULT_PROVIDER")).unwrap_or_else(|| "watsonx".to_string())
    }
    /// The provider's name of the model (unchanged when the map does not list it).
    pub fn provider_model(&self, provider: &str) -> String {
        let map = self.provider_model_map.as_ref().unwrap_or_else(|| provider_model_map());
        map.get(provider).and_then(|m| m.get(&self.params.model)).cloned().unwrap_or_else(|| self.params.model.clone())
    }
}

impl InferenceEngine for CrossProviderInferenceEngine {
    fn type_name(&self) -> &'static str {
        "cross_provider_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "CrossProviderInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        // Unitxt replaces it with the class policy of the provider's engine once that is made
        // (its own field is not used).
        match self.provider().as_str() {
            "ollama" | "rits" | "watsonx-sdk" => Some(vec!["public".into(), "proprietary".into()]),
            _ => None,
        }
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        self.provider_requests(instances, false)
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        self.provider_requests(instances, true)
    }
    fn output_model_and_label(&self, answer: &Value) -> (Option<String>, Option<String>) {
        // Unitxt's CrossProvider engine returns what its provider's engine returns.
        let provider = self.provider();
        let model = self.provider_model(&provider);
        match provider.as_str() {
            "rits" => (Some(model), Some("rits".into())),
            _ => (Some(answer.get("model").and_then(Value::as_str).map(str::to_string).unwrap_or(model)), Some("litellm".into())),
        }
    }
}

impl CrossProviderInferenceEngine {
    /// The endpoint and bodies of the provider's engine, as Unitxt's `prepare_engine` makes
    /// it; `log_probs`: those of its `_infer_log_probs` (only RITS has them here; LiteLLM is not
    /// a log-probability engine in Unitxt).
    fn provider_requests(&self, instances: &[Instance], log_probs: bool) -> Result<(Endpoint, Vec<Value>)> {
        let provider = self.provider();
        if !PROVIDERS.contains(&provider.as_str()) {
            return Err(Error::invalid(format!("{provider} is not a provider of cross_provider_inference_engine; providers: {}", PROVIDERS.join(", "))));
        }
        let model = self.provider_model(&provider);
        // The arguments the provider's engine is made with, as Unitxt's `prepare_engine`.
        let mut args: IndexMap<String, Value> = self.params.completion_params().into_iter().map(|(k, v)| (k.to_string(), v.unwrap_or(Value::Null))).collect();
        if let Some(extra) = self.provider_specific_args.as_ref().and_then(|a| a.get(&provider)) {
            for (k, v) in extra {
                args.insert(k.clone(), v.clone());
            }
        }
        let get = |k: &str| args.get(k).cloned().filter(|v| !v.is_null());
        let params: Vec<(&'static str, Option<Value>)> = self.params.completion_params().into_iter().map(|(k, _)| (k, get(k))).collect();
        match provider.as_str() {
            "open-ai" | "together-ai" | "ollama" if log_probs => Err(Error::new(
                crate::error::ErrorKind::Unsupported,
                format!("`{}` with provider `{provider}` does not support log probabilities: its engine (Unitxt's LiteLLMInferenceEngine) is not a LogProbInferenceEngine", self.type_name()),
            )),
            "open-ai" | "together-ai" | "ollama" => {
                let lite = LiteLlmInferenceEngine {
                    params: StandardApiParams { model: model.clone(), ..self.params.clone() },
                    max_requests_per_second: get("max_requests_per_second").and_then(|v| v.as_f64()).unwrap_or(6.0),
                    max_retries: get("max_retries").and_then(|v| v.as_i64()).unwrap_or(5).max(0) as u32,
                };
                let model = match provider.as_str() {
                    "together-ai" if !model.starts_with("together_ai/") => format!("together_ai/{model}"),
                    "ollama" if !model.starts_with("ollama") => format!("ollama_chat/{model}"),
                    "open-ai" if !model.contains('/') => format!("openai/{model}"),
                    _ => model,
                };
                lite.requests_for(self.type_name(), &model, &params, instances)
            }
            "rits" => {
                let mut credentials = IndexMap::new();
                if let Some(c) = &self.params.credentials {
                    credentials = c.clone();
                }
                let config = OpenAiConfig {
                    model_name: model,
                    label: "rits".into(),
                    base_url: None,
                    credentials,
                    default_headers: IndexMap::new(),
                    num_parallel_requests: get("num_parallel_requests").and_then(|v| v.as_i64()).unwrap_or(20).max(1) as usize,
                    parameters: None,
                    cache_batch_size: 100,
                    use_cache: self.params.use_cache.unwrap_or(true),
                    data_classification_policy: None,
                };
                // RITS's engine has OpenAI's defaults (logprobs, top_logprobs 20) for what is unset.
                let mut p: OpenAiParams = crate::artifact::from_value("rits_inference_engine", &crate::json!({}))?;
                for (k, v) in &params {
                    if let Some(v) = v {
                        set_openai_param(&mut p, k, v.clone());
                    }
                }
                let rits = RitsInferenceEngine { inner: OpenAiInferenceEngine { config, params: p } };
                if log_probs {
                    rits.log_prob_requests(instances)
                } else {
                    rits.requests(instances)
                }
            }
            other => Err(cannot_call(
                self.type_name(),
                format!(
                    "provider `{other}` (model `{model}`) is not callable here; serve the model behind an OpenAI-compatible endpoint and use provider `open-ai` with `credentials.api_base`, or `open_ai_inference_engine` with `base_url`"
                ),
            )),
        }
    }
}

/// Sets OpenAI parameter `k` of `p` to `v`.
fn set_openai_param(p: &mut OpenAiParams, k: &str, v: Value) {
    let slot = match k {
        "frequency_penalty" => &mut p.frequency_penalty,
        "presence_penalty" => &mut p.presence_penalty,
        "max_tokens" => &mut p.max_tokens,
        "seed" => &mut p.seed,
        "stop" => &mut p.stop,
        "temperature" => &mut p.temperature,
        "top_p" => &mut p.top_p,
        "top_logprobs" => &mut p.top_logprobs,
        "logit_bias" => &mut p.logit_bias,
        "logprobs" => &mut p.logprobs,
        "n" => &mut p.n,
        "parallel_tool_calls" => &mut p.parallel_tool_calls,
        "service_tier" => &mut p.service_tier,
        _ => return,
    };
    *slot = Some(v);
}

fn six() -> f64 {
    6.0
}
fn five() -> u32 {
    5
}

/// Unitxt's `LiteLLMInferenceEngine` (`lite_llm_inference_engine`): a LiteLLM model name
/// (`provider/model`). Callable here: `openai/...` (and names without a provider),
/// `hosted_vllm/...` and `together_ai/...`, `ollama/...` / `ollama_chat/...`, through their
/// OpenAI-compatible endpoints; other providers are an error.
#[derive(Debug, Clone, Deserialize)]
pub struct LiteLlmInferenceEngine {
    /// The standard parameters.
    #[serde(flatten)]
    pub params: StandardApiParams,
    /// Requests started per second at most (default 6; also the requests in flight).
    #[serde(default = "six")]
    pub max_requests_per_second: f64,
    /// Retries of a failed request (default 5).
    #[serde(default = "five")]
    pub max_retries: u32,
}

/// The fields of [`LiteLlmInferenceEngine`] besides the standard parameters.
#[derive(Deserialize)]
pub struct LiteLlmFields {
    /// See [`LiteLlmInferenceEngine::max_requests_per_second`].
    pub max_requests_per_second: Option<f64>,
    /// See [`LiteLlmInferenceEngine::max_retries`].
    pub max_retries: Option<u32>,
}

impl LiteLlmInferenceEngine {
    /// The endpoint and bodies for LiteLLM model `model` with `params`.
    fn requests_for(&self, type_name: &str, model: &str, params: &[(&'static str, Option<Value>)], instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let (provider, name) = match model.split_once('/') {
            Some((p, rest)) if ["openai", "hosted_vllm", "together_ai", "ollama", "ollama_chat"].contains(&p) => (p, rest),
            Some((p, _)) if !p.is_empty() && PROVIDER_PREFIXES.contains(&p) => {
                return Err(cannot_call(
                    type_name,
                    format!("LiteLLM provider `{p}` (model `{model}`) is not callable here; serve the model behind an OpenAI-compatible endpoint and use `openai/<model>` with `credentials.api_base`"),
                ))
            }
            _ => ("openai", model),
        };
        let p = &self.params;
        let (base_url, api_key) = match provider {
            "openai" => (
                p.credential("api_base", &["OPENAI_BASE_URL", "OPENAI_API_BASE"]).unwrap_or_else(|| super::openai::OPENAI_DEFAULT_BASE_URL.to_string()),
                Some(p.credential("api_key", &["OPENAI_API_KEY"]).ok_or_else(|| Error::invalid(format!("`{type_name}` needs an API key: set OPENAI_API_KEY or `credentials.api_key`")))?),
            ),
            "hosted_vllm" => (
                p.credential("api_base", &["HOSTED_VLLM_API_BASE"]).ok_or_else(|| Error::invalid(format!("`{type_name}` with `hosted_vllm/` needs `credentials.api_base` or HOSTED_VLLM_API_BASE")))?,
                p.credential("api_key", &["HOSTED_VLLM_API_KEY"]),
            ),
            "together_ai" => (
                p.credential("api_base", &["TOGETHER_AI_API_BASE"]).unwrap_or_else(|| "https://api.together.xyz/v1".to_string()),
                Some(p.credential("api_key", &["TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHER_API_KEY"]).ok_or_else(|| Error::invalid(format!("`{type_name}` needs an API key: set TOGETHERAI_API_KEY or `credentials.api_key`")))?),
            ),
            _ => {
                let host = p.credential("api_base", &["OLLAMA_API_BASE"]).unwrap_or_else(|| "http://localhost:11434".to_string());
                (format!("{}/v1", host.trim_end_matches('/')), p.credential("api_key", &["OLLAMA_API_KEY"]))
            }
        };
        let endpoint = Endpoint {
            base_url,
            completions_path: super::CHAT_COMPLETIONS.into(),
            api_key,
            headers: p.headers(),
            num_parallel_requests: (self.max_requests_per_second.round() as usize).max(1),
            max_requests_per_second: Some(self.max_requests_per_second),
            max_retries: Some(self.max_retries),
            use_cache: self.params.use_cache.unwrap_or(true),
        };
        let bodies = instances.iter().map(|i| litellm_body(name, params, i)).collect::<Result<Vec<_>>>()?;
        Ok((endpoint, bodies))
    }
}

/// LiteLLM's provider prefixes that are not callable here.
const PROVIDER_PREFIXES: &[&str] = &["watsonx", "watsonx_text", "azure", "azure_ai", "bedrock", "vertex_ai", "replicate", "anthropic", "huggingface", "gemini", "mistral", "groq", "cohere"];

impl InferenceEngine for LiteLlmInferenceEngine {
    fn type_name(&self) -> &'static str {
        "lite_llm_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "LiteLLMInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.params.data_classification_policy, None)
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        self.requests_for(self.type_name(), &self.params.model, &self.params.completion_params(), instances)
    }
    fn output_model_and_label(&self, answer: &Value) -> (Option<String>, Option<String>) {
        let model = answer.get("model").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| self.params.model.clone());
        (Some(model), Some("litellm".into()))
    }
}

/// Unitxt's `OllamaInferenceEngine` (`ollama_inference_engine`). Unitxt calls Ollama's own
/// chat API; here the same model is called through Ollama's OpenAI-compatible endpoint
/// (`{credentials.api_base or http://localhost:11434}/v1`), with the parameters that are set.
#[derive(Debug, Clone, Deserialize)]
pub struct OllamaInferenceEngine {
    /// The standard parameters.
    #[serde(flatten)]
    pub params: StandardApiParams,
}

impl InferenceEngine for OllamaInferenceEngine {
    fn type_name(&self) -> &'static str {
        "ollama_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "OllamaInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.params.data_classification_policy, Some(&["public", "proprietary"]))
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let lite = LiteLlmInferenceEngine { params: self.params.clone(), max_requests_per_second: 1.0, max_retries: 0 };
        let model = format!("ollama_chat/{}", self.params.model);
        lite.requests_for(self.type_name(), &model, &self.params.completion_params(), instances)
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        (Some(self.params.model.clone()), Some("ollama".into()))
    }
}
