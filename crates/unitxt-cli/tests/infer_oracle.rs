//! `unitxt-rs infer` against Unitxt 1.26.10's own `OpenAiInferenceEngine` over real HTTP: a
//! scripted OpenAI-compatible server on 127.0.0.1 records every request body; Unitxt's engine
//! (in a Python subprocess, through the `openai` client) and `unitxt-rs infer` run on the same
//! prepared instances; the multisets of request bodies must be identical and the predictions
//! equal. A missing Python or `openai` package fails the test.

mod common;

use std::path::Path;
use std::process::Command;

use common::{python, root, sorted_canonical, Server};
use serde_json::{json, Value};

/// The answer's text for a request body: deterministic in the messages, so that both sides
/// must get the same predictions for the same requests.
fn answer_text(body: &Value) -> String {
    let last = body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
    let n = body["messages"].as_array().map_or(0, |m| m.len());
    format!("answer to {n} messages ending with {} chars: {}", last.chars().count(), last.chars().rev().take(12).collect::<String>())
}

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"));
    c.current_dir(root())
        .env("HF_HUB_CACHE", "/work/shared/hf-hub")
        .env("HF_HUB_OFFLINE", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL");
    c
}

const PYTHON_ENGINE: &str = r#"
import json, sys
from unitxt.inference import OpenAiInferenceEngine
instances_path, port, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
with open(instances_path) as f:
    dataset = [json.loads(line) for line in f if line.strip()]
engine = OpenAiInferenceEngine(
    model_name="oracle-model",
    base_url=f"http://127.0.0.1:{port}/v1",
    credentials={"api_key": "x"},
    temperature=0.0,
    max_tokens=7,
    seed=3,
    use_cache=False,
)
predictions = engine.infer(dataset)
with open(out_path, "w") as f:
    json.dump(list(predictions), f)
"#;

/// Runs both engines on `recipe`'s test split; returns the number of instances compared.
fn compare(recipe: &str, tag: &str) -> usize {
    compare_in(recipe, tag, None)
}

/// [`compare`], with the extra catalog `catalog` (`--catalog`).
fn compare_in(recipe: &str, tag: &str, catalog: Option<&Path>) -> usize {
    let dir = std::env::temp_dir().join(format!("unitxt-rs-infer-oracle-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let extra: Vec<std::ffi::OsString> = catalog.map(|d| vec!["--catalog".into(), d.as_os_str().to_owned()]).unwrap_or_default();
    let data = dir.join("test.jsonl");
    let o = cli().args(["prepare", recipe, "--split", "test", "-o"]).arg(&data).args(&extra).output().unwrap();
    assert!(o.status.success(), "prepare: {}", String::from_utf8_lossy(&o.stderr));

    let server = Server::start(answer_text);
    let script = dir.join("engine.py");
    std::fs::write(&script, PYTHON_ENGINE).unwrap();
    let py_out = dir.join("python_predictions.json");
    let o = Command::new(python())
        .arg(&script)
        .arg(&data)
        .arg(server.port.to_string())
        .arg(&py_out)
        .env("HF_HUB_OFFLINE", "1")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
    assert!(o.status.success(), "Unitxt's engine failed (is `openai` installed?): {}", String::from_utf8_lossy(&o.stderr));
    let python_bodies = server.take();
    let python_predictions: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&py_out).unwrap()).unwrap();

    let engine = json!({
        "__type__": "open_ai_inference_engine",
        "model_name": "oracle-model",
        "base_url": format!("http://127.0.0.1:{}/v1", server.port),
        "credentials": {"api_key": "x"},
        "temperature": 0.0,
        "max_tokens": 7,
        "seed": 3,
    });
    let rs_out = dir.join("predictions.jsonl");
    let o = cli().args(["infer", recipe, "--split", "test", "--engine", &engine.to_string(), "-o"]).arg(&rs_out).args(&extra).output().unwrap();
    assert!(o.status.success(), "unitxt-rs infer: {}", String::from_utf8_lossy(&o.stderr));
    let rust_bodies = server.take();
    let lines: Vec<Value> = std::fs::read_to_string(&rs_out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    std::fs::remove_dir_all(&dir).ok();

    let n = python_predictions.len();
    assert!(n > 0, "no instances");
    assert_eq!(python_bodies.len(), n, "Unitxt sent one request per instance");
    assert_eq!(sorted_canonical(&rust_bodies), sorted_canonical(&python_bodies), "request bodies differ");
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["index"], json!(i));
        assert_eq!(line["prediction"], python_predictions[i], "prediction of instance {i}");
    }
    n
}

#[test]
fn text_format_requests_match_unitxt() {
    let n = compare(
        "card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=1,demos_pool_size=5,max_test_instances=5",
        "text",
    );
    assert_eq!(n, 5);
}

#[test]
fn chat_format_requests_match_unitxt() {
    let n = compare(
        "card=cards.sst2,template=templates.classification.multi_class.instruction,format=formats.chat_api,num_demos=1,demos_pool_size=5,max_test_instances=5",
        "chat",
    );
    assert_eq!(n, 5);
}

/// Instances whose `task_data` holds `__tools__` (a card of this test's own): the tools go
/// in the request, and the prediction is the tool call as Unitxt writes it.
#[test]
fn tool_requests_and_tool_call_predictions_match_unitxt() {
    let cat = std::env::temp_dir().join(format!("unitxt-rs-infer-oracle-{}-toolcat", std::process::id()));
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    std::fs::write(cat.join("cards/tools.json"), TOOLS_CARD).unwrap();
    let n = compare_in("card=cards.tools,format=formats.chat_api", "tools", Some(&cat));
    std::fs::remove_dir_all(&cat).ok();
    assert_eq!(n, 2);
}

