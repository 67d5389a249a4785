//! Evaluation of predictions against prepared instances, as Unitxt 1.26.10's
//! `unitxt.evaluate(predictions, data)` (`metric_utils._compute` running `MetricRecipe`).
//!
//! Per instance: `task_data` is parsed, gets `source`; the template's `target_prefix` is cut
//! from the start of a string prediction (Unitxt's `DeleteTargetPrefix`); the instance's
//! `postprocessors` run on prediction and references. Instances are split into streams by
//! subset and group (`SplitSubsetsAndGroups`); on each stream the metrics named in its first
//! instance's `metrics` are applied last-to-first so that the first sets `score` and
//! `score_name` (`ApplyMetric`); the streams' scores are joined back (`JoinSubsetsAndGroups`).
//!
//! How a metric's scores and confidence intervals are assembled follows its Unitxt base class
//! ([`MetricKind`]): map/reduce, instance or global metric.

use indexmap::IndexMap;

use crate::artifact::Art;
use crate::registry::Artifact;
use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::metrics::bootstrap::{
    unitxt_confidence_intervals, unitxt_global_metric_ci, unitxt_instance_metric_ci, CiMethod,
};
use crate::metrics::{Metric, MetricKind, Scores};
use crate::processors::Postprocessors;
use crate::value::{Instance, Value};

pub mod streams;

/// Unitxt's random seed setting (`hash(settings.seed) & 0xFFFFFFFF`, the seed itself for
/// seeds below 2^31), used for every bootstrap.
fn seed() -> i64 {
    (crate::py::random::global_seed() & 0xFFFF_FFFF) as i64
}
/// Unitxt's default `confidence_level`.
const CONFIDENCE_LEVEL: f64 = 0.95;
/// Unitxt's name of the stream `evaluate` builds.
const STREAM: &str = "all_data";

/// One value of a Unitxt score dict.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreValue {
    /// A float score (may be NaN).
    Float(f64),
    /// An integer (`num_of_instances`).
    Int(i64),
    /// Text (`score_name`).
    Text(String),
    /// Python's `None` (a global metric that could not score one instance).
    None,
    /// A list of numbers (`prediction_length`'s instance score `[n]`).
    List(Vec<f64>),
    /// Any other JSON value a metric puts in its instance scores: an LLM judge's booleans,
    /// prompts and criteria, or what a user's Python metric returned (a list of strings, a
    /// dict), kept as it came.
    Json(Value),
}

impl ScoreValue {
    /// As a JSON-like value. NaN and infinities stay floats (Python's `float('nan')`): `serde_json`
    /// writes them as `null`, Python's JSON (`py::json::dumps`) as `NaN`; `None` is `null`.
    pub fn to_json(&self) -> Value {
        match self {
            ScoreValue::Float(x) => Value::Number(crate::value::Number::float(*x)),
            ScoreValue::Int(i) => Value::from(*i),
            ScoreValue::Text(s) => Value::String(s.as_str().into()),
            ScoreValue::None => Value::Null,
            ScoreValue::List(xs) => Value::Array(xs.iter().map(|x| Value::Number(crate::value::Number::float(*x))).collect()),
            ScoreValue::Json(v) => v.clone(),
        }
    }

    /// The value as a float, when it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ScoreValue::Float(x) => Some(*x),
            ScoreValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }
}

/// A score dict (Unitxt's `score["global"]` or `score["instance"]`), in Unitxt's key order.
pub type ScoreMap = IndexMap<String, ScoreValue>;

/// Scores as a JSON object (see [`ScoreValue::to_json`]).
pub fn score_map_json(m: &ScoreMap) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
}

/// What [`evaluate`] returns (Unitxt's `EvaluationResults`).
#[derive(Debug, Clone)]
pub struct EvaluationResults {
    /// `global_scores`: of the whole data, or the mean over subsets when there are subsets.
    pub global: ScoreMap,
    /// `score["instance"]` of every instance, in input order.
    pub instances: Vec<ScoreMap>,
    /// `subsets_scores` (JSON-like, NaN kept as a float) when instances have a `subset`.
    pub subsets: Option<Value>,
    /// `groups_scores` (JSON-like, NaN kept as a float) when instances have `groups`.
    pub groups: Option<Value>,
    /// Each instance's prediction and references after the target prefix was cut and the
    /// postprocessors ran (Unitxt's `processed_prediction`, `processed_references`).
    pub processed: Vec<(Value, Vec<Value>)>,
}

impl EvaluationResults {
    /// `{"global": .., "instances": [..], "subsets": .., "groups": ..}` (see
    /// [`ScoreValue::to_json`]: NaN stays a float, written `null` by `serde_json`).
    pub fn to_json(&self) -> Value {
        let mut o = Instance::new();
        o.insert("global".into(), score_map_json(&self.global));
        o.insert("instances".into(), Value::Array(self.instances.iter().map(score_map_json).collect()));
        o.insert("subsets".into(), self.subsets.clone().unwrap_or(Value::Null));
        o.insert("groups".into(), self.groups.clone().unwrap_or(Value::Null));
        Value::Object(o)
    }
}

/// Options of [`evaluate`].
#[derive(Clone)]
pub struct EvaluateOptions {
    /// Compute confidence intervals (Unitxt's `calc_confidence_intervals`, on by default).
    pub confidence_intervals: bool,
    /// Extra catalog directories (as `--catalog` gives them) where metrics, processors and
    /// templates are looked up besides the standard catalog.
    pub catalogs: Vec<std::path::PathBuf>,
    /// Sends the requests of metrics that call a model (LLM judges), to the endpoint each
    /// judge's engine names. `None`: evaluating such a metric is an error with
    /// [`crate::error::Reason::Needs`] naming it.
    pub model_client: Option<std::sync::Arc<dyn crate::inference::ModelClient>>,
    /// The engine every LLM judge among the metrics uses instead of its own (a catalog name
    /// with optional `[overwrites]`, or an inline engine object), as Unitxt's
    /// `metric[inference_engine=...]` overwrite sets it; judges inside metric lists and
    /// pipelines too. `None`: each judge's own engine.
    pub judge_engine: Option<Value>,
}

impl std::fmt::Debug for EvaluateOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvaluateOptions")
            .field("confidence_intervals", &self.confidence_intervals)
            .field("catalogs", &self.catalogs)
            .field("model_client", &self.model_client.as_ref().map(|_| "<set>"))
            .field("judge_engine", &self.judge_engine)
            .finish()
    }
}

impl Default for EvaluateOptions {
    fn default() -> Self {
        EvaluateOptions { confidence_intervals: true, catalogs: Vec::new(), model_client: None, judge_engine: None }
    }
}

/// One instance after postprocessing, ready for the metrics.
struct Item {
    prediction: Value,
    references: Vec<Value>,
    task_data: Instance,
    metrics: Vec<String>,
}

