//! Stream operators: the steps of cards and recipes.
//!
//! Three shapes, as in Unitxt's `operator.py`:
//! - [`Operator`]: a multi-stream in, a multi-stream out (`MultiStreamOperator`).
//! - [`StreamOperator`]: one split at a time (`StreamOperator`), e.g. filters and shuffles;
//!   wrapped by [`StreamOp`], which honours `apply_to_streams` / `dont_apply_to_streams`.
//! - [`InstanceOperator`]: one instance at a time (`InstanceOperator`); wrapped by
//!   [`InstanceOp`], which also adds the split and instance index to errors.
//!
//! [`FieldOperator`] is the per-value shape of Unitxt's `InstanceFieldOperator` (`field`,
//! `to_field`, `field_to_field`, `process_every_value`, `not_exist_ok`, ...), adapted by
//! [`FieldOp`].

pub mod streams;

use std::sync::Arc;

use serde::Deserialize;

pub mod collections;
pub mod composite;
pub mod criteria;
pub mod dialog;
pub mod expressions;
pub mod fields;
pub mod literal;
impl crate::artifact::ArtifactKind for dyn Operator {
    const KIND: &'static str = "operator";
}

#[cfg(test)]
mod oracle_tests;
pub mod regex;
pub mod spans;
pub mod strings;
pub mod tables;

use crate::error::{Error, Result, ResultExt};
use crate::stream::{MultiStream, Stream, StreamScope};
use crate::py::dict_path::{dict_get_opt, dict_set, dict_set_with};
use crate::value::{Instance, Value};

/// The top-level fields of its instances an operator may read (or modify in place, as a write
/// into `a/b` modifies `a`). A recipe reads from the data files only the columns that the
/// card's steps and the task read, when every step says which ones it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldsRead {
    /// Any field, or fields known only from the data (the safe answer, and the default).
    Any,
    /// Only these top-level fields (possibly none, as for a splitter).
    Only(Vec<String>),
}

impl FieldsRead {
    /// The top-level fields of the field paths `paths` (`a/b` reads `a`; a path that does not
    /// parse gives [`FieldsRead::Any`]). The whole path is kept as well, in case it names a
    /// top-level field itself.
    pub fn of_paths<'a>(paths: impl IntoIterator<Item = &'a str>) -> FieldsRead {
        let mut out = Vec::new();
        for p in paths {
            match crate::py::dict_path::path_components(p) {
                // A path starting with `*` reaches into every field.
                Ok(c) if !c.is_empty() && c[0] != "*" => {
                    let whole = c[0] != p;
                    out.push(c.into_iter().next().unwrap_or_default());
                    if whole {
                        out.push(p.to_string());
                    }
                }
                _ => return FieldsRead::Any,
            }
        }
        FieldsRead::Only(out)
    }

    /// These fields and `more` ([`FieldsRead::Any`] stays `Any`).
    pub fn with(self, more: impl IntoIterator<Item = String>) -> FieldsRead {
        match self {
            FieldsRead::Any => FieldsRead::Any,
            FieldsRead::Only(mut f) => {
                f.extend(more);
                FieldsRead::Only(f)
            }
        }
    }
}

/// A multi-stream operator: splits in, splits out. Receives `Arc<Self>` so that lazy streams
/// can hold on to it.
pub trait Operator: Send + Sync {
    /// Transforms the multi-stream. Errors found while setting up are returned here; errors
    /// of individual instances travel inside the streams.
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream>;

    /// The per-instance operator this operator is, when it is one ([`InstanceOp`]): a recipe
    /// then runs it on the worker threads together with the steps after it, instead of on
    /// the thread that reads the data. `None` (the default) for every other operator.
    fn as_instance_op(&self) -> Option<&InstanceOp> {
        None
    }

