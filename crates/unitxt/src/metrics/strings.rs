//! Per-instance matching metrics whose global score is the mean of instance scores: accuracy,
//! containment, exact-match variants, Jaccard index, prediction length, relaxed correctness and
//! the retrieval metrics (MRR, MAP, retrieval at k). Mirrors the corresponding classes of
//! Unitxt's `metrics.py`.

use serde::Deserialize;

use super::{first_reference, py_str, CiSettings, InstanceScorer, Metric, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

fn one(name: &str, x: f64) -> Scores {
    let mut s = Scores::new();
    s.insert(name.to_string(), x);
    s
}

fn b(x: bool) -> f64 {
    if x {
        1.0
    } else {
        0.0
    }
}

/// Whether `str(prediction)` equals `str(r)` for some reference `r`.
fn str_in(prediction: &Value, references: &[Value]) -> bool {
    let p = py_str(prediction);
    references.iter().any(|r| py_str(r) == p)
}

/// `accuracy_fast`, `accuracy`, `max_accuracy` (Unitxt's `AccuracyFast`, `Accuracy`,
/// `MaxAccuracy`): 1.0 when `str(prediction)` equals `str()` of a reference. Score `accuracy`;
/// the global score is the mean (`max` for `max_accuracy`).
#[derive(Deserialize, Default)]
pub struct Accuracy {
    #[serde(flatten)]
    ci: CiSettings,
    /// Set for `max_accuracy`.
    #[serde(skip)]
    pub max: bool,
    /// Set for `accuracy` and `max_accuracy` (Unitxt's `InstanceMetric` classes); unset for
    /// `accuracy_fast` (a map/reduce metric).
    #[serde(skip)]
    pub instance_class: bool,
}

impl InstanceScorer for Accuracy {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "accuracy"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        Ok(one("accuracy", b(str_in(prediction, references))))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["accuracy".into()])
    }
    fn use_max(&self) -> bool {
        self.max
    }
    fn scorer_kind(&self) -> MetricKind {
        if self.instance_class {
            MetricKind::Instance
        } else {
            MetricKind::MapReduce
        }
    }
}

/// `string_containment` and `string_containment_old` (Unitxt's `StringContainment`,
/// `StringContainmentOld`): 1.0 when `str()` of some reference is a substring of
/// `str(prediction)`. Score `string_containment`.
#[derive(Deserialize, Default)]
pub struct StringContainment {
    #[serde(flatten)]
    ci: CiSettings,
    /// Set for `string_containment_old` (an `InstanceMetric`); unset for the map/reduce one.
    #[serde(skip)]
    pub instance_class: bool,
}

impl InstanceScorer for StringContainment {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "string_containment"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let p = py_str(prediction);
        Ok(one(
            "string_containment",
            b(references.iter().any(|r| p.contains(&py_str(r)))),
        ))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["string_containment".into()])
    }
    fn scorer_kind(&self) -> MetricKind {
        if self.instance_class {
            MetricKind::Instance
        } else {
            MetricKind::MapReduce
        }
    }
}

/// `string_containment_ratio` (Unitxt's `StringContainmentRatio`): the fraction of the values of
/// `task_data[field]` (a list, or a string's characters) whose `str()` is contained in
/// `str(prediction)`. Score `string_containment`. Errors when the field is missing or empty.
#[derive(Deserialize)]
pub struct StringContainmentRatio {
    /// The task-data field holding the values to look for.
    pub field: String,
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for StringContainmentRatio {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "string_containment"
    }
    fn score(&self, prediction: &Value, _: &[Value], task_data: &Instance) -> Result<Scores> {
        let values = task_data.get(&self.field).ok_or_else(|| {
            Error::invalid(format!(
                "string_containment_ratio: field `{}` is not in task_data",
                self.field
            ))
        })?;
        let items: Vec<String> = match values {
            Value::Array(a) => a.iter().map(py_str).collect(),
            Value::String(s) => s.chars().map(|c| c.to_string()).collect(),
            Value::Object(o) => o.keys().map(|k| k.to_string()).collect(),
            other => {
                return Err(Error::invalid(format!(
                    "string_containment_ratio: `{}` is not iterable: {}",
                    self.field,
                    crate::artifact::short(other)
                )))
            }
        };
        if items.is_empty() {
            return Err(Error::invalid(format!(
                "string_containment_ratio: `{}` is empty (division by zero)",
                self.field
            )));
        }
        let p = py_str(prediction);
        let hits = items.iter().filter(|v| p.contains(v.as_str())).count();
        Ok(one("string_containment", hits as f64 / items.len() as f64))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["string_containment".into()])
    }
}

