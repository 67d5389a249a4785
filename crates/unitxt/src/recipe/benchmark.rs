//! Benchmarks (Unitxt's `Benchmark` in `benchmark.py`, run through `FixedFusion` in
//! `fusion.py`): named subsets, each a recipe (`dataset_recipe`) or another benchmark, whose
//! splits are concatenated in subset order.
//!
//! - Each output split (`splits`, default `train`, `validation`, `test`) holds, subset after
//!   subset, that split's instances of every subset that has it, at most
//!   `max_samples_per_subset` and at most `max_<split>_instances` of each (the smaller wins).
//! - Every instance's `subset` list gets the subset's name in front, so an instance of a nested
//!   benchmark carries `[outer, inner]`.
//! - `format`, `num_demos`, `system_prompt` and `loader_limit`, when set, replace those of every
//!   subset (recipes and nested benchmarks, and through them their own subsets), as
//!   `Benchmark.reset` does. `subset` keeps only the subset of that name.
//! - `max_total_samples` is refused, as Unitxt refuses it (`NotImplementedError`).

use std::sync::Arc;

use indexmap::IndexMap;

use super::{Finisher, Recipe, RecipeArgs};
use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::stream::{MultiStream, StreamOf};
use crate::value::Value;

/// The recipe arguments a benchmark hands down to its subsets.
const HANDED_DOWN: [&str; 4] = ["format", "num_demos", "system_prompt", "loader_limit"];

/// The benchmark's own fields (everything else is refused).
const FIELDS: &[&str] = &[
    "__type__", "__description__", "__tags__", "__title__", "subsets", "format", "num_demos", "system_prompt",
    "loader_limit", "splits", "subset", "max_total_samples", "max_samples_per_subset", "max_train_instances",
    "max_validation_instances", "max_test_instances",
];

/// One subset of a benchmark, built.
pub enum Subset {
    /// A recipe, with the benchmark's handed-down arguments applied.
    Recipe(Arc<Recipe>),
    /// A nested benchmark.
    Benchmark(Benchmark),
}

/// A built benchmark (see the module doc).
pub struct Benchmark {
    /// The subsets by name, in order.
    pub subsets: IndexMap<String, Subset>,
    /// The output splits, in order.
    pub splits: Vec<String>,
    /// `max_samples_per_subset`: the most instances of one split taken from one subset.
    pub max_samples_per_subset: Option<usize>,
    /// `max_train_instances` and its siblings: per-split caps on what one subset gives.
    pub max_per_split: IndexMap<String, usize>,
}

fn usize_field(m: &crate::value::Map, k: &str) -> Result<Option<usize>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| Error::invalid(format!("benchmark: `{k}` must be a non-negative int, got {v}"))),
    }
}

