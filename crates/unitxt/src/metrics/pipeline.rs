//! `metric_pipeline` (Unitxt's `MetricPipeline`): a metric wrapped in operators. The
//! `preprocess_steps` reshape each instance (`prediction`, `references`, `task_data`) before the
//! wrapped `metric` sees it (for example, `metrics.squad` turns strings into SQuAD dicts); the
//! `postprocess_steps` (or the deprecated `postpreprocess_steps`) then edit the score dicts
//! (`score/instance/...`, `score/global/...`); last, `score` and `score_name` are set again from
//! the pipeline's `main_score` (with the score prefix), with `score_ci_low`/`score_ci_high` when
//! the main score has an interval.
//!
//! The score edits are run by the evaluation engine ([`crate::evaluate`]), which holds the
//! score dicts: see [`Metric::score_steps`].

use std::sync::Arc;

use serde::Deserialize;

use super::{Metric, MetricKind, Scores};
use crate::artifact::{Art, BuildContext};
use crate::error::{Error, Result, ResultExt};
use crate::operators::{FieldOp, FieldOperator, FieldSpec, InstanceOp, Operator};
use crate::value::{Instance, Value};

/// A `metric_pipeline` artifact. Build errors: no `metric` or `main_score`, both
/// `postprocess_steps` and `postpreprocess_steps` given, or a step that is neither an
/// operator nor a serializer.
pub struct MetricPipeline {
    main_score: String,
    preprocess: Vec<Art<dyn Operator>>,
    postprocess: Vec<Art<dyn Operator>>,
    metric: Art<dyn Metric>,
}

/// The catalog JSON of `metric_pipeline`.
#[derive(Deserialize)]
pub(crate) struct Args {
    #[serde(default)]
    main_score: Option<String>,
    #[serde(default)]
    preprocess_steps: Option<Vec<Value>>,
    #[serde(default)]
    postprocess_steps: Option<Vec<Value>>,
    #[serde(default)]
    postpreprocess_steps: Option<Vec<Value>>,
    #[serde(default)]
    metric: Option<Value>,
    /// A `Metric` setting the pipeline accepts (`metrics.ndcg` sets it); Unitxt's pipeline
    /// itself checks nothing with it, so it is read and not used.
    #[serde(default)]
    #[allow(dead_code)]
    single_reference_per_prediction: Option<bool>,
}

/// A serializer used as a field operator (Unitxt's serializers are `InstanceFieldOperator`s):
/// the value becomes its serialization, or Python's `str` of it when no serializer takes it.
struct SerializeField(Arc<dyn crate::templates::Serializer>);

impl FieldOperator for SerializeField {
    fn reads_instance(&self) -> bool {
        true
    }

    fn process_value(&self, value: Value, instance: &Instance) -> Result<Value> {
        Ok(Value::String(match self.0.serialize(&value, instance)? {
            Some(s) => s.into(),
            None => super::py_str(&value).into(),
        }))
    }
}

/// Builds one step in `cx`: an operator, or a serializer with its field selection.
fn build_step(v: &Value, cx: &BuildContext<'_>) -> Result<Art<dyn Operator>> {
    let built = cx.build_any(v)?;
    let built = match built.downcast::<Art<dyn Operator>>() {
        Ok(op) => return Ok(op),
        Err(other) => other,
    };
    match built.downcast::<Art<dyn crate::templates::Serializer>>() {
        Ok(s) => {
            let spec: FieldSpec = crate::artifact::from_value("serializer step", &s.raw)?;
            let op = FieldOp::new(spec, Arc::new(SerializeField(s.inner.clone())))?;
            let name = s.raw.get("__type__").map(super::py_str).unwrap_or_default();
            let op: Arc<dyn Operator> = Arc::new(InstanceOp { name, scope: Default::default(), op: Arc::new(op) });
            Ok(Art::new(op, (*s.raw).clone()))
        }
        Err(other) => Err(Error::invalid(format!("a metric pipeline step must be an operator, got a {}", other.kind()))),
    }
}

fn build_steps(steps: Option<Vec<Value>>, what: &str, cx: &BuildContext<'_>) -> Result<Vec<Art<dyn Operator>>> {
    steps
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, s)| build_step(s, cx).with_ctx(|| format!("`{what}` step {i}")))
        .collect()
}

