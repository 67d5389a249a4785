//! The one map from catalog `__type__` names (Unitxt's snake_case class names) to the Rust
//! types that implement them, and the ways in: [`build`] (an artifact's JSON or name, in a
//! catalog), [`fetch`] (a catalog name, built once per catalog) and [`check`].
//!
//! The map is one declaration, [`artifact_types!`]: a line per type, `"name" => shape(Type);`,
//! from which the dispatch, [`KNOWN_TYPES`] and each type's fields ([`type_fields`]) are
//! generated. The shape says how the config struct becomes an artifact (a field operator is
//! wrapped with its field settings and stream scope, a template is given its nested
//! serializer, ...); `custom(...)` entries build by hand. Adding a type is its file and one
//! line here.
//!
//! Every build runs in an explicit [`BuildContext`] ([`context`]): the catalog where names
//! resolve, and the chain of artifacts around the one being built. Components receive it and
//! build what they contain through it; none of them names this module.

pub mod callback;
mod check;

use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::artifact::{from_value, short, struct_fields, AnyArt, Art, ArtifactKind, BuildContext};
use crate::augmentors::Augmentor;
use crate::card::Card;
use crate::catalog::Catalog;
use crate::error::{Error, Need, Result, ResultExt, Unavailable};
use crate::loaders::Loader;
use crate::operators::{FieldOperator, FieldSpec, InstanceOp, InstanceOperator, Operator, StreamOp, StreamOperator};
use crate::query::{is_legal_catalog_name, split_name_and_overwrites};
use crate::splitters::Sampler;
use crate::stream::StreamScope;
use crate::task::Task;
use crate::templates::{Serializer, Template};
use crate::value::Value;

/// The catalog types this engine knows but cannot run here, with what they need and why:
/// building one is an error with [`crate::error::Reason::Needs`], and [`check`] counts the
/// artifacts that contain one under that need instead of among the failures.
pub const NEEDS: &[(&str, Need, &str)] = {
    use crate::error::Need::Network;
    &[
        ("load_from_hf_space", Network, "files of a Hugging Face Space, fetched from the Hub"),
        ("load_from_kaggle", Network, "Kaggle's API"),
        ("load_from_sklearn", Network, "scikit-learn's dataset downloads"),
        ("turl_column_type_annotation_loader", Network, "files downloaded from the Hugging Face Hub"),
        ("wikipedia_fetcher", Network, "Wikipedia's API"),
        ("read_file", Network, "to fetch a URL (reading local files named by a catalog is refused: catalogs are untrusted)"),
        ("download_operator", Network, "to download a file from a URL"),
        ("extract_zip_file", Network, "a zip file downloaded first (reading local files named by a catalog is refused: catalogs are untrusted)"),
        ("tokens_split", crate::error::Need::Model, "a Hugging Face tokenizer (transformers), which is not run here"),
        ("tokens_slice", crate::error::Need::Model, "a Hugging Face tokenizer (transformers), which is not run here"),
    ]
};

/// What [`check`] found for one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It builds, and it runs here.
    Works,
    /// It is well formed, but it (or an artifact inside it) needs something this engine does
    /// not have here: a model, an LLM judge, an inference engine, or the network.
    Needs(Unavailable),
    /// It does not build: the first line of the error.
    Fails(String),
}

/// A root [`BuildContext`] over `catalog`, whose nested artifacts this registry builds.
pub fn context(catalog: &Arc<Catalog>) -> BuildContext<'_> {
    BuildContext::new(catalog, build_any)
}

/// Builds the artifact `v` names (see [`resolve_value`] for the forms it takes) with `catalog`
/// as the catalog where its catalog names, nested ones included, are looked up. The result is
/// not kept (see [`fetch`]).
pub fn build(v: &Value, catalog: &Arc<Catalog>) -> Result<Artifact> {
    resolve_value(v, &context(catalog))
}

/// [`build`], for a value that must be of kind `T`: errors when `v` builds into another kind.
pub fn build_as<T: ArtifactKind + ?Sized>(v: &Value, catalog: &Arc<Catalog>) -> Result<Art<T>> {
    context(catalog).build::<T>(v)
}

/// Builds catalog artifact `query` (a name, with optional `[overwrites]`) in `catalog`, once:
/// the built artifact is kept in the catalog (artifacts are immutable), so fetching the same
/// query again is a lookup.
pub fn fetch(catalog: &Arc<Catalog>, query: &str) -> Result<Artifact> {
    catalog.memo(query, || build(&Value::String(query.into()), catalog))
}

/// Builds every artifact of `catalog` whose name starts with `prefix` (`""`: all of them) as
/// [`fetch`] builds it (nested names resolved, no data loaded), then every part nested in it
/// that building leaves as JSON (a template's postprocessors, a task's metrics, any inline
/// `{"__type__": ...}` object, any catalog name it holds), and
/// returns the names in order, each with its [`Outcome`]: the worst of its own and its parts'.
/// A metric that builds only as a stand-in that cannot compute
/// ([`crate::metrics::Metric::unavailable`]) and an artifact whose error says what it needs
/// ([`Error::unavailable`]) are [`Outcome::Needs`], never [`Outcome::Works`]. A panic while
/// building (a bug) is reported as that artifact's failure. For `unitxt-rs catalog check`:
/// how much of a catalog this engine reads and runs.
pub fn check(catalog: &Arc<Catalog>, prefix: &str) -> Vec<(String, Outcome)> {
    check::check_all(catalog, prefix)
}

/// The [`crate::artifact::BuildFn`] of [`context`]: [`resolve_value`], type-erased.
fn build_any(v: &Value, cx: &BuildContext<'_>) -> Result<AnyArt> {
    resolve_value(v, cx).map(Artifact::into_any)
}

/// Runs `f` in the context one level below `cx` for `label` (see [`BuildContext::enter`]).
/// Each level of building takes several frames: the stack grows on the heap when little is
/// left, so the depth limit, not the thread's stack size, is what bounds it.
fn nested<R>(cx: &BuildContext<'_>, label: &str, named: bool, f: impl FnOnce(&BuildContext<'_>) -> Result<R>) -> Result<R> {
    let inner = cx.enter(label, named)?;
    stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || f(&inner))
}

