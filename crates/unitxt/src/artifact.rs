//! Artifacts: the typed objects built from catalog JSON.
//!
//! A catalog entry is a JSON object whose `__type__` names a Unitxt class in snake_case
//! (`set`, `load_hf`, `input_output_template`, ...). [`crate::registry::build`] maps that name to
//! a Rust struct and returns an [`Artifact`], an enum over the kinds of artifact the engine
//! knows. Fields of an artifact that hold other artifacts are typed [`Art<T>`]: on
//! deserialization they accept a nested `{"__type__": ...}` object or a catalog name
//! (`"templates.classification.multi_class.default"`, possibly with overwrites
//! `name[key=value]`), resolved in the catalog of the current [`crate::catalog::Catalog::scope`],
//! as Unitxt's `maybe_recover_artifact` does.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer};

use crate::augmentors::Augmentor;
use crate::card::Card;
use crate::error::{Error, Result};
use crate::loaders::Loader;
use crate::operators::Operator;
use crate::splitters::Sampler;
use crate::task::Task;
use crate::templates::{Serializer, Template};
use crate::value::{Str, Value};

/// A built artifact of kind `T`, with the catalog name it was fetched by (`id`, as Unitxt's
/// `__id__`) and the JSON it was built from (`raw`, as Unitxt's `to_dict()`).
pub struct Art<T: ?Sized> {
    /// Catalog name (with overwrites) this artifact was fetched by; `None` when inline.
    /// Interned ([`crate::value::intern::intern`]): instances carry a copy of it (the
    /// template's name in `task_data.metadata`) without allocating.
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

/// Every kind of artifact the engine builds. Cloning shares the built artifact.
#[derive(Clone)]
pub enum Artifact {
    /// A stream operator (`set`, `rename`, `shuffle`, `sequential_operator`, processors, ...).
    Operator(Art<dyn Operator>),
    /// A data source (`load_hf`, `load_csv`, ...).
    Loader(Art<dyn Loader>),
    /// A template that verbalizes instances.
    Template(Art<dyn Template>),
    /// `templates_list`: templates to choose from.
    TemplatesList(Vec<Art<dyn Template>>),
    /// `templates_dict`: named templates.
    TemplatesDict(IndexMap<String, Art<dyn Template>>),
    /// A format (`system_format`, `chat_api_format`, ...).
    Format(Art<dyn crate::formats::Format>),
    /// A system prompt (`textual_system_prompt`, `empty_system_prompt`).
    SystemPrompt(Art<dyn crate::system_prompts::SystemPrompt>),
    /// An augmentor (`augment_whitespace`, ...).
    Augmentor(Art<dyn Augmentor>),
    /// A task (`task`).
    Task(Art<Task>),
    /// A card (`task_card`).
    Card(Art<Card>),
    /// A demos sampler (`random_sampler`, ...).
    Sampler(Art<dyn Sampler>),
    /// A value serializer used by templates.
    Serializer(Art<dyn Serializer>),
    /// A metric (`accuracy_fast`, `f1_fast`, `metrics_list`, ...).
    Metric(Art<dyn crate::metrics::Metric>),
    /// A recipe (`dataset_recipe`): its arguments, built as `prepare` builds them.
    Recipe(Art<crate::recipe::Recipe>),
    /// A benchmark (`benchmark`): named recipes and benchmarks, every subset built.
    Benchmark(Art<crate::recipe::benchmark::Benchmark>),
}

impl Artifact {
    /// The kind's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Artifact::Operator(_) => "operator",
            Artifact::Loader(_) => "loader",
            Artifact::Template(_) => "template",
            Artifact::TemplatesList(_) => "templates list",
            Artifact::TemplatesDict(_) => "templates dict",
            Artifact::Format(_) => "format",
            Artifact::SystemPrompt(_) => "system prompt",
            Artifact::Augmentor(_) => "augmentor",
            Artifact::Task(_) => "task",
            Artifact::Card(_) => "card",
            Artifact::Sampler(_) => "sampler",
            Artifact::Serializer(_) => "serializer",
            Artifact::Metric(_) => "metric",
            Artifact::Recipe(_) => "recipe",
            Artifact::Benchmark(_) => "benchmark",
        }
    }

    /// Sets the catalog name this artifact was fetched by.
    pub fn set_id(&mut self, id: &str) {
        let id = Some(crate::value::intern::intern(id));
        match self {
            Artifact::Operator(a) => a.id = id,
            Artifact::Loader(a) => a.id = id,
            Artifact::Template(a) => a.id = id,
            Artifact::Format(a) => a.id = id,
            Artifact::SystemPrompt(a) => a.id = id,
            Artifact::Augmentor(a) => a.id = id,
            Artifact::Task(a) => a.id = id,
            Artifact::Card(a) => a.id = id,
            Artifact::Sampler(a) => a.id = id,
            Artifact::Serializer(a) => a.id = id,
            Artifact::Metric(a) => a.id = id,
            Artifact::Recipe(a) => a.id = id,
            Artifact::Benchmark(a) => a.id = id,
            Artifact::TemplatesList(_) | Artifact::TemplatesDict(_) => {}
        }
    }
}

/// A kind of artifact that a field can be typed with: `Art<dyn Template>`, `Art<Task>`, ...
pub trait ArtifactKind {
    /// Name of the kind for messages ("template", "format", ...).
    const KIND: &'static str;
    /// Extracts this kind from a built artifact, or gives it back.
    fn extract(a: Artifact) -> std::result::Result<Art<Self>, Artifact>;
}

macro_rules! kind {
    ($t:ty, $variant:ident, $name:expr) => {
        impl ArtifactKind for $t {
            const KIND: &'static str = $name;
            fn extract(a: Artifact) -> std::result::Result<Art<Self>, Artifact> {
                match a {
                    Artifact::$variant(x) => Ok(x),
                    other => Err(other),
                }
            }
        }
    };
}
kind!(dyn Operator, Operator, "operator");
kind!(dyn Loader, Loader, "loader");
kind!(dyn Template, Template, "template");
kind!(dyn Augmentor, Augmentor, "augmentor");
kind!(Task, Task, "task");
kind!(Card, Card, "card");
kind!(dyn Sampler, Sampler, "sampler");
kind!(dyn Serializer, Serializer, "serializer");
kind!(dyn crate::metrics::Metric, Metric, "metric");

kind!(dyn crate::formats::Format, Format, "format");
kind!(dyn crate::system_prompts::SystemPrompt, SystemPrompt, "system prompt");

/// Builds an artifact of kind `T` from a JSON representation: a catalog name (string) or an
/// object with `__type__`. Errors when it resolves to another kind.
pub fn resolve<T: ArtifactKind + ?Sized>(v: &Value) -> Result<Art<T>> {
    let a = crate::catalog::resolve_value(v)?;
    let got = a.kind();
    T::extract(a).map_err(|_| {
        Error::invalid(format!("expected a {}, but {} is a {}", T::KIND, short(v), got))
    })
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

impl<'de, T: ArtifactKind + ?Sized> Deserialize<'de> for Art<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        resolve::<T>(&v).map_err(serde::de::Error::custom)
    }
}

/// Deserializes a JSON value into an artifact struct, naming the `__type__` on error.
pub fn from_value<T: serde::de::DeserializeOwned>(type_name: &str, v: &Value) -> Result<T> {
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
