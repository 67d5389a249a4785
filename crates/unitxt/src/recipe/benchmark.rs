//! Benchmarks and fusions: Unitxt's `Benchmark` (`benchmark.py`) and the fusions it is built
//! on, `FixedFusion` and `WeightedFusion` (`fusion.py`). Each has subsets, each a recipe
//! (`dataset_recipe`), a benchmark or a fusion, and makes each output split out of those
//! subsets' splits. One [`Benchmark`] value holds any of the three.
//!
//! - **Subset names.** A benchmark's subsets are a dict; a fusion's a dict or a list. With a
//!   dict, every instance's `subset` list gets the subset's name in front (so an instance of a
//!   nested benchmark carries `[outer, inner]`); list subsets add no name.
//! - **Splits.** A benchmark makes `splits` (default `train`, `validation`, `test`); a fusion
//!   `include_splits` (default `train`, `test`, `validation`). A subset without a split is left
//!   out of it; asking for a split not made is an error, as in Unitxt.
//! - **Concatenation** (`benchmark`, `fixed_fusion`): subset after subset, at most
//!   `max_samples_per_subset` (`max_instances_per_subset` for a fusion) instances of one split
//!   from each, and at most `max_<split>_instances` (`max_instances_per_split[split]`) of it;
//!   the smaller cap wins.
//! - **Weighted draw** (`weighted_fusion`): each output instance is the next one of a subset
//!   drawn with Python's `random.choices` among the subsets that still have instances of the
//!   split, in proportion to `weights` (a list, or a dict by subset name, as the subsets are);
//!   a subset found empty is dropped and the draw repeated; at most `max_total_samples` in
//!   all. The generator is Unitxt's `new_random_generator(sub_seed="weighted_fusion_<split>")`
//!   (seeded with `"42/weighted_fusion_<split>"` under the default seed), so the order is
//!   Unitxt's. Weights summing to zero (or not finite) fail at the first draw, with Python's
//!   messages.
//! - **Handed-down arguments** (benchmarks only): `format`, `num_demos`, `system_prompt` and
//!   `loader_limit`, when set, replace those of every subset (recipes and nested benchmarks,
//!   and through them their own subsets), as `Benchmark.reset` does; a fusion subset cannot
//!   take them (Unitxt fails on it: fusions have no `reset`). `subset` keeps only the subset of
//!   that name.
//! - **Refused as Unitxt refuses them**: a benchmark's `max_total_samples`
//!   (`NotImplementedError`); an argument a type does not have (`max_total_samples` on a fixed
//!   fusion); a weighted fusion without `subsets` or `weights`, whose weights are not as many
//!   as its subsets, are a list for dict subsets (or the other way round), or miss one of its
//!   subset names.

use std::sync::Arc;

use indexmap::IndexMap;

use super::{Finisher, Recipe, RecipeArgs};
use crate::artifact::BuildContext;
use crate::error::{Error, Result, ResultExt};
use crate::py::random::{new_random_generator, PyRandom};
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

/// The fields every fusion has (Unitxt's artifact and source-operator fields, and `BaseFusion`'s).
const FUSION_FIELDS: &[&str] = &[
    "__type__", "__title__", "__description__", "__tags__", "__deprecated_msg__", "data_classification_policy",
    "requirements", "caching", "subsets", "include_splits",
];

/// The fields of a `fixed_fusion` besides [`FUSION_FIELDS`].
const FIXED_FIELDS: &[&str] = &["max_instances_per_subset", "max_instances_per_split"];

/// The fields of a `weighted_fusion` besides [`FUSION_FIELDS`].
const WEIGHTED_FIELDS: &[&str] = &["weights", "max_total_samples"];

/// The `__type__`s of fusions.
pub const FUSION_TYPES: [&str; 2] = ["fixed_fusion", "weighted_fusion"];

/// One subset of a benchmark or fusion, built.
pub enum Subset {
    /// A recipe, with the benchmark's handed-down arguments applied.
    Recipe(Arc<Recipe>),
    /// A nested benchmark or fusion.
    Benchmark(Benchmark),
}

/// How the subsets' instances of one split make the output split.
#[derive(Debug, Clone, PartialEq)]
pub enum Mix {
    /// Subset after subset, each capped (`benchmark`, `fixed_fusion`).
    Concatenate,
    /// Weighted random draws among the subsets (`weighted_fusion`).
    Weighted {
        /// One weight per subset, in the subsets' order.
        weights: Vec<f64>,
        /// `max_total_samples`: the most instances of one output split.
        max_total: Option<usize>,
    },
}

