//! Unitxt's engines that do not go through an OpenAI-compatible endpoint:
//! `MockInferenceEngine` (answers here), `GenericInferenceEngine` (another engine, named by
//! `UNITXT_INFERENCE_ENGINE` or `default`), the watsonx engines and the Hugging Face pipeline
//! engine (which build, and cannot be called here).

use std::sync::Arc;

use serde::Deserialize;

use super::{cannot_call, Endpoint, InferenceEngine};
use crate::artifact::{Art, BuildContext};
use crate::error::Result;
use crate::value::{Instance, Value};

fn mock_value() -> String {
    "[[10]]".into()
}

/// Unitxt's `MockInferenceEngine` (`mock_inference_engine`): every prediction is
/// `default_inference_value`; nothing is sent.
#[derive(Debug, Clone, Deserialize)]
pub struct MockInferenceEngine {
    /// The model's name (reported only).
    pub model_name: String,
    /// The prediction of every instance (default `[[10]]`).
    #[serde(default = "mock_value")]
    pub default_inference_value: String,
    /// The log-probabilities answered by Unitxt's `infer_log_probs` (kept, not used here).
    #[serde(default)]
    pub default_inference_value_logprob: Option<Value>,
    /// `label`.
    #[serde(default)]
    pub label: Option<String>,
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

impl InferenceEngine for MockInferenceEngine {
    fn type_name(&self) -> &'static str {
        "mock_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "MockInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.data_classification_policy, None)
    }
    fn requests(&self, _: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Err(crate::error::Error::invalid("`mock_inference_engine` sends no requests: it answers here"))
    }
    fn local_predictions(&self, instances: &[Instance]) -> Option<Vec<Value>> {
        Some(instances.iter().map(|_| Value::from(self.default_inference_value.as_str())).collect())
    }
    fn local_log_probs(&self, instances: &[Instance]) -> Option<Vec<Value>> {
        let value = self
            .default_inference_value_logprob
            .clone()
            .unwrap_or_else(|| crate::json!([{"logprob": -1, "text": "[[10]]", "top_tokens": [{"logprob": -1, "text": "[[10]]"}]}]));
        Some(instances.iter().map(|_| value.clone()).collect())
    }
    fn output_model_and_label(&self, _: &Value) -> (Option<String>, Option<String>) {
        (Some(self.model_name.clone()), Some(self.label.clone().unwrap_or_else(|| "mock_inference_engine".into())))
    }
}

/// Unitxt's `GenericInferenceEngine` (`generic_inference_engine`): the engine named by the
/// environment variable `UNITXT_INFERENCE_ENGINE`, else by `default`, built when this one is.
#[derive(Clone)]
pub struct GenericInferenceEngine {
    /// The engine it stands for; `None` when neither the variable nor `default` names one.
    pub engine: Option<Art<dyn InferenceEngine>>,
}

/// The fields of [`GenericInferenceEngine`].
#[derive(Debug, Clone, Deserialize)]
pub struct GenericConfig {
    /// The engine used when `UNITXT_INFERENCE_ENGINE` is not set: a catalog name or an
    /// artifact.
    #[serde(default)]
    pub default: Option<Value>,
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

impl GenericConfig {
    /// Builds the engine it names, in `cx`. Errors: those of building that engine.
    pub fn build(self, cx: &BuildContext<'_>) -> Result<GenericInferenceEngine> {
        let reference = super::env("UNITXT_INFERENCE_ENGINE").map(Value::from).or(self.default.filter(|d| !d.is_null()));
        let engine = match reference {
            Some(r) => Some(cx.build::<dyn InferenceEngine>(&r)?),
            None => None,
        };
        Ok(GenericInferenceEngine { engine })
    }
}

impl InferenceEngine for GenericInferenceEngine {
    fn type_name(&self) -> &'static str {
        "generic_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "GenericInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        self.engine.as_ref().and_then(|e| e.inner.data_classification_policy())
    }
    fn requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        match &self.engine {
            Some(e) => e.inner.requests(instances),
            None => Err(crate::error::Error::invalid(
                "`generic_inference_engine` has no engine: set UNITXT_INFERENCE_ENGINE (e.g. engines.openai.gpt_4o) or give `default`",
            )),
        }
    }
    fn log_prob_requests(&self, instances: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        match &self.engine {
            Some(e) => e.inner.log_prob_requests(instances),
            None => self.requests(instances),
        }
    }
    fn local_log_probs(&self, instances: &[Instance]) -> Option<Vec<Value>> {
        self.engine.as_ref().and_then(|e| e.inner.local_log_probs(instances))
    }
    fn output_model_and_label(&self, answer: &Value) -> (Option<String>, Option<String>) {
        self.engine.as_ref().map(|e| e.inner.output_model_and_label(answer)).unwrap_or((None, None))
    }
    fn local_predictions(&self, instances: &[Instance]) -> Option<Vec<Value>> {
        self.engine.as_ref().and_then(|e| e.inner.local_predictions(instances))
    }
}

