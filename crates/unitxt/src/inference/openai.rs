//! Unitxt's `OpenAiInferenceEngine` and its subclasses (`AzureOpenAIInferenceEngine`,
//! `VLLMRemoteInferenceEngine`, `RITSInferenceEngine`), and `TogetherAiInferenceEngine`.

use indexmap::IndexMap;
use serde::Deserialize;

use super::{cannot_call, env, to_messages, to_tools, Endpoint, InferenceEngine};
use crate::error::{Error, Result};
use crate::value::{Instance, Map, Value};

/// `OpenAiInferenceEngine`'s default base URL when neither `base_url`, `credentials.api_url`,
/// `OPENAI_API_URL` (for label `openai`) nor `OPENAI_BASE_URL` give one (the `openai`
/// client's default).
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Unitxt's `OpenAiInferenceEngineParamsMixin`: the completion parameters sent in each
/// request when not `null`. Values are kept as written (an integer stays an integer).
#[derive(Debug, Clone, Deserialize)]
pub struct OpenAiParams {
    /// `frequency_penalty` (-2..2).
    #[serde(default)]
    pub frequency_penalty: Option<Value>,
    /// `presence_penalty` (-2..2).
    #[serde(default)]
    pub presence_penalty: Option<Value>,
    /// `max_tokens`: most tokens to generate.
    #[serde(default)]
    pub max_tokens: Option<Value>,
    /// `seed` of the sampling.
    #[serde(default)]
    pub seed: Option<Value>,
    /// `stop`: a string or a list of strings that end the generation.
    #[serde(default)]
    pub stop: Option<Value>,
    /// `temperature` of the sampling.
    #[serde(default)]
    pub temperature: Option<Value>,
    /// `top_p` of nucleus sampling.
    #[serde(default)]
    pub top_p: Option<Value>,
    /// `top_logprobs` per token (default 20).
    #[serde(default = "twenty")]
    pub top_logprobs: Option<Value>,
    /// `logit_bias`: token id → bias.
    #[serde(default)]
    pub logit_bias: Option<Value>,
    /// `logprobs` (default true).
    #[serde(default = "yes")]
    pub logprobs: Option<Value>,
    /// `n`: completions per request.
    #[serde(default)]
    pub n: Option<Value>,
    /// `parallel_tool_calls`.
    #[serde(default)]
    pub parallel_tool_calls: Option<Value>,
    /// `service_tier` (`auto` or `default`).
    #[serde(default)]
    pub service_tier: Option<Value>,
}

fn twenty() -> Option<Value> {
    Some(Value::from(20))
}
fn yes() -> Option<Value> {
    Some(Value::from(true))
}
fn default_parallel() -> usize {
    20
}
fn default_cache_batch_size() -> usize {
    100
}
fn default_true() -> bool {
    true
}

