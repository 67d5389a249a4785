//! Stream and multi-stream operators (Unitxt's `operators.py` stream operators and
//! `stream_operators.py`): filters, refiners, balancers, shuffling, de-duplication, and the
//! operators that delete, duplicate, merge and join splits.
//!
//! Filters, refiners and per-page shuffles stay lazy. Balancers read their split twice in
//! Unitxt; here they collect it once, when first pulled.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result, ResultExt};
use crate::expr::Expression;
use crate::operators::{Operator, StreamOperator};
use crate::stream::StreamScope;
use crate::py::random::{new_random_generator, PyRandom};
use crate::py::repr::repr;
use crate::stream::{chain_lazy, error_stream, Thunk};
use crate::stream::{MultiStream, Stream};
use crate::py::dict_path::{dict_get, dict_get_opt};
use crate::value::{truthy, Instance, Value};

fn yes() -> bool {
    true
}

// ---------------------------------------------------------------------------------------------
// Python value semantics used by the filters
// ---------------------------------------------------------------------------------------------
enum Num {
    Int(i128),
    Float(f64),
}

fn as_num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(*b as i128)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(Num::Int(i as i128))
            } else if let Some(u) = n.as_u64() {
                Some(Num::Int(u as i128))
            } else {
                n.as_f64().map(Num::Float)
            }
        }
        _ => None,
    }
}

fn num_cmp(a: &Num, b: &Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(y)),
        (Num::Int(x), Num::Float(y)) => (*x as f64).partial_cmp(y),
        (Num::Float(x), Num::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(y),
    }
}

/// Python `a == b` on JSON-like values (`1 == 1.0 == True`; dicts compare regardless of order).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        return num_cmp(&x, &y) == Some(Ordering::Equal);
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

/// Python's ordering of `a` and `b` (numbers, strings, lists); a `TypeError`-like error for
/// other pairs, naming `op`.
pub fn py_order(a: &Value, b: &Value, op: &str) -> Result<Ordering> {
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        return num_cmp(&x, &y).ok_or_else(|| Error::invalid("cannot order NaN"));
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.as_str().cmp(y.as_str())),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_order(p, q, op);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        _ => Err(Error::invalid(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            crate::py::repr::type_name(a),
            crate::py::repr::type_name(b)
        ))),
    }
}

/// Python `needle in haystack` for a list, a dict (key membership) or a string (substring).
pub fn py_in(needle: &Value, haystack: &Value) -> Result<bool> {
    match haystack {
        Value::Array(a) => Ok(a.iter().any(|x| py_eq(needle, x))),
        Value::Object(m) => match needle {
            Value::String(s) => Ok(m.contains_key(s)),
            Value::Array(_) | Value::Object(_) => {
                Err(Error::invalid(format!("unhashable type: '{}'", crate::py::repr::type_name(needle))))
            }
            _ => Ok(false),
        },
        Value::String(h) => match needle {
            Value::String(s) => Ok(h.contains(s.as_str())),
            _ => Err(Error::invalid(format!("'in <string>' requires string as left operand, not {}", crate::py::repr::type_name(needle)))),
        },
        _ => Err(Error::invalid(format!("argument of type '{}' is not iterable", crate::py::repr::type_name(haystack)))),
    }
}

/// `str(tuple(values))` as Python prints it: Unitxt's signature of an instance by fields.
fn tuple_str(values: &[&Value]) -> String {
    let mut out = String::with_capacity(64);
    out.push('(');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        crate::py::repr::write_repr(v, &mut out);
    }
    out.push_str(if values.len() == 1 { ",)" } else { ")" });
    out
}

fn signature_by(instance: &Instance, fields: &[String]) -> Result<String> {
    let mut vals = Vec::with_capacity(fields.len());
    for f in fields {
        vals.push(dict_get(instance, f)?);
    }
    Ok(tuple_str(&vals.iter().map(|v| &**v).collect::<Vec<&Value>>()))
}

// ---------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------

type Predicate = Box<dyn FnMut(&Instance) -> Result<bool> + Send>;

/// A lazy filter that, when asked to, fails at the end of a split it emptied.
struct FilterStream {
    src: Stream,
    pred: Predicate,
    yielded: bool,
    finished: bool,
    error_on_filtered_all: bool,
    who: &'static str,
    split: String,
    /// The index in the split of the next instance the predicate sees, for error locations.
    index: usize,
}

impl Iterator for FilterStream {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        loop {
            match self.src.next() {
                Some(Ok(inst)) => match {
                    let (pred, i) = (&mut self.pred, self.index);
                    self.index += 1;
                    crate::stream::catch_panic(|| pred(&inst)).map_err(|e| e.at_instance(&self.split, i))
                } {
                    Ok(true) => {
                        self.yielded = true;
                        return Some(Ok(inst));
                    }
                    Ok(false) => continue,
                    Err(e) => {
                        self.finished = true;
                        return Some(Err(e));
                    }
                },
                Some(Err(e)) => {
                    self.finished = true;
                    return Some(Err(e));
                }
                None => {
                    self.finished = true;
                    if !self.yielded && self.error_on_filtered_all {
                        return Some(Err(Error::invalid(format!(
                            "{} filtered out every instance in stream '{}'. If this is intended set \
                             error_on_filtered_all=False",
                            self.who, self.split
                        ))));
                    }
                    return None;
                }
            }
        }
    }
}

fn filter_stream(src: Stream, pred: Predicate, error_on_filtered_all: bool, who: &'static str, split: &str) -> Stream {
    Box::new(FilterStream {
        src,
        pred,
        yielded: false,
        finished: false,
        error_on_filtered_all,
        who,
        split: split.to_string(),
        index: 0,
    })
}

const CONDITIONS: [&str; 9] = ["gt", "ge", "lt", "le", "eq", "ne", "in", "not in", "exists"];

/// Whether `a <condition> b` holds (for the comparison conditions and `in` / `not in`).
fn compare(condition: &str, a: &Value, b: &Value) -> Result<bool> {
    let ord = |op: &str| py_order(a, b, op);
    Ok(match condition {
        "gt" => ord(">")? == Ordering::Greater,
        "ge" => ord(">=")? != Ordering::Less,
        "lt" => ord("<")? == Ordering::Less,
        "le" => ord("<=")? != Ordering::Greater,
        "eq" => py_eq(a, b),
        "ne" => !py_eq(a, b),
        "in" => py_in(a, b)?,
        "not in" => !py_in(a, b)?,
        other => return Err(Error::invalid(format!("Function not defined for condition '{other}'"))),
    })
}

fn check_condition(condition: &str) -> Result<()> {
    if CONDITIONS.contains(&condition) {
        Ok(())
    } else {
        Err(Error::invalid(format!("Unsupported condition operator '{condition}', supported {CONDITIONS:?}")))
    }
}

/// Unitxt's `FilterByCondition`: keeps the instances whose field values (paths such as `a/b/0`
/// allowed) stand in `condition` (`gt ge lt le eq ne in`, `not in`, `exists`) to the values in
/// `values`, all of them. With `exists`, only the first entry is looked at: it keeps the
/// instance when the field's presence equals the entry's boolean. Errors: a missing field
/// (other than with `exists`), incomparable values, and, with `error_on_filtered_all`
/// (default), a split left empty.
#[derive(Debug, Clone, Deserialize)]
pub struct FilterByCondition {
    /// `values`: field path to the value it is compared with.
    pub values: IndexMap<String, Value>,
    /// `condition`: the comparison: `gt`, `ge`, `lt`, `le`, `eq`, `ne`, `in`, `not in` or `exists`.
    pub condition: String,
    /// `error_on_filtered_all`: a split left empty is an error (default true).
    #[serde(default = "yes")]
    pub error_on_filtered_all: bool,
}

impl FilterByCondition {
    fn verify(&self) -> Result<()> {
        check_condition(&self.condition)?;
        for (k, v) in &self.values {
            if self.condition == "in" && !v.is_array() {
                return Err(Error::invalid(format!(
                    "The filter for key ('{k}') in FilterByCondition with condition 'in' must be list but is not : \
                     '{}'",
                    crate::py::repr::str(v)
                )));
            }
            if self.condition == "exists" && !v.is_boolean() {
                return Err(Error::invalid(format!(
                    "For condition 'exists', the value for key ('{k}') in FilterByCondition must be boolean. But is \
                     not : '{}'",
                    crate::py::repr::str(v)
                )));
            }
        }
        Ok(())
    }

