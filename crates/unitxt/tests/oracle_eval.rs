//! Golden comparison of evaluation against Unitxt 1.26.10 on real data.
//!
//! For every `SPLIT<TAB>RECIPE` line of `tests/oracle_eval_recipes.tsv`, `scripts/oracle_eval.py`
//! (run by the project's test command before this test) wrote the predictions it derived and
//! the scores of Unitxt's `evaluate` to `target/oracle-eval/<key>.json`. This test prepares the
//! same split, evaluates the same predictions and compares every global and instance score:
//! scores to 1e-9, confidence-interval bounds to 1e-6, names and counts exactly, NaN with NaN.
//! A missing golden file is a failure, not a skip.

mod common;

use std::path::{Path, PathBuf};

use common::{key, root};
use libtest_mimic::{Arguments, Failed, Trial};
use unitxt::evaluate::{evaluate, EvaluateOptions, ScoreMap, ScoreValue};
use unitxt::api::{prepare, PrepareOptions};
use unitxt::Value;

/// Compares one score; `Err` describes the difference.
fn same(name: &str, ours: &ScoreValue, theirs: &Value) -> Result<(), String> {
    let tol = if name.ends_with("_ci_low") || name.ends_with("_ci_high") { 1e-6 } else { 1e-9 };
    let golden_float = match theirs {
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        Value::String(s) if s == "Infinity" => Some(f64::INFINITY),
        Value::String(s) if s == "-Infinity" => Some(f64::NEG_INFINITY),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    let ok = match (ours, theirs) {
        (ScoreValue::Text(a), Value::String(b)) => a == b,
        (ScoreValue::None, Value::Null) => true,
        (ScoreValue::Int(a), Value::Number(n)) => n.as_i64() == Some(*a),
        (ScoreValue::List(a), Value::Array(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| same(name, &ScoreValue::Float(*x), y).is_ok())
        }
        (ScoreValue::Float(a), _) => match golden_float {
            Some(b) if a.is_nan() || b.is_nan() => a.is_nan() && b.is_nan(),
            Some(b) if a.is_infinite() || b.is_infinite() => a == &b,
            Some(b) => (a - b).abs() <= tol,
            None => false,
        },
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`{name}`: ours {ours:?}, Unitxt {theirs}"))
    }
}

fn compare(what: &str, ours: &ScoreMap, theirs: &Value) -> Result<(), String> {
    let theirs = theirs.as_object().ok_or_else(|| format!("{what}: golden scores are not an object"))?;
    let mut ok: Vec<&String> = ours.keys().collect();
    let mut tk: Vec<&str> = theirs.keys().map(|k| k.as_str()).collect();
    ok.sort();
    tk.sort();
    if ok != tk {
        return Err(format!("{what}: score names {ok:?}, Unitxt has {tk:?}"));
    }
    let mut diffs = Vec::new();
    for (k, v) in theirs {
        if let Err(e) = same(k, &ours[k.as_str()], v) {
            diffs.push(e);
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", diffs.join("; ")))
    }
}

/// Compares a nested score tree (`groups` / `subsets`); ours has NaN as `null`.
fn compare_tree(path: &str, ours: &Value, theirs: &Value, diffs: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(o), Value::Object(t)) => {
            let mut ok: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
            let mut tk: Vec<&str> = t.keys().map(|k| k.as_str()).collect();
            ok.sort();
            tk.sort();
            if ok != tk {
                diffs.push(format!("{path}: names {ok:?}, Unitxt has {tk:?}"));
                return;
            }
            for (k, v) in t {
                compare_tree(&format!("{path}/{k}"), &o[k.as_str()], v, diffs);
            }
        }
        _ => {
            let mine = match ours {
                Value::Null => ScoreValue::Float(f64::NAN),
                Value::Number(n) if n.is_i64() => ScoreValue::Int(n.as_i64().unwrap_or_default()),
                Value::Number(n) => ScoreValue::Float(n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => ScoreValue::Text(s.as_str().to_owned()),
                other => ScoreValue::Text(other.to_string()),
            };
            let mine = match (&mine, theirs) {
                (ScoreValue::Int(i), Value::Number(n)) if !n.is_i64() => ScoreValue::Float(*i as f64),
                _ => mine,
            };
            if let Err(e) = same(path.rsplit('/').next().unwrap_or(path), &mine, theirs) {
                diffs.push(format!("{path}: {e}"));
            }
        }
    }
}

fn run_case(split: &str, recipe: &str, golden_dir: &Path) -> Result<(), Failed> {
    let k = key(split, recipe);
    let golden = golden_dir.join(format!("{k}.json"));
    let text = std::fs::read_to_string(&golden).map_err(|e| {
        let err = golden_dir.join(format!("{k}.error"));
        let why = std::fs::read_to_string(&err).ok().and_then(|t| t.lines().last().map(String::from));
        format!(
            "golden file {} is missing ({e}){}; run the test command from the README, which runs \
             scripts/oracle_eval.py first",
            golden.display(),
            why.map(|w| format!("; Unitxt failed: {w}")).unwrap_or_default()
        )
    })?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let predictions = doc["predictions"].as_array().ok_or("golden file has no predictions")?.clone();
    let rows = prepare(recipe, &PrepareOptions::default())
        .and_then(|mut ms| ms.take(split))
        .and_then(unitxt::stream::collect)
        .map_err(|e| format!("preparing the recipe failed: {e}"))?;
    let res = evaluate(&rows, &predictions, &EvaluateOptions::default()).map_err(|e| format!("evaluate failed: {e}"))?;
    let mut errors = Vec::new();
    if let Err(e) = compare("global", &res.global, &doc["global"]) {
        errors.push(e);
    }
    for (part, ours) in [("groups", &res.groups), ("subsets", &res.subsets)] {
        if let Some(theirs) = doc.get(part) {
            let mut diffs = Vec::new();
            match ours {
                Some(o) => compare_tree(part, o, theirs, &mut diffs),
                None => diffs.push(format!("{part}: ours has none")),
            }
            diffs.truncate(8);
            errors.extend(diffs);
        }
    }
    let golden_instances = doc["instances"].as_array().ok_or("golden file has no instances")?;
    if golden_instances.len() != res.instances.len() {
        errors.push(format!("{} instance scores, Unitxt has {}", res.instances.len(), golden_instances.len()));
    }
    let mut bad = 0;
    for (i, (o, t)) in res.instances.iter().zip(golden_instances).enumerate() {
        if let Err(e) = compare(&format!("instance {i} (prediction {:?})", predictions[i]), o, t) {
            bad += 1;
            if bad <= 5 {
                errors.push(e);
            }
        }
    }
    if bad > 5 {
        errors.push(format!("... {bad} instances differ in all"));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    if std::env::var_os("HF_HUB_CACHE").is_none() {
        std::env::set_var("HF_HUB_CACHE", root().join("../shared/hf-hub"));
    }
    std::env::set_var("HF_HUB_OFFLINE", "1");
    if std::env::var_os("UNITXT_CATALOGS").is_none() {
        std::env::set_var("UNITXT_CATALOGS", root().join("tests/catalog"));
    }
    let golden_dir = std::env::var_os("UNITXT_RS_ORACLE_EVAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/oracle-eval"));
    let list = std::fs::read_to_string(root().join("tests/oracle_eval_recipes.tsv")).expect("tests/oracle_eval_recipes.tsv");
    let mut trials = Vec::new();
    for (n, line) in list.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (split, recipe) = line.split_once('\t').expect("SPLIT<TAB>RECIPE");
        let (split, recipe, dir) = (split.to_string(), recipe.to_string(), golden_dir.clone());
        let name = format!("line{:03}::{}::{}", n + 1, split, recipe.replace([',', '='], "_"));
        trials.push(Trial::test(name, move || run_case(&split, &recipe, &dir)));
    }
    libtest_mimic::run(&args, trials).exit();
}