/// Scores an instance carries through the metrics (`score["global"]`, `score["instance"]`).
#[derive(Clone, Default)]
struct ScoreState {
    global: ScoreMap,
    instance: ScoreMap,
}

/// Evaluates `predictions` (one per instance) against finished instances (the rows of a
/// prepared split, with `references`, `metrics`, `postprocessors`, `task_data`, `subset`,
/// `groups`). Errors: different counts (naming both), no instances, an instance without
/// `metrics`, unknown metrics or processors, a metric failing on the data.
pub fn evaluate(instances: &[Instance], predictions: &[Value], opts: &EvaluateOptions) -> Result<EvaluationResults> {
    let catalog = std::sync::Arc::new(Catalog::standard(&opts.catalogs));
    evaluate_in(instances, predictions, opts, &catalog)
}

/// Each prediction after its instance's target prefix was cut and its postprocessors ran
/// (Unitxt's `post_process(predictions, data)`: the `processed_prediction`s), in order, without
/// scoring. Instances without `references` (produced for inference) are processed with none.
/// Errors: different counts (naming both), unknown processors, a processor failing.
pub fn post_process(instances: &[Instance], predictions: &[Value], catalogs: &[std::path::PathBuf]) -> Result<Vec<Value>> {
    one_prediction_each(instances, predictions)?;
    let catalog = std::sync::Arc::new(Catalog::standard(catalogs));
    let (lists, which) = distinct_postprocessors(instances, &catalog);
    let mut out = Vec::with_capacity(instances.len());
    for (i, (inst, pred)) in instances.iter().zip(predictions).enumerate() {
        let mut inst = inst.clone();
        if !matches!(inst.get("references"), Some(Value::Array(_))) {
            inst.insert("references".into(), Value::Array(Vec::new()));
        }
        let item = prepare_item(&inst, pred.clone(), &catalog, &lists[which[i]]).with_ctx(|| format!("instance {i}"))?;
        out.push(item.prediction);
    }
    Ok(out)
}

/// The count check shared by [`evaluate`] and [`post_process`]: one prediction per instance,
/// else an error naming both counts.
fn one_prediction_each(instances: &[Instance], predictions: &[Value]) -> Result<()> {
    if instances.len() != predictions.len() {
        return Err(Error::invalid(format!(
            "{} predictions for {} instances; give exactly one prediction per instance",
            predictions.len(),
            instances.len()
        )));
    }
    Ok(())
}

/// The postprocessors the instances name, each distinct list built once: `lists[which[i]]`
/// are instance `i`'s.
fn distinct_postprocessors(instances: &[Instance], catalog: &std::sync::Arc<Catalog>) -> (Vec<Postprocessors>, Vec<usize>) {
    let mut lists: Vec<Postprocessors> = Vec::new();
    let mut which: Vec<usize> = Vec::with_capacity(instances.len());
    let mut seen: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    for inst in instances {
        let names = processor_names(inst);
        let k = *seen.entry(names).or_insert_with_key(|names| {
            lists.push(Postprocessors::fetch(names, |name| fetch_operator(catalog, name)));
            lists.len() - 1
        });
        which.push(k);
    }
    (lists, which)
}

fn evaluate_in(
    instances: &[Instance],
    predictions: &[Value],
    opts: &EvaluateOptions,
    catalog: &std::sync::Arc<Catalog>,
) -> Result<EvaluationResults> {
    one_prediction_each(instances, predictions)?;
    if instances.is_empty() {
        return Err(Error::invalid("there are no instances to evaluate (empty split?)"));
    }
    let (lists, which) = distinct_postprocessors(instances, catalog);
    // Per instance (in parallel, in order): task data, target prefix removal, postprocessors,
    // subset and groups.
    let prepared: Vec<Result<(Item, Vec<String>, Vec<String>)>> = {
        use rayon::prelude::*;
        instances
            .par_iter()
            .zip(predictions.par_iter())
            .enumerate()
            .map(|(i, (inst, pred))| {
                let item = prepare_item(inst, pred.clone(), catalog, &lists[which[i]]);
                item.and_then(|item| {
                    let subset = string_list(inst.get("subset"), "subset")?;
                    let groups = string_list(inst.get("groups"), "groups")?;
                    Ok::<_, Error>((item, subset, groups))
                })
                .with_ctx(|| format!("instance {i}"))
            })
            .collect()
    };
    let mut items = Vec::with_capacity(instances.len());
    let mut streams: IndexMap<String, Vec<usize>> = IndexMap::new();
    for (i, r) in prepared.into_iter().enumerate() {
        let (item, subset, groups) = r?;
        let depth = subset.len().min(2);
        let subset_name = format!("{STREAM}>>{}", subset[..depth].join("/"));
        streams.entry(subset_name.clone()).or_default().push(i);
        for g in &groups {
            let name = format!("{subset_name}?{}", group_str(g)?);
            streams.entry(name).or_default().push(i);
        }
        items.push(item);
    }

    let mut instance_scores: Vec<Option<ScoreMap>> = vec![None; items.len()];
    let mut global = ScoreMap::new();
    let mut tree = Instance::new();
    for (name, idx) in &streams {
        let stream: Vec<&Item> = idx.iter().map(|&i| &items[i]).collect();
        let states = apply_metrics(&stream, opts, catalog).with_ctx(|| format!("stream {name:?}"))?;
        for (&i, st) in idx.iter().zip(&states) {
            if instance_scores[i].is_none() {
                instance_scores[i] = Some(st.instance.clone());
            }
        }
        let g = states.first().map(|s| s.global.clone()).unwrap_or_default();
        let (subset, group) = split_stream_name(name);
        if subset.is_empty() && group.is_none() {
            global = g;
            continue;
        }
        let mut path: Vec<String> = Vec::new();
        if !subset.is_empty() {
            path.push("subsets".into());
            path.extend(subset.split('/').map(String::from));
        }
        if let Some(gr) = group {
            let (k, v) = group_key_value(gr);
            path.push("groups".into());
            path.push(k);
            path.push(v);
        }
        set_path(&mut tree, &path, score_map_json(&g));
    }

    let mut subsets = None;
    if let Some(s) = tree.get("subsets").cloned() {
        let s = recursive_mean(&s).unwrap_or(Value::Null);
        let mut g = ScoreMap::new();
        let score = s.get("score").and_then(Value::as_f64).unwrap_or(f64::NAN);
        g.insert("score".into(), ScoreValue::Float(score));
        g.insert("score_name".into(), ScoreValue::Text("subsets_mean".into()));
        g.insert("subsets_mean".into(), ScoreValue::Float(score));
        if let Some(n) = s.get("num_of_instances").and_then(Value::as_i64) {
            g.insert("num_of_instances".into(), ScoreValue::Int(n));
        }
        global = g;
        subsets = Some(s);
    }
    let groups = tree.get("groups").cloned();
    Ok(EvaluationResults {
        global,
        instances: instance_scores.into_iter().map(Option::unwrap_or_default).collect(),
        subsets,
        groups,
        processed: items.into_iter().map(|it| (it.prediction, it.references)).collect(),
    })
}