    /// Whether `instance` passes the filter.
    pub fn is_required(&self, instance: &Instance) -> Result<bool> {
        for (key, value) in &self.values {
            let found = dict_get_opt(instance, key).unwrap_or(None);
            if self.condition == "exists" {
                return Ok(found.is_some() == value.as_bool().unwrap_or(false));
            }
            let found = found.ok_or_else(|| {
                Error::not_found(format!(
                    "Required filter field ('{key}') in FilterByCondition is not found in instance."
                ))
            })?;
            if !compare(&self.condition, &found, value)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl StreamOperator for FilterByCondition {
    fn fields_read(&self) -> super::FieldsRead {
        super::FieldsRead::of_paths(self.values.keys().map(|f| f.as_str()))
    }

    fn process_stream(self: Arc<Self>, stream: Stream, split: &str) -> Result<Stream> {
        self.verify()?;
        let me = self.clone();
        let pred: Predicate = Box::new(move |i| me.is_required(i));
        Ok(filter_stream(stream, pred, self.error_on_filtered_all, "FilterByCondition", split))
    }
}

/// Unitxt's `FilterByConditionBasedOnFields`: like [`FilterByCondition`], but each entry of
/// `values` names a second field, and the instance's two fields are compared.
#[derive(Debug, Clone, Deserialize)]
pub struct FilterByConditionBasedOnFields {
    /// `values`: field path to the path of the field it is compared with.
    pub values: IndexMap<String, String>,
    /// `condition`: the comparison, as for `filter_by_condition`.
    pub condition: String,
    /// `error_on_filtered_all`: a split left empty is an error (default true).
    #[serde(default = "yes")]
    pub error_on_filtered_all: bool,
}

impl FilterByConditionBasedOnFields {
    fn is_required(&self, instance: &Instance) -> Result<bool> {
        let get = |f: &str| {
            dict_get_opt(instance, f).unwrap_or(None).ok_or_else(|| {
                Error::not_found(format!("Required filter field ('{f}') in FilterByCondition is not found in instance"))
            })
        };
        for (key, other) in &self.values {
            let a = get(key)?;
            let b = get(other)?;
            if !compare(&self.condition, &a, &b)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl StreamOperator for FilterByConditionBasedOnFields {
    fn process_stream(self: Arc<Self>, stream: Stream, split: &str) -> Result<Stream> {
        check_condition(&self.condition)?;
        let me = self.clone();
        let pred: Predicate = Box::new(move |i| me.is_required(i));
        Ok(filter_stream(stream, pred, self.error_on_filtered_all, "FilterByConditionBasedOnFields", split))
    }
}

/// Unitxt's `FilterByExpression`: keeps the instances for which the Python `expression`,
/// evaluated with the instance's fields as variables by the sandboxed evaluator, is truthy.
/// `imports_list` names modules the expression uses; the sandbox provides the modules it
/// allows by itself, so the list is accepted and not otherwise used. Errors: a syntax error
/// (when the operator is applied), an evaluation error, and, with `error_on_filtered_all`
/// (default), a split left empty.
#[derive(Debug, Clone, Deserialize)]
pub struct FilterByExpression {
    /// `expression`: the Python expression, over the instance's fields as variables.
    pub expression: String,
    /// `imports_list`: module names; accepted and unused (the sandbox provides its own modules).
    #[serde(default)]
    pub imports_list: Vec<String>,
    /// `error_on_filtered_all`: a split left empty is an error (default true).
    #[serde(default = "yes")]
    pub error_on_filtered_all: bool,
}

impl StreamOperator for FilterByExpression {
    /// The names in the expression: the only way it can reach a field.
    fn fields_read(&self) -> super::FieldsRead {
        match Expression::parse(&self.expression) {
            Ok(e) => super::FieldsRead::Only(e.names()),
            Err(_) => super::FieldsRead::Any,
        }
    }

    fn process_stream(self: Arc<Self>, stream: Stream, split: &str) -> Result<Stream> {
        let expr =
            Arc::new(Expression::parse(&self.expression).with_ctx(|| format!("expression {:?}", self.expression))?);
        let src = self.expression.clone();
        let pred: Predicate =
            Box::new(move |i| expr.eval(i).map(|v| truthy(&v)).with_ctx(|| format!("evaluating expression {src:?}")));
        Ok(filter_stream(stream, pred, self.error_on_filtered_all, "FilterByExpression", split))
    }
}

// ---------------------------------------------------------------------------------------------
// Refiners and balancers
// ---------------------------------------------------------------------------------------------

/// Unitxt's `StreamRefiner`: keeps the first `max_instances` instances (all when absent). The
/// recipe sets `max_instances` and `apply_to_streams` of its train/validation/test refiners.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct StreamRefiner {
    /// `max_instances`: how many instances are kept, from the start (absent: all).
    #[serde(default)]
    pub max_instances: Option<usize>,
}

impl StreamOperator for StreamRefiner {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        Ok(match self.max_instances {
            Some(n) => Box::new(stream.take(n)),
            None => stream,
        })
    }
}

/// Collects `stream` when first pulled, then yields `f(instances)`.
fn on_whole(stream: Stream, f: impl FnOnce(Vec<Instance>) -> Result<Vec<Instance>> + Send + 'static) -> Stream {
    let t: Thunk = Box::new(move || match stream.collect::<Result<Vec<_>>>().and_then(f) {
        Ok(v) => Box::new(v.into_iter().map(Ok)),
        Err(e) => error_stream(e),
    });
    chain_lazy(vec![t])
}

/// Keeps, for each signature, at most `per_sign` instances, in stream order. `per_sign` is the
/// count of the rarest signature, lowered to `max_instances / number of signatures`.
fn balance(
    items: Vec<Instance>,
    max_instances: Option<usize>,
    sig: impl Fn(&Instance) -> Result<String>,
) -> Result<Vec<Instance>> {
    let sigs = items.iter().map(&sig).collect::<Result<Vec<_>>>()?;
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in &sigs {
        *counts.entry(s.as_str()).or_insert(0) += 1;
    }
    let Some(lowest) = counts.values().min().copied() else { return Ok(Vec::new()) };
    let per_sign = match max_instances {
        Some(m) => lowest.min(m / counts.len()),
        None => lowest,
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (inst, s) in items.iter().zip(&sigs) {
        let c = seen.entry(s.as_str()).or_insert(0);
        if *c < per_sign {
            *c += 1;
            out.push(inst.clone());
        }
    }
    Ok(out)
}

/// Unitxt's `DeterministicBalancer` (and `Balance`): drops instances so that every signature
/// (the values of `fields`) has as many instances as the rarest one, and at most
/// `max_instances` in all; keeps the first ones in stream order. Errors on a missing field.
#[derive(Debug, Clone, Deserialize)]
pub struct DeterministicBalancer {
    /// `fields`: the field paths whose values make an instance's signature.
    pub fields: Vec<String>,
    /// `max_instances`: the most instances kept in all (absent: no limit beyond the balance).
    #[serde(default)]
    pub max_instances: Option<usize>,
}

impl StreamOperator for DeterministicBalancer {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let me = self.clone();
        Ok(on_whole(stream, move |items| balance(items, me.max_instances, |i| signature_by(i, &me.fields))))
    }
}

/// Python `len()` of a value: characters of a string, items of a list or dict.
fn py_len(v: &Value) -> Result<usize> {
    match v {
        Value::String(s) => Ok(s.chars().count()),
        Value::Array(a) => Ok(a.len()),
        Value::Object(m) => Ok(m.len()),
        other => Err(Error::invalid(format!("object of type '{}' has no len()", crate::py::repr::type_name(other)))),
    }
}

/// Unitxt's `LengthBalancer`: a [`DeterministicBalancer`] whose signature is the total length
/// of the `fields` values, bucketed by `segments_boundaries` (the index of the first boundary
/// above the length, or one past the last). Errors on a missing field, a value without a
/// length, or empty boundaries.
#[derive(Debug, Clone, Deserialize)]
pub struct LengthBalancer {
    /// `fields`: the field paths whose total length is bucketed.
    pub fields: Vec<String>,
    /// `segments_boundaries`: the length boundaries of the buckets, in order (at least one).
    pub segments_boundaries: Vec<i64>,
    /// `max_instances`: the most instances kept in all (absent: no limit beyond the balance).
    #[serde(default)]
    pub max_instances: Option<usize>,
}

impl LengthBalancer {
    fn signature(&self, instance: &Instance) -> Result<String> {
        let mut total = 0usize;
        for f in &self.fields {
            total += py_len(&*dict_get(instance, f)?)?;
        }
        if self.segments_boundaries.is_empty() {
            return Err(Error::invalid("length_balancer needs at least one segment boundary"));
        }
        let i = self.segments_boundaries.iter().position(|b| (total as i64) < *b);
        Ok(i.unwrap_or(self.segments_boundaries.len()).to_string())
    }
}

impl StreamOperator for LengthBalancer {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let me = self.clone();
        Ok(on_whole(stream, move |items| balance(items, me.max_instances, |i| me.signature(i))))
    }
}

/// Unitxt's `MinimumOneExamplePerLabelRefiner`: keeps the first instance of every signature
/// (values of `fields`), then the earliest others up to `max_instances`, and shuffles the
/// selection with a generator seeded by the selection itself (the md5 of Python's `str()` of
/// the list of selected instances). As in Unitxt, without `max_instances` the split is yielded
/// as is and then once more, shuffled. Errors when `max_instances` is below the number of
/// signatures, or a field is missing.
#[derive(Debug, Clone, Deserialize)]
pub struct MinimumOneExamplePerLabelRefiner {
    /// `fields`: the field paths whose values make an instance's signature.
    pub fields: Vec<String>,
    /// `max_instances`: how many instances are kept (absent: all, yielded twice as in Unitxt).
    #[serde(default)]
    pub max_instances: Option<usize>,
    /// Set by a recipe that runs this as its `*_refiner`: what Unitxt's instances hold at that
    /// point and ours do not, so that the seed is the same text (see [`RefinerSeedContext`]).
    /// Not a catalog field.
    #[serde(skip)]
    pub seed_context: Option<Arc<RefinerSeedContext>>,
}

/// What an instance holds in Unitxt when a recipe's refiners run, beyond the fields the
/// engine's instance has then (Unitxt's `DatasetRecipe` pipeline): `metrics` (the task's, set
/// by the task, right after `input_fields`), `recipe_metadata` holding the system prompt and
/// format objects (printed by Python as their catalog names, or their dataclass `repr`), and,
/// when the recipe uses demos, `_demos_pool_` (the pool's instances, last). Used to write
/// Python's `str()` of instances as Unitxt seeds from it.
#[derive(Debug)]
pub struct RefinerSeedContext {
    /// The task's `metrics` list.
    pub metrics: Value,
    /// Python's `repr` of the `recipe_metadata` dict (`{'system_prompt': ..., 'format': ...}`).
    pub recipe_metadata: String,
    /// Python's `repr` of the `_demos_pool_` list (each item written as [`Self::write_instance`]
    /// writes instances); `None` without demos.
    pub demos_pool: Option<String>,
}

impl RefinerSeedContext {
    /// Appends Python's `repr` of `inst` (a task's output, which always carries
    /// `recipe_metadata`) as Unitxt holds it: its fields in order, with `metrics` after
    /// `input_fields` when absent, `recipe_metadata` as [`Self::recipe_metadata`], and
    /// `_demos_pool_` at the end when `with_pool`.
    pub fn write_instance(&self, inst: &Instance, with_pool: bool, out: &mut String) {
        let mut first = true;
        let mut item = |k: &str, out: &mut String| {
            if !first {
                out.push_str(", ");
            }
            first = false;
            crate::py::repr::write_str_repr(k, out);
            out.push_str(": ");
        };
        out.push('{');
        for (k, v) in inst.iter() {
            item(k, out);
            if k == "recipe_metadata" {
                out.push_str(&self.recipe_metadata);
            } else {
                crate::py::repr::write_repr(v, out);
            }
            if k == "input_fields" && !inst.contains_key("metrics") {
                item("metrics", out);
                crate::py::repr::write_repr(&self.metrics, out);
            }
        }
        if let (true, Some(pool)) = (with_pool, &self.demos_pool) {
            item("_demos_pool_", out);
            out.push_str(pool);
        }
        out.push('}');
    }

    /// Python's `repr` of the list of `items`, each as [`Self::write_instance`] writes it (with
    /// the pool when `with_pool`; a demos pool itself is written without).
    pub fn list_repr(&self, items: &[Instance], with_pool: bool) -> String {
        let mut out = String::from("[");
        for (i, inst) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write_instance(inst, with_pool, &mut out);
        }
        out.push(']');
        out
    }
}

impl MinimumOneExamplePerLabelRefiner {
    fn select(&self, items: &[Instance]) -> Result<Vec<Instance>> {
        let sigs = items.iter().map(|i| signature_by(i, &self.fields)).collect::<Result<Vec<_>>>()?;
        let distinct: HashSet<&str> = sigs.iter().map(|s| s.as_str()).collect();
        if distinct.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(m) = self.max_instances {
            if distinct.len() > m {
                return Err(Error::invalid(format!(
                    "Can not generate a stream with at least one example per label, because the max instances \
                     requested  {m} is smaller than the number of different labels {n} ({n}",
                    n = distinct.len()
                )));
            }
        }
        let mut used = vec![false; items.len()];
        let mut n_used = 0usize;
        let mut seen: HashSet<&str> = HashSet::new();
        let mut selected: Vec<Instance> = Vec::new();
        for (idx, s) in sigs.iter().enumerate() {
            if seen.insert(s.as_str()) {
                used[idx] = true;
                n_used += 1;
                selected.push(items[idx].clone());
            }
        }
        for (idx, inst) in items.iter().enumerate() {
            if !used[idx] && self.max_instances.is_none_or(|m| n_used < m) {
                used[idx] = true;
                n_used += 1;
                selected.push(inst.clone());
            }
        }
        let mut rng = match &self.seed_context {
            Some(ctx) => crate::py::random::new_random_generator_for_repr(&ctx.list_repr(&selected, true)),
            None => new_random_generator(&Value::Array(selected.iter().cloned().map(Value::Object).collect())),
        };
        rng.shuffle(&mut selected);
        Ok(selected)
    }
}

impl StreamOperator for MinimumOneExamplePerLabelRefiner {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let me = self.clone();
        Ok(on_whole(stream, move |items| {
            let selected = me.select(&items)?;
            if me.max_instances.is_none() {
                let mut all = items;
                all.extend(selected);
                return Ok(all);
            }
            Ok(selected)
        }))
    }

    /// A copy seeded from the recipe's context: Unitxt seeds from `str()` of the selected
    /// instances, which hold objects the engine keeps in another form.
    fn as_recipe_refiner(&self, seed_context: &super::SeedContextFn<'_>) -> Result<Option<Arc<dyn StreamOperator>>> {
        Ok(Some(Arc::new(MinimumOneExamplePerLabelRefiner { seed_context: Some(seed_context()?), ..self.clone() })))
    }
}

/// Unitxt's `Deduplicate`: keeps the first instance of each combination of the values of
/// `by` (compared as Python prints them). Errors on a missing field.
#[derive(Debug, Clone, Deserialize)]
pub struct Deduplicate {
    /// `by`: the field paths whose values identify duplicates.
    pub by: Vec<String>,
}

impl StreamOperator for Deduplicate {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let mut seen: HashSet<String> = HashSet::new();
        let me = self.clone();
        Ok(Box::new(stream.filter_map(move |r| match r {
            Err(e) => Some(Err(e)),
            Ok(inst) => match signature_by(&inst, &me.by) {
                Err(e) => Some(Err(e)),
                Ok(sig) => seen.insert(sig).then_some(Ok(inst)),
            },
        })))
    }

