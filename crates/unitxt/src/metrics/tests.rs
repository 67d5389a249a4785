//! Expected values come from running Unitxt 1.26.10's metric classes in /work/venv (with
//! scikit-learn 1.9.1 and scipy 1.17.1) on the same predictions and references, through
//! `metric(MultiStream.from_iterables({"test": instances}))` with `n_resamples = None`.
//! Matthews correlation (an HF `evaluate` script, not loadable offline) is checked against
//! sklearn's published `matthews_corrcoef` definition, computed by hand.

use crate::json;

use super::*;
use crate::registry::Artifact;

fn build(v: Value) -> Art<dyn Metric> {
    match crate::testutil::build(&v) {
        Ok(Artifact::Metric(m)) => m,
        Ok(other) => panic!("not a metric: {}", other.kind()),
        Err(e) => panic!("build failed: {e}"),
    }
}

/// Runs a metric; returns (global scores, instance scores).
fn run(v: Value, preds: Value, refs: Value, task_data: Option<Value>) -> (Scores, Vec<Scores>) {
    let m = build(v);
    let preds = preds.as_array().unwrap().clone();
    let refs = refs.as_array().unwrap().clone();
    let mut records = Vec::new();
    for (i, (p, r)) in preds.iter().zip(&refs).enumerate() {
        let td = task_data
            .as_ref()
            .map(|t| t[i].as_object().unwrap().clone())
            .unwrap_or_default();
        records.push(m.map(p, r.as_array().unwrap(), &td).unwrap());
    }
    let refs: Vec<&Value> = records.iter().collect();
    let global = m.reduce(&refs).unwrap();
    let inst = records
        .iter()
        .map(|r| m.instance_scores(r).unwrap())
        .collect();
    (global, inst)
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-9
}

/// Checks scores equal `expected` (a JSON object; "NaN" strings for NaN), keys in order.
fn check(got: &Scores, expected: Value) {
    let exp = expected.as_object().unwrap();
    let got_keys: Vec<&str> = got.keys().map(|k| k.as_str()).collect();
    let exp_keys: Vec<&str> = exp.keys().map(|k| k.as_str()).collect();
    assert_eq!(got_keys, exp_keys, "keys of {got:?}");
    for (k, v) in exp {
        let e = if v == "NaN" {
            f64::NAN
        } else {
            v.as_f64().unwrap()
        };
        assert!(close(got[k.as_str()], e), "{k}: got {}, expected {e}", got[k.as_str()]);
    }
}

fn check_inst(got: &[Scores], key: &str, expected: &[f64]) {
    let g: Vec<f64> = got.iter().map(|s| s[key]).collect();
    assert_eq!(g.len(), expected.len());
    for (a, b) in g.iter().zip(expected) {
        assert!(close(*a, *b), "{key}: {g:?} vs {expected:?}");
    }
}

#[test]
fn accuracy_and_containment() {
    let (g, i) = run(
        json!({"__type__": "accuracy_fast"}),
        json!(["a", "b", 1, "c"]),
        json!([["a"], ["c", "b"], ["1"], ["d"]]),
        None,
    );
    check(&g, json!({"accuracy": 0.75}));
    check_inst(&i, "accuracy", &[1.0, 1.0, 1.0, 0.0]);
    let (g, _) = run(
        json!({"__type__": "string_containment"}),
        json!(["hello world", "x", 3]),
        json!([["world"], ["y", "z"], ["3"]]),
        None,
    );
    check(&g, json!({"string_containment": 0.6666666666666666}));
    let (g, i) = run(
        json!({"__type__": "exact_match_mm"}),
        json!(["(B) foo", "option c", "The answer is A", "", "b"]),
        json!([["b"], ["c"], ["a"], ["a"], ["a"]]),
        None,
    );
    check(&g, json!({"exact_match_mm": 0.6}));
    check_inst(&i, "exact_match_mm", &[1.0, 1.0, 1.0, 0.0, 0.0]);
    let (g, _) = run(
        json!({"__type__": "unsorted_list_exact_match"}),
        json!([["b", "a"], ["a"]]),
        json!([[["a", "b"]], [["a", "a"]]]),
        None,
    );
    check(&g, json!({"unsorted_list_exact_match": 0.5}));
    let (g, i) = run(
        json!({"__type__": "jaccard_index"}),
        json!([["a", "b", "c"], ["x"]]),
        json!([[["a", "b"], ["c", "d"]], [["y"]]]),
        None,
    );
    check(&g, json!({"jaccard_index": 0.3333333333333333}));
    check_inst(&i, "jaccard_index", &[0.6666666666666666, 0.0]);
    let (g, _) = run(
        json!({"__type__": "prediction_length"}),
        json!(["abc", "hello"]),
        json!([["x"], ["y"]]),
        None,
    );
    check(&g, json!({"prediction_length": 4.0}));
    let (g, i) = run(
        json!({"__type__": "string_containment_ratio", "field": "entities"}),
        json!(["john met mary", "nobody"]),
        json!([["x"], ["y"]]),
        Some(json!([{"entities": ["john", "mary", "bob"]}, {"entities": ["z"]}])),
    );
    check(&g, json!({"string_containment": 0.3333333333333333}));
    check_inst(&i, "string_containment", &[0.6666666666666666, 0.0]);
    let (g, i) = run(
        json!({"__type__": "relaxed_correctness", "n_resamples": null}),
        json!(["10.2", "5%", "abc", "3"]),
        json!([["10"], ["0.05"], ["ABC"], ["4"]]),
        Some(
            json!([{"type": "human_test"}, {"type": "aug"}, {"type": "human_test"}, {"type": "aug"}]),
        ),
    );
    check(
        &g,
        json!({"relaxed_overall": 0.75, "relaxed_human_split": 1.0, "relaxed_augmented_split": 0.5}),
    );
    check(
        &i[1],
        json!({"relaxed_overall": 1.0, "relaxed_augmented_split": 1.0}),
    );
    assert!(
        build(json!({"__type__": "relaxed_correctness", "n_resamples": null}))
            .ci_scores()
            .is_empty()
    );
}

