//! The data model: instances are ordered JSON objects.
//!
//! Unitxt passes Python dicts between operators; key order is insertion order and matters for
//! `str()` seeds and `json.dumps`. A [`Value`] object is a [`Map`] that keeps insertion order
//! like a Python dict ([`map`]). Integers and floats stay distinct (`1` vs `1.0`), as in
//! Python ([`json`]).
//!
//! Field paths follow Unitxt's `dict_utils`: `a/b/0` walks into nested dicts and lists; a key
//! that literally contains `/` and exists at the top level is taken as is.

use crate::error::{Error, Result};

pub mod intern;
pub mod json;
pub mod map;
pub mod shared;

pub use json::{from_value, to_value, Number, Str, Value};
pub use map::{FieldName, Key, Map};
pub use shared::{Constant, Shared};

/// One instance of a stream: an ordered map of field names to values.
pub type Instance = Map;

/// Splits a Unitxt field path into components (`"a//b/"` is cleaned as Unitxt cleans it).
/// Errors on an empty path or an empty component.
pub fn path_components(query: &str) -> Result<Vec<&str>> {
    let q = query.trim();
    if q.is_empty() {
        return Err(Error::invalid(format!("invalid field path: empty string {query:?}")));
    }
    let q = q.strip_prefix('/').unwrap_or(q);
    let comps: Vec<&str> = q.split('/').map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
    if comps.is_empty() {
        return Err(Error::invalid(format!("invalid field path {query:?}")));
    }
    Ok(comps)
}

fn index_of(list_len: usize, comp: &str) -> Option<usize> {
    let i: i64 = comp.parse().ok()?;
    let n = list_len as i64;
    let j = if i < 0 { n + i } else { i };
    if j < 0 || j >= n {
        None
    } else {
        Some(j as usize)
    }
}

/// Reads the value at `path` in `dict` (Unitxt's `dict_get`). Errors when the path does not
/// exist, naming the path.
pub fn dict_get<'a>(dict: &'a Instance, path: &str) -> Result<&'a Value> {
    dict_get_opt(dict, path)?.ok_or_else(|| {
        Error::not_found(format!("field {path:?} does not exist; fields are {:?}", dict.keys().collect::<Vec<_>>()))
    })
}

/// Reads the value at `path` in `dict`, `Ok(None)` when it does not exist.
pub fn dict_get_opt<'a>(dict: &'a Instance, path: &str) -> Result<Option<&'a Value>> {
    if let Some(v) = dict.get(path.trim()) {
        return Ok(Some(v));
    }
    let comps = path_components(path)?;
    let mut cur: &Value = match dict.get(comps[0]) {
        Some(v) => v,
        None => return Ok(None),
    };
    for c in &comps[1..] {
        cur = match cur {
            Value::Object(m) => match m.get(*c) {
                Some(v) => v,
                None => return Ok(None),
            },
            Value::Array(a) => match index_of(a.len(), c) {
                Some(i) => &a[i],
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
    }
    Ok(Some(cur))
}

/// Sets the value at `path` in `dict` as Unitxt's `dict_set` (with `not_exist_ok=True`) does:
/// missing intermediate dicts are created, scalars in the way are replaced, lists are padded
/// with `None`. The implementation is with the other Python behaviours ([`crate::py::ops`]).
pub fn dict_set(dict: &mut Instance, path: &str, value: Value) -> Result<()> {
    crate::py::ops::dict_set(dict, path, value)
}

/// Removes the value at `path` (Unitxt's `dict_delete`), returning it. Errors when missing.
pub fn dict_delete(dict: &mut Instance, path: &str) -> Result<Value> {
    if let Some(v) = dict.shift_remove(path.trim()) {
        return Ok(v);
    }
    let comps = path_components(path)?;
    let missing = || Error::not_found(format!("field {path:?} does not exist"));
    if comps.len() == 1 {
        return Err(missing());
    }
    let mut cur = dict.get_mut(comps[0]).ok_or_else(missing)?;
    for c in &comps[1..comps.len() - 1] {
        cur = match cur {
            Value::Object(m) => m.get_mut(*c).ok_or_else(missing)?,
            Value::Array(a) => {
                let i = index_of(a.len(), c).ok_or_else(missing)?;
                &mut a[i]
            }
            _ => return Err(missing()),
        };
    }
    let lastc = comps[comps.len() - 1];
    match cur {
        Value::Object(m) => m.shift_remove(lastc).ok_or_else(missing),
        Value::Array(a) => {
            let i = index_of(a.len(), lastc).ok_or_else(missing)?;
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn inst(v: Value) -> Instance {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn get_nested_and_index() {
        let d = inst(json!({"a": {"b": [10, 20, 30]}, "x/y": 1}));
        assert_eq!(dict_get(&d, "a/b/1").unwrap(), &json!(20));
        assert_eq!(dict_get(&d, "a/b/-1").unwrap(), &json!(30));
        assert_eq!(dict_get(&d, "x/y").unwrap(), &json!(1));
        assert!(dict_get(&d, "a/c").is_err());
        assert_eq!(dict_get_opt(&d, "a/b/7").unwrap(), None);
    }

    #[test]
    fn set_creates_and_delete_removes() {
        let mut d = inst(json!({"a": 1}));
        dict_set(&mut d, "recipe_metadata/format", json!("f")).unwrap();
        assert_eq!(Value::Object(d.clone()), json!({"a": 1, "recipe_metadata": {"format": "f"}}));
        assert_eq!(dict_delete(&mut d, "recipe_metadata/format").unwrap(), json!("f"));
        assert_eq!(Value::Object(d.clone()), json!({"a": 1, "recipe_metadata": {}}));
        // Unitxt replaces a scalar that is in the way (checked with unitxt.dict_utils.dict_set).
        dict_set(&mut d, "a/b", json!(2)).unwrap();
        assert_eq!(d["a"], json!({"b": 2}));
    }

    #[test]
    fn python_truthiness() {
        assert!(!truthy(&json!(0.0)));
        assert!(!truthy(&json!("")));
        assert!(truthy(&json!([0])));
    }
}