    fn fields_read(&self) -> super::FieldsRead {
        super::FieldsRead::of_paths(self.by.iter().map(|f| f.as_str()))
    }
}

/// Unitxt's `AddIncrementalId`: sets top-level field `to_field` to the instance's 0-based
/// position in its split.
#[derive(Debug, Clone, Deserialize)]
pub struct AddIncrementalId {
    /// `to_field`: the top-level field that receives the position.
    pub to_field: String,
}

impl StreamOperator for AddIncrementalId {
    fn fields_read(&self) -> super::FieldsRead {
        super::FieldsRead::of_paths([self.to_field.as_str()])
    }

    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let me = self.clone();
        Ok(Box::new(stream.enumerate().map(move |(i, r)| {
            let mut inst = r?;
            inst.insert(me.to_field.as_str().into(), Value::from(i as u64));
            Ok(inst)
        })))
    }
}

/// Unitxt's `DuplicateInstances`: repeats each instance `num_duplications` times, adding the
/// repetition's index in `duplication_index_field` when given. Errors when
/// `num_duplications` < 1.
#[derive(Debug, Clone, Deserialize)]
pub struct DuplicateInstances {
    /// `num_duplications`: how many times each instance appears (at least 1).
    pub num_duplications: i64,
    /// `duplication_index_field`: the top-level field that receives the repetition's 0-based index
    /// (absent: none is written).
    #[serde(default)]
    pub duplication_index_field: Option<String>,
}

impl StreamOperator for DuplicateInstances {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        if self.num_duplications < 1 {
            return Err(Error::invalid(format!(
                "num_duplications must be an integer equal to or greater than 1. Got: {}.",
                self.num_duplications
            )));
        }
        let me = self.clone();
        Ok(Box::new(stream.flat_map(move |r| -> Vec<Result<Instance>> {
            match r {
                Err(e) => vec![Err(e)],
                Ok(inst) => (0..me.num_duplications)
                    .map(|k| {
                        let mut d = inst.clone();
                        if let Some(f) = me.duplication_index_field.as_deref().filter(|f| !f.is_empty()) {
                            d.insert(f.into(), Value::from(k));
                        }
                        Ok(d)
                    })
                    .collect(),
            }
        })))
    }
}

// ---------------------------------------------------------------------------------------------
// Shuffle
// ---------------------------------------------------------------------------------------------

fn default_page_size() -> usize {
    1000
}

/// Unitxt's `Shuffle`: cuts each split into pages of `page_size` instances and shuffles each
/// page. One generator, seeded with `"shuffle"`, is created per application of the operator
/// and shared by all its splits and pages, in the order they are pulled (as in Unitxt, where
/// the splits are read lazily).
#[derive(Debug, Clone, Deserialize)]
pub struct Shuffle {
    /// Which splits it shuffles (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
    /// `page_size`: how many instances are shuffled together (default 1000).
    #[serde(default = "default_page_size")]
    pub page_size: usize,
}

struct ShuffleStream {
    src: Stream,
    page: VecDeque<Instance>,
    rng: Arc<Mutex<PyRandom>>,
    page_size: usize,
    failed: bool,
}

impl Iterator for ShuffleStream {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(i) = self.page.pop_front() {
            return Some(Ok(i));
        }
        if self.failed {
            return None;
        }
        let mut page = Vec::new();
        while page.len() < self.page_size.max(1) {
            match self.src.next() {
                Some(Ok(i)) => page.push(i),
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                None => break,
            }
        }
        if page.is_empty() {
            return None;
        }
        match self.rng.lock() {
            Ok(mut rng) => rng.shuffle(&mut page),
            Err(_) => {
                self.failed = true;
                return Some(Err(Error::invalid("shuffle generator is poisoned")));
            }
        }
        self.page = page.into();
        self.page.pop_front().map(Ok)
    }
}

