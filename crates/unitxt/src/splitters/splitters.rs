//! Operators that re-split a multi-stream (Unitxt's `splitters.py` and `split_utils.py`):
//! renaming splits, mixing them at random by proportions, and slicing them by position.
//!
//! Our streams are single-pass iterators, while Unitxt re-iterates its streams whenever they
//! are read again. A source split read by one output split only is therefore passed through
//! lazily. A source split of a random mix is drawn once and routed to per-output queues (a
//! router), so only what a live output has not read yet is held; a source split that several
//! slices read is collected once, on the first pull, and shared (`SharedSources`).

use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::operators::Operator;
use crate::py::random::{new_random_generator, PyRandom};
use crate::stream::{chain_lazy, error_stream, MultiStream, Stream, Thunk};
use crate::value::{Instance, Value};

enum SrcState {
    Pending(Stream),
    Ready(Arc<Vec<Instance>>),
    Failed(Error),
}

/// Source splits read by several outputs: each is collected on its first use and then served
/// from memory; an error met while collecting is returned to every reader.
#[derive(Default)]
pub(crate) struct SharedSources {
    state: Mutex<IndexMap<String, SrcState>>,
}

impl SharedSources {
    pub(crate) fn add(&self, name: String, s: Stream) {
        if let Ok(mut m) = self.state.lock() {
            m.insert(name, SrcState::Pending(s));
        }
    }

    /// The whole content of split `name`.
    pub(crate) fn get(&self, name: &str) -> Result<Arc<Vec<Instance>>> {
        let mut m = self.state.lock().map_err(|_| Error::invalid("shared split state is poisoned"))?;
        let slot = m.get_mut(name).ok_or_else(|| Error::not_found(format!("split {name:?} is not shared")))?;
        let st = std::mem::replace(slot, SrcState::Failed(Error::invalid("split is being read")));
        let new = match st {
            SrcState::Pending(s) => match s.collect::<Result<Vec<_>>>() {
                Ok(v) => SrcState::Ready(Arc::new(v)),
                Err(e) => SrcState::Failed(e),
            },
            other => other,
        };
        *slot = new;
        match slot {
            SrcState::Ready(v) => Ok(v.clone()),
            SrcState::Failed(e) => Err(e.clone()),
            SrcState::Pending(_) => Err(Error::invalid("split was not collected")),
        }
    }
}

/// Unitxt's `RenameSplits`: renames splits by `mapper` (`{old: new}`). Splits that are not
/// renamed keep their place; renamed ones follow them, in `mapper` order, except that a new
/// name equal to a kept split takes that split's place (replacing it). Errors when an old
/// name is missing (also when it was already renamed away by an earlier entry).
#[derive(Debug, Clone, Deserialize)]
pub struct RenameSplits {
    /// `mapper`: old split name to new split name, applied in order.
    pub mapper: IndexMap<String, String>,
}

impl Operator for RenameSplits {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let mut renamed: Vec<(String, Stream)> = Vec::new();
        for (old, new) in &self.mapper {
            let names = ms.names();
            let s = ms.streams.shift_remove(old).ok_or_else(|| {
                Error::not_found(format!("rename_splits: split {old:?} is not in the splits {names:?}"))
            })?;
            renamed.push((new.clone(), s));
        }
        for (new, s) in renamed {
            ms.streams.insert(new, s);
        }
        Ok(ms)
    }

    /// Splits are renamed; no instance is looked at.
    fn fields_read(&self) -> crate::operators::FieldsRead {
        crate::operators::FieldsRead::Only(Vec::new())
    }
}

