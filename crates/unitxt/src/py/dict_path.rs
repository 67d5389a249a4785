//! Unitxt's dict paths (`dict_utils.py`): `a/b/0` and `a/*/b` paths into an instance's nested
//! dicts and lists, read with [`dict_get`], written with [`dict_set`], removed with
//! [`dict_delete`].
//!
//! The rules, as Unitxt 1.26.10 applies them:
//! - A path that is itself a key of the instance (after trimming spaces) names that key.
//! - Otherwise the path is cleaned (`//` becomes `/` once, a leading `/` is dropped, a trailing
//!   `/` means `/*`) and split into components, each a name (letters, digits, `_`, `.`, space,
//!   `-`), an index (`-?[0-9]+`, into lists only: a dict key `"0"` is not reached by index `0`
//!   below the top level), or the wildcard `*` (every item of a list, or every value of a dict).
//!   Any other component is an error, even where the path would not be looked up.
//! - A read through `*` gives the list of what the rest of the path reads in each item, leaving
//!   out the items where it reads nothing; when no item gives anything, the path does not exist
//!   (unless `*` is the last component: then it is the, possibly empty, list of items).
//! - A write through `*` writes into every item (a dict's keys in sorted order); with
//!   `set_multiple`, the value is a list whose items go one per item of the first `*`.
//!
//! Walking into a string with an index reads one character, as Python's indexing does.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::value::{Instance, Map, Value};

/// One component of a cleaned path.
#[derive(Debug, Clone, PartialEq)]
enum Comp<'q> {
    /// `*`: every item of a list or value of a dict.
    Wild,
    /// A list index, with its text (a single-component path looks the text up as a key).
    Index(i64, Cow<'q, str>),
    /// A dict key.
    Name(Cow<'q, str>),
}

impl Comp<'_> {
    fn text(&self) -> &str {
        match self {
            Comp::Wild => "*",
            Comp::Index(_, t) | Comp::Name(t) => t,
        }
    }

    fn into_owned(self) -> Comp<'static> {
        match self {
            Comp::Wild => Comp::Wild,
            Comp::Index(i, t) => Comp::Index(i, Cow::Owned(t.into_owned())),
            Comp::Name(t) => Comp::Name(Cow::Owned(t.into_owned())),
        }
    }
}

/// Whether `c` is an index component (`-?[0-9]+`, Unitxt's `is_index`).
fn is_index(c: &str) -> bool {
    let d = c.strip_prefix('-').unwrap_or(c);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `c` is a name component (`[\w. -]+`, Unitxt's `is_name`). Python's `\w` is
/// approximated by Rust's `char::is_alphanumeric` and `_`.
fn is_name(c: &str) -> bool {
    !c.is_empty() && c.chars().all(|ch| ch.is_alphanumeric() || matches!(ch, '_' | '.' | ' ' | '-'))
}

fn parse_index(c: &str) -> i64 {
    // An index too large for i64 is out of range of every list, as the saturated value is.
    c.parse().unwrap_or(if c.starts_with('-') { i64::MIN } else { i64::MAX })
}

/// Cleans and splits `query` as Unitxt's `validate_query_and_break_to_components` does.
fn parse(query: &str) -> Result<Vec<Comp<'_>>> {
    if query.is_empty() {
        return Err(Error::invalid("invalid field path: empty string"));
    }
    if query.contains("//") {
        let once = query.replace("//", "/");
        return Ok(parse_clean(&once, query)?.into_iter().map(Comp::into_owned).collect());
    }
    parse_clean(query, query)
}

fn parse_clean<'q>(q: &'q str, original: &str) -> Result<Vec<Comp<'q>>> {
    let q = q.trim();
    let q = q.strip_prefix('/').unwrap_or(q);
    let trailing_slash = q.ends_with('/');
    let pieces: Vec<&str> = q.split('/').collect();
    let last = pieces.len() - 1;
    let mut out = Vec::with_capacity(pieces.len());
    for (n, piece) in pieces.into_iter().enumerate() {
        let c = piece.trim();
        if c == "*" || (n == last && trailing_slash) {
            out.push(Comp::Wild);
        } else if is_index(c) {
            out.push(Comp::Index(parse_index(c), Cow::Borrowed(c)));
        } else if is_name(c) {
            out.push(Comp::Name(Cow::Borrowed(c)));
        } else {
            return Err(Error::invalid(format!(
                "invalid field path {original:?}: component {c:?} is none of a field name, a list index or '*'"
            )));
        }
    }
    Ok(out)
}