const TOOLS_CARD: &str = r#"{"__type__": "task_card",
 "loader": {"__type__": "load_from_dictionary", "data_classification_policy": ["public"], "data": {"test": [
   {"query": "What is the weather in Paris?", "__tools__": [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}], "answer": "x"},
   {"query": "Add 2 and 3", "__tools__": [{"type": "function", "function": {"name": "add", "description": "Sum", "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}}], "answer": "y"}
 ]}},
 "task": {"__type__": "task", "input_fields": {"query": "str", "__tools__": "List[Dict[str, Any]]"}, "reference_fields": {"answer": "str"}, "metrics": ["metrics.accuracy"]},
 "templates": [{"__type__": "input_output_template", "input_format": "{query}", "output_format": "{answer}"}]}"#;

/// When some requests fail, `infer` writes every prediction received, then exits with code 4
/// naming the failed instance; the API key appears nowhere.
#[test]
fn failed_instances_are_named_and_the_rest_written() {
    let recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_test_instances=5";
    let dir = std::env::temp_dir().join(format!("unitxt-rs-infer-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("test.jsonl");
    let o = cli().args(["prepare", recipe, "--split", "test", "-o"]).arg(&data).output().unwrap();
    assert!(o.status.success(), "prepare: {}", String::from_utf8_lossy(&o.stderr));
    let second: Value = serde_json::from_str(std::fs::read_to_string(&data).unwrap().lines().nth(1).unwrap()).unwrap();
    let source = second["source"].as_str().unwrap();
    // A fragment of the second instance's sentence, escaped as it is in the JSON body.
    let fragment: &'static str = Box::leak(source.rsplit("sentence: ").next().unwrap().chars().take(20).collect::<String>().into_boxed_str());
    let server = Server::failing(answer_text, fragment);
    let engine = json!({"__type__": "open_ai_inference_engine", "model_name": "m",
        "base_url": format!("http://127.0.0.1:{}/v1", server.port), "credentials": {"api_key": "sk-test-secret"}});
    let out = dir.join("predictions.jsonl");
    let o = cli().args(["infer", recipe, "--split", "test", "--engine", &engine.to_string(), "-o"]).arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("1 of 5 instances got no prediction") && stderr.contains("instance 1:"), "{stderr}");
    let indices: Vec<u64> = written.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, vec![0, 2, 3, 4]);
    assert!(!stderr.contains("sk-test-secret") && !written.contains("sk-test-secret"));
    assert_eq!(server.take().len(), 5, "a 400 is not retried");
}

/// `infer --data` streams prepared instances from a file: its lines are those of `infer RECIPE`
/// on the same instances, in order, the requests the same; with `--meta-data` each line also
/// has Unitxt's `infer_meta_data` fields; the counts go to stderr.
#[test]
fn infer_from_prepared_data_streams_in_order() {
    let recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_test_instances=60";
    let dir = std::env::temp_dir().join(format!("unitxt-rs-infer-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("test.jsonl");
    let o = cli().args(["prepare", recipe, "--split", "test", "-o"]).arg(&data).output().unwrap();
    assert!(o.status.success(), "prepare: {}", String::from_utf8_lossy(&o.stderr));
    let server = Server::start(answer_text);
    let engine = json!({"__type__": "open_ai_inference_engine", "model_name": "m", "num_parallel_requests": 7,
        "base_url": format!("http://127.0.0.1:{}/v1", server.port), "credentials": {"api_key": "k"}});
    let o = cli().args(["infer", recipe, "--split", "test", "--engine", &engine.to_string()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_recipe = String::from_utf8(o.stdout).unwrap();
    let recipe_bodies = sorted_canonical(&server.take());
    let o = cli().args(["infer", "--data"]).arg(&data).args(["--meta-data", "--engine", &engine.to_string()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    std::fs::remove_dir_all(&dir).ok();
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("60 instances: 60 requests sent (0 retries), 0 answers from the cache"), "{stderr}");
    assert_eq!(sorted_canonical(&server.take()), recipe_bodies);
    let lines: Vec<Value> = String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let expected: Vec<Value> = from_recipe.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 60);
    for (k, (line, want)) in lines.iter().zip(&expected).enumerate() {
        assert_eq!(line["index"], json!(k));
        assert_eq!(line["prediction"], want["prediction"]);
        assert_eq!(line["infer_meta_data"]["generated_text"], want["prediction"]);
        assert_eq!((&line["infer_meta_data"]["model_name"], &line["infer_meta_data"]["inference_type"]), (&json!("m"), &json!("openai")));
    }
}

/// `evaluate --engine` scores the engine's predictions as `evaluate --predictions` scores the
/// same predictions from a file.
#[test]
fn evaluate_with_an_engine_scores_its_predictions() {
    let recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_test_instances=5";
    let dir = std::env::temp_dir().join(format!("unitxt-rs-infer-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let preds = dir.join("preds.json");
    std::fs::write(&preds, r#"["positive", "positive", "positive", "positive", "positive"]"#).unwrap();
    let engine = r#"{"__type__": "mock_inference_engine", "model_name": "m", "default_inference_value": "positive"}"#;
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let o = cli().args(["evaluate", recipe, "--split", "test", "--engine", engine, "-o"]).arg(&a).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = cli().args(["evaluate", recipe, "--split", "test", "--predictions"]).arg(&preds).arg("-o").arg(&b).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
    std::fs::remove_dir_all(&dir).ok();
    assert!(a.contains("\"score\""), "{a}");
    assert_eq!(a, b);
}