    /// The fields of its instances this operator may read ([`FieldsRead::Any`] by default).
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Any
    }

    /// The operator as a recipe runs it as a split's refiner (`train_refiner`, ...), when it
    /// runs otherwise there: see [`StreamOperator::as_recipe_refiner`]. `None` (the default):
    /// it runs as it is.
    fn as_recipe_refiner(&self, seed_context: &SeedContextFn<'_>) -> Result<Option<Arc<dyn Operator>>> {
        let _ = seed_context;
        Ok(None)
    }
}

/// What a recipe hands an operator run as its refiner ([`Operator::as_recipe_refiner`]): makes
/// the [`streams::RefinerSeedContext`] of the recipe's run when called (only an operator that
/// reads it calls it; making it errors for some recipes).
pub type SeedContextFn<'a> = dyn Fn() -> Result<Arc<streams::RefinerSeedContext>> + 'a;

/// A per-instance operator.
pub trait InstanceOperator: Send + Sync {
    /// Transforms one instance of split `split`.
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance>;

    /// Whether the result depends on the order in which instances are processed (a counter
    /// shared by all instances, as in [`fields::AddId`]): such an operator runs on the reading
    /// thread, in stream order, never on the worker threads. `false` by default.
    fn needs_stream_order(&self) -> bool {
        false
    }

    /// The fields of an instance this operator may read ([`FieldsRead::Any`] by default).
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Any
    }
}

/// A per-split operator.
pub trait StreamOperator: Send + Sync {
    /// Transforms the stream of split `split`.
    fn process_stream(self: Arc<Self>, stream: Stream, split: &str) -> Result<Stream>;

    /// The fields of its instances this operator may read ([`FieldsRead::Any`] by default).
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Any
    }

    /// The operator as a recipe runs it as a split's refiner, when its result depends on what
    /// Unitxt's instances hold at that point beyond the engine's (a shuffle seeded from
    /// Python's `str()` of instances, as [`streams::MinimumOneExamplePerLabelRefiner`]'s): a
    /// copy that reads `seed_context()` ([`streams::RefinerSeedContext`]). `None` (the
    /// default): it runs as it is. Errors as `seed_context` does.
    fn as_recipe_refiner(&self, seed_context: &SeedContextFn<'_>) -> Result<Option<Arc<dyn StreamOperator>>> {
        let _ = seed_context;
        Ok(None)
    }
}

/// The operator of type `t` that applies the [`FieldOperator`] `make` gives to the fields
/// and splits `v` selects: its [`StreamScope`] and [`FieldSpec`] are read from `v` first, then
/// `make` runs. For the registry's field operators and the processors built from a preset.
/// Errors: `v`'s scope or field settings, `make`'s error, field settings the operator cannot
/// take (named with `t`).
pub fn field_operator<T: FieldOperator + 'static>(t: &str, v: &Value, make: impl FnOnce() -> Result<T>) -> Result<Arc<dyn Operator>> {
    let scope: StreamScope = crate::artifact::from_value(t, v)?;
    let spec: FieldSpec = crate::artifact::from_value(t, v)?;
    let inner = FieldOp::new(spec, Arc::new(make()?)).map_err(|e| e.context(format!("in `{t}`")))?;
    Ok(Arc::new(InstanceOp { name: t.to_string(), scope, op: Arc::new(inner) }))
}

/// Adapts an [`InstanceOperator`] to an [`Operator`], lazily, for the splits in `scope`.
pub struct InstanceOp {
    /// `__type__` (or catalog name) for error messages.
    pub name: String,
    /// The splits the operator runs on; other splits pass through.
    pub scope: StreamScope,
    /// The per-instance work.
    pub op: Arc<dyn InstanceOperator>,
}

impl InstanceOp {
    /// Runs the operator on instance `i` (0-based position in its input stream) of `split`;
    /// an error names the operator, the split and the position.
    pub fn apply(&self, inst: Instance, split: &str, i: usize) -> Result<Instance> {
        self.op.process_instance(inst, split).map_err(|e| {
            e.context(format!("in operator `{}`", self.name)).at_instance(split, i)
        })
    }
}