impl Operator for Shuffle {
    /// Instances are shuffled by a generator seeded with a constant, never by their content.
    fn fields_read(&self) -> super::FieldsRead {
        super::FieldsRead::Only(Vec::new())
    }

    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let rng = Arc::new(Mutex::new(new_random_generator(&Value::String("shuffle".into()))));
        Ok(ms.map_streams(|split, s| {
            if !self.scope.applies(split) {
                return s;
            }
            Box::new(ShuffleStream {
                src: s,
                page: VecDeque::new(),
                rng: rng.clone(),
                page_size: self.page_size,
                failed: false,
            })
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// Multi-stream operators
// ---------------------------------------------------------------------------------------------

/// Unitxt's `DeleteSplits`: drops the named splits (names that do not exist are ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct DeleteSplits {
    /// `splits`: the names of the splits dropped.
    pub splits: Vec<String>,
}

impl Operator for DeleteSplits {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        ms.streams.retain(|k, _| !self.splits.contains(k));
        Ok(ms)
    }
}

struct TeeState {
    src: Stream,
    bufs: [VecDeque<Result<Instance>>; 2],
    alive: [bool; 2],
    done: bool,
}

/// One of the two copies of a stream made by [`tee`].
struct TeeHalf {
    st: Arc<Mutex<TeeState>>,
    side: usize,
}

impl Iterator for TeeHalf {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Self::Item> {
        let mut st = match self.st.lock() {
            Ok(g) => g,
            Err(_) => return Some(Err(Error::invalid("duplicated split state is poisoned"))),
        };
        if let Some(x) = st.bufs[self.side].pop_front() {
            return Some(x);
        }
        if st.done {
            return None;
        }
        match st.src.next() {
            Some(x) => {
                let other = 1 - self.side;
                if st.alive[other] {
                    st.bufs[other].push_back(x.clone());
                }
                Some(x)
            }
            None => {
                st.done = true;
                None
            }
        }
    }
}

impl Drop for TeeHalf {
    fn drop(&mut self) {
        if let Ok(mut st) = self.st.lock() {
            st.alive[self.side] = false;
            st.bufs[self.side].clear();
        }
    }
}

/// Two independent copies of `s`; what one copy has read and the other not yet is buffered.
pub fn tee(s: Stream) -> (Stream, Stream) {
    let st = Arc::new(Mutex::new(TeeState {
        src: s,
        bufs: [VecDeque::new(), VecDeque::new()],
        alive: [true; 2],
        done: false,
    }));
    (Box::new(TeeHalf { st: st.clone(), side: 0 }), Box::new(TeeHalf { st, side: 1 }))
}

/// Unitxt's `DuplicateSplit`: adds (or replaces) split `to_split` with a copy of `split`.
/// Errors when `split` does not exist.
#[derive(Debug, Clone, Deserialize)]
pub struct DuplicateSplit {
    /// `split`: the split copied.
    pub split: String,
    /// `to_split`: the name of the copy.
    pub to_split: String,
}

impl Operator for DuplicateSplit {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let names = ms.names();
        let slot = ms.streams.get_mut(&self.split).ok_or_else(|| {
            Error::not_found(format!("duplicate_split: split {:?} is not in the splits {names:?}", self.split))
        })?;
        let s = std::mem::replace(slot, Box::new(std::iter::empty()));
        let (a, b) = tee(s);
        *slot = a;
        ms.streams.insert(self.to_split.clone(), b);
        Ok(ms)
    }
}

fn default_all() -> String {
    "all".into()
}

fn default_origin() -> String {
    "origin".into()
}

/// Unitxt's `MergeStreams`: one split, `new_stream_name` (default `all`), made of the splits
/// named in `streams_to_merge` (all when absent) one after the other, in the multi-stream's
/// order; with `add_origin_stream_name` (default) each instance records its split's name in
/// top-level field `origin_stream_name_field_name` (default `origin`). Other splits are dropped.
#[derive(Debug, Clone, Deserialize)]
pub struct MergeStreams {
    /// `streams_to_merge`: the splits merged (absent: all).
    #[serde(default)]
    pub streams_to_merge: Option<Vec<String>>,
    /// `new_stream_name`: the merged split's name (default `all`).
    #[serde(default = "default_all")]
    pub new_stream_name: String,
    /// `add_origin_stream_name`: record each instance's split name (default true).
    #[serde(default = "yes")]
    pub add_origin_stream_name: bool,
    /// `origin_stream_name_field_name`: the top-level field that receives it (default `origin`).
    #[serde(default = "default_origin")]
    pub origin_stream_name_field_name: String,
}

impl Operator for MergeStreams {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let mut parts: Vec<Stream> = Vec::new();
        for (name, s) in ms.streams {
            if self.streams_to_merge.as_ref().is_some_and(|l| !l.contains(&name)) {
                continue;
            }
            if self.add_origin_stream_name {
                let field = self.origin_stream_name_field_name.clone();
                parts.push(Box::new(s.map(move |r| {
                    let mut inst = r?;
                    inst.insert(field.as_str().into(), Value::String(name.as_str().into()));
                    Ok(inst)
                })));
            } else {
                parts.push(s);
            }
        }
        let mut out = MultiStream::new();
        out.streams.insert(self.new_stream_name.clone(), Box::new(parts.into_iter().flatten()));
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// JoinStreams (a pandas `merge` of two splits)
// ---------------------------------------------------------------------------------------------

/// Unitxt's `JoinStreams`: joins splits `left_stream` and `right_stream` like pandas
/// `merge(how=..., on=..., left_on=..., right_on=...)` and adds the result as split
/// `new_stream_name` (both inputs stay). Supported: `inner`, `left`, `right`, `cross`
/// (pandas row order: left rows in order with their right matches in right order; `right`
/// the other way round). Columns present on both sides and not joined on get the suffixes
/// `_x` and `_y`; the metadata fields `data_classification_policy` and `recipe_metadata` must
/// agree on both sides and are kept once, last. Values pandas would turn into floats (a
/// column mixing ints and floats, or with missing entries) become floats; missing entries,
/// NaN in pandas, are `null` here. Errors: `outer`, a missing split or column, disagreeing
/// metadata, an empty result.
#[derive(Debug, Clone, Deserialize)]
pub struct JoinStreams {
    /// `left_stream`: the left split's name.
    pub left_stream: String,
    /// `right_stream`: the right split's name.
    pub right_stream: String,
    /// `how`: the join kind: `inner`, `left`, `right` or `cross`.
    pub how: String,
    /// `on`: the fields joined on, present on both sides.
    #[serde(default, deserialize_with = "one_or_many")]
    pub on: Option<Vec<String>>,
    /// `left_on`: the left side's join fields (with `right_on`, in place of `on`).
    #[serde(default, deserialize_with = "one_or_many")]
    pub left_on: Option<Vec<String>>,
    /// `right_on`: the right side's join fields.
    #[serde(default, deserialize_with = "one_or_many")]
    pub right_on: Option<Vec<String>>,
    /// `new_stream_name`: the name of the split that receives the result.
    pub new_stream_name: String,
}

/// A list of field names, or one name standing for a list of it (pandas' `merge` takes either;
/// Unitxt's catalog writes `"on": "id"`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(Option::<OneOrMany>::deserialize(d)?.map(|v| match v {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    }))
}

/// A pandas-like frame: column names in order of first appearance, rows with missing cells.
struct Frame {
    cols: Vec<String>,
    rows: Vec<Vec<Option<Value>>>,
}

fn is_float(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.is_f64())
}

fn is_plain_number(v: &Value) -> bool {
    matches!(v, Value::Number(_))
}

/// Turns ints into floats in columns pandas would store as float64.
fn coerce_floats(cols: usize, rows: &mut [Vec<Option<Value>>]) {
    for c in 0..cols {
        let cells = || rows.iter().map(move |r| &r[c]);
        let present: Vec<&Value> = cells().flatten().collect();
        let numeric = !present.is_empty() && present.iter().all(|v| is_plain_number(v));
        let missing = cells().any(|v| v.is_none());
        if numeric && (missing || present.iter().any(|v| is_float(v))) {
            for r in rows.iter_mut() {
                if let Some(v) = &r[c] {
                    if let Some(f) = v.as_f64() {
                        r[c] = crate::value::Number::from_f64(f).map(Value::Number);
                    }
                }
            }
        }
    }
}

fn frame(items: &[Instance]) -> Frame {
    let mut cols: IndexMap<String, ()> = IndexMap::new();
    for i in items {
        for k in i.keys() {
            cols.entry(k.to_string()).or_insert(());
        }
    }
    let cols: Vec<String> = cols.into_keys().collect();
    let mut rows: Vec<Vec<Option<Value>>> =
        items.iter().map(|i| cols.iter().map(|c| i.get(c).cloned()).collect()).collect();
    coerce_floats(cols.len(), &mut rows);
    Frame { cols, rows }
}

/// A hashable join key: numbers compare by value, as pandas compares them.
fn key_of(row: &[Option<Value>], idx: &[usize]) -> Option<String> {
    let mut parts = Vec::new();
    for &i in idx {
        let v = row[i].as_ref()?;
        let s = match v {
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
                _ => n.to_string(),
            },
            other => repr(other),
        };
        parts.push(s);
    }
    Some(parts.join("\u{1}"))
}

impl JoinStreams {
    fn merge(&self, left: &[Instance], right: &[Instance]) -> Result<Vec<Instance>> {
        let (lf, rf) = (frame(left), frame(right));
        let (lkeys, rkeys): (Vec<String>, Vec<String>) = match (&self.on, &self.left_on, &self.right_on) {
            _ if self.how == "cross" => (vec![], vec![]),
            (Some(on), None, None) => (on.clone(), on.clone()),
            (None, Some(l), Some(r)) if l.len() == r.len() => (l.clone(), r.clone()),
            (None, None, None) => {
                let common: Vec<String> = lf.cols.iter().filter(|c| rf.cols.contains(c)).cloned().collect();
                (common.clone(), common)
            }
            _ => {
                return Err(Error::invalid(
                    "join_streams: give either `on`, or both `left_on` and `right_on` of equal length",
                ))
            }
        };
        let find = |f: &Frame, c: &str, side: &str| {
            f.cols
                .iter()
                .position(|x| x == c)
                .ok_or_else(|| Error::not_found(format!("join_streams: no column {c:?} in the {side} split")))
        };
        let lidx = lkeys.iter().map(|c| find(&lf, c, "left")).collect::<Result<Vec<_>>>()?;
        let ridx = rkeys.iter().map(|c| find(&rf, c, "right")).collect::<Result<Vec<_>>>()?;
        // Keys joined under one name appear once (from the left); others are suffixed on clash.
        let shared_keys: Vec<&String> = lkeys.iter().zip(&rkeys).filter(|(a, b)| a == b).map(|(a, _)| a).collect();
        let mut out_cols: Vec<(String, usize, bool)> = Vec::new(); // (name, column, from_left)
        for (i, c) in lf.cols.iter().enumerate() {
            let clash = rf.cols.contains(c) && !shared_keys.contains(&c);
            out_cols.push((if clash { format!("{c}_x") } else { c.clone() }, i, true));
        }
        for (i, c) in rf.cols.iter().enumerate() {
            if shared_keys.contains(&c) {
                continue;
            }
            let clash = lf.cols.contains(c);
            out_cols.push((if clash { format!("{c}_y") } else { c.clone() }, i, false));
        }
        let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
        match self.how.as_str() {
            "cross" => {
                for l in 0..lf.rows.len() {
                    for r in 0..rf.rows.len() {
                        pairs.push((Some(l), Some(r)));
                    }
                }
            }
            "inner" | "left" | "right" => {
                let (outer_f, outer_i, inner_f, inner_i, left_major) =
                    if self.how == "right" { (&rf, &ridx, &lf, &lidx, false) } else { (&lf, &lidx, &rf, &ridx, true) };
                let mut index: HashMap<String, Vec<usize>> = HashMap::new();
                for (j, row) in inner_f.rows.iter().enumerate() {
                    if let Some(k) = key_of(row, inner_i) {
                        index.entry(k).or_default().push(j);
                    }
                }
                for (i, row) in outer_f.rows.iter().enumerate() {
                    let matches = key_of(row, outer_i).and_then(|k| index.get(&k));
                    match matches {
                        Some(js) => {
                            for &j in js {
                                pairs.push(if left_major { (Some(i), Some(j)) } else { (Some(j), Some(i)) });
                            }
                        }
                        None if self.how != "inner" => {
                            pairs.push(if left_major { (Some(i), None) } else { (None, Some(i)) });
                        }
                        None => {}
                    }
                }
            }
            other => return Err(Error::unsupported(format!("join_streams: how={other:?} is not supported"))),
        }
        let mut rows: Vec<Vec<Option<Value>>> = pairs
            .iter()
            .map(|(l, r)| {
                out_cols
                    .iter()
                    .map(|(name, i, from_left)| {
                        let cell = if *from_left {
                            l.and_then(|l| lf.rows[l][*i].clone())
                        } else {
                            r.and_then(|r| rf.rows[r][*i].clone())
                        };
                        // A shared key of an unmatched right row comes from the right.
                        if cell.is_none() && *from_left && shared_keys.contains(&name) {
                            let ri = rkeys.iter().position(|k| k == name).map(|p| ridx[p]);
                            return r.zip(ri).and_then(|(r, ri)| rf.rows[r][ri].clone());
                        }
                        cell
                    })
                    .collect()
            })
            .collect();
        coerce_floats(out_cols.len(), &mut rows);
        let mut names: Vec<String> = out_cols.into_iter().map(|c| c.0).collect();
        for common in ["data_classification_policy", "recipe_metadata"] {
            let (cx, cy) = (format!("{common}_x"), format!("{common}_y"));
            let ix = names
                .iter()
                .position(|n| *n == cx)
                .ok_or_else(|| Error::not_found(format!("join_streams: no column '{cx}'")))?;
            let iy = names
                .iter()
                .position(|n| *n == cy)
                .ok_or_else(|| Error::not_found(format!("join_streams: no column '{cy}'")))?;
            let s = |v: &Option<Value>| v.as_ref().map(crate::py::repr::str).unwrap_or_else(|| "nan".into());
            if rows.iter().any(|r| s(&r[ix]) != s(&r[iy])) {
                return Err(Error::invalid(format!(
                    "'{common}' field is not identical in both left and right instances merged in JoinStreams."
                )));
            }
            for r in rows.iter_mut() {
                let v = r[ix].clone();
                r.push(v);
            }
            names.push(common.to_string());
            let (a, b) = if ix > iy { (ix, iy) } else { (iy, ix) };
            for r in rows.iter_mut() {
                r.remove(a);
                r.remove(b);
            }
            names.remove(a);
            names.remove(b);
        }
        if rows.is_empty() {
            return Err(Error::invalid(format!(
                "JoinStreams resulted in an empty stream. It means that that keys in fields '{}' on the left and on \
                 right streams do not match the merge policy of '{}'.",
                self.on.as_ref().map(|v| repr(&Value::from(v.clone()))).unwrap_or_else(|| "None".into()),
                self.how
            )));
        }
        Ok(rows
            .into_iter()
            .map(|r| names.iter().cloned().zip(r.into_iter().map(|v| v.unwrap_or(Value::Null))).collect())
            .collect())
    }
}

