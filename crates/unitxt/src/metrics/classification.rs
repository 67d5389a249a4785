//! Classification metrics: F1 / precision / recall (single-label, binary, multi-label),
//! binary accuracy and its max-over-thresholds variants, Matthews correlation and ROC AUC.
//! Mirrors Unitxt's `F1`, `F1Fast`, `F1Binary`, `BinaryMaxF1`, `BinaryAccuracy`,
//! `BinaryMaxAccuracy`, `F1MultiLabel`, `MatthewsCorrelation` and `RocAuc`, which call
//! scikit-learn; the sklearn definitions are reproduced here from per-instance label pairs so
//! that any resample of the records re-reduces to sklearn's numbers.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::Deserialize;

use super::{
    first_reference, nan_mean, py_set_order, py_str, CiSettings, InstanceScorer, Metric, MetricKind,
    Scores,
};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// Per-label counts (true positives, false positives, false negatives).
#[derive(Clone, Copy, Default)]
struct Counts {
    tp: f64,
    fp: f64,
    fn_: f64,
}

/// Which of sklearn's `f1_score` / `precision_score` / `recall_score`.
#[derive(Deserialize, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// F1.
    #[default]
    F1,
    /// Precision.
    Precision,
    /// Recall.
    Recall,
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Measure::F1 => "f1",
            Measure::Precision => "precision",
            Measure::Recall => "recall",
        }
    }
}

/// sklearn's division with `zero_division` 0 (also what `"warn"` yields).
fn div(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// The measure from counts, as sklearn's `precision_recall_fscore_support` computes it.
fn measure(m: Measure, c: Counts) -> f64 {
    match m {
        Measure::Precision => div(c.tp, c.tp + c.fp),
        Measure::Recall => div(c.tp, c.tp + c.fn_),
        Measure::F1 => div(2.0 * c.tp, 2.0 * c.tp + c.fp + c.fn_),
    }
}

/// Numbers reference code `t`, then prediction code `p` (in that order, as Unitxt meets them),
/// and appends `t`'s local id to `refs_in_order` the first time `t` is a reference.
fn note_pair(ids: &mut LocalIds, is_ref: &mut [bool], refs_in_order: &mut Vec<usize>, p: usize, t: usize) {
    let lt = ids.id(t);
    ids.id(p);
    if !is_ref[t] {
        is_ref[t] = true;
        refs_in_order.push(lt);
    }
}

/// Above this many distinct label strings, `F1Fast`'s resamples count instance by instance
/// instead of through a (labels x labels) histogram of pairs.
const MAX_HISTOGRAM_LABELS: usize = 64;

/// Adds `w` instances of the (true `t`, predicted `p`) pair to per-label `counts`: a true
/// positive of `t` when they agree, else a false positive of `p` and a false negative of `t`.
/// `w` is -1 to take one instance out.
#[inline]
fn add_pair(counts: &mut [Counts], t: usize, p: usize, w: f64) {
    if t == p {
        counts[t].tp += w;
    } else {
        counts[p].fp += w;
        counts[t].fn_ += w;
    }
}

/// Counts for each label of `labels` from (true, predicted) id pairs, in one pass (ids are
/// small: they number the labels in order of first use). Counts are whole numbers, so the
/// order of additions does not change them.
fn label_counts(pairs: &[(usize, usize)], labels: &[usize]) -> Vec<Counts> {
    let size = pairs.iter().map(|&(t, p)| t.max(p) + 1).max().unwrap_or(0).max(labels.iter().map(|l| l + 1).max().unwrap_or(0));
    let mut all = vec![Counts::default(); size];
    for &(t, p) in pairs {
        add_pair(&mut all, t, p, 1.0);
    }
    labels.iter().map(|&l| all[l]).collect()
}

fn micro(counts: &[Counts]) -> Counts {
    counts.iter().fold(Counts::default(), |a, c| Counts {
        tp: a.tp + c.tp,
        fp: a.fp + c.fp,
        fn_: a.fn_ + c.fn_,
    })
}

/// sklearn averages over `labels`: `None` (per label), micro, macro, weighted (by support).
fn averaged(m: Measure, counts: &[Counts], average: &str) -> f64 {
    match average {
        "micro" => measure(m, micro(counts)),
        "weighted" => {
            let w: f64 = counts.iter().map(|c| c.tp + c.fn_).sum();
            if w == 0.0 {
                return 0.0;
            }
            counts
                .iter()
                .map(|c| measure(m, *c) * (c.tp + c.fn_))
                .sum::<f64>()
                / w
        }
        _ => {
            if counts.is_empty() {
                return f64::NAN;
            }
            counts.iter().map(|c| measure(m, *c)).sum::<f64>() / counts.len() as f64
        }
    }
}

/// A record of a label pair: `[prediction, reference]` as `str()` strings.
fn pair_record(prediction: &Value, references: &[Value], metric: &str) -> Result<Value> {
    let r = first_reference(references, metric)?;
    Ok(Value::Array(vec![
        Value::String(py_str(prediction).into()),
        Value::String(py_str(r).into()),
    ]))
}

fn read_pair<'a>(record: &'a Value) -> Result<(&'a str, &'a str)> {
    match record.as_array().map(|a| a.as_slice()) {
        Some([Value::String(p), Value::String(r)]) => Ok((p, r)),
        _ => Err(Error::invalid(format!(
            "bad label-pair record: {}",
            crate::artifact::short(record)
        ))),
    }
}

