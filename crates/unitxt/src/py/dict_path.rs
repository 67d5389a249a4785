//! Unitxt's dict paths (`dict_utils.py`): `a/b/0` paths into an instance's nested dicts and
//! lists, read with [`dict_get`], written with [`dict_set`], removed with [`dict_delete`]. A
//! path that is itself a key of the dict names that key, as in Unitxt.

use crate::error::{Error, Result};
use crate::value::{Instance, Value};

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

/// Reads a top-level field like Python's `instance[name]`, erroring with the field name.
pub fn get_top<'a>(instance: &'a Instance, name: &str) -> Result<&'a Value> {
    instance.get(name).ok_or_else(|| {
        Error::not_found(format!("field {name:?} is missing; fields are {:?}", instance.keys().collect::<Vec<_>>()))
    })
}

fn is_index(c: &str) -> bool {
    let d = c.strip_prefix('-').unwrap_or(c);
    !d.is_empty() && d.chars().all(|ch| ch.is_ascii_digit())
}

/// Whether the path `c` names one dict key as it is: not empty, no `/`, no surrounding spaces,
/// not a list index. Such a path needs no component walk.
pub fn plain_key(c: &str) -> bool {
    !c.is_empty() && c.trim() == c && !c.contains('/') && !is_index(c)
}

/// Sets `value` at the `a/b/0` path `path` the way Unitxt's `dict_set` does by default
/// (`not_exist_ok=True`): missing dicts are created, a non-container on the way is replaced by
/// a dict (or by a list when the next component is an index), lists are padded with `None` up
/// to an index past their end. A negative index beyond the start leaves the instance
/// unchanged, as in Unitxt. Errors only on an empty path.
pub fn dict_set(instance: &mut Instance, path: &str, value: Value) -> Result<()> {
    let key = path.trim();
    if let Some(slot) = instance.get_mut(key) {
        *slot = value;
        return Ok(());
    }
    // Fast paths (no component list) for `key` and `dict/key` paths, the common cases, where
    // the general walk below does the same.
    if plain_key(key) {
        instance.insert(key.into(), value);
        return Ok(());
    }
    if let Some((outer, inner)) = key.split_once('/').filter(|(o, i)| plain_key(o) && plain_key(i)) {
        match instance.get_mut(outer) {
            Some(Value::Object(m)) => {
                m.insert(inner.into(), value);
                return Ok(());
            }
            None => {
                let mut m = Instance::new();
                m.insert(inner.into(), value);
                instance.insert(outer.into(), Value::Object(m));
                return Ok(());
            }
            Some(_) => {}
        }
    }
    let comps = path_components(path)?;
    if is_index(comps[0]) {
        // Unitxt builds a new list in place of the whole instance and then drops it.
        return Ok(());
    }
    if comps.len() == 1 {
        instance.insert(comps[0].into(), value);
        return Ok(());
    }
    if let Some(slot) = instance.get_mut(comps[0]) {
        set_in(slot, &comps[1..], value);
    } else {
        let mut fresh = Value::Null;
        if set_in(&mut fresh, &comps[1..], value) {
            instance.insert(comps[0].into(), fresh);
        }
    }
    Ok(())
}

/// Sets `value` at `comps` under `cur`; false (and `cur` untouched) when a negative index
/// points before the start of a list.
fn set_in(cur: &mut Value, comps: &[&str], value: Value) -> bool {
    let c = comps[0];
    if is_index(c) {
        let i: i64 = c.parse().unwrap_or(i64::MAX);
        let len = cur.as_array().map_or(0, |a| a.len()) as i64;
        if i < 0 && -i > len {
            return false;
        }
        if !cur.is_array() {
            *cur = Value::Array(Vec::new());
        }
        let Value::Array(a) = cur else { return false };
        if i >= len {
            a.resize(i as usize + 1, Value::Null);
        }
        let j = if i < 0 { (i + len) as usize } else { i as usize };
        if comps.len() == 1 {
            a[j] = value;
            true
        } else {
            set_in(&mut a[j], &comps[1..], value)
        }
    } else {
        if !cur.is_object() {
            *cur = Value::Object(Instance::new());
        }
        let Value::Object(m) = cur else { return false };
        if comps.len() == 1 {
            m.insert((*c).into(), value);
            return true;
        }
        match m.get_mut(c) {
            Some(slot) => set_in(slot, &comps[1..], value),
            None => {
                let mut fresh = Value::Null;
                let ok = set_in(&mut fresh, &comps[1..], value);
                if ok {
                    m.insert((*c).into(), fresh);
                }
                ok
            }
        }
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

    // Expected instances from unitxt.dict_utils.dict_set in /work/venv.
    #[test]
    fn dict_set_follows_unitxt() {
        let run = |v: Value, p: &str, x: Value| {
            let mut d = v.as_object().cloned().unwrap_or_default();
            dict_set(&mut d, p, x).map(|_| serde_json::to_string(&d).unwrap_or_default())
        };
        assert_eq!(run(json!({"a": 1}), "a/b", json!(2)).unwrap(), r#"{"a":{"b":2}}"#);
        assert_eq!(run(json!({"a": [1]}), "a/3", json!(2)).unwrap(), r#"{"a":[1,null,null,2]}"#);
        assert_eq!(run(json!({"a": {"x": 1}}), "a/0/b", json!(2)).unwrap(), r#"{"a":[{"b":2}]}"#);
        assert_eq!(run(json!({"a": [1, 2]}), "a/-1", json!(9)).unwrap(), r#"{"a":[1,9]}"#);
        assert_eq!(run(json!({"a": [1, 2]}), "a/-3", json!(9)).unwrap(), r#"{"a":[1,2]}"#);
        assert_eq!(run(json!({"z": 0}), "n/m", json!(null)).unwrap(), r#"{"z":0,"n":{"m":null}}"#);
    }
}