impl OpenAiParams {
    /// The parameters that are set, in Unitxt's field order; a `null` one is left out. Fields
    /// still unset take the value of the deprecated `parameters` object, when it has one.
    pub fn set(&self, parameters: Option<&Value>) -> Vec<(&'static str, Value)> {
        let fields: [(&'static str, &Option<Value>); 13] = [
            ("frequency_penalty", &self.frequency_penalty),
            ("presence_penalty", &self.presence_penalty),
            ("max_tokens", &self.max_tokens),
            ("seed", &self.seed),
            ("stop", &self.stop),
            ("temperature", &self.temperature),
            ("top_p", &self.top_p),
            ("top_logprobs", &self.top_logprobs),
            ("logit_bias", &self.logit_bias),
            ("logprobs", &self.logprobs),
            ("n", &self.n),
            ("parallel_tool_calls", &self.parallel_tool_calls),
            ("service_tier", &self.service_tier),
        ];
        fields
            .into_iter()
            .filter_map(|(k, v)| {
                let v = v.clone().filter(|v| !v.is_null()).or_else(|| parameters.and_then(|p| p.get(k)).filter(|v| !v.is_null()).cloned());
                v.map(|v| (k, v))
            })
            .collect()
    }
}

/// Unitxt's `OpenAiInferenceEngine` (`open_ai_inference_engine`); with another `label` and
/// its own rules, also the base of Azure, remote vLLM and RITS.
#[derive(Debug, Clone)]
pub struct OpenAiInferenceEngine {
    /// The engine's own fields.
    pub config: OpenAiConfig,
    /// The completion parameters.
    pub params: OpenAiParams,
}

/// The fields of Unitxt's `OpenAiInferenceEngine` besides its completion parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct OpenAiConfig {
    /// The model, as the endpoint names it.
    pub model_name: String,
    /// Names the environment variables read: `{LABEL}_API_KEY`, `{LABEL}_API_URL`.
    #[serde(default = "label_openai")]
    pub label: String,
    /// The endpoint's base URL (`.../v1`); otherwise `credentials.api_url`,
    /// `{LABEL}_API_URL`, `OPENAI_BASE_URL`, then OpenAI's.
    #[serde(default)]
    pub base_url: Option<String>,
    /// `api_key` (else `{LABEL}_API_KEY`) and `api_url`.
    #[serde(default)]
    pub credentials: IndexMap<String, String>,
    /// Extra HTTP headers of every request.
    #[serde(default)]
    pub default_headers: IndexMap<String, String>,
    /// Requests in flight at once (default 20).
    #[serde(default = "default_parallel")]
    pub num_parallel_requests: usize,
    /// Deprecated `OpenAiInferenceEngineParams`: fills the parameters left unset.
    #[serde(default)]
    pub parameters: Option<Value>,
    /// Unitxt's cache batch size (unused: the client's cache keeps each answer).
    #[serde(default = "default_cache_batch_size")]
    pub cache_batch_size: usize,
    /// Whether Unitxt caches answers (the CLI's `--cache` decides here).
    #[serde(default = "default_true")]
    pub use_cache: bool,
    /// Unitxt's data classification policy (not enforced).
    #[serde(default)]
    pub data_classification_policy: Option<Value>,
}

fn label_openai() -> String {
    "openai".into()
}

