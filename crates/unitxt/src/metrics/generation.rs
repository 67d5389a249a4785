//! Text-generation metrics as [`Metric`]s: ROUGE, token overlap, character edit distance, ANLS,
//! Jaccard index over split strings, NER F1, normalized sacreBLEU, and the HF `evaluate` based
//! `huggingface_metric` (BLEU, sacreBLEU, SQuAD, WER), `squad` and `wer`. The algorithms live in
//! [`super::text`]; this module gives them Unitxt's class shapes (instance, map/reduce or global
//! metric, score names, interval settings).
//!
//! Metrics that need a model or data that is not available here (BERTScore, SentenceBERT,
//! perplexity, METEOR, LLM judges, ...) build into [`NeedsModel`], which fails when used.

use std::sync::{Arc, OnceLock};

use serde::Deserialize;

use super::text::{bleu, edit, ner, punkt::Punkt, rouge, squad};
use super::{first_reference, value_score, CiSettings, InstanceScorer, Metric, MetricKind, Scores};
use crate::artifact::short;
use crate::error::{Error, Result};
use crate::operators::FieldOperator;
use crate::value::{Instance, Value};

/// A prediction or reference that must be a string (Unitxt's `prediction_type = str` check).
fn text<'a>(v: &'a Value, metric: &str, what: &str) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| Error::invalid(format!("`{metric}` expects a string {what}, got {}", short(v))))
}

/// All references as strings.
fn texts(references: &[Value], metric: &str) -> Result<Vec<String>> {
    references
        .iter()
        .map(|r| text(r, metric, "reference").map(str::to_string))
        .collect()
}

/// The only reference of a metric with one reference per prediction (Unitxt's
/// `single_reference_per_prediction`): errors when there is none or more than one.
fn single_reference<'a>(references: &'a [Value], metric: &str) -> Result<&'a Value> {
    if references.len() > 1 {
        return Err(Error::invalid(format!(
            "`{metric}` expects a single reference per prediction, got {}",
            references.len()
        )));
    }
    first_reference(references, metric)
}

fn non_empty(references: &[Value], metric: &str) -> Result<()> {
    if references.is_empty() {
        return Err(Error::invalid(format!("`{metric}` needs at least one reference per prediction")));
    }
    Ok(())
}

/// The English Punkt model, loaded once from `$NLTK_DATA` (see [`Punkt::english_from_env`]).
fn english_punkt() -> Result<Arc<Punkt>> {
    static P: OnceLock<std::result::Result<Arc<Punkt>, String>> = OnceLock::new();
    P.get_or_init(|| Punkt::english_from_env().map(Arc::new).map_err(|e| e.to_string()))
        .clone()
        .map_err(|e| Error::io(format!("rouge needs NLTK's punkt_tab data (set NLTK_DATA): {e}")))
}

fn default_rouge_types() -> Vec<String> {
    ["rouge1", "rouge2", "rougeL", "rougeLsum"].iter().map(|s| s.to_string()).collect()
}

fn yes() -> bool {
    true
}

fn rouge_main() -> String {
    "rougeL".into()
}

/// `rouge` (Unitxt's `Rouge`, an `InstanceMetric`): per instance the F-measures of
/// `rouge_types` (default `rouge1`, `rouge2`, `rougeL`, `rougeLsum`) against the best reference,
/// after Punkt sentence splitting when `sent_split_newline`; global scores are their means.
/// Main score `rougeL`; intervals for the four default types. Predictions and references are
/// strings; at least one reference is required.
#[derive(Deserialize)]
pub struct Rouge {
    #[serde(default = "default_rouge_types")]
    rouge_types: Vec<String>,
    #[serde(default = "yes")]
    sent_split_newline: bool,
    #[serde(default = "rouge_main")]
    main_score: String,
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for Rouge {
    fn main(&self) -> &str {
        &self.main_score
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        non_empty(references, "rouge")?;
        let p = text(prediction, "rouge", "prediction")?;
        let refs = texts(references, "rouge")?;
        let splitter = if self.sent_split_newline { Some(english_punkt()?) } else { None };
        rouge::unitxt_rouge(p, &refs, &self.rouge_types, splitter.as_deref())
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(default_rouge_types())
    }
}

/// `token_overlap` (Unitxt's `TokenOverlap`, an `InstanceMetric`): SQuAD-normalized token
/// `precision`, `recall` and `f1`, each the max over the references (compared as `str()`).
/// Main score `f1`; intervals for `f1`, `precision`, `recall`. Errors without references, or
/// when the prediction or a reference is not a string (Unitxt's type check).
#[derive(Deserialize)]
pub struct TokenOverlap {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for TokenOverlap {
    fn main(&self) -> &str {
        "f1"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        // Unitxt checks the prediction type (`str`) of the prediction and of each reference.
        if let Some(bad) = std::iter::once(prediction).chain(references).find(|v| !v.is_string()) {
            return Err(Error::invalid(format!(
                "`token_overlap` expects strings as prediction and references, got {}",
                crate::artifact::short(bad)
            )));
        }
        let p = super::py_str(prediction);
        let refs: Vec<String> = references.iter().map(super::py_str).collect();
        let (pr, rc, f1) = squad::token_overlap(&p, &refs)
            .ok_or_else(|| Error::invalid("`token_overlap` needs at least one reference"))?;
        Ok([("precision", pr), ("recall", rc), ("f1", f1)].iter().map(|(k, v)| (k.to_string(), *v)).collect())
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["f1".into(), "precision".into(), "recall".into()])
    }
}

/// `char_edit_distance` and `char_edit_distance_accuracy` (Unitxt's `CharEditDistance`,
/// `CharEditDistanceAccuracy`; `InstanceMetric`s): Levenshtein distance between the first
/// reference and the prediction with all whitespace removed (score `char_edit_distance`), or
/// `1 - distance / max length` (score `char_edit_dist_accuracy`); 0.0 when both are empty.
#[derive(Deserialize)]
pub struct CharEditDistance {
    #[serde(flatten)]
    ci: CiSettings,
    /// Set for `char_edit_distance_accuracy`.
    #[serde(skip)]
    pub accuracy: bool,
}

impl CharEditDistance {
    fn name(&self) -> &'static str {
        if self.accuracy {
            "char_edit_dist_accuracy"
        } else {
            "char_edit_distance"
        }
    }
}