/// Parses a mix expression such as `"train[90%]+test[0.1]+validation"` (Unitxt's
/// `parse_random_mix_string`) into `{source: proportion}`: `p%` is `p/100`, a bare number is
/// taken as is, no bracket means 1.0. A source named twice keeps its first place and its last
/// proportion. Errors on any other syntax.
pub fn parse_random_mix_string(s: &str) -> Result<IndexMap<String, f64>> {
    let bad = || Error::invalid(format!("Invalid input format for split '{s}'"));
    let mut out = IndexMap::new();
    for part in s.split('+') {
        let (name, bracket) = match part.find('[') {
            Some(i) => {
                let b = part[i..].strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(bad)?;
                (&part[..i], Some(b))
            }
            None => (part, None),
        };
        if name.is_empty() || !name.chars().all(is_word_char) {
            return Err(bad());
        }
        let value = match bracket {
            None => 1.0,
            Some(b) => {
                let (num, pct) = match b.strip_suffix('%') {
                    Some(n) => (n, true),
                    None => (b, false),
                };
                // Unitxt's pattern: digits, an optional dot, digits.
                let dots = num.chars().filter(|c| *c == '.').count();
                if dots > 1 || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    return Err(bad());
                }
                let v: f64 = num.parse().map_err(|_| {
                    Error::invalid(format!("could not convert string to float: '{num}' in split '{s}'"))
                })?;
                if pct {
                    v / 100.0
                } else {
                    v
                }
            }
        };
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// For each source split, the outputs it may go to (`None` = dropped) and their weights:
/// Unitxt's `build_stream_routing`, including where the `None` entry falls.
type Routing = IndexMap<String, Vec<(Option<String>, f64)>>;

fn build_stream_routing(mapping: &IndexMap<String, IndexMap<String, f64>>) -> Routing {
    let mut totals: IndexMap<&str, f64> = IndexMap::new();
    for olds in mapping.values() {
        for (old, w) in olds {
            *totals.entry(old.as_str()).or_insert(0.0) += *w;
        }
    }
    // Python starts each total from the first weight rather than from 0.0; 0.0 + w == w.
    let mut routing: Routing = IndexMap::new();
    let upsert = |v: &mut Vec<(Option<String>, f64)>, k: Option<String>, w: f64| match v.iter_mut().find(|e| e.0 == k) {
        Some(e) => e.1 = w,
        None => v.push((k, w)),
    };
    for (new, olds) in mapping {
        for (old, w) in olds {
            let entry = routing.entry(old.clone()).or_default();
            upsert(entry, Some(new.clone()), *w);
            let total = totals[old.as_str()];
            if total < 1.0 {
                upsert(entry, None, 1.0 - total);
            }
        }
    }
    routing
}

/// Unitxt's `SplitRandomMix`: builds new splits from random parts of the old ones. `mix` maps
/// each new split to a mix expression (see [`parse_random_mix_string`]); each instance of a
/// source split goes to at most one new split, drawn with the proportions as weights by a
/// generator seeded with the source split's name. Output splits are the keys of `mix`, in
/// order; other splits are dropped. A missing source split is an error in the output stream
/// that reads it.
#[derive(Debug, Clone, Deserialize)]
pub struct SplitRandomMix {
    /// `mix`: new split name to its mix expression (e.g. `train[95%]`, `train[5%]+validation`), in
    /// output order.
    pub mix: IndexMap<String, String>,
}

impl Operator for SplitRandomMix {
    fn process(self: Arc<Self>, mut ms: MultiStream) -> Result<MultiStream> {
        let mut mapping: IndexMap<String, IndexMap<String, f64>> = IndexMap::new();
        for (k, v) in &self.mix {
            mapping.insert(k.clone(), parse_random_mix_string(v)?);
        }
        let routing = build_stream_routing(&mapping);
        let available = ms.names();

        // How each source split is read: passed through when all its instances go to one
        // output, otherwise drawn once by a router that queues them for each output.
        let mut routers: IndexMap<String, Arc<Mutex<Router>>> = IndexMap::new();
        let mut single: IndexMap<String, Stream> = IndexMap::new();
        for (old, options) in &routing {
            let Some(s) = ms.streams.shift_remove(old) else { continue };
            if certain_target(options).is_some() {
                single.insert(old.clone(), s);
            } else {
                let cum = crate::py::random::accumulate(&options.iter().map(|o| o.1).collect::<Vec<_>>());
                routers.insert(old.clone(), Router::new(s, old, cum));
            }
        }

        let mut out = MultiStream::new();
        for (new, olds) in &mapping {
            let mut parts: Vec<Thunk> = Vec::new();
            for old in olds.keys() {
                let options = &routing[old];
                let Some(me) = options.iter().position(|o| o.0.as_deref() == Some(new.as_str())) else { continue };
                if !available.contains(old) {
                    let msg = format!("'{old}' split not found.  Possibles options: {available:?}");
                    parts.push(Box::new(move || error_stream(Error::not_found(msg))));
                    continue;
                }
                if let Some(target) = certain_target(options) {
                    if target == me {
                        if let Some(s) = single.shift_remove(old) {
                            parts.push(Box::new(move || s));
                        }
                    }
                    continue;
                }
                if let Some(router) = routers.get(old) {
                    let reader = TeeReader::open(router.clone(), me);
                    parts.push(Box::new(move || Box::new(reader) as Stream));
                }
            }
            out.streams.insert(new.clone(), chain_lazy(parts));
        }
        Ok(out)
    }

    /// Instances are routed by draws seeded with their split's name, never by their content.
    fn fields_read(&self) -> crate::operators::FieldsRead {
        crate::operators::FieldsRead::Only(Vec::new())
    }
}

/// The option every instance is routed to when the draw cannot matter: a single option, or
/// only the last option has a positive weight (the bisection then always lands on it).
fn certain_target(options: &[(Option<String>, f64)]) -> Option<usize> {
    let n = options.len();
    if n == 1 {
        return Some(0);
    }
    if n > 1 && options[..n - 1].iter().all(|o| o.1 == 0.0) && options[n - 1].1 > 0.0 {
        return Some(n - 1);
    }
    None
}

/// A source split of a random mix, as Unitxt routes it: one generator seeded by the source's
/// name makes one weighted draw per instance, choosing the output (or none) it goes to. Each
/// instance is drawn from the source once; an instance for another output waits in that
/// output's queue until it reads it. Outputs that were dropped unread, and the "no split"
/// option, get nothing queued: memory holds only what a live output has yet to read, never the
/// whole source.
struct Router {
    source: Option<Stream>,
    rng: PyRandom,
    cum: Vec<f64>,
    /// One queue per routing option; `None` while that option has no open reader.
    queues: Vec<Option<std::collections::VecDeque<Result<Instance>>>>,
}

impl Router {
    fn new(source: Stream, old: &str, cum: Vec<f64>) -> Arc<Mutex<Router>> {
        let queues = cum.iter().map(|_| None).collect();
        let rng = new_random_generator(&Value::String(old.into()));
        Arc::new(Mutex::new(Router { source: Some(source), rng, cum, queues }))
    }

    /// The next instance routed to option `me`.
    fn next_for(&mut self, me: usize) -> Option<Result<Instance>> {
        if let Some(x) = self.queues[me].as_mut().and_then(|q| q.pop_front()) {
            return Some(x);
        }
        loop {
            let item = match self.source.as_mut()?.next() {
                Some(item) => item,
                None => {
                    self.source = None;
                    return None;
                }
            };
            let routed = item.and_then(|inst| self.rng.weighted_choice_index(&self.cum).map(|c| (c, inst)));
            match routed {
                Ok((c, inst)) if c == me => return Some(Ok(inst)),
                Ok((c, inst)) => {
                    if let Some(q) = self.queues[c].as_mut() {
                        q.push_back(Ok(inst));
                    }
                }
                Err(e) => {
                    for q in self.queues.iter_mut().flatten() {
                        q.push_back(Err(e.clone()));
                    }
                    return Some(Err(e));
                }
            }
        }
    }
}

/// One output's view of a [`Router`]; dropping it (read or not) stops the queueing for it.
struct TeeReader {
    router: Arc<Mutex<Router>>,
    me: usize,
}

impl TeeReader {
    fn open(router: Arc<Mutex<Router>>, me: usize) -> TeeReader {
        if let Ok(mut r) = router.lock() {
            r.queues[me] = Some(Default::default());
        }
        TeeReader { router, me }
    }
}

impl Iterator for TeeReader {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Result<Instance>> {
        match self.router.lock() {
            Ok(mut r) => r.next_for(self.me),
            Err(_) => Some(Err(Error::invalid("a split shared by several outputs is poisoned"))),
        }
    }
}

impl Drop for TeeReader {
    fn drop(&mut self) {
        if let Ok(mut r) = self.router.lock() {
            r.queues[self.me] = None;
        }
    }
}

/// Parses `"train[:50]+test[10:]+validation"` (Unitxt's `parse_slices_string`) into
/// `{source: [(start, count)]}`; a source named several times gets several slices.
pub fn parse_slices_string(s: &str) -> Result<IndexMap<String, Vec<(Option<usize>, Option<usize>)>>> {
    let bad = || Error::invalid(format!("The input string \"{s}\" is not in the correct format."));
    let mut out: IndexMap<String, Vec<(Option<usize>, Option<usize>)>> = IndexMap::new();
    for part in s.split('+') {
        let (name, slice) = match part.find('[') {
            Some(i) => {
                let inner = part[i..].strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(bad)?;
                let (a, b) = inner.split_once(':').ok_or_else(bad)?;
                let num = |x: &str| -> Result<Option<usize>> {
                    if x.is_empty() {
                        Ok(None)
                    } else if x.chars().all(|c| c.is_ascii_digit()) {
                        x.parse().map(Some).map_err(|_| bad())
                    } else {
                        Err(bad())
                    }
                };
                (&part[..i], (num(a)?, num(b)?))
            }
            None => (part, (None, None)),
        };
        if name.is_empty() || !name.chars().all(is_word_char) {
            return Err(bad());
        }
        out.entry(name.to_string()).or_default().push(slice);
    }
    Ok(out)
}

/// Unitxt's `slice_stream`: skips `start` instances, then keeps `end` instances (the second
/// bound counts from `start`, as in Unitxt).
fn slice(s: Stream, start: Option<usize>, end: Option<usize>) -> Stream {
    let s: Stream = match start {
        Some(k) => Box::new(s.skip(k)),
        None => s,
    };
    match end {
        Some(n) => Box::new(s.take(n)),
        None => s,
    }
}

/// Unitxt's `slice_streams`: each new split is the concatenation of the given slices of the
/// old splits. Output splits are the mapping's keys; a missing source is an error in the
/// stream that reads it.
fn slice_streams(
    mut ms: MultiStream,
    mapping: IndexMap<String, IndexMap<String, Vec<(Option<usize>, Option<usize>)>>>,
) -> MultiStream {
    let available = ms.names();
    let mut readers: IndexMap<String, usize> = IndexMap::new();
    for olds in mapping.values() {
        for (old, slices) in olds {
            *readers.entry(old.clone()).or_insert(0) += slices.len();
        }
    }
    let shared = Arc::new(SharedSources::default());
    let mut single: IndexMap<String, Stream> = IndexMap::new();
    for (old, n) in &readers {
        if let Some(s) = ms.streams.shift_remove(old) {
            if *n == 1 {
                single.insert(old.clone(), s);
            } else {
                shared.add(old.clone(), s);
            }
        }
    }
    let mut out = MultiStream::new();
    for (new, olds) in mapping {
        let mut parts: Vec<Thunk> = Vec::new();
        for (old, slices) in olds {
            if !available.contains(&old) {
                let msg = format!("'{old}' is not available in input streams, but need to slice there from");
                parts.push(Box::new(move || error_stream(Error::not_found(msg))));
                break;
            }
            for (start, end) in slices {
                if let Some(s) = single.shift_remove(&old) {
                    parts.push(Box::new(move || slice(s, start, end)));
                } else {
                    let sh = shared.clone();
                    let old2 = old.clone();
                    parts.push(Box::new(move || match sh.get(&old2) {
                        Ok(v) => slice(Box::new((0..v.len()).map(move |i| Ok(v[i].clone()))), start, end),
                        Err(e) => error_stream(e),
                    }));
                }
            }
        }
        out.streams.insert(new, chain_lazy(parts));
    }
    out
}

/// Unitxt's `SliceSplit`: `slices` maps each new split to a slice expression (see
/// [`parse_slices_string`]). Output splits are the keys of `slices`.
#[derive(Debug, Clone, Deserialize)]
pub struct SliceSplit {
    /// `slices`: new split name to its slice expression (e.g. `train[:1000]`), in output order.
    pub slices: IndexMap<String, String>,
}

impl Operator for SliceSplit {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let mut mapping = IndexMap::new();
        for (k, v) in &self.slices {
            mapping.insert(k.clone(), parse_slices_string(v)?);
        }
        Ok(slice_streams(ms, mapping))
    }
}