/// The body Unitxt's OpenAI engine sends for `instance`: `model`, `messages`, `tools` when
/// `with_tools` (`null` when the instance has none; `_get_logprobs` sends no `tools` key) and
/// the parameters that are set.
fn openai_body(model: &str, params: &[(&'static str, Value)], instance: &Instance, with_tools: bool) -> Result<Value> {
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    body.insert("messages".into(), to_messages(instance)?);
    if with_tools {
        body.insert("tools".into(), to_tools(instance)?.unwrap_or(Value::Null));
    }
    for (k, v) in params {
        body.insert((*k).into(), v.clone());
    }
    Ok(Value::Object(body))
}

impl OpenAiInferenceEngine {
    /// Reads the engine of type `t` from its JSON `v`; `label` is the type's default label.
    pub fn from_json(t: &str, v: &Value, label: &str) -> Result<Self> {
        let v = with_label(v, label);
        Ok(OpenAiInferenceEngine { config: crate::artifact::from_value(t, &v)?, params: crate::artifact::from_value(t, &v)? })
    }

    /// The API key: `credentials.api_key`, else `{LABEL}_API_KEY`. Errors name the variable.
    fn api_key(&self, type_name: &str) -> Result<String> {
        let var = format!("{}_API_KEY", self.config.label.to_uppercase());
        self.config.credentials
            .get("api_key")
            .cloned()
            .or_else(|| env(&var))
            .filter(|k| !k.is_empty())
            .ok_or_else(|| Error::invalid(format!("`{type_name}` needs an API key: set the environment variable {var} or `credentials.api_key`")))
    }

    /// The endpoint as Unitxt's `create_client` resolves it, with `base_url` when given.
    fn endpoint(&self, type_name: &str, base_url: Option<String>, headers: Vec<(String, String)>) -> Result<Endpoint> {
        let api_key = self.api_key(type_name)?;
        let api_url = self.config.credentials.get("api_url").cloned().or_else(|| env(&format!("{}_API_URL", self.config.label.to_uppercase())));
        let base_url = base_url.or(api_url).or_else(|| env("OPENAI_BASE_URL")).unwrap_or_else(|| OPENAI_DEFAULT_BASE_URL.to_string());
        let mut all: Vec<(String, String)> = self.config.default_headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        all.extend(headers);
        Ok(Endpoint {
            base_url,
            completions_path: super::CHAT_COMPLETIONS.into(),
            api_key: Some(api_key),
            headers: all,
            num_parallel_requests: self.config.num_parallel_requests.max(1),
            max_requests_per_second: None,
            max_retries: None,
            use_cache: self.config.use_cache,
        })
    }

    /// The bodies of `instances` for model `model`.
    fn bodies(&self, model: &str, instances: &[Instance]) -> Result<Vec<Value>> {
        let params = self.params.set(self.config.parameters.as_ref());
        instances.iter().map(|i| openai_body(model, &params, i, true)).collect()
    }

    /// The bodies of `infer_log_probs` (Unitxt's `_get_logprobs`): `messages`, `model` (the
    /// engine's `model_name`, also for RITS) and the parameters; never `tools`.
    fn log_prob_bodies(&self, instances: &[Instance]) -> Result<Vec<Value>> {
        let params = self.params.set(self.config.parameters.as_ref());
        instances.iter().map(|i| openai_body(&self.config.model_name, &params, i, false)).collect()
    }

    /// `model_name` and `label`, as Unitxt's `get_return_object` reports them.
    pub(crate) fn model_and_label(&self) -> (Option<String>, Option<String>) {
        (Some(self.config.model_name.clone()), Some(self.config.label.clone()))
    }
}

impl InferenceEngine for OpenAiInferenceEngine {
    fn type_name(&self) -> &'static str {
        "open_ai_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "OpenAiInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.config.data_classification_policy, Some(&["public"]))
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let endpoint = self.endpoint(self.type_name(), self.config.base_url.clone(), Vec::new())?;
        Ok((endpoint, self.bodies(&self.config.model_name, instances)?))
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let endpoint = self.endpoint(self.type_name(), self.config.base_url.clone(), Vec::new())?;
        Ok((endpoint, self.log_prob_bodies(instances)?))
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        self.model_and_label()
    }
}

/// Unitxt's `VLLMRemoteInferenceEngine` (`vllm_remote_inference_engine`): the OpenAI engine
/// with label `vllm-remote`, for a model served by vLLM's OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct VllmRemoteInferenceEngine {
    /// The OpenAI engine (`label` defaults to `vllm-remote`).
    pub inner: OpenAiInferenceEngine,
}

impl InferenceEngine for VllmRemoteInferenceEngine {
    fn type_name(&self) -> &'static str {
        "vllm_remote_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "VLLMRemoteInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.inner.config.data_classification_policy, Some(&["public"]))
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let endpoint = self.inner.endpoint(self.type_name(), self.inner.config.base_url.clone(), Vec::new())?;
        Ok((endpoint, self.inner.bodies(&self.inner.config.model_name, instances)?))
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let endpoint = self.inner.endpoint(self.type_name(), self.inner.config.base_url.clone(), Vec::new())?;
        Ok((endpoint, self.inner.log_prob_bodies(instances)?))
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        self.inner.model_and_label()
    }
}

/// Unitxt's `AzureOpenAIInferenceEngine` (`azure_open_ai_inference_engine`): the OpenAI
/// engine on an Azure OpenAI deployment, called as Unitxt's client calls it: `POST
/// {host}/openai/deployments/{model_name}/chat/completions/?api-version={version}` with the key
/// in an `api-key` header. The key is `credentials.api_key` or `{LABEL}_API_KEY`, the host
/// `credentials.azure_openai_host` or `{LABEL}_HOST`, the version `credentials.api_version` or
/// `OPENAI_API_VERSION`.
#[derive(Debug, Clone)]
pub struct AzureOpenAiInferenceEngine {
    /// The OpenAI engine (`label` defaults to `azure_openai`).
    pub inner: OpenAiInferenceEngine,
}

