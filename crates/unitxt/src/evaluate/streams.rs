//! Operators and metrics applied to named streams of plain instances, as Unitxt 1.26.10 applies
//! them when a script calls an operator on a `MultiStream`
//! (`SequentialOperator(steps=[...])(MultiStream.from_iterables({...}))`).
//!
//! Unlike [`super::evaluate`], nothing is prepared first: a metric step reads each instance's
//! own `prediction`, `references` and `task_data` (no target prefix is cut, no postprocessor
//! runs, `source` is not added), scores the whole stream, and writes `score` =
//! `{"global": .., "instance": ..}` into every instance, over the scores a previous metric left
//! there (Unitxt's `StreamOperator` metrics). A `task_based_ll_mas_judge` first completes
//! instances the way Unitxt's `TaskBasedLLMasJudge.preprocess_instance` does. Any other step
//! is an operator run on the streams as a recipe runs it.

use indexmap::IndexMap;

use super::{apply_metric, json_score, score_map_json, EvaluateOptions, Item, ScoreMap, ScoreState};
use crate::artifact::Art;
use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::metrics::Metric;
use crate::registry::Artifact;
use crate::stream::MultiStream;
use crate::value::{Instance, Value};

/// Named streams of instances (split name → instances, in order), what [`run_steps`] takes and
/// returns.
pub type Streams = IndexMap<String, Vec<Instance>>;

/// Runs `steps` in order on `streams` (Unitxt's `SequentialOperator.process`). Each step is an
/// artifact reference as the registry builds it: a catalog name with optional `[overwrites]`
/// (`"metrics.accuracy"`, `"metrics.x.judge[inference_model=engines.y]"`), JSON text, or an
/// inline object with `__type__`. A `sequential_operator` step is replaced by its own steps (up
/// to its `max_steps`).
///
/// - A metric step scores each stream on its own (see the module documentation); judges send
///   their requests through `opts.model_client`. An empty stream stays empty.
/// - An operator step (`rename`, `set`, `filter_by_condition`, ...) runs on all the streams,
///   as in a card's preprocess steps.
///
/// Errors: a step that does not build or is neither a metric nor an operator (naming the
/// step); a `metrics_list` step (Unitxt cannot run a metrics list on streams either; give its
/// metrics as steps); an instance without `prediction` or a `references` list for a metric
/// (naming stream and instance); a metric or operator failing on the data.
pub fn run_steps(steps: &[Value], mut streams: Streams, opts: &EvaluateOptions) -> Result<Streams> {
    let catalog = std::sync::Arc::new(Catalog::standard(&opts.catalogs));
    let mut flat = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        expand(step, &catalog, &mut flat, 0).with_ctx(|| format!("step {i}"))?;
    }
    for (i, step) in flat.iter().enumerate() {
        let what = match step {
            Value::String(s) => format!("step {i} ({s})"),
            _ => format!("step {i}"),
        };
        let built = crate::registry::build(step, &catalog).with_ctx(|| what.clone())?;
        streams = match built {
            Artifact::Metric(m) if m.sub_metrics().is_some() => {
                return Err(Error::unsupported(format!(
                    "{what}: {} is a metrics list, which is not an operator; give its metrics as separate steps",
                    m.display_name()
                )))
            }
            Artifact::Metric(m) => {
                let mut out = Streams::new();
                for (name, instances) in streams {
                    let scored = score_stream(&m, instances, &name, opts).with_ctx(|| what.clone())?;
                    out.insert(name, scored);
                }
                out
            }
            Artifact::Operator(op) => run_operator(op, streams).with_ctx(|| what.clone())?,
            other => {
                return Err(Error::invalid(format!("{what} is a {}, neither an operator nor a metric", other.kind())));
            }
        };
    }
    Ok(streams)
}

/// Puts `step` into `out`, or the steps of the `sequential_operator` it is or names (its first
/// `max_steps`), recursively.
fn expand(step: &Value, catalog: &std::sync::Arc<Catalog>, out: &mut Vec<Value>, depth: usize) -> Result<()> {
    if depth > crate::artifact::MAX_ARTIFACT_DEPTH {
        return Err(Error::invalid("sequential operators nest too deeply"));
    }
    let json = match step {
        Value::String(s) if s.trim_start().starts_with('{') => crate::py::json::loads(s, false).ok(),
        Value::String(s) => crate::recipe::named_artifact(s, catalog)?,
        Value::Object(_) => Some(step.clone()),
        _ => None,
    };
    let seq = json.as_ref().filter(|j| j.get("__type__").and_then(Value::as_str) == Some("sequential_operator"));
    let Some(seq) = seq else {
        out.push(step.clone());
        return Ok(());
    };
    let steps = match seq.get("steps") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => return Err(Error::invalid(format!("sequential_operator `steps` is not a list: {}", crate::artifact::short(other)))),
    };
    let take = match seq.get("max_steps") {
        None | Some(Value::Null) => steps.len(),
        Some(v) => match v.as_i64() {
            Some(n) if n >= 1 && n as usize <= steps.len() => n as usize,
            _ => {
                return Err(Error::invalid(format!(
                    "sequential_operator `max_steps` must be between 1 and its {} steps, got {}",
                    steps.len(),
                    crate::artifact::short(v)
                )))
            }
        },
    };
    for (i, s) in steps[..take].iter().enumerate() {
        expand(s, catalog, out, depth + 1).with_ctx(|| format!("sequential_operator step {i}"))?;
    }
    Ok(())
}

