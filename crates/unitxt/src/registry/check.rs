//! `catalog check` ([`super::check`]): builds every artifact of a catalog and, inside each,
//! every nested part, so that an artifact counts as working only when all its parts do.
//!
//! Building an artifact builds what it needs to run its own step (a card's task and templates,
//! a template's serializer), but some parts are kept as JSON until evaluation: a template's
//! `postprocessors`, a task's `metrics`, steps that set such lists. Unitxt instantiates every
//! dict with a `__type__` when it loads an artifact, and looks the names up later. The check
//! does both now: every inline `{"__type__": ...}` object anywhere in the artifact's JSON is
//! built, and every string that names an artifact of the catalog (with optional
//! `[overwrites]`) is checked in turn, once per name. A name in a `postprocessors` or
//! `metrics` list must exist.
//!
//! What an artifact needs is sorted by [`Need`]: an inference engine that would call an
//! OpenAI-compatible API, and an LLM judge whose engine would, need only an endpoint
//! ([`Need::Endpoint`]); an engine that cannot be called here (watsonx, local weights) and a
//! metric that needs local model weights need a model ([`Need::Model`], with the model the
//! metric's `model_name` names). An artifact that needs several things is counted under the
//! one an endpoint does not give (a model or the network).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{build, fetch, Artifact, Outcome};
use crate::artifact::{Art, META_KEYS};
use crate::catalog::Catalog;
use crate::error::{Need, Result, Unavailable};
use crate::inference::InferenceEngine;
use crate::query::{is_legal_catalog_name, split_name_and_overwrites};
use crate::value::Value;

/// Unitxt artifact types that are parts of another artifact, read (and checked) by the
/// artifact that holds them rather than built on their own: a criteria's options, a dialog
/// template's dialog fields, a multi-turn metric's reduction.
const PART_TYPES: &[&str] = &["criteria_option", "dialog_fields_data", "sequential_success", "group_mean"];

/// Keys whose strings are catalog names of artifacts that Unitxt fetches when it evaluates
/// (a template's postprocessors, a task's metrics): a dotted name there must exist.
const NAME_LISTS: &[&str] = &["postprocessors", "metrics"];

/// The outcome of every artifact of `catalog` whose name starts with `prefix`, in the order
/// of [`Catalog::all_names`] (see [`super::check`]).
pub(super) fn check_all(catalog: &Arc<Catalog>, prefix: &str) -> Vec<(String, Outcome)> {
    let mut checker = Checker { catalog, done: HashMap::new(), open: HashSet::new() };
    catalog
        .all_names()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(|name| {
            let outcome = checker.named(&name);
            (name, outcome)
        })
        .collect()
}

/// The outcomes found so far, per query, and the queries being checked (a name met again
/// while it is being checked is judged where it was first met).
struct Checker<'c> {
    catalog: &'c Arc<Catalog>,
    done: HashMap<String, Outcome>,
    open: HashSet<String>,
}

/// The outcome of one build, `json` being the artifact's JSON (overwrites applied): a metric
/// that builds only as a stand-in that cannot compute and an error that says what it needs
/// are [`Outcome::Needs`]; a panic is a failure. An LLM judge (a type with an engine field,
/// [`crate::metrics::llm_judge::engine_field`]) needs what its
/// engine needs; an engine needs what [`engine_outcome`] says; a metric's need of a model
/// names the model of its `model_name`. The flag: the outcome is the need of a metric inside
/// (a `metrics_list`'s items, the `metric` of a pipeline or `metric_based_ner`), which that
/// metric's own check, among the parts, says better.
fn outcome_of(built: std::thread::Result<Result<Artifact>>, json: Option<&Value>, catalog: &Arc<Catalog>) -> (Outcome, bool) {
    let ty = json.and_then(|j| j.get("__type__")).and_then(Value::as_str).unwrap_or_default();
    match built {
        Ok(Ok(Artifact::Metric(m))) => match m.unavailable() {
            None => (Outcome::Works, false),
            Some(_) if crate::metrics::llm_judge::engine_field(ty).is_some() => (judge_outcome(ty, json, catalog), false),
            Some(mut u) => {
                let model = json.and_then(|j| j.get("model_name")).and_then(Value::as_str);
                if let (Need::Model, Some(model)) = (u.need, model) {
                    u.reason = format!("{}: model `{model}`", u.reason);
                }
                let wraps = m.sub_metrics().is_some() || json.is_some_and(|j| j.get("metric").is_some());
                (Outcome::Needs(u), wraps)
            }
        },
        Ok(Ok(Artifact::Engine(e))) => (engine_outcome(&*e.inner), false),
        Ok(Ok(_)) => (Outcome::Works, false),
        Ok(Err(e)) => match e.unavailable() {
            Some(u) => (Outcome::Needs(u.clone()), false),
            None => (Outcome::Fails(first_line(&e.to_string())), false),
        },
        Err(_) => (Outcome::Fails("building it panicked (a bug in unitxt-rs)".to_string()), false),
    }
}

