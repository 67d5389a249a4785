//! The one map from catalog `__type__` names (Unitxt's snake_case class names) to the Rust
//! structs that implement them, and the ways in: [`build`] (an artifact's JSON or name, in a
//! catalog), [`fetch`] (a catalog name, built once per catalog) and [`check`]. Adding an
//! artifact type touches its own file and this one.
//!
//! Every build names its catalog. Nested artifacts (a card's task, a template's
//! postprocessors) are fields typed [`Art<T>`], which serde deserializes with no way to pass
//! the catalog down: for the duration of a [`build`] the catalog is lent to them on the
//! building thread ([`resolve`], [`resolve_value`]), and only there. Outside a build they
//! are an error, never a guess at some default catalog.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use crate::artifact::{from_value, short, Art};
use crate::augmentors::Augmentor;
use crate::card::Card;
use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::loaders::Loader;
use crate::operators::{FieldOp, FieldOperator, FieldSpec, InstanceOp, InstanceOperator, Operator, StreamOp, StreamOperator, StreamScope};
use crate::query::{is_legal_catalog_name, split_name_and_overwrites};
use crate::splitters::Sampler;
use crate::task::Task;
use crate::templates::{Serializer, Template};
use crate::value::Value;

thread_local! {
    /// The catalogs of the [`build`] calls running on this thread, innermost last.
    static BUILDING: RefCell<Vec<Arc<Catalog>>> = const { RefCell::new(Vec::new()) };
    /// Where the last named artifact that failed to build was, for the enclosing artifact's
    /// error to be located there too: serde carries a nested failure as text only. Cleared
    /// when a named artifact builds and when the outermost build ends.
    static NESTED_FAILURE: RefCell<Option<crate::error::Location>> = const { RefCell::new(None) };
    /// The artifacts [`resolve_value`] is building on this thread, outermost first: their
    /// catalog names, or `{__type__}` for an inline object. A name met again is a reference
    /// cycle; the stack's length is the nesting depth ([`MAX_ARTIFACT_DEPTH`]).
    static RESOLVING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// What the last artifact refused by [`needs`] on this thread needed: a build that fails
    /// with such an artifact inside fails for that reason (serde carries the nested error as
    /// text only). Read and cleared by [`check`].
    static NEEDED: RefCell<Option<crate::error::Unavailable>> = const { RefCell::new(None) };
}

/// The catalog types this engine knows but cannot run here, with what they need and why:
/// building one is an `Unsupported` error that says so, and [`check`] counts the artifacts
/// that contain one under that need instead of among the failures.
pub const NEEDS: &[(&str, crate::error::Need, &str)] = {
    use crate::error::Need::{Model, Network};
    const ENGINE: &str = "an inference engine (a model served elsewhere)";
    &[
        ("azure_open_ai_inference_engine", Model, ENGINE),
        ("cross_provider_inference_engine", Model, ENGINE),
        ("generic_inference_engine", Model, ENGINE),
        ("hf_pipeline_based_inference_engine", Model, ENGINE),
        ("ollama_inference_engine", Model, ENGINE),
        ("open_ai_inference_engine", Model, ENGINE),
        ("rits_inference_engine", Model, ENGINE),
        ("wml_inference_engine", Model, ENGINE),
        ("wml_inference_engine_generation", Model, ENGINE),
        ("load_from_hf_space", Network, "files of a Hugging Face Space, fetched from the Hub"),
        ("load_from_kaggle", Network, "Kaggle's API"),
        ("load_from_sklearn", Network, "scikit-learn's dataset downloads"),
        ("turl_column_type_annotation_loader", Network, "files downloaded from the Hugging Face Hub"),
        ("wikipedia_fetcher", Network, "Wikipedia's API"),
        ("read_file", Network, "to fetch a URL (reading local files named by a catalog is refused: catalogs are untrusted)"),
    ]
};

/// The error for an artifact of type `t` that needs `need` (see [`NEEDS`]), remembered for
/// [`check`].
fn needs(t: &str, need: crate::error::Need, why: &str) -> Error {
    let reason = format!("`{t}` needs {why}, which unitxt-rs does not have here");
    NEEDED.with(|n| {
        *n.borrow_mut() = Some(crate::error::Unavailable {
            need,
            reason: reason.clone(),
        })
    });
    Error::unsupported(reason)
}

/// `e`, remembered for [`check`] as needing the network when it says a file is not on disk
/// (a model's tokenizer files missing from the local hub cache: downloading them would fix it).
fn missing_download(e: Error) -> Error {
    if e.kind == crate::error::ErrorKind::FileNotFound {
        let reason = e.message.split("; ").next().unwrap_or_default().to_string();
        NEEDED.with(|n| *n.borrow_mut() = Some(crate::error::Unavailable { need: crate::error::Need::Network, reason }));
    }
    e
}

/// What [`check`] found for one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It builds, and it runs here.
    Works,
    /// It is well formed, but it (or an artifact inside it) needs something this engine does
    /// not have here: a model, an LLM judge, an inference engine, or the network.
    Needs(crate::error::Unavailable),
    /// It does not build: the first line of the error.
    Fails(String),
}

/// How deeply artifacts may nest (an artifact naming or containing another, which names or
/// contains another, ...): deeper nesting is an error rather than a stack overflow. Unitxt's
/// catalog nests at most a handful of levels.
pub const MAX_ARTIFACT_DEPTH: usize = 64;

/// Runs `f` with `label` (a catalog name, or `{type}` for an inline object) on the stack of the
/// artifacts being built: a catalog name already there is a reference cycle, an error that
/// gives the cycle's path (`cards.a → tasks.b → cards.a`); more than [`MAX_ARTIFACT_DEPTH`]
/// levels is an error too, whatever the thread's stack size. Unitxt recurses until Python's
/// recursion limit.
fn resolving<R>(label: &str, named: bool, f: impl FnOnce() -> Result<R>) -> Result<R> {
    RESOLVING.with(|r| {
        let mut r = r.borrow_mut();
        if named {
            if let Some(at) = r.iter().position(|n| n == label) {
                let path: Vec<&str> = r[at..].iter().map(String::as_str).chain([label]).collect();
                return Err(Error::invalid(format!("artifact reference cycle: {}", path.join(" → "))));
            }
        }
        if r.len() >= MAX_ARTIFACT_DEPTH {
            return Err(Error::invalid(format!(
                "artifacts nest more than {MAX_ARTIFACT_DEPTH} levels deep (at {label}, inside {})",
                r.last().map(String::as_str).unwrap_or_default()
            )));
        }
        r.push(label.to_string());
        Ok(())
    })?;
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            RESOLVING.with(|r| r.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    // Each level of building takes several serde frames: the stack grows on the heap when
    // little is left, so the depth limit, not the thread's stack size, is what bounds it.
    stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, f)
}

/// Builds the artifact `v` names (see [`resolve_value`] for the forms it takes) with `catalog`
/// as the catalog where its catalog names, nested ones included, are looked up. The result is
/// not kept (see [`fetch`]).
pub fn build(v: &Value, catalog: &Arc<Catalog>) -> Result<Artifact> {
    building_in(catalog, || resolve_value(v))
}

/// Runs `f`, which builds artifacts through [`resolve`] or [`resolve_value`], as one build in
/// `catalog`: for a value made of several artifacts rather than one (a recipe's list or dict
/// of templates).
pub fn building_in<R>(catalog: &Arc<Catalog>, f: impl FnOnce() -> Result<R>) -> Result<R> {
    BUILDING.with(|c| c.borrow_mut().push(catalog.clone()));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            BUILDING.with(|c| {
                let mut c = c.borrow_mut();
                c.pop();
                if c.is_empty() {
                    NESTED_FAILURE.with(|n| n.borrow_mut().take());
                }
            });
        }
    }
    let _pop = Pop;
    f()
}

/// [`build`], for a value that must be of kind `T`: errors when `v` builds into another kind.
pub fn build_as<T: ArtifactKind + ?Sized>(v: &Value, catalog: &Arc<Catalog>) -> Result<Art<T>> {
    let a = build(v, catalog)?;
    let got = a.kind();
    T::extract(a).map_err(|_| Error::invalid(format!("expected a {}, but {} is a {}", T::KIND, short(v), got)))
}

/// Builds catalog artifact `query` (a name, with optional `[overwrites]`) in `catalog`, once:
/// the built artifact is kept in the catalog (artifacts are immutable), so fetching the same
/// query again is a lookup.
pub fn fetch(catalog: &Arc<Catalog>, query: &str) -> Result<Artifact> {
    catalog.memo(query, || build(&Value::String(query.into()), catalog))
}

