//! The robustness metrics of Unitxt's catalog (`metrics.robustness.*`): instance metrics
//! (accuracy, string containment, token overlap) whose global score is Unitxt's `group_mean`
//! reduction. Instances are grouped by `task_data["group_id"]` (as `str`); each group gets one
//! score from an aggregation of its instance scores (optionally split by
//! `task_data["variant_type"]` into `original` and `paraphrase` variants), and the global score is
//! the NaN-omitting mean of the group scores. Mirrors `InstanceMetric`'s `group_mean` reduction
//! and the `GroupMean*` / `FixedGroup*` classes of Unitxt's `metrics.py`.
//!
//! "Fixed" metrics bootstrap their intervals over the group scores (groups resampled as units);
//! the others resample instances and regroup each resample.

use indexmap::IndexMap;

use super::bootstrap::{self, CiMethod};

/// The interval setting of Unitxt's instance metrics: `n_resamples` (absent: the default;
/// `null`: no intervals).
#[derive(serde::Deserialize)]
struct Resamples {
    #[serde(default, deserialize_with = "super::present")]
    n_resamples: Option<Value>,
}
use super::{record_scores, scores_record, CiSettings, InstanceScorer, Metric, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// How a group's instance scores become the group's score (the second item of Unitxt's
/// `agg_func`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupAgg {
    /// `nan_mean` of all the group's scores.
    Mean,
    /// `mean_subgroup_score` of the `original` variants.
    MeanBaseline,
    /// `mean_subgroup_score` of the `paraphrase` variants.
    MeanParaphrase,
    /// `performance_drop_rate` of `paraphrase` against `original`.
    Pdr,
    /// `normalized_cohens_h` of `paraphrase` against `original` (absolute value when `true`).
    CohensH(bool),
    /// `normalized_hedges_g` of `paraphrase` against `original` (absolute value when `true`).
    HedgesG(bool),
}

