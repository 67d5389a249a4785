//! Artifacts: the typed objects built from catalog JSON.
//!
//! A catalog entry is a JSON object whose `__type__` names a Unitxt class in snake_case
//! (`set`, `load_hf`, `input_output_template`, ...). [`crate::registry::build`] maps that name to
//! a Rust struct and returns a [`crate::registry::Artifact`]; each kind is held as an [`Art<T>`]:
//! the built object with the catalog name and JSON it came from. Fields of an artifact that hold
//! other artifacts are typed `Art<T>` too (the registry deserializes them, see
//! [`crate::registry::resolve`]). This module sits below every artifact family: it names none.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::value::{Str, Value};

/// A built artifact of kind `T`, with the catalog name it was fetched by (`id`, as Unitxt's
/// `__id__`) and the JSON it was built from (`raw`, as Unitxt's `to_dict()`).
pub struct Art<T: ?Sized> {
    /// Catalog name (with overwrites) this artifact was fetched by; `None` when inline.
    pub id: Option<Str>,
    /// The JSON object it was built from, with `__type__`.
    pub raw: Arc<Value>,
    /// The built artifact.
    pub inner: Arc<T>,
}

impl<T: ?Sized> Clone for Art<T> {
    fn clone(&self) -> Self {
        Art { id: self.id.clone(), raw: self.raw.clone(), inner: self.inner.clone() }
    }
}

impl<T: ?Sized> fmt::Debug for Art<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.id {
            Some(id) => write!(f, "Art({id})"),
            None => write!(f, "Art({})", self.raw),
        }
    }
}

impl<T: ?Sized> std::ops::Deref for Art<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> Art<T> {
    /// Wraps a built artifact that came from `raw` (inline, no catalog name).
    pub fn new(inner: Arc<T>, raw: Value) -> Self {
        Art { id: None, raw: Arc::new(raw), inner }
    }
    /// What Unitxt writes for this artifact in `task_data.metadata`: its catalog name, or its
    /// JSON object when it has none (Unitxt's `FinalizeDataset.artifact_to_jsonable`).
    pub fn to_jsonable(&self) -> Value {
        match &self.id {
            Some(id) => Value::String(id.clone()),
            None => (*self.raw).clone(),
        }
    }
    /// A short name for error messages: the catalog name or the `__type__`.
    pub fn display_name(&self) -> String {
        match &self.id {
            Some(id) => id.to_string(),
            None => self.raw.get("__type__").and_then(|t| t.as_str()).unwrap_or("<inline artifact>").to_string(),
        }
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

thread_local! {
    /// While [`record_fields`] runs on this thread: the field names of every struct that
    /// [`from_value`] deserialized, in order.
    static RECORDED_FIELDS: std::cell::RefCell<Option<Vec<&'static str>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (which builds artifacts through [`from_value`]) and returns, besides its result,
/// the field names of the structs `from_value` deserialized meanwhile (the names serde passes
/// to `deserialize_struct`, as `serde_aux::serde_introspect` reads them). Structs with a
/// hand-written or flattened `Deserialize` record nothing. How the Python package learns each
/// `__type__`'s keyword arguments from the engine itself.
pub fn record_fields<R>(f: impl FnOnce() -> R) -> (R, Vec<&'static str>) {
    let outer = RECORDED_FIELDS.with(|r| r.borrow_mut().replace(Vec::new()));
    let res = f();
    let got = RECORDED_FIELDS.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer)).unwrap_or_default();
    (res, got)
}

/// A deserializer that only records the field names of the struct asked for and then fails.
struct FieldsProbe<'a>(&'a mut Vec<&'static str>);

#[derive(Debug)]
struct ProbeDone;

impl fmt::Display for ProbeDone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fields probed")
    }
}

impl std::error::Error for ProbeDone {}

impl serde::de::Error for ProbeDone {
    fn custom<M: fmt::Display>(_: M) -> Self {
        ProbeDone
    }
}

impl<'de> serde::Deserializer<'de> for FieldsProbe<'_> {
    type Error = ProbeDone;
    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, ProbeDone> {
        Err(ProbeDone)
    }
    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> std::result::Result<V::Value, ProbeDone> {
        self.0.extend(fields.iter().copied());
        Err(ProbeDone)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// Deserializes a JSON value into an artifact struct, naming the `__type__` on error.
pub fn from_value<T: serde::de::DeserializeOwned>(type_name: &str, v: &Value) -> Result<T> {
    RECORDED_FIELDS.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            let _ = T::deserialize(FieldsProbe(rec));
        }
    });
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        m.shift_remove("__type__");
        m.shift_remove("__description__");
        m.shift_remove("__tags__");
        m.shift_remove("__title__");
        m.shift_remove("__deprecated_msg__");
    }
    crate::value::from_value(v).map_err(|e| Error::invalid(format!("invalid `{type_name}` artifact: {e}")))
}