/// Builds every artifact of `catalog` whose name starts with `prefix` (`""`: all of them) as
/// [`fetch`] builds it (nested names resolved, no data loaded), and returns the names in
/// order, each with its [`Outcome`]. A metric that builds only as a stand-in that cannot
/// compute ([`crate::metrics::Metric::unavailable`]) and an artifact that fails because of a
/// type of [`NEEDS`] inside it are [`Outcome::Needs`], never [`Outcome::Works`]. A panic while
/// building (a bug) is reported as that artifact's failure. For `unitxt-rs catalog check`:
/// how much of a catalog this engine reads and runs.
pub fn check(catalog: &Arc<Catalog>, prefix: &str) -> Vec<(String, Outcome)> {
    catalog
        .all_names()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(|name| {
            NEEDED.with(|n| n.borrow_mut().take());
            let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fetch(catalog, &name)));
            let needed = NEEDED.with(|n| n.borrow_mut().take());
            let outcome = match built {
                Ok(Ok(Artifact::Metric(m))) => match m.unavailable() {
                    None => Outcome::Works,
                    Some(u) => Outcome::Needs(u),
                },
                Ok(Ok(_)) => Outcome::Works,
                Ok(Err(e)) => match needed {
                    Some(u) => Outcome::Needs(u),
                    None => Outcome::Fails(e.to_string().lines().next().unwrap_or_default().to_string()),
                },
                Err(_) => Outcome::Fails("building it panicked (a bug in unitxt-rs)".to_string()),
            };
            (name, outcome)
        })
        .collect()
}

/// `e` located where the nested artifact whose failure it reports was, when serde carried that
/// failure as text (see [`NESTED_FAILURE`]); parts of its own location stay.
fn with_nested_location(mut e: Error) -> Error {
    if let Some(inner) = NESTED_FAILURE.with(|n| n.borrow_mut().take()) {
        let l = &mut e.location;
        l.artifact = l.artifact.take().or(inner.artifact);
        l.field = l.field.take().or(inner.field);
        l.split = l.split.take().or(inner.split);
        l.instance = l.instance.take().or(inner.instance);
    }
    e
}

/// The catalog of the innermost [`build`] running on this thread.
fn building() -> Result<Arc<Catalog>> {
    BUILDING.with(|c| c.borrow().last().cloned()).ok_or_else(|| {
        Error::invalid("an artifact refers to another one outside of a build (a bug in unitxt-rs: build through `registry::build`)")
    })
}

/// Builds a nested artifact from its JSON representation (Unitxt's `fetch_artifact`): a
/// catalog name with optional `[overwrites]`, a path to a `.json` file, a JSON string, or an
/// object with `__type__`. Names are looked up in the catalog of the running [`build`]; outside
/// one this is an error.
pub fn resolve_value(v: &Value) -> Result<Artifact> {
    match v {
        Value::String(s) => {
            let s = s.trim();
            if s.ends_with(".json") && Path::new(s).is_file() {
                let json = building()?.read_json(Path::new(s))?;
                return resolving(s, true, || build_object(&json)).with_ctx(|| format!("in artifact file {s}"));
            }
            let (name, overwrites) = split_name_and_overwrites(s)?;
            if is_legal_catalog_name(&name) {
                let json = building()?.get_json(&name)?;
                let mut json = (*json).clone();
                if let (Some(ov), Value::Object(m)) = (overwrites, &mut json) {
                    for (k, val) in ov {
                        m.insert(k.into(), val);
                    }
                }
                let mut a = match resolving(&name, true, || build_object(&json)) {
                    Ok(a) => {
                        NESTED_FAILURE.with(|n| n.borrow_mut().take());
                        a
                    }
                    Err(e) => {
                        let e = with_nested_location(e).in_artifact(&name);
                        NESTED_FAILURE.with(|n| *n.borrow_mut() = Some(e.location.clone()));
                        return Err(e);
                    }
                };
                a.set_id(&name);
                return Ok(a);
            }
            let parsed: Value = serde_json::from_str(s).map_err(|_| {
                Error::invalid(format!("{s:?} is neither a legal catalog name nor a JSON artifact"))
            })?;
            build_object(&parsed)
        }
        Value::Object(_) => {
            let label = format!("{{{}}}", v.get("__type__").and_then(|t| t.as_str()).unwrap_or("?"));
            resolving(&label, false, || build_object(v)).map_err(with_nested_location)
        }
        other => Err(Error::invalid(format!("expected an artifact (a catalog name or an object with __type__), got {}", short(other)))),
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
    /// A benchmark (`benchmark`) or fusion (`fixed_fusion`, `weighted_fusion`): recipes,
    /// benchmarks and fusions, every subset built.
    Benchmark(Art<crate::recipe::benchmark::Benchmark>),
    /// The criteria of LLM-judge metrics (`criteria`, `criteria_with_options`): data only.
    Criteria(Art<crate::metrics::criteria::Criteria>),
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
            Artifact::Criteria(_) => "criteria",
        }
    }

    /// Sets the catalog name this artifact was fetched by.
    pub fn set_id(&mut self, id: &str) {
        let id = Some(crate::value::Str::from(id));
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
            Artifact::Criteria(a) => a.id = id,
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

/// [`resolve_value`] for a field typed with kind `T`: errors when `v` builds into another kind.
/// Only while a [`build`] runs (it is how nested artifacts are built).
pub fn resolve<T: ArtifactKind + ?Sized>(v: &Value) -> Result<Art<T>> {
    let a = resolve_value(v)?;
    let got = a.kind();
    T::extract(a).map_err(|_| {
        Error::invalid(format!("expected a {}, but {} is a {}", T::KIND, crate::artifact::short(v), got))
    })
}

impl<'de, T: ArtifactKind + ?Sized> Deserialize<'de> for Art<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        resolve::<T>(&v).map_err(serde::de::Error::custom)
    }
}