/// Splits a Unitxt field path into its components, cleaned and checked as Unitxt's
/// `validate_query_and_break_to_components` does: `//` becomes `/` (once), a leading `/` is
/// dropped, a trailing `/` stands for `/*`, components are trimmed. Errors on an empty path or
/// a component that is neither a name (`[\w. -]+`), an index (`-?[0-9]+`) nor `*`.
pub fn path_components(query: &str) -> Result<Vec<String>> {
    Ok(parse(query)?.iter().map(|c| c.text().to_string()).collect())
}

/// Whether path `sub` is a prefix, component by component, of path `full` (Unitxt's
/// `is_subpath`). Errors when either path is invalid (see [`path_components`]).
pub fn is_subpath(sub: &str, full: &str) -> Result<bool> {
    let s = parse(sub)?;
    let f = parse(full)?;
    Ok(f.len() >= s.len() && s.iter().zip(&f).all(|(a, b)| a.text() == b.text()))
}

/// Python's `seq[i]` position for a sequence of `len` items (negative from the end).
fn py_pos(len: usize, i: i64) -> Option<usize> {
    let n = len as i64;
    let j = if i < 0 { n.checked_add(i)? } else { i };
    (0..n).contains(&j).then_some(j as usize)
}

fn not_found(path: &str, dict: &Instance) -> Error {
    Error::not_found(format!("field path {path:?} matches nothing; fields are {:?}", dict.keys().collect::<Vec<_>>()))
}

/// Reads the value at `path` in `dict` (Unitxt's `dict_get`). Errors when the path is invalid
/// or matches nothing, naming the path. A path with `*` gives a new list (see the module
/// documentation); an empty path gives the whole dict.
pub fn dict_get<'a>(dict: &'a Instance, path: &str) -> Result<Cow<'a, Value>> {
    dict_get_opt(dict, path)?.ok_or_else(|| not_found(path, dict))
}

/// Reads the value at `path` in `dict` as [`dict_get`] does, `Ok(None)` when the path matches
/// nothing (Unitxt's `dict_get` with `not_exist_ok=True`). An invalid path is still an error,
/// as in Unitxt.
pub fn dict_get_opt<'a>(dict: &'a Instance, path: &str) -> Result<Option<Cow<'a, Value>>> {
    let key = path.trim();
    if key.is_empty() {
        return Ok(Some(Cow::Owned(Value::Object(dict.clone()))));
    }
    if let Some(v) = dict.get(key) {
        return Ok(Some(Cow::Borrowed(v)));
    }
    let comps = parse(path)?;
    if let [only] = comps.as_slice() {
        // One component is looked up as a key, whatever it looks like ("*" and "0" included).
        return Ok(dict.get(only.text()).map(Cow::Borrowed));
    }
    Ok(match &comps[0] {
        Comp::Wild => get_wild(dict.values(), &comps[1..]),
        Comp::Index(..) => None,
        Comp::Name(k) => dict.get(k).and_then(|v| get_values(v, &comps[1..])),
    })
}

/// Unitxt's `get_values` below the top: `None` where Unitxt reports no match.
fn get_values<'a>(cur: &'a Value, comps: &[Comp]) -> Option<Cow<'a, Value>> {
    let Some((first, rest)) = comps.split_first() else {
        return Some(Cow::Borrowed(cur));
    };
    match (first, cur) {
        (Comp::Wild, Value::Array(a)) => get_wild(a.iter(), rest),
        (Comp::Wild, Value::Object(m)) => get_wild(m.values(), rest),
        (Comp::Index(i, _), Value::Array(a)) => py_pos(a.len(), *i).and_then(|j| get_values(&a[j], rest)),
        (Comp::Index(i, _), Value::String(s)) => {
            let ch = py_pos(s.chars().count(), *i).and_then(|j| s.chars().nth(j))?;
            let one = Value::from(ch.to_string());
            get_values(&one, rest).map(|v| Cow::Owned(v.into_owned()))
        }
        (Comp::Name(k), Value::Object(m)) => m.get(k).and_then(|v| get_values(v, rest)),
        _ => None,
    }
}

