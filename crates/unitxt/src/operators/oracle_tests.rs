//! Oracle cases for the instance operators: `testdata/instance_ops.jsonl` holds, per line, an
//! operator's catalog JSON, an input instance, and what Unitxt 1.26.10 produced for it
//! (`ok`: the output instance, or `error`: the Python exception class), obtained by running
//! the operator on a one-instance `test` stream in /work/venv.

use indexmap::IndexMap;

use crate::artifact::Artifact;
use crate::stream::{collect, MultiStream};
use crate::value::Value;

#[test]
fn instance_operators_match_unitxt() {
    let mut failures = Vec::new();
    let cases = include_str!("testdata/instance_ops.jsonl");
    for (n, line) in cases.lines().enumerate() {
        let case: Value = serde_json::from_str(line).expect("valid test case");
        let op_json = &case["op"];
        let input = case["input"].as_object().expect("input is an object").clone();
        let result = (|| {
            let Artifact::Operator(op) = crate::registry::build(op_json)? else {
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
