//! Oracle cases for the instance operators: `testdata/instance_ops.jsonl` holds, per line, an
//! operator's catalog JSON, an input instance, and what Unitxt 1.26.10 produced for it
//! (`ok`: the output instance, or `error`: the Python exception class), obtained by running
//! the operator on a one-instance `test` stream in /work/venv.

use indexmap::IndexMap;

use crate::registry::Artifact;
use crate::stream::{collect, MultiStream};
use crate::value::Value;

#[test]
fn instance_operators_match_unitxt() {
    run_cases(include_str!("testdata/instance_ops.jsonl"));
}

/// Same, for the operators that evaluate Python through [`crate::expr`] (`testdata/expr_ops.jsonl`,
/// produced with `UNITXT_ALLOW_UNVERIFIED_CODE=True`).
#[test]
fn expression_operators_match_unitxt() {
    run_cases(include_str!("testdata/expr_ops.jsonl"));
}

/// Same, for the operators added for catalog coverage (`testdata/catalog_ops.jsonl`, written
/// by `testdata/catalog_ops_gen.py`): the table builders (CSV corner cases as Python's
/// `csv.reader` reads them, lists, Python-literal headers and rows), `recursive_replace` and
/// `iob_extractor`.
#[test]
fn catalog_coverage_operators_match_unitxt() {
    run_cases(include_str!("testdata/catalog_ops.jsonl"));
}

/// Same, for the operators that take field paths, run with `*` and other dict paths
/// (`testdata/wildcard_ops.jsonl`, written by `testdata/wildcard_ops_gen.py`): `copy` as the
/// span-labeling cards use it, `rename`, `move`, `set`, `map_instance_values`, `cast_fields`,
/// field operators with `process_every_value` / `set_every_value`.
#[test]
fn wildcard_path_operators_match_unitxt() {
    run_cases(include_str!("testdata/wildcard_ops.jsonl"));
}

