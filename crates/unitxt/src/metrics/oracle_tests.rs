//! The metrics added for catalog coverage checked against Unitxt 1.26.10:
//! `testdata/metrics_oracle.json` (written by `testdata/metrics_oracle_gen.py` with the oracle
//! venv) holds, per case, a metric (a catalog name or an inline artifact), constructed
//! predictions, references and task data, and the global and instance scores Unitxt gives when
//! the metric is applied to them as one stream (default seed, confidence intervals on), or the
//! error it raises. Each case runs through [`crate::evaluate::evaluate`]: scores must agree to
//! 1e-9, interval bounds to 1e-6, names and counts exactly, NaN with NaN.

use crate::evaluate::{evaluate, EvaluateOptions, ScoreMap, ScoreValue};
use crate::value::{Instance, Value};

fn golden_float(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        Value::String(s) if s == "Infinity" => Some(f64::INFINITY),
        Value::String(s) if s == "-Infinity" => Some(f64::NEG_INFINITY),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// `Err` describes the difference of one score.
fn same(name: &str, ours: &ScoreValue, theirs: &Value) -> Result<(), String> {
    let tol = if name.ends_with("_ci_low") || name.ends_with("_ci_high") { 1e-6 } else { 1e-9 };
    let close = |a: f64, b: f64| {
        (a.is_nan() && b.is_nan()) || a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= tol)
    };
    let ok = match (ours, theirs) {
        (ScoreValue::Text(a), Value::String(b)) if golden_float(theirs).is_none() => a == b,
        (ScoreValue::None, Value::Null) => true,
        (ScoreValue::Int(a), Value::Number(n)) => n.as_i64() == Some(*a) || n.as_f64() == Some(*a as f64),
        (ScoreValue::List(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| golden_float(y).is_some_and(|y| close(*x, y)))
        }
        (ScoreValue::Float(a), t) => golden_float(t).is_some_and(|b| close(*a, b)),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`{name}`: ours {ours:?}, Unitxt {theirs}"))
    }
}

fn compare(what: &str, ours: &ScoreMap, theirs: &Value) -> Vec<String> {
    let Some(theirs) = theirs.as_object() else { return vec![format!("{what}: golden is not an object")] };
    let mut ok: Vec<&str> = ours.keys().map(|k| k.as_str()).collect();
    let mut tk: Vec<&str> = theirs.keys().map(|k| k.as_str()).collect();
    ok.sort();
    tk.sort();
    if ok != tk {
        return vec![format!("{what}: names {ok:?}, Unitxt has {tk:?}")];
    }
    theirs
        .iter()
        .filter_map(|(k, v)| same(k, &ours[k.as_str()], v).err().map(|e| format!("{what}: {e}")))
        .collect()
}

#[test]
fn metrics_match_unitxt() {
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("testdata/metrics_oracle.json")).expect("metrics_oracle.json parses");
    assert!(!cases.is_empty());
    // Inline metrics go to a catalog of their own, as `metrics.oracle_case_<i>`.
    let dir = std::env::temp_dir().join(format!("unitxt-rs-metrics-oracle-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("metrics")).unwrap();
    let opts = EvaluateOptions { confidence_intervals: true, catalogs: vec![dir.clone()], ..Default::default() };
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let metric = match &case["metric"] {
            Value::String(s) => s.to_string(),
            inline => {
                std::fs::write(dir.join(format!("metrics/oracle_case_{i}.json")), inline.to_string()).unwrap();
                format!("metrics.oracle_case_{i}")
            }
        };
        let preds = case["predictions"].as_array().unwrap().clone();
        let refs = case["references"].as_array().unwrap();
        let tds = case["task_data"].as_array().unwrap();
        let rows: Vec<Instance> = refs
            .iter()
            .zip(tds)
            .map(|(r, td)| {
                let mut row = Instance::new();
                row.insert("metrics".into(), Value::Array(vec![Value::String(metric.clone().into())]));
                row.insert("references".into(), r.clone());
                row.insert("task_data".into(), td.clone());
                row.insert("postprocessors".into(), Value::Array(Vec::new()));
                row.insert("subset".into(), Value::Array(Vec::new()));
                row.insert("groups".into(), Value::Array(Vec::new()));
                row.insert("source".into(), Value::String("".into()));
                row
            })
            .collect();
        let res = evaluate(&rows, &preds, &opts);
        match (res, case.get("error")) {
            (Err(_), Some(_)) => {}
            (Ok(_), Some(e)) => failures.push(format!("{name}: Unitxt fails ({}), we do not", e.as_str().unwrap_or("").lines().last().unwrap_or(""))),
            (Err(e), None) => failures.push(format!("{name}: we fail: {e}")),
            (Ok(r), None) => {
                let mut diffs = compare("global", &r.global, &case["global"]);
                for (k, (o, t)) in r.instances.iter().zip(case["instances"].as_array().unwrap()).enumerate() {
                    diffs.extend(compare(&format!("instance {k}"), o, t));
                }
                diffs.truncate(6);
                failures.extend(diffs.into_iter().map(|d| format!("{name}: {d}")));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
