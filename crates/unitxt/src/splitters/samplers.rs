//! Demos samplers (Unitxt's `RandomSampler`, `FixedIndicesSampler`, `DiverseLabelsSampler`,
//! `CloseTextSampler` in `splitters.py`).
//!
//! Every sampler is seeded per instance as Unitxt's `get_random_generator_based_on_instance`:
//! the sub-seed is the instance's `input_fields` dict (plus `local_seed` when the recipe sets
//! `demos_sampling_seed`), hashed through Python's `str()` and md5.

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::py::random::{new_random_generator_for_dict, PyRandom};
use crate::value::{Instance, Value};

use super::Sampler;

/// The generator Unitxt seeds from an instance's input fields (and an optional local seed).
pub fn instance_rng(instance: &Instance, local_seed: Option<i64>) -> Result<PyRandom> {
    let inputs = instance
        .get("input_fields")
        .and_then(|v| v.as_object())
        .ok_or_else(|| Error::invalid("instance has no 'input_fields' dict to seed demos sampling"))?;
    // The sub-seed is the dict of input fields, plus `local_seed` when given (a key that an
    // input field of that name would hold in place).
    let local = local_seed.map(Value::from);
    let extra = local.as_ref().filter(|_| !inputs.contains_key("local_seed"));
    let items = inputs
        .iter()
        .map(|(k, v)| (k.as_str(), if k == "local_seed" { local.as_ref().unwrap_or(v) } else { v }))
        .chain(extra.map(|v| ("local_seed", v)));
    Ok(new_random_generator_for_dict(items))
}

/// `random_sampler`: a uniform sample without replacement (Python's `random.sample`).
#[derive(Deserialize, Default)]
pub struct RandomSampler {}