impl InstanceScorer for CharEditDistance {
    fn main(&self) -> &str {
        self.name()
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let m = self.name();
        let p = text(prediction, m, "prediction")?;
        let r = text(single_reference(references, m)?, m, "reference")?;
        Ok([(m.to_string(), edit::char_edit_distance(p, r, self.accuracy))].into_iter().collect())
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec![self.name().into()])
    }
}

fn half() -> f64 {
    0.5
}

/// `anls` (Unitxt's `ANLS`, an `InstanceMetric`): 1 minus the smallest normalized Levenshtein
/// distance to a reference, 0 below `threshold` (0.5). Score `anls`; no intervals (the class
/// declares no `ci_scores`).
#[derive(Deserialize)]
pub struct Anls {
    #[serde(default = "half")]
    threshold: f64,
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for Anls {
    fn main(&self) -> &str {
        "anls"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let p = text(prediction, "anls", "prediction")?;
        let refs = texts(references, "anls")?;
        let s = edit::anls(p, &refs, self.threshold)
            .ok_or_else(|| Error::invalid("`anls` needs at least one reference"))?;
        Ok([("anls".to_string(), s)].into_iter().collect())
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec![])
    }
}

/// The string splitter of [`JaccardIndexString`]: an inline `regex_split` or `split`.
enum Splitter {
    Regex(crate::operators::regex::RegexSplit),
    Plain(crate::operators::strings::Split),
}

impl<'de> Deserialize<'de> for Splitter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let v = Value::deserialize(d)?;
        match v.get("__type__").and_then(Value::as_str) {
            Some("regex_split") => crate::value::from_value(v).map(Splitter::Regex).map_err(D::Error::custom),
            Some("split") => crate::value::from_value(v).map(Splitter::Plain).map_err(D::Error::custom),
            _ => Err(D::Error::custom(format!(
                "jaccard_index_string: splitter must be an inline `regex_split` or `split`, got {}",
                short(&v)
            ))),
        }
    }
}

impl Splitter {
    fn split(&self, s: &str) -> Result<Vec<String>> {
        let out = match self {
            Splitter::Regex(op) => op.process_value(Value::String(s.into()), &Instance::new())?,
            Splitter::Plain(op) => op.process_value(Value::String(s.into()), &Instance::new())?,
        };
        match out {
            Value::Array(a) => Ok(a.iter().map(super::py_str).collect()),
            other => Err(Error::invalid(format!("splitter returned {}", short(&other)))),
        }
    }
}

/// `jaccard_index_string` (Unitxt's `JaccardIndexString`, a `ReductionInstanceMetric` with mean
/// reduction): prediction and references are split into word sets by `splitter`; the score
/// `jaccard_index` is the best |P ∩ R| / |P ∪ R| over the references. Errors with no
/// reference, or when both sets are empty (Python divides by zero).
#[derive(Deserialize)]
pub struct JaccardIndexString {
    splitter: Splitter,
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for JaccardIndexString {
    fn main(&self) -> &str {
        "jaccard_index"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let m = "jaccard_index_string";
        non_empty(references, m)?;
        let set = |s: &str| -> Result<std::collections::HashSet<String>> {
            Ok(self.splitter.split(s)?.into_iter().collect())
        };
        let p = set(text(prediction, m, "prediction")?)?;
        let mut best = f64::NEG_INFINITY;
        for r in references {
            let r = set(text(r, m, "reference")?)?;
            let union = r.union(&p).count();
            if union == 0 {
                return Err(Error::invalid("jaccard_index_string: empty prediction and reference (division by zero)"));
            }
            best = best.max(r.intersection(&p).count() as f64 / union as f64);
        }
        Ok([("jaccard_index".to_string(), best)].into_iter().collect())
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["jaccard_index".into()])
    }
}

fn u64s(v: &Value, what: &str) -> Result<Vec<u64>> {
    v.as_array()
        .ok_or_else(|| Error::invalid(format!("bad {what} in a metric record")))?
        .iter()
        .map(|x| x.as_u64().ok_or_else(|| Error::invalid(format!("bad {what} in a metric record"))))
        .collect()
}

