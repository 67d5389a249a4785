//! Interned strings for the constants of artifacts: names that every instance carries (a
//! template's postprocessor names, a task's metric names, the template's catalog name in
//! `task_data.metadata`), made once per distinct text.
//!
//! [`Str`] keeps strings up to 24 bytes inline; a longer one lives on the heap, so each copy
//! put into an instance allocates and each dropped one frees. An interned string is a
//! [`Str`] that refers to text kept for the whole process (`Str::const_new` of a `&'static
//! str`): copying and dropping it touch no allocator and no shared counter, whichever thread
//! does it. Short strings are returned inline, as [`Str::from`] makes them.
//!
//! Each distinct text is kept once, at most [`INTERNED_MAX_BYTES`] in all (artifacts built
//! from a catalog stay far below it); past that bound [`intern`] returns ordinary heap
//! strings, which are equal to interned ones in every respect but speed.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use super::{Map, Str, Value};

/// At most this many bytes of text are kept by [`intern`] for the process.
pub const INTERNED_MAX_BYTES: usize = 16 << 20;

/// Strings longer than this are interned; shorter ones are inline in [`Str`] anyway.
const INLINE_MAX: usize = std::mem::size_of::<String>();

struct Table {
    texts: HashSet<&'static str, foldhash::fast::FixedState>,
    bytes: usize,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(Table { texts: HashSet::default(), bytes: 0 }))
}

/// `s` as a [`Str`] whose copies never allocate: inline up to 24 bytes, else a reference to
/// the process's one kept copy of the text (kept on first use). Takes a lock: for artifact
/// constants when an artifact is built, not for per-instance data.
pub fn intern(s: &str) -> Str {
    if s.len() <= INLINE_MAX {
        return Str::from(s);
    }
    let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&kept) = t.texts.get(s) {
        return Str::const_new(kept);
    }
    if t.bytes + s.len() > INTERNED_MAX_BYTES {
        return Str::from(s);
    }
    let kept: &'static str = Box::leak(s.to_owned().into_boxed_str());
    t.texts.insert(kept);
    t.bytes += s.len();
    Str::const_new(kept)
}

/// Interns every string of `v` in place, object keys included (see [`intern`]).
pub fn intern_value(v: &mut Value) {
    match v {
        Value::String(s) if s.len() > INLINE_MAX => *s = intern(s),
        Value::Array(items) => items.iter_mut().for_each(intern_value),
        Value::Object(m) => intern_map(m),
        _ => {}
    }
}

/// Interns the keys and every string of the values of `m` in place (see [`intern`]); the
/// order of the keys is kept.
pub fn intern_map(m: &mut Map) {
    let old = std::mem::take(m);
    for (k, mut x) in old {
        intern_value(&mut x);
        m.push_new(intern(&k), x);
    }
}

/// [`intern`] on a string field of an artifact, for serde's `deserialize_with`.
pub fn deserialize_interned_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Str, D::Error> {
    let s: std::borrow::Cow<'de, str> = serde::Deserialize::deserialize(d)?;
    Ok(intern(&s))
}

/// [`intern_map`] on a map field of an artifact, for serde's `deserialize_with`.
pub fn deserialize_interned_map<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
    let mut m: Map = serde::Deserialize::deserialize(d)?;
    intern_map(&mut m);
    Ok(m)
}

/// [`intern_value`] on each item of `list`, for the serde `deserialize_with` of an
/// `Option<Vec<Value>>` field of an artifact.
pub fn deserialize_interned_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Value>>, D::Error> {
    let mut list: Option<Vec<Value>> = serde::Deserialize::deserialize(d)?;
    if let Some(items) = &mut list {
        items.iter_mut().for_each(intern_value);
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_strings_share_one_kept_copy_and_short_ones_stay_inline() {
        let long = "processors.take_first_non_empty_line";
        let a = intern(long);
        let b = intern(&long.to_string());
        assert_eq!(a, long);
        let (pa, pb) = (a.as_static_str().expect("kept"), b.as_static_str().expect("kept"));
        assert_eq!(pa.as_ptr(), pb.as_ptr());
        // A copy refers to the same text, not to a new allocation.
        assert_eq!(a.clone().as_static_str().map(str::as_ptr), Some(pa.as_ptr()));
        let short = intern("metrics.accuracy");
        assert_eq!(short, "metrics.accuracy");
        assert!(!short.is_heap_allocated() && short.as_static_str().is_none());
    }

    #[test]
    fn values_are_interned_throughout_and_stay_equal() {
        let mut v = crate::json!({"a_key_that_is_longer_than_24_bytes": ["x", "a string that is longer than 24 bytes"]});
        let before = v.clone();
        intern_value(&mut v);
        assert_eq!(v, before);
        let Value::Object(m) = &v else { panic!("object") };
        let (k, list) = m.iter().next().expect("one entry");
        assert!(k.as_static_str().is_some());
        assert!(list.as_array().expect("list")[1].as_str().is_some_and(|_| matches!(&list[1], Value::String(s) if s.as_static_str().is_some())));
    }
}
