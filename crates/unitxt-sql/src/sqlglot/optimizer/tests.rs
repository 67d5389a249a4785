//! The optimizer against sqlglot 30.8.0, rule by rule: `testdata/sqlglot_optimize_gen.py`
//! records the SQL after each rule of `optimize`, the optimized tree, and the rule that raised;
//! each covered query must give the same at every step.

use super::qualify::qualify;
use super::{optimize_with, OptimizeError};
use crate::sqlglot::generator::{sql, Options};
use crate::sqlglot::generator_tests::from_json;

fn oracle() -> serde_json::Value {
    let path = format!("{}/testdata/sqlglot_optimize.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("oracle")).expect("json")
}

#[test]
fn qualify_is_sqlglots() {
    let data = oracle();
    let (mut agree, mut unsupported, mut bad) = (0, 0, Vec::new());
    for case in data["cases"].as_array().expect("cases") {
        let mut tree = from_json(&case["input"]);
        let raised = case["output"]["rule"].as_str() == Some("qualify");
        match qualify(&mut tree) {
            Err(OptimizeError::Unsupported(_)) => unsupported += 1,
            Err(OptimizeError::Raises(m)) => {
                if raised {
                    agree += 1;
                } else {
                    bad.push(format!("{}: we raise ({m}), sqlglot does not", case["sql"]));
                }
            }
            Ok(()) => {
                if raised {
                    bad.push(format!("{}: sqlglot raises, we do not", case["sql"]));
                    continue;
                }
                let want = case["steps"][0][1].as_str().expect("qualify step");
                let got = sql(&tree, Options::default()).expect("generated");
                if got == want {
                    agree += 1;
                } else {
                    bad.push(format!("{}\n  want {want}\n  got  {got}", case["sql"]));
                }
            }
        }
    }
    eprintln!("qualify: {agree} agree, {unsupported} unsupported, {} mismatches", bad.len());
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(15).cloned().collect::<Vec<_>>().join("\n"));
}

#[test]
fn optimize_is_sqlglots_rule_by_rule() {
    let data = oracle();
    let (mut agree, mut raised_both, mut unsupported, mut bad) = (0, 0, 0, Vec::new());
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for case in data["cases"].as_array().expect("cases") {
        let tree = from_json(&case["input"]);
        let steps = case["steps"].as_array().expect("steps");
        let mut got_steps: Vec<(String, String)> = Vec::new();
        let result = optimize_with(&tree, |rule, e| got_steps.push((rule.to_string(), sql(e, Options::default()).unwrap_or_else(|u| format!("<{u}>")))));
        // Every step we completed must equal sqlglot's.
        let mut step_bad = None;
        for (i, (rule, got)) in got_steps.iter().enumerate() {
            match steps.get(i) {
                Some(want) if want[1].as_str() == Some(got) => {}
                Some(want) => {
                    step_bad = Some(format!("{} after {rule}\n  want {}\n  got  {got}", case["sql"], want[1].as_str().unwrap_or("")));
                    break;
                }
                None => {
                    step_bad = Some(format!("{} after {rule}: sqlglot raised in {}", case["sql"], case["output"]["rule"]));
                    break;
                }
            }
        }
        if let Some(b) = step_bad {
            bad.push(b);
            continue;
        }
        match result {
            Err(OptimizeError::Unsupported(why)) => {
                unsupported += 1;
                *reasons.entry(why).or_default() += 1;
            }
            Err(OptimizeError::Raises(m)) => {
                let rule = super::RULES.get(got_steps.len()).copied().unwrap_or("?");
                if case["output"]["rule"].as_str() == Some(rule) {
                    raised_both += 1;
                } else {
                    bad.push(format!("{}: we raise in {rule} ({m}); sqlglot: {}", case["sql"], case["output"]));
                }
            }
            Ok(out) => {
                let want = &case["output"];
                let got: serde_json::Value = serde_json::from_str(&out.to_json()).expect("json");
                if &got == want {
                    agree += 1;
                } else {
                    bad.push(format!("{}: the optimized trees differ\n  want {want}\n  got  {got}", case["sql"]));
                }
            }
        }
    }
    eprintln!("optimize: {agree} equal trees, {raised_both} raise in both, {unsupported} unsupported, {} mismatches", bad.len());
    eprintln!("unsupported: {reasons:?}");
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n"));
}