impl Operator for InstanceOp {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        Ok(ms.map_streams(|split, stream| {
            if !self.scope.applies(split) {
                return stream;
            }
            let me = self.clone();
            let split = split.to_string();
            Box::new(stream.enumerate().map(move |(i, r)| me.apply(r?, &split, i)))
        }))
    }

    fn as_instance_op(&self) -> Option<&InstanceOp> {
        Some(self)
    }

    fn fields_read(&self) -> FieldsRead {
        self.op.fields_read()
    }
}

/// Adapts a [`StreamOperator`] to an [`Operator`] for the splits in `scope`.
pub struct StreamOp<T: ?Sized> {
    /// `__type__` (or catalog name) for error messages.
    pub name: String,
    /// The splits the operator runs on; other splits pass through.
    pub scope: StreamScope,
    /// The per-stream work.
    pub op: Arc<T>,
}

impl<T: StreamOperator + ?Sized + 'static> Operator for StreamOp<T> {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let mut out = MultiStream::new();
        for (split, stream) in ms.streams {
            let s = if self.scope.applies(&split) {
                self.op.clone().process_stream(stream, &split).with_ctx(|| format!("in operator `{}`, split {split:?}", self.name))?
            } else {
                stream
            };
            out.streams.insert(split, s);
        }
        Ok(out)
    }

    fn fields_read(&self) -> FieldsRead {
        self.op.fields_read()
    }

    fn as_recipe_refiner(&self, seed_context: &SeedContextFn<'_>) -> Result<Option<Arc<dyn Operator>>> {
        Ok(self.op.as_recipe_refiner(seed_context)?.map(|op| {
            let op: Arc<dyn Operator> = Arc::new(StreamOp { name: self.name.clone(), scope: self.scope.clone(), op });
            op
        }))
    }
}

/// The field selection shared by field operators (Unitxt's `InstanceFieldOperator` fields).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FieldSpec {
    /// `field`: the (dotted-path) field to read; exclusive with `field_to_field`.
    #[serde(default)]
    pub field: Option<String>,
    /// `to_field`: where the result goes (absent: back into `field`); not allowed with
    /// `field_to_field`.
    #[serde(default)]
    pub to_field: Option<String>,
    /// A list of `[from, to]` pairs or a `{from: to}` dict.
    #[serde(default)]
    pub field_to_field: Option<Value>,
    /// `process_every_value`: apply the operator to each element of the value (list items, string
    /// characters or dict keys, as Python iterates) and store the list of results (default false).
    #[serde(default)]
    pub process_every_value: bool,
    /// `get_default`: the value used for a missing field when `not_exist_ok` (absent: `null`).
    #[serde(default)]
    pub get_default: Option<Value>,
    /// `not_exist_ok`: a missing field is processed as `get_default` instead of being an error
    /// (default false).
    #[serde(default)]
    pub not_exist_ok: bool,
    /// `not_exist_do_nothing`: a missing field is skipped, leaving the instance unchanged (default
    /// false).
    #[serde(default)]
    pub not_exist_do_nothing: bool,
    /// `set_every_value`: the result, a list, is spread over the items of the first `*` of the
    /// `to` path, one item each (Unitxt's `dict_set(..., set_multiple=True)`; default false).
    #[serde(default)]
    pub set_every_value: bool,
}

