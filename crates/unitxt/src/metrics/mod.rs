//! Metrics (Unitxt's `metrics.py`), shaped as map/reduce so that confidence intervals
//! re-reduce stored per-instance records instead of recomputing metrics from text.
//!
//! - `map`: one (postprocessed) prediction and its references → a record (any JSON value:
//!   a score, counts, a label pair...).
//! - `instance_scores`: a record → the instance's scores (Unitxt's instance scores).
//! - `reduce`: records (all instances, or one bootstrap resample of them) → global scores.

pub mod bootstrap;
pub mod text;

use indexmap::IndexMap;

use crate::error::Result;
use crate::value::{Instance, Value};

/// Settings of Unitxt's `Metric` base class that any metric artifact may carry besides its own
/// fields: `score_prefix`, `confidence_level` and `ci_method` are read by the evaluation engine
/// ([`crate::evaluate`]); `prediction_type` is Unitxt's check of the predictions' Python type,
/// which has nothing to check on JSON predictions.
pub const COMMON_KEYS: &[&str] = &["score_prefix", "confidence_level", "ci_method", "prediction_type"];

/// Scores by name (`accuracy`, `f1_micro`, `f1_<label>`, ...).
pub type Scores = IndexMap<String, f64>;

/// See [`Metric::resampler`].
pub struct Resampler<'a> {
    /// Positions of the records in a resample → the global scores.
    pub resample: Box<dyn Fn(&[usize]) -> Result<Scores> + Send + Sync + 'a>,
    /// Position `i` → the global scores of all records but `i`, by updating the whole
    /// sample's sums (equal to `resample` on those records up to float rounding); used for the
    /// jackknife of BCa intervals. `None`: the jackknife recomputes.
    pub leave_one_out: Option<Box<dyn Fn(usize) -> Result<Scores> + Send + Sync + 'a>>,
}

/// Scores whose values are lists of numbers, by name, in Unitxt's order.
pub type ListScores = Vec<(String, Vec<f64>)>;

/// One instance as [`Metric::map_batch`] receives it: the (postprocessed) prediction, the
/// references and the parsed `task_data` (with `source`).
pub struct MetricInput<'a> {
    /// The prediction.
    pub prediction: &'a Value,
    /// The references.
    pub references: &'a [Value],
    /// The instance's task data.
    pub task_data: &'a Instance,
}

