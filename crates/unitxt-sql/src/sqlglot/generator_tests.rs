//! The generator against sqlglot 30.8.0: the trees sqlglot parsed from the corpus of
//! `testdata/sqlglot_parse_gen.py` are read back and printed here, and every string must
//! equal sqlglot's (`.sql()`, `.sql(normalize=True)`, and the pieces Unitxt's
//! `sqlglot_parsed_queries_equivalent` compares).

use super::ast::{Arg, Expr};
use super::generator::{sql, Options};

/// Reads a tree in the oracle's JSON shape.
pub(crate) fn from_json(v: &serde_json::Value) -> Expr {
    let mut e = Expr::new(v["class"].as_str().expect("class"));
    if let Some(args) = v.get("args").and_then(|a| a.as_object()) {
        for (k, a) in args {
            let arg = match a {
                serde_json::Value::Object(_) => Arg::Expr(Box::new(from_json(a))),
                serde_json::Value::Array(items) => Arg::List(items.iter().map(from_json).collect()),
                serde_json::Value::String(s) => Arg::Str(s.clone()),
                serde_json::Value::Bool(b) => Arg::Bool(*b),
                other => panic!("unexpected argument {other}"),
            };
            e.args.push((k.clone(), arg));
        }
    }
    if let Some(c) = v.get("comments").and_then(|c| c.as_array()) {
        e.comments = c.iter().map(|s| s.as_str().expect("comment").to_string()).collect();
    }
    e
}

#[test]
fn generated_sql_is_sqlglots() {
    let path = format!("{}/testdata/sqlglot_parse.json", env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("oracle")).expect("json");
    let plain = Options::default();
    let norm = Options { normalize: true, ..Options::default() };
    let (mut agree, mut unsupported, mut bad) = (0, Vec::new(), Vec::new());
    for case in data["cases"].as_array().expect("cases") {
        let tree = &case["default"];
        // Errors, and a Block holding an empty statement (dumped as the text `None`).
        if tree.get("error").is_some() || tree["class"] == "Block" {
            continue;
        }
        let e = from_json(tree);
        let mut checks: Vec<(String, Result<String, _>, String)> = vec![
            ("sql".into(), sql(&e, plain), case["sql"].as_str().unwrap_or("").to_string()),
            ("normalized".into(), sql(&e, norm), case["normalized"].as_str().unwrap_or("").to_string()),
        ];
        if let Some(parts) = case.get("parts") {
            for (i, item) in e.list("expressions").iter().enumerate() {
                let mut item = item.clone();
                item.unset("alias");
                checks.push((format!("col {i}"), sql(&item, norm), parts["cols"][i].as_str().unwrap().to_string()));
            }
            for k in ["where", "group", "having", "order"] {
                let got = e.child(k).map(|c| sql(c, norm)).unwrap_or(Ok(String::new()));
                checks.push((k.into(), got, parts[k].as_str().unwrap().to_string()));
            }
        }
        let mut ok = true;
        for (what, got, want) in checks {
            match got {
                Err(u) => {
                    unsupported.push(format!("{}: {u}", case["sql"]));
                    ok = false;
                    break;
                }
                Ok(g) if g != want => {
                    bad.push(format!("{what} of {}\n  want {want}\n  got  {g}", case["sql"]));
                    ok = false;
                }
                Ok(_) => {}
            }
        }
        if ok {
            agree += 1;
        }
    }
    eprintln!("generator: {agree} agree, {} unsupported, {} mismatches", unsupported.len(), bad.len());
    for u in unsupported.iter().take(10) {
        eprintln!("unsupported: {u}");
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

/// `diff` against sqlglot's on the pairs of `testdata/sqlglot_diff_gen.py`: optimized trees
/// of the metric oracle's pairs, and pairs of parsed queries.
#[test]
fn diff_is_sqlglots() {
    use super::diff::diff;
    let path = format!("{}/testdata/sqlglot_diff.json", env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("oracle")).expect("json");
    let (mut agree, mut unsupported, mut bad) = (0, Vec::new(), Vec::new());
    for case in data["cases"].as_array().expect("cases") {
        let (s, t) = (from_json(&case["source"]), from_json(&case["target"]));
        let want = &case["edits"];
        let n = |k: &str| want.get(k).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        match diff(&s, &t) {
            Err(u) => unsupported.push(u.to_string()),
            Ok(got) => {
                let want_counts = (n("Insert"), n("Remove"), n("Move"), n("Update"), n("Keep"));
                let got_counts = (got.insert, got.remove, got.moved, got.update, got.keep);
                if want_counts == got_counts {
                    agree += 1;
                } else {
                    let sql = |e| super::generator::sql(e, Default::default()).unwrap_or_default();
                    bad.push(format!("{} vs {}\n  want {want_counts:?}\n  got  {got_counts:?}", sql(&s), sql(&t)));
                }
            }
        }
    }
    eprintln!("diff: {agree} agree, {} unsupported, {} mismatches", unsupported.len(), bad.len());
    for u in unsupported.iter().take(10) {
        eprintln!("unsupported: {u}");
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n"));
}
