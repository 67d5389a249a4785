//! ROUGE as computed by Google's `rouge_score` package (`RougeScorer(rouge_types, use_stemmer=False)`
//! with its default tokenizer and `score_multi`), which Unitxt's `Rouge` metric calls after joining
//! the NLTK Punkt sentences of each text with newlines (see [`super::punkt`]).
//!
//! Stemming (`use_stemmer=True`) is not implemented: Unitxt always passes `use_stemmer=False`.

use std::collections::{BTreeSet, HashMap};

use indexmap::IndexMap;

use crate::error::{Error, Result};

use super::fmeasure;

/// rouge_score's default tokenizer: lowercase, every run of characters other than `[a-z0-9]`
/// becomes a separator, keep the non-empty tokens.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Precision, recall and F-measure of one ROUGE type (rouge_score's `Score`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RougeScore {
    /// Matched units over prediction units.
    pub precision: f64,
    /// Matched units over target units.
    pub recall: f64,
    /// Harmonic mean of the two.
    pub fmeasure: f64,
}

const ZERO: RougeScore = RougeScore {
    precision: 0.0,
    recall: 0.0,
    fmeasure: 0.0,
};

fn ngram_counts(tokens: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut m = HashMap::new();
    if n > 0 && tokens.len() >= n {
        for w in tokens.windows(n) {
            *m.entry(w).or_insert(0) += 1;
        }
    }
    m
}

/// ROUGE-N: clipped n-gram overlap (rouge_score `_score_ngrams`).
pub fn score_ngrams(target: &[String], prediction: &[String], n: usize) -> RougeScore {
    let t = ngram_counts(target, n);
    let p = ngram_counts(prediction, n);
    let inter: usize = t
        .iter()
        .map(|(g, c)| (*c).min(p.get(g).copied().unwrap_or(0)))
        .sum();
    let tc: usize = t.values().sum();
    let pc: usize = p.values().sum();
    let precision = inter as f64 / pc.max(1) as f64;
    let recall = inter as f64 / tc.max(1) as f64;
    RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    }
}

fn lcs_table(a: &[String], b: &[String]) -> Vec<Vec<usize>> {
    let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            t[i][j] = if a[i - 1] == b[j - 1] {
                t[i - 1][j - 1] + 1
            } else {
                t[i - 1][j].max(t[i][j - 1])
            };
        }
    }
    t
}

/// ROUGE-L: longest common subsequence of the two token lists (rouge_score `_score_lcs`).
pub fn score_lcs(target: &[String], prediction: &[String]) -> RougeScore {
    if target.is_empty() || prediction.is_empty() {
        return ZERO;
    }
    let lcs = lcs_table(target, prediction)[target.len()][prediction.len()] as f64;
    let precision = lcs / prediction.len() as f64;
    let recall = lcs / target.len() as f64;
    RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    }
}