/// A metric in map/reduce form.
pub trait Metric: Send + Sync {
    /// The main score's name (Unitxt's `main_score`), e.g. `accuracy`.
    fn main_score(&self) -> &str;
    /// The per-instance record of one prediction with its references and task data.
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value>;
    /// The records of all the instances of a stream at once, in order (what evaluation calls).
    /// `client` sends model requests for metrics that call a model (LLM judges send each stage's
    /// requests in one [`crate::inference::ModelClient::complete`] call); `None` when the caller
    /// gave none. The default maps each instance with [`Metric::map`] and ignores `client`.
    fn map_batch(&self, inputs: &[MetricInput<'_>], client: Option<&dyn crate::inference::ModelClient>) -> Result<Vec<Value>> {
        let _ = client;
        inputs.iter().map(|i| self.map(i.prediction, i.references, i.task_data)).collect()
    }
    /// The instance scores of one record.
    fn instance_scores(&self, record: &Value) -> Result<Scores>;
    /// The global scores of a sequence of records (all instances or a resample).
    fn reduce(&self, records: &[&Value]) -> Result<Scores>;
    /// Names of the global scores that get confidence intervals (Unitxt's `ci_scores`).
    fn ci_scores(&self) -> Vec<String> {
        vec![self.main_score().to_string()]
    }
    /// Why this metric cannot compute here (it needs a model, an LLM judge or data this
    /// engine does not have); `None` when it computes. A `metrics_list` answers for its
    /// first such item. `unitxt-rs catalog check` counts such a metric apart from those that
    /// work, under what it needs.
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        self.sub_metrics()?.iter().find_map(|m| m.unavailable())
    }
    /// The metrics this one stands for when it is a `metrics_list` (Unitxt applies them one by
    /// one); `None` for a single metric.
    fn sub_metrics(&self) -> Option<&[crate::artifact::Art<dyn Metric>]> {
        None
    }
    /// Which Unitxt base class this metric follows (how the evaluation engine assembles its
    /// scores and intervals). Map/reduce unless said otherwise.
    fn kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    /// Unitxt's `n_resamples`: the number of bootstrap resamples, `None` when intervals are off.
    fn n_resamples(&self) -> Option<usize> {
        self.kind().default_resamples()
    }
    /// Explicit names of the scores that get intervals on the map/reduce path (Unitxt's
    /// `ci_score_names`); `None`: every global score.
    fn ci_score_names(&self) -> Option<Vec<String>> {
        None
    }
    /// For instance metrics: whether the global score is the max of the instance scores
    /// (Unitxt's `max` reduction) rather than their mean.
    fn reduces_by_max(&self) -> bool {
        false
    }
    /// An instance metric's instance scores that are not numbers (the text, lists or dicts a
    /// user's Python metric returned beside its scores), by name, in the order given; Unitxt
    /// keeps them in the instance's scores. Empty by default.
    fn instance_others(&self, _record: &Value) -> Vec<(String, Value)> {
        Vec::new()
    }
    /// For a global metric whose computation gives values besides numbers (a user's Python
    /// `GlobalMetric` returning text, lists or dicts beside its scores): the whole score dict
    /// of `records` (all instances, or one for an instance's scores), every value as computed,
    /// in the order computed (numbers as numbers, NaN as `null`). Unitxt keeps all of it in the
    /// instance and global scores. `None` (the default): the scores are
    /// [`Metric::instance_scores`] and [`Metric::reduce`]; bootstrap resamples always use
    /// [`Metric::reduce`]. Errors: the computation failed.
    fn global_dict(&self, _records: &[&Value]) -> Result<Option<Instance>> {
        Ok(None)
    }
    /// Names of instance scores that Unitxt stores as a one-element list (`[x]`) rather than a
    /// number (`prediction_length`). Empty by default.
    fn list_instance_scores(&self) -> &[&str] {
        &[]
    }
    /// Operators that edit the score dicts after this metric has written its scores, run on
    /// `{"score": {"instance": .., "global": ..}}` (a `metric_pipeline`'s `postprocess_steps`);
    /// `Some` also means that `score`, `score_name` and the main score's interval are set
    /// again from [`Metric::main_score`] afterwards. `None` for plain metrics.
    /// A faster way to reduce resamples of `records` (for bootstrap intervals): a closure that
    /// takes positions into `records` and gives what [`Metric::reduce`] gives on those records,
    /// from data prepared once (strings interned as numbers, ...). `None`: resamples are
    /// reduced with [`Metric::reduce`].
    fn resampler<'a>(&'a self, _records: &'a [&'a Value]) -> Result<Option<Resampler<'a>>> {
        Ok(None)
    }
    /// Scores that are lists of numbers (sacreBLEU's `counts`, `totals`, `precisions`), of the
    /// same records as [`Metric::reduce`]; Unitxt reports them beside the number scores, in
    /// global scores and, for metrics whose instance scores are one-record reductions, in
    /// instance scores. Empty by default.
    fn list_scores(&self, _records: &[&Value]) -> Result<ListScores> {
        Ok(Vec::new())
    }
    /// Operators that edit each score dict after scoring (a `metric_pipeline`'s
    /// `postprocess_steps`, run by evaluation on the instance and global scores); `None` for
    /// metrics without them, the default.
    fn score_steps(&self) -> Option<&[crate::artifact::Art<dyn crate::operators::Operator>]> {
        None
    }
    /// The JSON from which `confidence_level`, `ci_method` and (when the artifact itself
    /// sets none) `score_prefix` are read, when it is not the artifact's own (a pipeline's
    /// wrapped metric).
    fn settings_raw(&self) -> Option<&Value> {
        None
    }
    /// For metrics with Unitxt's `group_mean` reduction (the robustness metrics): how their
    /// global scores are named and their intervals computed. `None` for the others.
    fn grouped(&self) -> Option<&dyn Grouped> {
        None
    }
}

