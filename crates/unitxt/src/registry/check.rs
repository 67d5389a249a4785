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

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{build, fetch, Artifact, Outcome};
use crate::artifact::META_KEYS;
use crate::catalog::Catalog;
use crate::error::Result;
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

/// The outcome of one build: a metric that builds only as a stand-in that cannot compute and
/// an error that says what it needs are [`Outcome::Needs`]; a panic is a failure.
fn outcome_of(built: std::thread::Result<Result<Artifact>>) -> Outcome {
    match built {
        Ok(Ok(Artifact::Metric(m))) => match m.unavailable() {
            None => Outcome::Works,
            Some(u) => Outcome::Needs(u),
        },
        Ok(Ok(_)) => Outcome::Works,
        Ok(Err(e)) => match e.unavailable() {
            Some(u) => Outcome::Needs(u.clone()),
            None => Outcome::Fails(first_line(&e.to_string())),
        },
        Err(_) => Outcome::Fails("building it panicked (a bug in unitxt-rs)".to_string()),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The worse of two outcomes: a failure over a need over working; the first of two of a kind.
fn worse(a: Outcome, b: Outcome) -> Outcome {
    match (&a, &b) {
        (Outcome::Fails(_), _) => a,
        (_, Outcome::Fails(_)) => b,
        (Outcome::Needs(_), _) => a,
        (_, Outcome::Needs(_)) => b,
        _ => a,
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
        let own = outcome_of(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fetch(catalog, query))));
        let outcome = match own {
            Outcome::Fails(_) => own,
            own => {
                let name = split_name_and_overwrites(query).map(|(n, _)| n).unwrap_or_else(|_| query.to_string());
                match catalog.get_json(&name) {
                    Ok(json) => worse(own, self.parts(&json, "", false)),
                    Err(e) => worse(own, Outcome::Fails(first_line(&e.to_string()))),
                }
            }
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
                let mut out = Outcome::Works;
                let part = m.get("__type__").and_then(|t| t.as_str()).is_some_and(|t| PART_TYPES.contains(&t));
                if !path.is_empty() && !part && m.get("__type__").is_some_and(|t| t.is_string()) {
                    let catalog = self.catalog;
                    let own = outcome_of(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(v, catalog))));
                    let t = m.get("__type__").and_then(|t| t.as_str()).unwrap_or_default();
                    out = of_part(own, path, &format!("`{t}`"));
                    if matches!(out, Outcome::Fails(_)) {
                        return out;
                    }
                }
                for (k, x) in m.iter().filter(|(k, _)| !META_KEYS.contains(&k.as_str())) {
                    let p = if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
                    out = worse(out, self.parts(x, &p, NAME_LISTS.contains(&k.as_str())));
                    if matches!(out, Outcome::Fails(_)) {
                        return out;
                    }
                }
                out
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
    use std::sync::Arc;

    /// A template whose inline postprocessor has an unknown type, or names a processor the
    /// catalog lacks, fails (building the template alone succeeds); a task whose metric needs a
    /// model needs it too, and so does a card over that task; the parts that work count as
    /// working, and a name met again inside itself does not loop.
    #[test]
    fn nested_parts_decide_the_outcome() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-check-{}", std::process::id()));
        for d in ["templates", "processors", "metrics", "tasks", "cards"] {
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
        for n in ["tasks.t", "cards.c", "metrics.needy"] {
            assert!(matches!(&got[n], Outcome::Needs(u) if u.reason.contains("bert_score")), "{n}: {:?}", got[n]);
        }
        for n in ["templates.good", "processors.low", "metrics.acc", "metrics.list", "tasks.ok"] {
            assert_eq!(got[n], Outcome::Works, "{n}");
        }
    }
}