impl MetricPipeline {
    /// Builds from the catalog JSON `v`, its metric and steps in `cx`.
    pub fn build(v: &Value, cx: &BuildContext<'_>) -> Result<MetricPipeline> {
        let a: Args = crate::artifact::from_value("metric_pipeline", v)?;
        let metric = cx.build_opt::<dyn Metric>(a.metric.as_ref())?;
        let metric = metric.ok_or_else(|| Error::invalid("`metric` is not set in metric_pipeline"))?;
        let main_score = a.main_score.ok_or_else(|| Error::invalid("`main_score` is not set in metric_pipeline"))?;
        let has = |s: &Option<Vec<Value>>| s.as_ref().is_some_and(|x| !x.is_empty());
        if has(&a.postprocess_steps) && has(&a.postpreprocess_steps) {
            return Err(Error::invalid(
                "metric_pipeline defines both `postprocess_steps` and the deprecated `postpreprocess_steps`",
            ));
        }
        let post = if has(&a.postpreprocess_steps) { a.postpreprocess_steps } else { a.postprocess_steps };
        Ok(MetricPipeline {
            main_score,
            preprocess: build_steps(a.preprocess_steps, "preprocess_steps", cx)?,
            postprocess: build_steps(post, "postprocess_steps", cx)?,
            metric,
        })
    }
}

/// The stream name Unitxt's evaluation gives the data.
const STREAM: &str = "all_data";

impl MetricPipeline {
    /// One instance after the `preprocess_steps`: its prediction, references and task data.
    /// Errors: a step fails, or the steps removed `references`.
    fn preprocessed(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<(Value, Vec<Value>, Instance)> {
        let mut inst = Instance::new();
        inst.insert("prediction".into(), prediction.clone());
        inst.insert("references".into(), Value::Array(references.to_vec()));
        inst.insert("task_data".into(), Value::Object(task_data.clone()));
        for op in &self.preprocess {
            inst = crate::operators::apply_to_instance(op, inst, STREAM)
                .with_ctx(|| format!("metric_pipeline step {}", op.display_name()))?;
        }
        let prediction = inst.get("prediction").cloned().unwrap_or(Value::Null);
        // Steps may turn the references into one value (`metrics.squad` makes a SQuAD dict of
        // them); the metric then sees that value as its only reference.
        let references = match inst.get("references") {
            Some(Value::Array(a)) => a.clone(),
            Some(other) => vec![other.clone()],
            None => return Err(Error::invalid("the metric_pipeline steps removed `references`")),
        };
        let task_data = match inst.get("task_data") {
            Some(Value::Object(o)) => o.clone(),
            _ => Instance::new(),
        };
        Ok((prediction, references, task_data))
    }
}

impl Metric for MetricPipeline {
    fn main_score(&self) -> &str {
        &self.main_score
    }
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        self.metric.unavailable()
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        if self.preprocess.is_empty() {
            return self.metric.map(prediction, references, task_data);
        }
        let (prediction, references, task_data) = self.preprocessed(prediction, references, task_data)?;
        self.metric.map(&prediction, &references, &task_data)
    }
    /// The wrapped metric's `map_batch` on the preprocessed instances, so that a metric that
    /// works on a whole stream (an LLM judge) gets it whole, with the model client.
    fn map_batch(&self, inputs: &[super::MetricInput<'_>], client: Option<&dyn crate::inference::ModelClient>) -> Result<Vec<Value>> {
        if self.preprocess.is_empty() {
            return self.metric.map_batch(inputs, client);
        }
        let done: Vec<(Value, Vec<Value>, Instance)> = inputs
            .iter()
            .enumerate()
            .map(|(i, x)| self.preprocessed(x.prediction, x.references, x.task_data).with_ctx(|| format!("instance {i}")))
            .collect::<Result<_>>()?;
        let inputs: Vec<super::MetricInput<'_>> =
            done.iter().map(|(p, r, t)| super::MetricInput { prediction: p, references: r, task_data: t }).collect();
        self.metric.map_batch(&inputs, client)
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.metric.instance_scores(record)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        self.metric.reduce(records)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.metric.ci_scores()
    }
    fn kind(&self) -> MetricKind {
        self.metric.kind()
    }
    fn n_resamples(&self) -> Option<usize> {
        self.metric.n_resamples()
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        self.metric.ci_score_names()
    }
    fn reduces_by_max(&self) -> bool {
        self.metric.reduces_by_max()
    }
    fn list_instance_scores(&self) -> &[&str] {
        self.metric.list_instance_scores()
    }
    fn resampler<'a>(&'a self, records: &'a [&'a Value]) -> Result<Option<super::Resampler<'a>>> {
        self.metric.resampler(records)
    }
    fn list_scores(&self, records: &[&Value]) -> Result<super::ListScores> {
        self.metric.list_scores(records)
    }
    fn score_steps(&self) -> Option<&[Art<dyn Operator>]> {
        Some(&self.postprocess)
    }
    fn settings_raw(&self) -> Option<&Value> {
        // The wrapped metric's settings (a judge's own, with the prefix its type sets).
        self.metric.settings_raw().or(Some(&self.metric.raw))
    }
}