/// What a built inference engine needs to run: nothing when it answers here (the mock
/// engine); [`Need::Endpoint`] when it makes its requests for an OpenAI-compatible API, and
/// also when making them fails for a setting this environment lacks (an API key, a host: the
/// reason says which); what its error says it needs otherwise (a model it cannot call here).
pub(super) fn engine_outcome(e: &dyn InferenceEngine) -> Outcome {
    if e.local_predictions(&[]).is_some() {
        return Outcome::Works;
    }
    let t = e.type_name();
    match e.requests(&[]) {
        Ok(_) => Outcome::Needs(Unavailable { need: Need::Endpoint, reason: format!("inference engine `{t}` calls an OpenAI-compatible endpoint") }),
        Err(err) => match err.unavailable() {
            Some(u) => Outcome::Needs(u.clone()),
            None => Outcome::Needs(Unavailable {
                need: Need::Endpoint,
                reason: format!("inference engine `{t}` calls an OpenAI-compatible endpoint once set up: {}", first_line(&err.message)),
            }),
        },
    }
}

/// What LLM judge `ty` (its JSON `json`) needs: what its `inference_engine` needs, said of
/// the judge, its engine built in `catalog`. An engine that does not build fails the judge.
fn judge_outcome(ty: &str, json: Option<&Value>, catalog: &Arc<Catalog>) -> Outcome {
    let field = crate::metrics::llm_judge::engine_field(ty).unwrap_or("inference_engine");
    let Some(engine) = json.and_then(|j| j.get(field)) else {
        return Outcome::Fails(format!("LLM judge `{ty}` has no `{field}`"));
    };
    let built: Result<Art<dyn InferenceEngine>> = super::build_as(engine, catalog);
    match built {
        Ok(e) => match engine_outcome(&*e.inner) {
            Outcome::Needs(u) => Outcome::Needs(Unavailable { need: u.need, reason: format!("LLM judge `{ty}`: {}", u.reason) }),
            other => other,
        },
        Err(e) => Outcome::Fails(format!("`inference_engine` of LLM judge `{ty}`: {}", first_line(&e.to_string()))),
    }
}

/// The JSON of catalog query `query` (a name with optional `[overwrites]`), the overwrites
/// set in it as building sets them.
fn query_json(catalog: &Arc<Catalog>, query: &str) -> Result<Value> {
    let (name, overwrites) = split_name_and_overwrites(query)?;
    let mut json = (*catalog.get_json(&name)?).clone();
    if let (Some(ov), Value::Object(m)) = (overwrites, &mut json) {
        for (k, v) in ov {
            m.insert(k.into(), v);
        }
    }
    Ok(json)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The worse of two outcomes: a failure over a need over working; among needs, a model or the
/// network over an endpoint (an endpoint alone would not make it run); the first of two of a
/// kind.
fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: &Outcome| match o {
        Outcome::Fails(_) => 3,
        Outcome::Needs(u) if u.need == Need::Endpoint => 1,
        Outcome::Needs(_) => 2,
        Outcome::Works => 0,
    };
    if rank(&b) > rank(&a) {
        b
    } else {
        a
    }
}

/// `own`, the outcome of an artifact's own build, with `parts`, that of the parts inside it:
/// the worse of the two, but a metric's own need (`delegated`: it is that of a metric inside
/// it) gives way to the need its parts report, which their checks have made precise.
fn with_parts(own: (Outcome, bool), parts: Outcome) -> Outcome {
    match own {
        (Outcome::Needs(_), true) if matches!(parts, Outcome::Needs(_)) => parts,
        (own, _) => worse(own, parts),
    }
}

/// `outcome` of the part at `path`, said of the artifact that contains it: a failure names
/// the part.
fn of_part(outcome: Outcome, path: &str, what: &str) -> Outcome {
    match outcome {
        Outcome::Fails(cause) => Outcome::Fails(format!("{what} at `{path}`: {cause}")),
        other => other,
    }
}