impl Operator for JoinStreams {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let names = ms.names();
        for s in [&self.left_stream, &self.right_stream] {
            if !ms.streams.contains_key(s) {
                return Err(Error::not_found(format!("join_streams: split {s:?} is not in the splits {names:?}")));
            }
        }
        let mut read = |name: &str| -> Result<Vec<Instance>> {
            let slot = ms.streams.get_mut(name).ok_or_else(|| Error::not_found(format!("split {name:?}")))?;
            let s = std::mem::replace(slot, Box::new(std::iter::empty()));
            let v: Vec<Instance> = s.collect::<Result<_>>()?;
            *slot = Box::new(v.clone().into_iter().map(Ok));
            Ok(v)
        };
        let left = read(&self.left_stream)?;
        let right = if self.right_stream == self.left_stream { left.clone() } else { read(&self.right_stream)? };
        let merged = self.merge(&left, &right)?;
        ms.streams.insert(self.new_stream_name.clone(), Box::new(merged.into_iter().map(Ok)));
        Ok(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn obj(v: Value) -> Instance {
        v.as_object().cloned().unwrap_or_default()
    }

    fn one(name: &str, items: Vec<Value>) -> MultiStream {
        let mut l = IndexMap::new();
        l.insert(name.to_string(), items.into_iter().map(obj).collect());
        MultiStream::from_lists(l)
    }

    fn ids_of(s: Stream) -> Vec<i64> {
        s.map(|r| r.unwrap()["id"].as_i64().unwrap_or(-1)).collect()
    }

    fn apply_stream<T: StreamOperator + 'static>(op: T, items: Vec<Value>) -> Vec<i64> {
        let s: Stream = Box::new(items.into_iter().map(obj).map(Ok).collect::<Vec<_>>().into_iter());
        ids_of(Arc::new(op).process_stream(s, "t").unwrap())
    }

    // All expected values below come from running the same Unitxt 1.26.10 operators in
    // /work/venv on the same inputs.

    /// A predicate that panics (a bug) ends the stream with an error located at its instance,
    /// not with the panic unwinding through the caller.
    #[test]
    fn a_panicking_filter_is_a_located_error() {
        let mut l = IndexMap::new();
        l.insert("test".to_string(), (0..3).map(|i| obj(json!({ "id": i }))).collect());
        let src = MultiStream::from_lists(l).take("test").unwrap();
        let pred: Predicate = Box::new(|i| if i["id"].as_i64() == Some(1) { panic!("boom") } else { Ok(true) });
        let got: Vec<Result<Instance>> = filter_stream(src, pred, true, "FilterByExpression", "test").collect();
        assert_eq!(got.len(), 2);
        let e = got[1].as_ref().err().expect("the panic is an error");
        assert!(e.message.contains("panicked"), "{e}");
        assert_eq!((e.location.split.as_deref(), e.location.instance), (Some("test"), Some(1)));
    }

    #[test]
    fn shuffle_pages_match_unitxt() {
        let mut l = IndexMap::new();
        l.insert("train".to_string(), (0..2500).map(|i| obj(json!({ "id": i }))).collect());
        l.insert("test".to_string(), (0..30).map(|i| obj(json!({ "id": i }))).collect());
        let op = Arc::new(Shuffle { scope: StreamScope::default(), page_size: 1000 });
        let mut out = op.process(MultiStream::from_lists(l)).unwrap();
        let tr = ids_of(out.take("train").unwrap());
        let te = ids_of(out.take("test").unwrap());
        assert_eq!(&tr[..8], &[219, 574, 790, 672, 680, 906, 752, 113]);
        assert_eq!(&tr[1000..1008], &[1939, 1935, 1558, 1088, 1130, 1259, 1349, 1008]);
        assert_eq!(&tr[2000..2008], &[2297, 2155, 2435, 2146, 2126, 2412, 2087, 2300]);
        // The test split continues the generator the train split used.
        assert_eq!(
            te,
            vec![
                9, 26, 25, 14, 12, 6, 18, 29, 13, 22, 20, 3, 19, 2, 0, 23, 28, 17, 8, 27, 15, 4, 24, 11, 7, 1, 10, 21,
                16, 5
            ]
        );

        let op = Arc::new(Shuffle { scope: StreamScope::default(), page_size: 7 });
        let mut out = op.process(one("test", (0..20).map(|i| json!({ "id": i })).collect())).unwrap();
        assert_eq!(
            ids_of(out.take("test").unwrap()),
            vec![5, 4, 1, 6, 2, 3, 0, 12, 11, 10, 13, 7, 9, 8, 15, 17, 16, 19, 18, 14]
        );
    }

    #[test]
    fn deduplicate_matches_unitxt() {
        let data = vec![
            json!({"id": 0, "q": "a", "c": [1, 2]}),
            json!({"id": 1, "q": "a", "c": [1, 2]}),
            json!({"id": 2, "q": "a", "c": [1, 2.0]}),
            json!({"id": 3, "q": "b", "c": [1, 2]}),
            json!({"id": 4, "q": "a", "c": [2, 1]}),
            json!({"id": 5, "q": "b", "c": [1, 2]}),
            json!({"id": 6, "q": "a", "c": [true, 2]}),
        ];
        assert_eq!(apply_stream(Deduplicate { by: vec!["q".into(), "c".into()] }, data.clone()), vec![0, 2, 3, 4, 6]);
        assert_eq!(apply_stream(Deduplicate { by: vec!["q".into()] }, data), vec![0, 3]);
    }

    #[test]
    fn filter_by_condition_matches_unitxt() {
        let data: Vec<Value> = (0..15)
            .map(|i| json!({"id": i, "a": i % 5, "b": {"c": (i % 3).to_string()}, "l": [i, i as f64 * 2.5]}))
            .collect();
        let cases = [
            (json!({"a": 2}), "gt", json!([3, 4, 8, 9, 13, 14])),
            (json!({"a": 2}), "ge", json!([2, 3, 4, 7, 8, 9, 12, 13, 14])),
            (json!({"a": 2.0}), "eq", json!([2, 7, 12])),
            (json!({"a": [1, 3]}), "in", json!([1, 3, 6, 8, 11, 13])),
            (json!({"a": [1, 3]}), "not in", json!([0, 2, 4, 5, 7, 9, 10, 12, 14])),
            (json!({"b/c": "1"}), "ne", json!([0, 2, 3, 5, 6, 8, 9, 11, 12, 14])),
            (json!({"b/c": "1", "a": 3}), "lt", json!([0, 6, 12])),
            (json!({"l/1": 10}), "le", json!([0, 1, 2, 3, 4])),
            (json!({"b/c": true}), "exists", json!((0..15).collect::<Vec<_>>())),
            (json!({"zz": false}), "exists", json!((0..15).collect::<Vec<_>>())),
            (json!({"a": true}), "eq", json!([1, 6, 11])),
        ];
        for (values, cond, expected) in cases {
            let op = FilterByCondition {
                values: values.as_object().cloned().unwrap_or_default().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                condition: cond.into(),
                error_on_filtered_all: false,
            };
            assert_eq!(json!(apply_stream(op, data.clone())), expected, "{values} {cond}");
        }
        // Emptying a split is an error by default; a missing field is an error.
        let op = Arc::new(FilterByCondition {
            values: [("a".to_string(), json!(9))].into_iter().collect(),
            condition: "gt".into(),
            error_on_filtered_all: true,
        });
        let s: Stream = Box::new(data.clone().into_iter().map(obj).map(Ok).collect::<Vec<_>>().into_iter());
        let out: Vec<_> = op.process_stream(s, "test").unwrap().collect();
        assert!(
            out.len() == 1
                && out[0].as_ref().is_err_and(|e| e.message.contains("filtered out every instance in stream 'test'"))
        );
        let op = Arc::new(FilterByCondition {
            values: [("zz".to_string(), json!(1))].into_iter().collect(),
            condition: "eq".into(),
            error_on_filtered_all: true,
        });
        let s: Stream = Box::new(data.clone().into_iter().map(obj).map(Ok).collect::<Vec<_>>().into_iter());
        assert!(op.process_stream(s, "t").unwrap().next().is_some_and(|r| r.is_err()));
        let op = Arc::new(FilterByCondition {
            values: IndexMap::new(),
            condition: "bigger".into(),
            error_on_filtered_all: true,
        });
        assert!(op.process_stream(Box::new(std::iter::empty()), "t").is_err());
        assert!(py_order(&json!("a"), &json!(1), ">").is_err());
    }

