//! Artifacts: the typed objects built from catalog JSON, and the context they are built in.
//!
//! A catalog entry is a JSON object whose `__type__` names a Unitxt class in snake_case
//! (`set`, `load_hf`, `input_output_template`, ...). Each type is a config struct that
//! deserializes from that JSON ([`from_value`]) and is built, with an explicit
//! [`BuildContext`], into the object that runs, held as an [`Art<T>`]: the built object with
//! the catalog name and JSON it came from. An artifact that holds other artifacts (a card's
//! task, a sequential operator's steps) keeps their JSON in its config and builds them through
//! the context ([`BuildContext::build`]), which looks names up in the build's catalog and
//! hands the JSON to the registry, the one map from `__type__` to type. This module sits
//! below every artifact family: it names none, and no family names the registry.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::error::{Error, Reason, Result};
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
    /// A user's Python components inside it are written as Unitxt writes them (see
    /// [`unitxt_form`]).
    pub fn to_jsonable(&self) -> Value {
        match &self.id {
            Some(id) => Value::String(id.clone()),
            None => unitxt_form(&self.raw),
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

pub use crate::value::short;

/// The `__type__` of a user's Python component given inline (see `registry::callback`).
pub const CALLBACK_TYPE: &str = "python_callback";

/// The key of a Python component's inline object that holds the component as Unitxt writes it
/// (`{"__type__": "<its class name in snake case>", <its arguments>}`).
pub const CALLBACK_AS: &str = "as";

/// Whether `v` holds a Python component's inline object with its [`CALLBACK_AS`] form.
fn has_callback(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            (m.get("__type__").and_then(|t| t.as_str()) == Some(CALLBACK_TYPE) && m.get(CALLBACK_AS).is_some())
                || m.values().any(has_callback)
        }
        Value::Array(a) => a.iter().any(has_callback),
        _ => false,
    }
}

/// `v` as Unitxt writes it: every Python component's inline object (`__type__`
/// [`CALLBACK_TYPE`]) replaced by its [`CALLBACK_AS`] form, the component's own `__type__` and
/// arguments, so that outputs name the user's class as Unitxt's do. A copy of `v` when it holds
/// none.
pub fn unitxt_form(v: &Value) -> Value {
    if !has_callback(v) {
        return v.clone();
    }
    match v {
        Value::Object(m) => match m.get(CALLBACK_AS) {
            Some(form) if m.get("__type__").and_then(|t| t.as_str()) == Some(CALLBACK_TYPE) => form.clone(),
            _ => Value::Object(m.iter().map(|(k, x)| (k.clone(), unitxt_form(x))).collect()),
        },
        Value::Array(a) => Value::Array(a.iter().map(unitxt_form).collect()),
        other => other.clone(),
    }
}

/// The keys every artifact may carry besides its class's fields (Unitxt's `Artifact` base):
/// they describe the artifact and change nothing it does.
pub const META_KEYS: &[&str] = &["__type__", "__description__", "__tags__", "__title__", "__deprecated_msg__"];

/// Keys of Unitxt's base classes that the engine accepts on any artifact and has no use for:
/// `requirements`, the Python packages Unitxt checks are installed before an operator runs.
pub const IGNORED_KEYS: &[&str] = &["requirements"];

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

/// Deserializes a JSON value into an artifact struct, naming the `__type__` on error.
pub fn from_value<T: serde::de::DeserializeOwned>(type_name: &str, v: &Value) -> Result<T> {
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        for k in META_KEYS.iter().chain(IGNORED_KEYS) {
            m.shift_remove(*k);
        }
    }
    crate::value::from_value(v).map_err(|e| Error::invalid(format!("invalid `{type_name}` artifact: {e}")))
}

/// An artifact type's catalog `__type__` (Unitxt's class name in snake_case), carried by its
/// config struct. The registry's table (`artifact_types!`) implements it for each struct it
/// lists with a shape; a struct listed under several names carries the first.
pub trait ArtifactType {
    /// The `__type__`.
    const TYPE: &'static str;
}

/// A kind of artifact that a field can hold: `Art<dyn Template>`, `Art<Task>`, ... Each
/// family implements it for its trait object (or struct), next to the trait.
pub trait ArtifactKind: 'static {
    /// Name of the kind for messages ("template", "format", ...).
    const KIND: &'static str;
}

/// A built artifact of any kind, as the registry hands it to [`BuildContext::build`]: an
/// [`Art<T>`] (or a templates list or dict) behind [`Any`], with its kind's name.
pub struct AnyArt {
    kind: &'static str,
    value: Box<dyn Any + Send + Sync>,
}

impl AnyArt {
    /// Wraps `value`, an artifact of kind `kind`.
    pub fn new<T: Any + Send + Sync>(kind: &'static str, value: T) -> Self {
        AnyArt { kind, value: Box::new(value) }
    }
    /// The kind's name ("template", "templates list", ...).
    pub fn kind(&self) -> &'static str {
        self.kind
    }
    /// The artifact as a `T`, or itself back when it holds another type.
    pub fn downcast<T: Any>(self) -> std::result::Result<T, AnyArt> {
        let kind = self.kind;
        match self.value.downcast::<T>() {
            Ok(v) => Ok(*v),
            Err(value) => Err(AnyArt { kind, value: value as Box<dyn Any + Send + Sync> }),
        }
    }
}