/// Builds an artifact from its JSON representation (Unitxt's `fetch_artifact`): a catalog
/// name with optional `[overwrites]`, a path to a `.json` file, a JSON string, or an object
/// with `__type__`. Names are looked up in the catalog of `cx`. An error inside a named
/// artifact is located in it (the innermost one).
pub fn resolve_value(v: &Value, cx: &BuildContext<'_>) -> Result<Artifact> {
    match v {
        Value::String(s) => {
            let s = s.trim();
            if s.ends_with(".json") && Path::new(s).is_file() {
                let json = cx.catalog().read_json(Path::new(s))?;
                return nested(cx, s, true, |cx| build_object(&json, cx)).with_ctx(|| format!("in artifact file {s}"));
            }
            let (name, overwrites) = split_name_and_overwrites(s)?;
            if is_legal_catalog_name(&name) {
                let json = cx.catalog().get_json(&name)?;
                let mut json = (*json).clone();
                if let (Some(ov), Value::Object(m)) = (overwrites, &mut json) {
                    for (k, val) in ov {
                        m.insert(k.into(), val);
                    }
                }
                let mut a = nested(cx, &name, true, |cx| build_object(&json, cx)).map_err(|e| e.in_artifact(&name))?;
                a.set_id(&name);
                return Ok(a);
            }
            let parsed: Value = serde_json::from_str(s).map_err(|_| {
                Error::invalid(format!("{s:?} is neither a legal catalog name nor a JSON artifact"))
            })?;
            build_object(&parsed, cx)
        }
        Value::Object(_) => {
            let label = format!("{{{}}}", v.get("__type__").and_then(|t| t.as_str()).unwrap_or("?"));
            nested(cx, &label, false, |cx| build_object(v, cx))
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
    Criteria(Art<crate::criteria::Criteria>),
    /// An inference engine (`open_ai_inference_engine`, `cross_provider_inference_engine`, ...).
    Engine(Art<dyn crate::inference::InferenceEngine>),
}

/// Applies `$m!(variant, value)` to each variant that holds an [`Art`].
macro_rules! each_art {
    ($self:expr, $a:ident => $e:expr, $lists:expr) => {
        match $self {
            Artifact::Operator($a) => $e,
            Artifact::Loader($a) => $e,
            Artifact::Template($a) => $e,
            Artifact::Format($a) => $e,
            Artifact::SystemPrompt($a) => $e,
            Artifact::Augmentor($a) => $e,
            Artifact::Task($a) => $e,
            Artifact::Card($a) => $e,
            Artifact::Sampler($a) => $e,
            Artifact::Serializer($a) => $e,
            Artifact::Metric($a) => $e,
            Artifact::Recipe($a) => $e,
            Artifact::Benchmark($a) => $e,
            Artifact::Criteria($a) => $e,
            Artifact::Engine($a) => $e,
            Artifact::TemplatesList(_) | Artifact::TemplatesDict(_) => $lists,
        }
    };
}

impl Artifact {
    /// The kind's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Artifact::TemplatesList(_) => "templates list",
            Artifact::TemplatesDict(_) => "templates dict",
            other => each_art!(other, a => kind_of(a), unreachable_kind()),
        }
    }

    /// Sets the catalog name this artifact was fetched by.
    pub fn set_id(&mut self, id: &str) {
        let id = Some(crate::value::Str::from(id));
        each_art!(self, a => a.id = id, {})
    }

    /// The artifact behind [`Any`](std::any::Any), as [`BuildContext::build`] receives it: the
    /// `Art<T>` of its kind, or the list or map of a templates list or dict.
    pub fn into_any(self) -> AnyArt {
        let kind = self.kind();
        match self {
            Artifact::Operator(a) => AnyArt::new(kind, a),
            Artifact::Loader(a) => AnyArt::new(kind, a),
            Artifact::Template(a) => AnyArt::new(kind, a),
            Artifact::TemplatesList(l) => AnyArt::new(kind, l),
            Artifact::TemplatesDict(d) => AnyArt::new(kind, d),
            Artifact::Format(a) => AnyArt::new(kind, a),
            Artifact::SystemPrompt(a) => AnyArt::new(kind, a),
            Artifact::Augmentor(a) => AnyArt::new(kind, a),
            Artifact::Task(a) => AnyArt::new(kind, a),
            Artifact::Card(a) => AnyArt::new(kind, a),
            Artifact::Sampler(a) => AnyArt::new(kind, a),
            Artifact::Serializer(a) => AnyArt::new(kind, a),
            Artifact::Metric(a) => AnyArt::new(kind, a),
            // A component builds a recipe only to produce instances with it (a template
            // judge's prompts): it receives it as such.
            Artifact::Recipe(a) => {
                let inner: Arc<dyn crate::metrics::llm_judge::template::Produce> = a.inner;
                AnyArt::new(kind, Art { id: a.id, raw: a.raw, inner })
            }
            Artifact::Benchmark(a) => AnyArt::new(kind, a),
            Artifact::Criteria(a) => AnyArt::new(kind, a),
            Artifact::Engine(a) => AnyArt::new(kind, a),
        }
    }
}

/// The [`ArtifactKind::KIND`] of `_a`'s kind.
fn kind_of<T: ArtifactKind + ?Sized>(_a: &Art<T>) -> &'static str {
    T::KIND
}

/// Never called: [`Artifact::kind`] names the templates list and dict before.
fn unreachable_kind() -> &'static str {
    "templates"
}

/// Builds the artifact described by `v` (an object with `__type__`) through the table of
/// [`artifact_types!`]. A key that is not a field of its type is an error naming the key and
/// the nearest field, as Unitxt's `UnexpectedArgumentError` (checked where the type's fields
/// are known: see [`type_fields`]). An unknown type is an error naming the nearest known one;
/// a type of [`NEEDS`] an error saying what it needs.
fn build_object(v: &Value, cx: &BuildContext<'_>) -> Result<Artifact> {
    let t = v
        .get("__type__")
        .and_then(|t| t.as_str())
        .ok_or_else(|| Error::invalid(format!("artifact has no `__type__`: {}", short(v))))?;
    // A user's Python component (registry/callback.rs): not a catalog type of its own.
    if t == callback::CALLBACK_TYPE {
        return callback::build(v);
    }
    if let (Some((Some(fields), also)), Some(m)) = (declared_fields(t), v.as_object()) {
        for k in m.keys().map(|k| k.as_str()) {
            let known = fields.contains(&k) || also.iter().any(|a| a.contains(&k));
            if !known && !crate::artifact::META_KEYS.contains(&k) && !crate::artifact::IGNORED_KEYS.contains(&k) {
                return Err(Error::unknown_field(t, k, &fields));
            }
        }
    }
    match dispatch(t, v, cx) {
        Some(built) => built,
        None => match NEEDS.iter().find(|(n, _, _)| *n == t) {
            Some((_, need, why)) => Err(Error::needs(*need, format!("`{t}` needs {why}, which unitxt-rs does not have here"))),
            None => callback::resolve(v).unwrap_or_else(|| Err(Error::unknown_type(t, KNOWN_TYPES.iter().copied()))),
        },
    }
}

/// The keyword arguments the engine reads for artifact type `t` (one of [`KNOWN_TYPES`]):
/// the serde fields of the structs its entry in [`artifact_types!`] deserializes (a field
/// operator's own, its [`FieldSpec`] and [`StreamScope`]). A metric also accepts
/// [`crate::metrics::COMMON_KEYS`], which are not listed. `None` when they are not known from
/// the structs (a flattened or hand-read struct, a type that checks its keys itself, or an
/// unknown type).
/// Unitxt's common artifact fields (`__description__`, `__tags__`, `__title__`,
/// `__deprecated_msg__`), which every artifact accepts, are not listed.
pub fn type_fields(t: &str) -> Option<Vec<&'static str>> {
    declared_fields(t).and_then(|(fields, _)| fields)
}

/// Keys a type accepts besides its fields (a metric's [`crate::metrics::COMMON_KEYS`]).
type AlsoAccepted = &'static [&'static [&'static str]];

/// The fields of `structs` (see [`struct_fields`]), in order without repeats (`None` when
/// `structs` is empty or one of them is not a plain struct), with the keys `also` accepted.
fn union_fields(structs: &[Option<&'static [&'static str]>], also: AlsoAccepted) -> (Option<Vec<&'static str>>, AlsoAccepted) {
    if structs.is_empty() {
        return (None, also);
    }
    let Some(all) = structs.iter().copied().collect::<Option<Vec<_>>>() else { return (None, also) };
    let mut out: Vec<&'static str> = Vec::new();
    for n in all.into_iter().flatten() {
        if !out.contains(n) {
            out.push(n);
        }
    }
    (Some(out), also)
}

/// Declares the artifact types: each line `"name" | "alias" => shape(Type);` (or
/// `custom([FieldStructs] + EXTRA_KEYS, |t, v, cx| expr);`) becomes an arm of the dispatch, a
/// name of [`KNOWN_TYPES`] and a [`type_fields`] entry. The shapes are the functions of
/// [`shapes`], called as `shape::<Type>(t, v, cx)`.
macro_rules! artifact_types {
    ($( $($name:literal)|+ => $shape:ident $args:tt ;)*) => {
        /// Builds an artifact of type `t` from `v` in `cx`; `None` when no type is named `t`.
        fn dispatch(t: &str, v: &Value, cx: &BuildContext<'_>) -> Option<Result<Artifact>> {
            #[allow(unused_imports)]
            use shapes::*;
            Some(match t {
                $( $($name)|+ => shape_build!($shape $args t v cx), )*
                _ => return None,
            })
        }

        $( type_const!($shape $args $($name)|+); )*

        /// Every `__type__` that [`build`] knows, in the order of [`artifact_types!`]. The
        /// Python package makes one class per name (`unitxt_rs.templates.InputOutputTemplate`
        /// for `input_output_template`, ...).
        pub const KNOWN_TYPES: &[&str] = &[$($($name,)+)*];

        /// `Some((fields, also accepted))` (see [`type_fields`]) for a known type, `None` for
        /// an unknown one.
        fn declared_fields(t: &str) -> Option<(Option<Vec<&'static str>>, AlsoAccepted)> {
            #[allow(unused_imports)]
            use shapes::*;
            Some(match t {
                $( $($name)|+ => shape_fields!($shape $args), )*
                _ => return None,
            })
        }
    };
}

/// The [`ArtifactType`](crate::artifact::ArtifactType) of a line of [`artifact_types!`] whose
/// shape names one struct.
macro_rules! type_const {
    (custom $args:tt $($name:literal)|+) => {};
    (table_serializer $args:tt $($name:literal)|+) => {};
    ($shape:ident ($ty:ty) $first:literal $(| $rest:literal)*) => {
        impl crate::artifact::ArtifactType for $ty {
            const TYPE: &'static str = $first;
        }
    };
}