impl AzureOpenAiInferenceEngine {
    /// The deployment's endpoint. Errors: no key, host or API version (naming the variables).
    fn azure_endpoint(&self) -> Result<Endpoint> {
        let t = self.type_name();
        let label = self.inner.config.label.to_uppercase();
        let creds = &self.inner.config.credentials;
        let key = self.inner.api_key(t)?;
        let host = creds.get("azure_openai_host").cloned().or_else(|| env(&format!("{label}_HOST")));
        let version = creds.get("api_version").cloned().or_else(|| env("OPENAI_API_VERSION"));
        let (Some(host), Some(version)) = (host, version) else {
            return Err(Error::invalid(format!(
                "`{t}` needs the deployment's host and API version: set {label}_HOST and OPENAI_API_VERSION, or `credentials.azure_openai_host` and `credentials.api_version`"
            )));
        };
        let mut headers: Vec<(String, String)> = self.inner.config.default_headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        headers.push(("api-key".into(), key));
        Ok(Endpoint {
            base_url: format!("{}/openai/deployments/{}", host.trim_end_matches('/'), self.inner.config.model_name),
            completions_path: format!("/chat/completions/?api-version={version}"),
            api_key: None,
            headers,
            num_parallel_requests: self.inner.config.num_parallel_requests.max(1),
            max_requests_per_second: None,
            max_retries: None,
            use_cache: self.inner.config.use_cache,
        })
    }
}

impl InferenceEngine for AzureOpenAiInferenceEngine {
    fn type_name(&self) -> &'static str {
        "azure_open_ai_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "AzureOpenAIInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.inner.config.data_classification_policy, Some(&["public"]))
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Ok((self.azure_endpoint()?, self.inner.bodies(&self.inner.config.model_name, instances)?))
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Ok((self.azure_endpoint()?, self.inner.log_prob_bodies(instances)?))
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        self.inner.model_and_label()
    }
}

/// RITS's base URL template (Unitxt's `RITSInferenceEngine.get_base_url_from_model_name`).
const RITS_HOST: &str = "https://inference-3scale-apicast-production.apps.rits.fmaas.res.ibm.com";

/// Unitxt's `RITSInferenceEngine.model_names_dict`: model → endpoint name.
const RITS_ENDPOINTS: &[(&str, &str)] = &[
    ("microsoft/phi-4", "microsoft-phi-4"),
    ("meta-llama/llama-4-maverick-17b-128e-instruct-fp8", "llama-4-mvk-17b-128e-fp8"),
    ("deepseek-ai/DeepSeek-V3", "deepseek-v3-h200"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3-1-8b-instruct"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout-17b-16e-instruct"),
    ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3-1-24b-2503"),
    ("ibm-granite/granite-guardian-3.2-3b-a800m", "granite-guardian-3-2-3b-a800m"),
    ("ibm-granite/granite-guardian-3.2-5b", "granite-guardian-3-2-5b-ris"),
    ("granite-guardian-3-2-5b-ris", "granite-guardian-3-3-8b"),
    ("openai/gpt-oss-20b", "gpt-oss-20b"),
    ("openai/gpt-oss-120b", "gpt-oss-120b"),
];

/// Unitxt's `RITSInferenceEngine` (`rits_inference_engine`): the OpenAI engine with label
/// `rits`, whose base URL is derived from the model name and whose key also goes in a
/// `RITS_API_KEY` header.
#[derive(Debug, Clone)]
pub struct RitsInferenceEngine {
    /// The OpenAI engine (`label` defaults to `rits`; `base_url` is replaced).
    pub inner: OpenAiInferenceEngine,
}

impl RitsInferenceEngine {
    /// The name of the model's RITS endpoint.
    pub fn endpoint_name(model: &str) -> String {
        if let Some((_, e)) = RITS_ENDPOINTS.iter().find(|(m, _)| *m == model) {
            return (*e).to_string();
        }
        if model.starts_with("byom-") {
            return model.split('/').next().unwrap_or(model).to_string();
        }
        model.rsplit('/').next().unwrap_or(model).to_lowercase().replace("v0.1", "v01").replace("vision-", "").replace('.', "-")
    }
    /// The model name sent in requests (a `byom-...` prefix is the endpoint's).
    fn client_model_name(&self) -> String {
        let m = &self.inner.config.model_name;
        if m.starts_with("byom-") {
            m.split('/').skip(1).collect::<Vec<_>>().join("/")
        } else {
            m.clone()
        }
    }
}