/// Builds the artifact described by `v` (an object with `__type__`, see [`build_of_type`]); a
/// key that is not a field of its type is an error naming the key and the nearest field, as
/// Unitxt's `UnexpectedArgumentError` (checked where the type's fields can be listed: every
/// artifact deserialized as plain structs).
fn build_object(v: &Value) -> Result<Artifact> {
    let (built, read) = crate::artifact::fields_read(|| build_of_type(v));
    let a = built?;
    if let (true, Some(m)) = (read.complete, v.as_object()) {
        let fields = read.names;
        for k in m.keys().map(|k| k.as_str()) {
            let common: &[&str] = match &a {
                Artifact::Metric(_) => crate::metrics::COMMON_KEYS,
                _ => &[],
            };
            if !fields.contains(&k)
                && !crate::artifact::META_KEYS.contains(&k)
                && !crate::artifact::IGNORED_KEYS.contains(&k)
                && !common.contains(&k)
            {
                let t = v.get("__type__").and_then(|t| t.as_str()).unwrap_or_default();
                let near = fields.iter().copied().max_by(|a, b| strsim::jaro_winkler(a, k).total_cmp(&strsim::jaro_winkler(b, k)));
                let hint = match near {
                    Some(n) if strsim::jaro_winkler(n, k) > 0.8 => format!("; did you mean `{n}`?"),
                    _ => format!("; its fields are {}", fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
                };
                return Err(Error::invalid(format!("`{k}` is not a field of `{t}`{hint}")).in_field(k));
            }
        }
    }
    Ok(a)
}

/// Builds the artifact described by `v` (an object with `__type__`), with this one `match` from
/// `__type__` to type. Errors name the type and suggest the nearest known type for unknown ones.
fn build_of_type(v: &Value) -> Result<Artifact> {
    let t = v
        .get("__type__")
        .and_then(|t| t.as_str())
        .ok_or_else(|| Error::invalid(format!("artifact has no `__type__`: {}", crate::artifact::short(v))))?;
    let raw = || v.clone();
    use crate::{augmentors as aug, formats as fmt, loaders as ld, metrics as mt, operators as op, processors as pr, splitters as sp, system_prompts as sysp, templates as tp};
    let _ = raw;
    // A user's Python component (operators/callback.rs): not a catalog type of its own.
    if t == op::callback::CALLBACK_TYPE {
        return op::callback::build(v);
    }
    let a = match t {
        // ---- cards, tasks, template collections (card.rs, task.rs) ----
        "task_card" => Artifact::Card(plain::<crate::card::Card>(t, v)?),
        // A recipe's arguments as an artifact (Unitxt's `DatasetRecipe`); built in the catalog
        // of the build, so that its card, template and other names resolve there.
        "dataset_recipe" => {
            let args = crate::recipe::RecipeArgs::from_json(v)?;
            let recipe = crate::recipe::Recipe::build(&args, building()?)?;
            Artifact::Recipe(Art::new(Arc::new(recipe), v.clone()))
        }
        "benchmark" => {
            let b = crate::recipe::benchmark::Benchmark::build(v, &building()?, &Default::default())?;
            Artifact::Benchmark(Art::new(Arc::new(b), v.clone()))
        }
        "fixed_fusion" | "weighted_fusion" => {
            let b = crate::recipe::benchmark::Benchmark::build_fusion(v, &building()?)?;
            Artifact::Benchmark(Art::new(Arc::new(b), v.clone()))
        }
        "task" => Artifact::Task(Art::new(Arc::new(crate::task::Task::from_json(v)?), v.clone())),
        "templates_list" => {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_list needs `items`"))?;
            match crate::card::Templates::from_value(items)? {
                crate::card::Templates::List(l) => {
                    Artifact::TemplatesList(l.into_iter().map(|e| e.single("a templates_list item")).collect::<Result<_>>()?)
                }
                _ => return Err(Error::invalid("templates_list `items` must be a list")),
            }
        }
        "templates_dict" => {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_dict needs `items`"))?;
            match crate::card::Templates::from_value(items)? {
                crate::card::Templates::Dict(d) => Artifact::TemplatesDict(
                    d.into_iter().map(|(k, e)| Ok((k, e.single("a templates_dict item")?))).collect::<Result<_>>()?,
                ),
                _ => return Err(Error::invalid("templates_dict `items` must be a dict")),
            }
        }

        // ---- loaders (loaders/) ----
        "load_csv" => Artifact::Loader(Art::new(Arc::new(from_value::<ld::files::LoadCSV>(t, v)?), v.clone())),
        "load_iob" => Artifact::Loader(Art::new(Arc::new(from_value::<ld::iob::LoadIOB>(t, v)?), v.clone())),
        "load_from_dictionary" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::memory::LoadFromDictionary>(t, v)?), v.clone()))
        }
        "load_hf" => Artifact::Loader(Art::new(Arc::new(from_value::<ld::hf::LoadHF>(t, v)?), v.clone())),
        "load_json_file" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::files::LoadJsonFile>(t, v)?), v.clone()))
        }
        "multiple_source_loader" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::memory::MultipleSourceLoader>(t, v)?), v.clone()))
        }

        // ---- operators (operators/) ----
        "add_constant" => field_op::<op::fields::AddConstant>(t, v)?,
        "apply" => instance_op::<op::expressions::Apply>(t, v)?,
        "capitalize" => field_op::<op::strings::Capitalize>(t, v)?,
        "cast" => field_op::<op::fields::Cast>(t, v)?,
        "add_id" => instance_op::<op::fields::AddId>(t, v)?,
        "cast_fields" => instance_op::<op::fields::CastFields>(t, v)?,
        "chunk" => field_op::<op::collections::Chunk>(t, v)?,
        "copy" | "copy_fields" | "recursive_copy" => field_op::<op::fields::Copy>(t, v)?,
        "dict_of_lists_to_pairs" => field_op::<op::collections::DictOfListsToPairs>(t, v)?,
        "dict_to_tuples_list" => field_op::<op::collections::DictToTuplesList>(t, v)?,
        "dictify" => field_op::<op::collections::Dictify>(t, v)?,
        "execute_expression" => instance_op::<op::expressions::ExecuteExpression>(t, v)?,
        "extract_with_regex" => field_op::<op::regex::ExtractWithRegex>(t, v)?,
        "fillna" => field_op::<op::fields::Fillna>(t, v)?,
        "filter" => field_op::<op::collections::Filter>(t, v)?,
        "flatten" => field_op::<op::collections::Flatten>(t, v)?,
        "format_text" => instance_op::<op::strings::FormatText>(t, v)?,
        "get" => field_op::<op::collections::Get>(t, v)?,
        "get_item_by_index" => field_op::<op::fields::GetItemByIndex>(t, v)?,
        "get_length" => field_op::<op::collections::GetLength>(t, v)?,
        "group_dict_with_regex" => field_op::<op::regex::GroupDictWithRegex>(t, v)?,
        "index_of" => instance_op::<op::fields::IndexOf>(t, v)?,
        "interleave_lists_to_dialog_operator" => instance_op::<op::fields::InterleaveListsToDialogOperator>(t, v)?,
        "join" => field_op::<op::strings::Join>(t, v)?,
        "join_str" => field_op::<op::fields::JoinStr>(t, v)?,
        "list_field_values" => instance_op::<op::fields::ListFieldValues>(t, v)?,
        "construct_table_from_rows_cols" => instance_op::<op::tables::ConstructTableFromRowsCols>(t, v)?,
        "map_table_lists_to_std_table_json" => field_op::<op::tables::MapTableListsToStdTableJson>(t, v)?,
        "parse_csv" => field_op::<op::tables::ParseCsv>(t, v)?,
        "literal_eval" => field_op::<op::expressions::LiteralEval>(t, v)?,
        "lower" | "lower_case" => field_op::<op::strings::Lower>(t, v)?,
        "map_instance_values" => instance_op::<op::fields::MapInstanceValues>(t, v)?,
        "map_replace" => field_op::<op::strings::MapReplace>(t, v)?,
        "map_values" => field_op::<op::fields::MapValues>(t, v)?,
        "move" => instance_op::<op::fields::Move>(t, v)?,
        "regex_parser" => field_op::<op::regex::RegexParser>(t, v)?,
        "regex_replace" => field_op::<op::regex::RegexReplace>(t, v)?,
        "regex_split" => field_op::<op::regex::RegexSplit>(t, v)?,
        "remove_fields" => instance_op::<op::fields::RemoveFields>(t, v)?,
        "recursive_replace" => instance_op::<op::fields::RecursiveReplace>(t, v)?,
        "iob_extractor" => instance_op::<op::spans::IobExtractor>(t, v)?,
        "remove_values" => field_op::<op::fields::RemoveValues>(t, v)?,
        "rename" | "rename_fields" => instance_op::<op::fields::Rename>(t, v)?,
        "replace" => field_op::<op::strings::Replace>(t, v)?,
        "select_fields" => instance_op::<op::fields::SelectFields>(t, v)?,
        "sequential_operator" => operator::<op::composite::SequentialOperator>(t, v)?,
        "set" | "add_fields" => instance_op::<op::fields::Set>(t, v)?,
        "slice" => field_op::<op::collections::Slice>(t, v)?,
        "split" => field_op::<op::strings::Split>(t, v)?,
        "strip" => field_op::<op::strings::Strip>(t, v)?,
        "take_by_field" => instance_op::<op::fields::TakeByField>(t, v)?,
        "upper" => field_op::<op::strings::Upper>(t, v)?,
        "wrap" => field_op::<op::collections::Wrap>(t, v)?,
        "zip" => instance_op::<op::collections::Zip>(t, v)?,
        "zip_field_values" => instance_op::<op::fields::ZipFieldValues>(t, v)?,
        "zip_longest" => instance_op::<op::collections::ZipLongest>(t, v)?,
        // card operators of the dialog, table and JSON-schema families (issue 39)
        "create_criteria_with_options_from_dict" => field_op::<op::fields::CreateCriteriaWithOptionsFromDict>(t, v)?,
        "dump_json" => field_op::<op::tables::DumpJson>(t, v)?,
        "fix_json_schema_of_parameter_types" => instance_op::<op::fields::FixJsonSchemaOfParameterTypes>(t, v)?,
        "get_num_of_table_cells" => field_op::<op::tables::GetNumOfTableCells>(t, v)?,
        "list_to_key_val_pairs" => instance_op::<op::tables::ListToKeyValPairs>(t, v)?,
        "map_html_table_to_json" => field_op::<op::tables::MapHtmlTableToJson>(t, v)?,
        "pop" => in_place_field_op::<op::collections::Pop>(t, v)?,
        "serialize_dialog" => instance_op::<op::dialog::SerializeDialogOp>(t, v)?,
        "serialize_key_val_pairs" => field_op::<op::tables::SerializeKeyValPairs>(t, v)?,
        "serialize_open_ai_format_dialog" => instance_op::<op::dialog::SerializeOpenAiFormatDialogOp>(t, v)?,
        "serialize_table_row_as_text" => instance_op::<op::tables::SerializeTableRowAsText>(t, v)?,
        "serialize_triples" => field_op::<op::tables::SerializeTriples>(t, v)?,
        "shuffle_field_values" => field_op::<op::fields::ShuffleFieldValues>(t, v)?,
        "to_dialog" => field_op::<op::dialog::ToDialog>(t, v)?,
        "truncate_table_rows" => in_place_field_op::<aug::table::TruncateTableRows>(t, v)?,

        // stream operators
        "add_incremental_id" => stream_op::<op::streams::AddIncrementalId>(t, v)?,
        "deduplicate" => stream_op::<op::streams::Deduplicate>(t, v)?,
        "delete_splits" => operator::<op::streams::DeleteSplits>(t, v)?,
        "deterministic_balancer" => stream_op::<op::streams::DeterministicBalancer>(t, v)?,
        "duplicate_instances" => stream_op::<op::streams::DuplicateInstances>(t, v)?,
        "duplicate_split" => operator::<op::streams::DuplicateSplit>(t, v)?,
        "filter_by_condition" => stream_op::<op::streams::FilterByCondition>(t, v)?,
        "filter_by_condition_based_on_fields" => stream_op::<op::streams::FilterByConditionBasedOnFields>(t, v)?,
        "filter_by_expression" => stream_op::<op::streams::FilterByExpression>(t, v)?,
        "join_streams" => operator::<op::streams::JoinStreams>(t, v)?,
        "length_balancer" => stream_op::<op::streams::LengthBalancer>(t, v)?,
        "merge_streams" => operator::<op::streams::MergeStreams>(t, v)?,
        "minimum_one_example_per_label_refiner" => stream_op::<op::streams::MinimumOneExamplePerLabelRefiner>(t, v)?,
        "shuffle" => operator::<op::streams::Shuffle>(t, v)?,
        "stream_refiner" => stream_op::<op::streams::StreamRefiner>(t, v)?,
        "duplicate_by_list" | "explode" => stream_op::<op::collections::DuplicateByList>(t, v)?,
        "duplicate_by_sub_lists" => stream_op::<op::collections::DuplicateBySubLists>(t, v)?,
        "extract_field_values" => operator::<op::streams::ExtractFieldValues>(t, v)?,

        // ---- splitters and samplers (splitters/) ----
        "rename_splits" => operator::<sp::splitters::RenameSplits>(t, v)?,
        "separate_split" => operator::<sp::splitters::SeparateSplit>(t, v)?,
        "slice_split" => operator::<sp::splitters::SliceSplit>(t, v)?,
        "split_random_mix" => operator::<sp::splitters::SplitRandomMix>(t, v)?,
        "close_text_sampler" => sampler::<sp::samplers::CloseTextSampler>(t, v)?,
        "diverse_labels_sampler" => sampler::<sp::samplers::DiverseLabelsSampler>(t, v)?,
        "fixed_indices_sampler" => sampler::<sp::samplers::FixedIndicesSampler>(t, v)?,
        "random_sampler" => sampler::<sp::samplers::RandomSampler>(t, v)?,

        // ---- processors (processors/) ----
        "convert_to_boolean" => field_op::<pr::text::ConvertToBoolean>(t, v)?,
        "extract_arena_hard_numerical_judgment" => field_op::<pr::judgments::ExtractArenaHardNumericalJudgment>(t, v)?,
        "extract_harm_rating_judgement" => field_op::<pr::judgments::ExtractHarmRatingJudgement>(t, v)?,
        "extract_mt_bench_label_judgment" => field_op::<pr::judgments::ExtractMtBenchLabelJudgment>(t, v)?,
        "extract_mt_bench_rating_judgment" => field_op::<pr::judgments::ExtractMtBenchRatingJudgment>(t, v)?,
        "extract_safe_unsafe_judgment" => field_op::<pr::judgments::ExtractSafeUnsafeJudgment>(t, v)?,
        "extract_verbal_judgement_bad_good" => {
            pr::field_op_with(t, v, pr::judgments::ExtractVerbalJudgment::bad_good(v)?)?
        }
        "extract_verbal_judgment" => field_op::<pr::judgments::ExtractVerbalJudgment>(t, v)?,
        "first_character" => field_op::<pr::text::FirstCharacter>(t, v)?,
        "fix_white_space" => field_op::<pr::text::FixWhiteSpace>(t, v)?,
        "get_sql" => field_op::<pr::text::GetSql>(t, v)?,
        "get_string_after" => field_op::<pr::text::GetStringAfter>(t, v)?,
        "infer_dicts_to_binary_logprobs" => {
            let op = from_value::<pr::judgments::InferDictsToBinaryLogprobs>(t, v)?.checked()?;
            pr::field_op_with(t, v, op)?
        }
        "list_to_empty_entities_tuples" => field_op::<pr::text::ListToEmptyEntitiesTuples>(t, v)?,
        "load_json" => field_op::<pr::json::LoadJson>(t, v)?,
        "lower_case_till_punc" => field_op::<pr::text::LowerCaseTillPunc>(t, v)?,
        "match_closest_option" => field_op::<pr::closest::MatchClosestOption>(t, v)?,
        "multiple_tool_call_post_processor" => field_op::<pr::json::MultipleToolCallPostProcessor>(t, v)?,
        "post_process" => Artifact::Operator(Art::new(
            Arc::new(pr::post_process::PostProcess::from_json(v)?) as Arc<dyn Operator>,
            v.clone(),
        )),
        "remove_articles" => field_op::<pr::text::RemoveArticles>(t, v)?,
        "remove_punctuations" => field_op::<pr::text::RemovePunctuations>(t, v)?,
        "scale_number_to_zero_one_return_zero_if_fails" => {
            field_op::<pr::judgments::ScaleNumberToZeroOneReturnZeroIfFails>(t, v)?
        }
        "split_strip" => field_op::<pr::text::SplitStrip>(t, v)?,
        "stance_to_pro_con" => pr::field_op_with(t, v, pr::text::LabelMap::StanceToProCon)?,
        "str_to_float_format" => field_op::<pr::text::StrToFloatFormat>(t, v)?,
        "string_equals" | "string_or_not_string" => field_op::<pr::text::StringEquals>(t, v)?,
        "substring" => field_op::<pr::text::Substring>(t, v)?,
        "take_first_non_empty_line" => field_op::<pr::text::TakeLine>(t, v)?,
        "take_first_word" => field_op::<pr::text::TakeFirstWord>(t, v)?,
        "take_last_non_empty_line" => pr::field_op_with(t, v, pr::text::TakeLine::last())?,
        "to_list_by_comma" => pr::field_op_with(t, v, pr::text::SplitStrip::preset(v, ",")?)?,
        "to_list_by_comma_space" => pr::field_op_with(t, v, pr::text::SplitStrip::preset(v, ", ")?)?,
        "to_string" => field_op::<pr::text::ToString>(t, v)?,
        "to_string_stripped" => field_op::<pr::text::ToStringStripped>(t, v)?,
        "to_yes_or_none" => pr::field_op_with(t, v, pr::text::LabelMap::ToYesOrNone)?,
        "tool_call_post_processor" => field_op::<pr::json::ToolCallPostProcessor>(t, v)?,
        "yes_no_to_int" => pr::field_op_with(t, v, pr::text::LabelMap::YesNoToInt)?,
        "yes_to_one_else_zero" => pr::field_op_with(t, v, pr::text::LabelMap::YesToOneElseZero)?,

        // ---- templates and serializers (templates/) ----
        "conversation_serializer" => serializer::<tp::serializers::ConversationSerializer>(t, v)?,
        "default_list_serializer" => serializer::<tp::serializers::DefaultListSerializer>(t, v)?,
        "default_serializer" => serializer::<tp::serializers::DefaultSerializer>(t, v)?,
        "dialog_serializer" => serializer::<tp::serializers::DialogSerializer>(t, v)?,
        "dict_as_json_serializer" => serializer::<tp::serializers::DictAsJsonSerializer>(t, v)?,
        "document_serializer" => serializer::<tp::serializers::DocumentSerializer>(t, v)?,
        "image_serializer" => serializer::<tp::serializers::ImageSerializer>(t, v)?,
        "input_output_template" => template::<tp::input_output::InputOutputTemplate>(t, v)?,
        "input_output_template_with_custom_target" => {
            template::<tp::input_output::InputOutputTemplateWithCustomTarget>(t, v)?
        }
        "json_output_template" => template::<tp::input_output::JsonOutputTemplate>(t, v)?,
        "key_val_template" => template::<tp::others::KeyValTemplate>(t, v)?,
        "list_serializer" => serializer::<tp::serializers::ListSerializer>(t, v)?,
        "multi_document_serializer" => serializer::<tp::serializers::MultiDocumentSerializer>(t, v)?,
        "multi_label_template" => template::<tp::input_output::MultiLabelTemplate>(t, v)?,
        "multi_reference_template" => template::<tp::input_output::MultiReferenceTemplate>(t, v)?,
        "multi_turn_template" => template::<tp::input_output::MultiTurnTemplate>(t, v)?,
        "multi_type_serializer" => serializer::<tp::serializers::MultiTypeSerializer>(t, v)?,
        "multiple_choice_template" => {
            let tpl: Arc<dyn tp::Template> = Arc::new(tp::multiple_choice::MultipleChoiceTemplate::from_json(v)?);
            Artifact::Template(Art::new(tpl, v.clone()))
        }
        "null_template" => template::<tp::others::NullTemplate>(t, v)?,
        "number_quantizing_serializer" => serializer::<tp::serializers::NumberQuantizingSerializer>(t, v)?,
        "number_serializer" => serializer::<tp::serializers::NumberSerializer>(t, v)?,
        "output_quantizing_template" => template::<tp::input_output::OutputQuantizingTemplate>(t, v)?,
        "pairwise_choice_template" => template::<tp::others::PairwiseChoiceTemplate>(t, v)?,
        "pairwise_comparative_rating_template" => {
            template::<tp::others::PairwiseComparativeRatingTemplate>(t, v)?
        }
        "span_labeling_json_template" => template::<tp::input_output::SpanLabelingJsonTemplate>(t, v)?,
        "span_labeling_template" => template::<tp::input_output::SpanLabelingTemplate>(t, v)?,
        "sql_database_as_schema_serializer" => {
            serializer::<tp::serializers::SqlDatabaseAsSchemaSerializer>(t, v)?
        }
        "table_serializer" => serializer::<tp::serializers::TableSerializer>(t, v)?,
        "serialize_table_as_concatenation" => table_serializer(t, v, tp::serializers::TableLayout::Concatenation)?,
        "serialize_table_as_df_loader" => table_serializer(t, v, tp::serializers::TableLayout::DfLoader)?,
        "serialize_table_as_html" => table_serializer(t, v, tp::serializers::TableLayout::Html)?,
        "serialize_table_as_indexed_row_major" => table_serializer(t, v, tp::serializers::TableLayout::IndexedRowMajor)?,
        "serialize_table_as_json" => table_serializer(t, v, tp::serializers::TableLayout::Json)?,
        "serialize_table_as_markdown" => table_serializer(t, v, tp::serializers::TableLayout::Markdown)?,
        "serialize_table_as_image" => table_serializer(t, v, tp::serializers::TableLayout::Image)?,
        "tool_call_serializer" => serializer::<tp::serializers::ToolCallSerializer>(t, v)?,
        "tools_serializer" => serializer::<tp::serializers::ToolsSerializer>(t, v)?,
        "video_serializer" => serializer::<tp::serializers::VideoSerializer>(t, v)?,
        "yes_no_template" => template::<tp::others::YesNoTemplate>(t, v)?,
        "dialog_template" => template::<tp::others::DialogTemplate>(t, v)?,
        "dialog_pairwise_choice_template" => template::<tp::others::DialogPairwiseChoiceTemplate>(t, v)?,

        // ---- formats (formats/) ----
        "chat_api_format" => Artifact::Format(Art::new(
            Arc::new(from_value::<fmt::chat_api::ChatApiFormat>(t, v)?) as Arc<dyn fmt::Format>,
            v.clone(),
        )),
        "granite_documents_format" => Artifact::Format(Art::new(
            Arc::new(fmt::tokenizer::GraniteDocumentsFormat::new(from_value(t, v)?).map_err(missing_download)?) as Arc<dyn fmt::Format>,
            v.clone(),
        )),
        "hf_system_format" => Artifact::Format(Art::new(
            Arc::new(fmt::tokenizer::HfSystemFormat::new(from_value(t, v)?).map_err(missing_download)?) as Arc<dyn fmt::Format>,
            v.clone(),
        )),
        "system_format" => Artifact::Format(Art::new(
            Arc::new(from_value::<fmt::system::SystemFormat>(t, v)?) as Arc<dyn fmt::Format>,
            v.clone(),
        )),

        // ---- images (images.rs) ----
        "decode_image" => field_op::<crate::images::DecodeImage>(t, v)?,
        "hash_image" => field_op::<crate::images::HashImage>(t, v)?,
        "to_image" => field_op::<crate::images::ToImage>(t, v)?,
        "to_rgb" => field_op::<crate::images::ToRgb>(t, v)?,

        // ---- system prompts (system_prompts/) ----
        "empty_system_prompt" => Artifact::SystemPrompt(Art::new(
            Arc::new(from_value::<sysp::EmptySystemPrompt>(t, v)?) as Arc<dyn sysp::SystemPrompt>,
            v.clone(),
        )),
        "textual_system_prompt" => Artifact::SystemPrompt(Art::new(
            Arc::new(from_value::<sysp::TextualSystemPrompt>(t, v)?) as Arc<dyn sysp::SystemPrompt>,
            v.clone(),
        )),

        // ---- augmentors (augmentors/) ----
        "augment_prefix_suffix" => augmentor(from_value::<aug::AugmentPrefixSuffix>(t, v)?.prepared()?, v),
        "augment_whitespace" => augmentor(from_value::<aug::AugmentWhitespace>(t, v)?, v),
        "null_augmentor" => augmentor(from_value::<aug::NullAugmentor>(t, v)?, v),
        "gray_scale" => augmentor(from_value::<aug::image::GrayScale>(t, v)?, v),
        "grid_lines" => augmentor(from_value::<aug::image::GridLines>(t, v)?, v),
        "pixel_noise" => augmentor(from_value::<aug::image::PixelNoise>(t, v)?, v),
        "oldify" => augmentor(from_value::<aug::image::Oldify>(t, v)?, v),
        "transpose_table" => augmentor(from_value::<aug::table::TransposeTable>(t, v)?, v),
        "shuffle_table_rows" => augmentor(from_value::<aug::table::ShuffleTableRows>(t, v)?, v),
        "shuffle_table_columns" => augmentor(from_value::<aug::table::ShuffleTableColumns>(t, v)?, v),
        "duplicate_table_rows" => augmentor(from_value::<aug::table::DuplicateTableRows>(t, v)?, v),
        "duplicate_table_columns" => augmentor(from_value::<aug::table::DuplicateTableColumns>(t, v)?, v),
        "mask_columns_names" => augmentor(from_value::<aug::table::MaskColumnsNames>(t, v)?, v),
        "insert_empty_table_rows" => augmentor(from_value::<aug::table::InsertEmptyTableRows>(t, v)?, v),
        "shuffle_columns_names" => augmentor(from_value::<aug::table::ShuffleColumnsNames>(t, v)?, v),

        // ---- metrics (metrics/) ----
        "accuracy" | "accuracy_fast" => {
            let mut m = from_value::<mt::strings::Accuracy>(t, v)?;
            m.instance_class = t == "accuracy";
            metric(t, v, m)
        }
        "anls" => metric(t, v, from_value::<mt::generation::Anls>(t, v)?),
        "bert_score"
        | "faithfulness_hhem"
        | "granite_guardian_agentic_risk"
        | "granite_guardian_assistant_risk"
        | "granite_guardian_rag_risk"
        | "granite_guardian_user_risk"
        | "is_code_mixed"
        | "kpa"
        | "llama_index_correctness"
        | "llama_index_faithfulness"
        | "llm_as_judge"
        | "llm_judge_direct"
        | "llm_judge_pairwise"
        | "meteor_fast"
        | "perplexity"
        | "regard_metric"
        | "reward"
        | "safety_metric"
        | "sentence_bert"
        | "task_based_ll_mas_judge"
        // Catalog metrics that need packages, models or data not here (see `NeedsModel`).
        | "f1_strings"
        | "fin_qa_eval"
        | "reflection_tool_calling_metric"
        | "reflection_tool_calling_metric_syntactic"
        | "sql_execution_accuracy" => metric(t, v, mt::generation::NeedsModel::build(t, v)),
        "sql_non_execution_accuracy" => metric(t, v, from_value::<mt::text2sql::SqlNonExecutionAccuracy>(t, v)?),
        "binary_accuracy" => metric(t, v, from_value::<mt::classification::BinaryAccuracy>(t, v)?),
        "binary_max_accuracy" => metric(t, v, from_value::<mt::classification::BinaryMaxAccuracy>(t, v)?),
        "binary_max_f1" => metric(t, v, from_value::<mt::classification::BinaryMaxF1>(t, v)?),
        "char_edit_distance" | "char_edit_distance_accuracy" => {
            let mut m = from_value::<mt::generation::CharEditDistance>(t, v)?;
            m.accuracy = t == "char_edit_distance_accuracy";
            metric(t, v, m)
        }
        "exact_match_mm" => metric(t, v, from_value::<mt::strings::ExactMatchMm>(t, v)?),
        "f1" | "f1_macro" | "f1_micro" | "f1_weighted" => metric(t, v, mt::classification::F1::build(t, v)?),
        "f1_binary" | "f1_binary_pos_only" | "precision_binary" | "recall_binary" => {
            metric(t, v, mt::classification::F1Binary::build(t, v)?)
        }
        "f1_fast" => metric(t, v, from_value::<mt::classification::F1Fast>(t, v)?),
        "f1_macro_multi_label"
        | "f1_micro_multi_label"
        | "precision_macro_multi_label"
        | "precision_micro_multi_label"
        | "recall_macro_multi_label"
        | "recall_micro_multi_label" => metric(t, v, mt::classification::F1MultiLabel::build(t, v)?),
        "huggingface_metric" | "squad" | "wer" => {
            Artifact::Metric(Art::new(mt::generation::HuggingfaceMetric::build(t, v)?, v.clone()))
        }
        "jaccard_index" => metric(t, v, from_value::<mt::strings::JaccardIndex>(t, v)?),
        "jaccard_index_string" => metric(t, v, from_value::<mt::generation::JaccardIndexString>(t, v)?),
        "kendall_tau_metric" => {
            metric(t, v, mt::regression::Correlation::build(mt::regression::CorrelationKind::KendallB, t, v)?)
        }
        "map" => metric(t, v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::Map, t, v)?),
        "matthews_correlation" => metric(t, v, from_value::<mt::classification::MatthewsCorrelation>(t, v)?),
        "max_accuracy" => {
            let mut m = from_value::<mt::strings::Accuracy>(t, v)?;
            m.max = true;
            m.instance_class = true;
            metric(t, v, m)
        }
        "mean_squared_error" => metric(t, v, mt::regression::MeanSquaredError::build(t, v, false)?),
        "metric_pipeline" => metric(t, v, mt::pipeline::MetricPipeline::build(v)?),
        "metrics_list" => metric(t, v, from_value::<mt::MetricsList>(t, v)?),
        "mrr" => metric(t, v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::Mrr, t, v)?),
        "ner" => metric(t, v, from_value::<mt::generation::Ner>(t, v)?),
        "normalized_sacrebleu" => metric(t, v, from_value::<mt::generation::NormalizedSacrebleu>(t, v)?),
        "pearsonr" => metric(t, v, mt::regression::Correlation::build(mt::regression::CorrelationKind::Pearson, t, v)?),
        "prediction_length" => metric(t, v, from_value::<mt::strings::PredictionLength>(t, v)?),
        "relaxed_correctness" => metric(t, v, from_value::<mt::strings::RelaxedCorrectness>(t, v)?),
        "retrieval_at_k" => metric(t, v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::AtK, t, v)?),
        "roc_auc" => metric(t, v, from_value::<mt::classification::RocAuc>(t, v)?),
        "root_mean_squared_error" => metric(t, v, mt::regression::MeanSquaredError::build(t, v, true)?),
        "rouge" => metric(t, v, from_value::<mt::generation::Rouge>(t, v)?),
        "spearmanr" => {
            metric(t, v, mt::regression::Correlation::build(mt::regression::CorrelationKind::Spearman, t, v)?)
        }
        "string_containment" | "string_containment_old" => {
            let mut m = from_value::<mt::strings::StringContainment>(t, v)?;
            m.instance_class = t == "string_containment_old";
            metric(t, v, m)
        }
        "string_containment_ratio" => metric(t, v, from_value::<mt::strings::StringContainmentRatio>(t, v)?),
        "token_overlap" => metric(t, v, from_value::<mt::generation::TokenOverlap>(t, v)?),
        "unsorted_list_exact_match" => metric(t, v, from_value::<mt::strings::UnsortedListExactMatch>(t, v)?),
        "ndcg" => metric(t, v, from_value::<mt::ranking::Ndcg>(t, v)?),
        "rerank_recall" => metric(t, v, mt::ranking::RerankRecall::build(t, v)?),
        "key_value_extraction" => metric(t, v, mt::key_value::KeyValueExtraction::build(t, v, false)?),
        "tool_call_key_value_extraction" => metric(t, v, mt::key_value::KeyValueExtraction::build(t, v, true)?),
        "multi_turn_metric" => metric(t, v, mt::multi_turn::MultiTurnMetric::build(t, v)?),
        "websrc_squad_f1" => metric(t, v, from_value::<mt::websrc::WebsrcSquadF1>(t, v)?),
        "criteria" | "criteria_with_options" => {
            Artifact::Criteria(Art::new(Arc::new(mt::criteria::Criteria::build(t, v)?), v.clone()))
        }
        "fuzzy_ner" => metric(t, v, mt::fuzzy_ner::FuzzyNer::build(t, v, false)?),
        "metric_based_ner" => metric(t, v, mt::fuzzy_ner::FuzzyNer::build(t, v, true)?),
        "weighted_win_rate_correlation" => metric(t, v, from_value::<mt::win_rate::WeightedWinRateCorrelation>(t, v)?),
        "tool_calling_metric" => metric(t, v, from_value::<mt::tool_calling::ToolCallingMetric>(t, v)?),
        "multi_turn_tool_calling_metric" => metric(t, v, from_value::<mt::tool_calling::MultiTurnToolCallingMetric>(t, v)?),
        // Robustness group metrics (`group_mean` reductions).
        "fixed_group_mean_accuracy"
        | "fixed_group_mean_string_containment"
        | "fixed_group_mean_baseline_accuracy"
        | "fixed_group_mean_paraphrase_accuracy"
        | "fixed_group_mean_baseline_string_containment"
        | "fixed_group_mean_paraphrase_string_containment"
        | "fixed_group_pdr_paraphrase_accuracy"
        | "fixed_group_pdr_paraphrase_string_containment"
        | "fixed_group_norm_cohens_h_paraphrase_accuracy"
        | "fixed_group_norm_cohens_h_paraphrase_string_containment"
        | "fixed_group_norm_hedges_g_paraphrase_accuracy"
        | "fixed_group_norm_hedges_g_paraphrase_string_containment"
        | "fixed_group_absval_norm_cohens_h_paraphrase_accuracy"
        | "fixed_group_absval_norm_cohens_h_paraphrase_string_containment"
        | "fixed_group_absval_norm_hedges_g_paraphrase_accuracy"
        | "fixed_group_absval_norm_hedges_g_paraphrase_string_containment"
        | "group_mean_accuracy"
        | "group_mean_string_containment"
        | "group_mean_token_overlap" => match mt::groups::GroupMetric::build(t, v)? {
            Some(m) => metric(t, v, m),
            None => return Err(Error::invalid(format!("`{t}` is not a group metric"))),
        },

        _ => {
            if let Some((_, need, why)) = NEEDS.iter().find(|(n, _, _)| *n == t) {
                return Err(needs(t, *need, why));
            }
            return Err(Error::not_found(format!("unknown artifact type `__type__: {t}`")));
        }
    };
    Ok(a)
}

