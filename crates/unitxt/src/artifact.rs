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

/// The keys every artifact may carry besides its class's fields (Unitxt's `Artifact` base):
/// they describe the artifact and change nothing it does.
pub const META_KEYS: &[&str] = &["__type__", "__description__", "__tags__", "__title__", "__deprecated_msg__"];

/// Keys of Unitxt's base classes that the engine accepts on any artifact and has no use for:
/// `requirements`, the Python packages Unitxt checks are installed before an operator runs.
pub const IGNORED_KEYS: &[&str] = &["requirements"];

thread_local! {
    /// One entry per artifact being built on this thread (see [`fields_read`]): the field
    /// names of the structs [`from_value`] deserialized from its JSON, or `None` once one of
    /// them was not a plain struct (a map, a flattened or hand-written deserializer) whose
    /// fields cannot be listed.
    static FIELDS_READ: std::cell::RefCell<Vec<Option<Vec<&'static str>>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f`, which builds one artifact through [`from_value`] calls, and returns its result
/// with the union of the field names those calls' structs declare: `None` when one of them
/// could not list its fields or when none ran. The registry checks an artifact's keys against
/// it, as Unitxt refuses an unexpected argument.
pub fn fields_read<R>(f: impl FnOnce() -> R) -> (R, Option<Vec<&'static str>>) {
    FIELDS_READ.with(|s| s.borrow_mut().push(Some(Vec::new())));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FIELDS_READ.with(|s| s.borrow_mut().pop());
        }
    }
    let pop = Pop;
    let r = f();
    let fields = FIELDS_READ.with(|s| s.borrow_mut().last_mut().and_then(Option::take)).filter(|f| !f.is_empty());
    drop(pop);
    (r, fields)
}

/// Notes `T`'s field names in the innermost [`fields_read`] (serde's declared names, renames
/// and aliases as serde gives them, by `serde_aux`'s introspection).
fn note_fields<T: serde::de::DeserializeOwned>() {
    FIELDS_READ.with(|s| {
        if let Some(top) = s.borrow_mut().last_mut() {
            let fields = serde_aux::serde_introspection::serde_introspect::<T>();
            match top {
                Some(all) if !fields.is_empty() => all.extend_from_slice(fields),
                _ => *top = None,
            }
        }
    });
}

/// Deserializes a JSON value into an artifact struct, naming the `__type__` on error.
pub fn from_value<T: serde::de::DeserializeOwned>(type_name: &str, v: &Value) -> Result<T> {
    note_fields::<T>();
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        for k in META_KEYS.iter().chain(IGNORED_KEYS) {
            m.shift_remove(*k);
        }
    }
    crate::value::from_value(v).map_err(|e| Error::invalid(format!("invalid `{type_name}` artifact: {e}")))
}