/// String ids in order of first use, as Unitxt's `get_str_id`.
#[derive(Default)]
struct Ids {
    ids: IndexMap<String, usize>,
}

impl Ids {
    fn id(&mut self, s: &str) -> usize {
        let n = self.ids.len();
        *self.ids.entry(s.to_string()).or_insert(n)
    }
    fn name(&self, id: usize) -> &str {
        self.ids
            .get_index(id)
            .map(|(k, _)| k.as_str())
            .unwrap_or("")
    }
}

/// Label pairs of a whole stream interned once: `pairs[i]` = (prediction, reference) as
/// indices into `names`. Resamples then number labels in their own order of first use (as
/// [`Ids`] would on the resampled records) without hashing strings.
struct PairCodes<'a> {
    names: Vec<&'a str>,
    pairs: Vec<(usize, usize)>,
}

impl<'a> PairCodes<'a> {
    fn new(records: &'a [&'a Value]) -> Result<Self> {
        let mut index: HashMap<&'a str, usize> = HashMap::new();
        let mut names = Vec::new();
        let mut code = |s: &'a str| {
            *index.entry(s).or_insert_with(|| {
                names.push(s);
                names.len() - 1
            })
        };
        let mut pairs = Vec::with_capacity(records.len());
        for r in records {
            let (p, t) = read_pair(r)?;
            pairs.push((code(p), code(t)));
        }
        Ok(PairCodes { names, pairs })
    }
}

/// Label numbering in order of first use over interned codes (see [`PairCodes`]).
struct LocalIds {
    local: Vec<usize>,
    global: Vec<usize>,
}

impl LocalIds {
    fn new(n: usize) -> Self {
        LocalIds { local: vec![usize::MAX; n], global: Vec::new() }
    }
    fn id(&mut self, code: usize) -> usize {
        if self.local[code] == usize::MAX {
            self.local[code] = self.global.len();
            self.global.push(code);
        }
        self.local[code]
    }
}

/// `list(set(ids))` for small non-negative ints, in CPython's iteration order.
fn set_list(ids_in_order: &[usize]) -> Vec<usize> {
    let mut uniq: Vec<usize> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    for &i in ids_in_order {
        if i >= seen.len() {
            seen.resize(i + 1, false);
        }
        if !seen[i] {
            seen[i] = true;
            uniq.push(i);
        }
    }
    let hashes: Vec<i64> = uniq.iter().map(|&i| i as i64).collect();
    py_set_order(&hashes).into_iter().map(|k| uniq[k]).collect()
}

/// `f1`, `f1_macro`, `f1_micro`, `f1_weighted` (Unitxt's `F1`, `F1Macro`, `F1Micro`,
/// `F1Weighted`, global metrics over sklearn's `f1_score` with `labels` = the reference labels).
/// Macro (no `average`) reports `f1_macro` as the mean over labels plus `f1_<label>` per label;
/// micro/weighted report only the main score. Instance scores are the same on one instance.
#[derive(Deserialize)]
pub struct F1 {
    #[serde(default = "f1_macro")]
    main_score: String,
    /// `null` (per class, then mean), `micro`, `macro` or `weighted`.
    #[serde(default)]
    average: Option<String>,
    #[serde(default)]
    metric: Measure,
    #[serde(flatten)]
    ci: CiSettings,
}

fn f1_macro() -> String {
    "f1_macro".into()
}

impl F1 {
    /// Builds the class `t` (`f1`, `f1_macro`, `f1_micro`, `f1_weighted`) with its defaults.
    pub fn build(t: &str, v: &Value) -> Result<Self> {
        let mut v = v.clone();
        if let Value::Object(o) = &mut v {
            let (main, avg) = match t {
                "f1_micro" => ("f1_micro", Some("micro")),
                "f1_weighted" => ("f1_weighted", Some("weighted")),
                _ => ("f1_macro", None),
            };
            o.entry("main_score")
                .or_insert_with(|| Value::String(main.into()));
            if let Some(a) = avg {
                o.entry("average")
                    .or_insert_with(|| Value::String(a.into()));
            }
        }
        crate::artifact::from_value(t, &v)
    }
}