/// One dispatch arm of [`artifact_types!`].
macro_rules! shape_build {
    (custom ([$($f:ty),*] $(+ $extra:expr)?, |$t:ident, $v:ident, $cx:ident| $body:expr) $tt:ident $vv:ident $cxx:ident) => {{
        #[allow(unused_variables)]
        let ($t, $v, $cx): (&str, &Value, &BuildContext<'_>) = ($tt, $vv, $cxx);
        (|| -> Result<Artifact> { $body })()
    }};
    (table_serializer ($layout:path) $t:ident $v:ident $cx:ident) => {
        table_serializer($t, $v, $layout)
    };
    ($shape:ident ($ty:ty) $t:ident $v:ident $cx:ident) => {
        $shape::<$ty>($t, $v, $cx)
    };
}

/// One [`declared_fields`] arm of [`artifact_types!`]: the structs each shape deserializes.
macro_rules! shape_fields {
    (custom ([$($f:ty),*] $(+ $extra:expr)?, $($rest:tt)*)) => {
        union_fields(&[$(struct_fields::<$f>()),*], &[$($extra)?])
    };
    (table_serializer ($layout:path)) => {
        union_fields(&[struct_fields::<FieldSpec>(), struct_fields::<crate::templates::serializers::SerializeTable>()], &[])
    };
    (field_op ($ty:ty)) => { union_fields(&[struct_fields::<StreamScope>(), struct_fields::<FieldSpec>(), struct_fields::<$ty>()], &[]) };
    (in_place_field_op ($ty:ty)) => { union_fields(&[struct_fields::<StreamScope>(), struct_fields::<FieldSpec>(), struct_fields::<$ty>()], &[]) };
    (instance_op ($ty:ty)) => { union_fields(&[struct_fields::<StreamScope>(), struct_fields::<$ty>()], &[]) };
    (stream_op ($ty:ty)) => { union_fields(&[struct_fields::<StreamScope>(), struct_fields::<$ty>()], &[]) };
    (serializer ($ty:ty)) => { union_fields(&[struct_fields::<FieldSpec>(), struct_fields::<$ty>()], &[]) };
    (metric ($ty:ty)) => { union_fields(&[struct_fields::<$ty>()], &[crate::metrics::COMMON_KEYS]) };
    ($shape:ident ($ty:ty)) => { union_fields(&[struct_fields::<$ty>()], &[]) };
}

use crate::templates::base::TemplateKind as _;
use crate::inference as inf;
use crate::{augmentors as aug, formats as fmt, loaders as ld, metrics as mt, operators as op, processors as pr, splitters as sp, system_prompts as sysp, templates as tp};

artifact_types! {
        // ---- cards, recipes, tasks, template collections (card.rs, recipe/, task.rs) ----
        "task_card" => custom([crate::card::CardConfig], |t, v, cx| {
            let card = from_value::<crate::card::CardConfig>(t, v)?.build(cx)?;
            Ok(Artifact::Card(Art::new(Arc::new(card), v.clone())))
        });
        // A recipe's arguments as an artifact (Unitxt's `DatasetRecipe`), built in the
        // catalog of the build, so that its card, template and other names resolve there.
        "dataset_recipe" => custom([], |t, v, cx| {
            let args = crate::recipe::RecipeArgs::from_json(v)?;
            Ok(Artifact::Recipe(Art::new(Arc::new(crate::recipe::Recipe::build(&args, cx)?), v.clone())))
        });
        "benchmark" => custom([], |t, v, cx| {
            let b = crate::recipe::benchmark::Benchmark::build(v, cx, &Default::default())?;
            Ok(Artifact::Benchmark(Art::new(Arc::new(b), v.clone())))
        });
        "fixed_fusion" | "weighted_fusion" => custom([], |t, v, cx| {
            let b = crate::recipe::benchmark::Benchmark::build_fusion(v, cx)?;
            Ok(Artifact::Benchmark(Art::new(Arc::new(b), v.clone())))
        });
        "task" => custom([crate::task::TaskJson], |t, v, cx| Ok(Artifact::Task(Art::new(Arc::new(Task::from_json(v, cx)?), v.clone()))));
        "templates_list" => custom([], |t, v, cx| {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_list needs `items`"))?;
            match crate::card::Templates::from_value(items, cx)? {
                crate::card::Templates::List(l) => {
                    Ok(Artifact::TemplatesList(l.into_iter().map(|e| e.single("a templates_list item")).collect::<Result<_>>()?))
                }
                _ => Err(Error::invalid("templates_list `items` must be a list")),
            }
        });
        "templates_dict" => custom([], |t, v, cx| {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_dict needs `items`"))?;
            match crate::card::Templates::from_value(items, cx)? {
                crate::card::Templates::Dict(d) => Ok(Artifact::TemplatesDict(
                    d.into_iter().map(|(k, e)| Ok((k, e.single("a templates_dict item")?))).collect::<Result<_>>()?,
                )),
                _ => Err(Error::invalid("templates_dict `items` must be a dict")),
            }
        });
        "multiple_source_loader" => custom([ld::memory::MultipleSourceLoaderConfig], |t, v, cx| {
            let l = from_value::<ld::memory::MultipleSourceLoaderConfig>(t, v)?.build(cx)?;
            Ok(Artifact::Loader(Art::new(Arc::new(l), v.clone())))
        });
        "sequential_operator" => custom([op::composite::SequentialOperatorConfig], |t, v, cx| {
            let o = from_value::<op::composite::SequentialOperatorConfig>(t, v)?.build(cx)?;
            Ok(Artifact::Operator(Art::new(Arc::new(o), v.clone())))
        });
        "serialize_dialog" => custom([], |t, v, cx| {
            Ok(scoped_instance_op(t, v, from_value(t, v)?, from_value::<op::dialog::SerializeDialogOp>(t, v)?.build(cx)?))
        });
        "serialize_open_ai_format_dialog" => custom([], |t, v, cx| {
            Ok(scoped_instance_op(t, v, from_value(t, v)?, from_value::<op::dialog::SerializeOpenAiFormatDialogOp>(t, v)?.build(cx)?))
        });
        "multi_type_serializer" => custom([FieldSpec, tp::serializers::MultiTypeSerializerConfig], |t, v, cx| {
            let _: FieldSpec = from_value(t, v)?;
            let s = from_value::<tp::serializers::MultiTypeSerializerConfig>(t, v)?.build(cx)?;
            Ok(Artifact::Serializer(Art::new(Arc::new(s), v.clone())))
        });
        "metrics_list" => custom([mt::MetricsListConfig], |t, v, cx| Ok(metric_art(v, from_value::<mt::MetricsListConfig>(t, v)?.build(cx)?)));
        "post_process" => custom([pr::post_process::PostProcessArgs], |t, v, cx| {
            Ok(Artifact::Operator(Art::new(Arc::new(pr::post_process::PostProcess::from_json(v, cx)?) as Arc<dyn Operator>, v.clone())))
        });
        "metric_pipeline" => custom([mt::pipeline::Args] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::pipeline::MetricPipeline::build(v, cx)?)));
        "key_value_extraction" => custom([mt::key_value::KeyValueExtraction<Value>] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::key_value::KeyValueExtraction::build(t, v, cx, false)?)));
        "tool_call_key_value_extraction" => custom([mt::key_value::KeyValueExtraction<Value>] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::key_value::KeyValueExtraction::build(t, v, cx, true)?)));
        "multi_turn_metric" => custom([mt::multi_turn::MultiTurnMetric<Value>] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::multi_turn::MultiTurnMetric::build(t, v, cx)?)));
        "fuzzy_ner" => custom([mt::fuzzy_ner::FuzzyNer] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::fuzzy_ner::FuzzyNer::build(t, v, cx, false)?)));
        "metric_based_ner" => custom([mt::fuzzy_ner::FuzzyNer] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::fuzzy_ner::FuzzyNer::build(t, v, cx, true)?)));

        // ---- inference engines (inference/) ----
        "open_ai_inference_engine" => custom([inf::openai::OpenAiConfig, inf::openai::OpenAiParams], |t, v, cx| {
            Ok(engine_art(v, inf::openai::OpenAiInferenceEngine::from_json(t, v, "openai")?))
        });
        "vllm_remote_inference_engine" => custom([inf::openai::OpenAiConfig, inf::openai::OpenAiParams], |t, v, cx| {
            Ok(engine_art(v, inf::openai::VllmRemoteInferenceEngine { inner: inf::openai::OpenAiInferenceEngine::from_json(t, v, "vllm-remote")? }))
        });
        "azure_open_ai_inference_engine" => custom([inf::openai::OpenAiConfig, inf::openai::OpenAiParams], |t, v, cx| {
            Ok(engine_art(v, inf::openai::AzureOpenAiInferenceEngine { inner: inf::openai::OpenAiInferenceEngine::from_json(t, v, "azure_openai")? }))
        });
        "rits_inference_engine" => custom([inf::openai::OpenAiConfig, inf::openai::OpenAiParams], |t, v, cx| {
            Ok(engine_art(v, inf::openai::RitsInferenceEngine { inner: inf::openai::OpenAiInferenceEngine::from_json(t, v, "rits")? }))
        });
        "together_ai_inference_engine" => engine(inf::openai::TogetherAiInferenceEngine);
        "cross_provider_inference_engine" => custom([inf::cross_provider::StandardApiParams, inf::cross_provider::CrossProviderFields], |t, v, cx| {
            Ok(engine_art(v, from_value::<inf::cross_provider::CrossProviderInferenceEngine>(t, v)?))
        });
        "lite_llm_inference_engine" => custom([inf::cross_provider::StandardApiParams, inf::cross_provider::LiteLlmFields], |t, v, cx| {
            Ok(engine_art(v, from_value::<inf::cross_provider::LiteLlmInferenceEngine>(t, v)?))
        });
        "ollama_inference_engine" => custom([inf::cross_provider::StandardApiParams], |t, v, cx| {
            Ok(engine_art(v, from_value::<inf::cross_provider::OllamaInferenceEngine>(t, v)?))
        });
        "mock_inference_engine" => engine(inf::local::MockInferenceEngine);
        "generic_inference_engine" => custom([inf::local::GenericConfig], |t, v, cx| {
            Ok(engine_art(v, from_value::<inf::local::GenericConfig>(t, v)?.build(cx)?))
        });
        "wml_inference_engine" | "wml_inference_engine_generation" => custom([inf::local::WmlInferenceEngine, inf::local::WmlGenerationParams], |t, v, cx| {
            let _: inf::local::WmlGenerationParams = from_value(t, v)?;
            let type_name = if t == "wml_inference_engine" { "wml_inference_engine" } else { "wml_inference_engine_generation" };
            Ok(engine_art(v, inf::local::Wml { type_name, config: from_value(t, v)? }))
        });
        "wml_inference_engine_chat" => custom([inf::local::WmlInferenceEngine, inf::local::WmlChatParams], |t, v, cx| {
            let _: inf::local::WmlChatParams = from_value(t, v)?;
            Ok(engine_art(v, inf::local::Wml { type_name: "wml_inference_engine_chat", config: from_value(t, v)? }))
        });
        "hf_pipeline_based_inference_engine" => engine(inf::local::HfPipelineBasedInferenceEngine);

        // ---- loaders (loaders/) ----
        "load_csv" => loader(ld::files::LoadCSV);
        "load_iob" => loader(ld::iob::LoadIOB);
        "load_from_dictionary" => loader(ld::memory::LoadFromDictionary);
        "load_hf" => loader(ld::hf::LoadHF);
        "load_json_file" => loader(ld::files::LoadJsonFile);

        // ---- operators (operators/) ----
        "add_constant" => field_op(op::fields::AddConstant);
        "apply" => instance_op(op::expressions::Apply);
        "capitalize" => field_op(op::strings::Capitalize);
        "cast" => field_op(op::fields::Cast);
        "add_id" => instance_op(op::fields::AddId);
        "cast_fields" => instance_op(op::fields::CastFields);
        "chunk" => field_op(op::collections::Chunk);
        "copy" | "copy_fields" | "recursive_copy" => field_op(op::fields::Copy);
        "dict_of_lists_to_pairs" => field_op(op::collections::DictOfListsToPairs);
        "dict_to_tuples_list" => field_op(op::collections::DictToTuplesList);
        "dictify" => field_op(op::collections::Dictify);
        "execute_expression" => instance_op(op::expressions::ExecuteExpression);
        "extract_with_regex" => field_op(op::regex::ExtractWithRegex);
        "fillna" => field_op(op::fields::Fillna);
        "filter" => field_op(op::collections::Filter);
        "flatten" => field_op(op::collections::Flatten);
        "format_text" => instance_op(op::strings::FormatText);
        "get" => field_op(op::collections::Get);
        "get_item_by_index" => field_op(op::fields::GetItemByIndex);
        "get_length" => field_op(op::collections::GetLength);
        "group_dict_with_regex" => field_op(op::regex::GroupDictWithRegex);
        "index_of" => instance_op(op::fields::IndexOf);
        "interleave_lists_to_dialog_operator" => instance_op(op::fields::InterleaveListsToDialogOperator);
        "join" => field_op(op::strings::Join);
        "join_str" => field_op(op::fields::JoinStr);
        "list_field_values" => instance_op(op::fields::ListFieldValues);
        "construct_table_from_rows_cols" => instance_op(op::tables::ConstructTableFromRowsCols);
        "map_table_lists_to_std_table_json" => field_op(op::tables::MapTableListsToStdTableJson);
        "parse_csv" => field_op(op::tables::ParseCsv);
        "literal_eval" => field_op(op::expressions::LiteralEval);
        "lower" | "lower_case" => field_op(op::strings::Lower);
        "map_instance_values" => instance_op(op::fields::MapInstanceValues);
        "map_replace" => field_op(op::strings::MapReplace);
        "map_values" => field_op(op::fields::MapValues);
        "move" => instance_op(op::fields::Move);
        "regex_parser" => field_op(op::regex::RegexParser);
        "regex_replace" => field_op(op::regex::RegexReplace);
        "regex_split" => field_op(op::regex::RegexSplit);
        "remove_fields" => instance_op(op::fields::RemoveFields);
        "recursive_replace" => instance_op(op::fields::RecursiveReplace);
        "iob_extractor" => instance_op(op::spans::IobExtractor);
        "remove_values" => field_op(op::fields::RemoveValues);
        "rename" | "rename_fields" => instance_op(op::fields::Rename);
        "replace" => field_op(op::strings::Replace);
        "select_fields" => instance_op(op::fields::SelectFields);
        "set" | "add_fields" => instance_op(op::fields::Set);
        "slice" => field_op(op::collections::Slice);
        "split" => field_op(op::strings::Split);
        "strip" => field_op(op::strings::Strip);
        "take_by_field" => instance_op(op::fields::TakeByField);
        "upper" => field_op(op::strings::Upper);
        "wrap" => field_op(op::collections::Wrap);
        "zip" => instance_op(op::collections::Zip);
        "zip_field_values" => instance_op(op::fields::ZipFieldValues);
        "zip_longest" => instance_op(op::collections::ZipLongest);
        // card operators of the dialog, table and JSON-schema families (issue 39)
        "dump_json" => field_op(op::tables::DumpJson);
        "fix_json_schema_of_parameter_types" => instance_op(op::fields::FixJsonSchemaOfParameterTypes);
        "get_num_of_table_cells" => field_op(op::tables::GetNumOfTableCells);
        "list_to_key_val_pairs" => instance_op(op::tables::ListToKeyValPairs);
        "map_html_table_to_json" => field_op(op::tables::MapHtmlTableToJson);
        "pop" => in_place_field_op(op::collections::Pop);
        "serialize_key_val_pairs" => field_op(op::tables::SerializeKeyValPairs);
        "serialize_table_row_as_text" => instance_op(op::tables::SerializeTableRowAsText);
        "serialize_triples" => field_op(op::tables::SerializeTriples);
        "shuffle_field_values" => field_op(op::fields::ShuffleFieldValues);
        "to_dialog" => field_op(op::dialog::ToDialog);
        "truncate_table_rows" => in_place_field_op(aug::table::TruncateTableRows);
        // public classes the catalog does not use (issue 53)
        "truncate_table_cells" => instance_op(op::tables::TruncateTableCells);
        "serialize_table_row_as_list" => instance_op(op::tables::SerializeTableRowAsList);
        "convert_table_col_names_to_sequential" => field_op(op::tables::ConvertTableColNamesToSequential);
        "divide_all_fields_by" => instance_op(op::fields::DivideAllFieldsBy);
        "flatten_instances" => instance_op(op::fields::FlattenInstances);
        "intersect" => custom([StreamScope, FieldSpec, op::fields::Intersect], |t, v, cx| {
            let spec: FieldSpec = from_value(t, v)?;
            if spec.process_every_value {
                return Err(Error::invalid("'process_every_value=True' is not supported in Intersect operator"));
            }
            crate::operators::field_operator(t, v, || from_value::<op::fields::Intersect>(t, v)).map(operator_art(v))
        });
        "intersect_corresponding_fields" => instance_op(op::fields::IntersectCorrespondingFields);
        "collate_instances" => custom([StreamScope, op::streams::CollateInstances], |t, v, cx| {
            let scope: StreamScope = from_value(t, v)?;
            let o = from_value::<op::streams::CollateInstances>(t, v)?.checked()?;
            Ok(Artifact::Operator(Art::new(Arc::new(StreamOp { name: t.to_string(), scope, op: Arc::new(o) }) as Arc<dyn Operator>, v.clone())))
        });
        "collate_instances_by_field" => stream_op(op::streams::CollateInstancesByField);
        "split_by_nested_group" => operator(op::streams::SplitByNestedGroup);
        "apply_operators_field" => custom([StreamScope, op::composite::ApplyOperatorsFieldConfig], |t, v, cx| {
            let scope: StreamScope = from_value(t, v)?;
            Ok(scoped_instance_op(t, v, scope, from_value::<op::composite::ApplyOperatorsFieldConfig>(t, v)?.build(cx)))
        });
        "apply_stream_operators_field" => custom([StreamScope, op::composite::ApplyStreamOperatorsFieldConfig], |t, v, cx| {
            let scope: StreamScope = from_value(t, v)?;
            let o = from_value::<op::composite::ApplyStreamOperatorsFieldConfig>(t, v)?.build(cx);
            Ok(Artifact::Operator(Art::new(Arc::new(StreamOp { name: t.to_string(), scope, op: Arc::new(o) }) as Arc<dyn Operator>, v.clone())))
        });
        "encode_labels" => custom([StreamScope, op::streams::EncodeLabels], |t, v, cx| {
            let mut o = from_value::<op::streams::EncodeLabels>(t, v)?;
            o.scope = from_value(t, v)?;
            Ok(Artifact::Operator(Art::new(Arc::new(o) as Arc<dyn Operator>, v.clone())))
        });
        "feature_grouped_shuffle" => operator(op::streams::FeatureGroupedShuffle);
        "perturb" => custom([StreamScope, FieldSpec, op::fields::Perturb], |t, v, cx| {
            let (scope, spec): (StreamScope, FieldSpec) = (from_value(t, v)?, from_value(t, v)?);
            let p = from_value::<op::fields::Perturb>(t, v)?.checked()?;
            Ok(scoped_instance_op(t, v, scope, op::fields::InStreamOrder(crate::operators::FieldOp::new(spec, Arc::new(p))?)))
        });
        "extract_most_common_field_values" => custom([op::streams::ExtractFieldValues], |t, v, cx| {
            let o = from_value::<op::streams::ExtractFieldValues>(t, v)?.checked()?;
            Ok(Artifact::Operator(Art::new(Arc::new(o) as Arc<dyn Operator>, v.clone())))
        });

        // stream operators
        "add_incremental_id" => stream_op(op::streams::AddIncrementalId);
        "deduplicate" => stream_op(op::streams::Deduplicate);
        "delete_splits" => operator(op::streams::DeleteSplits);
        "deterministic_balancer" | "balance" => stream_op(op::streams::DeterministicBalancer);
        "duplicate_instances" => stream_op(op::streams::DuplicateInstances);
        "duplicate_split" => operator(op::streams::DuplicateSplit);
        "filter_by_condition" => stream_op(op::streams::FilterByCondition);
        "filter_by_condition_based_on_fields" => stream_op(op::streams::FilterByConditionBasedOnFields);
        "filter_by_expression" => stream_op(op::streams::FilterByExpression);
        "join_streams" => operator(op::streams::JoinStreams);
        "length_balancer" => stream_op(op::streams::LengthBalancer);
        "merge_streams" => operator(op::streams::MergeStreams);
        "minimum_one_example_per_label_refiner" => stream_op(op::streams::MinimumOneExamplePerLabelRefiner);
        "shuffle" => operator(op::streams::Shuffle);
        "stream_refiner" => stream_op(op::streams::StreamRefiner);
        "duplicate_by_list" | "explode" => stream_op(op::collections::DuplicateByList);
        "duplicate_by_sub_lists" | "explode_sub_lists" => stream_op(op::collections::DuplicateBySubLists);
        "extract_field_values" => operator(op::streams::ExtractFieldValues);

        // ---- splitters and samplers (splitters/) ----
        "rename_splits" => operator(sp::splitters::RenameSplits);
        "separate_split" => operator(sp::splitters::SeparateSplit);
        "slice_split" => operator(sp::splitters::SliceSplit);
        "split_random_mix" => operator(sp::splitters::SplitRandomMix);
        "close_text_sampler" => sampler(sp::samplers::CloseTextSampler);
        "diverse_labels_sampler" => sampler(sp::samplers::DiverseLabelsSampler);
        "fixed_indices_sampler" => sampler(sp::samplers::FixedIndicesSampler);
        "random_sampler" => sampler(sp::samplers::RandomSampler);
        "constant_size_sample" => custom([StreamScope, sp::samplers::ConstantSizeSampleConfig], |t, v, cx| {
            let scope: StreamScope = from_value(t, v)?;
            Ok(scoped_instance_op(t, v, scope, from_value::<sp::samplers::ConstantSizeSampleConfig>(t, v)?.build(cx)?))
        });
        "random_size_sample" => custom([StreamScope, sp::samplers::RandomSizeSampleConfig], |t, v, cx| {
            let scope: StreamScope = from_value(t, v)?;
            Ok(scoped_instance_op(t, v, scope, from_value::<sp::samplers::RandomSizeSampleConfig>(t, v)?.build(cx)?))
        });

        // ---- processors (processors/) ----
        "convert_to_boolean" => field_op(pr::text::ConvertToBoolean);
        "add_prefix" => field_op(pr::text::AddPrefix);
        "extract_arena_hard_numerical_judgment" => field_op(pr::judgments::ExtractArenaHardNumericalJudgment);
        "extract_harm_rating_judgement" => field_op(pr::judgments::ExtractHarmRatingJudgement);
        "extract_mt_bench_label_judgment" => field_op(pr::judgments::ExtractMtBenchLabelJudgment);
        "extract_mt_bench_rating_judgment" => field_op(pr::judgments::ExtractMtBenchRatingJudgment);
        "extract_safe_unsafe_judgment" => field_op(pr::judgments::ExtractSafeUnsafeJudgment);
        "extract_verbal_judgment" => field_op(pr::judgments::ExtractVerbalJudgment);
        "first_character" => field_op(pr::text::FirstCharacter);
        "fix_white_space" => field_op(pr::text::FixWhiteSpace);
        "get_sql" => field_op(pr::text::GetSql);
        "get_string_after" => field_op(pr::text::GetStringAfter);
        "list_to_empty_entities_tuples" => field_op(pr::text::ListToEmptyEntitiesTuples);
        "json_str_to_dict" => field_op(pr::json::JsonStrToDict);
        "load_json" => field_op(pr::json::LoadJson);
        "lower_case_till_punc" => field_op(pr::text::LowerCaseTillPunc);
        "match_closest_option" => field_op(pr::closest::MatchClosestOption);
        "multiple_tool_call_post_processor" => field_op(pr::json::MultipleToolCallPostProcessor);
        "remove_articles" => field_op(pr::text::RemoveArticles);
        "remove_punctuations" => field_op(pr::text::RemovePunctuations);
        "split_strip" => field_op(pr::text::SplitStrip);
        "str_to_float_format" => field_op(pr::text::StrToFloatFormat);
        "string_equals" | "string_or_not_string" => field_op(pr::text::StringEquals);
        "substring" => field_op(pr::text::Substring);
        "take_first_non_empty_line" => field_op(pr::text::TakeLine);
        "take_first_word" => field_op(pr::text::TakeFirstWord);
        "to_string" | "bytes_to_string" => field_op(pr::text::ToString);
        "to_string_stripped" => field_op(pr::text::ToStringStripped);
        "tool_call_post_processor" => field_op(pr::json::ToolCallPostProcessor);

        // ---- templates and serializers (templates/) ----
        "conversation_serializer" => serializer(tp::serializers::ConversationSerializer);
        "default_list_serializer" => serializer(tp::serializers::DefaultListSerializer);
        "default_serializer" => serializer(tp::serializers::DefaultSerializer);
        "dialog_serializer" => serializer(tp::serializers::DialogSerializer);
        "dict_as_json_serializer" => serializer(tp::serializers::DictAsJsonSerializer);
        "document_serializer" => serializer(tp::serializers::DocumentSerializer);
        "image_serializer" => serializer(tp::serializers::ImageSerializer);
        "input_output_template" => template(tp::input_output::InputOutputTemplate);
        "input_output_template_with_custom_target" => template(tp::input_output::InputOutputTemplateWithCustomTarget);
        "json_output_template" => template(tp::input_output::JsonOutputTemplate);
        "key_val_template" => template(tp::others::KeyValTemplate);
        "list_serializer" => serializer(tp::serializers::ListSerializer);
        "multi_document_serializer" => serializer(tp::serializers::MultiDocumentSerializer);
        "multi_label_template" => template(tp::input_output::MultiLabelTemplate);
        "multi_reference_template" => template(tp::input_output::MultiReferenceTemplate);
        "multi_turn_template" => template(tp::input_output::MultiTurnTemplate);
        "null_template" => template(tp::others::NullTemplate);
        "number_quantizing_serializer" => serializer(tp::serializers::NumberQuantizingSerializer);
        "number_serializer" => serializer(tp::serializers::NumberSerializer);
        "output_quantizing_template" => template(tp::input_output::OutputQuantizingTemplate);
        "pairwise_choice_template" => template(tp::others::PairwiseChoiceTemplate);
        "pairwise_comparative_rating_template" => template(tp::others::PairwiseComparativeRatingTemplate);
        "span_labeling_json_template" => template(tp::input_output::SpanLabelingJsonTemplate);
        "span_labeling_template" => template(tp::input_output::SpanLabelingTemplate);
        "sql_database_as_schema_serializer" => serializer(tp::serializers::SqlDatabaseAsSchemaSerializer);
        "table_serializer" => serializer(tp::serializers::TableSerializer);
        "serialize_table_as_concatenation" => table_serializer(tp::serializers::TableLayout::Concatenation);
        "serialize_table_as_df_loader" => table_serializer(tp::serializers::TableLayout::DfLoader);
        "serialize_table_as_html" => table_serializer(tp::serializers::TableLayout::Html);
        "serialize_table_as_indexed_row_major" => table_serializer(tp::serializers::TableLayout::IndexedRowMajor);
        "serialize_table_as_json" => table_serializer(tp::serializers::TableLayout::Json);
        "serialize_table_as_markdown" => table_serializer(tp::serializers::TableLayout::Markdown);
        "serialize_table_as_image" => table_serializer(tp::serializers::TableLayout::Image);
        "tool_call_serializer" => serializer(tp::serializers::ToolCallSerializer);
        "tools_serializer" => serializer(tp::serializers::ToolsSerializer);
        "video_serializer" => serializer(tp::serializers::VideoSerializer);
        "yes_no_template" => template(tp::others::YesNoTemplate);
        "dialog_template" => template(tp::others::DialogTemplate);
        "dialog_pairwise_choice_template" => template(tp::others::DialogPairwiseChoiceTemplate);

        // ---- formats (formats/) ----

        // ---- images (images.rs) ----
        "decode_image" => field_op(crate::images::DecodeImage);
        "hash_image" => field_op(crate::images::HashImage);
        "to_image" => field_op(crate::images::ToImage);
        "to_rgb" => field_op(crate::images::ToRgb);

        // ---- system prompts (system_prompts/) ----

        // ---- augmentors (augmentors/) ----
        "augment_whitespace" => augmentor(aug::AugmentWhitespace);
        "null_augmentor" => augmentor(aug::NullAugmentor);
        "gray_scale" => augmentor(aug::image::GrayScale);
        "grid_lines" => augmentor(aug::image::GridLines);
        "pixel_noise" => augmentor(aug::image::PixelNoise);
        "oldify" => augmentor(aug::image::Oldify);
        "transpose_table" => augmentor(aug::table::TransposeTable);
        "shuffle_table_rows" => augmentor(aug::table::ShuffleTableRows);
        "shuffle_table_columns" => augmentor(aug::table::ShuffleTableColumns);
        "duplicate_table_rows" => augmentor(aug::table::DuplicateTableRows);
        "duplicate_table_columns" => augmentor(aug::table::DuplicateTableColumns);
        "mask_columns_names" => augmentor(aug::table::MaskColumnsNames);
        "insert_empty_table_rows" => augmentor(aug::table::InsertEmptyTableRows);
        "shuffle_columns_names" => augmentor(aug::table::ShuffleColumnsNames);

        // ---- metrics (metrics/) ----
        "anls" => metric(mt::generation::Anls);
        "sql_non_execution_accuracy" => metric(mt::text2sql::SqlNonExecutionAccuracy);
        "binary_max_f1" => metric(mt::classification::BinaryMaxF1);
        "f1_fast" => metric(mt::classification::F1Fast);
        "websrc_squad_f1" => metric(mt::websrc::WebsrcSquadF1);
        // Catalog metrics that need packages, models or data not here (see `NeedsModel`).
        "binary_accuracy" => metric(mt::classification::BinaryAccuracy);
        "binary_max_accuracy" => metric(mt::classification::BinaryMaxAccuracy);
        "exact_match_mm" => metric(mt::strings::ExactMatchMm);
        "jaccard_index" => metric(mt::strings::JaccardIndex);
        "jaccard_index_string" => metric(mt::generation::JaccardIndexString);
        "matthews_correlation" => metric(mt::classification::MatthewsCorrelation);
        "ner" => metric(mt::generation::Ner);
        "normalized_sacrebleu" => metric(mt::generation::NormalizedSacrebleu);
        "prediction_length" => metric(mt::strings::PredictionLength);
        "relaxed_correctness" => metric(mt::strings::RelaxedCorrectness);
        "roc_auc" => metric(mt::classification::RocAuc);
        "rouge" => metric(mt::generation::Rouge);
        "string_containment_ratio" => metric(mt::strings::StringContainmentRatio);
        "token_overlap" => metric(mt::generation::TokenOverlap);
        "unsorted_list_exact_match" => metric(mt::strings::UnsortedListExactMatch);
        "ndcg" => metric(mt::ranking::Ndcg);
        "weighted_win_rate_correlation" => metric(mt::win_rate::WeightedWinRateCorrelation);
        "tool_calling_metric" => metric(mt::tool_calling::ToolCallingMetric);
        "multi_turn_tool_calling_metric" => metric(mt::tool_calling::MultiTurnToolCallingMetric);
        // Robustness group metrics (`group_mean` reductions).



        // ---- processors built from presets (processors/) ----
        "extract_verbal_judgement_bad_good" => custom([StreamScope, FieldSpec, pr::judgments::ExtractVerbalJudgment], |t, v, cx| {
            pr::field_op_with(t, v, pr::judgments::ExtractVerbalJudgment::bad_good(v)?).map(operator_art(v))
        });
        "infer_dicts_to_binary_logprobs" => custom([StreamScope, FieldSpec, pr::judgments::InferDictsToBinaryLogprobs], |t, v, cx| {
            let op = from_value::<pr::judgments::InferDictsToBinaryLogprobs>(t, v)?.checked()?;
            pr::field_op_with(t, v, op).map(operator_art(v))
        });
        "stance_to_pro_con" => custom([StreamScope, FieldSpec], |t, v, cx| pr::field_op_with(t, v, pr::text::LabelMap::StanceToProCon).map(operator_art(v)));
        "take_last_non_empty_line" => custom([StreamScope, FieldSpec, pr::text::TakeLine], |t, v, cx| pr::field_op_with(t, v, pr::text::TakeLine::last()).map(operator_art(v)));
        "to_list_by_comma" => custom([StreamScope, FieldSpec, pr::text::SplitStrip], |t, v, cx| pr::field_op_with(t, v, pr::text::SplitStrip::preset(v, ",")?).map(operator_art(v)));
        "to_list_by_comma_space" => custom([StreamScope, FieldSpec, pr::text::SplitStrip], |t, v, cx| pr::field_op_with(t, v, pr::text::SplitStrip::preset(v, ", ")?).map(operator_art(v)));
        "to_yes_or_none" => custom([StreamScope, FieldSpec], |t, v, cx| pr::field_op_with(t, v, pr::text::LabelMap::ToYesOrNone).map(operator_art(v)));
        "yes_no_to_int" => custom([StreamScope, FieldSpec], |t, v, cx| pr::field_op_with(t, v, pr::text::LabelMap::YesNoToInt).map(operator_art(v)));
        "yes_to_one_else_zero" => custom([StreamScope, FieldSpec], |t, v, cx| pr::field_op_with(t, v, pr::text::LabelMap::YesToOneElseZero).map(operator_art(v)));
        "scale_number_to_zero_one_return_zero_if_fails" => field_op(pr::judgments::ScaleNumberToZeroOneReturnZeroIfFails);

        // ---- templates, formats, system prompts and augmentors built by hand ----
        "multiple_choice_template" => custom([tp::multiple_choice::McJson], |t, v, cx| {
            let tpl = tp::multiple_choice::MultipleChoiceTemplate::from_json(v)?;
            tpl.base().build(cx)?;
            Ok(Artifact::Template(Art::new(Arc::new(tpl) as Arc<dyn Template>, v.clone())))
        });
        "chat_api_format" => format(fmt::chat_api::ChatApiFormat);
        "system_format" => format(fmt::system::SystemFormat);
        "granite_documents_format" => custom([fmt::tokenizer::GraniteDocumentsFormatArgs], |t, v, cx| {
            let f = fmt::tokenizer::GraniteDocumentsFormat::new(from_value(t, v)?)?;
            Ok(Artifact::Format(Art::new(Arc::new(f) as Arc<dyn fmt::Format>, v.clone())))
        });
        "hf_system_format" => custom([fmt::tokenizer::HfSystemFormatArgs], |t, v, cx| {
            let f = fmt::tokenizer::HfSystemFormat::new(from_value(t, v)?)?;
            Ok(Artifact::Format(Art::new(Arc::new(f) as Arc<dyn fmt::Format>, v.clone())))
        });
        "empty_system_prompt" => system_prompt(sysp::EmptySystemPrompt);
        "textual_system_prompt" => system_prompt(sysp::TextualSystemPrompt);
        "augment_prefix_suffix" => custom([aug::AugmentPrefixSuffix], |t, v, cx| {
            Ok(augmentor_art(v, from_value::<aug::AugmentPrefixSuffix>(t, v)?.prepared()?))
        });

        // ---- metrics built by hand (metrics/) ----
        "accuracy" | "accuracy_fast" => custom([mt::strings::Accuracy] + mt::COMMON_KEYS, |t, v, cx| {
            let mut m = from_value::<mt::strings::Accuracy>(t, v)?;
            m.instance_class = t == "accuracy";
            Ok(metric_art(v, m))
        });
        "max_accuracy" => custom([mt::strings::Accuracy] + mt::COMMON_KEYS, |t, v, cx| {
            let mut m = from_value::<mt::strings::Accuracy>(t, v)?;
            m.max = true;
            m.instance_class = true;
            Ok(metric_art(v, m))
        });
        // Catalog metrics that need a model, packages or data not here (see `NeedsModel`).
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
        | "meteor_fast"
        | "perplexity"
        | "regard_metric"
        | "reward"
        | "safety_metric"
        | "sentence_bert"
        | "f1_strings"
        | "fin_qa_eval"
        | "reflection_tool_calling_metric"
        | "reflection_tool_calling_metric_syntactic"
        | "sql_execution_accuracy" => custom([], |t, v, cx| Ok(metric_art(v, mt::generation::NeedsModel::build(t, v))));
        "char_edit_distance" | "char_edit_distance_accuracy" => custom([mt::generation::CharEditDistance] + mt::COMMON_KEYS, |t, v, cx| {
            let mut m = from_value::<mt::generation::CharEditDistance>(t, v)?;
            m.accuracy = t == "char_edit_distance_accuracy";
            Ok(metric_art(v, m))
        });
        "f1" | "f1_macro" | "f1_micro" | "f1_weighted" => custom([mt::classification::F1] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::classification::F1::build(t, v)?)));
        "f1_binary" | "f1_binary_pos_only" | "precision_binary" | "recall_binary" => custom([mt::classification::F1Binary] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::classification::F1Binary::build(t, v)?))
        });
        "f1_macro_multi_label"
        | "f1_micro_multi_label"
        | "precision_macro_multi_label"
        | "precision_micro_multi_label"
        | "recall_macro_multi_label"
        | "recall_micro_multi_label" => custom([mt::classification::F1MultiLabel] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::classification::F1MultiLabel::build(t, v)?)));
        "huggingface_metric" | "squad" | "wer" => custom([mt::generation::HfArgs] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(Artifact::Metric(Art::new(mt::generation::HuggingfaceMetric::build(t, v)?, v.clone())))
        });
        "kendall_tau_metric" => custom([mt::regression::Correlation] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::regression::Correlation::build(mt::regression::CorrelationKind::KendallB, t, v)?))
        });
        "pearsonr" => custom([mt::regression::Correlation] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::regression::Correlation::build(mt::regression::CorrelationKind::Pearson, t, v)?))
        });
        "spearmanr" => custom([mt::regression::Correlation] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::regression::Correlation::build(mt::regression::CorrelationKind::Spearman, t, v)?))
        });
        "map" => custom([mt::strings::Retrieval] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::Map, t, v)?)));
        "mrr" => custom([mt::strings::Retrieval] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::Mrr, t, v)?)));
        "retrieval_at_k" => custom([mt::strings::Retrieval] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::strings::Retrieval::build(mt::strings::RetrievalKind::AtK, t, v)?)));
        "mean_squared_error" => custom([mt::regression::MeanSquaredError] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::regression::MeanSquaredError::build(t, v, false)?)));
        "root_mean_squared_error" => custom([mt::regression::MeanSquaredError] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::regression::MeanSquaredError::build(t, v, true)?)));
        "string_containment" | "string_containment_old" => custom([mt::strings::StringContainment] + mt::COMMON_KEYS, |t, v, cx| {
            let mut m = from_value::<mt::strings::StringContainment>(t, v)?;
            m.instance_class = t == "string_containment_old";
            Ok(metric_art(v, m))
        });
        "rerank_recall" => custom([mt::ranking::RerankRecall] + mt::COMMON_KEYS, |t, v, cx| Ok(metric_art(v, mt::ranking::RerankRecall::build(t, v)?)));
        "llm_judge_direct" => custom([mt::llm_judge::JudgeConfig] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::llm_judge::direct::LlmJudgeDirect::build(from_value(t, v)?, cx)?))
        });
        "llm_judge_pairwise" => custom([mt::llm_judge::JudgeConfig] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::llm_judge::pairwise::LlmJudgePairwise::build(from_value(t, v)?, cx)?))
        });
        "llm_as_judge" => custom([mt::llm_judge::template::TemplateJudgeConfig, mt::llm_judge::template::LlmAsJudgeFields] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::llm_judge::template::TemplateJudge::build(mt::llm_judge::template::Family::LlmAsJudge, v, cx)?))
        });
        "task_based_ll_mas_judge" => custom([mt::llm_judge::template::TemplateJudgeConfig, mt::llm_judge::template::TaskBasedFields] + mt::COMMON_KEYS, |t, v, cx| {
            Ok(metric_art(v, mt::llm_judge::template::TemplateJudge::build(mt::llm_judge::template::Family::TaskBased, v, cx)?))
        });
        // criteria made from instance fields (Unitxt's llm_as_judge_operators.py)
        "create_criteria_with_options_from_dict" => field_op(op::criteria::CreateCriteriaWithOptionsFromDict);
        "create_criteria_with_options_from_json" => field_op(op::criteria::CreateCriteriaWithOptionsFromJson);
        "create_yes_no_criteria_from_string" => field_op(op::criteria::CreateYesNoCriteriaFromString);
        "create_yes_no_partially_criteria_from_string" => field_op(op::criteria::CreateYesNoPartiallyCriteriaFromString);
        "create_criteria_from_dict" => field_op(op::criteria::CreateCriteriaFromDict);
        "create_criteria_from_json" => field_op(op::criteria::CreateCriteriaFromJson);
        "create_criteria_from_string" => field_op(op::criteria::CreateCriteriaFromString);
        "load_criteria_with_options" | "load_criteria" => custom([StreamScope, FieldSpec, op::criteria::LoadCriteria], |t, v, cx| {
            op::criteria::LoadCriteria::build(t, v, cx).map(operator_art(v))
        });
        "criteria" => custom([crate::criteria::PlainCriteria], |t, v, cx| {
            Ok(Artifact::Criteria(Art::new(Arc::new(crate::criteria::Criteria::build(t, v)?), v.clone())))
        });
        "criteria_with_options" => custom([crate::criteria::Criteria], |t, v, cx| {
            Ok(Artifact::Criteria(Art::new(Arc::new(crate::criteria::Criteria::build(t, v)?), v.clone())))
        });
        // An option of a `criteria_with_options`, which reads its options itself; built alone
        // (Unitxt's `CriteriaOption` made in code), it is a criteria of that name and description.
        "criteria_option" => custom([crate::criteria::CriteriaOption], |t, v, cx| {
            let o: crate::criteria::CriteriaOption = from_value(t, v)?;
            let c = crate::criteria::Criteria { name: o.name, description: o.description, prediction_field: None, context_fields: None, options: None, option_map: None };
            Ok(Artifact::Criteria(Art::new(Arc::new(c), v.clone())))
        });
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
        | "group_mean_token_overlap" => custom([], |t, v, cx| match mt::groups::GroupMetric::build(t, v)? {
            Some(m) => Ok(metric_art(v, m)),
            None => Err(Error::invalid(format!("`{t}` is not a group metric"))),
        });
}

