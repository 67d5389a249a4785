//! LLM judges against Unitxt 1.26.10's own: a scripted OpenAI-compatible server on 127.0.0.1
//! answers each request with a deterministic function of its body (an assessment text, or
//! for an option selection one of the options the prompt lists, sometimes garbled so that the
//! closest-option matching decides) and records every body. Unitxt's `evaluate` (in a Python
//! subprocess, its judge's engine an `OpenAiInferenceEngine` on that server) and `unitxt-rs
//! evaluate` score the same predictions on the same recipe of a test catalog written here; the
//! multisets of request bodies must be identical, and so must every instance score (the
//! assessments, selected options, positional bias, prompts, criteria, ...) and the global
//! scores with their confidence intervals. A missing Python or `openai` package fails the test.

mod common;

use std::path::Path;
use std::process::Command;

use common::{canonical, python, root, sorted_canonical, Server};
use serde_json::{json, Value};


/// FNV-1a of a text: the server's source of variety.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// The answer to a request: for an option selection (the last message asks for the selected
/// option), one of the options the prompt lists, as is, after some words, in bold or cut
/// short; for anything else an assessment text that depends on the whole body.
fn answer_text(body: &Value) -> String {
    let h = fnv(&canonical(body));
    let last = body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
    if last.contains("The selected criteria option is:") {
        let options: Vec<&str> = last.lines().filter_map(|l| l.strip_prefix("- \"")).filter_map(|l| l.split('"').next()).collect();
        let o = options[(h % options.len() as u64) as usize];
        return match (h / 7) % 4 {
            0 => o.to_string(),
            1 => format!("The selected option is {o}"),
            2 => format!("**{o}**"),
            _ => o.chars().take(o.chars().count().div_ceil(2)).collect(),
        };
    }
    if last.ends_with("Answer: ") {
        // A pairwise winner selection: `Choose "X" if Response X is better quality.` lines.
        let systems: Vec<&str> = last.lines().filter_map(|l| l.strip_prefix("Choose \"")).filter_map(|l| l.split('"').next()).collect();
        let s = systems[(h % systems.len() as u64) as usize];
        return match (h / 7) % 4 {
            0 => format!("Response {s}"),
            1 => s.to_string(),
            2 => format!("**Response {s}** is better"),
            _ => format!("Resp {s}"),
        };
    }
    let all = canonical(body);
    // Template judges: a rating, an arena-hard verdict, a verbal groundedness, yes or no.
    if all.contains("Rating: [[5]]") {
        return match h % 5 {
            0 => format!("The response is fine. Rating: [[{}]]", h % 10 + 1),
            1 => format!("Explanation: partly relevant.\n\nRating: [[{}.5]]", h % 9),
            2 => "I cannot rate this.".to_string(),
            _ => format!("[[{}]]", (h / 5) % 10 + 1),
        };
    }
    if all.contains("[[A>>B]]") {
        let verdicts = ["[[A>B]]", "[[A>>B]]", "[[A=B]]", "[[B>A]]", "[[B>>A]]", "no verdict"];
        return format!("My own answer first. My final verdict is: {}", verdicts[(h % 6) as usize]);
    }
    if all.contains("Reply with one of the 4 options") {
        let options = ["Completely Grounded", "Mostly grounded", "Somewhat grounded", "Not grounded", "Unsure"];
        return options[(h % 5) as usize].to_string();
    }
    if all.contains("Answer only \\\"Yes\\\" or \\\"No\\\"") {
        return ["Yes", "No", "Yes it is", "no"][(h % 4) as usize].to_string();
    }
    format!("Assessment {}: the response {} the criteria.", h % 997, if h.is_multiple_of(2) { "meets" } else { "partly meets" })
}

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"));
    c.current_dir(root())
        .env("HF_HUB_CACHE", "/work/shared/hf-hub")
        .env("HF_HUB_OFFLINE", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("UNITXT_DEFAULT_PROVIDER");
    c
}

const PYTHON_EVALUATE: &str = r#"
import json, sys
from unitxt import load_dataset, evaluate
recipe, preds_path, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
with open(preds_path) as f:
    predictions = json.load(f)
ds = load_dataset(recipe, split="test")
res = evaluate(predictions=predictions, data=ds)
out = {"global": res[0]["score"]["global"], "instances": [r["score"]["instance"] for r in res]}
with open(out_path, "w") as f:
    json.dump(out, f)
"#;