/// The global side of an `InstanceMetric` with a `group_mean` reduction: its [`Metric::reduce`]
/// gives the scores `<score_prefix()><field>`; Unitxt's own `score_prefix` setting goes between
/// the two parts, and the intervals are not those of plain instance metrics.
pub trait Grouped {
    /// The reduction's part of the global score names (`fixed_group_mean_`, `group_mean_`, ...).
    fn score_prefix(&self) -> String;
    /// The instance score names that are aggregated, main score first.
    fn fields(&self) -> Vec<String>;
    /// The interval of the global score of `field` (an instance score name) over `records`
    /// (Unitxt's `score_based_confidence_interval` with the reduction's resampling); `None` when
    /// Unitxt gives none.
    fn interval(
        &self,
        records: &[&Value],
        field: &str,
        n_resamples: usize,
        level: f64,
        method: bootstrap::CiMethod,
        seed: i64,
    ) -> Result<Option<(f64, f64)>>;
}

/// Which of Unitxt's metric base classes a metric follows; it decides how instance scores,
/// global scores and confidence intervals are assembled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// `MapReduceMetric` (and `ReductionInstanceMetric`): one bootstrap of re-reduced records
    /// over every global score (or `ci_score_names`); `score`/`score_name` added to instance
    /// scores too.
    MapReduce,
    /// `InstanceMetric`: global scores aggregate instance scores; intervals for `ci_scores` from
    /// the instance scores (none when they are all equal), NaN resample values replaced.
    Instance,
    /// `GlobalMetric`: intervals for `ci_scores` (default: the main score) re-reduce each
    /// resample, NaN resample values replaced; instance scores from one-instance reductions.
    Global,
    /// `BulkInstanceMetric` (the LLM judges): each record is `{"main_score": name, "mean":
    /// [names], "scores": {...}}`: the main score's name decided on the batch, the scores whose
    /// NaN-omitting means are the global scores (absent: the main score), and the instance's
    /// whole score dict (any JSON values, in Unitxt's order); the main score gets an interval
    /// as for `InstanceMetric`.
    BulkInstance,
}

impl MetricKind {
    /// The class's default `n_resamples` (Unitxt settings: 1000 for instance and map/reduce
    /// metrics, 100 for global metrics).
    pub fn default_resamples(self) -> Option<usize> {
        match self {
            MetricKind::MapReduce | MetricKind::Instance | MetricKind::BulkInstance => Some(1000),
            MetricKind::Global => Some(100),
        }
    }
}

pub mod classification;
pub mod fuzzy_ner;
pub mod generation;
pub mod groups;
pub mod key_value;
pub mod llm_judge;
pub mod multi_turn;
pub mod pipeline;
pub mod ranking;
pub mod regression;
pub mod strings;
pub mod text2sql;
pub mod tool_calling;
pub mod websrc;
pub mod win_rate;

use crate::artifact::Art;
use crate::error::Error;

/// Mean of the non-NaN values (numpy's `nanmean`); NaN when there are none.
pub fn nan_mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for x in xs {
        if !x.is_nan() {
            sum += x;
            n += 1;
        }
    }
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

/// Unitxt's `weighted_win_rate` reduction (`BulkInstanceMetric`) of preference scores: a
/// positive score counts as that many battles won, a negative one as that many lost, zero (and
/// NaN, as Python's comparisons treat it) as a tie, one won of two.
pub fn weighted_win_rate(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut wins, mut battles) = (0.0, 0.0);
    for x in xs {
        if x > 0.0 {
            wins += x;
            battles += x;
        } else if x < 0.0 {
            battles += -x;
        } else {
            wins += 1.0;
            battles += 2.0;
        }
    }
    wins / battles
}

/// Max of the non-NaN values (numpy's `nanmax`); NaN when there are none.
pub fn nan_max(xs: impl IntoIterator<Item = f64>) -> f64 {
    xs.into_iter()
        .filter(|x| !x.is_nan())
        .fold(f64::NAN, |m, x| if m.is_nan() || x > m { x } else { m })
}

/// A score as a JSON record value: NaN (not representable in JSON) becomes `null`.
pub fn score_value(x: f64) -> Value {
    crate::value::Number::from_f64(x)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Reads a score written by [`score_value`]: `null` is NaN; booleans count as 0/1.
pub fn value_score(v: &Value) -> Result<f64> {
    match v {
        Value::Null => Ok(f64::NAN),
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| Error::invalid(format!("not a float: {n}"))),
        other => Err(Error::invalid(format!(
            "expected a number, got {}",
            crate::artifact::short(other)
        ))),
    }
}