/// The registry's entry point, as the context calls it: builds the artifact a JSON value
/// names or describes (see [`BuildContext::build_any`]) in context `cx`.
pub type BuildFn = fn(&Value, &BuildContext<'_>) -> Result<AnyArt>;

/// How deeply artifacts may nest (an artifact naming or containing another, which names or
/// contains another, ...): deeper nesting is an error rather than a stack overflow. Unitxt's
/// catalog nests at most a handful of levels.
pub const MAX_ARTIFACT_DEPTH: usize = 64;

/// What building an artifact needs, passed explicitly to every build: the catalog where
/// names are looked up, the registry's builder for nested artifacts, and the chain of
/// artifacts being built around this one (for reference cycles and the depth limit).
///
/// A context is made by the registry (`crate::registry::context`) and lent down: a
/// component's build receives `&BuildContext` and builds what it contains through it. It is
/// plain data on the stack: nothing about a build lives anywhere else.
pub struct BuildContext<'a> {
    catalog: &'a Arc<Catalog>,
    build_fn: BuildFn,
    /// The enclosing level and this level's label, `None` at the root.
    parent: Option<(&'a BuildContext<'a>, Label)>,
    depth: usize,
}

/// One level of a build: a catalog name, or `{__type__}` for an inline artifact.
#[derive(Clone)]
struct Label {
    text: String,
    named: bool,
}

impl<'a> BuildContext<'a> {
    /// A root context: names resolve in `catalog`, nested artifacts are built by `build_fn`.
    pub fn new(catalog: &'a Arc<Catalog>, build_fn: BuildFn) -> Self {
        BuildContext { catalog, build_fn, parent: None, depth: 0 }
    }
    /// The catalog of this build.
    pub fn catalog(&self) -> &'a Arc<Catalog> {
        self.catalog
    }
    /// The function this context builds nested artifacts with, for a component that builds
    /// artifacts later, at run time, in a root context of its own: an operator building the
    /// operators its instances name (`apply_operators_field`), an LLM judge reading criteria
    /// from the data.
    pub fn build_fn(&self) -> BuildFn {
        self.build_fn
    }
    /// Builds the artifact `v` names or describes: a catalog name with optional
    /// `[overwrites]`, a path to a `.json` file, a JSON string, or an object with `__type__`
    /// (Unitxt's `fetch_artifact`).
    pub fn build_any(&self, v: &Value) -> Result<AnyArt> {
        (self.build_fn)(v, self)
    }
    /// [`BuildContext::build_any`] for a value that must be of kind `T`: an error when `v`
    /// builds into another kind.
    pub fn build<T: ArtifactKind + ?Sized>(&self, v: &Value) -> Result<Art<T>> {
        self.build_any(v)?
            .downcast::<Art<T>>()
            .map_err(|a| Error::invalid(format!("expected a {}, but {} is a {}", T::KIND, short(v), a.kind())))
    }
    /// [`BuildContext::build`] for each value of a list.
    pub fn build_all<T: ArtifactKind + ?Sized>(&self, vs: &[Value]) -> Result<Vec<Art<T>>> {
        vs.iter().map(|v| self.build(v)).collect()
    }
    /// [`BuildContext::build`] for an optional value (absent or `null`: `None`).
    pub fn build_opt<T: ArtifactKind + ?Sized>(&self, v: Option<&Value>) -> Result<Option<Art<T>>> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.build(v).map(Some),
        }
    }
    /// A context one level down, for building the artifact `label` names (`named`: a catalog
    /// name or file) or describes (`{__type__}` of an inline object). A catalog name already
    /// on the chain is a reference cycle, an error that gives the cycle's path (`cards.a →
    /// tasks.b → cards.a`); more than [`MAX_ARTIFACT_DEPTH`] levels is an error too, whatever
    /// the thread's stack size (Unitxt recurses until Python's recursion limit).
    pub fn enter(&'a self, label: &str, named: bool) -> Result<BuildContext<'a>> {
        if named {
            let chain = self.chain();
            if let Some(at) = chain.iter().position(|l| l.named && l.text == label) {
                let path: Vec<String> = chain[at..].iter().map(|l| l.text.clone()).chain([label.to_string()]).collect();
                let message = format!("artifact reference cycle: {}", path.join(" → "));
                return Err(Error::with_reason(crate::error::ErrorKind::Invalid, Reason::ReferenceCycle { path }, message));
            }
        }
        if self.depth >= MAX_ARTIFACT_DEPTH {
            let inside = self.parent.as_ref().map(|(_, l)| l.text.as_str()).unwrap_or_default();
            return Err(Error::invalid(format!("artifacts nest more than {MAX_ARTIFACT_DEPTH} levels deep (at {label}, inside {inside})")));
        }
        Ok(BuildContext {
            catalog: self.catalog,
            build_fn: self.build_fn,
            parent: Some((self, Label { text: label.to_string(), named })),
            depth: self.depth + 1,
        })
    }
    /// The labels from the root down to this level.
    fn chain(&self) -> Vec<&Label> {
        let mut out = Vec::new();
        let mut at = self;
        while let Some((parent, label)) = &at.parent {
            out.push(label);
            at = parent;
        }
        out.reverse();
        out
    }
}