impl Metric for F1 {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        &self.main_score
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        if !prediction.is_string() {
            return Err(Error::invalid(format!(
                "`{}` needs string predictions",
                self.main_score
            )));
        }
        pair_record(prediction, references, &self.main_score)
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let pairs = records
            .iter()
            .map(|r| read_pair(r))
            .collect::<Result<Vec<_>>>()?;
        // Unitxt numbers all references first, then all predictions.
        let mut ids = Ids::default();
        let refs: Vec<usize> = pairs.iter().map(|(_, r)| ids.id(r)).collect();
        let preds: Vec<usize> = pairs.iter().map(|(p, _)| ids.id(p)).collect();
        Ok(self.scores_of(refs, preds, &|l| ids.name(l).to_string()))
    }
    fn resampler<'a>(&'a self, records: &'a [&'a Value]) -> Result<Option<super::Resampler<'a>>> {
        let codes = PairCodes::new(records)?;
        Ok(Some(super::Resampler {
            resample: Box::new(move |idx: &[usize]| {
                let mut ids = LocalIds::new(codes.names.len());
                let refs: Vec<usize> = idx.iter().map(|&i| ids.id(codes.pairs[i].1)).collect();
                let preds: Vec<usize> = idx.iter().map(|&i| ids.id(codes.pairs[i].0)).collect();
                Ok(self.scores_of(refs, preds, &|l| codes.names[ids.global[l]].to_string()))
            }),
            leave_one_out: None,
        }))
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main_score.clone()])
    }
}

impl F1 {
    /// The scores of label ids (reference and prediction per instance); `name` gives a
    /// label's text.
    fn scores_of(&self, refs: Vec<usize>, preds: Vec<usize>, name: &dyn Fn(usize) -> String) -> Scores {
        let labels = set_list(&refs);
        let yp: Vec<(usize, usize)> = refs.into_iter().zip(preds).collect();
        let counts = label_counts(&yp, &labels);
        let mut out = Scores::new();
        match self.average.as_deref() {
            None => {
                let per: Vec<f64> = counts.iter().map(|c| measure(self.metric, *c)).collect();
                out.insert(self.main_score.clone(), nan_mean(per.iter().copied()));
                for (l, s) in labels.iter().zip(per) {
                    out.insert(format!("{}_{}", self.metric.name(), name(*l)), s);
                }
            }
            Some(a) => {
                out.insert(self.main_score.clone(), averaged(self.metric, &counts, a));
            }
        }
        out
    }
}

/// `f1_fast` (Unitxt's `F1Fast`, the catalog's `metrics.f1_micro` / `metrics.f1_macro`): sklearn
/// `f1_score` with `zero_division=0` over the reference labels, reporting each of `averages`:
/// `f1` (macro), `f1_micro`, `f1_macro`, and `per_class` (`f1_<label>`). Labels are numbered
/// in stream order, reference before prediction per instance.
#[derive(Deserialize)]
pub struct F1Fast {
    #[serde(default = "f1_name")]
    main_score: String,
    #[serde(default = "all_averages")]
    averages: Vec<String>,
    #[serde(flatten)]
    ci: CiSettings,
}

fn f1_name() -> String {
    "f1".into()
}

