//! Engines built from JSON as the catalog holds them: their endpoints, request bodies and
//! predictions, with a client that answers in memory.

use std::sync::Mutex;

use super::*;
use crate::registry::{build, Artifact};
use crate::testutil::{empty_catalog, unitxt_catalog};

/// Answers every body with `"ok <n>"`, except those whose last message contains `fail`.
struct Canned {
    seen: Mutex<Vec<(Endpoint, Vec<Value>)>>,
    fail: &'static str,
}

impl ModelClient for Canned {
    fn complete(&self, endpoint: &Endpoint, bodies: &[Value]) -> Result<Answers> {
        self.seen.lock().unwrap().push((endpoint.clone(), bodies.to_vec()));
        let mut out = Answers::default();
        for (i, b) in bodies.iter().enumerate() {
            let last = crate::py::json::dumps(b.get("messages").unwrap(), Default::default());
            if !self.fail.is_empty() && last.contains(self.fail) {
                out.answers.push(None);
                out.failed.push(FailedRequest { index: i, detail: "HTTP 400".into() });
            } else {
                out.answers.push(Some(crate::json!({"choices": [{"message": {"role": "assistant", "content": format!("ok {i}")}}]})));
            }
        }
        Ok(out)
    }
}

fn engine(json: Value) -> std::sync::Arc<dyn InferenceEngine> {
    match build(&json, &empty_catalog()).unwrap_or_else(|e| panic!("{e}")) {
        Artifact::Engine(e) => e.inner,
        other => panic!("built a {}", other.kind()),
    }
}

fn instance(source: Value, task_data: &str) -> Instance {
    match crate::json!({"source": source, "task_data": task_data}) {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

/// Every engine of Unitxt's catalog builds, as an engine.
#[test]
fn every_catalog_engine_builds() {
    let cat = unitxt_catalog();
    let names: Vec<String> = cat.all_names().into_iter().filter(|n| n.starts_with("engines.")).collect();
    assert_eq!(names.len(), 32);
    for n in names {
        match crate::registry::fetch(&cat, &n) {
            Ok(Artifact::Engine(_)) => {}
            Ok(other) => panic!("{n}: a {}", other.kind()),
            Err(e) => panic!("{n}: {e}"),
        }
    }
}

/// The OpenAI engine: Unitxt's defaults (`logprobs`, `top_logprobs` 20), `tools: null`, a
/// string source as one user message, and the endpoint from `base_url` and `credentials`.
#[test]
fn open_ai_bodies_and_endpoint() {
    let e = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "m", "base_url": "http://h/v1",
        "credentials": {"api_key": "sk-secret"}, "temperature": 0.0, "max_tokens": 5}));
    let (ep, bodies) = e.requests(&[instance(Value::from("hi"), "{}")]).unwrap();
    assert_eq!(ep.base_url, "http://h/v1");
    assert_eq!(ep.api_key.as_deref(), Some("sk-secret"));
    assert_eq!(ep.num_parallel_requests, 20);
    assert!(!format!("{ep:?}").contains("sk-secret"));
    let want = crate::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": null,
        "max_tokens": 5, "temperature": 0.0, "top_logprobs": 20, "logprobs": true});
    assert_eq!(crate::py::json::dumps(&bodies[0], crate::py::json::DumpOptions { sort_keys: true, ..Default::default() }),
               crate::py::json::dumps(&want, crate::py::json::DumpOptions { sort_keys: true, ..Default::default() }));
}

/// Without a key the error names the variable to set (by label), and never a key.
#[test]
fn missing_key_names_the_variable() {
    let e = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "m", "label": "unitxt_rs_no_such"}));
    let err = e.requests(&[instance(Value::from("hi"), "{}")]).err().unwrap();
    assert_eq!(err.kind, crate::ErrorKind::Invalid);
    assert!(err.message.contains("UNITXT_RS_NO_SUCH_API_KEY"), "{err}");
}