/// Every `__type__` that [`build`] knows, in the order of its `match` (a test checks the two
/// agree). The Python package makes one class per name (`unitxt_rs.templates.InputOutputTemplate`
/// for `input_output_template`, ...).
pub const KNOWN_TYPES: &[&str] = &[
    "task_card",
    "dataset_recipe",
    "benchmark",
    "fixed_fusion",
    "weighted_fusion",
    "task",
    "templates_list",
    "templates_dict",
    "load_csv",
    "load_iob",
    "load_from_dictionary",
    "load_hf",
    "load_json_file",
    "multiple_source_loader",
    "add_constant",
    "apply",
    "capitalize",
    "cast",
    "add_id",
    "cast_fields",
    "chunk",
    "copy",
    "copy_fields",
    "recursive_copy",
    "dict_of_lists_to_pairs",
    "dict_to_tuples_list",
    "dictify",
    "execute_expression",
    "extract_with_regex",
    "fillna",
    "filter",
    "flatten",
    "format_text",
    "get",
    "get_item_by_index",
    "get_length",
    "group_dict_with_regex",
    "index_of",
    "interleave_lists_to_dialog_operator",
    "join",
    "join_str",
    "list_field_values",
    "construct_table_from_rows_cols",
    "map_table_lists_to_std_table_json",
    "parse_csv",
    "literal_eval",
    "lower",
    "lower_case",
    "map_instance_values",
    "map_replace",
    "map_values",
    "move",
    "regex_parser",
    "regex_replace",
    "regex_split",
    "remove_fields",
    "recursive_replace",
    "iob_extractor",
    "remove_values",
    "rename",
    "rename_fields",
    "replace",
    "select_fields",
    "sequential_operator",
    "set",
    "add_fields",
    "slice",
    "split",
    "strip",
    "take_by_field",
    "upper",
    "wrap",
    "zip",
    "zip_field_values",
    "zip_longest",
    "create_criteria_with_options_from_dict",
    "dump_json",
    "fix_json_schema_of_parameter_types",
    "get_num_of_table_cells",
    "list_to_key_val_pairs",
    "map_html_table_to_json",
    "pop",
    "serialize_dialog",
    "serialize_key_val_pairs",
    "serialize_open_ai_format_dialog",
    "serialize_table_row_as_text",
    "serialize_triples",
    "shuffle_field_values",
    "to_dialog",
    "truncate_table_rows",
    "add_incremental_id",
    "deduplicate",
    "delete_splits",
    "deterministic_balancer",
    "duplicate_instances",
    "duplicate_split",
    "filter_by_condition",
    "filter_by_condition_based_on_fields",
    "filter_by_expression",
    "join_streams",
    "length_balancer",
    "merge_streams",
    "minimum_one_example_per_label_refiner",
    "shuffle",
    "stream_refiner",
    "duplicate_by_list",
    "explode",
    "duplicate_by_sub_lists",
    "extract_field_values",
    "rename_splits",
    "separate_split",
    "slice_split",
    "split_random_mix",
    "close_text_sampler",
    "diverse_labels_sampler",
    "fixed_indices_sampler",
    "random_sampler",
    "convert_to_boolean",
    "extract_arena_hard_numerical_judgment",
    "extract_harm_rating_judgement",
    "extract_mt_bench_label_judgment",
    "extract_mt_bench_rating_judgment",
    "extract_safe_unsafe_judgment",
    "extract_verbal_judgement_bad_good",
    "extract_verbal_judgment",
    "first_character",
    "fix_white_space",
    "get_sql",
    "get_string_after",
    "infer_dicts_to_binary_logprobs",
    "list_to_empty_entities_tuples",
    "load_json",
    "lower_case_till_punc",
    "match_closest_option",
    "multiple_tool_call_post_processor",
    "post_process",
    "remove_articles",
    "remove_punctuations",
    "scale_number_to_zero_one_return_zero_if_fails",
    "split_strip",
    "stance_to_pro_con",
    "str_to_float_format",
    "string_equals",
    "string_or_not_string",
    "substring",
    "take_first_non_empty_line",
    "take_first_word",
    "take_last_non_empty_line",
    "to_list_by_comma",
    "to_list_by_comma_space",
    "to_string",
    "to_string_stripped",
    "to_yes_or_none",
    "tool_call_post_processor",
    "yes_no_to_int",
    "yes_to_one_else_zero",
    "conversation_serializer",
    "default_list_serializer",
    "default_serializer",
    "dialog_serializer",
    "dict_as_json_serializer",
    "document_serializer",
    "image_serializer",
    "input_output_template",
    "input_output_template_with_custom_target",
    "json_output_template",
    "key_val_template",
    "list_serializer",
    "multi_document_serializer",
    "multi_label_template",
    "multi_reference_template",
    "multi_turn_template",
    "multi_type_serializer",
    "multiple_choice_template",
    "null_template",
    "number_quantizing_serializer",
    "number_serializer",
    "output_quantizing_template",
    "pairwise_choice_template",
    "pairwise_comparative_rating_template",
    "span_labeling_json_template",
    "span_labeling_template",
    "sql_database_as_schema_serializer",
    "table_serializer",
    "serialize_table_as_concatenation",
    "serialize_table_as_df_loader",
    "serialize_table_as_html",
    "serialize_table_as_indexed_row_major",
    "serialize_table_as_json",
    "serialize_table_as_markdown",
    "serialize_table_as_image",
    "tool_call_serializer",
    "tools_serializer",
    "video_serializer",
    "yes_no_template",
    "dialog_template",
    "dialog_pairwise_choice_template",
    "chat_api_format",
    "granite_documents_format",
    "hf_system_format",
    "system_format",
    "decode_image",
    "hash_image",
    "to_image",
    "to_rgb",
    "empty_system_prompt",
    "textual_system_prompt",
    "augment_prefix_suffix",
    "augment_whitespace",
    "null_augmentor",
    "gray_scale",
    "grid_lines",
    "pixel_noise",
    "oldify",
    "transpose_table",
    "shuffle_table_rows",
    "shuffle_table_columns",
    "duplicate_table_rows",
    "duplicate_table_columns",
    "mask_columns_names",
    "insert_empty_table_rows",
    "shuffle_columns_names",
    "accuracy",
    "accuracy_fast",
    "anls",
    "bert_score",
    "faithfulness_hhem",
    "granite_guardian_agentic_risk",
    "granite_guardian_assistant_risk",
    "granite_guardian_rag_risk",
    "granite_guardian_user_risk",
    "is_code_mixed",
    "kpa",
    "llama_index_correctness",
    "llama_index_faithfulness",
    "llm_as_judge",
    "llm_judge_direct",
    "llm_judge_pairwise",
    "meteor_fast",
    "perplexity",
    "regard_metric",
    "reward",
    "safety_metric",
    "sentence_bert",
    "task_based_ll_mas_judge",
    "f1_strings",
    "fin_qa_eval",
    "reflection_tool_calling_metric",
    "reflection_tool_calling_metric_syntactic",
    "sql_execution_accuracy",
    "sql_non_execution_accuracy",
    "binary_accuracy",
    "binary_max_accuracy",
    "binary_max_f1",
    "char_edit_distance",
    "char_edit_distance_accuracy",
    "exact_match_mm",
    "f1",
    "f1_macro",
    "f1_micro",
    "f1_weighted",
    "f1_binary",
    "f1_binary_pos_only",
    "precision_binary",
    "recall_binary",
    "f1_fast",
    "f1_macro_multi_label",
    "f1_micro_multi_label",
    "precision_macro_multi_label",
    "precision_micro_multi_label",
    "recall_macro_multi_label",
    "recall_micro_multi_label",
    "huggingface_metric",
    "squad",
    "wer",
    "jaccard_index",
    "jaccard_index_string",
    "kendall_tau_metric",
    "map",
    "matthews_correlation",
    "max_accuracy",
    "mean_squared_error",
    "metric_pipeline",
    "metrics_list",
    "mrr",
    "ner",
    "normalized_sacrebleu",
    "pearsonr",
    "prediction_length",
    "relaxed_correctness",
    "retrieval_at_k",
    "roc_auc",
    "root_mean_squared_error",
    "rouge",
    "spearmanr",
    "string_containment",
    "string_containment_old",
    "string_containment_ratio",
    "token_overlap",
    "unsorted_list_exact_match",
    "ndcg",
    "rerank_recall",
    "key_value_extraction",
    "tool_call_key_value_extraction",
    "multi_turn_metric",
    "websrc_squad_f1",
    "criteria",
    "criteria_with_options",
    "fuzzy_ner",
    "metric_based_ner",
    "weighted_win_rate_correlation",
    "tool_calling_metric",
    "multi_turn_tool_calling_metric",
    "fixed_group_mean_accuracy",
    "fixed_group_mean_string_containment",
    "fixed_group_mean_baseline_accuracy",
    "fixed_group_mean_paraphrase_accuracy",
    "fixed_group_mean_baseline_string_containment",
    "fixed_group_mean_paraphrase_string_containment",
    "fixed_group_pdr_paraphrase_accuracy",
    "fixed_group_pdr_paraphrase_string_containment",
    "fixed_group_norm_cohens_h_paraphrase_accuracy",
    "fixed_group_norm_cohens_h_paraphrase_string_containment",
    "fixed_group_norm_hedges_g_paraphrase_accuracy",
    "fixed_group_norm_hedges_g_paraphrase_string_containment",
    "fixed_group_absval_norm_cohens_h_paraphrase_accuracy",
    "fixed_group_absval_norm_cohens_h_paraphrase_string_containment",
    "fixed_group_absval_norm_hedges_g_paraphrase_accuracy",
    "fixed_group_absval_norm_hedges_g_paraphrase_string_containment",
    "group_mean_accuracy",
    "group_mean_string_containment",
    "group_mean_token_overlap",
];