fn all_averages() -> Vec<String> {
    ["f1", "micro", "macro", "per_class"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl Metric for F1Fast {
    fn kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::MapReduce)
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        self.ci.ci_score_names.clone()
    }
    fn main_score(&self) -> &str {
        &self.main_score
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        pair_record(prediction, references, &self.main_score)
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let mut ids = Ids::default();
        let mut yp = Vec::new();
        for r in records {
            let (p, t) = read_pair(r)?;
            let t = ids.id(t);
            let p = ids.id(p);
            yp.push((t, p));
        }
        self.scores_of(&yp, &|l| ids.name(l).to_string())
    }
    fn resampler<'a>(&'a self, records: &'a [&'a Value]) -> Result<Option<super::Resampler<'a>>> {
        let codes = std::sync::Arc::new(PairCodes::new(records)?);
        let n = codes.pairs.len();
        // The whole sample numbered once: label ids, counts per id, and the records that hold
        // the first use of an id or the first reference of a label. Leaving out any other
        // record keeps the numbering and the label set, so its scores come from the counts
        // minus that record's contribution; the few others are recomputed.
        let mut ids = LocalIds::new(codes.names.len());
        let mut special = vec![false; n];
        let mut seen_ref: Vec<bool> = vec![false; codes.names.len()];
        let yp: Vec<(usize, usize)> = (0..n)
            .map(|i| {
                let (p, t) = codes.pairs[i];
                let before = ids.global.len();
                let tl = ids.id(t);
                let pl = ids.id(p);
                if ids.global.len() != before || !seen_ref[t] {
                    special[i] = true;
                }
                seen_ref[t] = true;
                (tl, pl)
            })
            .collect();
        let refs: Vec<usize> = yp.iter().map(|x| x.0).collect();
        let labels = set_list(&refs);
        let mut all = vec![Counts::default(); ids.global.len()];
        for &(t, p) in &yp {
            add_pair(&mut all, t, p, 1.0);
        }
        let global = ids.global;
        // A resample is summarised by a histogram of (reference, prediction) code pairs plus
        // the label numbering, which only depends on the first uses: with few labels, the
        // numbering comes from a prefix of the resample (until every label is numbered and
        // every reference label seen) and the counts from the histogram, kept in four
        // interleaved copies so that repeated pairs do not wait on each other's increments.
        // Counts are whole numbers, so the sums equal counting instance by instance.
        let k = codes.names.len();
        let histogram = k <= MAX_HISTOGRAM_LABELS;
        let pair_codes: Vec<u32> = if histogram {
            codes.pairs.iter().map(|&(p, t)| (t * k + p) as u32).collect()
        } else {
            Vec::new()
        };
        let ref_codes = {
            let mut seen = vec![false; k];
            codes.pairs.iter().for_each(|&(_, t)| seen[t] = true);
            seen.iter().filter(|&&x| x).count()
        };
        let resample = {
            let codes = codes.clone();
            move |idx: &[usize]| -> Result<Scores> {
                let mut ids = LocalIds::new(k);
                let mut is_ref: Vec<bool> = vec![false; k];
                let mut refs_in_order: Vec<usize> = Vec::new();
                let mut global_counts: Vec<Counts> = vec![Counts::default(); k];
                if !histogram {
                    for &i in idx {
                        let (p, t) = codes.pairs[i];
                        note_pair(&mut ids, &mut is_ref, &mut refs_in_order, p, t);
                        add_pair(&mut global_counts, t, p, 1.0);
                    }
                } else {
                    for &i in idx {
                        let (p, t) = codes.pairs[i];
                        note_pair(&mut ids, &mut is_ref, &mut refs_in_order, p, t);
                        if ids.global.len() == k && refs_in_order.len() == ref_codes {
                            break;
                        }
                    }
                    let mut h = vec![[0u32; 4]; k * k];
                    let mut quads = idx.chunks_exact(4);
                    for q in &mut quads {
                        h[pair_codes[q[0]] as usize][0] += 1;
                        h[pair_codes[q[1]] as usize][1] += 1;
                        h[pair_codes[q[2]] as usize][2] += 1;
                        h[pair_codes[q[3]] as usize][3] += 1;
                    }
                    for &i in quads.remainder() {
                        h[pair_codes[i] as usize][0] += 1;
                    }
                    for (pc, c) in h.iter().enumerate() {
                        let m = c.iter().map(|&x| x as u64).sum::<u64>() as f64;
                        if m == 0.0 {
                            continue;
                        }
                        add_pair(&mut global_counts, pc / k, pc % k, m);
                    }
                }
                let labels = set_list(&refs_in_order);
                let counts: Vec<Counts> = labels.iter().map(|&l| global_counts[ids.global[l]]).collect();
                self.scores_from(&labels, &counts, &|l| codes.names[ids.global[l]].to_string())
            }
        };
        let resample = std::sync::Arc::new(resample);
        let r2 = resample.clone();
        Ok(Some(super::Resampler {
            resample: Box::new(move |idx: &[usize]| resample(idx)),
            leave_one_out: Some(Box::new(move |i: usize| {
                if special[i] {
                    let idx: Vec<usize> = (0..n).filter(|&j| j != i).collect();
                    return r2(&idx);
                }
                let mut c = all.clone();
                let (t, p) = yp[i];
                add_pair(&mut c, t, p, -1.0);
                let counts: Vec<Counts> = labels.iter().map(|&l| c[l]).collect();
                self.scores_from(&labels, &counts, &|l| codes.names[global[l]].to_string())
            })),
        }))
    }
    fn ci_scores(&self) -> Vec<String> {
        let mut names = Vec::new();
        for (a, n) in [("f1", "f1"), ("micro", "f1_micro"), ("macro", "f1_macro")] {
            if self.averages.iter().any(|x| x == a) {
                names.push(n.to_string());
            }
        }
        self.ci.names(names)
    }
}

impl F1Fast {
    /// The scores of (reference, prediction) label ids; `name` gives a label's text.
    fn scores_of(&self, yp: &[(usize, usize)], name: &dyn Fn(usize) -> String) -> Result<Scores> {
        let refs: Vec<usize> = yp.iter().map(|x| x.0).collect();
        let labels = set_list(&refs);
        let counts = label_counts(yp, &labels);
        self.scores_from(&labels, &counts, name)
    }

    /// The scores of the reference labels `labels` (in set order) with their counts.
    fn scores_from(&self, labels: &[usize], counts: &[Counts], name: &dyn Fn(usize) -> String) -> Result<Scores> {
        let has = |a: &str| self.averages.iter().any(|x| x == a);
        let mut out = Scores::new();
        if has("f1") {
            out.insert("f1".into(), averaged(Measure::F1, &counts, "macro"));
        }
        if has("micro") {
            out.insert("f1_micro".into(), averaged(Measure::F1, &counts, "micro"));
        }
        if has("macro") {
            out.insert("f1_macro".into(), averaged(Measure::F1, &counts, "macro"));
        }
        if has("per_class") {
            for (l, c) in labels.iter().zip(counts) {
                out.insert(format!("f1_{}", name(*l)), measure(Measure::F1, *c));
            }
        }
        if !out.contains_key(&self.main_score) {
            return Err(Error::invalid(format!(
                "f1_fast: main score `{}` is not among its averages",
                self.main_score
            )));
        }
        Ok(out)
    }
}

