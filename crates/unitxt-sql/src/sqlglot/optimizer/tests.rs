//! The optimizer's rules against sqlglot 30.8.0, step by step: `testdata/sqlglot_optimize_gen.py`
//! records the SQL after each rule of `optimize`; each covered query must give the same.

use super::qualify::qualify;
use super::OptimizeError;
use crate::sqlglot::generator::{sql, Options};
use crate::sqlglot::generator_tests::from_json;

#[test]
fn qualify_is_sqlglots() {
    let path = format!("{}/testdata/sqlglot_optimize.json", env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("oracle")).expect("json");
    let (mut agree, mut unsupported, mut bad) = (0, 0, Vec::new());
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for case in data["cases"].as_array().expect("cases") {
        let mut tree = from_json(&case["input"]);
        let raised = case["output"]["rule"].as_str() == Some("qualify");
        match qualify(&mut tree) {
            Err(OptimizeError::Unsupported(why)) => {
                unsupported += 1;
                *reasons.entry(why).or_default() += 1;
            }
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
    eprintln!("unsupported: {reasons:?}");
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(15).cloned().collect::<Vec<_>>().join("\n"));
}