/// The keyword arguments the engine reads for artifact type `t` (one of [`KNOWN_TYPES`]): the
/// field names of the structs it deserializes (see [`crate::artifact::fields_read`]), found
/// by building `{"__type__": t}` in an empty catalog. `None` when the type is read by
/// hand-written code (a task, a recipe, a metric with flattened options...), whose arguments
/// are then not known here. Unitxt's common artifact fields (`__description__`, `__tags__`,
/// `__title__`, `__deprecated_msg__`), which every artifact accepts, are not listed.
pub fn type_fields(t: &str) -> Option<Vec<&'static str>> {
    let catalog = Arc::new(Catalog::new(Vec::new()));
    let mut probe = Value::Object(Default::default());
    if let Value::Object(m) = &mut probe {
        m.insert("__type__".into(), Value::String(t.into()));
    }
    let (_, read) = crate::artifact::fields_read(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| building_in(&catalog, || build_of_type(&probe)))).ok()
    });
    let mut out: Vec<&'static str> = Vec::new();
    for f in read.names {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// An augmentor artifact of `a`, built from `v`.
pub fn augmentor<T: crate::augmentors::Augmentor + 'static>(a: T, v: &Value) -> Artifact {
    Artifact::Augmentor(Art::new(Arc::new(a) as Arc<dyn crate::augmentors::Augmentor>, v.clone()))
}