/// Same, for the card operators of issue 39 over whole `test` streams
/// (`testdata/card_ops.jsonl`, written by `testdata/card_ops_gen.py`; `inputs` and `ok` are
/// lists of instances): `pop`, `duplicate_by_list`, `explode`, `duplicate_by_sub_lists`,
/// `to_dialog`, `serialize_dialog`, `serialize_open_ai_format_dialog`, `dump_json`,
/// `serialize_triples`, `serialize_key_val_pairs`, `list_to_key_val_pairs`,
/// `serialize_table_row_as_text`, `get_num_of_table_cells`, `fix_json_schema_of_parameter_types`,
/// `shuffle_field_values`, `extract_field_values` and `map_html_table_to_json` (that one with
/// beautifulsoup4 lent to Unitxt, see the generator).
#[test]
fn card_operators_match_unitxt() {
    let text = include_str!("testdata/card_ops.jsonl");
    let mut failures = Vec::new();
    let mut n_cases = 0;
    for (n, line) in text.lines().enumerate() {
        n_cases += 1;
        let case: Value = serde_json::from_str(line).expect("valid test case");
        let op_json = &case["op"];
        let inputs: Vec<crate::value::Instance> =
            case["inputs"].as_array().expect("inputs").iter().map(|i| i.as_object().expect("an instance").clone()).collect();
        let result = (|| {
            let Artifact::Operator(op) = crate::testutil::build(op_json)? else {
                return Err(crate::Error::invalid("not an operator"));
            };
            let ms = MultiStream::from_lists(IndexMap::from([("test".to_string(), inputs)]));
            let mut out = op.inner.clone().process(ms)?;
            collect(out.take("test")?)
        })();
        match (result, case.get("ok")) {
            (Ok(got), Some(want)) => {
                let got = serde_json::to_string(&Value::Array(got.into_iter().map(Value::Object).collect())).unwrap_or_default();
                let want = serde_json::to_string(want).unwrap_or_default();
                if got != want {
                    failures.push(format!("case {n} {op_json}: got {got}, want {want}"));
                }
            }
            (Err(_), None) => {}
            (Ok(got), None) => failures.push(format!("case {n} {op_json}: got {got:?}, want {}", case["error"])),
            (Err(e), Some(want)) => failures.push(format!("case {n} {op_json}: error {e}, want {want}")),
        }
    }
    // 158 cases, and 13 of map_html_table_to_json when beautifulsoup4 was lent to the generator.
    assert!(n_cases >= 171, "only {n_cases} cases (was the generator run without beautifulsoup4?)");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Same, for Unitxt's public operator classes that the catalog does not use (issue 53:
/// `truncate_table_cells`, `serialize_table_row_as_list`, `convert_table_col_names_to_sequential`,
/// `add_prefix`, `bytes_to_string`, `explode_sub_lists`, `divide_all_fields_by`,
/// `flatten_instances`, `intersect`, `intersect_corresponding_fields`, `collate_instances`,
/// `collate_instances_by_field`, `split_by_nested_group`, `extract_most_common_field_values`,
/// `balance`, `encode_labels`, `feature_grouped_shuffle`, `perturb`, `apply_operators_field`,
/// `apply_stream_operators_field`, `constant_size_sample`, `random_size_sample`), over whole
/// multi-streams (`testdata/public_ops.jsonl`, written by
/// `testdata/public_ops_gen.py`; `inputs` and `ok` map each split to its instances, `ok` lists
/// every output split in order). A case Unitxt refuses, when building or running, must fail here
/// too.
#[test]
fn public_operators_match_unitxt() {
    let text = include_str!("testdata/public_ops.jsonl");
    // Unitxt's catalog: `apply_operators_field` and `apply_stream_operators_field` apply the
    // catalog processors their instances name.
    let catalog = crate::testutil::unitxt_catalog();
    let mut failures = Vec::new();
    let mut n_cases = 0;
    for (n, line) in text.lines().enumerate() {
        n_cases += 1;
        let case: Value = serde_json::from_str(line).expect("valid test case");
        let op_json = &case["op"];
        let result = (|| {
            let Artifact::Operator(op) = crate::registry::build(op_json, &catalog)? else {
                return Err(crate::Error::invalid("not an operator"));
            };
            let mut lists = IndexMap::new();
            for (split, items) in case["inputs"].as_object().expect("inputs") {
                let items = items.as_array().expect("a list of instances").iter().map(|i| i.as_object().expect("an instance").clone()).collect();
                lists.insert(split.to_string(), items);
            }
            let mut out = op.inner.clone().process(MultiStream::from_lists(lists))?;
            let mut got = crate::value::Map::new();
            for name in out.names() {
                let items = collect(out.take(&name)?)?;
                got.insert(name.as_str().into(), Value::Array(items.into_iter().map(Value::Object).collect()));
            }
            Ok(Value::Object(got))
        })();
        match (result, case.get("ok")) {
            (Ok(got), Some(want)) => {
                let (got, want) = (serde_json::to_string(&got).unwrap_or_default(), serde_json::to_string(want).unwrap_or_default());
                if got != want {
                    failures.push(format!("case {n} {op_json}: got {got}, want {want}"));
                }
            }
            (Err(_), None) => {}
            (Ok(got), None) => failures.push(format!("case {n} {op_json}: got {got}, want {}", case["error"])),
            (Err(e), Some(want)) => failures.push(format!("case {n} {op_json}: error {e}, want {want}")),
        }
    }
    assert!(n_cases >= 122, "only {n_cases} cases");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

fn run_cases(cases: &str) {
    let mut failures = Vec::new();
    for (n, line) in cases.lines().enumerate() {
        let case: Value = serde_json::from_str(line).expect("valid test case");
        let op_json = &case["op"];
        let input = case["input"].as_object().expect("input is an object").clone();
        let result = (|| {
            let Artifact::Operator(op) = crate::testutil::build(op_json)? else {
                return Err(crate::Error::invalid("not an operator"));
            };
            let ms = MultiStream::from_lists(IndexMap::from([("test".to_string(), vec![input])]));
            let mut out = op.inner.clone().process(ms)?;
            let mut items = collect(out.take("test")?)?;
            Ok(items.remove(0))
        })();
        match (result, case.get("ok")) {
            (Ok(got), Some(want)) => {
                let got = serde_json::to_string(&Value::Object(got)).unwrap_or_default();
                let want = serde_json::to_string(want).unwrap_or_default();
                if got != want {
                    failures.push(format!("case {n} {op_json}: got {got}, want {want}"));
                }
            }
            (Err(_), None) => {}
            (Ok(got), None) => failures.push(format!("case {n} {op_json}: got {got:?}, want {}", case["error"])),
            (Err(e), Some(want)) => failures.push(format!("case {n} {op_json}: error {e}, want {want}")),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The `__type__`s implemented in this folder.
const OUR_TYPES: &[&str] = &[
    "add_constant", "add_fields", "apply", "capitalize", "cast", "cast_fields", "chunk", "construct_table_from_rows_cols", "copy", "copy_fields",
    "dict_of_lists_to_pairs", "dict_to_tuples_list", "dictify", "execute_expression", "extract_with_regex", "fillna", "filter", "flatten",
    "format_text", "get", "get_item_by_index", "group_dict_with_regex", "iob_extractor", "get_length", "index_of", "interleave_lists_to_dialog_operator",
    "join", "join_str", "list_field_values", "literal_eval", "lower", "lower_case", "map_instance_values",
    "map_replace", "map_table_lists_to_std_table_json", "parse_csv", "map_values", "move", "recursive_copy", "recursive_replace", "remove_fields", "remove_values", "rename",
    "regex_parser", "regex_replace", "regex_split", "rename_fields", "replace", "select_fields", "sequential_operator", "set", "slice", "split", "strip",
    "take_by_field", "upper", "wrap", "zip", "zip_field_values", "zip_longest",
    // issue 39
    "pop", "duplicate_by_list", "explode", "duplicate_by_sub_lists", "to_dialog", "serialize_dialog", "serialize_open_ai_format_dialog",
    "dump_json", "serialize_triples", "serialize_key_val_pairs", "list_to_key_val_pairs", "serialize_table_row_as_text",
    "get_num_of_table_cells", "fix_json_schema_of_parameter_types", "shuffle_field_values", "extract_field_values", "truncate_table_rows",
    "map_html_table_to_json",
];

fn collect_ours(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            if m.get("__type__").and_then(|t| t.as_str()).is_some_and(|t| OUR_TYPES.contains(&t)) {
                out.push(v.clone());
            }
            m.values().for_each(|x| collect_ours(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ours(x, out)),
        _ => {}
    }
}

fn json_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Every use of these operators in Unitxt's installed catalog builds (when the catalog is
/// present on this machine).
#[test]
fn catalog_uses_build() {
    let dir = crate::testutil::unitxt_catalog_dir();
    let cat = std::sync::Arc::new(crate::catalog::Catalog::new(vec![dir.clone()]));
    let mut files = Vec::new();
    json_files(&dir, &mut files);
    let mut ops = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        // A few files hold NaN, which JSON (and this reader) rejects.
        let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
        collect_ours(&v, &mut ops);
    }
    assert!(ops.len() > 10_000, "found only {} operator uses", ops.len());
    let mut failures = Vec::new();
    {
        for op in &ops {
            // Parsing expressions needs the `expr` evaluator, which is built elsewhere.
            let t = op["__type__"].as_str().unwrap_or_default();
            if t == "execute_expression" || t.contains("regex") {
                continue;
            }
            if let Err(e) = crate::registry::build(op, &cat) {
                // Steps of other families (stream operators, processors) are not built here.
                if e.message.contains("unknown artifact type") && op["__type__"] == "sequential_operator" {
                    continue;
                }
                failures.push(format!("{op}: {e}"));
            }
        }
    }
    failures.sort();
    failures.dedup();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures[..failures.len().min(30)].join("\n"));
}
