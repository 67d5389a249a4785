//! Unit tests of the judges that need no model: building, names, the error without a client.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::error::{Need, Reason};
use crate::evaluate::{evaluate, EvaluateOptions};
use crate::registry::{build, Artifact};
use crate::value::{Instance, Value};

fn catalog() -> Arc<Catalog> {
    Arc::new(Catalog::standard(&[]))
}

fn judge(json: &str) -> crate::artifact::Art<dyn crate::metrics::Metric> {
    let v: Value = serde_json::from_str(json).unwrap();
    match build(&v, &catalog()) {
        Ok(Artifact::Metric(m)) => m,
        Ok(other) => panic!("not a metric: {}", other.kind()),
        Err(e) => panic!("{e}"),
    }
}

/// Every direct and pairwise judge of the catalog's `metrics.llm_as_judge` builds (engine and
/// all), and `catalog check` counts it as needing a model.
#[test]
fn catalog_direct_and_pairwise_judges_build() {
    let cat = catalog();
    let judges = |family: &str| -> Vec<String> {
        cat.all_names().into_iter().filter(|n| n.starts_with(&format!("metrics.llm_as_judge.{family}.")) && !n.contains(".criteria.")).collect()
    };
    assert_eq!(judges("direct").len(), 59);
    assert_eq!(judges("pairwise").len(), 59);
    let names: Vec<String> = [judges("direct"), judges("pairwise")].concat();
    for n in &names {
        match crate::registry::fetch(&cat, n) {
            Ok(Artifact::Metric(m)) => assert_eq!(m.unavailable().map(|u| u.need), Some(Need::Model), "{n}"),
            Ok(other) => panic!("{n}: a {}", other.kind()),
            Err(e) => panic!("{n}: {e}"),
        }
    }
}