/// Wraps a built [`crate::metrics::Metric`].
pub fn metric<T: crate::metrics::Metric + 'static>(_t: &str, v: &Value, m: T) -> Artifact {
    let m: Arc<dyn crate::metrics::Metric> = Arc::new(m);
    Artifact::Metric(Art::new(m, v.clone()))
}

/// Deserializes a plain struct artifact.
pub fn plain<T: DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Art<T>> {
    Ok(Art::new(Arc::new(from_value::<T>(t, v)?), v.clone()))
}

/// Builds a template from a struct implementing [`crate::templates::base::TemplateKind`].
pub fn template<T: crate::templates::Template + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let tpl: Arc<dyn crate::templates::Template> = Arc::new(from_value::<T>(t, v)?);
    Ok(Artifact::Template(Art::new(tpl, v.clone())))
}

/// Builds a serializer from a struct implementing [`crate::templates::Serializer`].
/// Unitxt's serializers are field operators: a serializer used as a step (in a
/// `metric_pipeline`) takes the [`FieldSpec`] fields too.
pub fn serializer<T: crate::templates::Serializer + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let _: FieldSpec = from_value(t, v)?;
    let s: Arc<dyn crate::templates::Serializer> = Arc::new(from_value::<T>(t, v)?);
    Ok(Artifact::Serializer(Art::new(s, v.clone())))
}