fn u64_of(v: &Value, what: &str) -> Result<u64> {
    v.as_u64().ok_or_else(|| Error::invalid(format!("bad {what} in a metric record")))
}

/// A `(entity, type)` list of an NER prediction or reference.
fn ner_pairs(v: &Value, what: &str) -> Result<Vec<(String, String)>> {
    let bad = || Error::invalid(format!("`ner` expects a list of (entity, type) pairs as {what}, got {}", short(v)));
    let items = v.as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|p| match p.as_array().map(|a| a.as_slice()) {
            Some([Value::String(e), Value::String(t)]) => Ok((e.to_string(), t.to_string())),
            _ => Err(bad()),
        })
        .collect()
}

/// `ner` (Unitxt's `NER`, a `CustomF1` global metric): F1 over `(entity, type)` pairs grouped by
/// type against the first reference; scores `f1_<type>` for the reference types, macro and
/// micro F1/precision/recall and `in_classes_support`. Main score `f1_micro`.
#[derive(Deserialize)]
pub struct Ner {
    #[serde(default)]
    zero_division: f64,
    #[serde(flatten)]
    ci: CiSettings,
}

impl Ner {
    /// One instance's NER counts as its record: `{"groups": {group: [pn, pd, rn, rd]},
    /// "types": [...]}`. Also written by `fuzzy_ner`, whose records have the same shape.
    pub(crate) fn record(s: &ner::NerStats) -> Value {
        let groups = s
            .groups
            .iter()
            .map(|(k, g)| (k.clone(), crate::json!([g.pn, g.pd, g.rn, g.rd])))
            .collect::<crate::value::Map>();
        crate::json!({"groups": groups, "types": s.reference_types})
    }

    /// The scores of a set of records written by [`Ner::record`] (Unitxt's `NER.compute` over
    /// their summed counts). Also `fuzzy_ner`'s reduction.
    pub(crate) fn reduce_records(records: &[&Value], zero_division: f64) -> Result<Scores> {
        let stats = records.iter().map(|r| Self::stats(r)).collect::<Result<Vec<_>>>()?;
        let refs: Vec<&ner::NerStats> = stats.iter().collect();
        Ok(ner::ner_reduce(&refs, zero_division))
    }

    /// The NER counts of one instance record (as [`Ner::record`] writes it): per group, the
    /// predicted and reference counts, and the reference types.
    fn stats(record: &Value) -> Result<ner::NerStats> {
        let bad = || Error::invalid("bad ner record");
        let mut s = ner::NerStats::default();
        for (k, g) in record.get("groups").and_then(Value::as_object).ok_or_else(bad)? {
            let c = u64s(g, "ner counts")?;
            let [pn, pd, rn, rd] = c.as_slice() else { return Err(bad()) };
            s.groups.insert(k.to_string(), ner::GroupCounts { pn: *pn, pd: *pd, rn: *rn, rd: *rd });
        }
        for t in record.get("types").and_then(Value::as_array).ok_or_else(bad)? {
            s.reference_types.insert(t.as_str().ok_or_else(bad)?.to_string());
        }
        Ok(s)
    }
}

impl Metric for Ner {
    fn main_score(&self) -> &str {
        "f1_micro"
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec!["f1_micro".into()])
    }
    fn map(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Value> {
        let p = ner_pairs(prediction, "prediction")?;
        let r = ner_pairs(single_reference(references, "ner")?, "reference")?;
        Ok(Ner::record(&ner::ner_stats(&p, &r)))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        Ner::reduce_records(records, self.zero_division)
    }
}

fn sacre_record(s: &bleu::SacreBleuStats) -> Value {
    crate::json!({"counts": s.counts, "totals": s.totals, "sys_len": s.sys_len, "ref_len": s.ref_len})
}