/// Unitxt's `SeparateSplit`: cuts `from_split` into consecutive parts named `to_split_names`
/// of sizes `to_split_sizes` (the last name may have no size: it takes the rest). Other splits
/// are kept; `from_split` itself is dropped when `remove_targets_from_source_split` (default).
/// Errors when the numbers of names and sizes do not fit.
#[derive(Debug, Clone, Deserialize)]
pub struct SeparateSplit {
    /// `from_split`: the split cut into parts.
    pub from_split: String,
    /// `to_split_names`: the parts' names, in order.
    pub to_split_names: Vec<String>,
    /// `to_split_sizes`: the parts' sizes in instances, in order (the last name may have none).
    pub to_split_sizes: Vec<usize>,
    /// `remove_targets_from_source_split`: drop `from_split` afterwards (default true).
    #[serde(default = "yes")]
    pub remove_targets_from_source_split: bool,
}

fn yes() -> bool {
    true
}

impl Operator for SeparateSplit {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let (n, k) = (self.to_split_names.len(), self.to_split_sizes.len());
        if n != k && n != k + 1 {
            return Err(Error::invalid(format!(
                "Examples num should be specified to all or all but the last splits, instead given {n} split names \
                 and {k} split sizes"
            )));
        }
        let mut mapping: IndexMap<String, IndexMap<String, Vec<(Option<usize>, Option<usize>)>>> = IndexMap::new();
        for key in ms.names() {
            if !self.remove_targets_from_source_split || key != self.from_split {
                mapping.insert(key.clone(), IndexMap::from([(key, vec![(None, None)])]));
            }
        }
        let mut so_far = 0usize;
        for (i, name) in self.to_split_names.iter().enumerate() {
            let size = self.to_split_sizes.get(i).copied();
            if self.remove_targets_from_source_split || *name != self.from_split {
                mapping.insert(name.clone(), IndexMap::from([(self.from_split.clone(), vec![(Some(so_far), size)])]));
            }
            so_far += size.unwrap_or(0);
        }
        Ok(slice_streams(ms, mapping))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn ids(items: std::ops::Range<i64>) -> Vec<Instance> {
        items.map(|i| json!({ "id": i }).as_object().cloned().unwrap_or_default()).collect()
    }