/// Cross-provider `open-ai`: the model mapped through `provider_model_map`, LiteLLM's body
/// (no `tools` when there are none, only the parameters set), OpenAI's endpoint.
#[test]
fn cross_provider_open_ai() {
    let e = engine(crate::json!({"__type__": "cross_provider_inference_engine", "model": "gpt-4-turbo-preview", "provider": "open-ai",
        "logprobs": true, "max_tokens": 5, "temperature": 0.0, "top_logprobs": 5, "credentials": {"api_key": "k", "api_base": "http://x/v1"}}));
    let (ep, bodies) = e.requests(&[instance(Value::from("hi"), "{}")]).unwrap();
    assert_eq!(ep.base_url, "http://x/v1");
    assert_eq!(ep.max_requests_per_second, Some(6.0));
    assert_eq!(bodies[0].get("model").and_then(Value::as_str), Some("gpt-4-0125-preview"));
    assert!(bodies[0].get("tools").is_none());
    assert_eq!(bodies[0].get("top_logprobs"), Some(&Value::from(5)));
    assert!(bodies[0].get("seed").is_none());
}

/// Providers that cannot be called here build, and asking them for requests is a `Needs`
/// error naming the provider; so are watsonx and the local Hugging Face pipeline.
#[test]
fn uncallable_engines_say_what_they_need() {
    for json in [
        crate::json!({"__type__": "cross_provider_inference_engine", "model": "llama-3-3-70b-instruct", "provider": "watsonx"}),
        crate::json!({"__type__": "wml_inference_engine_generation", "model_name": "x", "max_new_tokens": 5}),
        crate::json!({"__type__": "hf_pipeline_based_inference_engine", "model_name": "google/flan-t5-small"}),
    ] {
        let err = engine(json.clone()).requests(&[instance(Value::from("hi"), "{}")]).err().unwrap();
        assert_eq!(err.unavailable().map(|u| u.need), Some(crate::error::Need::Model), "{json}: {err}");
    }
}

/// Azure: the deployment's URL with the API version, the key in `api-key` (no bearer).
#[test]
fn azure_endpoint() {
    let e = engine(crate::json!({"__type__": "azure_open_ai_inference_engine", "model_name": "dep",
        "credentials": {"api_key": "k", "azure_openai_host": "https://h.example/", "api_version": "2024-02-01"}}));
    let (ep, bodies) = e.requests(&[instance(Value::from("hi"), "{}")]).unwrap();
    assert_eq!(format!("{}{}", ep.base_url, ep.completions_path), "https://h.example/openai/deployments/dep/chat/completions/?api-version=2024-02-01");
    assert_eq!((ep.api_key.as_deref(), ep.headers.clone()), (None, vec![("api-key".to_string(), "k".to_string())]));
    assert_eq!(bodies[0].get("model").and_then(Value::as_str), Some("dep"));
    let no_host = engine(crate::json!({"__type__": "azure_open_ai_inference_engine", "model_name": "dep", "credentials": {"api_key": "k"}}));
    let err = no_host.requests(&[instance(Value::from("hi"), "{}")]).unwrap_err();
    assert!(err.to_string().contains("AZURE_OPENAI_HOST"), "{err}");
}

/// RITS: the endpoint derived from the model, the key also in the `RITS_API_KEY` header.
#[test]
fn rits_endpoint() {
    let e = engine(crate::json!({"__type__": "rits_inference_engine", "model_name": "meta-llama/llama-3-1-70b-instruct", "credentials": {"api_key": "k"}}));
    let (ep, bodies) = e.requests(&[instance(Value::from("hi"), "{}")]).unwrap();
    assert_eq!(ep.base_url, "https://inference-3scale-apicast-production.apps.rits.fmaas.res.ibm.com/llama-3-1-70b-instruct/v1");
    assert_eq!(ep.headers, vec![("RITS_API_KEY".to_string(), "k".to_string())]);
    assert_eq!(bodies[0].get("model").and_then(Value::as_str), Some("meta-llama/llama-3-1-70b-instruct"));
    assert!(!format!("{ep:?}").contains("\"k\""));
}