/// An operator artifact of `o`, built from `v`.
fn operator_art(v: &Value) -> impl FnOnce(Arc<dyn Operator>) -> Artifact + '_ {
    move |o| Artifact::Operator(Art::new(o, v.clone()))
}

/// An augmentor artifact of `a`, built from `v`.
fn augmentor_art<T: Augmentor + 'static>(v: &Value, a: T) -> Artifact {
    Artifact::Augmentor(Art::new(Arc::new(a) as Arc<dyn Augmentor>, v.clone()))
}

/// A metric artifact of `m`, built from `v`.
fn metric_art<T: crate::metrics::Metric + 'static>(v: &Value, m: T) -> Artifact {
    Artifact::Metric(Art::new(Arc::new(m) as Arc<dyn crate::metrics::Metric>, v.clone()))
}

/// An inference engine artifact of `e`, built from `v`.
fn engine_art<T: crate::inference::InferenceEngine + 'static>(v: &Value, e: T) -> Artifact {
    Artifact::Engine(Art::new(Arc::new(e) as Arc<dyn crate::inference::InferenceEngine>, v.clone()))
}

/// Builds one of Unitxt's `serialize_table_as_*` serializers, in `layout` (see
/// [`crate::templates::serializers::SerializeTable`]).
fn table_serializer(t: &str, v: &Value, layout: crate::templates::serializers::TableLayout) -> Result<Artifact> {
    let _: FieldSpec = from_value(t, v)?;
    let mut s: crate::templates::serializers::SerializeTable = from_value(t, v)?;
    s.layout = layout;
    Ok(Artifact::Serializer(Art::new(Arc::new(s), v.clone())))
}