/// `exact_match_mm` (Unitxt's `ExactMatchMM`, from MMStar): after lower-casing, stripping and
/// turning newlines into spaces, the reference must equal the prediction's first character, or
/// the character after `(`, `option ` or `the answer is `. Max over references; no intervals.
#[derive(Deserialize, Default)]
pub struct ExactMatchMm {
    #[serde(flatten)]
    ci: CiSettings,
}

fn mm_match(pred: &str, gt: &str) -> f64 {
    let norm = |s: &str| s.to_lowercase().trim().replace('\n', " ");
    let answer = norm(gt);
    let predict: Vec<char> = norm(pred).chars().collect();
    let at = |i: usize| predict.get(i).map(|c| c.to_string());
    let prefix = |n: usize| predict.iter().take(n).collect::<String>();
    // Python's IndexError on a missing character ends the checks with 0.0.
    let Some(c0) = at(0) else { return 0.0 };
    if answer == c0 {
        return 1.0;
    }
    if c0 == "(" {
        match at(1) {
            Some(c) if c == answer => return 1.0,
            Some(_) => {}
            None => return 0.0,
        }
    }
    for p in ["option ", "the answer is "] {
        let n = p.chars().count();
        if prefix(n) == p {
            match at(n) {
                Some(c) if c == answer => return 1.0,
                Some(_) => {}
                None => return 0.0,
            }
        }
    }
    0.0
}

impl InstanceScorer for ExactMatchMm {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "exact_match_mm"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let p = py_str(prediction);
        let best = references
            .iter()
            .map(|r| mm_match(&p, &py_str(r)))
            .fold(f64::NAN, f64::max);
        if best.is_nan() {
            return Err(Error::invalid(
                "exact_match_mm needs at least one reference",
            ));
        }
        Ok(one("exact_match_mm", best))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec![])
    }
}

/// Python-like equality of JSON scalars: numbers compare by value (`1 == 1.0`).
fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// A sort key standing in for Python's ordering of list elements of one type.
fn sort_key(v: &Value) -> (u8, f64, String) {
    match v {
        Value::Bool(x) => (0, b(*x), String::new()),
        Value::Number(n) => (0, n.as_f64().unwrap_or(f64::NAN), String::new()),
        Value::String(s) => (1, 0.0, s.as_str().to_owned()),
        other => (2, 0.0, other.to_string()),
    }
}

fn list<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| {
        Error::invalid(format!(
            "{what} must be a list, got {}",
            crate::artifact::short(v)
        ))
    })
}