/// Reads `[prediction, reference]` numbers; the reference must be 0 or 1.
fn binary_record(prediction: &Value, references: &[Value], metric: &str) -> Result<Value> {
    let (p, r) = super::float_pair(prediction, references, metric)?;
    if r != 0.0 && r != 1.0 {
        return Err(Error::invalid(format!(
            "all references of {metric} must by 0 or 1"
        )));
    }
    Ok(Value::Array(vec![
        super::score_value(p),
        super::score_value(r),
    ]))
}

fn read_binary(records: &[&Value]) -> Result<Vec<(f64, f64)>> {
    records
        .iter()
        .map(|r| match r.as_array().map(|a| a.as_slice()) {
            Some([p, t]) => Ok((super::value_score(p)?, super::value_score(t)?)),
            _ => Err(Error::invalid(format!(
                "bad binary record: {}",
                crate::artifact::short(r)
            ))),
        })
        .collect()
}

/// Binary counts for class 1 and class 0 from (prediction class, reference class).
fn binary_prf(preds: &[u8], refs: &[u8]) -> [[f64; 3]; 2] {
    let mut out = [[0.0; 3]; 2];
    for (cls, slot) in out.iter_mut().enumerate() {
        let cls = cls as u8;
        let mut c = Counts::default();
        for (&p, &t) in preds.iter().zip(refs) {
            if p == cls && t == cls {
                c.tp += 1.0;
            } else if p == cls {
                c.fp += 1.0;
            } else if t == cls {
                c.fn_ += 1.0;
            }
        }
        *slot = [
            measure(Measure::Precision, c),
            measure(Measure::Recall, c),
            measure(Measure::F1, c),
        ];
    }
    out
}

/// sklearn `precision_recall_fscore_support(labels=[0, 1])` as Unitxt's `F1Binary.compute`
/// names it, predictions thresholded by `> threshold`.
fn f1_binary_scores(pairs: &[(f64, f64)], threshold: f64, pos_only: bool) -> Scores {
    let preds: Vec<u8> = pairs
        .iter()
        .map(|(p, _)| u8::from(*p > threshold))
        .collect();
    let refs: Vec<u8> = pairs.iter().map(|(_, r)| u8::from(*r != 0.0)).collect();
    let [neg, pos] = binary_prf(&preds, &refs);
    let mut out = Scores::new();
    if pos_only {
        out.insert("f1_binary".into(), pos[2]);
        out.insert("recall_binary".into(), pos[1]);
        out.insert("precision_binary".into(), pos[0]);
    } else {
        out.insert("f1_binary".into(), pos[2]);
        out.insert("f1_binary_neg".into(), neg[2]);
        out.insert("recall_binary".into(), pos[1]);
        out.insert("recall_binary_neg".into(), neg[1]);
        out.insert("precision_binary".into(), pos[0]);
        out.insert("precision_binary_neg".into(), neg[0]);
    }
    out
}

fn nan_instance(main: &str) -> Scores {
    let mut s = Scores::new();
    s.insert(main.to_string(), f64::NAN);
    s
}

/// `f1_binary`, `precision_binary`, `recall_binary`, `f1_binary_pos_only` (Unitxt's `F1Binary`
/// and subclasses): numeric predictions thresholded at `> threshold` against 0/1 references;
/// global scores `f1_binary`, `f1_binary_neg`, `recall_binary(_neg)`, `precision_binary(_neg)`.
/// Instance scores are NaN (Unitxt does not score single instances).
#[derive(Deserialize)]
pub struct F1Binary {
    #[serde(default = "half")]
    threshold: f64,
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip)]
    main: String,
    #[serde(skip)]
    pos_only: bool,
}

fn half() -> f64 {
    0.5
}

impl F1Binary {
    /// Builds the class `t` with its main score.
    pub fn build(t: &str, v: &Value) -> Result<Self> {
        let mut m: F1Binary = crate::artifact::from_value(t, v)?;
        m.main = match t {
            "precision_binary" => "precision_binary",
            "recall_binary" => "recall_binary",
            _ => "f1_binary",
        }
        .into();
        m.pos_only = t == "f1_binary_pos_only";
        Ok(m)
    }
}

impl Metric for F1Binary {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        &self.main
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        binary_record(prediction, references, &self.main)
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Ok(nan_instance(&self.main))
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        Ok(f1_binary_scores(
            &read_binary(records)?,
            self.threshold,
            self.pos_only,
        ))
    }
    fn ci_scores(&self) -> Vec<String> {
        // Unitxt's class attribute, inherited unchanged by precision/recall_binary.
        self.ci
            .names(vec!["f1_binary".into(), "f1_binary_neg".into()])
    }
}