/// An [`InstanceOperator`] as an [`Operator`] applied to the streams of `scope`.
fn scoped_instance_op<T: InstanceOperator + 'static>(t: &str, v: &Value, scope: StreamScope, op: T) -> Artifact {
    let op: Arc<dyn Operator> = Arc::new(InstanceOp { name: t.to_string(), scope, op: Arc::new(op) });
    Artifact::Operator(Art::new(op, v.clone()))
}

/// How the config struct of a line of [`artifact_types!`] becomes an artifact: each function
/// deserializes `T` from `v` (with the field settings and stream scope its shape has) and
/// wraps it as its kind. They build nothing nested (those types are `custom`), so the context
/// is unused.
mod shapes {
    use super::*;
    use serde::de::DeserializeOwned;

    /// A data source.
    pub fn loader<T: Loader + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(Artifact::Loader(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn Loader>, v.clone())))
    }
    /// A template; its nested `serializer` is built in `cx`.
    pub fn template<T: Template + crate::templates::base::TemplateKind + DeserializeOwned + 'static>(t: &str, v: &Value, cx: &BuildContext<'_>) -> Result<Artifact> {
        let tpl = from_value::<T>(t, v)?;
        tpl.base().build(cx)?;
        Ok(Artifact::Template(Art::new(Arc::new(tpl) as Arc<dyn Template>, v.clone())))
    }
    /// A serializer. Unitxt's serializers are field operators: a serializer used as a step
    /// (in a `metric_pipeline`) takes the [`FieldSpec`] fields too.
    pub fn serializer<T: Serializer + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        let _: FieldSpec = from_value(t, v)?;
        Ok(Artifact::Serializer(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn Serializer>, v.clone())))
    }
    /// A demos sampler.
    pub fn sampler<T: Sampler + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(Artifact::Sampler(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn Sampler>, v.clone())))
    }
    /// A format.
    pub fn format<T: crate::formats::Format + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(Artifact::Format(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn crate::formats::Format>, v.clone())))
    }
    /// A system prompt.
    pub fn system_prompt<T: crate::system_prompts::SystemPrompt + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(Artifact::SystemPrompt(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn crate::system_prompts::SystemPrompt>, v.clone())))
    }
    /// An augmentor.
    pub fn augmentor<T: Augmentor + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(augmentor_art(v, from_value::<T>(t, v)?))
    }
    /// A metric.
    pub fn metric<T: crate::metrics::Metric + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(metric_art(v, from_value::<T>(t, v)?))
    }
    /// An inference engine.
    pub fn engine<T: crate::inference::InferenceEngine + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(engine_art(v, from_value::<T>(t, v)?))
    }
    /// A multi-stream [`Operator`].
    pub fn operator<T: Operator + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        Ok(Artifact::Operator(Art::new(Arc::new(from_value::<T>(t, v)?) as Arc<dyn Operator>, v.clone())))
    }
    /// An [`InstanceOperator`], applied to the streams of its [`StreamScope`].
    pub fn instance_op<T: InstanceOperator + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        let scope: StreamScope = from_value(t, v)?;
        Ok(scoped_instance_op(t, v, scope, from_value::<T>(t, v)?))
    }
    /// A [`StreamOperator`], applied to the streams of its [`StreamScope`].
    pub fn stream_op<T: StreamOperator + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        let scope: StreamScope = from_value(t, v)?;
        let op: Arc<dyn Operator> = Arc::new(StreamOp { name: t.to_string(), scope, op: Arc::new(from_value::<T>(t, v)?) });
        Ok(Artifact::Operator(Art::new(op, v.clone())))
    }
    /// A [`FieldOperator`] with its [`FieldSpec`], as an instance operator.
    pub fn field_op<T: FieldOperator + DeserializeOwned + 'static>(t: &str, v: &Value, _: &BuildContext<'_>) -> Result<Artifact> {
        crate::operators::field_operator(t, v, || from_value::<T>(t, v)).map(operator_art(v))
    }
    /// An [`crate::operators::collections::InPlaceFieldOperator`] with its [`FieldSpec`], as an
    /// instance operator.
    pub fn in_place_field_op<T: crate::operators::collections::InPlaceFieldOperator + DeserializeOwned + 'static>(
        t: &str,
        v: &Value,
        _: &BuildContext<'_>,
    ) -> Result<Artifact> {
        let scope: StreamScope = from_value(t, v)?;
        let spec: FieldSpec = from_value(t, v)?;
        Ok(scoped_instance_op(t, v, scope, crate::operators::collections::InPlaceFieldOp::new(spec, from_value::<T>(t, v)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of [`KNOWN_TYPES`] dispatches to a type (an empty object is at worst an
    /// error about its content, never an unknown type), and a name that is not there is an
    /// [`crate::error::Reason::UnknownType`] error that suggests the nearest one.
    #[test]
    fn known_types_dispatch() {
        let cat = Arc::new(Catalog::new(Vec::new()));
        for t in KNOWN_TYPES {
            let probe: Value = serde_json::from_str(&format!(r#"{{"__type__": "{t}"}}"#)).unwrap();
            if let Err(e) = build(&probe, &cat) {
                assert!(!matches!(*e.reason(), crate::error::Reason::UnknownType { .. }), "{t}: {e}");
            }
        }
        let e = build(&crate::json!({"__type__": "input_output_templat"}), &cat).err().expect("unknown");
        assert_eq!(
            *e.reason(),
            crate::error::Reason::UnknownType { ty: "input_output_templat".into(), suggestion: Some("input_output_template".into()) }
        );
        assert_eq!(e.message, "unknown artifact type `__type__: input_output_templat`; did you mean `input_output_template`?");
    }

    /// A struct listed with a shape carries its `__type__` (the first of its names).
    #[test]
    fn types_carry_their_name() {
        use crate::artifact::ArtifactType;
        assert_eq!(<crate::operators::fields::AddConstant as ArtifactType>::TYPE, "add_constant");
        assert_eq!(<crate::operators::fields::Copy as ArtifactType>::TYPE, "copy");
        assert_eq!(<crate::templates::input_output::InputOutputTemplate as ArtifactType>::TYPE, "input_output_template");
        assert!(KNOWN_TYPES.contains(&<crate::metrics::strings::JaccardIndex as ArtifactType>::TYPE));
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

    /// A broken artifact met through a nested name is located in that artifact, as data.
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
        assert_eq!(
            *card.reason(),
            crate::error::Reason::UnknownField { ty: "task_card".into(), field: "templatez".into(), suggestion: Some("templates".into()) }
        );
        assert_eq!(card.location.artifact.as_deref(), Some("cards.typo"));
        assert!(ok.is_ok(), "{:?}", ok.err());
        assert!(over.to_string().contains("unknown field `input_formt`"), "{over}");
        assert!(metric.is_ok(), "{:?}", metric.err());
    }
}