impl InferenceEngine for RitsInferenceEngine {
    fn type_name(&self) -> &'static str {
        "rits_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "RITSInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.inner.config.data_classification_policy, Some(&["public", "proprietary"]))
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let base = format!("{RITS_HOST}/{}/v1", Self::endpoint_name(&self.inner.config.model_name));
        let key = self.inner.api_key(self.type_name())?;
        let endpoint = self.inner.endpoint(self.type_name(), Some(base), vec![("RITS_API_KEY".into(), key)])?;
        Ok((endpoint, self.inner.bodies(&self.client_model_name(), instances)?))
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let (endpoint, _) = self.requests(&[])?;
        Ok((endpoint, self.inner.log_prob_bodies(instances)?))
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        self.inner.model_and_label()
    }
}

/// `v` with `label` set to `label` when it has none (each subclass has its own default).
pub(crate) fn with_label(v: &Value, label: &str) -> Value {
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        if !m.contains_key("label") {
            m.insert("label".into(), Value::from(label));
        }
    }
    v
}

/// Unitxt's `TogetherAiInferenceEngine` (`together_ai_inference_engine`). It builds; calling
/// it is an error: it goes through the `together` SDK. Together's API is OpenAI-compatible:
/// use `cross_provider_inference_engine` with provider `together-ai`, or
/// `open_ai_inference_engine` with `base_url: https://api.together.xyz/v1`.
#[derive(Debug, Clone, Deserialize)]
pub struct TogetherAiInferenceEngine {
    /// The model.
    pub model_name: String,
    /// `label` (default `together`).
    #[serde(default)]
    pub label: Option<String>,
    /// Deprecated parameters object.
    #[serde(default)]
    pub parameters: Option<Value>,
    /// `max_tokens`.
    #[serde(default)]
    pub max_tokens: Option<Value>,
    /// `stop`.
    #[serde(default)]
    pub stop: Option<Value>,
    /// `temperature`.
    #[serde(default)]
    pub temperature: Option<Value>,
    /// `top_p`.
    #[serde(default)]
    pub top_p: Option<Value>,
    /// `top_k`.
    #[serde(default)]
    pub top_k: Option<Value>,
    /// `repetition_penalty`.
    #[serde(default)]
    pub repetition_penalty: Option<Value>,
    /// `logprobs`.
    #[serde(default)]
    pub logprobs: Option<Value>,
    /// `echo`.
    #[serde(default)]
    pub echo: Option<Value>,
    /// `n`.
    #[serde(default)]
    pub n: Option<Value>,
    /// `min_p`.
    #[serde(default)]
    pub min_p: Option<Value>,
    /// `presence_penalty`.
    #[serde(default)]
    pub presence_penalty: Option<Value>,
    /// `frequency_penalty`.
    #[serde(default)]
    pub frequency_penalty: Option<Value>,
    /// Unitxt's cache batch size (unused).
    #[serde(default)]
    pub cache_batch_size: Option<usize>,
    /// Whether Unitxt caches answers (unused).
    #[serde(default)]
    pub use_cache: Option<bool>,
    /// Unitxt's data classification policy (not enforced).
    #[serde(default)]
    pub data_classification_policy: Option<Value>,
}

impl InferenceEngine for TogetherAiInferenceEngine {
    fn type_name(&self) -> &'static str {
        "together_ai_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "TogetherAiInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.data_classification_policy, Some(&["public"]))
    }
    fn requests(&self, _: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Err(cannot_call(
            self.type_name(),
            format!(
                "it calls `{}` through the `together` SDK; use `cross_provider_inference_engine` with provider `together-ai`, or `open_ai_inference_engine` with `base_url` https://api.together.xyz/v1",
                self.model_name
            ),
        ))
    }
}