/// A built benchmark or fusion (see the module doc).
pub struct Benchmark {
    /// The subsets in order, each with its name (`None` for a fusion's list subsets, whose
    /// instances get no name).
    pub subsets: Vec<(Option<String>, Subset)>,
    /// The output splits, in order.
    pub splits: Vec<String>,
    /// `max_samples_per_subset` (`max_instances_per_subset`): the most instances of one split
    /// taken from one subset.
    pub max_samples_per_subset: Option<usize>,
    /// `max_train_instances` and its siblings (`max_instances_per_split`): per-split caps on
    /// what one subset gives.
    pub max_per_split: IndexMap<String, usize>,
    /// Concatenated or drawn.
    pub mix: Mix,
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

/// A fusion's count (`max_instances_per_subset`, `max_total_samples`, ...): an int, where a
/// negative one takes nothing, as Unitxt's comparisons make it; `None` when unset.
fn fusion_count(v: Option<&Value>, what: &str) -> Result<Option<usize>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match (x.as_u64(), x.as_i64()) {
            (Some(n), _) => Ok(Some(n as usize)),
            (None, Some(_)) => Ok(Some(0)),
            _ => Err(Error::invalid(format!("fusion: `{what}` must be an int, got {x}"))),
        },
    }
}

/// A weight: a number (a bool counts as 0 or 1, as Python's `float` takes it).
fn weight(v: &Value) -> Result<f64> {
    match v {
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        other => other.as_f64().ok_or_else(|| Error::invalid(format!("weighted_fusion: a weight must be a number, got {other}"))),
    }
}

/// The splits of `v` (a list of names) for field `what`, or `default` when unset.
fn split_list(v: Option<&Value>, what: &str, default: [&str; 3]) -> Result<Vec<String>> {
    let bad = |x: &Value| Error::invalid(format!("`{what}` must be a list of split names, got {x}"));
    match v {
        None | Some(Value::Null) => Ok(default.iter().map(|s| s.to_string()).collect()),
        Some(Value::Array(a)) => a.iter().map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad(x))).collect(),
        Some(other) => Err(bad(other)),
    }
}

impl Benchmark {
    /// Builds the benchmark of JSON `v` (a `benchmark` artifact, overrides already merged) in
    /// `catalog`, with `handed` (the handed-down arguments of an enclosing benchmark, which win
    /// over this one's). Every subset recipe is built, so that a benchmark that builds runs.
    /// Errors name the subset.
    pub fn build(v: &Value, cx: &BuildContext<'_>, handed: &IndexMap<String, Value>) -> Result<Benchmark> {
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
        let mut subsets = Vec::new();
        for (name, s) in subsets_json {
            if only.is_some_and(|o| o != name.as_str()) {
                continue;
            }
            let sub = Self::subset(s, cx, &down).with_ctx(|| format!("in benchmark subset {name:?}"))?;
            subsets.push((Some(name.to_string()), sub));
        }
        let splits = split_list(m.get("splits"), "benchmark: splits", ["train", "validation", "test"])?;
        let mut max_per_split = IndexMap::new();
        for split in ["train", "validation", "test"] {
            if let Some(n) = usize_field(m, &format!("max_{split}_instances"))? {
                max_per_split.insert(split.to_string(), n);
            }
        }
        Ok(Benchmark {
            subsets,
            splits,
            max_samples_per_subset: usize_field(m, "max_samples_per_subset")?,
            max_per_split,
            mix: Mix::Concatenate,
        })
    }

