//! The demos pool and demos assignment (Unitxt's `CreateDemosPool` in `standard.py` and
//! `AssignDemosToInstance` in `splitters.py`). A demo the pool renders is kept as a
//! [`RenderedDemo`] of `finalize.rs` (this module depends on that one, never the reverse).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::templates::Template;
use crate::py::json::{dumps, DumpOptions};
use crate::splitters::Sampler;
use crate::stream::{MultiStream, Stream};
use crate::value::{Instance, Value};

use super::finalize::RenderedDemo;
use super::NumDemos;

/// Takes up to `size` instances with distinct `input_fields` (compared by their
/// `json.dumps(..., sort_keys=True)`) from the start of split `from`. With
/// `removed_from_data`, the pool instances leave that split; instances skipped as duplicates
/// stay, ahead of the rest of the split. `size == usize::MAX` with removal consumes the
/// whole split (and drops it). Returns the new multi-stream and the pool.
pub fn create_demos_pool(mut ms: MultiStream, from: &str, size: usize, removed_from_data: bool) -> Result<(MultiStream, Vec<Instance>)> {
    if !ms.streams.contains_key(from) {
        let available = ms.names();
        let message = format!("the demos pool is taken from split {from:?}, which does not exist; available splits: {available:?}");
        let reason = crate::error::Reason::MissingDemosSplit { split: from.to_string(), available };
        return Err(Error::with_reason(crate::error::ErrorKind::NotFound, reason, message));
    }
    if removed_from_data && size == usize::MAX && ms.streams.len() == 1 {
        return Err(Error::invalid(format!(
            "the single split {from:?} would be wholly consumed for demos, leaving no instance to use them"
        )));
    }
    let position = ms.streams.get_index_of(from).expect("checked above");
    let mut stream = ms.streams.shift_remove(from).expect("checked above");
    let mut pool = Vec::new();
    let mut signatures = std::collections::HashSet::new();
    let mut skipped = Vec::new();
    let mut scanned = Vec::new();
    while pool.len() < size {
        let Some(r) = stream.next() else { break };
        let inst = r?;
        let inputs = inst
            .get("input_fields")
            .ok_or_else(|| Error::invalid("an instance of the demos split has no 'input_fields'"))?;
        let sig = dumps(inputs, DumpOptions { sort_keys: true, ..Default::default() });
        if !removed_from_data {
            scanned.push(inst.clone());
        }
        if signatures.contains(&sig) {
            if removed_from_data {
                skipped.push(inst);
            }
            continue;
        }
        signatures.insert(sig);
        pool.push(inst);
    }
    if removed_from_data && size == usize::MAX {
        return Ok((ms, pool));
    }
    let rest: Stream = if removed_from_data {
        Box::new(skipped.into_iter().map(Ok).chain(stream))
    } else {
        Box::new(scanned.into_iter().map(Ok).chain(stream))
    };
    ms.streams.shift_insert(position, from.to_string(), rest);
    Ok((ms, pool))
}

/// The fields of a rendered demo that formats read ([`crate::formats::take_fields`]): a
/// [`RenderedDemo`]'s `format_view`.
const FORMAT_DEMO_FIELDS: &[&str] = &["source", "target", "target_prefix"];

/// A hash of `v` that agrees with its equality: dicts compare without regard to key order,
/// so their entries' hashes are combined by a sum (which ignores order); lists and the rest
/// hash in order.
pub(crate) fn value_hash(v: &Value) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let state = foldhash::fast::FixedState::with_seed(0x5eed);
    let mut h = state.build_hasher();
    match v {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, b).hash(&mut h),
        Value::Number(n) => (2u8, n).hash(&mut h),
        Value::String(s) => (3u8, s.as_str()).hash(&mut h),
        Value::Array(a) => {
            (4u8, a.len()).hash(&mut h);
            for x in a {
                value_hash(x).hash(&mut h);
            }
        }
        Value::Object(m) => {
            let mut sum = 0u64;
            for (k, x) in m {
                let mut e = state.build_hasher();
                (k.as_str(), value_hash(x)).hash(&mut e);
                sum = sum.wrapping_add(e.finish());
            }
            (5u8, m.len(), sum).hash(&mut h);
        }
    }
    h.finish()
}