#[test]
fn retrieval() {
    let (g, i) = run(
        json!({"__type__": "mrr"}),
        json!([["a", "b", "c"], ["x", "y"], []]),
        json!([[["c", "b"]], [["z"]], [["a"]]]),
        None,
    );
    check(&g, json!({"mrr": 0.16666666666666666}));
    check_inst(&i, "mrr", &[0.5, 0.0, 0.0]);
    let (g, i) = run(
        json!({"__type__": "map"}),
        json!([["a", "b", "c", "d"], ["x", "y"]]),
        json!([[["c", "a", "q"]], [["y"]]]),
        None,
    );
    check(&g, json!({"map": 0.6666666666666666}));
    check_inst(&i, "map", &[0.8333333333333333, 0.5]);
    let m = json!({"__type__": "retrieval_at_k", "k_list": [1, 3, 5]});
    let (g, _) = run(
        m.clone(),
        json!([["a", "b", "c", "d"], ["x", "y"], []]),
        json!([[["c", "a", "q"]], [["y"]], [["a"]]]),
        None,
    );
    check(
        &g,
        json!({"precision_at_1": 0.3333333333333333, "precision_at_3": 0.38888888888888884,
               "precision_at_5": 0.3333333333333333, "recall_at_1": 0.1111111111111111,
               "recall_at_3": 0.5555555555555555, "recall_at_5": 0.5555555555555555,
               "match_at_1": 0.3333333333333333, "match_at_3": 0.6666666666666666,
               "match_at_5": 0.6666666666666666}),
    );
    assert_eq!(build(m).main_score(), "match_at_1");
}

const LP: &str = r#"[["cat","dog","dog","bird","cat","fish"], [["cat"],["cat"],["dog"],["bird"],["dog"],["cat"]]]"#;

fn lp() -> (Value, Value) {
    let v: Value = serde_json::from_str(LP).unwrap();
    (v[0].clone(), v[1].clone())
}