    /// Builds the fusion of JSON `v` (a `fixed_fusion` or `weighted_fusion` artifact, overrides
    /// already merged) in `catalog`; every subset is built. Errors: a field the type does not
    /// have, subsets that are not a list or dict of recipes, benchmarks and fusions, weights
    /// that do not fit the subsets (see the module doc), and the errors of the subsets, which
    /// name the subset.
    pub fn build_fusion(v: &Value, cx: &BuildContext<'_>) -> Result<Benchmark> {
        let m = v.as_object().ok_or_else(|| Error::invalid("a fusion must be an object"))?;
        let ty = m.get("__type__").and_then(|t| t.as_str()).unwrap_or_default();
        let weighted = match ty {
            "fixed_fusion" => false,
            "weighted_fusion" => true,
            other => return Err(Error::invalid(format!("not a fusion type: {other:?}"))),
        };
        let own = if weighted { WEIGHTED_FIELDS } else { FIXED_FIELDS };
        if let Some(k) = m.keys().find(|k| !FUSION_FIELDS.contains(&k.as_str()) && !own.contains(&k.as_str())) {
            return Err(Error::invalid(format!(
                "{k:?} is not an argument of {ty}; it has {:?}",
                FUSION_FIELDS[1..].iter().chain(own).collect::<Vec<_>>()
            )));
        }
        let none = IndexMap::new();
        let mut subsets = Vec::new();
        match m.get("subsets") {
            Some(Value::Object(named)) => {
                for (name, s) in named {
                    let sub = Self::subset(s, cx, &none).with_ctx(|| format!("in {ty} subset {name:?}"))?;
                    subsets.push((Some(name.to_string()), sub));
                }
            }
            Some(Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    subsets.push((None, Self::subset(s, cx, &none).with_ctx(|| format!("in {ty} subset {i}"))?));
                }
            }
            None | Some(Value::Null) => return Err(Error::invalid(format!("{ty}: `subsets` must be given"))),
            Some(other) => {
                return Err(Error::invalid(format!("{ty}: `subsets` must be a list or a dict of recipes and fusions, got {}", crate::artifact::short(other))))
            }
        }
        let splits = split_list(m.get("include_splits"), &format!("{ty}: include_splits"), ["train", "test", "validation"])?;
        if weighted {
            let weights = Self::weights(m.get("weights"), m.get("subsets"), &subsets)?;
            let max_total = fusion_count(m.get("max_total_samples"), "max_total_samples")?;
            return Ok(Benchmark {
                subsets,
                splits,
                max_samples_per_subset: None,
                max_per_split: IndexMap::new(),
                mix: Mix::Weighted { weights, max_total },
            });
        }
        let mut max_per_split = IndexMap::new();
        match m.get("max_instances_per_split") {
            None | Some(Value::Null) => {}
            Some(Value::Object(caps)) => {
                for (split, n) in caps {
                    if let Some(n) = fusion_count(Some(n), &format!("max_instances_per_split[{split:?}]"))? {
                        max_per_split.insert(split.to_string(), n);
                    }
                }
            }
            Some(other) => return Err(Error::invalid(format!("fixed_fusion: `max_instances_per_split` must be a dict of split to int, got {other}"))),
        }
        Ok(Benchmark {
            subsets,
            splits,
            max_samples_per_subset: fusion_count(m.get("max_instances_per_subset"), "max_instances_per_subset")?,
            max_per_split,
            mix: Mix::Concatenate,
        })
    }

    /// A weighted fusion's weights, one per subset in the subsets' order (see the module doc
    /// for what is refused).
    fn weights(w: Option<&Value>, subsets_json: Option<&Value>, subsets: &[(Option<String>, Subset)]) -> Result<Vec<f64>> {
        let n = subsets.len();
        let count = match w {
            None | Some(Value::Null) => return Err(Error::invalid("weighted_fusion: `weights` must be given")),
            Some(Value::Array(a)) => a.len(),
            Some(Value::Object(o)) => o.len(),
            Some(other) => return Err(Error::invalid(format!("weighted_fusion: `weights` must be a list or a dict of numbers, got {other}"))),
        };
        if count != n {
            return Err(Error::invalid(format!("weighted_fusion: subsets and weights must have the same length ({n} subsets, {count} weights)")));
        }
        match (w, subsets_json) {
            (Some(Value::Array(a)), Some(Value::Array(_))) => a.iter().map(weight).collect(),
            (Some(Value::Object(o)), Some(Value::Object(_))) => subsets
                .iter()
                .map(|(name, _)| {
                    let name = name.as_deref().unwrap_or_default();
                    let x = o.get(name).ok_or_else(|| {
                        Error::invalid(format!("weighted_fusion: no weight for subset {name:?}; weights are given for {:?}", o.keys().collect::<Vec<_>>()))
                    })?;
                    weight(x)
                })
                .collect(),
            _ => Err(Error::invalid("weighted_fusion: `subsets` and `weights` must both be lists or both be dicts")),
        }
    }

    /// A subset: a catalog name or an inline `dataset_recipe`, `benchmark` or fusion; `down`
    /// holds the handed-down arguments of the enclosing benchmark.
    fn subset(v: &Value, cx: &BuildContext<'_>, down: &IndexMap<String, Value>) -> Result<Subset> {
        let json = match v {
            Value::String(name) => super::artifact_json(name.trim(), cx.catalog())?,
            other => other.clone(),
        };
        match json.get("__type__").and_then(|t| t.as_str()) {
            Some("benchmark") => Ok(Subset::Benchmark(Benchmark::build(&json, cx, down)?)),
            Some("dataset_recipe") => {
                let mut args = RecipeArgs::from_json(&json)?;
                args.args.extend(down.iter().map(|(k, x)| (k.clone(), x.clone())));
                Ok(Subset::Recipe(Arc::new(Recipe::build(&args, cx)?)))
            }
            Some(t) if FUSION_TYPES.contains(&t) => {
                if !down.is_empty() {
                    return Err(Error::invalid(format!(
                        "a {t} subset cannot take the benchmark's {:?} (Unitxt fails on it: a fusion has no `reset`)",
                        down.keys().collect::<Vec<_>>()
                    )));
                }
                Ok(Subset::Benchmark(Benchmark::build_fusion(&json, cx)?))
            }
            _ => Err(Error::invalid(format!(
                "a subset must be a dataset_recipe, a benchmark or a fusion, got {}",
                crate::artifact::short(v)
            ))),
        }
    }

    /// Runs every subset and mixes their splits (see the module doc); `finish` gets each
    /// output instance with its `subset` names, on the thread that prepared it.
    pub fn run_map<T: Send + 'static>(&self, finish: Finisher<T>) -> Result<MultiStream<T>> {
        // Per output split, the streams of the subsets that have it, with the subset's index.
        let mut parts: IndexMap<String, Vec<(usize, StreamOf<T>)>> = self.splits.iter().map(|s| (s.clone(), Vec::new())).collect();
        for (i, (name, sub)) in self.subsets.iter().enumerate() {
            let named: Finisher<T> = match name {
                Some(name) => {
                    let name = Value::String(name.as_str().into());
                    let inner = finish.clone();
                    Arc::new(move |mut o: crate::recipe::OutputInstance<'_>| {
                        o.subset.insert(0, name.clone());
                        inner(o)
                    })
                }
                None => finish.clone(),
            };
            let mut ms = match sub {
                Subset::Recipe(r) => r.run_map(named)?,
                Subset::Benchmark(b) => b.run_map(named)?,
            };
            for (split, streams) in parts.iter_mut() {
                if let Some(s) = ms.streams.shift_remove(split) {
                    streams.push((i, s));
                }
            }
        }
        let streams = parts
            .into_iter()
            .map(|(split, streams)| {
                let out: StreamOf<T> = match &self.mix {
                    Mix::Concatenate => {
                        let cap = match (self.max_samples_per_subset, self.max_per_split.get(&split)) {
                            (Some(a), Some(&b)) => Some(a.min(b)),
                            (a, b) => a.or(b.copied()),
                        };
                        let capped = streams.into_iter().map(move |(_, s)| match cap {
                            Some(n) => Box::new(s.take(n)) as StreamOf<T>,
                            None => s,
                        });
                        Box::new(capped.flatten())
                    }
                    Mix::Weighted { weights, max_total } => Box::new(WeightedDraw {
                        subsets: streams.into_iter().map(|(i, s)| (weights[i], s)).collect(),
                        rng: new_random_generator(&Value::String(format!("weighted_fusion_{split}").as_str().into())),
                        left: *max_total,
                        over: false,
                    }),
                };
                (split, out)
            })
            .collect();
        Ok(MultiStream { streams })
    }
}