fn sacre_stats(records: &[&Value], max_order: usize) -> Result<bleu::SacreBleuStats> {
    let parsed = records
        .iter()
        .map(|r| {
            Ok(bleu::SacreBleuStats {
                counts: u64s(&r["counts"], "sacrebleu counts")?,
                totals: u64s(&r["totals"], "sacrebleu totals")?,
                sys_len: u64_of(&r["sys_len"], "sacrebleu sys_len")?,
                ref_len: u64_of(&r["ref_len"], "sacrebleu ref_len")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(bleu::sum_stats(&parsed, max_order))
}

/// Python's `round(x, 2)` (correctly rounded, ties to even on the exact binary value).
fn round2(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.2}").parse().unwrap_or(x)
}

fn exp() -> String {
    "exp".into()
}

fn four() -> usize {
    4
}

/// `normalized_sacrebleu` (Unitxt's `NormalizedSacrebleu`, a `MapReduceMetric`): sacrebleu
/// sentence statistics per instance (tokenizer `tokenize`, else `language_to_tokenizer` of
/// `task_data["target_language"]`), corpus BLEU on their sums. Scores `sacrebleu` (0..1,
/// rounded to 2 decimals), `bp` (rounded), `sys_len`, `ref_len`; the list scores `counts`,
/// `totals` and `precisions` of Unitxt are not reported (scores here are numbers only).
/// Intervals for `sacrebleu`. Tokenizers other than `13a`, `intl` and `none` are unsupported.
#[derive(Deserialize)]
pub struct NormalizedSacrebleu {
    #[serde(default)]
    language_to_tokenizer: Option<indexmap::IndexMap<String, Option<String>>>,
    #[serde(default)]
    tokenize: Option<String>,
    #[serde(default)]
    lowercase: bool,
    #[serde(default = "exp")]
    smooth_method: String,
    #[serde(default)]
    smooth_value: Option<f64>,
    #[serde(default = "yes")]
    use_effective_order: bool,
    #[serde(default = "four")]
    max_ngram_order: usize,
    #[serde(flatten)]
    ci: CiSettings,
}

impl NormalizedSacrebleu {
    fn options(&self, tokenize: Option<String>) -> bleu::SacreBleuOptions {
        bleu::SacreBleuOptions {
            lowercase: self.lowercase,
            tokenize,
            max_ngram_order: self.max_ngram_order,
            smooth_method: self.smooth_method.clone(),
            smooth_value: self.smooth_value,
            effective_order: self.use_effective_order,
        }
    }
}

impl Metric for NormalizedSacrebleu {
    fn main_score(&self) -> &str {
        "sacrebleu"
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::MapReduce)
    }
    fn ci_score_names(&self) -> Option<Vec<String>> {
        Some(self.ci.ci_score_names.clone().unwrap_or_else(|| vec!["sacrebleu".into()]))
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        let m = "normalized_sacrebleu";
        let tokenize = match (&self.tokenize, task_data.get("target_language")) {
            (None, Some(lang)) => {
                let lang = super::py_str(lang);
                let table = self
                    .language_to_tokenizer
                    .as_ref()
                    .ok_or_else(|| Error::invalid("normalized_sacrebleu: please set language_to_tokenizer"))?;
                table.get(&lang.to_lowercase()).cloned().ok_or_else(|| {
                    Error::invalid(format!("normalized_sacrebleu: language {lang} is not in language_to_tokenizer"))
                })?
            }
            (t, _) => t.clone(),
        };
        let p = text(prediction, m, "prediction")?;
        let refs = texts(references, m)?;
        Ok(sacre_record(&bleu::sacrebleu_stats(p, &refs, &self.options(tokenize))?))
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        Ok(self.reduce_full(records)?.0)
    }
    fn list_scores(&self, records: &[&Value]) -> Result<super::ListScores> {
        Ok(self.reduce_full(records)?.1)
    }
}

impl NormalizedSacrebleu {
    /// Number scores and list scores (`counts`, `totals`, `precisions` rounded to 2 decimals
    /// on the 0..1 scale), as Unitxt's `NormalizedSacrebleu.reduce`.
    fn reduce_full(&self, records: &[&Value]) -> Result<(Scores, super::ListScores)> {
        let mut out = Scores::new();
        if records.is_empty() {
            for k in ["sacrebleu", "bp", "sys_len", "ref_len"] {
                out.insert(k.into(), 0.0);
            }
            let lists = vec![
                ("counts".into(), vec![0.0; 4]),
                ("totals".into(), vec![0.0; 4]),
                ("precisions".into(), vec![0.0; 4]),
            ];
            return Ok((out, lists));
        }
        let s = sacre_stats(records, self.max_ngram_order)?;
        let b = bleu::sacrebleu_compute(&s, &self.options(None))?;
        out.insert("sacrebleu".into(), round2(b.score / 100.0));
        out.insert("bp".into(), round2(b.bp));
        out.insert("sys_len".into(), s.sys_len as f64);
        out.insert("ref_len".into(), s.ref_len as f64);
        let lists = vec![
            ("counts".into(), s.counts.iter().map(|&c| c as f64).collect()),
            ("totals".into(), s.totals.iter().map(|&c| c as f64).collect()),
            ("precisions".into(), b.precisions.iter().map(|p| round2(p / 100.0)).collect()),
        ];
        Ok((out, lists))
    }
}

/// The HF `evaluate` script behind a [`HuggingfaceMetric`].
#[derive(Clone, Copy, PartialEq)]
enum HfScript {
    Bleu,
    Sacrebleu,
    Squad,
    Wer,
}

/// `huggingface_metric` (Unitxt's `HuggingfaceMetric`, a global metric) for the `evaluate`
/// scripts reimplemented here: `bleu` (Google NMT BLEU, 13a tokens; `max_order`, `smooth` from
/// `hf_compute_args`), `sacrebleu` (corpus sacreBLEU without effective order, tokenizer from
/// task data `tokenize` when listed in `hf_additional_input_fields_pass_one_value`), `squad`
/// and `wer`; also the `squad` (Unitxt's `Squad`) and `wer` (`Wer`) classes. Only number
/// scores are reported (`bleu`'s and `sacrebleu`'s lists are left out). `hf_main_score` is
/// renamed to `main_score`; `scale` divides `scaled_fields`. Other scripts build into
/// [`NeedsModel`].
pub struct HuggingfaceMetric {
    script: HfScript,
    main_score: String,
    hf_main_score: Option<String>,
    scale: f64,
    scaled_fields: Vec<String>,
    compute_args: crate::value::Map,
    tokenize_from_task: bool,
    ci: CiSettings,
}

#[derive(Deserialize)]
/// The catalog JSON of `huggingface_metric`, `squad` and `wer`.
pub(crate) struct HfArgs {
    #[serde(default)]
    hf_metric_name: Option<String>,
    #[serde(default)]
    main_score: Option<String>,
    #[serde(default)]
    hf_main_score: Option<String>,
    #[serde(default)]
    scale: Option<f64>,
    #[serde(default)]
    scaled_fields: Option<Vec<String>>,
    #[serde(default)]
    hf_compute_args: crate::value::Map,
    #[serde(default)]
    hf_additional_input_fields_pass_one_value: Vec<String>,
    #[serde(flatten)]
    ci: CiSettings,
}

impl HuggingfaceMetric {
    /// Builds a `huggingface_metric`, `squad` or `wer` artifact (type `t`, JSON `v`). A
    /// `huggingface_metric` whose script is not reimplemented builds a [`NeedsModel`] instead.
    pub fn build(t: &str, v: &Value) -> Result<Arc<dyn Metric>> {
        let a: HfArgs = crate::artifact::from_value(t, v)?;
        let name = match t {
            "squad" => "squad".to_string(),
            "wer" => "wer".to_string(),
            _ => a.hf_metric_name.clone().unwrap_or_default(),
        };
        let script = match name.as_str() {
            "bleu" => HfScript::Bleu,
            "sacrebleu" => HfScript::Sacrebleu,
            "squad" => HfScript::Squad,
            "wer" => HfScript::Wer,
            other => {
                return Ok(Arc::new(NeedsModel {
                    type_name: format!("huggingface_metric `{other}`"),
                    main_score: a.main_score.unwrap_or_else(|| other.to_string()),
                    what: "the HF `evaluate` script it loads (not reimplemented here)".into(),
                }))
            }
        };
        let (main_default, scale_default, fields_default): (&str, f64, Vec<String>) = match (t, script) {
            ("squad", _) => ("f1", 100.0, vec!["f1".into(), "exact_match".into()]),
            ("wer", _) => ("wer", 1.0, vec![]),
            (_, s) => (if s == HfScript::Squad { "f1" } else { name.as_str() }, 1.0, vec![]),
        };
        Ok(Arc::new(HuggingfaceMetric {
            script,
            main_score: a.main_score.unwrap_or_else(|| main_default.to_string()),
            hf_main_score: a.hf_main_score,
            scale: a.scale.unwrap_or(scale_default),
            scaled_fields: a.scaled_fields.unwrap_or(fields_default),
            compute_args: a.hf_compute_args,
            tokenize_from_task: a.hf_additional_input_fields_pass_one_value.iter().any(|f| f == "tokenize"),
            ci: a.ci,
        }))
    }

    fn arg_usize(&self, k: &str, default: usize) -> usize {
        self.compute_args.get(k).and_then(Value::as_u64).map(|x| x as usize).unwrap_or(default)
    }
}

/// SQuAD prediction text: a string, or the `prediction_text` of a dict.
fn squad_prediction(v: &Value) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.as_str().to_owned()),
        Value::Object(o) => o
            .get("prediction_text")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| Error::invalid(format!("squad prediction has no `prediction_text`: {}", short(v)))),
        other => Err(Error::invalid(format!("squad prediction must be a dict or string, got {}", short(other)))),
    }
}

