//! Components implemented outside the engine (a user's Python subclass of Unitxt's
//! `FieldOperator`, `InstanceOperator`, `SingleTypeSerializer`, `InstanceMetric` or
//! `GlobalMetric`), run through a [`CallbackHost`] that the embedding program installs once
//! ([`set_host`]; the Python bindings install one that takes the GIL around each call).
//!
//! Such a component appears in an artifact's JSON as an inline object
//! `{"__type__": "python_callback", "kind": ..., "id": N, "name": "MyOp", ...}` (see
//! [`CALLBACK_TYPE`] and [`build`]): `id` is an opaque handle the host resolves, `name` the
//! component's class name for errors; the other keys are the base class's settings the engine
//! honours itself (a field operator's `field`/`to_field`/..., an instance metric's reduction).
//! Everything around the call (field selection, stream scopes, score assembly, bootstrap
//! intervals) is the engine's own.

use std::sync::{Arc, OnceLock};

use serde::Deserialize;

use crate::artifact::{from_value, Art};
use crate::error::{Error, Result};
use crate::metrics::{nan_max, nan_mean, record_scores, scores_record, Metric, MetricKind, Scores};
use crate::operators::{FieldOp, FieldOperator, FieldSpec, FieldsRead, InstanceOp, InstanceOperator, Operator};
use crate::stream::StreamScope;
use super::Artifact;
use crate::templates::Serializer;
use crate::value::{Instance, Value};

/// The `__type__` of an inline callback component.
pub use crate::artifact::CALLBACK_TYPE;

/// What runs a callback component's method: `call(id, method, args)` gives the method's
/// result, both as JSON-like values. Errors (an exception in the component) are returned as
/// [`Error`]s whose message says what was raised.
///
/// Methods called, by kind: `process_value` (`{"value"}`) for field operators, `process`
/// (`{"instance", "stream_name"}`, returns the instance) for instance operators, `serialize`
/// (`{"value", "instance"}`, returns a string, or `null` when the value is not of the
/// serializer's type) for serializers, and `compute` for metrics (`{"references",
/// "prediction", "task_data"}` for instance metrics; `{"references", "predictions",
/// "task_data"}` (lists) for global metrics; both return a dict of scores).
pub trait CallbackHost: Send + Sync {
    /// Calls `method` of component `id` with `args`.
    fn call(&self, id: u64, method: &str, args: Value) -> Result<Value>;

    /// The inline callback object (`__type__` [`CALLBACK_TYPE`]) of the component that
    /// `component` describes as Unitxt writes it (`{"__type__": "<its class in snake case>",
    /// <its arguments>}`, see [`crate::artifact::unitxt_form`]), made by the host from a class
    /// of that name it knows, as Unitxt makes an object of a registered class from its JSON;
    /// `None` when the host knows no such class. Errors: the class rejects the arguments.
    fn resolve(&self, _component: &Value) -> Result<Option<Value>> {
        Ok(None)
    }
}

static HOST: OnceLock<Box<dyn CallbackHost>> = OnceLock::new();

/// Installs the process's callback host; false when one is installed already (it stays).
pub fn set_host(host: Box<dyn CallbackHost>) -> bool {
    HOST.set(host).is_ok()
}

/// Calls `method` of component `id` (named `name` in errors) through the installed host.
fn call(id: u64, name: &str, method: &str, args: Value) -> Result<Value> {
    let host = HOST.get().ok_or_else(|| {
        Error::unsupported(format!("component `{name}` is a Python callback, but no Python interpreter is attached"))
    })?;
    host.call(id, method, args).map_err(|e| e.context(format!("in Python component `{name}` ({method})")))
}