/// Runs one operator on all the streams, collecting each.
fn run_operator(op: Art<dyn crate::operators::Operator>, streams: Streams) -> Result<Streams> {
    let mut ms = crate::recipe::run_operators(&[op], MultiStream::from_lists(streams))?;
    let mut out = Streams::new();
    for name in ms.names() {
        let stream = ms.take(&name)?;
        out.insert(name, crate::stream::collect(stream)?);
    }
    Ok(out)
}

/// Unitxt's `TaskBasedLLMasJudge.preprocess_instance`: an instance without `task_data` is its
/// own task data (as it was before this step), a missing `prediction` is `None` and missing
/// `references` are `[""]`.
fn task_based_preprocess(inst: &mut Instance) {
    if !inst.contains_key("task_data") {
        let own = Value::Object(inst.clone());
        inst.insert("task_data".into(), own);
    }
    if !inst.contains_key("prediction") {
        inst.insert("prediction".into(), Value::Null);
    }
    if !inst.contains_key("references") {
        inst.insert("references".into(), Value::Array(vec![Value::from("")]));
    }
}

/// What a metric reads of one instance: its `prediction`, its `references` (a list) and its
/// `task_data` (a dict, or JSON text of one; none: empty).
fn stream_item(inst: &Instance) -> Result<Item> {
    let prediction = inst
        .get("prediction")
        .cloned()
        .ok_or_else(|| Error::invalid("the instance has no `prediction` (a metric scores each instance's `prediction` against its `references`)").in_field("prediction"))?;
    let references = match inst.get("references") {
        Some(Value::Array(a)) => a.clone(),
        Some(other) => {
            return Err(Error::invalid(format!("`references` is not a list: {}", crate::artifact::short(other))).in_field("references"))
        }
        None => return Err(Error::invalid("the instance has no `references` (a list)").in_field("references")),
    };
    let task_data = match inst.get("task_data") {
        None => Instance::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(Value::String(s)) => match crate::py::json::loads(s, false) {
            Ok(Value::Object(o)) => o,
            _ => return Err(Error::invalid("`task_data` is text that is not a JSON object").in_field("task_data")),
        },
        Some(other) => {
            return Err(Error::invalid(format!("`task_data` is not a dict: {}", crate::artifact::short(other))).in_field("task_data"))
        }
    };
    Ok(Item { prediction, references, task_data, metrics: Vec::new() })
}

/// The scores an instance already has (from an earlier metric): its `score` dict's `global`
/// and `instance` parts; none when it has no `score`.
fn previous_scores(inst: &Instance) -> Result<ScoreState> {
    let part = |score: &Value, name: &str| -> Result<ScoreMap> {
        match score.get(name) {
            None => Ok(ScoreMap::new()),
            Some(Value::Object(o)) => Ok(o.iter().map(|(k, v)| (k.to_string(), json_score(v))).collect()),
            Some(other) => Err(Error::invalid(format!("`score/{name}` is not a dict: {}", crate::artifact::short(other))).in_field("score")),
        }
    };
    match inst.get("score") {
        None => Ok(ScoreState::default()),
        Some(score @ Value::Object(_)) => Ok(ScoreState { global: part(score, "global")?, instance: part(score, "instance")? }),
        Some(other) => Err(Error::invalid(format!("`score` is not a dict: {}", crate::artifact::short(other))).in_field("score")),
    }
}