/// A `*` over `items`: the list of what `rest` reads in each item, `None` when that is empty
/// and `*` is not the last component.
fn get_wild<'a>(items: impl Iterator<Item = &'a Value>, rest: &[Comp]) -> Option<Cow<'a, Value>> {
    let out: Vec<Value> = items.filter_map(|it| get_values(it, rest)).map(Cow::into_owned).collect();
    (!out.is_empty() || rest.is_empty()).then_some(Cow::Owned(Value::Array(out)))
}

/// Reads a top-level field like Python's `instance[name]`, erroring with the field name.
pub fn get_top<'a>(instance: &'a Instance, name: &str) -> Result<&'a Value> {
    instance.get(name).ok_or_else(|| {
        Error::not_found(format!("field {name:?} is missing; fields are {:?}", instance.keys().collect::<Vec<_>>()))
    })
}

/// Whether the path `c` names one dict key as it is: a valid name component (see
/// [`path_components`]) with no surrounding spaces and not a list index. Such a path needs no
/// component walk.
pub fn plain_key(c: &str) -> bool {
    is_name(c) && c.trim() == c && !is_index(c)
}

/// Sets `value` at `path` the way Unitxt's `dict_set` does by default (`not_exist_ok=True`,
/// `set_multiple=False`): see [`dict_set_with`].
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
    dict_set_with(instance, path, value, true, false)
}

/// The value written at the end of a path: moved once when the path has no `*`, cloned per
/// item otherwise.
enum Src<'v> {
    Once(Option<Value>),
    Shared(&'v Value),
}

impl Src<'_> {
    fn peek(&self) -> &Value {
        match self {
            Src::Once(Some(v)) => v,
            Src::Once(None) => &Value::Null,
            Src::Shared(v) => v,
        }
    }

    fn take(&mut self) -> Value {
        match self {
            Src::Once(v) => v.take().unwrap_or_default(),
            Src::Shared(v) => (*v).clone(),
        }
    }
}

/// Python raised inside Unitxt's `set_values` (an index before the start of a list): the
/// caller's `try` turns it into a failure, and at the top it is `dict_set`'s error.
struct Raised;

/// Indices past this are refused (Unitxt would pad a list with that many `None`s).
const MAX_PAD: i64 = 1 << 24;