    /// train: ids 0..50, validation: 100..110, test: 200..220 (Unitxt `MultiStream.from_iterables`).
    fn ms() -> MultiStream {
        let mut l = IndexMap::new();
        l.insert("train".to_string(), ids(0..50));
        l.insert("validation".to_string(), ids(100..110));
        l.insert("test".to_string(), ids(200..220));
        MultiStream::from_lists(l)
    }

    fn run(op: impl Operator + 'static, m: MultiStream) -> crate::value::Value {
        let out = Arc::new(op).process(m).unwrap();
        let mut o = crate::value::Map::new();
        for (k, s) in out.streams {
            let v: Vec<Value> = s.map(|r| r.unwrap()["id"].clone()).collect();
            o.insert(k.into(), Value::Array(v));
        }
        Value::Object(o)
    }

    fn mix(pairs: &[(&str, &str)]) -> SplitRandomMix {
        SplitRandomMix { mix: pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect() }
    }

    // Expected values: the same operators run by Unitxt 1.26.10 in /work/venv on the same input.
    #[test]
    fn random_mix_matches_unitxt() {
        let r = run(mix(&[("train", "train[90%]"), ("validation", "train[10%]"), ("test", "validation")]), ms());
        assert_eq!(r["validation"], json!([10, 14, 17, 20, 46, 47, 49]));
        assert_eq!(r["train"].as_array().map(|a| a.len()), Some(43));
        assert_eq!(r["test"], json!([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]));
        assert_eq!(
            r.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec!["train".into(), "validation".into(), "test".into()])
        );