/// SQuAD answers: strings, or the `answers/text` lists of dicts.
fn squad_answers(references: &[Value]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for r in references {
        match r {
            Value::String(s) => out.push(s.to_string()),
            Value::Object(o) => {
                let t = o.get("answers").and_then(|a| a.get("text")).ok_or_else(|| {
                    Error::invalid(format!("squad reference has no `answers/text`: {}", short(r)))
                })?;
                match t {
                    Value::Array(a) => out.extend(a.iter().map(super::py_str)),
                    other => out.push(super::py_str(other)),
                }
            }
            other => return Err(Error::invalid(format!("squad reference must be a dict, got {}", short(other)))),
        }
    }
    Ok(out)
}

impl Metric for HuggingfaceMetric {
    fn main_score(&self) -> &str {
        &self.main_score
    }
    fn kind(&self) -> MetricKind {
        MetricKind::Global
    }
    fn n_resamples(&self) -> Option<usize> {
        self.ci.resamples(MetricKind::Global)
    }
    fn ci_scores(&self) -> Vec<String> {
        self.ci.names(vec![self.main_score.clone()])
    }
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value> {
        match self.script {
            HfScript::Bleu => {
                let p = text(prediction, "bleu", "prediction")?;
                let s = bleu::nmt_bleu_stats(p, &texts(references, "bleu")?, self.arg_usize("max_order", 4))?;
                Ok(crate::json!({"matches": s.matches, "possible": s.possible,
                    "reference_length": s.reference_length, "translation_length": s.translation_length}))
            }
            HfScript::Sacrebleu => {
                let p = text(prediction, "sacrebleu", "prediction")?;
                let tokenize = if self.tokenize_from_task {
                    let t = task_data
                        .get("tokenize")
                        .ok_or_else(|| Error::invalid("sacrebleu: task data has no `tokenize`"))?;
                    // Unitxt's catalog maps English to "", taken here as the default tokenizer.
                    Some(super::py_str(t)).filter(|s| !s.is_empty())
                } else {
                    self.compute_args.get("tokenize").and_then(Value::as_str).map(str::to_string)
                };
                let opts = bleu::SacreBleuOptions { tokenize: tokenize.clone(), ..Default::default() };
                let mut rec = sacre_record(&bleu::sacrebleu_stats(p, &texts(references, "sacrebleu")?, &opts)?);
                rec["tokenize"] = tokenize.map(Value::from).unwrap_or(Value::Null);
                Ok(rec)
            }
            HfScript::Squad => {
                let (em, f1) = squad::squad_em_f1(&squad_prediction(prediction)?, &squad_answers(references)?);
                Ok(crate::json!([em, f1]))
            }
            HfScript::Wer => {
                let p = text(prediction, "wer", "prediction")?;
                let r = text(single_reference(references, "wer")?, "wer", "reference")?;
                let (e, n) = edit::wer_stats(p, r);
                Ok(crate::json!([e, n]))
            }
        }
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        self.reduce(&[record])
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        Ok(self.reduce_full(records)?.0)
    }
    fn list_scores(&self, records: &[&Value]) -> Result<super::ListScores> {
        Ok(self.reduce_full(records)?.1)
    }
}