/// Python's `round(x, 3)`.
fn round3(x: f64) -> f64 {
    format!("{x:.3}").parse().unwrap_or(x)
}

/// CPython's `hash(float)`.
fn py_float_hash(v: f64) -> i64 {
    const BITS: u32 = 61;
    const MODULUS: u64 = (1u64 << BITS) - 1;
    if v.is_infinite() {
        return if v > 0.0 { 314159 } else { -314159 };
    }
    if v.is_nan() || v == 0.0 {
        return 0;
    }
    // frexp: v = m * 2^e with 0.5 <= |m| < 1.
    let (mut m, mut e) = frexp(v.abs());
    let sign: i64 = if v < 0.0 { -1 } else { 1 };
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | x >> (BITS - 28);
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 {
        (e % BITS as i32) as u32
    } else {
        BITS - 1 - (((-1 - e) % BITS as i32) as u32)
    };
    x = ((x << e) & MODULUS) | x >> (BITS - e);
    let mut h = (x as i64).wrapping_mul(sign);
    if h == -1 {
        h = -2;
    }
    h
}

fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (v, 0);
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // subnormal: scale up first
        let (m, e) = frexp(v * 2f64.powi(54));
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, exp - 1022)
}

/// `binary_max_f1` (Unitxt's `BinaryMaxF1`, `metrics.max_f1_binary`): the best `f1_binary` (and
/// separately the best `f1_binary_neg`) over thresholds `>= round(p, 3)` for each prediction
/// `p`, tried in Python's set order with the first maximum kept; with the thresholds and the
/// precision/recall at those maxima. Instance scores are NaN.
#[derive(Deserialize)]
pub struct BinaryMaxF1 {
    #[serde(flatten)]
    ci: CiSettings,
}

impl Metric for BinaryMaxF1 {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        "max_f1_binary"
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        binary_record(prediction, references, "max_f1_binary")
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Ok(nan_instance("max_f1_binary"))
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let pairs = read_binary(records)?;
        let mut thrs: Vec<f64> = Vec::new();
        for (p, _) in &pairs {
            let t = round3(*p);
            if !thrs.iter().any(|x| *x == t) {
                thrs.push(t);
            }
        }
        let hashes: Vec<i64> = thrs.iter().map(|t| py_float_hash(*t)).collect();
        let order = py_set_order(&hashes);
        let (mut best, mut best_thr, mut best_neg, mut best_thr_neg) =
            (None::<Scores>, -1.0, None::<Scores>, -1.0);
        for i in order {
            let thr = thrs[i];
            let binarized: Vec<(f64, f64)> = pairs
                .iter()
                .map(|(p, r)| (if *p >= thr { 1.0 } else { 0.0 }, *r))
                .collect();
            let s = f1_binary_scores(&binarized, 0.5, false);
            if best
                .as_ref()
                .map_or(true, |b| s["f1_binary"] > b["f1_binary"])
            {
                best = Some(s.clone());
                best_thr = thr;
            }
            if best_neg
                .as_ref()
                .map_or(true, |b| s["f1_binary_neg"] > b["f1_binary_neg"])
            {
                best_neg = Some(s);
                best_thr_neg = thr;
            }
        }
        let get = |s: &Option<Scores>, k: &str| s.as_ref().map_or(-1.0, |s| s[k]);
        let mut out = Scores::new();
        out.insert("max_f1_binary".into(), get(&best, "f1_binary"));
        out.insert("best_thr_maxf1".into(), best_thr);
        out.insert("max_f1_binary_neg".into(), get(&best_neg, "f1_binary_neg"));
        out.insert("best_thr_maxf1_neg".into(), best_thr_neg);
        out.insert("recall_at_max_f1".into(), get(&best, "recall_binary"));
        out.insert(
            "recall_at_max_f1_neg".into(),
            get(&best_neg, "recall_binary_neg"),
        );
        out.insert("precision_at_max_f1".into(), get(&best, "precision_binary"));
        out.insert(
            "precision_at_max_f1_neg".into(),
            get(&best_neg, "precision_binary_neg"),
        );
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci
            .names(vec!["max_f1_binary".into(), "max_f1_binary_neg".into()])
    }
}

/// `binary_accuracy` (Unitxt's `BinaryAccuracy`, `metrics.accuracy_binary`): 1.0 when
/// `prediction > threshold` agrees with the 0/1 reference; global mean.
#[derive(Deserialize)]
pub struct BinaryAccuracy {
    #[serde(default = "half")]
    threshold: f64,
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for BinaryAccuracy {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "accuracy_binary"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let rec = binary_record(prediction, references, "accuracy_binary")?;
        let (p, r) = read_binary(&[&rec])?[0];
        let mut s = Scores::new();
        s.insert(
            "accuracy_binary".into(),
            if (p > self.threshold) == (r != 0.0) {
                1.0
            } else {
                0.0
            },
        );
        Ok(s)
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["accuracy_binary".into()])
    }
}