impl FieldSpec {
    /// The `(from, to)` pairs in processing order. Errors when neither or both of `field` and
    /// `field_to_field` are given, or a pair is malformed.
    pub fn pairs(&self) -> Result<Vec<(String, String)>> {
        match (&self.field, &self.field_to_field) {
            (Some(f), None) => Ok(vec![(f.clone(), self.to_field.clone().unwrap_or_else(|| f.clone()))]),
            (None, Some(ftf)) => {
                if self.to_field.is_some() {
                    return Err(Error::invalid("cannot set both `to_field` and `field_to_field`"));
                }
                let mut out = Vec::new();
                match ftf {
                    Value::Object(m) => {
                        for (k, v) in m {
                            let t = v.as_str().ok_or_else(|| Error::invalid("field_to_field values must be strings"))?;
                            out.push((k.to_string(), t.to_string()));
                        }
                    }
                    Value::Array(a) => {
                        for p in a {
                            match p.as_array().map(|x| x.as_slice()) {
                                Some([Value::String(f), Value::String(t)]) => out.push((f.as_str().to_owned(), t.as_str().to_owned())),
                                _ => return Err(Error::invalid(format!("field_to_field entries must be [from, to] pairs, got {p}"))),
                            }
                        }
                    }
                    _ => return Err(Error::invalid("field_to_field must be a dict or a list of pairs")),
                }
                if out.is_empty() {
                    return Err(Error::invalid("field_to_field must name at least one field"));
                }
                Ok(out)
            }
            (None, None) => Err(Error::invalid("must define the field to work on: `field` or `field_to_field`")),
            (Some(_), Some(_)) => Err(Error::invalid("cannot set both `field` and `field_to_field`")),
        }
    }
}

/// A per-value operator: Unitxt's `FieldOperator.process_value`.
pub trait FieldOperator: Send + Sync {
    /// Transforms one value (the field's value, or each element with `process_every_value`).
    fn process_value(&self, value: Value, instance: &Instance) -> Result<Value>;

    /// Whether [`FieldOperator::process_value`] reads fields of `instance` other than the
    /// value handed to it (false by default). An operator that uses its `instance` argument
    /// must say so: a test checks every `process_value` of the crate that names that argument.
    fn reads_instance(&self) -> bool {
        false
    }
}

/// Adapts a [`FieldOperator`] with its [`FieldSpec`] to an [`InstanceOperator`]. As in Unitxt,
/// a spec without a field (as processors are written in the catalog, to be completed by
/// `post_process`) builds fine and errors only when an instance is processed.
pub struct FieldOp<T: ?Sized> {
    /// The fields read and written.
    pub spec: FieldSpec,
    pairs: std::result::Result<Vec<(String, String)>, Error>,
    /// The per-value work.
    pub op: Arc<T>,
}

impl<T: ?Sized> FieldOp<T> {
    /// Builds the adapter; the field selection is checked when processing.
    pub fn new(spec: FieldSpec, op: Arc<T>) -> Result<Self> {
        let pairs = spec.pairs();
        Ok(FieldOp { spec, pairs, op })
    }

    /// The `(from, to)` pairs, or the error explaining why the spec is incomplete.
    pub fn pairs(&self) -> Result<&[(String, String)]> {
        self.pairs.as_deref().map_err(|e| e.clone())
    }
}

impl<T: FieldOperator + ?Sized> InstanceOperator for FieldOp<T> {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        for (from, to) in self.pairs()? {
            let old = match dict_get_opt(&instance, from)? {
                Some(v) => v.into_owned(),
                None => {
                    if self.spec.not_exist_do_nothing {
                        continue;
                    }
                    if self.spec.not_exist_ok {
                        self.spec.get_default.clone().unwrap_or(Value::Null)
                    } else {
                        return Err(Error::not_found(format!(
                            "field {from:?} is missing; fields are {:?}",
                            instance.keys().collect::<Vec<_>>()
                        )));
                    }
                }
            };
            let new = if self.spec.process_every_value {
                // Python iterates the value: list items, string characters or dict keys.
                let items = crate::py::ops::py_iter(&old).with_ctx(|| format!("process_every_value on field {from:?}"))?;
                Value::Array(
                    items
                        .into_iter()
                        .map(|v| self.op.process_value(v, &instance))
                        .collect::<Result<_>>()
                        .map_err(|e| e.in_field(from).context(format!("field {from:?}")))?,
                )
            } else {
                self.op.process_value(old, &instance).map_err(|e| e.in_field(from).context(format!("field {from:?}")))?
            };
            if self.spec.set_every_value {
                dict_set_with(&mut instance, to, new, true, true)?;
            } else {
                dict_set(&mut instance, to, new)?;
            }
        }
        Ok(instance)
    }

    /// The fields read and, for a nested `to` path, the field written into.
    fn fields_read(&self) -> FieldsRead {
        match self.pairs() {
            Ok(pairs) if !self.op.reads_instance() => {
                FieldsRead::of_paths(pairs.iter().flat_map(|(f, t)| [f.as_str(), t.as_str()]))
            }
            _ => FieldsRead::Any,
        }
    }
}