/// Scores as a JSON object record (NaN as `null`).
pub fn scores_record(scores: &Scores) -> Value {
    Value::Object(
        scores
            .iter()
            .map(|(k, v)| (k.clone(), score_value(*v)))
            .collect(),
    )
}

/// Reads a record written by [`scores_record`].
pub fn record_scores(record: &Value) -> Result<Scores> {
    let obj = record.as_object().ok_or_else(|| {
        Error::invalid(format!(
            "metric record is not an object: {}",
            crate::artifact::short(record)
        ))
    })?;
    obj.iter()
        .map(|(k, v)| Ok((k.to_string(), value_score(v)?)))
        .collect()
}

/// Unitxt's `MeanReduction` / `average_item_scores`: per score name (in first-seen order), the
/// NaN-ignoring mean over the records. With `max`, the NaN-ignoring max instead (`MaxReduction`).
pub fn reduce_scores(records: &[&Value], max: bool) -> Result<Scores> {
    let mut lists: IndexMap<String, Vec<f64>> = IndexMap::new();
    for r in records {
        for (k, v) in record_scores(r)? {
            lists.entry(k).or_default().push(v);
        }
    }
    Ok(lists
        .into_iter()
        .map(|(k, v)| (k, if max { nan_max(v) } else { nan_mean(v) }))
        .collect())
}

/// Records written by [`scores_record`] as columns (score names in first-seen order, one value
/// per record), when every record has the same names; `None` otherwise (then a resample's
/// names depend on which records it holds, and [`reduce_scores`] must see them).
fn score_columns(records: &[&Value]) -> Result<Option<(Vec<String>, Vec<Vec<f64>>)>> {
    let Some(first) = records.first() else { return Ok(None) };
    let names: Vec<String> = record_scores(first)?.into_keys().collect();
    let mut cols: Vec<Vec<f64>> = vec![Vec::with_capacity(records.len()); names.len()];
    for r in records {
        let s = record_scores(r)?;
        if s.len() != names.len() || !s.keys().zip(&names).all(|(a, b)| a == b) {
            return Ok(None);
        }
        for (col, v) in cols.iter_mut().zip(s.values()) {
            col.push(*v);
        }
    }
    Ok(Some((names, cols)))
}

/// Python's `str(x)` of a prediction or reference (strings unchanged).
pub fn py_str(v: &Value) -> String {
    crate::py::repr::str(v)
}

/// A JSON value as a float, as Python's `float(x)` would take a number (bool → 0/1). Errors name `what`.
pub fn as_float(v: &Value, what: &str) -> Result<f64> {
    match v {
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| Error::invalid(format!("{what} is not a number: {n}"))),
        other => Err(Error::invalid(format!(
            "{what} must be a number, got {}",
            crate::artifact::short(other)
        ))),
    }
}

/// The first reference, erroring when there is none (metrics with one reference per prediction).
pub fn first_reference<'a>(references: &'a [Value], metric: &str) -> Result<&'a Value> {
    references.first().ok_or_else(|| {
        Error::invalid(format!(
            "`{metric}` needs one reference per prediction, got none"
        ))
    })
}

/// The prediction and the first reference as floats (Python's `float(x)`), for metrics that
/// compare one number with one number. Errors name `metric` and which value is not a number.
pub fn float_pair(prediction: &Value, references: &[Value], metric: &str) -> Result<(f64, f64)> {
    let p = as_float(prediction, &format!("`{metric}` prediction"))?;
    let r = as_float(first_reference(references, metric)?, &format!("`{metric}` reference"))?;
    Ok((p, r))
}