/// Indices in `r` of one LCS of `r` and `c`, chosen by rouge_score's backtracking order.
fn lcs_indices(r: &[String], c: &[String]) -> Vec<usize> {
    let t = lcs_table(r, c);
    let (mut i, mut j) = (r.len(), c.len());
    let mut out = Vec::new();
    while i > 0 && j > 0 {
        if r[i - 1] == c[j - 1] {
            out.push(i - 1);
            i -= 1;
            j -= 1;
        } else if t[i][j - 1] > t[i - 1][j] {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    out.reverse();
    out
}

/// ROUGE-Lsum: summary-level union LCS over sentences (rouge_score `_summary_level_lcs`).
pub fn score_summary_lcs(
    target_sents: &[Vec<String>],
    prediction_sents: &[Vec<String>],
) -> RougeScore {
    if target_sents.is_empty() || prediction_sents.is_empty() {
        return ZERO;
    }
    let m: usize = target_sents.iter().map(Vec::len).sum();
    let n: usize = prediction_sents.iter().map(Vec::len).sum();
    if m == 0 || n == 0 {
        return ZERO;
    }
    let mut cnt_r: HashMap<&str, i64> = HashMap::new();
    let mut cnt_c: HashMap<&str, i64> = HashMap::new();
    for t in target_sents.iter().flatten() {
        *cnt_r.entry(t).or_insert(0) += 1;
    }
    for t in prediction_sents.iter().flatten() {
        *cnt_c.entry(t).or_insert(0) += 1;
    }
    let mut hits = 0usize;
    for r in target_sents {
        let union: BTreeSet<usize> = prediction_sents
            .iter()
            .flat_map(|c| lcs_indices(r, c))
            .collect();
        for i in union {
            let tok = r[i].as_str();
            let (cc, cr) = (
                cnt_c.get(tok).copied().unwrap_or(0),
                cnt_r.get(tok).copied().unwrap_or(0),
            );
            if cc > 0 && cr > 0 {
                hits += 1;
                cnt_c.insert(tok, cc - 1);
                cnt_r.insert(tok, cr - 1);
            }
        }
    }
    let recall = hits as f64 / m as f64;
    let precision = hits as f64 / n as f64;
    RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    }
}

/// rouge_score `RougeScorer.score(target, prediction)` for the given types (`rouge1`..`rouge9`,
/// `rougeL`, `rougeLsum`; for `rougeLsum` sentences are the non-empty `\n`-separated lines).
/// Errors on an unknown rouge type.
pub fn score(
    target: &str,
    prediction: &str,
    rouge_types: &[String],
) -> Result<IndexMap<String, RougeScore>> {
    let tt = tokenize(target);
    let pt = tokenize(prediction);
    let sents = |s: &str| -> Vec<Vec<String>> {
        s.split('\n')
            .filter(|x| !x.is_empty())
            .map(tokenize)
            .collect()
    };
    let mut out = IndexMap::new();
    for ty in rouge_types {
        let s = match ty.as_str() {
            "rougeL" => score_lcs(&tt, &pt),
            "rougeLsum" => score_summary_lcs(&sents(target), &sents(prediction)),
            _ => {
                let n = ty
                    .strip_prefix("rouge")
                    .filter(|d| d.len() == 1)
                    .and_then(|d| d.parse::<usize>().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::invalid(format!("Invalid rouge type: {ty}")))?;
                score_ngrams(&tt, &pt, n)
            }
        };
        out.insert(ty.clone(), s);
    }
    Ok(out)
}

/// rouge_score `RougeScorer.score_multi`: per type, the score against the target with the highest
/// F-measure (first one on ties). Errors when there is no target or a type is unknown.
pub fn score_multi(
    targets: &[String],
    prediction: &str,
    rouge_types: &[String],
) -> Result<IndexMap<String, RougeScore>> {
    if targets.is_empty() {
        return Err(Error::invalid(
            "Rouge needs at least one reference per instance",
        ));
    }
    let all: Vec<_> = targets
        .iter()
        .map(|t| score(t, prediction, rouge_types))
        .collect::<Result<_>>()?;
    let mut out = IndexMap::new();
    for ty in rouge_types {
        let mut best = all[0][ty];
        for s in &all[1..] {
            if s[ty].fmeasure > best.fmeasure {
                best = s[ty];
            }
        }
        out.insert(ty.clone(), best);
    }
    Ok(out)
}

/// Unitxt `Rouge.compute`: when `sent_split_newline`, each text is stripped, split into Punkt
/// sentences with `splitter` and re-joined with `\n`; then `score_multi`, keeping F-measures.
pub fn unitxt_rouge(
    prediction: &str,
    references: &[String],
    rouge_types: &[String],
    splitter: Option<&super::punkt::Punkt>,
) -> Result<IndexMap<String, f64>> {
    let prep = |s: &str| match splitter {
        Some(p) => p.sent_tokenize(super::py_strip(s)).join("\n"),
        None => s.to_string(),
    };
    let refs: Vec<String> = references.iter().map(|r| prep(r)).collect();
    let scores = score_multi(&refs, &prep(prediction), rouge_types)?;
    Ok(scores.into_iter().map(|(k, v)| (k, v.fmeasure)).collect())
}