/// `binary_max_accuracy` (Unitxt's `BinaryMaxAccuracy`, `metrics.max_accuracy_binary`): the
/// best accuracy of `prediction >= thr` over all thresholds, with `best_thr_max_acc`. Errors on
/// an empty stream; instance scores are NaN.
#[derive(Deserialize)]
pub struct BinaryMaxAccuracy {
    #[serde(flatten)]
    ci: CiSettings,
}

impl Metric for BinaryMaxAccuracy {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        "max_accuracy_binary"
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let (p, r) = super::float_pair(prediction, references, "max_accuracy_binary")?;
        Ok(Value::Array(vec![
            super::score_value(p),
            super::score_value(r.trunc()),
        ]))
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Ok(nan_instance("max_accuracy_binary"))
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let pairs = read_binary(records)?;
        let n = pairs.len();
        if n == 0 {
            return Err(Error::invalid("max_accuracy_binary: no instances"));
        }
        let mut fp: Vec<(f64, usize, i64)> = pairs
            .iter()
            .enumerate()
            .map(|(i, (p, r))| (*p, i, if *r == 1.0 { -1 } else { 1 }))
            .collect();
        fp.sort_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.1.cmp(&b.1))
        });
        let last = fp[n - 1].0;
        let rightmost = if last < 1.0 { 1.0 } else { last + 0.01 };
        let mut current = pairs.iter().filter(|(_, r)| *r == 1.0).count() as i64;
        let (mut best, mut best_thr) = (current, fp[0].0);
        let mut i = 0;
        while i < n && best < n as i64 {
            let mut delta = fp[i].2;
            i += 1;
            while i < n && fp[i].0 <= fp[i - 1].0 {
                delta += fp[i].2;
                i += 1;
            }
            current += delta;
            if current > best {
                best = current;
                best_thr = if i < n { fp[i].0 } else { rightmost };
            }
        }
        let mut out = Scores::new();
        out.insert("max_accuracy_binary".into(), best as f64 / n as f64);
        out.insert("best_thr_max_acc".into(), best_thr);
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["max_accuracy_binary".into()])
    }
}

/// `f1_micro_multi_label`, `f1_macro_multi_label`, `precision_/recall_micro/macro_multi_label`
/// (Unitxt's `F1MultiLabel` family): list predictions against the first reference list, one
/// binary column per label seen in the references (predicted labels outside them are ignored).
/// `f1_macro_multi_label` reports the mean and `f1_<label>` per label. NaN when no reference
/// has a label. Per-label keys follow first appearance in the references (Unitxt's order comes
/// from a Python string set and varies between runs).
#[derive(Deserialize)]
pub struct F1MultiLabel {
    #[serde(flatten)]
    ci: CiSettings,
    #[serde(skip)]
    main: String,
    #[serde(skip)]
    metric: Measure,
    #[serde(skip)]
    average: Option<&'static str>,
}

impl F1MultiLabel {
    /// Builds the class `t`.
    pub fn build(t: &str, v: &Value) -> Result<Self> {
        let mut m: F1MultiLabel = crate::artifact::from_value(t, v)?;
        let (main, metric, avg) = match t {
            "precision_macro_multi_label" => ("precision_macro", Measure::Precision, Some("macro")),
            "precision_micro_multi_label" => ("precision_micro", Measure::Precision, Some("micro")),
            "recall_macro_multi_label" => ("recall_macro", Measure::Recall, Some("macro")),
            "recall_micro_multi_label" => ("recall_micro", Measure::Recall, Some("micro")),
            "f1_micro_multi_label" => ("f1_micro", Measure::F1, Some("micro")),
            _ => ("f1_macro", Measure::F1, None),
        };
        m.main = main.into();
        m.metric = metric;
        m.average = avg;
        Ok(m)
    }
}

fn str_list(v: &Value, what: &str) -> Result<Vec<String>> {
    v.as_array()
        .ok_or_else(|| Error::invalid(format!("{what} must be a list of labels")))
        .map(|a| a.iter().map(py_str).collect())
}

impl Metric for F1MultiLabel {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        &self.main
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let p = str_list(prediction, "multi-label prediction")?;
        let r = str_list(
            first_reference(references, &self.main)?,
            "multi-label reference",
        )?;
        Ok(crate::json!([p, r]))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let mut rows = Vec::new();
        for r in records {
            match r.as_array().map(|a| a.as_slice()) {
                Some([p, t]) => rows.push((str_list(p, "record")?, str_list(t, "record")?)),
                _ => return Err(Error::invalid("bad multi-label record")),
            }
        }
        let mut labels: Vec<&str> = Vec::new();
        for (_, t) in &rows {
            for l in t {
                if !labels.contains(&l.as_str()) {
                    labels.push(l);
                }
            }
        }
        let mut out = Scores::new();
        if labels.is_empty() {
            out.insert(self.main.clone(), f64::NAN);
            return Ok(out);
        }
        let counts: Vec<Counts> = labels
            .iter()
            .map(|l| {
                let mut c = Counts::default();
                for (p, t) in &rows {
                    let (inp, int) = (p.iter().any(|x| x == l), t.iter().any(|x| x == l));
                    match (inp, int) {
                        (true, true) => c.tp += 1.0,
                        (true, false) => c.fp += 1.0,
                        (false, true) => c.fn_ += 1.0,
                        _ => {}
                    }
                }
                c
            })
            .collect();
        match self.average {
            Some(a) => {
                out.insert(self.main.clone(), averaged(self.metric, &counts, a));
            }
            None => {
                let per: Vec<f64> = counts.iter().map(|c| measure(self.metric, *c)).collect();
                out.insert(self.main.clone(), nan_mean(per.iter().copied()));
                for (l, s) in labels.iter().zip(per) {
                    out.insert(format!("{}_{}", self.metric.name(), l), s);
                }
            }
        }
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main.clone()])
    }
}