/// Order in which CPython iterates a `set` built by adding the given hashes in order (duplicates
/// already removed). Used where Unitxt turns a set into a list (label orders).
pub fn py_set_order(hashes: &[i64]) -> Vec<usize> {
    const LINEAR_PROBES: usize = 9;
    let mut table: Vec<Option<usize>> = vec![None; 8];
    let mut fill = 0usize;
    fn insert(table: &mut [Option<usize>], hash: i64, idx: usize) {
        let mask = table.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            if table[i].is_none() {
                table[i] = Some(idx);
                return;
            }
            if i + LINEAR_PROBES <= mask {
                for j in 1..=LINEAR_PROBES {
                    if table[i + j].is_none() {
                        table[i + j] = Some(idx);
                        return;
                    }
                }
            }
            perturb >>= 5;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }
    for (idx, &h) in hashes.iter().enumerate() {
        insert(&mut table, h, idx);
        fill += 1;
        let mask = table.len() - 1;
        if fill * 5 >= mask * 3 {
            let used = fill;
            let min_used = if used > 50000 { used * 2 } else { used * 4 };
            let mut size = 8usize;
            while size <= min_used {
                size <<= 1;
            }
            let old = std::mem::replace(&mut table, vec![None; size]);
            for e in old.into_iter().flatten() {
                insert(&mut table, hashes[e], e);
            }
        }
    }
    table.into_iter().flatten().collect()
}

/// Unitxt's `metrics_list`: several metrics applied one after the other. As one [`Metric`], its
/// record is the list of the items' records and its scores are the items' scores merged (later
/// items overwrite equal names, as Unitxt's score dicts do); the main score is the first item's.
pub struct MetricsList {
    /// The metrics.
    pub items: Vec<Art<dyn Metric>>,
}

/// The catalog JSON of `metrics_list`, which builds into a [`MetricsList`].
#[derive(serde::Deserialize)]
pub struct MetricsListConfig {
    /// The metrics, by catalog name or inline.
    pub items: Vec<Value>,
}

impl MetricsListConfig {
    /// Builds the metrics in `cx`.
    pub fn build(self, cx: &crate::artifact::BuildContext<'_>) -> Result<MetricsList> {
        Ok(MetricsList { items: cx.build_all(&self.items)? })
    }
}

impl Metric for MetricsList {
    fn main_score(&self) -> &str {
        self.items.first().map(|m| m.main_score()).unwrap_or("")
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let recs = self
            .items
            .iter()
            .map(|m| {
                m.map(prediction, references, task_data)
                    .map_err(|e| e.context(format!("in {}", m.display_name())))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Value::Array(recs))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        let recs = self.split(record)?;
        let mut out = Scores::new();
        for (m, r) in self.items.iter().zip(recs) {
            out.extend(m.instance_scores(r)?);
        }
        Ok(out)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let split = records
            .iter()
            .map(|r| self.split(r))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Scores::new();
        for (i, m) in self.items.iter().enumerate() {
            let mine: Vec<&Value> = split.iter().map(|s| s[i]).collect();
            out.extend(m.reduce(&mine)?);
        }
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.items.iter().flat_map(|m| m.ci_scores()).collect()
    }
    fn sub_metrics(&self) -> Option<&[Art<dyn Metric>]> {
        Some(&self.items)
    }
}

impl MetricsList {
    fn split<'a>(&self, record: &'a Value) -> Result<Vec<&'a Value>> {
        match record.as_array() {
            Some(a) if a.len() == self.items.len() => Ok(a.iter().collect()),
            _ => Err(Error::invalid(
                "metrics_list record does not match its items",
            )),
        }
    }
}

/// A metric whose global scores are the NaN-ignoring means (or maxes) of its instance scores
/// (Unitxt's `InstanceMetric` with a `mean`/`max` reduction, and `ReductionInstanceMetric` with
/// `MeanReduction`). Implementing this gives the [`Metric`]: the record is the instance scores.
pub trait InstanceScorer: Send + Sync {
    /// The main score's name.
    fn main(&self) -> &str;
    /// The scores of one instance.
    fn score(
        &self,
        prediction: &Value,
        references: &[Value],
        task_data: &Instance,
    ) -> Result<Scores>;
    /// Names of the scores that get confidence intervals.
    fn ci(&self) -> Vec<String> {
        vec![self.main().to_string()]
    }
    /// Whether the global score is the max (Unitxt's `max` reduction) instead of the mean.
    fn use_max(&self) -> bool {
        false
    }
    /// The Unitxt class kind (`InstanceMetric` unless said otherwise).
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::Instance
    }
    /// The interval settings, when the metric has them.
    fn settings(&self) -> Option<&CiSettings> {
        None
    }
    /// See [`Metric::list_instance_scores`].
    fn list_scores(&self) -> &[&str] {
        &[]
    }
}