impl Benchmark {
    /// Builds the benchmark of JSON `v` (a `benchmark` artifact, overrides already merged) in
    /// `catalog`, with `handed` (the handed-down arguments of an enclosing benchmark, which win
    /// over this one's). Every subset recipe is built, so that a benchmark that builds runs.
    /// Errors name the subset.
    pub fn build(v: &Value, catalog: &Arc<Catalog>, handed: &IndexMap<String, Value>) -> Result<Benchmark> {
        let m = v.as_object().ok_or_else(|| Error::invalid("a benchmark must be an object"))?;
        if let Some(k) = m.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(Error::invalid(format!("{k:?} is not a benchmark argument")));
        }
        if m.get("max_total_samples").is_some_and(|x| !x.is_null()) {
            return Err(Error::unsupported("benchmark: `max_total_samples` is not implemented (Unitxt refuses it too)"));
        }
        let mut down = IndexMap::new();
        for k in HANDED_DOWN {
            if let Some(x) = handed.get(k).or_else(|| m.get(k)).filter(|x| !x.is_null()) {
                down.insert(k.to_string(), x.clone());
            }
        }
        let subsets_json = m
            .get("subsets")
            .and_then(|s| s.as_object())
            .ok_or_else(|| Error::invalid("benchmark: `subsets` must be a dict of name to recipe or benchmark"))?;
        let only = m.get("subset").and_then(|s| s.as_str());
        if let Some(name) = only {
            if !subsets_json.contains_key(name) {
                return Err(Error::not_found(format!("benchmark: no subset {name:?}; subsets are {:?}", subsets_json.keys().collect::<Vec<_>>())));
            }
        }
        let mut subsets = IndexMap::new();
        for (name, s) in subsets_json {
            if only.is_some_and(|o| o != name.as_str()) {
                continue;
            }
            let sub = Self::subset(s, catalog, &down).with_ctx(|| format!("in benchmark subset {name:?}"))?;
            subsets.insert(name.to_string(), sub);
        }
        let splits = match m.get("splits") {
            None | Some(Value::Null) => vec!["train".into(), "validation".into(), "test".into()],
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(str::to_string).ok_or_else(|| Error::invalid("benchmark: `splits` must be a list of names")))
                .collect::<Result<_>>()?,
            Some(other) => return Err(Error::invalid(format!("benchmark: `splits` must be a list of names, got {other}"))),
        };
        let mut max_per_split = IndexMap::new();
        for split in ["train", "validation", "test"] {
            if let Some(n) = usize_field(m, &format!("max_{split}_instances"))? {
                max_per_split.insert(split.to_string(), n);
            }
        }
        Ok(Benchmark { subsets, splits, max_samples_per_subset: usize_field(m, "max_samples_per_subset")?, max_per_split })
    }

    /// A subset: a catalog name or an inline `dataset_recipe` or `benchmark`.
    fn subset(v: &Value, catalog: &Arc<Catalog>, down: &IndexMap<String, Value>) -> Result<Subset> {
        let json = match v {
            Value::String(name) => super::artifact_json(name.trim(), catalog)?,
            other => other.clone(),
        };
        match json.get("__type__").and_then(|t| t.as_str()) {
            Some("benchmark") => Ok(Subset::Benchmark(Benchmark::build(&json, catalog, down)?)),
            Some("dataset_recipe") => {
                let mut args = RecipeArgs::from_json(&json)?;
                args.args.extend(down.iter().map(|(k, x)| (k.clone(), x.clone())));
                Ok(Subset::Recipe(Arc::new(Recipe::build(&args, catalog.clone())?)))
            }
            _ => Err(Error::invalid(format!("a benchmark subset must be a dataset_recipe or a benchmark, got {}", crate::artifact::short(v)))),
        }
    }

    /// Runs every subset and concatenates their splits (see the module doc); `finish` gets each
    /// output instance with its `subset` names, on the thread that prepared it.
    pub fn run_map<T: Send + 'static>(&self, finish: Finisher<T>) -> Result<MultiStream<T>> {
        let mut parts: IndexMap<String, Vec<StreamOf<T>>> = self.splits.iter().map(|s| (s.clone(), Vec::new())).collect();
        for (name, sub) in &self.subsets {
            let name = Value::String(name.as_str().into());
            let inner = finish.clone();
            let named: Finisher<T> = Arc::new(move |mut o: crate::recipe::OutputInstance<'_>| {
                o.subset.insert(0, name.clone());
                inner(o)
            });
            let mut ms = match sub {
                Subset::Recipe(r) => r.run_map(named)?,
                Subset::Benchmark(b) => b.run_map(named)?,
            };
            for (split, streams) in parts.iter_mut() {
                let Some(s) = ms.streams.shift_remove(split) else { continue };
                let cap = match (self.max_samples_per_subset, self.max_per_split.get(split)) {
                    (Some(a), Some(&b)) => Some(a.min(b)),
                    (a, b) => a.or(b.copied()),
                };
                streams.push(match cap {
                    Some(n) => Box::new(s.take(n)),
                    None => s,
                });
            }
        }
        let streams = parts
            .into_iter()
            .map(|(split, streams)| (split, Box::new(streams.into_iter().flatten()) as StreamOf<T>))
            .collect();
        Ok(MultiStream { streams })
    }
}
