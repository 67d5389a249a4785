//! Python value semantics that the instance operators rely on: `==` across ints, floats and
//! bools, iteration, `+`, indexing and slicing, and the `int()` / `float()` / `bool()` /
//! `str()` / `tuple()` constructors. Tuples and sets are represented as JSON lists.

use crate::error::{Error, Result};
pub use crate::py::repr::type_name;
use crate::value::{truthy, Value};

/// A number seen the way Python sees it: bools are ints.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    /// A Python `int` (or `bool`).
    Int(i64),
    /// A Python `float`.
    Float(f64),
}

/// The numeric view of `v` (`bool`, `int` or `float`), `None` for other types.
pub fn as_num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(*b as i64)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(Num::Int(i))
            } else {
                n.as_f64().map(Num::Float)
            }
        }
        _ => None,
    }
}

/// A float as a [`Value`], NaN and infinities included (Python's `float`). Never an error; the
/// `Result` is for the callers' chains.
pub fn float_value(f: f64) -> Result<Value> {
    Ok(Value::Number(crate::value::Number::float(f)))
}

/// Python `a == b`: `1 == 1.0 == True`, lists element-wise, dicts regardless of key order.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => match (as_num(a), as_num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => x == y,
            (Some(x), Some(y)) => to_f64(x) == to_f64(y),
            _ => false,
        },
    }
}

fn to_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}
/// `list(v)`: the items of a list, the characters of a string, the keys of a dict. Errors
/// (Python's `TypeError`) for other values.
pub fn py_iter(v: &Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::from(c)).collect()),
        Value::Object(m) => Ok(m.keys().map(|k| Value::String(k.clone())).collect()),
        other => Err(Error::invalid(format!("'{}' object is not iterable", type_name(other)))),
    }
}

/// `x in container` for lists (by [`py_eq`]), dict keys and substrings.
pub fn py_contains(container: &Value, x: &Value) -> Result<bool> {
    match (container, x) {
        (Value::Array(a), _) => Ok(a.iter().any(|e| py_eq(e, x))),
        (Value::Object(m), Value::String(k)) => Ok(m.contains_key(k)),
        (Value::Object(_), _) => Ok(false),
        (Value::String(s), Value::String(sub)) => Ok(s.contains(sub.as_str())),
        (Value::String(_), other) => {
            Err(Error::invalid(format!("'in <string>' requires string as left operand, not {}", type_name(other))))
        }
        (other, _) => Err(Error::invalid(format!("argument of type '{}' is not iterable", type_name(other)))),
    }
}

/// Python `a + b` for numbers (bools count as ints), strings and lists.
pub fn py_add(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(Value::String(compact_str::format_compact!("{x}{y}"))),
        (Value::Array(x), Value::Array(y)) => Ok(Value::Array(x.iter().chain(y).cloned().collect())),
        _ => match (as_num(a), as_num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => x
                .checked_add(y)
                .map(Value::from)
                .ok_or_else(|| Error::unsupported(format!("integer overflow in {x} + {y}"))),
            (Some(x), Some(y)) => float_value(to_f64(x) + to_f64(y)),
            _ => Err(Error::invalid(format!(
                "unsupported operand type(s) for +: '{}' and '{}'",
                type_name(a),
                type_name(b)
            ))),
        },
    }
}

/// Resolves a Python index (negative counts from the end) into `0..len`.
fn norm_index(i: i64, len: usize) -> Option<usize> {
    let n = len as i64;
    let j = if i < 0 { i + n } else { i };
    (0..n).contains(&j).then_some(j as usize)
}

/// `collection[item]` for lists and strings (int index) and dicts (string key).
pub fn py_getitem(collection: &Value, item: &Value) -> Result<Value> {
    match collection {
        Value::Array(a) => match as_num(item) {
            Some(Num::Int(i)) => norm_index(i, a.len())
                .map(|j| a[j].clone())
                .ok_or_else(|| Error::invalid("list index out of range")),
            _ => Err(Error::invalid(format!("list indices must be integers, not {}", type_name(item)))),
        },
        Value::String(s) => match as_num(item) {
            Some(Num::Int(i)) => {
                let chars: Vec<char> = s.chars().collect();
                norm_index(i, chars.len())
                    .map(|j| Value::from(chars[j]))
                    .ok_or_else(|| Error::invalid("string index out of range"))
            }
            _ => Err(Error::invalid(format!("string indices must be integers, not {}", type_name(item)))),
        },
        Value::Object(m) => {
            let key = match item {
                Value::String(k) => Some(k.as_str()),
                _ => None,
            };
            key.and_then(|k| m.get(k)).cloned().ok_or_else(|| Error::not_found(format!("key {item} not found")))
        }
        other => Err(Error::invalid(format!("'{}' object is not subscriptable", type_name(other)))),
    }
}