/// Sets `value` at `path` (Unitxt's `dict_set`). Every place the path matches receives the
/// value; with `*`, every item of the list or dict there (a dict's keys in sorted order).
///
/// With `not_exist_ok` (Unitxt's default), what is missing on the way is made: a dict for a
/// name, a list padded with `None` for an index, a one-item list for `*`; a value of the wrong
/// kind on the way is replaced. Without it, nothing is made and a path that matches nothing is
/// an error.
///
/// With `set_multiple`, `value` must be a non-empty list, and its items go one per item of the
/// first `*` of the path: a dict there must have exactly as many keys, a list at most as many
/// items (it is padded with `None` when `not_exist_ok`).
///
/// An empty path replaces the whole dict by `value`, which must be a dict. Errors also on an
/// invalid path and on a negative index before the start of a list the walk makes or reaches
/// at the top. What Unitxt changes in place before failing (a list padded on the way) is
/// changed here too.
pub fn dict_set_with(instance: &mut Instance, path: &str, value: Value, not_exist_ok: bool, set_multiple: bool) -> Result<()> {
    let key = path.trim();
    if key.is_empty() {
        return match value {
            Value::Object(m) => {
                *instance = m;
                Ok(())
            }
            v => Err(Error::invalid(format!(
                "an empty field path sets the whole instance, which needs a dict, got {}",
                crate::value::short(&v)
            ))),
        };
    }
    if let Some(slot) = instance.get_mut(key) {
        *slot = value;
        return Ok(());
    }
    if set_multiple && !matches!(&value, Value::Array(a) if !a.is_empty()) {
        return Err(Error::invalid(format!(
            "set_multiple needs a non-empty list to spread over {path:?}, got {}",
            crate::value::short(&value)
        )));
    }
    let comps = parse(path)?;
    let fail = || Error::not_found(format!("no path in the instance matches {path:?}"));
    if let Comp::Index(i, _) = &comps[0] {
        // Unitxt builds a new list in place of the whole instance and then drops it: the
        // instance is unchanged; the only errors are a negative index (or one too large to
        // pad to) and not_exist_ok=False.
        return if !not_exist_ok || *i < 0 || *i > MAX_PAD { Err(fail()) } else { Ok(()) };
    }
    let mut whole = Value::Object(std::mem::take(instance));
    let outcome = if comps.contains(&Comp::Wild) {
        set_values(&mut whole, &mut Src::Shared(&value), &comps, not_exist_ok, set_multiple)
    } else {
        set_values(&mut whole, &mut Src::Once(Some(value)), &comps, not_exist_ok, set_multiple)
    };
    // At the top the instance is a dict and a name or `*` step changes it in place.
    if let Value::Object(m) = whole {
        *instance = m;
    }
    match outcome {
        Ok(true) => Ok(()),
        Ok(false) if not_exist_ok => Ok(()),
        _ => Err(fail()),
    }
}

/// Unitxt's `set_values`: sets the value at `comps` below `cur`. `Ok(true)`: done, `cur` holds
/// the new value; `Ok(false)`: no match (`cur` keeps what Unitxt changes in place on the way).
fn set_values(cur: &mut Value, src: &mut Src, comps: &[Comp], gen: bool, multiple: bool) -> std::result::Result<bool, Raised> {
    let Some((first, rest)) = comps.split_first() else {
        *cur = src.take();
        return Ok(true);
    };
    let container = matches!(cur, Value::Array(_) | Value::Object(_));
    if !container && !gen {
        return Ok(false);
    }
    match first {
        Comp::Wild => set_wild(cur, container, src, rest, gen, multiple),
        Comp::Index(i, _) => {
            let mut fresh = Vec::new();
            let list = match cur {
                Value::Array(a) => a,
                _ if !gen => return Ok(false),
                _ => &mut fresh,
            };
            if *i >= list.len() as i64 {
                if !gen {
                    return Ok(false);
                }
                if *i > MAX_PAD {
                    return Err(Raised);
                }
                list.resize(*i as usize + 1, Value::Null);
            }
            let j = py_pos(list.len(), *i).ok_or(Raised)?;
            if !set_values(&mut list[j], src, rest, gen, multiple).unwrap_or(false) {
                return Ok(false);
            }
            if !matches!(cur, Value::Array(_)) {
                *cur = Value::Array(fresh);
            }
            Ok(true)
        }
        Comp::Name(k) => {
            let mut fresh = Map::new();
            let map = match cur {
                Value::Object(m) => m,
                _ if !gen => return Ok(false),
                _ => &mut fresh,
            };
            let done = match map.get_mut(k) {
                Some(slot) => set_values(slot, src, rest, gen, multiple).unwrap_or(false),
                None if !gen => return Ok(false),
                None => {
                    let mut slot = Value::Null;
                    let done = set_values(&mut slot, src, rest, gen, multiple).unwrap_or(false);
                    if done {
                        map.insert(k.as_ref().into(), slot);
                    }
                    done
                }
            };
            if done && !matches!(cur, Value::Object(_)) {
                *cur = Value::Object(fresh);
            }
            Ok(done)
        }
    }
}

