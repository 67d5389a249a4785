//! Text-generation metric algorithms as pure functions (no `Metric` trait here): ROUGE, BLEU
//! (sacrebleu and the Google NMT script of HF `evaluate`), SQuAD exact match / F1, token overlap,
//! WER, character edit distance, ANLS and span-level NER F1.
//!
//! Corpus-level metrics (BLEU, sacreBLEU, WER, NER) are split into per-instance sufficient
//! statistics that can be summed, and a reduce step, so that a bootstrap resample re-reduces
//! stored statistics.

pub mod bleu;
pub mod edit;
pub mod ner;
pub mod punkt;
pub mod rouge;
pub mod squad;

/// Python's `str.isspace` for one character: Unicode White_Space plus the ASCII information
/// separators U+001C..U+001F, which Python also treats as whitespace.
pub fn py_is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.split()` (no argument): runs of whitespace separate words; no empty words.
pub fn py_split(s: &str) -> Vec<&str> {
    s.split(py_is_space).filter(|w| !w.is_empty()).collect()
}

/// Python's `s.strip()` (no argument).
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_is_space)
}

/// Levenshtein distance (unit costs) between two sequences.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let (a, b) = if a.len() > b.len() { (b, a) } else { (a, b) };
    let mut prev: Vec<usize> = (0..=a.len()).collect();
    let mut cur = vec![0usize; a.len() + 1];
    for (j, cb) in b.iter().enumerate() {
        cur[0] = j + 1;
        for (i, ca) in a.iter().enumerate() {
            let sub = prev[i] + usize::from(ca != cb);
            cur[i + 1] = sub.min(prev[i + 1] + 1).min(cur[i] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[a.len()]
}

/// The harmonic mean of precision and recall, 0 when both are 0 (rouge_score's `fmeasure`).
pub fn fmeasure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests_ref;
