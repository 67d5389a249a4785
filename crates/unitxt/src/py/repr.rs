//! Python's `repr()` / `str()` of JSON-like values, as CPython 3.11 prints them.

use crate::value::Value;

/// `repr(v)`: `None`, `True`, `1`, `1.5`, `'text'`, `[1, 2]`, `{'a': 1}`.
pub fn repr(_v: &Value) -> String {
    unimplemented!()
}

/// `str(v)`: like [`repr`] except that a top-level string is returned as is.
pub fn str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => repr(other),
    }
}

/// `repr(f)` of a Python float: shortest round-trip digits, `1e-05`, `1e+16`, `inf`, `nan`.
pub fn float_repr(_f: f64) -> String {
    unimplemented!()
}