/// Unitxt's watsonx engines: `WMLInferenceEngineGeneration` (`wml_inference_engine_generation`),
/// `WMLInferenceEngine` (`wml_inference_engine`) and `WMLInferenceEngineChat`
/// (`wml_inference_engine_chat`). They build; calling them is an error (they need IBM's
/// `ibm_watsonx_ai` SDK and watsonx.ai credentials).
#[derive(Debug, Clone, Deserialize)]
pub struct WmlInferenceEngine {
    /// The model (`model_name`) or deployment (`deployment_id`).
    #[serde(default)]
    pub model_name: Option<String>,
    /// A deployment instead of a model.
    #[serde(default)]
    pub deployment_id: Option<String>,
    /// watsonx.ai credentials (`url`, `api_key`, `project_id`, ...). Never printed.
    #[serde(default)]
    pub credentials: Option<Value>,
    /// Requests in flight (default 10).
    #[serde(default)]
    pub concurrency_limit: Option<usize>,
    /// `label`.
    #[serde(default)]
    pub label: Option<String>,
    /// Deprecated parameters object.
    #[serde(default)]
    pub parameters: Option<Value>,
    /// An `APIClient` (Python only).
    #[serde(default)]
    pub external_client: Option<Value>,
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

/// The generation parameters of `WMLGenerationParamsMixin` (kept as written).
#[derive(Debug, Clone, Deserialize)]
pub struct WmlGenerationParams {
    /// `decoding_method` (`greedy`, `sample`).
    pub decoding_method: Option<Value>,
    /// `length_penalty`.
    pub length_penalty: Option<Value>,
    /// `temperature`.
    pub temperature: Option<Value>,
    /// `top_p`.
    pub top_p: Option<Value>,
    /// `top_k`.
    pub top_k: Option<Value>,
    /// `random_seed`.
    pub random_seed: Option<Value>,
    /// `repetition_penalty`.
    pub repetition_penalty: Option<Value>,
    /// `min_new_tokens`.
    pub min_new_tokens: Option<Value>,
    /// `max_new_tokens`.
    pub max_new_tokens: Option<Value>,
    /// `stop_sequences`.
    pub stop_sequences: Option<Value>,
    /// `time_limit` (ms).
    pub time_limit: Option<Value>,
    /// `truncate_input_tokens`.
    pub truncate_input_tokens: Option<Value>,
    /// `prompt_variables`.
    pub prompt_variables: Option<Value>,
    /// `return_options`.
    pub return_options: Option<Value>,
}

/// The chat parameters of `WMLChatParamsMixin` (kept as written).
#[derive(Debug, Clone, Deserialize)]
pub struct WmlChatParams {
    /// `frequency_penalty`.
    pub frequency_penalty: Option<Value>,
    /// `top_logprobs`.
    pub top_logprobs: Option<Value>,
    /// `presence_penalty`.
    pub presence_penalty: Option<Value>,
    /// `response_format`.
    pub response_format: Option<Value>,
    /// `temperature`.
    pub temperature: Option<Value>,
    /// `max_tokens`.
    pub max_tokens: Option<Value>,
    /// `time_limit` (ms).
    pub time_limit: Option<Value>,
    /// `top_p`.
    pub top_p: Option<Value>,
    /// `n`.
    pub n: Option<Value>,
    /// `seed`.
    pub seed: Option<Value>,
    /// `logit_bias`.
    pub logit_bias: Option<Value>,
    /// `stop`.
    pub stop: Option<Value>,
    /// `image_encoder` (an artifact).
    pub image_encoder: Option<Value>,
}

/// A watsonx engine, as built: its `__type__` and its fields.
#[derive(Debug, Clone)]
pub struct Wml {
    /// `wml_inference_engine`, `wml_inference_engine_generation` or `wml_inference_engine_chat`.
    pub type_name: &'static str,
    /// The fields shared by the three.
    pub config: WmlInferenceEngine,
}

impl InferenceEngine for Wml {
    fn type_name(&self) -> &'static str {
        self.type_name
    }
    fn class_name(&self) -> &'static str {
        match self.type_name {
            "wml_inference_engine_generation" => "WMLInferenceEngineGeneration",
            "wml_inference_engine_chat" => "WMLInferenceEngineChat",
            _ => "WMLInferenceEngine",
        }
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.config.data_classification_policy, Some(&["public", "proprietary"]))
    }
    fn requests(&self, _: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        let model = self.config.model_name.as_deref().or(self.config.deployment_id.as_deref()).unwrap_or("?");
        Err(cannot_call(
            self.type_name,
            format!("watsonx.ai model `{model}` needs IBM's ibm_watsonx_ai SDK and watsonx credentials; serve the model behind an OpenAI-compatible endpoint and use `open_ai_inference_engine` with `base_url`"),
        ))
    }
}