    #[test]
    fn balancers_match_unitxt() {
        let labels = ["x", "y", "y", "z", "y", "x"];
        let data: Vec<Value> =
            (0..24).map(|i| json!({"id": i, "label": labels[i % 6], "t": "w".repeat(i % 4)})).collect();
        let op = DeterministicBalancer { fields: vec!["label".into()], max_instances: None };
        assert_eq!(apply_stream(op, data.clone()), vec![0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 15, 21]);
        let op = DeterministicBalancer { fields: vec!["label".into()], max_instances: Some(7) };
        assert_eq!(apply_stream(op, data.clone()), vec![0, 1, 2, 3, 5, 9]);
        let op = LengthBalancer { fields: vec!["t".into()], segments_boundaries: vec![1, 3], max_instances: None };
        assert_eq!(apply_stream(op, data.clone()), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 19, 20, 23]);
        let op = MinimumOneExamplePerLabelRefiner { fields: vec!["label".into()], max_instances: Some(5), seed_context: None };
        assert_eq!(apply_stream(op, data.clone()), vec![0, 2, 3, 1, 4]);
        let op = MinimumOneExamplePerLabelRefiner { fields: vec!["label".into()], max_instances: Some(2), seed_context: None };
        let s: Stream = Box::new(data.into_iter().map(obj).map(Ok).collect::<Vec<_>>().into_iter());
        assert!(Arc::new(op).process_stream(s, "t").unwrap().next().is_some_and(|r| r.is_err()));
    }

    #[test]
    fn split_level_operators() {
        let mut l = IndexMap::new();
        for (name, base) in [("train", 0), ("validation", 100), ("test", 200)] {
            l.insert(name.to_string(), (base..base + 3).map(|i| obj(json!({ "id": i }))).collect());
        }
        let op = MergeStreams {
            streams_to_merge: Some(vec!["test".into(), "validation".into()]),
            new_stream_name: "all".into(),
            add_origin_stream_name: true,
            origin_stream_name_field_name: "origin".into(),
        };
        let mut out = Arc::new(op).process(MultiStream::from_lists(l.clone())).unwrap();
        assert_eq!(out.names(), vec!["all".to_string()]);
        let all: Vec<Instance> = out.take("all").unwrap().map(|r| r.unwrap()).collect();
        // Unitxt: [[100, "validation"], [101, "validation"], [102, "validation"], ...]
        assert_eq!(Value::Object(all[0].clone()), json!({"id": 100, "origin": "validation"}));
        assert_eq!(all[3]["origin"], json!("test"));

        let op = DuplicateSplit { split: "test".into(), to_split: "game_2".into() };
        let mut out = Arc::new(op).process(MultiStream::from_lists(l.clone())).unwrap();
        assert_eq!(out.names(), vec!["train", "validation", "test", "game_2"]);
        let copy = ids_of(out.take("game_2").unwrap());
        assert_eq!(copy, vec![200, 201, 202]);
        assert_eq!(ids_of(out.take("test").unwrap()), copy);

        let op = DeleteSplits { splits: vec!["train".into(), "nope".into()] };
        assert_eq!(
            Arc::new(op).process(MultiStream::from_lists(l.clone())).unwrap().names(),
            vec!["validation", "test"]
        );

        let s: Stream = Box::new(l["test"].clone().into_iter().map(Ok));
        let out: Vec<_> =
            Arc::new(AddIncrementalId { to_field: "n".into() }).process_stream(s, "test").unwrap().collect();
        assert_eq!(out[2].as_ref().map(|i| i["n"].clone()).ok(), Some(json!(2)));
        let s: Stream = Box::new(l["test"].clone().into_iter().map(Ok));
        assert_eq!(
            ids_of(Arc::new(StreamRefiner { max_instances: Some(2) }).process_stream(s, "test").unwrap()),
            vec![200, 201]
        );
    }

    #[test]
    fn join_streams_inner_matches_pandas() {
        // pandas 2 merge(how="inner", on=["k"]) of these records gives this order and these columns.
        let p = json!(["public"]);
        let left: Vec<Instance> = [(2, "l0"), (1, "l1"), (2, "l2"), (3, "l3")]
            .iter()
            .map(|(k, a)| obj(json!({"k": k, "a": a, "data_classification_policy": p, "recipe_metadata": {}})))
            .collect();
        let right: Vec<Instance> = [(1, "r0"), (2, "r1"), (2, "r2"), (4, "r3")]
            .iter()
            .map(|(k, b)| {
                obj(json!({"k": k, "b": b, "a": "x", "data_classification_policy": p, "recipe_metadata": {}}))
            })
            .collect();
        let op = JoinStreams {
            left_stream: "l".into(),
            right_stream: "r".into(),
            how: "inner".into(),
            on: Some(vec!["k".into()]),
            left_on: None,
            right_on: None,
            new_stream_name: "m".into(),
        };
        let m = op.merge(&left, &right).unwrap();
        let pairs: Vec<(Value, Value)> = m.iter().map(|r| (r["a_x"].clone(), r["b"].clone())).collect();
        assert_eq!(
            pairs,
            vec![
                (json!("l0"), json!("r1")),
                (json!("l0"), json!("r2")),
                (json!("l1"), json!("r0")),
                (json!("l2"), json!("r1")),
                (json!("l2"), json!("r2"))
            ]
        );
        assert_eq!(
            m[0].keys().cloned().collect::<Vec<_>>(),
            vec!["k", "a_x", "b", "a_y", "data_classification_policy", "recipe_metadata"]
        );
        // `on` given as one name (as Unitxt's bfcl cards write it) is the list of that name.
        let spec = |on: Value| json!({"__type__": "join_streams", "left_stream": "l", "right_stream": "r",
                                      "how": "inner", "on": on, "new_stream_name": "m"});
        let one: JoinStreams = serde_json::from_value(spec(json!("k")).into()).unwrap();
        let many: JoinStreams = serde_json::from_value(spec(json!(["k"])).into()).unwrap();
        assert_eq!((one.on.as_deref(), many.on.as_deref()), (Some(&["k".to_string()][..]), Some(&["k".to_string()][..])));
        assert_eq!(one.merge(&left, &right).unwrap(), m);
    }
    #[test]
    fn catalog_json_builds_through_registry() {
        let specs = [
            json!({"__type__": "shuffle", "page_size": 9223372036854775807u64}),
            json!({"__type__": "deduplicate", "by": ["question", "subject"]}),
            json!({"__type__": "filter_by_condition", "values": {"a": [1]}, "condition": "in",
                "apply_to_streams": ["x"]}),
            json!({"__type__": "rename_splits", "mapper": {"train": "test"}}),
            json!({"__type__": "split_random_mix", "mix": {"train": "train[95%]", "validation": "train[5%]"}}),
            json!({"__type__": "length_balancer", "fields": ["reference_fields/labels"], "segments_boundaries": [1]}),
        ];
        for spec in specs {
            let a = crate::testutil::build(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert!(matches!(a, crate::registry::Artifact::Operator(_)), "{spec}");
        }
        let spec = json!({"__type__": "shuffle", "page_size": 9223372036854775807u64});
        let Ok(crate::registry::Artifact::Operator(op)) = crate::testutil::build(&spec) else { panic!("shuffle") };
        let mut out = op.inner.clone().process(one("test", (0..20).map(|i| json!({ "id": i })).collect())).unwrap();
        // Unitxt: one page of 20 shuffled with the "shuffle" generator.
        let got = ids_of(out.take("test").unwrap());
        assert_eq!(got, vec![15, 7, 18, 9, 12, 13, 10, 3, 19, 4, 2, 5, 17, 8, 6, 1, 16, 11, 14, 0]);
    }
}

// ---------------------------------------------------------------------------------------------
// Values gathered from a whole split
// ---------------------------------------------------------------------------------------------

fn hundred() -> i64 {
    100
}