/// Questions, answers and the criteria each instance names (`judgement`).
const ROWS: &[(&str, &str, &str)] = &[
    ("What is 2+2?", "4", "metrics.llm_as_judge.direct.criteria.answer_relevance"),
    ("What is the capital of France?", "Paris", "metrics.llm_as_judge.direct.criteria.conciseness"),
    ("What color is a clear daytime sky?", "blue", "CUSTOM"),
    ("Name a prime number between 10 and 20.", "13", "metrics.llm_as_judge.direct.criteria.answer_relevance"),
    ("Who wrote Hamlet?", "Shakespeare", "CUSTOM"),
];

const PREDICTIONS: &[&str] = &[
    "four",
    "Paris — the capital of France (« très belle ») 🇫🇷, with {braces} and \"quotes\".",
    "It is green.",
    "17",
    "William Shakespeare wrote it around 1600.",
];

/// A custom criteria with an option map (one option without a description).
fn custom_criteria() -> Value {
    json!({"__type__": "criteria_with_options", "name": "Answer Quality", "description": "Is the response a correct and complete answer to the question?",
        "context_fields": ["question"],
        "options": [
            {"__type__": "criteria_option", "name": "Yes", "description": "The response is correct and complete."},
            {"__type__": "criteria_option", "name": "Partially", "description": ""},
            {"__type__": "criteria_option", "name": "No", "description": "The response is wrong or missing."}],
        "option_map": {"Yes": 1.0, "Partially": 0.5, "No": 0.0}})
}

/// Writes the test catalog: the engine on `port`, the custom criteria, two judges and a card
/// whose task's metric is `metric`.
fn write_catalog(dir: &Path, port: u16, metric: &str) {
    let put = |rel: &str, v: &Value| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    };
    put("engines/judge_test.json", &json!({"__type__": "open_ai_inference_engine", "model_name": "judge-model",
        "base_url": format!("http://127.0.0.1:{port}/v1"), "credentials": {"api_key": "sk-judge-secret"},
        "temperature": 0, "max_tokens": 1024, "seed": 42, "use_cache": false}));
    // The catalog GPT-4o judges' own engine (LiteLLM through the cross-provider engine, at most
    // 6 requests a second), its credentials pointed at the test server.
    put("engines/judge_litellm.json", &json!({"__type__": "cross_provider_inference_engine", "max_tokens": 1024, "seed": 42,
        "temperature": 0, "provider": "open-ai", "model": "gpt-4o-2024-08-06", "use_cache": false,
        "credentials": {"api_key": "sk-judge-secret", "api_base": format!("http://127.0.0.1:{port}/v1")}}));
    put("judge_test/custom_criteria.json", &custom_criteria());
    put("judge_test/custom_judge.json", &json!({"__type__": "llm_judge_direct", "inference_engine": "engines.judge_test",
        "evaluator_name": "Custom-Judge 1.5", "criteria": "judge_test.custom_criteria", "generate_summaries": true,
        "context_fields": {"The question": "question", "Reference": "answer"}}));
    put("judge_test/plain_judge.json", &json!({"__type__": "llm_judge_direct", "inference_engine": "engines.judge_test",
        "criteria": "judge_test.custom_criteria", "check_positional_bias": false, "include_prompts_in_result": false,
        "score_prefix": "my_", "context_fields": "question"}));
    put("judge_test/by_field.json", &json!({"__type__": "llm_judge_direct", "inference_engine": "engines.judge_test",
        "criteria_field": "judgement", "context_fields": null, "check_positional_bias": false}));
    put("judge_test/pairwise_judge.json", &json!({"__type__": "llm_judge_pairwise", "inference_engine": "engines.judge_test",
        "evaluator_name": "Pair", "criteria": {"__type__": "criteria", "name": "Helpfulness", "description": "Which response helps the user more?"},
        "generate_summaries": true, "context_fields": "question"}));
    // Template judges (Unitxt's `llm_as_judge_from_template.py`).
    put("judge_test/rating_judge.json", &json!({"__type__": "llm_as_judge", "inference_model": "engines.judge_test",
        "template": "templates.response_assessment.rating.generic_single_turn", "task": "rating.single_turn",
        "format": "formats.chat_api", "main_score": "rating_judge", "prediction_type": "str"}));
    put("judge_test/pipeline_judge.json", &json!({"__type__": "metric_pipeline", "main_score": "answer_quality",
        "preprocess_steps": [{"__type__": "lower_case", "field": "prediction"}],
        "metric": {"__type__": "llm_judge_direct", "inference_engine": "engines.judge_test", "criteria": "judge_test.custom_criteria",
            "check_positional_bias": false, "context_fields": "question"}}));
    put("judge_test/source_judge.json", &json!({"__type__": "llm_as_judge", "inference_model": "engines.judge_test",
        "template": "templates.response_assessment.rating.generic_single_turn_with_reference", "task": "rating.single_turn_with_reference",
        "format": "formats.empty", "main_score": "source_judge", "strip_system_prompt_and_format_from_inputs": false,
        "reduction_map": {"mean": ["source_judge"]}, "n_resamples": 20}));
    put("judge_test/arena_judge.json", &json!({"__type__": "llm_as_judge", "inference_model": "engines.judge_test",
        "template": "templates.response_assessment.pairwise_comparative_rating.arena_hard_with_shuffling",
        "task": "pairwise_comparative_rating.single_turn", "format": "formats.empty", "main_score": "arena_judge"}));
    put("judge_test/faithfulness_logprobs.json", &json!({"__type__": "task_based_ll_mas_judge", "inference_model": "engines.judge_test",
        "template": "templates.rag_eval.faithfulness.judge_with_question_simplified_logprobs", "task": "tasks.rag_eval.faithfulness.binary",
        "format": null, "main_score": "faithfulness_logprobs", "prediction_field": "answer", "infer_log_probs": true}));
    let multi_rows: Vec<Value> = ROWS.iter().map(|(q, a, _)| json!({"question": q, "answers": [a, format!("{a}!")]})).collect();
    put("cards/judge_multi_ref.json", &json!({"__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": multi_rows}, "data_classification_policy": ["public"]},
        "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answers": "List[str]"},
            "prediction_type": "str", "metrics": [metric]},
        "templates": [{"__type__": "multi_reference_template", "input_format": "{question}", "references_field": "answers"}]}));
    let rag_rows: Vec<Value> = ROWS
        .iter()
        .enumerate()
        .map(|(i, (q, a, _))| json!({"question": q, "contexts": [format!("Passage {i}: the answer is {a}."), "Unrelated « text » 🙂"], "reference_answer": a}))
        .collect();
    put("cards/judge_rag.json", &json!({"__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rag_rows}, "data_classification_policy": ["public"]},
        "task": {"__type__": "task", "input_fields": {"question": "str", "contexts": "List[str]"}, "reference_fields": {"reference_answer": "str"},
            "prediction_type": "str", "metrics": [metric]},
        "templates": [{"__type__": "input_output_template", "input_format": "{contexts}\n\nQuestion: {question}", "output_format": "{reference_answer}",
            "instruction": "Answer from the passages.", "target_prefix": "Answer: "}]}));
    let custom_text = custom_criteria().to_string();
    let rows: Vec<Value> = ROWS
        .iter()
        .map(|(q, a, c)| json!({"question": q, "answer": a, "judgement": if *c == "CUSTOM" { custom_text.clone() } else { c.to_string() }}))
        .collect();
    put("cards/judge_qa.json", &json!({"__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}, "data_classification_policy": ["public"]},
        "task": {"__type__": "task", "input_fields": {"question": "str", "judgement": "str"}, "reference_fields": {"answer": "str"},
            "prediction_type": "str", "metrics": [metric]},
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}]}));
    // Pairwise: predictions are lists or dicts of the systems' responses.
    let rows: Vec<Value> = ROWS.iter().map(|(q, a, _)| json!({"question": q, "answer": a})).collect();
    put("cards/judge_pairs.json", &json!({"__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
        "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answer": "str"},
            "prediction_type": "Any", "metrics": [metric]},
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}", "postprocessors": []}]}));
}