fn string_list(v: Option<&Value>, field: &str) -> Result<Vec<String>> {
    match v {
        None | Some(Value::Null) => Err(Error::invalid(format!("field `{field}` is missing"))),
        Some(Value::Array(a)) => Ok(a.iter().map(crate::metrics::py_str).collect()),
        Some(other) => Err(Error::invalid(format!("field `{field}` is not a list: {}", crate::artifact::short(other)))),
    }
}

/// Unitxt's `group_str`: a group's JSON object as `k:v,k:v` (values as Python `str`).
fn group_str(json: &str) -> Result<String> {
    let v: Value = serde_json::from_str(json).map_err(|e| Error::invalid(format!("group {json:?} is not JSON: {e}")))?;
    let o = v.as_object().ok_or_else(|| Error::invalid(format!("group {json:?} is not a JSON object")))?;
    Ok(o.iter().map(|(k, v)| format!("{k}:{}", crate::metrics::py_str(v))).collect::<Vec<_>>().join(","))
}

/// Unitxt's `group_str_to_key_value`: the key and value of a group (a tuple's `str` when several).
fn group_key_value(g: &str) -> (String, String) {
    let (mut keys, mut vals) = (Vec::new(), Vec::new());
    for kv in g.split(',') {
        let (k, v) = kv.split_once(':').unwrap_or((kv, ""));
        keys.push(k.to_string());
        vals.push(v.to_string());
    }
    // Several names or values become a Python tuple, written as its `str`: items as `repr`,
    // values made only of digits as ints.
    let item = |x: &String, digits_as_int: bool| {
        if digits_as_int && !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()) {
            x.trim_start_matches('0').chars().next().map_or("0".to_string(), |_| x.trim_start_matches('0').to_string())
        } else {
            crate::py::repr::repr(&Value::String(x.as_str().into()))
        }
    };
    let join = |xs: Vec<String>, ints: bool| {
        if xs.len() == 1 {
            xs[0].clone()
        } else {
            format!("({})", xs.iter().map(|x| item(x, ints)).collect::<Vec<_>>().join(", "))
        }
    };
    (join(keys, false), join(vals, true))
}

fn split_stream_name(name: &str) -> (&str, Option<&str>) {
    let rest = name.split_once(">>").map(|x| x.1).unwrap_or("");
    match rest.split_once('?') {
        Some((s, g)) => (s, Some(g)),
        None => (rest, None),
    }
}

fn set_path(tree: &mut Instance, path: &[String], leaf: Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut node = tree;
    for p in parents {
        let entry = node.entry(p.clone()).or_insert_with(|| Value::Object(Instance::new()));
        if !entry.is_object() {
            *entry = Value::Object(Instance::new());
        }
        node = match entry {
            Value::Object(o) => o,
            _ => return,
        };
    }
    node.insert(last.as_str().into(), leaf);
}

/// `JoinSubsetsAndGroups.recursive_mean`: nodes without `score` get the NaN-omitting mean of
/// their children's scores as `score` (`score_name` `subsets_mean`) and their instance count.
fn recursive_mean(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    if o.contains_key("score") && o.contains_key("score_name") {
        return Some(v.clone());
    }
    let mut out = Instance::new();
    let (mut scores, mut counts) = (Vec::new(), Vec::new());
    for (k, child) in o {
        if let Some(s) = recursive_mean(child) {
            scores.push(s.get("score").and_then(Value::as_f64).unwrap_or(f64::NAN));
            if let Some(n) = s.get("num_of_instances").and_then(Value::as_i64) {
                counts.push(n);
            }
            out.insert(k.clone(), s);
        }
    }
    out.insert("score".into(), Value::Number(crate::value::Number::float(crate::metrics::nan_mean(scores))));
    out.insert("score_name".into(), Value::String("subsets_mean".into()));
    if !counts.is_empty() {
        out.insert("num_of_instances".into(), Value::from(counts.iter().sum::<i64>()));
    }
    Some(Value::Object(out))
}

/// The names in an instance's `postprocessors` field (none when it is absent or not a list).
fn processor_names(inst: &Instance) -> Vec<String> {
    match inst.get("postprocessors") {
        Some(Value::Array(a)) => a.iter().map(crate::metrics::py_str).collect(),
        _ => Vec::new(),
    }
}

/// Parses `task_data`, adds `source`, cuts the target prefix (the template's JSON looked up in
/// `catalog`) and runs the instance's postprocessors (`processors`, built from its
/// `postprocessors` field).
fn prepare_item(inst: &Instance, prediction: Value, catalog: &std::sync::Arc<Catalog>, processors: &Postprocessors) -> Result<Item> {
    let mut task_data = match inst.get("task_data") {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return Err(Error::invalid("`task_data` is not a JSON object")),
            Err(e) => return Err(Error::invalid(format!("`task_data` is not valid JSON: {e}"))),
        },
        Some(Value::Object(o)) => o.clone(),
        _ => Instance::new(),
    };
    task_data.insert("source".into(), inst.get("source").cloned().unwrap_or(Value::Null));
    let references = match inst.get("references") {
        Some(Value::Array(a)) => a.clone(),
        _ => return Err(Error::invalid("field `references` is missing or not a list")),
    };
    let metrics = match inst.get("metrics") {
        Some(Value::Array(a)) => a.iter().map(crate::metrics::py_str).collect(),
        Some(Value::String(s)) => vec![s.to_string()],
        _ => Vec::new(),
    };
    let prediction = delete_target_prefix(prediction, &task_data, catalog)?;
    let (prediction, references) = processors.apply(prediction, references, Value::Object(task_data.clone()))?;
    Ok(Item { prediction, references, task_data, metrics })
}

/// Unitxt's `DeleteTargetPrefix`: when `task_data.metadata` names a template with a non-empty
/// `target_prefix`, that prefix (formatted with `task_data`) is removed from the start of a
/// string prediction together with surrounding whitespace.
fn delete_target_prefix(prediction: Value, task_data: &Instance, catalog: &std::sync::Arc<Catalog>) -> Result<Value> {
    let Some(meta) = task_data.get("metadata") else { return Ok(prediction) };
    let template = meta
        .get("template")
        .ok_or_else(|| Error::invalid("`task_data.metadata` has no `template`"))?;
    // A catalog entry may just name another artifact: follow up to 9 names.
    let mut entry: Option<std::sync::Arc<Value>> = None;
    for _ in 0..9 {
        let name = match entry.as_deref().unwrap_or(template) {
            Value::String(name) => name,
            _ => break,
        };
        let next = catalog.get_json(name).with_ctx(|| format!("template {name:?}"))?;
        entry = Some(next);
    }
    let raw = entry.as_deref().unwrap_or(template);
    crate::processors::post_process::delete_target_prefix(raw, prediction, task_data)
}