/// The instances of one split of a weighted fusion, drawn as Unitxt's `WeightedFusion` draws
/// them (see the module doc).
struct WeightedDraw<T> {
    /// The subsets with instances possibly left, in order, each with its weight.
    subsets: Vec<(f64, StreamOf<T>)>,
    /// The split's generator.
    rng: PyRandom,
    /// How many more instances may be given (`None`: no cap).
    left: Option<usize>,
    /// Set after an error: nothing more is given.
    over: bool,
}

impl<T> WeightedDraw<T> {
    /// Python's `random.choices(population, weights)[0]` over the remaining subsets, as an
    /// index: the cumulative weights bisected (right) at `random() * total`.
    fn draw(&mut self) -> Result<usize> {
        let cum = crate::py::random::accumulate(&self.subsets.iter().map(|(w, _)| *w).collect::<Vec<_>>());
        self.rng.weighted_choice_index(&cum).map_err(|e| Error::invalid(format!("weighted_fusion: {}", e.message)))
    }
}

impl<T> Iterator for WeightedDraw<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if self.over || self.left == Some(0) || self.subsets.is_empty() {
                return None;
            }
            let i = match self.draw() {
                Ok(i) => i,
                Err(e) => {
                    self.over = true;
                    return Some(Err(e));
                }
            };
            match self.subsets[i].1.next() {
                Some(Ok(x)) => {
                    if let Some(left) = &mut self.left {
                        *left -= 1;
                    }
                    return Some(Ok(x));
                }
                Some(Err(e)) => {
                    self.over = true;
                    return Some(Err(e));
                }
                None => {
                    drop(self.subsets.remove(i));
                }
            }
        }
    }
}

impl crate::artifact::ArtifactKind for Benchmark {
    const KIND: &'static str = "benchmark";
}