/// `unsorted_list_exact_match` (Unitxt's `UnsortedListExactMatch`): 1.0 when the prediction and
/// the first reference are equal lists after sorting.
#[derive(Deserialize, Default)]
pub struct UnsortedListExactMatch {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for UnsortedListExactMatch {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "unsorted_list_exact_match"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let sorted = |v: &Vec<Value>| {
            let mut v = v.clone();
            v.sort_by(|a, b| {
                sort_key(a)
                    .partial_cmp(&sort_key(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            v
        };
        let p = sorted(list(prediction, "unsorted_list_exact_match prediction")?);
        let r = sorted(list(
            first_reference(references, "unsorted_list_exact_match")?,
            "reference",
        )?);
        let eq = p.len() == r.len() && p.iter().zip(&r).all(|(a, b)| py_eq(a, b));
        Ok(one("unsorted_list_exact_match", b(eq)))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["unsorted_list_exact_match".into()])
    }
}

/// Distinct elements of a list (Python `set`), by value.
fn distinct(v: &[Value]) -> Vec<&Value> {
    let mut out: Vec<&Value> = Vec::new();
    for x in v {
        if !out.iter().any(|y| py_eq(x, y)) {
            out.push(x);
        }
    }
    out
}

/// `jaccard_index` (Unitxt's `JaccardIndex`): for list predictions and references, the best
/// |P ∩ R| / |P ∪ R| over references. Errors (division by zero) when both sets are empty.
#[derive(Deserialize, Default)]
pub struct JaccardIndex {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for JaccardIndex {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "jaccard_index"
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let p = distinct(list(prediction, "jaccard_index prediction")?);
        let mut best = f64::NAN;
        for r in references {
            let r = distinct(list(r, "jaccard_index reference")?);
            let inter = r.iter().filter(|x| p.iter().any(|y| py_eq(x, y))).count();
            let union = r.len() + p.len() - inter;
            if union == 0 {
                return Err(Error::invalid(
                    "jaccard_index: empty prediction and reference (division by zero)",
                ));
            }
            let s = inter as f64 / union as f64;
            if best.is_nan() || s > best {
                best = s;
            }
        }
        if best.is_nan() {
            return Err(Error::invalid("jaccard_index needs at least one reference"));
        }
        Ok(one("jaccard_index", best))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["jaccard_index".into()])
    }
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
}

/// `prediction_length` (Unitxt's `PredictionLength`): the number of characters of the string
/// prediction. Unitxt stores the instance score as a one-element list (see
/// [`super::Metric::list_instance_scores`]); records hold the number.
#[derive(Deserialize, Default)]
pub struct PredictionLength {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for PredictionLength {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        "prediction_length"
    }
    fn list_scores(&self) -> &[&str] {
        &["prediction_length"]
    }
    fn score(&self, prediction: &Value, _: &[Value], _: &Instance) -> Result<Scores> {
        let s = prediction
            .as_str()
            .ok_or_else(|| Error::invalid("prediction_length needs a string prediction"))?;
        Ok(one("prediction_length", s.chars().count() as f64))
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec![])
    }
}

/// Python's `float(text)` for strings: surrounding whitespace allowed, `_` between digits.
fn py_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_'
            && !(i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        {
            return None;
        }
    }
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if body.len() + 1 < lower.len() {
        return None;
    }
    if ["inf", "infinity", "nan"].contains(&body)
        || body
            .bytes()
            .all(|c| c.is_ascii_digit() || b".eE+-".contains(&c))
    {
        t.parse().ok()
    } else {
        None
    }
}

/// `relaxed_correctness` (Unitxt's `RelaxedCorrectness`, ChartQA): a numeric prediction (a
/// trailing `%` divides by 100) is correct within 5% relative change of a non-zero numeric
/// target; otherwise case-insensitive string equality with the first reference. Scores
/// `relaxed_overall` and `relaxed_human_split` (task_data `type == "human_test"`) or
/// `relaxed_augmented_split`; global scores are means over the instances that have them.
#[derive(Deserialize, Default)]
pub struct RelaxedCorrectness {
    #[serde(flatten)]
    ci: CiSettings,
}

fn to_float(text: &str) -> Option<f64> {
    match text.strip_suffix('%') {
        Some(rest) => py_float(rest.trim_end_matches('%')).map(|x| x / 100.0),
        None => py_float(text),
    }
}

fn relaxed(prediction: &str, target: &str) -> bool {
    let p = to_float(prediction);
    let t = to_float(target);
    if let (Some(p), Some(t)) = (p, t) {
        if t != 0.0 {
            return (p - t).abs() / t.abs() <= 0.05;
        }
    }
    prediction.to_lowercase() == target.to_lowercase()
}

const RELAXED_KEYS: [&str; 3] = [
    "relaxed_overall",
    "relaxed_human_split",
    "relaxed_augmented_split",
];

impl Metric for RelaxedCorrectness {
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn main_score(&self) -> &str {
        "relaxed_overall"
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let p = prediction
            .as_str()
            .ok_or_else(|| Error::invalid("relaxed_correctness needs a string prediction"))?;
        let r = first_reference(references, "relaxed_correctness")?;
        let r = r
            .as_str()
            .ok_or_else(|| Error::invalid("relaxed_correctness needs string references"))?;
        let ty = task_data
            .get("type")
            .ok_or_else(|| Error::invalid("relaxed_correctness needs task_data `type`"))?;
        let human = ty.as_str() == Some("human_test");
        let s = b(relaxed(p, r));
        let mut out = Scores::new();
        out.insert(RELAXED_KEYS[0].into(), s);
        out.insert(RELAXED_KEYS[if human { 1 } else { 2 }].into(), s);
        Ok(super::scores_record(&out))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        super::record_scores(record)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let means = super::reduce_scores(records, false)?;
        Ok(RELAXED_KEYS
            .iter()
            .filter_map(|k| means.get(*k).map(|v| (k.to_string(), *v)))
            .collect())
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["relaxed_overall".into()])
    }
}