/// `extract_field_values` (Unitxt's `ExtractFieldValues`): the distinct values of top-level
/// field `field` over split `stream_name`, most frequent first (ties in order of first
/// appearance, as Python's `Counter.most_common`), are written at path `to_field` of every
/// instance of every split. A list value counts as one value (a tuple in Python), or, with
/// `process_every_value`, each of its items counts. Values are compared as Python compares
/// dict keys (`1`, `1.0` and `true` are one value, kept as first seen). The split is read
/// whole before any instance is given out. Errors on a missing split or field, a non-list with
/// `process_every_value`, and values Python cannot hash (dicts, lists inside lists).
#[derive(Debug, Clone, Deserialize)]
pub struct ExtractFieldValues {
    /// `field`: the top-level field whose values are counted.
    pub field: String,
    /// `stream_name`: the split they are counted over.
    pub stream_name: String,
    /// `to_field`: the path that receives the list of values in every instance.
    pub to_field: String,
    /// `process_every_value`: count the items of list values (default false).
    #[serde(default)]
    pub process_every_value: bool,
    /// `overall_top_frequency_percent`: accepted and ignored, as Unitxt's `ExtractFieldValues`
    /// resets it to 100.
    #[serde(default = "hundred")]
    pub overall_top_frequency_percent: i64,
    /// `min_frequency_percent`: accepted and ignored, as Unitxt resets it to 0.
    #[serde(default)]
    pub min_frequency_percent: i64,
    /// Set for `extract_most_common_field_values` (Unitxt's `ExtractMostCommonFieldValues`),
    /// which keeps only the most common values: with `overall_top_frequency_percent` below
    /// 100, the first values whose counts add up to at least that share of all counts; with
    /// `min_frequency_percent` above 0, the values counted at least that share of all counts.
    /// Both between 0 and 100, at most one of them moved from its default (else an error when
    /// built, see [`ExtractFieldValues::checked`]); a cut that leaves nothing is an error, as
    /// in Unitxt.
    #[serde(skip)]
    pub most_common: bool,
}

/// A key for `v` equal for values Python's dict lookup treats as one (`1`, `1.0`, `True`),
/// or `None` for an unhashable value.
fn hash_key(v: &Value, in_tuple: bool) -> Option<String> {
    Some(match v {
        Value::Null => "N".into(),
        Value::Bool(b) => format!("I{}", *b as i64),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => format!("I{i}"),
            (None, Some(f)) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => format!("I{}", f as i64),
            _ => format!("F{n}"),
        },
        Value::String(s) => format!("S{s}"),
        Value::Array(items) if !in_tuple => {
            let keys = items.iter().map(|x| hash_key(x, true)).collect::<Option<Vec<_>>>()?;
            format!("T({})", keys.join("\u{0}"))
        }
        _ => return None,
    })
}

impl ExtractFieldValues {
    fn values(&self, items: &[Instance]) -> Result<Value> {
        let mut counts: IndexMap<String, (Value, usize)> = IndexMap::new();
        let mut add = |v: &Value, tuple: bool| -> Result<()> {
            let key = hash_key(v, !tuple).ok_or_else(|| {
                Error::invalid(format!("extract_field_values: unhashable value {}", crate::artifact::short(v)))
            })?;
            counts.entry(key).or_insert_with(|| (v.clone(), 0)).1 += 1;
            Ok(())
        };
        for inst in items {
            let v = inst.get(self.field.as_str()).ok_or_else(|| {
                Error::not_found(format!("extract_field_values: field {:?} is missing; fields are {:?}", self.field, inst.keys().collect::<Vec<_>>()))
            })?;
            match v {
                Value::Array(a) if self.process_every_value => a.iter().try_for_each(|x| add(x, false))?,
                Value::Array(_) => add(v, true)?,
                _ if self.process_every_value => {
                    return Err(Error::invalid(
                        "'process_every_field' is allowed to change to 'True' only for fields whose contents are lists",
                    ))
                }
                _ => add(v, false)?,
            }
        }
        let mut ranked: Vec<(Value, usize)> = counts.into_values().collect();
        ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
        if self.most_common {
            self.keep_most_common(&mut ranked)?;
        }
        Ok(Value::Array(ranked.into_iter().map(|(v, _)| v).collect()))
    }

    /// `extract_most_common_field_values`' cut of the ranked values (see
    /// [`ExtractFieldValues::most_common`]).
    fn keep_most_common(&self, ranked: &mut Vec<(Value, usize)>) -> Result<()> {
        let total: usize = ranked.iter().map(|r| r.1).sum();
        if self.overall_top_frequency_percent < 100 {
            if ranked.is_empty() {
                return Err(Error::invalid("extract_most_common_field_values: no values to choose from"));
            }
            let top = total as f64 * self.overall_top_frequency_percent as f64 / 100.0;
            let mut sum = 0usize;
            let mut keep = ranked.len();
            for (i, r) in ranked.iter().enumerate() {
                sum += r.1;
                if sum as f64 >= top {
                    keep = i + 1;
                    break;
                }
            }
            ranked.truncate(keep);
        }
        if self.min_frequency_percent > 0 {
            let min = self.min_frequency_percent as f64 * total as f64 / 100.0;
            loop {
                match ranked.last() {
                    None => return Err(Error::invalid("extract_most_common_field_values: no value is frequent enough (list index out of range)")),
                    Some(r) if (r.1 as f64) < min => {
                        ranked.pop();
                    }
                    Some(_) => break,
                }
            }
        }
        Ok(())
    }

    /// The operator as `extract_most_common_field_values` builds it: `most_common` set, after
    /// Unitxt's checks of the two percentages.
    pub fn checked(mut self) -> Result<Self> {
        let (top, min) = (self.overall_top_frequency_percent, self.min_frequency_percent);
        if !(0..=100).contains(&top) {
            return Err(Error::invalid("'overall_top_frequency_percent' must be between 0 and 100"));
        }
        if !(0..=100).contains(&min) {
            return Err(Error::invalid("'min_frequency_percent' must be between 0 and 100"));
        }
        if top < 100 && min > 0 {
            return Err(Error::invalid(
                "At most one of 'overall_top_frequency_percent' and 'min_frequency_percent' is allowed to move from their default value",
            ));
        }
        self.most_common = true;
        Ok(self)
    }
}

