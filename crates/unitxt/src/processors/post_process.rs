//! `post_process` (Unitxt's `processors.PostProcess`) and [`postprocess`], which applies an
//! instance's `postprocessors` list to a prediction and its references.

use std::sync::Arc;

use serde::Deserialize;

use crate::artifact::{Art, BuildContext};
use crate::error::{Error, Result, ResultExt};
use crate::operators::Operator;
use crate::stream::MultiStream;
use crate::value::{Instance, Value};

/// The split name Unitxt gives to predictions post-processed without references
/// (`constants.inference_stream`); references are never processed in it.
pub const INFERENCE_STREAM: &str = "__INFERENCE_STREAM__";

/// `post_process`: applies a field operator to the `prediction` field and to every item of
/// the `references` list (Unitxt's `processors.PostProcess`).
///
/// The wrapped `operator` (inline or a catalog name) is built twice from its JSON: once with
/// `field: "prediction"`, once with `field: "references"`, `process_every_value: true` and
/// `dont_apply_to_streams: ["__INFERENCE_STREAM__"]`; other settings (`to_field`, ...) are
/// kept, as Unitxt copies the operator and sets those three. `process_prediction` and
/// `process_references` (both default true) switch either part off. Errors at build time when
/// the operator does not build, at processing time when a field is missing or the operator
/// fails on a value.
pub struct PostProcess {
    prediction: Option<Art<dyn Operator>>,
    references: Option<Art<dyn Operator>>,
}

/// The catalog JSON of `post_process`.
#[derive(Deserialize)]
pub(crate) struct PostProcessArgs {
    operator: Value,
    #[serde(default = "yes")]
    process_prediction: bool,
    #[serde(default = "yes")]
    process_references: bool,
}

fn yes() -> bool {
    true
}

/// Builds `raw` with the given keys set, as an operator, in `cx`.
fn build_with(raw: &Value, set: &[(&str, Value)], cx: &BuildContext<'_>) -> Result<Art<dyn Operator>> {
    let mut v = raw.clone();
    let m = v.as_object_mut().ok_or_else(|| Error::invalid("post_process `operator` must be an artifact object"))?;
    for (k, x) in set {
        m.insert(crate::value::Key::from(&**k), x.clone());
    }
    build_operator(&v, cx)
}

/// Builds `v` in `cx`, as an operator (an error names what else it is).
fn build_operator(v: &Value, cx: &BuildContext<'_>) -> Result<Art<dyn Operator>> {
    let a = cx.build_any(v)?;
    a.downcast::<Art<dyn Operator>>().map_err(|a| Error::invalid(format!("post_process needs a field operator, got a {}", a.kind())))
}

impl PostProcess {
    /// Builds from the catalog JSON, the wrapped operator in `cx`.
    pub fn from_json(v: &Value, cx: &BuildContext<'_>) -> Result<PostProcess> {
        let args: PostProcessArgs = crate::artifact::from_value("post_process", v)?;
        let raw = match &args.operator {
            Value::Object(_) => args.operator.clone(),
            other => (*build_operator(other, cx).ctx("post_process `operator`")?.raw).clone(),
        };
        let prediction = if args.process_prediction {
            Some(build_with(&raw, &[("field", Value::from("prediction"))], cx).ctx("post_process on `prediction`")?)
        } else {
            None
        };
        let references = if args.process_references {
            let set = [
                ("field", Value::from("references")),
                ("process_every_value", Value::Bool(true)),
                ("dont_apply_to_streams", Value::Array(vec![Value::from(INFERENCE_STREAM)])),
            ];
            Some(build_with(&raw, &set, cx).ctx("post_process on `references`")?)
        } else {
            None
        };
        Ok(PostProcess { prediction, references })
    }
}

impl Operator for PostProcess {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        for op in [&self.prediction, &self.references].into_iter().flatten() {
            ms = op.inner.clone().process(ms)?;
        }
        Ok(ms)
    }
}

/// The postprocessors an instance names (its `postprocessors` field: catalog names, in
/// order), built once so that applying them to many instances looks nothing up.
///
/// A name that does not build (unknown, or not an operator) is kept as its error, which
/// [`Postprocessors::apply`] returns when it reaches that name: the processors before it still
/// run first, so the error is the one applying them one by one gives.
pub struct Postprocessors {
    steps: Vec<(String, std::result::Result<Art<dyn Operator>, Error>)>,
}

/// Unitxt's `DeleteTargetPrefix` for a template given as its catalog JSON `template`: when
/// the template has a non-empty `target_prefix`, that prefix (formatted with `task_data`, as
/// `str.format`) is removed from the start of a string prediction, with the whitespace
/// around it. Other predictions are returned unchanged. Errors: the prefix does not format
/// with `task_data` (a missing field).
pub fn delete_target_prefix(template: &Value, prediction: Value, task_data: &Instance) -> Result<Value> {
    let prefix = template.get("target_prefix").and_then(Value::as_str).unwrap_or("");
    if prefix.is_empty() {
        return Ok(prediction);
    }
    let prefix = crate::py::str_format::py_format(prefix, task_data)
        .map_err(|e| Error::invalid(format!("formatting the template's target_prefix {prefix:?}: {e:?}")))?;
    let Value::String(p) = prediction else { return Ok(prediction) };
    // Python's `str.strip()` whitespace.
    let py_space = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    let rest = p.trim_start_matches(py_space);
    Ok(Value::String(match rest.strip_prefix(prefix.as_str()) {
        Some(after) => after.trim_start_matches(py_space).into(),
        None => p,
    }))
}

impl Postprocessors {
    /// The postprocessors named in `names`, each built by `fetch` (which gives the operator a
    /// catalog name names, or an error naming what it is instead).
    pub fn fetch(names: &[String], fetch: impl Fn(&str) -> Result<Art<dyn Operator>>) -> Postprocessors {
        let steps = names.iter().map(|name| (name.clone(), fetch(name).with_ctx(|| format!("postprocessor {name:?}")))).collect();
        Postprocessors { steps }
    }

    /// Applies the postprocessors to one prediction and its references, as Unitxt's evaluation
    /// applies an instance's `postprocessors` field: the instance `{prediction, references,
    /// task_data}` passes through each processor in a `test` split (so references are
    /// processed too; operators such as `match_closest_option` read `task_data`). Returns the
    /// processed prediction and references.
    ///
    /// Not done here (done by Unitxt before the processors): removing the template's
    /// `target_prefix` from the prediction. Errors name the processor that failed: unknown
    /// name, a processor that is not an operator, or a value it cannot handle (Unitxt raises
    /// there too).
    pub fn apply(&self, prediction: Value, references: Vec<Value>, task_data: Value) -> Result<(Value, Vec<Value>)> {
        let mut inst = Instance::with_capacity(3);
        inst.insert("prediction".into(), prediction);
        inst.insert("references".into(), Value::Array(references));
        inst.insert("task_data".into(), task_data);
        for (name, op) in &self.steps {
            let op = op.as_ref().map_err(Clone::clone)?;
            inst = crate::operators::apply_to_instance(op, inst, "test").with_ctx(|| format!("postprocessor {name:?}"))?;
        }
        let prediction = inst.shift_remove("prediction").unwrap_or(Value::Null);
        let references = match inst.shift_remove("references") {
            Some(Value::Array(a)) => a,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "after the postprocessors `references` is not a list: {}",
                    crate::artifact::short(&other)
                )))
            }
            None => Vec::new(),
        };
        Ok((prediction, references))
    }
}