/// Tools in `task_data` go in the body; the prediction is the first tool call as Unitxt
/// writes it. A chat source is sent as is, with tool-call arguments as JSON text.
#[test]
fn tools_and_chat_sources() {
    let tools = r#"{"__tools__": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}"#;
    let chat = crate::json!([{"role": "user", "content": "a"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}]);
    let i = instance(chat, tools);
    let msgs = to_messages(&i).unwrap();
    assert_eq!(msgs.get(1).unwrap().get("tool_calls").unwrap().get(0).unwrap().get("function").unwrap().get("arguments"), Some(&Value::from("{\"x\": 1}")));
    assert!(to_tools(&i).unwrap().is_some());
    let answer = crate::json!({"choices": [{"message": {"content": null, "tool_calls": [{"function": {"name": "f", "arguments": "{\"x\": 2}"}}]}}]});
    assert_eq!(prediction_of(&answer, true).unwrap(), Value::from("{\"name\": \"f\", \"arguments\": {\"x\": 2}}"));
    let plain = crate::json!({"choices": [{"message": {"content": null}}]});
    assert_eq!(prediction_of(&plain, true).unwrap(), Value::from(""));
    assert_eq!(prediction_of(&plain, false).unwrap(), Value::Null);
}

/// `infer` keeps every answer received when some requests fail, and names the failed ones.
#[test]
fn infer_keeps_answers_when_some_fail() {
    let e = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "m", "credentials": {"api_key": "k"}, "base_url": "http://h/v1"}));
    let client = Canned { seen: Mutex::new(Vec::new()), fail: "bad" };
    let got = infer(&*e, &client, &[instance(Value::from("good"), "{}"), instance(Value::from("bad"), "{}"), instance(Value::from("fine"), "{}")]).unwrap();
    assert_eq!(got.predictions, vec![Some(Value::from("ok 0")), None, Some(Value::from("ok 2"))]);
    assert_eq!(got.failed.iter().map(|f| f.index).collect::<Vec<_>>(), vec![1]);
}

/// The mock engine answers here; the generic engine stands for the one it names.
#[test]
fn mock_and_generic() {
    let client = Canned { seen: Mutex::new(Vec::new()), fail: "" };
    let mock = engine(crate::json!({"__type__": "mock_inference_engine", "model_name": "x"}));
    let got = infer(&*mock, &client, &[instance(Value::from("a"), "{}")]).unwrap();
    assert_eq!(got.predictions, vec![Some(Value::from("[[10]]"))]);
    if env("UNITXT_INFERENCE_ENGINE").is_none() {
        let generic = engine(crate::json!({"__type__": "generic_inference_engine", "default": {"__type__": "mock_inference_engine", "model_name": "x", "default_inference_value": "y"}}));
        let got = infer(&*generic, &client, &[instance(Value::from("a"), "{}")]).unwrap();
        assert_eq!(got.predictions, vec![Some(Value::from("y"))]);
    }
    assert!(client.seen.lock().unwrap().is_empty());
}

/// Data classified `proprietary` may not go to the OpenAI engine (policy `public`), may go to
/// one configured for it, and data without a policy passes.
#[test]
fn data_classification_policy_is_enforced() {
    if env("UNITXT_DATA_CLASSIFICATION_POLICY").is_some() {
        return;
    }
    let mut secret = instance(Value::from("hi"), "{}");
    secret.insert("data_classification_policy".into(), crate::json!(["proprietary"]));
    let client = Canned { seen: Mutex::new(Vec::new()), fail: "" };
    let strict = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "m", "credentials": {"api_key": "k"}, "base_url": "http://h/v1"}));
    let err = infer(&*strict, &client, &[instance(Value::from("a"), "{}"), secret.clone()]).expect_err("refused");
    assert_eq!(err.kind, crate::ErrorKind::Invalid);
    assert!(err.message.contains("instance 1") && err.message.contains("OpenAiInferenceEngine"), "{err}");
    assert!(client.seen.lock().unwrap().is_empty(), "nothing is sent");
    let open = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "m", "credentials": {"api_key": "k"}, "base_url": "http://h/v1",
        "data_classification_policy": ["public", "proprietary"]}));
    assert!(infer(&*open, &client, &[secret]).is_ok());
}