/// Which retrieval metric a [`Retrieval`] computes.
#[derive(Clone, Copy, PartialEq)]
pub enum RetrievalKind {
    /// `mrr`: reciprocal rank of the first relevant id.
    Mrr,
    /// `map`: average precision.
    Map,
    /// `retrieval_at_k`: precision, recall and match at each k of `k_list`.
    AtK,
}

/// `mrr`, `map`, `retrieval_at_k` (Unitxt's `MRR`, `MAP`, `RetrievalAtK`): the prediction is a
/// ranked list of ids, the first reference the list of relevant ids (duplicates dropped).
#[derive(Deserialize)]
pub struct Retrieval {
    /// Cut-offs for `retrieval_at_k` (`precision_at_<k>`, `recall_at_<k>`, `match_at_<k>`).
    #[serde(default)]
    pub k_list: Vec<i64>,
    #[serde(flatten)]
    ci: CiSettings,
    /// Which metric.
    #[serde(skip, default = "mrr_kind")]
    pub kind: RetrievalKind,
    #[serde(skip)]
    main: String,
}

fn mrr_kind() -> RetrievalKind {
    RetrievalKind::Mrr
}

impl Retrieval {
    /// Builds one of the retrieval metrics from its JSON.
    pub fn build(kind: RetrievalKind, t: &str, v: &Value) -> Result<Self> {
        let mut r: Retrieval = crate::artifact::from_value(t, v)?;
        r.kind = kind;
        r.main = match kind {
            RetrievalKind::Mrr => "mrr".into(),
            RetrievalKind::Map => "map".into(),
            RetrievalKind::AtK => {
                let k = r
                    .k_list
                    .first()
                    .ok_or_else(|| Error::invalid("retrieval_at_k needs a non-empty `k_list`"))?;
                format!("match_at_{k}")
            }
        };
        Ok(r)
    }

    fn at_k_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in ["precision", "recall", "match"] {
            for k in &self.k_list {
                out.push(format!("{m}_at_{k}"));
            }
        }
        out
    }
}

impl InstanceScorer for Retrieval {
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn main(&self) -> &str {
        &self.main
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let pred = list(prediction, "retrieval prediction")?;
        let refs = distinct(list(
            first_reference(references, &self.main)?,
            "retrieval reference",
        )?);
        let rel: Vec<f64> = pred
            .iter()
            .map(|d| b(refs.iter().any(|r| py_eq(d, r))))
            .collect();
        let mut sums = Vec::with_capacity(rel.len());
        let mut acc = 0.0;
        for r in &rel {
            acc += r;
            sums.push(acc);
        }
        match self.kind {
            RetrievalKind::Mrr => {
                let rank = rel.iter().position(|&r| r == 1.0).map(|i| i + 1);
                Ok(one("mrr", rank.map(|k| 1.0 / k as f64).unwrap_or(0.0)))
            }
            RetrievalKind::Map => {
                let total: f64 = rel.iter().sum();
                let mut result = 0.0;
                if total > 0.0 {
                    let dot: f64 = rel
                        .iter()
                        .zip(&sums)
                        .enumerate()
                        .map(|(i, (r, s))| r * (s / (i + 1) as f64))
                        .sum();
                    result = dot / total;
                }
                Ok(one("map", result))
            }
            RetrievalKind::AtK => {
                let n_refs = refs.len();
                let max_k = sums.len() as i64;
                let mut out = Scores::new();
                for m in ["precision", "recall", "match"] {
                    for &k in &self.k_list {
                        let kk = k.min(max_k);
                        let v = if kk <= 0 {
                            // Unitxt sets index 0 to 0.0 for empty predictions (and k <= 0).
                            0.0
                        } else {
                            let s = sums[(kk - 1) as usize];
                            match m {
                                "precision" => s / kk as f64,
                                "recall" if n_refs > 0 => s / n_refs as f64,
                                "recall" => 0.0,
                                _ => b(s > 0.0),
                            }
                        };
                        out.insert(format!("{m}_at_{k}"), v);
                    }
                }
                Ok(out)
            }
        }
    }
    fn ci(&self) -> Vec<String> {
        match self.kind {
            RetrievalKind::AtK => self.ci.names(self.at_k_names()),
            _ => self.ci.names(vec![self.main.clone()]),
        }
    }
}