/// The component of a type the engine does not know, when the installed host has a class of
/// that name (see [`CallbackHost::resolve`]): built from the callback object the host makes.
/// `None` when no host is installed or it knows no such class.
pub fn resolve(v: &Value) -> Option<Result<Artifact>> {
    let host = HOST.get()?;
    match host.resolve(v) {
        Ok(Some(callback)) => Some(build(&callback)),
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    }
}

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut m = Instance::new();
    for (k, v) in pairs {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

/// The keys common to every callback object.
#[derive(Deserialize)]
struct Head {
    /// `field_operator`, `instance_operator`, `serializer`, `instance_metric`, `global_metric`.
    kind: String,
    id: u64,
    name: String,
}

/// An instance metric's settings (Unitxt's `InstanceMetric` fields).
#[derive(Deserialize)]
struct MetricSpec {
    main_score: String,
    /// The fields the `mean` reduction averages (Unitxt's `reduction_map["mean"]`).
    #[serde(default)]
    mean: Vec<String>,
    /// The fields the `max` reduction takes the max of.
    #[serde(default)]
    max: Vec<String>,
    /// `ci_scores`: the scores that get confidence intervals (none when absent, as Unitxt).
    #[serde(default)]
    ci_scores: Option<Vec<String>>,
    /// `n_resamples` (absent: the class default).
    #[serde(default)]
    n_resamples: Option<usize>,
}

/// Builds the callback component `v` describes (an object with `__type__` [`CALLBACK_TYPE`]).
/// Errors on an unknown `kind` or malformed settings.
pub fn build(v: &Value) -> Result<Artifact> {
    let t = CALLBACK_TYPE;
    let head: Head = from_value(t, &strip(v, &["kind", "id", "name"]))?;
    let label = format!("{} (Python)", head.name);
    match head.kind.as_str() {
        "field_operator" => {
            let scope: StreamScope = from_value(t, v)?;
            let spec: FieldSpec = from_value(t, v)?;
            let inner = FieldOp::new(spec, Arc::new(ValueCall { id: head.id, name: head.name.clone() }))?;
            Ok(op_artifact(label, scope, Ordered(inner), v))
        }
        "instance_operator" => {
            let scope: StreamScope = from_value(t, v)?;
            Ok(op_artifact(label, scope, InstanceCall { id: head.id, name: head.name }, v))
        }
        "serializer" => {
            let s: Arc<dyn Serializer> = Arc::new(SerializerCall { id: head.id, name: head.name });
            Ok(Artifact::Serializer(Art::new(s, v.clone())))
        }
        "instance_metric" | "global_metric" => {
            let spec: MetricSpec = from_value(t, &strip(v, &["main_score", "mean", "max", "ci_scores", "n_resamples"]))?;
            let global = head.kind == "global_metric";
            if !global && spec.mean.is_empty() && spec.max.is_empty() {
                return Err(Error::invalid(format!("metric `{}` has no reduction_map fields to reduce (mean or max)", head.name)));
            }
            let m: Arc<dyn Metric> = Arc::new(MetricCall { id: head.id, name: head.name, global, spec });
            Ok(Artifact::Metric(Art::new(m, v.clone())))
        }
        other => Err(Error::invalid(format!("unknown Python component kind {other:?}"))),
    }
}

/// `v`'s object with only the `keys` kept.
fn strip(v: &Value, keys: &[&str]) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().filter(|(k, _)| keys.contains(&k.as_ref())).map(|(k, v)| (k.clone(), v.clone())).collect()),
        other => other.clone(),
    }
}

fn op_artifact<T: InstanceOperator + 'static>(name: String, scope: StreamScope, op: T, v: &Value) -> Artifact {
    let op: Arc<dyn Operator> = Arc::new(InstanceOp { name, scope, op: Arc::new(op) });
    Artifact::Operator(Art::new(op, v.clone()))
}

/// A field operator's `process_value`, called back.
struct ValueCall {
    id: u64,
    name: String,
}

impl FieldOperator for ValueCall {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        call(self.id, &self.name, "process_value", obj([("value", value)]))
    }
}

/// Runs the wrapped operator on the reading thread, in stream order, as Unitxt runs a Python
/// operator (which may keep state between instances).
struct Ordered<T>(T);

impl<T: InstanceOperator> InstanceOperator for Ordered<T> {
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance> {
        self.0.process_instance(instance, split)
    }
    fn needs_stream_order(&self) -> bool {
        true
    }
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Any
    }
}

/// An instance operator's `process(instance, stream_name)`, called back.
struct InstanceCall {
    id: u64,
    name: String,
}

impl InstanceOperator for InstanceCall {
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance> {
        let args = obj([("instance", Value::Object(instance)), ("stream_name", Value::String(split.into()))]);
        match call(self.id, &self.name, "process", args)? {
            Value::Object(m) => Ok(m),
            other => Err(Error::invalid(format!(
                "Python component `{}`: process must return the instance dict, got {}",
                self.name,
                crate::artifact::short(&other)
            ))),
        }
    }
    fn needs_stream_order(&self) -> bool {
        true
    }
}

/// A `SingleTypeSerializer`'s `serialize(value, instance)`, called back when the value is of
/// its `serialized_type` (the host answers `null` otherwise, for the next serializer to try).
struct SerializerCall {
    id: u64,
    name: String,
}

impl Serializer for SerializerCall {
    fn serialize(&self, value: &Value, instance: &Instance) -> Result<Option<String>> {
        let args = obj([("value", value.clone()), ("instance", Value::Object(instance.clone()))]);
        match call(self.id, &self.name, "serialize", args)? {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.to_string())),
            other => Err(Error::invalid(format!(
                "Python serializer `{}` must return a string, got {}",
                self.name,
                crate::artifact::short(&other)
            ))),
        }
    }
}