/// The indices selected by Python's `slice(start, stop, step)` on a sequence of `len` items.
pub fn slice_indices(len: usize, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Result<Vec<usize>> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(Error::invalid("slice step cannot be zero"));
    }
    let n = len as i64;
    let clamp = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let b = start.map_or(0, |s| clamp(s, 0, n));
        let e = stop.map_or(n, |s| clamp(s, 0, n));
        let mut i = b;
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let b = start.map_or(n - 1, |s| clamp(s, -1, n - 1));
        let e = stop.map_or(-1, |s| clamp(s, -1, n - 1));
        let mut i = b;
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}

/// `collection[start:stop:step]` for lists and strings.
pub fn py_slice(collection: &Value, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Result<Value> {
    match collection {
        Value::Array(a) => {
            Ok(Value::Array(slice_indices(a.len(), start, stop, step)?.into_iter().map(|i| a[i].clone()).collect()))
        }
        Value::String(s) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(Value::String(slice_indices(chars.len(), start, stop, step)?.into_iter().map(|i| chars[i]).collect()))
        }
        other => Err(Error::invalid(format!("'{}' object is not subscriptable", type_name(other)))),
    }
}

/// Python's `str.isspace` for one character (`str.strip()` removes these).
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()` without arguments.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Why a Python cast failed: `ValueError` (bad text) or another exception (`TypeError`,
/// `OverflowError`). Unitxt's `Cast` only recovers from the first kind.
#[derive(Debug)]
pub enum CastError {
    /// A `ValueError` (text that does not parse), with its message.
    Value(String),
    /// Any other exception (`TypeError`, `OverflowError`), with its message.
    Other(String),
}

impl From<CastError> for Error {
    fn from(e: CastError) -> Error {
        match e {
            CastError::Value(m) | CastError::Other(m) => Error::invalid(m),
        }
    }
}

/// Removes `_` separators that Python accepts between digits; `None` when misplaced.
fn strip_underscores(s: &str) -> Option<String> {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == '_' {
            let ok = i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_hexdigit() && b[i + 1].is_ascii_hexdigit();
            if !ok {
                return None;
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Python `int(v)` for JSON-like values.
pub fn py_int(v: &Value) -> std::result::Result<Value, CastError> {
    match v {
        Value::String(s) => {
            let t = py_strip(s);
            let bad = || CastError::Value(format!("invalid literal for int() with base 10: {}", py_quote(s)));
            let clean = strip_underscores(t).ok_or_else(bad)?;
            let digits = clean.strip_prefix(['+', '-']).unwrap_or(&clean);
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            clean
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| CastError::Other(format!("integer {t} is too large for this engine")))
        }
        _ => match as_num(v) {
            Some(Num::Int(i)) => Ok(Value::from(i)),
            Some(Num::Float(f)) => {
                if f.is_nan() {
                    Err(CastError::Value("cannot convert float NaN to integer".into()))
                } else if f.is_infinite() || f.abs() >= 9.2e18 {
                    Err(CastError::Other("cannot convert float infinity to integer".into()))
                } else {
                    Ok(Value::from(f.trunc() as i64))
                }
            }
            None => Err(CastError::Other(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                type_name(v)
            ))),
        },
    }
}

/// Parses Python float text (`"1.5"`, `" 1e3 "`, `"1_0.5"`, `"-inf"`, `"nan"`).
pub fn parse_py_float(s: &str) -> Option<f64> {
    let t = py_strip(s);
    let lower = t.to_ascii_lowercase();
    let (sign, body) = match lower.strip_prefix('-') {
        Some(b) => (-1.0, b),
        None => (1.0, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    if body == "inf" || body == "infinity" {
        return Some(sign * f64::INFINITY);
    }
    if body == "nan" {
        return Some(f64::NAN);
    }
    let clean = strip_underscores(body)?;
    let ok = !clean.is_empty()
        && clean.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
        && clean.chars().any(|c| c.is_ascii_digit());
    if !ok {
        return None;
    }
    clean.parse::<f64>().ok().map(|f| sign * f)
}

/// Python `float(v)` for JSON-like values.
pub fn py_float(v: &Value) -> std::result::Result<Value, CastError> {
    let f = match v {
        Value::String(s) => parse_py_float(s)
            .ok_or_else(|| CastError::Value(format!("could not convert string to float: {}", py_quote(s))))?,
        _ => match as_num(v) {
            Some(n) => to_f64(n),
            None => {
                return Err(CastError::Other(format!(
                    "float() argument must be a string or a real number, not '{}'",
                    type_name(v)
                )))
            }
        },
    };
    float_value(f).map_err(|e| CastError::Other(e.message))
}

/// Python `str(v)`.
pub fn py_str(v: &Value) -> String {
    crate::py::repr::str(v)
}

/// A string quoted for messages.
fn py_quote(s: &str) -> String {
    format!("'{s}'")
}

/// Casts `v` with the Python type named `to` (`int`, `float`, `str`, `bool`, and `tuple` when
/// `allow_tuple`). Errors for other type names.
pub fn py_cast(to: &str, v: &Value, allow_tuple: bool) -> std::result::Result<Value, CastError> {
    match to {
        "int" => py_int(v),
        "float" => py_float(v),
        "str" => Ok(Value::String(py_str(v).into())),
        "bool" => Ok(Value::Bool(truthy(v))),
        "tuple" if allow_tuple => py_iter(v).map(Value::Array).map_err(|e| CastError::Other(e.message)),
        other => Err(CastError::Other(format!("unknown cast type {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn equality_follows_python() {
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(py_eq(&json!({"a": 1, "b": [2]}), &json!({"b": [2.0], "a": true})));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(!py_eq(&json!(null), &json!(0)));
    }

    #[test]
    fn addition_and_slicing() {
        assert_eq!(py_add(&json!(-1), &json!(3)).unwrap(), json!(2));
        assert_eq!(py_add(&json!(true), &json!(1.5)).unwrap(), json!(2.5));
        assert_eq!(py_add(&json!("a"), &json!("b")).unwrap(), json!("ab"));
        assert!(py_add(&json!("a"), &json!(1)).is_err());
        // Python: [0,1,2,3,4][1:], [::-2], [-1:-4:-1], "héllo"[:-1]
        let l = json!([0, 1, 2, 3, 4]);
        assert_eq!(py_slice(&l, Some(1), None, None).unwrap(), json!([1, 2, 3, 4]));
        assert_eq!(py_slice(&l, None, None, Some(-2)).unwrap(), json!([4, 2, 0]));
        assert_eq!(py_slice(&l, Some(-1), Some(-4), Some(-1)).unwrap(), json!([4, 3, 2]));
        assert_eq!(py_slice(&json!("héllo"), None, Some(-1), None).unwrap(), json!("héll"));
        assert_eq!(py_getitem(&l, &json!(-1)).unwrap(), json!(4));
        assert!(py_getitem(&l, &json!(5)).is_err());
    }

    #[test]
    fn int_and_float_casts() {
        assert_eq!(py_int(&json!(" 1_000 ")).unwrap(), json!(1000));
        assert_eq!(py_int(&json!(-3.7)).unwrap(), json!(-3));
        assert_eq!(py_int(&json!(true)).unwrap(), json!(1));
        assert!(matches!(py_int(&json!("3.5")), Err(CastError::Value(_))));
        assert!(matches!(py_int(&json!(null)), Err(CastError::Other(_))));
        assert_eq!(py_float(&json!("1e3")).unwrap(), json!(1000.0));
        assert_eq!(py_float(&json!(" .5")).unwrap(), json!(0.5));
        assert_eq!(py_float(&json!(2)).unwrap(), json!(2.0));
        assert!(matches!(py_float(&json!("half")), Err(CastError::Value(_))));
        assert!(matches!(py_float(&json!("1__0")), Err(CastError::Value(_))));
    }
}