/// `matthews_correlation` (Unitxt's `MatthewsCorrelation`, via HF `evaluate`'s script that
/// returns sklearn's `matthews_corrcoef(references, predictions)`): the multiclass MCC
/// `(c·s − Σ p_k t_k) / sqrt((s² − Σ p_k²)(s² − Σ t_k²))`, 0.0 when the denominator is 0
/// (so 0.0 on any single instance).
#[derive(Deserialize)]
pub struct MatthewsCorrelation {
    #[serde(flatten)]
    ci: CiSettings,
}

impl Metric for MatthewsCorrelation {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        "matthews_correlation"
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        pair_record(prediction, references, "matthews_correlation")
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let mut t_sum: IndexMap<&str, i128> = IndexMap::new();
        let mut p_sum: IndexMap<&str, i128> = IndexMap::new();
        let mut correct: i128 = 0;
        for r in records {
            let (p, t) = read_pair(r)?;
            *t_sum.entry(t).or_default() += 1;
            *p_sum.entry(p).or_default() += 1;
            if p == t {
                correct += 1;
            }
        }
        let n = records.len() as i128;
        let tp: i128 = t_sum
            .iter()
            .map(|(k, v)| v * p_sum.get(k).copied().unwrap_or(0))
            .sum();
        let cov_ytyp = correct * n - tp;
        let cov_ypyp = n * n - p_sum.values().map(|v| v * v).sum::<i128>();
        let cov_ytyt = n * n - t_sum.values().map(|v| v * v).sum::<i128>();
        let den = cov_ypyp * cov_ytyt;
        let mcc = if den == 0 {
            0.0
        } else {
            cov_ytyp as f64 / (den as f64).sqrt()
        };
        let mut out = Scores::new();
        out.insert("matthews_correlation".into(), mcc);
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["matthews_correlation".into()])
    }
}

/// `roc_auc` (Unitxt's `RocAuc`: sklearn `roc_curve` then `auc`): area under the ROC curve of
/// the float predictions against 0/1 references (positive label 1). NaN when one class is
/// missing; instance scores are NaN.
#[derive(Deserialize)]
pub struct RocAuc {
    #[serde(flatten)]
    ci: CiSettings,
}

impl Metric for RocAuc {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        "roc_auc"
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let (p, r) = super::float_pair(prediction, references, "roc_auc")?;
        Ok(Value::Array(vec![
            super::score_value(p),
            super::score_value(r),
        ]))
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Ok(nan_instance("roc_auc"))
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let pairs = read_binary(records)?;
        let mut out = Scores::new();
        out.insert("roc_auc".into(), roc_auc(&pairs));
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["roc_auc".into()])
    }
}

/// sklearn's ROC curve points (distinct score thresholds, descending) and trapezoidal area.
fn roc_auc(pairs: &[(f64, f64)]) -> f64 {
    let mut idx: Vec<usize> = (0..pairs.len()).collect();
    // numpy: stable ascending argsort, then reversed.
    idx.sort_by(|&a, &b| {
        pairs[a]
            .0
            .partial_cmp(&pairs[b].0)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    idx.reverse();
    let (mut tps, mut fps) = (vec![0.0], vec![0.0]);
    let (mut tp, mut fp) = (0.0, 0.0);
    for (k, &i) in idx.iter().enumerate() {
        if pairs[i].1 == 1.0 {
            tp += 1.0;
        } else {
            fp += 1.0;
        }
        let last = k + 1 == idx.len();
        if last || pairs[idx[k + 1]].0 != pairs[i].0 {
            tps.push(tp);
            fps.push(fp);
        }
    }
    let (tn, fn_) = (*tps.last().unwrap_or(&0.0), *fps.last().unwrap_or(&0.0));
    if tn <= 0.0 || fn_ <= 0.0 {
        return f64::NAN;
    }
    let tpr: Vec<f64> = tps.iter().map(|x| x / tn).collect();
    let fpr: Vec<f64> = fps.iter().map(|x| x / fn_).collect();
    (1..tpr.len())
        .map(|i| (fpr[i] - fpr[i - 1]) * (tpr[i] + tpr[i - 1]) / 2.0)
        .sum()
}