#[test]
fn f1_family() {
    let (p, r) = lp();
    let (g, i) = run(json!({"__type__": "f1_macro"}), p.clone(), r.clone(), None);
    check(
        &g,
        json!({"f1_macro": 0.6333333333333333, "f1_cat": 0.4, "f1_dog": 0.5, "f1_bird": 1.0}),
    );
    check(&i[1], json!({"f1_macro": 0.0, "f1_cat": 0.0}));
    let (g, i) = run(json!({"__type__": "f1_micro"}), p.clone(), r.clone(), None);
    check(&g, json!({"f1_micro": 0.5454545454545454}));
    check_inst(&i, "f1_micro", &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    let (g, _) = run(
        json!({"__type__": "f1_weighted"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(&g, json!({"f1_weighted": 0.5333333333333333}));
    // The catalog's metrics.f1_macro and metrics.f1_micro.
    let fm = json!({"__type__": "f1_fast", "main_score": "f1_macro", "averages": ["macro", "per_class"],
                    "ci_score_names": ["f1_macro"]});
    let (g, i) = run(fm, p.clone(), r.clone(), None);
    check(
        &g,
        json!({"f1_macro": 0.6333333333333333, "f1_cat": 0.4, "f1_dog": 0.5, "f1_bird": 1.0}),
    );
    check(&i[2], json!({"f1_macro": 1.0, "f1_dog": 1.0}));
    let (g, _) = run(
        json!({"__type__": "f1_fast", "main_score": "f1_micro", "averages": ["micro"]}),
        p,
        r,
        None,
    );
    check(&g, json!({"f1_micro": 0.5454545454545454}));
}

#[test]
fn set_order_of_label_ids() {
    // list({0, 9, 5}) == [0, 9, 5] in CPython (9 lands in slot 1 of an 8-slot table).
    assert_eq!(py_set_order(&[0, 5, 9]), vec![0, 2, 1]);
    assert_eq!(py_set_order(&(0..20).rev().collect::<Vec<_>>()).len(), 20);
}

#[test]
fn binary_family() {
    let p = json!([0.9, 0.2, 0.6, 0.4, 0.7]);
    let r = json!([[1], [0], [0], [1], [1]]);
    let all = json!({"f1_binary": 0.6666666666666666, "f1_binary_neg": 0.5, "recall_binary": 0.6666666666666666,
                     "recall_binary_neg": 0.5, "precision_binary": 0.6666666666666666, "precision_binary_neg": 0.5});
    let (g, i) = run(json!({"__type__": "f1_binary"}), p.clone(), r.clone(), None);
    check(&g, all.clone());
    check_inst(&i, "f1_binary", &[f64::NAN; 5]);
    let m = build(json!({"__type__": "precision_binary"}));
    assert_eq!(m.main_score(), "precision_binary");
    assert_eq!(m.ci_scores(), vec!["f1_binary", "f1_binary_neg"]);
    let (g, i) = run(
        json!({"__type__": "precision_binary"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(&g, all);
    check_inst(&i, "precision_binary", &[f64::NAN; 5]);
    let (g, i) = run(json!({"__type__": "binary_accuracy"}), p, r, None);
    check(&g, json!({"accuracy_binary": 0.6}));
    check_inst(&i, "accuracy_binary", &[1.0, 1.0, 0.0, 0.0, 1.0]);
    let p = json!([0.9, 0.2, 0.6, 0.4, 0.7, 0.35]);
    let r = json!([[1], [0], [0], [1], [1], [0]]);
    let (g, _) = run(
        json!({"__type__": "binary_max_f1"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(
        &g,
        json!({"max_f1_binary": 0.8571428571428571, "best_thr_maxf1": 0.4, "max_f1_binary_neg": 0.8571428571428571,
               "best_thr_maxf1_neg": 0.7, "recall_at_max_f1": 1.0, "recall_at_max_f1_neg": 1.0,
               "precision_at_max_f1": 0.75, "precision_at_max_f1_neg": 0.75}),
    );
    let (g, _) = run(json!({"__type__": "binary_max_accuracy"}), p, r, None);
    check(
        &g,
        json!({"max_accuracy_binary": 0.8333333333333334, "best_thr_max_acc": 0.4}),
    );
    let (g, _) = run(
        json!({"__type__": "roc_auc"}),
        json!([0.9, 0.2, 0.6, 0.4, 0.7, 0.6, 0.1]),
        json!([[1.0], [0.0], [0.0], [1.0], [1.0], [0.0], [1.0]]),
        None,
    );
    check(&g, json!({"roc_auc": 0.5833333333333333}));
}

#[test]
fn multi_label() {
    let p = json!([["a"], ["a", "b"], ["c"], []]);
    let r = json!([[["a", "b"]], [["b"]], [["c"]], [["a"]]]);
    // Unitxt's per-label key order comes from a string set (varies per process); values match.
    let (g, i) = run(
        json!({"__type__": "f1_macro_multi_label"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(
        &g,
        json!({"f1_macro": 0.7222222222222222, "f1_a": 0.5, "f1_b": 0.6666666666666666, "f1_c": 1.0}),
    );
    check(&i[0], json!({"f1_macro": 0.5, "f1_a": 1.0, "f1_b": 0.0}));
    let (g, i) = run(
        json!({"__type__": "f1_micro_multi_label"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(&g, json!({"f1_micro": 0.6666666666666666}));
    check_inst(&i, "f1_micro", &[0.6666666666666666, 1.0, 1.0, 0.0]);
    let (g, _) = run(
        json!({"__type__": "precision_macro_multi_label"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(&g, json!({"precision_macro": 0.8333333333333334}));
    let (g, i) = run(json!({"__type__": "recall_micro_multi_label"}), p, r, None);
    check(&g, json!({"recall_micro": 0.6}));
    check_inst(&i, "recall_micro", &[0.5, 1.0, 1.0, 0.0]);
}

#[test]
fn matthews_by_definition() {
    // 3 classes; confusion (true rows a,b,c): a->a, a->b, b->b, c->c, c->a, b->b.
    // t = [2,2,2], p = [2,3,1], correct = 4, n = 6: cov_ytyp = 24 - (4+6+2) = 12,
    // cov_ypyp = 36 - 14 = 22, cov_ytyt = 36 - 12 = 24 → 12 / sqrt(528).
    let (g, i) = run(
        json!({"__type__": "matthews_correlation"}),
        json!(["a", "b", "b", "c", "a", "b"]),
        json!([["a"], ["a"], ["b"], ["c"], ["c"], ["b"]]),
        None,
    );
    check(&g, json!({"matthews_correlation": 12.0 / 528f64.sqrt()}));
    check_inst(&i, "matthews_correlation", &[0.0; 6]);
}

#[test]
fn regression() {
    let p = json!([1.0, 2.5, 3.0]);
    let r = json!([[1.5], [2.0], [5.0]]);
    let (g, i) = run(
        json!({"__type__": "mean_squared_error"}),
        p.clone(),
        r.clone(),
        None,
    );
    check(&g, json!({"mean_squared_error": 1.5}));
    check_inst(&i, "mean_squared_error", &[0.25, 0.25, 4.0]);
    let (g, i) = run(json!({"__type__": "root_mean_squared_error"}), p, r, None);
    check(&g, json!({"root_mean_squared_error": 1.224744871391589}));
    check_inst(&i, "root_mean_squared_error", &[0.5, 0.5, 2.0]);
    let p = json!([1.0, 2.5, 3.0, 2.5, 0.1]);
    let r = json!([[1.5], [2.0], [5.0], [1.0], [0.3]]);
    let (g, i) = run(
        json!({"__type__": "spearmanr", "n_resamples": 100}),
        p.clone(),
        r.clone(),
        None,
    );
    assert!(close(g["spearmanr"], 0.8207826816681234));
    check_inst(&i, "spearmanr", &[f64::NAN; 5]);
    let (g, _) = run(
        json!({"__type__": "pearsonr", "n_resamples": 100}),
        p.clone(),
        r.clone(),
        None,
    );
    assert!(close(g["pearsonr"], 0.7008422642744699));
    let (g, _) = run(json!({"__type__": "kendall_tau_metric"}), p, r, None);
    assert!(close(g["kendalltau_b"], 0.7378647873726218));
}

#[test]
fn metrics_list_merges_items() {
    let m = build(
        json!({"__type__": "metrics_list", "items": [{"__type__": "accuracy_fast"},
        {"__type__": "string_containment"}]}),
    );
    assert_eq!(m.sub_metrics().map(|s| s.len()), Some(2));
    let rec = m
        .map(&json!("xa"), &[json!("a")], &Instance::new())
        .unwrap();
    check(
        &m.instance_scores(&rec).unwrap(),
        json!({"accuracy": 0.0, "string_containment": 1.0}),
    );
    check(
        &m.reduce(&[&rec]).unwrap(),
        json!({"accuracy": 0.0, "string_containment": 1.0}),
    );
}

/// Metric types of Unitxt's catalog that unitxt-rs does not implement yet. Artifacts of these
/// types fail to build with an "unknown artifact type" error that names the type.
const NOT_IMPLEMENTED: &[&str] = &[];

/// Catalog metrics that fail in Unitxt too: template judges whose engine names
/// `engines.ibm_gen_ai.llama_3_70b_instruct`, which Unitxt 1.26.10's catalog does not have.
const CATALOG_BUGS: &[&str] = &[
    "metrics.llm_as_judge.pairwise_comparative_rating.llama_3_70b_instruct_generic_engine_template_arena_hard",
    "metrics.llm_as_judge.pairwise_comparative_rating.llama_3_70b_instruct_generic_engine_template_arena_hard_with_shuffling",
    "metrics.llm_as_judge.pairwise_comparative_rating.llama_3_8b_instruct_generic_engine_template_arena_hard",
    "metrics.llm_as_judge.pairwise_comparative_rating.llama_3_8b_instruct_generic_engine_template_arena_hard_with_shuffling",
];

/// Every metric artifact in Unitxt's catalog (624 files) builds: into a metric we compute, into
/// a [`generation::NeedsModel`], or (the LLM-judge criteria under
/// `metrics.llm_as_judge.*.criteria`) into criteria data; except the types in
/// [`NOT_IMPLEMENTED`], which fail with an error naming their type, and the [`CATALOG_BUGS`],
/// which fail as in Unitxt: an artifact not found.
#[test]
fn every_catalog_metric_builds() {
    let cat = crate::testutil::unitxt_catalog();
    let mut failures = Vec::new();
    let (mut n, mut built, mut unsupported, mut criteria, mut bugs) = (0, 0, 0, 0, 0);
    {
        for name in cat.all_names().into_iter().filter(|n| n.starts_with("metrics.")) {
            n += 1;
            let r = crate::registry::fetch(&cat, &name);
            let raw: Value = serde_json::from_str(&std::fs::read_to_string(cat.find(&name).unwrap()).unwrap()).unwrap();
            let t = raw.get("__type__").and_then(Value::as_str).unwrap_or("").to_string();
            match r {
                Ok(Artifact::Metric(_)) => built += 1,
                Ok(Artifact::Criteria(_)) if t == "criteria" || t == "criteria_with_options" => criteria += 1,
                Err(e)
                    if NOT_IMPLEMENTED
                        .iter()
                        .any(|u| e.to_string().contains(&format!("unknown artifact type `__type__: {u}`"))) =>
                {
                    unsupported += 1;
                }
                Err(e) if CATALOG_BUGS.contains(&name.as_str()) && e.kind == crate::error::ErrorKind::NotFound => bugs += 1,
                Ok(a) => failures.push(format!("{name}: built a {}", a.kind())),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} of {n} fail:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((n, built, unsupported, criteria, bugs), (624, 547, 0, 73, 4));
}

/// Runs `crate::evaluate::evaluate` (no intervals) on instances that name `metric` from the
/// installed Unitxt catalog; returns (global scores, instance scores) as JSON.
fn evaluate_with_catalog_metric(metric: &str, preds: &[&str], refs: &[&[&str]], task_data: Value) -> (Value, Vec<Value>) {
    let dir = crate::testutil::unitxt_catalog_dir();
    let instances: Vec<crate::value::Instance> = preds
        .iter()
        .zip(refs)
        .map(|(_, r)| {
            let v = json!({"source": "q", "references": r, "metrics": [metric], "postprocessors": [],
                "task_data": task_data.to_string(), "groups": [], "subset": []});
            v.as_object().unwrap().clone()
        })
        .collect();
    let predictions: Vec<Value> = preds.iter().map(|p| Value::from(*p)).collect();
    let opts = crate::evaluate::EvaluateOptions { confidence_intervals: false, catalogs: vec![dir], ..Default::default() };
    let res = crate::evaluate::evaluate(&instances, &predictions, &opts).unwrap();
    let out = res.to_json();
    (out["global"].clone(), out["instances"].as_array().unwrap().clone())
}

/// `metrics.squad`, a `metric_pipeline` (add_id, set and copy steps that build SQuAD dicts,
/// then the `squad` metric). Expected values from the SQuAD v1.1 evaluation script's
/// definitions (normalize: lowercase, drop punctuation and articles a/an/the, collapse spaces;
/// exact match; token F1 best over the references), averaged and reported on a 0..1 scale as
/// Unitxt's `Squad` class (scale 100) reports them:
/// 1. "Denver Broncos" vs ["Denver Broncos", "The Denver Broncos"]: EM 1, F1 1;
/// 2. "the cat sat" vs ["a cat sat down"]: "cat sat" vs "cat sat down", 2 common tokens,
///    P = 1, R = 2/3, F1 = 0.8;
/// 3. "" vs ["Paris"]: 0, 0.
#[test]
fn squad_pipeline_from_the_catalog() {
    let (g, inst) = evaluate_with_catalog_metric(
        "metrics.squad",
        &["Denver Broncos", "the cat sat", ""],
        &[&["Denver Broncos", "The Denver Broncos"], &["a cat sat down"], &["Paris"]],
        json!({}),
    );
    assert_eq!(g["score_name"], "f1");
    assert!(close(g["f1"].as_f64().unwrap(), 0.6), "{g}");
    assert!(close(g["score"].as_f64().unwrap(), 0.6), "{g}");
    assert!(close(g["exact_match"].as_f64().unwrap(), 1.0 / 3.0), "{g}");
    let f1: Vec<f64> = inst.iter().map(|i| i["f1"].as_f64().unwrap()).collect();
    let em: Vec<f64> = inst.iter().map(|i| i["exact_match"].as_f64().unwrap()).collect();
    assert!(f1.iter().zip([1.0, 0.8, 0.0]).all(|(a, b)| close(*a, b)), "{f1:?}");
    assert_eq!(em, vec![1.0, 0.0, 0.0]);
    assert_eq!(inst[1]["score_name"], "f1");
}

/// `metrics.sacrebleu`, a `metric_pipeline` (copy `task_data/target_language` to `tokenize`,
/// default `en`, mapped to "" = sacreBLEU's default 13a tokenizer) around the HF `sacrebleu`
/// script, which calls `sacrebleu.corpus_bleu` with exp smoothing and no effective order.
/// Expected values: sacrebleu 2.6.0's `corpus_bleu` on the same segments (global: all three;
/// instance: each alone), including the list scores `counts`, `totals`, `precisions`.
#[test]
fn sacrebleu_pipeline_from_the_catalog() {
    let (g, inst) = evaluate_with_catalog_metric(
        "metrics.sacrebleu",
        &["the cat sat on the mat", "a quick brown fox", "hello world"],
        &[&["the cat is on the mat"], &["the quick brown fox jumps"], &["hello there world"]],
        json!({}),
    );
    assert_eq!(g["score_name"], "sacrebleu");
    assert!(close(g["sacrebleu"].as_f64().unwrap(), 31.546511309444828), "{g}");
    assert!(close(g["bp"].as_f64().unwrap(), 0.846481724890614), "{g}");
    assert_eq!(g["counts"], json!([10.0, 5.0, 2.0, 0.0]));
    assert_eq!(g["totals"], json!([12.0, 9.0, 6.0, 4.0]));
    let p: Vec<f64> = g["precisions"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    let want = [83.33333333333333, 55.55555555555556, 33.333333333333336, 12.5];
    assert!(p.iter().zip(want).all(|(a, b)| close(*a, b)), "{p:?}");
    assert_eq!((g["sys_len"].as_f64(), g["ref_len"].as_f64()), (Some(12.0), Some(14.0)));
    let s: Vec<f64> = inst.iter().map(|i| i["sacrebleu"].as_f64().unwrap()).collect();
    assert!(s.iter().zip([37.99178428257963, 46.30777161991026, 0.0]).all(|(a, b)| close(*a, b)), "{s:?}");
    assert_eq!(inst[2]["precisions"], json!([100.0, 50.0, 0.0, 0.0]));
}

/// `f1_fast`'s resampler (a pair histogram with few labels, instance-by-instance counting with
/// more than 64) gives the same scores, keys in the same order, as reducing the resampled
/// records themselves.
#[test]
fn f1_fast_resampler_equals_reduce() {
    let m = build(json!({"__type__": "f1_fast", "main_score": "f1_macro",
                         "averages": ["f1", "micro", "macro", "per_class"]}));
    for labels in [3usize, 5, 70] {
        // A fixed pseudo-random stream of (prediction, reference) pairs.
        let mut x: u64 = 12345 + labels as u64;
        let mut next = |k: usize| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as usize) % k
        };
        let records: Vec<Value> = (0..400)
            .map(|_| {
                let r = next(labels);
                let p = if next(3) == 0 { next(labels) } else { r };
                json!([format!("l{p}"), format!("l{r}")])
            })
            .collect();
        let refs: Vec<&Value> = records.iter().collect();
        let rs = m.resampler(&refs).unwrap().expect("f1_fast has a resampler");
        for round in 0..20 {
            let idx: Vec<usize> = (0..(50 + round * 17)).map(|_| next(records.len())).collect();
            let got = (rs.resample)(&idx).unwrap();
            let sub: Vec<&Value> = idx.iter().map(|&i| &records[i]).collect();
            let want = m.reduce(&sub).unwrap();
            let gk: Vec<&String> = got.keys().collect();
            let wk: Vec<&String> = want.keys().collect();
            assert_eq!(gk, wk, "{labels} labels, round {round}");
            for (k, v) in &want {
                assert!(close(got[k], *v), "{labels} labels, round {round}, {k}: {} vs {v}", got[k]);
            }
        }
    }
}