/// Applies metric `m` to the instances of stream `name` and writes each instance's `score`.
fn score_stream(m: &Art<dyn Metric>, mut instances: Vec<Instance>, name: &str, opts: &EvaluateOptions) -> Result<Vec<Instance>> {
    if instances.is_empty() {
        return Ok(instances);
    }
    let task_based = m.raw.get("__type__").and_then(Value::as_str) == Some("task_based_ll_mas_judge");
    let mut items = Vec::with_capacity(instances.len());
    let mut states = Vec::with_capacity(instances.len());
    for (i, inst) in instances.iter_mut().enumerate() {
        if task_based {
            task_based_preprocess(inst);
        }
        let at = |e: Error| e.at_instance(name, i);
        items.push(stream_item(inst).map_err(at)?);
        states.push(previous_scores(inst).map_err(at)?);
    }
    let refs: Vec<&Item> = items.iter().collect();
    apply_metric(m, &refs, opts, &mut states)
        .with_ctx(|| format!("metric {} on stream {name:?}", m.display_name()))?;
    for (inst, st) in instances.iter_mut().zip(&states) {
        let mut score = Instance::new();
        score.insert("global".into(), score_map_json(&st.global));
        score.insert("instance".into(), score_map_json(&st.instance));
        inst.insert("score".into(), Value::Object(score));
    }
    Ok(instances)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn streams(v: Value) -> Streams {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, a)| (k.to_string(), a.as_array().unwrap().iter().map(|x| x.as_object().unwrap().clone()).collect()))
            .collect()
    }

    fn opts() -> EvaluateOptions {
        EvaluateOptions { confidence_intervals: false, ..Default::default() }
    }

    #[test]
    fn accuracy_scores_each_stream_and_keeps_the_fields() {
        let data = streams(json!({
            "test": [
                {"prediction": "a", "references": ["a"], "x": 1},
                {"prediction": "b", "references": ["c"], "x": 2}
            ],
            "train": [{"prediction": "z", "references": ["z"]}]
        }));
        let out = run_steps(&[Value::from("metrics.accuracy")], data, &opts()).unwrap();
        let test = &out["test"];
        assert_eq!(test[0]["x"], json!(1));
        assert_eq!(test[0]["score"]["instance"]["accuracy"], json!(1.0));
        assert_eq!(test[1]["score"]["instance"]["accuracy"], json!(0.0));
        assert_eq!(test[1]["score"]["instance"]["score_name"], json!("accuracy"));
        assert_eq!(test[0]["score"]["global"]["accuracy"], json!(0.5));
        assert_eq!(test[1]["score"]["global"]["num_of_instances"], json!(2));
        assert_eq!(out["train"][0]["score"]["global"]["accuracy"], json!(1.0));
        // Global first, then instance, as Unitxt makes the dict.
        let keys: Vec<&str> = test[0]["score"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["global", "instance"]);
    }

    #[test]
    fn a_second_metric_adds_to_the_scores() {
        let data = streams(json!({"test": [
            {"prediction": "a b", "references": ["a b"]},
            {"prediction": "a", "references": ["b"]}
        ]}));
        let steps = [Value::from("metrics.accuracy"), json!({"__type__": "sequential_operator", "steps": ["metrics.string_containment"]})];
        let out = run_steps(&steps, data, &opts()).unwrap();
        let s = &out["test"][0]["score"];
        assert_eq!(s["instance"]["accuracy"], json!(1.0));
        assert_eq!(s["instance"]["string_containment"], json!(1.0));
        assert_eq!(s["instance"]["score_name"], json!("string_containment"));
        assert_eq!(s["global"]["accuracy"], json!(1.0 / 2.0));
        assert_eq!(s["global"]["score_name"], json!("string_containment"));
    }

    #[test]
    fn operators_run_on_the_streams() {
        let data = streams(json!({"test": [{"a": 1}, {"a": 2}]}));
        let steps = [json!({"__type__": "rename", "field_to_field": {"a": "b"}}), json!({"__type__": "set", "fields": {"c": "x"}})];
        let out = run_steps(&steps, data, &opts()).unwrap();
        assert_eq!(Value::Object(out["test"][1].clone()), json!({"b": 2, "c": "x"}));
    }

    #[test]
    fn missing_prediction_is_an_error_naming_the_instance() {
        let data = streams(json!({"test": [{"prediction": "a", "references": ["a"]}, {"references": ["a"]}]}));
        let e = run_steps(&[Value::from("metrics.accuracy")], data, &opts()).unwrap_err();
        assert_eq!(e.location.instance, Some(1));
        assert_eq!(e.location.split.as_deref(), Some("test"));
        assert_eq!(e.location.field.as_deref(), Some("prediction"));
    }

    #[test]
    fn task_based_preprocess_makes_the_instance_its_own_task_data() {
        let mut inst = json!({"question": "q", "metadata": {"data_classification_policy": ["public"]}}).as_object().unwrap().clone();
        task_based_preprocess(&mut inst);
        assert_eq!(
            Value::Object(inst),
            json!({
                "question": "q",
                "metadata": {"data_classification_policy": ["public"]},
                "task_data": {"question": "q", "metadata": {"data_classification_policy": ["public"]}},
                "prediction": null,
                "references": [""]
            })
        );
    }
}