/// A Python `InstanceMetric` or `GlobalMetric`. Records: an instance metric's are its instance
/// scores (one `compute` call per instance); a global metric's are the instance's inputs
/// `{"p", "r", "t"}`, and every reduction (all instances, one instance, a bootstrap resample)
/// is a `compute` call over lists; the instance and global scores are its whole dicts
/// ([`Metric::global_dict`]: text, lists and dicts kept beside the numbers, as Unitxt keeps
/// them), the resamples read only its numbers.
struct MetricCall {
    id: u64,
    name: String,
    global: bool,
    spec: MetricSpec,
}

/// A dict of scores from Python, split into its numbers (booleans as 0/1, `None` as NaN) and
/// its other values (text, lists, dicts), which Unitxt keeps in the instance's scores beside
/// the numbers but no reduction reads.
fn scores_of(v: Value, name: &str) -> Result<(Scores, Instance)> {
    let Value::Object(m) = v else {
        return Err(Error::invalid(format!("Python metric `{name}`: compute must return a dict of scores")));
    };
    let mut out = Scores::new();
    let mut others = Instance::new();
    for (k, v) in m {
        match v {
            Value::Number(_) | Value::Bool(_) | Value::Null => {
                out.insert(k.to_string(), crate::metrics::value_score(&v)?);
            }
            other => {
                others.insert(k, other);
            }
        }
    }
    Ok((out, others))
}

/// The numeric scores of an instance metric's record `{"s": scores, "o": other values}`.
fn record_part<'a>(record: &'a Value, part: &str) -> &'a Value {
    static EMPTY: Value = Value::Null;
    record.get(part).unwrap_or(&EMPTY)
}

impl MetricCall {
    /// A global metric's `compute` over `records`: its dict as returned.
    fn compute_dict(&self, records: &[&Value]) -> Result<Value> {
        let col = |k: &str| Value::Array(records.iter().map(|r| r.get(k).cloned().unwrap_or(Value::Null)).collect());
        let args = obj([("references", col("r")), ("predictions", col("p")), ("task_data", col("t"))]);
        call(self.id, &self.name, "compute", args)
    }

    fn compute_global(&self, records: &[&Value]) -> Result<Scores> {
        Ok(scores_of(self.compute_dict(records)?, &self.name)?.0)
    }
}

/// Score `k` of each instance metric record (NaN where it is missing).
fn column(records: &[&Value], k: &str) -> Result<Vec<f64>> {
    records.iter().map(|r| record_part(r, "s").get(k).map_or(Ok(f64::NAN), crate::metrics::value_score)).collect()
}