/// Builds one of Unitxt's `serialize_table_as_*` serializers, in `layout` (see
/// [`crate::templates::serializers::SerializeTable`]).
pub fn table_serializer(t: &str, v: &Value, layout: crate::templates::serializers::TableLayout) -> Result<Artifact> {
    let _: FieldSpec = from_value(t, v)?;
    let mut s: crate::templates::serializers::SerializeTable = from_value(t, v)?;
    s.layout = layout;
    Ok(Artifact::Serializer(Art::new(Arc::new(s), v.clone())))
}

/// Builds a demos [`crate::splitters::Sampler`] from its struct.
pub fn sampler<T: crate::splitters::Sampler + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let s: Arc<dyn crate::splitters::Sampler> = Arc::new(from_value::<T>(t, v)?);
    Ok(Artifact::Sampler(Art::new(s, v.clone())))
}

/// Builds an [`Operator`] from a struct implementing it.
pub fn operator<T: Operator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let op: Arc<dyn Operator> = Arc::new(from_value::<T>(t, v)?);
    Ok(Artifact::Operator(Art::new(op, v.clone())))
}

/// Wraps a built [`InstanceOperator`] as an [`Operator`] with the stream scope read from `v`.
pub fn wrap_instance_op<T: InstanceOperator + 'static>(t: &str, v: &Value, op: T) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    Ok(scoped_instance_op(t, v, scope, op))
}

/// Wraps a built [`InstanceOperator`] as an [`Operator`] applied to the streams of `scope`.
fn scoped_instance_op<T: InstanceOperator + 'static>(t: &str, v: &Value, scope: StreamScope, op: T) -> Artifact {
    let op: Arc<dyn Operator> = Arc::new(InstanceOp { name: t.to_string(), scope, op: Arc::new(op) });
    Artifact::Operator(Art::new(op, v.clone()))
}