/// A recipe run's demos pool. Each demo a sampler picks is rendered by a template once: the
/// rendering (Unitxt's template applied to the demo, on split `""`) depends only on the demo
/// and the template, so it is kept, keyed by the demo's and the template's identity (pool
/// items and sampler copies live as long as the run).
pub struct DemosPool {
    /// The pool's instances, in the order [`create_demos_pool`] took them.
    pub items: Vec<Instance>,
    /// [`value_hash`] of each item's `input_fields` (`None` without them), so that leaving
    /// out the items that equal an instance compares hashes first.
    input_hashes: Vec<Option<u64>>,
    rendered: Mutex<HashMap<(usize, usize), Arc<RenderedDemo>>>,
}

impl DemosPool {
    /// A pool of `items`, nothing rendered yet.
    pub fn new(items: Vec<Instance>) -> DemosPool {
        let input_hashes = items.iter().map(|i| i.get("input_fields").map(value_hash)).collect();
        DemosPool { items, input_hashes, rendered: Mutex::new(HashMap::new()) }
    }

    /// `demo` rendered by `template` (shared after the first time). Errors as the template
    /// does; failures are not kept.
    pub fn render(&self, demo: &Instance, template: &Art<dyn Template>) -> Result<Arc<RenderedDemo>> {
        let key = (demo as *const Instance as usize, Arc::as_ptr(&template.inner) as *const () as usize);
        if let Some(r) = self.rendered.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(r);
        }
        // Only what is read of a demo downstream is kept: what formats read, and its
        // `task_data` dict, written once (see `finalize.rs`).
        let r = Arc::new(RenderedDemo::new(template.process_instance(demo.clone(), "")?, FORMAT_DEMO_FIELDS)?);
        if let Ok(mut m) = self.rendered.lock() {
            m.insert(key, r.clone());
        }
        Ok(r)
    }
}

/// Picks the demos of an instance: filters the pool of items whose `input_fields` equal the
/// instance's, checks the pool is large enough, and asks the sampler. `None` when the instance
/// keeps the demos it has (`skip_demoed`).
pub fn sample_demos<'a>(
    inst: &Instance,
    pool: &'a DemosPool,
    sampler: &'a dyn Sampler,
    num_demos: &NumDemos,
    seed: Option<i64>,
    skip_demoed: bool,
) -> Result<Option<Vec<&'a Instance>>> {
    if skip_demoed && inst.contains_key("demos") {
        return Ok(None);
    }
    let inputs = inst.get("input_fields").ok_or_else(|| Error::invalid("instance has no 'input_fields'"))?;
    // Equal values have equal hashes: only a pool item with the instance's hash is compared.
    let h = value_hash(inputs);
    let filtered: Vec<&Instance> = pool
        .items
        .iter()
        .zip(&pool.input_hashes)
        .filter(|(p, ph)| **ph != Some(h) || p.get("input_fields") != Some(inputs))
        .map(|(p, _)| p)
        .collect();
    let n = match num_demos {
        NumDemos::Fixed(n) => *n,
        NumDemos::OneOf(sizes) => {
            let mut rng = crate::splitters::samplers::instance_rng(inst, None)?;
            sizes[rng.choice_index(sizes.len())]
        }
    };
    if filtered.len() < n {
        return Err(Error::invalid(format!(
            "the demos pool to sample from has {} instances, fewer than the {n} demos needed; increase demos_pool_size (or loader_limit)",
            filtered.len()
        )));
    }
    Ok(Some(sampler.sample(n, &filtered, inst, seed)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn value_hash_agrees_with_equality() {
        let a = json!({"q": "x", "c": ["a", "b"], "n": {"k": 1, "j": -0.0}});
        let b = json!({"c": ["a", "b"], "n": {"j": 0.0, "k": 1}, "q": "x"});
        assert_eq!(a, b);
        assert_eq!(value_hash(&a), value_hash(&b));
        for other in [json!({"q": "x", "c": ["b", "a"], "n": {"k": 1, "j": 0.0}}), json!({"q": "y"}), json!(["q", "x"]), json!(null)] {
            assert_ne!(a, other);
            assert_ne!(value_hash(&a), value_hash(&other), "{other}");
        }
    }
}