impl HuggingfaceMetric {
    /// Number scores and list scores (`bleu`: `precisions`; `sacrebleu`: `counts`, `totals`,
    /// `precisions`), renamed and scaled as Unitxt's `HuggingfaceMetric.compute` does.
    fn reduce_full(&self, records: &[&Value]) -> Result<(Scores, super::ListScores)> {
        let mut out = Scores::new();
        let mut lists: super::ListScores = Vec::new();
        match self.script {
            HfScript::Bleu => {
                let stats = records
                    .iter()
                    .map(|r| {
                        Ok(bleu::NmtBleuStats {
                            matches: u64s(&r["matches"], "bleu matches")?,
                            possible: u64s(&r["possible"], "bleu possible")?,
                            reference_length: u64_of(&r["reference_length"], "bleu reference_length")?,
                            translation_length: u64_of(&r["translation_length"], "bleu translation_length")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let refs: Vec<&bleu::NmtBleuStats> = stats.iter().collect();
                let smooth = self.compute_args.get("smooth").and_then(Value::as_bool).unwrap_or(false);
                let b = bleu::nmt_bleu_reduce(&refs, self.arg_usize("max_order", 4), smooth)?;
                lists.push(("precisions".into(), b.precisions.clone()));
                out.insert("bleu".into(), b.bleu);
                out.insert("brevity_penalty".into(), b.brevity_penalty);
                out.insert("length_ratio".into(), b.length_ratio);
                out.insert("translation_length".into(), b.translation_length as f64);
                out.insert("reference_length".into(), b.reference_length as f64);
            }
            HfScript::Sacrebleu => {
                let mut toks = records.iter().map(|r| r.get("tokenize").cloned().unwrap_or(Value::Null));
                let tokenize = toks.next().unwrap_or(Value::Null);
                if toks.any(|t| t != tokenize) {
                    return Err(Error::invalid("sacrebleu: `tokenize` differs between instances"));
                }
                let s = sacre_stats(records, 4)?;
                let opts = bleu::SacreBleuOptions {
                    tokenize: tokenize.as_str().map(str::to_string),
                    effective_order: false,
                    ..Default::default()
                };
                let b = bleu::sacrebleu_compute(&s, &opts)?;
                lists.push(("counts".into(), s.counts.iter().map(|&c| c as f64).collect()));
                lists.push(("totals".into(), s.totals.iter().map(|&c| c as f64).collect()));
                lists.push(("precisions".into(), b.precisions.clone()));
                out.insert("score".into(), b.score);
                out.insert("bp".into(), b.bp);
                out.insert("sys_len".into(), s.sys_len as f64);
                out.insert("ref_len".into(), s.ref_len as f64);
            }
            HfScript::Squad => {
                let pairs = records
                    .iter()
                    .map(|r| match r.as_array().map(|a| a.as_slice()) {
                        Some([em, f1]) => Ok((value_score(em)?, value_score(f1)?)),
                        _ => Err(Error::invalid("bad squad record")),
                    })
                    .collect::<Result<Vec<_>>>()?;
                if pairs.is_empty() {
                    return Err(Error::invalid("squad: no instances (division by zero)"));
                }
                // The script reports percentages; `squad_reduce` already divides by 100, so
                // the class's scale of 100 is undone here before applying `scale`.
                let (em, f1) = squad::squad_reduce(&pairs);
                out.insert("exact_match".into(), 100.0 * em);
                out.insert("f1".into(), 100.0 * f1);
            }
            HfScript::Wer => {
                let stats = records
                    .iter()
                    .map(|r| match r.as_array().map(|a| a.as_slice()) {
                        Some([e, n]) => Ok((u64_of(e, "wer errors")?, u64_of(n, "wer words")?)),
                        _ => Err(Error::invalid("bad wer record")),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let w = edit::wer_reduce(&stats)
                    .ok_or_else(|| Error::invalid("wer: the references have no words (division by zero)"))?;
                out.insert("wer".into(), w);
            }
        }
        if let Some(h) = &self.hf_main_score {
            let v = out
                .shift_remove(h)
                .ok_or_else(|| Error::invalid(format!("hf_main_score `{h}` is not among the scores")))?;
            out.insert(self.main_score.clone(), v);
        }
        if self.scale != 1.0 {
            for k in &self.scaled_fields {
                if let Some(v) = out.get_mut(k) {
                    *v /= self.scale;
                }
                for (name, xs) in lists.iter_mut() {
                    if name == k {
                        xs.iter_mut().for_each(|x| *x /= self.scale);
                    }
                }
            }
        }
        Ok((out, lists))
    }
}

/// A metric that needs a model, an LLM judge, or data not available here (`bert_score`,
/// `sentence_bert`, `perplexity`, `meteor_fast`, LLM judges, ...). It builds from any catalog
/// JSON so that recipes naming it load; computing it fails with an `Unsupported` error saying
/// what it needs.
pub struct NeedsModel {
    /// The artifact type, for the message.
    pub type_name: String,
    /// Its main score (`main_score` of the JSON, else a per-type default).
    pub main_score: String,
    /// What it needs (e.g. "a model").
    pub what: String,
}

impl NeedsModel {
    /// Builds the stand-in for type `t` from its JSON `v`.
    pub fn build(t: &str, v: &Value) -> NeedsModel {
        let default = match t {
            "bert_score" => "f1",
            "sentence_bert" => "sbert_score",
            "meteor_fast" => "meteor",
            "f1_strings" => "f1_strings",
            "fin_qa_eval" => "program_accuracy",
            "reflection_tool_calling_metric" | "reflection_tool_calling_metric_syntactic" => "overall_valid",
            "sql_execution_accuracy" => "non_empty_execution_accuracy",
            other => other,
        };
        let what = match t {
            "meteor_fast" => {
                "NLTK's wordnet data, which is downloaded from the network (not in NLTK_DATA here)"
            }
            "f1_strings" => "spaCy's `en_core_web_sm` model",
            "fin_qa_eval" => "FinQA's evaluation script, which Unitxt downloads from GitHub when it runs",
            "reflection_tool_calling_metric" => "an LLM judge (llmevalkit's reflection pipeline)",
            "reflection_tool_calling_metric_syntactic" => {
                "llmevalkit's static tool-call checks; llmevalkit is not public (Unitxt installs it from IBM's internal GitHub, \
                 github.ibm.com), so neither its code nor its behaviour can be had here"
            }
            "sql_execution_accuracy" => "the task's SQL databases (network access)",
            _ => "a model or an inference engine (not available in unitxt-rs)",
        };
        NeedsModel {
            type_name: t.to_string(),
            main_score: v.get("main_score").and_then(Value::as_str).unwrap_or(default).to_string(),
            what: what.to_string(),
        }
    }
}

impl Metric for NeedsModel {
    fn main_score(&self) -> &str {
        &self.main_score
    }
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        // METEOR's wordnet data, FinQA's script, the SQL databases and llmevalkit (on a private
        // host) are downloads away; the rest need a model.
        let need = match self.type_name.as_str() {
            "meteor_fast" | "fin_qa_eval" | "sql_execution_accuracy" | "reflection_tool_calling_metric_syntactic" => {
                crate::error::Need::Network
            }
            _ => crate::error::Need::Model,
        };
        Some(crate::error::Unavailable {
            need,
            reason: format!("metric `{}` needs {}", self.type_name, self.what),
        })
    }
    fn map(&self, _: &Value, _: &[Value], _: &Instance) -> Result<Value> {
        Err(Error::unsupported(format!("metric `{}` needs {}", self.type_name, self.what)))
    }
    fn instance_scores(&self, _: &Value) -> Result<Scores> {
        Err(Error::unsupported(format!("metric `{}` needs {}", self.type_name, self.what)))
    }
    fn reduce(&self, _: &[&Value]) -> Result<Scores> {
        Err(Error::unsupported(format!("metric `{}` needs {}", self.type_name, self.what)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::json;

    fn build(v: Value) -> Arc<dyn Metric> {
        match crate::testutil::build(&v) {
            Ok(crate::registry::Artifact::Metric(m)) => m.inner.clone(),
            Ok(other) => panic!("not a metric: {}", other.kind()),
            Err(e) => panic!("{e}"),
        }
    }

    fn run(m: &dyn Metric, data: &[(Value, Vec<Value>)]) -> (Vec<Value>, Scores) {
        let td = Instance::new();
        let recs: Vec<Value> = data.iter().map(|(p, r)| m.map(p, r, &td).expect("map")).collect();
        let all: Vec<&Value> = recs.iter().collect();
        let g = m.reduce(&all).expect("reduce");
        (recs, g)
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    // The example of the `bleu` card of HF `evaluate` (google NMT `compute_bleu`): BLEU 1.0,
    // brevity penalty 1.0, length ratio 7/6, lengths 7 and 6.
    #[test]
    fn hf_bleu_published_example() {
        let m = build(json!({"__type__": "huggingface_metric", "hf_metric_name": "bleu", "main_score": "bleu"}));
        assert_eq!(m.kind(), MetricKind::Global);
        assert_eq!(m.n_resamples(), Some(100));
        let (_, g) = run(
            m.as_ref(),
            &[
                (json!("hello there general kenobi"), vec![json!("hello there general kenobi"), json!("hello there !")]),
                (json!("foo bar foobar"), vec![json!("foo bar foobar")]),
            ],
        );
        close(g["bleu"], 1.0);
        close(g["brevity_penalty"], 1.0);
        close(g["length_ratio"], 7.0 / 6.0);
        close(g["translation_length"], 7.0);
        close(g["reference_length"], 6.0);
    }

    // SQuAD v1.1 definition (HF `evaluate` `squad`): "1976" matches exactly (EM 1, F1 1);
    // "the Denver Broncos team" vs "Denver Broncos" normalizes to 3 vs 2 tokens, 2 shared:
    // P 2/3, R 1, F1 0.8, EM 0. Means 0.5 and 0.9; Unitxt's `Squad` divides the percentages by 100.
    #[test]
    fn squad_definition() {
        let m = build(json!({"__type__": "squad"}));
        assert_eq!(m.main_score(), "f1");
        let refs = |t: &str| vec![json!({"answers": {"answer_start": [-1], "text": [t]}, "id": "0"})];
        let (recs, g) = run(
            m.as_ref(),
            &[
                (json!({"prediction_text": "1976", "id": "0"}), refs("1976")),
                (json!({"prediction_text": "the Denver Broncos team", "id": "1"}), refs("Denver Broncos")),
            ],
        );
        close(g["exact_match"], 0.5);
        close(g["f1"], 0.9);
        let one = m.instance_scores(&recs[1]).expect("instance");
        close(one["f1"], 0.8);
        close(one["exact_match"], 0.0);
    }

    // The example of the `wer` card of HF `evaluate`: WER 0.5 (4 errors over 8 reference words).
    #[test]
    fn wer_published_example() {
        let m = build(json!({"__type__": "wer"}));
        let (_, g) = run(
            m.as_ref(),
            &[
                (json!("this is the prediction"), vec![json!("this is the reference")]),
                (json!("there is an other sample"), vec![json!("there is another one")]),
            ],
        );
        close(g["wer"], 0.5);
        let err = m.map(&json!("a"), &[json!("a"), json!("b")], &Instance::new()).unwrap_err();
        assert!(err.message.contains("single reference"), "{err}");
    }

    // sacrebleu 2.6.0 `corpus_bleu` on the same two segments (run in /work/venv):
    // score 40.016016019225006, bp 1.0, sys_len 13, ref_len 12.
    #[test]
    fn hf_sacrebleu_matches_corpus_bleu() {
        let m = build(json!({"__type__": "huggingface_metric", "hf_metric_name": "sacrebleu",
            "hf_main_score": "score", "main_score": "sacrebleu", "scale": 1.0}));
        let (_, g) = run(
            m.as_ref(),
            &[
                (json!("The cat sat on the mat."), vec![json!("The cat is on the mat.")]),
                (json!("Hello there, general Kenobi!"), vec![json!("Hello there general Kenobi!")]),
            ],
        );
        assert!((g["sacrebleu"] - 40.016016019225006).abs() < 1e-9, "{g:?}");
        assert!(!g.contains_key("score"));
        close(g["bp"], 1.0);
        close(g["sys_len"], 13.0);
        close(g["ref_len"], 12.0);
    }

    // Python: round(0.125, 2) == 0.12, round(0.375, 2) == 0.38, round(2.675, 2) == 2.67.
    #[test]
    fn round2_like_python() {
        assert_eq!(round2(0.125), 0.12);
        assert_eq!(round2(0.375), 0.38);
        assert_eq!(round2(2.675), 2.67);
    }

    #[test]
    fn model_metrics_fail_as_unsupported() {
        for v in [
            json!({"__type__": "bert_score", "model_name": "bert-base-uncased"}),
            json!({"__type__": "meteor_fast"}),
            json!({"__type__": "huggingface_metric", "hf_metric_name": "meteor", "main_score": "meteor"}),
        ] {
            let m = build(v);
            let e = m.map(&json!("a"), &[json!("a")], &Instance::new()).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
            assert!(e.message.contains("needs"), "{e}");
        }
    }

    // CustomF1 by hand: prediction {(A,PER),(B,LOC)}, reference {(A,PER),(C,LOC)}: PER 1/1, LOC
    // 0/1 each way, so f1_PER 1, f1_LOC 0, macro 0.5, micro P = R = F1 = 0.5.
    #[test]
    fn ner_counts() {
        let m = build(json!({"__type__": "ner"}));
        let (_, g) = run(
            m.as_ref(),
            &[(json!([["A", "PER"], ["B", "LOC"]]), vec![json!([["A", "PER"], ["C", "LOC"]])])],
        );
        close(g["f1_PER"], 1.0);
        close(g["f1_LOC"], 0.0);
        close(g["f1_macro"], 0.5);
        close(g["f1_micro"], 0.5);
        close(g["in_classes_support"], 1.0);
    }
}