/// Answers with a fixed chat completion that carries log probabilities and usage.
struct WithLogProbs;

impl ModelClient for WithLogProbs {
    fn complete(&self, _: &Endpoint, bodies: &[Value]) -> Result<Answers> {
        let answer = crate::json!({
            "model": "served-name",
            "choices": [{"message": {"role": "assistant", "content": "yes"}, "logprobs": {"content": [
                {"token": "yes", "logprob": -0.1, "top_logprobs": [{"token": "yes", "logprob": -0.1}, {"token": "no", "logprob": -2.5}]}
            ]}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 1},
        });
        Ok(Answers { answers: bodies.iter().map(|_| Some(answer.clone())).collect(), ..Default::default() })
    }
}

/// `infer_log_probs` reads `choices[0].logprobs.content` as Unitxt's OpenAI engine does, its
/// bodies have no `tools`, and the meta data are Unitxt's `TextGenerationInferenceOutput`
/// fields with the engine's model and label; LiteLLM reports the answer's model.
#[test]
fn log_probs_and_meta_data() {
    let e = engine(crate::json!({"__type__": "open_ai_inference_engine", "model_name": "gpt-x", "base_url": "http://127.0.0.1:1/v1", "credentials": {"api_key": "k"}}));
    let instances = vec![instance(Value::from("Is it?"), "{}")];
    let (_, bodies) = e.log_prob_requests(&instances).unwrap();
    assert_eq!(crate::py::json::dumps(&bodies[0], Default::default()), r#"{"model": "gpt-x", "messages": [{"role": "user", "content": "Is it?"}], "top_logprobs": 20, "logprobs": true}"#);
    let out = infer_with(&*e, &WithLogProbs, &instances, InferOptions { log_probs: true, meta_data: true }).unwrap();
    assert_eq!(
        out.predictions[0].as_ref().unwrap(),
        &crate::json!([{"text": "yes", "logprob": -0.1, "top_tokens": [{"text": "yes", "logprob": -0.1}, {"text": "no", "logprob": -2.5}]}])
    );
    assert_eq!(
        crate::py::json::dumps(out.meta_data[0].as_ref().unwrap(), Default::default()),
        r#"{"prediction": [{"text": "yes", "logprob": -0.1, "top_tokens": [{"text": "yes", "logprob": -0.1}, {"text": "no", "logprob": -2.5}]}], "generated_text": "yes", "input_tokens": 12, "output_tokens": 1, "stop_reason": null, "seed": null, "input_text": null, "model_name": "gpt-x", "inference_type": "openai"}"#
    );
    let lite = engine(crate::json!({"__type__": "lite_llm_inference_engine", "model": "openai/m", "credentials": {"api_key": "k", "api_base": "http://127.0.0.1:1/v1"}}));
    let out = infer_with(&*lite, &WithLogProbs, &instances, InferOptions { log_probs: false, meta_data: true }).unwrap();
    assert_eq!(out.meta_data[0].as_ref().unwrap().get("model_name"), Some(&Value::from("served-name")));
    assert_eq!(out.meta_data[0].as_ref().unwrap().get("inference_type"), Some(&Value::from("litellm")));
    let err = infer_with(&*lite, &WithLogProbs, &instances, InferOptions { log_probs: true, meta_data: false }).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::Unsupported, "{err}");
}