        let r = run(
            mix(&[("train", "train[50%]+test[0.1]"), ("validation", "train[50%]+test[0.2]"), ("test", "test[0.7]")]),
            ms(),
        );
        assert_eq!(
            r["train"],
            json!([
                0, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 16, 18, 19, 21, 23, 24, 26, 27, 29, 31, 32, 33, 35, 36, 37, 39, 41,
                43, 45, 48, 203, 213, 218, 219
            ])
        );
        assert_eq!(
            r["validation"],
            json!([1, 8, 10, 14, 15, 17, 20, 22, 25, 28, 30, 34, 38, 40, 42, 44, 46, 47, 49, 200, 206, 207, 210])
        );
        assert_eq!(r["test"], json!([201, 202, 204, 205, 208, 209, 211, 212, 214, 215, 216, 217]));

        let r = run(mix(&[("train", "train[95%]"), ("validation", "train[5%]"), ("test", "test")]), ms());
        assert_eq!(r["validation"], json!([10, 14, 17, 46, 47]));
        assert_eq!(r["test"].as_array().map(|a| a.len()), Some(20));

        let r = run(mix(&[("train", "test[0%]"), ("validation", "test[0%]"), ("test", "test")]), ms());
        assert_eq!(r["train"], json!([]));
        assert_eq!(r["validation"], json!([]));
        assert_eq!(r["test"].as_array().map(|a| a.len()), Some(20));