/// Float-tolerant equality of two score values.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-9 * x.abs().max(1.0)
        }
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w)),
        _ => a == b,
    }
}

fn assert_scores(name: &str, ours: &Value, theirs: &Value) {
    let (o, t) = (ours.as_object().unwrap(), theirs.as_object().unwrap());
    let ok: Vec<&String> = o.keys().collect();
    let tk: Vec<&String> = t.keys().collect();
    assert_eq!(ok, tk, "{name}: score names (in order)");
    for (k, v) in t {
        assert!(same(&o[k], v), "{name}: `{k}` differs:\n ours:   {}\n Unitxt: {}", o[k], v);
    }
}

/// Evaluates `metric` on the test card with Unitxt and with unitxt-rs; asserts equal request
/// multisets and scores; returns (Unitxt's results, number of requests).
fn compare(metric: &str, tag: &str) -> (Value, usize) {
    let predictions: Vec<Value> = PREDICTIONS.iter().map(|p| json!(p)).collect();
    compare_on("cards.judge_qa", &predictions, metric, tag)
}

/// [`compare`] on the card `card` of the test catalog with `predictions`.
fn compare_on(card: &str, predictions: &[Value], metric: &str, tag: &str) -> (Value, usize) {
    compare_recipe(&format!("card={card},template_card_index=0"), predictions, metric, tag)
}