impl Checker<'_> {
    /// The outcome of catalog query `query` (a name, with optional `[overwrites]`): the
    /// artifact built as [`fetch`] builds it, then its nested parts.
    fn named(&mut self, query: &str) -> Outcome {
        if let Some(o) = self.done.get(query) {
            return o.clone();
        }
        if !self.open.insert(query.to_string()) {
            return Outcome::Works;
        }
        let catalog = self.catalog;
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fetch(catalog, query)));
        let json = query_json(catalog, query);
        let own = outcome_of(built, json.as_ref().ok(), catalog);
        let outcome = match (own, json) {
            ((own @ Outcome::Fails(_), _), _) => own,
            (own, Ok(json)) => with_parts(own, self.parts(&json, "", false)),
            ((own, _), Err(e)) => worse(own, Outcome::Fails(first_line(&e.to_string()))),
        };
        self.open.remove(query);
        self.done.insert(query.to_string(), outcome.clone());
        outcome
    }

    /// The worst outcome of the parts inside `v` (at `path` in its artifact): inline artifacts
    /// (built here, then their own parts) and names of catalog artifacts. `in_names`: `v` is
    /// in a list of [`NAME_LISTS`].
    fn parts(&mut self, v: &Value, path: &str, in_names: bool) -> Outcome {
        match v {
            Value::Object(m) => {
                let part = m.get("__type__").and_then(|t| t.as_str()).is_some_and(|t| PART_TYPES.contains(&t));
                if !path.is_empty() && !part && m.get("__type__").is_some_and(|t| t.is_string()) {
                    let catalog = self.catalog;
                    let (own, delegated) = outcome_of(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(v, catalog))), Some(v), catalog);
                    let t = m.get("__type__").and_then(|t| t.as_str()).unwrap_or_default();
                    let out = of_part(own, path, &format!("`{t}`"));
                    if matches!(out, Outcome::Fails(_)) {
                        return out;
                    }
                    let inner = self.fields(m, path);
                    return if matches!(inner, Outcome::Fails(_)) { inner } else { with_parts((out, delegated), inner) };
                }
                self.fields(m, path)
            }
            Value::Array(a) => {
                let mut out = Outcome::Works;
                for (i, x) in a.iter().enumerate() {
                    out = worse(out, self.parts(x, &format!("{path}[{i}]"), in_names));
                    if matches!(out, Outcome::Fails(_)) {
                        return out;
                    }
                }
                out
            }
            Value::String(s) => self.name_in(s.trim(), path, in_names),
            _ => Outcome::Works,
        }
    }

    /// The worst outcome of the values of object `m` (at `path`), metadata keys aside.
    fn fields(&mut self, m: &crate::value::Map, path: &str) -> Outcome {
        let mut out = Outcome::Works;
        for (k, x) in m.iter().filter(|(k, _)| !META_KEYS.contains(&k.as_str())) {
            let p = if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
            out = worse(out, self.parts(x, &p, NAME_LISTS.contains(&k.as_str())));
            if matches!(out, Outcome::Fails(_)) {
                return out;
            }
        }
        out
    }

    /// The outcome of the artifact string `s` names, when it names one: a dotted legal name
    /// (with optional `[overwrites]`) that the catalog has. In a list of [`NAME_LISTS`] a
    /// dotted name the catalog does not have is a failure.
    fn name_in(&mut self, s: &str, path: &str, in_names: bool) -> Outcome {
        let Ok((name, _)) = split_name_and_overwrites(s) else { return Outcome::Works };
        if !name.contains('.') || !is_legal_catalog_name(&name) {
            return Outcome::Works;
        }
        if self.catalog.contains(&name) {
            return of_part(self.named(s), path, &format!("`{name}`"));
        }
        if in_names {
            return Outcome::Fails(format!("`{name}` at `{path}` is not in the catalog"));
        }
        Outcome::Works
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check, Outcome};
    use crate::catalog::Catalog;
    use crate::error::Need;
    use std::sync::Arc;

    /// A template whose inline postprocessor has an unknown type, or names a processor the
    /// catalog lacks, fails (building the template alone succeeds); a task whose metric needs a
    /// model needs it too (the model named), and so does a card over that task; an engine on an
    /// OpenAI-compatible API, a judge over it, a list and a task with that judge need an
    /// endpoint, but a list with a metric that needs a model needs the model; a judge whose
    /// engine cannot be called here needs a model; the mock engine and the parts that work
    /// count as working, and a name met again inside itself does not loop.
    #[test]
    fn nested_parts_decide_the_outcome() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-check-{}", std::process::id()));
        for d in ["templates", "processors", "metrics", "tasks", "cards", "engines"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let write = |p: &str, s: &str| std::fs::write(dir.join(p), s).unwrap();
        write(
            "templates/inline.json",
            r#"{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}",
                "postprocessors": [{"__type__": "post_process", "operator": {"__type__": "no_such_op"}}]}"#,
        );
        write("templates/named.json", r#"{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}", "postprocessors": ["processors.missing"]}"#);
        write("templates/good.json", r#"{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}", "postprocessors": ["processors.low"]}"#);
        write("processors/low.json", r#"{"__type__": "post_process", "operator": {"__type__": "lower"}}"#);
        write("metrics/needy.json", r#"{"__type__": "bert_score", "model_name": "bert-base-uncased"}"#);
        write("metrics/acc.json", r#"{"__type__": "accuracy", "__description__": "see metrics.acc"}"#);
        write("metrics/list.json", r#"{"__type__": "metrics_list", "items": ["metrics.acc"]}"#);
        write("tasks/t.json", r#"{"__type__": "task", "input_fields": ["q"], "reference_fields": ["a"], "metrics": ["metrics.needy"]}"#);
        write("tasks/ok.json", r#"{"__type__": "task", "input_fields": ["q"], "reference_fields": ["a"], "metrics": ["metrics.list"]}"#);
        write(
            "cards/c.json",
            r#"{"__type__": "task_card", "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"q": "x", "a": "y"}]}},
                "task": "tasks.t", "templates": ["templates.good"]}"#,
        );
        write("engines/api.json", r#"{"__type__": "open_ai_inference_engine", "model_name": "m", "base_url": "http://127.0.0.1:9/v1", "credentials": {"api_key": "k"}}"#);
        write("engines/wml.json", r#"{"__type__": "wml_inference_engine_generation", "model_name": "ibm/granite"}"#);
        write("engines/mock.json", r#"{"__type__": "mock_inference_engine", "model_name": "m"}"#);
        let judge = |engine: &str| {
            format!(
                r#"{{"__type__": "llm_judge_direct", "inference_engine": "{engine}", "criteria": {{"__type__": "criteria_with_options", "name": "c", "description": "d",
                    "options": [{{"__type__": "criteria_option", "name": "Yes", "description": ""}}], "option_map": {{"Yes": 1.0}}}}}}"#
            )
        };
        write("metrics/judge.json", &judge("engines.api"));
        write("metrics/judge_wml.json", &judge("engines.wml"));
        write("metrics/judges.json", r#"{"__type__": "metrics_list", "items": ["metrics.acc", "metrics.judge"]}"#);
        write("metrics/judge_and_needy.json", r#"{"__type__": "metrics_list", "items": ["metrics.judge", "metrics.needy"]}"#);
        write("tasks/judged.json", r#"{"__type__": "task", "input_fields": ["q"], "reference_fields": ["a"], "metrics": ["metrics.judge"]}"#);
        let cat = Arc::new(Catalog::new(vec![dir.clone()]));
        let inline_alone = super::super::fetch(&cat, "templates.inline").is_ok();
        let got: std::collections::HashMap<String, Outcome> = check(&cat, "").into_iter().collect();
        std::fs::remove_dir_all(&dir).ok();
        assert!(inline_alone, "the template builds on its own: its postprocessors stay JSON");
        let fails = |n: &str| match &got[n] {
            Outcome::Fails(r) => r.clone(),
            other => panic!("{n}: {other:?}"),
        };
        assert!(fails("templates.inline").starts_with("`post_process` at `postprocessors[0]`: unknown artifact type `__type__: no_such_op`"));
        assert_eq!(fails("templates.named"), "`processors.missing` at `postprocessors[0]` is not in the catalog");
        let needs = |n: &str| match &got[n] {
            Outcome::Needs(u) => (u.need, u.reason.clone()),
            other => panic!("{n}: {other:?}"),
        };
        let bert = (Need::Model, "metric `bert_score` needs a model or an inference engine (not available in unitxt-rs): model `bert-base-uncased`".to_string());
        for n in ["tasks.t", "cards.c", "metrics.needy", "metrics.judge_and_needy"] {
            assert_eq!(needs(n), bert, "{n}");
        }
        let api = "inference engine `open_ai_inference_engine` calls an OpenAI-compatible endpoint";
        assert_eq!(needs("engines.api"), (Need::Endpoint, api.to_string()));
        for n in ["metrics.judge", "metrics.judges", "tasks.judged"] {
            assert_eq!(needs(n), (Need::Endpoint, format!("LLM judge `llm_judge_direct`: {api}")), "{n}");
        }
        let (need, reason) = needs("metrics.judge_wml");
        assert_eq!(need, Need::Model);
        assert!(reason.starts_with("LLM judge `llm_judge_direct`: `wml_inference_engine_generation` cannot be called from unitxt-rs"), "{reason}");
        assert_eq!(needs("engines.wml").0, Need::Model);
        for n in ["templates.good", "processors.low", "metrics.acc", "metrics.list", "tasks.ok", "engines.mock"] {
            assert_eq!(got[n], Outcome::Works, "{n}");
        }
    }
}