/// The operator catalog artifact `name` is (built once per catalog, see
/// [`crate::registry::fetch`]).
fn fetch_operator(catalog: &std::sync::Arc<Catalog>, name: &str) -> Result<Art<dyn crate::operators::Operator>> {
    match crate::registry::fetch(catalog, name)? {
        Artifact::Operator(a) => Ok(a),
        other => Err(Error::invalid(format!("postprocessor {name:?} is a {}, not an operator", other.kind()))),
    }
}

/// Applies the postprocessors named in `processors` (catalog names of `catalog`, in order) to
/// one prediction and its references: [`Postprocessors::fetch`] then
/// [`Postprocessors::apply`].
pub fn postprocess(
    processors: &[String],
    prediction: Value,
    references: Vec<Value>,
    task_data: Value,
    catalog: &std::sync::Arc<Catalog>,
) -> Result<(Value, Vec<Value>)> {
    Postprocessors::fetch(processors, |name| fetch_operator(catalog, name)).apply(prediction, references, task_data)
}

/// The metrics of `names`, `metrics_list`s expanded (Unitxt's `ApplyMetric`); with
/// `judge_engine`, every LLM judge among them (and inside them) built with that engine.
fn fetch_metrics(names: &[String], catalog: &std::sync::Arc<Catalog>, judge_engine: Option<&Value>) -> Result<Vec<Art<dyn Metric>>> {
    let mut out = Vec::new();
    for name in names {
        let rewritten = match judge_engine {
            Some(engine) => with_judge_engine(name, engine, catalog).with_ctx(|| format!("metric {name:?}"))?,
            None => None,
        };
        let built = match rewritten {
            Some(json) => crate::registry::build(&json, catalog),
            None => crate::registry::fetch(catalog, name),
        };
        match built.with_ctx(|| format!("metric {name:?}"))? {
            Artifact::Metric(m) => match m.sub_metrics() {
                Some(items) => out.extend(items.iter().cloned()),
                None => out.push(m),
            },
            other => return Err(Error::invalid(format!("{name:?} is a {}, not a metric", other.kind()))),
        }
    }
    Ok(out)
}

/// The JSON of metric `name` (a catalog name with optional overwrites, or JSON text) with
/// the engine of every LLM judge in it replaced by `engine` (see
/// [`EvaluateOptions::judge_engine`]): judges given inline or by catalog name under `metric`,
/// `metrics` or `items`. `None` when it holds no judge (or is neither a name nor JSON text).
fn with_judge_engine(name: &str, engine: &Value, catalog: &std::sync::Arc<Catalog>) -> Result<Option<Value>> {
    fn resolve(v: &Value, catalog: &std::sync::Arc<Catalog>) -> Result<Option<Value>> {
        match v {
            Value::String(s) if s.trim_start().starts_with('{') => Ok(crate::py::json::loads(s, false).ok()),
            Value::String(s) => crate::recipe::named_artifact(s, catalog),
            _ => Ok(None),
        }
    }
    fn rewrite(v: &mut Value, engine: &Value, catalog: &std::sync::Arc<Catalog>, depth: usize) -> Result<bool> {
        if depth > crate::artifact::MAX_ARTIFACT_DEPTH {
            return Err(Error::invalid("metrics nest too deeply"));
        }
        match v {
            Value::Object(m) => {
                let ty = m.get("__type__").and_then(Value::as_str).unwrap_or_default();
                if let Some(field) = crate::metrics::llm_judge::engine_field(ty) {
                    m.insert(field.into(), engine.clone());
                    return Ok(true);
                }
                let mut changed = false;
                for (k, x) in m.iter_mut() {
                    if matches!(k.as_str(), "metric" | "metrics" | "items") {
                        changed |= rewrite_slot(x, engine, catalog, depth)?;
                    }
                }
                Ok(changed)
            }
            Value::Array(a) => {
                let mut changed = false;
                for x in a.iter_mut() {
                    changed |= rewrite_slot(x, engine, catalog, depth)?;
                }
                Ok(changed)
            }
            _ => Ok(false),
        }
    }
    /// A value that holds or names a metric: rewritten in place (a name replaced by its
    /// rewritten JSON) when it holds a judge.
    fn rewrite_slot(x: &mut Value, engine: &Value, catalog: &std::sync::Arc<Catalog>, depth: usize) -> Result<bool> {
        let mut resolved = if matches!(x, Value::String(_)) {
            match resolve(x, catalog)? {
                Some(r) => r,
                None => return Ok(false),
            }
        } else {
            x.clone()
        };
        if rewrite(&mut resolved, engine, catalog, depth + 1)? {
            *x = resolved;
            return Ok(true);
        }
        Ok(false)
    }
    let Some(mut json) = resolve(&Value::from(name), catalog)? else { return Ok(None) };
    Ok(rewrite(&mut json, engine, catalog, 0)?.then_some(json))
}

fn apply_metrics(stream: &[&Item], opts: &EvaluateOptions, catalog: &std::sync::Arc<Catalog>) -> Result<Vec<ScoreState>> {
    let first = stream.first().ok_or_else(|| Error::invalid("empty stream"))?;
    if first.metrics.is_empty() {
        return Err(Error::invalid("the instances name no metrics (field `metrics` is empty or missing)"));
    }
    let metrics = fetch_metrics(&first.metrics, catalog, opts.judge_engine.as_ref())?;
    let mut states = vec![ScoreState::default(); stream.len()];
    for m in metrics.iter().rev() {
        apply_metric(m, stream, opts, &mut states).with_ctx(|| format!("metric {}", m.display_name()))?;
    }
    Ok(states)
}

fn floats(s: &Scores) -> ScoreMap {
    s.iter().map(|(k, v)| (k.clone(), ScoreValue::Float(*v))).collect()
}

/// An instance's scores as its score row: each score, then `score` (the main score, which must
/// be there) and `score_name`, in that order.
fn instance_row(s: &Scores, main: &str) -> Result<ScoreMap> {
    let score = get_f(s, main)?;
    let mut row = floats(s);
    row.insert("score".into(), ScoreValue::Float(score));
    row.insert("score_name".into(), ScoreValue::Text(main.to_string()));
    Ok(row)
}

fn add_lists(map: &mut ScoreMap, lists: crate::metrics::ListScores) {
    for (k, xs) in lists {
        map.insert(k, ScoreValue::List(xs));
    }
}

fn get_f(s: &Scores, name: &str) -> Result<f64> {
    s.get(name).copied().ok_or_else(|| Error::invalid(format!("the metric gives no score `{name}`")))
}

/// Settings every Unitxt metric reads from its JSON besides its own arguments:
/// `score_prefix` (""), `confidence_level` (0.95) and `ci_method` ("BCa").
struct CommonSettings {
    prefix: String,
    level: f64,
    method: CiMethod,
}