/// [`compare`] on `recipe` (over the test catalog) with `predictions`.
fn compare_recipe(recipe: &str, predictions: &[Value], metric: &str, tag: &str) -> (Value, usize) {
    let dir = std::env::temp_dir().join(format!("unitxt-rs-judge-oracle-{}-{tag}", std::process::id()));
    let catalog = dir.join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    let server = Server::start(answer_text);
    write_catalog(&catalog, server.port, metric);
    let preds = dir.join("predictions.json");
    std::fs::write(&preds, serde_json::to_string(predictions).unwrap()).unwrap();

    let script = dir.join("judge_oracle_script.py");
    std::fs::write(&script, PYTHON_EVALUATE).unwrap();
    let py_out = dir.join("unitxt.json");
    let o = Command::new(python())
        .arg(&script)
        .arg(recipe)
        .arg(&preds)
        .arg(&py_out)
        .env("UNITXT_CATALOGS", &catalog)
        .env("HF_HUB_OFFLINE", "1")
        // Unitxt's LiteLLM engine keeps a cache whatever the cross-provider engine says: in
        // this run's own directory, removed with it.
        .env("UNITXT_INFERENCE_ENGINE_CACHE_PATH", dir.join("unitxt-cache"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
    assert!(o.status.success(), "Unitxt's evaluate failed: {}", String::from_utf8_lossy(&o.stderr));
    let python_bodies = server.take();
    let theirs: Value = serde_json::from_str(&std::fs::read_to_string(&py_out).unwrap()).unwrap();

    let rs_out = dir.join("unitxt_rs.json");
    let o = cli().args(["evaluate", recipe, "--split", "test", "--predictions"]).arg(&preds).arg("--catalog").arg(&catalog).arg("-o").arg(&rs_out).output().unwrap();
    assert!(o.status.success(), "unitxt-rs evaluate: {}", String::from_utf8_lossy(&o.stderr));
    let rust_bodies = server.take();
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&rs_out).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();

    assert!(!python_bodies.is_empty());
    assert_eq!(sorted_canonical(&rust_bodies), sorted_canonical(&python_bodies), "request bodies differ");
    let n = predictions.len();
    assert_eq!(ours["instances"].as_array().unwrap().len(), n);
    for i in 0..n {
        assert_scores(&format!("instance {i}"), &ours["instances"][i], &theirs["instances"][i]);
    }
    assert_scores("global", &ours["global"], &theirs["global"]);
    (theirs, python_bodies.len())
}

/// A catalog judge (GPT-4o's, its engine replaced by one on the test server) with a catalog
/// criteria whose context field is given to the judge: assessment and option selection, each
/// also with the options reversed (positional bias).
#[test]
fn catalog_judge_with_catalog_criteria_matches_unitxt() {
    let (theirs, requests) = compare(
        "metrics.llm_as_judge.direct.openai.gpt_4o[inference_engine=engines.judge_test,criteria=metrics.llm_as_judge.direct.criteria.answer_relevance,context_fields=[question]]",
        "catalog",
    );
    assert_eq!(requests, 4 * PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("answer_relevance"));
    assert!(theirs["instances"][0]["answer_relevance_using_gpt4o_openai"].is_number());
    assert!(theirs["instances"][0]["answer_relevance_positional_bias"].is_boolean());
    assert!(theirs["instances"][0]["answer_relevance_prompts"]["posional_bias_option_selection"].is_array());
    assert!(theirs["global"]["answer_relevance_ci_low"].is_number(), "{}", theirs["global"]);
}

/// The catalog GPT-4o judge with the engine it comes with (cross-provider, `open-ai`, which
/// Unitxt runs through LiteLLM), only its credentials pointed at the test server; the same
/// with a template judge.
#[test]
fn catalog_judges_with_their_own_cross_provider_engine_match_unitxt() {
    let (theirs, requests) = compare(
        "metrics.llm_as_judge.direct.openai.gpt_4o[inference_engine=engines.judge_litellm,criteria=metrics.llm_as_judge.direct.criteria.answer_relevance,context_fields=[question]]",
        "litellm",
    );
    assert_eq!(requests, 4 * PREDICTIONS.len());
    assert!(theirs["instances"][0]["answer_relevance_using_gpt4o_cross_provider"].is_number(), "{}", theirs["instances"][0]);
    let (theirs, requests) = compare_on(
        "cards.judge_rag",
        &rag_predictions(),
        "metrics.rag.response_generation.faithfulness.gpt_4o_azure_judge[inference_model=engines.judge_litellm]",
        "litellm-task-based",
    );
    assert_eq!(requests, PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("gpt_4o_2024_08_06_open-ai_faithfulness_judge"), "{}", theirs["global"]);
}

/// A custom criteria with an option map (and an option without a description), summaries,
/// context fields named by a dict, an evaluator name with capitals, spaces and dots.
#[test]
fn custom_criteria_with_option_map_and_summaries_match_unitxt() {
    let (theirs, requests) = compare("judge_test.custom_judge", "custom");
    assert_eq!(requests, 5 * PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("answer_quality"));
    assert!(theirs["instances"][0]["answer_quality_positional_bias_summary"].is_string());
    assert!(theirs["instances"][0]["answer_quality_using_custom-judge 1,5_openai"].is_null(), "the evaluator name is used as is, lowercased");
    assert!(theirs["instances"][0]["answer_quality_using_custom-judge 1.5_openai"].is_number());
}

/// A judge without positional bias or prompts in the results, its scores prefixed, its
/// evaluator named after the engine (no `evaluator_name`).
#[test]
fn judge_without_bias_or_prompts_with_a_score_prefix_matches_unitxt() {
    let (theirs, requests) = compare("judge_test.plain_judge", "plain");
    assert_eq!(requests, 2 * PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("my_answer_quality"));
    assert!(theirs["instances"][0]["my_answer_quality_using_judge_model_openai_openai"].is_number(), "{}", theirs["instances"][0]);
    assert!(theirs["instances"][0].get("my_answer_quality_prompts").is_none());
}

/// Criteria read from a task data field (catalog names and a JSON criteria), each with its
/// own context fields, no positional bias: several criteria, so the main score is
/// `llm_as_judge`.
#[test]
fn criteria_from_a_task_data_field_match_unitxt() {
    let (theirs, requests) = compare("judge_test.by_field", "field");
    assert_eq!(requests, 2 * PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("llm_as_judge"));
    assert!(theirs["instances"][2]["llm_as_judge_criteria"].as_str().unwrap().contains("Answer Quality"));
    assert!(theirs["instances"][0].get("llm_as_judge_positional_bias").is_none());
}

/// Three systems' responses per instance (as lists: systems `1`, `2`, `3`).
fn three_systems() -> Vec<Value> {
    PREDICTIONS.iter().enumerate().map(|(i, p)| json!([p, format!("I am not sure ({i})."), ROWS[i].1])).collect()
}

/// A catalog pairwise judge with a catalog criteria: every pair of three systems, each also
/// swapped (positional bias).
#[test]
fn catalog_pairwise_judge_matches_unitxt() {
    let (theirs, requests) = compare_on(
        "cards.judge_pairs",
        &three_systems(),
        "metrics.llm_as_judge.pairwise.openai.gpt_4o[inference_engine=engines.judge_test,criteria=metrics.llm_as_judge.pairwise.criteria.factually_consistent,context_fields=[question]]",
        "pairwise",
    );
    assert_eq!(requests, PREDICTIONS.len() * 3 * 2 * 2);
    assert_eq!(theirs["global"]["score_name"], json!("1_winrate"));
    assert!(theirs["global"]["3_winrate"].is_number());
    assert!(theirs["instances"][0]["2_positional_bias"].is_array());
}

/// A pairwise judge with named systems (dicts), summaries and an inline criteria.
#[test]
fn pairwise_judge_with_named_systems_and_summaries_matches_unitxt() {
    let predictions: Vec<Value> = three_systems().iter().map(|p| json!({"alpha": p[0], "beta": p[1], "gamma": p[2]})).collect();
    let (theirs, requests) = compare_on("cards.judge_pairs", &predictions, "judge_test.pairwise_judge", "pairwise-named");
    assert_eq!(requests, PREDICTIONS.len() * 3 * 5);
    assert_eq!(theirs["global"]["score_name"], json!("alpha_winrate"));
    assert!(theirs["instances"][1]["gamma_summaries"].is_array());
}

/// A judge inside a `metric_pipeline`: the pipeline's preprocessing (lower-cased predictions)
/// reaches the judge's prompts, and the judge gets the whole stream with the model client.
#[test]
fn judge_in_a_metric_pipeline_matches_unitxt() {
    let (theirs, requests) = compare("judge_test.pipeline_judge", "pipeline");
    assert_eq!(requests, 2 * PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("answer_quality"));
    let prompt = theirs["instances"][1]["answer_quality_prompts"]["assessment"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("paris — the capital of france"), "{prompt}");
}

/// `llm_as_judge` with a rating template: the question is each instance's input as its own
/// template renders it (formats.empty), the answer its prediction; the score is the rating
/// the template's postprocessor reads (0 when the answer has none).
#[test]
fn rating_template_judge_matches_unitxt() {
    let (theirs, requests) = compare("judge_test.rating_judge", "rating");
    assert_eq!(requests, PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("rating_judge"));
    assert!(theirs["global"]["rating_judge_ci_low"].is_number(), "{}", theirs["global"]);
    assert!(theirs["instances"][0]["rating_judge_judge_raw_input"].is_array(), "chat API prompts are kept as messages");
}

/// A catalog `llm_as_judge` with a reference (its engine replaced): the first reference is the
/// reference answer.
#[test]
fn catalog_rating_judge_with_reference_matches_unitxt() {
    let (theirs, _) = compare(
        "metrics.llm_as_judge.rating.llama_3_70b_instruct.generic_single_turn_with_reference[inference_model=engines.judge_test]",
        "rating-ref",
    );
    assert_eq!(theirs["global"]["score_name"], json!("llama_3_70b_instruct_template_generic_single_turn_with_reference"));
}

/// `llm_as_judge` reading each instance's input as the model got it (its `source`, with the
/// card's instruction and target prefix), a reference answer, formats.empty, a reduction map
/// and fewer resamples.
#[test]
fn template_judge_on_the_model_input_matches_unitxt() {
    let (theirs, requests) = compare_on("cards.judge_rag", &rag_predictions(), "judge_test.source_judge", "source");
    assert_eq!(requests, PREDICTIONS.len());
    let input = theirs["instances"][0]["source_judge_judge_raw_input"].as_str().unwrap();
    assert!(input.contains("Answer from the passages."), "{input}");
}

/// `llm_as_judge` on the model input of a chat-format recipe: each instance's `source` is a
/// list of messages, which Unitxt's judge turns into question texts its own way (a one-message
/// chat gives two texts, shifting the questions of the later instances).
#[test]
fn template_judge_on_chat_model_inputs_matches_unitxt() {
    let (theirs, requests) = compare_recipe(
        "card=cards.judge_rag,template_card_index=0,format=formats.chat_api",
        &rag_predictions(),
        "judge_test.source_judge",
        "source-chat",
    );
    assert_eq!(requests, PREDICTIONS.len());
    // A system and a user message: their contents on two lines.
    let input = theirs["instances"][1]["source_judge_judge_raw_input"].as_str().unwrap();
    assert!(input.contains("[User input]\nAnswer from the passages.\nPassage 1"), "{input}");
    // One user message each (no instruction): the second instance is judged on the first's
    // question as `user: ...`, as Unitxt does.
    let predictions: Vec<Value> = PREDICTIONS.iter().map(|p| json!(p)).collect();
    let (theirs, _) = compare_recipe("card=cards.judge_qa,template_card_index=0,format=formats.chat_api", &predictions, "judge_test.source_judge", "source-chat-1");
    let input = theirs["instances"][1]["source_judge_judge_raw_input"].as_str().unwrap();
    assert!(input.contains("[User input]\nuser: What is 2+2?"), "{input}");
}

/// `llm_as_judge` comparing each prediction with the reference (arena-hard verdicts, as text
/// with formats.empty): its global score is the weighted win rate, without an interval.
#[test]
fn pairwise_template_judge_matches_unitxt() {
    let (theirs, requests) = compare("judge_test.arena_judge", "arena");
    assert_eq!(requests, PREDICTIONS.len());
    assert!(theirs["global"]["arena_judge"].is_number());
    assert!(theirs["global"].get("arena_judge_ci_low").is_none());
    assert!(theirs["instances"][0]["arena_judge_judge_raw_input"].is_string());
}

/// Predictions on the RAG card.
fn rag_predictions() -> Vec<Value> {
    PREDICTIONS.iter().map(|p| json!(p)).collect()
}

/// A catalog `task_based_ll_mas_judge` (its engine replaced): the judge task's fields from the
/// task data, the prediction as `answer`, a verbal judgement; the engine's meta data in the
/// scores, every score prefixed by the engine's id.
#[test]
fn task_based_judge_matches_unitxt() {
    let (theirs, requests) = compare_on(
        "cards.judge_rag",
        &rag_predictions(),
        "metrics.rag.response_generation.faithfulness.gpt_4o_azure_judge[inference_model=engines.judge_test]",
        "task-based",
    );
    assert_eq!(requests, PREDICTIONS.len());
    assert_eq!(theirs["global"]["score_name"], json!("judge_model_openai_faithfulness_judge"));
    assert!(theirs["instances"][0]["judge_model_openai_faithfulness_judge_input_tokens"].is_number(), "{}", theirs["instances"][0]);
}

/// A `task_based_ll_mas_judge` that reads log probabilities: `Yes`/`No` probabilities of the
/// first tokens become the score; the raw output is the log probabilities as JSON text.
#[test]
fn log_probability_judge_matches_unitxt() {
    let (theirs, requests) = compare_on("cards.judge_rag", &rag_predictions(), "judge_test.faithfulness_logprobs", "logprobs");
    assert_eq!(requests, PREDICTIONS.len());
    let raw = theirs["instances"][0]["judge_model_openai_faithfulness_logprobs_judge_raw_output"].as_str().unwrap();
    assert!(raw.starts_with("[{\"text\": "), "{raw}");
    let scores: Vec<f64> = (0..PREDICTIONS.len()).map(|i| theirs["instances"][i]["judge_model_openai_faithfulness_logprobs"].as_f64().unwrap()).collect();
    assert!(scores.iter().any(|x| *x > 0.0 && *x < 1.0), "{scores:?}");
}

/// Runs `unitxt-rs evaluate` with `metric` on the question card against `server`; returns the
/// process output and the scores written (empty when none).
fn evaluate_rs(server: &Server, metric: &str, tag: &str, extra: &[&str]) -> (std::process::Output, String) {
    let dir = std::env::temp_dir().join(format!("unitxt-rs-judge-run-{}-{tag}", std::process::id()));
    let catalog = dir.join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    write_catalog(&catalog, server.port, metric);
    let preds = dir.join("predictions.json");
    std::fs::write(&preds, serde_json::to_string(PREDICTIONS).unwrap()).unwrap();
    let out = dir.join("scores.json");
    let o = cli()
        .args(["evaluate", "card=cards.judge_qa,template_card_index=0", "--split", "test", "--predictions"])
        .arg(&preds)
        .arg("--catalog")
        .arg(&catalog)
        .arg("-o")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    (o, written)
}

/// A judge request that fails is an error naming the judge, the endpoint and the instance
/// (exit status 4), with no score written and the key shown nowhere.
#[test]
fn a_failed_judge_request_names_the_judge_the_endpoint_and_the_instance() {
    let server = Server::failing(answer_text, "It is green.");
    let (o, written) = evaluate_rs(&server, "judge_test.custom_judge", "fail", &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("llm_judge_direct") && stderr.contains("instance 2") && stderr.contains(&format!("http://127.0.0.1:{}/v1", server.port)), "{stderr}");
    assert!(stderr.contains("assessment"), "{stderr}");
    assert!(written.is_empty());
    assert!(!stderr.contains("sk-judge-secret"));
}

/// A template judge whose request fails names the judge, its endpoint and the instance too,
/// and writes no score.
#[test]
fn a_failed_template_judge_request_names_the_judge_the_endpoint_and_the_instance() {
    let server = Server::failing(answer_text, "It is green.");
    let (o, written) = evaluate_rs(&server, "judge_test.rating_judge", "fail-template", &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("llm_as_judge") && stderr.contains("instance 2") && stderr.contains(&format!("http://127.0.0.1:{}/v1", server.port)), "{stderr}");
    assert!(written.is_empty());
    assert!(!stderr.contains("sk-judge-secret"));
}

/// `--judge-engine` gives every judge among the metrics that engine, as the overwrite
/// `[inference_engine=...]` does: the same requests and scores as the overwritten catalog judge
/// (whose scores equal Unitxt's, see `catalog_judge_with_catalog_criteria_matches_unitxt`).
#[test]
fn judge_engine_replaces_each_judges_engine() {
    let server = Server::start(answer_text);
    let judge = "metrics.llm_as_judge.direct.openai.gpt_4o[criteria=metrics.llm_as_judge.direct.criteria.answer_relevance,context_fields=[question]]";
    let (o, replaced) = evaluate_rs(&server, judge, "judge-engine", &["--judge-engine", "engines.judge_test"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a = sorted_canonical(&server.take());
    assert_eq!(a.len(), 4 * PREDICTIONS.len());
    let overwritten = judge.replace("[criteria=", "[inference_engine=engines.judge_test,criteria=");
    let (o, expected) = evaluate_rs(&server, &overwritten, "judge-engine-overwrite", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(a, sorted_canonical(&server.take()));
    assert!(replaced.contains("answer_relevance_using_gpt4o_openai"), "{replaced}");
    assert_eq!(replaced, expected);
}

/// A template judge wants one reference per prediction, as Unitxt's does: two are an error
/// naming the instance, before any request.
#[test]
fn a_template_judge_refuses_several_references() {
    let server = Server::start(answer_text);
    let dir = std::env::temp_dir().join(format!("unitxt-rs-judge-multi-{}", std::process::id()));
    let catalog = dir.join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    write_catalog(&catalog, server.port, "judge_test.rating_judge");
    let preds = dir.join("predictions.json");
    std::fs::write(&preds, serde_json::to_string(PREDICTIONS).unwrap()).unwrap();
    let o = cli()
        .args(["evaluate", "card=cards.judge_multi_ref,template_card_index=0", "--split", "test", "--predictions"])
        .arg(&preds)
        .arg("--catalog")
        .arg(&catalog)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("instance 0: expected exactly one reference per prediction, got 2"), "{stderr}");
    assert!(server.take().is_empty());
}

/// With `--cache`, judge answers are kept: evaluating again sends no request and gives the
/// same scores.
#[test]
fn judge_answers_are_cached() {
    let server = Server::start(answer_text);
    let cache = std::env::temp_dir().join(format!("unitxt-rs-judge-cache-{}.sqlite", std::process::id()));
    let cache_arg = cache.to_str().unwrap().to_string();
    let (o, first) = evaluate_rs(&server, "judge_test.custom_judge", "cache1", &["--cache", &cache_arg]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(server.take().len(), 5 * PREDICTIONS.len());
    let (o, second) = evaluate_rs(&server, "judge_test.custom_judge", "cache2", &["--cache", &cache_arg]);
    std::fs::remove_file(&cache).ok();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(server.take().len(), 0, "a re-evaluation sends no request");
    assert!(first.contains("answer_quality_selected_option"));
    assert_eq!(first, second);
}

/// `catalog check --endpoint URL` runs one inference request and one evaluation by each judge
/// family against the scripted server (2 requests per judge: assessment and option or winner
/// selection), and reports each as ran, with the answer or the judge's main score; against a
/// server that refuses every request, each family is reported as failed, naming the endpoint,
/// and the command fails.
#[test]
fn catalog_check_endpoint_runs_each_judge_family() {
    let dir = std::env::temp_dir().join(format!("unitxt-rs-judge-oracle-{}-endpoint", std::process::id()));
    std::fs::create_dir_all(dir.join("metrics")).unwrap();
    std::fs::write(dir.join("metrics/acc_probe_only.json"), r#"{"__type__": "accuracy"}"#).unwrap();
    // The installed catalog holds the template judges' tasks and templates; only the test's
    // own artifact is checked.
    let check = |port: u16| {
        cli()
            .env_remove("UNITXT_CATALOGS")
            .env("OPENAI_API_KEY", "sk-probe-secret")
            .args(["catalog", "check", "metrics.acc_probe_only", "--catalog"])
            .arg(&dir)
            .args(["--endpoint", &format!("http://127.0.0.1:{port}/v1"), "--endpoint-model", "probe-model"])
            .output()
            .unwrap()
    };
    let server = Server::start(answer_text);
    let o = check(server.port);
    let bodies = server.take();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let url = format!("http://127.0.0.1:{}/v1", server.port);
    let lines: Vec<&str> = out.split_once("\n\n").unwrap().1.lines().collect();
    assert_eq!(lines[0], format!("endpoint {url} (model probe-model):"));
    assert_eq!(lines[1], format!("  inference                ran (1 request; answer \"{}\")", answer_text(&serde_json::from_str(&bodies[0]).unwrap())));
    assert_eq!(lines[2], "  llm_judge_direct         ran (2 requests; correct = 1.0)");
    assert_eq!(lines[3], "  llm_judge_pairwise       ran (2 requests; 1_winrate = 1.0)");
    // The rating and the groundedness depend on the answer (a rating in [0, 1], or 0.0 when
    // the answer has none; one of 0, 1/3, 2/3, 1).
    let score = |line: &str, head: &str| -> f64 {
        assert!(line.starts_with(head), "{line}");
        line[head.len()..].trim_end_matches(')').parse().unwrap()
    };
    assert!((0.0..=1.0).contains(&score(lines[4], "  llm_as_judge             ran (1 request; llm_as_judge = ")));
    let g = score(lines[5], "  task_based_ll_mas_judge  ran (1 request; probe_model_openai_faithfulness = ");
    assert!([0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0].iter().any(|x| (x - g).abs() < 1e-9), "{g}");
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(bodies.len(), 7);
    let refusing = Server::failing(answer_text, "probe-model");
    let o = check(refusing.port);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success());
    assert!(err.contains(&format!("5 of 5 checks against http://127.0.0.1:{}/v1 failed", refusing.port)), "{err}");
    assert!(!out.contains("sk-probe-secret") && !err.contains("sk-probe-secret"));
    std::fs::remove_dir_all(&dir).ok();
    let lines: Vec<&str> = out.split_once("\n\n").unwrap().1.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    for (line, family) in lines[1..].iter().zip(["inference", "llm_judge_direct", "llm_judge_pairwise", "llm_as_judge", "task_based_ll_mas_judge"]) {
        assert!(line.starts_with(&format!("  {family:<24} failed (1 request): ")), "{line}");
        assert!(line.contains("HTTP 400"), "{line}");
    }
}