/// Builds an [`InstanceOperator`] struct and wraps it as an [`Operator`]. The stream scope is
/// read first (it always deserializes), so [`type_fields`] sees the operator's own fields too.
pub fn instance_op<T: InstanceOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    Ok(scoped_instance_op(t, v, scope, from_value::<T>(t, v)?))
}

/// Builds a [`StreamOperator`] struct and wraps it as an [`Operator`].
pub fn stream_op<T: StreamOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    let op: Arc<dyn Operator> = Arc::new(StreamOp { name: t.to_string(), scope, op: Arc::new(from_value::<T>(t, v)?) });
    Ok(Artifact::Operator(Art::new(op, v.clone())))
}

/// Builds an [`crate::operators::collections::InPlaceFieldOperator`] struct with its
/// [`FieldSpec`] and wraps it as an [`Operator`].
pub fn in_place_field_op<T: crate::operators::collections::InPlaceFieldOperator + DeserializeOwned + 'static>(
    t: &str,
    v: &Value,
) -> Result<Artifact> {
    let spec: FieldSpec = from_value(t, v)?;
    wrap_instance_op(t, v, crate::operators::collections::InPlaceFieldOp::new(spec, from_value::<T>(t, v)?))
}

/// Builds a [`FieldOperator`] struct with its [`FieldSpec`] and wraps it as an [`Operator`].
pub fn field_op<T: FieldOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    let spec: FieldSpec = from_value(t, v)?;
    let inner = FieldOp::new(spec, Arc::new(from_value::<T>(t, v)?)).map_err(|e| e.context(format!("in `{t}`")))?;
    Ok(scoped_instance_op(t, v, scope, inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`KNOWN_TYPES`] lists exactly the names of `build_object`'s `match`, and each of them is
    /// known to it.
    #[test]
    fn known_types_are_the_match_arms() {
        let src = include_str!("registry.rs");
        let start = src.find("let a = match t {").unwrap();
        let end = src[start..].find("unknown artifact type").unwrap() + start;
        let mut arms: Vec<String> = Vec::new();
        for line in src[start..end].lines() {
            let l = line.trim_start().trim_start_matches('|').trim_start();
            if !l.starts_with('"') {
                continue;
            }
            let pat = l.split("=>").next().unwrap();
            arms.extend(pat.split('|').map(|p| p.trim().trim_matches('"').to_string()).filter(|p| !p.is_empty()));
        }
        assert_eq!(arms, KNOWN_TYPES.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let cat = Arc::new(Catalog::new(Vec::new()));
        for t in KNOWN_TYPES {
            let probe: Value = serde_json::from_str(&format!(r#"{{"__type__": "{t}"}}"#)).unwrap();
            if let Err(e) = build(&probe, &cat) {
                assert!(!e.message.contains("unknown artifact type"), "{t}: {e}");
            }
        }
    }

    /// The fields of a struct-built type are its serde fields, stream scope included; a type
    /// with a flattened struct has none known.
    #[test]
    fn type_fields_are_serde_fields() {
        let f = type_fields("rename").unwrap();
        assert!(f.contains(&"field_to_field") && f.contains(&"apply_to_streams"), "{f:?}");
        let f = type_fields("load_csv").unwrap();
        assert!(f.contains(&"files") && f.contains(&"loader_limit"), "{f:?}");
        // Templates share a flattened base struct: serde does not name its fields.
        assert!(type_fields("input_output_template").is_none());
        let f = type_fields("task_card").unwrap();
        assert_eq!(f, vec!["loader", "preprocess_steps", "task", "templates", "sampler"]);
        assert!(type_fields("no_such_type").is_none());
    }

    /// A broken artifact met through a nested name is located in that artifact, as data, and
    /// nested names are an error outside a build.
    #[test]
    fn errors_name_the_innermost_artifact() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-registry-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("templates")).unwrap();
        std::fs::create_dir_all(dir.join("cards")).unwrap();
        std::fs::write(dir.join("templates/bad.json"), r#"{"__type__": "input_output_template", "input_format": 5, "output_format": "{a}"}"#).unwrap();
        std::fs::write(
            dir.join("cards/c.json"),
            r#"{"__type__": "task_card", "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"q": "x", "a": "y"}]}},
                "task": {"__type__": "task", "input_fields": ["q"], "reference_fields": ["a"], "metrics": ["metrics.accuracy"]},
                "templates": ["templates.bad"]}"#,
        )
        .unwrap();
        let cat = Arc::new(Catalog::new(vec![dir.clone()]));
        let e = fetch(&cat, "cards.c").err().expect("the template is broken");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(e.location.artifact.as_deref(), Some("templates.bad"), "{e}");
        assert!(e.to_string().contains("in artifact `templates.bad`\n  in artifact `cards.c`"), "{e}");
        let outside = resolve_value(&Value::String("templates.bad".into())).err().expect("no build runs");
        assert!(outside.message.contains("outside of a build"), "{outside}");
    }

    /// A card whose task names the card itself, an operator that lists itself and two that list
    /// each other end as errors that give the cycle's path; a chain of names longer than
    /// `MAX_ARTIFACT_DEPTH` is an error, not a stack overflow.
    #[test]
    fn reference_cycles_and_deep_nesting_are_errors() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-cycles-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("cards")).unwrap();
        std::fs::create_dir_all(dir.join("operators")).unwrap();
        let loader = r#"{"__type__": "load_from_dictionary", "data": {"test": [{"q": "x"}]}}"#;
        std::fs::write(dir.join("cards/me.json"), format!(r#"{{"__type__": "task_card", "loader": {loader}, "task": "cards.me"}}"#)).unwrap();
        std::fs::write(dir.join("operators/loop.json"), r#"{"__type__": "sequential_operator", "steps": ["operators.loop"]}"#).unwrap();
        std::fs::write(dir.join("operators/a.json"), r#"{"__type__": "sequential_operator", "steps": ["operators.b"]}"#).unwrap();
        std::fs::write(dir.join("operators/b.json"), r#"{"__type__": "sequential_operator", "steps": [{"__type__": "sequential_operator", "steps": ["operators.a"]}]}"#).unwrap();
        let cat = Arc::new(Catalog::new(vec![dir.clone()]));
        let me = fetch(&cat, "cards.me").err().expect("a cycle");
        let one = fetch(&cat, "operators.loop").err().expect("a cycle");
        let two = fetch(&cat, "operators.a").err().expect("a cycle");
        for i in 0..100 {
            let json = format!(r#"{{"__type__": "sequential_operator", "steps": ["operators.n{}"]}}"#, i + 1);
            std::fs::write(dir.join(format!("operators/n{i}.json")), json).unwrap();
        }
        let deep = fetch(&cat, "operators.n0").err().expect("too deep");
        std::fs::remove_dir_all(&dir).ok();
        assert!(me.to_string().contains("artifact reference cycle: cards.me → cards.me"), "{me}");
        assert!(one.to_string().contains("artifact reference cycle: operators.loop → operators.loop"), "{one}");
        assert!(two.to_string().contains("artifact reference cycle: operators.a → operators.b → {sequential_operator} → operators.a"), "{two}");
        assert!(deep.to_string().contains("nest more than 64 levels"), "{deep}");
    }

    /// A key that is not a field of the artifact's type is an error naming it, with the nearest
    /// field, in a catalog file and in an override, for a plain struct (`task_card`) and a
    /// template (whose shared fields are flattened); Unitxt's base-class keys still build.
    #[test]
    fn unknown_fields_are_errors() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-fields-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("cards")).unwrap();
        std::fs::create_dir_all(dir.join("templates")).unwrap();
        let loader = r#"{"__type__": "load_from_dictionary", "data": {"test": [{"q": "x"}]}}"#;
        let task = r#"{"__type__": "task", "input_fields": ["q"], "reference_fields": [], "metrics": ["metrics.accuracy"], "requirements": ["x"]}"#;
        std::fs::write(dir.join("cards/typo.json"), format!(r#"{{"__type__": "task_card", "loader": {loader}, "task": {task}, "templatez": []}}"#)).unwrap();
        std::fs::write(dir.join("templates/t.json"), r#"{"__type__": "input_output_template", "input_format": "{q}", "output_format": "", "__description__": "d"}"#).unwrap();
        let cat = Arc::new(Catalog::new(vec![dir.clone()]));
        let card = fetch(&cat, "cards.typo").err().expect("unknown field");
        let ok = fetch(&cat, "templates.t");
        let over = fetch(&cat, "templates.t[input_formt=x]").err().expect("unknown field");
        let metric = build(&crate::json!({"__type__": "accuracy", "score_prefix": "my_", "n_resamples": 10}), &cat);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(card.message, "`templatez` is not a field of `task_card`; did you mean `templates`?", "{card}");
        assert_eq!(card.location.artifact.as_deref(), Some("cards.typo"));
        assert!(ok.is_ok(), "{:?}", ok.err());
        assert!(over.to_string().contains("unknown field `input_formt`"), "{over}");
        assert!(metric.is_ok(), "{:?}", metric.err());
    }
}
