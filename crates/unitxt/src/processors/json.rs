//! JSON-reading postprocessors (Unitxt's `LoadJson`, `ToolCallPostProcessor`,
//! `MultipleToolCallPostProcessor`).

use serde::Deserialize;

use super::as_text;
use crate::error::{Error, Result};
use crate::operators::FieldOperator;
use crate::value::{Instance, Value};

/// Python's `json.loads` (see [`crate::py::json::loads`]); `None` when the text is not valid
/// JSON (Python's `JSONDecodeError`).
pub fn loads(text: &str, strict: bool) -> Option<Value> {
    crate::py::json::loads(text, strict).ok()
}

/// Parses the field's text, giving `failure_value` for invalid JSON when `allow_failure`, an
/// error otherwise. Non-strings are an error either way (Python's `TypeError`).
fn parse(value: &Value, allow_failure: bool, failure_value: &Value, what: &str) -> Result<std::result::Result<Value, Value>> {
    let t = as_text(value, what)?;
    match loads(t, !allow_failure) {
        Some(v) => Ok(Ok(v)),
        None if allow_failure => Ok(Err(failure_value.clone())),
        None => Err(Error::invalid(format!("{what}: the text is not valid JSON: {}", crate::artifact::short(value)))),
    }
}

/// `load_json`: the field's text parsed as JSON; invalid JSON gives `failure_value` when
/// `allow_failure`, else an error (Unitxt's `LoadJson`).
#[derive(Debug, Deserialize)]
pub struct LoadJson {
    /// `failure_value`: the result when parsing fails or gives the wrong shape (default `null`).
    #[serde(default)]
    pub failure_value: Value,
    /// `allow_failure`: invalid JSON gives `failure_value` instead of an error (default false).
    #[serde(default)]
    pub allow_failure: bool,
}

impl FieldOperator for LoadJson {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        Ok(parse(&value, self.allow_failure, &self.failure_value, "load_json")?.unwrap_or_else(|f| f))
    }
}

/// A tool call: a dict with a string `name` and a dict `arguments` (Unitxt's `ToolCall`).
fn is_tool_call(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.get("name").is_some_and(|n| n.is_string()) && m.get("arguments").is_some_and(|a| a.is_object())
    })
}

/// `tool_call_post_processor`: the JSON between the first `{`/`[` and the last `}`/`]` of the
/// text, parsed; a tool call is returned as is, a list of exactly one tool call gives that
/// call, anything else gives `failure_value` (Unitxt's `ToolCallPostProcessor`).
#[derive(Debug, Deserialize)]
pub struct ToolCallPostProcessor {
    /// `failure_value`: the result when parsing fails or gives the wrong shape (default `null`).
    #[serde(default)]
    pub failure_value: Value,
    /// `allow_failure`: invalid JSON gives `failure_value` instead of an error (default false).
    #[serde(default)]
    pub allow_failure: bool,
}

/// The outermost bracketed part of `text` (Unitxt's `extract_possible_json_str`), by character.
fn possible_json(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let first = chars.iter().position(|&c| c == '{' || c == '[').unwrap_or(0);
    let last = chars.iter().rposition(|&c| c == '}' || c == ']').map_or(chars.len() as i64 - 1, |p| p as i64);
    // Python slice text[first:last+1], where last may be -1 (empty text): an empty slice.
    let end = (last + 1).max(0) as usize;
    if end <= first {
        return String::new();
    }
    chars[first..end].iter().collect()
}

impl FieldOperator for ToolCallPostProcessor {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = as_text(&value, "tool_call_post_processor")?;
        let inner = Value::String(possible_json(t).into());
        let result = match parse(&inner, self.allow_failure, &self.failure_value, "tool_call_post_processor")? {
            Ok(v) => v,
            Err(f) => return Ok(f),
        };
        if let Value::Array(items) = &result {
            if items.iter().all(is_tool_call) {
                return Ok(if items.len() == 1 { items[0].clone() } else { self.failure_value.clone() });
            }
        }
        Ok(if is_tool_call(&result) { result } else { self.failure_value.clone() })
    }
}

