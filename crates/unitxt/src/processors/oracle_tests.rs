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

/// The fixture's `{"__float__": "nan"}` (how the generator writes Python's non-finite floats)
/// as the float it stands for.
fn decode_floats(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("__float__") => {
            let f: f64 = match m["__float__"].as_str().unwrap_or_default() {
                "nan" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                other => other.parse().unwrap_or(f64::NAN),
            };
            Value::Number(crate::value::Number::float(f))
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), decode_floats(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(decode_floats).collect()),
        other => other.clone(),
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
            for case in entry["cases"].as_array().cloned().unwrap_or_default() {
                let input = case["in"].clone();
                let got = crate::evaluate::postprocess(std::slice::from_ref(&name), input.clone(), vec![input.clone()], task_data.clone(), &cat);
                let want_error = case.get("error").is_some();
                let (want_p, want_r) = (decode_floats(&case["prediction"]), decode_floats(&case["references"]));
                checked += 1;
                match got {
                    Ok((p, r)) if !want_error => {
                        let r = Value::Array(r);
                        if p != want_p || r != want_r {
                            failures.push(format!(
                                "{name} on {input}: got {p} / {r}, Unitxt {} / {}",
                                case["prediction"], case["references"]
                            ));
                        }
                    }
                    Ok((p, _)) => failures.push(format!("{name} on {input}: got {p}, Unitxt raised")),
                    Err(e) if !want_error => failures.push(format!("{name} on {input}: error {e}, Unitxt gave {case}")),
                    Err(_) => {}
                }
            }
        }
    }
    assert!(checked > 2000, "only {checked} cases");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Every processor in the catalog's `processors/` folder builds, including the one whose JSON
/// holds a bare `NaN` (as Python's `json` reads it).
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
        let (p, r) = crate::evaluate::postprocess(
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
