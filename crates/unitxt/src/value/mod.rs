//! The data model: instances are ordered JSON objects.
//!
//! Unitxt passes Python dicts between operators; key order is insertion order and matters for
//! `str()` seeds and `json.dumps`. A [`Value`] object is a [`Map`] that keeps insertion order
//! like a Python dict ([`map`]). Integers and floats stay distinct (`1` vs `1.0`), as in
//! Python ([`json`]).
//!
//! Field paths follow Unitxt's `dict_utils`: `a/b/0` walks into nested dicts and lists; a key
//! that literally contains `/` and exists at the top level is taken as is.


pub mod json;
pub mod json_lines;
pub mod map;
pub mod number;
pub mod shared;

pub use json::{from_value, to_value, Number, Str, Value};
pub use map::{FieldName, Key, Map};
pub use shared::{Constant, Shared};

/// One instance of a stream: an ordered map of field names to values.
pub type Instance = Map;

/// Python truthiness of a value: `None`, `False`, `0`, `0.0`, `""`, `[]`, `{}` are false.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().map(|f| f != 0.0).unwrap_or(true),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// A short rendering of a value for messages.
pub fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn python_truthiness() {
        assert!(!truthy(&json!(0.0)));
        assert!(!truthy(&json!("")));
        assert!(truthy(&json!([0])));
    }
}