        let r = run(mix(&[("train", "train[30%]")]), ms());
        assert_eq!(r, json!({"train": [0, 2, 5, 6, 7, 9, 11, 12, 13, 16, 19, 23, 24, 26, 31, 36, 37, 39, 41, 43]}));
    }

    // The shared source is read once and queued per output: any reading order, interleaving or
    // dropped output gives each output the instances it gets when read alone (first test above).
    #[test]
    fn random_mix_outputs_read_in_any_order() {
        let op = || mix(&[("train", "train[50%]+test[0.1]"), ("validation", "train[50%]+test[0.2]"), ("test", "test[0.7]")]);
        let ids_of = |s: Stream| -> Vec<Value> { s.map(|r| r.unwrap()["id"].clone()).collect() };
        let expected = run(op(), ms());

        // Validation first, then train.
        let mut out = Arc::new(op()).process(ms()).unwrap();
        let v = ids_of(out.streams.shift_remove("validation").unwrap());
        let t = ids_of(out.streams.shift_remove("train").unwrap());
        assert_eq!((Value::Array(v), Value::Array(t)), (expected["validation"].clone(), expected["train"].clone()));

        // Interleaved, one instance at a time.
        let mut out = Arc::new(op()).process(ms()).unwrap();
        let mut tr = out.streams.shift_remove("train").unwrap();
        let mut va = out.streams.shift_remove("validation").unwrap();
        let (mut t, mut v) = (vec![], vec![]);
        loop {
            let a = tr.next().map(|r| r.unwrap()["id"].clone());
            let b = va.next().map(|r| r.unwrap()["id"].clone());
            if a.is_none() && b.is_none() {
                break;
            }
            t.extend(a);
            v.extend(b);
        }
        assert_eq!((Value::Array(t), Value::Array(v)), (expected["train"].clone(), expected["validation"].clone()));

        // Train dropped unread: validation is unchanged.
        let mut out = Arc::new(op()).process(ms()).unwrap();
        drop(out.streams.shift_remove("train"));
        let v = ids_of(out.streams.shift_remove("validation").unwrap());
        assert_eq!(Value::Array(v), expected["validation"]);
    }

    #[test]
    fn random_mix_errors() {
        assert!(parse_random_mix_string("train[9x%]").is_err());
        assert!(parse_random_mix_string("train[]").is_err());
        assert!(parse_random_mix_string("tr ain").is_err());
        let p = parse_random_mix_string("dale[90%]+oren[0.7]+mike").unwrap();
        assert_eq!(
            p.into_iter().collect::<Vec<_>>(),
            vec![("dale".into(), 0.9), ("oren".into(), 0.7), ("mike".into(), 1.0)]
        );
        let out = Arc::new(mix(&[("test", "nope")])).process(ms()).unwrap();
        let items: Vec<_> = out.streams.into_iter().flat_map(|(_, s)| s).collect();
        assert!(items[0].as_ref().is_err_and(|e| e.message.contains("'nope' split not found")));
    }

    #[test]
    fn slices_renames_and_separation_match_unitxt() {
        let slices = [("a", "train[5:3]+test[:2]"), ("b", "train[48:]+train[:1]")];
        let op = SliceSplit { slices: slices.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect() };
        assert_eq!(run(op, ms()), json!({"a": [5, 6, 7, 200, 201], "b": [48, 49, 0]}));

        let op = SeparateSplit {
            from_split: "train".into(),
            to_split_names: vec!["x".into(), "y".into()],
            to_split_sizes: vec![3],
            remove_targets_from_source_split: true,
        };
        let r = run(op, ms());
        assert_eq!(
            r.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec!["validation".into(), "test".into(), "x".into(), "y".into()])
        );
        assert_eq!(r["x"], json!([0, 1, 2]));
        assert_eq!(r["y"].as_array().map(|a| a.len()), Some(47));

        let op = RenameSplits {
            mapper: [("validation", "test"), ("train", "tr")]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        };
        let r = run(op, ms());
        assert_eq!(
            r.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec!["test".into(), "tr".into()])
        );
        assert_eq!(r["test"][0], json!(100));
        let op = RenameSplits { mapper: [("nope".to_string(), "x".to_string())].into_iter().collect() };
        assert!(Arc::new(op).process(ms()).is_err());
    }
}