/// Applies a list of operators in order (Unitxt's `SequentialOperator`).
pub fn apply_all(ops: &[crate::artifact::Art<dyn Operator>], mut ms: MultiStream) -> Result<MultiStream> {
    for op in ops {
        ms = op.inner.clone().process(ms).with_ctx(|| format!("in operator `{}`", op.display_name()))?;
    }
    Ok(ms)
}


/// Runs `op` on a single instance in a one-instance stream named `split` (how Unitxt's
/// evaluation runs postprocessors and metric-pipeline steps on an instance). Errors when the
/// operator fails or does not give back exactly one instance.
pub fn apply_to_instance(op: &crate::artifact::Art<dyn Operator>, instance: Instance, split: &str) -> Result<Instance> {
    let mut lists = indexmap::IndexMap::new();
    lists.insert(split.to_string(), vec![instance]);
    let mut ms = op.inner.clone().process(MultiStream::from_lists(lists))?;
    let mut out = crate::stream::collect(ms.take(split)?)?;
    if out.len() != 1 {
        return Err(Error::invalid(format!("{} gave {} instances instead of 1", op.display_name(), out.len())));
    }
    Ok(out.remove(0))
}

#[cfg(test)]
mod fields_read_tests {
    use super::FieldsRead;

    /// Every field operator whose `process_value` names its `instance` argument (rather than
    /// `_` or `_instance`) says that it reads the instance: a recipe would otherwise leave the
    /// columns it reads unloaded.
    #[test]
    fn field_operators_that_use_the_instance_say_so() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let (mut impls, mut using) = (0, Vec::new());
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (at, _) in text.match_indices(" FieldOperator for ") {
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                if !text[line_start..at].starts_with("impl") {
                    continue;
                }
                let block = &text[at..at + text[at..].find("\n}\n").unwrap()];
                let Some(sig) = block.find("fn process_value(&self, ") else { continue };
                impls += 1;
                let params = &block[sig..sig + block[sig..].find(')').unwrap()];
                let arg = params.rsplit(", ").next().unwrap();
                if !arg.starts_with('_') {
                    let name = block[" FieldOperator for ".len()..].split_whitespace().next().unwrap().to_string();
                    assert!(
                        block.contains("fn reads_instance(&self) -> bool {\n        true"),
                        "{name} in {} uses its instance but does not say so",
                        f.display()
                    );
                    using.push(name);
                }
            }
        }
        assert!(impls > 70, "found only {impls} field operators");
        using.sort();
        assert_eq!(using, ["ExtractWithRegex", "MatchClosestOption", "SerializeField"]);
    }

    #[test]
    fn paths_read_by_their_first_component() {
        assert_eq!(
            FieldsRead::of_paths(["a", "b/c", " d "]),
            FieldsRead::Only(vec!["a".into(), "b".into(), "b/c".into(), "d".into(), " d ".into()])
        );
        assert_eq!(FieldsRead::of_paths(["ok", "/"]), FieldsRead::Any);
        assert_eq!(FieldsRead::of_paths(["a/b"]).with(["x".to_string()]), FieldsRead::Only(vec!["a".into(), "a/b".into(), "x".into()]));
        assert_eq!(FieldsRead::Any.with(["x".to_string()]), FieldsRead::Any);
    }
}