impl GroupAgg {
    /// The function's name as it appears in the score names (`group_<name>_<score>`).
    fn name(self) -> &'static str {
        match self {
            GroupAgg::Mean => "mean",
            GroupAgg::MeanBaseline => "mean_baseline",
            GroupAgg::MeanParaphrase => "mean_paraphrase",
            GroupAgg::Pdr => "pdr_paraphrase",
            GroupAgg::CohensH(false) => "norm_cohens_h_paraphrase",
            GroupAgg::CohensH(true) => "absval_norm_cohens_h_paraphrase",
            GroupAgg::HedgesG(false) => "norm_hedges_g_paraphrase",
            GroupAgg::HedgesG(true) => "absval_norm_hedges_g_paraphrase",
        }
    }

    /// Whether the function compares variant types (Unitxt's `subgroup_column = "variant_type"`).
    fn uses_subgroups(self) -> bool {
        self != GroupAgg::Mean
    }

    /// Whether a NaN group score is a fresh float object in Python (rather than the `np.nan`
    /// singleton). Unitxt's test "are all scores equal" skips only the singleton, so each fresh
    /// NaN counts as one more distinct score.
    fn fresh_nan(self) -> bool {
        matches!(self, GroupAgg::Mean | GroupAgg::CohensH(true) | GroupAgg::HedgesG(true))
    }

    /// The group's score. `by_type` holds the group's scores by variant type (all under
    /// `default` when the function does not use variant types), in instance order.
    fn apply(self, by_type: &IndexMap<String, Vec<f64>>) -> Result<f64> {
        if self == GroupAgg::Mean {
            let all: Vec<f64> = by_type.values().flatten().copied().collect();
            return Ok(bootstrap::nan_mean(&all));
        }
        // `validate_subgroup_types`: NaN scores dropped.
        let of = |t: &str| -> Vec<f64> {
            by_type.get(t).map(|v| v.iter().copied().filter(|x| !x.is_nan()).collect()).unwrap_or_default()
        };
        let mean = |v: &[f64]| bootstrap::numpy_sum(v) / v.len() as f64;
        let (control, comparison) = (of("original"), of("paraphrase"));
        match self {
            GroupAgg::Mean => unreachable!("handled above"),
            GroupAgg::MeanBaseline | GroupAgg::MeanParaphrase => {
                let v = if self == GroupAgg::MeanBaseline { control } else { comparison };
                Ok(if v.is_empty() { f64::NAN } else { mean(&v) })
            }
            GroupAgg::Pdr => {
                if control.is_empty() || comparison.is_empty() {
                    return Ok(f64::NAN);
                }
                let (c, p) = (mean(&control), mean(&comparison));
                Ok(if c == 0.0 {
                    if p == 0.0 {
                        0.0
                    } else {
                        f64::NAN
                    }
                } else {
                    1.0 - p / c
                })
            }
            GroupAgg::CohensH(abs) => {
                for (t, v) in by_type {
                    if v.iter().any(|x| !x.is_nan() && !(0.0..=1.0).contains(x)) {
                        return Err(Error::invalid(format!("all {t} scores must be in [0,1]")));
                    }
                }
                if control.is_empty() || comparison.is_empty() {
                    return Ok(f64::NAN);
                }
                let (c, p) = (mean(&control), mean(&comparison));
                let h = 2.0 * (p.sqrt().asin() - c.sqrt().asin());
                let norm = (h / std::f64::consts::PI).clamp(-1.0, 1.0);
                Ok(if abs { norm.abs() } else { norm })
            }
            GroupAgg::HedgesG(abs) => {
                let n = [control.len(), comparison.len()];
                if n.contains(&0) || n.iter().all(|&k| k <= 1) {
                    return Ok(f64::NAN);
                }
                let groups = [&control, &comparison];
                let means: Vec<f64> = groups.iter().map(|g| mean(g)).collect();
                // `np.var(ddof=1)`, 0 for a single value.
                let vars: Vec<f64> = groups
                    .iter()
                    .zip(&means)
                    .map(|(g, m)| {
                        if g.len() == 1 {
                            0.0
                        } else {
                            let sq: Vec<f64> = g.iter().map(|x| (x - m) * (x - m)).collect();
                            bootstrap::numpy_sum(&sq) / (g.len() - 1) as f64
                        }
                    })
                    .collect();
                let var_total = (n[0] - 1) as f64 * vars[0] + (n[1] - 1) as f64 * vars[1];
                let total = n[0] + n[1];
                let pooled_sd = (var_total / (total - 2) as f64).sqrt();
                const MAX_ABS: f64 = 5.0;
                let gmd = means[1] - means[0];
                // numpy float division: zero spread gives an infinite effect, clipped below.
                let mut g = if gmd == 0.0 { 0.0 } else { gmd / pooled_sd };
                if 3 < total && total < 50 {
                    let t = total as f64;
                    g *= ((t - 3.0) / (t - 2.25)) * ((t - 2.0) / t).sqrt();
                }
                let g = g.clamp(-MAX_ABS, MAX_ABS) / MAX_ABS;
                Ok(if abs { g.abs() } else { g })
            }
        }
    }
}

/// The instance metric a group metric scores instances with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBase {
    /// `Accuracy` (score `accuracy`).
    Accuracy,
    /// `StringContainmentOld` (score `string_containment`).
    StringContainment,
    /// `TokenOverlap` (scores `f1`, `precision`, `recall`; main `f1`).
    TokenOverlap,
}

/// A robustness group metric (`fixed_group_mean_accuracy`, `group_mean_token_overlap`,
/// `fixed_group_pdr_paraphrase_string_containment`, ...): instance scores of the base metric,
/// global scores `[fixed_]group_<agg>_<score>` (see the module docs).
///
/// Errors: an instance without `task_data["group_id"]` (or without `variant_type` for the
/// functions comparing variants); Cohen's h on scores outside [0, 1].
pub struct GroupMetric {
    base: Box<dyn InstanceScorer>,
    kind: GroupBase,
    agg: GroupAgg,
    fixed: bool,
    ci: CiSettings,
}