impl Sampler for RandomSampler {
    fn sample<'a>(&'a self, n: usize, pool: &[&'a Instance], instance: &Instance, seed: Option<i64>) -> Result<Vec<&'a Instance>> {
        let mut rng = instance_rng(instance, seed)?;
        Ok(rng.sample_indices(pool.len(), n).into_iter().map(|i| pool[i]).collect())
    }
}

/// `fixed_indices_sampler`: the pool items at `indices` (the first `sample_size` of them).
#[derive(Deserialize)]
pub struct FixedIndicesSampler {
    /// `indices`: positions in the demos pool, in the order the demos are given (0-based).
    pub indices: Vec<i64>,
}

impl Sampler for FixedIndicesSampler {
    fn sample<'a>(&'a self, n: usize, pool: &[&'a Instance], _instance: &Instance, _seed: Option<i64>) -> Result<Vec<&'a Instance>> {
        self.indices
            .iter()
            .take(n)
            .map(|&i| {
                if i < 0 || i as usize >= pool.len() {
                    Err(Error::invalid(format!(
                        "fixed_indices_sampler index {i} is out of bounds of the demos pool (of size {})",
                        pool.len()
                    )))
                } else {
                    Ok(pool[i as usize])
                }
            })
            .collect()
    }
}

/// `diverse_labels_sampler`: balances the demos over the label combinations found in
/// `reference_fields[labels]` restricted to `input_fields[choices]`. As in Unitxt, the label
/// groups are computed once, from the first pool the sampler sees.
#[derive(Deserialize)]
pub struct DiverseLabelsSampler {
    /// `choices`: the input field listing the possible labels (default `choices`).
    #[serde(default = "default_choices")]
    pub choices: String,
    /// `labels`: the reference field holding an instance's labels (default `labels`).
    #[serde(default = "default_labels")]
    pub labels: String,
    /// `include_empty_label`: pool items with no label form a group of their own (default true);
    /// otherwise they are never picked.
    #[serde(default = "default_true")]
    pub include_empty_label: bool,
    #[serde(skip)]
    cache: OnceLock<IndexMap<String, Vec<Instance>>>,
}

fn default_choices() -> String {
    "choices".into()
}
fn default_labels() -> String {
    "labels".into()
}
fn default_true() -> bool {
    true
}

impl DiverseLabelsSampler {
    fn label_repr(&self, ex: &Instance) -> Result<String> {
        let inputs = ex.get("input_fields").and_then(|v| v.as_object()).ok_or_else(|| Error::invalid("demo has no input_fields"))?;
        let choices = match inputs.get(&self.choices) {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::String(s)) => vec![Value::String(s.clone())],
            Some(other) => return Err(Error::invalid(format!("unexpected choices value {other}; expected a list or a string"))),
            None => return Err(Error::not_found(format!("field {:?} is missing from input_fields", self.choices))),
        };
        let outputs = ex
            .get("reference_fields")
            .and_then(|v| v.as_object())
            .and_then(|o| o.get(&self.labels))
            .ok_or_else(|| Error::not_found(format!("field {:?} is missing from reference_fields", self.labels)))?;
        let outputs = outputs.as_array().ok_or_else(|| Error::invalid(format!("labels {outputs} must be a list")))?;
        let kept: Vec<Value> = choices.into_iter().filter(|c| outputs.contains(c)).collect();
        Ok(crate::py::repr::repr(&Value::Array(kept)))
    }
}

impl Sampler for DiverseLabelsSampler {
    fn sample<'a>(&'a self, n: usize, pool: &[&'a Instance], instance: &Instance, seed: Option<i64>) -> Result<Vec<&'a Instance>> {
        if self.cache.get().is_none() {
            let mut groups: IndexMap<String, Vec<Instance>> = IndexMap::new();
            for ex in pool {
                let r = self.label_repr(ex)?;
                if r == "[]" && !self.include_empty_label {
                    continue;
                }
                groups.entry(r).or_default().push((*ex).clone());
            }
            let _ = self.cache.set(groups);
        }
        let groups = self.cache.get().expect("set above");
        let mut labels: Vec<&String> = groups.keys().collect();
        let mut rng = instance_rng(instance, seed)?;
        rng.shuffle(&mut labels);
        if n > pool.len() {
            return Err(Error::invalid(format!("requested sample size {n} is greater than the number of instances {}", pool.len())));
        }
        let mut alloc: IndexMap<&String, usize> = IndexMap::new();
        let mut total = 0;
        while total < n {
            let before = total;
            for l in &labels {
                if total >= n {
                    break;
                }
                let used = alloc.get(*l).copied().unwrap_or(0);
                if groups[*l].len() > used {
                    *alloc.entry(*l).or_insert(0) += 1;
                    total += 1;
                }
            }
            if total == before {
                return Err(Error::invalid("not enough demos in the label groups to sample from"));
            }
        }
        let mut chosen: Vec<&Instance> = Vec::new();
        for (l, k) in alloc {
            let g = &groups[l];
            for i in rng.sample_indices(g.len(), k) {
                chosen.push(&g[i]);
            }
        }
        rng.shuffle(&mut chosen);
        Ok(chosen)
    }
}

/// `close_text_sampler`: the demos whose `input_fields[field]` text is among the
/// `sample_size` closest (Python's `difflib.get_close_matches` with cutoff 0) to the
/// instance's, then a random sample of those (seeded by the instance, without local seed, as
/// in Unitxt).
#[derive(Deserialize)]
pub struct CloseTextSampler {
    /// `field`: the input field whose text is compared with the instance's.
    pub field: String,
}

impl Sampler for CloseTextSampler {
    fn sample<'a>(&'a self, n: usize, pool: &[&'a Instance], instance: &Instance, _seed: Option<i64>) -> Result<Vec<&'a Instance>> {
        let path = format!("input_fields/{}", self.field);
        let text_of = |i: &Instance| -> Result<String> {
            match &*crate::py::dict_path::dict_get(i, &path)? {
                Value::String(s) => Ok(s.as_str().to_owned()),
                other => Err(Error::invalid(format!("close_text_sampler needs text in {path:?}, got {other}"))),
            }
        };
        let word = text_of(instance)?;
        let options: Vec<String> = pool.iter().map(|p| text_of(p)).collect::<Result<_>>()?;
        let closest = super::difflib::get_close_matches(&word, &options, n, 0.0);
        let candidates: Vec<&Instance> =
            pool.iter().zip(&options).filter(|(_, t)| closest.contains(t)).map(|(p, _)| *p).collect();
        let mut rng = instance_rng(instance, None)?;
        Ok(rng.sample_indices(candidates.len(), n).into_iter().map(|i| candidates[i]).collect())
    }
}

/// The catalog JSON of `constant_size_sample` (Unitxt's `ConstantSizeSample`).
#[derive(Deserialize)]
pub struct ConstantSizeSampleConfig {
    /// `from_field`: the top-level field holding the instance's pool of demos (removed).
    pub from_field: String,
    /// `to_field`: the top-level field that receives the demos.
    pub to_field: String,
    /// `sampler`: the sampler (a nested artifact or a catalog name).
    pub sampler: Value,
    /// `skip_demoed_instances`: leave an instance that already has `to_field` as it is, but for
    /// its pool, removed (default false).
    #[serde(default)]
    pub skip_demoed_instances: bool,
    /// `sampling_seed`: the sampler's local seed (absent: none).
    #[serde(default)]
    pub sampling_seed: Option<i64>,
    /// `sample_size`: how many demos each instance gets.
    pub sample_size: i64,
}

/// The catalog JSON of `random_size_sample` (Unitxt's `RandomSizeSample`): as
/// [`ConstantSizeSampleConfig`], with a size drawn per instance.
#[derive(Deserialize)]
pub struct RandomSizeSampleConfig {
    /// `from_field`: the top-level field holding the instance's pool of demos (removed).
    pub from_field: String,
    /// `to_field`: the top-level field that receives the demos.
    pub to_field: String,
    /// `sampler`: the sampler (a nested artifact or a catalog name).
    pub sampler: Value,
    /// `skip_demoed_instances`: see [`ConstantSizeSampleConfig::skip_demoed_instances`].
    #[serde(default)]
    pub skip_demoed_instances: bool,
    /// `sampling_seed`: the sampler's local seed (absent: none).
    #[serde(default)]
    pub sampling_seed: Option<i64>,
    /// `sample_sizes`: the sizes one is chosen from for each instance, by a generator seeded
    /// with its input fields.
    pub sample_sizes: Vec<i64>,
}

/// How many demos an instance gets.
enum SampleSize {
    Constant(i64),
    Random(Vec<i64>),
}

/// `constant_size_sample` and `random_size_sample` (Unitxt's `AssignDemosToInstance`
/// operators): each instance's demos drawn by `sampler` from the pool in its own field
/// `from_field` (less the pool's items whose `input_fields` equal the instance's), copied into
/// `to_field`; `from_field` is removed. Errors: a missing field or `input_fields`, a pool
/// smaller than the size, what the sampler raises.
pub struct AssignDemosToInstance {
    from_field: String,
    to_field: String,
    sampler: crate::artifact::Art<dyn Sampler>,
    skip_demoed_instances: bool,
    sampling_seed: Option<i64>,
    size: SampleSize,
}

impl ConstantSizeSampleConfig {
    /// The operator, its sampler built in `cx`.
    pub fn build(self, cx: &crate::artifact::BuildContext<'_>) -> Result<AssignDemosToInstance> {
        Ok(AssignDemosToInstance {
            sampler: cx.build::<dyn Sampler>(&self.sampler)?,
            from_field: self.from_field,
            to_field: self.to_field,
            skip_demoed_instances: self.skip_demoed_instances,
            sampling_seed: self.sampling_seed,
            size: SampleSize::Constant(self.sample_size),
        })
    }
}

impl RandomSizeSampleConfig {
    /// The operator, its sampler built in `cx`.
    pub fn build(self, cx: &crate::artifact::BuildContext<'_>) -> Result<AssignDemosToInstance> {
        Ok(AssignDemosToInstance {
            sampler: cx.build::<dyn Sampler>(&self.sampler)?,
            from_field: self.from_field,
            to_field: self.to_field,
            skip_demoed_instances: self.skip_demoed_instances,
            sampling_seed: self.sampling_seed,
            size: SampleSize::Random(self.sample_sizes),
        })
    }
}

impl crate::operators::InstanceOperator for AssignDemosToInstance {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        if self.skip_demoed_instances && instance.contains_key(self.to_field.as_str()) {
            instance.shift_remove(self.from_field.as_str());
            return Ok(instance);
        }
        let Some(Value::Array(pool)) = instance.get(self.from_field.as_str()) else {
            return Err(Error::invalid(format!("the demos pool field {:?} is missing or not a list", self.from_field)));
        };
        let size = match &self.size {
            SampleSize::Constant(n) => *n,
            SampleSize::Random(sizes) => {
                if sizes.is_empty() {
                    return Err(Error::invalid("Cannot choose from an empty sequence"));
                }
                sizes[instance_rng(&instance, None)?.choice_index(sizes.len())]
            }
        };
        let inputs = instance.get("input_fields").ok_or_else(|| Error::invalid("'input_fields' field is missing from the instance"))?;
        let mut source: Vec<&Instance> = Vec::with_capacity(pool.len());
        for item in pool {
            let item = item.as_object().ok_or_else(|| Error::invalid("a demo of the pool is not a dict"))?;
            let theirs = item.get("input_fields").ok_or_else(|| Error::invalid("a demo of the pool has no 'input_fields'"))?;
            if !crate::py::ops::py_eq(theirs, inputs) {
                source.push(item);
            }
        }
        if (source.len() as i64) < size {
            return Err(Error::invalid(format!(
                "Size of population to sample from: {} is smaller than the needed sample_size: {size}.",
                source.len()
            )));
        }
        let demos: Vec<Value> = self
            .sampler
            .inner
            .sample(size.max(0) as usize, &source, &instance, self.sampling_seed)?
            .into_iter()
            .map(|d| Value::Object(d.clone()))
            .collect();
        instance.insert(self.to_field.as_str().into(), Value::Array(demos));
        instance.shift_remove(self.from_field.as_str());
        Ok(instance)
    }
}
