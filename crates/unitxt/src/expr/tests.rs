//! Tests of the sandbox. Expected values in `testdata/python_cases.json` were produced by
//! running each expression with CPython 3.11's `eval` in /work/venv (script:
//! `testdata/gen_python_cases.py`); sets are compared sorted.

use super::*;
use crate::value::Value;

fn vars_and_cases() -> Value {
    serde_json::from_str(include_str!("testdata/python_cases.json")).expect("test data is valid JSON")
}

fn sorted_array(v: Value) -> Value {
    match v {
        Value::Array(mut a) => {
            a.sort_by(|x, y| x.to_string().cmp(&y.to_string()));
            Value::Array(a)
        }
        other => other,
    }
}

#[test]
fn matches_python_on_reference_cases() {
    let data = vars_and_cases();
    let vars = data["vars"].as_object().expect("vars").clone();
    let mut failures = Vec::new();
    let cases = data["ok"].as_array().expect("ok cases");
    assert!(cases.len() > 250);
    for case in cases {
        let src = case[0].as_str().expect("source");
        let expected = &case[1];
        let is_set = case[2].as_bool().unwrap_or(false);
        let got = Expression::parse(src).and_then(|e| e.eval(&vars));
        match got {
            Ok(v) => {
                let (v, expected) =
                    if is_set { (sorted_array(v), sorted_array(expected.clone())) } else { (v, expected.clone()) };
                if v != expected {
                    failures.push(format!("{src}\n    got      {v}\n    expected {expected}"));
                }
            }
            Err(e) => failures.push(format!("{src}\n    error {e}")),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn errors_and_sandbox_rejections() {
    let data = vars_and_cases();
    let vars = data["vars"].as_object().expect("vars").clone();
    let mut unexpected = Vec::new();
    for case in data["err"].as_array().expect("err cases") {
        let src = case[0].as_str().expect("source");
        match Expression::parse(src).and_then(|e| e.eval(&vars)) {
            Ok(v) => unexpected.push(format!("{src} -> {v}")),
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Expression, "{src}: {e}");
                assert!(e.to_string().contains(src), "error must name the expression: {e}");
            }
        }
    }
    assert!(unexpected.is_empty(), "expected errors:\n{}", unexpected.join("\n"));
}

/// Every `expression` of `execute_expression`/`filter_by_expression` in Unitxt 1.26.10's
/// catalog (collected with a walk over the catalog JSON files).
const CATALOG_EXPRESSIONS: &[&str] = &[
    "int(adherence_score)",
    "['yes' if adherence_score else 'no']",
    "[{\"name\": k, \"arguments\": dict(zip(v.keys(), vals))} for d in ground_truth for k, v in d.items() \
     for vals in itertools.product(*v.values())]",
    "(mean_score - 1) / 4",
    "re.search(r\"Document:\\s(.*)(\\n\\n|$)\", inputs).group(1)",
    "re.search(r\"Question:\\s(.*)(\\n\\n|$)\", inputs).group(1)",
    "len(document) <= 10000",
    "len(document) <= 6000",
    "mean_score/6",
    "question.split('[SEP]')[0]",
    "[[p for p, c in tool['parameters']['properties'].items() if 'optional' not in c['type'].lower()] \
     for tool in tools]",
    "len(text.split()) < 543",
    "[t for t in re.findall(r\"assert.*?(?=\\n\\s*assert|$)\", test.replace(\"candidate\", entry_point), re.DOTALL)]",
    "int(round((score_model_1_ordered_first+score_model_2_ordered_first)/2))",
    "(human_score - 1) / 4",
    "'bird/'+db_id",
    "str(id)",
];

#[test]
fn every_catalog_expression_parses_and_evaluates() {
    let data = vars_and_cases();
    let vars = data["vars"].as_object().expect("vars").clone();
    for src in CATALOG_EXPRESSIONS {
        let e = Expression::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        e.eval(&vars).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

/// Walks the installed Unitxt catalog when present and checks that each expression there is in
/// [`CATALOG_EXPRESSIONS`] and parses.
#[test]
fn catalog_walk_finds_only_known_expressions() {
    let root_dir = crate::testutil::unitxt_catalog_dir();
    let root = root_dir.as_path();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                let t = m.get("__type__").and_then(|t| t.as_str());
                if matches!(t, Some("execute_expression" | "filter_by_expression")) {
                    if let Some(e) = m.get("expression").and_then(|e| e.as_str()) {
                        out.push(e.to_string());
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable catalog") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).expect("readable file");
                if let Ok(v) = serde_json::from_str::<Value>(&text) {
                    walk(&v, &mut found);
                }
            }
        }
    }
    assert!(found.len() >= 60, "found {} expressions", found.len());
    for src in &found {
        Expression::parse(src).unwrap_or_else(|e| panic!("{e}"));
        let normalized: String = src.split_whitespace().collect::<Vec<_>>().join(" ");
        let known = CATALOG_EXPRESSIONS.iter().any(|k| k.split_whitespace().collect::<Vec<_>>().join(" ") == normalized);
        assert!(known, "catalog expression not covered by the tests: {src}");
    }
}

#[test]
fn apply_functions_of_the_catalog() {
    // Unitxt's Apply with function "str.lower" / "json.loads" (values checked with CPython).
    assert_eq!(call_function("str.lower", vec![Value::from("GPT-4 Turbo")]).unwrap(), Value::from("gpt-4 turbo"));
    let v = call_function("json.loads", vec![Value::from("{\"b\": [1, 2.0], \"a\": null}")]).unwrap();
    assert_eq!(serde_json::to_string(&v).unwrap(), "{\"b\":[1,2.0],\"a\":null}");
    assert_eq!(call_function("len", vec![Value::from("abc")]).unwrap(), Value::from(3));
    assert_eq!(call_function("str.upper", vec![Value::from("é")]).unwrap(), Value::from("É"));
    let e = call_function("os.system", vec![Value::from("ls")]).unwrap_err();
    assert!(e.to_string().contains("os.system"), "{e}");
    assert!(call_function("str.__class__", vec![]).is_err());
    assert!(call_function("str.lower", vec![Value::from(1)]).is_err());
}

#[test]
fn limits_stop_runaway_expressions() {
    let vars = Instance::new();
    let e = Expression::parse("sum(1 for _ in range(10**9))").unwrap().eval(&vars).unwrap_err();
    assert!(e.to_string().contains("steps"), "{e}");
    let e = Expression::parse("'x' * (10**8)").unwrap().eval(&vars).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    let e = Expression::parse("[list(range(1000)) for _ in range(100000)]").unwrap().eval(&vars).unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");
}

#[test]
fn expression_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Expression>();
}

#[test]
fn deep_nesting_and_recursion_are_errors_not_crashes() {
    let vars = Instance::new();
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(Expression::parse(&deep).is_err());
    let chain = vec!["1"; 5000].join("+");
    assert!(Expression::parse(&chain).is_err());
    assert!(Expression::parse(&vec!["1"; 150].join("+")).is_ok());
    let e = Expression::parse("(lambda f: f(f))(lambda f: f(f))").unwrap().eval(&vars).unwrap_err();
    assert!(e.to_string().contains("recursion"), "{e}");
    // brackets inside strings do not count
    assert_eq!(Expression::parse(&format!("len('{}')", "(".repeat(500))).unwrap().eval(&vars).unwrap(), 500);
}

#[test]
fn names_and_string_keys() {
    let e = Expression::parse("[t for t in re.findall(r'a.*', test.replace('c', entry_point)) if f'{t}' != x['k']]").unwrap();
    let mut names = e.names();
    names.sort();
    assert_eq!(names, ["entry_point", "re", "t", "t", "test", "x"]);
    let lam = |src: &str| Expression::parse(src).unwrap().string_keys_of("x");
    assert_eq!(lam("x['subject'] == 'anatomy' and x[\"lang\"] in ('en', 'fr')"), Some(vec!["subject".into(), "lang".into()]));
    assert_eq!(lam("y['a'] == 1"), Some(vec![]));
    assert_eq!(lam("x['a'] == 1 or len(x) > 2"), None);
    assert_eq!(lam("x[k] == 1"), None);
    assert_eq!(lam("(lambda z=x['d']: z)() == 1"), Some(vec!["d".into()]));
    assert_eq!(lam("{**x}['a']"), None);
    assert_eq!(lam("f'{x}'"), None);
}