fn common_settings(m: &Art<dyn Metric>) -> Result<CommonSettings> {
    let prefix_of = |raw: &Value| -> Result<String> {
        match raw.get("score_prefix") {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.as_str().to_owned()),
            Some(other) => Err(Error::invalid(format!("`score_prefix` is not a string: {other}"))),
        }
    };
    let mut prefix = prefix_of(&m.raw)?;
    // A pipeline passes its own prefix down to its metric when it has one (Unitxt's
    // `MetricPipeline.prepare`); the interval settings are the wrapped metric's.
    let raw = m.settings_raw().unwrap_or(&m.raw);
    if prefix.is_empty() {
        prefix = prefix_of(raw)?;
    }
    let level = match raw.get("confidence_level") {
        None | Some(Value::Null) => CONFIDENCE_LEVEL,
        Some(v) => v
            .as_f64()
            .ok_or_else(|| Error::invalid(format!("`confidence_level` is not a number: {v}")))?,
    };
    let method = match raw.get("ci_method") {
        None | Some(Value::Null) => CiMethod::Bca,
        Some(Value::String(s)) => CiMethod::parse(s)?,
        Some(other) => return Err(Error::invalid(format!("`ci_method` is not a string: {other}"))),
    };
    Ok(CommonSettings { prefix, level, method })
}

/// Unitxt's `_add_score_prefix` over a score dict: every name but `score`, `score_name`,
/// `num_of_instances` (and the `score_ci_*` aliases) gets the prefix, and so does the value of
/// `score_name`.
fn add_prefix(map: ScoreMap, prefix: &str) -> ScoreMap {
    if prefix.is_empty() {
        return map;
    }
    map.into_iter()
        .map(|(k, v)| match k.as_str() {
            "score" | "num_of_instances" | "score_ci_low" | "score_ci_high" => (k, v),
            "score_name" => match v {
                ScoreValue::Text(t) => (k, ScoreValue::Text(format!("{prefix}{t}"))),
                other => (k, other),
            },
            _ => (format!("{prefix}{k}"), v),
        })
        .collect()
}