/// `multiple_tool_call_post_processor`: the text parsed as JSON; a list of tool calls is
/// returned as is, one tool call is wrapped in a list, anything else gives `failure_value`
/// (Unitxt's `MultipleToolCallPostProcessor`).
#[derive(Debug, Deserialize)]
pub struct MultipleToolCallPostProcessor {
    /// `failure_value`: the result when parsing fails or gives the wrong shape (default `null`).
    #[serde(default)]
    pub failure_value: Value,
    /// `allow_failure`: invalid JSON gives `failure_value` instead of an error (default false).
    #[serde(default)]
    pub allow_failure: bool,
}

impl FieldOperator for MultipleToolCallPostProcessor {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let result = match parse(&value, self.allow_failure, &self.failure_value, "multiple_tool_call_post_processor")? {
            Ok(v) => v,
            Err(f) => return Ok(f),
        };
        if let Value::Array(items) = &result {
            if items.iter().all(is_tool_call) {
                return Ok(result);
            }
        }
        Ok(if is_tool_call(&result) { Value::Array(vec![result]) } else { self.failure_value.clone() })
    }
}

/// `json_str_to_dict`: the field's text read as a JSON object, each value that is not `null`
/// turned into Python's `str` of it (`1` → `"1"`, `true` → `"True"`, a list → its Python
/// repr), keys kept. Text that is not JSON, JSON that is not an object, and a value that is not
/// a string give `{}` (Unitxt logs a warning and goes on). Mirrors Unitxt's `JsonStrToDict`
/// (`struct_data_operators`), the postprocessor of
/// `templates.key_value_extraction.extract_in_json_format`.
#[derive(Debug, Deserialize)]
pub struct JsonStrToDict {}

impl FieldOperator for JsonStrToDict {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let parsed = value.as_str().and_then(|t| loads(t, true));
        let Some(Value::Object(m)) = parsed else { return Ok(Value::Object(Default::default())) };
        Ok(Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, Value::String(crate::py::ops::py_str(&v).into())))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::loads;
    use crate::json;

    // Expected values from Python 3.11 `json.loads`.
    #[test]
    fn loads_like_python() {
        assert_eq!(loads(r#"[-0, -0.0, "-0", {"k": -0}]"#, true), Some(json!([0, -0.0, "-0", {"k": 0}])));
        assert!(loads(r#"[-0, -0.0]"#, true).unwrap()[1].as_f64().is_some_and(|f| f.is_sign_negative()));
        assert_eq!(loads("{\"a\": \"x\ny\"}", false), Some(json!({"a": "x\ny"})));
        assert_eq!(loads("{\"a\": \"x\ny\"}", true), None);
        assert_eq!(loads("", true), None);
    }

    /// Expected values printed by Unitxt 1.26.10's `JsonStrToDict().process_value`.
    #[test]
    fn json_str_to_dict_like_unitxt() {
        use crate::operators::FieldOperator;
        let op = super::JsonStrToDict {};
        let run = |v: crate::value::Value| op.process_value(v, &Default::default()).unwrap();
        assert_eq!(run(json!(r#"{"Worker": "John", "LivesIn": "New York"}"#)), json!({"Worker": "John", "LivesIn": "New York"}));
        assert_eq!(
            run(json!(r#"{"a": 1, "b": 2.0, "c": true, "d": null, "e": [1, "x"], "f": {"g": "h"}, "h": 1e16, "i": NaN}"#)),
            json!({"a": "1", "b": "2.0", "c": "True", "e": "[1, 'x']", "f": "{'g': 'h'}", "h": "1e+16", "i": "nan"})
        );
        assert_eq!(run(json!(r#"{"a": -0.0}"#)), json!({"a": "-0.0"}));
        for empty in [json!("not json"), json!("[1, 2]"), json!("\"str\""), json!("{}"), json!("```json\n{\"a\": 1}\n```"), json!(5), json!(null)] {
            assert_eq!(run(empty), json!({}));
        }
    }
}