impl Metric for MetricCall {
    fn main_score(&self) -> &str {
        &self.spec.main_score
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        if self.global {
            return Ok(obj([
                ("p", prediction.clone()),
                ("r", Value::Array(references.to_vec())),
                ("t", Value::Object(task_data.clone())),
            ]));
        }
        let args = obj([
            ("references", Value::Array(references.to_vec())),
            ("prediction", prediction.clone()),
            ("task_data", Value::Object(task_data.clone())),
        ]);
        let (s, others) = scores_of(call(self.id, &self.name, "compute", args)?, &self.name)?;
        if !s.contains_key(&self.spec.main_score) {
            return Err(Error::invalid(format!("Python metric `{}`: compute gave no {:?} score", self.name, self.spec.main_score)));
        }
        Ok(obj([("s", scores_record(&s)), ("o", Value::Object(others))]))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        if self.global {
            return self.compute_global(&[record]);
        }
        record_scores(record_part(record, "s"))
    }
    fn instance_others(&self, record: &Value) -> Vec<(String, Value)> {
        match record_part(record, "o") {
            Value::Object(m) if !self.global => m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            _ => Vec::new(),
        }
    }
    fn global_dict(&self, records: &[&Value]) -> Result<Option<Instance>> {
        if !self.global {
            return Ok(None);
        }
        match self.compute_dict(records)? {
            Value::Object(m) => Ok(Some(m)),
            _ => Err(Error::invalid(format!("Python metric `{}`: compute must return a dict of scores", self.name))),
        }
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        if self.global {
            return self.compute_global(records);
        }
        let mut out = Scores::new();
        for k in &self.spec.mean {
            out.insert(k.clone(), nan_mean(column(records, k)?));
        }
        for k in &self.spec.max {
            out.insert(k.clone(), nan_max(column(records, k)?));
        }
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.spec.ci_scores.clone().unwrap_or_default()
    }
    fn kind(&self) -> MetricKind {
        if self.global {
            MetricKind::Global
        } else {
            MetricKind::Instance
        }
    }
    fn n_resamples(&self) -> Option<usize> {
        self.spec.n_resamples.or(self.kind().default_resamples()).filter(|&n| n > 0)
    }
    fn reduces_by_max(&self) -> bool {
        self.spec.mean.is_empty() && !self.spec.max.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host standing in for Python: component 1 upper-cases values, component 2 fails, and
    /// component 3 scores 1.0 when the prediction equals the first reference.
    struct Fake;

    impl CallbackHost for Fake {
        fn call(&self, id: u64, method: &str, args: Value) -> Result<Value> {
            match (id, method) {
                (1, "process_value") => Ok(Value::from(args.get("value").and_then(|v| v.as_str()).unwrap_or_default().to_uppercase())),
                (3, "compute") => {
                    let hit = args.get("prediction") == args.get("references").and_then(|r| r.as_array()).and_then(|r| r.first());
                    Ok(serde_json::from_str(&format!(r#"{{"acc": {}, "label": "x"}}"#, if hit { 1.0 } else { 0.0 })).unwrap())
                }
                (5, "compute") => {
                    let n = args.get("predictions").and_then(|p| p.as_array()).map_or(0, |p| p.len());
                    Ok(serde_json::from_str(&format!(r#"{{"note": "{n} seen", "hits": 0.5, "n": {n}, "ok": true}}"#)).unwrap())
                }
                _ => Err(Error::invalid("ValueError: boom")),
            }
        }
    }

    fn json(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn field_operator_metric_and_errors_go_through_the_host() {
        set_host(Box::new(Fake));
        let op = match build(&json(r#"{"__type__": "python_callback", "kind": "field_operator", "id": 1, "name": "Up", "field": "a", "to_field": "b"}"#)).unwrap() {
            Artifact::Operator(o) => o,
            _ => panic!("not an operator"),
        };
        let inst = json(r#"{"a": "hi"}"#).as_object().unwrap().clone();
        let out = crate::operators::apply_to_instance(&op, inst.clone(), "test").unwrap();
        assert_eq!(out.get("b"), Some(&Value::from("HI")));
        assert_eq!(out.get("a"), Some(&Value::from("hi")));

        let bad = match build(&json(r#"{"__type__": "python_callback", "kind": "field_operator", "id": 2, "name": "Boom", "field": "a"}"#)).unwrap() {
            Artifact::Operator(o) => o,
            _ => panic!("not an operator"),
        };
        let e = crate::operators::apply_to_instance(&bad, inst, "test").unwrap_err().to_string();
        assert!(e.contains("Boom") && e.contains("ValueError: boom"), "{e}");

        let m = match build(&json(r#"{"__type__": "python_callback", "kind": "instance_metric", "id": 3, "name": "Acc", "main_score": "acc", "mean": ["acc"]}"#)).unwrap() {
            Artifact::Metric(m) => m,
            _ => panic!("not a metric"),
        };
        let td = Instance::new();
        let r1 = m.map(&Value::from("a"), &[Value::from("a")], &td).unwrap();
        let r2 = m.map(&Value::from("a"), &[Value::from("b")], &td).unwrap();
        assert_eq!(m.instance_scores(&r1).unwrap().get("acc"), Some(&1.0));
        assert_eq!(m.instance_others(&r1), vec![("label".to_string(), Value::from("x"))]);
        assert_eq!(m.reduce(&[&r1, &r2, &r1, &r1]).unwrap().get("acc"), Some(&0.75));
        assert_eq!(m.kind(), MetricKind::Instance);
        assert!(m.ci_scores().is_empty(), "no ci_scores given: no intervals, as Unitxt");

        assert!(build(&json(r#"{"__type__": "python_callback", "kind": "nope", "id": 4, "name": "X"}"#)).is_err());

        // A global metric's whole dict comes back as computed, text and integers included.
        let g = match build(&json(r#"{"__type__": "python_callback", "kind": "global_metric", "id": 5, "name": "G", "main_score": "hits"}"#)).unwrap() {
            Artifact::Metric(m) => m,
            _ => panic!("not a metric"),
        };
        let r = g.map(&Value::from("a"), &[Value::from("a")], &td).unwrap();
        let d = g.global_dict(&[&r, &r, &r]).unwrap().unwrap();
        assert_eq!(Value::Object(d), json(r#"{"note": "3 seen", "hits": 0.5, "n": 3, "ok": true}"#));
        assert_eq!(g.reduce(&[&r]).unwrap().get("n"), Some(&1.0));
        assert_eq!(m.global_dict(&[&r1]).unwrap(), None, "an instance metric has no whole dicts");
    }
}