impl GroupMetric {
    /// Builds the metric of `__type__` `t` from its JSON `v`; `None` when `t` is not a group
    /// metric type.
    pub fn build(t: &str, v: &Value) -> Result<Option<GroupMetric>> {
        let (fixed, rest) = match t.strip_prefix("fixed_group_") {
            Some(r) => (true, r),
            None => match t.strip_prefix("group_") {
                Some(r) => (false, r),
                None => return Ok(None),
            },
        };
        let (agg_name, kind) = if let Some(a) = rest.strip_suffix("_string_containment") {
            (a, GroupBase::StringContainment)
        } else if let Some(a) = rest.strip_suffix("_accuracy") {
            (a, GroupBase::Accuracy)
        } else if let Some(a) = rest.strip_suffix("_token_overlap") {
            (a, GroupBase::TokenOverlap)
        } else {
            return Ok(None);
        };
        let agg = match agg_name {
            "mean" => GroupAgg::Mean,
            "mean_baseline" => GroupAgg::MeanBaseline,
            "mean_paraphrase" => GroupAgg::MeanParaphrase,
            "pdr_paraphrase" => GroupAgg::Pdr,
            "norm_cohens_h_paraphrase" => GroupAgg::CohensH(false),
            "absval_norm_cohens_h_paraphrase" => GroupAgg::CohensH(true),
            "norm_hedges_g_paraphrase" => GroupAgg::HedgesG(false),
            "absval_norm_hedges_g_paraphrase" => GroupAgg::HedgesG(true),
            _ => return Ok(None),
        };
        // Unitxt defines only these combinations: the non-fixed ones take plain means, the
        // token-overlap one is not fixed.
        if (!fixed && agg != GroupAgg::Mean) || (kind == GroupBase::TokenOverlap && fixed) {
            return Ok(None);
        }
        // Unitxt's group metrics are instance metrics: `n_resamples` but no `ci_score_names`.
        let r: Resamples = crate::artifact::from_value(t, v)?;
        let ci = CiSettings { n_resamples: r.n_resamples, ci_score_names: None };
        let empty = Value::Object(Instance::new());
        let base: Box<dyn InstanceScorer> = match kind {
            GroupBase::Accuracy => {
                let mut a = super::strings::Accuracy::default();
                a.instance_class = true;
                Box::new(a)
            }
            GroupBase::StringContainment => {
                let mut c = super::strings::StringContainment::default();
                c.instance_class = true;
                Box::new(c)
            }
            GroupBase::TokenOverlap => {
                Box::new(crate::artifact::from_value::<super::generation::TokenOverlap>(t, &empty)?)
            }
        };
        Ok(Some(GroupMetric { base, kind, agg, fixed, ci }))
    }

    /// The score fields the reduction aggregates (Unitxt's `score_fields`, else the main score).
    fn fields(&self) -> Vec<&'static str> {
        match self.kind {
            GroupBase::Accuracy => vec!["accuracy"],
            GroupBase::StringContainment => vec!["string_containment"],
            GroupBase::TokenOverlap => vec!["f1", "precision", "recall"],
        }
    }

    /// Reads a record written by [`Metric::map`]: (scores, group key, variant type).
    fn parts(record: &Value) -> Result<(Scores, String, String)> {
        let bad = || Error::invalid("group metric record is malformed");
        let o = record.as_object().ok_or_else(bad)?;
        let scores = record_scores(o.get("scores").ok_or_else(bad)?)?;
        let g = o.get("group").and_then(Value::as_str).ok_or_else(bad)?.to_string();
        let v = o.get("variant").and_then(Value::as_str).unwrap_or("default").to_string();
        Ok((scores, g, v))
    }

    /// Unitxt's `get_group_scores` for one field: group scores in sorted group-key order.
    fn group_scores(&self, parts: &[&(Scores, String, String)], field: &str) -> Result<Vec<f64>> {
        let mut groups: std::collections::BTreeMap<&str, IndexMap<String, Vec<f64>>> = Default::default();
        for (scores, g, v) in parts {
            let x = scores.get(field).copied().unwrap_or(f64::NAN);
            groups.entry(g.as_str()).or_default().entry(v.clone()).or_default().push(x);
        }
        groups.values().map(|by_type| self.agg.apply(by_type)).collect()
    }

    fn prefix(&self) -> String {
        format!("{}group_{}_", if self.fixed { "fixed_" } else { "" }, self.agg.name())
    }
}