/// Evaluating a judge without a model client is an error with `Reason::Needs` that names it.
#[test]
fn a_judge_without_a_client_needs_a_model() {
    let mut inst = Instance::new();
    inst.insert("references".into(), crate::json!(["x"]));
    inst.insert("subset".into(), crate::json!([]));
    inst.insert("groups".into(), crate::json!([]));
    inst.insert("task_data".into(), Value::from(r#"{"context": "c"}"#));
    inst.insert(
        "metrics".into(),
        crate::json!(["metrics.llm_as_judge.direct.openai.gpt_4o[criteria=metrics.llm_as_judge.direct.criteria.conciseness]"]),
    );
    let err = evaluate(&[inst], &[Value::from("y")], &EvaluateOptions::default()).unwrap_err();
    match err.reason() {
        Reason::Needs(u) => assert_eq!(u.need, Need::Model),
        other => panic!("{other:?}: {err}"),
    }
    let text = err.to_string();
    assert!(text.contains("llm_judge_direct") && text.contains("GPT4o"), "{text}");
}

/// The evaluator name defaults to the engine's id, as Unitxt's `get_engine_id` makes it.
#[test]
fn engine_ids_and_labels() {
    let j = |engine: &str| {
        let v: Value = serde_json::from_str(engine).unwrap();
        let e: crate::artifact::Art<dyn crate::inference::InferenceEngine> = crate::registry::build_as(&v, &catalog()).unwrap();
        let label = super::engine_label(&e);
        (super::engine_id(&e, &label), label)
    };
    assert_eq!(
        j(r#"{"__type__": "cross_provider_inference_engine", "model": "llama-3-3-70b-instruct", "provider": "rits"}"#),
        ("llama_3_3_70b_instruct_rits".to_string(), "cross_provider".to_string())
    );
    assert_eq!(j(r#"{"__type__": "open_ai_inference_engine", "model_name": "gpt-4.1-mini"}"#), ("gpt_4,1_mini_openai".to_string(), "openai".to_string()));
    assert_eq!(
        j(r#"{"__type__": "open_ai_inference_engine", "model_name": "org/Model-X", "label": "mine"}"#),
        ("model_x_mine".to_string(), "mine".to_string())
    );
}

/// A criteria's JSON in the scores is Unitxt's `to_json()`: `__type__` first, 4 spaces.
#[test]
fn criteria_json_puts_the_type_first() {
    let raw = crate::json!({"name": "n", "__type__": "criteria", "description": "é"});
    assert_eq!(super::artifact_json(&raw), "{\n    \"__type__\": \"criteria\",\n    \"name\": \"n\",\n    \"description\": \"é\"\n}");
}

/// Unitxt's `rank_indexes`: ties share the better rank.
#[test]
fn ranks_like_unitxt() {
    assert_eq!(super::pairwise::rank_indexes(&[0.5, 1.0, 0.5, 0.0]), vec![1, 0, 1, 3]);
}

/// A direct judge refuses a criteria without options, naming the field.
#[test]
fn a_direct_judge_needs_criteria_with_options() {
    let v: Value = serde_json::from_str(r#"{"__type__": "llm_judge_direct", "inference_engine": {"__type__": "open_ai_inference_engine", "model_name": "m"},
        "criteria": {"__type__": "criteria", "name": "c", "description": "d"}}"#).unwrap();
    let err = build(&v, &catalog()).err().expect("an error");
    assert!(err.to_string().contains("criteria_with_options"), "{err}");
    let _ = judge(r#"{"__type__": "llm_judge_direct", "inference_engine": {"__type__": "open_ai_inference_engine", "model_name": "m"}}"#);
}

/// A [`crate::inference::ModelClient`] that answers without HTTP and records each call's
/// bodies: an option selection gets the first option listed, anything else an assessment.
#[derive(Default)]
struct FakeClient {
    calls: std::sync::Mutex<Vec<Vec<Value>>>,
}

impl crate::inference::ModelClient for FakeClient {
    fn complete(&self, _endpoint: &crate::inference::Endpoint, bodies: &[Value]) -> crate::error::Result<crate::inference::Answers> {
        self.calls.lock().unwrap().push(bodies.to_vec());
        let answers = bodies
            .iter()
            .map(|b| {
                let last = b["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("").to_string();
                let text = match last.lines().find_map(|l| l.strip_prefix("- \"")) {
                    Some(rest) if last.contains("The selected criteria option is:") => rest.split('"').next().unwrap_or("").to_string(),
                    _ => "Looks right.".to_string(),
                };
                Some(crate::json!({"choices": [{"message": {"role": "assistant", "content": text}}]}))
            })
            .collect();
        Ok(crate::inference::Answers { answers, failed: Vec::new(), ..Default::default() })
    }
}

/// A direct judge sends each stage's requests, positional-bias runs included, in one call of
/// the client: 3 instances make 2 calls of 6 bodies; the first listed option is chosen, so the
/// reversed runs disagree and every instance shows positional bias.
#[test]
fn a_direct_judge_sends_each_stage_in_one_call() {
    let mut insts = Vec::new();
    for q in ["a?", "b?", "c?"] {
        let mut inst = Instance::new();
        inst.insert("references".into(), crate::json!(["x"]));
        inst.insert("subset".into(), crate::json!([]));
        inst.insert("groups".into(), crate::json!([]));
        inst.insert("task_data".into(), Value::from(crate::py::json::dumps(&crate::json!({"question": q}), Default::default())));
        inst.insert(
            "metrics".into(),
            crate::json!([r#"{"__type__": "llm_judge_direct", "evaluator_name": "E", "inference_engine": {"__type__": "open_ai_inference_engine", "model_name": "m", "base_url": "http://127.0.0.1:9/v1", "credentials": {"api_key": "k"}}, "criteria": "metrics.llm_as_judge.direct.criteria.answer_relevance", "context_fields": ["question"]}"#]),
        );
        insts.push(inst);
    }
    let client = Arc::new(FakeClient::default());
    let opts = EvaluateOptions { confidence_intervals: false, model_client: Some(client.clone()), ..Default::default() };
    let res = evaluate(&insts, &[Value::from("1"), Value::from("2"), Value::from("3")], &opts).unwrap();
    let calls = client.calls.lock().unwrap();
    assert_eq!(calls.iter().map(Vec::len).collect::<Vec<_>>(), vec![6, 6]);
    let first = res.instances[0].get("answer_relevance_selected_option").map(|v| v.to_json());
    assert_eq!(first, Some(Value::from("Excellent")));
    assert_eq!(res.instances[0].get("answer_relevance_positional_bias_selected_option").map(|v| v.to_json()), Some(Value::from("Bad")));
    assert_eq!(res.instances[2].get("answer_relevance_positional_bias").map(|v| v.to_json()), Some(Value::Bool(true)));
    assert_eq!(res.global.get("answer_relevance").and_then(|v| v.as_f64()), Some(1.0));
}
