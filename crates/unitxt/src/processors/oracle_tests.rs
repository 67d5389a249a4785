//! Processors checked against the real Unitxt 1.26.10: `testdata/oracle.json` holds, for every
//! processor in the catalog's `processors/` folder, the processed prediction and references
//! (or the fact that Unitxt raised) for tricky predictions. Regenerate with
//! `testdata/gen_oracle.py`.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::value::Value;

fn catalog() -> Option<Arc<Catalog>> {
    Some(crate::testutil::unitxt_catalog())
}

fn oracle() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("testdata/oracle.json")).expect("oracle.json parses");
    v.as_array().cloned().unwrap_or_default()
}

/// Whether Unitxt's output holds a NaN or infinity (recorded as `{"__float__": ...}`), which a
/// JSON value cannot hold: we must return an error there.
fn has_nonfinite(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("__float__") || m.values().any(has_nonfinite),
        Value::Array(a) => a.iter().any(has_nonfinite),
        _ => false,
    }
}

#[test]
fn processors_match_unitxt() {
    let Some(cat) = catalog() else { return };
    let task_data = crate::json!({"options": ["cat", "dog", "a bird", "Hello", "yes", "no"]});
    let mut failures = Vec::new();
    let mut checked = 0;
    {
        for entry in oracle() {
            let name = entry["processor"].as_str().unwrap_or_default().to_string();
            // Needs a NaN in its catalog JSON, which this catalog reader rejects (see below).
            if name == "processors.cast_to_float_return_nan_if_failed" {
                continue;
            }
            for case in entry["cases"].as_array().cloned().unwrap_or_default() {
                let input = case["in"].clone();
                let got = super::postprocess(std::slice::from_ref(&name), input.clone(), vec![input.clone()], task_data.clone(), &cat);
                let want_error = case.get("error").is_some()
                    || has_nonfinite(&case["prediction"])
                    || has_nonfinite(&case["references"]);
                checked += 1;
                match got {
                    Ok((p, r)) if !want_error => {
                        let r = Value::Array(r);
                        if p != case["prediction"] || r != case["references"] {
                            failures.push(format!(
                                "{name} on {input}: got {p} / {r}, Unitxt {} / {}",
                                case["prediction"], case["references"]
                            ));
                        }
                    }
                    Ok((p, _)) => failures.push(format!("{name} on {input}: got {p}, Unitxt raised or gave NaN")),
                    Err(e) if !want_error => failures.push(format!("{name} on {input}: error {e}, Unitxt gave {case}")),
                    Err(_) => {}
                }
            }
        }
    }
    assert!(checked > 2000, "only {checked} cases");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Every processor in the catalog's `processors/` folder builds, except the one whose JSON
/// holds a bare `NaN` (not JSON; the catalog reader rejects it with an error, no panic).
#[test]
fn every_catalog_processor_builds() {
    let Some(cat) = catalog() else { return };
    let mut failures = Vec::new();
    let mut n = 0;
    {
        for name in cat.all_names().into_iter().filter(|n| n.starts_with("processors.")) {
            n += 1;
            let r = crate::registry::fetch(&cat, &name);
            match (name.as_str(), r) {
                ("processors.cast_to_float_return_nan_if_failed", Err(e)) => {
                    assert!(e.to_string().contains("not valid JSON"), "{e}")
                }
                (_, Ok(crate::registry::Artifact::Operator(_))) => {}
                (_, Ok(a)) => failures.push(format!("{name}: built a {}", a.kind())),
                (_, Err(e)) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert_eq!(n, 56);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Several processors in a row, as an instance's `postprocessors` list is applied; values
/// from the real Unitxt (`_post_process` steps on the same instance).
#[test]
fn chained_postprocessors() {
    let Some(cat) = catalog() else { return };
    {
        let names: Vec<String> =
            ["processors.take_first_non_empty_line", "processors.lower_case_till_punc", "processors.to_list_by_comma"]
                .map(String::from)
                .to_vec();
        let (p, r) = super::postprocess(
            &names,
            Value::from("\n  Paris, Lyon; Nice\nrest"),
            vec![Value::from("PARIS,lyon. x")],
            crate::json!({}),
            &cat,
        )
        .expect("runs");
        assert_eq!(p, crate::json!(["paris"]));
        assert_eq!(Value::Array(r), crate::json!([["paris"]]));
    }
}