impl Operator for ExtractFieldValues {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let names = ms.names();
        let slot = ms.streams.get_mut(&self.stream_name).ok_or_else(|| {
            Error::not_found(format!("extract_field_values: split {:?} is not in the splits {names:?}", self.stream_name))
        })?;
        let s = std::mem::replace(slot, Box::new(std::iter::empty()));
        let items: Vec<Instance> = s.collect::<Result<_>>()?;
        let values = self.values(&items)?;
        *slot = Box::new(items.into_iter().map(Ok));
        let to = self.to_field.clone();
        Ok(ms.map_streams(move |_, s| {
            let (values, to) = (values.clone(), to.clone());
            Box::new(s.map(move |r| {
                let mut inst = r?;
                crate::py::dict_path::dict_set(&mut inst, &to, values.clone())?;
                Ok(inst)
            })) as Stream
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// Collating and regrouping instances (public Unitxt classes the catalog does not use, issue 53)
// ---------------------------------------------------------------------------------------------

/// The sorted distinct strings of `lists` (Python's `sorted(set(...))` of policy lists).
/// Errors on an item that is not a string (Python cannot order mixed types; other values are
/// not policies).
fn sorted_policies<'a>(lists: impl IntoIterator<Item = &'a Value>) -> Result<Value> {
    let mut all: Vec<String> = Vec::new();
    for l in lists {
        let Value::Array(items) = l else {
            return Err(Error::invalid(format!("data_classification_policy must be a list, got {}", crate::artifact::short(l))));
        };
        for x in items {
            let s = x.as_str().ok_or_else(|| Error::invalid(format!("a data_classification_policy item is not a string: {x}")))?;
            all.push(s.to_string());
        }
    }
    all.sort();
    all.dedup();
    Ok(Value::Array(all.into_iter().map(Value::from).collect()))
}

/// `collate_instances` (Unitxt's `CollateInstances`): every `batch_size` instances, in order,
/// become one whose fields (those of the batch's first instance) are the lists of the batch's
/// values; `data_classification_policy` becomes the sorted distinct policies of the batch. The
/// last batch may be shorter. Errors: `batch_size` below 1 (when built), an instance of a batch
/// that lacks a field of its first one.
#[derive(Debug, Clone, Deserialize)]
pub struct CollateInstances {
    /// `batch_size`: how many instances make one.
    pub batch_size: i64,
}

impl CollateInstances {
    /// Unitxt's check of `batch_size`.
    pub fn checked(self) -> Result<Self> {
        if self.batch_size < 1 {
            return Err(Error::invalid(format!("batch_size must be an integer equal to or greater than 1. Got: {}.", self.batch_size)));
        }
        Ok(self)
    }
}

impl StreamOperator for CollateInstances {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        let size = self.batch_size.max(1) as usize;
        Ok(on_whole(stream, move |items| {
            let mut out = Vec::with_capacity(items.len().div_ceil(size));
            for batch in items.chunks(size) {
                let mut collated = Instance::with_capacity(batch[0].len());
                for k in batch[0].keys() {
                    let values = batch
                        .iter()
                        .map(|i| i.get(k.as_str()).ok_or_else(|| Error::invalid(format!("collate_instances: an instance lacks field {k:?}"))))
                        .collect::<Result<Vec<&Value>>>()?;
                    let v = if k.as_str() == "data_classification_policy" {
                        sorted_policies(values)?
                    } else {
                        Value::Array(values.into_iter().cloned().collect())
                    };
                    collated.insert(k.clone(), v);
                }
                out.push(collated);
            }
            Ok(out)
        }))
    }
}

/// `collate_instances_by_field` (Unitxt's `CollateInstancesByField`): the instances with equal
/// values of top-level field `by_field` (as Python compares dict keys) become one, in order of
/// first appearance: the fields in `aggregate_fields` become the lists of their values (after
/// the group's other fields), `data_classification_policy` the sorted distinct policies, and
/// every other field keeps its value, which must be the same in the whole group. Errors: a
/// missing `by_field` or aggregated field, a value of `by_field` that is a list or dict, other
/// fields that differ within a group.
#[derive(Debug, Clone, Deserialize)]
pub struct CollateInstancesByField {
    /// `by_field`: the top-level field whose value groups the instances.
    pub by_field: String,
    /// `aggregate_fields`: the top-level fields gathered into lists.
    pub aggregate_fields: Vec<String>,
}

impl CollateInstancesByField {
    fn collate(&self, items: Vec<Instance>) -> Result<Vec<Instance>> {
        let mut groups: IndexMap<String, Instance> = IndexMap::new();
        let policy = "data_classification_policy";
        for inst in items {
            let key_value = inst.get(self.by_field.as_str()).ok_or_else(|| {
                Error::invalid(format!(
                    "The field '{}' specified by CollateInstancesByField's 'by_field' argument is not found in instance.",
                    self.by_field
                ))
            })?;
            for k in &self.aggregate_fields {
                if !inst.contains_key(k.as_str()) {
                    return Err(Error::invalid(format!(
                        "The field '{k}' specified in CollateInstancesByField's 'aggregate_fields' argument is not found in instance."
                    )));
                }
            }
            let key = hash_key(key_value, false)
                .filter(|_| !matches!(key_value, Value::Array(_)))
                .ok_or_else(|| Error::invalid(format!("unhashable type: '{}'", crate::py::repr::type_name(key_value))))?;
            let group = groups.entry(key.clone()).or_insert_with(|| {
                let mut g: Instance = inst.iter().filter(|(k, _)| !self.aggregate_fields.iter().any(|a| a == k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
                for a in &self.aggregate_fields {
                    g.insert(a.as_str().into(), Value::Array(vec![]));
                }
                g
            });
            for (k, v) in &inst {
                if k.as_str() == policy && truthy(v) {
                    let merged = sorted_policies([group.get(policy).unwrap_or(&Value::Array(vec![])), v])?;
                    group.insert(k.clone(), merged);
                } else if k.as_str() != self.by_field && !self.aggregate_fields.iter().any(|a| a == k.as_str()) {
                    if let Some(old) = group.get(k.as_str()) {
                        if !crate::py::ops::py_eq(old, v) {
                            return Err(Error::invalid(format!(
                                "Inconsistent value for field '{k}' in group '{}': '{}' vs '{}'. Ensure that all non-aggregated fields in CollateInstancesByField are consistent across all instances.",
                                crate::py::repr::str(key_value),
                                crate::py::repr::str(old),
                                crate::py::repr::str(v)
                            )));
                        }
                    }
                } else if self.aggregate_fields.iter().any(|a| a == k.as_str()) {
                    if let Some(Value::Array(list)) = group.get_mut(k.as_str()) {
                        list.push(v.clone());
                    }
                }
            }
        }
        Ok(groups.into_values().collect())
    }
}

impl StreamOperator for CollateInstancesByField {
    fn process_stream(self: Arc<Self>, stream: Stream, _split: &str) -> Result<Stream> {
        Ok(on_whole(stream, move |items| self.collate(items)))
    }
}

fn one_generation() -> i64 {
    1
}

fn group_field() -> String {
    "group".to_string()
}

/// `split_by_nested_group` (Unitxt's `SplitByNestedGroup`): regroups the instances of every
/// split into splits named `<split>~<group>`, where `<group>` is the first
/// `number_of_fusion_generations` parts of the `/`-separated text in field
/// `field_name_of_group` (the whole text when negative); splits come in order of first
/// appearance. Every split is read whole. Errors on a missing field or one that is not a string.
#[derive(Debug, Clone, Deserialize)]
pub struct SplitByNestedGroup {
    /// `field_name_of_group`: the top-level field holding the group (default `group`).
    #[serde(default = "group_field")]
    pub field_name_of_group: String,
    /// `number_of_fusion_generations`: how many parts of the group name the split (default 1;
    /// negative: all).
    #[serde(default = "one_generation")]
    pub number_of_fusion_generations: i64,
}

impl Operator for SplitByNestedGroup {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let mut out: IndexMap<String, Vec<Instance>> = IndexMap::new();
        for name in ms.names() {
            for inst in ms.take(&name)? {
                let inst = inst?;
                let group = inst.get(self.field_name_of_group.as_str()).ok_or_else(|| {
                    Error::invalid(format!(
                        "Field {} is missing from instance. Available fields: {:?}",
                        self.field_name_of_group,
                        inst.keys().collect::<Vec<_>>()
                    ))
                })?;
                let text = group.as_str().ok_or_else(|| {
                    Error::invalid(format!("'{}' object has no attribute 'split'", crate::py::repr::type_name(group)))
                })?;
                let part = if self.number_of_fusion_generations >= 0 {
                    text.split('/').take(self.number_of_fusion_generations as usize).collect::<Vec<_>>().join("/")
                } else {
                    text.to_string()
                };
                out.entry(format!("{name}~{part}")).or_default().push(inst);
            }
        }
        Ok(MultiStream::from_lists(out))
    }
}

/// `encode_labels` (Unitxt's `EncodeLabels`): every value met at the paths `fields` (a path
/// with `*` gives a list of values) becomes its number in order of first appearance (0, 1, ...;
/// values equal as Python compares dict keys share one), one numbering for all the fields and
/// all the splits it applies to, taken in order; a list value becomes the list of its items'
/// numbers. The splits it applies to are read whole, one after the other. Errors: a missing
/// field, a value Python cannot hash (a dict, a list in a list).
#[derive(Debug, Clone, Deserialize)]
pub struct EncodeLabels {
    /// `fields`: the paths whose values are encoded.
    pub fields: Vec<String>,
    /// The splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), set when built.
    #[serde(skip)]
    pub scope: StreamScope,
}

impl EncodeLabels {
    fn encode(&self, inst: &mut Instance, codes: &mut HashMap<String, i64>) -> Result<()> {
        for f in &self.fields {
            let value = dict_get(inst, f)?.into_owned();
            let was_list = matches!(value, Value::Array(_));
            let values = match value {
                Value::Array(a) => a,
                other => vec![other],
            };
            let mut encoded = Vec::with_capacity(values.len());
            for v in &values {
                let key = hash_key(v, true).ok_or_else(|| Error::invalid(format!("unhashable type: '{}'", crate::py::repr::type_name(v))))?;
                let next = codes.len() as i64;
                encoded.push(Value::from(*codes.entry(key).or_insert(next)));
            }
            let n = encoded.len();
            let new = if was_list { Value::Array(encoded) } else { encoded.into_iter().next().unwrap_or_default() };
            crate::py::dict_path::dict_set_with(inst, f, new, false, f.contains('*') && was_list && n > 0)?;
        }
        Ok(())
    }
}

impl Operator for EncodeLabels {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let mut codes: HashMap<String, i64> = HashMap::new();
        for name in ms.names() {
            if !self.scope.applies(&name) {
                continue;
            }
            let slot = ms.streams.get_mut(&name).ok_or_else(|| Error::not_found(format!("split {name:?} is missing")))?;
            let s = std::mem::replace(slot, Box::new(std::iter::empty()));
            let mut items: Vec<Instance> = s.collect::<Result<_>>()?;
            for inst in items.iter_mut() {
                self.encode(inst, &mut codes)?;
            }
            *slot = Box::new(items.into_iter().map(Ok));
        }
        Ok(ms)
    }
}

/// `feature_grouped_shuffle` (Unitxt's `FeatureGroupedShuffle`): shuffles each page of
/// `page_size` instances by blocks: the instances with the same values of `grouping_features`
/// stay together, in their order (or shuffled too, with `shuffle_within_group`), and the blocks
/// are shuffled by the generator [`Shuffle`] uses. Without `grouping_features` every page is
/// dropped, as Unitxt's does (its `process` then returns without yielding). Errors on a missing
/// feature or one Python cannot hash.
#[derive(Debug, Clone, Deserialize)]
pub struct FeatureGroupedShuffle {
    /// Which splits it shuffles (`apply_to_streams`, `dont_apply_to_streams`).
    #[serde(flatten)]
    pub scope: StreamScope,
    /// `page_size`: how many instances are shuffled together (default 1000).
    #[serde(default = "default_page_size")]
    pub page_size: usize,
    /// `grouping_features`: the top-level fields whose values make a block.
    #[serde(default)]
    pub grouping_features: Option<Vec<String>>,
    /// `shuffle_within_group`: shuffle each block's instances as well (default false).
    #[serde(default)]
    pub shuffle_within_group: bool,
}

impl FeatureGroupedShuffle {
    fn shuffle_page(&self, page: Vec<Instance>, rng: &Mutex<PyRandom>) -> Result<Vec<Instance>> {
        let Some(features) = &self.grouping_features else { return Ok(Vec::new()) };
        let mut blocks: IndexMap<String, Vec<Instance>> = IndexMap::new();
        for inst in page {
            let mut key = Vec::with_capacity(features.len());
            for f in features {
                let v = inst.get(f.as_str()).ok_or_else(|| Error::not_found(format!("feature_grouped_shuffle: field {f:?} is missing")))?;
                key.push(hash_key(v, true).ok_or_else(|| Error::invalid(format!("unhashable type: '{}'", crate::py::repr::type_name(v))))?);
            }
            blocks.entry(key.join("\u{1}")).or_default().push(inst);
        }
        let mut blocks: Vec<Vec<Instance>> = blocks.into_values().collect();
        let mut rng = rng.lock().map_err(|_| Error::invalid("shuffle generator is poisoned"))?;
        rng.shuffle(&mut blocks);
        if self.shuffle_within_group {
            for b in blocks.iter_mut() {
                rng.shuffle(b);
            }
        }
        Ok(blocks.into_iter().flatten().collect())
    }
}

/// The pages of a [`FeatureGroupedShuffle`]d stream, made as they are pulled.
struct GroupedShuffleStream {
    op: Arc<FeatureGroupedShuffle>,
    src: Stream,
    out: VecDeque<Instance>,
    rng: Arc<Mutex<PyRandom>>,
    done: bool,
}

impl Iterator for GroupedShuffleStream {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(i) = self.out.pop_front() {
                return Some(Ok(i));
            }
            if self.done {
                return None;
            }
            let mut page = Vec::new();
            while page.len() < self.op.page_size.max(1) {
                match self.src.next() {
                    Some(Ok(i)) => page.push(i),
                    Some(Err(e)) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                    None => {
                        self.done = true;
                        break;
                    }
                }
            }
            if page.is_empty() {
                return None;
            }
            match self.op.shuffle_page(page, &self.rng) {
                Ok(v) => self.out = v.into(),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Operator for FeatureGroupedShuffle {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let rng = Arc::new(Mutex::new(new_random_generator(&Value::String("shuffle".into()))));
        Ok(ms.map_streams(|split, s| {
            if !self.scope.applies(split) {
                return s;
            }
            Box::new(GroupedShuffleStream { op: self.clone(), src: s, out: VecDeque::new(), rng: rng.clone(), done: false })
        }))
    }
}