/// The `*` step of [`set_values`]; `container`: whether `cur` is a list or dict (otherwise it
/// stands for Python's `None`).
fn set_wild(cur: &mut Value, container: bool, src: &mut Src, rest: &[Comp], gen: bool, multiple: bool) -> std::result::Result<bool, Raised> {
    let n_values = match src.peek() {
        Value::Array(a) if multiple => a.len(),
        _ => 0,
    };
    if container && multiple {
        match cur {
            Value::Object(m) if m.len() != n_values => return Ok(false),
            Value::Array(a) if a.len() > n_values => return Ok(false),
            Value::Array(a) if a.len() < n_values => {
                if !gen {
                    return Ok(false);
                }
                a.resize(n_values, Value::Null);
            }
            _ => {}
        }
    }
    let fresh_needed = !container || matches!(cur, Value::Array(a) if a.is_empty());
    if fresh_needed {
        let n = if multiple {
            n_values
        } else {
            let v = src.peek();
            usize::from(!matches!(v, Value::Array(a) if a.is_empty()) || !rest.is_empty())
        };
        let mut fresh = vec![Value::Null; n];
        let mut any = false;
        for (i, slot) in fresh.iter_mut().enumerate() {
            if set_item(slot, src, i, rest, gen, multiple) {
                any = true;
            }
        }
        let done = any || (n == 0 && rest.is_empty());
        if done {
            *cur = Value::Array(fresh);
        }
        return Ok(done);
    }
    let mut any = false;
    let len = match cur {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => 0,
    };
    match cur {
        Value::Array(a) => {
            for (i, slot) in a.iter_mut().enumerate() {
                if set_item(slot, src, i, rest, gen, multiple) {
                    any = true;
                }
            }
        }
        Value::Object(m) => {
            let mut keys: Vec<String> = m.keys().map(|k| k.to_string()).collect();
            keys.sort();
            for (i, k) in keys.iter().enumerate() {
                if let Some(slot) = m.get_mut(k) {
                    if set_item(slot, src, i, rest, gen, multiple) {
                        any = true;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(any || (len == 0 && rest.is_empty()))
}

/// Sets the `i`-th item's value (the value itself, or its `i`-th item with `set_multiple`) at
/// `rest` below `slot`; true when done. `set_multiple` is used up by the first `*`.
fn set_item(slot: &mut Value, src: &mut Src, i: usize, rest: &[Comp], gen: bool, multiple: bool) -> bool {
    let v = if multiple {
        match src.peek() {
            Value::Array(a) => a.get(i).cloned().unwrap_or_default(),
            _ => Value::Null,
        }
    } else {
        src.take()
    };
    let outcome = if rest.contains(&Comp::Wild) {
        set_values(slot, &mut Src::Shared(&v), rest, gen, false)
    } else {
        set_values(slot, &mut Src::Once(Some(v)), rest, gen, false)
    };
    outcome.unwrap_or(false)
}

/// Removes the value at `path` (Unitxt's `dict_delete` with its defaults). Errors when the path
/// is invalid or matches nothing. See [`dict_delete_with`].
pub fn dict_delete(instance: &mut Instance, path: &str) -> Result<()> {
    dict_delete_with(instance, path, false, false)
}

/// Removes every value `path` matches (Unitxt's `dict_delete`): a path ending in `*` empties
/// the list or dict there (replacing any other value by an empty dict, as Unitxt does). With
/// `remove_empty_ancestors`, a list or dict left empty by a removal is removed too, up to but
/// not including the instance itself. A path that matches nothing is an error unless
/// `not_exist_ok`; an invalid or empty path is always one, and so is a `*` over an empty dict
/// before the last component (Python's unpacking of no items fails there).
pub fn dict_delete_with(instance: &mut Instance, path: &str, not_exist_ok: bool, remove_empty_ancestors: bool) -> Result<()> {
    if path.is_empty() {
        return Err(Error::invalid("an empty field path would delete the whole instance"));
    }
    if instance.shift_remove(path.trim()).is_some() {
        return Ok(());
    }
    let comps = parse(path)?;
    let mut whole = Value::Object(std::mem::take(instance));
    let outcome = delete_values(&mut whole, &comps, remove_empty_ancestors);
    if let Value::Object(m) = whole {
        *instance = m;
    }
    match outcome {
        Ok(true) => Ok(()),
        Ok(false) if not_exist_ok => Ok(()),
        Ok(false) => Err(Error::not_found(format!("cannot delete {path:?}: no path in the instance matches it"))),
        Err(Raised) => Err(Error::invalid(format!("cannot delete {path:?}: '*' over an empty dict"))),
    }
}

fn empty_container(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// Unitxt's `delete_values`: `Ok(true)` when something was removed below `cur` (changed in
/// place), `Ok(false)` when nothing matched, `Err` where Python raises out of the step.
fn delete_values(cur: &mut Value, comps: &[Comp], prune: bool) -> std::result::Result<bool, Raised> {
    let (first, rest) = comps.split_first().ok_or(Raised)?;
    if rest.is_empty() {
        return Ok(match (first, cur) {
            (Comp::Wild, cur) => {
                *cur = if cur.is_array() { Value::Array(Vec::new()) } else { Value::Object(Map::new()) };
                true
            }
            (Comp::Index(i, _), Value::Array(a)) => match py_pos(a.len(), *i) {
                Some(j) => {
                    a.remove(j);
                    true
                }
                None => false,
            },
            (Comp::Name(k), Value::Object(m)) => m.shift_remove(k).is_some(),
            _ => false,
        });
    }
    match (first, cur) {
        (Comp::Wild, Value::Object(m)) => {
            if m.is_empty() {
                return Err(Raised);
            }
            let mut any = false;
            for j in (0..m.len()).rev() {
                if delete_values(m.get_index_mut(j), rest, prune).unwrap_or(false) {
                    any = true;
                    if prune && empty_container(m.get_index(j)) {
                        let k = m.keys().nth(j).map(|k| k.to_string()).unwrap_or_default();
                        m.shift_remove(&k);
                    }
                }
            }
            Ok(any)
        }
        (Comp::Wild, Value::Array(a)) => {
            let mut any = false;
            for j in (0..a.len()).rev() {
                if delete_values(&mut a[j], rest, prune).unwrap_or(false) {
                    any = true;
                    if prune && empty_container(&a[j]) {
                        a.remove(j);
                    }
                }
            }
            Ok(any)
        }
        (Comp::Index(i, _), Value::Array(a)) => {
            let Some(j) = py_pos(a.len(), *i) else { return Ok(false) };
            if !delete_values(&mut a[j], rest, prune).unwrap_or(false) {
                return Ok(false);
            }
            if prune && empty_container(&a[j]) {
                a.remove(j);
            }
            Ok(true)
        }
        (Comp::Name(k), Value::Object(m)) => {
            let Some(child) = m.get_mut(k) else { return Ok(false) };
            if !delete_values(child, rest, prune).unwrap_or(false) {
                return Ok(false);
            }
            if prune && empty_container(child) {
                m.shift_remove(k);
            }
            Ok(true)
        }
        // Python steps into a string by index, but cannot write the result back into it.
        _ => Ok(false),
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
        assert_eq!(*dict_get(&d, "a/b/1").unwrap(), json!(20));
        assert_eq!(*dict_get(&d, "a/b/-1").unwrap(), json!(30));
        assert_eq!(*dict_get(&d, "x/y").unwrap(), json!(1));
        assert!(dict_get(&d, "a/c").is_err());
        assert_eq!(dict_get_opt(&d, "a/b/7").unwrap(), None);
    }

    #[test]
    fn get_through_wildcards() {
        let d = inst(json!({"spans": [{"start": 1, "l": "a"}, {"l": "b"}, {"start": 5, "l": "c"}], "e": []}));
        assert_eq!(*dict_get(&d, "spans/*/start").unwrap(), json!([1, 5]));
        assert_eq!(*dict_get(&d, "spans/*/l").unwrap(), json!(["a", "b", "c"]));
        assert_eq!(dict_get_opt(&d, "spans/*/zzz").unwrap(), None);
        assert_eq!(dict_get_opt(&d, "e/*/start").unwrap(), None);
        assert_eq!(*dict_get(&d, "e/*").unwrap(), json!([]));
        assert_eq!(*dict_get(&d, "e/").unwrap(), json!([]));
        assert!(dict_get(&d, "spans/$/x").is_err());
    }

    #[test]
    fn set_creates_and_delete_removes() {
        let mut d = inst(json!({"a": 1}));
        dict_set(&mut d, "recipe_metadata/format", json!("f")).unwrap();
        assert_eq!(Value::Object(d.clone()), json!({"a": 1, "recipe_metadata": {"format": "f"}}));
        dict_delete(&mut d, "recipe_metadata/format").unwrap();
        assert_eq!(Value::Object(d.clone()), json!({"a": 1, "recipe_metadata": {}}));
        // Unitxt replaces a scalar that is in the way (checked with unitxt.dict_utils.dict_set).
        dict_set(&mut d, "a/b", json!(2)).unwrap();
        assert_eq!(d["a"], json!({"b": 2}));
    }

    #[test]
    fn set_through_wildcards() {
        let mut d = inst(json!({"s": [{"x": 1}, {"x": 2}]}));
        dict_set(&mut d, "s/*/y", json!(0)).unwrap();
        assert_eq!(d["s"], json!([{"x": 1, "y": 0}, {"x": 2, "y": 0}]));
        dict_set_with(&mut d, "s/*/x", json!([7, 8]), true, true).unwrap();
        assert_eq!(d["s"], json!([{"x": 7, "y": 0}, {"x": 8, "y": 0}]));
        assert!(dict_set_with(&mut d, "s/*/x", json!([1, 2, 3]), false, true).is_err());
    }

    /// Every case of `testdata/dict_paths.json` (written by `testdata/dict_paths_gen.py` with
    /// Unitxt 1.26.10's `dict_utils`): the same value read, the same instance written, or an
    /// error where Unitxt raises.
    #[test]
    fn dict_paths_match_unitxt() {
        let data: Value = serde_json::from_str(include_str!("testdata/dict_paths.json")).expect("valid JSON");
        let bases = data["bases"].as_array().expect("bases");
        let cases = data["cases"].as_array().expect("cases");
        let mut failures = Vec::new();
        for (n, case) in cases.iter().enumerate() {
            let mut d = bases[case["base"].as_i64().unwrap_or(0) as usize].as_object().cloned().unwrap_or_default();
            let path = case["path"].as_str().unwrap_or_default();
            let nek = case["not_exist_ok"].as_bool().unwrap_or(false);
            let got: Result<Value> = match case["fn"].as_str() {
                Some("get") => {
                    if nek {
                        dict_get_opt(&d, path).map(|v| v.map_or_else(|| json!("DEF"), Cow::into_owned))
                    } else {
                        dict_get(&d, path).map(Cow::into_owned)
                    }
                }
                Some("set") => {
                    let multiple = case["set_multiple"].as_bool().unwrap_or(false);
                    dict_set_with(&mut d, path, case["value"].clone(), nek, multiple).map(|_| Value::Object(d))
                }
                Some("delete") => {
                    let rea = case["remove_empty_ancestors"].as_bool().unwrap_or(false);
                    dict_delete_with(&mut d, path, nek, rea).map(|_| Value::Object(d))
                }
                other => panic!("unknown function {other:?}"),
            };
            let show = || format!("case {n} {}({path:?}, {})", case["fn"], serde_json::to_string(case).unwrap_or_default());
            match (got, case.get("ok")) {
                (Ok(g), Some(w)) => {
                    let (g, w) = (serde_json::to_string(&g).unwrap_or_default(), serde_json::to_string(w).unwrap_or_default());
                    if g != w {
                        failures.push(format!("{}: got {g}, want {w}", show()));
                    }
                }
                (Err(_), None) => {}
                (Ok(g), None) => failures.push(format!("{}: got {g}, want an error", show())),
                (Err(e), Some(_)) => failures.push(format!("{}: error {e}", show())),
            }
        }
        assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
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