fn apply_metric(m: &Art<dyn Metric>, stream: &[&Item], opts: &EvaluateOptions, states: &mut [ScoreState]) -> Result<()> {
    let CommonSettings { prefix, level, method } = common_settings(m)?;
    let main = m.main_score().to_string();
    let inputs: Vec<crate::metrics::MetricInput<'_>> = stream
        .iter()
        .map(|it| crate::metrics::MetricInput { prediction: &it.prediction, references: &it.references, task_data: &it.task_data })
        .collect();
    let records: Vec<Value> = m.map_batch(&inputs, opts.model_client.as_deref())?;
    if records.len() != stream.len() {
        return Err(Error::invalid(format!("the metric gave {} records for {} instances", records.len(), stream.len())));
    }
    let all: Vec<&Value> = records.iter().collect();
    let n = records.len();
    let resamples = if opts.confidence_intervals { m.n_resamples() } else { None };
    let fast = if resamples.is_some() { m.resampler(&all)? } else { None };
    let reduce_at = |idx: &[usize]| -> Result<Scores> {
        if let Some(f) = &fast {
            return (f.resample)(idx);
        }
        let sample: Vec<&Value> = idx.iter().map(|&i| &records[i]).collect();
        m.reduce(&sample)
    };
    match m.kind() {
        MetricKind::BulkInstance => bulk_instance_scores(&records, resamples, &prefix, level, method, states)?,
        MetricKind::MapReduce => {
            for (st, r) in states.iter_mut().zip(&records) {
                let s = m.instance_scores(r)?;
                let score = get_f(&s, &main)?;
                let mut new = floats(&s);
                add_lists(&mut new, m.list_scores(&[r])?);
                new.insert("score_name".into(), ScoreValue::Text(main.clone()));
                new.insert("score".into(), ScoreValue::Float(score));
                st.instance.extend(add_prefix(new, &prefix));
            }
            let scores = m.reduce(&all)?;
            let mut g = floats(&scores);
            add_lists(&mut g, m.list_scores(&all)?);
            if let (Some(nr), true) = (resamples, n > 1) {
                let names = m.ci_score_names().unwrap_or_else(|| scores.keys().cloned().collect());
                let stat = |idx: &[usize]| -> Result<Vec<f64>> {
                    let s = reduce_at(idx)?;
                    names.iter().map(|k| get_f(&s, k)).collect()
                };
                let iv = match fast.as_ref().and_then(|f| f.leave_one_out.as_ref()) {
                    Some(loo) => {
                        let jack = |i: usize| -> Result<Vec<f64>> {
                            let s = loo(i)?;
                            names.iter().map(|k| get_f(&s, k)).collect()
                        };
                        unitxt_confidence_intervals(n, names.len(), &stat, Some(&jack), nr, level, method, seed())?
                    }
                    None => unitxt_confidence_intervals(n, names.len(), &stat, None, nr, level, method, seed())?,
                };
                for (k, (lo, hi)) in names.iter().zip(iv) {
                    g.insert(format!("{k}_ci_low"), ScoreValue::Float(lo));
                    g.insert(format!("{k}_ci_high"), ScoreValue::Float(hi));
                }
            }
            let score = get_f(&scores, &main)?;
            g.insert("score_name".into(), ScoreValue::Text(main.clone()));
            g.insert("score".into(), ScoreValue::Float(score));
            for level in ["high", "low"] {
                if let Some(v) = g.get(&format!("{main}_ci_{level}")).cloned() {
                    g.insert(format!("score_ci_{level}"), v);
                }
            }
            g.insert("num_of_instances".into(), ScoreValue::Int(n as i64));
            if !prefix.is_empty() {
                // Unitxt looks the main score's interval up under its unprefixed name.
                g.shift_remove("score_ci_low");
                g.shift_remove("score_ci_high");
            }
            let g = add_prefix(g, &prefix);
            for st in states.iter_mut() {
                st.global.extend(g.clone());
            }
        }
        MetricKind::Instance if m.grouped().is_some() => {
            let gr = m.grouped().ok_or_else(|| Error::invalid("not a group metric"))?;
            for (st, r) in states.iter_mut().zip(&records) {
                let s = m.instance_scores(r)?;
                let new = instance_row(&s, &main)?;
                st.instance.extend(add_prefix(new, &prefix));
            }
            // Unitxt names group scores `<reduction prefix><score_prefix><field>`.
            let gp = gr.score_prefix();
            let scores = m.reduce(&all)?;
            let mut g = ScoreMap::new();
            g.insert("num_of_instances".into(), ScoreValue::Int(n as i64));
            for field in gr.fields() {
                let full = format!("{gp}{prefix}{field}");
                let v = get_f(&scores, &format!("{gp}{field}"))?;
                g.insert(full.clone(), ScoreValue::Float(v));
                if field == main {
                    g.insert("score".into(), ScoreValue::Float(v));
                    g.insert("score_name".into(), ScoreValue::Text(full));
                }
            }
            if let Some(nr) = resamples {
                let mut names = m.ci_scores();
                names.dedup();
                for field in names {
                    if let Some((lo, hi)) = gr.interval(&all, &field, nr, level, method, seed())? {
                        g.insert(format!("{gp}{prefix}{field}_ci_low"), ScoreValue::Float(lo));
                        g.insert(format!("{gp}{prefix}{field}_ci_high"), ScoreValue::Float(hi));
                        if field == main {
                            g.insert("score_ci_low".into(), ScoreValue::Float(lo));
                            g.insert("score_ci_high".into(), ScoreValue::Float(hi));
                        }
                    }
                }
            }
            for st in states.iter_mut() {
                update_and_adjust(&mut st.global, &g);
            }
        }
        MetricKind::Instance => {
            let mut per: Vec<Scores> = Vec::with_capacity(n);
            for (st, r) in states.iter_mut().zip(&records) {
                let s = m.instance_scores(r)?;
                let mut new = instance_row(&s, &main)?;
                let others = m.instance_others(r);
                if !others.is_empty() {
                    // Unitxt's row: what the metric returned, then `score` and `score_name`.
                    let tail: Vec<(String, ScoreValue)> =
                        ["score", "score_name"].iter().filter_map(|k| new.shift_remove_entry(*k)).collect();
                    for (k, v) in others {
                        let v = match v {
                            Value::String(t) => ScoreValue::Text(t.to_string()),
                            other => ScoreValue::Json(other),
                        };
                        new.insert(k, v);
                    }
                    new.extend(tail);
                }
                for &name in m.list_instance_scores() {
                    let key = if name == main { vec![name, "score"] } else { vec![name] };
                    for k in key {
                        if let Some(ScoreValue::Float(x)) = new.get(k).cloned() {
                            new.insert(k.to_string(), ScoreValue::List(vec![x]));
                        }
                    }
                }
                st.instance.extend(add_prefix(new, &prefix));
                per.push(s);
            }
            let scores = m.reduce(&all)?;
            let mut g = ScoreMap::new();
            g.insert("num_of_instances".into(), ScoreValue::Int(n as i64));
            for (k, v) in &scores {
                g.insert(k.clone(), ScoreValue::Float(*v));
                if *k == main {
                    g.insert("score".into(), ScoreValue::Float(*v));
                    g.insert("score_name".into(), ScoreValue::Text(main.clone()));
                }
            }
            if let Some(nr) = resamples {
                let mut names = m.ci_scores();
                names.dedup();
                for name in names {
                    let values: Vec<f64> =
                        per.iter().map(|s| s.get(&name).copied().unwrap_or(f64::NAN)).collect();
                    let max_of = |idx: &[usize]| -> f64 {
                        crate::metrics::nan_max(idx.iter().map(|&i| values[i]))
                    };
                    let agg: Option<&(dyn Fn(&[usize]) -> f64 + Sync)> =
                        if m.reduces_by_max() { Some(&max_of) } else { None };
                    if let Some((lo, hi)) =
                        unitxt_instance_metric_ci(&values, agg, nr, level, method, seed())?
                    {
                        g.insert(format!("{name}_ci_low"), ScoreValue::Float(lo));
                        g.insert(format!("{name}_ci_high"), ScoreValue::Float(hi));
                        if name == main {
                            g.insert("score_ci_low".into(), ScoreValue::Float(lo));
                            g.insert("score_ci_high".into(), ScoreValue::Float(hi));
                        }
                    }
                }
            }
            let g = add_prefix(g, &prefix);
            for st in states.iter_mut() {
                update_and_adjust(&mut st.global, &g);
            }
        }
        MetricKind::Global => {
            for (st, r) in states.iter_mut().zip(&records) {
                // A metric with whole score dicts (a Python `GlobalMetric`): the one-instance
                // dict as computed, then `score` and `score_name` (Unitxt's `_compute`); a
                // failure or a dict without the main score gives `None` scores, as Unitxt.
                let none_row = |v: ScoreValue| {
                    let mut new = ScoreMap::new();
                    new.insert("score".into(), v.clone());
                    new.insert("score_name".into(), ScoreValue::Text(main.clone()));
                    new.insert(main.clone(), v);
                    new
                };
                let new = match m.global_dict(&[r]) {
                    Ok(Some(d)) => whole_scores(&d, &main).unwrap_or_else(|| none_row(ScoreValue::None)),
                    Err(_) => none_row(ScoreValue::None),
                    Ok(None) => match m.instance_scores(r) {
                        Ok(s) if !s.is_empty() => {
                            let mut new = floats(&s);
                            add_lists(&mut new, m.list_scores(&[r]).unwrap_or_default());
                            let score = s.get(&main).copied().map(ScoreValue::Float).unwrap_or(ScoreValue::None);
                            new.insert("score".into(), score);
                            new.insert("score_name".into(), ScoreValue::Text(main.clone()));
                            new
                        }
                        Ok(_) => none_row(ScoreValue::Float(f64::NAN)),
                        Err(_) => none_row(ScoreValue::None),
                    },
                };
                st.instance.extend(add_prefix(new, &prefix));
            }
            let mut g = ScoreMap::new();
            g.insert("num_of_instances".into(), ScoreValue::Int(n as i64));
            match m.global_dict(&all)? {
                Some(d) => g.extend(
                    whole_scores(&d, &main)
                        .ok_or_else(|| Error::invalid(format!("the metric gives no score `{main}`")))?,
                ),
                None => {
                    let scores = m.reduce(&all)?;
                    g.extend(floats(&scores));
                    add_lists(&mut g, m.list_scores(&all)?);
                    g.insert("score".into(), ScoreValue::Float(get_f(&scores, &main)?));
                    g.insert("score_name".into(), ScoreValue::Text(main.clone()));
                }
            }
            if let Some(nr) = resamples {
                let mut names = m.ci_scores();
                if names.is_empty() {
                    names = vec![main.clone()];
                }
                for name in names {
                    let agg = |idx: &[usize]| -> f64 {
                        reduce_at(idx).ok().and_then(|s| s.get(&name).copied()).unwrap_or(f64::NAN)
                    };
                    if let Some((lo, hi)) =
                        unitxt_global_metric_ci(n, &agg, nr, level, method, seed())?
                    {
                        g.insert("score_ci_low".into(), ScoreValue::Float(lo));
                        g.insert("score_ci_high".into(), ScoreValue::Float(hi));
                        g.insert(format!("{name}_ci_low"), ScoreValue::Float(lo));
                        g.insert(format!("{name}_ci_high"), ScoreValue::Float(hi));
                    }
                }
            }
            let g = add_prefix(g, &prefix);
            for st in states.iter_mut() {
                update_and_adjust(&mut st.global, &g);
            }
        }
    }
    if let Some(steps) = m.score_steps() {
        let main = prefixed(&main, &prefix);
        for (i, st) in states.iter_mut().enumerate() {
            pipeline_scores(steps, st, &main).with_ctx(|| format!("instance {i}"))?;
        }
    }
    Ok(())
}