impl Metric for GroupMetric {
    fn main_score(&self) -> &str {
        self.base.main()
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let scores = self.base.score(prediction, references, task_data)?;
        let group = task_data
            .get("group_id")
            .ok_or_else(|| Error::invalid("each instance task_data dict must have a key group_id"))?;
        let mut o = Instance::new();
        o.insert("scores".into(), scores_record(&scores));
        o.insert("group".into(), Value::String(super::py_str(group).into()));
        if self.agg.uses_subgroups() {
            let v = task_data
                .get("variant_type")
                .ok_or_else(|| Error::invalid("each instance task_data dict must have a key variant_type"))?;
            o.insert("variant".into(), Value::String(super::py_str(v).into()));
        }
        Ok(Value::Object(o))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        Ok(Self::parts(record)?.0)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        let parts = records.iter().map(|r| Self::parts(r)).collect::<Result<Vec<_>>>()?;
        let refs: Vec<&(Scores, String, String)> = parts.iter().collect();
        let prefix = self.prefix();
        let mut out = Scores::new();
        for f in self.fields() {
            let gs = self.group_scores(&refs, f)?;
            out.insert(format!("{prefix}{f}"), bootstrap::nan_mean(&gs));
        }
        Ok(out)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(self.fields().into_iter().map(String::from).collect())
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Instance
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Instance)
    }
    fn grouped(&self) -> Option<&dyn super::Grouped> {
        Some(self)
    }
}

impl super::Grouped for GroupMetric {
    fn score_prefix(&self) -> String {
        self.prefix()
    }
    fn fields(&self) -> Vec<String> {
        GroupMetric::fields(self).into_iter().map(String::from).collect()
    }
    fn interval(
        &self,
        records: &[&Value],
        field: &str,
        n_resamples: usize,
        level: f64,
        method: CiMethod,
        seed: i64,
    ) -> Result<Option<(f64, f64)>> {
        let parts = records.iter().map(|r| Self::parts(r)).collect::<Result<Vec<_>>>()?;
        let refs: Vec<&(Scores, String, String)> = parts.iter().collect();
        if self.fixed {
            // The group scores are what is resampled.
            let gs = self.group_scores(&refs, field)?;
            if all_equal(&gs, self.agg.fresh_nan()) {
                return Ok(None);
            }
            bootstrap::unitxt_score_based_ci(&gs, None, n_resamples, level, method, seed)
        } else {
            let xs: Vec<f64> = parts.iter().map(|p| p.0.get(field).copied().unwrap_or(f64::NAN)).collect();
            if all_equal(&xs, false) {
                return Ok(None);
            }
            let agg = |idx: &[usize]| -> f64 {
                let sample: Vec<&(Scores, String, String)> = idx.iter().map(|&i| &parts[i]).collect();
                match self.group_scores(&sample, field) {
                    Ok(gs) => bootstrap::nan_mean(&gs),
                    Err(_) => f64::NAN,
                }
            };
            bootstrap::unitxt_score_based_ci(&xs, Some(&agg), n_resamples, level, method, seed)
        }
    }
}

/// Unitxt's `_all_instance_scores_equal`: one distinct value among the scores, where NaN values
/// are skipped unless `fresh_nan` (then each NaN is one more distinct value; see
/// [`GroupAgg::fresh_nan`]).
fn all_equal(xs: &[f64], fresh_nan: bool) -> bool {
    let mut distinct: Vec<f64> = xs.iter().copied().filter(|v| !v.is_nan()).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let nans = if fresh_nan { xs.iter().filter(|v| v.is_nan()).count() } else { 0 };
    distinct.len() + nans == 1
}
