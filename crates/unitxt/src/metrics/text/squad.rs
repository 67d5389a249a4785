//! SQuAD v1.1 exact match and F1 (HF `evaluate`'s `squad` script) and Unitxt's `TokenOverlap`,
//! which share the answer normalization.

use std::collections::HashMap;

use super::py_split;

/// SQuAD's `normalize_answer`: lowercase, drop ASCII punctuation, drop the words `a`/`an`/`the`,
/// collapse whitespace.
pub fn normalize_answer(s: &str) -> String {
    let no_punc: String = s
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    // `\b(a|an|the)\b` → " ": the article must not touch word characters on either side.
    let c: Vec<char> = no_punc.chars().collect();
    let w = |i: usize| c.get(i).is_some_and(|x| x.is_alphanumeric() || *x == '_');
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        let at_boundary = i == 0 || !w(i - 1);
        let mut hit = 0;
        if at_boundary {
            for art in ["the", "an", "a"] {
                let n = art.len();
                if c.len() >= i + n && c[i..i + n].iter().copied().eq(art.chars()) && !w(i + n) {
                    hit = n;
                    break;
                }
            }
        }
        if hit > 0 {
            out.push(' ');
            i += hit;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    py_split(&out).join(" ")
}

/// Token precision, recall and F1 of a prediction against one answer (0 when nothing overlaps).
pub fn token_prf(prediction: &str, reference: &str) -> (f64, f64, f64) {
    let p = normalize_answer(prediction);
    let r = normalize_answer(reference);
    let pt = py_split(&p);
    let rt = py_split(&r);
    let mut rc: HashMap<&str, usize> = HashMap::new();
    for t in &rt {
        *rc.entry(t).or_insert(0) += 1;
    }
    let mut same = 0usize;
    for t in &pt {
        if let Some(c) = rc.get_mut(t) {
            if *c > 0 {
                *c -= 1;
                same += 1;
            }
        }
    }
    if same == 0 {
        return (0.0, 0.0, 0.0);
    }
    let pr = same as f64 / pt.len() as f64;
    let rc = same as f64 / rt.len() as f64;
    (pr, rc, 2.0 * pr * rc / (pr + rc))
}

/// SQuAD exact match (0/1) and F1 (0..1) of one prediction: each the maximum over the answers
/// (0 for both when there is no answer).
pub fn squad_em_f1(prediction: &str, answers: &[String]) -> (f64, f64) {
    let np = normalize_answer(prediction);
    let em = answers.iter().any(|a| normalize_answer(a) == np);
    let f1 = answers
        .iter()
        .map(|a| token_prf(prediction, a).2)
        .fold(None, |m: Option<f64>, x| {
            Some(m.map_or(x, |m| if x > m { x } else { m }))
        });
    (if em { 1.0 } else { 0.0 }, f1.unwrap_or(0.0))
}

/// Unitxt's `Squad` global scores from per-instance (em, f1): `evaluate` reports
/// `100 * sum / n` and Unitxt divides by its scale 100. Returns (exact_match, f1); NaN for no
/// instances.
pub fn squad_reduce(per_instance: &[(f64, f64)]) -> (f64, f64) {
    let n = per_instance.len() as f64;
    let em: f64 = per_instance.iter().map(|x| x.0).sum();
    let f1: f64 = per_instance.iter().map(|x| x.1).sum();
    (100.0 * em / n / 100.0, 100.0 * f1 / n / 100.0)
}

/// Unitxt `TokenOverlap.compute`: (precision, recall, f1), each the maximum over the references
/// of the SQuAD token scores. Returns None when there is no reference.
pub fn token_overlap(prediction: &str, references: &[String]) -> Option<(f64, f64, f64)> {
    let all: Vec<_> = references
        .iter()
        .map(|r| token_prf(prediction, r))
        .collect();
    let max = |f: fn(&(f64, f64, f64)) -> f64| {
        all.iter().map(f).fold(None, |m: Option<f64>, x| {
            Some(m.map_or(x, |m| if x > m { x } else { m }))
        })
    };
    Some((max(|x| x.0)?, max(|x| x.1)?, max(|x| x.2)?))
}