/// The scores of a `BulkInstanceMetric` (see [`MetricKind::BulkInstance`] for its records), as
/// Unitxt's `BulkInstanceMetric.process` writes them: each instance's score dict then `score`
/// and `score_name`; globally `num_of_instances`, the NaN-omitting mean of each score the
/// records' `mean` names (default: the main score), `score` and `score_name` (set where the
/// main score comes), then the main score's interval.
fn bulk_instance_scores(records: &[Value], resamples: Option<usize>, prefix: &str, level: f64, method: CiMethod, states: &mut [ScoreState]) -> Result<()> {
    let n = records.len();
    let mut main = String::new();
    let mut means: Vec<String> = Vec::new();
    let mut win_rates: Vec<String> = Vec::new();
    let mut rows: Vec<ScoreMap> = Vec::with_capacity(n);
    for (i, r) in records.iter().enumerate() {
        let bad = || Error::invalid(format!("instance {i}: a bulk instance metric's record must be {{\"main_score\": .., \"scores\": {{..}}}}"));
        main = r.get("main_score").and_then(Value::as_str).ok_or_else(bad)?.to_string();
        let names = |a: &Vec<Value>| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<String>>();
        win_rates = r.get("weighted_win_rate").and_then(Value::as_array).map(names).unwrap_or_default();
        means = match r.get("mean").and_then(Value::as_array) {
            Some(a) => names(a),
            None if !win_rates.is_empty() => Vec::new(),
            None => vec![main.clone()],
        };
        let scores = r.get("scores").and_then(Value::as_object).ok_or_else(bad)?;
        let mut row: ScoreMap = scores.iter().map(|(k, v)| (k.to_string(), json_score(v))).collect();
        let score = row.get(&main).cloned().ok_or_else(|| Error::invalid(format!("instance {i}: the metric gives no score `{main}`")))?;
        row.insert("score".into(), score);
        row.insert("score_name".into(), ScoreValue::Text(main.clone()));
        rows.push(row);
    }
    let column = |name: &str| -> Result<Vec<f64>> {
        rows.iter()
            .enumerate()
            .map(|(i, r)| match r.get(name) {
                Some(v) => Ok(v.as_f64().unwrap_or(f64::NAN)),
                None => Err(Error::invalid(format!("instance {i}: the metric gives no score `{name}`"))),
            })
            .collect()
    };
    let mut g = ScoreMap::new();
    g.insert("num_of_instances".into(), ScoreValue::Int(n as i64));
    for field in &means {
        let mean = crate::metrics::nan_mean(column(field)?);
        g.insert(field.clone(), ScoreValue::Float(mean));
        if *field == main {
            g.insert("score".into(), ScoreValue::Float(mean));
            g.insert("score_name".into(), ScoreValue::Text(main.clone()));
        }
    }
    // Unitxt's `weighted_win_rate` reduction (a `None` score is an error there, a NaN a tie).
    for field in &win_rates {
        let xs = column(field)?;
        if let Some(i) = (0..xs.len()).find(|&i| xs[i].is_nan() && !rows[i].get(field.as_str()).is_some_and(|v| v.as_f64().is_some())) {
            return Err(Error::invalid(format!("instance {i}: the score `{field}` is not a number; its weighted win rate cannot be computed")));
        }
        let rate = crate::metrics::weighted_win_rate(xs);
        g.insert(field.clone(), ScoreValue::Float(rate));
        if *field == main {
            g.insert("score".into(), ScoreValue::Float(rate));
            g.insert("score_name".into(), ScoreValue::Text(main.clone()));
        }
    }
    if let Some(nr) = resamples.filter(|_| !means.is_empty()) {
        if let Some((lo, hi)) = unitxt_instance_metric_ci(&column(&main)?, None, nr, level, method, seed())? {
            g.insert(format!("{main}_ci_low"), ScoreValue::Float(lo));
            g.insert(format!("{main}_ci_high"), ScoreValue::Float(hi));
            g.insert("score_ci_low".into(), ScoreValue::Float(lo));
            g.insert("score_ci_high".into(), ScoreValue::Float(hi));
        }
    }
    for (st, row) in states.iter_mut().zip(rows) {
        st.instance.extend(add_prefix(row, prefix));
    }
    let g = add_prefix(g, prefix);
    for st in states.iter_mut() {
        update_and_adjust(&mut st.global, &g);
    }
    Ok(())
}

/// A JSON value of a metric's score dict as a [`ScoreValue`]: floats, integers and strings as
/// such, anything else (booleans, lists, objects, `null`) kept as JSON.
fn json_score(v: &Value) -> ScoreValue {
    match v {
        Value::Number(n) if n.is_i64() => ScoreValue::Int(n.as_i64().unwrap_or_default()),
        Value::Number(n) => ScoreValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => ScoreValue::Text(s.as_str().to_owned()),
        other => ScoreValue::Json(other.clone()),
    }
}

/// A global metric's whole score dict (see [`Metric::global_dict`]) as its score row: each
/// value as computed (integers stay integers, `null` is NaN, text, booleans, lists and dicts as
/// they came), then `score` (the main score's value) and `score_name`, as Unitxt's
/// `GlobalMetric._compute` sets them. `None` when the dict has no main score.
fn whole_scores(d: &Instance, main: &str) -> Option<ScoreMap> {
    let conv = |v: &Value| match v {
        Value::Null => ScoreValue::Float(f64::NAN),
        other => json_score(other),
    };
    let score = conv(d.get(main)?);
    let mut row: ScoreMap = d.iter().map(|(k, v)| (k.to_string(), conv(v))).collect();
    row.insert("score".into(), score);
    row.insert("score_name".into(), ScoreValue::Text(main.to_string()));
    Some(row)
}

/// Unitxt's `_add_score_prefix` on one name.
fn prefixed(name: &str, prefix: &str) -> String {
    match name {
        "score" | "score_name" | "num_of_instances" => name.to_string(),
        _ => format!("{prefix}{name}"),
    }
}