impl<T: InstanceScorer> Metric for T {
    fn main_score(&self) -> &str {
        self.main()
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        Ok(scores_record(
            &self.score(prediction, references, task_data)?,
        ))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        record_scores(record)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        reduce_scores(records, self.use_max())
    }
    fn resampler<'a>(&'a self, records: &'a [&'a Value]) -> Result<Option<Resampler<'a>>> {
        let Some((names, cols)) = score_columns(records)? else { return Ok(None) };
        let max = self.use_max();
        let names = std::sync::Arc::new(names);
        let cols = std::sync::Arc::new(cols);
        // Sums and counts of the non-NaN values, for leave-one-out means.
        let totals: Vec<(f64, usize)> = cols
            .iter()
            .map(|c| c.iter().filter(|x| !x.is_nan()).fold((0.0, 0), |(s, n), x| (s + x, n + 1)))
            .collect();
        let (n2, c2) = (names.clone(), cols.clone());
        let leave_one_out = (!max).then(|| {
            Box::new(move |i: usize| {
                Ok(n2
                    .iter()
                    .zip(c2.iter())
                    .zip(&totals)
                    .map(|((k, col), &(sum, count))| {
                        let x = col[i];
                        let v = if x.is_nan() {
                            if count == 0 { f64::NAN } else { sum / count as f64 }
                        } else if count <= 1 {
                            f64::NAN
                        } else {
                            (sum - x) / (count - 1) as f64
                        };
                        (k.clone(), v)
                    })
                    .collect())
            }) as Box<dyn Fn(usize) -> Result<Scores> + Send + Sync + 'a>
        });
        Ok(Some(Resampler {
            resample: Box::new(move |idx: &[usize]| {
                Ok(names
                    .iter()
                    .zip(cols.iter())
                    .map(|(k, col)| {
                        let xs = idx.iter().map(|&i| col[i]);
                        // numpy's own summation: BCa compares resample values with the full
                        // sample's exactly, so the last bit counts.
                        (k.clone(), if max { nan_max(xs) } else { bootstrap::nan_mean(&xs.collect::<Vec<_>>()) })
                    })
                    .collect())
            }),
            leave_one_out,
        }))
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci()
    }
    fn kind(&self) -> MetricKind {
        self.scorer_kind()
    }
    fn n_resamples(&self) -> Option<usize> {
        match self.settings() {
            Some(s) => s.resamples(self.scorer_kind()),
            None => self.scorer_kind().default_resamples(),
        }
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        self.settings().and_then(|s| s.ci_score_names.clone())
    }
    fn reduces_by_max(&self) -> bool {
        self.use_max()
    }
    fn list_instance_scores(&self) -> &[&str] {
        self.list_scores()
    }
}

/// The confidence-interval settings shared by metrics: `n_resamples` (`null` turns intervals off)
/// and `ci_score_names` (overrides which scores get intervals).
#[derive(serde::Deserialize, Default, Clone)]
pub struct CiSettings {
    /// Absent: the class default; `null`: no intervals.
    #[serde(default, deserialize_with = "present")]
    pub n_resamples: Option<Value>,
    /// Explicit names of scores with intervals.
    #[serde(default)]
    pub ci_score_names: Option<Vec<String>>,
}

/// A field that is present (even as `null`) deserializes to `Some`.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

impl CiSettings {
    /// `n_resamples` for a metric of class kind `kind`: the class default when absent, `None`
    /// when `null` (or not a non-negative integer).
    pub fn resamples(&self, kind: MetricKind) -> Option<usize> {
        match &self.n_resamples {
            None => kind.default_resamples(),
            Some(v) => v.as_u64().map(|n| n as usize),
        }
    }
    /// The CI score names given the class's defaults.
    pub fn names(&self, default: Vec<String>) -> Vec<String> {
        if matches!(self.n_resamples, Some(Value::Null)) {
            return vec![];
        }
        self.ci_score_names.clone().unwrap_or(default)
    }
}

impl crate::artifact::ArtifactKind for dyn Metric {
    const KIND: &'static str = "metric";
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod oracle_tests;