/// Unitxt's `HFPipelineBasedInferenceEngine` (`hf_pipeline_based_inference_engine`): a local
/// Hugging Face `transformers` pipeline. It builds; calling it is an error (no model weights
/// run here).
#[derive(Debug, Clone, Deserialize)]
pub struct HfPipelineBasedInferenceEngine {
    /// The model on the Hub.
    pub model_name: String,
    /// `tokenizer_name` (default: the model's).
    pub tokenizer_name: Option<String>,
    /// `label`.
    pub label: Option<String>,
    /// `use_fast_tokenizer`.
    pub use_fast_tokenizer: Option<bool>,
    /// `use_fp16`.
    pub use_fp16: Option<bool>,
    /// `load_in_8bit`.
    pub load_in_8bit: Option<bool>,
    /// The pipeline task (`text-generation`, `text2text-generation`).
    pub task: Option<String>,
    /// `device_map`.
    pub device_map: Option<Value>,
    /// `device`.
    pub device: Option<String>,
    /// `max_new_tokens`.
    pub max_new_tokens: Option<Value>,
    /// `do_sample`.
    pub do_sample: Option<bool>,
    /// `temperature`.
    pub temperature: Option<Value>,
    /// `top_p`.
    pub top_p: Option<Value>,
    /// `top_k`.
    pub top_k: Option<Value>,
    /// `num_beams`.
    pub num_beams: Option<Value>,
    /// `repetition_penalty`.
    pub repetition_penalty: Option<Value>,
    /// `pad_token_id`.
    pub pad_token_id: Option<Value>,
    /// `eos_token_id`.
    pub eos_token_id: Option<Value>,
    /// `lazy_load`.
    pub lazy_load: Option<bool>,
    /// Unitxt's cache batch size (unused).
    pub cache_batch_size: Option<usize>,
    /// Whether Unitxt caches answers (unused).
    pub use_cache: Option<bool>,
    /// Unitxt's data classification policy (not enforced).
    pub data_classification_policy: Option<Value>,
}

impl InferenceEngine for HfPipelineBasedInferenceEngine {
    fn type_name(&self) -> &'static str {
        "hf_pipeline_based_inference_engine"
    }
    fn class_name(&self) -> &'static str {
        "HFPipelineBasedInferenceEngine"
    }
    fn data_classification_policy(&self) -> Option<Vec<String>> {
        super::policy(&self.data_classification_policy, None)
    }
    fn requests(&self, _: &[Instance]) -> Result<(Endpoint, Vec<Value>)> {
        Err(cannot_call(
            self.type_name(),
            format!(
                "it runs `{}` locally with transformers; serve it behind an OpenAI-compatible server (e.g. `vllm serve {}`) and use `open_ai_inference_engine` with `base_url`",
                self.model_name, self.model_name
            ),
        ))
    }
}

/// `engine` as a shared [`InferenceEngine`].
pub fn shared<T: InferenceEngine + 'static>(engine: T) -> Arc<dyn InferenceEngine> {
    Arc::new(engine)
}