/// A metric pipeline's last part: its `postprocess_steps` on the instance's score dicts, then
/// `score`, `score_name` and the main score's interval copied from `main` (Unitxt's
/// `MetricPipeline.prepare_score`; a missing main score is an error there too).
fn pipeline_scores(steps: &[Art<dyn crate::operators::Operator>], st: &mut ScoreState, main: &str) -> Result<()> {
    if !steps.is_empty() {
        let mut score = Instance::new();
        score.insert("instance".into(), score_tree(&st.instance));
        score.insert("global".into(), score_tree(&st.global));
        let mut inst = Instance::new();
        inst.insert("score".into(), Value::Object(score));
        for op in steps {
            inst = crate::operators::apply_to_instance(op, inst, STREAM)
                .with_ctx(|| format!("metric_pipeline postprocess step {}", op.display_name()))?;
        }
        let part = |name: &str| -> Result<ScoreMap> {
            match inst.get("score").and_then(|s| s.get(name)) {
                Some(Value::Object(o)) => Ok(o.iter().map(|(k, v)| (k.to_string(), tree_score(v))).collect()),
                _ => Err(Error::invalid(format!("the postprocess steps left no `score/{name}` dict"))),
            }
        };
        st.instance = part("instance")?;
        st.global = part("global")?;
    }
    let missing = |d: &str| Error::invalid(format!("`score/{d}/{main}` is missing (the pipeline's main_score)"));
    let v = st.instance.get(main).cloned().ok_or_else(|| missing("instance"))?;
    st.instance.insert("score".into(), v);
    let v = st.global.get(main).cloned().ok_or_else(|| missing("global"))?;
    st.global.insert("score".into(), v);
    for level in ["low", "high"] {
        if let Some(v) = st.global.get(&format!("{main}_ci_{level}")).cloned() {
            st.global.insert(format!("score_ci_{level}"), v);
        }
    }
    st.instance.insert("score_name".into(), ScoreValue::Text(main.to_string()));
    st.global.insert("score_name".into(), ScoreValue::Text(main.to_string()));
    Ok(())
}

/// Marks a non-finite float inside a score tree handed to operators (JSON has no NaN).
const NON_FINITE: &str = "\u{0}float:";

/// A score dict as a JSON tree that keeps every value: non-finite floats become marked
/// strings, integers stay integers.
fn score_tree(m: &ScoreMap) -> Value {
    let f = |x: f64| if x.is_finite() { crate::metrics::score_value(x) } else { Value::String(compact_str::format_compact!("{NON_FINITE}{x}")) };
    Value::Object(
        m.iter()
            .map(|(k, v)| {
                let j = match v {
                    ScoreValue::Float(x) => f(*x),
                    ScoreValue::List(xs) => Value::Array(xs.iter().map(|x| f(*x)).collect()),
                    other => other.to_json(),
                };
                (k.clone(), j)
            })
            .collect(),
    )
}

/// The inverse of [`score_tree`] for one value.
fn tree_score(v: &Value) -> ScoreValue {
    let f = |v: &Value| match v {
        Value::String(s) if s.starts_with(NON_FINITE) => s[NON_FINITE.len()..].parse().unwrap_or(f64::NAN),
        other => other.as_f64().unwrap_or(f64::NAN),
    };
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => ScoreValue::Int(n.as_i64().unwrap_or(i64::MAX)),
        Value::Number(_) => ScoreValue::Float(f(v)),
        Value::String(s) if s.starts_with(NON_FINITE) => ScoreValue::Float(f(v)),
        Value::String(s) => ScoreValue::Text(s.as_str().to_owned()),
        Value::Array(a) => ScoreValue::List(a.iter().map(f).collect()),
        _ => ScoreValue::None,
    }
}

/// Unitxt's `update_and_adjust_global_score`: merge, then drop a previous metric's
/// `score_ci_low`/`score_ci_high` when this metric has none.
fn update_and_adjust(global: &mut ScoreMap, new: &ScoreMap) {
    global.extend(new.clone());
    for k in ["score_ci_low", "score_ci_high"] {
        if !new.contains_key(k) {
            global.shift_remove(k);
        }
    }
}

/// A readable table of global scores, like Unitxt's `global_scores.summary`: one row per
/// numeric score (sorted by name, `num_of_instances` left out) with its interval, rounded to
/// two decimals, then the main score's name and the instance count.
pub fn summary(global: &ScoreMap) -> String {
    let mut rows: Vec<(String, String, String, String)> = Vec::new();
    let fmt = |v: Option<&ScoreValue>| match v.and_then(ScoreValue::as_f64) {
        Some(x) if x.is_nan() => String::new(),
        Some(x) => {
            let r = (x * 100.0).round() / 100.0;
            format!("{r}")
        }
        None => String::new(),
    };
    for (k, v) in global {
        if k.ends_with("_ci_low") || k.ends_with("_ci_high") || k == "num_of_instances" {
            continue;
        }
        if v.as_f64().is_none() {
            continue;
        }
        rows.push((
            k.clone(),
            fmt(Some(v)),
            fmt(global.get(&format!("{k}_ci_low"))),
            fmt(global.get(&format!("{k}_ci_high"))),
        ));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let header = ("score_name".to_string(), "score".to_string(), "ci_low".to_string(), "ci_high".to_string());
    let w = |f: fn(&(String, String, String, String)) -> &String| {
        rows.iter().chain(std::iter::once(&header)).map(|r| f(r).chars().count()).max().unwrap_or(0)
    };
    let (w0, w1, w2, w3) = (w(|r| &r.0), w(|r| &r.1), w(|r| &r.2), w(|r| &r.3));
    let mut out = String::new();
    out.push_str(&format!("| {:<w0$} | {:>w1$} | {:>w2$} | {:>w3$} |\n", header.0, header.1, header.2, header.3));
    out.push_str(&format!("|:{}|{}:|{}:|{}:|\n", "-".repeat(w0 + 1), "-".repeat(w1 + 1), "-".repeat(w2 + 1), "-".repeat(w3 + 1)));
    for r in &rows {
        out.push_str(&format!("| {:<w0$} | {:>w1$} | {:>w2$} | {:>w3$} |\n", r.0, r.1, r.2, r.3));
    }
    let name = match global.get("score_name") {
        Some(ScoreValue::Text(s)) => s.clone(),
        _ => String::new(),
    };
    let n = global.get("num_of_instances").and_then(ScoreValue::as_f64).map(|x| x as i64).unwrap_or(0);
    out.push_str(&format!("Main Score: {name}\nNum Instances: {n}"));
    out
}

/// Reads predictions: a JSON array of strings, or JSON Lines of strings or of objects with a
/// `prediction` field. Errors name the line that cannot be read.
pub fn parse_predictions(text: &str) -> Result<Vec<Value>> {
    let t = text.trim_start();
    if t.starts_with('[') {
        if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(t) {
            return Ok(a);
        }
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| Error::invalid(format!("predictions line {}: not JSON ({e})", i + 1)))?;
        match v {
            Value::Object(mut o) => match o.remove("prediction") {
                Some(p) => out.push(p),
                None => {
                    return Err(Error::invalid(format!("predictions line {}: object without `prediction`", i + 1)))
                }
            },
            other => out.push(other),
        }
    }
    Ok(out)
}
