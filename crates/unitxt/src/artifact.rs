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

/// What [`fields_read`] learned about one artifact's build.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FieldsRead {
    /// The field names of the structs [`from_value`] deserialized, in order (repeats kept).
    pub names: Vec<&'static str>,
    /// Whether the names are all the fields read: some [`from_value`] ran, and every type it
    /// deserialized was a plain struct (not a map, a flattened or a hand-written
    /// `Deserialize`, whose fields cannot be listed).
    pub complete: bool,
}

/// One [`fields_read`] frame.
#[derive(Default)]
struct Frame {
    names: Vec<&'static str>,
    ran: bool,
    unlisted: bool,
}

thread_local! {
    /// One frame per [`fields_read`] running on this thread, innermost last.
    static FIELDS_READ: std::cell::RefCell<Vec<Frame>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f`, which builds one artifact through [`from_value`] calls, and returns its result
/// with the fields those calls' structs declare ([`FieldsRead`]). Frames nest: a nested
/// artifact's fields go to its own frame. The registry checks an artifact's keys against a
/// complete list, as Unitxt refuses an unexpected argument; the Python package learns each
/// type's keyword arguments from it.
pub fn fields_read<R>(f: impl FnOnce() -> R) -> (R, FieldsRead) {
    FIELDS_READ.with(|s| s.borrow_mut().push(Frame::default()));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FIELDS_READ.with(|s| s.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    let r = f();
    let frame = FIELDS_READ.with(|s| s.borrow_mut().last_mut().map(std::mem::take)).unwrap_or_default();
    (r, FieldsRead { complete: frame.ran && !frame.unlisted, names: frame.names })
}

/// A deserializer that only records the field names of the struct asked for, then fails:
/// `Some(fields)` when `T` asked for a struct (`fields` may be empty), `None` otherwise.
struct FieldsProbe<'a>(&'a mut Option<&'static [&'static str]>);

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
        *self.0 = Some(fields);
        Err(ProbeDone)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The field names serde's derived `Deserialize` of struct `T` asks for (renamed as serde
/// renames them); `None` when `T` is not read as a plain struct (a map, a flattened struct, a
/// hand-written `Deserialize`).
pub fn struct_fields<'de, T: serde::Deserialize<'de>>() -> Option<&'static [&'static str]> {
    let mut asked = None;
    let _ = T::deserialize(FieldsProbe(&mut asked));
    asked
}

/// Notes `T`'s field names in the innermost [`fields_read`] frame.
fn note_fields<'de, T: serde::Deserialize<'de>>() {
    FIELDS_READ.with(|s| {
        if let Some(top) = s.borrow_mut().last_mut() {
            match struct_fields::<T>() {
                Some(fields) => top.names.extend_from_slice(fields),
                None => top.unlisted = true,
            }
            top.ran = true;
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
